//! Reading the intermediary's logs: what each evaluation answered, whether the eval found it
//! valid, and its timings. CI's verdict ([`Log::problems`]) and `compare.sh`'s table
//! ([`table`]) are built on it.
//!
//! A log is JSON lines, each `{"elapsed": ..., "message": {...}}` (eval to tool) or
//! `{"elapsed": ..., "response": {...}}` (tool to eval).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

/// One `evaluate` round.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// The message's id.
    pub id: u64,
    /// The module.
    pub module: String,
    /// The function.
    pub function: String,
    /// The eval's description of the input (its sizes).
    pub description: String,
    /// The tool's `success`, or `None` when it never answered.
    pub success: Option<bool>,
    /// The tool's error text, if it sent one.
    pub error: Option<String>,
    /// The eval's verdict, or `None` when it sent none.
    pub valid: Option<bool>,
    /// The eval's error text for an invalid answer.
    pub analysis_error: Option<String>,
    /// The `evaluate` timings, in nanoseconds.
    pub timings: Vec<u64>,
}

/// One session: the tool's name, the modules it was asked to define and its evaluations.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Log {
    /// The tool's name from its `start` response (`"?"` if it gave none).
    pub tool: String,
    /// Each module the eval asked for, and whether the tool defined it.
    pub defines: Vec<(String, Option<bool>)>,
    /// Every `evaluate` round, in order.
    pub evaluations: Vec<Evaluation>,
}

impl Log {
    /// Reads a log's text.
    ///
    /// ```
    /// let text = r#"
    /// {"elapsed":{"nanoseconds":1},"message":{"id":0,"kind":"start"}}
    /// {"elapsed":{"nanoseconds":2},"response":{"id":0,"tool":"gradtape"}}
    /// {"elapsed":{"nanoseconds":3},"message":{"id":1,"kind":"evaluate","module":"hello","function":"square","input":2.0}}
    /// {"elapsed":{"nanoseconds":4},"response":{"id":1,"success":true,"output":4.0,"timings":[{"name":"evaluate","nanoseconds":50}]}}
    /// {"elapsed":{"nanoseconds":5},"message":{"id":2,"kind":"analysis","of":1,"valid":true}}
    /// "#;
    /// let log = gradtape_gradbench::logs::Log::parse(text).unwrap();
    /// assert_eq!(log.tool, "gradtape");
    /// assert_eq!(log.evaluations[0].valid, Some(true));
    /// assert_eq!(log.evaluations[0].timings, vec![50]);
    /// ```
    ///
    /// # Errors
    /// A line that is not JSON, naming its number.
    pub fn parse(text: &str) -> Result<Log, String> {
        let mut log = Log {
            tool: "?".to_owned(),
            ..Log::default()
        };
        let mut kinds: BTreeMap<u64, String> = BTreeMap::new();
        let mut define_of: BTreeMap<u64, usize> = BTreeMap::new();
        let mut evaluation_of: BTreeMap<u64, usize> = BTreeMap::new();
        for (number, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let entry: Value = serde_json::from_str(line)
                .map_err(|error| format!("line {}: not JSON: {error}", number + 1))?;
            let text_of = |value: &Value, field: &str| {
                value
                    .get(field)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            if let Some(message) = entry.get("message") {
                let Some(id) = message.get("id").and_then(Value::as_u64) else {
                    continue;
                };
                let kind = text_of(message, "kind");
                match kind.as_str() {
                    "define" => {
                        define_of.insert(id, log.defines.len());
                        log.defines.push((text_of(message, "module"), None));
                    }
                    "evaluate" => {
                        evaluation_of.insert(id, log.evaluations.len());
                        log.evaluations.push(Evaluation {
                            id,
                            module: text_of(message, "module"),
                            function: text_of(message, "function"),
                            description: text_of(message, "description"),
                            success: None,
                            error: None,
                            valid: None,
                            analysis_error: None,
                            timings: Vec::new(),
                        });
                    }
                    "analysis" => {
                        let of = message.get("of").and_then(Value::as_u64);
                        if let Some(&index) = of.and_then(|of| evaluation_of.get(&of)) {
                            let evaluation = &mut log.evaluations[index];
                            evaluation.valid = message.get("valid").and_then(Value::as_bool);
                            evaluation.analysis_error = message
                                .get("error")
                                .and_then(Value::as_str)
                                .map(str::to_owned);
                        }
                    }
                    _ => {}
                }
                kinds.insert(id, kind);
            } else if let Some(response) = entry.get("response") {
                let Some(id) = response.get("id").and_then(Value::as_u64) else {
                    continue;
                };
                let success = response.get("success").and_then(Value::as_bool);
                match kinds.get(&id).map(String::as_str) {
                    Some("start") => log.tool = text_of(response, "tool"),
                    Some("define") => log.defines[define_of[&id]].1 = success,
                    Some("evaluate") => {
                        let evaluation = &mut log.evaluations[evaluation_of[&id]];
                        evaluation.success = success;
                        evaluation.error = response
                            .get("error")
                            .and_then(Value::as_str)
                            .map(str::to_owned);
                        evaluation.timings = response
                            .get("timings")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                            .filter(|timing| timing.get("name") == Some(&Value::from("evaluate")))
                            .filter_map(|timing| timing.get("nanoseconds").and_then(Value::as_u64))
                            .collect();
                    }
                    _ => {}
                }
            }
        }
        Ok(log)
    }

    /// What keeps this session from passing, one line each: a module not defined, an
    /// evaluation not answered, failed, found invalid, or never checked. Empty when every
    /// evaluation is valid.
    ///
    /// ```
    /// use gradtape_gradbench::logs::{Evaluation, Log};
    /// let failed = Evaluation {
    ///     id: 4,
    ///     module: "saddle".into(),
    ///     function: "ff".into(),
    ///     description: String::new(),
    ///     success: Some(false),
    ///     error: Some("forward mode is missing".into()),
    ///     valid: None,
    ///     analysis_error: None,
    ///     timings: vec![],
    /// };
    /// let mut log = Log { tool: "gradtape".into(), defines: vec![], evaluations: vec![failed] };
    /// assert_eq!(log.problems().len(), 1);
    /// log.evaluations[0].success = Some(true);
    /// log.evaluations[0].valid = Some(true);
    /// assert!(log.problems().is_empty());
    /// ```
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (module, defined) in &self.defines {
            if *defined != Some(true) {
                problems.push(format!(
                    "{}: the module `{module}` is not defined",
                    self.tool
                ));
            }
        }
        for evaluation in &self.evaluations {
            let name = format!(
                "{}: {}::{} ({}, id {})",
                self.tool,
                evaluation.module,
                evaluation.function,
                evaluation.description,
                evaluation.id
            );
            match (evaluation.success, evaluation.valid) {
                (None, _) => problems.push(format!("{name}: no response")),
                (Some(false), _) => problems.push(format!(
                    "{name}: failed: {}",
                    evaluation.error.as_deref().unwrap_or("(no error text)")
                )),
                (Some(true), Some(true)) => {}
                (Some(true), Some(false)) => problems.push(format!(
                    "{name}: INVALID: {}",
                    evaluation
                        .analysis_error
                        .as_deref()
                        .unwrap_or("(no error text)")
                )),
                (Some(true), None) => problems.push(format!("{name}: never checked")),
            }
        }
        problems
    }
}

/// The median of `values` (the mean of the middle two for an even count), `None` if empty.
///
/// ```
/// use gradtape_gradbench::logs::median;
/// assert_eq!(median(&[5, 1, 3]), Some(3.0));
/// assert_eq!(median(&[4, 1, 3, 2]), Some(2.5));
/// assert_eq!(median(&[]), None);
/// ```
pub fn median(values: &[u64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2] as f64),
        _ => Some((sorted[n / 2 - 1] as f64 + sorted[n / 2] as f64) / 2.0),
    }
}

/// A Markdown table of median `evaluate` times: one row per (module, function, input
/// description) in the order first seen, one column per tool in the order given, and
/// gradtape's ratio to `manual` (and to each other tool) where both answered validly.
/// Several logs of the same tool (rounds of one run) pool their timings. Evaluations that
/// failed or were invalid show as `failed` / `INVALID`.
///
/// ```
/// use gradtape_gradbench::logs::{Log, table};
/// let line = |tool: &str, ns: u64| format!(
///     "{{\"message\":{{\"id\":0,\"kind\":\"start\"}}}}\n{{\"response\":{{\"id\":0,\"tool\":\"{tool}\"}}}}\n\
///      {{\"message\":{{\"id\":1,\"kind\":\"evaluate\",\"module\":\"lse\",\"function\":\"gradient\",\"description\":\"n=2500\"}}}}\n\
///      {{\"response\":{{\"id\":1,\"success\":true,\"output\":[],\"timings\":[{{\"name\":\"evaluate\",\"nanoseconds\":{ns}}}]}}}}\n\
///      {{\"message\":{{\"id\":2,\"kind\":\"analysis\",\"of\":1,\"valid\":true}}}}\n");
/// let logs = [Log::parse(&line("gradtape", 3000)).unwrap(), Log::parse(&line("manual", 2000)).unwrap()];
/// let text = table(&logs);
/// assert!(text.contains("| lse | gradient | n=2500 | 3.00 us | 2.00 us | 1.50 |"), "{text}");
/// ```
pub fn table(logs: &[Log]) -> String {
    let mut tools: Vec<&str> = Vec::new();
    for log in logs {
        if !tools.contains(&log.tool.as_str()) {
            tools.push(&log.tool);
        }
    }
    type Key = (String, String, String);
    let mut rows: Vec<Key> = Vec::new();
    // Every valid run of a row by a tool, over all the logs given (rounds of the same run
    // pool their timings); a failed or invalid answer marks the cell for good.
    let mut cells: BTreeMap<(Key, &str), Result<Vec<u64>, Cell>> = BTreeMap::new();
    for log in logs {
        for evaluation in &log.evaluations {
            let key = (
                evaluation.module.clone(),
                evaluation.function.clone(),
                evaluation.description.clone(),
            );
            if !rows.contains(&key) {
                rows.push(key.clone());
            }
            let cell = cells
                .entry((key, log.tool.as_str()))
                .or_insert(Ok(Vec::new()));
            let Ok(timings) = cell else { continue };
            match (evaluation.success, evaluation.valid) {
                (Some(true), Some(true)) => timings.extend(&evaluation.timings),
                (Some(true), _) => *cell = Err(Cell::Invalid),
                _ => *cell = Err(Cell::Failed),
            }
        }
    }
    let cells: BTreeMap<(Key, &str), Cell> = cells
        .into_iter()
        .map(|(key, cell)| {
            let cell =
                cell.and_then(|timings| median(&timings).map(Cell::Median).ok_or(Cell::Failed));
            (key, cell.unwrap_or_else(|failed| failed))
        })
        .collect();
    let others: Vec<&str> = tools
        .iter()
        .copied()
        .filter(|tool| *tool != "gradtape")
        .collect();
    let mut text = String::from("| eval | function | input |");
    for tool in &tools {
        let _ = write!(text, " {tool} |");
    }
    for other in &others {
        let _ = write!(text, " gradtape / {other} |");
    }
    text.push_str("\n|---|---|---|");
    for _ in tools.iter().chain(&others) {
        text.push_str("---:|");
    }
    text.push('\n');
    for key in &rows {
        let _ = write!(text, "| {} | {} | {} |", key.0, key.1, key.2);
        for tool in &tools {
            let cell = cells.get(&(key.clone(), *tool));
            let _ = write!(text, " {} |", cell.map_or("".to_owned(), Cell::show));
        }
        for other in &others {
            let ratio = match (
                cells.get(&(key.clone(), "gradtape")),
                cells.get(&(key.clone(), *other)),
            ) {
                (Some(Cell::Median(ours)), Some(Cell::Median(theirs))) if *theirs > 0.0 => {
                    format!("{:.2}", ours / theirs)
                }
                _ => String::new(),
            };
            let _ = write!(text, " {ratio} |");
        }
        text.push('\n');
    }
    text
}

/// One tool's result for one row of the [`table`].
enum Cell {
    /// The median `evaluate` time in nanoseconds.
    Median(f64),
    Failed,
    Invalid,
}

impl Cell {
    fn show(&self) -> String {
        match self {
            Cell::Median(ns) => duration(*ns),
            Cell::Failed => "failed".to_owned(),
            Cell::Invalid => "INVALID".to_owned(),
        }
    }
}

/// A duration in nanoseconds, in the unit that keeps three significant digits readable.
fn duration(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} us", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}
