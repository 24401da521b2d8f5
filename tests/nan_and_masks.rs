//! Regression tests for results that were silently wrong: NaN hidden by `relu`, `maximum`,
//! `minimum` and `abs`'s rule, and second derivatives of `relu` and `abs` answered `None`
//! where TensorFlow answers zeros. TensorFlow 2.x's behaviour is the oracle:
//! `tf.nn.relu(nan)`, `tf.maximum(nan, 0.)`, `tf.maximum(0., nan)` and `tf.sign(nan)` are
//! all NaN; `Sign`'s gradient and ReLU's second derivative (`ReluGradGrad`) are registered
//! as zeros, so a derivative through them is connected.

use gradtape::{GradientTape, Tensor, differentiable};

fn nan() -> Tensor<f64> {
    Tensor::scalar(f64::NAN)
}

#[test]
fn relu_of_nan_is_nan() {
    assert!(nan().relu().to_scalar().is_nan());
    let x = Tensor::from_vec(vec![f64::NAN, -1.0, 2.0], &[3]);
    let y = x.relu().to_vec();
    assert!(y[0].is_nan());
    assert_eq!(&y[1..], &[0.0, 2.0]);
}

#[test]
fn maximum_and_minimum_propagate_nan_in_either_position() {
    let (n, zero) = (nan(), Tensor::scalar(0.0_f64));
    assert!(n.maximum(&zero).to_scalar().is_nan(), "maximum(NaN, 0)");
    assert!(zero.maximum(&n).to_scalar().is_nan(), "maximum(0, NaN)");
    assert!(n.minimum(&zero).to_scalar().is_nan(), "minimum(NaN, 0)");
    assert!(zero.minimum(&n).to_scalar().is_nan(), "minimum(0, NaN)");
    // as arrays, which take another code path
    let (a, b) = (
        Tensor::from_vec(vec![f64::NAN, 1.0], &[2]),
        Tensor::from_vec(vec![0.0, f64::NAN], &[2]),
    );
    assert!(a.maximum(&b).to_vec().iter().all(|v| v.is_nan()));
    assert!(a.minimum(&b).to_vec().iter().all(|v| v.is_nan()));
}

#[test]
fn abs_gradient_at_nan_is_nan() {
    // d|x|/dx = sign(x), and sign(NaN) is NaN
    let x = nan();
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| x.abs());
    assert!(tape.gradient(&y, &x).unwrap().unwrap().to_scalar().is_nan());
}

#[differentiable]
fn relu_then_max(x: &Tensor<f64>) -> Tensor<f64> {
    x.relu().maximum(0.5)
}

#[test]
fn annotated_functions_propagate_nan_on_their_0d_path() {
    // a 0-d input runs the generated code on plain numbers, with the same kernels
    assert!(relu_then_max(&nan()).to_scalar().is_nan());
    let x = nan();
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| relu_then_max(&x));
    assert!(y.to_scalar().is_nan());
}

/// The second derivative of `f` at `x` by nested tapes.
fn second_derivative(
    f: impl Fn(&Tensor<f64>) -> Tensor<f64>,
    x: &Tensor<f64>,
) -> Option<Tensor<f64>> {
    let outer = GradientTape::new();
    outer.watch(x);
    let dy = outer.record(|| {
        let inner = GradientTape::new();
        inner.watch(x);
        let y = inner.record(|| f(x));
        inner
            .gradient(&y, x)
            .unwrap()
            .expect("first derivative connected")
    });
    outer.gradient(&dy, x).unwrap()
}

#[test]
fn second_derivative_of_relu_is_zero_not_none() {
    let x = Tensor::from_vec(vec![-1.0, 2.0], &[2]);
    let d2 = second_derivative(|x| x.relu(), &x).expect("connected, as in TensorFlow");
    assert_eq!(d2.to_vec(), vec![0.0, 0.0]);
}

#[test]
fn second_derivative_of_abs_is_zero_not_none() {
    let x = Tensor::from_vec(vec![-1.0, 2.0], &[2]);
    let d2 = second_derivative(|x| x.abs(), &x).expect("connected, as in TensorFlow");
    assert_eq!(d2.to_vec(), vec![0.0, 0.0]);
}

#[test]
fn second_derivative_of_maximum_is_none_as_in_tensorflow() {
    // TensorFlow's rule of `maximum` selects with a `greater_equal` mask, which has no
    // gradient, so the second derivative is unconnected there too (unlike ReLU's, whose
    // second derivative is registered as zeros).
    let x = Tensor::from_vec(vec![-1.0, 2.0], &[2]);
    assert!(second_derivative(|x| x.maximum(0.5), &x).is_none());
}

#[test]
fn second_derivative_of_scalar_relu_is_zero_not_none() {
    let x = Tensor::scalar(3.0_f64);
    let d2 = second_derivative(|x| x.relu(), &x).expect("connected, as in TensorFlow");
    assert_eq!(d2.to_scalar(), 0.0);
}

#[test]
fn spare_buffers_are_bounded_after_a_huge_gradient() {
    use gradtape::generated;
    // A chain of 3 · 2¹⁷ recorded ops: more than a spare tape may keep.
    let x = Tensor::scalar(0.5_f64);
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| {
        let mut y = x.clone();
        for _ in 0..(1 << 17) {
            y = y.sin() * 0.9 + &y * 0.1;
        }
        y
    });
    assert!(tape.gradient(&y, &x).unwrap().is_some());
    drop(tape);
    assert!(
        generated::spare_capacity() <= generated::MAX_SPARE_RECORDS,
        "{} records kept",
        generated::spare_capacity()
    );
}
