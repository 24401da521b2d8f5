//! `ht`: hand tracking (ADBench's). A hand model of bones (each posed by Euler angles,
//! chained from its parent) skins its vertices by linear blend skinning, a global
//! rotation and translation place them, and the objective is the difference between
//! measured points and the hand's points they correspond to: a vertex each ("simple"), or
//! a point `u₀ a + u₁ b + (1 − u₀ − u₁) c` of a triangle each ("complicated", with the
//! barycentric coordinates `us` as further parameters). `objective` is those `3N`
//! differences, `jacobian` their derivatives with respect to the 26 pose parameters
//! `theta` (and, complicated, the two `us` of each point's own row, in two columns first).
//!
//! Written as a user with tensors would, the C++ reference
//! (`gradbench-src/cpp/gradbench/evals/ht.hpp`) op for op, vectorised over the bones (one
//! batched matmul per step of the pose) and over the vertices. The skinning
//! `Σ_b w_vb (T_b x_v)` is one matrix product `K T` of the skinning matrix
//! `K[v, 4b + j] = w_vb x_vj` (model data, built from plain numbers in every run) with the
//! bone transforms `T[4b + j, l] = T_b[l, j]`. The hand points are picked from the
//! positions flattened to one axis: gradtape's `gather` on more than one axis goes through
//! `ndarray::select`, which concatenates one view per index (15 ms for 51 200 rows of 3,
//! against 0.5 ms for the same numbers on one axis).
//!
//! Derivatives, all from the tape:
//! - with respect to `theta`, the Jacobian has `3N` rows (up to 153 600) and 26 columns,
//!   so forward mode is the efficient direction. gradtape has reverse mode only, so the
//!   Jacobian is taken as the transpose of a reverse-mode one (the "double backward"
//!   trick): an inner tape gives `∇θ⟨err(θ), s⟩ = Jᵀ s`, recorded on an outer tape that
//!   watches the seed `s`, and the outer tape's gradient of column `c` of that (linear)
//!   gradient computation with respect to `s` is column `c` of `J`: one sweep per column.
//!   The vectorised `outer.jacobian` (one sweep of 26 rows) is 4-6 times slower here: its
//!   leading batch axis sends every gather and scatter to `ndarray`'s per-index slow path
//!   and the skinning matmul to a broadcast matmul (`[V, 88] @ [26, 88, 3]`: 285 ms);
//! - with respect to `us`, row `i` depends only on point `i`'s own `u`, so
//!   `batch_jacobian` (three rows per sweep, all points at once) gives them.
//!
//! Why the tape rather than `#[differentiable]` (issue 13): the pose is a chain over the
//! bones (`absolutes[i] = absolutes[parents[i]] @ relatives[i]`), naturally a `Vec` of
//! tensors indexed by the parent, and the attribute rejects it ("`push` is not a
//! differentiable method known to #\[differentiable\]"); the model is also a struct of
//! tensors, for which an annotated function runs op by op on the tape anyway (its
//! documented fallback for values reached through other parameters). The tape records the
//! same code as written.

use gradtape::{GradientOptions, GradientTape, Tensor};
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

/// The hand model and the measured points: everything but the parameters.
pub struct Problem {
    /// Each bone's parent (an earlier bone), `None` for the root.
    pub parents: Vec<Option<usize>>,
    /// `[B, 4, 4]`: each bone's rest transform relative to its parent.
    pub base_relatives: Tensor<f64>,
    /// `[B, 4, 4]`: the inverses of the bones' absolute rest transforms.
    pub inverse_base_absolutes: Tensor<f64>,
    /// `[V, 4]`: the rest positions of the vertices, homogeneous.
    pub base_positions: Tensor<f64>,
    /// `[V, B]`: each vertex's skinning weight per bone.
    pub weights: Tensor<f64>,
    /// Whether the model is a mirrored (left) hand: x is negated before the global pose.
    pub is_mirrored: bool,
    /// `[N, 3]`: the measured points.
    pub points: Tensor<f64>,
    /// Which hand points the measured points correspond to: one vertex each (simple), or
    /// the three vertices of a triangle (complicated).
    pub targets: Targets,
    /// For each bone, where its three Euler angles are in `theta` (extended by a zero).
    bone_angles: Vec<usize>,
    /// The targets' vertices as indices into the flattened positions `[3V]`, three per
    /// point (`3v + k`): one list (simple) or three (complicated).
    flat: Vec<Vec<usize>>,
}

/// The hand points the measured points correspond to.
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

impl Problem {
    /// Number of measured points.
    pub fn points(&self) -> usize {
        self.points.shape()[0]
    }

    /// Number of bones.
    pub fn bones(&self) -> usize {
        self.parents.len()
    }

    /// Each bone's three Euler angles `[B, 3]` (x, z, y), read from `theta` (C++'s
    /// `to_pose_params`: bone `i` is pose column `i + 3`; finger `f`'s base joint, bone
    /// `4f + 2`, has two angles, its next two joints one each, the others none).
    fn bone_angles(&self, theta: &Tensor<f64>) -> Tensor<f64> {
        let padded = Tensor::concat(&[theta, &Tensor::zeros(&[1])], 0);
        padded
            .gather(0, &self.bone_angles)
            .reshape(&[self.bones(), 3])
    }

    /// The vertex positions `[V, 3]` posed by `theta`.
    ///
    /// ```
    /// use gradtape::Tensor;
    /// use gradtape_gradbench::evals::ht::Problem;
    /// let problem = Problem::example(false);
    /// let theta = Tensor::zeros(&[26]);
    /// // the rest pose: every vertex where the model has it
    /// let rest = problem.vertex_positions(&theta).to_vec();
    /// assert_eq!(rest, vec![1.0, 0.0, 0.0, 1.5, 0.5, 0.0, 2.0, 0.0, 0.5]);
    /// ```
    pub fn vertex_positions(&self, theta: &Tensor<f64>) -> Tensor<f64> {
        let bones = self.bones();
        // each bone's rotation, Rz Ry Rx from its Euler angles
        let angles = self.bone_angles(theta);
        let (tx, tz, ty) = (
            angles.slice(1, 0, 1),
            angles.slice(1, 1, 1),
            angles.slice(1, 2, 1),
        );
        let (zero, one) = (Tensor::zeros(&[bones, 1]), Tensor::ones(&[bones, 1]));
        let matrix =
            |entries: [&Tensor<f64>; 9]| Tensor::concat(&entries, 1).reshape(&[bones, 3, 3]);
        let (cx, sx) = (tx.cos(), tx.sin());
        let (cy, sy) = (ty.cos(), ty.sin());
        let (cz, sz) = (tz.cos(), tz.sin());
        let rx = matrix([&one, &zero, &zero, &zero, &cx, &-&sx, &zero, &sx, &cx]);
        let ry = matrix([&cy, &zero, &sy, &zero, &one, &zero, &-&sy, &zero, &cy]);
        let rz = matrix([&cz, &-&sz, &zero, &sz, &cz, &zero, &zero, &zero, &one]);
        let rotation = rz.matmul(&ry).matmul(&rx);
        // as 4×4 transforms, after each bone's rest transform relative to its parent
        let corner = Tensor::from_vec([0.0, 0.0, 0.0, 1.0].repeat(bones), &[bones, 1, 4]);
        let posed = Tensor::concat(&[&rotation, &Tensor::zeros(&[bones, 3, 1])], 2);
        let posed = Tensor::concat(&[&posed, &corner], 1);
        let relatives = self.base_relatives.matmul(&posed);
        // down the chain of parents
        let mut absolutes: Vec<Tensor<f64>> = Vec::with_capacity(bones);
        for (bone, parent) in self.parents.iter().enumerate() {
            let relative = relatives.slice(0, bone, 1);
            let absolute = match parent {
                Some(parent) => absolutes[*parent].matmul(&relative),
                None => relative,
            };
            absolutes.push(absolute);
        }
        let absolutes = Tensor::concat(&absolutes.iter().collect::<Vec<_>>(), 0);
        let transforms = absolutes.matmul(&self.inverse_base_absolutes);
        // linear blend skinning, Σ_b w_vb (T_b x_v) for every vertex v, as one product
        let stacked = transforms
            .slice(1, 0, 3)
            .transpose()
            .reshape(&[4 * bones, 3]);
        let skinning = self.skinning_matrix();
        let mut positions = skinning.matmul(&stacked);
        if self.is_mirrored {
            positions = positions * Tensor::from_vec(vec![-1.0, 1.0, 1.0], &[1, 3]);
        }
        // the global pose (its scale is fixed at 1)
        let rotation = angle_axis_to_rotation_matrix(&theta.slice(0, 0, 3));
        let translation = theta.slice(0, 3, 3).reshape(&[1, 3]);
        positions.matmul(&rotation.transpose()) + translation
    }

    /// The skinning matrix `K[v, 4b + j] = w_vb x_vj`, `[V, 4B]`: data of the model, not
    /// differentiated (built from plain numbers, as the model is read).
    fn skinning_matrix(&self) -> Tensor<f64> {
        let (weights, base) = (self.weights.view(), self.base_positions.view());
        let bones = weights.shape()[1];
        let (weights, base) = (
            weights.as_slice().expect("built row-major"),
            base.as_slice().expect("built row-major"),
        );
        let vertices = base.len() / 4;
        let mut k = Vec::with_capacity(vertices * bones * 4);
        for (w, x) in weights.chunks_exact(bones).zip(base.chunks_exact(4)) {
            for &w in w {
                k.extend(x.iter().map(|&x| w * x));
            }
        }
        Tensor::from_vec(k, &[vertices, 4 * bones])
    }

    /// The objective `[N, 3]`: each measured point minus its hand point, with `us`
    /// (`[N, 2]`) the barycentric coordinates for a complicated problem.
    ///
    /// ```
    /// use gradtape::Tensor;
    /// use gradtape_gradbench::evals::ht::Problem;
    /// let problem = Problem::example(false);
    /// let err = problem.objective(&Tensor::zeros(&[26]), None);
    /// assert_eq!(err.shape(), &[2, 3]);
    /// ```
    ///
    /// # Panics
    /// If `us` is missing for a complicated problem.
    pub fn objective(&self, theta: &Tensor<f64>, us: Option<&Tensor<f64>>) -> Tensor<f64> {
        // the positions flattened, `3v + k`, so that picking the targets is a gather of
        // single numbers (see the module docs)
        let positions = self
            .vertex_positions(theta)
            .reshape(&[3 * self.weights.shape()[0]]);
        let n = self.points();
        let pick = |which: usize| positions.gather(0, &self.flat[which]).reshape(&[n, 3]);
        let hand = match &self.targets {
            Targets::Vertices(_) => pick(0),
            Targets::Triangles { .. } => {
                let us = us.expect("a complicated problem has barycentric coordinates");
                // each point's u repeated for its three coordinates
                let repeat = |u: &Tensor<f64>| Tensor::concat(&[u, u, u], 1);
                let (u0, u1) = (repeat(&us.slice(1, 0, 1)), repeat(&us.slice(1, 1, 1)));
                let rest = 1.0 - &u0 - &u1;
                &u0 * pick(0) + &u1 * pick(1) + rest * pick(2)
            }
        };
        &self.points - hand
    }

    /// The Jacobian of [`objective`](Problem::objective): with respect to `theta`, one
    /// `[N, 3]` tensor per parameter `c` (entry `[i, k]` is ∂err[i, k]/∂θ_c), and, complicated, to each
    /// point's own `us` (`[N, 3, 2]`: entry `[i, k, j]` is ∂err[i, k]/∂us[i, j]).
    pub fn jacobian(
        &self,
        theta: &Tensor<f64>,
        us: Option<&Tensor<f64>>,
    ) -> (Vec<Tensor<f64>>, Option<Tensor<f64>>) {
        let seed = Tensor::ones(&[self.points(), 3]);
        let outer = GradientTape::persistent();
        outer.watch(&seed);
        let inner = GradientTape::persistent();
        inner.watch(theta);
        if let Some(us) = us {
            inner.watch(us);
        }
        let (err, pulled) = outer.record(|| {
            let err = inner.record(|| self.objective(theta, us));
            let options = GradientOptions::new().output_gradients(seed.clone());
            let pulled = inner
                .gradient_with(&err, theta, options)
                .expect("a persistent tape gives its gradients");
            (err, pulled)
        });
        let pulled = pulled.expect("the objective depends on theta");
        // one sweep per column: the batched sweep (`outer.jacobian`) carries a leading batch
        // axis, and gradtape's gather and scatter kernels take a slow path on more than one
        // axis (see the module docs), so 26 plain sweeps are faster
        let by_theta = (0..THETA)
            .map(|column| {
                let mut pick = vec![0.0; THETA];
                pick[column] = 1.0;
                let options =
                    GradientOptions::new().output_gradients(Tensor::from_vec(pick, &[THETA]));
                outer
                    .gradient_with(&pulled, &seed, options)
                    .expect("a persistent tape gives its gradients")
                    .expect("Jᵀ s depends on s")
            })
            .collect();
        let by_us = us.map(|us| {
            inner
                .batch_jacobian(&err, us)
                .expect("a persistent tape gives its jacobians")
                .expect("a complicated objective depends on us")
        });
        (by_theta, by_us)
    }

    /// A two-bone hand with three vertices and two measured points (one per vertex or
    /// triangle), too small to be a hand but enough to run every step: bone 0 the root,
    /// bone 1 its child; the other bones of the 22 the parameters address are copies of
    /// bone 1 weighting no vertex. For examples and tests.
    pub fn example(complicated: bool) -> Problem {
        let bones = MIN_BONES;
        let identity = |shift: f64| {
            let mut m = vec![0.0; 16];
            for k in 0..4 {
                m[5 * k] = 1.0;
            }
            m[3] = shift; // a translation along x
            m
        };
        // bone 1 sits at x = 1 from bone 0, the others at x = 1 from bone 1
        let mut relatives = identity(0.0);
        let mut inverses = identity(0.0);
        for bone in 1..bones {
            relatives.extend(identity(1.0));
            inverses.extend(identity(-(bone.min(2) as f64)));
        }
        let base = vec![
            1.0, 0.0, 0.0, 1.0, //
            1.5, 0.5, 0.0, 1.0, //
            2.0, 0.0, 0.5, 1.0,
        ];
        let mut weights = vec![0.0; 3 * bones];
        weights[0] = 1.0; // vertex 0: bone 0
        weights[bones] = 0.5; // vertex 1: halfway
        weights[bones + 2] = 0.5;
        weights[2 * bones + 2] = 1.0; // vertex 2: bone 2 (the first finger's base)
        let targets = if complicated {
            Targets::Triangles {
                a: vec![0, 2],
                b: vec![1, 0],
                c: vec![2, 1],
            }
        } else {
            Targets::Vertices(vec![2, 1])
        };
        Problem {
            parents: (0..bones)
                .map(|b| if b == 0 { None } else { Some(b.min(2) - 1) })
                .collect(),
            base_relatives: Tensor::from_vec(relatives, &[bones, 4, 4]),
            inverse_base_absolutes: Tensor::from_vec(inverses, &[bones, 4, 4]),
            base_positions: Tensor::from_vec(base, &[3, 4]),
            weights: Tensor::from_vec(weights, &[3, bones]),
            is_mirrored: false,
            points: Tensor::from_vec(vec![2.0, 0.1, 0.4, 1.4, 0.6, -0.1], &[2, 3]),
            flat: flat_indices(&targets),
            targets,
            bone_angles: pose_layout(bones),
        }
    }
}

/// The rotation matrix `[3, 3]` of an angle-axis vector `[3]` (the identity below an
/// angle of 10⁻⁴, as the reference).
pub fn angle_axis_to_rotation_matrix(angle_axis: &Tensor<f64>) -> Tensor<f64> {
    let norm = angle_axis.square().sum().sqrt();
    if norm.to_scalar() < 1e-4 {
        return Tensor::from_vec(vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], &[3, 3]);
    }
    let axis = angle_axis / &norm;
    let (x, y, z) = (
        axis.slice(0, 0, 1),
        axis.slice(0, 1, 1),
        axis.slice(0, 2, 1),
    );
    let (s, c) = (norm.sin(), norm.cos());
    let one_c = 1.0 - &c;
    let entries = [
        &x * &x + (1.0 - &x * &x) * &c,
        &x * &y * &one_c - &z * &s,
        &x * &z * &one_c + &y * &s,
        &x * &y * &one_c + &z * &s,
        &y * &y + (1.0 - &y * &y) * &c,
        &y * &z * &one_c - &x * &s,
        &x * &z * &one_c - &y * &s,
        &z * &y * &one_c + &x * &s,
        &z * &z + (1.0 - &z * &z) * &c,
    ];
    Tensor::concat(&entries.iter().collect::<Vec<_>>(), 0).reshape(&[3, 3])
}

/// The targets' vertices as indices into the flattened positions: `3v + k` for each
/// point's `k`-th coordinate.
fn flat_indices(targets: &Targets) -> Vec<Vec<usize>> {
    let flat = |vertices: &[usize]| -> Vec<usize> {
        vertices
            .iter()
            .flat_map(|&v| (0..3).map(move |k| 3 * v + k))
            .collect()
    };
    match targets {
        Targets::Vertices(vertices) => vec![flat(vertices)],
        Targets::Triangles { a, b, c } => vec![flat(a), flat(b), flat(c)],
    }
}

/// Where each bone's three Euler angles are in `theta` extended by one zero (index
/// [`THETA`]): C++'s `to_pose_params` as an index map, `[bones × 3]`.
fn pose_layout(bones: usize) -> Vec<usize> {
    let mut layout = vec![THETA; 3 * bones];
    let mut next = 6;
    for finger in 0..5 {
        for joint in 0..3 {
            let bone = 4 * finger + 2 + joint;
            layout[3 * bone] = next;
            next += 1;
            if joint == 0 {
                layout[3 * bone + 1] = next;
                next += 1;
            }
        }
    }
    layout
}

/// The Jacobian as the eval wants it, `[3N][columns]`, read from the two parts when
/// serialised (outside the timings, as the reference's `to_json`).
struct Dense {
    by_theta: Vec<Tensor<f64>>,
    by_us: Option<Tensor<f64>>,
}

impl Serialize for Dense {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let theta: Vec<_> = self.by_theta.iter().map(Tensor::view).collect();
        let points = theta.first().map_or(0, |t| t.shape()[0]);
        let us = self.by_us.as_ref().map(Tensor::view);
        let mut rows = serializer.serialize_seq(Some(3 * points))?;
        for i in 0..points {
            for k in 0..3 {
                let mut row = Vec::with_capacity(theta.len() + 2);
                if let Some(us) = &us {
                    row.extend([us[[i, k, 0]], us[[i, k, 1]]]);
                }
                row.extend(theta.iter().map(|t| t[[i, k]]));
                rows.serialize_element(&row)?;
            }
        }
        rows.end()
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

/// `4 × 4` matrices, checked, flattened.
fn matrices(field: &str, all: &[Vec<Vec<f64>>], bones: usize) -> Result<Tensor<f64>, Failure> {
    require("ht", all.len() == bones, || {
        format!("{field} has {} matrices for {bones} bones", all.len())
    })?;
    let mut out = Vec::with_capacity(16 * bones);
    for (b, m) in all.iter().enumerate() {
        require("ht", m.len() == 4, || {
            format!("{field}[{b}] has {} rows, expected 4", m.len())
        })?;
        out.extend(flat(&format!("{field}[{b}]"), m, 4)?);
    }
    Ok(Tensor::from_vec(out, &[bones, 4, 4]))
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
        let base_positions = flat("base_positions", &model.base_positions, 4)?;
        require("ht", model.weights.len() == vertices, || {
            format!(
                "weights has {} rows for {vertices} vertices",
                model.weights.len()
            )
        })?;
        let weights = flat("weights", &model.weights, bones)?;
        let n = correspondences.len();
        require("ht", points.len() == n, || {
            format!("{} points for {n} correspondences", points.len())
        })?;
        let points = flat("points", &points, 3)?;
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
        Ok(Problem {
            base_relatives: matrices("base_relatives", &model.base_relatives, bones)?,
            inverse_base_absolutes: matrices(
                "inverse_base_absolutes",
                &model.inverse_base_absolutes,
                bones,
            )?,
            base_positions: Tensor::from_vec(base_positions, &[vertices, 4]),
            weights: Tensor::from_vec(weights, &[vertices, bones]),
            is_mirrored: model.is_mirrored,
            points: Tensor::from_vec(points, &[n, 3]),
            flat: flat_indices(&targets),
            targets,
            parents,
            bone_angles: pose_layout(bones),
        })
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
    let us = complicated
        .then(|| flat("us", &us, 2).map(|us| Tensor::from_vec(us, &[n, 2])))
        .transpose()?;
    let problem = Problem::try_from((data, complicated))?;
    let theta = Tensor::from_vec(theta, &[THETA]);
    match function {
        "objective" => Ok(runs.evaluate(|| problem.objective(&theta, us.as_ref()).to_vec())),
        "jacobian" => Ok(runs.evaluate(|| {
            let (by_theta, by_us) = problem.jacobian(&theta, us.as_ref());
            Dense { by_theta, by_us }
        })),
        _ => Err(Failure::UnknownFunction {
            module: "ht",
            function: function.to_owned(),
            known: "`objective` and `jacobian`",
        }),
    }
}
