//! `#[differentiable]` on a slice (issue 13): the tape-free gradient of a log-sum-exp over
//! a `&[f64]` of 10⁵ elements, written as a user would (a `fold` for the maximum, a
//! `map(..).sum()` for the normaliser), through `f::grad_into` (the gradient into the
//! caller's buffer) and `f::grad` (a new `Vec`), against the derivative written by hand
//! (`∂/∂xᵢ = exp(xᵢ - m) / Σⱼ exp(xⱼ - m)`) in the same bench. Each prints the value and
//! the sum of the gradient it computed (1 for every one of them: a softmax sums to one).
//!
//! Second group: a struct of floats as a differentiable parameter, a Gaussian's negative
//! log-likelihood over 10⁵ samples, `nll(#[differentiable] p: &Gaussian, data: &[f64])`,
//! its gradient a `Gaussian` (`nll::grad_into` into a `&mut Gaussian`), against the same
//! body over the fields as parameters of their own and the derivative by hand.

// `criterion_group!` generates an undocumented function.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use gradtape::{Differentiable, differentiable};

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

#[derive(Differentiable, Debug, Clone)]
struct Gaussian {
    mu: f64,
    log_sigma: f64,
}

#[differentiable(constant(data))]
fn nll(#[differentiable] p: &Gaussian, data: &[f64]) -> f64 {
    let inv_sigma = (-p.log_sigma).exp();
    let mut total = 0.0;
    for x in data {
        let z = (x - p.mu) * inv_sigma;
        total += 0.5 * z * z + p.log_sigma;
    }
    total
}

/// The same body over the fields as parameters of their own.
#[differentiable(constant(data))]
fn nll_fields(mu: f64, log_sigma: f64, data: &[f64]) -> f64 {
    let inv_sigma = (-log_sigma).exp();
    let mut total = 0.0;
    for x in data {
        let z = (x - mu) * inv_sigma;
        total += 0.5 * z * z + log_sigma;
    }
    total
}

/// By hand: ∂/∂mu = −Σ z / σ, ∂/∂log σ = Σ (1 − z²), in one pass.
fn nll_by_hand(p: &Gaussian, data: &[f64], d: &mut Gaussian) -> f64 {
    let inv_sigma = (-p.log_sigma).exp();
    let (mut total, mut sum_z, mut sum_z2) = (0.0, 0.0, 0.0);
    for x in data {
        let z = (x - p.mu) * inv_sigma;
        total += 0.5 * z * z + p.log_sigma;
        sum_z += z;
        sum_z2 += z * z;
    }
    d.mu -= sum_z * inv_sigma;
    d.log_sigma += data.len() as f64 - sum_z2;
    total
}

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

fn bench_struct(c: &mut Criterion) {
    let data: Vec<f64> = (0..N)
        .map(|i| ((i * 7919) % 1000) as f64 * 0.004 - 1.5)
        .collect();
    let p = Gaussian {
        mu: 0.3,
        log_sigma: 0.2,
    };
    let mut d = p.zero_like();
    let value = nll::grad_into(&p, &data, &mut d);
    println!("struct grad_into: value {value:.9}, gradient {d:?}");
    let mut by_hand = p.zero_like();
    let value = nll_by_hand(&p, &data, &mut by_hand);
    println!("by hand:          value {value:.9}, gradient {by_hand:?}");
    println!(
        "itself:           value {:.9} (fields as parameters {:.9})",
        nll(&p, &data),
        nll_fields(p.mu, p.log_sigma, &data)
    );

    let mut group = c.benchmark_group("Gaussian nll over 10^5, struct parameter");
    group.bench_function("grad_into (struct parameter)", |b| {
        b.iter(|| {
            d = d.zero_like();
            black_box(nll::grad_into(black_box(&p), black_box(&data), &mut d))
        })
    });
    group.bench_function("grad (fields as parameters)", |b| {
        b.iter(|| black_box(nll_fields::grad(p.mu, p.log_sigma, black_box(&data))))
    });
    group.bench_function("by hand", |b| {
        b.iter(|| {
            d = d.zero_like();
            black_box(nll_by_hand(black_box(&p), black_box(&data), &mut d))
        })
    });
    group.bench_function("primal", |b| {
        b.iter(|| black_box(nll::primal(black_box(&p), black_box(&data))))
    });
    group.finish();
}

criterion_group!(benches, bench, bench_struct);
criterion_main!(benches);
