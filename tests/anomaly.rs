//! Anomaly mode (`TapeBuilder::check_numerics`): the first NaN or ±inf in a forward value
//! or a cotangent is a typed error naming the op, its shapes, the phase and the line that
//! recorded it; with the option off, non-finite gradients come back as values, as in
//! TensorFlow.

use gradtape::{
    AnomalyPhase, GradientTape, NonFiniteValue, TapeError, Tensor, Variable, custom_gradient,
};

/// The tape of these tests: anomaly mode on.
fn checking() -> GradientTape {
    GradientTape::builder().check_numerics(true).build()
}

/// What a `NonFinite` error names: op, phase, value, operand shapes, output shape, line.
type Named = (
    &'static str,
    AnomalyPhase,
    NonFiniteValue,
    Vec<Option<Vec<usize>>>,
    Vec<usize>,
    u32,
);

/// The `NonFinite` error's fields, or a panic naming what came instead.
fn non_finite(result: Result<impl std::fmt::Debug, TapeError>) -> Named {
    match result {
        Err(TapeError::NonFinite {
            op,
            phase,
            value,
            operand_shapes,
            output_shape,
            location,
        }) => {
            assert_eq!(
                location.file(),
                file!(),
                "the user's file, not the library's"
            );
            (
                op,
                phase,
                value,
                operand_shapes,
                output_shape,
                location.line(),
            )
        }
        other => panic!("expected TapeError::NonFinite, got {other:?}"),
    }
}

#[test]
fn nan_in_a_forward_value_names_the_op_and_its_line() {
    let x = Tensor::from_vec(vec![1.0_f64, -2.0, 3.0], &[3]);
    let tape = checking();
    tape.watch(&x);
    let line = line!() + 1;
    let y = tape.record(|| (x.ln() * 2.0).sum());
    let (op, phase, value, operands, output, at) = non_finite(tape.gradient(&y, &x));
    assert_eq!(op, "ln");
    assert_eq!(phase, AnomalyPhase::Forward);
    assert_eq!(value, NonFiniteValue::Nan);
    assert_eq!(operands, vec![Some(vec![3])]);
    assert_eq!(output, vec![3]);
    assert_eq!(at, line);
}

#[test]
fn the_first_non_finite_forward_value_is_reported_not_a_later_one() {
    // ln(-1) is NaN; the product and the sum after it are NaN too, but ln is the cause
    let x = Variable::new(-1.0_f32);
    let tape = checking();
    let line = line!() + 2;
    let y = tape.record(|| {
        let l = x.ln();
        &l * 3.0 + 1.0
    });
    let (op, phase, _, operands, output, at) = non_finite(tape.gradient(&y, &x));
    assert_eq!((op, phase, at), ("ln", AnomalyPhase::Forward, line));
    assert_eq!((operands, output), (vec![Some(vec![])], vec![]));
}

#[test]
fn an_infinite_cotangent_names_the_backward_rule_and_the_input() {
    // √x at 0: the value 0 is finite, its derivative 1 / (2√x) is not
    let x = Tensor::from_vec(vec![4.0_f64, 0.0], &[2]);
    let tape = checking();
    tape.watch(&x);
    let line = line!() + 1;
    let y = tape.record(|| x.sqrt().sum());
    assert_eq!(y.to_scalar(), 2.0);
    let (op, phase, value, operands, output, at) = non_finite(tape.gradient(&y, &x));
    assert_eq!(op, "sqrt");
    assert_eq!(phase, AnomalyPhase::Backward { input: 0 });
    assert_eq!(value, NonFiniteValue::PosInf);
    assert_eq!(operands, vec![Some(vec![2])]);
    assert_eq!(output, vec![2]);
    assert_eq!(at, line);
}

#[test]
fn an_infinite_cotangent_of_a_scalar_on_the_number_path() {
    // 0-d values take the sweep's plain-number path: checked there too
    let x = Variable::new(0.0_f32);
    let tape = checking();
    let line = line!() + 1;
    let y = tape.record(|| x.sqrt() * 2.0);
    let (op, phase, value, _, output, at) = non_finite(tape.gradient(&y, &x));
    assert_eq!(
        (op, phase, at),
        ("sqrt", AnomalyPhase::Backward { input: 0 }, line)
    );
    assert_eq!((value, output), (NonFiniteValue::PosInf, vec![]));
}

#[test]
fn a_nan_entering_through_a_custom_gradient_rule() {
    let x = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
    let y = Tensor::from_vec(vec![3.0_f64, 4.0], &[2]);
    let tape = checking();
    tape.watch(&x);
    tape.watch(&y);
    let line = line!() + 2;
    let z = tape.record(|| {
        let product = custom_gradient("broken_mul", &[&x, &y], |inputs| {
            let (a, b) = (inputs[0].clone(), inputs[1].clone());
            // the rule for `b` is wrong: 0 · inf
            let rule =
                move |g: &Tensor<f64>| vec![Some(g * &b), Some(g * &a * 0.0 * f64::INFINITY)];
            (&inputs[0] * &inputs[1], rule)
        });
        product.sum()
    });
    let (op, phase, value, operands, output, at) = non_finite(tape.gradient(&z, (&x, &y)));
    assert_eq!(op, "broken_mul");
    assert_eq!(phase, AnomalyPhase::Backward { input: 1 });
    assert_eq!(value, NonFiniteValue::Nan);
    assert_eq!(operands, vec![Some(vec![2]), Some(vec![2])]);
    assert_eq!(output, vec![2]);
    assert_eq!(at, line);
}

#[test]
fn a_clean_computation_gives_identical_gradients_with_the_option_on_and_off() {
    let w = Variable::new(Tensor::from_vec(vec![0.5_f64, -1.5, 2.0, 0.25], &[2, 2]));
    let x = Tensor::from_vec(vec![1.0_f64, 2.0, -3.0, 0.5], &[2, 2]);
    let b = Variable::new(0.1_f64);
    let loss = || {
        let h = (x.matmul(&w.value()) + &b).tanh();
        (h.exp().ln() + h.sigmoid() * x.square().sqrt() + h.softplus()).mean()
    };
    let gradients = |tape: GradientTape| {
        let y = tape.record(loss);
        let [gw, gb] = tape.gradient(&y, [&w, &b]).unwrap();
        (gw.unwrap().to_vec(), gb.unwrap().to_scalar())
    };
    let off = gradients(GradientTape::new());
    let on = gradients(checking());
    assert_eq!(on, off, "bit for bit");
    // and on a persistent tape inside its own scope (the recorded sweep)
    let tape = GradientTape::builder()
        .persistent(true)
        .check_numerics(true)
        .build();
    let s = Variable::new(0.7_f64);
    let g = tape.record(|| {
        let y = s.sin() * s.value();
        tape.gradient(&y, &s).unwrap().unwrap()
    });
    let h = tape.gradient(&g, &s).unwrap().unwrap().to_scalar();
    // d²/ds² (s sin s) = 2 cos s - s sin s
    assert!((h - (2.0 * 0.7_f64.cos() - 0.7 * 0.7_f64.sin())).abs() < 1e-12);
}

#[test]
fn the_error_message_names_op_shapes_phase_and_line() {
    let x = Tensor::from_vec(vec![-1.0_f32, 1.0, 2.0, 3.0, 4.0, 5.0], &[2, 3]);
    let tape = checking();
    tape.watch(&x);
    let line = line!() + 1;
    let y = tape.record(|| x.ln().sum());
    let message = tape.gradient(&y, &x).unwrap_err().to_string();
    for needle in [
        "`ln`",
        "NaN",
        "forward value",
        "[2, 3]",
        &format!("{}:{line}", file!()),
    ] {
        assert!(
            message.contains(needle),
            "{needle:?} missing from: {message}"
        );
    }

    let x = Tensor::from_vec(vec![0.0_f64, 1.0], &[2]);
    let c = Tensor::from_vec(vec![1.0_f64, 1.0], &[2]);
    let tape = checking();
    tape.watch(&x);
    let line = line!() + 1;
    let y = tape.record(|| (x.sqrt() * &c).sum());
    let message = tape.gradient(&y, &x).unwrap_err().to_string();
    for needle in [
        "`sqrt`",
        "inf",
        "cotangent of its input 0",
        "[2]",
        &format!("{}:{line}", file!()),
    ] {
        assert!(
            message.contains(needle),
            "{needle:?} missing from: {message}"
        );
    }
}

#[test]
fn an_untracked_operand_is_named_as_such() {
    let x = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
    let zero = Tensor::from_vec(vec![0.0_f64, 1.0], &[2]);
    let tape = checking();
    tape.watch(&x);
    let y = tape.record(|| (&x / &zero).sum());
    let error = tape.gradient(&y, &x).unwrap_err();
    let (op, phase, value, operands, _, _) = non_finite(Err::<(), _>(error.clone()));
    assert_eq!(
        (op, phase, value),
        ("div", AnomalyPhase::Forward, NonFiniteValue::PosInf)
    );
    assert_eq!(operands, vec![Some(vec![2]), None]);
    assert!(error.to_string().contains("untracked"), "{error}");
}

#[test]
fn with_the_option_off_non_finite_gradients_are_values() {
    // TensorFlow's default: NaN and inf come back as gradients, not errors
    let x = Tensor::from_vec(vec![-1.0_f64, 0.0, 4.0], &[3]);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let (logs, roots) = tape.record(|| (x.ln().sum(), x.sqrt().sum()));
    assert!(logs.to_scalar().is_nan());
    let g = tape.gradient(&logs, &x).unwrap().unwrap().to_vec();
    assert_eq!(&g[1..], &[f64::INFINITY, 0.25]);
    assert_eq!(g[0], -1.0);
    let g = tape.gradient(&roots, &x).unwrap().unwrap().to_vec();
    assert!(g[0].is_nan());
    assert_eq!(&g[1..], &[f64::INFINITY, 0.25]);
}

#[test]
fn a_jacobian_reports_a_non_finite_cotangent() {
    let x = Tensor::from_vec(vec![1.0_f64, 0.0], &[2]);
    let tape = checking();
    tape.watch(&x);
    let line = line!() + 1;
    let y = tape.record(|| x.sqrt());
    let (op, phase, _, _, _, at) = non_finite(tape.jacobian(&y, &x));
    assert_eq!(
        (op, phase, at),
        ("sqrt", AnomalyPhase::Backward { input: 0 }, line)
    );
}

#[test]
fn a_persistent_tape_reports_a_forward_anomaly_until_reset() {
    let x = Variable::new(-1.0_f64);
    let tape = GradientTape::builder()
        .persistent(true)
        .check_numerics(true)
        .build();
    let y = tape.record(|| x.ln());
    assert!(matches!(
        tape.gradient(&y, &x),
        Err(TapeError::NonFinite { .. })
    ));
    assert!(matches!(
        tape.gradient(&y, &x),
        Err(TapeError::NonFinite { .. })
    ));
    tape.reset();
    let y = tape.record(|| x.square());
    assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_scalar(), -2.0);
}

#[test]
fn only_the_checking_tape_of_a_nest_reports() {
    let x = Variable::new(-1.0_f64);
    let outer = GradientTape::persistent();
    let inner = checking();
    let (y, z) = outer.record(|| {
        let y = inner.record(|| x.ln());
        (y, x.square())
    });
    assert!(matches!(
        inner.gradient(&y, &x),
        Err(TapeError::NonFinite { .. })
    ));
    assert!(outer.gradient(&y, &x).unwrap().unwrap().to_scalar() == -1.0);
    assert_eq!(outer.gradient(&z, &x).unwrap().unwrap().to_scalar(), -2.0);
}
