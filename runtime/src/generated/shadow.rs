//! Shadow buffers: the cotangent (or tangent) of an array, slice or `Vec` of floats in the
//! scalar-mode code of `#[differentiable]` (Enzyme's shadow memory). Element `i` of the
//! shadow belongs to element `i` of the array: the adjoint of a read `a[i]` adds into it,
//! the adjoint of a write `a[i] = e` takes it (reads and zeroes: the old value of `a[i]`
//! does not reach the result through this element any more).
//!
//! A shadow either owns its numbers (a parameter's gradient in `f::vjp`; a local buffer's
//! cotangent, [`LocalShadow`], which grows as indices beyond its end are met: the buffer
//! may have grown by `push`) or borrows the caller's buffer (`f::grad_into`, which then
//! allocates nothing for it). A borrowed shadow has the length of its array, checked up
//! front. [`Shadow`] is a tangent's (forward mode), [`FixedShadow`] a parameter's
//! cotangent.

use core::marker::PhantomData;
use core::ops::Add;

/// The shadow of one array: element `i` holds the cotangent (or tangent) of element `i`;
/// owned (growing with the indices met) or the caller's buffer.
///
/// ```
/// use gradtape_runtime::generated::Shadow;
/// let mut buffer = [0.0_f64; 3];
/// let mut d = Shadow::borrowed(&mut buffer);
/// d.add(1, 2.0);
/// d.add(1, 0.5);
/// assert_eq!(d.take(1), 2.5);
/// assert_eq!(d.get(1), 0.0);
/// assert_eq!(d.into_vec(), vec![0.0, 0.0, 0.0]);
/// ```
pub struct Shadow<'b, F> {
    data: Data<'b, F>,
}

enum Data<'b, F> {
    /// A local buffer's: grows with the indices it meets.
    Owned(Vec<F>),
    Borrowed(&'b mut [F]),
    /// A tangent given by the caller, copied on its first write.
    Shared(&'b [F]),
}

impl<F> Shadow<'_, F> {
    /// The shadow of a local array (its tangent, declared beside it): zeros of the
    /// array's length, owned and growing past it with the indices met (the array may grow
    /// by `push`), of the array's element type (where every rule the
    /// shadow's values meet is generic, only the array fixes that type). Sized up front,
    /// a write anywhere in the array is a plain store (grown element by element, each
    /// first write of an array being filled went through the out-of-line growth). It is
    /// on the heap, so a small local array declared in a loop's body allocates its tangent
    /// on every trip: storage inside `Shadow` would avoid that, but makes every shadow
    /// larger, which slows the adjoint code that moves shadows (measured in
    /// docs/PERFORMANCE.md, GradBench's `ht`).
    ///
    /// ```
    /// use gradtape_runtime::generated::Shadow;
    /// let buffer = vec![0.0_f32; 3];
    /// let mut tangent = Shadow::growable_like(&buffer);
    /// tangent.add(2, 1.5);
    /// assert_eq!(tangent.as_slice(), [0.0_f32, 0.0, 1.5]);
    /// tangent.set(4, 2.0); // past the array's end: the array has grown by `push`
    /// assert_eq!(tangent.into_vec(), vec![0.0, 0.0, 1.5, 0.0, 2.0]);
    /// ```
    pub fn growable_like<A: FlatElements<F> + ?Sized>(array: &A) -> Self
    where
        F: Copy + Default,
    {
        Shadow {
            data: Data::Owned(vec![F::default(); array.flat_len()]),
        }
    }
}

/// A float array as its shadow sees it, flat: `F` is the float type of `[F]`, `[F; N]`,
/// `Vec<F>` and of the arrays of rows `[[F; N]]`, `[[F; N]; M]`, `Vec<[F; N]>`.
pub trait FlatElements<F> {
    /// The number of floats, rows times their length for an array of rows.
    fn flat_len(&self) -> usize;
}

impl<F: crate::Float> FlatElements<F> for [F] {
    fn flat_len(&self) -> usize {
        self.len()
    }
}
impl<F: crate::Float, const N: usize> FlatElements<F> for [F; N] {
    fn flat_len(&self) -> usize {
        N
    }
}
impl<F: crate::Float> FlatElements<F> for Vec<F> {
    fn flat_len(&self) -> usize {
        self.len()
    }
}
impl<F: crate::Float, const N: usize> FlatElements<F> for [[F; N]] {
    fn flat_len(&self) -> usize {
        N * self.len()
    }
}
impl<F: crate::Float, const N: usize, const M: usize> FlatElements<F> for [[F; N]; M] {
    fn flat_len(&self) -> usize {
        N * M
    }
}
impl<F: crate::Float, const N: usize> FlatElements<F> for Vec<[F; N]> {
    fn flat_len(&self) -> usize {
        N * self.len()
    }
}

impl<'b, F: Copy + Default> Shadow<'b, F> {
    /// The caller's buffer as the shadow: the adjoint accumulates into it in place.
    pub fn borrowed(buffer: &'b mut [F]) -> Self {
        Shadow {
            data: Data::Borrowed(buffer),
        }
    }

    /// The caller's read-only values (a tangent), copied only if written.
    pub fn shared(values: &'b [F]) -> Self {
        Shadow {
            data: Data::Shared(values),
        }
    }

    pub(crate) fn values(&self) -> &[F] {
        match &self.data {
            Data::Owned(values) => values,
            Data::Borrowed(values) => values,
            Data::Shared(values) => values,
        }
    }

    /// The values, writable; a shared shadow has been copied (by `slot`) before this is
    /// asked.
    fn values_mut(&mut self) -> &mut [F] {
        match &mut self.data {
            Data::Owned(values) => values,
            Data::Borrowed(values) => values,
            Data::Shared(_) => unreachable!("copied by `slot`"),
        }
    }

    /// The element `i`, grown to it if owned (a borrowed shadow has its array's length:
    /// an index beyond it was out of bounds in the forward code already).
    ///
    /// The common cases (the caller's buffer; an owned shadow already long enough) call
    /// nothing: a call left in an adjoint loop's body, even one never taken, made the
    /// compiler keep the loop's cotangent accumulators in memory (issue 13). Copying a
    /// shared shadow and growing an owned one are out of line.
    #[inline]
    fn slot(&mut self, i: usize) -> &mut F {
        let hot = match &self.data {
            Data::Borrowed(_) => true,
            Data::Owned(values) => i < values.len(),
            Data::Shared(_) => false,
        };
        if !hot {
            self.make_room(i);
        }
        &mut self.values_mut()[i]
    }

    /// [`slot`](Self::slot)'s rare cases: a shared shadow copied (it is written), an owned
    /// one grown to hold element `i`.
    #[cold]
    #[inline(never)]
    fn make_room(&mut self, i: usize) {
        if let Data::Shared(values) = &self.data {
            self.data = Data::Owned(values.to_vec());
        }
        match &mut self.data {
            Data::Owned(values) => {
                if i >= values.len() {
                    values.resize(i + 1, F::default());
                }
            }
            Data::Borrowed(_) => {}
            Data::Shared(_) => unreachable!("copied above"),
        }
    }

    /// Adds `g` into element `i` (the adjoint of a read of `a[i]`).
    #[inline]
    pub fn add(&mut self, i: usize, g: F)
    where
        F: Add<Output = F>,
    {
        let slot = self.slot(i);
        *slot = *slot + g;
    }

    /// Element `i`, zeroed (the adjoint of a write to `a[i]`); zero beyond the end.
    #[inline]
    pub fn take(&mut self, i: usize) -> F {
        if i >= self.values().len() {
            return F::default();
        }
        core::mem::take(self.slot(i))
    }

    /// Element `i` (zero beyond the end).
    #[inline]
    pub fn get(&self, i: usize) -> F {
        self.values().get(i).copied().unwrap_or_default()
    }

    /// Sets element `i` (a tangent written with its value).
    #[inline]
    pub fn set(&mut self, i: usize, value: F) {
        *self.slot(i) = value;
    }

    /// Sets element `i`, growing by one as `Vec::push` does.
    #[inline]
    pub fn push_at(&mut self, i: usize, value: F) {
        self.set(i, value);
    }

    /// Every element zeroed: the array got a new value made of constants.
    pub fn clear(&mut self) {
        match &mut self.data {
            Data::Owned(values) => values.clear(),
            Data::Borrowed(values) => values.fill(F::default()),
            Data::Shared(_) => self.data = Data::Owned(Vec::new()),
        }
    }

    /// The numbers, owned (a parameter's gradient, a tangent result).
    pub fn into_vec(self) -> Vec<F> {
        match self.data {
            Data::Owned(values) => values,
            Data::Borrowed(values) => values.to_vec(),
            Data::Shared(values) => values.to_vec(),
        }
    }

    /// The numbers as an array of length `N` (the gradient of a `[F; N]` parameter),
    /// zero-padded.
    pub fn into_array<const N: usize>(self) -> [F; N] {
        padded_array(self.values())
    }

    /// The numbers (a tangent passed on to another annotated function). A local buffer's
    /// shadow may be shorter than its array (it grows with the indices met): the elements
    /// past its end are zeros, and the callee's own shadow reads them so.
    pub fn as_slice(&self) -> &[F] {
        self.values()
    }

    /// The first `len` numbers, writable in place, grown with zeros to `len` if owned (a
    /// shared tangent is copied first): the shadow of an array of length `len` passed as
    /// `&mut` to another annotated function, whose pullback (or tangent code) reads the
    /// cotangent of the array's new values there and leaves that of its old values.
    ///
    /// ```
    /// use gradtape_runtime::generated::Shadow;
    /// let mut d = Shadow::growable_like(&[0.0_f64][..]);
    /// d.add(0, 1.0);
    /// d.prefix_mut(3)[2] = 2.0;
    /// assert_eq!(d.into_vec(), vec![1.0, 0.0, 2.0]);
    /// ```
    ///
    /// # Panics
    ///
    /// If a borrowed or fixed shadow is shorter than `len` (its array's length: it is not).
    pub fn prefix_mut(&mut self, len: usize) -> &mut [F] {
        if len > 0 {
            let _ = self.slot(len - 1);
        } else if let Data::Shared(_) = self.data {
            self.data = Data::Owned(Vec::new());
        }
        &mut self.values_mut()[..len]
    }

    /// Adds `g` into elements `offset..offset + g.len()` (the adjoint of passing the array,
    /// or the part of it from `offset`, to another annotated function).
    pub fn add_slice(&mut self, offset: usize, g: &[F])
    where
        F: Add<Output = F>,
    {
        if g.is_empty() {
            return;
        }
        // Grown (if owned) to the last element once, then added in place.
        let _ = self.slot(offset + g.len() - 1);
        add_elementwise(&mut self.values_mut()[offset..], g);
    }

    /// The numbers as `M` rows of `N` (the gradient of a `[[F; N]; M]` parameter),
    /// zero-padded.
    pub fn into_matrix<const N: usize, const M: usize>(self) -> [[F; N]; M] {
        padded_matrix(self.values())
    }

    /// The numbers as `len` rows of `N` (the gradient of a `&[[F; N]]` or `Vec<[F; N]>`
    /// parameter of `len` rows), zero-padded.
    pub fn into_rows<const N: usize>(self, len: usize) -> Vec<[F; N]> {
        padded_rows(self.values(), len)
    }

    /// Copies the numbers into `out` (a tangent result the caller gave a buffer for).
    pub fn write_to(&self, out: &mut [F]) {
        for (o, v) in out.iter_mut().zip(self.values()) {
            *o = *v;
        }
    }
}

/// The cotangent of a local array in an adjoint (`let mut k = vec![0.0; n];`): numbers it
/// owns, growing with the indices met (the array may have grown by `push`, or by a callee
/// that took `&mut Vec`), zero past their end. [`Shadow`]'s adjoint methods with the same
/// meaning.
///
/// Why a type of its own: a `Vec` alone, grown by a call that takes it by value and gives
/// it back, so that nothing takes the shadow's address. [`Shadow`]'s variants made every
/// access re-read which one it holds, and its growth, taking `&mut self` out of line, let
/// the shadow's address escape: an adjoint loop then reloaded the numbers' pointer and
/// length from memory after each store (perf on GradBench's `ode`, where the solver's stage
/// buffers are such locals; docs/PERFORMANCE.md).
///
/// ```
/// use gradtape_runtime::generated::LocalShadow;
/// let mut d = LocalShadow::<f64>::growable();
/// d.add(2, 1.5);
/// d.add(2, 0.5);
/// assert_eq!(d.take(2), 2.0);
/// assert_eq!(d.take(7), 0.0); // past the end: no cotangent reached it
/// assert_eq!(d.prefix_mut(3), [0.0, 0.0, 0.0]);
/// ```
pub struct LocalShadow<F> {
    values: Vec<F>,
}

// Only the methods that add ask for `Add<Output = F>`, and the constructor asks for
// nothing: a bound with a projection on it or on `take` has to be proven where the adjoint
// first names a local buffer's shadow, before anything has fixed `F`, which was rustc's
// E0284 "type annotations needed" on ordinary code (regression test
// `a_buffer_read_before_any_add_infers_its_type`).
impl<F> LocalShadow<F> {
    /// Empty: no element has a cotangent yet.
    #[inline]
    pub fn growable() -> Self {
        LocalShadow { values: Vec::new() }
    }
}

impl<F: Copy + Default> LocalShadow<F> {
    /// Element `i`, grown to it.
    #[inline]
    fn slot(&mut self, i: usize) -> &mut F {
        if i >= self.values.len() {
            self.values = grown(core::mem::take(&mut self.values), i + 1);
        }
        &mut self.values[i]
    }

    /// Adds `g` into element `i` (the adjoint of a read of `a[i]`).
    #[inline]
    pub fn add(&mut self, i: usize, g: F)
    where
        F: Add<Output = F>,
    {
        let slot = self.slot(i);
        *slot = *slot + g;
    }

    /// Element `i`, zeroed (the adjoint of a write to `a[i]`); zero beyond the end.
    #[inline]
    pub fn take(&mut self, i: usize) -> F {
        self.values
            .get_mut(i)
            .map(core::mem::take)
            .unwrap_or_default()
    }

    /// Every element zeroed: the array got a new value made of constants.
    #[inline]
    pub fn clear(&mut self) {
        self.values.clear();
    }

    /// The first `len` numbers, writable in place, grown with zeros to `len` (see
    /// [`Shadow::prefix_mut`]).
    #[inline]
    pub fn prefix_mut(&mut self, len: usize) -> &mut [F] {
        if len > self.values.len() {
            self.values = grown(core::mem::take(&mut self.values), len);
        }
        &mut self.values[..len]
    }

    /// Adds `g` into elements `offset..offset + g.len()`.
    #[inline]
    pub fn add_slice(&mut self, offset: usize, g: &[F])
    where
        F: Add<Output = F>,
    {
        if g.is_empty() {
            return;
        }
        add_elementwise(&mut self.prefix_mut(offset + g.len())[offset..], g);
    }
}

/// `values` grown with zeros to `len`: by value, out of line (see [`LocalShadow`]).
#[cold]
#[inline(never)]
fn grown<F: Copy + Default>(mut values: Vec<F>, len: usize) -> Vec<F> {
    values.resize(len, F::default());
    values
}

/// The shadow of a parameter's array, of the array's length for the whole sweep: the
/// caller's buffer (`S = &mut [F]`: `f::grad_into`, a replayed call's sink) or zeros the
/// shadow owns (`S = Vec<F>`: `f::vjp`'s pullback). [`Shadow`]'s methods with the same
/// meaning, each a plain index.
///
/// Why a type of its own: a parameter's array cannot grow (the macro rejects `push` on
/// one) and its shadow is never a shared tangent, so none of [`Shadow`]'s variants and
/// out-of-line growth are needed. With them, the compiler could not tell that a
/// borrowed shadow stays borrowed: an adjoint loop re-read the variant on every trip, and
/// the possible call to the growth kept the loop's scalar cotangents in memory rather
/// than in registers (log-sum-exp over 10⁵ elements, `grad_into`: 2.28 → 1.55 ms,
/// docs/PERFORMANCE.md).
///
/// ```
/// use gradtape_runtime::generated::FixedShadow;
/// let mut buffer = [0.0_f64; 3];
/// let mut d = FixedShadow::<f64, &mut [f64]>::borrowed(&mut buffer);
/// d.add(1, 2.0);
/// d.add(1, 0.5);
/// assert_eq!(d.take(2), 0.0);
/// assert_eq!(d.get(1), 2.5);
/// assert_eq!(buffer, [0.0, 2.5, 0.0]);
///
/// let mut owned = FixedShadow::<f32, Vec<f32>>::zeros(2);
/// owned.set(0, 1.0);
/// assert_eq!(owned.into_vec(), vec![1.0, 0.0]);
/// ```
pub struct FixedShadow<F, S> {
    values: S,
    element: PhantomData<F>,
}

impl<F: Copy + Default> FixedShadow<F, Vec<F>> {
    /// `len` zeros, owned (a parameter's shadow in `vjp`: indexing past `len` panics, as
    /// the forward code's indexing of the array did).
    pub fn zeros(len: usize) -> Self {
        FixedShadow {
            values: vec![F::default(); len],
            element: PhantomData,
        }
    }
}

impl<F: Copy + Default, const N: usize> FixedShadow<F, [F; N]> {
    /// `N` zeros on the stack (a `[F; N]` parameter's shadow in `vjp`: no allocation per
    /// pullback, which a call in a loop pays once per iteration).
    ///
    /// ```
    /// use gradtape_runtime::generated::FixedShadow;
    /// let mut shadow = FixedShadow::<f64, [f64; 3]>::zeros_array();
    /// shadow.add(1, 2.5);
    /// assert_eq!(shadow.into_array::<3>(), [0.0, 2.5, 0.0]);
    /// ```
    #[inline]
    pub fn zeros_array() -> Self {
        FixedShadow {
            values: [F::default(); N],
            element: PhantomData,
        }
    }
}

impl<'b, F> FixedShadow<F, &'b mut [F]> {
    /// The caller's buffer as the shadow: the adjoint accumulates into it in place.
    pub fn borrowed(buffer: &'b mut [F]) -> Self {
        FixedShadow {
            values: buffer,
            element: PhantomData,
        }
    }
}

impl<F: Copy + Default, S: AsRef<[F]> + AsMut<[F]>> FixedShadow<F, S> {
    /// Adds `g` into element `i` (the adjoint of a read of `a[i]`).
    ///
    /// # Panics
    ///
    /// If `i` is past the array's end (the forward code's read panicked there first).
    #[inline]
    pub fn add(&mut self, i: usize, g: F)
    where
        F: Add<Output = F>,
    {
        let slot = &mut self.values.as_mut()[i];
        *slot = *slot + g;
    }

    /// Element `i`, zeroed (the adjoint of a write to `a[i]`); zero beyond the end.
    #[inline]
    pub fn take(&mut self, i: usize) -> F {
        self.values
            .as_mut()
            .get_mut(i)
            .map(core::mem::take)
            .unwrap_or_default()
    }

    /// Element `i` (zero beyond the end).
    #[inline]
    pub fn get(&self, i: usize) -> F {
        self.values.as_ref().get(i).copied().unwrap_or_default()
    }

    /// Sets element `i`.
    #[inline]
    pub fn set(&mut self, i: usize, value: F) {
        self.values.as_mut()[i] = value;
    }

    /// Every element zeroed: the array got a new value made of constants.
    pub fn clear(&mut self) {
        self.values.as_mut().fill(F::default());
    }

    /// The numbers.
    pub fn as_slice(&self) -> &[F] {
        self.values.as_ref()
    }

    /// The first `len` numbers, writable in place (see [`Shadow::prefix_mut`]).
    ///
    /// # Panics
    ///
    /// If the array is shorter than `len` (it is not: `len` is its length at a call).
    pub fn prefix_mut(&mut self, len: usize) -> &mut [F] {
        &mut self.values.as_mut()[..len]
    }

    /// Adds `g` into elements `offset..offset + g.len()`.
    pub fn add_slice(&mut self, offset: usize, g: &[F])
    where
        F: Add<Output = F>,
    {
        if g.is_empty() {
            return;
        }
        add_elementwise(&mut self.values.as_mut()[offset..offset + g.len()], g);
    }

    /// The numbers, owned (a parameter's gradient).
    pub fn into_vec(self) -> Vec<F>
    where
        S: Into<Vec<F>>,
    {
        self.values.into()
    }

    /// The numbers as an array of length `N` (the gradient of a `[F; N]` parameter),
    /// zero-padded.
    pub fn into_array<const N: usize>(self) -> [F; N] {
        padded_array(self.values.as_ref())
    }

    /// The numbers as `M` rows of `N` (the gradient of a `[[F; N]; M]` parameter).
    pub fn into_matrix<const N: usize, const M: usize>(self) -> [[F; N]; M] {
        padded_matrix(self.values.as_ref())
    }

    /// The numbers as `len` rows of `N` (the gradient of a `&[[F; N]]` or `Vec<[F; N]>`
    /// parameter of `len` rows).
    pub fn into_rows<const N: usize>(self, len: usize) -> Vec<[F; N]> {
        padded_rows(self.values.as_ref(), len)
    }
}

// The conversions and the sum both shadow types share: a shadow's numbers as the
// parameter's shape (zero-padded: an owned local shadow may be shorter than its array),
// and a cotangent added element by element.

fn padded_array<F: Copy + Default, const N: usize>(values: &[F]) -> [F; N] {
    let mut out = [F::default(); N];
    for (o, v) in out.iter_mut().zip(values) {
        *o = *v;
    }
    out
}

fn padded_matrix<F: Copy + Default, const N: usize, const M: usize>(values: &[F]) -> [[F; N]; M] {
    let mut out = [[F::default(); N]; M];
    for (o, v) in out.as_flattened_mut().iter_mut().zip(values) {
        *o = *v;
    }
    out
}

fn padded_rows<F: Copy + Default, const N: usize>(values: &[F], len: usize) -> Vec<[F; N]> {
    let mut out = vec![[F::default(); N]; len];
    for (o, v) in out.as_flattened_mut().iter_mut().zip(values) {
        *o = *v;
    }
    out
}

fn add_elementwise<F: Copy + Add<Output = F>>(values: &mut [F], g: &[F]) {
    for (slot, g) in values.iter_mut().zip(g) {
        *slot = *slot + *g;
    }
}

/// What the generated code does to a shadow whichever kind it is ([`LocalShadow`] of a
/// local, [`Shadow`] of a tangent, [`FixedShadow`] of a parameter), written as a path call
/// (`generated::ArrayShadow::prefix_mut(&mut d_a, n)`), which names no type: a local's
/// shadow may not have its element type inferred yet where it is first used.
///
/// ```
/// use gradtape_runtime::generated::{ArrayShadow, FixedShadow, LocalShadow};
/// let mut local = LocalShadow::<f64>::growable();
/// ArrayShadow::prefix_mut(&mut local, 2)[1] = 1.0;
/// let mut param = FixedShadow::<f64, Vec<f64>>::zeros(2);
/// ArrayShadow::add_slice(&mut param, 0, &[1.0, 2.0]);
/// assert_eq!(local.take(1), 1.0);
/// assert_eq!(param.into_vec(), vec![1.0, 2.0]);
/// ```
pub trait ArrayShadow {
    /// The float type of the array's elements.
    type Elem;
    /// The first `len` numbers, writable in place.
    fn prefix_mut(&mut self, len: usize) -> &mut [Self::Elem];
    /// Adds `g` into elements `offset..offset + g.len()`.
    fn add_slice(&mut self, offset: usize, g: &[Self::Elem]);
}

impl<F: Copy + Default + Add<Output = F>> ArrayShadow for Shadow<'_, F> {
    type Elem = F;
    #[inline]
    fn prefix_mut(&mut self, len: usize) -> &mut [F] {
        Shadow::prefix_mut(self, len)
    }
    #[inline]
    fn add_slice(&mut self, offset: usize, g: &[F]) {
        Shadow::add_slice(self, offset, g);
    }
}

impl<F: Copy + Default + Add<Output = F>> ArrayShadow for LocalShadow<F> {
    type Elem = F;
    #[inline]
    fn prefix_mut(&mut self, len: usize) -> &mut [F] {
        LocalShadow::prefix_mut(self, len)
    }
    #[inline]
    fn add_slice(&mut self, offset: usize, g: &[F]) {
        LocalShadow::add_slice(self, offset, g);
    }
}

impl<F: Copy + Default + Add<Output = F>, S: AsRef<[F]> + AsMut<[F]>> ArrayShadow
    for FixedShadow<F, S>
{
    type Elem = F;
    #[inline]
    fn prefix_mut(&mut self, len: usize) -> &mut [F] {
        FixedShadow::prefix_mut(self, len)
    }
    #[inline]
    fn add_slice(&mut self, offset: usize, g: &[F]) {
        FixedShadow::add_slice(self, offset, g);
    }
}

/// The elements `first .. first + span + count` of an array's shadow, for the adjoint of
/// a loop of `count` trips whose every trip `t` read or wrote the array at `t + c`, `c`
/// from `first` to `first + span` (`#[differentiable]`'s windows: the loop's accesses then
/// index the window at `t + (c - first)`, below its length, with no check each). A local's
/// growable shadow is grown to them with zeros (the values it reads beyond its end); a
/// parameter's has them, since the forward code read or wrote each of them. Empty when
/// the loop ran no trip (`first` may then be negative: `i - 1` from `0..n`).
///
/// ```
/// use gradtape_runtime::generated::{LocalShadow, trip_window};
/// let mut d = LocalShadow::<f64>::growable();
/// // trips 0..3 wrote a[t + 1] and read a[t]: elements 0 .. 4
/// let window = trip_window(&mut d, 0, 1, 3);
/// window[2 + 1] = 2.0;
/// assert_eq!(window.len(), 4);
/// assert_eq!(d.take(3), 2.0);
/// assert!(trip_window(&mut d, -1, 0, 0).is_empty());
/// ```
///
/// # Panics
/// If the loop ran and `first` is negative, or a parameter's shadow is shorter than
/// `first + span + count`: neither happens when the forward code's accesses were in bounds.
#[inline]
#[track_caller]
pub fn trip_window<F, S: WindowShadow<F> + ?Sized>(
    shadow: &mut S,
    first: isize,
    span: usize,
    count: usize,
) -> &mut [F] {
    match window_bounds(first, span, count) {
        Some((first, len)) => &mut shadow.window_prefix(first + len)[first..][..len],
        None => &mut [],
    }
}

/// A window's first element and length (see [`trip_window`]), or `None` when its loop ran
/// no trip.
#[inline]
#[track_caller]
fn window_bounds(first: isize, span: usize, count: usize) -> Option<(usize, usize)> {
    if count == 0 {
        return None;
    }
    let first = usize::try_from(first)
        .expect("#[differentiable] generated code: a loop that ran read an array before its start");
    Some((first, span + count))
}

/// A shadow a [`trip_window`] is taken of, whichever kind it is. Generic over the element
/// type rather than naming it as an associated type, and with no bound on adding: the
/// adjoint takes a local's window before anything has fixed its element type, and a bound
/// with a projection there is rustc's "type annotations needed" (see [`LocalShadow`]).
pub trait WindowShadow<F> {
    /// The first `len` numbers, writable in place (`prefix_mut`).
    fn window_prefix(&mut self, len: usize) -> &mut [F];
}

impl<F: Copy + Default> WindowShadow<F> for LocalShadow<F> {
    #[inline]
    fn window_prefix(&mut self, len: usize) -> &mut [F] {
        self.prefix_mut(len)
    }
}

impl<F: Copy + Default> WindowShadow<F> for Shadow<'_, F> {
    #[inline]
    fn window_prefix(&mut self, len: usize) -> &mut [F] {
        self.prefix_mut(len)
    }
}

impl<F: Copy + Default, S: AsRef<[F]> + AsMut<[F]>> WindowShadow<F> for FixedShadow<F, S> {
    #[inline]
    fn window_prefix(&mut self, len: usize) -> &mut [F] {
        self.prefix_mut(len)
    }
}

/// Adds `g` into an element of a window ([`trip_window`]): the adjoint of a read of it. A
/// path call, so that the element's type may be inferred from `g` (a local's shadow may
/// not have its element type fixed yet where its window is indexed).
///
/// ```
/// let mut window = [1.0_f64, 2.0];
/// gradtape_runtime::generated::add_into(&mut window[1], 0.5);
/// assert_eq!(window, [1.0, 2.5]);
/// ```
#[inline]
pub fn add_into<F: Copy + Add<Output = F>>(element: &mut F, g: F) {
    *element = *element + g;
}

/// The elements `first .. first + span + count` of an array the adjoint of a loop of
/// `count` trips reads again, every trip `t` of which read it at `t + c`, `c` from `first`
/// to `first + span` (see [`trip_window`]): the adjoint's rereads index the window at
/// `t + (c - first)`, with no check each. Empty when the loop ran no trip.
///
/// ```
/// let x = [1.0_f64, 2.0, 3.0, 4.0];
/// // trips 0..3 read x[t + 1]
/// let window = gradtape_runtime::generated::read_window(&x[..], 1, 0, 3);
/// assert_eq!(window, [2.0, 3.0, 4.0]);
/// ```
///
/// # Panics
/// If the loop ran and the elements are not all in `values`: they are when the forward
/// code's reads were in bounds.
#[inline]
#[track_caller]
pub fn read_window<F>(values: &[F], first: isize, span: usize, count: usize) -> &[F] {
    match window_bounds(first, span, count) {
        Some((first, len)) => &values[first..][..len],
        None => &[],
    }
}

/// The zero a local array the generated code builds starts from (a copy of an array or
/// of a part of one, a literal's buffer), of whatever float type its elements get: `0.0`
/// would be an `f64` where they are a generic `T: Float`.
///
/// ```
/// let buffer: Vec<f32> = vec![gradtape_runtime::generated::element_zero(); 2];
/// assert_eq!(buffer, [0.0, 0.0]);
/// ```
#[inline]
pub fn element_zero<F: num_traits::Zero>() -> F {
    F::zero()
}

/// The start of a sum the generated code computes as a loop (`.sum()` over a chain): `-0.0`
/// for `f32` and `f64`, as std's float `Sum` starts (`-0.0 + v` is `v` for every `v`, so an
/// empty sum, or one of `-0.0`s, is `-0.0` as the iterator's is), and zero for any other
/// type (an integer sum's `0`).
///
/// ```
/// use gradtape_runtime::generated::sum_start;
/// assert!(sum_start::<f64>().is_sign_negative() && sum_start::<f64>() == 0.0);
/// assert!(sum_start::<f32>().is_sign_negative());
/// assert_eq!(sum_start::<usize>(), 0);
/// ```
#[inline]
pub fn sum_start<F: num_traits::Zero + Copy + 'static>() -> F {
    let any: [&dyn std::any::Any; 2] = [&-0.0f64, &-0.0f32];
    any.iter()
        .find_map(|zero| zero.downcast_ref::<F>().copied())
        .unwrap_or_else(F::zero)
}

/// The array of zeros a caller's local array starts as before an annotated function with
/// an array result writes it whole (`let c = cross(a, b);` with `c` indexed later: the
/// call writes `c` through the callee's writer, `Callee::Writer` in the macro), of the
/// type the writer's `&mut [F; N]` parameter gives it.
///
/// ```
/// let buffer: [f32; 3] = gradtape_runtime::generated::array_of_zeros();
/// assert_eq!(buffer, [0.0; 3]);
/// ```
#[inline]
pub fn array_of_zeros<F: num_traits::Zero + Copy, const N: usize>() -> [F; N] {
    [F::zero(); N]
}

/// The array of rows of zeros a caller's local array of rows starts as before an annotated
/// function returning `[[F; C]; R]` writes it whole (`let r = rotation(t);` with `r[i][j]`
/// read later), of the type the writer's `&mut [[F; C]; R]` parameter gives it: the caller
/// cannot spell `C`, which [`row_len`] then reads off the local.
///
/// ```
/// let buffer: [[f64; 2]; 3] = gradtape_runtime::generated::array_of_zero_rows();
/// assert_eq!(buffer, [[0.0; 2]; 3]);
/// ```
#[inline]
pub fn array_of_zero_rows<F: num_traits::Zero + Copy, const C: usize, const R: usize>()
-> [[F; C]; R] {
    [[F::zero(); C]; R]
}

/// The row length `C` of an array of rows `[[F; C]; R]`: what a caller's local array of
/// rows holding an annotated function's result ([`array_of_zero_rows`]) has for the row
/// length it flattens `m[i][j]` by (`i * C + j`), which its code cannot spell.
///
/// ```
/// assert_eq!(gradtape_runtime::generated::row_len(&[[0.0f64; 3]; 2]), 3);
/// ```
#[inline]
pub const fn row_len<F, const C: usize, const R: usize>(_: &[[F; C]; R]) -> usize {
    C
}

/// Zeros of a row's type (`[F; C]` of a row `&[F; C]`): the local a row of an array of
/// rows passed on whole is copied into, of the rows' own type whether or not the code
/// can spell `C` ([`row_len`]).
///
/// ```
/// let row = gradtape_runtime::generated::row_of_zeros(&[1.0f64; 3]);
/// assert_eq!(row, [0.0; 3]);
/// ```
#[inline]
pub fn row_of_zeros<F: num_traits::Zero + Copy, const C: usize>(_: &[F; C]) -> [F; C] {
    [F::zero(); C]
}

/// Index `i` of a view of `len` elements (a window, a chunk, a sub-slice bound by name),
/// checked as the slice the view stands for checks it: the generated code reads the view's
/// element `i` as its array's element `offset + i`, which the array's own check lets
/// through for an `i` past the view's end.
///
/// # Panics
///
/// If `i >= len`, with the message a slice's indexing gives.
///
/// ```
/// assert_eq!(gradtape_runtime::generated::view_index(1, 2), 1);
/// ```
///
/// ```should_panic
/// gradtape_runtime::generated::view_index(2, 2); // index out of bounds
/// ```
#[inline]
#[track_caller]
pub fn view_index(i: usize, len: usize) -> usize {
    assert!(
        i < len,
        "index out of bounds: the len is {len} but the index is {i}"
    );
    i
}

/// The end `end` of a range `view[start..end]` of a view of `len` elements (a window, a
/// chunk, a sub-slice bound by name), checked as the slice the view stands for checks it:
/// the generated code reads the range as its array's `array[offset + start..offset +
/// end]`, whose own check lets an end past the view's through (and checks `start <= end`,
/// as the view's slice would).
///
/// # Panics
///
/// If `end > len`, with the message a slice's range indexing gives.
///
/// ```
/// assert_eq!(gradtape_runtime::generated::view_end(2, 2), 2);
/// ```
///
/// ```should_panic
/// gradtape_runtime::generated::view_end(3, 2); // out of range
/// ```
#[inline]
#[track_caller]
pub fn view_end(end: usize, len: usize) -> usize {
    // the view's own check, message and all: a slice of `len` zero-sized elements (no
    // allocation) indexed by the same range
    let probe = vec![(); len];
    let _ = &probe[..end];
    end
}

/// [`view_end`] of an inclusive range `view[start..=last]`: the exclusive end `last + 1`.
///
/// # Panics
///
/// If `last >= len`, with the message a slice gives.
///
/// ```
/// assert_eq!(gradtape_runtime::generated::view_end_inclusive(1, 2), 2);
/// ```
#[inline]
#[track_caller]
pub fn view_end_inclusive(last: usize, len: usize) -> usize {
    let probe = vec![(); len];
    let _ = &probe[..=last];
    last + 1
}

/// The one a desugared `.product()` starts from, of whatever float type the items have
/// (as [`element_zero`] is a `.sum()`'s start).
///
/// ```
/// let start: f32 = gradtape_runtime::generated::element_one();
/// assert_eq!(start, 1.0);
/// ```
#[inline]
pub fn element_one<F: num_traits::One>() -> F {
    F::one()
}

/// Checks that the buffer `buffer` passed to `function`'s `grad_into` for the array
/// parameter `param` has the array's length.
///
/// # Panics
///
/// If the lengths differ, naming the function, the parameter and both lengths.
///
/// ```
/// gradtape_runtime::generated::check_shadow("dot", "x", 3, 3);
/// ```
#[track_caller]
pub fn check_shadow(function: &str, param: &str, len: usize, buffer: usize) {
    assert!(
        len == buffer,
        "{function}::grad_into: the gradient buffer for `{param}` has length {buffer}, but `{param}` has length {len}"
    );
}

/// The cotangent an annotated callee's pullback gives for an array argument: its numbers
/// (row after row for an array of rows), or nothing (`None`: no path; `()`: the callee
/// holds that parameter constant). The caller adds it into the array's shadow.
///
/// ```
/// use gradtape_runtime::generated::{ArrayCotangent, FixedShadow};
/// let mut d = FixedShadow::<f64, Vec<f64>>::zeros(4);
/// Some(vec![1.0, 2.0]).add_into(&mut d, 1);
/// Some([[1.0, 1.0], [1.0, 1.0]]).add_into(&mut d, 0);
/// ().add_into(&mut d, 0);
/// assert_eq!(d.into_vec(), vec![1.0, 2.0, 3.0, 1.0]);
/// ```
pub trait ArrayCotangent<F> {
    /// Adds the numbers into `shadow` from element `offset` on.
    fn add_into<S: ArrayShadow<Elem = F>>(self, shadow: &mut S, offset: usize);
    /// How many numbers it holds, `None` when it holds none (no path, a constant).
    fn flat_len(&self) -> Option<usize>;
}

impl<F: Copy + Default + Add<Output = F>> ArrayCotangent<F> for Option<Vec<F>> {
    #[inline]
    fn add_into<S: ArrayShadow<Elem = F>>(self, shadow: &mut S, offset: usize) {
        if let Some(g) = self {
            shadow.add_slice(offset, &g);
        }
    }
    #[inline]
    fn flat_len(&self) -> Option<usize> {
        self.as_ref().map(Vec::len)
    }
}

impl<F: Copy + Default + Add<Output = F>, const N: usize> ArrayCotangent<F> for Option<[F; N]> {
    #[inline]
    fn add_into<S: ArrayShadow<Elem = F>>(self, shadow: &mut S, offset: usize) {
        if let Some(g) = self {
            shadow.add_slice(offset, &g);
        }
    }
    #[inline]
    fn flat_len(&self) -> Option<usize> {
        self.as_ref().map(|_| N)
    }
}

impl<F: Copy + Default + Add<Output = F>, const N: usize> ArrayCotangent<F>
    for Option<Vec<[F; N]>>
{
    #[inline]
    fn add_into<S: ArrayShadow<Elem = F>>(self, shadow: &mut S, offset: usize) {
        if let Some(g) = self {
            shadow.add_slice(offset, g.as_flattened());
        }
    }
    #[inline]
    fn flat_len(&self) -> Option<usize> {
        self.as_ref().map(|g| g.len() * N)
    }
}

impl<F: Copy + Default + Add<Output = F>, const N: usize, const M: usize> ArrayCotangent<F>
    for Option<[[F; N]; M]>
{
    #[inline]
    fn add_into<S: ArrayShadow<Elem = F>>(self, shadow: &mut S, offset: usize) {
        if let Some(g) = self {
            shadow.add_slice(offset, g.as_flattened());
        }
    }
    #[inline]
    fn flat_len(&self) -> Option<usize> {
        self.as_ref().map(|_| N * M)
    }
}

impl<F> ArrayCotangent<F> for () {
    #[inline]
    fn add_into<S: ArrayShadow<Elem = F>>(self, _: &mut S, _: usize) {}
    #[inline]
    fn flat_len(&self) -> Option<usize> {
        None
    }
}

/// Adds an array argument's cotangent, given as a pullback's entry, into a replayed
/// call's sink (the caller's shadow of the array, checked against its length, or nothing
/// for [`NoSink`](super::NoSink)): `vjp_into` of a function built on its `vjp` (a struct
/// result's), whose entries hold the arrays' cotangents.
///
/// ```
/// use gradtape_runtime::generated::entry_into_sink;
/// let mut shadow = vec![1.0_f64, 1.0];
/// entry_into_sink(Some(vec![0.5, 2.0]), &mut shadow[..]);
/// entry_into_sink(None::<Vec<f64>>, &mut shadow[..]);
/// assert_eq!(shadow, [1.5, 3.0]);
/// ```
#[inline]
#[track_caller]
pub fn entry_into_sink<
    F: Copy + Default + Add<Output = F>,
    C: ArrayCotangent<F>,
    S: super::Sink<F>,
>(
    entry: C,
    sink: S,
) {
    if let Some(len) = entry.flat_len() {
        let mut zeros = Vec::new();
        let mut shadow = sink.shadow(len, &mut zeros);
        entry.add_into(&mut shadow, 0);
    }
}

/// The tangent a caller passes for an array argument of another annotated function's
/// `jvp_call`: the array's tangent shadow, or [`NoTangent`](super::NoTangent) for a
/// constant array (its tangent is zero: an empty slice, which the callee reads as zeros).
///
/// ```
/// use gradtape_runtime::generated::{NoTangent, Shadow, TangentSlice};
/// let t = Shadow::shared(&[1.0_f64, 2.0]);
/// assert_eq!((&t).flat(), &[1.0, 2.0]);
/// assert!(TangentSlice::<f64>::flat(&NoTangent).is_empty());
/// ```
pub trait TangentSlice<F> {
    /// The tangent's numbers (row after row for an array of rows); possibly shorter than
    /// the array, the rest being zeros.
    fn flat(&self) -> &[F];
}

impl<F: Copy + Default + Add<Output = F>> TangentSlice<F> for &Shadow<'_, F> {
    #[inline]
    fn flat(&self) -> &[F] {
        self.as_slice()
    }
}

// A struct's array field's tangent, read from the struct's tangent (`jvp_call` of a
// function with a differentiable struct parameter).
impl<F> TangentSlice<F> for &[F] {
    #[inline]
    fn flat(&self) -> &[F] {
        self
    }
}

// A whole field's tangent passed on to a slice parameter (`sum_sq(&model.w)`).
// A caller's `&mut [F]` parameter's tangent, passed on as it is (`r(x, y)`) to a callee
// reading it (`a: &[F]`): the caller cannot tell it from a writer's, whose tangent it
// updates in place (`replay::PassedOn`).
impl<F> TangentSlice<F> for &mut [F] {
    #[inline]
    fn flat(&self) -> &[F] {
        self
    }
}

impl<F> TangentSlice<F> for &Vec<F> {
    #[inline]
    fn flat(&self) -> &[F] {
        self
    }
}

impl<F, const N: usize> TangentSlice<F> for &[F; N] {
    #[inline]
    fn flat(&self) -> &[F] {
        &self[..]
    }
}

// A call's array of rows held whole (`trace(&rotation(t))`): its tangent, row after row.
impl<F, const C: usize, const R: usize> TangentSlice<F> for &[[F; C]; R] {
    #[inline]
    fn flat(&self) -> &[F] {
        self.as_flattened()
    }
}

impl<F> TangentSlice<F> for super::NoTangent {
    #[inline]
    fn flat(&self) -> &[F] {
        &[]
    }
}

/// A flat tangent as rows of `N` (an array-of-rows parameter's tangent in `f::jvp`),
/// borrowed when it is whole rows, else copied with its last row zero-padded.
///
/// ```
/// use gradtape_runtime::generated::tangent_rows;
/// assert_eq!(&*tangent_rows::<f64, 2>(&[1.0, 2.0, 3.0]), &[[1.0, 2.0], [3.0, 0.0]]);
/// ```
pub fn tangent_rows<F: Copy + Default, const N: usize>(
    flat: &[F],
) -> std::borrow::Cow<'_, [[F; N]]> {
    let (rows, rest) = flat.as_chunks::<N>();
    if rest.is_empty() {
        return std::borrow::Cow::Borrowed(rows);
    }
    let mut padded = rows.to_vec();
    let mut last = [F::default(); N];
    last[..rest.len()].copy_from_slice(rest);
    padded.push(last);
    std::borrow::Cow::Owned(padded)
}

/// The index of `m[row][col]` in the flat shadow of an array of rows of length `len`:
/// `row * len + col`. A column past the row is the forward code's out-of-bounds panic,
/// as `m[row][col]` would be, not the next row's element.
///
/// # Panics
///
/// If `col >= len`.
///
/// ```
/// assert_eq!(gradtape_runtime::generated::flat_index(2, 1, 3), 7);
/// ```
#[inline]
#[track_caller]
pub fn flat_index(row: usize, col: usize, len: usize) -> usize {
    assert!(
        col < len,
        "index out of bounds: the len is {len} but the index is {col}"
    );
    row * len + col
}

#[cfg(test)]
mod tests {
    use super::Shadow;

    /// A local array's shadow, sized to its array, grows past it (a `Vec` that was pushed
    /// to), keeping every value; cleared, it reads zeros again wherever it grows back to.
    #[test]
    fn a_local_shadow_grows_past_its_array_and_clears_to_zeros() {
        let buffer = vec![0.0_f64; 3];
        let mut d = Shadow::growable_like(&buffer);
        d.set(1, 1.0);
        d.set(5, 5.0);
        assert_eq!(d.as_slice(), [0.0, 1.0, 0.0, 0.0, 0.0, 5.0]);
        d.clear();
        assert_eq!(d.as_slice(), [] as [f64; 0]);
        d.set(2, 2.0);
        assert_eq!(d.as_slice(), [0.0, 0.0, 2.0]);
        for i in 0..20 {
            d.add(i, i as f64);
        }
        let expected: Vec<f64> = (0..20)
            .map(|i| if i == 2 { 4.0 } else { i as f64 })
            .collect();
        assert_eq!(d.as_slice(), expected);
        assert_eq!(d.take(19), 19.0);
        assert_eq!(d.get(19), 0.0);
        assert_eq!(d.get(40), 0.0);
        d.add_slice(18, &[1.0, 1.0, 1.0]);
        assert_eq!(d.into_vec()[18..], [19.0, 1.0, 1.0]);
    }

    #[test]
    fn a_local_shadow_of_rows_is_sized_to_them() {
        let rows = [[0.0_f32; 4]; 4];
        let mut d = Shadow::growable_like(&rows);
        assert_eq!(d.as_slice().len(), 16);
        d.prefix_mut(16)[15] = 3.0;
        d.add(15, 1.0);
        assert_eq!(d.take(15), 4.0);
        assert_eq!(d.as_slice(), [0.0; 16]);
        let mut write = [9.0; 16];
        d.write_to(&mut write);
        assert_eq!(write, [0.0; 16]);
        let large = vec![0.0_f64; 40];
        assert_eq!(Shadow::growable_like(&large).into_vec(), vec![0.0; 40]);
    }
}
