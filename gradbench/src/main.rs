//! The GradBench tool: the protocol on stdin and stdout (logs go to stderr).
//!
//! ```sh
//! cargo build --release -p gradtape-gradbench
//! ../shared/gradbench/run.sh eval gmm --quick -- ./target/release/gradtape-gradbench
//! ```
//!
//! `gradbench/check.sh` and `gradbench/compare.sh` build it with `gradbench/build.sh`
//! instead: for this machine's CPU (`-C target-cpu=native`), as GradBench builds its C++
//! tools (`-march=native`) right before running them.
//!
//! As GradBench's other tools, it runs on one thread unless started with
//! `--multithreaded` (then gradtape's largest operations, and ht's jacobian columns, split
//! over two): comparisons against `manual`, which is compiled without OpenMP unless the
//! eval is run `--multithreaded`, are then like for like.

use std::io;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut multithreaded = false;
    for argument in std::env::args().skip(1) {
        match argument.as_str() {
            "--multithreaded" => multithreaded = true,
            other => {
                eprintln!(
                    "gradtape-gradbench: unknown argument `{other}` (the one option is `--multithreaded`)"
                );
                return ExitCode::FAILURE;
            }
        }
    }
    if !multithreaded {
        // Nothing has run yet, so the count cannot have been fixed already.
        gradtape::set_num_threads(1).expect("set before any operation");
    }
    match gradtape_gradbench::serve(io::stdin().lock(), io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("gradtape-gradbench: {error}");
            ExitCode::FAILURE
        }
    }
}
