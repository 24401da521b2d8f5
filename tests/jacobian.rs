//! `jacobian` and `batch_jacobian`: shapes, values against central finite differences in
//! f64 and analytic values in f32, every op family's batched rule, chunking, unconnected
//! sources, and the errors.

use gradtape::{
    GradientTape, JacobianOptions, TapeError, Tensor, UnconnectedGradients, Variable, generated,
    without_recording,
};

/// Central finite-difference jacobian of `f` at `x`, shape `f(x).shape + x.shape`.
fn fd_jacobian(f: &dyn Fn(&Tensor<f64>) -> Tensor<f64>, x: &Tensor<f64>) -> Vec<f64> {
    let h = 1e-6;
    let base = x.to_vec();
    let rows = f(x).len();
    let cols = base.len();
    let mut jac = vec![0.0; rows * cols];
    for j in 0..cols {
        let shifted = |delta: f64| {
            let mut v = base.clone();
            v[j] += delta;
            f(&Tensor::from_vec(v, x.shape())).to_vec()
        };
        let (plus, minus) = (shifted(h), shifted(-h));
        for i in 0..rows {
            jac[i * cols + j] = (plus[i] - minus[i]) / (2.0 * h);
        }
    }
    jac
}

/// Checks the tape's jacobian of `f` at `x` against finite differences, in shape and value.
#[track_caller]
fn check(f: impl Fn(&Tensor<f64>) -> Tensor<f64>, x: &Tensor<f64>) {
    let tape = GradientTape::new();
    tape.watch(x);
    let y = tape.record(|| f(x));
    let jac = tape.jacobian(&y, x).unwrap().expect("connected");
    let expected_shape: Vec<usize> = y.shape().iter().chain(x.shape()).copied().collect();
    assert_eq!(jac.shape(), &expected_shape[..]);
    let expected = fd_jacobian(&f, x);
    for (k, (got, want)) in jac.to_vec().iter().zip(&expected).enumerate() {
        assert!(
            (got - want).abs() < 1e-6 * (1.0 + want.abs()),
            "entry {k}: jacobian {got}, finite differences {want} (checked at {})",
            std::panic::Location::caller()
        );
    }
}

fn matrix(rows: usize, cols: usize, seed: f64) -> Tensor<f64> {
    let data = (0..rows * cols)
        .map(|i| ((i as f64 + 1.0) * seed).sin())
        .collect();
    Tensor::from_vec(data, &[rows, cols])
}

#[test]
fn elementwise_and_broadcasting_binary_ops() {
    let x = matrix(2, 3, 0.7);
    let b = Tensor::from_vec(vec![0.5, -1.0, 2.0], &[3]);
    let c = Tensor::from_vec(vec![1.5, 2.5], &[2, 1]);
    check(|x| (x * &b + &c).tanh() / (x.square() + 1.0), &x);
    check(
        |x| (x - &c).sigmoid() * x.exp() + x.powi(3) - x.sin() * x.cos(),
        &x,
    );
    check(|x| x.maximum(&c) + x.maximum(0.1) + x.softplus(), &x);
    // sources broadcast into the output: the batched rule sums over the broadcast axes only
    let row = Tensor::from_vec(vec![0.3, -0.2, 0.9], &[3]);
    check(|r| (r * &x).sin(), &row);
    check(|c| &x / (c.square() + 1.0), &c);
    let s = Tensor::scalar(0.4);
    check(|s| (s * &x).cos(), &s);
}

#[test]
fn unary_ops_with_saved_outputs() {
    let x = Tensor::from_vec(vec![0.3, 1.2, 2.0, 0.7], &[4]);
    check(|x| x.sqrt() + x.ln() + x.powf(1.5) + x.relu() + x.abs(), &x);
    check(|x| -x.exp(), &x);
}

#[test]
fn reductions_keep_the_batch_axis() {
    let x = matrix(3, 4, 0.9);
    check(|x| x.sum_axis(0, false).sin(), &x);
    check(|x| x.sum_axis(1, true) * x, &x);
    check(|x| x.mean_axis(1, false).exp(), &x);
    check(|x| x.max_axis(0, true) * x.max(), &x);
    check(|x| x.square().sum(), &x);
    check(|x| x.mean() * x, &x);
    check(|x| x.sum_to_shape(&[4]).square(), &x);
    let row = Tensor::from_vec(vec![0.1, 0.2, 0.3, 0.4], &[4]);
    check(|r| r.broadcast_to(&[3, 4]) * &x, &row);
}

/// A scalar weight's gradient against an array is one fused dot product on the inner tape;
/// the outer jacobian then runs that product's rule with a batch axis (and once without,
/// for a 0-d target).
#[test]
fn gradient_of_a_scalar_weight_against_an_array_is_batch_safe() {
    let x = Tensor::from_vec(vec![0.3, -1.2, 0.8, 2.0, -0.5], &[5]);
    // d/da Σ (a xᵢ - 1)² = Σ 2 (a xᵢ - 1) xᵢ, a function of x through both factors
    let grad_a = |x: &Tensor<f64>| {
        let a = Tensor::scalar(0.7);
        let inner = GradientTape::new();
        inner.watch(&a);
        let loss = inner.record(|| (&a * x - 1.0).square().sum());
        inner.gradient(&loss, &a).unwrap().expect("connected")
    };
    check(|x| grad_a(x) * x, &x);
    check(|x| grad_a(x).reshape(&[1]), &x);
    let rows = matrix(2, 3, 0.4);
    check(|x| grad_a(x) * x.sin(), &rows);
}

#[test]
fn shape_ops_shift_their_axes() {
    let x = matrix(3, 4, 1.3);
    check(|x| x.reshape(&[2, 6]).transpose().sin(), &x);
    check(|x| x.reshape(&[2, 3, 2]).permute(&[2, 0, 1]).exp(), &x);
    check(|x| Tensor::concat(&[&x.slice(1, 1, 2), &x.square()], 1), &x);
    check(|x| x.slice(0, 1, 2) * x.slice(0, 0, 2), &x);
    check(|x| x.gather(1, &[3, 0, 3]).cos(), &x);
    check(|x| x.sin().scatter_add(0, &[2, 0, 2], 4), &x);
}

#[test]
fn softmax_and_log_softmax() {
    let x = matrix(2, 3, 0.5);
    check(|x| x.softmax(1), &x);
    check(|x| x.log_softmax(0) * x, &x);
    check(|x| x.sparse_softmax_cross_entropy_with_logits(&[2, 0]), &x);
    check(
        |x| x.sparse_softmax_cross_entropy_with_logits(&[1, 1]) * x.sum_axis(1, false),
        &x,
    );
}

#[test]
fn matmul_two_dimensional_and_batched() {
    let w = matrix(3, 4, 0.3);
    let x = matrix(4, 2, 1.1);
    check(|x| w.matmul(x).tanh(), &x);
    check(|w| w.matmul(&x).tanh(), &w);
    check(|x| x.transpose().matmul(&w.transpose()), &x);
    let column = matrix(4, 1, 0.8);
    check(|c| w.matmul(c).sin(), &column);
    // the first product meets a diagonal cotangent (rows scaled), the second a dense one
    let w2 = matrix(3, 3, 0.45);
    check(|c| w2.matmul(&w.matmul(c).sin()), &column);
    let batched = Tensor::from_vec(
        (0..24).map(|i| (i as f64 * 0.37).cos()).collect(),
        &[2, 3, 4],
    );
    check(|b| b.matmul(&x), &batched);
    check(|x| batched.matmul(x), &x);
}

#[test]
fn matmul_with_transpose_flags() {
    // w: 3x4, x: 4x2, v: 3x2; every pair of flags but none, each side the source
    let w = matrix(3, 4, 0.3);
    let x = matrix(4, 2, 1.1);
    let v = matrix(3, 2, 0.7);
    check(|x| x.matmul_transposed(&w, true, true).sin(), &x);
    check(|w| x.matmul_transposed(w, true, true).sin(), &w);
    check(|w| w.matmul_transposed(&v, true, false).sin(), &w);
    check(|v| w.matmul_transposed(v, true, false).sin(), &v);
    check(|x| x.matmul_transposed(&v, false, true).cos(), &x);
    check(|v| x.matmul_transposed(v, false, true).cos(), &v);
    let column = matrix(3, 1, 0.8);
    check(|c| w.matmul_transposed(c, true, false).sin(), &column);
}

#[test]
fn xw_plus_b_each_input() {
    let x = matrix(3, 4, 0.3);
    let w = matrix(4, 2, 1.1);
    let b = Tensor::from_vec(vec![0.2, -0.4], &[2]);
    check(|x| x.xw_plus_b(&w, &b).tanh(), &x);
    check(|w| x.xw_plus_b(w, &b).tanh(), &w);
    check(|b| x.xw_plus_b(&w, b).tanh(), &b);
}

#[test]
fn casts_between_float_dtypes() {
    // y = f64(f32(x)²) · x: ∂yᵢ/∂xⱼ = 3xᵢ² [i = j] (f32 rounding is below the tolerance
    // of these exactly representable inputs; finite differences through f32 would not be)
    let x = Tensor::from_vec(vec![0.5, 1.5], &[2]);
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| x.cast::<f32>().square().cast::<f64>() * &x);
    let jac = tape.jacobian(&y, &x).unwrap().unwrap();
    assert_eq!(jac.to_vec(), vec![0.75, 0.0, 0.0, 6.75]);
}

#[test]
fn closure_rules_run_per_example() {
    let x = matrix(2, 2, 0.6);
    // a closure rule that reshapes: it must not see the jacobian's batch axis
    check(
        |x| {
            let value = without_recording(|| x.reshape(&[4]).sin());
            let saved = x.clone();
            let y = generated::record_closure(
                "flat_sin",
                value,
                &[gradtape::AnyTensor::from(x.clone())],
                move |g, _| {
                    let gradtape::AnyTensor::F64(g) = g else {
                        unreachable!()
                    };
                    // d sin(flatten x) = cos(x) ⊙ unflatten(g)
                    let g = g.reshape(&[2, 2]) * saved.cos();
                    vec![Some(gradtape::AnyTensor::from(g))]
                },
            );
            y * 2.0
        },
        &x,
    );
}

#[test]
fn f32_jacobian_of_tanh_affine_is_diag_times_w() {
    // y = tanh(W x + b): J = diag(1 - y²) W
    let w = Tensor::from_vec(vec![0.5_f32, -1.0, 2.0, 0.25, 1.5, -0.5], &[3, 2]);
    let b = Tensor::from_vec(vec![0.1_f32, 0.2, 0.3], &[3]);
    let x = Tensor::from_vec(vec![0.3_f32, -0.7], &[2]);
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| (w.matmul(&x.reshape(&[2, 1])).reshape(&[3]) + &b).tanh());
    let jac = tape.jacobian(&y, &x).unwrap().unwrap();
    assert_eq!(jac.shape(), &[3, 2]);
    let (yv, wv) = (y.to_vec(), w.to_vec());
    for i in 0..3 {
        for j in 0..2 {
            let want = (1.0 - yv[i] * yv[i]) * wv[i * 2 + j];
            assert!((jac.to_vec()[i * 2 + j] - want).abs() < 1e-6);
        }
    }
}

#[test]
fn chunked_sweeps_match_one_sweep() {
    let x = matrix(3, 3, 0.4);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let y = tape.record(|| x.matmul(&x).sin());
    let whole = tape.jacobian(&y, &x).unwrap().unwrap();
    for rows in [1, 2, 4, 9, 100] {
        let options = JacobianOptions::new().max_batch(rows);
        let chunked = tape.jacobian_with(&y, &x, options).unwrap().unwrap();
        assert_eq!(chunked.to_vec(), whole.to_vec(), "max_batch({rows})");
    }
}

#[test]
fn chunked_jacobian_on_a_non_persistent_tape_keeps_records_until_the_last_chunk() {
    let x = Tensor::from_vec(vec![1.0, 2.0, 3.0], &[3]);
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| x.powi(3));
    let options = JacobianOptions::new().max_batch(1);
    let jac = tape.jacobian_with(&y, &x, options).unwrap().unwrap();
    // d x³/dx = 3x² on the diagonal
    assert_eq!(
        jac.to_vec(),
        vec![3.0, 0.0, 0.0, 0.0, 12.0, 0.0, 0.0, 0.0, 27.0]
    );
    assert_eq!(tape.jacobian(&y, &x).unwrap_err(), TapeError::NotPersistent);
}

#[test]
fn structured_sources_and_variables() {
    let x = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
    let v = Variable::new(Tensor::from_vec(vec![0.5_f64, -0.5, 1.0], &[3]));
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| x.sum_axis(0, false) * &v);
    let (jx, jv) = tape.jacobian(&y, (&x, &v)).unwrap();
    // yᵢ = (x₀ + x₁) vᵢ: ∂yᵢ/∂xⱼ = vᵢ, ∂yᵢ/∂vⱼ = (x₀ + x₁)[i = j]
    assert_eq!(jx.unwrap().to_vec(), vec![0.5, 0.5, -0.5, -0.5, 1.0, 1.0]);
    let jv = jv.unwrap();
    assert_eq!(jv.shape(), &[3, 3]);
    assert_eq!(
        jv.to_vec(),
        vec![3.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 3.0]
    );
}

#[test]
fn scalar_target_gives_the_gradient_shape() {
    let x = matrix(2, 2, 0.2);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let y = tape.record(|| x.square().sum());
    let jac = tape.jacobian(&y, &x).unwrap().unwrap();
    let grad = tape.gradient(&y, &x).unwrap().unwrap();
    assert_eq!(jac.shape(), &[2, 2]);
    assert_eq!(jac.to_vec(), grad.to_vec());
}

#[test]
fn jacobian_of_a_source_with_respect_to_itself_is_the_identity() {
    let x = Tensor::from_vec(vec![1.0_f32, 2.0], &[2]);
    let tape = GradientTape::new();
    let jac = tape.jacobian(&x, &x).unwrap().unwrap();
    assert_eq!(jac.to_vec(), vec![1.0, 0.0, 0.0, 1.0]);
}

#[test]
fn unconnected_sources_are_none_or_zeros() {
    let (x, z) = (
        matrix(2, 1, 0.3),
        Tensor::from_vec(vec![1.0, 2.0, 3.0], &[3]),
    );
    let tape = GradientTape::persistent();
    tape.watch(&x);
    tape.watch(&z);
    let y = tape.record(|| x.sin());
    assert!(tape.jacobian(&y, &z).unwrap().is_none());
    let options = JacobianOptions::new().unconnected(UnconnectedGradients::Zero);
    let zeros = tape.jacobian_with(&y, &z, options).unwrap().unwrap();
    assert_eq!(zeros.shape(), &[2, 1, 3]);
    assert!(zeros.to_vec().iter().all(|&v| v == 0.0));
}

#[test]
fn non_persistent_tape_refuses_a_jacobian_inside_its_scope() {
    let x = Tensor::scalar(1.0_f32);
    let tape = GradientTape::new();
    tape.watch(&x);
    tape.record(|| {
        let y = x.square();
        assert_eq!(
            tape.jacobian(&y, &x).unwrap_err(),
            TapeError::GradientWhileRecording
        );
    });
}

/// The batch jacobian of `f` at `x` against the full jacobian's diagonal blocks.
fn check_batch(f: impl Fn(&Tensor<f64>) -> Tensor<f64>, x: &Tensor<f64>) {
    let tape = GradientTape::persistent();
    tape.watch(x);
    let y = tape.record(|| f(x));
    let batch = tape.batch_jacobian(&y, x).unwrap().unwrap();
    let full = tape.jacobian(&y, x).unwrap().unwrap();
    let b = x.shape()[0];
    let (ny, nx) = (y.len() / b, x.len() / b);
    let mut shape = vec![b];
    shape.extend_from_slice(&y.shape()[1..]);
    shape.extend_from_slice(&x.shape()[1..]);
    assert_eq!(batch.shape(), &shape[..]);
    let (batch, full) = (batch.to_vec(), full.to_vec());
    for n in 0..b {
        for i in 0..ny {
            for j in 0..nx {
                let from_full = full[(n * ny + i) * (b * nx) + n * nx + j];
                assert_eq!(batch[(n * ny + i) * nx + j], from_full);
            }
        }
    }
}

#[test]
fn batch_jacobian_is_the_block_diagonal_of_the_jacobian() {
    let w = matrix(3, 4, 0.3);
    let x = matrix(5, 3, 0.9);
    check_batch(|x| x.matmul(&w).tanh(), &x);
    check_batch(|x| x.softmax(1), &x);
    let x3 = Tensor::from_vec((0..12).map(|i| (i as f64).sin()).collect(), &[2, 3, 2]);
    check_batch(|x| x.square().sum_axis(2, false), &x3);
    check_batch(|x| x.reshape(&[2, 6]).exp().reshape(&[2, 2, 3]), &x3);
}

#[test]
fn batch_jacobian_in_f32_against_analytic_values() {
    // y[n] = x[n]² · [1, 2]: ∂y[n, i]/∂x[n, j] = 2 x[n, j] (i + 1) [i = j] for j < 2
    let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[2, 2]);
    let scale = Tensor::from_vec(vec![1.0_f32, 2.0], &[2]);
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| x.square() * &scale);
    let batch = tape.batch_jacobian(&y, &x).unwrap().unwrap();
    assert_eq!(
        batch.to_vec(),
        vec![2.0, 0.0, 0.0, 8.0, 6.0, 0.0, 0.0, 16.0]
    );
}

#[test]
fn batch_jacobian_chunks_and_unconnected() {
    let x = matrix(4, 3, 0.7);
    let other = matrix(4, 2, 0.1);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    tape.watch(&other);
    let y = tape.record(|| x.sin());
    let whole = tape.batch_jacobian(&y, &x).unwrap().unwrap();
    let options = JacobianOptions::new().max_batch(2);
    let chunked = tape.batch_jacobian_with(&y, &x, options).unwrap().unwrap();
    assert_eq!(whole.to_vec(), chunked.to_vec());
    assert!(tape.batch_jacobian(&y, &other).unwrap().is_none());
    let zero = JacobianOptions::new().unconnected(UnconnectedGradients::Zero);
    let zeros = tape.batch_jacobian_with(&y, &other, zero).unwrap().unwrap();
    assert_eq!(zeros.shape(), &[4, 3, 2]);
}

#[test]
fn batch_jacobian_rejects_bad_ranks_and_batch_sizes() {
    let tape = GradientTape::persistent();
    let (v, m, m2) = (
        matrix(1, 3, 0.1).reshape(&[3]),
        matrix(3, 2, 0.2),
        matrix(2, 2, 0.3),
    );
    tape.watch(&v);
    tape.watch(&m);
    tape.watch(&m2);
    let (y, y2) = tape.record(|| (m.sin(), v.sin()));
    let err = tape.batch_jacobian(&y2, &m).unwrap_err();
    assert!(
        matches!(&err, TapeError::BatchJacobianRank { what, shape } if what == "target" && shape == &[3])
    );
    assert!(err.to_string().contains("at least 2 axes"));
    let err = tape.batch_jacobian(&y, (&m, &v)).unwrap_err();
    assert!(matches!(&err, TapeError::BatchJacobianRank { what, .. } if what == "source 1"));
    let err = tape.batch_jacobian(&y, &m2).unwrap_err();
    assert_eq!(
        err,
        TapeError::BatchJacobianBatchSize {
            target_batch: 3,
            index: 0,
            source_batch: 2
        }
    );
    assert!(err.to_string().contains("must be equal"));
}
