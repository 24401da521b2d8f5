//! What the code `#[differentiable]` generates for a struct parameter marked
//! `#[differentiable]` calls: the fields the body reads as floats and arrays are passed to
//! the generated functions as parameters of their own, through these checks, and their
//! gradients are added into a [`Differentiable::zero_like`] of the struct.
//!
//! The macro sees no types, so it takes a field for a float or an array by how the body
//! reads it; each check below is spanned at the field and turns a wrong guess into this
//! module's message, never into a gradient of the wrong thing.

use crate::base::dtype::Float;

/// A field the body reads as a float of the function's float type `F`.
#[diagnostic::on_unimplemented(
    message = "`#[differentiable]` reads this field of a differentiable struct parameter as a differentiable `{F}`, but it is a `{Self}`",
    label = "read as a `{F}` here",
    note = "a field read in arithmetic, or bound by a `let` with no type, is taken for a float of the function's float type",
    note = "an integer or other constant field: read it where only a constant can go (a range, an index, an `as` cast to an integer, a comparison, a `match` whose patterns bind nothing), or bind it with its integer type (`let n: usize = p.n;`)",
    note = "a struct field used whole (a method call on it, an argument): read its own fields instead"
)]
pub trait FloatField<F> {
    /// The field's value.
    fn float(&self) -> F;
    /// Adds `g` into the field (a gradient's).
    fn add(&mut self, g: F);
}

impl<F: Float> FloatField<F> for F {
    #[inline(always)]
    fn float(&self) -> F {
        *self
    }
    #[inline(always)]
    fn add(&mut self, g: F) {
        *self += g;
    }
}

/// The value of a field the body reads as a float: `float_field::<f64, _>(&p.mu)`.
///
/// ```
/// use gradtape_runtime::generated::float_field;
/// assert_eq!(float_field::<f64, _>(&2.5), 2.5);
/// ```
#[inline(always)]
pub fn float_field<F, V: FloatField<F> + ?Sized>(field: &V) -> F {
    field.float()
}

/// A field the body reads as an array of floats of the function's float type `F`.
#[diagnostic::on_unimplemented(
    message = "`#[differentiable]` reads this field of a differentiable struct parameter as an array of `{F}`, but it is a `{Self}`",
    label = "indexed or iterated as an array of `{F}` here",
    note = "a field indexed (`p.w[i]`), iterated (`p.w.iter()`) or borrowed whole (`&p.w`) is taken for a `Vec<{F}>`, `[{F}; N]` or `Box<[{F}]>`",
    note = "arrays of rows or of other structs as differentiable fields are not supported yet: mark the field `#[constant]` in its struct to read it as data"
)]
pub trait FloatArrayField<F> {
    /// The elements, in order.
    fn elements(&self) -> &[F];
    /// The elements, in order, to add a gradient into.
    fn elements_mut(&mut self) -> &mut [F];
}

impl<F: Float> FloatArrayField<F> for Vec<F> {
    #[inline(always)]
    fn elements(&self) -> &[F] {
        self
    }
    #[inline(always)]
    fn elements_mut(&mut self) -> &mut [F] {
        self
    }
}

impl<F: Float, const N: usize> FloatArrayField<F> for [F; N] {
    #[inline(always)]
    fn elements(&self) -> &[F] {
        self
    }
    #[inline(always)]
    fn elements_mut(&mut self) -> &mut [F] {
        self
    }
}

impl<F: Float> FloatArrayField<F> for Box<[F]> {
    #[inline(always)]
    fn elements(&self) -> &[F] {
        self
    }
    #[inline(always)]
    fn elements_mut(&mut self) -> &mut [F] {
        self
    }
}

/// The elements of a field the body reads as an array of floats.
///
/// ```
/// use gradtape_runtime::generated::float_array_field;
/// assert_eq!(float_array_field::<f64, _>(&vec![1.0, 2.0]), &[1.0, 2.0]);
/// ```
#[inline(always)]
pub fn float_array_field<F, V: FloatArrayField<F> + ?Sized>(field: &V) -> &[F] {
    field.elements()
}

/// The elements of a gradient's array field, to add into (`grad_into`'s buffers).
///
/// ```
/// use gradtape_runtime::generated::float_array_field_mut;
/// let mut w = [0.0_f64; 2];
/// float_array_field_mut::<f64, _>(&mut w)[1] = 3.0;
/// assert_eq!(w, [0.0, 3.0]);
/// ```
#[inline(always)]
pub fn float_array_field_mut<F, V: FloatArrayField<F> + ?Sized>(field: &mut V) -> &mut [F] {
    field.elements_mut()
}

/// Adds a float field's cotangent (`None`: no gradient reached it) into the gradient's field.
///
/// ```
/// use gradtape_runtime::generated::add_float_field;
/// let mut d = 1.0_f64;
/// add_float_field(&mut d, Some(2.0));
/// add_float_field(&mut d, None);
/// assert_eq!(d, 3.0);
/// ```
#[inline(always)]
pub fn add_float_field<F, V: FloatField<F> + ?Sized>(field: &mut V, cotangent: Option<F>) {
    if let Some(cotangent) = cotangent {
        field.add(cotangent);
    }
}

/// Adds an array field's cotangent (the same length) into the gradient's field.
///
/// ```
/// use gradtape_runtime::generated::add_float_array_field;
/// let mut d = vec![1.0_f64, 1.0];
/// add_float_array_field(&mut d, Some(vec![0.5, 2.0]));
/// assert_eq!(d, vec![1.5, 3.0]);
/// ```
#[inline]
pub fn add_float_array_field<F: Float, V: FloatArrayField<F> + ?Sized>(
    field: &mut V,
    cotangent: Option<Vec<F>>,
) {
    if let Some(cotangent) = cotangent {
        let elements = field.elements_mut();
        assert_eq!(
            elements.len(),
            cotangent.len(),
            "an array field's gradient has its length"
        );
        for (element, g) in elements.iter_mut().zip(cotangent) {
            *element += g;
        }
    }
}

/// A field the body reads as a float only through `as` (`p.n as f64`): taken for a
/// constant, which only a field of no float type is (an integer's cast has no gradient; a
/// float's would be lost).
#[diagnostic::on_unimplemented(
    message = "`#[differentiable]` reads this field of a differentiable struct parameter only through `as`, which it takes for an integer's cast, but it is a `{Self}`",
    label = "a float read only through `as`: its gradient would be lost",
    note = "read it as a float of the function's float type (`p.scale * x`) or bind it first (`let scale = p.scale;`), so that it is differentiated"
)]
pub trait ConstantField {}

macro_rules! constant_fields {
    ($($ty:ty),*) => { $(impl ConstantField for $ty {})* };
}
constant_fields!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, bool, char
);

/// Compiles only if the field is no float: the check for a field read only through `as`.
///
/// ```
/// use gradtape_runtime::generated::constant_field;
/// constant_field(&3_usize);
/// ```
///
/// ```compile_fail
/// use gradtape_runtime::generated::constant_field;
/// constant_field(&3.0_f32); // a float read only through `as`
/// ```
#[inline(always)]
pub fn constant_field<V: ConstantField + ?Sized>(_field: &V) {}
