//! Workloads timed as a user's program runs them (issue 17): one plain process, the
//! default allocator, no tunables, no criterion; a warm-up, then each iteration timed on its
//! own, and the median printed. `cargo bench --bench plain_process [-- ITERATIONS]`.
//!
//! W6 (../shared/bench/WORKLOADS.md, defined in `w6/mod.rs`): the full 256x256 jacobian
//! of y = tanh(W x + b), f32, its trace checked against the analytic one.

use std::time::Instant;

mod w6;

/// The median of `iterations` single runs of `f`, in milliseconds, after `warm_up` runs.
fn median_ms(warm_up: usize, iterations: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..warm_up {
        f();
    }
    let mut times: Vec<f64> = (0..iterations)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[iterations / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; a number among the arguments sets the iterations
    let iterations = std::env::args()
        .filter_map(|a| a.parse::<usize>().ok())
        .next()
        .unwrap_or(300)
        .max(1);
    let (w, b, x) = w6::inputs();
    let trace = w6::checked_trace(&w6::jacobian(&w, &b, &x), &w, &b, &x);
    let ms = median_ms(20, iterations, || drop(w6::jacobian(&w, &b, &x)));
    println!(
        "W6 jacobian 256x256 (plain process): trace {trace:.6}, median {ms:.4} ms per jacobian over {iterations}"
    );
}
