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
//!
//! Third group: structs passed on whole, a two-layer model whose layers are handed to an
//! annotated `dense(#[differentiable] layer: &Dense, x: &[f64])` (`dense(&m.hidden, x)`),
//! the hidden layer over 10⁵ inputs, its gradient a `TwoLayer` (`two_layer::grad_into`),
//! against the same model over the layers' fields as parameters of their own and the
//! derivative by hand.
//!
//! Fourth group: a method of a model held constant, called in a loop (Euler steps of
//! `y′ = rate(x, y)` over 10⁴ elements, 200 steps, `self.rate(x, &y, &mut k)`), through
//! `run_grad_into`, against the same body with the rate a free function taking the
//! model's constant as an argument. Both calls are replayed (the callee's `vjp_into` on
//! saved copies); a method's call once kept a boxed pullback per call instead.
//!
//! Fifth group: struct results held whole, a pendulum's state `State { x, v }` replaced by
//! each step's in a loop of 10⁴ steps (`s = step(&s, dt)`), the gradient of the final
//! energy with respect to the initial state, through `grad` (the struct held whole), the
//! same loop over a local struct of the fields (`State { x: .., v: .. }` passed whole), and
//! the derivative by hand (the trajectory kept, the step's Jacobian transposed backwards).
//!
//! Sixth group: array results, the same pendulum with the state `[x, v]` a local array
//! replaced by each step's array result (`s = step(&s, dt)`, through the step's writer),
//! against the struct held whole and by hand.

// `criterion_group!` generates an undocumented function; the layers index their
// weights and inputs together, as a user writes a dot product.
#![allow(missing_docs, clippy::needless_range_loop)]

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

#[derive(Differentiable, Debug, Clone)]
struct Dense {
    w: Vec<f64>,
    b: f64,
}

#[derive(Differentiable, Debug, Clone)]
struct TwoLayer {
    hidden: Dense,
    out: Dense,
    scale: f64,
}

#[differentiable]
fn dense(#[differentiable] layer: &Dense, x: &[f64]) -> f64 {
    let mut s = layer.b;
    for i in 0..x.len() {
        s += layer.w[i] * x[i];
    }
    s.tanh()
}

#[differentiable(constant(x))]
fn two_layer(#[differentiable] m: &TwoLayer, x: &[f64]) -> f64 {
    let h = dense(&m.hidden, x);
    let features = [h, h * h];
    dense(&m.out, &features) * m.scale
}

#[differentiable]
fn dense_fields(w: &[f64], b: f64, x: &[f64]) -> f64 {
    let mut s = b;
    for i in 0..x.len() {
        s += w[i] * x[i];
    }
    s.tanh()
}

#[differentiable(constant(x))]
fn two_layer_fields(hw: &[f64], hb: f64, ow: &[f64], ob: f64, scale: f64, x: &[f64]) -> f64 {
    let h = dense_fields(hw, hb, x);
    let features = [h, h * h];
    dense_fields(ow, ob, &features) * scale
}

/// `f = scale · tanh(b₂ + v₀h + v₁h²)`, `h = tanh(b₁ + w·x)`, its gradient added into `d`.
fn two_layer_by_hand(m: &TwoLayer, x: &[f64], d: &mut TwoLayer) -> f64 {
    let s1 = m.hidden.b + m.hidden.w.iter().zip(x).map(|(w, x)| w * x).sum::<f64>();
    let h = s1.tanh();
    let v = &m.out.w;
    let o = (m.out.b + v[0] * h + v[1] * h * h).tanh();
    let ds2 = m.scale * (1.0 - o * o);
    d.scale += o;
    d.out.w[0] += ds2 * h;
    d.out.w[1] += ds2 * h * h;
    d.out.b += ds2;
    let ds1 = ds2 * (v[0] + 2.0 * v[1] * h) * (1.0 - h * h);
    d.hidden.b += ds1;
    for (d, x) in d.hidden.w.iter_mut().zip(x) {
        *d += ds1 * x;
    }
    m.scale * o
}

fn bench_layers(c: &mut Criterion) {
    let x: Vec<f64> = (0..N)
        .map(|i| ((i * 7919) % 1000) as f64 * 0.002 - 1.0)
        .collect();
    let m = TwoLayer {
        hidden: Dense {
            w: (0..N)
                .map(|i| ((i * 104_729) % 997) as f64 * 1e-5 - 5e-3)
                .collect(),
            b: 0.1,
        },
        out: Dense {
            w: vec![0.7, -0.4],
            b: -0.3,
        },
        scale: 1.3,
    };
    let mut d = m.zero_like();
    let value = two_layer::grad_into(&m, &x, &mut d);
    let summary = |d: &TwoLayer| {
        (
            d.hidden.w.iter().sum::<f64>(),
            d.hidden.b,
            d.out.w.clone(),
            d.out.b,
            d.scale,
        )
    };
    println!(
        "struct grad_into: value {value:.12}, gradient {:?}",
        summary(&d)
    );
    let mut by_hand = m.zero_like();
    let value = two_layer_by_hand(&m, &x, &mut by_hand);
    println!(
        "by hand:          value {value:.12}, gradient {:?}",
        summary(&by_hand)
    );

    let mut group = c.benchmark_group("two layers over 10^5 inputs, structs passed on whole");
    group.bench_function("grad_into (layers passed on whole)", |b| {
        b.iter(|| {
            d = d.zero_like();
            black_box(two_layer::grad_into(black_box(&m), black_box(&x), &mut d))
        })
    });
    let (mut d_hw, mut d_ow) = (vec![0.0; N], vec![0.0; 2]);
    let (mut d_hb, mut d_ob, mut d_scale) = (0.0, 0.0, 0.0);
    group.bench_function("grad_into (fields as parameters)", |b| {
        b.iter(|| {
            d_hw.fill(0.0);
            d_ow.fill(0.0);
            black_box(two_layer_fields::grad_into(
                black_box(&m.hidden.w),
                m.hidden.b,
                &m.out.w,
                m.out.b,
                m.scale,
                black_box(&x),
                &mut d_hw,
                &mut d_hb,
                &mut d_ow,
                &mut d_ob,
                &mut d_scale,
            ))
        })
    });
    group.bench_function("by hand", |b| {
        b.iter(|| {
            d = d.zero_like();
            black_box(two_layer_by_hand(black_box(&m), black_box(&x), &mut d))
        })
    });
    group.bench_function("primal", |b| {
        b.iter(|| black_box(two_layer::primal(black_box(&m), black_box(&x))))
    });
    group.finish();
    // used directly too (the annotated functions are otherwise only reached through
    // their companion items)
    assert_eq!(
        two_layer(&m, &x).to_bits(),
        two_layer_fields(&m.hidden.w, m.hidden.b, &m.out.w, m.out.b, m.scale, &x).to_bits()
    );
}

/// A damped right-hand side as the method of a model held constant.
struct Stepper {
    damping: f64,
    dt: f64,
}

#[differentiable]
impl Stepper {
    #[differentiable]
    fn rate(&self, x: &[f64], y: &[f64], out: &mut [f64]) {
        out[0] = x[0] - self.damping * y[0];
        for i in 1..x.len() {
            out[i] = x[i] * y[i - 1] - self.damping * y[i];
        }
    }

    #[differentiable]
    fn run(&self, x: &[f64]) -> f64 {
        let n = x.len();
        let mut y = vec![1.0; n];
        let mut k = vec![0.0; n];
        for _ in 0..STEPS {
            self.rate(x, &y, &mut k);
            for i in 0..n {
                y[i] += self.dt * k[i];
            }
        }
        y.iter().sum()
    }
}

const STEPS: usize = 200;

/// [`Stepper::rate`] as a free function, the model's constant an argument held constant.
#[differentiable(constant(damping))]
fn free_rate(damping: f64, x: &[f64], y: &[f64], out: &mut [f64]) {
    out[0] = x[0] - damping * y[0];
    for i in 1..x.len() {
        out[i] = x[i] * y[i - 1] - damping * y[i];
    }
}

/// [`Stepper::run`] through [`free_rate`].
#[differentiable(constant(damping, dt))]
fn free_run(damping: f64, dt: f64, x: &[f64]) -> f64 {
    let n = x.len();
    let mut y = vec![1.0; n];
    let mut k = vec![0.0; n];
    for _ in 0..STEPS {
        free_rate(damping, x, &y, &mut k);
        for i in 0..n {
            y[i] += dt * k[i];
        }
    }
    y.iter().sum()
}

fn bench_methods(c: &mut Criterion) {
    let n = 10_000;
    let x: Vec<f64> = (0..n)
        .map(|i| 0.5 + 0.4 * ((i as f64) * 0.37).sin())
        .collect();
    // (from y = 1, damped: no element of the state decays into subnormal numbers, whose
    // arithmetic would be what is timed)
    let stepper = Stepper {
        damping: 1.0,
        dt: 0.05,
    };
    let mut d_method = vec![0.0; n];
    let mut d_free = vec![0.0; n];
    let value = stepper.run_grad_into(&x, &mut d_method);
    let free_value = free_run::grad_into(stepper.damping, stepper.dt, &x, &mut d_free);
    assert_eq!(value.to_bits(), free_value.to_bits());
    assert_eq!(value.to_bits(), stepper.run(&x).to_bits());
    assert_eq!(
        free_value.to_bits(),
        free_run(stepper.damping, stepper.dt, &x).to_bits()
    );
    assert!(
        d_method
            .iter()
            .zip(&d_free)
            .all(|(a, b)| (a - b).abs() <= 1e-12 * (1.0 + b.abs()))
    );
    println!("method in a loop: value {value}, d/dx[0] {}", d_method[0]);
    let mut group = c.benchmark_group("method called in a loop (n = 10^4, 200 steps)");
    group.bench_function("run_grad_into (method)", |b| {
        b.iter(|| {
            d_method.fill(0.0);
            black_box(stepper.run_grad_into(black_box(&x), &mut d_method))
        })
    });
    group.bench_function("grad_into (free function)", |b| {
        b.iter(|| {
            d_free.fill(0.0);
            black_box(free_run::grad_into(1.0, 0.05, black_box(&x), &mut d_free))
        })
    });
    group.bench_function("primal (method)", |b| {
        b.iter(|| black_box(stepper.run_primal(black_box(&x))))
    });
    group.finish();
}

#[derive(Differentiable, Clone, Copy, Debug)]
struct State {
    x: f64,
    v: f64,
}

/// The first semi-implicit Euler step of a pendulum, from the floats.
#[differentiable]
fn first_step(x: f64, v: f64, dt: f64) -> State {
    let v = v - dt * x.sin();
    State { x: x + dt * v, v }
}

/// One semi-implicit Euler step of a state passed whole.
#[differentiable]
fn pendulum_step(#[differentiable] s: &State, dt: f64) -> State {
    let v = s.v - dt * s.x.sin();
    State { x: s.x + dt * v, v }
}

#[differentiable]
fn energy(#[differentiable] s: &State) -> f64 {
    0.5 * s.v * s.v + 1.0 - s.x.cos()
}

const PENDULUM_STEPS: usize = 10_000;

/// The final energy, the state a struct result held whole.
#[differentiable(constant(dt))]
fn final_energy(x0: f64, v0: f64, dt: f64) -> f64 {
    let mut s = first_step(x0, v0, dt);
    for _ in 1..PENDULUM_STEPS {
        s = pendulum_step(&s, dt);
    }
    energy(&s)
}

/// The same over a local struct of the first step's fields.
#[differentiable(constant(dt))]
fn final_energy_local(x0: f64, v0: f64, dt: f64) -> f64 {
    let first = first_step(x0, v0, dt);
    let mut s = State {
        x: first.x,
        v: first.v,
    };
    for _ in 1..PENDULUM_STEPS {
        s = pendulum_step(&s, dt);
    }
    energy(&s)
}

/// The gradient by hand: the states kept forward, then `(∂E/∂x, ∂E/∂v)` carried back
/// through each step's Jacobian, transposed (`v' = v − dt sin x`, `x' = x + dt v'`).
fn final_energy_by_hand(x0: f64, v0: f64, dt: f64, xs: &mut Vec<f64>) -> (f64, [f64; 2]) {
    xs.clear();
    let (mut x, mut v) = (x0, v0);
    for _ in 0..PENDULUM_STEPS {
        xs.push(x);
        v -= dt * x.sin();
        x += dt * v;
    }
    let value = 0.5 * v * v + 1.0 - x.cos();
    let (mut gx, mut gv) = (x.sin(), v);
    for &x in xs.iter().rev() {
        // x' = x + dt v', v' = v − dt sin x: first through x' (gv' += dt gx'), then v'
        gv += dt * gx;
        gx -= dt * x.cos() * gv;
    }
    (value, [gx, gv])
}

fn bench_struct_results(c: &mut Criterion) {
    let (x0, v0, dt) = (1.1, -0.3, 1e-3);
    let (value, [dx, dv]) = final_energy::grad(x0, v0, dt);
    let (local_value, [local_dx, local_dv]) = final_energy_local::grad(x0, v0, dt);
    let mut xs = Vec::with_capacity(PENDULUM_STEPS);
    let (hand_value, [hand_dx, hand_dv]) = final_energy_by_hand(x0, v0, dt, &mut xs);
    // (used directly too: the annotated functions are otherwise only reached through
    // their companion items)
    assert_eq!(value.to_bits(), final_energy(x0, v0, dt).to_bits());
    assert_eq!(
        local_value.to_bits(),
        final_energy_local(x0, v0, dt).to_bits()
    );
    assert_eq!(
        (value.to_bits(), dx.to_bits(), dv.to_bits()),
        (
            local_value.to_bits(),
            local_dx.to_bits(),
            local_dv.to_bits()
        )
    );
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-10 * (1.0 + b.abs());
    assert!(close(value, hand_value) && close(dx, hand_dx) && close(dv, hand_dv));
    println!("pendulum: energy {value}, gradient ({dx}, {dv}); by hand ({hand_dx}, {hand_dv})");
    let mut group = c.benchmark_group("struct results, a pendulum over 10^4 steps");
    group.bench_function("grad (state held whole)", |b| {
        b.iter(|| black_box(final_energy::grad(black_box(x0), black_box(v0), dt)))
    });
    group.bench_function("grad (local struct of the fields)", |b| {
        b.iter(|| black_box(final_energy_local::grad(black_box(x0), black_box(v0), dt)))
    });
    group.bench_function("by hand", |b| {
        b.iter(|| {
            black_box(final_energy_by_hand(
                black_box(x0),
                black_box(v0),
                dt,
                &mut xs,
            ))
        })
    });
    group.bench_function("primal", |b| {
        b.iter(|| black_box(final_energy::primal(black_box(x0), black_box(v0), dt)))
    });
    group.finish();
}

/// One semi-implicit Euler step of the pendulum, the state an array (`[x, v]`).
#[differentiable]
fn pendulum_step_array(s: &[f64; 2], dt: f64) -> [f64; 2] {
    let v = s[1] - dt * s[0].sin();
    [s[0] + dt * v, v]
}

/// The final energy, the state a local array replaced by each step's array result.
#[differentiable(constant(dt))]
fn final_energy_array(x0: f64, v0: f64, dt: f64) -> f64 {
    let mut s = [x0, v0];
    for _ in 0..PENDULUM_STEPS {
        s = pendulum_step_array(&s, dt);
    }
    0.5 * s[1] * s[1] + 1.0 - s[0].cos()
}

fn bench_array_results(c: &mut Criterion) {
    let (x0, v0, dt) = (1.1, -0.3, 1e-3);
    let (value, [dx, dv]) = final_energy_array::grad(x0, v0, dt);
    let mut xs = Vec::with_capacity(PENDULUM_STEPS);
    let (hand_value, [hand_dx, hand_dv]) = final_energy_by_hand(x0, v0, dt, &mut xs);
    assert_eq!(value.to_bits(), final_energy_array(x0, v0, dt).to_bits());
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-10 * (1.0 + b.abs());
    assert!(close(value, hand_value) && close(dx, hand_dx) && close(dv, hand_dv));
    let mut group = c.benchmark_group("array results, a pendulum over 10^4 steps");
    group.bench_function("grad (state an array result)", |b| {
        b.iter(|| black_box(final_energy_array::grad(black_box(x0), black_box(v0), dt)))
    });
    group.bench_function("grad (state a struct result held whole)", |b| {
        b.iter(|| black_box(final_energy::grad(black_box(x0), black_box(v0), dt)))
    });
    group.bench_function("by hand", |b| {
        b.iter(|| {
            black_box(final_energy_by_hand(
                black_box(x0),
                black_box(v0),
                dt,
                &mut xs,
            ))
        })
    });
    group.bench_function("primal", |b| {
        b.iter(|| black_box(final_energy_array::primal(black_box(x0), black_box(v0), dt)))
    });
    group.finish();
}

criterion_group!(
    benches,
    bench,
    bench_struct,
    bench_layers,
    bench_methods,
    bench_struct_results,
    bench_array_results
);
criterion_main!(benches);
