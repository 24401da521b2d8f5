//! Gradient descent as GradBench's reference implementations of `particle` and `saddle`
//! run it (the Haskell tool's `GradBench.GD`, after Pearlmutter and Siskind): a step of
//! `η` against the gradient is taken when it lowers the cost, and `η` doubles after ten
//! accepted steps in a row and halves on a rejected one; the search stops when the gradient
//! or the step is shorter than `10⁻⁵`.
//!
//! It works on tensors so that a tape can record it: `particle` and `saddle` differentiate
//! *through* an inner descent (nested AD). Every branch reads values only; the point it
//! returns depends on its inputs through the steps `x − η g(x)`.

use gradtape::Tensor;

use crate::{Evaluation, Failure};

/// The tolerance on the gradient's and the step's length.
const TOLERANCE: f64 = 1e-5;

/// A point minimising `cost` from `start`, `gradient` being `cost`'s gradient. The start is
/// a constant: the point found does not depend on it on any tape.
///
/// ```
/// use gradtape::Tensor;
/// use gradtape_gradbench::evals::descent::argmin;
/// // (x − 3)², whose gradient is 2(x − 3)
/// let start = Tensor::from_vec(vec![0.0_f64], &[1]);
/// let x = argmin(|x| (x - 3.0).square().sum(), |x| (x - 3.0) * 2.0, &start);
/// assert!((x.to_vec()[0] - 3.0).abs() < 1e-4);
/// ```
pub fn argmin(
    cost: impl Fn(&Tensor<f64>) -> Tensor<f64>,
    gradient: impl Fn(&Tensor<f64>) -> Tensor<f64>,
    start: &Tensor<f64>,
) -> Tensor<f64> {
    // A new tensor, not a clone of `start`: clones share an identity on tapes, so a tape
    // watching the point found (the outer search watches its points) would also watch every
    // other use of `start` (the inner search starts there too) as the same source.
    let mut x = Tensor::from_vec(start.to_vec(), start.shape());
    let mut cost_x = cost(&x).to_scalar();
    let mut gradient_x = gradient(&x);
    let mut eta = 1e-5;
    let mut accepted = 0;
    loop {
        if length(&gradient_x) <= TOLERANCE {
            return x;
        }
        if accepted == 10 {
            eta *= 2.0;
            accepted = 0;
            continue;
        }
        let next = &x - &gradient_x * eta;
        if length(&(&x - &next)) <= TOLERANCE {
            return x;
        }
        let cost_next = cost(&next).to_scalar();
        if cost_next < cost_x {
            x = next;
            cost_x = cost_next;
            gradient_x = gradient(&x);
            accepted += 1;
        } else {
            eta /= 2.0;
            accepted = 0;
        }
    }
}

/// A point maximising `cost` from `start`: [`argmin`] of `−cost`.
///
/// ```
/// use gradtape::Tensor;
/// use gradtape_gradbench::evals::descent::argmax;
/// // 1 − x², whose gradient is −2x
/// let start = Tensor::from_vec(vec![1.0_f64], &[1]);
/// let x = argmax(|x| 1.0 - x.square().sum(), |x| x * -2.0, &start);
/// assert!(x.to_vec()[0].abs() < 1e-4);
/// ```
pub fn argmax(
    cost: impl Fn(&Tensor<f64>) -> Tensor<f64>,
    gradient: impl Fn(&Tensor<f64>) -> Tensor<f64>,
    start: &Tensor<f64>,
) -> Tensor<f64> {
    argmin(|x| -cost(x), |x| -gradient(x), start)
}

/// The Euclidean length of a value (read, not recorded: it only steers the search).
fn length(x: &Tensor<f64>) -> f64 {
    x.to_vec().iter().map(|v| v * v).sum::<f64>().sqrt()
}

/// The answer of `particle` or `saddle` to one of its four variants: `rr` (reverse over
/// reverse) runs; `ff`, `fr` and `rf` need forward mode, which gradtape does not have yet,
/// and answer [`Failure::Unsupported`], never a value computed some other way.
///
/// ```
/// use gradtape_gradbench::evals::descent::nested_variants;
/// use gradtape_gradbench::Runs;
/// let runs = Runs { min_runs: 1, min_seconds: 0.0 };
/// assert!(nested_variants("saddle", "rr", || runs.evaluate(|| 1.0)).is_ok());
/// let error = nested_variants("saddle", "fr", || runs.evaluate(|| 1.0)).unwrap_err();
/// assert!(error.to_string().contains("forward-mode"));
/// ```
pub fn nested_variants(
    module: &'static str,
    function: &str,
    reverse_over_reverse: impl FnOnce() -> Evaluation,
) -> Result<Evaluation, Failure> {
    match function {
        "rr" => Ok(reverse_over_reverse()),
        "ff" | "fr" | "rf" => Err(Failure::Unsupported {
            module,
            function: function.to_owned(),
            reason: "the variants with an `f` need forward-mode AD (a ForwardAccumulator), \
                     which gradtape does not have yet; `rr` is answered",
        }),
        _ => Err(Failure::UnknownFunction {
            module,
            function: function.to_owned(),
            known: "`rr`, `ff`, `fr` and `rf`",
        }),
    }
}
