//! `ForwardAccumulator` against TensorFlow's documented behaviour
//! (`tf.autodiff.ForwardAccumulator`, the "Advanced automatic differentiation" guide) and
//! against analytic derivatives. Every op's JVP rule is checked against finite differences,
//! against its VJP rule and in every nesting by `tests/gradcheck.rs` (through
//! `common::check_forward`); this file checks the accumulator itself.

mod common;

use gradtape::{
    ForwardAccumulator, GradientTape, TangentError, Tensor, UnconnectedGradients, Variable,
    custom_gradient, differentiable, stop_gradient, straight_through, without_recording,
};

fn close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= 1e-12 * (1.0 + w.abs()),
            "{got:?} vs {want:?}"
        );
    }
}

#[test]
fn jvp_of_a_composition_matches_the_chain_rule() {
    // y = sin(x) · exp(x): dy = (cos x · eˣ + sin x · eˣ) dx
    let x = Tensor::from_vec(vec![0.3_f64, -1.2, 2.0], &[3]);
    let v = Tensor::from_vec(vec![1.0_f64, 2.0, -0.5], &[3]);
    let acc = ForwardAccumulator::new(&x, &v).unwrap();
    let y = acc.record(|| x.sin() * x.exp());
    let want: Vec<f64> = x
        .to_vec()
        .iter()
        .zip(v.to_vec())
        .map(|(&x, v)| (x.cos() + x.sin()) * x.exp() * v)
        .collect();
    close(&acc.jvp(&y).unwrap().to_vec(), &want);
}

#[test]
fn primals_and_tangents_in_any_structure() {
    let (a, b) = (Tensor::scalar(2.0_f64), Tensor::scalar(3.0_f64));
    let w = Variable::new(Tensor::from_vec(vec![1.0_f64, -1.0], &[2]));
    let primals = (&a, vec![b.clone()], &w);
    let tangents = (
        Tensor::scalar(1.0_f64),
        vec![Tensor::scalar(10.0_f64)],
        Tensor::from_vec(vec![0.5_f64, 0.25], &[2]),
    );
    let acc = ForwardAccumulator::new(primals, tangents).unwrap();
    let y = acc.record(|| (&a * &b + &w).sum());
    // y = 2ab + w₀ + w₁: dy = 2(b·1 + a·10) + 0.5 + 0.25
    assert_eq!(acc.jvp(&y).unwrap().to_scalar(), 2.0 * (3.0 + 20.0) + 0.75);
    // the structure of `jvp`'s result follows its argument's
    let (da, db) = acc.jvp((&a, [&b]));
    assert_eq!(da.unwrap().to_scalar(), 1.0);
    assert_eq!(db[0].as_ref().unwrap().to_scalar(), 10.0);
}

#[test]
fn every_read_of_a_variable_primal_gets_its_tangent() {
    let w = Variable::new(2.0_f64);
    let acc = ForwardAccumulator::new(&w, Tensor::scalar(1.0_f64)).unwrap();
    // two reads, one product: d(w·w) = 2w
    let y = acc.record(|| w.value() * w.value());
    assert_eq!(acc.jvp(&y).unwrap().to_scalar(), 4.0);
    // the variable itself as a target: its tangent
    assert_eq!(acc.jvp(&w).unwrap().to_scalar(), 1.0);
    // a read outside the scope is a constant
    let outside = w.value();
    assert!(acc.jvp(&outside).is_none());
}

#[test]
fn unconnected_values_are_none_or_zeros() {
    let x = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
    let acc = ForwardAccumulator::new(&x, Tensor::from_vec(vec![1.0, 1.0], &[2])).unwrap();
    let c = Tensor::from_vec(vec![5.0_f64, 6.0, 7.0], &[3]);
    let (y, z) = acc.record(|| (x.square(), c.exp()));
    assert!(acc.jvp(&z).is_none());
    let zeros = acc.jvp_with(&z, UnconnectedGradients::Zero).unwrap();
    assert_eq!((zeros.shape(), zeros.to_vec()), (&[3][..], vec![0.0; 3]));
    // connected values are unaffected by the option
    assert_eq!(
        acc.jvp_with(&y, UnconnectedGradients::Zero)
            .unwrap()
            .to_vec(),
        vec![2.0, 4.0]
    );
    // a primal's tangent is the one given
    assert_eq!(acc.jvp(&x).unwrap().to_vec(), vec![1.0, 1.0]);
}

#[test]
fn only_ops_inside_record_carry_tangents() {
    let x = Tensor::scalar(1.5_f64);
    let acc = ForwardAccumulator::new(&x, Tensor::scalar(1.0_f64)).unwrap();
    let before = x.square();
    let inside = acc.record(|| x.square());
    let after = inside.sin();
    assert!(acc.jvp(&before).is_none());
    assert_eq!(acc.jvp(&inside).unwrap().to_scalar(), 3.0);
    assert!(acc.jvp(&after).is_none());
    // tangents are kept across scopes: a second scope continues from `inside`
    let again = acc.record(|| inside.sin());
    close(&acc.jvp(&again).unwrap().to_vec(), &[2.25_f64.cos() * 3.0]);
}

#[test]
fn jvp_inside_the_scope_is_allowed() {
    let x = Tensor::scalar(2.0_f64);
    let acc = ForwardAccumulator::new(&x, Tensor::scalar(1.0_f64)).unwrap();
    acc.record(|| {
        let y = x.powi(3);
        assert_eq!(acc.jvp(&y).unwrap().to_scalar(), 12.0);
    });
}

#[test]
fn mismatched_tangents_are_typed_errors() {
    let x = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
    let err = ForwardAccumulator::new(&x, Tensor::from_vec(vec![1.0_f64; 3], &[3])).unwrap_err();
    assert_eq!(
        err,
        TangentError::Mismatch {
            index: 0,
            primal_shape: vec![2],
            primal_dtype: "f64",
            tangent_shape: vec![3],
            tangent_dtype: "f64",
        }
    );
    let err = ForwardAccumulator::new(&x, Tensor::from_vec(vec![1.0_f32; 2], &[2])).unwrap_err();
    assert!(err.to_string().contains("f32"), "{err}");
    let err = ForwardAccumulator::new((&x, &x), [&x]).unwrap_err();
    assert_eq!(
        err,
        TangentError::Count {
            primals: 2,
            tangents: 1
        }
    );
}

#[test]
#[should_panic(expected = "already recording")]
fn entering_an_accumulator_twice_at_once_panics() {
    let x = Tensor::scalar(1.0_f64);
    let acc = ForwardAccumulator::new(&x, Tensor::scalar(1.0_f64)).unwrap();
    acc.record(|| acc.record(|| x.sin()));
}

/// TensorFlow's guide, "Hessian-vector product": an accumulator around a tape's gradient.
#[test]
fn forward_over_reverse_gives_the_hessian_vector_product() {
    // f(x) = Σ xᵢ² xᵢ₊₁ (a coupled cubic): H is tridiagonal
    let x = Tensor::from_vec(vec![0.5_f64, -1.0, 2.0], &[3]);
    let v = Tensor::from_vec(vec![1.0_f64, 0.0, -2.0], &[3]);
    let acc = ForwardAccumulator::new(&x, &v).unwrap();
    let grad = acc.record(|| {
        let tape = GradientTape::new();
        tape.watch(&x);
        let y = tape.record(|| (x.slice(0, 0, 2).square() * x.slice(0, 1, 2)).sum());
        tape.gradient(&y, &x).unwrap().unwrap()
    });
    let [x0, x1, x2] = [0.5, -1.0, 2.0];
    // ∂²f: [2x₁, 2x₀, 0; 2x₀, 2x₂, 2x₁; 0, 2x₁, 0]
    let h = [
        [2.0 * x1, 2.0 * x0, 0.0],
        [2.0 * x0, 2.0 * x2, 2.0 * x1],
        [0.0, 2.0 * x1, 0.0],
    ];
    let v = [1.0, 0.0, -2.0];
    let want: Vec<f64> = h
        .iter()
        .map(|row| row.iter().zip(v).map(|(a, b)| a * b).sum())
        .collect();
    close(&acc.jvp(&grad).unwrap().to_vec(), &want);
}

#[test]
fn reverse_over_forward_differentiates_a_jvp() {
    // d/dx (J(x)·v) for y = x³ elementwise: J·v = 3x² v, its gradient (summed) 6x v
    let x = Tensor::from_vec(vec![1.0_f64, -2.0], &[2]);
    let v = Tensor::from_vec(vec![0.5_f64, 3.0], &[2]);
    let tape = GradientTape::new();
    tape.watch(&x);
    let jvp = tape.record(|| {
        let acc = ForwardAccumulator::new(&x, &v).unwrap();
        let y = acc.record(|| x.powi(3));
        acc.jvp(&y).unwrap()
    });
    close(&jvp.to_vec(), &[1.5, 36.0]);
    let grad = tape.gradient(&jvp, &x).unwrap().unwrap();
    close(&grad.to_vec(), &[3.0, -36.0]);
}

#[test]
fn nested_accumulators_give_higher_forward_derivatives() {
    // d³/dx³ sin x = -cos x, by three accumulators
    let x = Tensor::scalar(0.7_f64);
    let one = || Tensor::scalar(1.0_f64);
    let outer = ForwardAccumulator::new(&x, one()).unwrap();
    let d2 = outer.record(|| {
        let middle = ForwardAccumulator::new(&x, one()).unwrap();
        let d1 = middle.record(|| {
            let inner = ForwardAccumulator::new(&x, one()).unwrap();
            let y = inner.record(|| x.sin());
            inner.jvp(&y).unwrap()
        });
        middle.jvp(&d1).unwrap()
    });
    let d3 = outer.jvp(&d2).unwrap().to_scalar();
    assert!((d3 + 0.7_f64.cos()).abs() < 1e-15, "{d3}");
}

#[test]
fn a_tape_inside_an_accumulator_does_not_record_tangent_work() {
    let x = Tensor::scalar(1.0_f64);
    let acc = ForwardAccumulator::new(&x, Tensor::scalar(1.0_f64)).unwrap();
    let tape = GradientTape::new();
    tape.watch(&x);
    acc.record(|| tape.record(|| x.sin()));
    // the tape sees `sin` only, not the `cos` and product of its JVP
    assert_eq!(tape.recorded_ops(), vec!["sin"]);

    // a tape outside the accumulator does record it
    let outer = GradientTape::new();
    outer.watch(&x);
    outer.record(|| {
        let acc = ForwardAccumulator::new(&x, Tensor::scalar(1.0_f64)).unwrap();
        acc.record(|| x.sin())
    });
    assert!(outer.recorded_ops().len() > 1, "{:?}", outer.recorded_ops());
}

#[test]
fn without_recording_and_stop_gradient_cut_tangents() {
    let x = Tensor::scalar(2.0_f64);
    let acc = ForwardAccumulator::new(&x, Tensor::scalar(1.0_f64)).unwrap();
    let (hidden, stopped, mixed) = acc.record(|| {
        let hidden = without_recording(|| x.square());
        let stopped = stop_gradient(&x).square();
        let mixed = &x * stop_gradient(&x);
        (hidden, stopped, mixed)
    });
    assert!(acc.jvp(&hidden).is_none());
    assert!(acc.jvp(&stopped).is_none());
    // d(x · sg(x)) = sg(x) dx
    assert_eq!(acc.jvp(&mixed).unwrap().to_scalar(), 2.0);
}

/// Integer results carry no tangent; a float cast of them is a constant.
#[test]
fn integer_results_carry_no_tangent() {
    let x = Tensor::from_vec(vec![0.2_f64, 0.9, 0.4], &[1, 3]);
    let acc = ForwardAccumulator::new(&x, Tensor::from_vec(vec![1.0; 3], &[1, 3])).unwrap();
    let (class, truncated) = acc.record(|| {
        let class = x.argmax_axis(1).cast::<f64>();
        (class, x.cast::<i32>().cast::<f64>())
    });
    assert!(acc.jvp(&class).is_none());
    assert!(acc.jvp(&truncated).is_none());
}

/// A custom gradient's forward derivative is the transpose of its backward function, as
/// TensorFlow computes it: here a deliberately scaled rule shows which one is used.
#[test]
fn custom_gradients_differentiate_forward_by_their_rule() {
    let x = Tensor::from_vec(vec![1.0_f64, -2.0], &[2]);
    let v = Tensor::from_vec(vec![3.0_f64, 0.5], &[2]);
    // the identity with a declared gradient of 2·g: forward mode must give 2·v
    let doubled = |x: &Tensor<f64>| {
        custom_gradient("doubled", &[x], |inputs| {
            (inputs[0].clone(), |g: &Tensor<f64>| vec![Some(g * 2.0)])
        })
    };
    let acc = ForwardAccumulator::new(&x, &v).unwrap();
    let y = acc.record(|| doubled(&x));
    assert_eq!(acc.jvp(&y).unwrap().to_vec(), vec![6.0, 1.0]);

    // log(1 + eˣ) with its stable rule (TensorFlow's example): d = sigmoid(x) dx
    let log1pexp = |x: &Tensor<f64>| {
        custom_gradient("log1pexp", &[x], |inputs| {
            let e = inputs[0].exp();
            let value = (&e + 1.0).ln();
            (value, move |g: &Tensor<f64>| {
                vec![Some(g * (1.0 - 1.0 / (1.0 + &e)))]
            })
        })
    };
    let acc = ForwardAccumulator::new(&x, &v).unwrap();
    let y = acc.record(|| log1pexp(&x));
    let want: Vec<f64> = [1.0_f64, -2.0]
        .iter()
        .zip([3.0, 0.5])
        .map(|(x, v)| v / (1.0 + (-x).exp()))
        .collect();
    close(&acc.jvp(&y).unwrap().to_vec(), &want);

    // straight-through: the tangent passes through the rounding
    let acc = ForwardAccumulator::new(&x, &v).unwrap();
    let round = |x: &Tensor<f64>| {
        Tensor::from_vec(x.to_vec().iter().map(|v| v.round()).collect(), x.shape())
    };
    let y = acc.record(|| straight_through(&x, round));
    assert_eq!(acc.jvp(&y).unwrap().to_vec(), vec![3.0, 0.5]);
}

#[differentiable]
fn smooth_step(x: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let z = x * w;
    (z.tanh() * &z).sum()
}

/// An annotated function differentiates forward alike, whether a tape also records it (one
/// fused node, whose JVP is its adjoint's transpose) or not (its body, op by op).
#[test]
fn annotated_functions_under_an_accumulator() {
    let x = Tensor::from_vec(vec![0.3_f64, -0.8, 1.1], &[3]);
    let w = Tensor::from_vec(vec![1.5_f64, 0.5, -2.0], &[3]);
    let (vx, vw) = (
        Tensor::from_vec(vec![1.0_f64, -1.0, 0.5], &[3]),
        Tensor::from_vec(vec![0.2_f64, 0.0, 1.0], &[3]),
    );
    // reference: the body as written, op by op
    let reference = {
        let acc = ForwardAccumulator::new((&x, &w), (&vx, &vw)).unwrap();
        let y = acc.record(|| smooth_step::primal(&x, &w));
        acc.jvp(&y).unwrap().to_scalar()
    };
    // analytic: d Σ z tanh z = Σ (tanh z + z sech² z) dz, dz = w dx + x dw
    let analytic: f64 = (0..3)
        .map(|i| {
            let (xi, wi) = (x.to_vec()[i], w.to_vec()[i]);
            let z = xi * wi;
            let dz = wi * vx.to_vec()[i] + xi * vw.to_vec()[i];
            (z.tanh() + z / z.cosh().powi(2)) * dz
        })
        .sum();
    assert!((reference - analytic).abs() < 1e-12);
    // no tape: the function runs its body
    let acc = ForwardAccumulator::new((&x, &w), (&vx, &vw)).unwrap();
    let y = acc.record(|| smooth_step(&x, &w));
    assert!((acc.jvp(&y).unwrap().to_scalar() - analytic).abs() < 1e-12);
    // a tape also watching: one fused node
    let acc = ForwardAccumulator::new((&x, &w), (&vx, &vw)).unwrap();
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = acc.record(|| tape.record(|| smooth_step(&x, &w)));
    assert_eq!(tape.recorded_ops().len(), 1, "{:?}", tape.recorded_ops());
    assert!((acc.jvp(&y).unwrap().to_scalar() - analytic).abs() < 1e-12);
}

/// Mixed dtypes: an f32 primal through an f64 cast keeps its tangent.
#[test]
fn tangents_follow_float_casts() {
    let x = Tensor::from_vec(vec![1.0_f32, 2.0], &[2]);
    let acc = ForwardAccumulator::new(&x, Tensor::from_vec(vec![1.0_f32, 1.0], &[2])).unwrap();
    let y = acc.record(|| x.cast::<f64>().square());
    assert_eq!(acc.jvp(&y).unwrap().to_vec(), vec![2.0, 4.0]);
}

/// Tangents with a batch of training ops: softmax cross-entropy of a dense layer, against
/// central differences (a composite the per-op rows do not cover as one).
#[test]
fn a_dense_classifier_loss_against_central_differences() {
    let x = common::sample(&[4, 3], common::Domain::Normal, 1);
    let w = common::sample(&[3, 5], common::Domain::Normal, 2);
    let b = common::sample(&[5], common::Domain::Normal, 3);
    let v = common::sample(&[3, 5], common::Domain::Normal, 4);
    let loss = |w: &Tensor<f64>| {
        x.xw_plus_b(w, &b)
            .relu()
            .sparse_softmax_cross_entropy_with_logits(&[0, 4, 2, 1])
            .mean()
    };
    let acc = ForwardAccumulator::new(&w, &v).unwrap();
    let y = acc.record(|| loss(&w));
    let h = 1e-6;
    let shifted = |s: f64| {
        let values = w
            .to_vec()
            .iter()
            .zip(v.to_vec())
            .map(|(a, b)| a + s * h * b)
            .collect();
        loss(&Tensor::from_vec(values, &[3, 5])).to_scalar()
    };
    let fd = (shifted(1.0) - shifted(-1.0)) / (2.0 * h);
    let got = acc.jvp(&y).unwrap().to_scalar();
    assert!((got - fd).abs() < 1e-6 * (1.0 + fd.abs()), "{got} vs {fd}");
}

#[differentiable]
fn number_chain(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    let mut z = x * y;
    for _ in 0..3 {
        z = z.sin() + x;
    }
    z
}

/// Regression: an annotated function of 0-d tensors, under an accumulator with no tape
/// watching, ran on plain numbers (the path for when nothing tracks its inputs) and gave
/// a fresh constant: no tangent, a JVP of `None` where the derivative is not zero.
#[test]
fn an_annotated_function_of_numbers_keeps_its_tangent_without_a_tape() {
    let (x, y) = (Tensor::scalar(0.4_f64), Tensor::scalar(-1.3_f64));
    let reference = {
        let acc = ForwardAccumulator::new(&x, Tensor::scalar(1.0_f64)).unwrap();
        let z = acc.record(|| number_chain::primal(&x, &y));
        acc.jvp(&z).unwrap().to_scalar()
    };
    let h = 1e-6;
    let fd = (number_chain::primal(&Tensor::scalar(0.4 + h), &y).to_scalar()
        - number_chain::primal(&Tensor::scalar(0.4 - h), &y).to_scalar())
        / (2.0 * h);
    assert!((reference - fd).abs() < 1e-8, "{reference} vs {fd}");
    let acc = ForwardAccumulator::new(&x, Tensor::scalar(1.0_f64)).unwrap();
    let z = acc.record(|| number_chain(&x, &y));
    let got = acc.jvp(&z).expect("the result depends on x").to_scalar();
    assert!((got - reference).abs() < 1e-12, "{got} vs {reference}");
    // and the same under an outer tape (reverse over forward), to second order
    let tape = GradientTape::new();
    tape.watch(&x);
    let d = tape.record(|| {
        let acc = ForwardAccumulator::new(&x, Tensor::scalar(1.0_f64)).unwrap();
        let z = acc.record(|| number_chain(&x, &y));
        acc.jvp(&z).unwrap()
    });
    let d2 = tape.gradient(&d, &x).unwrap().unwrap().to_scalar();
    let d_at = |x: f64| {
        let x = Tensor::scalar(x);
        let acc = ForwardAccumulator::new(&x, Tensor::scalar(1.0_f64)).unwrap();
        let z = acc.record(|| number_chain::primal(&x, &y));
        acc.jvp(&z).unwrap().to_scalar()
    };
    let fd2 = (d_at(0.4 + 1e-5) - d_at(0.4 - 1e-5)) / 2e-5;
    assert!((d2 - fd2).abs() < 1e-6, "{d2} vs {fd2}");
}

/// A jacobian's batched sweep under an accumulator, through a custom gradient (whose JVP
/// is its transposed pullback, called outside any sweep): the forward derivative of a
/// jacobian, against the jacobian at nearby points.
#[test]
fn forward_mode_over_a_batched_jacobian_through_a_custom_gradient() {
    let cube = |x: &Tensor<f64>| {
        custom_gradient("cube", &[x], |inputs| {
            let x = inputs[0].clone();
            (x.powi(3), move |g: &Tensor<f64>| {
                vec![Some(g * &x.square() * 3.0)]
            })
        })
    };
    let jacobian_at = |x: &Tensor<f64>| {
        let tape = GradientTape::new();
        tape.watch(x);
        let y = tape.record(|| cube(x).sin());
        tape.jacobian(&y, x).unwrap().unwrap()
    };
    let x = Tensor::from_vec(vec![0.4_f64, -0.7, 1.1], &[3]);
    let v = Tensor::from_vec(vec![1.0_f64, 2.0, -1.0], &[3]);
    let acc = ForwardAccumulator::new(&x, &v).unwrap();
    let j = acc.record(|| jacobian_at(&x));
    let dj = acc.jvp(&j).expect("the jacobian depends on x").to_vec();
    let h = 1e-6;
    let shifted = |s: f64| {
        let values = x
            .to_vec()
            .iter()
            .zip(v.to_vec())
            .map(|(a, b)| a + s * h * b)
            .collect();
        jacobian_at(&Tensor::from_vec(values, &[3])).to_vec()
    };
    let (plus, minus) = (shifted(1.0), shifted(-1.0));
    for (k, got) in dj.iter().enumerate() {
        let fd = (plus[k] - minus[k]) / (2.0 * h);
        assert!(
            (got - fd).abs() < 1e-5 * (1.0 + fd.abs()),
            "element {k}: {got} vs {fd}"
        );
    }
}

/// A binary function of 0-d tensors (unary ones ignore their second argument).
type ScalarOp = fn(&Tensor<f64>, &Tensor<f64>) -> Tensor<f64>;

/// 0-d ops whose tangent a lone accumulator computes on plain numbers (nothing else can
/// observe that work), by name.
fn scalar_ops() -> Vec<(&'static str, ScalarOp)> {
    vec![
        ("sin", |x, _| x.sin()),
        ("cos", |x, _| x.cos()),
        ("exp", |x, _| x.exp()),
        ("ln", |x, _| x.ln()),
        ("tanh", |x, _| x.tanh()),
        ("sigmoid", |x, _| x.sigmoid()),
        ("sqrt", |x, _| x.sqrt()),
        ("square", |x, _| x.square()),
        ("relu", |x, _| x.relu()),
        ("powi", |x, _| x.powi(3)),
        ("powf", |x, _| x.powf(2.5)),
        ("scale", |x, _| x * 0.9),
        ("add", |x, y| x + y),
        ("sub", |x, y| x - y),
        ("mul", |x, y| x * y),
        ("div", |x, y| x / y),
        ("maximum", |x, y| x.maximum(y)),
        ("atan2", |x, y| x.atan2(y)),
        ("hypot", |x, y| x.hypot(y)),
        ("pow", |x, y| x.pow(y)),
        ("rem", |x, y| (x * 4.0) % y),
        ("rem_euclid", |x, y| (-x * 4.0).rem_euclid(y)),
        ("chain", |x, y| {
            let mut z = x.clone();
            for _ in 0..50 {
                z = z.sin() * 0.9 + &z * y;
            }
            z
        }),
    ]
}

#[test]
fn a_lone_accumulator_and_an_observed_one_give_the_same_tangents_to_the_bit() {
    // Alone, an accumulator computes 0-d tangents on plain numbers; under a tape or inside
    // another accumulator the same rules run as recorded tensor ops. Same bits either way.
    let (x, y) = (Tensor::scalar(0.7_f64), Tensor::scalar(1.3_f64));
    let (dx, dy) = (Tensor::scalar(0.6_f64), Tensor::scalar(-1.1_f64));
    for (name, op) in scalar_ops() {
        let jvp = |wrap: &dyn Fn(&dyn Fn() -> f64) -> f64| {
            wrap(&|| {
                let acc = ForwardAccumulator::new([&x, &y], [&dx, &dy]).unwrap();
                let z = acc.record(|| op(&x, &y));
                acc.jvp(&z).unwrap().to_scalar()
            })
        };
        let alone = jvp(&|f| f());
        let under_a_tape = jvp(&|f| {
            let tape = GradientTape::new();
            tape.watch(&x);
            tape.record(f)
        });
        let inside_an_accumulator = jvp(&|f| {
            let outer = ForwardAccumulator::new(&y, Tensor::scalar(1.0_f64)).unwrap();
            outer.record(f)
        });
        assert_eq!(alone.to_bits(), under_a_tape.to_bits(), "{name}");
        assert_eq!(alone.to_bits(), inside_an_accumulator.to_bits(), "{name}");
    }
}

#[test]
fn a_lone_accumulator_in_f32_matches_the_recorded_rules_to_the_bit() {
    // W2's step in f32, alone and with a tape recording around the accumulator.
    let x = Tensor::scalar(0.5_f32);
    let chain = || {
        let acc = ForwardAccumulator::new(&x, Tensor::scalar(1.0_f32)).unwrap();
        let y = acc.record(|| {
            let mut y = x.clone();
            for _ in 0..1_000 {
                y = y.sin() * 0.9 + &y * 0.1;
            }
            y
        });
        acc.jvp(&y).unwrap().to_scalar()
    };
    let alone = chain();
    let tape = GradientTape::new();
    tape.watch(&x);
    let observed = tape.record(chain);
    assert_eq!(alone.to_bits(), observed.to_bits());
}

#[test]
fn an_accumulator_keeps_every_tangent_after_100_000_ops() {
    // y_k = 1.0001^k x: every intermediate keeps the tangent 1.0001^k dx.
    let x = Tensor::scalar(2.0_f64);
    let acc = ForwardAccumulator::new(&x, Tensor::scalar(3.0)).unwrap();
    let kept = acc.record(|| {
        let mut y = x.clone();
        let mut kept = Vec::new();
        for k in 1..=100_000 {
            y = &y * 1.0001;
            if k % 10_000 == 0 {
                kept.push((k, y.clone()));
            }
        }
        kept
    });
    for (k, y) in kept {
        let want = 3.0 * 1.0001_f64.powi(k);
        let got = acc.jvp(&y).unwrap().to_scalar();
        assert!(
            (got - want).abs() <= 1e-9 * want,
            "step {k}: {got} vs {want}"
        );
    }
    // the primal's own tangent is still the one given
    assert_eq!(acc.jvp(&x).unwrap().to_scalar(), 3.0);
}

#[test]
fn a_tensor_created_before_the_accumulator_has_no_tangent() {
    let before = Tensor::scalar(4.0_f64);
    let x = Tensor::scalar(2.0_f64);
    let acc = ForwardAccumulator::new(&x, Tensor::scalar(1.0)).unwrap();
    let (inside, constant) = acc.record(|| (&x * &before, before.sin()));
    assert!(acc.jvp(&before).is_none());
    assert!(acc.jvp(&constant).is_none());
    assert_eq!(acc.jvp(&inside).unwrap().to_scalar(), 4.0);
    // created after the scope: no tangent either, even from a value that has one
    let after = inside.exp();
    assert!(acc.jvp(&after).is_none());
    // a second scope continues the record
    let again = acc.record(|| inside.square());
    assert_eq!(acc.jvp(&again).unwrap().to_scalar(), 2.0 * 8.0 * 4.0);
}

#[test]
fn tangents_of_scattered_ids_survive_a_dense_run() {
    // Many values between two tangent-carrying ones (a long untracked computation) move
    // the accumulator's record to a new run; the older tangents stay readable.
    let x = Tensor::scalar(1.5_f64);
    let acc = ForwardAccumulator::new(&x, Tensor::scalar(1.0)).unwrap();
    let (early, late) = acc.record(|| {
        let early = x.square();
        let mut noise = Tensor::scalar(0.0_f64);
        for _ in 0..5_000 {
            noise = noise + 1.0; // no tangent: a constant chain
        }
        let late = &early * &noise;
        (early, late)
    });
    assert_eq!(acc.jvp(&early).unwrap().to_scalar(), 3.0);
    assert_eq!(acc.jvp(&late).unwrap().to_scalar(), 3.0 * 5_000.0);
}

/// A tangent kept as a number has no tensor until it is read; read twice, it is the same
/// tensor (a tape that watches the first read tracks the second).
#[test]
fn a_tangent_kept_as_a_number_is_one_tensor_once_read() {
    let x = Tensor::scalar(0.3_f64);
    let acc = ForwardAccumulator::new(&x, Tensor::scalar(2.0_f64)).unwrap();
    let y = acc.record(|| x.sin());
    let first = acc.jvp(&y).unwrap();
    let second = acc.jvp(&y).unwrap();
    assert_eq!(first.to_scalar(), 2.0 * 0.3_f64.cos());
    let tape = GradientTape::new();
    tape.watch(&first);
    let z = tape.record(|| &second * 3.0);
    assert_eq!(tape.gradient(&z, &first).unwrap().unwrap().to_scalar(), 3.0);
}

/// Tangents kept as numbers, then read by rules that work on tensors: an op with no
/// number form (a cast, a reduction over a stacked vector), a tape entered inside the
/// accumulator (whose ops take the general path), and an annotated function. Each against
/// the chain rule.
#[test]
fn tangents_kept_as_numbers_feed_the_tensor_rules() {
    let x = Tensor::scalar(0.8_f64);
    let acc = ForwardAccumulator::new(&x, Tensor::scalar(1.0_f64)).unwrap();
    let (s, c) = acc.record(|| (x.sin(), x.cos()));
    // an op without a number form: a cast to f32 and back
    let widened = acc.record(|| s.cast::<f32>().cast::<f64>());
    let dwidened = acc.jvp(&widened).unwrap().to_scalar();
    assert!((dwidened - 0.8_f64.cos()).abs() < 1e-7, "{dwidened}");
    // a tape inside the accumulator: its ops go the general way, and it does not record
    // the tangent work (its gradient is the primal one)
    let tape = GradientTape::new();
    tape.watch(&s);
    let q = acc.record(|| tape.record(|| &s * &c));
    let dq = acc.jvp(&q).unwrap().to_scalar();
    let want = 0.8_f64.cos().powi(2) - 0.8_f64.sin().powi(2);
    assert!((dq - want).abs() < 1e-15, "{dq} vs {want}");
    assert_eq!(
        tape.gradient(&q, &s).unwrap().unwrap().to_scalar(),
        c.to_scalar()
    );
    // an annotated function of values whose tangents are numbers
    let z = acc.record(|| smooth_step(&s, &c));
    let dz = acc.jvp(&z).unwrap().to_scalar();
    let h = 1e-6;
    let at = |x: f64| smooth_step(&Tensor::scalar(x.sin()), &Tensor::scalar(x.cos())).to_scalar();
    let fd = (at(0.8 + h) - at(0.8 - h)) / (2.0 * h);
    assert!((dz - fd).abs() < 1e-8, "{dz} vs {fd}");
}
