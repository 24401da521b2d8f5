//! Gradient descent as GradBench's reference implementations of `particle` and `saddle`
//! run it (the Haskell tool's `GradBench.GD`, after Pearlmutter and Siskind): a step of
//! `η` against the gradient is taken when it lowers the cost, and `η` doubles after ten
//! accepted steps in a row and halves on a rejected one; the search stops when the gradient
//! or the step is shorter than `10⁻⁵`.
//!
//! It works on tensors so that a tape or an accumulator can record it: `particle` and `saddle` differentiate
//! *through* an inner descent (nested AD). Every branch reads values only; the point it
//! returns depends on its inputs through the steps `x − η g(x)`.

use gradtape::{ForwardAccumulator, GradientTape, Tensor};

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

/// Which mode of automatic differentiation takes a gradient: GradBench's `f` and `r`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Forward mode: one JVP (a [`ForwardAccumulator`] pass) per element of the point.
    Forward,
    /// Reverse mode: one backward sweep of a tape.
    Reverse,
}

/// The gradient of the scalar `f` at `x` by `mode`. Forward mode runs `f` once per element
/// of `x`, along each basis direction, and gathers the JVPs into `x`'s shape.
///
/// ```
/// use gradtape::Tensor;
/// use gradtape_gradbench::evals::descent::{Mode, gradient};
/// let x = Tensor::from_vec(vec![1.0_f64, -2.0], &[2]);
/// for mode in [Mode::Forward, Mode::Reverse] {
///     assert_eq!(gradient(mode, |x| x.powi(3).sum(), &x).to_vec(), vec![3.0, 12.0]);
/// }
/// ```
pub fn gradient(
    mode: Mode,
    f: impl Fn(&Tensor<f64>) -> Tensor<f64>,
    x: &Tensor<f64>,
) -> Tensor<f64> {
    let connected = "the cost depends on the point";
    match mode {
        Mode::Reverse => {
            let tape = GradientTape::new();
            tape.watch(x);
            let value = tape.record(|| f(x));
            tape.gradient(&value, x)
                .expect("a fresh tape answers its gradient")
                .expect(connected)
        }
        Mode::Forward => {
            let n = x.len();
            let columns: Vec<Tensor<f64>> = (0..n)
                .map(|k| {
                    let mut basis = vec![0.0; n];
                    basis[k] = 1.0;
                    let tangent = Tensor::from_vec(basis, x.shape());
                    let acc =
                        ForwardAccumulator::new(x, tangent).expect("the tangent has x's shape");
                    let value = acc.record(|| f(x));
                    acc.jvp(&value).expect(connected).reshape(&[1])
                })
                .collect();
            let columns: Vec<&Tensor<f64>> = columns.iter().collect();
            Tensor::concat(&columns, 0).reshape(x.shape())
        }
    }
}

/// The answer of `particle` or `saddle` to one of its four variants, `solve(outer, inner)`
/// computing it with the outer search's gradients taken by `outer` and the inner ones by
/// `inner` (`fr`: the outer by forward mode, the inner by reverse mode).
///
/// ```
/// use gradtape_gradbench::evals::descent::{Mode, nested_variants};
/// use gradtape_gradbench::Runs;
/// let runs = Runs { min_runs: 1, min_seconds: 0.0 };
/// let modes = |function| {
///     let mut seen = None;
///     nested_variants("saddle", function, |outer, inner| {
///         seen = Some((outer, inner));
///         runs.evaluate(|| 1.0)
///     })
///     .map(|_| seen.unwrap())
/// };
/// assert_eq!(modes("fr").unwrap(), (Mode::Forward, Mode::Reverse));
/// assert!(modes("fx").is_err());
/// ```
pub fn nested_variants(
    module: &'static str,
    function: &str,
    solve: impl FnOnce(Mode, Mode) -> Evaluation,
) -> Result<Evaluation, Failure> {
    let (outer, inner) = match function {
        "ff" => (Mode::Forward, Mode::Forward),
        "fr" => (Mode::Forward, Mode::Reverse),
        "rf" => (Mode::Reverse, Mode::Forward),
        "rr" => (Mode::Reverse, Mode::Reverse),
        _ => {
            return Err(Failure::UnknownFunction {
                module,
                function: function.to_owned(),
                known: "`rr`, `ff`, `fr` and `rf`",
            });
        }
    };
    Ok(solve(outer, inner))
}
