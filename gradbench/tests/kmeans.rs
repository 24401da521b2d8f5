//! `kmeans`: the direction against central differences of the cost (first and second),
//! hand-computed values, and bad input answered as `BadInput`.

mod common;

use gradtape::Tensor;
use gradtape_gradbench::Failure;
use gradtape_gradbench::evals::kmeans::{self, evaluate};
use serde_json::{Value, json};

fn input(points: &[Vec<f64>], centroids: &[Vec<f64>]) -> Value {
    json!({ "points": points, "centroids": centroids, "min_runs": 1, "min_seconds": 0 })
}

fn cost(points: &[Vec<f64>], centroids: &[Vec<f64>]) -> f64 {
    evaluate("cost", input(points, centroids))
        .unwrap()
        .output
        .as_f64()
        .unwrap()
}

/// A small deterministic problem: `n` points in `[0, 1)^d`, the last `k` also the
/// centroids, moved a little so that no distance is zero.
fn problem(n: usize, k: usize, d: usize) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let mut state = 12345_u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let points: Vec<Vec<f64>> = (0..n).map(|_| (0..d).map(|_| next()).collect()).collect();
    let centroids = points[n - k..]
        .iter()
        .map(|p| p.iter().map(|v| v + 0.01).collect())
        .collect();
    (points, centroids)
}

#[test]
fn direction_matches_central_differences() {
    for (n, k, d) in [(12, 3, 2), (30, 5, 3), (8, 1, 4)] {
        let (points, centroids) = problem(n, k, d);
        let done = evaluate("dir", input(&points, &centroids)).unwrap();
        let dir: Vec<Vec<f64>> = serde_json::from_value(done.output).unwrap();
        assert_eq!((dir.len(), dir[0].len()), (k, d));
        let h = 1e-4;
        let f0 = cost(&points, &centroids);
        for j in 0..k {
            for l in 0..d {
                let moved = |delta: f64| {
                    let mut c = centroids.clone();
                    c[j][l] += delta;
                    cost(&points, &c)
                };
                let (up, down) = (moved(h), moved(-h));
                let first = (up - down) / (2.0 * h);
                let second = (up - 2.0 * f0 + down) / (h * h);
                let expected = first / second;
                assert!(
                    (dir[j][l] - expected).abs() <= 1e-6 * (1.0 + expected.abs()),
                    "n = {n}, k = {k}, d = {d}, centroid {j}, coordinate {l}: {} vs {expected}",
                    dir[j][l]
                );
            }
        }
    }
}

/// The direction and the cost summed over blocks of points equal those of one block, up to
/// the order of the sums.
#[test]
fn blocks_of_points_give_the_whole_direction() {
    let (n, k, d) = (23, 4, 3);
    let (points, centroids) = problem(n, k, d);
    let points = Tensor::from_vec(points.concat(), &[n, d]);
    let centroids = Tensor::from_vec(centroids.concat(), &[k, d]);
    let whole = kmeans::direction(&centroids, &kmeans::blocks(&points, n)).to_vec();
    let whole_cost = kmeans::cost(
        &centroids,
        &kmeans::Points {
            points: points.clone(),
        },
    );
    for size in [1, 5, 22] {
        let blocks = kmeans::blocks(&points, size);
        assert_eq!(blocks.len(), n.div_ceil(size));
        let by_blocks = kmeans::direction(&centroids, &blocks).to_vec();
        for (a, b) in by_blocks.iter().zip(&whole) {
            assert!(
                (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                "{size}: {a} vs {b}"
            );
        }
        let cost: f64 = blocks
            .iter()
            .map(|b| kmeans::cost(&centroids, b).to_scalar())
            .sum();
        assert!((cost - whole_cost.to_scalar()).abs() <= 1e-12 * whole_cost.to_scalar());
    }
}

#[test]
fn values_by_hand() {
    // points 0, 2 go to the centroid 0.5, the point 10 to 9
    let points = [vec![0.0], vec![2.0], vec![10.0]];
    let centroids = [vec![0.5], vec![9.0]];
    assert_eq!(cost(&points, &centroids), 0.25 + 2.25 + 1.0);
    // J = 2 Σ (c − p) = (2 (0.5 + (−1.5)), 2 (−1)) = (−2, −2); H = 2·count = (4, 2)
    let done = evaluate("dir", input(&points, &centroids)).unwrap();
    assert_eq!(done.output, json!([[-0.5], [-1.0]]));
}

fn bad(function: &str, input: Value) -> String {
    common::bad_input_reason("kmeans", evaluate(function, input))
}

#[test]
fn bad_input_is_reported() {
    let p = vec![vec![0.0, 1.0], vec![2.0, 3.0]];
    let runs = |mut v: Value| {
        v["min_runs"] = json!(1);
        v["min_seconds"] = json!(0);
        v
    };
    assert!(bad("cost", runs(json!({ "points": p }))).contains("missing field `centroids`"));
    assert!(bad("dir", input(&[], &p)).contains("`points` is empty"));
    assert!(bad("dir", input(&p, &[])).contains("`centroids` is empty"));
    assert!(bad("cost", input(&p, &[vec![1.0]])).contains("2 coordinates, the centroids 1"));
    assert!(bad("cost", input(&[vec![0.0], vec![1.0, 2.0]], &[vec![1.0]])).contains("`points[1]`"));
    assert!(bad("cost", input(&[vec![]], &[vec![]])).contains("at least one dimension"));
    assert!(matches!(
        evaluate("hessian", input(&p, &p)),
        Err(Failure::UnknownFunction { .. })
    ));
}
