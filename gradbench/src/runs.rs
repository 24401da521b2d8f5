//! Running a function as often as an eval asks, timing each run.
//!
//! Most evals' inputs carry `min_runs` and `min_seconds`: the tool runs the function at
//! least `min_runs` times **and** until the runs add up to `min_seconds`, and answers one
//! `evaluate` timing per run. Only the computation is timed: parsing the input, building the
//! tensors it starts from and writing the output are not, as in GradBench's C++ tools
//! (whose `prepare` step is not an `evaluate` timing either).

use std::time::{Duration, Instant};

use gradtape::Tensor;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Evaluation, Failure};

/// How often to run a function: GradBench's `Runs` fields of an eval's input.
///
/// ```
/// use gradtape_gradbench::Runs;
/// let runs = Runs { min_runs: 3, min_seconds: 0.0 };
/// let done = runs.evaluate(|| 2.0 + 2.0);
/// assert_eq!(done.output, 4.0);
/// assert_eq!(done.timings.len(), 3);
/// assert!(done.timings.iter().all(|timing| timing.name == "evaluate"));
/// ```
#[derive(Clone, Copy, Debug, Deserialize)]
pub struct Runs {
    /// Run the function at least this many times (at least once, whatever it says).
    pub min_runs: u64,
    /// And until the runs add up to this many seconds.
    pub min_seconds: f64,
}

/// One timing of a response: by convention `evaluate` is one run of the function.
#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    /// What was timed.
    pub name: &'static str,
    /// How long it took.
    pub nanoseconds: u64,
}

impl Runs {
    /// A single run, for inputs that carry no `Runs` (hello).
    pub const ONCE: Runs = Runs {
        min_runs: 1,
        min_seconds: 0.0,
    };

    /// Runs `function` as often as asked and answers its last value, as JSON, with one
    /// timing per run. Every run computes the whole value from the same inputs; the value
    /// is serialised once, after the last run, outside the timings.
    ///
    /// ```
    /// use gradtape_gradbench::Runs;
    /// let runs = Runs { min_runs: 1, min_seconds: 0.002 };
    /// let done = runs.evaluate(|| vec![1.0, 2.0]);
    /// assert_eq!(done.output, serde_json::json!([1.0, 2.0]));
    /// let total: u64 = done.timings.iter().map(|timing| timing.nanoseconds).sum();
    /// assert!(total >= 2_000_000);
    /// ```
    pub fn evaluate<T: Serialize>(&self, mut function: impl FnMut() -> T) -> Evaluation {
        let min_total =
            Duration::try_from_secs_f64(self.min_seconds.max(0.0)).unwrap_or(Duration::MAX);
        let mut timings = Vec::new();
        let mut total = Duration::ZERO;
        loop {
            let start = Instant::now();
            let value = function();
            let elapsed = start.elapsed();
            total += elapsed;
            timings.push(Timing {
                name: "evaluate",
                nanoseconds: u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX),
            });
            if timings.len() as u64 >= self.min_runs.max(1) && total >= min_total {
                let output = serde_json::to_value(value)
                    .expect("an eval's output is numbers, arrays and objects");
                return Evaluation { output, timings };
            }
        }
    }
}

/// Reads an eval's input into its Rust type, naming the module when it does not fit.
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct Input { x: Vec<f64> }
/// let error = gradtape_gradbench::runs::parse::<Input>("lse", serde_json::json!({ "y": 1 }))
///     .err()
///     .unwrap();
/// assert_eq!(error.to_string(), "bad input for `lse`: missing field `x`");
/// ```
pub fn parse<T: DeserializeOwned>(module: &'static str, input: Value) -> Result<T, Failure> {
    serde_json::from_value(input).map_err(|error| Failure::BadInput {
        module,
        reason: error.to_string(),
    })
}

/// A [`Failure::BadInput`] unless `condition` holds.
///
/// ```
/// let n = 1;
/// let error = gradtape_gradbench::runs::require("llsq", n >= 2, || format!("n = {n}, needs n >= 2"));
/// assert!(error.is_err());
/// ```
pub fn require(
    module: &'static str,
    condition: bool,
    reason: impl FnOnce() -> String,
) -> Result<(), Failure> {
    if condition {
        Ok(())
    } else {
        Err(Failure::BadInput {
            module,
            reason: reason(),
        })
    }
}

/// Rows of an input field (JSON's nested arrays) as a `[count, len]` tensor, or a
/// [`Failure::BadInput`] naming the field and the row that does not fit.
///
/// ```
/// use gradtape_gradbench::runs::matrix;
/// let m = matrix("gmm", "mu", vec![vec![1.0, 2.0], vec![3.0, 4.0]], 2, 2).unwrap();
/// assert_eq!(m.shape(), &[2, 2]);
/// let error = matrix("gmm", "mu", vec![vec![1.0], vec![3.0, 4.0]], 2, 2).unwrap_err();
/// assert_eq!(error.to_string(), "bad input for `gmm`: `mu[0]` has 1 numbers, expected 2");
/// ```
pub fn matrix(
    module: &'static str,
    field: &str,
    rows: Vec<Vec<f64>>,
    count: usize,
    len: usize,
) -> Result<Tensor<f64>, Failure> {
    Ok(Tensor::from_vec(
        flat(module, field, rows, count, len)?,
        &[count, len],
    ))
}

/// `rows` as one row-major `Vec` of `count` rows of `len` numbers each, checked as
/// [`matrix`] checks them.
///
/// ```
/// use gradtape_gradbench::runs::flat;
/// let m = flat("demo", "m", vec![vec![1.0, 2.0], vec![3.0, 4.0]], 2, 2).unwrap();
/// assert_eq!(m, vec![1.0, 2.0, 3.0, 4.0]);
/// assert!(flat("demo", "m", vec![vec![1.0]], 2, 1).is_err());
/// ```
pub fn flat(
    module: &'static str,
    field: &str,
    rows: Vec<Vec<f64>>,
    count: usize,
    len: usize,
) -> Result<Vec<f64>, Failure> {
    require(module, rows.len() == count, || {
        format!("`{field}` has {} rows, expected {count}", rows.len())
    })?;
    if let Some((i, row)) = rows.iter().enumerate().find(|(_, row)| row.len() != len) {
        return Err(Failure::BadInput {
            module,
            reason: format!("`{field}[{i}]` has {} numbers, expected {len}", row.len()),
        });
    }
    Ok(rows.concat())
}
