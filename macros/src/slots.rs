//! Slots: the locals `options` and `enums` split a value into (an option's value, an enum
//! variant's field), each holding a value only while a flag or tag says so.
//!
//! A slot must hold *something* on every path, or rustc rejects its reads as possibly
//! uninitialised: while its flag or tag says otherwise, it holds its type's `Default`. A
//! float has one, and only a float slot can be active (read a differentiable value), which
//! is what the split is for; but a constant payload may not (`Some(&config)`,
//! `Step::Scaled(&config, x)`, a closure), and `Default` there was rustc's E0277 answering
//! ordinary code. So the expansion lowers a body twice when a rewrite made a slot the first
//! lowering found inactive ([`Slots::inactive_in`]): the second time, such a slot holds an
//! `Option` of the value, `Some` while the flag says so and `None` otherwise, read by
//! `unwrap` (which never fails: every read is behind the flag's or tag's test). An inactive
//! slot is code lowering leaves as written, so its `Option` changes no other local's
//! activity, and the second lowering's slots are those of the first.

use std::collections::HashSet;

use quote::{ToTokens, quote};
use syn::{Expr, Ident, Stmt, Token, Type};

use crate::model::ir::Body;

/// The slots one expansion's rewrites make: which of them hold an `Option`, and the names
/// of all of them.
#[derive(Default)]
pub struct Slots {
    /// The slots held in an `Option`, by name: those the first lowering found inactive.
    optional: HashSet<String>,
    /// Every slot made, by name.
    made: HashSet<String>,
}

impl Slots {
    /// The slots of a second lowering: those named in `optional` hold an `Option`.
    pub fn with_optional(optional: HashSet<String>) -> Slots {
        Slots {
            optional,
            made: HashSet::new(),
        }
    }

    /// A new slot named `ident` (already unspelled, `syntax::unspelled_ident`).
    pub fn slot(&mut self, ident: Ident) -> Slot {
        let name = ident.to_string();
        let optional = self.optional.contains(&name);
        self.made.insert(name);
        Slot { ident, optional }
    }

    /// The names of the slots made that `body` (the lowering of the rewritten statements)
    /// left inactive. A name bound more than once (a rewrite inside a loop body and again
    /// beside it) counts only if no binding of it is active.
    pub fn inactive_in(&self, body: &Body) -> HashSet<String> {
        let active = body.active_names();
        body.bindings
            .iter()
            .map(|b| b.name.to_string())
            .filter(|name| self.made.contains(name) && !active.contains(name))
            .collect()
    }
}

/// One slot: a local declared without a value, assigned on every path of each build.
#[derive(Clone)]
pub struct Slot {
    ident: Ident,
    /// Whether it holds an `Option` of the value ([`Slots`]).
    optional: bool,
}

impl Slot {
    /// `let [mut] slot[: T];` (`Option<T>` when optional; `ty` the value's type, if the
    /// user wrote one).
    pub fn declare(&self, mutability: Option<Token![mut]>, ty: Option<&Type>) -> Stmt {
        let ident = &self.ident;
        let ty = ty.map(|ty| match self.optional {
            true => quote!(: ::core::option::Option<#ty>),
            false => quote!(: #ty),
        });
        syn::parse_quote!(let #mutability #ident #ty;)
    }

    /// `slot = value;`: the slot holds `value`. An optional slot's value is bound first
    /// (`let held = value; slot = Some(held);`): lowering decides a value's activity by
    /// what it computes (a block counting on tests of values gives a constant), which it
    /// does for a `let`'s value but not for a call's argument, so `Some(value)` alone
    /// could read as a differentiable value put in an enum.
    pub fn set(&self, value: impl ToTokens) -> Stmt {
        let ident = &self.ident;
        match self.optional {
            true => {
                let held = crate::syntax::fresh_local(format!("{ident}_held"));
                syn::parse_quote!({
                    let #held = #value;
                    #ident = ::core::option::Option::Some(#held);
                };)
            }
            false => syn::parse_quote!(#ident = #value;),
        }
    }

    /// `slot = option;` of an optional slot, which holds an `Option` of the value (`None`
    /// for one that holds the value itself: [`set`](Self::set) that).
    pub fn hold_option(&self, option: impl ToTokens) -> Option<Stmt> {
        let ident = &self.ident;
        self.optional.then(|| syn::parse_quote!(#ident = #option;))
    }

    /// The slot holds no value (its flag or tag says otherwise).
    pub fn unset(&self) -> Stmt {
        let ident = &self.ident;
        match self.optional {
            true => syn::parse_quote!(#ident = ::core::option::Option::None;),
            false => syn::parse_quote!(#ident = ::core::default::Default::default();),
        }
    }

    /// The value, read where the flag or tag says it is held.
    pub fn read(&self) -> Expr {
        let ident = &self.ident;
        match self.optional {
            true => syn::parse_quote!(#ident.unwrap()),
            false => syn::parse_quote!(#ident),
        }
    }
}
