//! `#[differentiable]` on arrays of rows (issue 13): the tape-free gradient of a k-means
//! cost (`Σ_p min_c |p - c|²`, 10⁴ points and 8 centroids in 4 dimensions) through
//! `f::grad_into` (points and centroids both differentiated), over ragged rows
//! (`&[Vec<f64>]`: index `i * RAGGED_STRIDE + j`, a shadow of rows) and over fixed rows
//! (`&[[f64; 4]]`: one flat shadow), against the derivative written by hand
//! (`∂/∂c = Σ_{p nearest c} 2 (c - p)`, `∂/∂p = 2 (p - c)`) in the same bench. Each prints
//! the value and the sum of the magnitudes of the centroids' gradient it computed (the
//! buffers accumulate over the runs; the first run's is printed).

// `criterion_group!` generates an undocumented function.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use gradtape::differentiable;

/// The same k-means cost over rows of the type given, as a user writes it (a `$row:ty`
/// fragment, which reaches the attribute in an invisible group it reads through).
macro_rules! kmeans {
    ($name:ident, $row:ty) => {
        #[differentiable]
        fn $name(points: &[$row], centroids: &[$row]) -> f64 {
            let mut cost = 0.0;
            for p in points {
                let mut best = f64::INFINITY;
                for c in centroids {
                    let d: f64 = p.iter().zip(c.iter()).map(|(a, b)| (a - b) * (a - b)).sum();
                    best = best.min(d);
                }
                cost += best;
            }
            cost
        }
    };
}

kmeans!(kmeans_ragged, Vec<f64>);
kmeans!(kmeans_fixed, [f64; 4]);

/// The value and the gradients written by hand: each point gets `2 (p - c)` and its
/// nearest centroid (the first of equal distances, as `min` keeps) `2 (c - p)`.
fn kmeans_by_hand(
    points: &[[f64; 4]],
    centroids: &[[f64; 4]],
    dp: &mut [[f64; 4]],
    dc: &mut [[f64; 4]],
) -> f64 {
    let mut cost = 0.0;
    for (p, dp) in points.iter().zip(dp) {
        let (mut best, mut nearest) = (f64::INFINITY, 0);
        for (k, c) in centroids.iter().enumerate() {
            let d: f64 = p.iter().zip(c).map(|(a, b)| (a - b) * (a - b)).sum();
            if d < best {
                (best, nearest) = (d, k);
            }
        }
        for j in 0..4 {
            let g = 2.0 * (centroids[nearest][j] - p[j]);
            dc[nearest][j] += g;
            dp[j] -= g;
        }
        cost += best;
    }
    cost
}

const POINTS: usize = 10_000;
const CENTROIDS: usize = 8;

fn bench(c: &mut Criterion) {
    let coordinate = |i: usize| ((i * 7919) % 1000) as f64 * 0.01 - 5.0;
    let fixed: Vec<[f64; 4]> = (0..POINTS)
        .map(|i| [0, 1, 2, 3].map(|j| coordinate(4 * i + j)))
        .collect();
    let centroids: Vec<[f64; 4]> = (0..CENTROIDS)
        .map(|k| [0, 1, 2, 3].map(|j| coordinate(31 * k + 7 * j + 3)))
        .collect();
    let ragged: Vec<Vec<f64>> = fixed.iter().map(|p| p.to_vec()).collect();
    let ragged_centroids: Vec<Vec<f64>> = centroids.iter().map(|c| c.to_vec()).collect();
    let (mut dp_ragged, mut dc_ragged) =
        (vec![vec![0.0; 4]; POINTS], vec![vec![0.0; 4]; CENTROIDS]);
    let (mut dp, mut dc) = (vec![[0.0; 4]; POINTS], vec![[0.0; 4]; CENTROIDS]);

    let value =
        kmeans_ragged::grad_into(&ragged, &ragged_centroids, &mut dp_ragged, &mut dc_ragged);
    let sum: f64 = dc_ragged.iter().flatten().map(|g| g.abs()).sum();
    println!("ragged:  value {value:.9}, centroids' |gradient| sum {sum:.9}");
    let value = kmeans_fixed::grad_into(&fixed, &centroids, &mut dp, &mut dc);
    let sum: f64 = dc.iter().flatten().map(|g| g.abs()).sum();
    println!("fixed:   value {value:.9}, centroids' |gradient| sum {sum:.9}");
    dp.iter_mut().for_each(|g| *g = [0.0; 4]);
    dc.iter_mut().for_each(|g| *g = [0.0; 4]);
    let value = kmeans_by_hand(&fixed, &centroids, &mut dp, &mut dc);
    let sum: f64 = dc.iter().flatten().map(|g| g.abs()).sum();
    println!("by hand: value {value:.9}, centroids' |gradient| sum {sum:.9}");

    // the functions themselves (the body as written: nothing records) agree
    assert_eq!(
        kmeans_ragged(&ragged, &ragged_centroids).to_bits(),
        kmeans_fixed(&fixed, &centroids).to_bits()
    );

    let mut group = c.benchmark_group("kmeans 10^4 x 8 in 4-d");
    group.bench_function("grad_into (annotated, ragged &[Vec<f64>])", |b| {
        b.iter(|| {
            kmeans_ragged::grad_into(
                black_box(&ragged),
                black_box(&ragged_centroids),
                &mut dp_ragged,
                &mut dc_ragged,
            )
        })
    });
    group.bench_function("grad_into (annotated, fixed &[[f64; 4]])", |b| {
        b.iter(|| {
            kmeans_fixed::grad_into(black_box(&fixed), black_box(&centroids), &mut dp, &mut dc)
        })
    });
    group.bench_function("by hand", |b| {
        b.iter(|| kmeans_by_hand(black_box(&fixed), black_box(&centroids), &mut dp, &mut dc))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
