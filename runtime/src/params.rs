//! Structs of floats as differentiable parameters of `#[differentiable]` functions.
//!
//! A parameter set (`struct Gaussian { mu: f64, log_sigma: f64 }`) or a model of plain
//! floats (`struct Line { w: Vec<f64>, b: f64 }`) is handed to an annotated function whole,
//! its parameter marked `#[differentiable]`, and its gradient comes back as a value of the
//! same struct: every float field holds its partial derivative, every array its gradient of
//! the same length. [`Differentiable`] builds that struct's zero, the gradient's starting
//! point; `#[derive(Differentiable)]` writes it.

/// A value whose floats are differentiable parameters, and whose gradient is a value of the
/// same type: [`zero_like`](Differentiable::zero_like) gives the zero gradient, every float 0
/// and every array of the same length.
///
/// Implemented for `f32`, `f64`, and `Vec`s, arrays, `Box`es and `Option`s of such values;
/// `#[derive(Differentiable)]` implements it for a struct, field by field. A field of an
/// integer, `bool`, `char` or `String` type, or one marked `#[constant]`, is a constant: the
/// gradient holds a clone of it (no gradient reaches it).
///
/// The derive, and annotated functions taking such structs, are in the `gradtape` crate
/// (its guide's "Structs of floats" section). By hand, for a struct of one float and one
/// array:
///
/// ```
/// use gradtape_runtime::Differentiable;
///
/// struct Line {
///     w: Vec<f64>,
///     b: f64,
///     name: String, // a constant: the gradient holds a copy
/// }
///
/// impl Differentiable for Line {
///     fn zero_like(&self) -> Self {
///         Line { w: self.w.zero_like(), b: self.b.zero_like(), name: self.name.clone() }
///     }
/// }
///
/// let zero = Line { w: vec![2.0, 3.0], b: 1.0, name: "fit".into() }.zero_like();
/// assert_eq!((zero.w, zero.b, zero.name.as_str()), (vec![0.0, 0.0], 0.0, "fit"));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not `Differentiable`: a parameter marked `#[differentiable]` needs a struct of floats that is",
    label = "not `Differentiable`",
    note = "derive it on the struct (`#[derive(Differentiable)]`), which needs every field that is not a constant to be `Differentiable` too (`f32`, `f64`, `Vec`s and arrays of them, nested derived structs)"
)]
pub trait Differentiable {
    /// The zero gradient of `self`'s shape: floats 0, arrays of the same lengths, constant
    /// fields cloned.
    ///
    /// ```
    /// use gradtape_runtime::Differentiable;
    /// assert_eq!(vec![1.5_f64, -2.0].zero_like(), vec![0.0, 0.0]);
    /// assert_eq!(Some([3.0_f32; 2]).zero_like(), Some([0.0; 2]));
    /// ```
    #[must_use]
    fn zero_like(&self) -> Self;
}

impl Differentiable for f32 {
    #[inline]
    fn zero_like(&self) -> Self {
        0.0
    }
}

impl Differentiable for f64 {
    #[inline]
    fn zero_like(&self) -> Self {
        0.0
    }
}

impl<T: Differentiable> Differentiable for Vec<T> {
    fn zero_like(&self) -> Self {
        self.iter().map(Differentiable::zero_like).collect()
    }
}

impl<T: Differentiable, const N: usize> Differentiable for [T; N] {
    fn zero_like(&self) -> Self {
        std::array::from_fn(|i| self[i].zero_like())
    }
}

impl<T: Differentiable> Differentiable for Box<T> {
    fn zero_like(&self) -> Self {
        Box::new((**self).zero_like())
    }
}

impl<T: Differentiable> Differentiable for Option<T> {
    fn zero_like(&self) -> Self {
        self.as_ref().map(Differentiable::zero_like)
    }
}
