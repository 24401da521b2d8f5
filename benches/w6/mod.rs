//! W6's definition (../shared/bench/WORKLOADS.md), shared by the benches that run it: the
//! full 256x256 jacobian of y = tanh(W x + b), n = 256, W_ij = 0.05 sin(256 i + j),
//! b_i = 0.01 i, x_i = cos(i), f32; and the analytic trace that checks it, so that a fast
//! wrong answer cannot pass.

use gradtape::{GradientTape, Tensor};

/// The size.
pub const N: usize = 256;

/// W, b and x.
pub fn inputs() -> (Tensor<f32>, Tensor<f32>, Tensor<f32>) {
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
pub fn jacobian(w: &Tensor<f32>, b: &Tensor<f32>, x: &Tensor<f32>) -> Tensor<f32> {
    let tape = GradientTape::new();
    tape.watch(x);
    let y = tape.record(|| (w.matmul(&x.reshape(&[N, 1])).reshape(&[N]) + b).tanh());
    tape.jacobian(&y, x).unwrap().expect("y depends on x")
}

/// The trace of the jacobian `j` and the analytic one, Σᵢ (1 - yᵢ²) Wᵢᵢ (J = diag(1 - y²) W);
/// panics if they differ.
pub fn checked_trace(j: &Tensor<f32>, w: &Tensor<f32>, b: &Tensor<f32>, x: &Tensor<f32>) -> f64 {
    let jv = j.to_vec();
    let trace: f64 = (0..N).map(|i| jv[i * N + i] as f64).sum();
    let y = (w.matmul(&x.reshape(&[N, 1])).reshape(&[N]) + b)
        .tanh()
        .to_vec();
    let wv = w.to_vec();
    let expected: f64 = (0..N)
        .map(|i| (1.0 - (y[i] as f64).powi(2)) * wv[i * N + i] as f64)
        .sum();
    assert!(
        (trace - expected).abs() < 1e-4,
        "W6: trace {trace} against the analytic {expected}"
    );
    trace
}
