//! What generated code of an option's combinators calls.

/// A value that `unwrap_or`, `map_or` and their kin read as an option: an `Option`, or a
/// `Result`, whose combinators are its `ok()`'s (the error dropped, as they drop it).
/// Generated code of `o.unwrap_or(d)` on a value the body does not build (a parameter, a
/// field) matches `into_option(o)`, which serves both.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is neither an `Option` nor a `Result`: #[differentiable] reads `unwrap_or`, `unwrap_or_else` and `map_or` with a differentiable argument as an option's",
    note = "compute the value into a local first, `let v = o.unwrap_or(d);` of constants, or call a #[differentiable] function"
)]
pub trait IntoOption {
    /// The value the option holds.
    type Value;
    /// The option.
    fn into_option(self) -> Option<Self::Value>;
}

impl<T> IntoOption for Option<T> {
    type Value = T;
    fn into_option(self) -> Option<T> {
        self
    }
}

impl<T, E> IntoOption for Result<T, E> {
    type Value = T;
    fn into_option(self) -> Option<T> {
        self.ok()
    }
}

/// `o` as an option ([`IntoOption`]).
///
/// ```
/// use gradtape_runtime::generated::into_option;
/// assert_eq!(into_option(Some(2.0)), Some(2.0));
/// assert_eq!(into_option(Err::<f64, &str>("missing")), None);
/// ```
pub fn into_option<O: IntoOption>(o: O) -> Option<O::Value> {
    o.into_option()
}

/// An `Option` result as the two numbers a `#[differentiable]` function with that result is
/// differentiated as (its hidden twin returns them): the value, or zero for `None`, and the
/// variant, `1` for `Some` and `-1` for `None` (a constant: its derivative is zero, so it
/// carries no gradient). Generated code tells the variant by the sign
/// ([`is_some_part`]), and a caller reads an option of constants, which it does not
/// differentiate, through this function (the same parts the twin gives).
///
/// ```
/// use gradtape_runtime::generated::{option_of_parts, option_parts};
/// assert_eq!(option_parts(Some(2.5_f64)), (2.5, 1.0));
/// assert_eq!(option_parts(None::<f32>), (0.0, -1.0));
/// assert_eq!(option_of_parts(option_parts(Some(2.5_f64))), Some(2.5));
/// assert_eq!(option_of_parts(option_parts(None::<f64>)), None);
/// ```
pub fn option_parts<F: num_traits::Float>(option: Option<F>) -> (F, F) {
    match option {
        Some(value) => (value, F::one()),
        None => (F::zero(), -F::one()),
    }
}

/// Whether the variant part of [`option_parts`] says `Some`.
///
/// ```
/// use gradtape_runtime::generated::is_some_part;
/// assert!(is_some_part(1.0_f64));
/// assert!(!is_some_part(-1.0_f32));
/// ```
pub fn is_some_part<F: num_traits::Float>(variant: F) -> bool {
    variant > F::zero()
}

/// The `Option` the parts of [`option_parts`] stand for: what the companion of a function
/// with an `Option` result returns from its twin's.
///
/// ```
/// use gradtape_runtime::generated::option_of_parts;
/// assert_eq!(option_of_parts((3.0_f64, 1.0)), Some(3.0));
/// assert_eq!(option_of_parts((0.0_f64, -1.0)), None);
/// ```
pub fn option_of_parts<F: num_traits::Float>((value, variant): (F, F)) -> Option<F> {
    is_some_part(variant).then_some(value)
}
