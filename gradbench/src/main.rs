//! The GradBench tool: the protocol on stdin and stdout (logs go to stderr).
//!
//! ```sh
//! cargo build --release -p gradtape-gradbench
//! ../shared/gradbench/run.sh eval gmm --quick -- ./target/release/gradtape-gradbench
//! ```

use std::io;
use std::process::ExitCode;

fn main() -> ExitCode {
    match gradtape_gradbench::serve(io::stdin().lock(), io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("gradtape-gradbench: {error}");
            ExitCode::FAILURE
        }
    }
}
