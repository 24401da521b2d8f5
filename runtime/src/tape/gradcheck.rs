//! [`gradcheck`]: a function's reverse-mode derivatives against central finite differences,
//! in f64, at first and (optionally) second order, as `torch.autograd.gradcheck` /
//! `gradgradcheck` and JAX's `check_grads` do. It checks any function of tensors: plain ops,
//! a [`custom_gradient`](crate::custom_gradient), a `#[differentiable]` function.
//!
//! First order compares `∇ₓ⟨f(x), v⟩` (one reverse sweep, `v` a seeded random cotangent)
//! with central differences of `⟨f(x), v⟩` in every input element. Second order compares
//! `∇ₓ⟨∇ₓ⟨f(x), v⟩, u⟩` (nested tapes, `u` seeded random directions) with central
//! differences of `⟨∇ₓ⟨f(x), v⟩, u⟩`. A failure names the worst element: its input and
//! index, both values, and the ops the tape recorded.

use std::fmt;

use crate::base::tensor::Tensor;
use crate::tape::{GradientOptions, GradientTape};

/// How [`gradcheck_with`] checks.
///
/// ```
/// use gradtape_runtime::GradcheckOptions;
/// let options = GradcheckOptions::new().second_order(true).tolerance(1e-5).seed(7);
/// assert!(options.checks_second_order());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct GradcheckOptions {
    second_order: bool,
    step: f64,
    second_step: f64,
    tolerance: f64,
    seed: u64,
}

impl Default for GradcheckOptions {
    fn default() -> Self {
        GradcheckOptions::new()
    }
}

impl GradcheckOptions {
    /// First order only; steps of 1e-6 (first order) and 1e-5 (second), a tolerance of
    /// 1e-6 (`|analytic − numeric| ≤ tolerance · (1 + |numeric|)`), seed 0. In f64 the
    /// truncation error O(h²) and the rounding error O(ε/h) are both far below the
    /// tolerance at these steps.
    ///
    /// ```
    /// use gradtape_runtime::GradcheckOptions;
    /// assert!(!GradcheckOptions::new().checks_second_order());
    /// ```
    pub fn new() -> GradcheckOptions {
        GradcheckOptions {
            second_order: false,
            step: 1e-6,
            second_step: 1e-5,
            tolerance: 1e-6,
            seed: 0,
        }
    }

    /// Also check second derivatives (a Hessian-vector product by nested tapes).
    ///
    /// ```
    /// use gradtape_runtime::GradcheckOptions;
    /// assert!(GradcheckOptions::new().second_order(true).checks_second_order());
    /// ```
    pub fn second_order(mut self, on: bool) -> GradcheckOptions {
        self.second_order = on;
        self
    }

    /// Whether second derivatives are checked.
    ///
    /// ```
    /// use gradtape_runtime::GradcheckOptions;
    /// assert!(!GradcheckOptions::default().checks_second_order());
    /// ```
    pub fn checks_second_order(&self) -> bool {
        self.second_order
    }

    /// The finite-difference step of the first-order check.
    ///
    /// ```
    /// use gradtape_runtime::GradcheckOptions;
    /// let _ = GradcheckOptions::new().step(1e-5);
    /// ```
    pub fn step(mut self, step: f64) -> GradcheckOptions {
        self.step = step;
        self
    }

    /// The finite-difference step of the second-order check (differences of a gradient).
    ///
    /// ```
    /// use gradtape_runtime::GradcheckOptions;
    /// let _ = GradcheckOptions::new().second_step(1e-4);
    /// ```
    pub fn second_step(mut self, step: f64) -> GradcheckOptions {
        self.second_step = step;
        self
    }

    /// The relative tolerance: an element passes when `|analytic − numeric| ≤ tolerance ·
    /// (1 + |numeric|)` (absolute below magnitude 1). NaN never passes.
    ///
    /// ```
    /// use gradtape_runtime::GradcheckOptions;
    /// let _ = GradcheckOptions::new().tolerance(1e-4);
    /// ```
    pub fn tolerance(mut self, tolerance: f64) -> GradcheckOptions {
        self.tolerance = tolerance;
        self
    }

    /// The seed of the random cotangent and directions.
    ///
    /// ```
    /// use gradtape_runtime::GradcheckOptions;
    /// let _ = GradcheckOptions::new().seed(42);
    /// ```
    pub fn seed(mut self, seed: u64) -> GradcheckOptions {
        self.seed = seed;
        self
    }
}

/// The worst element of one order's check.
///
/// ```
/// use gradtape_runtime::{Tensor, gradcheck};
/// let x = Tensor::from_vec(vec![0.5_f64, 1.5], &[2]);
/// let report = gradcheck(|x| x[0].sin(), &[x]).unwrap();
/// assert_eq!(report.first.order, 1);
/// assert!(report.first.error < 1e-6);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct WorstElement {
    /// 1 or 2.
    pub order: u8,
    /// Which input.
    pub input: usize,
    /// The element's index in that input (one entry per axis).
    pub index: Vec<usize>,
    /// The derivative the tape computed.
    pub analytic: f64,
    /// The central difference.
    pub numeric: f64,
    /// `|analytic − numeric| / (1 + |numeric|)` (infinite when either is NaN).
    pub error: f64,
}

impl fmt::Display for WorstElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "order {}, input {} at {:?}: reverse mode {} vs central differences {} (error {:.3e})",
            self.order, self.input, self.index, self.analytic, self.numeric, self.error
        )
    }
}

/// What a passing [`gradcheck`] measured: the worst element of each order checked.
///
/// ```
/// use gradtape_runtime::{GradcheckOptions, Tensor, gradcheck_with};
/// let x = Tensor::from_vec(vec![0.5_f64, 1.5], &[2]);
/// let options = GradcheckOptions::new().second_order(true);
/// let report = gradcheck_with(|x| x[0].exp(), &[x], options).unwrap();
/// assert!(report.second.is_some());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct GradcheckReport {
    /// The worst element at first order.
    pub first: WorstElement,
    /// The worst element at second order, if checked.
    pub second: Option<WorstElement>,
    /// The ops the tape recorded for the function, in order.
    pub ops: Vec<&'static str>,
}

/// Why a [`gradcheck`] failed.
///
/// ```
/// use gradtape_runtime::{GradcheckError, Tensor, custom_gradient, gradcheck};
/// let x = Tensor::from_vec(vec![0.5_f64, 1.5], &[2]);
/// // a wrong rule: d/dx x² is 2x, not x
/// let wrong = |x: &[Tensor<f64>]| {
///     custom_gradient("square", &[&x[0]], |inputs| {
///         let x = inputs[0].clone();
///         (x.square(), move |g: &Tensor<f64>| vec![Some(g * &x)])
///     })
/// };
/// let Err(GradcheckError::Mismatch { worst, ops }) = gradcheck(wrong, &[x]) else {
///     panic!("the wrong rule must be caught")
/// };
/// assert_eq!(worst.input, 0);
/// assert_eq!(ops, ["square"]);
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GradcheckError {
    /// An element's derivative disagrees with the central difference (or is NaN).
    #[error("gradcheck: {worst}; recorded ops: {ops:?}")]
    Mismatch {
        /// The worst element.
        worst: WorstElement,
        /// The ops the tape recorded for the function, in order.
        ops: Vec<&'static str>,
    },
    /// A gradient's shape is not its input's.
    #[error(
        "gradcheck: order {order}, the gradient of input {input} has shape {gradient:?}, the input {expected:?}"
    )]
    Shape {
        /// 1 or 2.
        order: u8,
        /// Which input.
        input: usize,
        /// The gradient's shape.
        gradient: Vec<usize>,
        /// The input's shape.
        expected: Vec<usize>,
    },
}

/// Checks `f`'s first derivatives at `inputs` against central differences (see the module
/// docs); [`gradcheck_with`] for second order and other settings.
///
/// ```
/// use gradtape_runtime::{Tensor, gradcheck};
/// let (a, b) = (
///     Tensor::from_vec(vec![0.3_f64, -1.2, 2.0], &[3]),
///     Tensor::from_vec(vec![0.7_f64], &[1]),
/// );
/// gradcheck(|x| (&x[0] * &x[1]).tanh(), &[a, b]).unwrap();
/// ```
///
/// # Errors
/// [`GradcheckError`] naming the worst element when a derivative disagrees.
pub fn gradcheck(
    f: impl Fn(&[Tensor<f64>]) -> Tensor<f64>,
    inputs: &[Tensor<f64>],
) -> Result<GradcheckReport, GradcheckError> {
    gradcheck_with(f, inputs, GradcheckOptions::new())
}

/// [`gradcheck`] with options: second order, steps, tolerance, seed.
///
/// ```
/// use gradtape_runtime::{GradcheckOptions, Tensor, gradcheck_with};
/// let x = Tensor::from_vec(vec![0.3_f64, 1.1], &[2]);
/// let options = GradcheckOptions::new().second_order(true);
/// let report = gradcheck_with(|x| x[0].sin().powi(3), &[x], options).unwrap();
/// assert!(report.second.unwrap().error < 1e-6);
/// ```
///
/// # Errors
/// [`GradcheckError`] naming the worst element when a derivative disagrees.
pub fn gradcheck_with(
    f: impl Fn(&[Tensor<f64>]) -> Tensor<f64>,
    inputs: &[Tensor<f64>],
    options: GradcheckOptions,
) -> Result<GradcheckReport, GradcheckError> {
    let out_shape = f(inputs).shape().to_vec();
    let v = Tensor::random_normal(&out_shape, 0.0, 1.0, options.seed ^ 0x5eed_0001);

    let (grads, ops) = vjp(&f, inputs, &v);
    let analytic = values_of(1, inputs, grads)?;
    let numeric = central_differences(inputs, options.step, &|xs| dot(&f(xs), &v));
    let first = worst(1, inputs, &analytic, &numeric);
    if first.error > options.tolerance {
        return Err(GradcheckError::Mismatch { worst: first, ops });
    }
    if !options.second_order {
        return Ok(GradcheckReport {
            first,
            second: None,
            ops,
        });
    }

    let directions: Vec<Tensor<f64>> = inputs
        .iter()
        .enumerate()
        .map(|(i, x)| {
            Tensor::random_normal(x.shape(), 0.0, 1.0, options.seed ^ (0x5eed_0100 + i as u64))
        })
        .collect();
    let along = |xs: &[Tensor<f64>]| -> f64 {
        vjp(&f, xs, &v)
            .0
            .iter()
            .zip(&directions)
            .map(|(g, u)| g.as_ref().map_or(0.0, |g| dot(g, u)))
            .sum()
    };
    let numeric = central_differences(inputs, options.second_step, &along);
    let analytic = values_of(2, inputs, hvp(&f, inputs, &v, &directions))?;
    let second = worst(2, inputs, &analytic, &numeric);
    if second.error > options.tolerance {
        return Err(GradcheckError::Mismatch { worst: second, ops });
    }
    Ok(GradcheckReport {
        first,
        second: Some(second),
        ops,
    })
}

/// `∇ₓ⟨f(x), v⟩` by one reverse sweep (`None` where unconnected), and the ops recorded.
fn vjp(
    f: &dyn Fn(&[Tensor<f64>]) -> Tensor<f64>,
    xs: &[Tensor<f64>],
    v: &Tensor<f64>,
) -> (Vec<Option<Tensor<f64>>>, Vec<&'static str>) {
    let tape = GradientTape::new();
    for x in xs {
        tape.watch(x);
    }
    let y = tape.record(|| f(xs));
    let ops = tape.recorded_ops();
    let options = GradientOptions::new().output_gradients([v.clone()]);
    let grads = tape
        .gradient_with(&y, xs, options)
        .expect("a fresh tape computes one gradient");
    (grads, ops)
}

/// `∇ₓ⟨∇ₓ⟨f(x), v⟩, u⟩`: an outer tape records the inner gradient.
fn hvp(
    f: &dyn Fn(&[Tensor<f64>]) -> Tensor<f64>,
    xs: &[Tensor<f64>],
    v: &Tensor<f64>,
    directions: &[Tensor<f64>],
) -> Vec<Option<Tensor<f64>>> {
    let outer = GradientTape::new();
    for x in xs {
        outer.watch(x);
    }
    let along = outer.record(|| {
        vjp(f, xs, v)
            .0
            .iter()
            .zip(directions)
            .filter_map(|(g, u)| g.as_ref().map(|g| (g * u).sum()))
            .fold(Tensor::scalar(0.0), |acc, term| acc + term)
    });
    outer
        .gradient(&along, xs)
        .expect("a fresh tape computes one gradient")
}

/// Gradients as plain values (zeros for `None`), checked against the inputs' shapes.
fn values_of(
    order: u8,
    xs: &[Tensor<f64>],
    grads: Vec<Option<Tensor<f64>>>,
) -> Result<Vec<Vec<f64>>, GradcheckError> {
    grads
        .into_iter()
        .zip(xs)
        .enumerate()
        .map(|(input, (g, x))| match g {
            None => Ok(vec![0.0; x.len()]),
            Some(g) if g.has_shape(x.shape()) => Ok(g.to_vec()),
            Some(g) => Err(GradcheckError::Shape {
                order,
                input,
                gradient: g.shape().to_vec(),
                expected: x.shape().to_vec(),
            }),
        })
        .collect()
}

/// Central differences of the number `h` in every element of every input.
fn central_differences(
    xs: &[Tensor<f64>],
    step: f64,
    h: &dyn Fn(&[Tensor<f64>]) -> f64,
) -> Vec<Vec<f64>> {
    (0..xs.len())
        .map(|i| {
            let base = xs[i].to_vec();
            (0..base.len())
                .map(|k| {
                    let at = |delta: f64| {
                        let mut moved = base.clone();
                        moved[k] += delta;
                        let mut args = xs.to_vec();
                        args[i] = Tensor::from_vec(moved, xs[i].shape());
                        h(&args)
                    };
                    (at(step) - at(-step)) / (2.0 * step)
                })
                .collect()
        })
        .collect()
}

/// The element with the largest scaled error (the first NaN, if any).
fn worst(
    order: u8,
    xs: &[Tensor<f64>],
    analytic: &[Vec<f64>],
    numeric: &[Vec<f64>],
) -> WorstElement {
    let mut worst = WorstElement {
        order,
        input: 0,
        index: Vec::new(),
        analytic: 0.0,
        numeric: 0.0,
        error: -1.0,
    };
    for (input, (a, n)) in analytic.iter().zip(numeric).enumerate() {
        for (k, (&p, &q)) in a.iter().zip(n).enumerate() {
            let error = (p - q).abs() / (1.0 + q.abs());
            let error = if error.is_nan() { f64::INFINITY } else { error };
            if error > worst.error {
                worst = WorstElement {
                    order,
                    input,
                    index: unravel(k, xs[input].shape()),
                    analytic: p,
                    numeric: q,
                    error,
                };
            }
        }
    }
    worst.error = worst.error.max(0.0);
    worst
}

/// The multi-index of the row-major flat position `k` in `shape`.
fn unravel(mut k: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for (slot, &n) in index.iter_mut().zip(shape).rev() {
        *slot = k % n;
        k /= n;
    }
    index
}

/// `⟨a, b⟩` in plain arithmetic.
fn dot(a: &Tensor<f64>, b: &Tensor<f64>) -> f64 {
    assert!(
        a.has_shape(b.shape()),
        "gradcheck: the function's output changed shape from {:?} to {:?} between calls",
        b.shape(),
        a.shape()
    );
    a.to_vec().iter().zip(b.to_vec()).map(|(p, q)| p * q).sum()
}

#[cfg(test)]
mod tests {
    use super::unravel;

    #[test]
    fn unravel_is_row_major() {
        assert_eq!(unravel(5, &[2, 3]), [1, 2]);
        assert_eq!(unravel(0, &[]), Vec::<usize>::new());
        assert_eq!(unravel(7, &[2, 2, 2]), [1, 1, 1]);
    }
}
