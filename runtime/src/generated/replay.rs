//! Calls replayed in the adjoint (Tapenade's *joint* mode, inside loops too): a caller's
//! `grad_into`, `grad` or `vjp_now` runs a call of an annotated function as written, saving
//! copies of the arguments the body may change afterwards, and in the adjoint calls the
//! callee's hidden `vjp_into` on the copies. That recomputes the callee's forward code and
//! runs its adjoint at once, reading its arguments in place and adding the cotangents of
//! its arrays straight into the caller's shadows (the [`Sink`]s), instead of saving, per
//! call, what a pullback would read and returning the arrays' cotangents as `Vec`s.
//!
//! The copies of arrays passed by reference are taken with the kind of array they are
//! ([`snapshot`], [`Saved`]) and given back in the type the callee's parameter has
//! ([`Restore`], [`RestoreMut`]): a slice, a `Vec` or a fixed-size array, inferred from the
//! call; an array passed by value is saved and given back as a clone of itself.

use core::marker::PhantomData;
use core::ops::Deref;

use super::FixedShadow;

/// Where a callee's `vjp_into` adds the cotangent of one array parameter: the caller's
/// shadow of the array passed (`&mut [F]`, its elements at the call), or [`NoSink`] for an
/// argument the caller differentiates nothing through (the callee then starts from zeros
/// in a buffer of its own, `zeros`, and the cotangent is dropped).
///
/// ```
/// use gradtape_runtime::generated::{NoSink, Sink};
/// let (mut buffer, mut unused) = ([1.0, 2.0], Vec::new());
/// let mut shadow = Sink::shadow(&mut buffer[..], 2, &mut unused);
/// shadow.add(1, 0.5);
/// assert_eq!(buffer, [1.0, 2.5]);
/// let mut zeros = Vec::new();
/// assert_eq!(Sink::<f64>::shadow(NoSink, 3, &mut zeros).as_slice(), [0.0; 3]);
/// ```
pub trait Sink<F> {
    /// The shadow the callee's adjoint adds into, of the array's flat length `len`:
    /// the caller's buffer, or `zeros` filled with `len` zeros.
    fn shadow<'a>(self, len: usize, zeros: &'a mut Vec<F>) -> FixedShadow<F, &'a mut [F]>
    where
        Self: 'a;
}

/// No shadow: the argument is a constant to the caller (see [`Sink`]).
pub struct NoSink;

impl<F: Copy + Default> Sink<F> for &mut [F] {
    /// # Panics
    ///
    /// If the buffer's length is not `len` (the caller passes its shadow's part of the
    /// array's length at the call, which the callee's parameter has).
    #[inline]
    fn shadow<'a>(self, len: usize, _: &'a mut Vec<F>) -> FixedShadow<F, &'a mut [F]>
    where
        Self: 'a,
    {
        assert_eq!(
            self.len(),
            len,
            "a replayed call's shadow has the array's length"
        );
        FixedShadow::borrowed(self)
    }
}

impl<F: Copy + Default> Sink<F> for NoSink {
    #[inline]
    fn shadow<'a>(self, len: usize, zeros: &'a mut Vec<F>) -> FixedShadow<F, &'a mut [F]>
    where
        Self: 'a,
    {
        zeros.clear();
        zeros.resize(len, F::default());
        FixedShadow::borrowed(zeros)
    }
}

/// The sink a split call's adjoint takes for an array (a callee's `vjp_split`, run for a
/// replayed call in the last trip of a loop): `Some` of the caller's shadow, as `&mut [F]`
/// is, or `None`, as [`NoSink`] is. One type for both, since the adjoint is a closure
/// whose parameters cannot be generic.
///
/// ```
/// use gradtape_runtime::generated::Sink;
/// let (mut buffer, mut unused) = ([1.0, 2.0], Vec::new());
/// Sink::shadow(Some(&mut buffer[..]), 2, &mut unused).add(0, 0.5);
/// assert_eq!(buffer, [1.5, 2.0]);
/// let mut zeros = Vec::new();
/// assert_eq!(Sink::<f64>::shadow(None::<&mut [f64]>, 2, &mut zeros).as_slice(), [0.0; 2]);
/// ```
impl<F: Copy + Default> Sink<F> for Option<&mut [F]> {
    /// # Panics
    ///
    /// If the buffer's length is not `len`, as for `&mut [F]`.
    #[inline]
    fn shadow<'a>(self, len: usize, zeros: &'a mut Vec<F>) -> FixedShadow<F, &'a mut [F]>
    where
        Self: 'a,
    {
        match self {
            Some(buffer) => Sink::<F>::shadow(buffer, len, zeros),
            None => Sink::<F>::shadow(NoSink, len, zeros),
        }
    }
}

/// The sink of a parameter the callee gives no array cotangent for (a float, whose
/// cotangent it returns; an integer; a struct): only [`NoSink`], so a caller's shadow
/// handed there is a compile error rather than a cotangent dropped.
///
/// ```compile_fail
/// use gradtape_runtime::generated::NoArraySink;
/// fn takes<S: NoArraySink>(_: S) {}
/// takes(&mut [0.0][..]); // error: a shadow where no array cotangent goes
/// ```
pub trait NoArraySink {}

impl NoArraySink for NoSink {}

/// `scratch` made a copy of `saved` (a written array's elements before a replayed call),
/// keeping its allocation: one scratch per call site serves every replay of it.
///
/// ```
/// let mut scratch = Vec::new();
/// gradtape_runtime::generated::refill(&mut scratch, &[1.0, 2.0]);
/// scratch[0] = 5.0;
/// gradtape_runtime::generated::refill(&mut scratch, &[3.0]);
/// assert_eq!(scratch, [3.0]);
/// ```
#[inline]
pub fn refill<F: Clone>(scratch: &mut Vec<F>, saved: &[F]) {
    scratch.clear();
    scratch.extend_from_slice(saved);
}

/// A copy of an array argument's elements as the call saw them, marked with the kind of
/// array the caller passed (`K`: `[F; N]`, `Vec<F>` or `[F]`, references removed), so that
/// the copy is lent back as the callee's parameter type even where that type's length is
/// the callee's const generic (`fn f<const N: usize>(v: &[f64; N])`): [`Restore`] and
/// [`RestoreMut`] give `&[F; N]` only from a copy of a `[F; N]`, which pins `N`.
///
/// ```
/// use gradtape_runtime::generated::{Saved, snapshot};
/// let y = [1.0, 2.0];
/// let saved: Saved<[f64; 2], f64> = snapshot(&y);
/// assert_eq!(saved[..], [1.0, 2.0]);
/// let x: &[f64] = &y;
/// let saved: Saved<[f64], f64> = snapshot(&x);
/// assert_eq!(saved.len(), 2);
/// ```
pub struct Saved<K: ?Sized, F> {
    elements: Vec<F>,
    kind: PhantomData<fn() -> *const K>,
}

impl<K: ?Sized, F> Deref for Saved<K, F> {
    type Target = [F];
    #[inline]
    fn deref(&self) -> &[F] {
        &self.elements
    }
}

/// An array a replayed call may be passed, seen through references: its elements and the
/// kind of array it is ([`Saved`]).
pub trait ArrayKind {
    /// The element type.
    type Element;
    /// `[F; N]`, `Vec<F>` or `[F]`.
    type Kind: ?Sized;
    /// The elements in order.
    fn elements(&self) -> &[Self::Element];
}

impl<F, const N: usize> ArrayKind for [F; N] {
    type Element = F;
    type Kind = [F; N];
    #[inline]
    fn elements(&self) -> &[F] {
        self
    }
}

impl<F> ArrayKind for Vec<F> {
    type Element = F;
    type Kind = Vec<F>;
    #[inline]
    fn elements(&self) -> &[F] {
        self
    }
}

impl<F> ArrayKind for [F] {
    type Element = F;
    type Kind = [F];
    #[inline]
    fn elements(&self) -> &[F] {
        self
    }
}

impl<A: ArrayKind + ?Sized> ArrayKind for &A {
    type Element = A::Element;
    type Kind = A::Kind;
    #[inline]
    fn elements(&self) -> &[A::Element] {
        (**self).elements()
    }
}

impl<A: ArrayKind + ?Sized> ArrayKind for &mut A {
    type Element = A::Element;
    type Kind = A::Kind;
    #[inline]
    fn elements(&self) -> &[A::Element] {
        (**self).elements()
    }
}

/// A copy of the array argument `array` as the call saw it (see [`Saved`]).
#[inline]
pub fn snapshot<A>(array: &A) -> Saved<A::Kind, A::Element>
where
    A: ArrayKind + ?Sized,
    A::Element: Clone,
{
    Saved {
        elements: array.elements().to_vec(),
        kind: PhantomData,
    }
}

/// An empty copy of the kind [`snapshot`] would take of `array`: what a split call's trip
/// saves (its adjoint reads its own saves, not a copy), so that the save stack's cursor
/// stays in step with the trips.
///
/// ```
/// use gradtape_runtime::generated::{Saved, snapshot_empty};
/// let saved: Saved<[f64; 2], f64> = snapshot_empty(&[1.0, 2.0]);
/// assert!(saved.is_empty());
/// ```
#[inline]
pub fn snapshot_empty<A>(_array: &A) -> Saved<A::Kind, A::Element>
where
    A: ArrayKind + ?Sized,
{
    Saved {
        elements: Vec::new(),
        kind: PhantomData,
    }
}

/// A saved copy lent as the shared array argument the callee takes: `&[F]`, `&Vec<F>`, or
/// `&[F; N]` from a copy of a `[F; N]` (`K`).
///
/// ```
/// use gradtape_runtime::generated::{Restore, snapshot};
/// let saved = snapshot(&[1.0, 2.0]);
/// let slice: &[f64] = Restore::restore(&saved);
/// let fixed: &[f64; 2] = Restore::restore(&saved);
/// assert_eq!(slice, fixed);
/// ```
pub trait Restore<'a, K: ?Sized, F> {
    /// The copy as the argument.
    fn restore(saved: &'a Saved<K, F>) -> Self;
}

impl<'a, K: ?Sized, F> Restore<'a, K, F> for &'a [F] {
    #[inline]
    fn restore(saved: &'a Saved<K, F>) -> Self {
        &saved.elements
    }
}

impl<'a, K: ?Sized, F> Restore<'a, K, F> for &'a Vec<F> {
    #[inline]
    fn restore(saved: &'a Saved<K, F>) -> Self {
        &saved.elements
    }
}

impl<'a, F, const N: usize> Restore<'a, [F; N], F> for &'a [F; N] {
    #[inline]
    fn restore(saved: &'a Saved<[F; N], F>) -> Self {
        saved.elements[..]
            .try_into()
            .expect("a copy has its array's length")
    }
}

/// A scratch copy lent as the `&mut` array argument the callee writes: `&mut [F]`,
/// `&mut Vec<F>`, or `&mut [F; N]` where the copy `saved` the scratch was filled from is of
/// a `[F; N]` (`K`); or as `&[F]`, where the caller passed on a `&mut [F]` parameter of its
/// own as it is (`r(x, y)`) to a callee that only reads it (see [`PassedOn`]).
///
/// ```
/// use gradtape_runtime::generated::{RestoreMut, refill, snapshot};
/// let saved = snapshot(&[1.0, 2.0]);
/// let mut scratch = Vec::new();
/// refill(&mut scratch, &saved);
/// let fixed: &mut [f64; 2] = RestoreMut::restore_mut(&mut scratch, &saved);
/// fixed[0] = 3.0;
/// assert_eq!(scratch, [3.0, 2.0]);
/// ```
pub trait RestoreMut<'a, K: ?Sized, F>: Sized {
    /// Whether the callee's parameter is `&mut`: `false` for `&[F]` alone.
    const WRITTEN: bool = true;
    /// The scratch copy as the argument (`saved` gives only its kind).
    fn restore_mut(scratch: &'a mut Vec<F>, saved: &Saved<K, F>) -> Self;
}

impl<'a, K: ?Sized, F> RestoreMut<'a, K, F> for &'a mut [F] {
    #[inline]
    fn restore_mut(scratch: &'a mut Vec<F>, _: &Saved<K, F>) -> Self {
        scratch
    }
}

impl<'a, K: ?Sized, F> RestoreMut<'a, K, F> for &'a [F] {
    const WRITTEN: bool = false;
    #[inline]
    fn restore_mut(scratch: &'a mut Vec<F>, _: &Saved<K, F>) -> Self {
        scratch
    }
}

impl<'a, K: ?Sized, F> RestoreMut<'a, K, F> for &'a mut Vec<F> {
    #[inline]
    fn restore_mut(scratch: &'a mut Vec<F>, _: &Saved<K, F>) -> Self {
        scratch
    }
}

impl<'a, F, const N: usize> RestoreMut<'a, [F; N], F> for &'a mut [F; N] {
    #[inline]
    fn restore_mut(scratch: &'a mut Vec<F>, _: &Saved<[F; N], F>) -> Self {
        (&mut scratch[..])
            .try_into()
            .expect("a copy has its array's length")
    }
}

/// The pullback of a call passing on one of the caller's own `&mut [F]` parameters as it
/// is (`w(x, y)`, which Rust reborrows), called with that array's shadow: the caller's
/// macro cannot tell a callee writing it (`y: &mut [F]`, whose pullback takes the shadow in
/// place, Enzyme's convention) from one only reading it (`a: &[F]`, whose pullback returns
/// the array's cotangent among its entries), since it sees no callee's signature. The
/// pullback's own type tells: the marker `M` is inferred, [`ShadowInPlace`] for a
/// pullback taking the shadow, [`CotangentReturned`] for one that does not. The caller then
/// hands the array's entry of the result to [`Absorb`], which adds a reader's cotangent
/// into the shadow (a writer's entry is `()`). Either way the shadow ends holding the
/// cotangent of the array's values before the call: a read leaves the values as they were,
/// so theirs is the one after the call plus the read's.
///
/// ```
/// use gradtape_runtime::generated::{Absorb, PassedOn};
/// let mut shadow = [1.0, 2.0];
/// // a writer's pullback: the shadow in place, `()` for the array
/// let writer = |g: f64, d: &mut [f64]| {
///     d[0] *= g;
///     (Some(3.0), ())
/// };
/// let grads = PassedOn::pull(writer, 2.0, &mut shadow[..]);
/// Absorb::absorb(grads.1, &mut shadow[..]);
/// assert_eq!((grads.0, shadow), (Some(3.0), [2.0, 2.0]));
/// // a reader's: the array's cotangent returned, added in
/// let reader = |g: f64| (Some(g), Some(vec![g, 2.0 * g]));
/// let grads = PassedOn::pull(reader, 0.5, &mut shadow[..]);
/// Absorb::absorb(grads.1, &mut shadow[..]);
/// assert_eq!((grads.0, shadow), (Some(0.5), [2.5, 3.0]));
/// ```
pub trait PassedOn<G, F, M> {
    /// The pullback's entries, one per parameter.
    type Grads;
    /// The pullback called with the result's cotangent `g`, and `shadow` if it takes it.
    fn pull(self, g: G, shadow: &mut [F]) -> Self::Grads;
    /// [`pull`](Self::pull) for a call statement dropping the value (`g` a `None`, the
    /// callee's `vjp_partial` taking it for no cotangent): `None`, the pullback not
    /// called, for a reader, whose dropped value carries no cotangent anywhere (see
    /// [`replay_unless_read`]).
    fn pull_unless_read(self, g: G, shadow: &mut [F]) -> Option<Self::Grads>;
}

/// The replayed call `call` of a statement dropping the value of a callee passed the
/// caller's own `&mut [F]` parameter as it is ([`PassedOn`]), run on the scratch copy
/// lent as the callee's parameter takes it, unless the callee only reads it (`&[F]`): a
/// read whose value is dropped carries no cotangent anywhere (its adjoint would add
/// `0 · ∂`, which is NaN where a partial is infinite), as the tape, which never sweeps a
/// dropped value, and a read spelled `&y` have it.
///
/// ```
/// use gradtape_runtime::generated::{replay_unless_read, snapshot};
/// let y = vec![1.0_f64, 2.0];
/// let (saved, mut scratch) = (snapshot(&y[..]), y.clone());
/// let mut runs = 0;
/// replay_unless_read(&mut scratch, &saved, |y: &mut [f64]| {
///     y[0] = 3.0;
///     runs += 1;
/// });
/// replay_unless_read(&mut scratch, &saved, |_: &[f64]| runs += 10);
/// assert_eq!((runs, scratch), (1, vec![3.0, 2.0]));
/// ```
#[inline]
pub fn replay_unless_read<'a, K: ?Sized, F, A: RestoreMut<'a, K, F>>(
    scratch: &'a mut Vec<F>,
    saved: &Saved<K, F>,
    call: impl FnOnce(A),
) {
    if A::WRITTEN {
        call(A::restore_mut(scratch, saved));
    }
}

/// [`PassedOn`]'s marker for a pullback that takes the array's shadow in place.
pub struct ShadowInPlace;

/// [`PassedOn`]'s marker for a pullback that returns the array's cotangent.
pub struct CotangentReturned;

impl<P, G, F, R> PassedOn<G, F, ShadowInPlace> for P
where
    P: FnOnce(G, &mut [F]) -> R,
{
    type Grads = R;
    #[inline]
    fn pull(self, g: G, shadow: &mut [F]) -> R {
        self(g, shadow)
    }
    #[inline]
    fn pull_unless_read(self, g: G, shadow: &mut [F]) -> Option<R> {
        Some(self(g, shadow))
    }
}

impl<P, G, F, R> PassedOn<G, F, CotangentReturned> for P
where
    P: FnOnce(G) -> R,
{
    type Grads = R;
    #[inline]
    fn pull(self, g: G, _: &mut [F]) -> R {
        self(g)
    }
    #[inline]
    fn pull_unless_read(self, _: G, _: &mut [F]) -> Option<R> {
        None
    }
}

/// A pullback's entry for an array passed on as [`PassedOn`] says, taken into the array's
/// shadow: a reader's cotangent (`Option<Vec<F>>`) added in, a writer's `()` (its
/// pullback updated the shadow in place) nothing; a callee holding the array constant
/// gives `()` too.
pub trait Absorb<F> {
    /// Adds the entry's cotangent, if any, into `shadow`.
    fn absorb(self, shadow: &mut [F]);
}

impl<F> Absorb<F> for () {
    #[inline]
    fn absorb(self, _: &mut [F]) {}
}

impl<F: Copy + core::ops::Add<Output = F>> Absorb<F> for Option<Vec<F>> {
    /// # Panics
    ///
    /// If the cotangent's length is not the shadow's (the callee's array is the caller's).
    #[inline]
    fn absorb(self, shadow: &mut [F]) {
        if let Some(cotangent) = self {
            add_into(&cotangent, shadow);
        }
    }
}

impl<F: Copy + core::ops::Add<Output = F>, const N: usize> Absorb<F> for Option<Vec<[F; N]>> {
    /// A reader's cotangent of an array of rows (`&[[F; N]]`) into the caller's flat
    /// shadow of it (row after row, as the shadow holds them).
    ///
    /// # Panics
    ///
    /// If the cotangent's length is not the shadow's.
    #[inline]
    fn absorb(self, shadow: &mut [F]) {
        if let Some(rows) = self {
            add_into(rows.as_flattened(), shadow);
        }
    }
}

/// `shadow += cotangent`, element by element, of equal lengths.
#[inline]
fn add_into<F: Copy + core::ops::Add<Output = F>>(cotangent: &[F], shadow: &mut [F]) {
    // (equal, not at most: a shorter cotangent would update a prefix and leave the rest
    // of the gradient silently short)
    assert!(
        cotangent.len() == shadow.len(),
        "gradtape internal: a cotangent of {} values for an array of {}",
        cotangent.len(),
        shadow.len()
    );
    for (d, &g) in shadow.iter_mut().zip(cotangent) {
        *d = *d + g;
    }
}

/// How a call's `vjp` is lent one of the caller's own `&mut [F]` parameters passed on as
/// it is beside other written arrays (`step(pos, vel, dt)`, `f(y, &mut out)`), for
/// [`PassedOnMany`]: as the callee's parameter takes it, `&mut [F]` (it writes the array)
/// or `&[F]` (it only reads it), the type inferred from the callee's signature, which the
/// caller's macro does not see. [`lend`] records which.
pub trait Lend<'a, F>: Sized {
    /// Whether the callee's parameter writes the array (`&mut [F]`).
    const WRITTEN: bool;
    /// The array as the callee's parameter.
    fn lend(array: &'a mut [F]) -> Self;
}

impl<'a, F> Lend<'a, F> for &'a mut [F] {
    const WRITTEN: bool = true;
    #[inline]
    fn lend(array: &'a mut [F]) -> Self {
        array
    }
}

impl<'a, F> Lend<'a, F> for &'a [F] {
    const WRITTEN: bool = false;
    #[inline]
    fn lend(array: &'a mut [F]) -> Self {
        array
    }
}

/// `array` lent as the callee's parameter takes it ([`Lend`]), `written` set to whether
/// that parameter writes it: the forward code keeps the flag for [`PassedOnMany`].
///
/// ```
/// use gradtape_runtime::generated::lend;
/// fn writer(a: &mut [f64]) { a[0] = 2.0; }
/// fn reader(a: &[f64]) -> f64 { a[0] }
/// let (mut y, mut written) = (vec![1.0], false);
/// writer(lend(&mut y, &mut written));
/// assert!(written);
/// assert_eq!(reader(lend(&mut y, &mut written)), 2.0);
/// assert!(!written);
/// ```
#[inline]
pub fn lend<'a, F, A: Lend<'a, F>>(array: &'a mut [F], written: &mut bool) -> A {
    *written = A::WRITTEN;
    A::lend(array)
}

/// [`PassedOn`] of a call with several written arrays, some of them the caller's own `&mut
/// [F]` parameters passed on as they are: the pullback takes the shadows of the arrays the
/// callee writes, in order, and returns the others' cotangents. Which ones it writes is
/// `written` (a spelled `&mut a` always; a parameter passed on as [`lend`] recorded it),
/// the pullback's arity being only their number; the marker `M` (the arity) is inferred
/// from the pullback's type. The caller then hands each passed-on array's entry to
/// [`Absorb`].
///
/// ```
/// use gradtape_runtime::generated::{Absorb, PassedOnMany};
/// let (mut a, mut b) = ([1.0], [10.0]);
/// // a callee writing its second array and reading its first
/// let pullback = |g: f64, d: &mut [f64]| {
///     d[0] *= g;
///     (Some(vec![g]), ())
/// };
/// let grads = PassedOnMany::pull(pullback, 3.0, [false, true], [&mut a[..], &mut b[..]]);
/// Absorb::absorb(grads.0, &mut a[..]);
/// Absorb::absorb(grads.1, &mut b[..]);
/// assert_eq!((a, b), ([4.0], [30.0]));
/// ```
pub trait PassedOnMany<G, F, const N: usize, M> {
    /// The pullback's entries, one per parameter.
    type Grads;
    /// The pullback called with the result's cotangent `g` and the shadows of the arrays
    /// `written` says the callee writes, in order.
    ///
    /// # Panics
    ///
    /// If `written` names fewer arrays than the pullback takes (the flags are the callee's
    /// own parameter types, so they agree).
    fn pull(self, g: G, written: [bool; N], shadows: [&mut [F]; N]) -> Self::Grads;
}

/// [`PassedOnMany`]'s markers: the number of shadows the pullback takes.
pub struct Shadows<const K: usize>;

macro_rules! passed_on_many {
    ($k:literal; $($shadow:ident),*) => {
        impl<P, G, F, R, const N: usize> PassedOnMany<G, F, N, Shadows<$k>> for P
        where
            P: FnOnce(G $(, passed_on_many!(@ty $shadow, F))*) -> R,
        {
            type Grads = R;
            #[inline]
            #[allow(unused_mut, unused_variables)]
            fn pull(self, g: G, written: [bool; N], shadows: [&mut [F]; N]) -> R {
                let mut taken = shadows
                    .into_iter()
                    .zip(written)
                    .filter_map(|(shadow, written)| written.then_some(shadow));
                $(let $shadow = taken.next().expect("a shadow per written array");)*
                self(g $(, $shadow)*)
            }
        }
    };
    (@ty $shadow:ident, $f:ident) => { &mut [$f] };
}

passed_on_many!(0;);
passed_on_many!(1; a);
passed_on_many!(2; a, b);
passed_on_many!(3; a, b, c);
passed_on_many!(4; a, b, c, d);
