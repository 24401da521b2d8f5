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
//! Written as a user of plain Rust would, over slices: the reprojection error of one
//! observation is one function of the camera's and the point's slices writing a `&mut
//! [f64]` output, the C++ reference's `project` (angle-axis rotation, perspective
//! division, radial distortion, intrinsics) inlined into it, annotated with
//! `#[differentiable]`. The Jacobian comes from its generated adjoint with no tape:
//! observation `i`'s two rows are `reprojection_error::grad_into` with the output
//! cotangents `(1, 0)` and `(0, 1)`, into buffers on the stack;
//! [`weight_error::grad`](struct@weight_error) gives the weight row.
//!
//! Why one function rather than the reference's five (`cross`, `rodrigues_rotate_point`,
//! `radial_distort`, `project`, `computeReprojError`): written that way, as annotated
//! writers over slices calling each other (`gradbench/benches/small_calls.rs` has that form), the
//! attribute differentiates it, and the Jacobian measured 7.6–9.5x `manual` (0.34–0.45x
//! for this form): each call of a small annotated callee allocates (its loops' save
//! stacks, `Option<Vec>` cotangents of its slice parameters, the growable shadows of its
//! local arrays, a boxed pullback for a call in a branch). See `docs/PERFORMANCE.md`.

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

/// The reprojection error of one observation, `w (project(cam, x) − feat)`, written into
/// `err` (length 2): the point `x` (length 3) seen by the camera `cam` (length 11:
/// rotation `cam[0..3]` as an angle-axis vector, centre `cam[3..6]`, focal length `cam[6]`,
/// principal point `cam[7..9]`, radial distortion `cam[9..11]`). `feat`, the measured
/// feature, is data: no gradient.
///
/// ```
/// use gradtape_gradbench::evals::ba::reprojection_error;
/// // no rotation, camera at the origin: the point (1, 2, 4) projects to (1/4, 1/2),
/// // distorted by 1 + 0.1 r² (r² = 5/16), then × 2 + (0.5, 0)
/// let cam = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.5, 0.0, 0.1, 0.0];
/// let mut err = [0.0; 2];
/// reprojection_error(&cam, &[1.0, 2.0, 4.0], 3.0, &[0.0, 0.0], &mut err);
/// let l = 1.0 + 0.1 * 5.0 / 16.0;
/// assert!((err[0] - 3.0 * (0.5 * l + 0.5)).abs() < 1e-14);
/// assert!((err[1] - 3.0 * l).abs() < 1e-14);
/// ```
#[differentiable(constant(feat))]
pub fn reprojection_error(cam: &[f64], x: &[f64], w: f64, feat: &[f64], err: &mut [f64]) {
    // the point relative to the camera centre
    let p0 = x[0] - cam[3];
    let p1 = x[1] - cam[4];
    let p2 = x[2] - cam[5];
    // Rodrigues' rotation by the angle-axis vector, and for a zero angle its first-order
    // form `p + r × p`
    let (r0, r1, r2) = (cam[0], cam[1], cam[2]);
    let sqtheta = r0 * r0 + r1 * r1 + r2 * r2;
    let (q0, q1, q2) = if sqtheta != 0.0 {
        let theta = sqtheta.sqrt();
        let (sin, cos) = theta.sin_cos();
        let (a0, a1, a2) = (r0 / theta, r1 / theta, r2 / theta);
        let along = (a0 * p0 + a1 * p1 + a2 * p2) * (1.0 - cos);
        (
            p0 * cos + (a1 * p2 - a2 * p1) * sin + a0 * along,
            p1 * cos + (a2 * p0 - a0 * p2) * sin + a1 * along,
            p2 * cos + (a0 * p1 - a1 * p0) * sin + a2 * along,
        )
    } else {
        (
            p0 + r1 * p2 - r2 * p1,
            p1 + r2 * p0 - r0 * p2,
            p2 + r0 * p1 - r1 * p0,
        )
    };
    // the perspective division, the radial distortion, the intrinsics
    let h0 = q0 / q2;
    let h1 = q1 / q2;
    let rsq = h0 * h0 + h1 * h1;
    let distortion = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    err[0] = w * (h0 * distortion * cam[6] + cam[7] - feat[0]);
    err[1] = w * (h1 * distortion * cam[6] + cam[8] - feat[1]);
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

    /// Observation `i`'s camera, point, weight and feature.
    #[inline]
    fn observation(&self, i: usize) -> (&[f64], &[f64], f64, &[f64]) {
        let (camera, point) = self.obs[i];
        (
            &self.cams[CAMERA_PARAMS * camera..CAMERA_PARAMS * (camera + 1)],
            &self.points[3 * point..3 * point + 3],
            self.weights[i],
            &self.feats[2 * i..2 * i + 2],
        )
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
        reproj.resize(2 * self.obs.len(), 0.0);
        for (i, err) in reproj.chunks_exact_mut(2).enumerate() {
            let (cam, x, w, feat) = self.observation(i);
            reprojection_error(cam, x, w, feat, err);
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
            let (cam, x, w, feat) = self.observation(i);
            for seed in [[1.0, 0.0], [0.0, 1.0]] {
                let (mut d_cam, mut d_x, mut d_w) = ([0.0; CAMERA_PARAMS], [0.0; 3], 0.0);
                let (mut err, mut d_err) = ([0.0; 2], seed);
                reprojection_error::grad_into(
                    cam, x, w, feat, &mut err, &mut d_cam, &mut d_x, &mut d_w, &mut d_err,
                );
                rows.push(rows.last().copied().unwrap_or(0) + BLOCK);
                let first = CAMERA_PARAMS * camera;
                cols.extend(first..first + CAMERA_PARAMS);
                let first = point_cols + 3 * point;
                cols.extend(first..first + 3);
                cols.push(weight_cols + i);
                vals.extend(d_cam);
                vals.extend(d_x);
                vals.push(d_w);
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
