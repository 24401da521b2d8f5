//! Helpers shared by the eval tests.

use gradtape_gradbench::{Evaluation, Failure};

/// The reason of the [`Failure::BadInput`] that `module` answered; panics on a value or on
/// any other failure (bad input must be reported as such, never as a panic or a value).
pub fn bad_input_reason(module: &str, outcome: Result<Evaluation, Failure>) -> String {
    match outcome {
        Err(Failure::BadInput {
            module: answered,
            reason,
        }) if answered == module => reason,
        other => panic!("expected BadInput from `{module}`, got {other:?}"),
    }
}
