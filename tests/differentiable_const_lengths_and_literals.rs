//! Three everyday forms a batch of hand-written functions found rejected (session 35):
//!
//! - **callees generic over an array's length** (`fn norm<const N: usize>(v: [f64; N])`,
//!   `&[f64; N]`, `&mut [f64; N]`) called from another annotated function: rustc's internal
//!   `E0284` ("cannot infer the value of const parameter `N`") answered the caller, since
//!   the replayed call's saved copy was a slice and the callee's `N` could not be read off
//!   it. A copy now keeps the kind of array it was taken of (`generated::Saved`), and an
//!   array passed by value is saved as a clone of itself;
//! - **a row of an array of rows picked by index as an iterator's source**
//!   (`w[r].iter().zip(x).map(|(a, b)| a * b).sum()`, a matrix-vector product's row):
//!   "`sum` is not a differentiable method";
//! - **an array literal of differentiable values passed as an argument**
//!   (`norm([x[0], 2.0 * x[1]])`, `dot(&[a, b], w)`): "a tuple of differentiable values
//!   is supported as ..".
//!
//! Each function is checked as every annotated function is (`Case`: the value to the bit,
//! `grad_into` against `grad`, central differences, `jvp` against the gradient, and the
//! second order by differences of the gradient and second differences of the value); the
//! callees' own gradients against their closed forms.

// indexed loops are the forms under test, as users write them
#![allow(clippy::needless_range_loop, clippy::useless_vec)]

#[macro_use]
mod common;

use common::faces::point;
use gradtape::differentiable;

// ----- callees generic over the length -----

/// The Euclidean norm of an owned array of any length.
#[differentiable]
fn norm_of<const N: usize>(v: [f64; N]) -> f64 {
    let mut s = 0.0;
    for i in 0..N {
        s += v[i] * v[i];
    }
    s.sqrt()
}

/// A weighted norm of a borrowed array of any length, the weights (squared) a slice.
#[differentiable]
fn weighted_norm<const N: usize>(v: &[f64; N], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..N {
        s += w[i] * w[i] * v[i] * v[i];
    }
    s.sqrt()
}

/// Every element scaled in place, an array of any length.
#[differentiable]
fn scale_all<const N: usize>(v: &mut [f64; N], k: f64) {
    for i in 0..N {
        v[i] *= k.sin() + 1.5;
    }
}

/// The three callees on one local array, in straight-line code: by value, borrowed, and
/// written in place, then read again.
#[differentiable]
fn const_generic_calls(x: &[f64]) -> f64 {
    let mut v = [x[0], x[1], x[2]];
    let a = norm_of(v);
    let b = weighted_norm(&v, &x[2..]);
    scale_all(&mut v, x[3]);
    a * b + norm_of(v) + v[0]
}

/// The same callees in a loop (each call's copies on the loop's stacks).
#[differentiable]
fn const_generic_calls_in_a_loop(x: &[f64]) -> f64 {
    let mut v = [x[0], x[1]];
    let mut s = 0.0;
    for k in 0..3 {
        scale_all(&mut v, x[2]);
        s += weighted_norm(&v, &x[1..]) + norm_of(v) * (k as f64 + 0.5);
    }
    s
}

/// A caller generic over the length itself, passing its own array on.
#[differentiable]
fn generic_caller<const N: usize>(v: [f64; N], k: f64) -> f64 {
    let mut w = v;
    scale_all(&mut w, k);
    norm_of(w) * k
}

#[test]
fn callees_generic_over_the_length_differentiate_where_called() {
    slices!(@second_order const_generic_calls, [5], [0], point(5, 3, -1.0, 1.0));
    slices!(@second_order const_generic_calls_in_a_loop, [4], [0], point(4, 5, -1.0, 1.0));
    let fixed3 = |x: &[f64]| -> [f64; 3] { [x[0], x[1], x[2]] };
    common::faces::Case {
        name: "generic_caller",
        itself: &|x| generic_caller(fixed3(x), x[3]),
        primal: &|x| generic_caller::primal(fixed3(x), x[3]),
        grad: Some(&|x| {
            let (value, (dv, dk)) = generic_caller::grad(fixed3(x), x[3]);
            (value, [&dv[..], &[dk]].concat())
        }),
        grad_into: &|x| {
            let (mut dv, mut dk) = ([0.0; 3], 0.0);
            let value = generic_caller::grad_into(fixed3(x), x[3], &mut dv, &mut dk);
            (value, [&dv[..], &[dk]].concat())
        },
        jvp: &|x, t| generic_caller::jvp(fixed3(x), x[3], &t[..3], t[3]),
    }
    .check_with_second_order(&point(4, 7, -1.0, 1.0));
}

#[test]
fn a_callee_generic_over_the_length_has_its_closed_form_gradient() {
    let near = |got: &[f64], expected: &[f64]| {
        assert_eq!(got.len(), expected.len());
        for (g, e) in got.iter().zip(expected) {
            assert!(common::close(*g, *e, 1e-15), "{got:?} against {expected:?}");
        }
    };
    // ∂|v|/∂v = v / |v|
    let (value, (d,)) = norm_of::vjp_now([3.0, 4.0], 1.0);
    assert_eq!(value, 5.0);
    near(&d.unwrap(), &[0.6, 0.8]);
    // ∂/∂vᵢ = wᵢ² vᵢ / n, ∂/∂wᵢ = wᵢ vᵢ² / n
    let (value, (dv, dw)) = weighted_norm::vjp_now(&[3.0, 4.0, 0.0], &[1.0, 1.0, 2.0], 1.0);
    assert_eq!(value, 5.0);
    near(&dv.unwrap(), &[0.6, 0.8, 0.0]);
    near(&dw.unwrap(), &[1.8, 3.2, 0.0]);
}

// ----- a row picked by index as a source -----

/// A layer's rows by index: `tanh(w[r] · input)` summed, the matrix a local of rows.
#[differentiable]
fn indexed_rows_times_a_vector(x: &[f64]) -> f64 {
    let w = [[x[0], x[1], x[2]], [x[3], x[4], x[5]]];
    let input = [0.5, -1.5, 2.0];
    let mut s = 0.0;
    for r in 0..2 {
        let z: f64 = w[r].iter().zip(input.iter()).map(|(a, b)| a * b).sum();
        s += z.tanh();
    }
    s
}

/// A row picked by a computed index, summed by `map`, and read by index beside it; a row
/// zipped as the right side of another row.
#[differentiable]
fn rows_by_computed_index(x: &[f64]) -> f64 {
    let m = [[x[0], x[1]], [x[2], x[3]], [x[4], x[5]]];
    let mut total = 0.0;
    for i in 0..3 {
        let s: f64 = m[(i + 1) % 3].iter().map(|v| v * v).sum();
        total += s.sqrt() * m[i][0];
        for (a, b) in m[i].iter().zip(m[2 - i].iter()) {
            total += a * b;
        }
    }
    total
}

/// A row written through `iter_mut` by index, then a determinant of the rows.
#[differentiable]
fn rows_written_by_index(x: &[f64]) -> f64 {
    let mut m = [[x[0], x[1]], [x[2], x[3]]];
    for r in 0..2 {
        for v in m[r].iter_mut() {
            *v = *v * 2.0 + x[4] * (r as f64);
        }
    }
    m[0][0] * m[1][1] - m[0][1] * m[1][0]
}

/// A parameter's rows by index (a matrix as `&[[f64; 2]]`).
#[differentiable]
fn parameter_rows_by_index(w: &[[f64; 2]], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for r in 0..w.len() {
        let z: f64 = w[r].iter().zip(x).map(|(a, b)| a * b).sum();
        s += z * z;
    }
    s
}

#[test]
fn a_row_picked_by_index_is_a_source() {
    slices!(@second_order indexed_rows_times_a_vector, [6], [0], point(6, 11, -1.0, 1.0));
    slices!(@second_order rows_by_computed_index, [6], [0], point(6, 12, -1.0, 1.0));
    slices!(@second_order rows_written_by_index, [5], [0], point(5, 13, -1.0, 1.0));
    let rows = |x: &[f64]| -> Vec<[f64; 2]> { x.chunks(2).map(|c| [c[0], c[1]]).collect() };
    common::faces::Case {
        name: "parameter_rows_by_index",
        itself: &|x| parameter_rows_by_index(&rows(&x[..6]), &x[6..]),
        primal: &|x| parameter_rows_by_index::primal(&rows(&x[..6]), &x[6..]),
        grad: Some(&|x| {
            let (value, (dw, dx)) = parameter_rows_by_index::grad(&rows(&x[..6]), &x[6..]);
            (value, [dw.as_flattened(), &dx[..]].concat())
        }),
        grad_into: &|x| {
            let (mut dw, mut dx) = (vec![[0.0; 2]; 3], vec![0.0; 2]);
            let value =
                parameter_rows_by_index::grad_into(&rows(&x[..6]), &x[6..], &mut dw, &mut dx);
            (value, [dw.as_flattened(), &dx[..]].concat())
        },
        jvp: &|x, t| parameter_rows_by_index::jvp(&rows(&x[..6]), &x[6..], &rows(&t[..6]), &t[6..]),
    }
    .check_with_second_order(&point(8, 14, -1.0, 1.0));
}

#[test]
#[should_panic(expected = "index out of bounds")]
fn a_row_index_past_the_end_panics_as_the_body_does() {
    let _ = rows_by_computed_index::grad(&[1.0; 4]);
}

// ----- array literals as arguments -----

/// The norm of a pair given by value.
#[differentiable]
fn norm_pair(v: [f64; 2]) -> f64 {
    (v[0] * v[0] + v[1] * v[1]).sqrt()
}

/// A dot product of a borrowed pair with a slice.
#[differentiable]
fn dot_pair(a: &[f64; 2], b: &[f64]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

/// Literals of differentiable values as arguments, by value and borrowed, beside a literal
/// of constants and one mixing both.
#[differentiable]
fn literal_arguments(x: &[f64]) -> f64 {
    let n = norm_pair([x[0], x[1] * 2.0]);
    n + dot_pair(&[x[1], x[0]], &[x[0], 3.0]) + dot_pair(&[1.0, 2.0], x)
}

/// A literal argument in a loop: the distances between neighbours.
#[differentiable]
fn literal_arguments_in_a_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += norm_pair([x[i + 1] - x[i], 0.1 * (i as f64 + 1.0)]);
    }
    s
}

#[test]
fn array_literals_of_differentiable_values_are_arguments() {
    slices!(@second_order literal_arguments, [2], [0], point(2, 21, -1.0, 1.0));
    slices!(@second_order literal_arguments_in_a_loop, [5], [0], point(5, 22, -1.0, 1.0));
    // closed form: d/dx of Σ √((x₁ − x₀)² + c²) at two points, (x₁ − x₀)/√(..) each way
    let (value, [g]) = literal_arguments_in_a_loop::grad(&[0.0, 3.0]);
    assert_eq!(value, (9.0f64 + 0.01).sqrt());
    let d = 3.0 / (9.0f64 + 0.01).sqrt();
    assert_eq!(g, vec![-d, d]);
}

// ----- struct literals with array fields -----

/// A linear unit whose weights are a fixed-size array, with a count and a flag besides.
#[derive(gradtape::Differentiable, Debug, Clone, PartialEq)]
struct Unit {
    w: [f64; 3],
    b: f64,
    passes: usize,
    flipped: bool,
}

#[differentiable]
impl Unit {
    /// `passes` rounds of `z ← z + Σ wᵢ xᵢ sin z`, from `b`, negated if `flipped`.
    #[differentiable]
    fn respond(#[differentiable] &self, x: &[f64]) -> f64 {
        let mut z = self.b;
        for _ in 0..self.passes {
            for (wi, xi) in self.w.iter().zip(x) {
                z += wi * xi * z.sin();
            }
        }
        if self.flipped { -z } else { z }
    }
}

/// The same unit through a function taking it borrowed.
#[differentiable]
fn unit_response(#[differentiable] unit: &Unit, x: &[f64]) -> f64 {
    unit.respond(x) * unit.w[1]
}

/// A local struct whose array field holds differentiable values, its method called and the
/// struct passed to a function; then a field written and the method called again.
#[differentiable]
fn unit_built_from_values(x: &[f64]) -> f64 {
    let mut unit = Unit {
        w: [x[1], 0.5, x[2] * x[0]],
        b: x[3] * x[0],
        passes: 2,
        flipped: true,
    };
    let first = unit.respond(&x[..3]) + unit_response(&unit, &x[1..]);
    unit.w[0] = x[3].cos();
    first * unit.respond(&x[1..])
}

/// A struct literal with an array literal field, straight as an argument; and one whose
/// array and count are constants (was rustc's E0277 on the tangent of the constant fields).
#[differentiable]
fn unit_literals_as_arguments(x: &[f64]) -> f64 {
    let a = unit_response(
        &Unit {
            w: [x[0], x[1] * x[1], 1.0],
            b: x[2],
            passes: 1,
            flipped: false,
        },
        x,
    );
    let fixed = Unit {
        w: [1.0, 0.5, -0.25],
        b: x[3] * x[0],
        passes: 3,
        flipped: false,
    };
    a + fixed.respond(&x[1..])
}

#[test]
fn struct_literals_with_array_fields_of_values_are_passed_field_by_field() {
    slices!(@second_order unit_built_from_values, [4], [0], point(4, 31, -1.0, 1.0));
    slices!(@second_order unit_literals_as_arguments, [4], [0], point(4, 32, -1.0, 1.0));
}

// ----- conversions into a float type -----

/// Horner's rule over `f64` coefficients in a function generic over the float type: each
/// coefficient converted by `T::from(c).unwrap()` (was "`unwrap` is not a differentiable
/// method": a float-to-float conversion is a cast).
#[differentiable]
fn horner_generic<T: gradtape::Float>(c: &[f64], x: T) -> T {
    let mut acc = T::zero();
    for &ck in c.iter().rev() {
        acc = acc * x + T::from(ck).unwrap();
    }
    acc
}

/// `horner_generic` at `x[0]` with the coefficients `x[1..]`, and a conversion spelled
/// `<T as NumCast>::from(..).expect(..)`.
#[differentiable]
fn horner_caller(x: &[f64]) -> f64 {
    horner_generic(&x[1..], x[0])
        + <f64 as num_traits::NumCast>::from(x[1] * x[2]).expect("a float")
}

/// `f64::from` of an `f32` (`From<f32>`), widening a value computed in `f32`.
#[differentiable]
fn widened(x: &[f64]) -> f64 {
    let a = x[0] as f32;
    f64::from(a * a) * x[1]
}

#[test]
fn conversions_into_a_float_type_are_casts() {
    slices!(@second_order horner_caller, [4], [0], point(4, 41, -1.0, 1.0));
    // closed forms: ∂/∂cₖ = xᵏ, ∂/∂x = Σ k cₖ xᵏ⁻¹, in f32
    let (value, (dc, dx)) = horner_generic::grad(&[1.0, 2.0, 4.0], 0.5_f32);
    assert_eq!(value, 1.0 + 2.0 * 0.5 + 4.0 * 0.25);
    assert_eq!((dc, dx), (vec![1.0, 0.5, 0.25], 2.0 + 8.0 * 0.5));
    // a = 0.5 exactly in f32: ∂/∂x₀ = 2 a x₁, ∂/∂x₁ = a²
    let (value, [g]) = widened::grad(&[0.5, 3.0]);
    assert_eq!((value, g), (widened(&[0.5, 3.0]), vec![3.0, 0.25]));
    assert_eq!(value, 0.75);
}

// ----- ragged rows written out -----

/// A ragged matrix written out row by row (`Vec<Vec<f64>>` of values and a constant),
/// read by rows in a `for` loop with an iterator chain, and by index.
#[differentiable]
fn ragged_rows_written_out(x: &[f64]) -> f64 {
    let m = vec![vec![x[0], x[1]], vec![x[2], x[3] * x[0], 0.5]];
    let v = [1.0, 2.0, -1.0];
    let mut s = 0.0;
    for row in &m {
        let r: f64 = row.iter().zip(v.iter()).map(|(a, b)| a * b).sum();
        s += r * r;
    }
    s + m[1][2] * m[0][1] + m[1].len() as f64
}

/// Written out, then changed in place and summed.
#[differentiable]
fn ragged_rows_written_out_then_changed(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0].sin()], vec![x[1], x[2]]];
    m[1][0] *= x[0];
    let mut s = 0.0;
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            s += m[i][j] * m[i][j] * (j as f64 + 1.0);
        }
    }
    s
}

#[test]
fn ragged_rows_written_out_are_arrays_of_rows() {
    slices!(@second_order ragged_rows_written_out, [4], [0], point(4, 51, -1.0, 1.0));
    slices!(@second_order ragged_rows_written_out_then_changed, [3], [0], point(3, 52, -1.0, 1.0));
}

// ----- a tuple local assigned whole -----

/// `z³` for the complex `z = x₀ + i x₁` kept as a tuple, its modulus: the tuple starts as
/// constants and a tuple of differentiable values is assigned to it whole in the loop (was
/// "a tuple of differentiable values is supported as .."; a tuple local read by parts was
/// split, but not one assigned whole).
#[differentiable]
fn complex_cube_modulus(x: &[f64]) -> f64 {
    let z = (x[0], x[1]);
    let mut w = (1.0, 0.0);
    for _ in 0..3 {
        w = (w.0 * z.0 - w.1 * z.1, w.0 * z.1 + w.1 * z.0);
    }
    (w.0 * w.0 + w.1 * w.1).sqrt()
}

/// A position and velocity as a tuple, stepped by a tuple assignment that reads both old
/// parts (both read before either is written, as Rust evaluates the tuple first).
#[differentiable]
fn tuple_state_stepped(x: &[f64]) -> f64 {
    let mut state = (x[0], x[1]);
    for _ in 0..4 {
        state = (state.0 + 0.1 * state.1, state.1 - 0.1 * state.0.sin());
    }
    state.0 * state.1
}

#[test]
fn a_tuple_local_assigned_whole_is_split_into_parts() {
    slices!(@second_order complex_cube_modulus, [2], [0], point(2, 61, -1.0, 1.0));
    slices!(@second_order tuple_state_stepped, [2], [0], point(2, 62, -1.0, 1.0));
    // |z³| = |z|³
    let (value, [g]) = complex_cube_modulus::grad(&[3.0, 4.0]);
    assert!(common::close(value, 125.0, 1e-15));
    // ∂|z|³/∂x = 3 |z| x: (45, 60)
    assert!(
        common::close(g[0], 45.0, 1e-14) && common::close(g[1], 60.0, 1e-14),
        "{g:?}"
    );
}

/// Positions and velocities as `Vec` fields of a struct marked differentiable.
#[derive(gradtape::Differentiable, Debug, Clone, PartialEq)]
struct Swarm {
    pos: Vec<f64>,
    vel: Vec<f64>,
}

/// The kinetic energy after a step of a linear restoring force.
#[differentiable]
fn kinetic_after_a_step(#[differentiable] swarm: &Swarm, dt: f64) -> f64 {
    let mut e = 0.0;
    for i in 0..swarm.pos.len() {
        let v = swarm.vel[i] - dt * swarm.pos[i];
        e += 0.5 * v * v;
    }
    e
}

/// A local struct whose `Vec` fields hold values (copied into the call's literal: the
/// fields stay the caller's), passed twice, a field changed between.
#[differentiable]
fn swarm_built_from_values(x: &[f64]) -> f64 {
    let mut swarm = Swarm {
        pos: vec![x[0], x[1]],
        vel: vec![x[2], x[3] * x[0]],
    };
    let first = kinetic_after_a_step(&swarm, 0.1);
    swarm.pos[1] = x[2].sin();
    first * kinetic_after_a_step(&swarm, 0.2) + swarm.vel[0]
}

#[test]
fn struct_literals_with_vec_fields_of_values_are_copied_into_the_call() {
    slices!(@second_order swarm_built_from_values, [4], [0], point(4, 33, -1.0, 1.0));
}

// ----- a collect from a local array -----

/// Scores written into a local buffer, then mapped and collected (a softmax's weights):
/// the collect over a local array was "`collect` is not a differentiable method" (only
/// the parameters were known as arrays to the rewrite of collects).
#[differentiable]
fn softmax_of_local_scores(x: &[f64]) -> f64 {
    let keys = [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]];
    let mut scores = vec![0.0; 3];
    for (i, k) in keys.iter().enumerate() {
        scores[i] = x[0] * k[0] + x[1] * k[1];
    }
    let m = scores.iter().cloned().fold(f64::MIN, f64::max);
    let w: Vec<f64> = scores.iter().map(|s| (s - m).exp()).collect();
    let z: f64 = w.iter().sum();
    (w[0] + 2.0 * w[1] + 3.0 * w[2]) / z
}

#[test]
fn a_local_array_is_collected_from() {
    slices!(@second_order softmax_of_local_scores, [2], [0], point(2, 71, -1.0, 1.0));
}

/// A copy of a written local `Vec` by `to_vec`, kept while the local changes (the
/// `iter-more` helper found it rejected with "an array of rows is not copied whole"; the
/// copies' rewrite now knows the body's local arrays).
#[differentiable]
fn copy_of_a_written_local(x: &[f64]) -> f64 {
    let mut y = vec![0.0; x.len()];
    for i in 0..x.len() {
        y[i] = x[i] * x[i];
    }
    let before = y.to_vec();
    for i in 1..y.len() {
        y[i] += y[i - 1];
    }
    y[y.len() - 1] * before[0] + before[1]
}

#[test]
fn a_copy_of_a_written_local_vec_is_a_local_array() {
    slices!(@second_order copy_of_a_written_local, [3], [0], point(3, 72, -1.0, 1.0));
}

// ----- a fold over windows or chunks -----

/// The lengths of consecutive 2-d segments by a `fold` over `chunks_exact(2)`, and the
/// smallest sum of neighbours by one over `windows(2)` (was "`fold` is not a
/// differentiable method": a fold over views was not taken, their `map(..).sum()` was).
#[differentiable]
fn folds_over_views(x: &[f64]) -> f64 {
    let lengths = x
        .chunks_exact(2)
        .fold(0.0, |acc, c| acc + (c[0] * c[0] + c[1] * c[1]).sqrt());
    let least = x
        .windows(2)
        .fold(f64::INFINITY, |best: f64, w| best.min(w[0] + w[1]));
    lengths * least
}

#[test]
fn a_fold_over_windows_or_chunks_is_a_loop() {
    slices!(@second_order folds_over_views, [6], [0], point(6, 81, -1.0, 1.0));
    // an odd length: `chunks_exact` drops the last element, as the iterator does
    slices!(@second_order folds_over_views, [5], [0], point(5, 82, -1.0, 1.0));
}

// ----- views zipped and enumerated -----

/// The trapezoid rule over samples at uneven places, two arrays' windows zipped (was "`sum`
/// is not a differentiable method": a `zip` of views was not taken).
#[differentiable]
fn trapezoid(xs: &[f64], ys: &[f64]) -> f64 {
    xs.windows(2)
        .zip(ys.windows(2))
        .map(|(x, y)| 0.5 * (x[1] - x[0]) * (y[0] + y[1]))
        .sum()
}

/// Pairs weighted by a second array (was "a `for` loop cannot iterate over a
/// differentiable value"), and second differences weighted by their position.
#[differentiable]
fn weighted_pairs_and_curvature(x: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for (c, wi) in x.chunks_exact(2).zip(w) {
        s += wi * (c[0] * c[1]);
    }
    for (i, v) in x.windows(3).enumerate() {
        s += (i as f64 + 1.0) * (v[0] - 2.0 * v[1] + v[2]).powi(2);
    }
    s
}

/// Chunks zipped with copied elements and enumerated, then a fold over chunks zipped with
/// windows of the other array: each source as long as its own views, the loop as the
/// shorter.
#[differentiable]
fn chunks_zipped_every_way(x: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, (c, &wi)) in x.chunks(2).zip(w.iter()).enumerate() {
        let l = c.len() as f64;
        s += wi * c.iter().sum::<f64>() / l + i as f64 * c[0];
    }
    s + x
        .chunks(3)
        .zip(w.windows(2))
        .fold(0.0, |acc, (a, b)| acc + a[0] * b[1])
}

#[test]
fn views_zipped_with_views_or_elements_and_enumerated() {
    // each array the longer in turn (`zip` stops at the shorter)
    for lens in [[5, 4], [4, 5]] {
        let n = lens[0] + lens[1];
        slices!(@second_order trapezoid, lens, [0, 1], point(n, 101, -1.0, 1.0));
        slices!(@second_order weighted_pairs_and_curvature, lens, [0, 1], point(n, 102, -1.0, 1.0));
        slices!(@second_order chunks_zipped_every_way, lens, [0, 1], point(n, 103, -1.0, 1.0));
    }
    // arrays too short for a window, and empty: the value as written (no trip)
    let long = [0.5, 1.5, 2.5, 3.5];
    for short in [&[][..], &[1.0], &[1.0, 2.0]] {
        assert_eq!(trapezoid::grad(short, &long).0, trapezoid(short, &long));
        assert_eq!(
            weighted_pairs_and_curvature::grad(short, &long).0,
            weighted_pairs_and_curvature(short, &long)
        );
        assert_eq!(
            chunks_zipped_every_way::grad(&long, short).0,
            chunks_zipped_every_way(&long, short)
        );
    }
}

// ----- ragged rows assigned whole -----

/// A 2-d grid (`Vec<Vec<f64>>`) relaxed with a double buffer, `u = next.clone();` (was
/// the UI case `array-copied-whole-into-a-local`: a ragged array of rows assigned whole
/// was rejected, its rows' lengths free to change). Now the number of rows and each row's
/// length are checked, then the elements copied.
#[differentiable]
fn grid_relaxed(x: &[f64]) -> f64 {
    let n = 3;
    let mut u = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            u[i][j] = x[i * n + j];
        }
    }
    let mut next = vec![vec![0.0; n]; n];
    for _ in 0..3 {
        for i in 0..n {
            for j in 0..n {
                let up = if i > 0 { u[i - 1][j] } else { 0.0 };
                let down = if i + 1 < n { u[i + 1][j] } else { 0.0 };
                next[i][j] = u[i][j] + 0.1 * (up + down - 2.0 * u[i][j]);
            }
        }
        u = next.clone();
    }
    u.iter().map(|r| r.iter().map(|v| v * v).sum::<f64>()).sum()
}

/// Rows assigned from rows of other lengths: Rust resizes `grid`'s rows; the element
/// copy cannot, and panics naming the row and both lengths.
#[differentiable]
fn grid_assigned_other_row_lengths(x: &[f64]) -> f64 {
    let mut grid = vec![vec![0.0; 2]; 2];
    grid[0][0] = x[0];
    let wider = vec![vec![x[1]; 3]; 2];
    grid = wider.clone();
    grid[1][2]
}

#[test]
fn a_grid_of_rows_is_assigned_whole() {
    slices!(@second_order grid_relaxed, [9], [0], point(9, 91, -1.0, 1.0));
    // the function as written resizes the rows
    assert_eq!(grid_assigned_other_row_lengths(&[1.0, 2.0]), 2.0);
}

#[test]
#[should_panic(expected = "row 0: 2 and 3")]
fn a_grid_assigned_rows_of_other_lengths_panics_in_the_gradient() {
    let _ = grid_assigned_other_row_lengths::grad(&[1.0, 2.0]);
}

// ----- a slice pattern in `let .. else`; an arm binding the name of an enum local -----

/// `let [a, b, ..] = x else { return .. };` of a slice parameter (was the whole-array
/// error: `match x { [a, b, ..] => .. }` was taken, its `let .. else` form was not), also
/// with a rest bound by reference and from the end.
#[differentiable]
fn ratio_of_leading_pair(x: &[f64]) -> f64 {
    let [a, b, ..] = x else { return 0.0 };
    let [.., last] = x else { return 1.0 };
    let [_, rest @ ..] = x else { return 2.0 };
    a / b + last * rest.iter().sum::<f64>()
}

/// The area of a circle and a rectangle held as enum values, the circle's arm binding
/// `r`, the rectangle's local's name (was the rectangle's "builds an enum value" error:
/// the name bound again anywhere left the local as written).
#[derive(Clone, Copy)]
enum Shape {
    Circle(f64),
    Rect(f64, f64),
}

#[differentiable]
fn areas_of_two_shapes(x: &[f64]) -> f64 {
    let c = Shape::Circle(x[0]);
    let r = Shape::Rect(x[1], x[2]);
    let a = match c {
        Shape::Circle(r) => std::f64::consts::PI * r * r,
        Shape::Rect(w, h) => w * h,
    };
    let b = match r {
        Shape::Circle(q) => std::f64::consts::PI * q * q,
        Shape::Rect(w, h) => w * h,
    };
    a + b
}

#[test]
fn slice_patterns_in_let_else_and_arms_shadowing_an_enum_local() {
    slices!(@second_order ratio_of_leading_pair, [4], [0], point(4, 101, 0.5, 1.5));
    // the diverging branches, as written
    assert_eq!(ratio_of_leading_pair::grad(&[2.0]), (0.0, [vec![0.0]]));
    assert_eq!(ratio_of_leading_pair(&[2.0]), 0.0);
    slices!(@second_order areas_of_two_shapes, [3], [0], point(3, 102, -1.0, 1.0));
    let (value, [g]) = areas_of_two_shapes::grad(&[1.0, 2.0, 3.0]);
    assert_eq!(value, std::f64::consts::PI + 6.0);
    assert_eq!(g, vec![2.0 * std::f64::consts::PI, 3.0, 2.0]);
}
