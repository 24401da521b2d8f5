//! Sub-tape traces: generated code runs an op with no elementwise rule (a product, a
//! reduction, a call) on a tape of its own and takes the runtime's gradient from it.

use std::rc::Rc;

use crate::base::dtype::{AnyTensor, Float};
use crate::base::tensor::Tensor;
use crate::tape::closure::record_closure;
use crate::tape::{GradientOptions, GradientTape, Sources};
/// The tensors one call in `#[differentiable]` code depends on, which a [`Trace`] watches:
/// a tuple of float tensors.
pub trait TraceInputs: Sources {
    /// Starts tracking every input on `tape`.
    fn watch_on(&self, tape: &GradientTape);
    /// Keeps each tensor's gradient at its first position only: a tensor passed at two
    /// positions (`f(&x, &x)`) has one id on the sub-tape, whose gradient is the total
    /// over both uses (TensorFlow's rule for a source listed twice). The generated adjoint
    /// adds each position's cotangent to that position's binding, and bindings holding the
    /// same tensor hold the same value, whose cotangents meet again upstream: the total
    /// must be counted once.
    fn credit_once(&self, grads: &mut Self::Output);
    /// The inputs in order, as the inputs of a recorded node.
    fn any_tensors(&self) -> Vec<AnyTensor>;
    /// A gradient of the inputs in order, as a recorded node's rule returns it.
    fn entries(grads: Self::Output) -> Vec<Option<AnyTensor>>;
}

macro_rules! trace_inputs {
    ($($name:ident),+) => {
        impl<$($name: Float),+> TraceInputs for ($(Tensor<$name>,)+) {
            #[allow(non_snake_case)]
            fn watch_on(&self, tape: &GradientTape) {
                let ($($name,)+) = self;
                $(tape.watch($name);)+
            }
            #[allow(non_snake_case)]
            fn credit_once(&self, grads: &mut Self::Output) {
                let ($($name,)+) = self;
                let ids = [$($name.id()),+];
                let ($($name,)+) = grads;
                let mut position = 0;
                $(
                    if ids[..position].contains(&ids[position]) {
                        *$name = None;
                    }
                    position += 1;
                )+
                let _ = position;
            }
            #[allow(non_snake_case)]
            fn any_tensors(&self) -> Vec<AnyTensor> {
                let ($($name,)+) = self;
                vec![$(AnyTensor::from($name.clone())),+]
            }
            #[allow(non_snake_case)]
            fn entries(grads: Self::Output) -> Vec<Option<AnyTensor>> {
                let ($($name,)+) = grads;
                vec![$($name.map(AnyTensor::from)),+]
            }
        }
    };
}

crate::tape::for_each_tuple!(trace_inputs);

/// One call that `#[differentiable]` code differentiates dynamically (a tensor op with no
/// elementwise rule, such as `matmul` or `sum_axis`, or a call to another function built
/// from gradtape ops): recorded on a tape of its own, so its gradient comes from the
/// runtime's own rules.
///
/// ```
/// use gradtape_runtime::{Tensor, generated};
/// let x = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
/// let (total, trace) = generated::trace((x.clone(),), || x.square().sum());
/// assert_eq!(total.to_scalar(), 5.0);
/// // d/dx Σ x² = 2x, scaled by the incoming cotangent 0.5
/// let (dx,) = trace.vjp(&Tensor::scalar(0.5));
/// assert_eq!(dx.unwrap().to_vec(), vec![1.0, 2.0]);
/// ```
pub struct Trace<I, U: Float> {
    tape: GradientTape,
    inputs: I,
    output: Tensor<U>,
}

/// Runs `f`, which computes from `inputs`, on a persistent tape of its own.
///
/// ```
/// use gradtape_runtime::{Tensor, generated};
/// let x = Tensor::scalar(2.0_f32);
/// let (y, _trace) = generated::trace((x.clone(),), || x.exp());
/// assert_eq!(y.to_scalar(), 2.0_f32.exp());
/// ```
pub fn trace<I: TraceInputs, U: Float>(
    inputs: I,
    f: impl FnOnce() -> Tensor<U>,
) -> (Tensor<U>, Trace<I, U>) {
    let tape = GradientTape::persistent();
    inputs.watch_on(&tape);
    let output = tape.record(f);
    let trace = Trace {
        tape,
        inputs,
        output: output.clone(),
    };
    (output, trace)
}

impl<I: TraceInputs, U: Float> Trace<I, U> {
    /// The cotangents of the inputs given the output's cotangent `g`. Run while another tape
    /// records, the computation is recorded there (the rules are recordable ops).
    ///
    /// ```
    /// use gradtape_runtime::{Tensor, generated};
    /// let (a, b) = (Tensor::scalar(2.0_f32), Tensor::scalar(5.0_f32));
    /// let (_, trace) = generated::trace((a.clone(), b.clone()), || &a * &b);
    /// let (da, db) = trace.vjp(&Tensor::scalar(1.0));
    /// assert_eq!((da.unwrap().to_scalar(), db.unwrap().to_scalar()), (5.0, 2.0));
    ///
    /// // one tensor at two positions: its total gradient, once
    /// let (_, trace) = generated::trace((a.clone(), a.clone()), || &a * &a);
    /// let (first, second) = trace.vjp(&Tensor::scalar(1.0));
    /// assert_eq!(first.unwrap().to_scalar(), 4.0);
    /// assert!(second.is_none());
    /// ```
    pub fn vjp(&self, g: &Tensor<U>) -> I::Output {
        let options = GradientOptions::new().output_gradients(g.clone());
        let mut grads = self
            .tape
            .gradient_with(&self.output, &self.inputs, options)
            .expect("a trace's tape is persistent and not recording");
        self.inputs.credit_once(&mut grads);
        grads
    }
}

/// One run of a call with several tensor results (a tuple: a plain helper's `let (a, b) =
/// split(&x)`, or a body run on the tape whose function returns a tuple) on a persistent
/// tape of its own, whose results are then taken one at a time ([`TracedParts::part`]).
/// The call runs once however many results it has: a body drawing random numbers, or
/// costly, would otherwise give parts of different runs, or cost a run per part.
///
/// ```
/// use gradtape_runtime::{Tensor, generated};
/// let x = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
/// let parts = generated::trace_parts((x.clone(),), || (x.square(), x.sin().sum()));
/// let (square, _trace) = generated::trace((x.clone(),), || parts.part(|p| &p.0));
/// assert_eq!(square.to_vec(), vec![1.0, 4.0]);
/// let (sum, trace) = generated::trace((x.clone(),), || parts.part(|p| &p.1));
/// assert_eq!(sum.to_scalar(), 1.0_f64.sin() + 2.0_f64.sin());
/// // d/dx Σ sin x = cos x, from the one run's tape
/// let (dx,) = trace.vjp(&Tensor::scalar(1.0));
/// assert_eq!(dx.unwrap().to_vec(), vec![1.0_f64.cos(), 2.0_f64.cos()]);
/// ```
pub struct TracedParts<I, O> {
    run: Rc<PartsRun<I, O>>,
}

/// What [`TracedParts`] shares with the nodes of its parts.
struct PartsRun<I, O> {
    tape: GradientTape,
    inputs: I,
    outputs: O,
}

impl<I, O> Clone for TracedParts<I, O> {
    fn clone(&self) -> Self {
        TracedParts {
            run: Rc::clone(&self.run),
        }
    }
}

/// Runs `f`, which computes several results (a tuple of tensors) from `inputs`, once, on
/// a persistent tape of its own.
pub fn trace_parts<I: TraceInputs, O>(inputs: I, f: impl FnOnce() -> O) -> TracedParts<I, O> {
    let tape = GradientTape::persistent();
    inputs.watch_on(&tape);
    let outputs = tape.record(f);
    TracedParts {
        run: Rc::new(PartsRun {
            tape,
            inputs,
            outputs,
        }),
    }
}

impl<I: TraceInputs + 'static, O: 'static> TracedParts<I, O> {
    /// The result `pick` takes out of the run's results, recorded (on whatever tapes and
    /// accumulators record here, such as a [`trace`]'s) as a node of the run's inputs
    /// whose rule is the run's own tape's gradient of that result: so the run's tape
    /// gives each part's gradient, and its JVP is that rule's transpose. The rule is
    /// written in recordable ops, so a tape recording it sees the second order.
    pub fn part<U: Float>(&self, pick: fn(&O) -> &Tensor<U>) -> Tensor<U> {
        let value = pick(&self.run.outputs).clone();
        let run = Rc::clone(&self.run);
        let inputs = self.run.inputs.any_tensors();
        record_closure("traced_part", value, &inputs, move |g, _needs| {
            let g = U::from_any(g).expect("a part's cotangent has its dtype");
            let options = GradientOptions::new().output_gradients(g.clone());
            let mut grads = run
                .tape
                .gradient_with(pick(&run.outputs), &run.inputs, options)
                .expect("a run's tape is persistent and not recording");
            // each input's total once: the node adds what each of its positions gets
            run.inputs.credit_once(&mut grads);
            I::entries(grads)
        })
    }
}
