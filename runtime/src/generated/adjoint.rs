//! What generated adjoints call besides the `vjp` rules: accumulating cotangents (with
//! symbolic zeros), un-broadcasting, lifting constants, reading saved values back, and the
//! conversions between 0-d tensors and plain numbers.

use crate::base::dtype::{AnyTensor, DType, Float};
use crate::base::primal::{Primal, PrimalOps};
use crate::base::tensor::Tensor;
/// Adds the cotangent `g` into `slot` (`None` is a symbolic zero, never materialised).
///
/// ```
/// let mut slot = None;
/// gradtape_runtime::generated::accumulate(&mut slot, 2.0_f64);
/// gradtape_runtime::generated::accumulate(&mut slot, 3.0);
/// assert_eq!(slot, Some(5.0));
/// ```
#[inline]
pub fn accumulate<V: Accumulate>(slot: &mut Option<V>, g: V) {
    *slot = Some(match slot.take() {
        None => g,
        Some(sum) => Accumulate::sum(sum, &g),
    });
}

/// A value whose cotangent generated code sums in a slot (`Option<V>`, `None` a symbolic
/// zero): every [`Primal`] (a float, a tensor: the sum a recorded `add`, so that higher
/// order sees it), and a struct deriving `Differentiable`, whose cotangent is a value of
/// the struct summed field by field (`Differentiable::accumulate`). The derive implements
/// it, so that an annotated caller may hold another function's struct result as one value
/// (`let s = step(..); norm(&s)`) without knowing its fields: the slot, the callee's
/// pullback and the entries it gives are all of the struct's type.
///
/// ```
/// use gradtape_runtime::generated::Accumulate;
/// assert_eq!(Accumulate::sum(2.0_f64, &3.0), 5.0);
/// // a tuple result's cotangent, part by part (`None` a zero)
/// assert_eq!(
///     Accumulate::sum((Some(2.0_f64), None), &(Some(3.0), Some(1.5))),
///     (Some(5.0), Some(1.5))
/// );
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is held by `#[differentiable]` code as one differentiable value, but it is no float, tensor or struct deriving `Differentiable`",
    label = "held as one differentiable value",
    note = "a call's result held whole (`let s = step(..);`) is a float, a tensor, or a struct of floats deriving `Differentiable`"
)]
pub trait Accumulate: Sized {
    /// `sum + g`.
    fn sum(sum: Self, g: &Self) -> Self;
}

impl<V: Primal> Accumulate for V {
    #[inline]
    fn sum(sum: Self, g: &Self) -> Self {
        sum.add(g)
    }
}

/// An array result's cotangent (a call of an annotated function returning `[F; N]`,
/// held as one value: passed on whole, `norm(&cross(a, b))`): summed element by element.
///
/// ```
/// use gradtape_runtime::generated::Accumulate;
/// assert_eq!(Accumulate::sum([1.0_f64, 2.0], &[0.5, -1.0]), [1.5, 1.0]);
/// ```
impl<F: Float, const N: usize> Accumulate for [F; N] {
    #[inline]
    fn sum(mut sum: Self, g: &Self) -> Self {
        for (sum, g) in sum.iter_mut().zip(g) {
            *sum += *g;
        }
        sum
    }
}

/// An array of rows result's cotangent (`[[F; C]; R]`, held as one value: passed on
/// whole, `trace(&rotation(t))`): summed element by element.
///
/// ```
/// use gradtape_runtime::generated::Accumulate;
/// let sum = Accumulate::sum([[1.0_f64, 2.0]], &[[0.5, -1.0]]);
/// assert_eq!(sum, [[1.5, 1.0]]);
/// ```
impl<F: Float, const C: usize, const R: usize> Accumulate for [[F; C]; R] {
    #[inline]
    fn sum(mut sum: Self, g: &Self) -> Self {
        for (sum, g) in sum.as_flattened_mut().iter_mut().zip(g.as_flattened()) {
            *sum += *g;
        }
        sum
    }
}

/// A tuple result's cotangent, `Option` of each part's (`None` a symbolic zero): summed
/// part by part, as a struct's field by field. An annotated caller holding a tuple result
/// as one value passes it on only to a callee that cannot take it (no annotated function
/// has a tuple parameter), whose message is then the only one, not also this trait's.
macro_rules! accumulate_tuples {
    ($(($($part:ident $index:tt),+)),+) => {$(
        impl<$($part: Accumulate + Clone),+> Accumulate for ($(Option<$part>,)+) {
            #[inline]
            fn sum(sum: Self, g: &Self) -> Self {
                ($(match (sum.$index, &g.$index) {
                    (Some(sum), Some(g)) => Some(Accumulate::sum(sum, g)),
                    (sum, None) => sum,
                    (None, g) => g.clone(),
                },)+)
            }
        }
    )+};
}

accumulate_tuples!((A 0, B 1), (A 0, B 1, C 2), (A 0, B 1, C 2, D 3));

/// A cotangent computed at a broadcast shape, summed back to the shape of `like` (the
/// operand it belongs to); the identity on plain numbers.
///
/// ```
/// use gradtape_runtime::{Tensor, generated};
/// let g = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0], &[3]);
/// assert_eq!(generated::unbroadcast(g, &Tensor::scalar(0.0)).to_scalar(), 6.0);
/// ```
#[inline]
pub fn unbroadcast<V: Unbroadcast>(g: V, like: &V) -> V {
    g.unbroadcast_to(like)
}

/// [`Primal::sum_to_like`], with the common case (no broadcast happened) checked first
/// without a slice comparison: `memcmp` of two empty shapes costs more than a scalar op.
/// In a jacobian's vectorised sweep the cotangent's leading batch axes are kept.
pub trait Unbroadcast: Primal {
    /// This cotangent summed to `like`'s shape.
    fn unbroadcast_to(self, like: &Self) -> Self;
}

impl<T: Float> Unbroadcast for Tensor<T> {
    #[inline]
    fn unbroadcast_to(self, like: &Self) -> Self {
        let (from, to) = (self.shape(), like.shape());
        if from.len() == to.len() && from.iter().zip(to).all(|(a, b)| a == b) {
            self
        } else {
            self.sum_to_batched(to)
        }
    }
}

impl Unbroadcast for f32 {
    #[inline]
    fn unbroadcast_to(self, _like: &Self) -> Self {
        self
    }
}

impl Unbroadcast for f64 {
    #[inline]
    fn unbroadcast_to(self, _like: &Self) -> Self {
        self
    }
}

/// A constant operand (a literal, a plain number, a tensor the function treats as data) as
/// a value of the kind the rules compute with.
///
/// ```
/// use gradtape_runtime::{Tensor, generated::Lift};
/// let t: Tensor<f32> = 2.0_f32.lift();
/// assert_eq!(t.to_scalar(), 2.0);
/// ```
pub trait Lift<V> {
    /// This constant as a `V`.
    fn lift(&self) -> V;
}

impl<T: Float> Lift<Tensor<T>> for T {
    #[inline]
    fn lift(&self) -> Tensor<T> {
        Tensor::scalar(*self)
    }
}

impl<T: Float> Lift<Tensor<T>> for Tensor<T> {
    #[inline]
    fn lift(&self) -> Tensor<T> {
        self.clone()
    }
}

impl Lift<f32> for f32 {
    #[inline]
    fn lift(&self) -> f32 {
        *self
    }
}

impl Lift<f64> for f64 {
    #[inline]
    fn lift(&self) -> f64 {
        *self
    }
}

/// [`Lift::lift`] as a function, for generated code.
///
/// ```
/// assert_eq!(gradtape_runtime::generated::lift::<f64>(&3.0), 3.0);
/// ```
#[inline]
pub fn lift<V>(c: &impl Lift<V>) -> V {
    c.lift()
}

/// An exponent of either float type as the `f64` the rules take.
///
/// ```
/// assert_eq!(gradtape_runtime::generated::exponent(2.5_f32), 2.5);
/// ```
#[inline]
pub fn exponent<T: Float>(p: T) -> f64 {
    p.to_f64()
}

/// Saves `value` on a per-iteration stack (the forward code's `Vec::push`), with the
/// growth path out of line and cold.
///
/// With `stack.push(value)` in a loop, `Vec`'s growth call sits in the loop body and is
/// given the `Vec`'s address: the compiler then keeps the length in memory, reloading and
/// storing it on every trip (`perf annotate`, `docs/PERFORMANCE.md`, issue 13). Here the
/// growth path takes the `Vec` by value, so the stack's address reaches no call. Room is
/// made up front for a `for` loop ([`reserve`]), so growth normally happens only in a
/// `while` or `loop`, or when an iterator's size hint falls short.
///
/// ```
/// let mut stack = Vec::new();
/// gradtape_runtime::generated::keep(&mut stack, 1.0_f64);
/// gradtape_runtime::generated::keep(&mut stack, 2.0);
/// assert_eq!(stack, [1.0, 2.0]);
/// ```
#[inline]
pub fn keep<V>(stack: &mut Vec<V>, value: V) {
    if stack.len() < stack.capacity() {
        stack.push(value);
    } else {
        *stack = keep_growing(std::mem::take(stack), value);
    }
}

/// The stack of a value saved at most once per call: in a branch or an arm, in no loop. One
/// slot, so a function whose body branches allocates nothing for its saves (a `Vec` stack
/// allocates on its first push). Read as a slice, as a `Vec` stack is, by [`pop`].
///
/// ```
/// use gradtape_runtime::generated::{SavedOnce, keep_once, pop};
/// let mut slot = SavedOnce::new();
/// keep_once(&mut slot, 2.0_f64);
/// let mut cursor = slot.len();
/// assert_eq!(*pop(&slot, &mut cursor), 2.0);
/// ```
pub struct SavedOnce<V>(Option<V>);

impl<V> SavedOnce<V> {
    /// An empty slot.
    #[inline]
    pub fn new() -> Self {
        SavedOnce(None)
    }
}

impl<V> Default for SavedOnce<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V> std::ops::Deref for SavedOnce<V> {
    type Target = [V];
    #[inline]
    fn deref(&self) -> &[V] {
        self.0.as_slice()
    }
}

/// Saves `value` in a [`SavedOnce`].
///
/// # Panics
/// If the slot is full: the macro uses a slot only where the save runs at most once per
/// call, and a second value must not replace the first silently.
#[inline]
#[track_caller]
pub fn keep_once<V>(slot: &mut SavedOnce<V>, value: V) {
    assert!(
        slot.0.is_none(),
        "#[differentiable] generated code saved twice into a once-per-call slot"
    );
    slot.0 = Some(value);
}

/// [`keep`] when the stack is full. It takes and gives back the `Vec` by value, so that
/// the stack's own address reaches no call: it can then live in registers across the loop.
#[cold]
#[inline(never)]
fn keep_growing<V>(mut stack: Vec<V>, value: V) -> Vec<V> {
    stack.push(value);
    stack
}

/// Makes room for `additional` more saves on a per-iteration stack before a loop (its
/// iterator's size hint), growing a moved-out copy so that, as in [`keep`], the stack's
/// own address reaches no call.
///
/// ```
/// let mut stack: Vec<f64> = Vec::new();
/// gradtape_runtime::generated::reserve(&mut stack, 100);
/// assert!(stack.capacity() >= 100 && stack.is_empty());
/// ```
#[inline]
pub fn reserve<V>(stack: &mut Vec<V>, additional: usize) {
    let mut owned = std::mem::take(stack);
    owned.reserve(additional);
    *stack = owned;
}

/// The records one run of a loop saved by trip, for its reverse sweep: a loop that no jump
/// ends early pushes one record of the values it saves in no branch (a tuple) per trip,
/// so its run's records are the `trips` entries before `cursor`, which moves back over
/// them (runs come off in the reverse of the order they went on). The slice is exactly
/// `trips` long, so the adjoint's read of trip `t < trips` is in bounds by construction,
/// and compiles to no check (where `pop` checks each read and moves the cursor per value).
///
/// ```
/// let stack = vec![1.0_f64, 2.0, 3.0];
/// let mut cursor = stack.len();
/// let run = gradtape_runtime::generated::trip_saves(&stack, &mut cursor, 2);
/// assert_eq!((run, cursor), (&[2.0, 3.0][..], 1));
/// ```
#[inline]
pub fn trip_saves<'a, V>(stack: &'a [V], cursor: &mut usize, trips: usize) -> &'a [V] {
    *cursor -= trips;
    &stack[*cursor..][..trips]
}

/// The value saved for the reverse sweep at `cursor - 1` of a per-iteration stack, moving
/// the cursor back: values come off in the reverse of the order they went on.
///
/// ```
/// let stack = vec![1.0, 2.0];
/// let mut cursor = stack.len();
/// assert_eq!(*gradtape_runtime::generated::pop(&stack, &mut cursor), 2.0);
/// assert_eq!(*gradtape_runtime::generated::pop(&stack, &mut cursor), 1.0);
/// ```
#[inline]
pub fn pop<'a, V>(stack: &'a [V], cursor: &mut usize) -> &'a V {
    *cursor -= 1;
    &stack[*cursor]
}

/// An owned copy of a value the adjoint keeps: a tensor (sharing storage) or a number,
/// through any number of references.
///
/// ```
/// use gradtape_runtime::{Tensor, generated};
/// let x = Tensor::scalar(1.0_f32);
/// let kept: Tensor<f32> = generated::own(&&x);
/// assert_eq!(kept.to_scalar(), 1.0);
/// ```
pub trait Own {
    /// The owned type.
    type Owned;
    /// An owned copy.
    fn own(&self) -> Self::Owned;
}

impl<T: crate::DType> Own for Tensor<T> {
    type Owned = Tensor<T>;
    #[inline]
    fn own(&self) -> Tensor<T> {
        self.clone()
    }
}

impl Own for f32 {
    type Owned = f32;
    #[inline]
    fn own(&self) -> f32 {
        *self
    }
}

impl Own for f64 {
    type Owned = f64;
    #[inline]
    fn own(&self) -> f64 {
        *self
    }
}

impl<X: Own + ?Sized> Own for &X {
    type Owned = X::Owned;
    #[inline]
    fn own(&self) -> X::Owned {
        (**self).own()
    }
}

/// [`Own::own`] as a function, for generated code.
///
/// ```
/// assert_eq!(gradtape_runtime::generated::own(&2.0_f64), 2.0);
/// ```
#[inline]
pub fn own<X: Own + ?Sized>(x: &X) -> X::Owned {
    x.own()
}

/// [`accumulate`] for a cotangent that may be a symbolic zero (`None`).
///
/// ```
/// let mut slot = Some(1.0_f64);
/// gradtape_runtime::generated::accumulate_option(&mut slot, None);
/// gradtape_runtime::generated::accumulate_option(&mut slot, Some(2.0));
/// assert_eq!(slot, Some(3.0));
/// ```
#[inline]
pub fn accumulate_option<V: Accumulate>(slot: &mut Option<V>, g: Option<V>) {
    if let Some(g) = g {
        accumulate(slot, g);
    }
}

/// A callee's pullback entry for a differentiable argument of a scalar-mode call: `Option`
/// of its cotangent. A callee that holds that parameter constant gives `()`, which has no
/// impl: its message, at the caller's argument, says to mark the parameter.
///
/// ```
/// use gradtape_runtime::generated::Entry;
/// assert_eq!(Entry::<f64>::cotangent(Some(2.0_f64)), Some(2.0));
/// ```
#[diagnostic::on_unimplemented(
    message = "a differentiable value is passed here to a parameter the called function holds constant (`{Self}`)",
    label = "its gradient would be lost here",
    note = "mark the callee's parameter `#[differentiable]` (a struct deriving `Differentiable`, a float left out of `constant(..)`): the caller differentiates this value, so it needs the callee's gradient for it"
)]
pub trait Entry<V> {
    /// The cotangent, `None` a symbolic zero.
    fn cotangent(self) -> Option<V>;
}

impl<V> Entry<V> for Option<V> {
    #[inline(always)]
    fn cotangent(self) -> Option<V> {
        self
    }
}

/// [`accumulate_option`] of a callee's pullback entry for a differentiable argument
/// ([`Entry`]: a parameter the callee holds constant is the message at the argument).
///
/// ```
/// let mut slot = Some(1.0_f64);
/// gradtape_runtime::generated::accumulate_entry(&mut slot, Some(2.0));
/// assert_eq!(slot, Some(3.0));
/// ```
#[inline]
pub fn accumulate_entry<V: Accumulate, E: Entry<V>>(slot: &mut Option<V>, entry: E) {
    accumulate_option(slot, entry.cotangent());
}

/// `.value()` on a tensor, for generated code: in a `#[differentiable]` function's `vjp`, a
/// [`Variable`](crate::Variable) parameter is the tensor the call read from it, so code
/// that reads it again (`stop_gradient(&w.value())`) gets that same tensor.
///
/// ```
/// use gradtape_runtime::{Tensor, generated::ReadValue};
/// let w = Tensor::scalar(2.0_f32);
/// assert_eq!(w.value().to_scalar(), 2.0);
/// ```
pub trait ReadValue<T: DType> {
    /// The tensor itself: same storage, same identity.
    fn value(&self) -> Tensor<T>;
}

impl<T: DType> ReadValue<T> for Tensor<T> {
    #[inline]
    fn value(&self) -> Tensor<T> {
        self.clone()
    }
}

/// The element of a 0-d tensor, `None` for any other shape. `#[differentiable]` runs a
/// call on plain numbers when every differentiable input is 0-d (and the body is
/// elementwise), and reads the cotangent of its 0-d result the same way.
///
/// ```
/// use gradtape_runtime::{Tensor, generated};
/// assert_eq!(generated::scalar_value(&Tensor::scalar(2.5_f32)), Some(2.5));
/// assert_eq!(generated::scalar_value(&Tensor::from_vec(vec![2.5_f32], &[1])), None);
/// ```
#[inline]
pub fn scalar_value<T: Float>(t: &Tensor<T>) -> Option<T> {
    t.as_inline_scalar()
}

/// A cotangent computed on plain numbers as the 0-d tensor a tape takes.
///
/// ```
/// use gradtape_runtime::{AnyTensor, generated};
/// let AnyTensor::F64(t) = generated::scalar_cotangent(1.5_f64) else { unreachable!() };
/// assert_eq!((t.shape(), t.to_scalar()), (&[][..], 1.5));
/// ```
#[inline]
pub fn scalar_cotangent<T: Float>(d: T) -> AnyTensor {
    T::into_any(Tensor::scalar(d))
}

/// [`scalar_value`] of one cotangent of a tuple result: `Some(None)` for a symbolic zero,
/// `None` if the cotangent is not 0-d.
///
/// ```
/// use gradtape_runtime::{Tensor, generated};
/// assert_eq!(generated::scalar_value_option::<f64>(&None), Some(None));
/// assert_eq!(generated::scalar_value_option(&Some(Tensor::scalar(1.0_f64))), Some(Some(1.0)));
/// ```
#[inline]
pub fn scalar_value_option<T: Float>(t: &Option<Tensor<T>>) -> Option<Option<T>> {
    match t {
        None => Some(None),
        Some(t) => scalar_value(t).map(Some),
    }
}

/// `x as B` where `B` is a float type parameter, which `as` cannot name: the forward and
/// tangent code of a cast to one (a generic function's struct result field, converted to
/// its float type `T` so that a field of another float type is `ResultField`'s message
/// alone). The same value as `as` between `f32` and `f64` (through `f64`, exact from
/// `f32`, rounded to nearest into `f32`).
///
/// ```
/// use gradtape_runtime::generated::float_cast;
/// assert_eq!(float_cast::<f32, _>(0.1_f64), 0.1_f64 as f32);
/// assert_eq!(float_cast::<f64, _>(0.1_f32), 0.1_f32 as f64);
/// ```
#[inline(always)]
pub fn float_cast<B: crate::Float, A: crate::Float>(x: A) -> B {
    <B as DType>::from_f64(DType::to_f64(x))
}

/// The cotangent of `x as U` for the float `x`: `g`, converted back to `x`'s type (`like`
/// is `x`'s value, which names the type; a float-to-float cast's derivative is 1).
///
/// ```
/// let g = 0.5_f32;
/// assert_eq!(gradtape_runtime::generated::convert_like(g, &2.0_f64), 0.5_f64);
/// ```
#[inline]
pub fn convert_like<A: crate::Float, B: crate::Float>(g: A, _like: &B) -> B {
    <B as DType>::from_f64(DType::to_f64(g))
}
