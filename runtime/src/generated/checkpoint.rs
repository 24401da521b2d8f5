//! The copies a checkpointed loop (`#[differentiable(checkpoint)]`) makes of the values it
//! reads or changes, so that its adjoint can rerun its segments: through traits of their
//! own, so that a type that is not `Clone` is the macro's message, at the user's name,
//! rather than rustc's bare `Clone` bound. The first copy is a [`Copies`], which makes the
//! later ones with no bound to check again: a type that is not `Clone` is one error, at
//! the first copy, not one more at each rerun's.

/// A value and how to copy it again: what [`LoopCopy::loop_copies`] and
/// [`LoopSnapshot::loop_snapshot`] keep. Its copies need no `Clone` bound (the function
/// was taken where the bound held), so a failed first copy is the only error.
///
/// ```
/// use gradtape_runtime::generated::LoopSnapshot;
/// let kept = LoopSnapshot::loop_snapshot(&vec![1.0, 2.0]);
/// assert_eq!(kept.copy(), vec![1.0, 2.0]);
/// ```
pub struct Copies<T> {
    value: T,
    copier: fn(&T) -> T,
}

impl<T> Copies<T> {
    /// A copy of the value.
    #[inline]
    pub fn copy(&self) -> T {
        (self.copier)(&self.value)
    }
}

/// A value a checkpointed loop only reads, copied before the loop for its rerun: a local
/// (in every generated function), or what a shared borrow parameter points to in `vjp`
/// only, whose pullback reruns the loop after the call's borrows have ended (`grad`,
/// `grad_into` and the hidden joint forms rerun it within the call, on the borrow itself,
/// and need no copy). Every `Clone` type is one.
///
/// ```
/// use gradtape_runtime::generated::LoopCopy;
/// assert_eq!(LoopCopy::loop_copy(&vec![1.0, 2.0]), vec![1.0, 2.0]);
/// assert_eq!(LoopCopy::loop_copies(&2.5_f64).copy(), 2.5);
/// ```
#[diagnostic::on_unimplemented(
    message = "a checkpointed loop reads this `{Self}`, which is not `Clone`: the adjoint reruns the loop on a copy of it",
    label = "copied for the checkpointed loop's rerun",
    note = "derive or implement `Clone` for it; a parameter borrowing it (`p: &{Self}`) needs no copy in `grad` and `grad_into`, only in `vjp`, whose pullback outlives the borrow"
)]
pub trait LoopCopy: Sized {
    /// The copy (`vjp`'s of what a borrow parameter points to, under its bound).
    fn loop_copy(&self) -> Self;
    /// The copy, and how to copy it again for each rerun (a local's).
    fn loop_copies(&self) -> Copies<Self>;
}

impl<T: Clone> LoopCopy for T {
    #[inline(always)]
    fn loop_copy(&self) -> T {
        self.clone()
    }
    #[inline(always)]
    fn loop_copies(&self) -> Copies<T> {
        Copies {
            value: self.clone(),
            copier: T::clone,
        }
    }
}

/// A value a checkpointed loop changes (its carried state), copied into the snapshot at
/// each segment's start and back out of it for the segment's rerun. Every `Clone` type is
/// one.
///
/// ```
/// use gradtape_runtime::generated::LoopSnapshot;
/// assert_eq!(LoopSnapshot::loop_snapshot(&2.5_f64).copy(), 2.5);
/// ```
#[diagnostic::on_unimplemented(
    message = "a checkpointed loop changes this `{Self}`, which is not `Clone`: it keeps a snapshot of it at the start of each segment of trips",
    label = "snapshotted by the checkpointed loop",
    note = "derive or implement `Clone` for it, or change it outside the checkpointed loop"
)]
pub trait LoopSnapshot: Sized {
    /// The snapshot, and how to restore it (copied, as several reruns may start from it).
    fn loop_snapshot(&self) -> Copies<Self>;
}

impl<T: Clone> LoopSnapshot for T {
    #[inline(always)]
    fn loop_snapshot(&self) -> Copies<T> {
        Copies {
            value: self.clone(),
            copier: T::clone,
        }
    }
}
