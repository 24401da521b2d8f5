//! `recompute_grad` / `checkpoint`: the same derivatives as the function itself, at every
//! order and in forward mode, with its intermediates recomputed rather than kept.

use std::cell::Cell;
use std::rc::Rc;

use gradtape::{
    ForwardAccumulator, GradientTape, Tensor, Variable, checkpoint, recompute_grad,
    transforms::{JacobianMode, grad, hessian, hvp, jacobian},
};

fn block(x: &[Tensor<f64>]) -> Tensor<f64> {
    let z = &x[0] * &x[1] + x[0].sin();
    (z.tanh() * &z).sum()
}

fn assert_close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= 1e-12 * (1.0 + w.abs()),
            "{got:?} vs {want:?}"
        );
    }
}

fn inputs() -> (Tensor<f64>, Tensor<f64>) {
    (
        Tensor::from_vec(vec![0.3, -1.1, 0.8], &[3]),
        Tensor::from_vec(vec![1.5, 0.2, -0.7], &[3]),
    )
}

#[test]
fn value_and_gradients_are_the_functions_own() {
    let (x, w) = inputs();
    let runs = Rc::new(Cell::new(0));
    let counted = {
        let runs = Rc::clone(&runs);
        recompute_grad(move |x: &[Tensor<f64>]| {
            runs.set(runs.get() + 1);
            block(x)
        })
    };
    let tape = GradientTape::new();
    tape.watch(&x);
    tape.watch(&w);
    let y = tape.record(|| counted(&[&x, &w]));
    // one node: the block's ops are not on the tape
    assert_eq!(tape.recorded_ops(), vec!["recompute_grad"]);
    assert_eq!(y.to_scalar(), block(&[x.clone(), w.clone()]).to_scalar());
    let before = runs.get();
    let (gx, gw) = tape.gradient(&y, (&x, &w)).unwrap();
    // the backward sweep ran the block once more
    assert_eq!(runs.get(), before + 1);

    let reference = GradientTape::new();
    reference.watch(&x);
    reference.watch(&w);
    let y_ref = reference.record(|| block(&[x.clone(), w.clone()]));
    let (rx, rw) = reference.gradient(&y_ref, (&x, &w)).unwrap();
    assert_close(&gx.unwrap().to_vec(), &rx.unwrap().to_vec());
    assert_close(&gw.unwrap().to_vec(), &rw.unwrap().to_vec());
}

#[test]
fn second_order_and_forward_mode_are_exact() {
    let (x, w) = inputs();
    let plain = |x: &Tensor<f64>| block(&[x.clone(), Tensor::from_vec(vec![1.5, 0.2, -0.7], &[3])]);
    let checked = |x: &Tensor<f64>| {
        let w = Tensor::from_vec(vec![1.5, 0.2, -0.7], &[3]);
        checkpoint(block, &[x, &w])
    };
    assert_close(&hessian(checked, &x).to_vec(), &hessian(plain, &x).to_vec());
    let v = Tensor::from_vec(vec![1.0, -2.0, 0.5], &[3]);
    assert_close(&hvp(checked, &x, &v).to_vec(), &hvp(plain, &x, &v).to_vec());
    assert_close(
        &jacobian(|x| grad(checked, x), &x, JacobianMode::Forward).to_vec(),
        &hessian(plain, &x).to_vec(),
    );
    // a forward accumulator alone (no tape)
    let acc = ForwardAccumulator::new((&x, &w), (&v, &v)).unwrap();
    let y = acc.record(|| checkpoint(block, &[&x, &w]));
    let acc_ref = ForwardAccumulator::new((&x, &w), (&v, &v)).unwrap();
    let y_ref = acc_ref.record(|| block(&[x.clone(), w.clone()]));
    assert_close(
        &acc.jvp(&y).unwrap().to_vec(),
        &acc_ref.jvp(&y_ref).unwrap().to_vec(),
    );
}

#[test]
fn variables_read_inside_get_their_gradients() {
    let w = Variable::with_name("w", Tensor::from_vec(vec![1.5, 0.2, -0.7], &[3]));
    let frozen = Variable::with_name("frozen", 2.0_f64).trainable(false);
    let (x, _) = inputs();
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| {
        let (w, frozen) = (w.clone(), frozen.clone());
        checkpoint(
            move |x: &[Tensor<f64>]| block(&[x[0].clone(), w.value()]) * frozen.value(),
            &[&x],
        )
    });
    let (gx, gw) = tape.gradient(&y, (&x, &w)).unwrap();

    let reference = GradientTape::new();
    reference.watch(&x);
    let y_ref = reference.record(|| block(&[x.clone(), w.value()]) * frozen.value());
    let (rx, rw) = reference.gradient(&y_ref, (&x, &w)).unwrap();
    assert_close(&gx.unwrap().to_vec(), &rx.unwrap().to_vec());
    assert_close(&gw.unwrap().to_vec(), &rw.unwrap().to_vec());
    // only trainable variables are watched, as everywhere
    let names: Vec<String> = tape
        .watched_variables()
        .iter()
        .map(|v| v.name().to_string())
        .collect();
    assert_eq!(names, ["w"]);
}

#[test]
fn checkpoints_nest_and_chain() {
    // ten checkpointed layers, each of two nested checkpoints
    let layer = |x: &[Tensor<f64>]| {
        let half = |x: &[Tensor<f64>]| (&x[0] * 0.9).sin() + &x[0];
        let h = checkpoint(half, &[&x[0]]);
        checkpoint(half, &[&h])
    };
    let deep = |x: &Tensor<f64>, checked: bool| {
        let mut h = x.clone();
        for _ in 0..10 {
            h = if checked {
                checkpoint(layer, &[&h])
            } else {
                layer(std::slice::from_ref(&h))
            };
        }
        h.square().sum()
    };
    let x = Tensor::from_vec(vec![0.1, -0.4], &[2]);
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| deep(&x, true));
    assert_eq!(
        tape.recorded_ops().len(),
        10 + 2,
        "{:?}",
        tape.recorded_ops()
    );
    let g = tape.gradient(&y, &x).unwrap().unwrap();
    assert_close(&g.to_vec(), &grad(|x| deep(x, false), &x).to_vec());
    assert_close(
        &hessian(|x| deep(x, true), &x).to_vec(),
        &hessian(|x| deep(x, false), &x).to_vec(),
    );
}

#[test]
fn with_nothing_recording_it_is_the_function() {
    let (x, w) = inputs();
    let y = checkpoint(block, &[&x, &w]);
    assert_eq!(y.to_scalar(), block(&[x, w]).to_scalar());
}

/// `checkpointed_loop` at 1, 2 and 3 levels: the plain loop's value and derivatives
/// (first and second order, and forward mode), with fewer nodes on the tape.
#[test]
fn checkpointed_loops_are_the_plain_loop() {
    use gradtape::checkpointed_loop;
    let step = |x: &Tensor<f64>, p: &[Tensor<f64>]| {
        let rolled = Tensor::concat(&[&x.slice(0, 2, 1), &x.slice(0, 0, 2)], 0);
        x + ((&p[0] * rolled).tanh() - x) * 0.05
    };
    let x0 = Tensor::from_vec(vec![0.3, -0.2, 0.9], &[3]);
    let w = Tensor::from_vec(vec![1.2, -0.7, 0.4], &[3]);
    let steps = 1000;
    let plain = |w: &Tensor<f64>| {
        (0..steps)
            .fold(x0.clone(), |x, _| step(&x, std::slice::from_ref(w)))
            .square()
            .sum()
    };
    let reference = grad(plain, &w);
    let reference_hessian = hessian(plain, &w);
    for (levels, nodes) in [(1, None), (2, Some(32)), (3, Some(10))] {
        let looped = |w: &Tensor<f64>| {
            checkpointed_loop(&x0, &[w], steps, levels, step)
                .square()
                .sum()
        };
        let tape = GradientTape::new();
        tape.watch(&w);
        let y = tape.record(|| looped(&w));
        assert_eq!(y.to_scalar(), plain(&w).to_scalar(), "levels {levels}");
        if let Some(nodes) = nodes {
            // the segments at the top level, then the square and the sum
            assert_eq!(tape.recorded_ops().len(), nodes + 2, "levels {levels}");
        }
        let g = tape.gradient(&y, &w).unwrap().unwrap();
        assert_close(&g.to_vec(), &reference.to_vec());
        assert_close(&hessian(looped, &w).to_vec(), &reference_hessian.to_vec());
        let v = Tensor::from_vec(vec![1.0, 0.5, -1.0], &[3]);
        assert_close(&hvp(looped, &w, &v).to_vec(), &hvp(plain, &w, &v).to_vec());
    }
}

#[test]
#[should_panic(expected = "levels must be at least 1")]
fn a_loop_of_zero_levels_panics() {
    let x = Tensor::scalar(1.0_f64);
    gradtape::checkpointed_loop(&x, &[], 3, 0, |x, _| x.sin());
}

/// Regression: a tensor given at two positions of `checkpoint` (`&[&x, &x]`) got twice its
/// gradient (the recomputation's tape gave the total at both positions, and the node added
/// both).
#[test]
fn a_tensor_at_two_checkpoint_positions_is_credited_once() {
    let x = Tensor::from_vec(vec![0.4_f64, -1.1, 0.7], &[3]);
    let block = |t: &[Tensor<f64>]| (&t[0] * &t[1].sin()).sum();
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| checkpoint(block, &[&x, &x]));
    let g = tape.gradient(&y, &x).unwrap().unwrap();
    // d/dx Σ x sin x = sin x + x cos x
    for (got, x) in g.to_vec().iter().zip(x.to_vec()) {
        let want = x.sin() + x * x.cos();
        assert!((got - want).abs() < 1e-14, "{got} vs {want}");
    }
}
