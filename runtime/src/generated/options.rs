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
