//! Workloads timed as a user's program runs them (issue 17): one plain process, the
//! default allocator, no tunables, no criterion; a warm-up, then each iteration timed on its
//! own, and the median printed. `cargo bench --bench plain_process [-- ITERATIONS]`.
//!
//! W6 (../shared/bench/WORKLOADS.md): the full 256x256 jacobian of y = tanh(W x + b),
//! f32, as `benches/jacobian.rs` defines it; the trace of the jacobian is checked against
//! the analytic Σᵢ (1 - yᵢ²) Wᵢᵢ so that a fast wrong answer cannot pass.

use std::time::Instant;

use gradtape::{GradientTape, Tensor};

const N: usize = 256;

/// W6's inputs: W_ij = 0.05 sin(256 i + j), b_i = 0.01 i, x_i = cos(i).
fn inputs() -> (Tensor<f32>, Tensor<f32>, Tensor<f32>) {
    let w = (0..N * N)
        .map(|k| {
            let (i, j) = ((k / N) as f64, (k % N) as f64);
            (0.05 * (256.0 * i + j).sin()) as f32
        })
        .collect();
    let b = (0..N).map(|i| 0.01 * i as f32).collect();
    let x = (0..N).map(|i| (i as f64).cos() as f32).collect();
    (
        Tensor::from_vec(w, &[N, N]),
        Tensor::from_vec(b, &[N]),
        Tensor::from_vec(x, &[N]),
    )
}

/// One W6 iteration: record y = tanh(W x + b) and take the full jacobian dy/dx.
fn jacobian(w: &Tensor<f32>, b: &Tensor<f32>, x: &Tensor<f32>) -> Tensor<f32> {
    let tape = GradientTape::new();
    tape.watch(x);
    let y = tape.record(|| (w.matmul(&x.reshape(&[N, 1])).reshape(&[N]) + b).tanh());
    tape.jacobian(&y, x).unwrap().expect("y depends on x")
}

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
    let (w, b, x) = inputs();
    let j = jacobian(&w, &b, &x).to_vec();
    let y = (w.matmul(&x.reshape(&[N, 1])).reshape(&[N]) + &b)
        .tanh()
        .to_vec();
    let wv = w.to_vec();
    let trace: f64 = (0..N).map(|i| j[i * N + i] as f64).sum();
    let expected: f64 = (0..N)
        .map(|i| (1.0 - (y[i] as f64).powi(2)) * wv[i * N + i] as f64)
        .sum();
    assert!(
        (trace - expected).abs() < 1e-4,
        "W6: trace {trace} against the analytic {expected}"
    );
    let ms = median_ms(20, iterations, || drop(jacobian(&w, &b, &x)));
    println!(
        "W6 jacobian 256x256 (plain process): trace {trace:.6}, median {ms:.4} ms per jacobian over {iterations}"
    );
}
