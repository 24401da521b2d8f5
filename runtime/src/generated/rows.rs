//! Shadows of *ragged* arrays of rows: `&[Vec<F>]`, `Vec<Vec<F>>`, `&Vec<Vec<F>>` and local
//! `vec![vec![0.0; n]; m]` in the scalar-mode code of `#[differentiable]`, whose rows need
//! not share a length.
//!
//! The generated code addresses an element `m[i][j]` by one `usize`, as it does for every
//! array (the index local it saves): here `i * RAGGED_STRIDE + j`
//! ([`ragged_index`]), a stride no row reaches, so the forward code reads the element back
//! as `m[k / RAGGED_STRIDE][k % RAGGED_STRIDE]` (a shift and a mask) and the shadow, a
//! shadow of rows, finds its slot the same way. No offset table is built: `grad_into` can
//! take the caller's rows (`&mut [Vec<F>]`) as the shadow and allocate nothing.

use core::ops::Add;

/// The stride of the index of `m[i][j]` in a ragged array of rows: `2^(usize::BITS / 2)`
/// (`2^32` on 64-bit targets), larger than any row a ragged array may hold.
///
/// ```
/// use gradtape_runtime::generated::RAGGED_STRIDE;
/// assert_eq!(RAGGED_STRIDE, 1 << (usize::BITS / 2));
/// ```
pub const RAGGED_STRIDE: usize = 1 << (usize::BITS / 2);

/// The index of `m[row][col]` in a ragged array of rows: `row * RAGGED_STRIDE + col`. The
/// bounds are checked as `m[row][col]` would check them.
///
/// # Panics
///
/// If `row >= rows.len()` or `col >= rows[row].len()` (the message of the indexing), or if
/// `row` or `col` reaches [`RAGGED_STRIDE`] (a row of 2³² elements on a 64-bit target).
///
/// ```
/// use gradtape_runtime::generated::{RAGGED_STRIDE, ragged_index};
/// let m = vec![vec![1.0_f64], vec![2.0, 3.0]];
/// let k = ragged_index(&m, 1, 1);
/// assert_eq!(k, RAGGED_STRIDE + 1);
/// assert_eq!(m[k / RAGGED_STRIDE][k % RAGGED_STRIDE], 3.0);
/// ```
#[inline]
#[track_caller]
pub fn ragged_index<F>(rows: &[Vec<F>], row: usize, col: usize) -> usize {
    let len = rows[row].len();
    assert!(
        col < len,
        "index out of bounds: the len is {len} but the index is {col}"
    );
    assert!(
        row < RAGGED_STRIDE && col < RAGGED_STRIDE,
        "#[differentiable]: a ragged array of rows holds fewer than {RAGGED_STRIDE} rows of fewer than {RAGGED_STRIDE} elements (element [{row}][{col}])"
    );
    row * RAGGED_STRIDE + col
}

/// The row lengths of a ragged array (saved by `f::vjp` to shape the gradient).
///
/// ```
/// let m = vec![vec![1.0_f64], vec![2.0, 3.0]];
/// assert_eq!(gradtape_runtime::generated::row_lengths(&m), vec![1, 2]);
/// ```
pub fn row_lengths<F>(rows: &[Vec<F>]) -> Vec<usize> {
    rows.iter().map(Vec::len).collect()
}

/// The shadow of a ragged array of rows: element `[i][j]` holds the cotangent (or tangent)
/// of `m[i][j]`, found from the index `i * RAGGED_STRIDE + j`. Owned (growing with the
/// indices met: a parameter's gradient in `vjp`, a local's cotangent), the caller's rows
/// (`grad_into`), or the caller's tangent (`jvp`, copied on its first write).
///
/// ```
/// use gradtape_runtime::generated::{RAGGED_STRIDE, RowShadow};
/// let mut d = RowShadow::<f64>::zeros(&[1, 2]);
/// d.add(RAGGED_STRIDE + 1, 2.0);
/// d.add(RAGGED_STRIDE + 1, 0.5);
/// assert_eq!(d.get(RAGGED_STRIDE + 1), 2.5);
/// assert_eq!(d.take(RAGGED_STRIDE + 1), 2.5);
/// assert_eq!(d.into_rows(), vec![vec![0.0], vec![0.0, 0.0]]);
/// ```
pub struct RowShadow<'b, F> {
    data: Rows<'b, F>,
}

enum Rows<'b, F> {
    Owned(Vec<Vec<F>>),
    Borrowed(&'b mut [Vec<F>]),
    Shared(&'b [Vec<F>]),
}

#[inline]
fn split(k: usize) -> (usize, usize) {
    (k / RAGGED_STRIDE, k % RAGGED_STRIDE)
}

impl<'b, F: Copy + Default + Add<Output = F>> RowShadow<'b, F> {
    /// Zero rows of the given lengths (a parameter's gradient in `vjp`).
    pub fn zeros(lengths: &[usize]) -> Self {
        RowShadow {
            data: Rows::Owned(lengths.iter().map(|&n| vec![F::default(); n]).collect()),
        }
    }

    /// No rows, growing with the indices met (a local array's shadow).
    pub fn growable() -> Self {
        RowShadow {
            data: Rows::Owned(Vec::new()),
        }
    }

    /// The caller's rows as the shadow (`grad_into`): accumulated into in place.
    pub fn borrowed(rows: &'b mut [Vec<F>]) -> Self {
        RowShadow {
            data: Rows::Borrowed(rows),
        }
    }

    /// The caller's tangent rows, copied only if written.
    pub fn shared(rows: &'b [Vec<F>]) -> Self {
        RowShadow {
            data: Rows::Shared(rows),
        }
    }

    fn rows(&self) -> &[Vec<F>] {
        match &self.data {
            Rows::Owned(rows) => rows,
            Rows::Borrowed(rows) => rows,
            Rows::Shared(rows) => rows,
        }
    }

    /// The slot of index `k`: the caller's rows index directly (their shape was checked,
    /// and the forward code indexed the array at `k` already); owned rows grow to it.
    #[inline]
    fn slot(&mut self, k: usize) -> &mut F {
        let (i, j) = split(k);
        let hot = match &self.data {
            Rows::Borrowed(_) => true,
            Rows::Owned(rows) => rows.get(i).is_some_and(|row| j < row.len()),
            Rows::Shared(_) => false,
        };
        if !hot {
            self.make_room(i, j);
        }
        match &mut self.data {
            Rows::Owned(rows) => &mut rows[i][j],
            Rows::Borrowed(rows) => &mut rows[i][j],
            Rows::Shared(_) => unreachable!("copied by `make_room`"),
        }
    }

    #[cold]
    #[inline(never)]
    fn make_room(&mut self, i: usize, j: usize) {
        if let Rows::Shared(rows) = &self.data {
            self.data = Rows::Owned(rows.to_vec());
        }
        if let Rows::Owned(rows) = &mut self.data {
            if i >= rows.len() {
                rows.resize_with(i + 1, Vec::new);
            }
            if j >= rows[i].len() {
                rows[i].resize(j + 1, F::default());
            }
        }
    }

    /// Adds `g` into the element of index `k` (the adjoint of a read).
    #[inline]
    pub fn add(&mut self, k: usize, g: F) {
        let slot = self.slot(k);
        *slot = *slot + g;
    }

    /// The element of index `k`, zeroed (the adjoint of a write); zero if never met.
    #[inline]
    pub fn take(&mut self, k: usize) -> F {
        if self.get_slot(k).is_none() {
            return F::default();
        }
        core::mem::take(self.slot(k))
    }

    fn get_slot(&self, k: usize) -> Option<&F> {
        let (i, j) = split(k);
        self.rows().get(i)?.get(j)
    }

    /// The element of index `k` (zero if never met).
    #[inline]
    pub fn get(&self, k: usize) -> F {
        self.get_slot(k).copied().unwrap_or_default()
    }

    /// Sets the element of index `k` (a tangent written with its value).
    #[inline]
    pub fn set(&mut self, k: usize, value: F) {
        *self.slot(k) = value;
    }

    /// Every element zeroed: the array got a new value made of constants.
    pub fn clear(&mut self) {
        match &mut self.data {
            Rows::Owned(rows) => rows.clear(),
            Rows::Borrowed(rows) => rows.iter_mut().for_each(|row| row.fill(F::default())),
            Rows::Shared(_) => self.data = Rows::Owned(Vec::new()),
        }
    }

    /// The rows as they are (a tangent passed on to another annotated function): an owned
    /// shadow may have fewer or shorter rows than its array, the rest being zeros.
    pub fn as_rows(&self) -> &[Vec<F>] {
        self.rows()
    }

    /// The rows, owned (a parameter's gradient, in the parameter's shape when made by
    /// [`zeros`](Self::zeros)).
    pub fn into_rows(self) -> Vec<Vec<F>> {
        match self.data {
            Rows::Owned(rows) => rows,
            Rows::Borrowed(rows) => rows.to_vec(),
            Rows::Shared(rows) => rows.to_vec(),
        }
    }
}

/// Checks that the rows `buffer` passed to `function`'s `grad_into` (or `jvp`) for the
/// ragged parameter `param` have the shape of the parameter's rows.
///
/// # Panics
///
/// If the numbers of rows differ, or a row's lengths do, naming the function, the
/// parameter, the row and both lengths.
///
/// ```
/// let m = vec![vec![1.0_f64], vec![2.0, 3.0]];
/// let d = vec![vec![0.0_f64], vec![0.0, 0.0]];
/// gradtape_runtime::generated::check_row_shadow("f", "m", &m, &d);
/// ```
#[track_caller]
pub fn check_row_shadow<F>(function: &str, param: &str, rows: &[Vec<F>], buffer: &[Vec<F>]) {
    assert!(
        rows.len() == buffer.len(),
        "{function}: the rows given for `{param}` are {}, but `{param}` has {} rows",
        buffer.len(),
        rows.len()
    );
    for (i, (row, given)) in rows.iter().zip(buffer).enumerate() {
        assert!(
            row.len() == given.len(),
            "{function}: row {i} given for `{param}` has length {}, but `{param}[{i}]` has length {}",
            given.len(),
            row.len()
        );
    }
}

/// The cotangent an annotated callee's pullback gives for a ragged array argument: its
/// rows, or nothing (`None`: no path; `()`: the callee holds that parameter constant). The
/// caller adds it into the array's shadow of rows.
///
/// ```
/// use gradtape_runtime::generated::{RowShadow, RowsCotangent};
/// let mut d = RowShadow::<f64>::zeros(&[1, 2]);
/// Some(vec![vec![1.0], vec![2.0, 3.0]]).add_rows_into(&mut d);
/// ().add_rows_into(&mut d);
/// assert_eq!(d.into_rows(), vec![vec![1.0], vec![2.0, 3.0]]);
/// ```
pub trait RowsCotangent<F> {
    /// Adds the rows into `shadow`, element `[i][j]` into `[i][j]`.
    fn add_rows_into(self, shadow: &mut RowShadow<'_, F>);
}

impl<F: Copy + Default + Add<Output = F>> RowsCotangent<F> for Option<Vec<Vec<F>>> {
    fn add_rows_into(self, shadow: &mut RowShadow<'_, F>) {
        let Some(rows) = self else { return };
        for (i, row) in rows.iter().enumerate() {
            for (j, g) in row.iter().enumerate() {
                shadow.add(i * RAGGED_STRIDE + j, *g);
            }
        }
    }
}

impl<F> RowsCotangent<F> for () {
    fn add_rows_into(self, _: &mut RowShadow<'_, F>) {}
}

/// The tangent a caller passes for a ragged array argument of another annotated
/// function's `jvp_call`: the array's tangent shadow of rows, or
/// [`NoTangent`](super::NoTangent) for a constant array (no rows: zeros).
///
/// ```
/// use gradtape_runtime::generated::{NoTangent, RowShadow, TangentRows};
/// let given = [vec![1.0_f64], vec![2.0, 3.0]];
/// let t = RowShadow::shared(&given);
/// assert_eq!((&t).rows(), &given);
/// assert!(TangentRows::<f64>::rows(&NoTangent).is_empty());
/// ```
pub trait TangentRows<F> {
    /// The tangent's rows; possibly fewer or shorter than the array's, the rest zeros.
    fn rows(&self) -> &[Vec<F>];
}

impl<F: Copy + Default + Add<Output = F>> TangentRows<F> for &RowShadow<'_, F> {
    fn rows(&self) -> &[Vec<F>] {
        self.as_rows()
    }
}

impl<F> TangentRows<F> for super::NoTangent {
    fn rows(&self) -> &[Vec<F>] {
        &[]
    }
}

/// A tangent of rows in the shape of `rows` (a ragged parameter's tangent in `f::jvp`,
/// passed on by `jvp_call`): borrowed when it has that shape or has no rows (a zero
/// tangent), else copied, zero-padded (a local's tangent shadow grows only with the
/// elements written).
///
/// ```
/// use gradtape_runtime::generated::tangent_rows_like;
/// let m = [vec![1.0_f64, 2.0], vec![3.0]];
/// assert_eq!(&*tangent_rows_like(&m, &[vec![5.0]]), &[vec![5.0, 0.0], vec![0.0]]);
/// assert!(tangent_rows_like(&m, &[]).is_empty());
/// ```
pub fn tangent_rows_like<'t, F: Copy + Default>(
    rows: &[Vec<F>],
    tangent: &'t [Vec<F>],
) -> std::borrow::Cow<'t, [Vec<F>]> {
    let same =
        tangent.len() == rows.len() && rows.iter().zip(tangent).all(|(r, t)| r.len() == t.len());
    if same || tangent.is_empty() {
        return std::borrow::Cow::Borrowed(tangent);
    }
    let padded = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let mut out = vec![F::default(); row.len()];
            if let Some(given) = tangent.get(i) {
                for (o, t) in out.iter_mut().zip(given) {
                    *o = *t;
                }
            }
            out
        })
        .collect();
    std::borrow::Cow::Owned(padded)
}
