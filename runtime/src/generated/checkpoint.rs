//! The copies a checkpointed loop (`#[differentiable(checkpoint)]`) makes of the values it
//! reads or changes, so that its adjoint can rerun its segments: through traits of their
//! own, so that a type that is not `Clone` is the macro's message, at the user's name,
//! rather than rustc's bare `Clone` bound. The first copy is a [`Copies`], which makes the
//! later ones with no bound to check again: a type that is not `Clone` is one error, at
//! the first copy, not one more at each rerun's.
//!
//! The generated code names the copying function as a path spanned at the user's name
//! (`Copies::new(&well, LoopCopy::loop_copy)`): the bound is then checked where the
//! function item is named, an obligation of that path, so the message sits under the
//! name with its label and note. Passed the value to copy instead, rustc would blame the
//! argument, where it suggests borrowing the name (a reference is `Clone`) and drops the
//! message's label and note.

/// A value and how to copy it again: what [`LoopCopy::loop_copy`] and
/// [`LoopSnapshot::loop_snapshot`] keep. Its copies need no `Clone` bound (the function
/// was taken where the bound held), so a failed first copy is the only error.
///
/// ```
/// use gradtape_runtime::generated::{Copies, LoopSnapshot};
/// let kept = Copies::new(&vec![1.0, 2.0], LoopSnapshot::loop_snapshot);
/// assert_eq!(kept.copy(), vec![1.0, 2.0]);
/// ```
pub struct Copies<T> {
    value: T,
    copier: fn(&T) -> T,
}

impl<T> Copies<T> {
    /// The first copy of `value` by `copier` (`LoopCopy::loop_copy` or
    /// `LoopSnapshot::loop_snapshot`, named where the user's name is), and how to copy it
    /// again.
    ///
    /// ```
    /// use gradtape_runtime::generated::{Copies, LoopCopy};
    /// let kept = Copies::new(&vec![1.0, 2.0], LoopCopy::loop_copy);
    /// assert_eq!(kept.copy(), vec![1.0, 2.0]);
    /// ```
    #[inline]
    pub fn new(value: &T, copier: fn(&T) -> T) -> Copies<T> {
        Copies {
            value: copier(value),
            copier,
        }
    }

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
/// use gradtape_runtime::generated::{Copies, LoopCopy};
/// assert_eq!(LoopCopy::loop_copy(&vec![1.0, 2.0]), vec![1.0, 2.0]);
/// assert_eq!(Copies::new(&2.5_f64, LoopCopy::loop_copy).copy(), 2.5);
/// ```
#[diagnostic::on_unimplemented(
    message = "a checkpointed loop reads this `{Self}`, which is not `Clone`: the adjoint reruns the loop on a copy of it",
    label = "copied for the checkpointed loop's rerun",
    note = "derive or implement `Clone` for it; a parameter borrowing it (`p: &{Self}`) needs no copy in `grad` and `grad_into`, only in `vjp`, whose pullback outlives the borrow"
)]
pub trait LoopCopy: Sized {
    /// The copy (`vjp`'s of what a borrow parameter points to, under its bound; a
    /// local's through [`Copies::new`], copied again for each rerun).
    fn loop_copy(&self) -> Self;
}

impl<T: Clone> LoopCopy for T {
    #[inline(always)]
    fn loop_copy(&self) -> T {
        self.clone()
    }
}

/// A value a checkpointed loop changes (its carried state), copied into the snapshot at
/// each segment's start and back out of it for the segment's rerun. Every `Clone` type is
/// one.
///
/// ```
/// use gradtape_runtime::generated::{Copies, LoopSnapshot};
/// assert_eq!(Copies::new(&2.5_f64, LoopSnapshot::loop_snapshot).copy(), 2.5);
/// ```
#[diagnostic::on_unimplemented(
    message = "a checkpointed loop changes this `{Self}`, which is not `Clone`: it keeps a snapshot of it at the start of each segment of trips",
    label = "snapshotted by the checkpointed loop",
    note = "derive or implement `Clone` for it, or change it outside the checkpointed loop"
)]
pub trait LoopSnapshot: Sized {
    /// The snapshot's copy (kept in a [`Copies`], copied again to restore it, as several
    /// reruns may start from it).
    fn loop_snapshot(&self) -> Self;
}

impl<T: Clone> LoopSnapshot for T {
    #[inline(always)]
    fn loop_snapshot(&self) -> T {
        self.clone()
    }
}
