//! `#[differentiable(checkpoint)]`: top-level loops recomputed segment by segment from
//! snapshots of their state in the adjoint. Each function here is annotated twice, with and
//! without `checkpoint` (the `twice!` macro), and the checkpointed gradient must equal the
//! uncheckpointed one to the bit (the recomputation repeats the same float operations in
//! the same order); both are checked against central finite differences of the function
//! as written. Trip counts 0, 1, a prime and multiples of the segment length, with a
//! snapshot budget small enough (4) that the segments double several times in the loops
//! that do not know their trip count. A counting allocator checks what checkpointing is
//! for: the pullback's peak heap, 1/50 of the uncheckpointed one's or less.

// The annotated functions are written in the forms under test (indexed loops, element
// copies, `x = x + ..`, a loop changing its own range bound), not as clippy would have them.
#![allow(
    clippy::needless_range_loop,
    clippy::manual_memcpy,
    clippy::assign_op_pattern,
    clippy::mut_range_bound,
    clippy::useless_vec
)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

mod common;

use common::central_differences;
use gradtape::differentiable;

/// Defines `$plain` with `#[differentiable]` (or `#[differentiable($($plain_arg)*)]`) and
/// `$checkpointed` with `#[differentiable($($arg)*)]`, the same function; with `deep
/// $deep (..)`, also `$deep`, checkpointed with more levels.
macro_rules! twice {
    ($plain:ident, $checkpointed:ident, ($($arg:tt)*), deep $deep:ident ($($deep_arg:tt)*), fn ($($params:tt)*) $(-> $out:ident)? { $($body:tt)* }) => {
        twice!($plain, $checkpointed, ($($arg)*), fn ($($params)*) $(-> $out)? { $($body)* });
        #[differentiable($($deep_arg)*)]
        #[allow(dead_code)] // its gradient is what is checked
        fn $deep($($params)*) $(-> $out)? { $($body)* }
    };
    ($plain:ident, $checkpointed:ident, ($($arg:tt)*), fn ($($params:tt)*) $(-> $out:ident)? { $($body:tt)* }) => {
        twice!($plain [], $checkpointed, ($($arg)*), fn ($($params)*) $(-> $out)? { $($body)* });
    };
    ($plain:ident [$($plain_arg:tt)*], $checkpointed:ident, ($($arg:tt)*), fn ($($params:tt)*) $(-> $out:ident)? { $($body:tt)* }) => {
        #[differentiable($($plain_arg)*)]
        fn $plain($($params)*) $(-> $out)? { $($body)* }
        #[differentiable($($arg)*)]
        #[allow(dead_code)] // its gradient is what is checked
        fn $checkpointed($($params)*) $(-> $out)? { $($body)* }
    };
}

// ----- the functions -----

twice!(rk4_plain, rk4_checkpointed, (checkpoint(snapshots = 4)), deep rk4_deep (checkpoint(snapshots = 3, levels = 3)), fn (x0: f64, v0: f64, k: f64, steps: usize) -> f64 {
    // A pendulum x'' = -k sin x by the classical Runge-Kutta scheme: two carried values,
    // eight computed in each trip.
    let h = 0.05;
    let mut x = x0;
    let mut v = v0;
    for _ in 0..steps {
        let a1 = -k * x.sin();
        let (x2, v2) = (x + 0.5 * h * v, v + 0.5 * h * a1);
        let a2 = -k * x2.sin();
        let (x3, v3) = (x + 0.5 * h * v2, v + 0.5 * h * a2);
        let a3 = -k * x3.sin();
        let (x4, v4) = (x + h * v3, v + h * a3);
        let a4 = -k * x4.sin();
        x += h / 6.0 * (v + 2.0 * v2 + 2.0 * v3 + v4);
        v += h / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4);
    }
    x * v + x.cos()
});

twice!(default_plain, default_checkpointed, (checkpoint), deep default_deep (checkpoint(snapshots = 50, levels = 3)), fn (x0: f64, k: f64, steps: usize) -> f64 {
    let mut x = x0;
    for _ in 0..steps {
        x = x - 0.01 * k * x.powi(3) + 0.001 * x.cos();
    }
    x
});

twice!(heat_plain, heat_checkpointed, (checkpoint(snapshots = 4)), deep heat_deep (checkpoint(snapshots = 2, levels = 4)), fn (u0: &[f64], k: f64, steps: usize) -> f64 {
    // Explicit heat steps on a ring: an array carried through the loop, an inner loop over
    // its cells inside the checkpointed one, a fresh array per trip.
    let n = u0.len();
    let mut u = vec![0.0; n];
    for i in 0..n {
        u[i] = u0[i];
    }
    for _ in 0..steps {
        let mut next = vec![0.0; n];
        for i in 0..n {
            let left = u[(i + n - 1) % n];
            let right = u[(i + 1) % n];
            next[i] = u[i] + k * (left - 2.0 * u[i] + right) + 0.01 * u[i].sin();
        }
        for i in 0..n {
            u[i] = next[i];
        }
    }
    let mut total = 0.0;
    for i in 0..n {
        total += u[i] * u[i] * (i as f64 + 1.0);
    }
    total
});

twice!(series_plain, series_checkpointed, (checkpoint(snapshots = 4)), deep series_deep (checkpoint(snapshots = 3, levels = 3)), fn (a: &[f64], x: f64) -> f64 {
    // Reads indexed by the checkpointed loop's own counter, forwards and backwards: the
    // adjoint recomputes the index of a segment's trip from the segment's start.
    let mut acc = x;
    for i in 0..a.len() {
        acc = acc.sin() + a[i] * acc;
    }
    for i in (0..a.len()).rev() {
        acc = 0.5 * acc + a[i] * a[i] * x;
    }
    acc
});

twice!(jumps_plain, jumps_checkpointed, (checkpoint(snapshots = 4)), deep jumps_deep (checkpoint(snapshots = 3, levels = 3)), fn (x0: f64, v0: f64, limit: f64, trips: usize) -> f64 {
    // `while` with an integer counter the loop carries, `continue` and `break`.
    let mut x = x0;
    let mut v = v0;
    let mut k = 0;
    while k < trips {
        k += 1;
        if k % 5 == 0 {
            continue;
        }
        x += 0.05 * v;
        v -= 0.05 * x.sin();
        if x > limit {
            break;
        }
    }
    x * v
});

twice!(loop_plain, loop_checkpointed, (checkpoint(snapshots = 4)), deep loop_deep (checkpoint(snapshots = 2, levels = 5)), fn (x0: f64, r: f64) -> f64 {
    // `loop`, ended by a `break` with a value.
    let mut x = x0;
    let mut t = 0;
    let y = loop {
        t += 1;
        x = r * x * (1.0 - x);
        if t == 37 {
            break x * x;
        }
    };
    y + x
});

twice!(in_place_plain, in_place_checkpointed, (checkpoint(snapshots = 4)), deep in_place_deep (checkpoint(snapshots = 3, levels = 3)), fn (u: &mut [f64], k: f64, steps: usize) {
    // A `&mut` array parameter written by the loop: state the snapshots copy.
    let n = u.len();
    for _ in 0..steps {
        for i in 1..n {
            u[i] = u[i] + k * u[i - 1].tanh();
        }
    }
});

twice!(scoped_plain, scoped_checkpointed, (checkpoint(snapshots = 2)), fn (x0: f64, steps: usize) -> f64 {
    // A loop inside a plain block (still the top level of the body), with the smallest
    // budget: two snapshots.
    let mut y = 0.0;
    {
        let mut x = x0;
        for _ in 0..steps {
            x = x.sin() + 0.1 * x;
        }
        y += x;
    }
    y * y
});

twice!(growing_plain, growing_checkpointed, (checkpoint(snapshots = 4)), deep growing_deep (checkpoint(snapshots = 3, levels = 3)), fn (x0: f64, n0: usize) -> f64 {
    // The iterator reads `n` as it was before the loop; the body changes it.
    let mut x = x0;
    let mut n = n0;
    for i in 0..n {
        n += 1;
        x = 0.5 * x + 0.05 * ((i % 7) as f64) * x.sin() + 0.1;
    }
    x * n as f64
});

twice!(zipped_plain, zipped_checkpointed, (checkpoint(snapshots = 4)), fn (xs: &[f64], ys: &[f64], c: f64) -> f64 {
    // An iterator form over two slices, rewritten into an indexed loop.
    let mut acc = c;
    for (x, y) in xs.iter().zip(ys.iter()) {
        acc = (acc * x).tanh() + y * c;
    }
    acc
});

twice!(fixed_plain, fixed_checkpointed, (checkpoint(snapshots = 4)), fn (mut x: f64, c: [f64; 3], steps: usize) -> f64 {
    // A `mut` parameter and a fixed-size local array as the state, a fixed-size array
    // parameter read by the loop.
    let mut s = [0.0; 3];
    for _ in 0..steps {
        for i in 0..3 {
            s[i] = (s[i] + c[i] * x).sin();
        }
        x = x * 0.95 + s[0] * 0.01;
    }
    x + s[1] * s[2]
});

twice!(filtered_plain, filtered_checkpointed, (checkpoint(snapshots = 4)), deep filtered_deep (checkpoint(levels = 3)), fn (x0: f64, steps: usize) -> f64 {
    // A `for` over an iterator that does not know its length: the snapshots start one per
    // trip and thin out; each rerun segment skips to its first item.
    let mut x = x0;
    for k in (0..steps).filter(|k| k % 3 != 0) {
        x = (x + 0.01 * k as f64).sin() * 1.1;
    }
    x
});

// A constant array copied into the state before the loop (`constant(x0)`): each element
// write of a constant takes the element's cotangent and drops it.
twice!(ring_plain [constant(x0)], ring_checkpointed, (constant(x0), checkpoint(snapshots = 4)), fn (x0: &[f64], w: &[f64], steps: usize) -> f64 {
    let mut x = vec![0.0; 3];
    for i in 0..3 {
        x[i] = x0[i];
    }
    for _ in 0..steps {
        for i in 0..3 {
            x[i] = (w[i] * x[(i + 2) % 3]).tanh() + 0.1;
        }
    }
    x[0] * x[1] + x[2]
});

/// A constant of the loop behind a shared borrow, deriving nothing (not `Clone`): the
/// adjoint of `grad` and `grad_into` reruns the loop on the borrow itself, which cannot
/// change during the call, so nothing copies it (only `vjp`, whose pullback outlives the
/// borrow, would need a copy: `tests/ui/differentiable/checkpoint-vjp-of-a-borrow-not-clone.rs`).
struct Well {
    k: f64,
    centre: f64,
}

impl Well {
    /// A method of the constant receiver, called by the checkpointed loop.
    #[differentiable]
    fn force(&self, x: f64) -> f64 {
        -self.k * (x - self.centre).sin()
    }
}

twice!(well_plain, well_checkpointed, (checkpoint(snapshots = 4)), deep well_deep (checkpoint(snapshots = 3, levels = 3)), fn (x0: f64, v0: f64, well: &Well, steps: usize) -> f64 {
    // a pendulum in the well: its field read and its method called on each trip
    let h = 0.05;
    let mut x = x0;
    let mut v = v0;
    for _ in 0..steps {
        let a = well.force(x) - 0.1 * well.k * v;
        x += h * v;
        v += h * a + 0.01 * well.centre;
    }
    x * v + well.k
});

twice!(well_slice_plain, well_slice_checkpointed, (checkpoint(snapshots = 4)), fn (xs: &[f64], well: &Well, steps: usize) -> f64 {
    // the borrowed constant beside a borrowed array, in `grad_into` (an array parameter)
    let mut s = 0.0;
    for t in 0..steps {
        s = 0.5 * s + 0.1 * well.force(xs[t % xs.len()] + 0.2 * s);
    }
    s
});

/// What a generic checkpointed loop reads through a borrow of a type parameter.
trait Pull {
    fn pull(&self) -> f64;
}

impl Pull for Well {
    fn pull(&self) -> f64 {
        self.k
    }
}

/// A borrowed constant of a type parameter `W` (bounded by no `Clone`), read by a
/// checkpointed loop: `vjp`'s bound on it is `W`'s own, and `grad` reads it in place.
#[differentiable(checkpoint(snapshots = 3))]
#[allow(dead_code)] // its gradient is what is checked
fn pulled_checkpointed<W: Pull>(x0: f64, well: &W, steps: usize) -> f64 {
    let mut x = x0;
    for _ in 0..steps {
        x = x - 0.1 * well.pull() * x.sin();
    }
    x
}

#[differentiable]
fn pulled_plain<W: Pull>(x0: f64, well: &W, steps: usize) -> f64 {
    let mut x = x0;
    for _ in 0..steps {
        x = x - 0.1 * well.pull() * x.sin();
    }
    x
}

/// A method's checkpointed loop reading `self` (its float fields, and an annotated method
/// of it): `grad` and `grad_into` rerun the loop on the same `&self` borrow, `vjp`'s
/// pullback on a copy of `*self` (hence `Clone`) under a name of its own, since the rerun
/// cannot rebind `self`.
#[derive(Clone, Copy)]
struct Oscillator {
    k: f64,
    damping: f64,
    centre: f64,
}

impl Oscillator {
    #[differentiable]
    fn force(&self, x: f64) -> f64 {
        -self.k * (x - self.centre).sin()
    }

    twice!(settle_plain, settle_checkpointed, (checkpoint(snapshots = 4)), deep settle_deep (checkpoint(snapshots = 3, levels = 3)), fn (&self, x0: f64, v0: f64, steps: usize) -> f64 {
        // a damped pendulum: `self`'s fields read, and its method called, on each trip
        let h = 0.05;
        let mut x = x0;
        let mut v = v0;
        for _ in 0..steps {
            let a = self.force(x) - self.damping * v;
            x += h * v;
            v += h * a + 0.01 * self.centre;
        }
        x * v + self.k
    });

    twice!(driven_plain, driven_checkpointed, (checkpoint(snapshots = 4)), fn (&self, drive: &[f64], steps: usize) -> f64 {
        // `&self` beside a borrowed array: `grad_into`
        let mut x = 0.0;
        for t in 0..steps {
            x = x + 0.1 * self.force(x) + self.damping * drive[t % drive.len()];
        }
        x
    });
}

#[differentiable]
impl Oscillator {
    // `self` by value, its field changed by the loop (by constants: a field assigned a
    // differentiable value is rejected): carried state, snapshotted and restored under a
    // name of its own, which each segment's rerun must read as it was
    #[differentiable]
    fn relaxed_plain(mut self, x0: f64, steps: usize) -> f64 {
        let mut x = x0;
        for _ in 0..steps {
            x = x + 0.1 * self.force(x);
            self.k = 0.9 * self.k + 0.05;
        }
        x + self.k
    }

    #[differentiable(checkpoint(snapshots = 4))]
    #[allow(dead_code)] // its gradient is what is checked
    fn relaxed_checkpointed(mut self, x0: f64, steps: usize) -> f64 {
        let mut x = x0;
        for _ in 0..steps {
            x = x + 0.1 * self.force(x);
            self.k = 0.9 * self.k + 0.05;
        }
        x + self.k
    }
}

/// A struct of floats marked `#[differentiable]` as `self`: the loop reads its fields,
/// whose gradient is a value of the struct.
#[derive(gradtape::Differentiable, Clone, Debug)]
struct Decay {
    rate: f64,
    floor: f64,
}

impl Decay {
    #[differentiable]
    fn decayed_plain(#[differentiable] &self, x0: f64, steps: usize) -> f64 {
        let mut x = x0;
        for _ in 0..steps {
            x = x - 0.1 * self.rate * (x - self.floor).sin();
        }
        x * self.rate
    }

    #[differentiable(checkpoint(snapshots = 4))]
    #[allow(dead_code)] // its gradient is what is checked
    fn decayed_checkpointed(#[differentiable] &self, x0: f64, steps: usize) -> f64 {
        let mut x = x0;
        for _ in 0..steps {
            x = x - 0.1 * self.rate * (x - self.floor).sin();
        }
        x * self.rate
    }

    #[differentiable(checkpoint(snapshots = 3, levels = 3))]
    #[allow(dead_code)] // its gradient is what is checked
    fn decayed_deep(#[differentiable] &self, x0: f64, steps: usize) -> f64 {
        let mut x = x0;
        for _ in 0..steps {
            x = x - 0.1 * self.rate * (x - self.floor).sin();
        }
        x * self.rate
    }
}

// ----- the checks -----

/// The checkpointed gradient equals the plain one to the bit, and both the finite
/// differences of the function.
fn check(name: &str, plain: &[f64], checkpointed: &[f64], f: &dyn Fn(&[f64]) -> f64, x: &[f64]) {
    let bits = |g: &[f64]| g.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(plain),
        bits(checkpointed),
        "{name}: checkpointed {checkpointed:?} against plain {plain:?}"
    );
    let numeric = central_differences(f, x);
    for (k, (g, n)) in checkpointed.iter().zip(&numeric).enumerate() {
        assert!(
            (g - n).abs() <= 1e-5 * (1.0 + n.abs()),
            "{name}: d/dx{k} = {g}, finite differences {n}"
        );
    }
}

/// [`check`] for an annotated function of plain floats and its checkpointed twin, at the
/// floats `x` (entries `k..`, then the arguments `rest`): also their values, to the bit.
macro_rules! compare {
    ($name:expr, $plain:ident, $checkpointed:ident, $x:expr, [$($k:literal),+] $(, $rest:expr)*) => {{
        let x = $x;
        let (value, plain) = $plain::grad($(x[$k],)+ $($rest),*);
        let (same, checkpointed) = $checkpointed::grad($(x[$k],)+ $($rest),*);
        assert_eq!(value.to_bits(), same.to_bits(), "{}: the value", $name);
        check(&$name, &plain, &checkpointed, &|x| $plain($(x[$k],)+ $($rest),*), &x);
    }};
}

/// Trip counts: none, one, a prime, a multiple of the segment length (64 trips with 4
/// snapshots: segments of 16), and a long prime that doubles the segments many times.
const TRIPS: [usize; 5] = [0, 1, 13, 64, 1009];

#[test]
fn an_integrator_carrying_several_values() {
    for steps in TRIPS {
        let name = format!("rk4, {steps} steps");
        compare!(
            name,
            rk4_plain,
            rk4_checkpointed,
            [0.7, -0.2, 2.5],
            [0, 1, 2],
            steps
        );
        let name = format!("rk4, 3 levels, {steps} steps");
        compare!(
            name,
            rk4_plain,
            rk4_deep,
            [0.7, -0.2, 2.5],
            [0, 1, 2],
            steps
        );
    }
}

#[test]
fn the_default_budget() {
    // 200 snapshots by default: a range sets segments of ceil(n / 200) trips at once
    for steps in [0, 1, 199, 200, 201, 1009] {
        let name = format!("default, {steps} steps");
        compare!(
            name,
            default_plain,
            default_checkpointed,
            [0.4, 1.3],
            [0, 1],
            steps
        );
    }
}

#[test]
fn an_array_state_with_an_inner_loop() {
    let u0 = [0.3, -0.5, 0.9, 0.1, -0.7];
    for steps in TRIPS {
        let (value, (plain_u, plain_k)) = heat_plain::grad(&u0, 0.1, steps);
        let (same, (checkpointed_u, checkpointed_k)) = heat_checkpointed::grad(&u0, 0.1, steps);
        assert_eq!(value.to_bits(), same.to_bits());
        let (deep_value, (deep_u, deep_k)) = heat_deep::grad(&u0, 0.1, steps);
        assert_eq!(value.to_bits(), deep_value.to_bits());
        let bits = |g: &[f64]| g.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            bits(&deep_u),
            bits(&plain_u),
            "heat, 4 levels of 2, {steps} steps"
        );
        assert_eq!(deep_k.to_bits(), plain_k.to_bits());
        let mut plain = plain_u.clone();
        plain.push(plain_k);
        let mut checkpointed = checkpointed_u.clone();
        checkpointed.push(checkpointed_k);
        let mut x = u0.to_vec();
        x.push(0.1);
        check(
            &format!("heat, {steps} steps"),
            &plain,
            &checkpointed,
            &|x| heat_plain(&x[..5], x[5], steps),
            &x,
        );
        // grad_into accumulates the same gradient into the caller's buffers
        let (mut d_u0, mut d_k) = ([0.0; 5], 0.0);
        heat_checkpointed::grad_into(&u0, 0.1, steps, &mut d_u0, &mut d_k);
        assert_eq!(d_u0.to_vec(), plain_u);
        assert_eq!(d_k.to_bits(), plain_k.to_bits());
    }
}

#[test]
fn reads_indexed_by_the_loop_counter() {
    for n in TRIPS {
        let a: Vec<f64> = (0..n).map(|i| 0.3 * (i as f64 * 0.7).sin()).collect();
        let (_, (plain_a, plain_x)) = series_plain::grad(&a, 0.4);
        let (_, (checkpointed_a, checkpointed_x)) = series_checkpointed::grad(&a, 0.4);
        let (_, (deep_a, deep_x)) = series_deep::grad(&a, 0.4);
        let bits = |g: &[f64]| g.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&deep_a), bits(&plain_a), "series, 3 levels, {n} terms");
        assert_eq!(deep_x.to_bits(), plain_x.to_bits());
        let mut plain = plain_a.clone();
        plain.push(plain_x);
        let mut checkpointed = checkpointed_a.clone();
        checkpointed.push(checkpointed_x);
        let mut x = a.clone();
        x.push(0.4);
        check(
            &format!("series, {n} terms"),
            &plain,
            &checkpointed,
            &|x| series_plain(&x[..n], x[n]),
            &x,
        );
    }
}

#[test]
fn while_with_continue_and_break() {
    // limit 10: every trip runs (`continue` on every fifth); limit 0.9: a `break` ends
    // the loop part-way
    for limit in [10.0, 0.9] {
        for trips in TRIPS {
            let name = format!("jumps, limit {limit}, {trips} trips");
            let x = [0.2, 0.5, limit];
            compare!(name, jumps_plain, jumps_checkpointed, x, [0, 1, 2], trips);
            let name = format!("jumps, 3 levels, limit {limit}, {trips} trips");
            compare!(name, jumps_plain, jumps_deep, x, [0, 1, 2], trips);
        }
    }
}

#[test]
fn a_loop_in_a_plain_block_with_two_snapshots() {
    for steps in TRIPS {
        let name = format!("scoped, {steps} steps");
        compare!(name, scoped_plain, scoped_checkpointed, [0.8], [0], steps);
    }
}

#[test]
fn an_iterator_reading_a_name_the_loop_changes() {
    for n in TRIPS {
        let name = format!("growing, {n} trips");
        compare!(name, growing_plain, growing_checkpointed, [0.6], [0], n);
        let name = format!("growing, 3 levels, {n} trips");
        compare!(name, growing_plain, growing_deep, [0.6], [0], n);
    }
}

#[test]
fn an_iterator_form_over_slices() {
    for n in TRIPS {
        let xs: Vec<f64> = (0..n).map(|i| 0.5 + 0.2 * (i as f64).cos()).collect();
        let ys: Vec<f64> = (0..n).map(|i| 0.1 * (i as f64 * 1.3).sin()).collect();
        let (_, (plain_x, plain_y, plain_c)) = zipped_plain::grad(&xs, &ys, 0.7);
        let (_, (checkpointed_x, checkpointed_y, checkpointed_c)) =
            zipped_checkpointed::grad(&xs, &ys, 0.7);
        let join = |x: Vec<f64>, y: Vec<f64>, c: f64| [x, y, vec![c]].concat();
        let mut point = [xs.clone(), ys.clone()].concat();
        point.push(0.7);
        check(
            &format!("zipped, {n} terms"),
            &join(plain_x, plain_y, plain_c),
            &join(checkpointed_x, checkpointed_y, checkpointed_c),
            &|p| zipped_plain(&p[..n], &p[n..2 * n], p[2 * n]),
            &point,
        );
    }
}

#[test]
fn a_constant_array_copied_into_the_state() {
    let x0 = [0.3, -0.4, 0.9];
    for steps in TRIPS {
        let w = [0.8, 1.1, -0.6];
        let (_, [plain]) = ring_plain::grad(&x0, &w, steps);
        let (_, [checkpointed]) = ring_checkpointed::grad(&x0, &w, steps);
        check(
            &format!("ring, {steps} steps"),
            &plain,
            &checkpointed,
            &|w| ring_plain(&x0, w, steps),
            &w,
        );
    }
}

#[test]
fn a_mut_parameter_and_a_fixed_size_array() {
    let c = [0.4, -0.9, 1.3];
    for steps in TRIPS {
        let (_, (plain_x, plain_c)) = fixed_plain::grad(0.3, c, steps);
        let (_, (checkpointed_x, checkpointed_c)) = fixed_checkpointed::grad(0.3, c, steps);
        let plain = [vec![plain_x], plain_c.to_vec()].concat();
        let checkpointed = [vec![checkpointed_x], checkpointed_c.to_vec()].concat();
        check(
            &format!("fixed, {steps} steps"),
            &plain,
            &checkpointed,
            &|p| fixed_plain(p[0], [p[1], p[2], p[3]], steps),
            &[0.3, c[0], c[1], c[2]],
        );
    }
}

#[test]
fn an_iterator_of_unknown_length() {
    for steps in TRIPS {
        let name = format!("filtered, {steps} steps");
        compare!(
            name,
            filtered_plain,
            filtered_checkpointed,
            [0.9],
            [0],
            steps
        );
        let name = format!("filtered, 3 levels of 200, {steps} steps");
        compare!(name, filtered_plain, filtered_deep, [0.9], [0], steps);
    }
}

#[test]
fn loop_with_break_value() {
    compare!("loop", loop_plain, loop_checkpointed, [0.3, 3.2], [0, 1]);
    compare!(
        "loop, 5 levels of 2",
        loop_plain,
        loop_deep,
        [0.3, 3.2],
        [0, 1]
    );
}

#[test]
fn a_mut_array_parameter() {
    for steps in TRIPS {
        let u = [0.5, -0.3, 0.8, 0.2];
        // the cotangent of the array after the call: a weighted sum of its entries
        let cotangent = [1.0, -2.0, 0.5, 3.0];
        let run = |into: fn(&mut [f64], f64, usize, &mut [f64], &mut f64)| {
            let (mut after, mut d_u, mut d_k) = (u, cotangent, 0.0);
            into(&mut after, 0.2, steps, &mut d_u, &mut d_k);
            (after, d_u, d_k)
        };
        let (plain_after, plain_u, plain_k) = run(in_place_plain::grad_into);
        let (after, checkpointed_u, checkpointed_k) = run(in_place_checkpointed::grad_into);
        assert_eq!(plain_after, after, "the forward result");
        let (deep_after, deep_u, deep_k) = run(in_place_deep::grad_into);
        assert_eq!(plain_after, deep_after, "the forward result, 3 levels");
        assert_eq!(deep_u, plain_u, "in place, 3 levels, {steps} steps");
        assert_eq!(deep_k.to_bits(), plain_k.to_bits());
        let mut plain = plain_u.to_vec();
        plain.push(plain_k);
        let mut checkpointed = checkpointed_u.to_vec();
        checkpointed.push(checkpointed_k);
        let mut x = u.to_vec();
        x.push(0.2);
        check(
            &format!("in place, {steps} steps"),
            &plain,
            &checkpointed,
            &|x| {
                let mut u = [x[0], x[1], x[2], x[3]];
                in_place_plain(&mut u, x[4], steps);
                u.iter().zip(&cotangent).map(|(u, c)| u * c).sum()
            },
            &x,
        );
    }
}

// ----- memory -----

/// Counts this thread's live heap bytes and their peak (a test runs on one thread).
struct Peak;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to `System`, which upholds `GlobalAlloc`'s
// contract; the counts are thread-local `Cell`s with no destructor, which allocate nothing.
// `realloc` is the trait's default, through these two.
unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.with(|live| {
            live.set(live.get() + layout.size());
            live.get()
        });
        PEAK.with(|peak| peak.set(peak.get().max(live)));
        // SAFETY: the caller's `layout` contract is `System.alloc`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // a block allocated on another thread may be freed here: saturate
        LIVE.with(|live| live.set(live.get().saturating_sub(layout.size())));
        // SAFETY: the caller's contract is `System.dealloc`'s.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Peak = Peak;

/// `f`'s result and the most heap it held at once beyond what was live before it.
fn peak_bytes<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(before));
    let value = f();
    (value, PEAK.with(Cell::get) - before)
}

#[test]
fn memory_holds_the_snapshots_and_one_segment() {
    // 100,000 trips carrying one value: the plain pullback holds every trip's saves, the
    // checkpointed one 200 snapshots and one segment of 500 trips' saves
    let steps = 100_000;
    let ((_, plain), plain_bytes) = peak_bytes(|| default_plain::grad(0.4, 1.3, steps));
    let ((_, checkpointed), checkpointed_bytes) =
        peak_bytes(|| default_checkpointed::grad(0.4, 1.3, steps));
    assert_eq!(plain.map(f64::to_bits), checkpointed.map(f64::to_bits));
    assert!(
        checkpointed_bytes * 50 <= plain_bytes,
        "checkpointed peak {checkpointed_bytes} bytes, plain {plain_bytes} bytes"
    );
    println!("peak heap: plain {plain_bytes} bytes, checkpointed {checkpointed_bytes} bytes");
}

#[test]
fn three_levels_hold_a_few_hundred_states() {
    // 100,000 trips: two levels of 200 keep 200 snapshots and a segment of 500 trips'
    // saves; three levels of 50 keep 50 + 50 snapshots and a segment of 40 trips' saves
    // (every trip's state and saves are a few words here, so the allocations' own sizes
    // dominate: the bound is on the ratio to the plain pullback's, and to two levels')
    let steps = 100_000;
    let ((_, plain), plain_bytes) = peak_bytes(|| default_plain::grad(0.4, 1.3, steps));
    let ((_, two), two_bytes) = peak_bytes(|| default_checkpointed::grad(0.4, 1.3, steps));
    let ((_, three), three_bytes) = peak_bytes(|| default_deep::grad(0.4, 1.3, steps));
    assert_eq!(plain.map(f64::to_bits), three.map(f64::to_bits));
    assert_eq!(two.map(f64::to_bits), three.map(f64::to_bits));
    assert!(
        three_bytes * 500 <= plain_bytes && three_bytes * 2 <= two_bytes,
        "three levels' peak {three_bytes} bytes, two levels' {two_bytes}, plain {plain_bytes}"
    );
    println!(
        "peak heap: plain {plain_bytes}, two levels {two_bytes}, three levels {three_bytes} bytes"
    );
}

#[test]
fn a_borrowed_constant_that_is_not_clone() {
    let well = Well {
        k: 2.5,
        centre: 0.3,
    };
    for steps in TRIPS {
        let x = [0.7, -0.2];
        let name = format!("well, {steps} steps");
        compare!(name, well_plain, well_checkpointed, x, [0, 1], &well, steps);
        let name = format!("well, 3 levels, {steps} steps");
        compare!(name, well_plain, well_deep, x, [0, 1], &well, steps);
        // second order: the checkpointed gradient is the plain one to the bit at every
        // point, so its differences are too; both against second differences of the value
        let plain = |x: &[f64]| well_plain::grad(x[0], x[1], &well, steps).1.to_vec();
        let checkpointed = |x: &[f64]| well_checkpointed::grad(x[0], x[1], &well, steps).1.to_vec();
        let deep = |x: &[f64]| well_deep::grad(x[0], x[1], &well, steps).1.to_vec();
        second_order(
            &name,
            &plain,
            &checkpointed,
            &|x| well_plain(x[0], x[1], &well, steps),
            &x,
        );
        second_order(
            &name,
            &plain,
            &deep,
            &|x| well_plain(x[0], x[1], &well, steps),
            &x,
        );
    }
    for steps in [0, 1, 13, 64] {
        let xs = [0.4, -0.9, 1.3];
        let name = format!("well and a slice, {steps} steps");
        let (value, [plain]) = well_slice_plain::grad(&xs, &well, steps);
        let (same, [checkpointed]) = well_slice_checkpointed::grad(&xs, &well, steps);
        assert_eq!(value.to_bits(), same.to_bits(), "{name}: the value");
        let mut into = [0.0; 3];
        let by_into = well_slice_checkpointed::grad_into(&xs, &well, steps, &mut into);
        assert_eq!(
            by_into.to_bits(),
            value.to_bits(),
            "{name}: grad_into's value"
        );
        check(
            &name,
            &plain,
            &into,
            &|x| well_slice_plain(x, &well, steps),
            &xs,
        );
        check(
            &name,
            &plain,
            &checkpointed,
            &|x| well_slice_plain(x, &well, steps),
            &xs,
        );
        let plain = |x: &[f64]| well_slice_plain::grad(x, &well, steps).1[0].clone();
        let checkpointed = |x: &[f64]| well_slice_checkpointed::grad(x, &well, steps).1[0].clone();
        second_order(
            &name,
            &plain,
            &checkpointed,
            &|x| well_slice_plain(x, &well, steps),
            &xs,
        );
    }
}

#[test]
fn a_borrowed_constant_of_a_type_parameter() {
    let well = Well {
        k: 2.5,
        centre: 0.0,
    };
    for steps in TRIPS {
        let name = format!("pulled, {steps} steps");
        let (value, plain) = pulled_plain::grad(0.7, &well, steps);
        let (same, checkpointed) = pulled_checkpointed::grad(0.7, &well, steps);
        assert_eq!(value.to_bits(), same.to_bits(), "{name}: the value");
        check(
            &name,
            &plain,
            &checkpointed,
            &|x| pulled_plain(x[0], &well, steps),
            &[0.7],
        );
        let plain = |x: &[f64]| pulled_plain::grad(x[0], &well, steps).1.to_vec();
        let checkpointed = |x: &[f64]| pulled_checkpointed::grad(x[0], &well, steps).1.to_vec();
        second_order(
            &name,
            &plain,
            &checkpointed,
            &|x| pulled_plain(x[0], &well, steps),
            &[0.7],
        );
    }
}

/// The Hessian by central differences of the gradients `plain` and `checkpointed` (equal
/// to the bit at each point) against second differences of `f`.
fn second_order(
    name: &str,
    plain: &dyn Fn(&[f64]) -> Vec<f64>,
    checkpointed: &dyn Fn(&[f64]) -> Vec<f64>,
    f: &dyn Fn(&[f64]) -> f64,
    x: &[f64],
) {
    let h = 1e-4;
    let moved = |i: usize, s: f64, j: usize, t: f64| {
        let mut y = x.to_vec();
        y[i] += s;
        y[j] += t;
        y
    };
    let bits = |g: &[f64]| g.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    for j in 0..x.len() {
        let (up, down) = (moved(j, h, j, 0.0), moved(j, -h, j, 0.0));
        let (plain_up, plain_down) = (plain(&up), plain(&down));
        let (up, down) = (checkpointed(&up), checkpointed(&down));
        assert_eq!(
            bits(&plain_up),
            bits(&up),
            "{name}: the gradient at x + h e{j}"
        );
        assert_eq!(
            bits(&plain_down),
            bits(&down),
            "{name}: the gradient at x - h e{j}"
        );
        for i in 0..x.len() {
            let of_gradient = (up[i] - down[i]) / (2.0 * h);
            let at = |s: f64, t: f64| f(&moved(i, s, j, t));
            let second = (at(h, h) - at(h, -h) - at(-h, h) + at(-h, -h)) / (4.0 * h * h);
            assert!(
                (of_gradient - second).abs() <= 1e-4 * (1.0 + second.abs()),
                "{name}: H[{i}][{j}] = {of_gradient} by the gradient, {second} by second differences"
            );
        }
    }
}

#[test]
fn a_method_reading_self() {
    let oscillator = Oscillator {
        k: 2.5,
        damping: 0.1,
        centre: 0.3,
    };
    let of = |x: &[f64]| Oscillator {
        k: x[2],
        damping: x[3],
        centre: x[4],
    };
    for steps in TRIPS {
        let x = [0.7, -0.2];
        let name = format!("settle, {steps} steps");
        let (value, plain) = oscillator.settle_plain_grad(x[0], x[1], steps);
        let (same, checkpointed) = oscillator.settle_checkpointed_grad(x[0], x[1], steps);
        assert_eq!(value.to_bits(), same.to_bits(), "{name}: the value");
        check(
            &name,
            &plain,
            &checkpointed,
            &|x| oscillator.settle_plain(x[0], x[1], steps),
            &x,
        );
        let (deep_value, deep) = oscillator.settle_deep_grad(x[0], x[1], steps);
        assert_eq!(
            value.to_bits(),
            deep_value.to_bits(),
            "{name}: 3 levels' value"
        );
        check(
            &name,
            &plain,
            &deep,
            &|x| oscillator.settle_plain(x[0], x[1], steps),
            &x,
        );
        // `vjp`'s pullback reruns the loop on its copy of `*self`: the same bits
        for by_vjp in [
            oscillator.settle_checkpointed_vjp(x[0], x[1], steps),
            oscillator.settle_deep_vjp(x[0], x[1], steps),
        ] {
            let (vjp_value, pullback) = by_vjp;
            assert_eq!(vjp_value.to_bits(), value.to_bits(), "{name}: vjp's value");
            let (_, d_x0, d_v0, _) = pullback(1.0);
            assert_eq!(
                [d_x0.unwrap().to_bits(), d_v0.unwrap().to_bits()],
                [plain[0].to_bits(), plain[1].to_bits()],
                "{name}: vjp's gradient"
            );
        }
        // the receiver's fields are constants of the method: their effect, by differences
        // of the method as written, is no part of the gradient, but the value follows them
        let moved = [x[0], x[1], 2.5 + 1e-3, 0.1, 0.3];
        assert_eq!(
            of(&moved)
                .settle_checkpointed_grad(x[0], x[1], steps)
                .0
                .to_bits(),
            of(&moved).settle_plain(x[0], x[1], steps).to_bits(),
            "{name}: the value of another receiver"
        );
        let plain = |x: &[f64]| oscillator.settle_plain_grad(x[0], x[1], steps).1.to_vec();
        let checkpointed = |x: &[f64]| {
            oscillator
                .settle_checkpointed_grad(x[0], x[1], steps)
                .1
                .to_vec()
        };
        let deep = |x: &[f64]| oscillator.settle_deep_grad(x[0], x[1], steps).1.to_vec();
        let f = |x: &[f64]| oscillator.settle_plain(x[0], x[1], steps);
        second_order(&name, &plain, &checkpointed, &f, &x);
        second_order(&name, &plain, &deep, &f, &x);
    }
    for steps in [0, 1, 13, 64] {
        let drive = [0.4, -0.9, 1.3];
        let name = format!("driven, {steps} steps");
        let (value, [plain]) = oscillator.driven_plain_grad(&drive, steps);
        let (same, [checkpointed]) = oscillator.driven_checkpointed_grad(&drive, steps);
        assert_eq!(value.to_bits(), same.to_bits(), "{name}: the value");
        let f = |x: &[f64]| oscillator.driven_plain(x, steps);
        check(&name, &plain, &checkpointed, &f, &drive);
        let mut into = [0.0; 3];
        let by_into = oscillator.driven_checkpointed_grad_into(&drive, steps, &mut into);
        assert_eq!(
            by_into.to_bits(),
            value.to_bits(),
            "{name}: grad_into's value"
        );
        check(&name, &plain, &into, &f, &drive);
        let (vjp_value, pullback) = oscillator.driven_checkpointed_vjp(&drive, steps);
        assert_eq!(vjp_value.to_bits(), value.to_bits(), "{name}: vjp's value");
        let (_, by_vjp, _) = pullback(1.0);
        check(
            &name,
            &plain,
            &by_vjp.expect("the array's cotangent"),
            &f,
            &drive,
        );
        let plain = |x: &[f64]| oscillator.driven_plain_grad(x, steps).1[0].clone();
        let checkpointed = |x: &[f64]| oscillator.driven_checkpointed_grad(x, steps).1[0].clone();
        second_order(&name, &plain, &checkpointed, &f, &drive);
    }
    for steps in TRIPS {
        let name = format!("relaxed, {steps} steps");
        let (value, plain) = oscillator.relaxed_plain_grad(0.7, steps);
        let (same, checkpointed) = oscillator.relaxed_checkpointed_grad(0.7, steps);
        assert_eq!(value.to_bits(), same.to_bits(), "{name}: the value");
        let f = |x: &[f64]| oscillator.relaxed_plain(x[0], steps);
        check(&name, &plain, &checkpointed, &f, &[0.7]);
        let (vjp_value, pullback) = oscillator.relaxed_checkpointed_vjp(0.7, steps);
        assert_eq!(vjp_value.to_bits(), value.to_bits(), "{name}: vjp's value");
        let (_, d_x0, _) = pullback(1.0);
        assert_eq!(
            d_x0.unwrap().to_bits(),
            plain[0].to_bits(),
            "{name}: vjp's gradient"
        );
    }
}

#[test]
fn a_marked_self_whose_fields_the_loop_reads() {
    let decay = Decay {
        rate: 0.8,
        floor: -0.4,
    };
    // the floats: x0, then the struct's fields
    let f = |x: &[f64]| {
        Decay {
            rate: x[1],
            floor: x[2],
        }
        .decayed_plain(x[0], steps_of(x))
    };
    fn steps_of(x: &[f64]) -> usize {
        x[3] as usize
    }
    for steps in TRIPS {
        let x = [0.6, decay.rate, decay.floor, steps as f64];
        let name = format!("decayed, {steps} steps");
        let flat = |(value, (d_self, d_x0)): (f64, (Decay, f64))| {
            (value, vec![d_x0, d_self.rate, d_self.floor])
        };
        let (value, plain) = flat(decay.decayed_plain_grad(x[0], steps));
        for (level, by) in [
            (
                "2 levels",
                flat(decay.decayed_checkpointed_grad(x[0], steps)),
            ),
            ("3 levels", flat(decay.decayed_deep_grad(x[0], steps))),
        ] {
            let name = format!("{name}, {level}");
            assert_eq!(by.0.to_bits(), value.to_bits(), "{name}: the value");
            let bits = |g: &[f64]| g.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&by.1), bits(&plain), "{name}: against the plain loop");
            let numeric = central_differences(&|y: &[f64]| f(&[y[0], y[1], y[2], x[3]]), &x[..3]);
            for (k, (g, n)) in by.1.iter().zip(&numeric).enumerate() {
                assert!(
                    (g - n).abs() <= 1e-5 * (1.0 + n.abs()),
                    "{name}: d/dx{k} = {g}, finite differences {n}"
                );
            }
        }
        let (vjp_value, pullback) = decay.decayed_checkpointed_vjp(x[0], steps);
        assert_eq!(vjp_value.to_bits(), value.to_bits(), "{name}: vjp's value");
        let (d_self, d_x0, _) = pullback(1.0);
        let d_self = d_self.expect("the receiver's gradient");
        assert_eq!(
            [d_x0.unwrap(), d_self.rate, d_self.floor]
                .map(f64::to_bits)
                .to_vec(),
            plain.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            "{name}: vjp's gradient"
        );
        let plain = |y: &[f64]| {
            flat(
                Decay {
                    rate: y[1],
                    floor: y[2],
                }
                .decayed_plain_grad(y[0], steps),
            )
            .1
        };
        let checkpointed = |y: &[f64]| {
            flat(
                Decay {
                    rate: y[1],
                    floor: y[2],
                }
                .decayed_checkpointed_grad(y[0], steps),
            )
            .1
        };
        second_order(
            &name,
            &plain,
            &checkpointed,
            &|y| f(&[y[0], y[1], y[2], x[3]]),
            &x[..3],
        );
    }
}
