//! The plain-helper fallback of `#[differentiable]` (issue 13): the gradient of a robust
//! regression loss over 1,000 points, each residual through a helper (a Huber loss and a
//! softplus), written three times in one bench: the helpers annotated (the compile-time
//! adjoint), the same helpers plain and named in `plain(..)` (each call on dual numbers),
//! and the derivative written by hand. Each prints its value and gradient.

// `criterion_group!` generates an undocumented function.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use gradtape::differentiable;

macro_rules! helpers {
    ($(#[$attr:meta])*) => {
        $(#[$attr])*
        pub fn huber<T: Float>(r: T, delta: T) -> T {
            let a = r.abs();
            if a <= delta {
                T::from(0.5).unwrap() * r * r
            } else {
                delta * (a - T::from(0.5).unwrap() * delta)
            }
        }

        $(#[$attr])*
        pub fn softplus<T: Float>(x: T) -> T {
            x.exp().ln_1p()
        }
    };
}

mod plain {
    use num_traits::Float;
    helpers!();
}

mod annotated {
    use gradtape::differentiable;
    use num_traits::Float;
    helpers!(#[differentiable]);
}

const N: usize = 1000;

macro_rules! loss {
    ($(#[$attr:meta])* $name:ident, $m:ident) => {
        $(#[$attr])*
        fn $name(a: f64, b: f64, delta: f64) -> f64 {
            let mut total = 0.0;
            for k in 0..N {
                let x = k as f64 / N as f64;
                let y = (3.0 * x).sin();
                let r = a * x + b - y;
                total += $m::huber(r, delta) + 0.01 * $m::softplus(r);
            }
            total
        }
    };
}

loss!(
    #[differentiable]
    with_annotated,
    annotated
);
loss!(
    #[differentiable(plain(plain::huber, plain::softplus))]
    with_plain,
    plain
);

/// The loss and its gradient by hand.
fn by_hand(a: f64, b: f64, delta: f64) -> (f64, [f64; 3]) {
    let (mut total, mut g) = (0.0, [0.0; 3]);
    for k in 0..N {
        let x = k as f64 / N as f64;
        let y = (3.0 * x).sin();
        let r = a * x + b - y;
        let (value, dr, ddelta) = if r.abs() <= delta {
            (0.5 * r * r, r, 0.0)
        } else {
            (
                delta * (r.abs() - 0.5 * delta),
                delta * r.signum(),
                r.abs() - delta,
            )
        };
        let s = 1.0 / (1.0 + (-r).exp());
        total += value + 0.01 * r.exp().ln_1p();
        let dr = dr + 0.01 * s;
        g[0] += dr * x;
        g[1] += dr;
        g[2] += ddelta;
    }
    (total, g)
}

fn bench(c: &mut Criterion) {
    let (a, b, delta) = (0.8, -0.1, 0.3);
    assert_eq!(with_annotated(a, b, delta), with_plain(a, b, delta));
    println!("annotated: {:?}", with_annotated::grad(a, b, delta));
    println!("plain:     {:?}", with_plain::grad(a, b, delta));
    println!("by hand:   {:?}", by_hand(a, b, delta));
    let mut group = c.benchmark_group("plain helpers");
    group.bench_function("annotated helpers, grad", |bench| {
        bench.iter(|| with_annotated::grad(black_box(a), black_box(b), black_box(delta)))
    });
    group.bench_function("plain helpers on dual numbers, grad", |bench| {
        bench.iter(|| with_plain::grad(black_box(a), black_box(b), black_box(delta)))
    });
    group.bench_function("by hand", |bench| {
        bench.iter(|| by_hand(black_box(a), black_box(b), black_box(delta)))
    });
    group.bench_function("primal", |bench| {
        bench.iter(|| with_plain::primal(black_box(a), black_box(b), black_box(delta)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
