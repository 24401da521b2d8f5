//! Let chains (`if let Some(s) = x.get(3) && s > 0.0`, Rust 2024) and destructuring
//! assignments of branches and arrays (`(lo, hi) = if a < b { (a, b) } else { (b, a) };`,
//! `[a, b] = [b, a];`), which `#[differentiable]` rejected before (`rewrite.rs`:
//! `LetChains`, `TupleBranches`), each checked against dual numbers and central
//! differences at orders 1 and 2 (`twice!`: the body annotated, and plain over
//! `num_traits::Float` on `gradtape::generated::Dual`), at points on each side of every
//! branch.

// the copies are written as users write them, element by element
#![allow(clippy::manual_memcpy)]

#[macro_use]
mod common;

use gradtape::differentiable;

// ----- let chains -----

twice! {
    /// A scale applied when a fourth value is given and positive: one `let` then a
    /// condition, in value position (a `match` with a guard).
    fn scaled_when_given / scaled_when_given_on_duals<T>(x: &[T]) -> T {
        if let Some(&s) = x.get(3) && s > T::zero() {
            x[0] * s
        } else {
            x[0].sin()
        }
    }
}

twice! {
    /// A product of two neighbours when both exist and are in order, else an exponential:
    /// a condition first and two `let`s, in value position (the branch's value held in
    /// an option).
    fn ordered_pair / ordered_pair_on_duals<T>(x: &[T]) -> T {
        let y = if x.len() > 2 && let Some(&a) = x.get(1) && let Some(&b) = x.get(2) && a < b {
            a * b + x[0]
        } else {
            x[0].exp() * x[1]
        };
        y * y
    }
}

twice! {
    /// An accumulation whose branches are statements, in an `else if` chain (a flag says
    /// whether the chain's branch ran).
    fn chained_statements / chained_statements_on_duals<T>(x: &[T]) -> T {
        let mut acc = T::zero();
        for i in 0..x.len() {
            if i > 0 && let Some(&next) = x.get(i + 1) && next > x[i - 1] {
                acc = acc + next * x[i];
            } else if let Some(&prev) = x.get(i.wrapping_sub(1)) {
                acc = acc - prev.cos();
            } else {
                acc = acc + x[i] * x[i];
            }
        }
        acc
    }
}

twice! {
    /// A chain with no `else`: nested `if let`s.
    fn penalty_without_else / penalty_without_else_on_duals<T>(x: &[T]) -> T {
        let mut y = x[0] * x[1];
        if let Some(&last) = x.last() && last > T::one() && let Some(&first) = x.first() {
            y = y + (last - T::one()) * first;
        }
        y
    }
}

twice! {
    /// A walk while the next value exists and stays above a floor: `while` with a chain.
    fn walk_above_floor / walk_above_floor_on_duals<T>(x: &[T]) -> T {
        let mut i = 0;
        let mut total = T::zero();
        while i < 10 && let Some(&v) = x.get(i) && v > T::from(-0.5).unwrap() {
            total = total + v.tanh() * x[0];
            i += 1;
        }
        total + T::from(i).unwrap() * x[1]
    }
}

#[test]
fn let_chains_in_value_position() {
    one_slice_twice!(scaled_when_given, scaled_when_given_on_duals at
        [0.4, 1.1, -0.3, 0.7], [0.4, 1.1, -0.3, -0.7]);
    one_slice_twice!(ordered_pair, ordered_pair_on_duals at
        [0.4, 1.1, 1.7], [0.4, 1.1, -0.3], [0.9, -0.2, 0.5]);
}

#[test]
fn let_chains_as_statements_with_and_without_else() {
    one_slice_twice!(chained_statements, chained_statements_on_duals at
        [0.4, 1.1, 1.7, 0.2], [0.4, -1.1, -0.3, 0.8], [1.3, 0.2, 0.1, -0.6]);
    one_slice_twice!(penalty_without_else, penalty_without_else_on_duals at
        [0.4, 1.1, 1.7], [0.4, 1.1, 0.3]);
}

#[test]
fn a_while_loop_with_a_let_chain() {
    one_slice_twice!(walk_above_floor, walk_above_floor_on_duals at
        [0.4, 1.1, 1.7, 0.2], [0.4, -1.1, -0.3, 0.8], [1.3, 0.2, -0.9, -0.6]);
}

// ----- destructuring assignments -----

twice! {
    /// Two values kept in order while each is pushed by the next element:
    /// `(lo, hi) = if .. { (..) } else { (..) };` in a loop.
    fn kept_in_order / kept_in_order_on_duals<T>(x: &[T]) -> T {
        let mut lo = x[0];
        let mut hi = x[1];
        for i in 2..x.len() {
            (lo, hi) = if lo + x[i] < hi { (lo + x[i], hi) } else { (hi, lo + x[i]) };
        }
        lo * hi.exp()
    }
}

twice! {
    /// A rotation step by step, the pair assigned from a `match` and its first part
    /// discarded once (`_`).
    fn matched_rotation / matched_rotation_on_duals<T>(x: &[T]) -> T {
        let (c, s) = (x[0].cos(), x[0].sin());
        let mut u = x[1];
        let mut v = x[2];
        let mut steps = T::zero();
        for k in 0..3 {
            (u, v, steps) = match k % 2 {
                0 => (c * u - s * v, s * u + c * v, steps + u),
                _ => (u * c, v, steps * s),
            };
        }
        let w;
        (_, w) = if u > v { (u, v * v) } else { (v, u * u) };
        u + v * steps + w
    }
}

twice! {
    /// Arrays assigned by destructuring: a swap, `[a, b] = [b, a];`, and the elements of
    /// an array by name, `[a, b] = pair;`.
    fn array_swaps / array_swaps_on_duals<T>(x: &[T]) -> T {
        let mut a = x[0];
        let mut b = x[1];
        for _ in 0..3 {
            [a, b] = [b, a * b];
        }
        let pair = [a.sin(), b * x[2]];
        [b, a] = pair;
        a - b * x[2]
    }
}

#[test]
fn destructuring_assignments_of_branches_and_arrays() {
    one_slice_twice!(kept_in_order, kept_in_order_on_duals at
        [0.4, 1.1, 0.3, 0.2], [0.4, -1.1, -0.3, 0.8], [1.3, 0.2, 0.9, -0.6]);
    one_slice_twice!(matched_rotation, matched_rotation_on_duals at
        [0.4, 1.1, 0.3], [2.4, -1.1, 0.5]);
    one_slice_twice!(array_swaps, array_swaps_on_duals at
        [0.4, 1.1, 0.3], [1.4, -0.7, 0.5]);
}

twice! {
    /// Active locals reset by a tuple of constants and assigned a constant tuple by name:
    /// `(a, b) = (1.0, 0.0);` was "can assign only to its own `let mut` locals" at the
    /// attribute (lowering saw no differentiable value on either side).
    fn reset_by_constants / reset_by_constants_on_duals<T>(x: &[T]) -> T {
        let mut a = x[0] * x[1];
        let mut b = x[1].exp();
        let kept = a * b;
        (a, b) = (T::one(), T::zero());
        let start = (T::from(0.5).unwrap(), T::from(2.0).unwrap());
        let mid = a + b * kept;
        (b, a) = start;
        a * mid + b * x[0]
    }
}

#[test]
fn tuple_assignment_of_constants_to_active_locals() {
    one_slice_twice!(reset_by_constants, reset_by_constants_on_duals at [0.4, 1.1], [-1.3, 0.2]);
}

/// A pair held by a configuration.
struct Limits {
    pair: (f64, f64),
}

/// Active locals assigned constant tuples read from a table by index, through a
/// reference and from a field: `(a, b) = table[1];`, `(a, b) = *r;`, `(b, a) = s.pair;`.
#[differentiable]
fn from_constant_tuples(x: f64, y: f64, table: &[(f64, f64)], r: &(f64, f64), s: &Limits) -> f64 {
    let mut a = x * y;
    let mut b = y.sin();
    let kept = a * b;
    (a, b) = table[1];
    let mid = a * kept + b;
    (a, b) = *r;
    let end = a * mid + b * x;
    (b, a) = s.pair;
    end * a + b * y
}

#[test]
fn destructuring_assignments_of_constant_tuples_by_index_reference_and_field() {
    let table = [(0.0, 0.0), (1.5, -0.25)];
    let r = (0.75, 2.0);
    let s = Limits { pair: (-0.5, 1.25) };
    let ((t0, t1), (r0, r1), (p0, p1)) = (table[1], r, s.pair);
    for (x, y) in [(0.4_f64, 1.1_f64), (-1.3, 0.2)] {
        // the value and its derivatives in closed form
        let value = p1 * (r0 * (t0 * x * y * y.sin() + t1) + r1 * x) + p0 * y;
        let dx = p1 * (r0 * t0 * y * y.sin() + r1);
        let dy = p1 * r0 * t0 * x * (y.sin() + y * y.cos()) + p0;
        let itself = from_constant_tuples(x, y, &table, &r, &s);
        assert!(common::close(itself, value, 1e-14), "{itself} vs {value}");
        let (by_grad, [gx, gy]) = from_constant_tuples::grad(x, y, &table, &r, &s);
        assert_eq!(by_grad.to_bits(), itself.to_bits());
        assert!(common::close(gx, dx, 1e-12), "{gx} vs {dx}");
        assert!(common::close(gy, dy, 1e-12), "{gy} vs {dy}");
        let f = |p: &[f64]| from_constant_tuples(p[0], p[1], &table, &r, &s);
        let differences = common::central_differences(&f, &[x, y]);
        assert!(common::close(gx, differences[0], 1e-7) && common::close(gy, differences[1], 1e-7));
    }
}

// ----- a float `Vec` assigned whole -----

twice! {
    /// A relaxation with a double buffer: each sweep writes a new `Vec`, then `state =
    /// next;` (copied element by element, the lengths checked).
    fn double_buffer / double_buffer_on_duals<T>(x: &[T]) -> T {
        let mut state = vec![T::zero(); x.len()];
        for i in 0..x.len() {
            state[i] = x[i];
        }
        for _ in 0..3 {
            let mut next = vec![T::zero(); state.len()];
            for i in 0..state.len() {
                let right = state[(i + 1) % state.len()];
                next[i] = T::from(0.5).unwrap() * state[i] * right + state[i].sin();
            }
            state = next;
        }
        state[0] + state[1] * state[2]
    }
}

twice! {
    /// Explicit steps of the heat equation on a rod, the new profile assigned by
    /// `clone()` and the buffer kept for the next step.
    fn heat_steps / heat_steps_on_duals<T>(x: &[T]) -> T {
        let n = x.len();
        let mut u = x.to_vec();
        let mut next = vec![T::zero(); n];
        for _ in 0..4 {
            for i in 1..n - 1 {
                next[i] = u[i] + T::from(0.2).unwrap() * (u[i - 1] - T::from(2.0).unwrap() * u[i] + u[i + 1]);
            }
            next[0] = u[0];
            next[n - 1] = u[n - 1];
            u = next.clone();
        }
        let mut energy = T::zero();
        for i in 0..n {
            energy = energy + u[i] * u[i];
        }
        energy
    }
}

#[test]
fn a_float_vec_assigned_whole() {
    one_slice_twice!(double_buffer, double_buffer_on_duals at
        [0.4, 1.1, 0.3, 0.2], [0.4, -1.1, -0.3, 0.8]);
    one_slice_twice!(heat_steps, heat_steps_on_duals at
        [0.4, 1.1, 0.3, 0.2, -0.5], [1.4, -1.1, -0.3, 0.8, 0.1]);
}

/// A buffer assigned a `Vec` one shorter: Rust resizes it, the element copy cannot.
#[differentiable]
fn shrinking(x: &[f64]) -> f64 {
    let mut state = x.to_vec();
    let mut next = vec![0.0; x.len() - 1];
    for i in 0..next.len() {
        next[i] = state[i] * state[i + 1];
    }
    let first = state[0];
    state = next;
    first + state.iter().sum::<f64>()
}

#[test]
#[should_panic(
    expected = "copies `state = next;` of float `Vec`s element by element, which needs the same length (3 and 2)"
)]
fn a_vec_assigned_one_of_another_length_panics_in_the_gradient() {
    let x = [0.5, 1.5, 2.0];
    // as written, the assignment resizes
    assert_eq!(shrinking(&x), 0.5 + 0.75 + 3.0);
    let _ = shrinking::grad(&x);
}

twice! {
    /// Particles' positions and velocities as a `Vec` of rows, double-buffered by
    /// `pos = next.clone();` (regression: "a row of a differentiable array of rows").
    fn particles_double_buffered / particles_double_buffered_on_duals<T>(x: &[T]) -> T {
        let n = x.len() / 2;
        let dt = T::from(0.1).unwrap();
        let mut pos: Vec<[T; 2]> = vec![[T::zero(); 2]; n];
        for i in 0..n {
            pos[i][0] = x[2 * i];
            pos[i][1] = x[2 * i + 1];
        }
        let mut next: Vec<[T; 2]> = vec![[T::zero(); 2]; n];
        for _ in 0..5 {
            for i in 0..n {
                next[i][0] = pos[i][0] + dt * pos[i][1];
                next[i][1] = pos[i][1] - dt * pos[i][0].sin();
            }
            pos = next.clone();
        }
        let mut s = T::zero();
        for i in 0..n {
            s = s + pos[i][0] * pos[i][0] + pos[i][1];
        }
        s
    }
}

#[test]
fn a_vec_of_rows_assigned_whole() {
    one_slice_twice!(particles_double_buffered, particles_double_buffered_on_duals at
        [0.4, 1.1, 0.3, 0.2], [0.4, -1.1, -0.3, 0.8, 1.5, -0.7]);
}

/// Rows assigned from a shorter `Vec` of rows: Rust resizes, the element copy cannot.
#[differentiable]
fn shrinking_rows(x: &[f64]) -> f64 {
    let mut state: Vec<[f64; 2]> = vec![[0.0; 2]; x.len()];
    for i in 0..x.len() {
        state[i][0] = x[i];
        state[i][1] = x[i] * x[i];
    }
    let mut next: Vec<[f64; 2]> = vec![[0.0; 2]; x.len() - 1];
    for i in 0..next.len() {
        next[i][0] = state[i][1];
        next[i][1] = state[i + 1][0];
    }
    let first = state[0][0];
    state = next;
    first + state[0][0] + state[0][1]
}

#[test]
#[should_panic(
    expected = "copies `state = next;` of float `Vec`s element by element, which needs the same length (3 and 2)"
)]
fn a_vec_of_rows_assigned_one_of_another_length_panics_in_the_gradient() {
    let x = [0.5, 1.5, 2.0];
    assert_eq!(shrinking_rows(&x), 0.5 + 0.25 + 1.5);
    let _ = shrinking_rows::grad(&x);
}

/// Rows copied by a typed `to_vec()` (`let mut pos: Vec<[f64; 2]> = x0.to_vec();`) and
/// double-buffered (regression: "an array of rows is not copied whole by `to_vec`" for
/// the typed `let`; the untyped one was taken).
#[differentiable]
fn particles_from_rows(x0: &[[f64; 2]], dt: f64) -> f64 {
    let mut pos: Vec<[f64; 2]> = x0.to_vec();
    let mut next: Vec<[f64; 2]> = x0.to_vec();
    for _ in 0..5 {
        for i in 0..pos.len() {
            next[i][0] = pos[i][0] + dt * pos[i][1];
            next[i][1] = pos[i][1] - dt * pos[i][0].sin();
        }
        pos = next.clone();
    }
    pos.iter().map(|p| p[0] * p[0] + p[1]).sum::<f64>()
}

#[test]
fn rows_copied_by_a_typed_to_vec() {
    let x = [0.4, 1.1, -0.3, 0.8, 1.5, -0.7];
    let rows = |p: &[f64]| [[p[0], p[1]], [p[2], p[3]], [p[4], p[5]]];
    let f = |p: &[f64]| particles_from_rows(&rows(p), p[6]);
    let point = [&x[..], &[0.1]].concat();
    let (value, (g, gdt)) = particles_from_rows::grad(&rows(&point), 0.1);
    assert_eq!(value.to_bits(), f(&point).to_bits());
    let by_differences = common::central_differences(&f, &point);
    let by_grad: Vec<f64> = g.iter().flatten().copied().chain([gdt]).collect();
    for (k, (a, b)) in by_grad.iter().zip(&by_differences).enumerate() {
        assert!(
            common::close(*a, *b, 1e-6),
            "∂/∂p{k}: {a} against differences {b}"
        );
    }
}
