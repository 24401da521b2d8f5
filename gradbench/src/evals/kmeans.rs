//! `kmeans`: the k-means cost `f(C) = Σᵢ minⱼ ‖Cⱼ − Pᵢ‖²` of `k` centroids `C` for `n`
//! points `P` in `d` dimensions, and the Newton direction `J H⁻¹` for the centroids.
//!
//! The cost is written as a user with tensors would: every squared distance at once through
//! `‖Cⱼ − Pᵢ‖² = ‖Pᵢ‖² + ‖Cⱼ‖² − 2 Cⱼ·Pᵢ` (one `[k, n]` matrix from a matmul, as GradBench's
//! PyTorch and JAX tools write it), the nearest centroid as the largest score
//! `2 Cⱼ·Pᵢ − ‖Cⱼ‖²` (a max over the `k` axis, so the `[k, n]` matrix is walked by rows),
//! and the sum, annotated with `#[differentiable]`; the points go in a struct, so they are
//! constants.
//!
//! The direction needs the gradient `J` and the Hessian's diagonal, both from gradtape:
//! an outer tape records the inner tape's gradient computation, and its gradient of `J · 1`
//! is the Hessian-vector product `H 1`. `H` is diagonal (the cost is a sum over centroids of
//! sums of squares in each centroid's own coordinates, with the assignment piecewise
//! constant), so `H 1` is exactly its diagonal, with no `kd × kd` matrix formed.
//!
//! The points go in blocks (as a user sums a loss over mini-batches): the cost, its gradient
//! and the Hessian's diagonal are sums over the points, so each block's are summed, and
//! each block's `[k, block]` temporaries stay small enough for the allocator to reuse
//! ([`points_per_block`]).

use gradtape::{GradientTape, Tensor, differentiable};
use serde::Deserialize;
use serde_json::Value;

use crate::runs::{parse, require};
use crate::{Evaluation, Failure, Runs};

/// The eval's input.
#[derive(Deserialize)]
struct Input {
    points: Vec<Vec<f64>>,
    centroids: Vec<Vec<f64>>,
    #[serde(flatten)]
    runs: Runs,
}

/// The points, the constant data of the cost.
pub struct Points {
    /// `[n, d]`, one point per row.
    pub points: Tensor<f64>,
}

/// The cost of the centroids `[k, d]` for the points.
///
/// ```
/// use gradtape::Tensor;
/// use gradtape_gradbench::evals::kmeans::{Points, cost};
/// let data = Points { points: Tensor::from_vec(vec![0.0, 0.0, 3.0, 4.0], &[2, 2]) };
/// let centroids = Tensor::from_vec(vec![0.0, 1.0, 3.0, 3.0], &[2, 2]);
/// // each point's nearest centroid is 1 away
/// assert_eq!(cost(&centroids, &data).to_scalar(), 2.0);
/// ```
#[differentiable]
pub fn cost(centroids: &Tensor<f64>, data: &Points) -> Tensor<f64> {
    let points = &data.points;
    // ‖Cⱼ − Pᵢ‖² = ‖Pᵢ‖² − (2 Cⱼ·Pᵢ − ‖Cⱼ‖²): the nearest centroid has the largest score
    let centroid_norms = centroids.square().sum_axis(1, true);
    let scores = (centroids * 2.0).matmul_transposed(points, false, true) - centroid_norms;
    let closest = points.square().sum_axis(1, false) - scores.max_axis(0, false);
    closest.sum()
}

/// The Newton direction `J / diag(H)` of the cost summed over blocks of points (each
/// block's [`cost()`]) at `centroids`, shape `[k, d]`: for each block, the gradient from an
/// inner tape, and the Hessian's diagonal as the outer tape's gradient of `J · 1` (see the
/// module's documentation), both summed over the blocks.
///
/// ```
/// use gradtape::Tensor;
/// use gradtape_gradbench::evals::kmeans::{Points, direction};
/// let data = Points { points: Tensor::from_vec(vec![0.0, 2.0, 10.0], &[3, 1]) };
/// let centroids = Tensor::from_vec(vec![0.5, 9.0], &[2, 1]);
/// // J = 2 (c − mean of its points)·count, H = 2 count: c − mean = (0.5 − 1, 9 − 10)
/// assert_eq!(direction(&centroids, &[data]).to_vec(), vec![-0.5, -1.0]);
/// ```
///
/// # Panics
/// If `blocks` is empty.
pub fn direction(centroids: &Tensor<f64>, blocks: &[Points]) -> Tensor<f64> {
    let mut sums: Option<(Tensor<f64>, Tensor<f64>)> = None;
    for data in blocks {
        let (gradient, hessian_diagonal) = gradient_and_hessian_diagonal(centroids, data);
        sums = Some(match sums {
            None => (gradient, hessian_diagonal),
            Some((g, h)) => (g + gradient, h + hessian_diagonal),
        });
    }
    let (gradient, hessian_diagonal) = sums.expect("kmeans: at least one block of points");
    gradient / hessian_diagonal
}

/// The gradient `J` of [`cost()`] for one block of points, and the Hessian's diagonal
/// `H 1`, by nested tapes.
fn gradient_and_hessian_diagonal(
    centroids: &Tensor<f64>,
    data: &Points,
) -> (Tensor<f64>, Tensor<f64>) {
    let outer = GradientTape::new();
    outer.watch(centroids);
    let gradient = outer.record(|| {
        let inner = GradientTape::new();
        inner.watch(centroids);
        let f = inner.record(|| cost(centroids, data));
        inner
            .gradient(&f, centroids)
            .expect("a fresh tape")
            .expect("the cost depends on the centroids")
    });
    let ones = Tensor::ones(centroids.shape());
    let along_ones = outer.record(|| (&gradient * &ones).sum());
    let hessian_diagonal = outer
        .gradient(&along_ones, centroids)
        .expect("a fresh tape")
        .expect("the gradient depends on the centroids");
    (gradient, hessian_diagonal)
}

/// Numbers in one `[k, block]` temporary of the cost: 2²⁰ (8 MB in `f64`). Larger ones
/// are above the 32 MiB up to which glibc reuses freed blocks (after
/// `keep_large_buffers`), so each is mapped and faulted in afresh on every run: at k =
/// 1000 and n = 10⁴ that was most of `dir`'s time (docs/PERFORMANCE.md).
const BLOCK_NUMBERS: usize = 1 << 20;

/// How many points go in one block for `k` centroids: the most whose `[k, block]`
/// temporaries hold 2²⁰ numbers, 8 MB (at least one point).
///
/// ```
/// use gradtape_gradbench::evals::kmeans::points_per_block;
/// assert_eq!(points_per_block(1000), 1048);
/// assert_eq!(points_per_block(1 << 21), 1);
/// ```
pub fn points_per_block(k: usize) -> usize {
    (BLOCK_NUMBERS / k.max(1)).max(1)
}

/// The points `[n, d]` in blocks of `size` rows (the last one shorter), each the constant
/// data of one [`cost()`].
///
/// ```
/// use gradtape::Tensor;
/// use gradtape_gradbench::evals::kmeans::blocks;
/// let points = Tensor::from_vec((0..10).map(f64::from).collect(), &[5, 2]);
/// let blocks = blocks(&points, 2);
/// assert_eq!(blocks.len(), 3);
/// assert_eq!(blocks[2].points.to_vec(), vec![8.0, 9.0]);
/// ```
///
/// # Panics
/// If `size` is zero.
pub fn blocks(points: &Tensor<f64>, size: usize) -> Vec<Points> {
    assert!(size > 0, "kmeans: blocks of at least one point");
    let n = points.shape()[0];
    (0..n)
        .step_by(size)
        .map(|start| Points {
            points: points.slice(0, start, size.min(n - start)),
        })
        .collect()
}

/// Rows of equal length `d ≥ 1`, flattened row-major.
fn matrix(field: &'static str, rows: &[Vec<f64>]) -> Result<(Tensor<f64>, usize), Failure> {
    require("kmeans", !rows.is_empty(), || format!("`{field}` is empty"))?;
    let d = rows[0].len();
    require("kmeans", d >= 1, || {
        format!("`{field}[0]` is empty: points need at least one dimension")
    })?;
    if let Some(i) = rows.iter().position(|row| row.len() != d) {
        return Err(Failure::BadInput {
            module: "kmeans",
            reason: format!(
                "`{field}[{i}]` has {} coordinates, `{field}[0]` has {d}",
                rows[i].len()
            ),
        });
    }
    let flat = rows.concat();
    Ok((Tensor::from_vec(flat, &[rows.len(), d]), d))
}

/// `kmeans::cost` and `kmeans::dir`.
///
/// ```
/// use serde_json::json;
/// let input = json!({
///     "points": [[0.0], [2.0], [10.0]],
///     "centroids": [[0.5], [9.0]],
///     "min_runs": 1,
///     "min_seconds": 0,
/// });
/// let done = gradtape_gradbench::evals::kmeans::evaluate("cost", input).unwrap();
/// assert_eq!(done.output, json!(0.25 + 2.25 + 1.0));
/// ```
pub fn evaluate(function: &str, input: Value) -> Result<Evaluation, Failure> {
    let Input {
        points,
        centroids,
        runs,
    } = parse("kmeans", input)?;
    let (points, d) = matrix("points", &points)?;
    let (centroids, dc) = matrix("centroids", &centroids)?;
    require("kmeans", d == dc, || {
        format!("the points have {d} coordinates, the centroids {dc}")
    })?;
    let blocks = blocks(&points, points_per_block(centroids.shape()[0]));
    match function {
        "cost" => Ok(runs.evaluate(|| {
            let costs = blocks.iter().map(|data| cost(&centroids, data).to_scalar());
            costs.sum::<f64>()
        })),
        "dir" => Ok(runs.evaluate(|| {
            let dir = direction(&centroids, &blocks).to_vec();
            dir.chunks(d).map(<[f64]>::to_vec).collect::<Vec<_>>()
        })),
        _ => Err(Failure::UnknownFunction {
            module: "kmeans",
            function: function.to_owned(),
            known: "`cost` and `dir`",
        }),
    }
}
