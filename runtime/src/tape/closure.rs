//! Nodes whose backward rule is a closure: custom gradients and `#[differentiable]`'s fused
//! calls. The closure is boxed (it may capture state), unlike a built-in op's static rule.

use std::rc::Rc;

use smallvec::SmallVec;

use crate::base::dtype::{AnyTensor, Float};
use crate::base::tensor::{Tensor, TensorId};
use crate::record::forward::{Jvp, Tangents};
use crate::record::node::{Backward, InputGrads, Params, Rule, RuleCtx};
use crate::record::stack::{self, NodeSpec};
use crate::tape::forward::jvp_by_transposition;
/// A backward rule given as a closure: `rule(g, needs)` returns one cotangent per input
/// (`None` for inputs with `needs[i] == false`, or that get no gradient).
pub(crate) struct ClosureRule<F> {
    pub(crate) rule: F,
    /// Whether `rule` is right for a cotangent with leading batch axes (see
    /// [`record_fused`](crate::generated::record_fused)).
    pub(crate) batch_safe: bool,
}

impl<F: Fn(&AnyTensor, &[bool]) -> Vec<Option<AnyTensor>>> Backward for ClosureRule<F> {
    fn batch_safe(&self) -> bool {
        self.batch_safe
    }

    fn backward(&self, ctx: &RuleCtx<'_>, g: &AnyTensor) -> InputGrads {
        // `Node::run_rule` checks the count, for every kind of rule, naming the op.
        SmallVec::from_vec((self.rule)(g, ctx.needs))
    }
}

/// Records `value` as the output of an op named `op` with `inputs`, whose backward rule is
/// `rule(g, needs) -> one Option<AnyTensor> per input`. The rule is boxed only if some tape
/// records the op. The rule must be written in recordable ops for higher-order derivatives.
///
/// ```
/// use gradtape_runtime::{AnyTensor, GradientTape, Tensor, generated};
/// let x = Tensor::scalar(3.0_f64);
/// let tape = GradientTape::new();
/// tape.watch(&x);
/// let y = tape.record(|| {
///     let value = generated::without_recording(|| x.square());
///     // d/dx x² = 2x, as a closure rule
///     let saved = x.clone();
///     generated::record_closure("square", value, &[AnyTensor::from(x.clone())], move |g, _needs| {
///         let AnyTensor::F64(g) = g else { unreachable!() };
///         vec![Some(AnyTensor::from(g * &saved * 2.0))]
///     })
/// });
/// assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_scalar(), 6.0);
/// ```
#[track_caller]
pub fn record_closure<T: Float, F>(
    op: &'static str,
    value: Tensor<T>,
    inputs: &[AnyTensor],
    rule: F,
) -> Tensor<T>
where
    F: Fn(&AnyTensor, &[bool]) -> Vec<Option<AnyTensor>> + 'static,
{
    record_boxed(
        op,
        value,
        inputs,
        ClosureRule {
            rule,
            batch_safe: false,
        },
    )
}

#[track_caller]
pub(crate) fn record_boxed<T: Float, F>(
    op: &'static str,
    value: Tensor<T>,
    inputs: &[AnyTensor],
    rule: ClosureRule<F>,
) -> Tensor<T>
where
    F: Fn(&AnyTensor, &[bool]) -> Vec<Option<AnyTensor>> + 'static,
{
    record_boxed_with_jvp(op, value, inputs, rule, None)
}

/// [`record_boxed`] with the op's own JVP rule, if it has one (`#[differentiable]`'s
/// generated tangent code): `jvp(tangents, out)` gives the output's tangent from the
/// inputs' tangents. Without one, the JVP is the pullback's transpose.
#[track_caller]
pub(crate) fn record_boxed_with_jvp<T: Float, F>(
    op: &'static str,
    value: Tensor<T>,
    inputs: &[AnyTensor],
    rule: ClosureRule<F>,
    jvp: Option<&Jvp<'_, T>>,
) -> Tensor<T>
where
    F: Fn(&AnyTensor, &[bool]) -> Vec<Option<AnyTensor>> + 'static,
{
    if !stack::any_recording() {
        return value;
    }
    let ids: SmallVec<[TensorId; 4]> = inputs.iter().map(AnyTensor::id).collect();
    let rule: Rc<dyn Backward> = Rc::new(rule);
    let spec = |_: &Tensor<T>| NodeSpec {
        op,
        rule: Rule::Boxed(Rc::clone(&rule)),
        saved: SmallVec::new(),
        params: Params::None,
    };
    match jvp {
        Some(jvp) => stack::record(value.into_data(), &ids, spec, jvp),
        None => {
            // A closure rule is a pullback and nothing else: its JVP is its transpose.
            let transposed =
                |t: &Tangents<'_>, out: &Tensor<T>| Some(jvp_by_transposition(&*rule, t, out));
            stack::record(value.into_data(), &ids, spec, &transposed)
        }
    }
}
