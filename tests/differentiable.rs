//! `#[differentiable]` on tapes: one fused node per call, the plain-speed paths, nested
//! tapes for higher orders, and the generated code being inspectable.

use gradtape::{GradientTape, Tensor, Variable, differentiable, hooks};

#[differentiable]
fn seed(w1: &Tensor<f32>, w2: &Tensor<f32>) -> Tensor<f32> {
    3.0 * w1.powi(2) + 2.0 * w1 * w2
}

#[differentiable]
fn seed_variables(w1: &Variable<f32>, w2: &Variable<f32>) -> Tensor<f32> {
    3.0 * w1.powi(2) + 2.0 * w1 * w2
}

#[differentiable]
fn fourth_power(x: &Tensor<f64>) -> Tensor<f64> {
    let square = x * x;
    &square * &square
}

#[test]
fn an_annotated_call_records_exactly_one_node() {
    let (w1, w2) = (Variable::new(5.0_f32), Variable::new(3.0_f32));
    let tape = GradientTape::persistent();
    let z = tape.record(|| seed(&w1.value(), &w2.value()));
    assert_eq!(hooks::recorded_ops(&tape), ["seed"]);
    // ∂z/∂w1 = 6 w1 + 2 w2 = 36, ∂z/∂w2 = 2 w1 = 10
    let [d1, d2] = tape.gradient(&z, [&w1, &w2]).unwrap();
    assert_eq!(
        (d1.unwrap().to_scalar(), d2.unwrap().to_scalar()),
        (36.0, 10.0)
    );
    // the op-by-op body records one node per op instead
    let plain = GradientTape::new();
    plain.record(|| seed::primal(&w1.value(), &w2.value()));
    assert_eq!(hooks::recorded_ops(&plain).len(), 5);
}

#[test]
fn variables_are_arguments_like_anywhere_else() {
    let (w1, w2) = (Variable::new(5.0_f32), Variable::new(3.0_f32));
    let tape = GradientTape::new();
    let z = tape.record(|| seed_variables(&w1, &w2));
    let [d1, d2] = tape.gradient(&z, [&w1, &w2]).unwrap();
    assert_eq!(
        (d1.unwrap().to_scalar(), d2.unwrap().to_scalar()),
        (36.0, 10.0)
    );
}

#[test]
fn with_nothing_recording_or_watched_the_body_runs_plainly() {
    let (a, b) = (Tensor::scalar(5.0_f32), Tensor::scalar(3.0_f32));
    // 3·25 + 2·15 = 105
    assert_eq!(seed(&a, &b).to_scalar(), 105.0);
    let tape = GradientTape::new();
    let z = tape.record(|| seed(&a, &b));
    assert_eq!(z.to_scalar(), 105.0);
    assert!(hooks::recorded_ops(&tape).is_empty());
}

#[test]
fn nested_tapes_give_exact_higher_orders() {
    // x⁴ at 2: 4x³ = 32, 12x² = 48, 24x = 48
    let x = Tensor::scalar(2.0_f64);
    let (t1, t2, t3) = (
        GradientTape::new(),
        GradientTape::new(),
        GradientTape::new(),
    );
    t3.watch(&x);
    let d2 = t3.record(|| {
        t2.watch(&x);
        let d1 = t2.record(|| {
            t1.watch(&x);
            let y = t1.record(|| fourth_power(&x));
            t1.gradient(&y, &x).unwrap().unwrap()
        });
        assert_eq!(d1.to_scalar(), 32.0);
        t2.gradient(&d1, &x).unwrap().unwrap()
    });
    assert_eq!(d2.to_scalar(), 48.0);
    assert_eq!(t3.gradient(&d2, &x).unwrap().unwrap().to_scalar(), 48.0);
}

#[test]
fn a_persistent_tape_can_run_the_adjoint_twice() {
    let x = Tensor::from_vec(vec![1.0_f64, -2.0], &[2]);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let y = tape.record(|| fourth_power(&x).sum());
    for _ in 0..2 {
        // d/dx Σ x⁴ = 4x³
        assert_eq!(
            tape.gradient(&y, &x).unwrap().unwrap().to_vec(),
            vec![4.0, -32.0]
        );
    }
}

#[test]
fn the_generated_code_is_inspectable() {
    assert!(seed::GENERATED.contains("pub fn vjp"));
    assert!(seed::GENERATED.contains("vjp::powi"));
    assert!(seed::GENERATED.contains("vjp::mul_rhs"));
}

#[test]
fn the_pullback_works_without_any_tape() {
    let (a, b) = (Tensor::scalar(5.0_f32), Tensor::scalar(3.0_f32));
    let (value, pullback) = seed::vjp(&a, &b);
    assert_eq!(value.to_scalar(), 105.0);
    let (d1, d2) = pullback(Tensor::scalar(1.0));
    assert_eq!(
        (d1.unwrap().to_scalar(), d2.unwrap().to_scalar()),
        (36.0, 10.0)
    );
}

#[differentiable]
fn larger_plus_smaller(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    x.maximum(y) + x.minimum(y) * 3.0
}

/// On ties TensorFlow gives the whole cotangent to the first operand of `maximum` and
/// `minimum`; the fused adjoint must agree with the op-by-op tape there too.
#[test]
fn ties_in_maximum_and_minimum_follow_the_op_by_op_tape() {
    let x = Tensor::from_vec(vec![1.0, 2.0, 3.0], &[3]);
    let y = Tensor::from_vec(vec![1.0, 0.0, 5.0], &[3]);
    let gradients = |fused: bool| {
        let tape = GradientTape::new();
        tape.watch(&[&x, &y]);
        let total = tape.record(|| {
            let out = if fused {
                larger_plus_smaller(&x, &y)
            } else {
                larger_plus_smaller::primal(&x, &y)
            };
            out.sum()
        });
        let (gx, gy) = tape.gradient(&total, (&x, &y)).unwrap();
        (gx.unwrap().to_vec(), gy.unwrap().to_vec())
    };
    // element 0 ties: x gets max's 1 and min's 3, y gets nothing
    assert_eq!(gradients(false), (vec![4.0, 1.0, 3.0], vec![0.0, 3.0, 1.0]));
    assert_eq!(gradients(true), gradients(false));
}
