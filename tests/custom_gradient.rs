//! `custom_gradient`, `stop_gradient` and `straight_through`: values, second order through
//! a custom rule, jacobians through it, and every error of a custom backward function.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;

use gradtape::{
    GradientTape, TapeError, Tensor, UnconnectedGradients, Variable, custom_gradient,
    stop_gradient, straight_through,
};

mod common;

/// x³ with a hand-written backward rule 3x²·g (in tensor ops, so it can be differentiated).
fn cube(x: &Tensor<f64>) -> Tensor<f64> {
    custom_gradient("cube", &[x], |inputs| {
        let x = inputs[0].clone();
        let value = x.powi(3);
        (value, move |g: &Tensor<f64>| {
            vec![Some(g * x.square() * 3.0)]
        })
    })
}

#[test]
fn custom_rule_replaces_the_ops_inside() {
    // the forward's own ops are not recorded: a deliberately "wrong" rule shows it is used
    let x = Tensor::scalar(2.0_f64);
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| {
        custom_gradient("scaled", &[&x], |inputs| {
            (inputs[0].square(), |g: &Tensor<f64>| vec![Some(g * 10.0)])
        })
    });
    assert_eq!(y.to_scalar(), 4.0);
    assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_scalar(), 10.0);
}

#[test]
fn several_inputs_and_none_for_one() {
    // f(a, b) = a·b with a rule that gives a's gradient only
    let (a, b) = (Tensor::scalar(3.0_f32), Tensor::scalar(5.0_f32));
    let tape = GradientTape::persistent();
    tape.watch(&a);
    tape.watch(&b);
    let y = tape.record(|| {
        custom_gradient("a_times_b", &[&a, &b], |inputs| {
            let b = inputs[1].clone();
            (&inputs[0] * &inputs[1], move |g: &Tensor<f32>| {
                vec![Some(g * &b), None]
            })
        })
    });
    let (ga, gb) = tape.gradient(&y, (&a, &b)).unwrap();
    assert_eq!(ga.unwrap().to_scalar(), 5.0);
    assert!(gb.is_none());
}

#[test]
fn second_order_through_a_custom_rule() {
    // d/dx x³ = 3x² = 12, d²/dx² = 6x = 12, d³/dx³ = 6 at x = 2: the rule's ops are recorded
    let x = Tensor::scalar(2.0_f64);
    let t3 = GradientTape::new();
    let t2 = GradientTape::new();
    let t1 = GradientTape::new();
    t3.watch(&x);
    let d2 = t3.record(|| {
        t2.watch(&x);
        let d1 = t2.record(|| {
            t1.watch(&x);
            let y = t1.record(|| cube(&x));
            t1.gradient(&y, &x).unwrap().unwrap()
        });
        assert_eq!(d1.to_scalar(), 12.0);
        t2.gradient(&d1, &x).unwrap().unwrap()
    });
    assert_eq!(d2.to_scalar(), 12.0);
    assert_eq!(t3.gradient(&d2, &x).unwrap().unwrap().to_scalar(), 6.0);
}

#[test]
fn jacobian_through_a_custom_rule() {
    // d xᵢ³/dxⱼ = 3xᵢ² [i = j]
    let x = Tensor::from_vec(vec![1.0, 2.0], &[2]);
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| cube(&x));
    let jac = tape.jacobian(&y, &x).unwrap().unwrap();
    assert_eq!(jac.to_vec(), vec![3.0, 0.0, 0.0, 12.0]);
}

#[test]
fn variables_enter_through_their_value() {
    let v = Variable::new(3.0_f64);
    let tape = GradientTape::new();
    let y = tape.record(|| cube(&v.value()));
    assert_eq!(tape.gradient(&y, &v).unwrap().unwrap().to_scalar(), 27.0);
}

#[test]
#[should_panic(
    expected = "custom_gradient `two_inputs`: the backward function returned 1 gradients for 2 inputs"
)]
fn wrong_gradient_count_panics_naming_the_function() {
    let (a, b) = (Tensor::scalar(1.0_f32), Tensor::scalar(2.0_f32));
    let tape = GradientTape::new();
    tape.watch(&a);
    let y = tape.record(|| {
        custom_gradient("two_inputs", &[&a, &b], |inputs| {
            (&inputs[0] + &inputs[1], |g: &Tensor<f32>| {
                vec![Some(g.clone())]
            })
        })
    });
    let _ = tape.gradient(&y, &a);
}

#[test]
#[should_panic(
    expected = "custom_gradient `bad_shape`: the gradient for input 0 has shape [3], but the input has shape [2]"
)]
fn wrong_gradient_shape_panics_naming_the_function() {
    let x = Tensor::from_vec(vec![1.0_f32, 2.0], &[2]);
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| {
        custom_gradient("bad_shape", &[&x], |inputs| {
            (inputs[0].sum(), |_: &Tensor<f32>| {
                vec![Some(Tensor::zeros(&[3]))]
            })
        })
    });
    let _ = tape.gradient(&y, &x);
}

/// A rule's wrong result is a bug at the `custom_gradient` call that defined the rule; the
/// check runs later, inside the sweep, so its message names that call's line.
#[test]
fn wrong_gradient_count_names_the_line_that_defined_the_rule() {
    let x = Tensor::scalar(1.0_f64);
    let tape = GradientTape::new();
    tape.watch(&x);
    let line = line!() + 2;
    let y = tape.record(|| {
        custom_gradient("none_returned", &[&x], |inputs| {
            (inputs[0].clone(), |_: &Tensor<f64>| Vec::new())
        })
    });
    let (_, _, message) = common::panic_site(|| drop(tape.gradient(&y, &x)));
    let defined_at = format!("custom_gradient called at {}:{line}:", file!());
    assert!(message.contains(&defined_at), "{message}");
}

/// `y` of the given value with a backward rule that panics.
fn panicking_rule(x: &Tensor<f64>) -> Tensor<f64> {
    custom_gradient("panics", &[x], |inputs| {
        let rule = |_: &Tensor<f64>| -> Vec<Option<Tensor<f64>>> { panic!("the rule failed") };
        (inputs[0].square(), rule)
    })
}

/// A panic in a rule, caught around `gradient`, leaves no half-swept records behind: the
/// tape answers `Poisoned` from then on (before, a variable not read in a later recording
/// got a gradient: its old leaf's node number named one of the new nodes).
#[test]
fn panic_in_a_rule_poisons_a_persistent_tape() {
    let (a, b) = (
        Variable::with_name("a", 2.0_f64),
        Variable::with_name("b", 3.0_f64),
    );
    let tape = GradientTape::persistent();
    let y = tape.record(|| panicking_rule(&a.value()) * &b);
    assert!(catch_unwind(AssertUnwindSafe(|| tape.gradient(&y, &a))).is_err());
    let z = tape.record(|| b.square());
    let err = tape.gradient(&z, &a).unwrap_err();
    assert_eq!(err, TapeError::Poisoned);
    assert!(err.to_string().contains("panicked"), "{err}");
    assert_eq!(tape.gradient(&z, &b).unwrap_err(), TapeError::Poisoned);
    assert_eq!(tape.jacobian(&z, &b).unwrap_err(), TapeError::Poisoned);
    // reset starts a new record on a sound tape: d(b²)/db = 2b
    tape.reset();
    let z = tape.record(|| b.square());
    let (ga, gb) = tape.gradient(&z, (&a, &b)).unwrap();
    assert!(ga.is_none());
    assert_eq!(gb.unwrap().to_scalar(), 6.0);
}

/// The same for a non-persistent tape, which answered `Ok(None)` after the panic instead of
/// refusing a second gradient.
#[test]
fn panic_in_a_rule_poisons_a_non_persistent_tape() {
    let a = Variable::with_name("a", 2.0_f64);
    let tape = GradientTape::new();
    let y = tape.record(|| panicking_rule(&a.value()).sin());
    assert!(catch_unwind(AssertUnwindSafe(|| tape.gradient(&y, &a))).is_err());
    assert_eq!(tape.gradient(&y, &a).unwrap_err(), TapeError::Poisoned);
}

/// `reset` from a rule of the tape's own sweep would clear the records the sweep has taken
/// out, and the sweep would put them back half-reset: it is a misuse, and panics.
#[test]
fn reset_inside_its_own_sweep_panics() {
    let x = Tensor::scalar(2.0_f64);
    let tape = Rc::new(GradientTape::persistent());
    tape.watch(&x);
    let weak = Rc::downgrade(&tape);
    let y = tape.record(|| {
        custom_gradient("resets", &[&x], move |inputs| {
            let rule = move |g: &Tensor<f64>| {
                weak.upgrade().expect("the tape is alive").reset();
                vec![Some(g * 2.0)]
            };
            (inputs[0].square(), rule)
        })
    });
    let (_, _, message) = common::panic_site(|| drop(tape.gradient(&y, &x)));
    assert!(
        message.contains("GradientTape::reset: called while this tape computes a gradient"),
        "{message}"
    );
    assert_eq!(tape.gradient(&y, &x).unwrap_err(), TapeError::Poisoned);
}

/// A rule that asks its own tape for a gradient while that tape's sweep runs would read
/// records the sweep has taken out (it got `Ok(None)`, a silent wrong answer): it is a
/// typed error, and the outer gradient goes on.
#[test]
fn gradient_from_a_rule_during_its_own_tapes_sweep_is_an_error() {
    for persistent in [false, true] {
        let x = Tensor::scalar(2.0_f64);
        let tape = Rc::new(GradientTape::builder().persistent(persistent).build());
        tape.watch(&x);
        let weak = Rc::downgrade(&tape);
        let inner = Rc::new(std::cell::RefCell::new(None));
        let seen = Rc::clone(&inner);
        let y = tape.record(|| {
            let earlier = x.sin();
            let x_seen = x.clone();
            custom_gradient("asks_its_tape", &[&x], move |inputs| {
                let out = inputs[0].square();
                let rule = move |g: &Tensor<f64>| {
                    let tape = weak.upgrade().expect("the tape is alive");
                    *seen.borrow_mut() = Some(tape.gradient(&earlier, &x_seen));
                    vec![Some(g * 4.0)]
                };
                (out, rule)
            })
        });
        // the outer gradient is unaffected: the rule's 2x·g at x = 2
        assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_scalar(), 4.0);
        let inner = inner.borrow_mut().take().expect("the rule ran");
        assert_eq!(inner.unwrap_err(), TapeError::GradientDuringSweep);
    }
}

#[test]
fn stop_gradient_blocks_only_its_branch() {
    // y = x · sg(x) + x: dy/dx = sg(x) + 1 = 4 at x = 3
    let x = Tensor::scalar(3.0_f32);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let (y, z) = tape.record(|| {
        let frozen = stop_gradient(&x);
        (&x * &frozen + &x, frozen.square())
    });
    assert_eq!(y.to_scalar(), 12.0);
    assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_scalar(), 4.0);
    assert!(tape.gradient(&z, &x).unwrap().is_none());
    let zero = gradtape::GradientOptions::new().unconnected(UnconnectedGradients::Zero);
    assert_eq!(
        tape.gradient_with(&z, &x, zero)
            .unwrap()
            .unwrap()
            .to_scalar(),
        0.0
    );
}

#[test]
fn straight_through_passes_the_cotangent_unchanged() {
    let x = Tensor::from_vec(vec![-0.6_f64, 0.4, 2.2], &[3]);
    let sign = |x: &Tensor<f64>| {
        Tensor::from_vec(x.to_vec().iter().map(|v| v.signum()).collect(), x.shape())
    };
    let tape = GradientTape::new();
    tape.watch(&x);
    // y = Σ 3·sign(x): forward uses the sign, backward the identity, so dy/dx = 3
    let y = tape.record(|| (straight_through(&x, sign) * 3.0).sum());
    assert_eq!(y.to_scalar(), 3.0);
    assert_eq!(
        tape.gradient(&y, &x).unwrap().unwrap().to_vec(),
        vec![3.0; 3]
    );
}

#[test]
#[should_panic(
    expected = "straight_through: the forward function changed the shape from [2] to []"
)]
fn straight_through_refuses_a_shape_change() {
    let x = Tensor::from_vec(vec![1.0_f32, 2.0], &[2]);
    straight_through(&x, |x| x.sum());
}
