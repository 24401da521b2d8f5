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

/// A field of a struct result (`results` in the macro): the function's twin returns the
/// fields as a tuple of its float type `F`, so each must be one. The twin and the
/// companion convert each field through [`result_field`]'s conversions, made once per
/// generated function and spanned at the field, so that a field of another type is this
/// message there (the same diagnostic at each, which rustc reports once) and no other
/// error.
#[diagnostic::on_unimplemented(
    message = "`#[differentiable]` returns this field of a struct result as a differentiable `{F}`, but it is a `{Self}`",
    label = "returned as a `{F}` here",
    note = "a struct result's fields are floats of the function's float type, the tuple of which is differentiated: its first float (or float array) parameter's, else its float type parameter, else the struct's own (its first field's type; `f64` for a method)",
    note = "a float of another type: take a parameter of that type, or make the function generic over it (`fn f<T: Float>(..)`)",
    note = "an integer or other constant: return it beside the floats some other way (a second function), or make the field a float"
)]
pub trait ResultField<F>: Sized {
    /// The field from the twin's part (a value or a tangent).
    ///
    /// ```
    /// use gradtape_runtime::generated::ResultField;
    /// let x: f64 = ResultField::<f64>::from_float(2.5);
    /// assert_eq!(x, 2.5);
    /// ```
    fn from_float(part: F) -> Self;
    /// The part of the twin's cotangent from the field's.
    fn to_float(self) -> F;
}

// (no `Float` bound: the twin's own item keeps the user's bounds, `T: num_traits::Float`)
impl<F> ResultField<F> for F {
    #[inline(always)]
    fn from_float(part: F) -> F {
        part
    }
    #[inline(always)]
    fn to_float(self) -> F {
        self
    }
}

/// The conversions of one struct result field of type `V` ([`ResultField`]), made by
/// [`result_field`]: no bound of their own, so that a field of another type is the one
/// error at `result_field`'s call.
pub struct ResultConversion<F, V> {
    from: fn(F) -> V,
    to: fn(V) -> F,
}

impl<F, V> ResultConversion<F, V> {
    /// The field from the twin's part (a value or a tangent).
    #[inline(always)]
    pub fn from_float(&self, part: F) -> V {
        (self.from)(part)
    }
    /// The twin's part (a value, or a cotangent) from the field.
    #[inline(always)]
    pub fn to_float(&self, field: V) -> F {
        (self.to)(field)
    }
    /// [`to_float`](Self::to_float) of a field whose value is the same field of a marked
    /// parameter of the result's own struct type, read as it is (`Mixed { v: s.v, .. }`,
    /// `s: &Mixed`): a name of its own, so that the marked parameter's pass (`params` in
    /// the macro) checks that read through [`result_field`] too, at this field, rather
    /// than through [`FloatField`] at the read. The two checks hold for the same types
    /// (`V` is the function's float type `F`, a float, for either) and the field's and the
    /// read's types are one, so a field of another type is one message (the result's, the
    /// same at every place it is made, which rustc reports once), not one more at the read.
    #[inline(always)]
    pub fn read_to_float(&self, field: V) -> F {
        (self.to)(field)
    }
    /// [`read_to_float`](Self::read_to_float) where the macro casts a differentiable
    /// value first ([`cast_to_float`](Self::cast_to_float)).
    #[inline(always)]
    pub fn read_cast_to_float(&self, field: V) -> F {
        (self.to)(field)
    }
    /// Adds a cotangent of the twin's part (`None`: none reached it) into the field (a
    /// marked parameter's gradient), its read's check made through the result's
    /// conversion ([`read_to_float`](Self::read_to_float)).
    ///
    /// ```
    /// use gradtape_runtime::generated::result_field;
    /// let mut d = 1.0_f64;
    /// result_field::<f64, f64>().add_to(&mut d, Some(2.0));
    /// assert_eq!(d, 3.0);
    /// ```
    #[inline(always)]
    pub fn add_to(&self, field: &mut V, cotangent: Option<F>)
    where
        F: core::ops::Add<Output = F>,
        V: Copy,
    {
        if let Some(cotangent) = cotangent {
            *field = (self.from)((self.to)(*field) + cotangent);
        }
    }
    /// [`to_float`](Self::to_float) in a method's twin: there the macro casts a
    /// differentiable value to `F` (`as F`) before it, and only a constant reaches this.
    #[inline(always)]
    pub fn cast_to_float(&self, field: V) -> F {
        (self.to)(field)
    }
}

/// A struct result field's conversions, checking at compile time that the field (of type
/// `V`) is a float of the function's float type `F`.
///
/// ```
/// use gradtape_runtime::generated::result_field;
/// let conversion = result_field::<f64, f64>();
/// assert_eq!(conversion.to_float(conversion.from_float(2.5)), 2.5);
/// ```
#[inline(always)]
pub fn result_field<F, V: ResultField<F>>() -> ResultConversion<F, V> {
    ResultConversion {
        from: V::from_float,
        to: V::to_float,
    }
}

/// A struct result field's cotangent as its twin's part takes it: `None` for a zero. A
/// struct's cotangent is a value of the struct, built from a zero of it
/// (`Differentiable::zero_like`) with the cotangents of the fields that got one, so a
/// zero field is one that got none (a caller read only `s.v`): passing it on as a zero
/// would meet the field's partials, and `0 · ∞` is NaN where one is infinite (`√y₀` at
/// `y₀ = 0`), where the tape adds nothing for an output no target depends on. (A field
/// read whose cotangent is exactly zero, `s.root * 0.0`, is none too: `0` for the
/// derivative of the zero function, where a tape would multiply through to NaN.)
///
/// ```
/// use gradtape_runtime::generated::field_cotangent;
/// assert_eq!(field_cotangent(2.5_f64), Some(2.5));
/// assert_eq!(field_cotangent(0.0_f64), None);
/// assert_eq!(field_cotangent(-0.0_f32), None);
/// ```
#[inline(always)]
pub fn field_cotangent<F: num_traits::Zero>(g: F) -> Option<F> {
    (!g.is_zero()).then_some(g)
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

/// The cotangent a callee's pullback gives for a struct (or a whole field) passed on to it,
/// added into the caller's slot of that value (`None`: nothing reached it yet). A value of
/// the same type is added with [`Differentiable::accumulate`]; an array field passed to a
/// slice parameter (`&[F]`) gets a `Vec<F>` of its length.
///
/// [`Differentiable::accumulate`]: crate::Differentiable::accumulate
#[diagnostic::on_unimplemented(
    message = "a `{Self}` cotangent cannot be added into a `{S}` passed on to another annotated function",
    label = "passed whole here",
    note = "a differentiable struct, or a field of one, passed whole to another `#[differentiable]` function takes the gradient of that function's parameter: it must be the same type (or an array passed to a slice parameter)"
)]
pub trait WholeCotangent<S> {
    /// Adds `self` into `slot`.
    fn add_into(self, slot: &mut Option<S>);
}

impl<S: crate::Differentiable> WholeCotangent<S> for S {
    #[inline]
    fn add_into(self, slot: &mut Option<S>) {
        match slot {
            Some(sum) => sum.accumulate(&self),
            None => *slot = Some(self),
        }
    }
}

// A field `Box<S>` passed on where the callee takes `&S` (`dense(&m.sub, x)`, `m.sub.
// forward(x)`: deref coercion and autoderef reach `S`): the callee's cotangent is an `S`,
// added inside the slot's box. (No overlap with the impl above: `S` is never `Box<S>`.)
impl<S: crate::Differentiable> WholeCotangent<Box<S>> for S {
    #[inline]
    fn add_into(self, slot: &mut Option<Box<S>>) {
        match slot {
            Some(sum) => sum.accumulate(&self),
            None => *slot = Some(Box::new(self)),
        }
    }
}

impl<F: Float + crate::Differentiable, const N: usize> WholeCotangent<[F; N]> for Vec<F> {
    #[track_caller]
    fn add_into(self, slot: &mut Option<[F; N]>) {
        let len = self.len();
        let array: [F; N] = self
            .try_into()
            .unwrap_or_else(|_| panic!("a slice's gradient of {len} elements for an array of {N}"));
        array.add_into(slot);
    }
}

/// A callee's pullback entry for an argument that is a struct passed on whole: `Option` of
/// its cotangent. A callee that holds that parameter constant gives `()`, which has no
/// impl: its message says to mark the parameter.
#[diagnostic::on_unimplemented(
    message = "a differentiable struct is passed whole here, but the called function gives no gradient for it (`{Self}`)",
    label = "passed whole to a parameter the callee holds constant",
    note = "mark the callee's parameter `#[differentiable]` (or its `self`: `fn forward(#[differentiable] &self, ..)`), so that it gives the struct's gradient; otherwise the gradient through this call would be lost"
)]
pub trait WholeEntry<S> {
    /// Adds the entry's cotangent, if any, into `slot`.
    fn add_into(self, slot: &mut Option<S>);
}

impl<S, G: WholeCotangent<S>> WholeEntry<S> for Option<G> {
    #[inline]
    #[track_caller]
    fn add_into(self, slot: &mut Option<S>) {
        if let Some(cotangent) = self {
            cotangent.add_into(slot);
        }
    }
}

/// Adds a callee's cotangent for a struct passed on whole (`None`: a symbolic zero) into
/// the caller's slot of it.
///
/// ```
/// use gradtape_runtime::generated::accumulate_whole;
/// let mut slot: Option<[f64; 2]> = None;
/// accumulate_whole(&mut slot, Some(vec![1.0, 2.0]));
/// accumulate_whole(&mut slot, Some([0.5, 0.5]));
/// accumulate_whole(&mut slot, None::<[f64; 2]>);
/// assert_eq!(slot, Some([1.5, 2.5]));
/// // a boxed field's slot takes the callee's cotangent of its content
/// let mut boxed: Option<Box<[f64; 2]>> = None;
/// accumulate_whole(&mut boxed, Some([1.0, 2.0]));
/// accumulate_whole(&mut boxed, Some([0.5, 0.5]));
/// assert_eq!(boxed, Some(Box::new([1.5, 2.5])));
/// ```
#[inline]
#[track_caller]
pub fn accumulate_whole<S, E: WholeEntry<S>>(slot: &mut Option<S>, entry: E) {
    entry.add_into(slot);
}

/// A whole value's gradient, or its zero when nothing reached it (a struct's `grad`).
///
/// ```
/// use gradtape_runtime::generated::whole_or_zero;
/// assert_eq!(whole_or_zero(None, &vec![3.0_f64, 4.0]), vec![0.0, 0.0]);
/// assert_eq!(whole_or_zero(Some(1.5), &2.0_f64), 1.5);
/// ```
#[inline]
pub fn whole_or_zero<S: crate::Differentiable>(gradient: Option<S>, like: &S) -> S {
    gradient.unwrap_or_else(|| like.zero_like())
}

/// Adds a whole value's gradient (`None`: none reached it) into a caller's buffer
/// (`grad_into`).
///
/// ```
/// use gradtape_runtime::generated::add_whole;
/// let mut d = [1.0_f64, 1.0];
/// add_whole(&mut d, Some([0.5, 2.0]));
/// add_whole(&mut d, None);
/// assert_eq!(d, [1.5, 3.0]);
/// ```
#[inline]
#[track_caller]
pub fn add_whole<S: crate::Differentiable>(buffer: &mut S, gradient: Option<S>) {
    if let Some(gradient) = gradient {
        buffer.accumulate(&gradient);
    }
}

/// The tangent a caller passes for a struct parameter of another annotated function's
/// `jvp_call`: the struct's tangent (`&S`, or `S` for a struct the caller holds as one
/// value, a call's struct result), or [`NoTangent`](super::NoTangent) for a struct the
/// caller holds constant.
///
/// ```
/// use gradtape_runtime::generated::{NoTangent, TangentStruct};
/// let t = [1.0_f64, 2.0];
/// assert_eq!(TangentStruct::<[f64; 2]>::get(&&t), Some(&t));
/// assert_eq!(TangentStruct::<[f64; 2]>::get(&t), Some(&t));
/// assert_eq!(TangentStruct::<[f64; 2]>::get(&NoTangent), None);
/// // a boxed field passed on to a callee taking the box's content
/// let boxed = Box::new(t);
/// assert_eq!(TangentStruct::<[f64; 2]>::get(&&boxed), Some(&t));
/// ```
pub trait TangentStruct<S> {
    /// The tangent, `None` for a constant (zero).
    fn get(&self) -> Option<&S>;
}

impl<S> TangentStruct<S> for &S {
    #[inline]
    fn get(&self) -> Option<&S> {
        Some(self)
    }
}

// A field `Box<S>` passed on to a callee taking `&S`: the tangent is the box's content.
impl<S> TangentStruct<S> for &Box<S> {
    #[inline]
    fn get(&self) -> Option<&S> {
        Some(self)
    }
}

// A struct held whole by the caller (a call's struct result, `let s = step(..);`): its
// tangent is a value of the struct, passed by value as a float's is.
impl<S: crate::Differentiable> TangentStruct<S> for S {
    #[inline]
    fn get(&self) -> Option<&S> {
        Some(self)
    }
}

impl<S> TangentStruct<S> for super::NoTangent {
    #[inline]
    fn get(&self) -> Option<&S> {
        None
    }
}

/// A struct's tangent from a `jvp_call` entry: the caller's (`&S`), or for
/// [`NoTangent`](super::NoTangent) the zero `zero_like` builds (of the struct's shape),
/// kept in `zero`.
///
/// ```
/// use gradtape_runtime::Differentiable;
/// use gradtape_runtime::generated::{NoTangent, struct_tangent};
/// let like = vec![1.0_f64, 2.0];
/// let given = vec![0.5, 0.5];
/// let mut zero = None;
/// assert_eq!(struct_tangent(&&given, &mut zero, || like.zero_like()), &given);
/// let mut zero = None;
/// assert_eq!(struct_tangent(&NoTangent, &mut zero, || like.zero_like()), &vec![0.0, 0.0]);
/// ```
#[inline]
pub fn struct_tangent<'a, S, T: TangentStruct<S>>(
    entry: &'a T,
    zero: &'a mut Option<S>,
    zero_like: impl FnOnce() -> S,
) -> &'a S {
    match entry.get() {
        Some(tangent) => tangent,
        None => zero.insert(zero_like()),
    }
}

/// A caller's struct argument built by a literal of its differentiable values
/// (`step(&State { x: a, v: b }, dt)`, `Callee::Gathered` in the macro): the callee's
/// pullback entry of the struct, read field by field into the literal's values'
/// cotangents. Only `Option<S>`, a differentiable struct parameter's entry: a callee that
/// holds the struct constant (`()`) would lose the fields' gradients.
///
/// ```
/// use gradtape_runtime::generated::StructEntry;
/// let entry = Some((1.0_f64, 2.0_f64));
/// assert_eq!(StructEntry::field(&entry, |s: &(f64, f64)| s.1), Some(2.0));
/// ```
#[diagnostic::on_unimplemented(
    message = "this struct of differentiable values is passed to a parameter the called function holds constant",
    label = "its fields' gradients would be lost here",
    note = "mark the callee's parameter `#[differentiable]` (its type deriving `Differentiable`), or pass the fields as separate parameters"
)]
pub trait StructEntry<S> {
    /// The cotangent of one field, read by `get` (`None` where the struct has none).
    fn field<F>(&self, get: impl Fn(&S) -> F) -> Option<F>;
}

impl<S> StructEntry<S> for Option<S> {
    #[inline]
    fn field<F>(&self, get: impl Fn(&S) -> F) -> Option<F> {
        self.as_ref().map(get)
    }
}

/// A field's tangent in a struct argument built by a literal (`Callee::Gathered`): the
/// field's own tangent, or a zero of the field's type where the caller gives `NoTangent`
/// (a field of constants: a float, a fixed-size array of floats, or an integer, `bool` or
/// `char` field, whose tangent the callee never reads).
///
/// ```
/// use gradtape_runtime::generated::{NoTangent, field_tangent};
/// assert_eq!(field_tangent::<f64, _>(1.5), 1.5);
/// assert_eq!(field_tangent::<f64, _>(NoTangent), 0.0);
/// assert_eq!(field_tangent::<[f32; 2], _>(NoTangent), [0.0; 2]);
/// assert_eq!(field_tangent::<usize, _>(NoTangent), 0);
/// ```
#[inline(always)]
pub fn field_tangent<V, T: FieldTangent<V>>(tangent: T) -> V {
    tangent.tangent()
}

/// What [`field_tangent`] takes: a float's tangent, or `NoTangent`.
pub trait FieldTangent<V> {
    /// The tangent, zero for `NoTangent`.
    fn tangent(self) -> V;
}

impl<F: Float> FieldTangent<F> for F {
    #[inline(always)]
    fn tangent(self) -> F {
        self
    }
}

impl<F: Float, const N: usize> FieldTangent<[F; N]> for super::NoTangent {
    #[inline(always)]
    fn tangent(self) -> [F; N] {
        [F::ZERO; N]
    }
}

impl<F: Float, const N: usize, const M: usize> FieldTangent<[[F; N]; M]> for super::NoTangent {
    #[inline(always)]
    fn tangent(self) -> [[F; N]; M] {
        [[F::ZERO; N]; M]
    }
}

/// An array field's tangent from the tangent shadow of the array the caller passes there
/// (`S { w: a, .. }` of a differentiable local array `a`): `[F; N]`, or a `Vec` of the
/// shadow's length (a local's shadow has the array's length from its declaration on).
impl<F: Float, const N: usize> FieldTangent<[F; N]> for &super::Shadow<'_, F> {
    #[inline]
    fn tangent(self) -> [F; N] {
        core::array::from_fn(|i| self.get(i))
    }
}

impl<F: Float> FieldTangent<Vec<F>> for &super::Shadow<'_, F> {
    #[inline]
    fn tangent(self) -> Vec<F> {
        self.values().to_vec()
    }
}

/// `NoTangent` as the tangent of a constant field of a type that has none (a count, a
/// flag): its zero value, which the callee never reads (its constant fields are read from
/// the value, not the tangent).
macro_rules! constant_field_tangents {
    ($($ty:ty => $zero:expr),* $(,)?) => {$(
        impl FieldTangent<$ty> for super::NoTangent {
            #[inline(always)]
            fn tangent(self) -> $ty {
                $zero
            }
        }
    )*};
}

constant_field_tangents! {
    usize => 0, isize => 0, u8 => 0, u16 => 0, u32 => 0, u64 => 0, i8 => 0, i16 => 0,
    i32 => 0, i64 => 0, bool => false, char => '\0',
}

impl<F: Float> FieldTangent<F> for super::NoTangent {
    #[inline(always)]
    fn tangent(self) -> F {
        F::ZERO
    }
}
