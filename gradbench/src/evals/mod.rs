//! One module per GradBench eval. Each has `evaluate(function, input)`, reading the eval's
//! input type (its README in `gradbench-src/evals/NAME/`), running the function as often as
//! the input's [`Runs`](crate::Runs) ask, and answering the eval's output type.
//!
//! Each objective is written once, as a Rust user would write it, and its derivatives come
//! from gradtape: `#[differentiable]` where the attribute expresses the code, the tape where
//! it does not yet (each module says which and why).

use serde_json::Value;

use crate::{Evaluation, Failure};

pub mod ba;
pub mod descent;
pub mod det;
pub mod gmm;
pub mod hello;
pub mod ht;
pub mod kmeans;
pub mod llsq;
pub mod lse;
pub mod lstm;
pub mod ode;
pub mod particle;
pub mod saddle;

/// An eval's entry point: the function's name and the message's `input`.
pub type Evaluate = fn(&str, Value) -> Result<Evaluation, Failure>;

/// Every module this tool defines, by the name the eval gives it.
pub const MODULES: &[(&str, Evaluate)] = &[
    ("ba", ba::evaluate),
    ("det", det::evaluate),
    ("gmm", gmm::evaluate),
    ("hello", hello::evaluate),
    ("ht", ht::evaluate),
    ("kmeans", kmeans::evaluate),
    ("llsq", llsq::evaluate),
    ("lse", lse::evaluate),
    ("lstm", lstm::evaluate),
    ("ode", ode::evaluate),
    ("particle", particle::evaluate),
    ("saddle", saddle::evaluate),
];

/// The entry point of the module `name`, if this tool has it.
///
/// ```
/// assert!(gradtape_gradbench::evals::find("hello").is_some());
/// assert!(gradtape_gradbench::evals::find("nonesuch").is_none());
/// ```
pub fn find(name: &str) -> Option<Evaluate> {
    MODULES
        .iter()
        .find(|(module, _)| *module == name)
        .map(|(_, evaluate)| *evaluate)
}
