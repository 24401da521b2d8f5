//! gradtape as a [GradBench](https://github.com/gradbench/gradbench) tool.
//!
//! GradBench's evals send JSON messages, one per line, and a tool answers each with one line
//! carrying the same `id` (the protocol is in `gradbench-src/CONTRIBUTING.md`, section
//! *Protocol*). [`serve`] is that loop; [`evals`] has one module per eval, each the objective
//! written once as a Rust user would and differentiated by gradtape.
//!
//! A tool must never crash on what it is sent and never answer with a wrong value: malformed
//! lines, unknown modules or functions, inputs of the wrong shape and panics inside an eval
//! all become `"success": false` responses with an error text, and the loop goes on.
//!
//! ```
//! let messages = concat!(
//!     r#"{"id":0,"kind":"start","eval":"hello"}"#, "\n",
//!     r#"{"id":1,"kind":"define","module":"hello"}"#, "\n",
//!     r#"{"id":2,"kind":"evaluate","module":"hello","function":"double","input":3.0}"#, "\n",
//! );
//! let mut responses = Vec::new();
//! gradtape_gradbench::serve(messages.as_bytes(), &mut responses).unwrap();
//! let lines: Vec<serde_json::Value> = String::from_utf8(responses)
//!     .unwrap()
//!     .lines()
//!     .map(|line| serde_json::from_str(line).unwrap())
//!     .collect();
//! assert_eq!(lines[0]["tool"], "gradtape");
//! assert_eq!(lines[1]["success"], true);
//! assert_eq!(lines[2]["output"], 6.0); // d/dx x² at 3
//! ```

pub mod evals;
pub mod logs;
pub mod runs;

use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};

use serde_json::{Value, json};

pub use runs::{Runs, Timing};

/// Why an evaluation (or a definition) failed: the text goes to the eval as the response's
/// `error`.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// The eval asked for a module this tool has no implementation of.
    #[error("gradtape has no implementation of the module `{0}`")]
    UnknownModule(String),
    /// The module exists but has no such function.
    #[error("the module `{module}` has no function `{function}` (it has {known})")]
    UnknownFunction {
        /// The module.
        module: &'static str,
        /// What the eval asked for.
        function: String,
        /// The functions the module has, for the message.
        known: &'static str,
    },
    /// The input does not have the eval's input type, or its sizes do not agree.
    #[error("bad input for `{module}`: {reason}")]
    BadInput {
        /// The module.
        module: &'static str,
        /// What is wrong, naming the field.
        reason: String,
    },
    /// The function needs something gradtape does not have yet; never answered with a
    /// guessed value.
    #[error("`{module}::{function}` is not supported by gradtape yet: {reason}")]
    Unsupported {
        /// The module.
        module: &'static str,
        /// The function.
        function: String,
        /// What is missing.
        reason: &'static str,
    },
    /// The computation panicked (a gradtape bug, or an input the eval's checks let through).
    #[error("`{module}::{function}` panicked: {message}")]
    Panicked {
        /// The module.
        module: String,
        /// The function.
        function: String,
        /// The panic's payload, when it is text.
        message: String,
    },
}

/// A successful evaluation: the output (of the eval's output type) and one `evaluate`
/// timing per run.
#[derive(Debug)]
pub struct Evaluation {
    /// The function's value, in the eval's output type.
    pub output: Value,
    /// One entry per run of the function.
    pub timings: Vec<Timing>,
}

/// Reads messages from `input` until it ends and writes one response line per message to
/// `output`, flushing after each (the eval waits for it).
///
/// Only I/O errors end the loop early; everything about a message itself is answered.
///
/// ```
/// let mut responses = Vec::new();
/// gradtape_gradbench::serve(&b"not json\n"[..], &mut responses).unwrap();
/// let response: serde_json::Value = serde_json::from_slice(&responses).unwrap();
/// assert_eq!(response["success"], false);
/// assert!(response["error"].as_str().unwrap().contains("not a JSON message"));
/// ```
pub fn serve(input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let response = respond(&line);
        serde_json::to_writer(&mut output, &response)?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
    Ok(())
}

/// The response to one line of the protocol.
///
/// ```
/// let response = gradtape_gradbench::respond(r#"{"id":7,"kind":"analysis","of":2,"valid":true}"#);
/// assert_eq!(response, serde_json::json!({ "id": 7 }));
/// ```
pub fn respond(line: &str) -> Value {
    let message: Value = match serde_json::from_str(line) {
        Ok(message) => message,
        Err(error) => {
            return json!({
                "id": Value::Null,
                "success": false,
                "error": format!("not a JSON message: {error}"),
            });
        }
    };
    let id = message.get("id").cloned().unwrap_or(Value::Null);
    let failed = |error: String| json!({ "id": id, "success": false, "error": error });
    let text = |field: &str| message.get(field).and_then(Value::as_str);
    match text("kind") {
        Some("start") => json!({
            "id": id,
            "tool": "gradtape",
            "config": { "version": env!("CARGO_PKG_VERSION") },
        }),
        Some("define") => match text("module") {
            Some(module) => match evals::find(module) {
                Some(_) => json!({ "id": id, "success": true }),
                None => failed(Failure::UnknownModule(module.to_owned()).to_string()),
            },
            None => failed("a define message needs a `module` string".to_owned()),
        },
        Some("evaluate") => {
            let (Some(module), Some(function)) = (text("module"), text("function")) else {
                return failed(
                    "an evaluate message needs `module` and `function` strings".to_owned(),
                );
            };
            let input = message.get("input").cloned().unwrap_or(Value::Null);
            match evaluate(module, function, input) {
                Ok(Evaluation { output, timings }) => json!({
                    "id": id,
                    "success": true,
                    "output": output,
                    "timings": timings,
                }),
                Err(failure) => failed(failure.to_string()),
            }
        }
        // "analysis", and any kind a later protocol adds: an acknowledgement is the answer.
        _ => json!({ "id": id }),
    }
}

/// Runs `module::function` on `input`, turning a panic into [`Failure::Panicked`].
///
/// ```
/// let done = gradtape_gradbench::evaluate("hello", "square", serde_json::json!(1.5)).unwrap();
/// assert_eq!(done.output, 2.25);
/// assert_eq!(done.timings.len(), 1);
/// ```
pub fn evaluate(module: &str, function: &str, input: Value) -> Result<Evaluation, Failure> {
    let eval = evals::find(module).ok_or_else(|| Failure::UnknownModule(module.to_owned()))?;
    guarded(module, function, || eval(function, input))
}

/// Runs `evaluation`, turning a panic into [`Failure::Panicked`] for `module::function`.
///
/// ```
/// use gradtape_gradbench::{Failure, guarded};
/// let failure = guarded("lse", "primal", || panic!("shapes [2] and [3] differ")).unwrap_err();
/// assert_eq!(failure.to_string(), "`lse::primal` panicked: shapes [2] and [3] differ");
/// ```
pub fn guarded(
    module: &str,
    function: &str,
    evaluation: impl FnOnce() -> Result<Evaluation, Failure>,
) -> Result<Evaluation, Failure> {
    // The default hook would print every caught panic to stderr; the message goes into the
    // response instead. Evaluations run one at a time, so swapping the hook is not racy.
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let outcome = panic::catch_unwind(AssertUnwindSafe(evaluation));
    panic::set_hook(hook);
    outcome.unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|text| (*text).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_owned());
        Err(Failure::Panicked {
            module: module.to_owned(),
            function: function.to_owned(),
            message,
        })
    })
}
