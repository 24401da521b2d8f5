//! Windows (issue 14): the adjoint of a loop that no jump ends early reaches an array it
//! reads or writes only at the loop's counter plus constants, on every trip, through one
//! window taken before the trips' replay: its shadow (`generated::trip_window`: the take
//! of a written element and the add of a read one, `window[t + k]`) and, for an array
//! parameter nothing writes, its values, which the adjoint reads again
//! (`generated::read_window`). Indices below the window's length, the trips' accesses
//! compile to no check. Arrays reached any other way (in a branch, an inner loop, at an
//! index saved or counting on another loop, passed to a call) keep the shadow's checked
//! `take`/`add` and a checked read.
//!
//! Each case is checked through every face (`Case::check_with_second_order`: the value to
//! the bit, `grad` and `grad_into` against each other and against central differences,
//! `jvp`, and second order) at trip counts zero, one and more, `grad_into` against `vjp`'s
//! pullback (no windows there: it runs in another body), and that the generated code
//! takes the windows it should and no others.

#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use common::close;
use common::faces::point;
use gradtape::differentiable;

/// A stencil on a local buffer: `y[i]` written from `y[i - 1]` and `x[i]`, `x[i - 1]`
/// (the local's shadow grown to its window, `x`'s shadow and values through theirs).
#[differentiable]
fn stencil(x: &[f64], k: usize) -> f64 {
    let n = x.len().min(k);
    let mut y = vec![0.25; x.len()];
    for i in 1..n {
        y[i] = x[i] * x[i - 1] + (y[i - 1] * x[i]).sin();
    }
    let mut total = 0.0;
    for i in 0..x.len() {
        total += y[i] * y[i];
    }
    total
}

/// One Runge–Kutta-like step in place, as GradBench's ode writes it: loop-carried stage
/// values, `y` read then written at `i`, `x` read at `i`; called by `stepped` (its
/// `vjp_into`, with the caller's shadows as sinks).
#[differentiable]
fn relax(x: &[f64], y: &mut [f64]) {
    let n = x.len().min(y.len());
    let mut before = y[0];
    let mut stage = y[0] + 0.5 * x[0];
    y[0] += 0.25 * x[0];
    for i in 1..n {
        let xi = x[i];
        let yi = y[i];
        let k1 = xi * before;
        let k2 = xi * stage;
        before = yi;
        stage = yi + 0.5 * k1;
        y[i] = yi + 0.25 * (k1 + k2);
    }
}

#[differentiable]
fn stepped(x: &[f64], k: usize) -> f64 {
    let mut y = vec![0.5; x.len()];
    for _ in 0..k {
        relax(x, &mut y);
    }
    let mut total = 0.0;
    for v in y.iter() {
        total += v.tanh();
    }
    total
}

/// Reads in a branch beside reads on every trip: `x`'s shadow is then reached by its
/// checked `add`, its values through a window for the reads on every trip (`x[i]`), and
/// checked for the one in the branch, at an index the window does not hold (`x[i - 1]`).
#[differentiable]
fn read_in_a_branch(x: &[f64], k: usize) -> f64 {
    let n = x.len().min(k);
    let mut acc = 0.5;
    for i in 1..n {
        acc = acc * x[i] + 0.1;
        if x[i] > 0.5 {
            acc += x[i - 1] * acc;
        }
    }
    acc
}

/// An inner loop with windows, run once per trip of an outer one (a window per run), and
/// a loop over `(1..n).rev()` (a reversed counter: no window).
#[differentiable]
fn nested_and_reversed(x: &[f64], k: usize) -> f64 {
    let n = x.len();
    let mut y = vec![0.0; n];
    for j in 0..k {
        for i in 1..n {
            y[i] = y[i] * 0.5 + x[i - 1] * x[i] + 0.01 * j as f64;
        }
    }
    for i in (1..n).rev() {
        y[i - 1] += y[i] * x[i];
    }
    let mut total = 0.0;
    for i in 0..n {
        total += y[i].sin();
    }
    total
}

/// `grad_into`'s gradient against the one `vjp`'s pullback gives (the same saves, read
/// from the closure, in a body with no windows).
fn against_the_pullback(case: &str, into: (f64, Vec<f64>), pullback: (f64, Vec<f64>)) {
    assert_eq!(into.0.to_bits(), pullback.0.to_bits(), "{case}: value");
    for (i, (a, b)) in into.1.iter().zip(&pullback.1).enumerate() {
        assert!(
            close(*a, *b, 1e-12),
            "{case}: d/dx{i} grad_into {a}, pullback {b}"
        );
    }
}

/// `f(x, k)`'s faces with second order, and its `grad_into` against its pullback, for
/// each trip count `k`.
macro_rules! with_trips {
    ($f:ident, $n:expr, $seed:expr, [$($k:expr),*]) => {{
        $(
            let (k, x): (usize, Vec<f64>) = ($k, point($n, $seed, 0.2, 0.9));
            slice_and_constant!(@second_order $f, k, x.clone());
            let mut d = vec![0.0; x.len()];
            let value = $f::grad_into(&x, k, &mut d);
            let (kept_value, pullback) = $f::vjp(&x, k);
            let kept = pullback(1.0).0.expect("a gradient");
            let case = format!("{} at k = {}", stringify!($f), k);
            against_the_pullback(&case, (value, d), (kept_value, kept));
        )*
    }};
}

/// The windows `grad_into`'s generated code takes: (shadows, array values).
fn windows(generated: &str) -> (usize, usize) {
    let start = generated.find("pub fn grad_into").expect("grad_into");
    let into = &generated[start..];
    let into = &into[..into[1..].find("pub fn ").map_or(into.len(), |k| k + 1)];
    (
        into.matches("generated::trip_window(").count(),
        into.matches("generated::read_window(").count(),
    )
}

#[test]
fn a_stencil_on_a_local_buffer() {
    with_trips!(stencil, 6, 31, [0, 1, 2, 6, 9]);
    // the first loop: y's and x's shadows, x's values; the second: y's shadow
    assert_eq!(
        windows(stencil::GENERATED),
        (3, 1),
        "{}",
        stencil::GENERATED
    );
}

#[test]
fn a_step_in_place_called_in_a_loop() {
    with_trips!(stepped, 5, 32, [0, 1, 3]);
    // `relax`'s own loop: y's and x's shadows, x's values (in `vjp_into`, which the
    // caller's adjoint replays, as in `grad_into`)
    assert_eq!(windows(relax::GENERATED), (2, 1), "{}", relax::GENERATED);
    // one element: the loop runs no trip
    with_trips!(stepped, 1, 33, [0, 2]);
}

#[test]
fn reads_in_a_branch_keep_their_checks() {
    // x[i] above and below the branch's bound in one run
    let x = point(7, 34, 0.2, 0.9);
    assert!(x.iter().any(|&v| v > 0.5) && x.iter().any(|&v| v <= 0.5));
    with_trips!(read_in_a_branch, 7, 34, [0, 1, 2, 7]);
    assert_eq!(windows(read_in_a_branch::GENERATED), (0, 1));
    assert!(
        read_in_a_branch::GENERATED.contains("x[replay"),
        "the read in the branch, checked: {}",
        read_in_a_branch::GENERATED
    );
}

#[test]
fn an_inner_loop_and_a_reversed_loop() {
    with_trips!(nested_and_reversed, 5, 35, [0, 1, 3]);
    // the inner loop: y's and x's shadows and x's values; the reversed one and the sum's
    // loop: y's shadow in the sum's only
    assert_eq!(
        windows(nested_and_reversed::GENERATED),
        (3, 1),
        "{}",
        nested_and_reversed::GENERATED
    );
}
