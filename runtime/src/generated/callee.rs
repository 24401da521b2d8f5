//! Whether a function called from an annotated body is itself annotated.
//!
//! A proc macro sees one item, so a caller's generated code cannot know whether the
//! function it calls has companion items (`helper::vjp`, `helper::jvp_call`). It finds
//! out by name resolution: each call imports the callee under a fixed alias
//! (`use helper as gradtape_callee;`) beside a glob import of a fallback type of the same
//! alias ([`NotAnnotated`]). An explicit import shadows a glob, so the alias names the
//! callee's companion type when `#[differentiable]` made one, and the fallback type
//! otherwise; the fallback does not implement [`Annotated`], and [`annotated`] turns that
//! into this trait's message at the callee's name, instead of rustc's "cannot find module
//! or crate `helper`".

/// Implemented by the companion type `#[differentiable]` puts beside each annotated
/// function, and by nothing else.
///
/// ```
/// use gradtape_runtime::generated::{annotated, Annotated};
///
/// #[allow(non_camel_case_types)]
/// struct area {}
/// impl Annotated for area {}
///
/// annotated::<area>(); // compiles: `area` is a companion type
/// ```
#[diagnostic::on_unimplemented(
    message = "this function is called from a `#[differentiable]` body but is not annotated with `#[differentiable]`, so the caller cannot differentiate through it",
    label = "not annotated with `#[differentiable]`",
    note = "annotate the function with `#[differentiable]` (a helper generic over the float type can be annotated as it is)",
    note = "or, in scalar mode, if it is generic over `num_traits::Float`, name it in the caller's `#[differentiable(plain(..))]` to run it on dual numbers"
)]
pub trait Annotated {}

/// Implemented by no type: the bound of the fallback that a caller's generated code puts
/// in scope for an associated function it calls (`Spring::energy_of(k, x)` becomes
/// `Spring::energy_of_vjp(k, x)`). A type's inherent associated functions come before a
/// trait's in a path (`Type::f`), so an annotated `impl` block's companion items are
/// called when they exist, and otherwise the fallback, whose unmet bound is this
/// message, at the function's name, once for all of the call's generated uses.
///
/// ```compile_fail
/// use gradtape_runtime::generated::AnnotatedAssociated;
///
/// fn check<T: AnnotatedAssociated>() {}
/// check::<f64>(); // error: not annotated with `#[differentiable]`
/// ```
#[diagnostic::on_unimplemented(
    message = "this associated function is called from a `#[differentiable]` body but has no companion items: it is not annotated, or its `impl` block is not",
    label = "not annotated with `#[differentiable]`, in an `impl` block annotated too",
    note = "annotate the function with `#[differentiable]`, and its `impl` block as well: the block's attribute puts the companion items (`f_vjp`, `f_grad`, ...) beside it"
)]
pub trait AnnotatedAssociated {}

/// Implemented by no type: the bound of the fallback that a caller's generated code puts
/// in scope for a method it calls on a struct deriving `Differentiable` (`self.rest()` becomes
/// `self.rest_vjp()`). A type's inherent methods come before a trait's at each step of
/// method lookup, so an annotated `impl` block's companion methods are called when they
/// exist, and otherwise the fallback, whose unmet bound is this message, at the method's
/// name (rustc's own answer was E0599, "no method named `rest_vjp`", once per generated
/// function).
///
/// ```compile_fail
/// use gradtape_runtime::generated::AnnotatedMethod;
///
/// fn check<T: AnnotatedMethod>() {}
/// check::<f64>(); // error: not annotated with `#[differentiable]`
/// ```
#[diagnostic::on_unimplemented(
    message = "this method of a struct deriving `Differentiable` is called from a `#[differentiable]` body but has no companion items: it is not annotated, or its `impl` block is not",
    label = "not annotated with `#[differentiable]`, in an `impl` block annotated too",
    note = "annotate the method with `#[differentiable]` (marking `self` `#[differentiable]` if it reads the receiver's differentiable fields), and its `impl` block as well: the block's attribute puts the companion items (`f_vjp`, `f_grad`, ...) beside it"
)]
pub trait AnnotatedMethod {
    /// The fallback's result type: a projection of the unmet bound is rustc's error type,
    /// so nothing the call's result flows into is checked further (no second error).
    type Never;
}

/// Implemented by every struct that derives `Differentiable` (by the derive, for the
/// struct itself: not for a `Box` or a reference of it), and by nothing else: the types
/// the [`AnnotatedMethod`] fallback is for.
///
/// Why not every type, so that a method that is not annotated on any receiver (a
/// configuration struct deriving nothing, `spring.energy(x)` of `spring: &Spring`) is the
/// fallback's message rather than rustc's E0599 ("the method `energy_vjp` exists for
/// reference `&Spring`, but its trait bounds were not satisfied", once per generated
/// function): method lookup tries the receiver's type by value, then `&`, then `&mut`,
/// and only then dereferences it and tries again; an inherent method comes first only
/// among the candidates of one step. A fallback (`&mut self`) for every type is a
/// candidate at the receiver's own type, so wherever the annotated method is reached only
/// through a dereference it is chosen before the method, and a valid call is the
/// fallback's error: a receiver `Box<S>`, `Rc<S>`, `&&S`, `&Box<S>` or `&mut S` (checked
/// with a blanket fallback: each of these resolves to it; `S` and `&S` to the method).
/// Lookup filters candidates by their impl's bounds only (the fallback method's own
/// `where` clause is the error, checked after it is chosen), and no bound holds of
/// exactly the types that dereference no further (that needs negative bounds or
/// specialization); a bound the user's own types must implement is one only a derive or
/// an attribute on the type can write, which this one is. The macro sees no types to
/// write one per call either: a receiver's spelled parameter type may be an alias of a
/// `Box`, and a local's or a field's type is not spelled at all.
///
/// ```
/// use gradtape_runtime::generated::DerivedStruct;
///
/// struct Spring;
/// impl DerivedStruct for Spring {} // as `#[derive(Differentiable)]` writes it
///
/// fn derived<T: DerivedStruct>() {}
/// derived::<Spring>();
/// ```
pub trait DerivedStruct {}

/// Compiles only if `T` is an annotated function's companion type: the check a caller's
/// generated code makes, spanned at the callee's name, before it calls the callee's
/// companion items. It does nothing at run time.
///
/// ```compile_fail
/// use gradtape_runtime::generated::annotated;
///
/// struct NotACompanion;
/// annotated::<NotACompanion>(); // error: not annotated with `#[differentiable]`
/// ```
#[inline(always)]
pub fn annotated<T: Annotated + ?Sized>() {}

/// [`Annotated`] where the caller runs on plain numbers (scalar mode), where a helper that
/// is not annotated may also be named in `plain(..)` (a generic one runs on dual numbers):
/// implemented by the same companion types, its message names both ways out.
///
/// ```
/// use gradtape_runtime::generated::{annotated_on_numbers, AnnotatedOnNumbers};
///
/// #[allow(non_camel_case_types)]
/// struct area {}
/// impl AnnotatedOnNumbers for area {}
///
/// annotated_on_numbers::<area>(); // compiles: `area` is a companion type
/// ```
#[diagnostic::on_unimplemented(
    message = "this function is called from a `#[differentiable]` body on plain numbers but is neither annotated with `#[differentiable]` nor named in `plain(..)`, so the caller cannot differentiate through it",
    label = "neither annotated with `#[differentiable]` nor named in `plain(..)`",
    note = "annotate the function with `#[differentiable]` (a helper generic over the float type can be annotated as it is)",
    note = "or, if it is generic over `num_traits::Float`, name it in the caller's `#[differentiable(plain(..))]` to run it on dual numbers"
)]
pub trait AnnotatedOnNumbers {}

/// [`annotated`] in scalar mode: compiles only if `T` is an annotated function's companion
/// type, else [`AnnotatedOnNumbers`]' message at the callee's name.
///
/// ```compile_fail
/// use gradtape_runtime::generated::annotated_on_numbers;
///
/// struct NotACompanion;
/// annotated_on_numbers::<NotACompanion>(); // error: neither annotated nor named in `plain(..)`
/// ```
#[inline(always)]
pub fn annotated_on_numbers<T: AnnotatedOnNumbers + ?Sized>() {}

/// `callee!(arity; path)`: imports `path` as `gradtape_callee`, beside a glob import of
/// [`NotAnnotated<arity>`](NotAnnotated) under the same name, which the explicit import
/// shadows when `path` has a companion type (see the module docs). A statement of the
/// caller's generated code, before its [`annotated`] check and its call; the path is tokens
/// (`util::norm`), since a `path` fragment cannot be imported.
///
/// ```
/// use gradtape_runtime::generated::{self, annotated, Annotated};
///
/// #[allow(non_camel_case_types)]
/// struct area {}
/// impl Annotated for area {}
/// fn area(w: f64, h: f64) -> f64 {
///     w * h
/// }
///
/// generated::callee!(2; area);
/// annotated::<gradtape_callee>(); // the companion type
/// assert_eq!(gradtape_callee(2.0, 3.0), 6.0); // the function itself
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __generated_callee {
    ($arity:literal; $($path:tt)+) => {
        #[allow(unused_imports)]
        use $($path)+ as gradtape_callee;
        #[allow(unused_imports)]
        use gradtape_fallback::*;
        #[allow(non_camel_case_types, dead_code)]
        mod gradtape_fallback {
            pub type gradtape_callee = $crate::generated::NotAnnotated<$arity>;
        }
    };
}

pub use __generated_callee as callee;

/// The type a caller's generated code names in place of a callee that is not annotated
/// (see the module docs), with companion items of the call's arity (`ARGUMENTS`
/// arguments; `jvp_call` one more, the tangents) so that the failed check is the only
/// error. Every use goes with a failing [`annotated`] check, so no program that compiles
/// calls them.
///
/// ```compile_fail
/// use gradtape_runtime::generated::{annotated, NotAnnotated};
///
/// annotated::<NotAnnotated<1>>(); // error: not annotated with `#[differentiable]`
/// ```
pub struct NotAnnotated<const ARGUMENTS: usize>;

/// `NotAnnotated<N>`'s companion items for each arity `N` up to 16.
macro_rules! not_annotated_items {
    ($($arity:literal: ($($argument:ident),*);)*) => {$(
        impl NotAnnotated<$arity> {
            /// Never called: see [`NotAnnotated`].
            #[allow(clippy::too_many_arguments)]
            pub fn vjp<$($argument),*>($(_: $argument),*) -> ! {
                unreachable!("a call of a function that is not annotated does not compile")
            }

            /// Never called: see [`NotAnnotated`].
            #[allow(clippy::too_many_arguments)]
            pub fn vjp_partial<$($argument),*>($(_: $argument),*) -> ! {
                unreachable!("a call of a function that is not annotated does not compile")
            }

            /// Never called: see [`NotAnnotated`].
            #[allow(clippy::too_many_arguments)]
            pub fn jvp_call<$($argument,)* Tangents>($(_: $argument,)* _: Tangents) -> ! {
                unreachable!("a call of a function that is not annotated does not compile")
            }

            /// Never called: see [`NotAnnotated`].
            #[allow(clippy::too_many_arguments)]
            pub fn vjp_now<$($argument,)* Cotangent>($(_: $argument,)* _: Cotangent) -> ! {
                unreachable!("a call of a function that is not annotated does not compile")
            }

            /// Never called: see [`NotAnnotated`].
            #[allow(clippy::too_many_arguments)]
            pub fn vjp_into<$($argument,)* Cotangent, Sinks>($(_: $argument,)* _: Cotangent, _: Sinks) -> ! {
                unreachable!("a call of a function that is not annotated does not compile")
            }

            /// Never read: see [`NotAnnotated`].
            pub const SPLITS: bool = false;

            /// Never called: see [`NotAnnotated`].
            #[allow(clippy::too_many_arguments)]
            pub fn vjp_split<$($argument),*>($(_: $argument),*) -> ! {
                unreachable!("a call of a function that is not annotated does not compile")
            }

            /// Never called: see [`NotAnnotated`] (an array result's writer, as the caller
            /// of a function with an array result calls it).
            #[allow(clippy::too_many_arguments)]
            pub fn __gradtape_write<$($argument),*>($(_: $argument),*) -> ! {
                unreachable!("a call of a function that is not annotated does not compile")
            }

            /// Never called: see [`NotAnnotated`].
            #[allow(clippy::too_many_arguments)]
            pub fn __gradtape_write_vjp<$($argument),*>($(_: $argument),*) -> ! {
                unreachable!("a call of a function that is not annotated does not compile")
            }

            /// Never called: see [`NotAnnotated`].
            #[allow(clippy::too_many_arguments)]
            pub fn __gradtape_write_vjp_partial<$($argument),*>($(_: $argument),*) -> ! {
                unreachable!("a call of a function that is not annotated does not compile")
            }

            /// Never called: see [`NotAnnotated`].
            #[allow(clippy::too_many_arguments)]
            pub fn __gradtape_write_jvp_call<$($argument,)* Tangents>($(_: $argument,)* _: Tangents) -> ! {
                unreachable!("a call of a function that is not annotated does not compile")
            }

            /// Never called: see [`NotAnnotated`].
            #[allow(clippy::too_many_arguments)]
            pub fn __gradtape_write_vjp_now<$($argument,)* Cotangent>($(_: $argument,)* _: Cotangent) -> ! {
                unreachable!("a call of a function that is not annotated does not compile")
            }

            /// Never called: see [`NotAnnotated`].
            #[allow(clippy::too_many_arguments)]
            pub fn __gradtape_write_vjp_into<$($argument,)* Cotangent, Sinks>($(_: $argument,)* _: Cotangent, _: Sinks) -> ! {
                unreachable!("a call of a function that is not annotated does not compile")
            }

            /// Never called: see [`NotAnnotated`] (an `Option` result's twin, as the caller
            /// of a function with an `Option` result calls it).
            #[allow(clippy::too_many_arguments)]
            pub fn __gradtape_option<$($argument),*>($(_: $argument),*) -> ! {
                unreachable!("a call of a function that is not annotated does not compile")
            }

            /// Never called: see [`NotAnnotated`].
            #[allow(clippy::too_many_arguments)]
            pub fn __gradtape_option_vjp<$($argument),*>($(_: $argument),*) -> ! {
                unreachable!("a call of a function that is not annotated does not compile")
            }

            /// Never called: see [`NotAnnotated`].
            #[allow(clippy::too_many_arguments)]
            pub fn __gradtape_option_vjp_partial<$($argument),*>($(_: $argument),*) -> ! {
                unreachable!("a call of a function that is not annotated does not compile")
            }

            /// Never called: see [`NotAnnotated`].
            #[allow(clippy::too_many_arguments)]
            pub fn __gradtape_option_jvp_call<$($argument,)* Tangents>($(_: $argument,)* _: Tangents) -> ! {
                unreachable!("a call of a function that is not annotated does not compile")
            }

            /// Never called: see [`NotAnnotated`].
            #[allow(clippy::too_many_arguments)]
            pub fn __gradtape_option_vjp_now<$($argument,)* Cotangent>($(_: $argument,)* _: Cotangent) -> ! {
                unreachable!("a call of a function that is not annotated does not compile")
            }

            /// Never called: see [`NotAnnotated`].
            #[allow(clippy::too_many_arguments)]
            pub fn __gradtape_option_vjp_into<$($argument,)* Cotangent, Sinks>($(_: $argument,)* _: Cotangent, _: Sinks) -> ! {
                unreachable!("a call of a function that is not annotated does not compile")
            }
        }
    )*};
}

not_annotated_items! {
    0: ();
    1: (A0);
    2: (A0, A1);
    3: (A0, A1, A2);
    4: (A0, A1, A2, A3);
    5: (A0, A1, A2, A3, A4);
    6: (A0, A1, A2, A3, A4, A5);
    7: (A0, A1, A2, A3, A4, A5, A6);
    8: (A0, A1, A2, A3, A4, A5, A6, A7);
    9: (A0, A1, A2, A3, A4, A5, A6, A7, A8);
    10: (A0, A1, A2, A3, A4, A5, A6, A7, A8, A9);
    11: (A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10);
    12: (A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11);
    13: (A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12);
    14: (A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13);
    15: (A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14);
    16: (A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15);
}
