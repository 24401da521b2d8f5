//! The recording floor: the thread-local stack of active tapes and how an op gets onto them
//! (`stack`), what one tape holds (`state`), what is stored per recorded op and how a rule
//! is called (`node`), nodes whose rule is a closure (`closure`), and variables, whose
//! reads the tapes track (`variable`). Forward mode's side: the stack of accumulators
//! (`forward`) and each one's tangents by tensor id (`tangent_table`).

pub(crate) mod forward;
pub(crate) mod node;
pub(crate) mod numerics;
pub(crate) mod stack;
pub(crate) mod state;
pub(crate) mod tangent_table;
pub(crate) mod variable;

/// Whether any tape on this thread is recording now. Generated code runs the plain body
/// when nothing records, and recomputes intermediates with recordable ops when its adjoint
/// runs under an outer tape (so that higher-order derivatives stay connected).
///
/// ```
/// use gradtape_runtime::{GradientTape, any_recording};
/// assert!(!any_recording());
/// GradientTape::new().record(|| assert!(any_recording()));
/// ```
#[inline]
pub fn any_recording() -> bool {
    stack::any_recording()
}

/// Runs `f` with every tape on this thread paused: nothing in it is recorded.
///
/// ```
/// use gradtape_runtime::{GradientTape, Variable, without_recording};
/// let x = Variable::new(2.0_f32);
/// let tape = GradientTape::new();
/// let y = tape.record(|| without_recording(|| x.square()));
/// assert!(tape.gradient(&y, &x).unwrap().is_none());
/// ```
pub fn without_recording<R>(f: impl FnOnce() -> R) -> R {
    // Tapes active now stay suspended even when `f` opens a tape of its own, as the traces
    // of `#[differentiable]` code do; that tape records as usual.
    stack::without_any(f)
}
