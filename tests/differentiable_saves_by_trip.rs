//! Saves by trip (issue 14): a loop that no jump ends early (nor any of its trips) makes
//! each save in no branch of its body exactly once per trip, so one run of it leaves
//! exactly its trip count of records (one tuple per trip, pushed at the trip's end, of
//! every such save) on the loop's stack. The adjoint takes that part of the stack once, as
//! a slice of the trip count (`generated::trip_saves`), and reads it at the trip it
//! replays, instead of popping value by value. Values saved in a branch of the body, and
//! every loop a `break`, `continue` or `return` may end early, push and pop as before.
//!
//! Each case is checked through every face (`Case::check_with_second_order`: the value to
//! the bit, `grad` and `grad_into` against each other and against central differences,
//! `jvp`, and second order), at trip counts zero, one and more, and `grad_into` against
//! `vjp`'s pullback (the same saves, read from the closure); where the code should read by
//! trip it is checked that it does, and where it should not, that it does not. The 0-d
//! path of tensor functions (`vjp_scalar`), which reads by trip too, is checked against the
//! op-by-op tape in `tests/differentiable_zero_d.rs` (its `loops`).

#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use common::close;
use common::faces::{Case, point};
use gradtape::differentiable;

/// Saves of several kinds in one trip: products' operands (`lhs`, `rhs`), a unary op's
/// input (`sin`) and output (`exp`), a `max`'s selection, a load at an index that is not
/// the counter, an element write at one, a branch flag and a `match` arm (by trip: one
/// per trip, whichever way it goes), and a value saved in one arm only (popped).
#[differentiable]
fn several_kinds(x: &[f64], k: usize) -> f64 {
    let n = x.len();
    let mut acc = 0.5;
    let mut out = vec![0.0; n];
    for i in 0..k {
        let a = x[i % n];
        let b = x[(i * 3 + 1) % n];
        let p = a * acc;
        let q = p.sin() + b.exp();
        let m = q.max(acc);
        out[(i * 2) % n] = m * a;
        if a > 0.5 {
            acc = m * b;
        } else {
            acc = m + 0.25 * b;
        }
        match i % 3 {
            0 => acc *= 0.75,
            1 => acc = acc.cos() + a,
            _ => {}
        }
    }
    acc + out.iter().sum::<f64>()
}

/// The same loop with a `break`: it may end early, so it pops value by value.
#[differentiable]
fn with_a_break(x: &[f64], k: usize) -> f64 {
    let n = x.len();
    let mut acc = 0.3;
    for i in 0..k {
        acc = acc * x[i % n] + x[(i + 1) % n].sin();
        if acc > 1.0 {
            break;
        }
    }
    acc
}

/// A `continue` ends some trips early: popped value by value.
#[differentiable]
fn with_a_continue(x: &[f64], k: usize) -> f64 {
    let n = x.len();
    let mut acc = 0.3;
    for i in 0..k {
        if i % 2 == 1 {
            continue;
        }
        acc = acc * x[i % n] + x[(i + 1) % n].sin();
    }
    acc
}

/// Nested loops over ranges, the inner one's length the outer counter's (zero in the
/// first trip): the inner trip count is read by the outer loop's trip, the inner values
/// by the inner loop's, each run's part of the stack after the one before.
#[differentiable]
fn nested(x: &[f64], k: usize) -> f64 {
    let n = x.len();
    let mut acc = 0.2;
    for i in 0..k {
        let a = x[i % n];
        for j in 0..i {
            acc = acc * a + (x[(i + j) % n] * acc).sin();
        }
        acc = acc * 0.9 + a * a;
    }
    acc
}

/// Ranges computed from parameters: a reversed one, one stepped by 2, an inclusive one,
/// and one whose bounds are both computed.
#[differentiable]
fn computed_ranges(x: &[f64], k: usize) -> f64 {
    let n = x.len();
    let mut acc = 1.0;
    for i in (0..k.min(n)).rev() {
        acc = acc * x[i] + 0.1;
    }
    for i in (0..k).step_by(2) {
        acc = (acc * x[i % n]).sin() + acc;
    }
    for i in 1..=k {
        acc = acc * x[(i * 5) % n] - 0.05 * acc * acc;
    }
    for i in k / 2..k + n / 2 {
        acc += acc.tanh() * x[i % n];
    }
    acc
}

/// A loop inside an `if` (by trip: the branch is around the whole loop), and one whose
/// body holds an `if` with a loop of its own (by trip too, inside the branch).
#[differentiable]
fn loops_in_branches(x: &[f64], k: usize) -> f64 {
    let n = x.len();
    let mut acc = x[0];
    if x[0] > 0.4 {
        for i in 0..k {
            acc = acc * x[i % n] + 0.5;
        }
    } else {
        acc *= 2.0;
    }
    for i in 0..k {
        let a = x[(i + 1) % n];
        if a > 0.5 {
            for j in 0..2 {
                acc = acc * a + x[j % n];
            }
        }
        acc = acc.sin() * a;
    }
    acc
}

/// A `while` loop: its trip count is known only at its end, which is when the adjoint
/// takes its saves, so it reads them by trip too.
#[differentiable]
fn in_a_while(x: &[f64], k: usize) -> f64 {
    let n = x.len();
    let mut acc = 0.7;
    let mut i = 0;
    while i < k {
        acc = acc * x[i % n] + (acc * x[(i + 2) % n]).cos();
        i += 1;
    }
    acc
}

/// Range loops inside other loops: inside a `while` (each run of the inner loop appends
/// its part to the stack, read back run by run), and inside a loop a `break` ends early
/// (the inner loop reads by trip, the outer one pops value by value).
#[differentiable]
fn ranges_inside_other_loops(x: &[f64], k: usize) -> f64 {
    let n = x.len();
    let mut acc = 0.4;
    let mut i = 0;
    while i < k {
        for j in 0..i + 1 {
            acc = acc * x[(i + j) % n] + 0.3 * acc.sin() + 0.2;
        }
        i += 1;
    }
    for i in 0..k {
        for j in 0..2 {
            acc = (acc * x[(i * 2 + j) % n]).tanh() + acc;
        }
        if acc > 3.0 {
            break;
        }
    }
    acc
}

/// A loop over an array's elements (an iterator, not a range as written): the desugaring
/// makes it a range over the indices.
#[differentiable]
fn over_elements(x: &[f64], k: usize) -> f64 {
    let mut acc = 0.1 * k as f64;
    for v in x.iter() {
        acc = acc * v + v.sin();
    }
    acc
}

/// A function generic over its float type: its saves are `F`s.
#[differentiable]
fn generic<F: gradtape::Float>(x: &[F], k: usize) -> F {
    let n = x.len();
    let mut acc = x[0];
    for i in 0..k {
        acc = acc * x[i % n] + x[(i + 1) % n].sin();
    }
    acc
}

fn generic_f64(x: &[f64], k: usize) -> f64 {
    generic(x, k)
}

/// `f(x, k)`'s faces, and its `grad_into` against its pullback, for each trip count.
macro_rules! with_trips {
    ($f:ident, $n:expr, $seed:expr, [$($k:expr),*]) => {{
        $(
            let k: usize = $k;
            let x = point($n, $seed, 0.2, 0.9);
            let case = format!("{} at k = {}", stringify!($f), k);
            Case {
                name: &case,
                itself: &|x| $f(x, k),
                primal: &|x| $f::primal(x, k),
                grad: Some(&|x| {
                    let (value, g) = $f::grad(x, k);
                    { let [g] = g; (value, g) }
                }),
                grad_into: &|x| {
                    let mut d = vec![0.0; x.len()];
                    let value = $f::grad_into(x, k, &mut d);
                    (value, d)
                },
                jvp: &|x, v| $f::jvp(x, k, v),
            }
            .check_with_second_order(&x);
            let mut d = vec![0.0; x.len()];
            let value = $f::grad_into(&x, k, &mut d);
            let (pullback_value, pullback) = $f::vjp(&x, k);
            let kept = pullback(1.0).0.expect("a gradient");
            assert_eq!(value.to_bits(), pullback_value.to_bits(), "{case}: value");
            for (i, (a, b)) in d.iter().zip(&kept).enumerate() {
                assert!(close(*a, *b, 1e-12), "{case}: d/dx{i} grad_into {a}, pullback {b}");
            }
        )*
    }};
}

/// How many loops of `vjp`'s generated code read saves by trip (`let record3_slots =
/// generated::trip_saves(..)` before the reverse loop, `&record3_slots[replay3].0` in it):
/// the distinct loops whose replayed trip indexes a slice of records.
fn loops_saving_by_trip(generated: &str) -> usize {
    let vjp = &generated[generated.find("pub fn vjp_partial").expect("vjp_partial")..];
    let vjp = &vjp[..vjp[1..].find("pub fn ").map_or(vjp.len(), |k| k + 1)];
    let mut loops: Vec<&str> = vjp
        .split("_slots[replay")
        .skip(1)
        .map(|rest| &rest[..rest.find(']').expect("an index")])
        .collect();
    loops.sort_unstable();
    loops.dedup();
    loops.len()
}

#[test]
fn saves_of_several_kinds_in_one_trip() {
    with_trips!(several_kinds, 5, 11, [0, 1, 2, 7]);
    let generated = several_kinds::GENERATED;
    assert_eq!(loops_saving_by_trip(generated), 1, "{generated}");
    // the `if`'s flag and the `match`'s arm by trip, the `cos` in an arm popped
    let read_by_trip: Vec<&str> = generated
        .lines()
        .filter(|line| line.contains("= &record"))
        .filter_map(|line| line.trim().strip_prefix("let "))
        .collect();
    for by_trip in ["branch", "arm", "lhs", "rhs", "sel", "load"] {
        assert!(
            read_by_trip.iter().any(|read| read.starts_with(by_trip)),
            "{by_trip}: {generated}"
        );
    }
    assert!(generated.contains("generated::pop("), "{generated}");
}

#[test]
fn a_loop_with_a_jump_pops_value_by_value() {
    with_trips!(with_a_break, 4, 12, [0, 1, 3, 9]);
    with_trips!(with_a_continue, 4, 13, [0, 1, 2, 6]);
    assert_eq!(loops_saving_by_trip(with_a_break::GENERATED), 0);
    assert_eq!(loops_saving_by_trip(with_a_continue::GENERATED), 0);
    assert!(!with_a_break::GENERATED.contains("trip_saves"));
    // from this point the `break` ends the loop early at k = 9: the run without it differs
    let x = point(4, 12, 0.2, 0.9);
    let mut unbroken = 0.3;
    for i in 0..9 {
        unbroken = unbroken * x[i % 4] + x[(i + 1) % 4].sin();
    }
    assert_ne!(with_a_break::primal(&x, 9).to_bits(), unbroken.to_bits());
}

#[test]
fn nested_loops_save_by_their_own_trips() {
    with_trips!(nested, 4, 14, [0, 1, 2, 5]);
    assert_eq!(
        loops_saving_by_trip(nested::GENERATED),
        2,
        "{}",
        nested::GENERATED
    );
}

#[test]
fn ranges_computed_from_parameters() {
    with_trips!(computed_ranges, 6, 15, [0, 1, 2, 4, 9]);
    assert_eq!(loops_saving_by_trip(computed_ranges::GENERATED), 4);
}

#[test]
fn loops_inside_branches() {
    // x[0] above and below the branch's bound
    let seeds = [16, 17, 18, 19, 23, 24];
    let taken = seeds
        .iter()
        .filter(|&&seed| point(4, seed, 0.2, 0.9)[0] > 0.4)
        .count();
    assert!(0 < taken && taken < seeds.len(), "both ways of the branch");
    for seed in seeds {
        with_trips!(loops_in_branches, 4, seed, [0, 1, 3]);
    }
    assert_eq!(loops_saving_by_trip(loops_in_branches::GENERATED), 3);
}

#[test]
fn a_while_loop_and_a_loop_over_elements() {
    with_trips!(in_a_while, 3, 20, [0, 1, 4]);
    assert_eq!(loops_saving_by_trip(in_a_while::GENERATED), 1);
    with_trips!(over_elements, 5, 21, [0, 3]);
}

#[test]
fn range_loops_inside_other_loops() {
    with_trips!(ranges_inside_other_loops, 4, 25, [0, 1, 2, 6]);
    // the `while` and the two inner `for`s by trip; the `for` with a `break` pops
    assert_eq!(
        loops_saving_by_trip(ranges_inside_other_loops::GENERATED),
        3
    );
    // from this point the `break` ends the second outer loop early at k = 6 (and k = 2)
    let x = point(4, 25, 0.2, 0.9);
    let mut unbroken = 0.4;
    for i in 0..6 {
        for j in 0..=i {
            unbroken = unbroken * x[(i + j) % 4] + 0.3 * f64::sin(unbroken) + 0.2;
        }
    }
    let mut broke = false;
    for i in 0..6 {
        for j in 0..2 {
            unbroken = (unbroken * x[(i * 2 + j) % 4]).tanh() + unbroken;
        }
        if unbroken > 3.0 {
            broke = true;
            break;
        }
    }
    assert!(broke, "the `break` is taken at this point");
}

#[test]
fn a_generic_float_type() {
    with_trips!(generic_f64_faces, 3, 22, [0, 1, 5]);
    let x = point(3, 22, 0.2, 0.9);
    let (value, [g]) = generic::grad(&x, 4);
    assert_eq!(value.to_bits(), generic_f64(&x, 4).to_bits());
    let (value32, [g32]) = generic::grad(&x.iter().map(|&v| v as f32).collect::<Vec<_>>(), 4);
    assert!(close(value32 as f64, value, 1e-5));
    for (a, b) in g.iter().zip(&g32) {
        assert!(close(*a, *b as f64, 1e-4), "{a} vs {b}");
    }
}

#[differentiable]
fn generic_f64_faces(x: &[f64], k: usize) -> f64 {
    generic(x, k)
}
