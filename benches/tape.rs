//! W1 (`seed_scalar`) and W2 (`chain`) of `../shared/bench/WORKLOADS.md`: the cost of the
//! tape itself, per gradient and per recorded op.

// `criterion_group!` generates an undocumented `pub fn`.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use gradtape::{ForwardAccumulator, GradientTape, Tensor, Variable};

/// W1: open a tape, z = 3 w1² + 2 w1 w2, gradient w.r.t. [w1, w2] (= [36, 10]).
fn w1_seed_scalar(c: &mut Criterion) {
    let (w1, w2) = (Variable::new(5.0_f32), Variable::new(3.0_f32));
    let step = || {
        let tape = GradientTape::new();
        let z = tape.record(|| 3.0 * w1.powi(2) + 2.0 * &w1 * &w2);
        let [d1, d2] = tape.gradient(&z, [&w1, &w2]).expect("one gradient");
        (
            d1.expect("connected").to_scalar(),
            d2.expect("connected").to_scalar(),
        )
    };
    println!("W1 gradient: {:?}", step());
    if profiling() {
        for _ in 0..profile_iterations("W1_PROFILE_ITERS") {
            black_box(step());
        }
        return;
    }
    c.bench_function("W1 seed_scalar (record + gradient)", |b| {
        b.iter(|| black_box(step()))
    });
}

const CHAIN_STEPS: usize = 10_000;
/// sin, two scalar multiplications and an addition per step.
const OPS_PER_STEP: usize = 4;

fn chain(x: &Tensor<f32>) -> Tensor<f32> {
    let mut y = x.clone();
    for _ in 0..CHAIN_STEPS {
        y = y.sin() * 0.9 + &y * 0.1;
    }
    y
}

/// W2: y = x; 10,000 times y = sin(y)·0.9 + y·0.1 (40,000 recorded ops); dy/dx.
/// `W2_CHECK_NUMERICS=1` runs it on a tape in anomaly mode.
fn w2_chain(c: &mut Criterion) {
    let x = Variable::new(0.5_f32);
    // `W2_CHECK_NUMERICS=1`: the same in anomaly mode, to count what it costs
    let check_numerics = std::env::var_os("W2_CHECK_NUMERICS").is_some();
    let record_and_backward = || {
        let tape = GradientTape::builder()
            .check_numerics(check_numerics)
            .build();
        let y = tape.record(|| chain(&x.value()));
        tape.gradient(&y, &x)
            .expect("one gradient")
            .expect("connected")
            .to_scalar()
    };
    println!("W2 dy/dx: {}", record_and_backward());
    // forward mode through the tape's machinery: a tangent beside every value
    let x0 = Tensor::scalar(0.5_f32);
    let forward = || {
        let acc = ForwardAccumulator::new(&x0, Tensor::scalar(1.0_f32)).expect("0-d tangent");
        let y = acc.record(|| chain(&x0));
        acc.jvp(&y).expect("connected").to_scalar()
    };
    println!("W2 dy/dx by forward mode: {}", forward());
    if profiling() {
        // `W2_PROFILE_CASE` picks the case counted: `tape` (the default), `plain` or
        // `forward`.
        let case = std::env::var("W2_PROFILE_CASE").unwrap_or_else(|_| "tape".into());
        let step: &dyn Fn() -> f32 = match case.as_str() {
            "tape" => &record_and_backward,
            "plain" => &|| chain(&x.value()).to_scalar(),
            "forward" => &forward,
            other => panic!("W2_PROFILE_CASE: unknown case {other:?} (tape, plain, forward)"),
        };
        for _ in 0..profile_iterations("W2_PROFILE_ITERS") {
            black_box(step());
        }
        return;
    }
    let mut group = c.benchmark_group("W2 chain");
    group.throughput(criterion::Throughput::Elements(
        (CHAIN_STEPS * OPS_PER_STEP) as u64,
    ));
    group.bench_function("record + backward", |b| {
        b.iter(|| black_box(record_and_backward()))
    });
    group.bench_function("plain forward, no tape", |b| {
        b.iter(|| black_box(chain(&x.value()).to_scalar()))
    });
    group.bench_function("forward accumulator", |b| b.iter(|| black_box(forward())));
    group.finish();
}

/// `W1_PROFILE_ITERS=n` / `W2_PROFILE_ITERS=n`: run that workload `n` times and no
/// criterion (the other workload not at all): a fixed amount of work to count under
/// callgrind, whose instruction counts the host's speed does not move. Two runs with
/// different `n` give the count per iteration by difference.
fn profile_iterations(var: &str) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn profiling() -> bool {
    ["W1_PROFILE_ITERS", "W2_PROFILE_ITERS"]
        .iter()
        .any(|var| std::env::var_os(var).is_some())
}

criterion_group!(benches, w1_seed_scalar, w2_chain);
criterion_main!(benches);
