//! Helpers shared by the eval tests.

use gradtape_gradbench::{Evaluation, Failure};

/// The reason of the [`Failure::BadInput`] that `module` answered; panics on a value or on
/// any other failure (bad input must be reported as such, never as a panic or a value).
#[allow(dead_code)] // not every test file that includes this module uses it
pub fn bad_input_reason(module: &str, outcome: Result<Evaluation, Failure>) -> String {
    match outcome {
        Err(Failure::BadInput {
            module: answered,
            reason,
        }) if answered == module => reason,
        other => panic!("expected BadInput from `{module}`, got {other:?}"),
    }
}

/// Central differences of `primal` at `x` with step `h`, one per element of `x`.
#[allow(dead_code)] // not every test file that includes this module uses it
pub fn finite_differences(primal: impl Fn(&[f64]) -> f64, x: &[f64], h: f64) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            let (mut up, mut down) = (x.to_vec(), x.to_vec());
            up[i] += h;
            down[i] -= h;
            (primal(&up) - primal(&down)) / (2.0 * h)
        })
        .collect()
}

/// Asserts `|got − expected| ≤ tolerance · (1 + |expected|)` element by element, naming
/// `what` and the element.
#[allow(dead_code)] // not every test file that includes this module uses it
pub fn assert_close(what: &str, got: &[f64], expected: &[f64], tolerance: f64) {
    assert_eq!(got.len(), expected.len(), "{what}: lengths");
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        assert!(
            (g - e).abs() <= tolerance * (1.0 + e.abs()),
            "{what}[{i}]: {g} vs {e}"
        );
    }
}
