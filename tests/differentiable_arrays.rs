//! `#[differentiable]` arrays beyond one function (issue 13): float arrays passed whole to
//! another annotated function (`dot(&x, &w)`, `norm2(&v[..])`, a local `vec!` buffer, a
//! `[f64; 3]` by value) or in part (a row `&m[i]`, a range `&v[a..b]`), and arrays of rows
//! (`[[f64; N]; M]`, `&[[f64; N]; M]`, `&[[f64; N]]`, `Vec<[f64; N]>`, local
//! `[[0.0; N]; M]`, literals `[[a, b], [c, d]]`) read and written as `m[i][j]`.
//!
//! Each function is checked through all its faces, as in `differentiable_slices.rs`: `f`,
//! `f::grad`, `f::grad_into` and `f::jvp` give the value of `f::primal` to the bit; the
//! gradient matches central differences of `f::primal`; `grad_into` gives `grad`'s
//! gradient to the bit; the tangent along `v` is `⟨∇f, v⟩`. Second order, as scalar mode
//! has it (no AD runs over the generated code on numbers): the Hessian taken by central
//! differences of `f::grad` matches second differences of `f`, and the central differences
//! of `f::jvp` along each unit vector match `e_jᵀ H v` by second differences.

// The functions are written as users write them, index loops, `&x` of a slice, `&v[..]`,
// `.clone()` of an array and `x = x * ..` included: those are the forms under test.
#![allow(
    clippy::needless_range_loop,
    clippy::ptr_arg,
    clippy::needless_borrow,
    clippy::redundant_slicing,
    clippy::clone_on_copy,
    clippy::assign_op_pattern
)]

#[macro_use]
mod common;

use common::faces::{Case, point};

use gradtape::differentiable;

// ----- 1. arrays passed whole to another annotated function -----

#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// A slice parameter passed on as it is.
#[differentiable]
fn norm2(v: &[f64]) -> f64 {
    dot(v, v).sqrt()
}

/// `&x`, `&x[..]` and the parameter itself, to two callees.
#[differentiable]
fn cosine(x: &[f64], w: &[f64]) -> f64 {
    dot(&x, &w) / (norm2(&x[..]) * norm2(w))
}

#[differentiable]
fn squared_length(p: [f64; 3]) -> f64 {
    p[0] * p[0] + p[1] * p[1] + p[2] * p[2]
}

#[differentiable]
fn mean(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i];
    }
    s / v.len() as f64
}

/// A local `vec!` buffer handed to callees, then overwritten and handed again: the second
/// call's cotangent reaches the buffer's new element, the first call's the old one.
#[differentiable]
fn through_local_buffer(x: &[f64]) -> f64 {
    let mut buf = vec![0.0; x.len()];
    for i in 0..x.len() {
        buf[i] = x[i].sin();
    }
    let first = norm2(&buf) + dot(&buf, x);
    buf[0] = buf[0] * 3.0 + x[1];
    first * norm2(&buf)
}

/// A `[f64; 3]` built from numbers and passed by value, a copy made by `clone`.
#[differentiable]
fn by_value_arrays(x: f64, y: f64) -> f64 {
    let p = [x, y * x, y.exp()];
    squared_length(p) * x + squared_length(p.clone())
}

/// A `Vec` parameter passed by reference and as a clone by value.
#[differentiable]
fn vec_whole(v: Vec<f64>) -> f64 {
    norm2(&v) * mean(v.clone())
}

/// A call inside a loop: its pullback goes on a stack, one per iteration.
#[differentiable]
fn calls_in_a_loop(x: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..3 {
        s = s * 0.5 + dot(x, w) * (k as f64 + 1.0) + norm2(x);
    }
    s
}

/// A constant array (data) passed to a differentiable parameter of the callee: no
/// cotangent for it, a zero tangent.
#[differentiable(constant(target))]
fn distance_to(x: &[f64], target: &[f64]) -> f64 {
    let mut d = vec![0.0; x.len()];
    for i in 0..x.len() {
        d[i] = x[i] - target[i];
    }
    norm2(&d) + dot(&target, x)
}

/// A tuple result from a slice function, destructured by the caller.
#[differentiable]
fn mean_and_spread(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i];
    }
    let m = s / n;
    let mut q = 0.0;
    for i in 0..x.len() {
        q += (x[i] - m) * (x[i] - m);
    }
    (m, q / n)
}

#[differentiable]
fn standardised_first(x: &[f64]) -> f64 {
    let (m, v) = mean_and_spread(x);
    (x[0] - m) / (v + 0.1).sqrt()
}

/// Single precision: a matrix of `f32` rows passed to an `f32` callee.
#[differentiable]
fn trace_of_square_f32(m: &[[f32; 2]; 2]) -> f32 {
    let mut t = 0.0;
    for i in 0..2 {
        for k in 0..2 {
            t += m[i][k] * m[k][i];
        }
    }
    t + det2_f32(m)
}

#[differentiable]
fn det2_f32(m: &[[f32; 2]; 2]) -> f32 {
    m[0][0] * m[1][1] - m[0][1] * m[1][0]
}

/// Local arrays declared in a loop's body (their tangents sized to them at each trip) and a
/// local `Vec` pushed to well past its starting length (its tangent growing with it): the
/// regression test of the sized local shadows (GradBench's `ht`, issue 14).
#[differentiable]
fn local_arrays_in_a_loop(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        let mut small = [0.0; 3];
        small[0] = x[i];
        small[1] = x[i] * small[0];
        small[2] = small[1].sin() + small[0];
        total += small[2] * small[1];
    }
    let mut grown = vec![x[0]; 2];
    for i in 0..20 {
        let next = grown[i] * 0.5 + x[i % x.len()] * grown[i + 1];
        grown.push(next.tanh());
    }
    total + grown[21]
}

/// Array literals assigned to local arrays that already exist (`m = [..];` in a branch,
/// `m = [m[1], m[0], ..];` reading the array it replaces, rows `r = [[..], [..]];`):
/// the value taken first, then written element by element (issue 13; GradBench's `ht`
/// had to write its rotation entry by entry before).
#[differentiable]
fn literals_assigned_whole(x: &[f64]) -> f64 {
    let a = x[4];
    let mut m = [1.0, 0.0, 0.0, 1.0];
    if a.abs() > 1e-4 {
        m = [a.cos(), -a.sin(), a.sin(), a.cos()];
    }
    m = [m[1], m[0], m[3] * x[0], m[2]];
    let mut rows = [[x[1], 0.5], [0.25, x[1]]];
    let before = rows[0][0] * rows[1][1];
    rows = [[m[0], m[1]], [m[2], 2.0]];
    let mut total = before;
    for i in 0..4 {
        total += m[i] * x[i];
    }
    total + rows[1][0] * rows[0][1]
}

/// Arrays of rows made by repeating a row of differentiable values: `[[e; N]; M]`,
/// `[[a, b]; M]`, `vec![[e; N]; m]`, `vec![vec![e; n]; m]`, and the same assigned to a
/// local that exists (issue 13: "this expression cannot be differentiated" before). Each
/// row's values are evaluated once, so `e` with a call in it runs once, as in Rust.
#[differentiable]
fn rows_repeated(x: &[f64]) -> f64 {
    let m = [[x[0]; 2]; 3];
    let pairs = [[x[1], x[0] * x[2], 0.5]; 2];
    let grid = vec![[x[3].sin(); 2]; x.len()];
    let ragged = vec![vec![x[1] * x[3]; 3]; 2];
    let mut n = [[0.0; 2]; 2];
    n[1][0] = x[1] * x[1];
    let kept = n[1][0];
    n = [[x[2]; 2]; 2];
    n[0][1] += m[1][1] * x[3];
    let mut total = m[0][1] * m[2][0] + pairs[1][1] * pairs[0][0] + pairs[0][2];
    for i in 0..grid.len() {
        total += grid[i][1] * x[i];
    }
    total + ragged[1][2] * ragged[0][0] + n[1][1] * n[0][1] + n[1][0] * kept
}

#[test]
fn arrays_passed_whole() {
    slices!(@second_order rows_repeated, [4], [0], point(4, 10, -1.0, 1.0));
    slices!(@second_order norm2, [5], [0], point(5, 1, -1.0, 1.0));
    slices!(@second_order local_arrays_in_a_loop, [4], [0], point(4, 8, -1.0, 1.0));
    slices!(@second_order literals_assigned_whole, [5], [0], point(5, 9, -1.0, 1.0));
    slices!(@second_order cosine, [4, 4], [0, 1], point(8, 2, -1.0, 1.0));
    slices!(@second_order through_local_buffer, [5], [0], point(5, 3, -1.0, 1.0));
    slices!(@second_order calls_in_a_loop, [3, 3], [0, 1], point(6, 4, -1.0, 1.0));
    Case {
        name: "by_value_arrays",
        itself: &|x| by_value_arrays(x[0], x[1]),
        primal: &|x| by_value_arrays::primal(x[0], x[1]),
        grad: Some(&|x| {
            let (v, g) = by_value_arrays::grad(x[0], x[1]);
            (v, g.to_vec())
        }),
        // float parameters only: no `grad_into`
        grad_into: &|x| {
            let (v, g) = by_value_arrays::grad(x[0], x[1]);
            (v, g.to_vec())
        },
        jvp: &|x, t| by_value_arrays::jvp(x[0], x[1], t[0], t[1]),
    }
    .check_with_second_order(&[0.4, -0.3]);
    Case {
        name: "vec_whole",
        itself: &|x| vec_whole(x.to_vec()),
        primal: &|x| vec_whole::primal(x.to_vec()),
        grad: Some(&|x| {
            let (v, [g]) = vec_whole::grad(x.to_vec());
            (v, g)
        }),
        grad_into: &|x| {
            let mut d = vec![0.0; x.len()];
            (vec_whole::grad_into(x.to_vec(), &mut d), d)
        },
        jvp: &|x, t| vec_whole::jvp(x.to_vec(), t),
    }
    .check_with_second_order(&point(4, 5, 0.2, 1.0));
    slices!(@second_order standardised_first, [5], [0], point(5, 7, -1.0, 1.0));
    let target = [0.5, -0.25, 1.0];
    Case {
        name: "distance_to",
        itself: &|x| distance_to(x, &target),
        primal: &|x| distance_to::primal(x, &target),
        grad: Some(&|x| {
            let (v, [g]) = distance_to::grad(x, &target);
            (v, g)
        }),
        grad_into: &|x| {
            let mut d = vec![0.0; x.len()];
            (distance_to::grad_into(x, &target, &mut d), d)
        },
        jvp: &|x, t| distance_to::jvp(x, &target, t),
    }
    .check_with_second_order(&point(3, 6, -1.0, 1.0));
}

/// Constant rows a function copies out of its data and then modifies with differentiable
/// values: spelled `let mut r: [f64; 4] = model.rel[b];`, as the compile error for the
/// untyped copy (trybuild `element-write-of-an-untyped-local`) says to.
pub struct Rows {
    rel: Vec<[f64; 4]>,
}

#[differentiable]
fn typed_copy_of_a_constant_row(theta: &[f64], model: &Rows) -> f64 {
    let mut total = 0.0;
    for b in 0..model.rel.len() {
        let mut r: [f64; 4] = model.rel[b];
        r[0] = r[0] * theta[b].cos();
        r[1] += theta[b] * r[3];
        total += r[0] * r[1] + r[2];
    }
    total
}

#[test]
fn a_constant_row_copied_into_a_typed_local() {
    let model = Rows {
        rel: vec![[1.0, 2.0, 3.0, 4.0], [0.5, 0.25, 2.0, 1.0]],
    };
    let theta = [0.3, -0.2];
    let (value, [gradient]) = typed_copy_of_a_constant_row::grad(&theta, &model);
    assert_eq!(value, typed_copy_of_a_constant_row(&theta, &model));
    // Σ_b r0 cos θ_b (r1 + θ_b r3) + r2: d/dθ = −r0 sin θ (r1 + θ r3) + r0 cos θ r3
    for (b, row) in model.rel.iter().enumerate() {
        let (t, [r0, r1, _, r3]) = (theta[b], *row);
        let expected = -r0 * t.sin() * (r1 + t * r3) + r0 * t.cos() * r3;
        assert!((gradient[b] - expected).abs() < 1e-14, "{b}");
        let mut unit = [0.0; 2];
        unit[b] = 1.0;
        let (_, tangent) = typed_copy_of_a_constant_row::jvp(&theta, &model, &unit);
        assert!((tangent - expected).abs() < 1e-14, "{b}: jvp");
    }
}

/// Hand-computed values, independent of central differences.
#[test]
fn arrays_passed_whole_by_hand() {
    // ∇‖x‖ = x / ‖x‖: at (3, 4), (0.6, 0.8)
    let (value, [g]) = norm2::grad(&[3.0, 4.0]);
    assert_eq!(value, 5.0);
    assert!(
        (g[0] - 0.6).abs() < 1e-15 && (g[1] - 0.8).abs() < 1e-15,
        "{g:?}"
    );
    // f = |p|² (x + 1) with |p|² = x² + x²y² + e^{2y}: at (1, 0), |p|² = 2, f = 4;
    // df/dx = (2x + 2xy²)(x + 1) + |p|² = 6, df/dy = (2x²y + 2e^{2y})(x + 1) = 4
    let (value, g) = by_value_arrays::grad(1.0, 0.0);
    assert_eq!((value, g), (4.0, [6.0, 4.0]));
}

// ----- 2. arrays of rows, `m[i][j]` -----

/// `|M v|²`: a 3x3 matrix-vector product into a local array.
#[differentiable]
fn matvec_energy(m: [[f64; 3]; 3], v: &[f64; 3]) -> f64 {
    let mut y = [0.0; 3];
    for i in 0..3 {
        for j in 0..3 {
            y[i] += m[i][j] * v[j];
        }
    }
    y[0] * y[0] + y[1] * y[1] + y[2] * y[2]
}

/// The determinant by cofactors along the first row.
#[differentiable]
fn det3(m: &[[f64; 3]; 3]) -> f64 {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}

/// A dense layer `tanh(W x + b)` over `[[f64; 4]; 3]`, summed.
#[differentiable]
fn dense_layer(w: &[[f64; 4]; 3], b: &[f64; 3], x: &[f64; 4]) -> f64 {
    let mut loss = 0.0;
    for i in 0..3 {
        let mut z = b[i];
        for j in 0..4 {
            z += w[i][j] * x[j];
        }
        loss += z.tanh();
    }
    loss
}

/// `‖A Aᵀ‖²` for a slice of rows: a local `[[0.0; 3]; 3]` accumulated with `+=`.
#[differentiable]
fn gram_energy(a: &[[f64; 2]]) -> f64 {
    let n = a.len();
    let mut g = [[0.0; 3]; 3];
    for i in 0..n {
        for j in 0..n {
            for k in 0..2 {
                g[i][j] += a[i][k] * a[j][k];
            }
        }
    }
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            s += g[i][j] * g[i][j];
        }
    }
    s
}

/// A `Vec` of rows by value, overwritten in place, and a local `vec![[0.0; 2]; n]`.
#[differentiable]
fn rows_in_place(mut m: Vec<[f64; 2]>) -> f64 {
    let mut scaled = vec![[0.0; 2]; m.len()];
    for i in 0..m.len() {
        m[i][1] = m[i][0] * m[i][1];
        scaled[i][0] = m[i][1].sin();
        scaled[i][1] = m[i][0] - scaled[i][0];
    }
    let mut s = 0.0;
    for i in 0..m.len() {
        s += scaled[i][0] * m[i][1] + scaled[i][1].powi(2);
    }
    s
}

/// An array of rows passed whole to another annotated function, and a local one built
/// element by element and passed too.
#[differentiable]
fn scaled_determinants(m: [[f64; 3]; 3], s: f64) -> f64 {
    let mut t = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            t[i][j] = m[j][i] * s;
        }
    }
    det3(&m) * s + det3(&t)
}

/// A matrix literal of differentiable values (rows of one length), passed whole and read.
#[differentiable]
fn rotation_energy(a: f64, s: f64) -> f64 {
    let r = [
        [a.cos() * s, -a.sin(), 0.0],
        [a.sin(), a.cos() * s, 0.0],
        [0.0, 0.0, s],
    ];
    det3(&r) + r[0][1] * r[1][0]
}

/// Rows of a matrix and ranges of a slice passed to annotated functions (copied into
/// local arrays first, whose reads carry the cotangents back).
#[differentiable]
fn rows_and_ranges(m: &[[f64; 3]; 2], v: &[f64]) -> f64 {
    dot(&m[0], &v[..3]) * norm2(&v[1..]) + dot(&m[1], &v[2..=4])
}

/// `|M v|²` row by row, each row's product by `dot`, inside a loop.
#[differentiable]
fn matvec_by_rows(m: &[[f64; 3]], v: &[f64; 3]) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        let y = dot(&m[i], v);
        s += y * y;
    }
    s
}

/// Rows iterated: `for (row, bias) in w.iter().zip(b)`, `row[j]`, `row.len()`, a row
/// passed to `dot`.
#[differentiable]
fn dense_by_rows(w: &[[f64; 3]; 2], b: &[f64; 2], x: &[f64; 3]) -> f64 {
    let mut loss = 0.0;
    for (row, bias) in w.iter().zip(b.iter()) {
        let mut z = *bias;
        for j in 0..row.len() {
            z += row[j] * x[j];
        }
        loss += (z + dot(row, x)).tanh();
    }
    loss
}

/// Rows written through `iter_mut`, then a `map` + `sum` over rows.
#[differentiable]
fn scaled_rows(mut m: [[f64; 2]; 3], s: f64) -> f64 {
    for row in m.iter_mut() {
        row[0] *= s;
        row[1] = row[0] + row[1].sin();
    }
    m.iter().map(|row| row[0] * row[1]).sum()
}

/// Rows of a flat vector as `[[f64; N]; M]`.
fn matrix<const N: usize, const M: usize>(x: &[f64]) -> [[f64; N]; M] {
    let mut m = [[0.0; N]; M];
    for (k, v) in x.iter().take(N * M).enumerate() {
        m[k / N][k % N] = *v;
    }
    m
}

fn rows<const N: usize>(x: &[f64]) -> Vec<[f64; N]> {
    x.chunks(N).map(|c| matrix::<N, 1>(c)[0]).collect()
}

#[test]
fn arrays_of_rows() {
    let fixed3 = |x: &[f64]| -> [f64; 3] { [x[0], x[1], x[2]] };
    Case {
        name: "matvec_energy",
        itself: &|x| matvec_energy(matrix(x), &fixed3(&x[9..])),
        primal: &|x| matvec_energy::primal(matrix(x), &fixed3(&x[9..])),
        grad: Some(&|x| {
            // an array of rows gets its gradient in the same shape
            let (v, (gm, gv)): (f64, ([[f64; 3]; 3], [f64; 3])) =
                matvec_energy::grad(matrix(x), &fixed3(&x[9..]));
            (v, [gm.as_flattened(), &gv[..]].concat())
        }),
        grad_into: &|x| {
            let (mut dm, mut dv) = ([[0.0; 3]; 3], [0.0; 3]);
            let v = matvec_energy::grad_into(matrix(x), &fixed3(&x[9..]), &mut dm, &mut dv);
            (v, [dm.as_flattened(), &dv[..]].concat())
        },
        jvp: &|x, t| {
            let tm: [[f64; 3]; 3] = matrix(t);
            matvec_energy::jvp(matrix(x), &fixed3(&x[9..]), &tm, &t[9..])
        },
    }
    .check_with_second_order(&point(12, 51, -1.0, 1.0));
    Case {
        name: "det3",
        itself: &|x| det3(&matrix(x)),
        primal: &|x| det3::primal(&matrix(x)),
        grad: Some(&|x| {
            let (v, [g]) = det3::grad(&matrix(x));
            (v, g.as_flattened().to_vec())
        }),
        grad_into: &|x| {
            let mut d = [[0.0; 3]; 3];
            let v = det3::grad_into(&matrix(x), &mut d);
            (v, d.as_flattened().to_vec())
        },
        jvp: &|x, t| det3::jvp(&matrix(x), &matrix::<3, 3>(t)),
    }
    .check_with_second_order(&point(9, 52, -1.0, 1.0));
    Case {
        name: "dense_layer",
        itself: &|x| {
            dense_layer(
                &matrix(x),
                &matrix::<3, 1>(&x[12..])[0],
                &matrix::<4, 1>(&x[15..])[0],
            )
        },
        primal: &|x| {
            dense_layer::primal(
                &matrix(x),
                &matrix::<3, 1>(&x[12..])[0],
                &matrix::<4, 1>(&x[15..])[0],
            )
        },
        grad: Some(&|x| {
            let (v, (gw, gb, gx)) = dense_layer::grad(
                &matrix(x),
                &matrix::<3, 1>(&x[12..])[0],
                &matrix::<4, 1>(&x[15..])[0],
            );
            (v, [gw.as_flattened(), &gb[..], &gx[..]].concat())
        }),
        grad_into: &|x| {
            let (mut dw, mut db, mut dx) = ([[0.0; 4]; 3], [0.0; 3], [0.0; 4]);
            let v = dense_layer::grad_into(
                &matrix(x),
                &matrix::<3, 1>(&x[12..])[0],
                &matrix::<4, 1>(&x[15..])[0],
                &mut dw,
                &mut db,
                &mut dx,
            );
            (v, [dw.as_flattened(), &db[..], &dx[..]].concat())
        },
        jvp: &|x, t| {
            dense_layer::jvp(
                &matrix(x),
                &matrix::<3, 1>(&x[12..])[0],
                &matrix::<4, 1>(&x[15..])[0],
                &matrix::<4, 3>(t),
                &t[12..15],
                &t[15..],
            )
        },
    }
    .check_with_second_order(&point(19, 53, -1.0, 1.0));
    Case {
        name: "gram_energy",
        itself: &|x| gram_energy(&rows::<2>(x)),
        primal: &|x| gram_energy::primal(&rows::<2>(x)),
        grad: Some(&|x| {
            let (v, [g]) = gram_energy::grad(&rows::<2>(x));
            (v, g.as_flattened().to_vec())
        }),
        grad_into: &|x| {
            let mut d = vec![[0.0; 2]; x.len() / 2];
            let v = gram_energy::grad_into(&rows::<2>(x), &mut d);
            (v, d.as_flattened().to_vec())
        },
        jvp: &|x, t| gram_energy::jvp(&rows::<2>(x), &rows::<2>(t)),
    }
    .check_with_second_order(&point(6, 54, -1.0, 1.0));
    Case {
        name: "rows_in_place",
        itself: &|x| rows_in_place(rows::<2>(x)),
        primal: &|x| rows_in_place::primal(rows::<2>(x)),
        grad: Some(&|x| {
            let (v, [g]) = rows_in_place::grad(rows::<2>(x));
            (v, g.as_flattened().to_vec())
        }),
        grad_into: &|x| {
            let mut d = vec![[0.0; 2]; x.len() / 2];
            let v = rows_in_place::grad_into(rows::<2>(x), &mut d);
            (v, d.as_flattened().to_vec())
        },
        jvp: &|x, t| rows_in_place::jvp(rows::<2>(x), &rows::<2>(t)),
    }
    .check_with_second_order(&point(6, 55, -1.0, 1.0));
    Case {
        name: "scaled_determinants",
        itself: &|x| scaled_determinants(matrix(x), x[9]),
        primal: &|x| scaled_determinants::primal(matrix(x), x[9]),
        grad: Some(&|x| {
            let (v, (gm, gs)) = scaled_determinants::grad(matrix(x), x[9]);
            (v, [gm.as_flattened(), &[gs]].concat())
        }),
        grad_into: &|x| {
            let (mut dm, mut ds) = ([[0.0; 3]; 3], 0.0);
            let v = scaled_determinants::grad_into(matrix(x), x[9], &mut dm, &mut ds);
            (v, [dm.as_flattened(), &[ds]].concat())
        },
        jvp: &|x, t| scaled_determinants::jvp(matrix(x), x[9], &matrix::<3, 3>(t), t[9]),
    }
    .check_with_second_order(&point(10, 56, -1.0, 1.0));
}

#[test]
fn matrix_literals() {
    Case {
        name: "rotation_energy",
        itself: &|x| rotation_energy(x[0], x[1]),
        primal: &|x| rotation_energy::primal(x[0], x[1]),
        grad: Some(&|x| {
            let (v, g) = rotation_energy::grad(x[0], x[1]);
            (v, g.to_vec())
        }),
        // float parameters only: no `grad_into`
        grad_into: &|x| {
            let (v, g) = rotation_energy::grad(x[0], x[1]);
            (v, g.to_vec())
        },
        jvp: &|x, t| rotation_energy::jvp(x[0], x[1], t[0], t[1]),
    }
    .check_with_second_order(&[0.7, 1.3]);
    // at s = 1 the matrix is a rotation: det 1, and r01 r10 = -sin² a;
    // d/da (1 - sin² a) = -2 sin a cos a = 0 at a = 0
    let (value, [da, _]) = rotation_energy::grad(0.0, 1.0);
    assert_eq!((value, da), (1.0, 0.0));
}

#[test]
fn parts_of_arrays_passed() {
    Case {
        name: "rows_and_ranges",
        itself: &|x| rows_and_ranges(&matrix(x), &x[6..]),
        primal: &|x| rows_and_ranges::primal(&matrix(x), &x[6..]),
        grad: Some(&|x| {
            let (v, (gm, gv)) = rows_and_ranges::grad(&matrix(x), &x[6..]);
            (v, [gm.as_flattened(), &gv[..]].concat())
        }),
        grad_into: &|x| {
            let (mut dm, mut dv) = ([[0.0; 3]; 2], vec![0.0; 5]);
            let v = rows_and_ranges::grad_into(&matrix(x), &x[6..], &mut dm, &mut dv);
            (v, [dm.as_flattened(), &dv[..]].concat())
        },
        jvp: &|x, t| rows_and_ranges::jvp(&matrix(x), &x[6..], &matrix::<3, 2>(t), &t[6..]),
    }
    .check_with_second_order(&point(11, 57, -1.0, 1.0));
    Case {
        name: "matvec_by_rows",
        itself: &|x| matvec_by_rows(&rows::<3>(&x[..9]), &matrix::<3, 1>(&x[9..])[0]),
        primal: &|x| matvec_by_rows::primal(&rows::<3>(&x[..9]), &matrix::<3, 1>(&x[9..])[0]),
        grad: Some(&|x| {
            let (v, (gm, gv)) =
                matvec_by_rows::grad(&rows::<3>(&x[..9]), &matrix::<3, 1>(&x[9..])[0]);
            (v, [gm.as_flattened(), &gv[..]].concat())
        }),
        grad_into: &|x| {
            let (mut dm, mut dv) = (vec![[0.0; 3]; 3], [0.0; 3]);
            let v = matvec_by_rows::grad_into(
                &rows::<3>(&x[..9]),
                &matrix::<3, 1>(&x[9..])[0],
                &mut dm,
                &mut dv,
            );
            (v, [dm.as_flattened(), &dv[..]].concat())
        },
        jvp: &|x, t| {
            matvec_by_rows::jvp(
                &rows::<3>(&x[..9]),
                &matrix::<3, 1>(&x[9..])[0],
                &rows::<3>(&t[..9]),
                &t[9..],
            )
        },
    }
    .check_with_second_order(&point(12, 58, -1.0, 1.0));
    // a range past the end panics as the body's own `&v[2..=4]` does
    let m = [[1.0; 3]; 2];
    assert!(std::panic::catch_unwind(|| rows_and_ranges::grad(&m, &[1.0; 4])).is_err());
}

#[test]
fn rows_iterated() {
    Case {
        name: "dense_by_rows",
        itself: &|x| {
            dense_by_rows(
                &matrix(x),
                &x[6..8].try_into().unwrap(),
                &x[8..].try_into().unwrap(),
            )
        },
        primal: &|x| {
            dense_by_rows::primal(
                &matrix(x),
                &x[6..8].try_into().unwrap(),
                &x[8..].try_into().unwrap(),
            )
        },
        grad: Some(&|x| {
            let (v, (gw, gb, gx)) = dense_by_rows::grad(
                &matrix(x),
                &x[6..8].try_into().unwrap(),
                &x[8..].try_into().unwrap(),
            );
            (v, [gw.as_flattened(), &gb[..], &gx[..]].concat())
        }),
        grad_into: &|x| {
            let (mut dw, mut db, mut dx) = ([[0.0; 3]; 2], [0.0; 2], [0.0; 3]);
            let v = dense_by_rows::grad_into(
                &matrix(x),
                &x[6..8].try_into().unwrap(),
                &x[8..].try_into().unwrap(),
                &mut dw,
                &mut db,
                &mut dx,
            );
            (v, [dw.as_flattened(), &db[..], &dx[..]].concat())
        },
        jvp: &|x, t| {
            dense_by_rows::jvp(
                &matrix(x),
                &x[6..8].try_into().unwrap(),
                &x[8..].try_into().unwrap(),
                &matrix::<3, 2>(t),
                &t[6..8],
                &t[8..],
            )
        },
    }
    .check_with_second_order(&point(11, 59, -1.0, 1.0));
    Case {
        name: "scaled_rows",
        itself: &|x| scaled_rows(matrix(x), x[6]),
        primal: &|x| scaled_rows::primal(matrix(x), x[6]),
        grad: Some(&|x| {
            let (v, (gm, gs)) = scaled_rows::grad(matrix(x), x[6]);
            (v, [gm.as_flattened(), &[gs]].concat())
        }),
        grad_into: &|x| {
            let (mut dm, mut ds) = ([[0.0; 2]; 3], 0.0);
            let v = scaled_rows::grad_into(matrix(x), x[6], &mut dm, &mut ds);
            (v, [dm.as_flattened(), &[ds]].concat())
        },
        jvp: &|x, t| scaled_rows::jvp(matrix(x), x[6], &matrix::<2, 3>(t), t[6]),
    }
    .check_with_second_order(&point(7, 60, -1.0, 1.0));
}

/// Hand-computed values, independent of central differences.
#[test]
fn arrays_of_rows_by_hand() {
    // d det M / dM = cofactor matrix; for M = diag(2, 3, 4): diag(12, 8, 6)
    let m = [[2.0, 0.0, 0.0], [0.0, 3.0, 0.0], [0.0, 0.0, 4.0]];
    let (value, [g]) = det3::grad(&m);
    assert_eq!(value, 24.0);
    assert_eq!(g, [[12.0, 0.0, 0.0], [0.0, 8.0, 0.0], [0.0, 0.0, 6.0]]);
    // |M v|² with M = I, v = (1, 2, 3): d/dM_ij = 2 (Mv)_i v_j = 2 v_i v_j, d/dv = 2 v
    let eye = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let (value, (gm, gv)) = matvec_energy::grad(eye, &[1.0, 2.0, 3.0]);
    assert_eq!(value, 14.0);
    assert_eq!(gm, [[2.0, 4.0, 6.0], [4.0, 8.0, 12.0], [6.0, 12.0, 18.0]]);
    assert_eq!(gv, [2.0, 4.0, 6.0]);
}

#[test]
fn f32_rows() {
    // tr(M²) + det M for M = [[1, 2], [3, 4]]: tr(M²) = 1 + 6 + 6 + 16 = 29, det = -2;
    // d tr(M²)/dM = 2 Mᵀ, d det/dM = [[m11, -m10], [-m01, m00]]
    let m = [[1.0_f32, 2.0], [3.0, 4.0]];
    assert_eq!(trace_of_square_f32(&m), trace_of_square_f32::primal(&m));
    let (value, [g]) = trace_of_square_f32::grad(&m);
    assert_eq!(value, 27.0);
    assert_eq!(g, [[2.0 + 4.0, 6.0 - 3.0], [4.0 - 2.0, 8.0 + 1.0]]);
    let mut d = [[0.0_f32; 2]; 2];
    assert_eq!(trace_of_square_f32::grad_into(&m, &mut d), 27.0);
    assert_eq!(d, g);
    // along the identity: d/ds f(M + sI) = <g, I> = 6 + 9
    let (_, tangent) = trace_of_square_f32::jvp(&m, &[[1.0, 0.0], [0.0, 1.0]]);
    assert_eq!(tangent, 15.0);
}

#[test]
fn a_column_past_the_row_panics_as_the_body_does() {
    #[differentiable]
    fn column(m: &[[f64; 2]], j: usize) -> f64 {
        m[0][j] * 2.0
    }
    let m = [[1.0, 2.0], [3.0, 4.0]];
    assert_eq!(column(&m, 1), 4.0);
    // m[0][2] is out of bounds in the body as written, not m[1][0]
    assert!(std::panic::catch_unwind(|| column::primal(&m, 2)).is_err());
    assert!(std::panic::catch_unwind(|| column::grad(&m, 2)).is_err());
    assert_eq!(column::grad(&m, 1).1, [vec![[0.0, 2.0], [0.0, 0.0]]]);
}

// ----- 3. ragged arrays of rows: `&[Vec<f64>]`, `Vec<Vec<f64>>`, `&Vec<Vec<f64>>` -----

/// `Σ_i tanh((M v)_i)` for rows of different lengths (row `i` multiplies `v[..len_i]`).
#[differentiable]
fn ragged_matvec(m: &[Vec<f64>], v: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..m.len() {
        let mut s = 0.0;
        for j in 0..m[i].len() {
            s += m[i][j] * v[j];
        }
        total += s.tanh();
    }
    total
}

/// The k-means cost `Σ_p min_c |p - c|²`, points and centroids as `&[Vec<f64>]`, rows
/// iterated (`for p in points`) and each distance an iterator form on two rows.
#[differentiable]
fn kmeans_cost(points: &[Vec<f64>], centroids: &[Vec<f64>]) -> f64 {
    let mut cost = 0.0;
    for p in points {
        let mut best = f64::INFINITY;
        for c in centroids.iter() {
            let d: f64 = p.iter().zip(c.iter()).map(|(a, b)| (a - b) * (a - b)).sum();
            best = best.min(d);
        }
        cost += best;
    }
    cost
}

/// `‖XᵀX‖²` for samples `x` (a `Vec<Vec<f64>>` by value): a local
/// `vec![vec![0.0; d]; d]` accumulated with `+=`, then read back.
#[differentiable]
fn gram_of_samples(x: Vec<Vec<f64>>) -> f64 {
    let d = x[0].len();
    let mut g = vec![vec![0.0; d]; d];
    for s in 0..x.len() {
        for a in 0..d {
            for b in 0..d {
                g[a][b] += x[s][a] * x[s][b];
            }
        }
    }
    let mut total = 0.0;
    for a in 0..d {
        for b in 0..d {
            total += g[a][b] * g[a][b];
        }
    }
    total
}

/// Regression (rustc's E0283/E0284 "type annotations needed" on ordinary code): a local
/// buffer (`mean`) whose values meet only generic rules, read as `x[i][a] - mean[a]`, left
/// the element type of its tangent shadow (and of its cotangent shadow, first read before
/// any add) to inference, which had nothing to fix it with.
#[differentiable]
fn centred_covariance(m: &[Vec<f64>], a: usize, b: usize) -> f64 {
    let n = m.len() as f64;
    let d = m[0].len();
    let mut mean = vec![0.0; d];
    for i in 0..m.len() {
        for j in 0..d {
            mean[j] += m[i][j] / n;
        }
    }
    let mut c = 0.0;
    for i in 0..m.len() {
        c += (m[i][a] - mean[a]) * (m[i][b] - mean[b]);
    }
    c / n
}

/// The sample covariance of the columns of `x` (`&Vec<Vec<f64>>`): column means, then a
/// local matrix of centred products; its trace plus the sum of squares off the diagonal.
#[differentiable]
fn covariance_energy(x: &Vec<Vec<f64>>) -> f64 {
    let (n, d) = (x.len(), x[0].len());
    let mut mean = vec![0.0; d];
    for s in 0..n {
        for a in 0..d {
            mean[a] += x[s][a] / n as f64;
        }
    }
    // Σ_s x_sa x_sb, then centred: (Σ_s x_sa x_sb - n mean_a mean_b) / (n - 1)
    let mut c: Vec<Vec<f64>> = vec![vec![0.0; d]; d];
    for s in 0..n {
        for a in 0..d {
            for b in 0..d {
                c[a][b] += x[s][a] * x[s][b];
            }
        }
    }
    for a in 0..d {
        for b in 0..d {
            c[a][b] = (c[a][b] - n as f64 * mean[a] * mean[b]) / (n as f64 - 1.0);
        }
    }
    let mut e = 0.0;
    for a in 0..d {
        for b in 0..d {
            e += if a == b { c[a][b] } else { c[a][b] * c[a][b] };
        }
    }
    e
}

/// A ragged parameter by value, written in place (`m[i][j] = ..`, `*=`), a row passed to
/// another annotated function, and rows of each length read through `row.len()`.
#[differentiable]
fn ragged_in_place(mut m: Vec<Vec<f64>>, s: f64) -> f64 {
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            m[i][j] *= s;
            m[i][j] = m[i][j].sin() + m[i][j];
        }
    }
    let mut total = 0.0;
    for i in 0..m.len() {
        total += dot(&m[i], &m[i]) / (1.0 + m[i].len() as f64);
    }
    total
}

/// The rows of a ragged matrix of the given row lengths, from a flat vector.
fn ragged(x: &[f64], lens: &[usize]) -> Vec<Vec<f64>> {
    common::faces::split(x, lens)
}

#[test]
fn ragged_rows() {
    // rows of lengths 3, 1, 2 times a vector of 3
    let lens = [3, 1, 2];
    Case {
        name: "ragged_matvec",
        itself: &|x| ragged_matvec(&ragged(x, &lens), &x[6..]),
        primal: &|x| ragged_matvec::primal(&ragged(x, &lens), &x[6..]),
        grad: Some(&|x| {
            let (v, (gm, gv)) = ragged_matvec::grad(&ragged(x, &lens), &x[6..]);
            (v, [gm.concat(), gv].concat())
        }),
        grad_into: &|x| {
            let (mut dm, mut dv) = (ragged(&[0.0; 6], &lens), vec![0.0; 3]);
            let v = ragged_matvec::grad_into(&ragged(x, &lens), &x[6..], &mut dm, &mut dv);
            (v, [dm.concat(), dv].concat())
        },
        jvp: &|x, t| ragged_matvec::jvp(&ragged(x, &lens), &x[6..], &ragged(t, &lens), &t[6..]),
    }
    .check_with_second_order(&point(9, 61, -1.0, 1.0));
    // 4 points and 2 centroids in the plane
    let (points, centroids) = ([2; 4], [2; 2]);
    Case {
        name: "kmeans_cost",
        itself: &|x| kmeans_cost(&ragged(x, &points), &ragged(&x[8..], &centroids)),
        primal: &|x| kmeans_cost::primal(&ragged(x, &points), &ragged(&x[8..], &centroids)),
        grad: Some(&|x| {
            let (v, [gp, gc]) =
                kmeans_cost::grad(&ragged(x, &points), &ragged(&x[8..], &centroids));
            (v, [gp.concat(), gc.concat()].concat())
        }),
        grad_into: &|x| {
            let mut dp = ragged(&[0.0; 8], &points);
            let mut dc = ragged(&[0.0; 4], &centroids);
            let v = kmeans_cost::grad_into(
                &ragged(x, &points),
                &ragged(&x[8..], &centroids),
                &mut dp,
                &mut dc,
            );
            (v, [dp.concat(), dc.concat()].concat())
        },
        jvp: &|x, t| {
            kmeans_cost::jvp(
                &ragged(x, &points),
                &ragged(&x[8..], &centroids),
                &ragged(t, &points),
                &ragged(&t[8..], &centroids),
            )
        },
    }
    .check_with_second_order(&point(12, 62, -1.0, 1.0));
    // 3 samples of 2 features
    let samples = [2; 3];
    Case {
        name: "gram_of_samples",
        itself: &|x| gram_of_samples(ragged(x, &samples)),
        primal: &|x| gram_of_samples::primal(ragged(x, &samples)),
        grad: Some(&|x| {
            let (v, [g]) = gram_of_samples::grad(ragged(x, &samples));
            (v, g.concat())
        }),
        grad_into: &|x| {
            let mut d = ragged(&[0.0; 6], &samples);
            let v = gram_of_samples::grad_into(ragged(x, &samples), &mut d);
            (v, d.concat())
        },
        jvp: &|x, t| gram_of_samples::jvp(ragged(x, &samples), &ragged(t, &samples)),
    }
    .check_with_second_order(&point(6, 63, -1.0, 1.0));
    // 4 samples of 3 features
    let samples = [3; 4];
    Case {
        name: "covariance_energy",
        itself: &|x| covariance_energy(&ragged(x, &samples)),
        primal: &|x| covariance_energy::primal(&ragged(x, &samples)),
        grad: Some(&|x| {
            let (v, [g]) = covariance_energy::grad(&ragged(x, &samples));
            (v, g.concat())
        }),
        grad_into: &|x| {
            let mut d = ragged(&[0.0; 12], &samples);
            let v = covariance_energy::grad_into(&ragged(x, &samples), &mut d);
            (v, d.concat())
        },
        jvp: &|x, t| covariance_energy::jvp(&ragged(x, &samples), &ragged(t, &samples)),
    }
    .check_with_second_order(&point(12, 64, -1.0, 1.0));
    let samples = [3; 4];
    Case {
        name: "centred_covariance",
        itself: &|x| centred_covariance(&ragged(x, &samples), 0, 2),
        primal: &|x| centred_covariance::primal(&ragged(x, &samples), 0, 2),
        grad: Some(&|x| {
            let (v, [g]) = centred_covariance::grad(&ragged(x, &samples), 0, 2);
            (v, g.concat())
        }),
        grad_into: &|x| {
            let mut d = ragged(&[0.0; 12], &samples);
            let v = centred_covariance::grad_into(&ragged(x, &samples), 0, 2, &mut d);
            (v, d.concat())
        },
        jvp: &|x, t| centred_covariance::jvp(&ragged(x, &samples), 0, 2, &ragged(t, &samples)),
    }
    .check_with_second_order(&point(12, 65, -1.0, 1.0));
    let lens = [2, 3, 1];
    Case {
        name: "ragged_in_place",
        itself: &|x| ragged_in_place(ragged(x, &lens), x[6]),
        primal: &|x| ragged_in_place::primal(ragged(x, &lens), x[6]),
        grad: Some(&|x| {
            let (v, (gm, gs)) = ragged_in_place::grad(ragged(x, &lens), x[6]);
            (v, [gm.concat(), vec![gs]].concat())
        }),
        grad_into: &|x| {
            let (mut dm, mut ds) = (ragged(&[0.0; 6], &lens), 0.0);
            let v = ragged_in_place::grad_into(ragged(x, &lens), x[6], &mut dm, &mut ds);
            (v, [dm.concat(), vec![ds]].concat())
        },
        jvp: &|x, t| ragged_in_place::jvp(ragged(x, &lens), x[6], &ragged(t, &lens), t[6]),
    }
    .check_with_second_order(&point(7, 65, -1.0, 1.0));
}

/// Hand-computed ragged gradients, and the shape checks of `grad_into` and `jvp`.
#[test]
fn ragged_rows_by_hand() {
    // Σ_i tanh(m_i · v) at m = [[0, 0], [0]], v = (1, 2): tanh' (0) = 1, so
    // d/dm_ij = v_j and d/dv_j = Σ_i m_ij = 0
    let m = vec![vec![0.0, 0.0], vec![0.0]];
    let (value, (gm, gv)) = ragged_matvec::grad(&m, &[1.0, 2.0]);
    assert_eq!(value, 0.0);
    assert_eq!(gm, vec![vec![1.0, 2.0], vec![1.0]]);
    assert_eq!(gv, vec![0.0, 0.0]);
    // one point (0, 0), centroids (1, 0) and (0, 3): the nearest is (1, 0), at distance
    // 1; d/dp = 2 (p - c) = (-2, 0), d/dc = (2, 0) for the nearest, 0 for the other
    let (value, [gp, gc]) = kmeans_cost::grad(&[vec![0.0, 0.0]], &[vec![1.0, 0.0], vec![0.0, 3.0]]);
    assert_eq!(value, 1.0);
    assert_eq!(gp, vec![vec![-2.0, 0.0]]);
    assert_eq!(gc, vec![vec![2.0, 0.0], vec![0.0, 0.0]]);
    // `grad_into` accumulates into the caller's rows, and checks their shape
    let mut d = vec![vec![1.0, 1.0], vec![1.0]];
    let mut dv = vec![0.0; 2];
    ragged_matvec::grad_into(&m, &[1.0, 2.0], &mut d, &mut dv);
    assert_eq!(d, vec![vec![2.0, 3.0], vec![2.0]]);
    let wrong = std::panic::catch_unwind(|| {
        let mut d = vec![vec![0.0, 0.0], vec![0.0, 0.0]];
        ragged_matvec::grad_into(&m, &[1.0, 2.0], &mut d, &mut [0.0; 2]);
    });
    let message = wrong.unwrap_err().downcast::<String>().unwrap();
    assert!(
        message.contains("row 1 given for `m` has length 2"),
        "{message}"
    );
    // a column past a short row panics as the body does, not reading the next row
    let short = vec![vec![1.0], vec![2.0, 3.0]];
    assert!(std::panic::catch_unwind(|| ragged_matvec::grad(&short, &[1.0, 1.0])).is_ok());
    #[differentiable]
    fn second(m: &[Vec<f64>]) -> f64 {
        m[0][1] * 2.0
    }
    assert_eq!(second(&[vec![1.0, 2.0]]), 4.0);
    assert!(std::panic::catch_unwind(|| second::primal(&short)).is_err());
    assert!(std::panic::catch_unwind(|| second::grad(&short)).is_err());
    assert_eq!(second::grad(&[vec![1.0, 2.0]]).1, [vec![vec![0.0, 2.0]]]);
}

// ----- 4. rows iterated: `for row in m`, `&m`, `m.iter()`, and iterator forms on a row -----

/// `Σ_i tanh(row_i · w)` with the rows of an owned `[[f64; 3]; 2]` by value, each dot
/// product an iterator form on the row (`row.iter().zip(w).map(..).sum()`).
#[differentiable]
fn rows_by_value(m: [[f64; 3]; 2], w: &[f64; 3]) -> f64 {
    let mut total = 0.0;
    for row in m {
        let z: f64 = row.iter().zip(w.iter()).map(|(a, b)| a * b).sum();
        total += z.tanh();
    }
    for row in &m {
        total += row[0] * row[2];
    }
    total
}

/// Rows by reference (`for row in m` of a slice, `.enumerate()`, `.rev()`), read by `for x in row`,
/// `for &x in row.iter()`, `row.len()` and `row[j]`.
#[differentiable]
fn rows_by_reference(m: &[[f64; 2]], s: f64) -> f64 {
    let mut total = 0.0;
    for row in m {
        for x in row {
            total += x * x * s;
        }
    }
    for (i, row) in m.iter().enumerate().rev() {
        let mut p = 1.0;
        for &x in row.iter() {
            p *= x.sin();
        }
        total += p * (i as f64 + 1.0) + row[row.len() - 1];
    }
    total
}

/// Rows written through `iter_mut` and an `iter_mut` on each row, then `map` + `sum` of a
/// `product` per row.
#[differentiable]
fn rows_scaled_in_place(mut m: Vec<[f64; 3]>, s: f64) -> f64 {
    for row in m.iter_mut() {
        for x in row.iter_mut() {
            *x *= s;
        }
    }
    m.iter()
        .map(|row| row.iter().map(|x| x.cos()).product::<f64>())
        .sum()
}

/// Ragged rows zipped with a slice of biases, each row's norm a `fold`.
#[differentiable]
fn ragged_rows_zipped(m: &[Vec<f64>], b: &[f64]) -> f64 {
    let mut total = 0.0;
    for (row, bias) in m.iter().zip(b.iter()) {
        let n = row.iter().fold(0.0, |acc, x| acc + x * x);
        total += (n + bias).sqrt() + dot(row, row);
    }
    total
}

#[test]
fn rows_iterated_forms() {
    Case {
        name: "rows_by_value",
        itself: &|x| rows_by_value(matrix(x), &matrix::<3, 1>(&x[6..])[0]),
        primal: &|x| rows_by_value::primal(matrix(x), &matrix::<3, 1>(&x[6..])[0]),
        grad: Some(&|x| {
            let (v, (gm, gw)) = rows_by_value::grad(matrix(x), &matrix::<3, 1>(&x[6..])[0]);
            (v, [gm.as_flattened(), &gw].concat())
        }),
        grad_into: &|x| {
            let (mut dm, mut dw) = ([[0.0; 3]; 2], [0.0; 3]);
            let w = matrix::<3, 1>(&x[6..])[0];
            let v = rows_by_value::grad_into(matrix(x), &w, &mut dm, &mut dw);
            (v, [dm.as_flattened(), &dw].concat())
        },
        jvp: &|x, t| {
            let w = matrix::<3, 1>(&x[6..])[0];
            rows_by_value::jvp(matrix(x), &w, &matrix::<3, 2>(t), &t[6..])
        },
    }
    .check_with_second_order(&point(9, 71, -1.0, 1.0));
    Case {
        name: "rows_by_reference",
        itself: &|x| rows_by_reference(&rows::<2>(&x[..6]), x[6]),
        primal: &|x| rows_by_reference::primal(&rows::<2>(&x[..6]), x[6]),
        grad: Some(&|x| {
            let (v, (gm, gs)) = rows_by_reference::grad(&rows::<2>(&x[..6]), x[6]);
            (v, [gm.as_flattened(), &[gs]].concat())
        }),
        grad_into: &|x| {
            let (mut dm, mut ds) = (vec![[0.0; 2]; 3], 0.0);
            let v = rows_by_reference::grad_into(&rows::<2>(&x[..6]), x[6], &mut dm, &mut ds);
            (v, [dm.as_flattened(), &[ds]].concat())
        },
        jvp: &|x, t| rows_by_reference::jvp(&rows::<2>(&x[..6]), x[6], &rows::<2>(&t[..6]), t[6]),
    }
    .check_with_second_order(&point(7, 72, -1.0, 1.0));
    Case {
        name: "rows_scaled_in_place",
        itself: &|x| rows_scaled_in_place(rows::<3>(&x[..6]), x[6]),
        primal: &|x| rows_scaled_in_place::primal(rows::<3>(&x[..6]), x[6]),
        grad: Some(&|x| {
            let (v, (gm, gs)) = rows_scaled_in_place::grad(rows::<3>(&x[..6]), x[6]);
            (v, [gm.as_flattened(), &[gs]].concat())
        }),
        grad_into: &|x| {
            let (mut dm, mut ds) = (vec![[0.0; 3]; 2], 0.0);
            let v = rows_scaled_in_place::grad_into(rows::<3>(&x[..6]), x[6], &mut dm, &mut ds);
            (v, [dm.as_flattened(), &[ds]].concat())
        },
        jvp: &|x, t| rows_scaled_in_place::jvp(rows::<3>(&x[..6]), x[6], &rows::<3>(&t[..6]), t[6]),
    }
    .check_with_second_order(&point(7, 73, -1.0, 1.0));
    let lens = [2, 3];
    Case {
        name: "ragged_rows_zipped",
        itself: &|x| ragged_rows_zipped(&ragged(x, &lens), &x[5..]),
        primal: &|x| ragged_rows_zipped::primal(&ragged(x, &lens), &x[5..]),
        grad: Some(&|x| {
            let (v, (gm, gb)) = ragged_rows_zipped::grad(&ragged(x, &lens), &x[5..]);
            (v, [gm.concat(), gb].concat())
        }),
        grad_into: &|x| {
            let (mut dm, mut db) = (ragged(&[0.0; 5], &lens), vec![0.0; 2]);
            let v = ragged_rows_zipped::grad_into(&ragged(x, &lens), &x[5..], &mut dm, &mut db);
            (v, [dm.concat(), db].concat())
        },
        jvp: &|x, t| {
            ragged_rows_zipped::jvp(&ragged(x, &lens), &x[5..], &ragged(t, &lens), &t[5..])
        },
    }
    .check_with_second_order(&point(7, 74, 0.5, 1.5));
}

/// Iterated rows against hand-computed derivatives.
#[test]
fn rows_iterated_by_hand() {
    // tanh(row · w) at m = 0: d/dm_ij = w_j (tanh'(0) = 1), d/dw = Σ_i m_i = 0
    let (value, (gm, gw)) = rows_by_value::grad([[0.0; 3]; 2], &[1.0, 2.0, 3.0]);
    assert_eq!(value, 0.0);
    assert_eq!(gm, [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]);
    assert_eq!(gw, [0.0; 3]);
    // Π_j cos(s x_j) summed over rows, at x = 0: the value is the number of rows and
    // every derivative is 0 (sin 0 = 0)
    let (value, (gm, gs)) = rows_scaled_in_place::grad(vec![[0.0; 3]; 2], 2.0);
    assert_eq!(value, 2.0);
    assert_eq!(gm, vec![[0.0; 3]; 2]);
    assert_eq!(gs, 0.0);
}

// ----- 5. a row copied whole: `let r = m[i];`, `m[i].clone()`, `m[i].to_vec()` -----

/// A row of an owned `[[f64; 3]; 2]` copied (`let r = m[1];`), written, iterated and
/// passed to `dot`; another row cloned.
#[differentiable]
fn row_copies(m: [[f64; 3]; 2], w: &[f64; 3]) -> f64 {
    let mut r = m[1];
    r[0] *= r[2];
    let q = m[0].clone();
    let s: f64 = r.iter().zip(q.iter()).map(|(a, b)| a * b.sin()).sum();
    s + dot(&r, w)
}

/// A row of a ragged array copied into a `Vec` (`m[i].to_vec()`), then grown.
#[differentiable]
fn ragged_row_copy(m: &[Vec<f64>], i: usize) -> f64 {
    let mut r = m[i].to_vec();
    r.push(m[0][0] * 2.0);
    let mut p = 1.0;
    for x in r.iter() {
        p *= 1.0 + x * x;
    }
    p.ln()
}

#[test]
fn rows_copied_whole() {
    Case {
        name: "row_copies",
        itself: &|x| row_copies(matrix(x), &matrix::<3, 1>(&x[6..])[0]),
        primal: &|x| row_copies::primal(matrix(x), &matrix::<3, 1>(&x[6..])[0]),
        grad: Some(&|x| {
            let (v, (gm, gw)) = row_copies::grad(matrix(x), &matrix::<3, 1>(&x[6..])[0]);
            (v, [gm.as_flattened(), &gw].concat())
        }),
        grad_into: &|x| {
            let (mut dm, mut dw) = ([[0.0; 3]; 2], [0.0; 3]);
            let w = matrix::<3, 1>(&x[6..])[0];
            let v = row_copies::grad_into(matrix(x), &w, &mut dm, &mut dw);
            (v, [dm.as_flattened(), &dw].concat())
        },
        jvp: &|x, t| {
            let w = matrix::<3, 1>(&x[6..])[0];
            row_copies::jvp(matrix(x), &w, &matrix::<3, 2>(t), &t[6..])
        },
    }
    .check_with_second_order(&point(9, 81, -1.0, 1.0));
    let lens = [1, 3];
    Case {
        name: "ragged_row_copy",
        itself: &|x| ragged_row_copy(&ragged(x, &lens), 1),
        primal: &|x| ragged_row_copy::primal(&ragged(x, &lens), 1),
        grad: Some(&|x| {
            let (v, [gm]) = ragged_row_copy::grad(&ragged(x, &lens), 1);
            (v, gm.concat())
        }),
        grad_into: &|x| {
            let mut dm = ragged(&[0.0; 4], &lens);
            let v = ragged_row_copy::grad_into(&ragged(x, &lens), 1, &mut dm);
            (v, dm.concat())
        },
        jvp: &|x, t| ragged_row_copy::jvp(&ragged(x, &lens), 1, &ragged(t, &lens)),
    }
    .check_with_second_order(&point(4, 82, -1.0, 1.0));
    // ln Π (1 + x²) over row 1 = (1, 0, 0) and 2 m00 = 0: ln 2; d/dm_10 = 2x/(1+x²) = 1
    let (value, [g]) = ragged_row_copy::grad(&[vec![0.0], vec![1.0, 0.0, 0.0]], 1);
    assert_eq!(value, 2f64.ln());
    assert_eq!(g, vec![vec![0.0], vec![1.0, 0.0, 0.0]]);
}

/// An annotated function over a ragged array, called with constant rows (data) by
/// another: the callee's gradient for the rows is dropped, the number's flows.
#[differentiable]
fn weighted_rows(m: &[Vec<f64>], s: f64) -> f64 {
    let mut total = 0.0;
    for row in m {
        for x in row {
            total += (x * s).sin();
        }
    }
    total
}

#[differentiable(constant(data))]
fn fit_scale(data: &[Vec<f64>], s: f64) -> f64 {
    weighted_rows(data, s) * s
}

#[test]
fn ragged_rows_as_data_of_a_call() {
    let data = vec![vec![0.5, -1.0], vec![2.0]];
    // d/ds [s Σ sin(x s)] = Σ sin(x s) + s Σ x cos(x s)
    let s = 0.7;
    let expected: f64 = data
        .iter()
        .flatten()
        .map(|x: &f64| (x * s).sin() + s * x * (x * s).cos())
        .sum();
    let (value, [g]) = fit_scale::grad(&data, s);
    assert_eq!(value.to_bits(), fit_scale::primal(&data, s).to_bits());
    assert_eq!(value.to_bits(), fit_scale(&data, s).to_bits());
    assert!((g - expected).abs() < 1e-14, "{g} vs {expected}");
    let (_, tangent) = fit_scale::jvp(&data, s, 1.0);
    assert!((tangent - expected).abs() < 1e-14);
}

/// `Σ_i (Σ_j m_ij)²` over ragged rows.
#[differentiable]
fn row_sums_energy(m: &[Vec<f64>]) -> f64 {
    let mut total = 0.0;
    for row in m {
        let r: f64 = row.iter().sum();
        total += r * r;
    }
    total
}

/// A ragged parameter passed whole to another annotated function, and a local ragged
/// buffer (rows of 2, its last column never written for a row of 1) passed whole too.
#[differentiable]
fn ragged_passed_whole(m: &[Vec<f64>], s: f64) -> f64 {
    let mut scaled = vec![vec![0.0; 2]; m.len()];
    for i in 0..m.len() {
        for j in 0..m[i].len().min(2) {
            scaled[i][j] = (m[i][j] * s).sin();
        }
    }
    row_sums_energy(m) * s + row_sums_energy(&scaled)
}

#[test]
fn ragged_rows_passed_whole() {
    let lens = [3, 1, 2];
    Case {
        name: "ragged_passed_whole",
        itself: &|x| ragged_passed_whole(&ragged(x, &lens), x[6]),
        primal: &|x| ragged_passed_whole::primal(&ragged(x, &lens), x[6]),
        grad: Some(&|x| {
            let (v, (gm, gs)) = ragged_passed_whole::grad(&ragged(x, &lens), x[6]);
            (v, [gm.concat(), vec![gs]].concat())
        }),
        grad_into: &|x| {
            let (mut dm, mut ds) = (ragged(&[0.0; 6], &lens), 0.0);
            let v = ragged_passed_whole::grad_into(&ragged(x, &lens), x[6], &mut dm, &mut ds);
            (v, [dm.concat(), vec![ds]].concat())
        },
        jvp: &|x, t| ragged_passed_whole::jvp(&ragged(x, &lens), x[6], &ragged(t, &lens), t[6]),
    }
    .check_with_second_order(&point(7, 91, -1.0, 1.0));
    // Σ_i (Σ_j m_ij)²: d/dm_ij = 2 Σ_j m_ij
    let (value, [g]) = row_sums_energy::grad(&[vec![1.0, 2.0], vec![3.0]]);
    assert_eq!(value, 18.0);
    assert_eq!(g, vec![vec![6.0, 6.0], vec![6.0]]);
}

/// Ragged rows of `f32`.
#[differentiable]
fn ragged_f32(m: &[Vec<f32>], s: f32) -> f32 {
    let mut total = 0.0;
    for row in m {
        total += row.iter().map(|x| x * x * s).sum::<f32>();
    }
    total
}

/// A checkpointed loop over the rows of a ragged parameter and a local ragged buffer.
#[differentiable(checkpoint)]
fn ragged_checkpointed(m: &[Vec<f64>], s: f64) -> f64 {
    let mut acc = vec![vec![0.0; 2]; 2];
    let mut total = 0.0;
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            acc[i % 2][j % 2] += (m[i][j] * s).tanh();
            total += acc[i % 2][j % 2] * m[i][j];
        }
    }
    total
}

#[test]
fn ragged_rows_f32_and_checkpointed() {
    // Σ s x²: d/dx = 2 s x, d/ds = Σ x²
    let m = vec![vec![1.0_f32, 2.0], vec![3.0]];
    let (value, (gm, gs)) = ragged_f32::grad(&m, 0.5);
    assert_eq!(value, 7.0);
    assert_eq!(ragged_f32(&m, 0.5), ragged_f32::primal(&m, 0.5));
    assert_eq!(gm, vec![vec![1.0, 2.0], vec![3.0]]);
    assert_eq!(gs, 14.0);
    let mut d = vec![vec![0.0_f32; 2], vec![0.0]];
    let mut ds = 0.0;
    assert_eq!(ragged_f32::grad_into(&m, 0.5, &mut d, &mut ds), 7.0);
    assert_eq!((d, ds), (gm, gs));
    let lens = [3, 1, 2];
    Case {
        name: "ragged_checkpointed",
        itself: &|x| ragged_checkpointed(&ragged(x, &lens), x[6]),
        primal: &|x| ragged_checkpointed::primal(&ragged(x, &lens), x[6]),
        grad: Some(&|x| {
            let (v, (gm, gs)) = ragged_checkpointed::grad(&ragged(x, &lens), x[6]);
            (v, [gm.concat(), vec![gs]].concat())
        }),
        grad_into: &|x| {
            let (mut dm, mut ds) = (ragged(&[0.0; 6], &lens), 0.0);
            let v = ragged_checkpointed::grad_into(&ragged(x, &lens), x[6], &mut dm, &mut ds);
            (v, [dm.concat(), vec![ds]].concat())
        },
        jvp: &|x, t| ragged_checkpointed::jvp(&ragged(x, &lens), x[6], &ragged(t, &lens), t[6]),
    }
    .check_with_second_order(&point(7, 92, -1.0, 1.0));
}

// ----- 5. indices recomputed from loop counters, values recomputed (issue 13) -----
//
// `grad_into` recomputes the index of a row view's read `m[rowN][gradtape_k]` from the
// loop counters of the iteration it replays, and the operands of `(a - b) * (a - b)` from
// the caller's arrays, instead of saving them; `grad` saves them. The faces' check holds
// `grad_into` to `grad` bit for bit, and both to central differences.

/// The k-means cost over fixed rows with jumps in both loops: a point far out is skipped
/// (`continue`), and the search over centroids stops at the first one near enough
/// (`break`), so that an iteration of each loop may end early.
#[differentiable]
fn kmeans_with_jumps(points: &[[f64; 3]], centroids: &[[f64; 3]]) -> f64 {
    let mut cost = 0.0;
    for p in points {
        if p[0] > 0.6 {
            continue;
        }
        let mut best = f64::INFINITY;
        for c in centroids {
            let d: f64 = p.iter().zip(c.iter()).map(|(a, b)| (a - b) * (a - b)).sum();
            best = best.min(d);
            if d < 0.8 {
                break;
            }
        }
        cost += best;
    }
    cost
}

/// Rows walked backwards (`.rev()`, a reversed counter) and forwards with `enumerate`, over
/// ragged rows: `m[rowN][gradtape_k]` with `rowN` counting down.
#[differentiable]
fn ragged_rows_reversed(m: &[Vec<f64>], w: &[Vec<f64>]) -> f64 {
    let mut total = 0.0;
    for (r, q) in m.iter().zip(w.iter()).rev() {
        let s: f64 = r.iter().zip(q.iter()).map(|(a, b)| (a - b) * (a + b)).sum();
        total += s.sin();
    }
    for (k, r) in m.iter().enumerate() {
        let s: f64 = r.iter().map(|a| a * a).sum();
        total += s * (k as f64 + 1.0);
    }
    total
}

/// A reversed loop a `break` may end early: its trip count is not the number of rows,
/// so its reads save their indices (`forget_counter`) while the inner loop's recompute
/// theirs.
#[differentiable]
fn reversed_rows_with_break(m: &[[f64; 2]]) -> f64 {
    let mut total = 0.0;
    for r in m.iter().rev() {
        let s: f64 = r.iter().map(|a| (a - 0.5) * (a - 0.5)).sum();
        if s > 0.9 {
            break;
        }
        total += s.exp();
    }
    total
}

/// Regression: a name the user spells that the desugaring also generates. The user's
/// `gradtape_k` was taken for the iterator loop's counter (the generated counter has the
/// same text): the adjoint added `x[gradtape_k]`'s cotangent at the loop's iteration
/// instead of at the user's index, a silently wrong gradient.
#[differentiable]
fn user_named_gradtape_k(x: &[f64], gradtape_k: usize) -> f64 {
    x.iter().map(|a| a * x[gradtape_k]).sum()
}

/// The same for a row view's index: the user's `row1` is not the desugaring's (the first
/// row view's index is named `row1` too), though `j` is the inner loop's counter.
#[differentiable]
fn user_named_row1(m: &[[f64; 2]], w: &[[f64; 2]], row1: usize) -> f64 {
    let mut total = 0.0;
    for r in m.iter() {
        for (j, a) in r.iter().enumerate() {
            total += a * w[row1][j];
        }
    }
    total
}

/// A checkpointed loop over rows: the recomputed indices and values count on the segment's
/// trips (`start + t`).
#[differentiable(checkpoint)]
fn rows_checkpointed(points: &[[f64; 2]], centroid: &[f64; 2]) -> f64 {
    let mut total = 0.0;
    for p in points {
        let d: f64 = p
            .iter()
            .zip(centroid.iter())
            .map(|(a, b)| (a - b) * (a - b))
            .sum();
        total += d.sqrt();
    }
    total
}

#[test]
fn indices_and_values_recomputed_from_counters() {
    // 4 points and 3 centroids in 3-d: the point seed leaves some points past 0.6 and
    // some searches ending early (checked below, so the jumps are exercised)
    let x = point(21, 131, -1.0, 1.0);
    let skipped = (0..4).filter(|i| x[3 * i] > 0.6).count();
    assert!(skipped > 0 && skipped < 4, "{skipped} points skipped");
    Case {
        name: "kmeans_with_jumps",
        itself: &|x| kmeans_with_jumps(&matrix::<3, 4>(x), &matrix::<3, 3>(&x[12..])),
        primal: &|x| kmeans_with_jumps::primal(&matrix::<3, 4>(x), &matrix::<3, 3>(&x[12..])),
        grad: Some(&|x| {
            let (v, [gp, gc]) =
                kmeans_with_jumps::grad(&matrix::<3, 4>(x), &matrix::<3, 3>(&x[12..]));
            (v, [gp.concat(), gc.concat()].concat())
        }),
        grad_into: &|x| {
            let (mut dp, mut dc) = ([[0.0; 3]; 4], [[0.0; 3]; 3]);
            let v = kmeans_with_jumps::grad_into(
                &matrix::<3, 4>(x),
                &matrix::<3, 3>(&x[12..]),
                &mut dp,
                &mut dc,
            );
            (v, [dp.concat(), dc.concat()].concat())
        },
        jvp: &|x, t| {
            kmeans_with_jumps::jvp(
                &matrix::<3, 4>(x),
                &matrix::<3, 3>(&x[12..]),
                &matrix::<3, 4>(t),
                &matrix::<3, 3>(&t[12..]),
            )
        },
    }
    .check(&x);
    let broke = (0..4).filter(|i| x[3 * i] <= 0.6).any(|i| {
        (0..3).any(|c| {
            let d: f64 = (0..3)
                .map(|j| (x[3 * i + j] - x[12 + 3 * c + j]).powi(2))
                .sum();
            d < 0.8
        })
    });
    assert!(broke, "no centroid search ended early");

    let (lens, wlens) = ([3, 1, 2], [2, 1, 3]);
    Case {
        name: "ragged_rows_reversed",
        itself: &|x| ragged_rows_reversed(&ragged(x, &lens), &ragged(&x[6..], &wlens)),
        primal: &|x| ragged_rows_reversed::primal(&ragged(x, &lens), &ragged(&x[6..], &wlens)),
        grad: Some(&|x| {
            let (v, [gm, gw]) =
                ragged_rows_reversed::grad(&ragged(x, &lens), &ragged(&x[6..], &wlens));
            (v, [gm.concat(), gw.concat()].concat())
        }),
        grad_into: &|x| {
            let (mut dm, mut dw) = (ragged(&[0.0; 6], &lens), ragged(&[0.0; 6], &wlens));
            let v = ragged_rows_reversed::grad_into(
                &ragged(x, &lens),
                &ragged(&x[6..], &wlens),
                &mut dm,
                &mut dw,
            );
            (v, [dm.concat(), dw.concat()].concat())
        },
        jvp: &|x, t| {
            ragged_rows_reversed::jvp(
                &ragged(x, &lens),
                &ragged(&x[6..], &wlens),
                &ragged(t, &lens),
                &ragged(&t[6..], &wlens),
            )
        },
    }
    .check_with_second_order(&point(12, 132, -1.0, 1.0));

    // rows (last first) (0.3, 0.5), (0.5, 0.6), then (2, 2): the loop breaks at the third
    let rows = [0.1, 0.1, 2.0, 2.0, 0.5, 0.6, 0.3, 0.5];
    Case {
        name: "reversed_rows_with_break",
        itself: &|x| reversed_rows_with_break(&matrix::<2, 4>(x)),
        primal: &|x| reversed_rows_with_break::primal(&matrix::<2, 4>(x)),
        grad: Some(&|x| {
            let (v, [g]) = reversed_rows_with_break::grad(&matrix::<2, 4>(x));
            (v, g.concat())
        }),
        grad_into: &|x| {
            let mut d = [[0.0; 2]; 4];
            let v = reversed_rows_with_break::grad_into(&matrix::<2, 4>(x), &mut d);
            (v, d.concat())
        },
        jvp: &|x, t| reversed_rows_with_break::jvp(&matrix::<2, 4>(x), &matrix::<2, 4>(t)),
    }
    .check(&rows);
    // the rows before the break get no gradient
    let mut d = [[0.0; 2]; 4];
    reversed_rows_with_break::grad_into(&matrix::<2, 4>(&rows), &mut d);
    assert_eq!(d[0], [0.0, 0.0]);
    assert_ne!(d[3], [0.0, 0.0]);

    for at in 0..3 {
        slice_and_constant!(user_named_gradtape_k, at, point(3, 133, -1.0, 1.0));
        Case {
            name: "user_named_row1",
            itself: &|x| user_named_row1(&matrix::<2, 3>(x), &matrix::<2, 3>(&x[6..]), at),
            primal: &|x| user_named_row1::primal(&matrix::<2, 3>(x), &matrix::<2, 3>(&x[6..]), at),
            grad: Some(&|x| {
                let (v, [gm, gw]) =
                    user_named_row1::grad(&matrix::<2, 3>(x), &matrix::<2, 3>(&x[6..]), at);
                (v, [gm.concat(), gw.concat()].concat())
            }),
            grad_into: &|x| {
                let (mut dm, mut dw) = ([[0.0; 2]; 3], [[0.0; 2]; 3]);
                let v = user_named_row1::grad_into(
                    &matrix::<2, 3>(x),
                    &matrix::<2, 3>(&x[6..]),
                    at,
                    &mut dm,
                    &mut dw,
                );
                (v, [dm.concat(), dw.concat()].concat())
            },
            jvp: &|x, t| {
                user_named_row1::jvp(
                    &matrix::<2, 3>(x),
                    &matrix::<2, 3>(&x[6..]),
                    at,
                    &matrix::<2, 3>(t),
                    &matrix::<2, 3>(&t[6..]),
                )
            },
        }
        .check(&point(12, 134, -1.0, 1.0));
    }

    Case {
        name: "rows_checkpointed",
        itself: &|x| rows_checkpointed(&matrix::<2, 5>(x), &x[10..].try_into().unwrap()),
        primal: &|x| rows_checkpointed::primal(&matrix::<2, 5>(x), &x[10..].try_into().unwrap()),
        grad: Some(&|x| {
            let (v, (gp, gc)) =
                rows_checkpointed::grad(&matrix::<2, 5>(x), &x[10..].try_into().unwrap());
            (v, [gp.concat(), gc.to_vec()].concat())
        }),
        grad_into: &|x| {
            let (mut dp, mut dc) = ([[0.0; 2]; 5], [0.0; 2]);
            let v = rows_checkpointed::grad_into(
                &matrix::<2, 5>(x),
                &x[10..].try_into().unwrap(),
                &mut dp,
                &mut dc,
            );
            (v, [dp.concat(), dc.to_vec()].concat())
        },
        jvp: &|x, t| {
            rows_checkpointed::jvp(
                &matrix::<2, 5>(x),
                &x[10..].try_into().unwrap(),
                &matrix::<2, 5>(t),
                &t[10..],
            )
        },
    }
    .check_with_second_order(&point(12, 135, -1.0, 1.0));
}

/// What `grad_into` saves for the k-means shape: no index and no operand per element
/// read (only the trip counts and the `min`'s comparisons), where `vjp` still saves the
/// operands (its pullback cannot borrow the arrays).
#[test]
fn row_view_reads_save_no_index() {
    let code = kmeans_with_jumps::GENERATED;
    let into = common::generated_fn(code, "grad_into");
    let vjp = &code[..code.find("pub fn grad_into").expect("grad_into")];
    for name in common::saved_names(into) {
        assert!(
            ["trips", "sel", "exit", "branch"]
                .iter()
                .any(|kept| name.starts_with(kept)),
            "grad_into saves {name}:\n{into}"
        );
    }
    let in_vjp = common::saved_names(vjp);
    assert!(!in_vjp.iter().any(|n| n.starts_with("load")), "{in_vjp:?}");
    assert!(in_vjp.iter().any(|n| n.starts_with("lhs")), "{in_vjp:?}");
}

// ----- 6. functions a `macro_rules!` writes: parameter types given as `$t:ty` -----

/// Defines `fn $name(scale: $t, w: &[$t]) -> $t`: rustc hands the attribute each `$t`
/// wrapped in an invisible group (`syn::Type::Group`), which must read as the float it
/// holds, in the signature, in a local's annotation and in a cast (regression: `scale: $t`
/// was taken for a constant and `&[$t]` for no float array, so the function had nothing
/// to differentiate).
macro_rules! weighted_energy {
    ($name:ident, $t:ty) => {
        #[differentiable]
        fn $name(scale: $t, w: &[$t]) -> $t {
            let mut s: $t = 0.0;
            for i in 0..w.len() {
                s += (w[i] * scale).sin() * w[i];
            }
            let n = w.len() as $t;
            s * scale / n + (scale as $t).exp()
        }
    };
}

weighted_energy!(weighted_energy_f64, f64);
weighted_energy!(weighted_energy_f32, f32);

/// The same with every parameter a plain `$t` (and a tuple of them returned).
macro_rules! polar_of {
    ($name:ident, $t:ty) => {
        #[differentiable]
        fn $name(x: $t, y: $t) -> ($t, $t) {
            ((x * x + y * y).sqrt(), y.atan2(x))
        }
    };
}

polar_of!(polar_of_f64, f64);

#[test]
fn types_from_a_macro_rules() {
    Case {
        name: "weighted_energy_f64",
        itself: &|x| weighted_energy_f64(x[0], &x[1..]),
        primal: &|x| weighted_energy_f64::primal(x[0], &x[1..]),
        grad: Some(&|x| {
            let (v, (ds, dw)) = weighted_energy_f64::grad(x[0], &x[1..]);
            (v, [vec![ds], dw].concat())
        }),
        grad_into: &|x| {
            let (mut ds, mut dw) = (0.0, vec![0.0; x.len() - 1]);
            let v = weighted_energy_f64::grad_into(x[0], &x[1..], &mut ds, &mut dw);
            (v, [vec![ds], dw].concat())
        },
        jvp: &|x, t| weighted_energy_f64::jvp(x[0], &x[1..], t[0], &t[1..]),
    }
    .check_with_second_order(&point(5, 21, -1.0, 1.0));

    // the f32 instance: the same derivative, in f32
    let x = point(5, 21, -1.0, 1.0);
    let (v64, (ds64, dw64)) = weighted_energy_f64::grad(x[0], &x[1..]);
    let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let (v32, (ds32, dw32)) = weighted_energy_f32::grad(x32[0], &x32[1..]);
    assert_eq!(v32, weighted_energy_f32::primal(x32[0], &x32[1..]));
    assert_eq!(v32, weighted_energy_f32(x32[0], &x32[1..]));
    assert!((f64::from(v32) - v64).abs() < 1e-5, "{v32} vs {v64}");
    assert!((f64::from(ds32) - ds64).abs() < 1e-4, "{ds32} vs {ds64}");
    for (a, b) in dw32.iter().zip(&dw64) {
        assert!((f64::from(*a) - b).abs() < 1e-4, "{a} vs {b}");
    }

    // each part of the tuple result: its pullback of the part's unit cotangent against
    // central differences, and the tangent code against the pullback
    let at = [0.6, -0.8];
    for k in 0..2 {
        let part = |p: &[f64]| {
            let (r, theta) = polar_of_f64::primal(p[0], p[1]);
            [r, theta][k]
        };
        let (_, pullback) = polar_of_f64::vjp(at[0], at[1]);
        let seed = if k == 0 {
            (Some(1.0), None)
        } else {
            (None, Some(1.0))
        };
        let (dx, dy) = pullback(seed);
        let (dx, dy) = (dx.unwrap_or(0.0), dy.unwrap_or(0.0));
        let expected = common::central_differences(&part, &at);
        for (g, e) in [dx, dy].into_iter().zip(expected) {
            assert!(common::close(g, e, 1e-6), "part {k}: {g} vs {e}");
        }
        let (values, tangents) = polar_of_f64::jvp(at[0], at[1], 0.3, -0.5);
        assert_eq!(values, polar_of_f64(at[0], at[1]));
        let by_pullback = 0.3 * dx - 0.5 * dy;
        let by_jvp = [tangents.0, tangents.1][k];
        assert!(
            common::close(by_jvp, by_pullback, 1e-12),
            "part {k}: {by_jvp} vs {by_pullback}"
        );
    }
}

// ----- 7. fixed-size arrays copied whole: `let mut m = *a;`, `state = next;` -----

/// A matrix power by repeated products, double-buffered: `let mut m = *a;` copies the
/// parameter, `m = next;` each step (formerly the trybuild case
/// `array-copied-whole-into-a-local`, rejected on both).
#[differentiable]
fn trace_of_cube(a: &[[f64; 2]; 2]) -> f64 {
    let mut m = *a;
    for _ in 0..2 {
        let mut next = [[0.0; 2]; 2];
        for i in 0..2 {
            for j in 0..2 {
                for k in 0..2 {
                    next[i][j] += m[i][k] * a[k][j];
                }
            }
        }
        m = next;
    }
    m[0][0] + m[1][1]
}

/// A parameter shadowed by its own copy, `let mut a = *a;` (a mutable local of the same
/// name), written and read.
#[differentiable]
fn shadowed_by_its_copy(a: &[[f64; 2]; 2], s: f64) -> f64 {
    let mut a = *a;
    a[0][1] = a[0][1] * s + a[1][0];
    let mut total = 0.0;
    for i in 0..2 {
        for j in 0..2 {
            total += a[i][j] * a[j][i] * s;
        }
    }
    total
}

/// A flat copy written in place while the original is still read: the copy is an array
/// of its own (`a` keeps its values), and `a.clone()`, `*a` and a by-value `b` copy alike
/// (regression: an untyped `a.clone()` became a `Vec`, which `d = e;` could not take).
#[differentiable]
fn copies_kept_apart(a: &[f64; 3], b: [f64; 3]) -> f64 {
    let mut m = *a;
    let mut c = b;
    let mut d: [f64; 3] = a.clone();
    let mut e = a.clone();
    for k in 0..3 {
        m[k] = m[k] * m[k] + b[k];
        c[k] = c[k].sin();
    }
    d[1] = d[1] * c[2];
    // `a.clone()` of a fixed-size array is one too, so it can be replaced whole
    e[0] = e[2] * b[1] + d[1];
    d = e;
    let mut s = 0.0;
    for k in 0..3 {
        s += m[k] * a[k] + c[k] * d[k];
    }
    s
}

/// A damped oscillator by Heun's method (RK2), the state an array literal carried through
/// the loop by `state = next;`; the energy at the end.
#[differentiable]
fn oscillator_rk2(x0: f64, v0: f64, k: f64, c: f64) -> f64 {
    let dt = 0.05;
    let mut state = [x0, v0];
    for _ in 0..40 {
        let slope = [state[1], -k * state[0] - c * state[1]];
        let guess = [state[0] + dt * slope[0], state[1] + dt * slope[1]];
        let end = [guess[1], -k * guess[0] - c * guess[1]];
        let next = [
            state[0] + 0.5 * dt * (slope[0] + end[0]),
            state[1] + 0.5 * dt * (slope[1] + end[1]),
        ];
        state = next;
    }
    0.5 * k * state[0] * state[0] + 0.5 * state[1] * state[1]
}

/// Explicit Euler on a nonlinear system of three, the state copied from a parameter and
/// replaced whole each step (`state = next;`), with `state = *initial;` resetting it once
/// half way: the second half starts again from the parameter.
#[differentiable]
fn euler_restarted(initial: &[f64; 3], rates: &[f64; 3], steps: usize) -> f64 {
    let mut state = *initial;
    let mut first_half = 0.0;
    for step in 0..steps {
        if step == steps / 2 {
            first_half = state[0] * state[1] - state[2];
            state = *initial;
        }
        let mut next = [0.0; 3];
        for i in 0..3 {
            next[i] = state[i] + 0.1 * (rates[i] * state[(i + 1) % 3]).sin();
        }
        state = next;
    }
    let energy: f64 = state.iter().map(|s| s * s).sum();
    first_half + energy
}

/// A by-value array parameter replaced whole (`b = next;`): its elements are written
/// from the new array's, read before the replacement.
#[differentiable]
fn parameter_replaced(mut b: [f64; 2], s: f64) -> f64 {
    let next = [b[1] * s, b[0].sin() + s];
    let before = b[0] - b[1];
    b = next;
    b[0] * b[1] + before * s
}

/// A constant table copied into a local that a differentiable value is then written into
/// (`w[1] = ..`): the copy becomes active and is copied element by element; `c = w;`
/// replaces a constant array by the active one.
#[differentiable]
fn from_a_table(x: f64) -> f64 {
    let table = [1.0, 2.0, 0.5];
    let mut w = table;
    w[1] = w[1] * x;
    let mut c = [0.25; 3];
    let before = c[0] * x;
    c = w;
    w[0] * w[1] + w[2].sin() * x + c[1] * x + before
}

#[test]
fn fixed_arrays_copied_whole() {
    Case {
        name: "trace_of_cube",
        itself: &|x| trace_of_cube(&matrix(x)),
        primal: &|x| trace_of_cube::primal(&matrix(x)),
        grad: Some(&|x| {
            let (v, [g]) = trace_of_cube::grad(&matrix(x));
            (v, g.as_flattened().to_vec())
        }),
        grad_into: &|x| {
            let mut d = [[0.0; 2]; 2];
            let v = trace_of_cube::grad_into(&matrix(x), &mut d);
            (v, d.as_flattened().to_vec())
        },
        jvp: &|x, t| trace_of_cube::jvp(&matrix(x), &matrix::<2, 2>(t)),
    }
    .check_with_second_order(&point(4, 61, -1.0, 1.0));
    // by hand: d/dA tr(A³) = 3 (A²)ᵀ
    let a = [[1.0, 2.0], [-0.5, 0.25]];
    let (value, [g]) = trace_of_cube::grad(&a);
    let a2 = [
        [
            a[0][0] * a[0][0] + a[0][1] * a[1][0],
            a[0][0] * a[0][1] + a[0][1] * a[1][1],
        ],
        [
            a[1][0] * a[0][0] + a[1][1] * a[1][0],
            a[1][0] * a[0][1] + a[1][1] * a[1][1],
        ],
    ];
    let trace = a2[0][0] * a[0][0] + a2[0][1] * a[1][0] + a2[1][0] * a[0][1] + a2[1][1] * a[1][1];
    assert!((value - trace).abs() < 1e-12);
    for i in 0..2 {
        for j in 0..2 {
            assert!((g[i][j] - 3.0 * a2[j][i]).abs() < 1e-12, "{g:?}");
        }
    }

    let fixed3 = |x: &[f64]| -> [f64; 3] { [x[0], x[1], x[2]] };
    Case {
        name: "copies_kept_apart",
        itself: &|x| copies_kept_apart(&fixed3(x), fixed3(&x[3..])),
        primal: &|x| copies_kept_apart::primal(&fixed3(x), fixed3(&x[3..])),
        grad: Some(&|x| {
            let (v, [ga, gb]) = copies_kept_apart::grad(&fixed3(x), fixed3(&x[3..]));
            (v, [ga, gb].concat())
        }),
        grad_into: &|x| {
            let (mut da, mut db) = ([0.0; 3], [0.0; 3]);
            let v = copies_kept_apart::grad_into(&fixed3(x), fixed3(&x[3..]), &mut da, &mut db);
            (v, [da, db].concat())
        },
        jvp: &|x, t| copies_kept_apart::jvp(&fixed3(x), fixed3(&x[3..]), &t[..3], &t[3..]),
    }
    .check_with_second_order(&point(6, 62, -1.0, 1.0));

    Case {
        name: "oscillator_rk2",
        itself: &|x| oscillator_rk2(x[0], x[1], x[2], x[3]),
        primal: &|x| oscillator_rk2::primal(x[0], x[1], x[2], x[3]),
        grad: Some(&|x| {
            let (v, g) = oscillator_rk2::grad(x[0], x[1], x[2], x[3]);
            (v, g.to_vec())
        }),
        // float parameters only: no `grad_into`
        grad_into: &|x| {
            let (v, g) = oscillator_rk2::grad(x[0], x[1], x[2], x[3]);
            (v, g.to_vec())
        },
        jvp: &|x, t| oscillator_rk2::jvp(x[0], x[1], x[2], x[3], t[0], t[1], t[2], t[3]),
    }
    .check_with_second_order(&[1.0, -0.3, 2.5, 0.4]);

    Case {
        name: "parameter_replaced",
        itself: &|x| parameter_replaced([x[0], x[1]], x[2]),
        primal: &|x| parameter_replaced::primal([x[0], x[1]], x[2]),
        grad: Some(&|x| {
            let (v, (gb, gs)) = parameter_replaced::grad([x[0], x[1]], x[2]);
            (v, vec![gb[0], gb[1], gs])
        }),
        grad_into: &|x| {
            let (mut db, mut ds) = ([0.0; 2], 0.0);
            let v = parameter_replaced::grad_into([x[0], x[1]], x[2], &mut db, &mut ds);
            (v, vec![db[0], db[1], ds])
        },
        jvp: &|x, t| parameter_replaced::jvp([x[0], x[1]], x[2], &t[..2], t[2]),
    }
    .check_with_second_order(&point(3, 64, -1.0, 1.0));

    Case {
        name: "shadowed_by_its_copy",
        itself: &|x| shadowed_by_its_copy(&matrix(x), x[4]),
        primal: &|x| shadowed_by_its_copy::primal(&matrix(x), x[4]),
        grad: Some(&|x| {
            let (v, (ga, gs)) = shadowed_by_its_copy::grad(&matrix(x), x[4]);
            (v, [ga.as_flattened(), &[gs]].concat())
        }),
        grad_into: &|x| {
            let (mut da, mut ds) = ([[0.0; 2]; 2], 0.0);
            let v = shadowed_by_its_copy::grad_into(&matrix(x), x[4], &mut da, &mut ds);
            (v, [da.as_flattened(), &[ds]].concat())
        },
        jvp: &|x, t| shadowed_by_its_copy::jvp(&matrix(x), x[4], &matrix::<2, 2>(t), t[4]),
    }
    .check_with_second_order(&point(5, 65, -1.0, 1.0));

    // by hand: 2x + sin(0.5) x + 2x² + x/4, so d/dx = 2 + sin 0.5 + 4x + 1/4
    for x in [0.3, -1.7] {
        let (value, [d]) = from_a_table::grad(x);
        assert_eq!(value.to_bits(), from_a_table::primal(x).to_bits());
        assert_eq!(value.to_bits(), from_a_table(x).to_bits());
        let expected = 2.25 + 0.5_f64.sin() + 4.0 * x;
        assert!((d - expected).abs() < 1e-14, "{d} vs {expected}");
        assert!((from_a_table::jvp(x, 1.0).1 - expected).abs() < 1e-14);
    }

    for steps in [0, 1, 5, 8] {
        Case {
            name: "euler_restarted",
            itself: &|x| euler_restarted(&fixed3(x), &fixed3(&x[3..]), steps),
            primal: &|x| euler_restarted::primal(&fixed3(x), &fixed3(&x[3..]), steps),
            grad: Some(&|x| {
                let (v, [gi, gr]) = euler_restarted::grad(&fixed3(x), &fixed3(&x[3..]), steps);
                (v, [gi, gr].concat())
            }),
            grad_into: &|x| {
                let (mut di, mut dr) = ([0.0; 3], [0.0; 3]);
                let v = euler_restarted::grad_into(
                    &fixed3(x),
                    &fixed3(&x[3..]),
                    steps,
                    &mut di,
                    &mut dr,
                );
                (v, [di, dr].concat())
            },
            jvp: &|x, t| {
                euler_restarted::jvp(&fixed3(x), &fixed3(&x[3..]), steps, &t[..3], &t[3..])
            },
        }
        .check_with_second_order(&point(6, 63, -1.0, 1.0));
    }
}

// ----- 8. rows written whole: `m[i] = r;`, `m[i] = [a, b, c];`, `m[i] = a[k];` -----

/// Rows of a local matrix written whole from a local row (`m[i] = r;`), from a row of a
/// parameter (`m[2] = a[1];`) and from literals, one of which reads the row it replaces
/// (`m[1] = [m[1][2], ..]`: every new value is taken before any is written, as Rust
/// evaluates the right side first). Formerly the macro's error "a row of a differentiable
/// array of rows ... cannot be copied or written whole".
#[differentiable]
fn rows_written_whole(a: &[[f64; 3]; 2], s: f64) -> f64 {
    let mut m = [[0.0; 3]; 3];
    for i in 0..2 {
        let mut r = [0.0; 3];
        for j in 0..3 {
            r[j] = a[i][j] * s + a[1 - i][2 - j];
        }
        m[i] = r;
    }
    m[2] = a[1];
    m[2][0] += m[0][0] * s;
    m[1] = [m[1][2], m[1][0] * s, m[1][1].sin()];
    m[0] = [a[0][0] * a[1][1], s.sin(), m[0][2] - m[2][1]];
    let mut total = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            total += m[i][j] * m[(i + 1) % 3][j].cos();
        }
    }
    total
}

/// An owned parameter's rows replaced in a loop (`m[i] = next;`, each row computed from
/// the one before it), then one replaced by constants (`m[0] = [1.0, 0.5];`: the cotangent
/// of what it held stops there).
#[differentiable]
fn parameter_rows_replaced(mut m: [[f64; 2]; 3], k: f64) -> f64 {
    for i in 1..3 {
        let next = [m[i - 1][0] * k + m[i][1], (m[i - 1][1] - m[i][0]).tanh()];
        m[i] = next;
    }
    let first = m[0][0] * m[0][1];
    m[0] = [1.0, 0.5];
    first + m[0][0] * k + m[2][0] * m[2][1] + m[1][1] * m[0][1]
}

#[test]
fn rows_written_whole_element_by_element() {
    // by hand, the body as Rust runs it
    let a: [[f64; 3]; 2] = [[0.3, -0.8, 0.5], [1.1, 0.2, -0.4]];
    let s: f64 = 0.7;
    let mut m = [[0.0; 3]; 3];
    for i in 0..2 {
        for j in 0..3 {
            m[i][j] = a[i][j] * s + a[1 - i][2 - j];
        }
    }
    m[2] = a[1];
    m[2][0] += m[0][0] * s;
    m[1] = [m[1][2], m[1][0] * s, m[1][1].sin()];
    m[0] = [a[0][0] * a[1][1], f64::sin(s), m[0][2] - m[2][1]];
    let mut total = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            total += m[i][j] * m[(i + 1) % 3][j].cos();
        }
    }
    assert_eq!(rows_written_whole(&a, s).to_bits(), total.to_bits());

    Case {
        name: "rows_written_whole",
        itself: &|x| rows_written_whole(&matrix(x), x[6]),
        primal: &|x| rows_written_whole::primal(&matrix(x), x[6]),
        grad: Some(&|x| {
            let (v, (ga, gs)) = rows_written_whole::grad(&matrix(x), x[6]);
            (v, [ga.as_flattened(), &[gs]].concat())
        }),
        grad_into: &|x| {
            let (mut da, mut ds) = ([[0.0; 3]; 2], 0.0);
            let v = rows_written_whole::grad_into(&matrix(x), x[6], &mut da, &mut ds);
            (v, [da.as_flattened(), &[ds]].concat())
        },
        jvp: &|x, t| rows_written_whole::jvp(&matrix(x), x[6], &matrix::<3, 2>(t), t[6]),
    }
    .check_with_second_order(&point(7, 81, -1.0, 1.0));

    Case {
        name: "parameter_rows_replaced",
        itself: &|x| parameter_rows_replaced(matrix(x), x[6]),
        primal: &|x| parameter_rows_replaced::primal(matrix(x), x[6]),
        grad: Some(&|x| {
            let (v, (gm, gk)) = parameter_rows_replaced::grad(matrix(x), x[6]);
            (v, [gm.as_flattened(), &[gk]].concat())
        }),
        grad_into: &|x| {
            let (mut dm, mut dk) = ([[0.0; 2]; 3], 0.0);
            let v = parameter_rows_replaced::grad_into(matrix(x), x[6], &mut dm, &mut dk);
            (v, [dm.as_flattened(), &[dk]].concat())
        },
        jvp: &|x, t| parameter_rows_replaced::jvp(matrix(x), x[6], &matrix::<2, 3>(t), t[6]),
    }
    .check_with_second_order(&point(7, 82, -1.0, 1.0));
}

/// A row written from another row of the same array, `m[0] = m[1];` (formerly the
/// trybuild case `row-of-an-array-of-rows-written-whole`, rejected): the row is copied
/// first, so `m[1]` then `m[0]` read the same values.
#[differentiable]
fn row_from_its_own_array(mut m: [[f64; 2]; 2], s: f64) -> f64 {
    m[1][0] *= s;
    m[0] = m[1];
    m[1][1] = m[0][0].sin();
    m[0][0] * m[1][1] + m[0][1] * m[1][0] * s
}

#[test]
fn a_row_from_its_own_array() {
    let m0: [[f64; 2]; 2] = [[0.3, -0.5], [0.9, 0.4]];
    let s: f64 = 1.3;
    let a = 0.9 * s;
    let by_hand = a * a.sin() + 0.4 * a * s;
    assert_eq!(row_from_its_own_array(m0, s).to_bits(), by_hand.to_bits());
    Case {
        name: "row_from_its_own_array",
        itself: &|x| row_from_its_own_array(matrix(x), x[4]),
        primal: &|x| row_from_its_own_array::primal(matrix(x), x[4]),
        grad: Some(&|x| {
            let (v, (gm, gs)) = row_from_its_own_array::grad(matrix(x), x[4]);
            (v, [gm.as_flattened(), &[gs]].concat())
        }),
        grad_into: &|x| {
            let (mut dm, mut ds) = ([[0.0; 2]; 2], 0.0);
            let v = row_from_its_own_array::grad_into(matrix(x), x[4], &mut dm, &mut ds);
            (v, [dm.as_flattened(), &[ds]].concat())
        },
        jvp: &|x, t| row_from_its_own_array::jvp(matrix(x), x[4], &matrix::<2, 2>(t), t[4]),
    }
    .check_with_second_order(&point(5, 83, -1.0, 1.0));
    // the first row's old values are overwritten: no cotangent reaches them
    let (_, (gm, _)) = row_from_its_own_array::grad(m0, s);
    assert_eq!(gm[0], [0.0, 0.0]);
}

/// Rows written whole at f32: from a by-reference parameter (`m[1] = *r;`) and from a
/// literal mixing a constant and a differentiable value (`m[0] = [1.0, s * m[1][0]];`).
#[differentiable]
fn rows_written_f32(r: &[f32; 2], s: f32) -> f32 {
    let mut m = [[0.5f32; 2]; 2];
    m[1] = *r;
    m[0] = [1.0, s * m[1][0]];
    m[0][0] * m[0][1] + m[1][1].sin() * s
}

#[test]
fn rows_written_whole_at_f32() {
    // f = s r0 + sin(r1) s: ∂r0 = s, ∂r1 = s cos(r1), ∂s = r0 + sin(r1)
    let (r, s) = ([0.7f32, -0.4f32], 1.3f32);
    let (value, (dr, ds)) = rows_written_f32::grad(&r, s);
    assert_eq!(value, rows_written_f32::primal(&r, s));
    assert_eq!(value, rows_written_f32(&r, s));
    let expected = [s, s * r[1].cos()];
    for (g, e) in dr.iter().zip(expected) {
        assert!((g - e).abs() < 1e-6, "{dr:?} vs {expected:?}");
    }
    assert!((ds - (r[0] + r[1].sin())).abs() < 1e-6, "{ds}");
    let (by_jvp, tangent) = rows_written_f32::jvp(&r, s, &[0.5, -1.0], 2.0);
    assert_eq!(by_jvp, value);
    let dot = 0.5 * dr[0] - dr[1] + 2.0 * ds;
    assert!((tangent - dot).abs() < 1e-6, "{tangent} vs {dot}");
}
