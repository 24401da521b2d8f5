//! W5 `hessian` (../shared/bench/WORKLOADS.md): the full 64x64 Hessian of the Rosenbrock
//! function f(x) = Σ_{i<n-1} 100(x_{i+1} - x_i²)² + (1 - x_i)², n = 64,
//! x_i = 0.5 + 0.01 i, f32, via a gradient taken inside an outer tape, then the outer
//! tape's jacobian. Prints H[0][0] and H[0][1] so that a fast wrong answer cannot pass.
//!
//! Beside it, forward mode (issue 15's targets): one Hessian-vector product by forward over
//! reverse against one gradient, and the full Hessian from 64 such products
//! (`transforms::jacobian` of the gradient by forward mode).

use criterion::{Criterion, criterion_group, criterion_main};
use gradtape::transforms::{self, JacobianMode};
use gradtape::{GradientTape, Tensor};

const N: usize = 64;

fn rosenbrock(x: &Tensor<f32>) -> Tensor<f32> {
    let (head, tail) = (x.slice(0, 0, N - 1), x.slice(0, 1, N - 1));
    ((tail - head.square()).square() * 100.0 + (1.0 - head).square()).sum()
}

/// One W5 iteration: the gradient under an outer tape, then the outer tape's jacobian.
fn hessian(x: &Tensor<f32>) -> Tensor<f32> {
    let outer = GradientTape::new();
    outer.watch(x);
    let grad = outer.record(|| {
        let inner = GradientTape::new();
        inner.watch(x);
        let f = inner.record(|| rosenbrock(x));
        inner.gradient(&f, x).unwrap().expect("f depends on x")
    });
    outer
        .jacobian(&grad, x)
        .unwrap()
        .expect("the gradient depends on x")
}

fn bench(c: &mut Criterion) {
    let x = Tensor::from_vec((0..N).map(|i| 0.5 + 0.01 * i as f32).collect(), &[N]);
    let h = hessian(&x).to_vec();
    // ∂²f/∂x₀² = 1200 x₀² - 400 x₁ + 2 = 98, ∂²f/∂x₀∂x₁ = -400 x₀ = -200
    println!(
        "W5 hessian: H[0][0] = {}, H[0][1] = {} (analytic 98, -200)",
        h[0], h[1]
    );
    assert!((h[0] - 98.0).abs() < 1e-3 && (h[1] + 200.0).abs() < 1e-3);
    c.bench_function("W5 hessian 64x64", |bench| bench.iter(|| hessian(&x)));

    // forward over reverse
    let v = Tensor::from_vec((0..N).map(|i| ((i % 7) as f32 - 3.0) / 3.0).collect(), &[N]);
    let hv = transforms::hvp(rosenbrock, &x, &v).to_vec();
    let h_times_v: f32 = (0..N).map(|j| h[j] * v.to_vec()[j]).sum();
    println!(
        "W5 hvp: (H v)[0] = {} (the reverse-over-reverse Hessian's row 0 · v: {h_times_v})",
        hv[0]
    );
    assert!((hv[0] - h_times_v).abs() < 1e-2 * (1.0 + h_times_v.abs()));
    let mut group = c.benchmark_group("W5 forward mode");
    group.bench_function("gradient", |bench| {
        bench.iter(|| transforms::grad(rosenbrock, &x))
    });
    group.bench_function("hvp (forward over reverse)", |bench| {
        bench.iter(|| transforms::hvp(rosenbrock, &x, &v))
    });
    group.bench_function("hessian by 64 hvps", |bench| {
        bench.iter(|| {
            transforms::jacobian(
                |x| transforms::grad(rosenbrock, x),
                &x,
                JacobianMode::Forward,
            )
        })
    });
    group.finish();
}

// `criterion_group!` defines an undocumented public function.
#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, bench);
}
use group::benches;
criterion_main!(benches);
