//! `#[differentiable]` on a slice (issue 13): the tape-free gradient of a log-sum-exp over
//! a `&[f64]` of 10⁵ elements, written as a user would (a `fold` for the maximum, a
//! `map(..).sum()` for the normaliser), through `f::grad_into` (the gradient into the
//! caller's buffer) and `f::grad` (a new `Vec`), against the derivative written by hand
//! (`∂/∂xᵢ = exp(xᵢ - m) / Σⱼ exp(xⱼ - m)`) in the same bench. Each prints the value and
//! the sum of the gradient it computed (1 for every one of them: a softmax sums to one).

// `criterion_group!` generates an undocumented function.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use gradtape::differentiable;

#[differentiable]
fn log_sum_exp(x: &[f64]) -> f64 {
    let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let s: f64 = x.iter().map(|v| (v - m).exp()).sum();
    s.ln() + m
}

/// The value and gradient of log-sum-exp written by hand: the exponentials go into the
/// gradient buffer, which is then scaled by the normaliser's reciprocal (one `exp` per
/// element, as the generated code computes).
fn log_sum_exp_by_hand(x: &[f64], dx: &mut [f64]) -> f64 {
    let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let mut s = 0.0;
    for (d, v) in dx.iter_mut().zip(x) {
        let e = (v - m).exp();
        *d += e;
        s += e;
    }
    let r = 1.0 / s;
    for d in dx.iter_mut() {
        *d *= r;
    }
    s.ln() + m
}

const N: usize = 100_000;

fn bench(c: &mut Criterion) {
    let x: Vec<f64> = (0..N)
        .map(|i| ((i * 7919) % 1000) as f64 * 0.01 - 5.0)
        .collect();
    let mut dx = vec![0.0; N];

    dx.fill(0.0);
    let value = log_sum_exp::grad_into(&x, &mut dx);
    println!(
        "grad_into: value {value:.12}, gradient sum {:.12}",
        dx.iter().sum::<f64>()
    );
    dx.fill(0.0);
    let value = log_sum_exp_by_hand(&x, &mut dx);
    println!(
        "by hand:   value {value:.12}, gradient sum {:.12}",
        dx.iter().sum::<f64>()
    );
    println!("itself:    value {:.12}", log_sum_exp(&x));
    let (value, [g]) = log_sum_exp::grad(&x);
    println!(
        "grad:      value {value:.12}, gradient sum {:.12}",
        g.iter().sum::<f64>()
    );

    let mut group = c.benchmark_group("log-sum-exp over 10^5");
    group.bench_function("grad_into (annotated)", |b| {
        b.iter(|| {
            dx.fill(0.0);
            black_box(log_sum_exp::grad_into(black_box(&x), &mut dx))
        })
    });
    group.bench_function("by hand", |b| {
        b.iter(|| {
            dx.fill(0.0);
            black_box(log_sum_exp_by_hand(black_box(&x), &mut dx))
        })
    });
    group.bench_function("grad (annotated, new Vec)", |b| {
        b.iter(|| black_box(log_sum_exp::grad(black_box(&x))))
    });
    group.bench_function("primal", |b| {
        b.iter(|| black_box(log_sum_exp::primal(black_box(&x))))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
