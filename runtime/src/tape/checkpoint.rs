//! Gradient checkpointing: [`recompute_grad`] (TensorFlow's `tf.recompute_grad`) and
//! [`checkpoint`] (PyTorch's `torch.utils.checkpoint`): a function whose intermediate values
//! are not kept by any tape, and are recomputed from its inputs when a gradient needs them.
//! A tape then keeps only the function's inputs, trading one more forward pass for the
//! memory of everything in between.

use std::rc::Rc;

use super::closure::record_closure;
use super::{GradientOptions, GradientTape};
use crate::base::dtype::{AnyTensor, Float};
use crate::base::tensor::Tensor;
use crate::record::variable::AnyVariable;
use crate::record::{any_recording, without_recording};

/// `f` as a function whose intermediates no tape keeps: TensorFlow's `tf.recompute_grad`.
/// Calling the result gives `f`'s value; a gradient through it recomputes `f` from the
/// inputs (on a tape of its own) and differentiates that. Gradients, higher-order
/// derivatives and forward-mode derivatives are the same as through `f` itself; trainable
/// variables `f` reads get their gradients too.
///
/// ```
/// use gradtape_runtime::{GradientTape, Tensor, recompute_grad};
/// // a block of a deep network: its tanh and product are not kept by the tape
/// let block = recompute_grad(|x: &[Tensor<f64>]| (&x[0] * &x[1]).tanh());
/// let (x, w) = (Tensor::scalar(0.5_f64), Tensor::scalar(2.0_f64));
/// let tape = GradientTape::new();
/// tape.watch(&x);
/// let y = tape.record(|| block(&[&x, &w]));
/// assert_eq!(tape.recorded_ops(), vec!["recompute_grad"]);
/// let dy = tape.gradient(&y, &x).unwrap().unwrap().to_scalar();
/// assert!((dy - 2.0 * (1.0 - 1.0_f64.tanh().powi(2))).abs() < 1e-15);
/// ```
pub fn recompute_grad<T, F>(f: F) -> impl Fn(&[&Tensor<T>]) -> Tensor<T>
where
    T: Float,
    F: Fn(&[Tensor<T>]) -> Tensor<T> + 'static,
{
    let f = Rc::new(f);
    move |inputs: &[&Tensor<T>]| {
        let f = Rc::clone(&f);
        checkpoint_named("recompute_grad", move |x: &[Tensor<T>]| f(x), inputs)
    }
}

/// `f(inputs)`, with `f`'s intermediates recomputed during the backward sweep rather than
/// kept: PyTorch's `torch.utils.checkpoint.checkpoint(f, *inputs)`. See [`recompute_grad`].
///
/// ```
/// use gradtape_runtime::{GradientTape, Tensor, Variable, checkpoint};
/// let w = Variable::new(Tensor::from_vec(vec![1.0_f64, -1.0], &[2]));
/// let x = Tensor::from_vec(vec![3.0_f64, 4.0], &[2]);
/// let tape = GradientTape::new();
/// let y = tape.record(|| {
///     let w = w.clone();
///     checkpoint(move |x: &[Tensor<f64>]| (&x[0] * &w).sin().sum(), &[&x])
/// });
/// // the variable read inside the checkpointed function gets its gradient
/// let dw = tape.gradient(&y, &w).unwrap().unwrap();
/// let want = [3.0 * 3.0_f64.cos(), 4.0 * (-4.0_f64).cos()];
/// for (got, want) in dw.to_vec().iter().zip(want) {
///     assert!((got - want).abs() < 1e-15);
/// }
/// ```
#[track_caller]
pub fn checkpoint<T, F>(f: F, inputs: &[&Tensor<T>]) -> Tensor<T>
where
    T: Float,
    F: Fn(&[Tensor<T>]) -> Tensor<T> + 'static,
{
    checkpoint_named("checkpoint", f, inputs)
}

#[track_caller]
fn checkpoint_named<T, F>(op: &'static str, f: F, inputs: &[&Tensor<T>]) -> Tensor<T>
where
    T: Float,
    F: Fn(&[Tensor<T>]) -> Tensor<T> + 'static,
{
    let owned: Vec<Tensor<T>> = inputs.iter().map(|&t| t.clone()).collect();
    if !any_recording() {
        return f(&owned);
    }
    // The forward, seen by no tape or accumulator active now. A probe tape notes which
    // trainable variables `f` reads (it records only what depends on them, and is dropped
    // here, with its records).
    let (value, variables) = without_recording(|| {
        let probe = GradientTape::new();
        let value = probe.record(|| f(&owned));
        (value, probe.watched_variables())
    });
    // The node's inputs: the tensors, then one read of each variable, made now so that
    // the active tapes track it as a leaf of its variable (as any read in their scope).
    let mut node_inputs: Vec<AnyTensor> = owned.iter().cloned().map(T::into_any).collect();
    node_inputs.extend(variables.iter().map(read));
    let rule = move |g: &AnyTensor, _needs: &[bool]| {
        // Recomputed on a tape of its own; an outer tape recording this sweep records the
        // recomputation too (higher order), from the same input tensors.
        let tape = GradientTape::new();
        for x in &owned {
            tape.watch(x);
        }
        let y = tape.record(|| f(&owned));
        let seed = GradientOptions::new().output_gradients([g.clone()]);
        let (inputs, variables) = tape
            .gradient_with(&y, (&owned[..], &variables[..]), seed)
            .expect("a fresh tape computes one gradient");
        // A tensor at two positions has one id here, and its gradient (the total over its
        // uses) comes back at both; the node adds each position's into the same tensor, so
        // it is kept at the first only.
        inputs
            .into_iter()
            .enumerate()
            .map(|(k, g)| {
                let repeated = owned[..k].iter().any(|t| t.id() == owned[k].id());
                if repeated { None } else { g.map(T::into_any) }
            })
            .chain(variables)
            .collect()
    };
    record_closure(op, value, &node_inputs, rule)
}

/// A read of `var`, as its own dtype.
fn read(var: &AnyVariable) -> AnyTensor {
    match var {
        AnyVariable::F32(v) => AnyTensor::F32(v.value()),
        AnyVariable::F64(v) => AnyTensor::F64(v.value()),
    }
}

/// `steps` applications of `step` to `state` (`state ← step(state, params)`), with a
/// tape keeping only a few states: the loop is cut into segments, each a [`checkpoint`],
/// nested `levels` deep (each level recomputes its segments when the gradient needs them).
/// Memory for the gradient of `N` steps falls from `N` steps' records to about
/// `levels · N^(1/levels)` states plus one innermost segment's records, for `levels - 1`
/// more forward passes: with 2 levels (the square-root schedule) a million steps keep
/// about 2,000 states and one segment of a thousand steps on a tape at a time.
///
/// The result and its derivatives (any order, forward mode too) are those of the plain
/// loop. Trainable variables `step` reads get their gradients, as through [`checkpoint`].
///
/// ```
/// use gradtape_runtime::{GradientTape, Tensor, checkpointed_loop};
/// // x ← x + 0.01 · sin(w x), 10,000 times
/// let step = |x: &Tensor<f64>, p: &[Tensor<f64>]| x + (&p[0] * x).sin() * 0.01;
/// let (x0, w) = (Tensor::scalar(0.5_f64), Tensor::scalar(1.5_f64));
/// let tape = GradientTape::new();
/// tape.watch(&w);
/// let y = tape.record(|| checkpointed_loop(&x0, &[&w], 10_000, 2, step));
/// assert_eq!(tape.recorded_ops().len(), 100); // one node per segment of 100 steps
/// let plain = GradientTape::new();
/// plain.watch(&w);
/// let y_plain = plain.record(|| (0..10_000).fold(x0.clone(), |x, _| step(&x, &[w.clone()])));
/// assert_eq!(y.to_scalar(), y_plain.to_scalar());
/// let (g, g_plain) = (tape.gradient(&y, &w), plain.gradient(&y_plain, &w));
/// let (g, g_plain) = (g.unwrap().unwrap().to_scalar(), g_plain.unwrap().unwrap().to_scalar());
/// assert!((g - g_plain).abs() < 1e-12 * g_plain.abs());
/// ```
///
/// # Panics
/// If `levels` is 0.
#[track_caller]
pub fn checkpointed_loop<T, F>(
    state: &Tensor<T>,
    params: &[&Tensor<T>],
    steps: usize,
    levels: u32,
    step: F,
) -> Tensor<T>
where
    T: Float,
    F: Fn(&Tensor<T>, &[Tensor<T>]) -> Tensor<T> + 'static,
{
    assert!(
        levels > 0,
        "checkpointed_loop: levels must be at least 1 (1: no checkpoints)"
    );
    let params: Vec<Tensor<T>> = params.iter().map(|&p| p.clone()).collect();
    loop_levels(state.clone(), &params, steps, levels, &Rc::new(step))
}

fn loop_levels<T, F>(
    state: Tensor<T>,
    params: &[Tensor<T>],
    steps: usize,
    levels: u32,
    step: &Rc<F>,
) -> Tensor<T>
where
    T: Float,
    F: Fn(&Tensor<T>, &[Tensor<T>]) -> Tensor<T> + 'static,
{
    if levels == 1 || steps <= 1 || !any_recording() {
        return (0..steps).fold(state, |x, _| step(&x, params));
    }
    // `segments` of `length` steps (the last one shorter): N^(1/levels) of them
    let segments = (steps as f64).powf(1.0 / f64::from(levels)).ceil() as usize;
    let length = steps.div_ceil(segments.max(1));
    let mut x = state;
    let mut done = 0;
    while done < steps {
        let n = length.min(steps - done);
        let step = Rc::clone(step);
        let segment = move |inputs: &[Tensor<T>]| {
            loop_levels(inputs[0].clone(), &inputs[1..], n, levels - 1, &step)
        };
        let mut inputs: Vec<&Tensor<T>> = vec![&x];
        inputs.extend(params);
        x = checkpoint_named("checkpointed_loop", segment, &inputs);
        done += n;
    }
    x
}
