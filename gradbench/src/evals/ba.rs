//! `ba`: bundle adjustment (ADBench's). For each of `p` observations `i` of point
//! `X[ptᵢ]` by camera `cams[camᵢ]`, the reprojection error `wᵢ (project(cam, X) − featᵢ)`
//! (two numbers) and the weight error `1 − wᵢ²`; `objective` is both, `jacobian` is their
//! sparse Jacobian with respect to every camera parameter, point coordinate and weight.
//!
//! The eval sends one camera, point, weight and feature and the counts `n`, `m`, `p`; the
//! problem is those values duplicated (camera `i mod n` sees point `i mod m` in observation
//! `i`), as in the C++ reference (`gradbench-src/cpp/gradbench/evals/ba.hpp`). The
//! duplication is not exploited: every observation is computed.
//!
//! The per-observation functions are plain float functions annotated with
//! `#[differentiable]`; the Jacobian comes from their generated adjoints with no tape. One
//! forward sweep of [`reprojection_error`](fn@reprojection_error) (`reprojection_error::vjp`) and two reverse
//! sweeps (its pullback with the cotangents `(1, 0)` and `(0, 1)`) give the block's two
//! rows; [`weight_error::grad`](struct@weight_error) gives the weight row.
//!
//! Walls of `#[differentiable]` (issue 13) that shaped the code: a camera is eleven
//! numbers and a point three, naturally `&[f64]` or `[f64; 11]`, but a slice or array
//! parameter is not differentiable ("a #[differentiable] function needs a differentiable
//! parameter: a float tensor, a variable, or an `f32`/`f64` number"), so each number is its
//! own parameter; and a function with a tuple result cannot be called from another one (its
//! result can be neither destructured, "a differentiable value must be bound to a plain
//! name", nor read by field, "fields of differentiable values are not differentiated"), so
//! the rotation, the distortion and the projection are one function rather than three.

use gradtape::differentiable;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::runs::{parse, require};
use crate::{Evaluation, Failure, Runs};

/// Parameters per camera: rotation (3, angle-axis), centre (3), focal length, principal
/// point (2), radial distortion (2).
pub const CAMERA_PARAMS: usize = 11;

/// Nonzeros in one observation's row of the Jacobian: the camera's parameters, the point's
/// three coordinates and the weight.
const BLOCK: usize = CAMERA_PARAMS + 3 + 1;

/// The eval's input.
#[derive(Deserialize)]
struct Input {
    n: usize,
    m: usize,
    p: usize,
    cam: Vec<f64>,
    x: Vec<f64>,
    w: f64,
    feat: Vec<f64>,
    #[serde(flatten)]
    runs: Runs,
}

/// The reprojection error of one observation: the point `(x0, x1, x2)` seen by the camera
/// with rotation `(r0, r1, r2)` (angle-axis), centre `(c0, c1, c2)`, focal length `f`,
/// principal point `(u0, v0)` and radial distortion `(k1, k2)`, minus the feature
/// `(feat_x, feat_y)`, scaled by the weight `w`.
///
/// ```
/// use gradtape_gradbench::evals::ba::reprojection_error;
/// // no rotation, camera at the origin: the point (1, 2, 4) projects to (1/4, 1/2),
/// // distorted by 1 + 0.1 r² (r² = 5/16), then × 2 + (0.5, 0)
/// let (ex, ey) = reprojection_error(
///     0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.5, 0.0, 0.1, 0.0, 1.0, 2.0, 4.0, 3.0, 0.0, 0.0,
/// );
/// let l = 1.0 + 0.1 * 5.0 / 16.0;
/// assert!((ex - 3.0 * (0.5 * l + 0.5)).abs() < 1e-12);
/// assert!((ey - 3.0 * l).abs() < 1e-12);
/// ```
#[allow(clippy::too_many_arguments)] // the wall: no slice or array parameters (module docs)
#[differentiable]
pub fn reprojection_error(
    r0: f64,
    r1: f64,
    r2: f64,
    c0: f64,
    c1: f64,
    c2: f64,
    f: f64,
    u0: f64,
    v0: f64,
    k1: f64,
    k2: f64,
    x0: f64,
    x1: f64,
    x2: f64,
    w: f64,
    feat_x: f64,
    feat_y: f64,
) -> (f64, f64) {
    // the point relative to the camera centre
    let p0 = x0 - c0;
    let p1 = x1 - c1;
    let p2 = x2 - c2;
    // Rodrigues' rotation, and for a zero angle its first-order form `p + r × p`. Both are
    // computed and the branch only picks one (the other's adjoint is never run): values
    // computed inside an `if` are saved on heap stacks by the generated code, which costs
    // more than the few flops of the unused form (see the module docs).
    let sqtheta = r0 * r0 + r1 * r1 + r2 * r2;
    let theta = sqtheta.sqrt();
    let cos = theta.cos();
    let sin = theta.sin();
    let a0 = r0 / theta;
    let a1 = r1 / theta;
    let a2 = r2 / theta;
    let along = (a0 * p0 + a1 * p1 + a2 * p2) * (1.0 - cos);
    let rotated0 = p0 * cos + (a1 * p2 - a2 * p1) * sin + a0 * along;
    let rotated1 = p1 * cos + (a2 * p0 - a0 * p2) * sin + a1 * along;
    let rotated2 = p2 * cos + (a0 * p1 - a1 * p0) * sin + a2 * along;
    let mut q0 = p0 + r1 * p2 - r2 * p1;
    let mut q1 = p1 + r2 * p0 - r0 * p2;
    let mut q2 = p2 + r0 * p1 - r1 * p0;
    if sqtheta != 0.0 {
        q0 = rotated0;
        q1 = rotated1;
        q2 = rotated2;
    }
    // the perspective division, the radial distortion, the intrinsics
    let h0 = q0 / q2;
    let h1 = q1 / q2;
    let rsq = h0 * h0 + h1 * h1;
    let distortion = 1.0 + k1 * rsq + k2 * rsq * rsq;
    let proj_x = h0 * distortion * f + u0;
    let proj_y = h1 * distortion * f + v0;
    (w * (proj_x - feat_x), w * (proj_y - feat_y))
}

/// The weight error of one observation, `1 − w²`.
///
/// ```
/// use gradtape_gradbench::evals::ba::weight_error;
/// assert_eq!(weight_error(3.0), -8.0);
/// assert_eq!(weight_error::grad(3.0), (-8.0, [-6.0]));
/// ```
#[differentiable]
pub fn weight_error(w: f64) -> f64 {
    1.0 - w * w
}

/// Calls `$function` (`reprojection_error` or its `vjp`) with observation `$i`'s camera,
/// point, weight and feature as its 17 arguments: one place spells out their order, so the
/// value and its adjoint read the same numbers.
macro_rules! observation_call {
    ($problem:expr, $i:expr, $function:path) => {{
        let (problem, i): (&Problem, usize) = ($problem, $i);
        let (camera, point) = problem.obs[i];
        let c = &problem.cams[CAMERA_PARAMS * camera..CAMERA_PARAMS * (camera + 1)];
        let x = &problem.points[3 * point..3 * point + 3];
        $function(
            c[0],
            c[1],
            c[2],
            c[3],
            c[4],
            c[5],
            c[6],
            c[7],
            c[8],
            c[9],
            c[10],
            x[0],
            x[1],
            x[2],
            problem.weights[i],
            problem.feats[2 * i],
            problem.feats[2 * i + 1],
        )
    }};
}

/// A bundle-adjustment problem with every observation spelled out.
#[derive(Clone, Debug)]
pub struct Problem {
    /// Number of cameras.
    pub n: usize,
    /// Number of points.
    pub m: usize,
    /// `[n × 11]`, camera after camera.
    pub cams: Vec<f64>,
    /// `[m × 3]`, point after point.
    pub points: Vec<f64>,
    /// `[p]`, one weight per observation.
    pub weights: Vec<f64>,
    /// `[p × 2]`, one feature per observation.
    pub feats: Vec<f64>,
    /// `[p]`: observation `i` is of point `obs[i].1` by camera `obs[i].0`.
    pub obs: Vec<(usize, usize)>,
}

impl Problem {
    /// The eval's problem: `cam`, `x`, `w` and `feat` duplicated to `n` cameras, `m` points
    /// and `p` observations, observation `i` of point `i mod m` by camera `i mod n`.
    ///
    /// ```
    /// use gradtape_gradbench::evals::ba::Problem;
    /// let problem = Problem::duplicated(2, 3, 4, &[0.5; 11], &[1.0, 2.0, 3.0], 0.9, &[7.0, 8.0]);
    /// assert_eq!(problem.obs, vec![(0, 0), (1, 1), (0, 2), (1, 0)]);
    /// assert_eq!(problem.points.len(), 9);
    /// ```
    pub fn duplicated(
        n: usize,
        m: usize,
        p: usize,
        cam: &[f64],
        x: &[f64],
        w: f64,
        feat: &[f64],
    ) -> Problem {
        Problem {
            n,
            m,
            cams: cam.repeat(n),
            points: x.repeat(m),
            weights: vec![w; p],
            feats: feat.repeat(p),
            obs: (0..p).map(|i| (i % n, i % m)).collect(),
        }
    }

    /// Observation `i`'s reprojection error, with the adjoint of [`reprojection_error`](fn@reprojection_error)
    /// as its pullback.
    #[inline]
    fn observe(&self, i: usize) -> ((f64, f64), impl Fn(ReprojectionSeed) -> ReprojectionGrads) {
        observation_call!(self, i, reprojection_error::vjp)
    }

    /// The objective: `2p` reprojection errors (x then y per observation) and `p` weight
    /// errors, written into `reproj` and `weight` (resized to fit).
    ///
    /// ```
    /// use gradtape_gradbench::evals::ba::Problem;
    /// let problem = Problem::duplicated(1, 1, 2, &[0.0; 11], &[0.0, 0.0, 1.0], 2.0, &[0.0, 0.0]);
    /// let (mut reproj, mut weight) = (Vec::new(), Vec::new());
    /// problem.objective(&mut reproj, &mut weight);
    /// // f = 0 projects everything to the principal point (0, 0)
    /// assert_eq!(reproj, vec![0.0; 4]);
    /// assert_eq!(weight, vec![-3.0, -3.0]);
    /// ```
    pub fn objective(&self, reproj: &mut Vec<f64>, weight: &mut Vec<f64>) {
        reproj.clear();
        weight.clear();
        for i in 0..self.obs.len() {
            let (ex, ey) = observation_call!(self, i, reprojection_error);
            reproj.push(ex);
            reproj.push(ey);
        }
        weight.extend(self.weights.iter().map(|&w| weight_error(w)));
    }

    /// The sparse Jacobian of [`objective`](Problem::objective) with respect to the
    /// cameras, then the points, then the weights, in compressed-row form (as the C++
    /// reference's `SparseMat`): rows `2i` and `2i + 1` are observation `i`'s reprojection
    /// error (15 nonzeros each: its camera's 11 parameters, its point's 3 coordinates, its
    /// weight), rows `2p + i` its weight error (one nonzero). Written into `jacobian`,
    /// whose buffers are reused.
    ///
    /// ```
    /// use gradtape_gradbench::evals::ba::{Problem, SparseJacobian};
    /// let problem = Problem::duplicated(1, 1, 1, &[0.0; 11], &[0.0, 0.0, 1.0], 2.0, &[0.0, 0.0]);
    /// let mut jacobian = SparseJacobian::default();
    /// problem.jacobian(&mut jacobian);
    /// assert_eq!(jacobian.rows, vec![0, 15, 30, 31]);
    /// // the weight row: d(1 − w²)/dw = −4 in column 11 n + 3 m + 0
    /// assert_eq!((jacobian.cols[30], jacobian.vals[30]), (14, -4.0));
    /// ```
    pub fn jacobian(&self, jacobian: &mut SparseJacobian) {
        let p = self.obs.len();
        let SparseJacobian { rows, cols, vals } = jacobian;
        rows.clear();
        cols.clear();
        vals.clear();
        rows.reserve(3 * p + 1);
        cols.reserve(2 * BLOCK * p + p);
        vals.reserve(2 * BLOCK * p + p);
        rows.push(0);
        let point_cols = CAMERA_PARAMS * self.n;
        let weight_cols = point_cols + 3 * self.m;
        for i in 0..p {
            let (camera, point) = self.obs[i];
            let (_, pullback) = self.observe(i);
            for seed in [(Some(1.0), None), (None, Some(1.0))] {
                let g = pullback(seed);
                rows.push(rows.last().copied().unwrap_or(0) + BLOCK);
                let first = CAMERA_PARAMS * camera;
                cols.extend(first..first + CAMERA_PARAMS);
                let first = point_cols + 3 * point;
                cols.extend(first..first + 3);
                cols.push(weight_cols + i);
                let d = |g: Option<f64>| g.unwrap_or(0.0);
                vals.extend([
                    d(g.0),
                    d(g.1),
                    d(g.2),
                    d(g.3),
                    d(g.4),
                    d(g.5),
                    d(g.6),
                    d(g.7),
                    d(g.8),
                    d(g.9),
                    d(g.10),
                    d(g.11),
                    d(g.12),
                    d(g.13),
                    d(g.14),
                ]);
            }
        }
        for i in 0..p {
            let (_, [dw]) = weight_error::grad(self.weights[i]);
            rows.push(rows.last().copied().unwrap_or(0) + 1);
            cols.push(weight_cols + i);
            vals.push(dw);
        }
    }
}

/// The cotangent [`reprojection_error`](fn@reprojection_error)'s pullback takes, one per result.
type ReprojectionSeed = (Option<f64>, Option<f64>);

/// The cotangents [`reprojection_error`](fn@reprojection_error)'s pullback gives, one per parameter.
type ReprojectionGrads = (
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
);

/// A sparse matrix in compressed-row form: row `r`'s nonzeros are
/// `cols[rows[r]..rows[r + 1]]` and `vals[rows[r]..rows[r + 1]]`.
#[derive(Clone, Debug, Default)]
pub struct SparseJacobian {
    /// `nrows + 1` offsets into `cols` and `vals`.
    pub rows: Vec<usize>,
    /// The column of each nonzero.
    pub cols: Vec<usize>,
    /// Each nonzero's value.
    pub vals: Vec<f64>,
}

/// The eval's objective output: one observation's errors and how often they repeat (the
/// C++ reference's encoding, which the eval compares against).
#[derive(Serialize)]
struct ObjectiveOutput {
    reproj_error: Repeated,
    w_err: RepeatedOne,
}

#[derive(Serialize)]
struct Repeated {
    elements: [f64; 2],
    repeated: usize,
}

#[derive(Serialize)]
struct RepeatedOne {
    element: f64,
    repeated: usize,
}

/// The eval's Jacobian output: the first 30 and the last entry of each of the three lists.
#[derive(Serialize)]
struct JacobianOutput {
    rows: Vec<usize>,
    cols: Vec<usize>,
    vals: Vec<f64>,
}

/// The first 30 entries of `list` and its last (the whole list when it is shorter).
fn first_and_last<T: Copy>(list: &[T]) -> Vec<T> {
    if list.len() <= 31 {
        return list.to_vec();
    }
    let mut out = list[..30].to_vec();
    out.extend(list.last().copied());
    out
}

/// `ba::objective` and `ba::jacobian`.
///
/// ```
/// use serde_json::json;
/// let zeros = vec![0.0; 11];
/// let input = json!({
///     "n": 1, "m": 1, "p": 12, "cam": zeros, "x": [0.0, 0.0, 1.0], "w": 2.0,
///     "feat": [0.0, 0.0], "min_runs": 1, "min_seconds": 0,
/// });
/// let done = gradtape_gradbench::evals::ba::evaluate("objective", input).unwrap();
/// assert_eq!(done.output["w_err"], json!({ "element": -3.0, "repeated": 12 }));
/// ```
pub fn evaluate(function: &str, input: Value) -> Result<Evaluation, Failure> {
    let Input {
        n,
        m,
        p,
        cam,
        x,
        w,
        feat,
        runs,
    } = parse("ba", input)?;
    require("ba", cam.len() == CAMERA_PARAMS, || {
        format!(
            "cam has {} numbers, a camera has {CAMERA_PARAMS}",
            cam.len()
        )
    })?;
    require("ba", x.len() == 3, || {
        format!("x has {} numbers, a point has 3", x.len())
    })?;
    require("ba", feat.len() == 2, || {
        format!("feat has {} numbers, a feature has 2", feat.len())
    })?;
    require("ba", n >= 1 && m >= 1 && p >= 1, || {
        format!("n = {n}, m = {m}, p = {p}: needs at least one camera, point and observation")
    })?;
    let problem = Problem::duplicated(n, m, p, &cam, &x, w, &feat);
    match function {
        "objective" => {
            let (mut reproj, mut weight) = (Vec::new(), Vec::new());
            Ok(runs.evaluate(|| {
                problem.objective(&mut reproj, &mut weight);
                ObjectiveOutput {
                    reproj_error: Repeated {
                        elements: [reproj[0], reproj[1]],
                        repeated: reproj.len() / 2,
                    },
                    w_err: RepeatedOne {
                        element: weight[0],
                        repeated: weight.len(),
                    },
                }
            }))
        }
        "jacobian" => {
            let mut jacobian = SparseJacobian::default();
            Ok(runs.evaluate(|| {
                problem.jacobian(&mut jacobian);
                JacobianOutput {
                    rows: first_and_last(&jacobian.rows),
                    cols: first_and_last(&jacobian.cols),
                    vals: first_and_last(&jacobian.vals),
                }
            }))
        }
        _ => Err(Failure::UnknownFunction {
            module: "ba",
            function: function.to_owned(),
            known: "`objective` and `jacobian`",
        }),
    }
}
