//! `ht`: hand tracking (ADBench's). A hand model of bones (each posed by Euler angles,
//! chained from its parent) skins its vertices by linear blend skinning, a global
//! rotation and translation place them, and the objective is the difference between
//! measured points and the hand's points they correspond to: a vertex each ("simple"), or
//! a point `u₀ a + u₁ b + (1 − u₀ − u₁) c` of a triangle each ("complicated", with the
//! barycentric coordinates `us` as further parameters). `objective` is those `3N`
//! differences, `jacobian` their derivatives with respect to the 26 pose parameters
//! `theta` (and, complicated, the two `us` of each point's own row, in two columns first).
//!
//! Written as a user of plain Rust would, over slices and small arrays, the C++ reference
//! (`gradbench-src/cpp/gradbench/evals/ht.hpp`) step for step: [`posed_vertices()`] poses
//! the bones down the chain of parents and skins the vertices, [`simple_error()`] and
//! [`complicated_error()`] compare them with the points, all three annotated with
//! `#[differentiable]`. Two choices of data layout, made once when the input is read, keep
//! the work to what the objective needs: each vertex keeps only the bones that weigh it
//! (the reference multiplies every vertex by every bone, most weights being zero), and
//! only the vertices the points use are skinned (the reference skins all of them, then
//! picks).
//!
//! Derivatives, with no tape: the Jacobian has `3N` rows (up to 153 600) and 26 columns,
//! so forward mode is the efficient direction. Column `c` is the error function's
//! generated tangent code (`simple_error::jvp`) along the unit vector `e_c` of `theta`;
//! the `us` columns are two more, along `us` tangents of one in every point's first (or
//! second) coordinate: row `i` depends only on point `i`'s own `u`, so one sweep gives
//! that column for every point at once. The columns are split over gradtape's threads
//! ([`gradtape::num_threads`]: one, unless the tool runs `--multithreaded`).

use gradtape::differentiable;
use serde::ser::SerializeSeq;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::runs::{parse, require};
use crate::{Evaluation, Failure, Runs};

/// Number of pose parameters: global rotation (3), global translation (3), and four per
/// finger (two angles at the base joint, one at each of the two others).
pub const THETA: usize = 26;

/// Bones the pose parameters address (the last finger's last joint is bone 20; bone 21,
/// the forearm, has no parameters).
const MIN_BONES: usize = 22;

/// The eval's input.
#[derive(Deserialize)]
struct Input {
    theta: Vec<f64>,
    data: DataInput,
    us: Vec<Vec<f64>>,
    #[serde(flatten)]
    runs: Runs,
}

#[derive(Deserialize)]
struct DataInput {
    model: ModelInput,
    correspondences: Vec<usize>,
    points: Vec<Vec<f64>>,
}

#[derive(Deserialize)]
struct ModelInput {
    bone_count: usize,
    bone_names: Vec<String>,
    parents: Vec<i64>,
    base_relatives: Vec<Vec<Vec<f64>>>,
    inverse_base_absolutes: Vec<Vec<Vec<f64>>>,
    base_positions: Vec<Vec<f64>>,
    weights: Vec<Vec<f64>>,
    triangles: Vec<Vec<usize>>,
    is_mirrored: bool,
}

/// The hand model, data of the objective (never differentiated): the bones, and the
/// vertices the measured points use with the bones that weigh them.
pub struct Model {
    /// Each bone's parent (an earlier bone), `None` for the root.
    pub parents: Vec<Option<usize>>,
    /// Each bone's rest transform relative to its parent, `4 × 4` row-major.
    pub base_relatives: Vec<[f64; 16]>,
    /// The inverses of the bones' absolute rest transforms, `4 × 4` row-major.
    pub inverse_base_absolutes: Vec<[f64; 16]>,
    /// Whether the model is a mirrored (left) hand: x is negated before the global pose.
    pub is_mirrored: bool,
    /// The rest positions (homogeneous) of the vertices the points use.
    pub vertices: Vec<[f64; 4]>,
    /// Vertex `v`'s bones are `bones[starts[v]..starts[v + 1]]`, `weights` alike
    /// (`vertices.len() + 1` entries).
    pub starts: Vec<usize>,
    /// The bones weighing each vertex, vertex after vertex.
    pub bones: Vec<usize>,
    /// Their skinning weights (nonzero).
    pub weights: Vec<f64>,
}

/// The measured points and the hand points they correspond to, as indices into
/// [`Model::vertices`]: vertex `first[i]` for point `i` (simple), or the point of the
/// triangle `(first[i], second[i], third[i])` at barycentric coordinates `us[2i..2i + 2]`
/// (complicated; then `second` and `third` have a vertex per point).
pub struct Correspondences {
    /// The measured points.
    pub points: Vec<[f64; 3]>,
    /// The vertex of each point (simple) or its triangle's first vertex (weight `u₀`).
    pub first: Vec<usize>,
    /// The triangle's second vertex (weight `u₁`); empty for a simple problem.
    pub second: Vec<usize>,
    /// The triangle's third vertex (weight `1 − u₀ − u₁`); empty for a simple problem.
    pub third: Vec<usize>,
}

/// The positions of the model's vertices posed by `theta` (length [`THETA`]), written
/// into `positions` (one per vertex of the model): each bone rotated by its Euler angles
/// after its rest transform, down the chain of parents; each vertex the weighted sum of
/// its bones' transforms of it; then the global rotation (angle-axis, `theta[0..3]`) and
/// translation (`theta[3..6]`).
///
/// ```
/// use gradtape_gradbench::evals::ht::{posed_vertices, Problem, THETA};
/// let problem = Problem::example(false);
/// // the rest pose moved by (0, 0, 1): every vertex where the model has it, one higher
/// let mut theta = [0.0; THETA];
/// theta[5] = 1.0;
/// let mut positions = vec![[0.0; 3]; problem.model.vertices.len()];
/// posed_vertices(&theta, &problem.model, &mut positions);
/// // (the simple example's points use vertices 1 and 2 of the model, kept in that order)
/// assert_eq!(positions, vec![[1.5, 0.5, 1.0], [2.0, 0.0, 1.5]]);
/// ```
#[differentiable]
pub fn posed_vertices(theta: &[f64], model: &Model, positions: &mut [[f64; 3]]) {
    let bones = model.parents.len();
    // each bone's Euler angles (x, z, y), C++'s `to_pose_params`: finger f's base joint
    // (bone 4f + 2) has two angles, its next two joints one each, the other bones none
    let mut pose = vec![0.0; 3 * bones];
    let mut next = 6;
    for finger in 0..5 {
        for joint in 0..3 {
            let bone = 4 * finger + 2 + joint;
            pose[3 * bone] = theta[next];
            next += 1;
            if joint == 0 {
                pose[3 * bone + 1] = theta[next];
                next += 1;
            }
        }
    }
    // down the chain of parents: a bone's absolute transform is its parent's times its
    // rest transform relative to the parent times its rotation; the skinning transform
    // is that times the inverse of its absolute rest transform (its last row stays
    // (0, 0, 0, 1), so only the first three rows are kept)
    let mut absolutes = vec![[0.0; 16]; bones];
    let mut transforms = vec![[0.0; 12]; bones];
    for bone in 0..bones {
        let (cx, sx) = (pose[3 * bone].cos(), pose[3 * bone].sin());
        let (cz, sz) = (pose[3 * bone + 1].cos(), pose[3 * bone + 1].sin());
        let (cy, sy) = (pose[3 * bone + 2].cos(), pose[3 * bone + 2].sin());
        // Rz Ry Rx, row-major
        let rotation = [
            cz * cy,
            cz * sy * sx - sz * cx,
            cz * sy * cx + sz * sx,
            sz * cy,
            sz * sy * sx + cz * cx,
            sz * sy * cx - cz * sx,
            -sy,
            cy * sx,
            cy * cx,
        ];
        let mut relative = [0.0; 16];
        for i in 0..4 {
            for j in 0..3 {
                let mut sum = 0.0;
                for k in 0..3 {
                    sum += model.base_relatives[bone][4 * i + k] * rotation[3 * k + j];
                }
                relative[4 * i + j] = sum;
            }
            relative[4 * i + 3] = model.base_relatives[bone][4 * i + 3];
        }
        if let Some(parent) = model.parents[bone] {
            for i in 0..4 {
                for j in 0..4 {
                    let mut sum = 0.0;
                    for k in 0..4 {
                        sum += absolutes[parent][4 * i + k] * relative[4 * k + j];
                    }
                    absolutes[bone][4 * i + j] = sum;
                }
            }
        } else {
            absolutes[bone] = relative;
        }
        for i in 0..3 {
            for j in 0..4 {
                let mut sum = 0.0;
                for k in 0..4 {
                    sum +=
                        absolutes[bone][4 * i + k] * model.inverse_base_absolutes[bone][4 * k + j];
                }
                transforms[bone][4 * i + j] = sum;
            }
        }
    }
    // the global rotation from its angle-axis vector (the identity below an angle of
    // 10⁻⁴, as the reference), row-major
    let angle = (theta[0] * theta[0] + theta[1] * theta[1] + theta[2] * theta[2]).sqrt();
    let mut global = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    if angle >= 1e-4 {
        let (x, y, z) = (theta[0] / angle, theta[1] / angle, theta[2] / angle);
        let (s, c) = (angle.sin(), angle.cos());
        global = [
            x * x + (1.0 - x * x) * c,
            x * y * (1.0 - c) - z * s,
            x * z * (1.0 - c) + y * s,
            x * y * (1.0 - c) + z * s,
            y * y + (1.0 - y * y) * c,
            y * z * (1.0 - c) - x * s,
            x * z * (1.0 - c) - y * s,
            z * y * (1.0 - c) + x * s,
            z * z + (1.0 - z * z) * c,
        ];
    }
    // linear blend skinning, then the global pose
    for (v, position) in positions.iter_mut().enumerate() {
        let mut skinned = [0.0; 3];
        for e in model.starts[v]..model.starts[v + 1] {
            let bone = model.bones[e];
            let weight = model.weights[e];
            for i in 0..3 {
                let mut sum = 0.0;
                for j in 0..4 {
                    sum += transforms[bone][4 * i + j] * model.vertices[v][j];
                }
                skinned[i] += weight * sum;
            }
        }
        if model.is_mirrored {
            skinned[0] = -skinned[0];
        }
        for i in 0..3 {
            position[i] = global[3 * i] * skinned[0]
                + global[3 * i + 1] * skinned[1]
                + global[3 * i + 2] * skinned[2]
                + theta[3 + i];
        }
    }
}

/// The simple objective: `err[3i + k]` is coordinate `k` of point `i` minus that of its
/// vertex posed by `theta`.
///
/// ```
/// use gradtape_gradbench::evals::ht::{simple_error, Problem, THETA};
/// let problem = Problem::example(false);
/// let mut err = [0.0; 6];
/// simple_error(&[0.0; THETA], &problem.model, &problem.correspondences, &mut err);
/// // the points (2, 0.1, 0.4) and (1.4, 0.6, −0.1) against the rest vertices
/// // (2, 0, 0.5) and (1.5, 0.5, 0)
/// let expected = [0.0, 0.1, -0.1, -0.1, 0.1, -0.1];
/// assert!(err.iter().zip(expected).all(|(a, b)| (a - b).abs() < 1e-15));
/// ```
#[differentiable]
pub fn simple_error(theta: &[f64], model: &Model, data: &Correspondences, err: &mut [f64]) {
    let mut positions = vec![[0.0; 3]; model.vertices.len()];
    posed_vertices(theta, model, &mut positions);
    for i in 0..data.points.len() {
        let v = data.first[i];
        for k in 0..3 {
            err[3 * i + k] = data.points[i][k] - positions[v][k];
        }
    }
}

/// The complicated objective: `err[3i + k]` is coordinate `k` of point `i` minus that of
/// the point of its triangle at barycentric coordinates `(us[2i], us[2i + 1])`.
///
/// ```
/// use gradtape_gradbench::evals::ht::{complicated_error, Problem, THETA};
/// let problem = Problem::example(true);
/// let mut err = [0.0; 6];
/// // u = (0, 0): the triangles' third vertices, the simple example's vertices
/// let us = [0.0; 4];
/// complicated_error(&[0.0; THETA], &us, &problem.model, &problem.correspondences, &mut err);
/// let expected = [0.0, 0.1, -0.1, -0.1, 0.1, -0.1];
/// assert!(err.iter().zip(expected).all(|(a, b)| (a - b).abs() < 1e-15));
/// ```
#[differentiable]
pub fn complicated_error(
    theta: &[f64],
    us: &[f64],
    model: &Model,
    data: &Correspondences,
    err: &mut [f64],
) {
    let mut positions = vec![[0.0; 3]; model.vertices.len()];
    posed_vertices(theta, model, &mut positions);
    for i in 0..data.points.len() {
        let (a, b, c) = (data.first[i], data.second[i], data.third[i]);
        let (u0, u1) = (us[2 * i], us[2 * i + 1]);
        for k in 0..3 {
            let hand =
                u0 * positions[a][k] + u1 * positions[b][k] + (1.0 - u0 - u1) * positions[c][k];
            err[3 * i + k] = data.points[i][k] - hand;
        }
    }
}

/// The problem: the hand model and the measured points, everything but the parameters.
pub struct Problem {
    /// The bones, and the vertices the points use.
    pub model: Model,
    /// The measured points and their hand points.
    pub correspondences: Correspondences,
}

/// The hand points the measured points correspond to, as the input names them (vertices
/// of the whole model).
pub enum Targets {
    /// Vertex `vertices[i]` for point `i`.
    Vertices(Vec<usize>),
    /// A point of the triangle with vertices `a[i]`, `b[i]`, `c[i]` for point `i`.
    Triangles {
        /// The first vertex (weight `u₀`).
        a: Vec<usize>,
        /// The second vertex (weight `u₁`).
        b: Vec<usize>,
        /// The third vertex (weight `1 − u₀ − u₁`).
        c: Vec<usize>,
    },
}

/// The Jacobian of the objective by columns: with respect to each `us` coordinate (two
/// columns, complicated only: entry `3i + k` of column `j` is ∂err[3i + k]/∂us[2i + j])
/// and to each parameter of `theta` (entry `3i + k` of column `c` is
/// ∂err[3i + k]/∂θ_c). It serialises as the eval's dense `[3N][columns]` rows, the `us`
/// columns first, outside the timings (as the reference's `to_json`).
pub struct Jacobian {
    /// The two `us` columns (complicated), or `None`.
    pub by_us: Option<[Vec<f64>; 2]>,
    /// The [`THETA`] columns of `theta`.
    pub by_theta: Vec<Vec<f64>>,
}

impl Problem {
    /// Builds a problem from the model as the input gives it (dense skinning weights,
    /// `[V][B]`, and rest positions of every vertex) and the points' targets, keeping only
    /// the vertices the targets use (in increasing order) and each one's nonzero weights.
    ///
    /// # Panics
    /// If a target names a vertex the model does not have, or the weights' rows do not
    /// match the vertices.
    #[allow(clippy::too_many_arguments)] // the model's parts, as the input has them
    fn build(
        parents: Vec<Option<usize>>,
        base_relatives: Vec<[f64; 16]>,
        inverse_base_absolutes: Vec<[f64; 16]>,
        base_positions: &[[f64; 4]],
        weights: &[Vec<f64>],
        is_mirrored: bool,
        points: Vec<[f64; 3]>,
        targets: &Targets,
    ) -> Problem {
        assert_eq!(
            weights.len(),
            base_positions.len(),
            "ht: a weight row per vertex"
        );
        let lists: Vec<&[usize]> = match targets {
            Targets::Vertices(v) => vec![v],
            Targets::Triangles { a, b, c } => vec![a, b, c],
        };
        // the vertices used, and each one's index among them
        let mut index = vec![usize::MAX; base_positions.len()];
        for &v in lists.iter().copied().flatten() {
            index[v] = 0;
        }
        let mut vertices = Vec::new();
        let (mut starts, mut bones, mut kept) = (vec![0], Vec::new(), Vec::new());
        for (v, slot) in index.iter_mut().enumerate() {
            if *slot == usize::MAX {
                continue;
            }
            *slot = vertices.len();
            vertices.push(base_positions[v]);
            for (bone, &w) in weights[v].iter().enumerate() {
                if w != 0.0 {
                    bones.push(bone);
                    kept.push(w);
                }
            }
            starts.push(bones.len());
        }
        let relabel = |list: &[usize]| list.iter().map(|&v| index[v]).collect::<Vec<_>>();
        let mut relabelled = lists.iter().map(|list| relabel(list));
        let first = relabelled.next().expect("one list of targets at least");
        let second = relabelled.next().unwrap_or_default();
        let third = relabelled.next().unwrap_or_default();
        Problem {
            model: Model {
                parents,
                base_relatives,
                inverse_base_absolutes,
                is_mirrored,
                vertices,
                starts,
                bones,
                weights: kept,
            },
            correspondences: Correspondences {
                points,
                first,
                second,
                third,
            },
        }
    }

    /// Number of measured points.
    ///
    /// ```
    /// use gradtape_gradbench::evals::ht::Problem;
    /// assert_eq!(Problem::example(true).points(), 2);
    /// ```
    pub fn points(&self) -> usize {
        self.correspondences.points.len()
    }

    /// Whether the points correspond to triangles (and the objective takes `us`).
    ///
    /// ```
    /// use gradtape_gradbench::evals::ht::Problem;
    /// assert!(Problem::example(true).is_complicated());
    /// assert!(!Problem::example(false).is_complicated());
    /// ```
    pub fn is_complicated(&self) -> bool {
        !self.correspondences.second.is_empty()
    }

    /// The objective, `3N` numbers: [`complicated_error()`] at `us` (`2N` numbers) for a
    /// complicated problem, [`simple_error()`] otherwise.
    ///
    /// ```
    /// use gradtape_gradbench::evals::ht::{Problem, THETA};
    /// let problem = Problem::example(false);
    /// let err = problem.objective(&[0.0; THETA], None);
    /// assert_eq!(err.len(), 6);
    /// ```
    ///
    /// # Panics
    /// If `us` is missing for a complicated problem, or given for a simple one.
    pub fn objective(&self, theta: &[f64], us: Option<&[f64]>) -> Vec<f64> {
        let mut err = vec![0.0; 3 * self.points()];
        let (model, data) = (&self.model, &self.correspondences);
        match self.us(us) {
            Some(us) => complicated_error(theta, us, model, data, &mut err),
            None => simple_error(theta, model, data, &mut err),
        }
        err
    }

    /// `us` checked against the problem's variant.
    fn us<'a>(&self, us: Option<&'a [f64]>) -> Option<&'a [f64]> {
        assert_eq!(
            us.is_some(),
            self.is_complicated(),
            "ht: barycentric coordinates are given exactly for a complicated problem"
        );
        us
    }

    /// The Jacobian of [`objective`](Problem::objective), a column per sweep of the error
    /// function's tangent code (`jvp`): along each unit vector of `theta`, and,
    /// complicated, along `us` tangents of one in every point's first (then second)
    /// coordinate. The columns are split over gradtape's threads (at most two).
    ///
    /// ```
    /// use gradtape_gradbench::evals::ht::{Problem, THETA};
    /// let problem = Problem::example(false);
    /// let mut theta = [0.0; THETA];
    /// theta[0] = 0.5; // a global rotation about x
    /// let jacobian = problem.jacobian(&theta, None);
    /// // ∂err/∂t = −I for every point: the translation's columns
    /// assert_eq!(jacobian.by_theta[3], vec![-1.0, 0.0, 0.0, -1.0, 0.0, 0.0]);
    /// assert!(jacobian.by_us.is_none());
    /// ```
    ///
    /// # Panics
    /// If `us` is missing for a complicated problem, or given for a simple one.
    pub fn jacobian(&self, theta: &[f64], us: Option<&[f64]>) -> Jacobian {
        let us = self.us(us);
        let rows = 3 * self.points();
        let (model, data) = (&self.model, &self.correspondences);
        // sweep `s`: the us columns first (complicated), then theta's
        let offset = if us.is_some() { 2 } else { 0 };
        let sweep = |s: usize| -> Vec<f64> {
            let (mut err, mut tangent) = (vec![0.0; rows], vec![0.0; rows]);
            let mut tan_theta = [0.0; THETA];
            if s >= offset {
                tan_theta[s - offset] = 1.0;
            }
            match us {
                Some(us) => {
                    let tan_us: Vec<f64> = (0..us.len())
                        .map(|i| if i % 2 == s && s < offset { 1.0 } else { 0.0 })
                        .collect();
                    complicated_error::jvp(
                        theta,
                        us,
                        model,
                        data,
                        &mut err,
                        &tan_theta,
                        &tan_us,
                        &mut tangent,
                    );
                }
                None => {
                    simple_error::jvp(theta, model, data, &mut err, &tan_theta, &mut tangent);
                }
            }
            tangent
        };
        let mut columns = columns_in_parallel(offset + THETA, sweep).into_iter();
        let by_us = us.map(|_| {
            let first = columns.next().expect("a column per sweep");
            [first, columns.next().expect("a column per sweep")]
        });
        Jacobian {
            by_us,
            by_theta: columns.collect(),
        }
    }

    /// A two-bone hand with three vertices and two measured points (one per vertex or
    /// triangle), too small to be a hand but enough to run every step: bone 0 the root,
    /// bone 1 its child; the other bones of the 22 the parameters address are copies of
    /// bone 1 weighting no vertex. For examples and tests.
    ///
    /// ```
    /// use gradtape_gradbench::evals::ht::Problem;
    /// assert_eq!(Problem::example(false).model.parents.len(), 22);
    /// ```
    pub fn example(complicated: bool) -> Problem {
        let bones = MIN_BONES;
        let identity = |shift: f64| {
            let mut m = [0.0; 16];
            for k in 0..4 {
                m[5 * k] = 1.0;
            }
            m[3] = shift; // a translation along x
            m
        };
        // bone 1 sits at x = 1 from bone 0, the others at x = 1 from bone 1
        let relatives = (0..bones).map(|b| identity(if b == 0 { 0.0 } else { 1.0 }));
        let inverses = (0..bones).map(|b| identity(-(b.min(2) as f64)));
        let base = [
            [1.0, 0.0, 0.0, 1.0],
            [1.5, 0.5, 0.0, 1.0],
            [2.0, 0.0, 0.5, 1.0],
        ];
        let mut weights = vec![vec![0.0; bones]; 3];
        weights[0][0] = 1.0; // vertex 0: bone 0
        weights[1][0] = 0.5; // vertex 1: halfway
        weights[1][2] = 0.5;
        weights[2][2] = 1.0; // vertex 2: bone 2 (the first finger's base)
        let targets = if complicated {
            Targets::Triangles {
                a: vec![0, 2],
                b: vec![1, 0],
                c: vec![2, 1],
            }
        } else {
            Targets::Vertices(vec![2, 1])
        };
        Problem::build(
            (0..bones)
                .map(|b| if b == 0 { None } else { Some(b.min(2) - 1) })
                .collect(),
            relatives.collect(),
            inverses.collect(),
            &base,
            &weights,
            false,
            vec![[2.0, 0.1, 0.4], [1.4, 0.6, -0.1]],
            &targets,
        )
    }
}

/// `sweep(0)`, …, `sweep(count − 1)` in order, computed on as many threads as gradtape
/// uses ([`gradtape::num_threads`]: one unless the tool was started `--multithreaded`),
/// each taking every other sweep.
fn columns_in_parallel(count: usize, sweep: impl Fn(usize) -> Vec<f64> + Sync) -> Vec<Vec<f64>> {
    if gradtape::num_threads() < 2 {
        return (0..count).map(sweep).collect();
    }
    let sweep = &sweep;
    let (even, odd) = std::thread::scope(|scope| {
        let odd = scope.spawn(move || (1..count).step_by(2).map(sweep).collect::<Vec<_>>());
        let even: Vec<_> = (0..count).step_by(2).map(sweep).collect();
        (even, odd.join().expect("a sweep does not panic"))
    });
    let mut columns = Vec::with_capacity(count);
    let mut odd = odd.into_iter();
    for column in even {
        columns.push(column);
        columns.extend(odd.next());
    }
    columns
}

impl Serialize for Jacobian {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let rows = self.by_theta.first().map_or(0, Vec::len);
        let mut out = serializer.serialize_seq(Some(rows))?;
        for r in 0..rows {
            let mut row = Vec::with_capacity(self.by_theta.len() + 2);
            if let Some(us) = &self.by_us {
                row.extend([us[0][r], us[1][r]]);
            }
            row.extend(self.by_theta.iter().map(|column| column[r]));
            out.serialize_element(&row)?;
        }
        out.end()
    }
}

fn bad(reason: String) -> Failure {
    Failure::BadInput {
        module: "ht",
        reason,
    }
}

/// Rows of `width` numbers each, checked, flattened.
fn flat(field: &str, rows: &[Vec<f64>], width: usize) -> Result<Vec<f64>, Failure> {
    let mut out = Vec::with_capacity(rows.len() * width);
    for (i, row) in rows.iter().enumerate() {
        if row.len() != width {
            return Err(bad(format!(
                "{field}[{i}] has {} numbers, expected {width}",
                row.len()
            )));
        }
        out.extend(row);
    }
    Ok(out)
}

/// `4 × 4` matrices, checked, each flattened row-major.
fn matrices(field: &str, all: &[Vec<Vec<f64>>], bones: usize) -> Result<Vec<[f64; 16]>, Failure> {
    require("ht", all.len() == bones, || {
        format!("{field} has {} matrices for {bones} bones", all.len())
    })?;
    let mut out = Vec::with_capacity(bones);
    for (b, m) in all.iter().enumerate() {
        require("ht", m.len() == 4, || {
            format!("{field}[{b}] has {} rows, expected 4", m.len())
        })?;
        let flat = flat(&format!("{field}[{b}]"), m, 4)?;
        out.push(flat.try_into().expect("4 rows of 4"));
    }
    Ok(out)
}

/// Rows of `N` numbers each, checked.
fn rows<const N: usize>(field: &str, rows: &[Vec<f64>]) -> Result<Vec<[f64; N]>, Failure> {
    Ok(flat(field, rows, N)?
        .chunks_exact(N)
        .map(|row| row.try_into().expect("chunks of N"))
        .collect())
}

impl TryFrom<(DataInput, bool)> for Problem {
    type Error = Failure;

    fn try_from((data, complicated): (DataInput, bool)) -> Result<Problem, Failure> {
        let DataInput {
            model,
            correspondences,
            points,
        } = data;
        let bones = model.bone_names.len();
        require(
            "ht",
            bones == model.bone_count && bones >= MIN_BONES,
            || {
                format!(
                    "bone_count = {} with {bones} bone names; the pose parameters need {MIN_BONES} bones",
                    model.bone_count
                )
            },
        )?;
        require("ht", model.parents.len() == bones, || {
            format!(
                "parents has {} entries for {bones} bones",
                model.parents.len()
            )
        })?;
        let mut parents = Vec::with_capacity(bones);
        for (b, &p) in model.parents.iter().enumerate() {
            parents.push(match usize::try_from(p) {
                Ok(p) if p < b => Some(p),
                _ if p == -1 => None,
                _ => {
                    return Err(bad(format!(
                        "parents[{b}] = {p}: a parent is an earlier bone or -1"
                    )));
                }
            });
        }
        let vertices = model.base_positions.len();
        let base_positions = rows::<4>("base_positions", &model.base_positions)?;
        require("ht", model.weights.len() == vertices, || {
            format!(
                "weights has {} rows for {vertices} vertices",
                model.weights.len()
            )
        })?;
        for (v, row) in model.weights.iter().enumerate() {
            require("ht", row.len() == bones, || {
                format!("weights[{v}] has {} numbers, expected {bones}", row.len())
            })?;
        }
        let n = correspondences.len();
        require("ht", points.len() == n, || {
            format!("{} points for {n} correspondences", points.len())
        })?;
        let points = rows::<3>("points", &points)?;
        let vertex = |v: usize, what: &str| {
            require("ht", v < vertices, || {
                format!("{what} names vertex {v}, the model has {vertices}")
            })
        };
        let targets = if complicated {
            let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
            for (i, &t) in correspondences.iter().enumerate() {
                let triangle = model.triangles.get(t).ok_or_else(|| {
                    bad(format!(
                        "correspondences[{i}] = {t}: there are {} triangles",
                        model.triangles.len()
                    ))
                })?;
                require("ht", triangle.len() == 3, || {
                    format!("triangles[{t}] has {} vertices", triangle.len())
                })?;
                for &v in triangle {
                    vertex(v, &format!("triangles[{t}]"))?;
                }
                a.push(triangle[0]);
                b.push(triangle[1]);
                c.push(triangle[2]);
            }
            Targets::Triangles { a, b, c }
        } else {
            for (i, &v) in correspondences.iter().enumerate() {
                vertex(v, &format!("correspondences[{i}]"))?;
            }
            Targets::Vertices(correspondences)
        };
        Ok(Problem::build(
            parents,
            matrices("base_relatives", &model.base_relatives, bones)?,
            matrices(
                "inverse_base_absolutes",
                &model.inverse_base_absolutes,
                bones,
            )?,
            &base_positions,
            &model.weights,
            model.is_mirrored,
            points,
            &targets,
        ))
    }
}

/// `ht::objective` and `ht::jacobian`; `us` empty means the simple variant.
///
/// ```
/// // the input is a hand model and its data; see the tests for a complete one
/// let error = gradtape_gradbench::evals::ht::evaluate("objective", serde_json::json!({}));
/// assert!(error.is_err());
/// ```
pub fn evaluate(function: &str, input: Value) -> Result<Evaluation, Failure> {
    let Input {
        theta,
        data,
        us,
        runs,
    } = parse("ht", input)?;
    require("ht", theta.len() == THETA, || {
        format!("theta has {} numbers, the pose has {THETA}", theta.len())
    })?;
    let complicated = !us.is_empty();
    let n = data.correspondences.len();
    require("ht", !complicated || us.len() == n, || {
        format!("us has {} rows for {n} correspondences", us.len())
    })?;
    let us = complicated.then(|| flat("us", &us, 2)).transpose()?;
    let problem = Problem::try_from((data, complicated))?;
    match function {
        "objective" => Ok(runs.evaluate(|| problem.objective(&theta, us.as_deref()))),
        "jacobian" => Ok(runs.evaluate(|| problem.jacobian(&theta, us.as_deref()))),
        _ => Err(Failure::UnknownFunction {
            module: "ht",
            function: function.to_owned(),
            known: "`objective` and `jacobian`",
        }),
    }
}
