//! W6 `jacobian` (../shared/bench/WORKLOADS.md): the full 256x256 jacobian of
//! y = tanh(W x + b), n = 256, W_ij = 0.05 sin(256 i + j), b_i = 0.01 i, x_i = cos(i), f32.
//! Prints the trace of the jacobian so that a fast wrong answer cannot pass.

use criterion::{Criterion, criterion_group, criterion_main};
use gradtape::{GradientTape, Tensor};

const N: usize = 256;

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

fn trace(j: &Tensor<f32>) -> f64 {
    let v = j.to_vec();
    (0..N).map(|i| v[i * N + i] as f64).sum()
}

fn bench(c: &mut Criterion) {
    let (w, b, x) = inputs();
    let j = jacobian(&w, &b, &x);
    // J = diag(1 - y²) W, so trace J = Σᵢ (1 - yᵢ²) Wᵢᵢ: an independent check
    let y = (w.matmul(&x.reshape(&[N, 1])).reshape(&[N]) + &b)
        .tanh()
        .to_vec();
    let wv = w.to_vec();
    let expected: f64 = (0..N)
        .map(|i| (1.0 - (y[i] as f64).powi(2)) * wv[i * N + i] as f64)
        .sum();
    println!(
        "W6 jacobian: shape {:?}, trace {:.6} (analytic {:.6})",
        j.shape(),
        trace(&j),
        expected
    );
    assert!((trace(&j) - expected).abs() < 1e-4);
    c.bench_function("W6 jacobian 256x256", |bench| {
        bench.iter(|| jacobian(&w, &b, &x))
    });
}

// `criterion_group!` defines an undocumented public function.
#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, bench);
}
use group::benches;
criterion_main!(benches);
