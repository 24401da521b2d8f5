//! `det`: the determinant of an `ℓ × ℓ` matrix by expansion by minors, as the C++
//! reference computes it, and its gradient with respect to every entry.
//!
//! The reference recurses: the determinant of a minor `M` of size `m` (rows `ℓ−m..ℓ`, some
//! `m` columns) is `Σⱼ (−1)ʲ M₀ⱼ det Sⱼ`, summed over `j` in column order, where `Sⱼ` drops
//! `M`'s first row and its `j`-th column; a minor of size 1 is its entry. That visits
//! `ℓ!/m!` minors of each size `m`, recomputing equal minors each time they occur (`ℓ!`
//! products at the bottom, 40 million at `ℓ = 11`).
//!
//! Recursion on single numbers is no way to use a tensor library (one tape node per
//! product), and written as a scalar `#[differentiable]` function over a slice
//! (`fn det_of_minor(a: &[f64], ell, row, columns: &[usize]) -> f64`) its adjoint replays
//! each call, recomputing the call's whole subtree, so the gradient costs about ℓ primals
//! (31 ms against 0.5 ms at ℓ = 8, docs/PERFORMANCE.md). So the same
//! recursion runs breadth-first, one level (one minor size) at a time, as a few tensor
//! ops. The `ℓ!/m!` minors of size `m` the recursion visits are held as a
//! `[sets, occurrences]` matrix: each of the `C(ℓ, m)` column sets occurs `(ℓ−m)!` times
//! (once per order in which the other columns were dropped), and every occurrence is
//! computed, as in the reference. One level is then: gather each occurrence's sub-minors
//! (rows of the level below) and take `Σⱼ (−1)ʲ M₀ⱼ det Sⱼ` for all of them at once, a
//! batched `[1, m] @ [m, occurrences]` matrix product per set. The `ℓ!` minors of size 1
//! are the last row's entries, repeated.
//! Every product and sum of the reference is computed (each minor's sum as one dot
//! product), and none is shared or skipped: only the order of the minors within a level
//! differs. The small index tables ([`Expansion`]) are built in every run, as the
//! reference tracks its rows and columns in every run. The function is annotated with
//! `#[differentiable]` and the gradient is its generated adjoint (`determinant::vjp`): the
//! derivative of this expansion, not of a determinant formula.
//!
//! Small matrices (`ℓ ≤` [`SLICE_MAX_ELL`]) take the same breadth-first expansion on plain
//! numbers ([`determinant_of_slice()`]: loops over a slice into one buffer of minors, its
//! gradient `determinant_of_slice::grad_into`): there a level is a few dozen numbers, and
//! a tensor op's fixed cost would dominate.

use gradtape::{Tensor, differentiable};
use serde::Deserialize;
use serde_json::Value;

use crate::runs::{parse, require};
use crate::{Evaluation, Failure, Runs};

/// The eval's input.
#[derive(Deserialize)]
struct Input {
    #[serde(rename = "A")]
    a: Vec<f64>,
    ell: usize,
    #[serde(flatten)]
    runs: Runs,
}

/// The largest `ℓ` this tool expands: at `ℓ = 11` (the eval's largest default) the
/// gradient holds a few batches of up to `ℓ!` numbers (under 2 GB); `ℓ = 12` would need
/// twelve times that.
pub const MAX_ELL: usize = 11;

/// The largest `ℓ` computed on plain numbers ([`determinant_of_slice()`]); larger matrices
/// go through tensors ([`determinant()`]). Measured (docs/PERFORMANCE.md, session 26): at
/// `ℓ ≤ 6` a level is a few dozen numbers, and the tensor path's fixed cost per op makes
/// its gradient 2–8x the slice one's; from `ℓ = 7` the batched products win.
pub const SLICE_MAX_ELL: usize = 6;

/// The index tables of the breadth-first expansion of an `ℓ × ℓ` matrix.
///
/// The column sets of each size `m` are numbered in increasing order of their bit masks;
/// an occurrence of a set is an order in which the other `ℓ − m` columns were dropped.
pub struct Expansion {
    /// The edge `ℓ`.
    pub ell: usize,
    /// For the sets of size 2 (`c₀ < c₁`), their sub-minors of size 1: `A[ℓ−1, c₁]`
    /// (dropping `c₀`), then `A[ℓ−1, c₀]`; flattened `[sets, 2]`.
    pub last_row: Vec<usize>,
    /// `levels[m]` for `m = 2..=ℓ` (entries 0 and 1 empty).
    pub levels: Vec<Level>,
    /// Where each level's minors sit in one flat buffer, for [`determinant_of_slice()`]:
    /// `offsets[m]` where the minors of size `m` start (`m = 2..=ℓ`), each level laid out
    /// `[sets, occurrences]`; `offsets[ℓ + 1]` is the total.
    pub offsets: Vec<usize>,
}

/// The minors of size `m ≥ 2`.
pub struct Level {
    /// `C(ℓ, m)`, the number of column sets.
    pub sets: usize,
    /// `(ℓ − m)!`, the occurrences of each.
    pub occurrences: usize,
    /// For each set `c₀ < … < c_{m−1}`, the flat indices of its first-row entries
    /// `A[ℓ−m, cⱼ]`, flattened `[sets, m]`.
    pub first_row: Vec<usize>,
    /// `(−1)ʲ`, shape `[1, m]`.
    pub signs: Tensor<f64>,
    /// For each set and `j`, the row of the level below (viewed as
    /// `[sets below · (ℓ−m+1), (ℓ−m)!]`) holding the occurrences of its sub-minor `j`: the
    /// sub-minor's set, and the place of the dropped column `cⱼ` among the columns that set
    /// lacks. Flattened `[sets, m]`.
    pub sub_minors: Vec<usize>,
}

impl Expansion {
    /// The tables for an `ℓ × ℓ` matrix, `1 ≤ ℓ ≤` [`MAX_ELL`].
    ///
    /// ```
    /// let plan = gradtape_gradbench::evals::det::Expansion::new(3);
    /// // the matrix itself: one set, its first row, and the three 2x2 minors below it
    /// let top = &plan.levels[3];
    /// assert_eq!((top.sets, top.occurrences), (1, 1));
    /// assert_eq!(top.first_row, vec![0, 1, 2]);
    /// // dropping column 0 leaves {1, 2} (set 2 of size 2), where 0 is the first missing
    /// assert_eq!(top.sub_minors, vec![2 * 1 + 0, 1 * 1 + 0, 0 * 1 + 0]);
    /// assert_eq!((plan.levels[2].sets, plan.levels[2].occurrences), (3, 1));
    /// assert_eq!(plan.last_row, vec![7, 6, 8, 6, 8, 7]);
    /// ```
    pub fn new(ell: usize) -> Expansion {
        assert!(
            (1..=MAX_ELL).contains(&ell),
            "ℓ = {ell} is out of 1..={MAX_ELL}"
        );
        let factorial = |k: usize| (1..=k).product::<usize>();
        // number the column sets of each size: rank[mask] among the masks of its size
        let mut rank = vec![0; 1 << ell];
        let mut by_size: Vec<Vec<u32>> = vec![Vec::new(); ell + 1];
        for mask in 0..1u32 << ell {
            let size = mask.count_ones() as usize;
            rank[mask as usize] = by_size[size].len();
            by_size[size].push(mask);
        }
        let columns = |mask: u32| (0..ell).filter(move |&c| mask & (1 << c) != 0);
        let full = (1u32 << ell) - 1;
        let levels: Vec<Level> = (0..=ell)
            .map(|m| {
                let sets = &by_size[m];
                let row = ell - m;
                let (mut first_row, mut sub_minors) = (Vec::new(), Vec::new());
                if m >= 2 {
                    for &mask in sets {
                        for c in columns(mask) {
                            first_row.push(row * ell + c);
                            let below = mask & !(1 << c);
                            // the place of c among the columns `below` lacks
                            let place = (full & !below & ((1 << c) - 1)).count_ones() as usize;
                            sub_minors.push(rank[below as usize] * (ell - m + 1) + place);
                        }
                    }
                }
                Level {
                    sets: sets.len(),
                    occurrences: factorial(ell - m),
                    first_row,
                    signs: Tensor::from_vec(
                        (0..m)
                            .map(|j| if j % 2 == 0 { 1.0 } else { -1.0 })
                            .collect(),
                        &[1, m],
                    ),
                    sub_minors,
                }
            })
            .collect();
        let last_row = by_size
            .get(2)
            .into_iter()
            .flatten()
            .flat_map(|&mask| {
                let mut pair = columns(mask);
                let (c0, c1) = (pair.next().unwrap_or(0), pair.next().unwrap_or(0));
                [(ell - 1) * ell + c1, (ell - 1) * ell + c0]
            })
            .collect();
        let mut offsets = vec![0; ell + 2];
        let mut end = 0;
        for (offset, level) in offsets.iter_mut().zip(&levels).skip(2) {
            *offset = end;
            end += level.sets * level.occurrences;
        }
        offsets[ell + 1] = end;
        Expansion {
            ell,
            last_row,
            levels,
            offsets,
        }
    }
}

/// The determinant of `a` (the `ℓ²` entries, row-major, shape `[ℓ²]`) by expansion by
/// minors, breadth-first (see the module's documentation).
///
/// ```
/// use gradtape::Tensor;
/// use gradtape_gradbench::evals::det::{Expansion, determinant};
/// let a = Tensor::from_vec(vec![2.0, 0.0, 1.0, 1.0, 3.0, 2.0, 1.0, 1.0, 1.0], &[9]);
/// // 2(3 − 2) − 0 + 1(1 − 3) = 0
/// assert_eq!(determinant(&a, &Expansion::new(3)).to_scalar(), 0.0);
/// ```
#[differentiable]
pub fn determinant(a: &Tensor<f64>, plan: &Expansion) -> Tensor<f64> {
    let ell = plan.ell;
    if ell == 1 {
        return a.sum();
    }
    // the minors of size 1 under each set of size 2, in each of their ℓ! occurrences
    let level = &plan.levels[2];
    let below = a
        .gather(0, &plan.last_row)
        .reshape(&[level.sets, 2, 1])
        .broadcast_to(&[level.sets, 2, level.occurrences]);
    let mut minors = signed_first_row(a, level, 2).matmul(&below);
    for m in 3..=ell {
        let level = &plan.levels[m];
        let occurrences = level.occurrences;
        // every occurrence's m sub-minors: rows of the level below, [sets, m, occurrences]
        let below = minors
            .reshape(&[minors.len() / occurrences, occurrences])
            .gather(0, &level.sub_minors)
            .reshape(&[level.sets, m, occurrences]);
        // Σⱼ (−1)ʲ M₀ⱼ det Sⱼ for every occurrence: [sets, 1, occurrences]
        minors = signed_first_row(a, level, m).matmul(&below);
    }
    minors.sum()
}

/// [`determinant()`] on plain numbers: the same breadth-first expansion (every occurrence of
/// every minor, each minor's sum in column order with the reference's additions and
/// subtractions), level after level into one buffer.
///
/// The formulation for small matrices, where a level is a few dozen numbers and the
/// tensor path's fixed cost per op dominates (see [`evaluate`]).
///
/// ```
/// use gradtape_gradbench::evals::det::{Expansion, determinant_of_slice};
/// let a = [2.0, 0.0, 1.0, 1.0, 3.0, 2.0, 1.0, 1.0, 1.0];
/// let plan = Expansion::new(3);
/// // 2(3 − 2) − 0 + 1(1 − 3) = 0
/// assert_eq!(determinant_of_slice(&a, &plan), 0.0);
/// // ∂det/∂a₀₀ is the cofactor det [[3, 2], [1, 1]] = 1
/// let mut da = [0.0; 9];
/// determinant_of_slice::grad_into(&a, &plan, &mut da);
/// assert_eq!(da[0], 1.0);
/// ```
#[differentiable]
pub fn determinant_of_slice(a: &[f64], plan: &Expansion) -> f64 {
    let ell = plan.ell;
    if ell == 1 {
        return a[0];
    }
    let mut minors = vec![0.0; plan.offsets[ell + 1]];
    // size 2: `A[ℓ−2, c₀] A[ℓ−1, c₁] − A[ℓ−2, c₁] A[ℓ−1, c₀]` in each occurrence
    let level = &plan.levels[2];
    for s in 0..level.sets {
        for o in 0..level.occurrences {
            let first = a[level.first_row[2 * s]] * a[plan.last_row[2 * s]];
            let second = a[level.first_row[2 * s + 1]] * a[plan.last_row[2 * s + 1]];
            minors[s * level.occurrences + o] = first - second;
        }
    }
    for m in 3..=ell {
        let level = &plan.levels[m];
        let occurrences = level.occurrences;
        let (here, below) = (plan.offsets[m], plan.offsets[m - 1]);
        for s in 0..level.sets {
            for o in 0..occurrences {
                let mut det = 0.0;
                for j in 0..m {
                    let sub = below + level.sub_minors[s * m + j] * occurrences + o;
                    let term = a[level.first_row[s * m + j]] * minors[sub];
                    // `det ± term` as the reference has it, bit for bit: `x − y` is `x + (−y)`
                    // in IEEE arithmetic, and `±1 · term` is exact
                    let sign = (1 - 2 * (j % 2) as i32) as f64;
                    det += sign * term;
                }
                minors[here + s * occurrences + o] = det;
            }
        }
    }
    minors[plan.offsets[ell]]
}

/// `(−1)ʲ M₀ⱼ` for each set of size `m` of `level`, shape `[sets, 1, m]`.
#[differentiable]
fn signed_first_row(a: &Tensor<f64>, level: &Level, m: usize) -> Tensor<f64> {
    (a.gather(0, &level.first_row).reshape(&[level.sets, m]) * &level.signs)
        .reshape(&[level.sets, 1, m])
}

/// `det::primal` and `det::gradient`.
///
/// ```
/// use serde_json::json;
/// let input = json!({ "A": [1.0, 2.0, 3.0, 4.0], "ell": 2, "min_runs": 1, "min_seconds": 0 });
/// let done = gradtape_gradbench::evals::det::evaluate("gradient", input).unwrap();
/// // d/dA (a d − b c) = (d, −c, −b, a)
/// assert_eq!(done.output, json!([4.0, -3.0, -2.0, 1.0]));
/// ```
pub fn evaluate(function: &str, input: Value) -> Result<Evaluation, Failure> {
    let Input { a, ell, runs } = parse("det", input)?;
    let gradient = match function {
        "primal" => false,
        "gradient" => true,
        _ => {
            return Err(Failure::UnknownFunction {
                module: "det",
                function: function.to_owned(),
                known: "`primal` and `gradient`",
            });
        }
    };
    require("det", ell >= 1, || {
        "ell = 0: the matrix needs an entry".to_owned()
    })?;
    require("det", a.len() == ell * ell, || {
        format!("A has {} entries, ell = {ell} needs {}", a.len(), ell * ell)
    })?;
    if ell > MAX_ELL {
        return Err(Failure::Unsupported {
            module: "det",
            function: function.to_owned(),
            reason: "the breadth-first expansion by minors holds batches of ℓ! minors; \
                     this tool stops at ℓ = 11",
        });
    }
    if ell <= SLICE_MAX_ELL {
        return Ok(if gradient {
            runs.evaluate(|| {
                let plan = Expansion::new(ell);
                let mut da = vec![0.0; ell * ell];
                determinant_of_slice::grad_into(&a, &plan, &mut da);
                da
            })
        } else {
            runs.evaluate(|| {
                let plan = Expansion::new(ell);
                determinant_of_slice(&a, &plan)
            })
        });
    }
    let a = Tensor::from_vec(a, &[ell * ell]);
    Ok(if gradient {
        runs.evaluate(|| {
            let (_, pullback) = determinant::vjp(&a, &Expansion::new(ell));
            let (da, ()) = pullback(Tensor::scalar(1.0));
            da.expect("A is differentiable, so the adjoint gives its cotangent")
                .to_vec()
        })
    } else {
        runs.evaluate(|| determinant(&a, &Expansion::new(ell)).to_scalar())
    })
}
