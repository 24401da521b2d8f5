//! Local arrays of fixed rows grown by `push([..])` and rows destructured by index
//! (session 36, found by a batch of everyday functions: "a tuple of differentiable values
//! is supported as .." at the pushed literal, and "a differentiable value must be bound
//! to a plain name" at `let [x, v] = traj[i - 1];`).
//!
//! Each function is checked as every annotated function is (`Case`: the value to the bit,
//! `grad_into` against `grad`, central differences, `jvp` against the gradient, the second
//! order by differences).

// indexed loops are the forms under test, as users write them
#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use common::faces::point;
use gradtape::differentiable;

/// A polyline built point by point, then its length over windows of points.
#[differentiable]
fn polyline_length(x: &[f64]) -> f64 {
    let mut points: Vec<[f64; 2]> = Vec::new();
    for i in 0..x.len() / 2 {
        points.push([x[2 * i], x[2 * i + 1]]);
    }
    let mut length = 0.0;
    for w in points.windows(2) {
        length += ((w[1][0] - w[0][0]).powi(2) + (w[1][1] - w[0][1]).powi(2)).sqrt();
    }
    length
}

/// An oscillator's trajectory kept whole: each state pushed from the last one, read back
/// by destructuring, and the pushed literal reading the array's length (the elements are
/// computed before the push, as Rust computes them).
#[differentiable]
fn trajectory_energy(x: &[f64]) -> f64 {
    let (x0, v0, dt) = (x[0], x[1], 0.05 + 0.01 * x[2]);
    let mut states: Vec<[f64; 2]> = Vec::with_capacity(16);
    states.push([x0, v0]);
    for i in 1..16 {
        let [position, velocity] = states[i - 1];
        states.push([
            position + dt * velocity,
            velocity - dt * position * (1.0 + 0.01 * states.len() as f64),
        ]);
    }
    states.iter().map(|s| s[0] * s[0] + 0.5 * s[1] * s[1]).sum()
}

/// Rows of three pushed in a loop with a branch, destructured by a computed index.
#[differentiable]
fn rows_of_three(x: &[f64]) -> f64 {
    let mut rows: Vec<[f64; 3]> = Vec::new();
    for i in 0..x.len() {
        if x[i] > 0.0 {
            rows.push([x[i], x[i] * x[i], 1.0]);
        } else {
            rows.push([0.0, x[i].sin(), x[i]]);
        }
    }
    let mut total = 0.0;
    for k in 0..rows.len() {
        let [a, b, c] = rows[rows.len() - 1 - k];
        total += a * b + c * (k as f64);
    }
    total
}

/// A local row pushed by name (`points.push(p)`, `p` a `[f64; 2]` of the body).
#[differentiable]
fn centroid_distance(x: &[f64]) -> f64 {
    let mut points: Vec<[f64; 2]> = Vec::new();
    for i in 0..x.len() / 2 {
        let p = [x[2 * i], x[2 * i + 1] * x[2 * i]];
        points.push(p);
    }
    let n = points.len() as f64;
    let (mut cx, mut cy) = (0.0, 0.0);
    for p in points.iter() {
        cx += p[0] / n;
        cy += p[1] / n;
    }
    points
        .iter()
        .map(|p| ((p[0] - cx).powi(2) + (p[1] - cy).powi(2)).sqrt())
        .sum()
}

/// An annotated function's array result pushed as the message asks, `let r = step(..);
/// states.push([r[0], r[1]]);` (the result indexed: a local array its writer writes).
#[differentiable]
fn step(p: &[f64; 2], dt: f64) -> [f64; 2] {
    [p[0] + dt * p[1], p[1] - dt * p[0]]
}

#[differentiable]
fn stepped_path(x: &[f64]) -> f64 {
    let mut states: Vec<[f64; 2]> = vec![[x[0], x[1]]];
    for i in 0..10 {
        let r = step(&states[i], 0.1);
        states.push([r[0], r[1]]);
    }
    states[10][0] * states[5][1]
}

/// Regression: `let [q, r] = q;` bound `q` first, then read `q[1]` of the new `q` (rustc's
/// "cannot index into a value of type `f64`"): the elements are read into fresh locals
/// first.
#[differentiable]
fn destructured_into_its_own_name(x: &[f64]) -> f64 {
    let q = [x[0] * 2.0, x[1] + x[0]];
    let [q, r] = q;
    q * r
}

#[test]
fn rows_pushed_onto_a_local_array_of_rows() {
    slices!(@second_order polyline_length, [8], [0], point(8, 11, -1.0, 1.0));
    // no point, one point: no window
    slices!(polyline_length, [2], [0], vec![0.3, 0.4]);
    assert_eq!(polyline_length::grad(&[]).0, 0.0);
    slices!(@second_order trajectory_energy, [3], [0], vec![1.0, 0.5, 0.3]);
    slices!(@second_order rows_of_three, [5], [0], point(5, 12, -1.0, 1.0));
    slices!(@second_order centroid_distance, [6], [0], point(6, 13, -1.0, 1.0));
    slices!(@second_order stepped_path, [2], [0], vec![1.0, 0.5]);
}

#[test]
fn regression_destructured_into_its_own_name() {
    slices!(@second_order destructured_into_its_own_name, [2], [0], vec![0.7, -0.4]);
}
