//! Reads GradBench logs (the intermediary's JSON lines).
//!
//! - `gradbench-logs check LOG...`: prints every evaluation that is not valid (or a module
//!   not defined) and exits 1 if there is one. CI runs it on the quick evals.
//! - `gradbench-logs table LOG...`: a Markdown table of median `evaluate` times per tool,
//!   with gradtape's ratio to each other tool (`compare.sh` prints it).

use std::process::ExitCode;

use gradtape_gradbench::logs::{Log, table};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, paths)) = args.split_first() else {
        eprintln!("usage: gradbench-logs check|table LOG...");
        return ExitCode::from(64);
    };
    let mut logs = Vec::new();
    for path in paths {
        match std::fs::read_to_string(path)
            .map_err(|error| error.to_string())
            .and_then(|text| Log::parse(&text))
        {
            Ok(log) => logs.push(log),
            Err(error) => {
                eprintln!("gradbench-logs: {path}: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    match command.as_str() {
        "check" => {
            let problems: Vec<String> = logs.iter().flat_map(Log::problems).collect();
            let evaluations: usize = logs.iter().map(|log| log.evaluations.len()).sum();
            for problem in &problems {
                println!("{problem}");
            }
            println!(
                "{} logs, {evaluations} evaluations, {} problems",
                logs.len(),
                problems.len()
            );
            if problems.is_empty() && evaluations > 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        "table" => {
            print!("{}", table(&logs));
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("usage: gradbench-logs check|table LOG...");
            ExitCode::from(64)
        }
    }
}
