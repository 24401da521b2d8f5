//! Error collection: every error of an item is reported at once (serde's `Ctxt`).

use std::cell::{Cell, RefCell};
use std::fmt::Display;

use quote::ToTokens;

/// Collects `syn::Error`s while the phases run.
#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
    /// How many of the errors are about code that would differentiate on the tape as
    /// written (tensor mode: a construct with no static adjoint, such as a local `Vec` of
    /// tensors), which the expansion may run on a sub-tape instead ([`Self::traceable`]).
    traceable: Cell<usize>,
}

impl Ctxt {
    /// Records an error spanned on `tokens`.
    pub fn error_spanned_by(&self, tokens: impl ToTokens, message: impl Display) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error about a construct the tape could differentiate as written (see
    /// [`Self::only_traceable`]).
    pub fn traceable_error(&self, tokens: impl ToTokens, message: impl Display) {
        self.error_spanned_by(tokens, message);
        self.traceable.set(self.traceable.get() + 1);
    }

    /// Whether there are errors and all of them are [`traceable`](Self::traceable_error).
    pub fn only_traceable(&self) -> bool {
        let errors = self.errors.borrow().len();
        errors > 0 && errors == self.traceable.get()
    }

    /// Whether any error was recorded.
    pub fn has_errors(&self) -> bool {
        !self.errors.borrow().is_empty()
    }

    /// Records every error of `other` (a phase's own round), keeping which are traceable.
    pub fn absorb(&self, other: Ctxt) {
        self.errors.borrow_mut().extend(other.errors.into_inner());
        self.traceable
            .set(self.traceable.get() + other.traceable.get());
    }

    /// Records an error.
    pub fn syn_error(&self, error: syn::Error) {
        self.errors.borrow_mut().push(error);
    }

    /// All the errors recorded, combined into one.
    pub fn check(self) -> Result<(), syn::Error> {
        let mut errors = self.errors.into_inner().into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}
