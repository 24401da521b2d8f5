//! W3 `linreg` (../shared/bench/WORKLOADS.md): the seed's linear regression. x_i = -1 + 2i/255
//! for i = 0..255, y = 10x + 5, a = b = 0, loss = mean((a·x + b - y)²), SGD with learning
//! rate 0.1. Reports microseconds per step (record + gradient + update) and prints the
//! fitted a, b after 1,000 steps (≈ 10, 5).

// criterion_group! defines a public function it does not document.
#![allow(missing_docs)]

use criterion::{Criterion, black_box, criterion_group, criterion_main};
use gradtape::nn::{Optimizer, Sgd};
use gradtape::{GradientTape, Tensor, Variable};

struct Problem {
    x: Tensor<f32>,
    y: Tensor<f32>,
    a: Variable<f32>,
    b: Variable<f32>,
    sgd: Sgd<f32>,
}

impl Problem {
    fn new() -> Problem {
        let x = Tensor::linspace(-1.0_f32, 1.0, 256);
        let y = &x * 10.0 + 5.0;
        Problem {
            x,
            y,
            a: Variable::with_name("a", 0.0_f32),
            b: Variable::with_name("b", 0.0_f32),
            sgd: Sgd::new(0.1),
        }
    }

    fn step(&mut self) -> f32 {
        let tape = GradientTape::new();
        let loss = tape.record(|| (&self.a * &self.x + &self.b - &self.y).square().mean());
        let [da, db] = tape
            .gradient(&loss, [&self.a, &self.b])
            .expect("fresh tape");
        self.sgd.apply_gradients([(da, &self.a), (db, &self.b)]);
        loss.to_scalar()
    }
}

fn linreg(c: &mut Criterion) {
    let mut check = Problem::new();
    for _ in 0..1000 {
        check.step();
    }
    // (and exactly: `Debug` prints the shortest digits that read back as the same `f32`,
    // so two runs that print the same took the same gradients, to the bit)
    let (a, b) = (check.a.value().to_scalar(), check.b.value().to_scalar());
    println!("W3 linreg: after 1000 steps a = {a:.4}, b = {b:.4} (exactly {a:?}, {b:?})");
    // `W3_PROFILE_STEPS=n`: n more steps and no criterion, a fixed amount of work to count
    // under callgrind (two runs with different n give the count per step by difference).
    if let Some(steps) = std::env::var("W3_PROFILE_STEPS")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        for _ in 0..steps {
            black_box(check.step());
        }
        return;
    }
    let mut problem = Problem::new();
    c.bench_function("W3 linreg step", |bench| {
        bench.iter(|| black_box(problem.step()))
    });
}

criterion_group!(benches, linreg);
criterion_main!(benches);
