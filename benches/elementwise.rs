//! Elementwise transcendental ops on arrays (issue 14, GradBench's lse): `Tensor::exp` over
//! `f64` and `f32` arrays of 10³–10⁶ elements, beside the same pass with std's `exp` per
//! element (what `Tensor::exp` ran before it had a vectorised kernel: a libm call per
//! element, collected), and lse's primal and gradient as GradBench's eval writes them,
//! `(x - a).exp().sum().ln() + a` with `a` the maximum held constant, at n = 10⁵.
//!
//! One thread (`set_num_threads(1)`), as GradBench runs every tool by default, so the
//! figures are the kernel's and not the split's.

// `criterion_group!` generates an undocumented function.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use gradtape::{GradientTape, Tensor, set_num_threads, stop_gradient};

/// `n` values spread over `[-20, 5)`, as an lse input minus its maximum is (all ≤ 0 there).
fn values(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| -20.0 + 25.0 * ((i as f64 * 0.618_033_988_749_895) % 1.0))
        .collect()
}

fn lse(x: &Tensor<f64>) -> Tensor<f64> {
    let a = stop_gradient(&x.max());
    (x - &a).exp().sum().ln() + a
}

fn benches(c: &mut Criterion) {
    set_num_threads(1).expect("nothing has run yet");
    let mut group = c.benchmark_group("exp");
    for n in [1_000, 100_000, 1_000_000] {
        let v = values(n);
        let x = Tensor::from_vec(v.clone(), &[n]);
        group.bench_with_input(BenchmarkId::new("tensor_f64", n), &x, |b, x| {
            b.iter(|| black_box(x).exp())
        });
        group.bench_with_input(BenchmarkId::new("std_per_element_f64", n), &v, |b, v| {
            b.iter(|| black_box(v).iter().map(|x| x.exp()).collect::<Vec<f64>>())
        });
    }
    let n = 100_000;
    let v32: Vec<f32> = values(n).iter().map(|&x| x as f32).collect();
    let x32 = Tensor::from_vec(v32.clone(), &[n]);
    group.bench_with_input(BenchmarkId::new("tensor_f32", n), &x32, |b, x| {
        b.iter(|| black_box(x).exp())
    });
    group.bench_with_input(BenchmarkId::new("std_per_element_f32", n), &v32, |b, v| {
        b.iter(|| black_box(v).iter().map(|x| x.exp()).collect::<Vec<f32>>())
    });
    group.finish();

    let mut group = c.benchmark_group("lse");
    let x = Tensor::from_vec(values(n), &[n]);
    group.bench_with_input(BenchmarkId::new("primal", n), &x, |b, x| {
        b.iter(|| lse(black_box(x)).to_scalar())
    });
    group.bench_with_input(BenchmarkId::new("gradient", n), &x, |b, x| {
        b.iter(|| {
            let tape = GradientTape::new();
            tape.watch(x);
            let y = tape.record(|| lse(black_box(x)));
            tape.gradient(&y, x).unwrap().unwrap()
        })
    });
    group.finish();
}

criterion_group!(elementwise, benches);
criterion_main!(elementwise);
