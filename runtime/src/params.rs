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
///     fn accumulate(&mut self, gradient: &Self) {
///         self.w.accumulate(&gradient.w);
///         self.b.accumulate(&gradient.b);
///     }
/// }
///
/// let line = Line { w: vec![2.0, 3.0], b: 1.0, name: "fit".into() };
/// let mut sum = line.zero_like();
/// assert_eq!((&sum.w, sum.b, sum.name.as_str()), (&vec![0.0, 0.0], 0.0, "fit"));
/// sum.accumulate(&line);
/// sum.accumulate(&line);
/// assert_eq!((sum.w, sum.b), (vec![4.0, 6.0], 2.0));
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

    /// Adds `gradient`, a gradient of the same shape, into `self`: floats added, arrays
    /// element by element, constant fields left as they are. How the gradients that reach
    /// one struct by several paths (a field read, the struct passed on to another
    /// annotated function) are summed.
    ///
    /// # Panics
    ///
    /// If an array of `gradient` has another length than `self`'s (a gradient of another
    /// value), naming both lengths.
    ///
    /// ```
    /// use gradtape_runtime::Differentiable;
    /// let mut sum = vec![1.0_f64, 2.0];
    /// sum.accumulate(&vec![0.5, -1.0]);
    /// assert_eq!(sum, vec![1.5, 1.0]);
    /// ```
    fn accumulate(&mut self, gradient: &Self);
}

impl Differentiable for f32 {
    #[inline]
    fn zero_like(&self) -> Self {
        0.0
    }
    #[inline]
    fn accumulate(&mut self, gradient: &Self) {
        *self += *gradient;
    }
}

impl Differentiable for f64 {
    #[inline]
    fn zero_like(&self) -> Self {
        0.0
    }
    #[inline]
    fn accumulate(&mut self, gradient: &Self) {
        *self += *gradient;
    }
}

/// Element by element, after checking the lengths agree.
#[track_caller]
fn accumulate_elements<T: Differentiable>(sum: &mut [T], gradient: &[T]) {
    assert_eq!(
        sum.len(),
        gradient.len(),
        "Differentiable::accumulate: a gradient of {} elements added into an array of {}",
        gradient.len(),
        sum.len()
    );
    for (sum, g) in sum.iter_mut().zip(gradient) {
        sum.accumulate(g);
    }
}

impl<T: Differentiable> Differentiable for Vec<T> {
    fn zero_like(&self) -> Self {
        self.iter().map(Differentiable::zero_like).collect()
    }
    #[track_caller]
    fn accumulate(&mut self, gradient: &Self) {
        accumulate_elements(self, gradient);
    }
}

impl<T: Differentiable, const N: usize> Differentiable for [T; N] {
    fn zero_like(&self) -> Self {
        std::array::from_fn(|i| self[i].zero_like())
    }
    fn accumulate(&mut self, gradient: &Self) {
        accumulate_elements(self, gradient);
    }
}

impl<T: Differentiable> Differentiable for Box<T> {
    fn zero_like(&self) -> Self {
        Box::new((**self).zero_like())
    }
    #[track_caller]
    fn accumulate(&mut self, gradient: &Self) {
        (**self).accumulate(gradient);
    }
}

impl<T: Differentiable> Differentiable for Option<T> {
    fn zero_like(&self) -> Self {
        self.as_ref().map(Differentiable::zero_like)
    }
    /// # Panics
    ///
    /// If one of the two is `None` and the other is not (gradients of different shapes).
    #[track_caller]
    fn accumulate(&mut self, gradient: &Self) {
        match (self, gradient) {
            (Some(sum), Some(g)) => sum.accumulate(g),
            (None, None) => {}
            (sum, _) => panic!(
                "Differentiable::accumulate: a gradient {} added into an `Option` that is {}",
                if gradient.is_some() {
                    "`Some`"
                } else {
                    "`None`"
                },
                if sum.is_some() { "`Some`" } else { "`None`" },
            ),
        }
    }
}

/// The type of a struct's field, named by a hash of the field's name (its text, `"w"`,
/// or a tuple struct's index, `"0"`): `#[derive(Differentiable)]` implements it for every
/// field, so that code `#[differentiable]` generates can name the type of a field it
/// passes whole to another annotated function (`dense(&model.hidden, x)`) without seeing
/// the struct. Not for users' code: the hash is the macro's.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not name its fields' types for `#[differentiable]`",
    label = "a field of this struct is passed whole to another annotated function",
    note = "derive `Differentiable` on the struct (`#[derive(Differentiable)]`): the derive names each field's type, which the generated code needs to pass a field on whole"
)]
pub trait FieldType<const FIELD: u64> {
    /// The field's type.
    type Type: ?Sized;
}
