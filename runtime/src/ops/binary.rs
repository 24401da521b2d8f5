//! Elementwise binary ops with NumPy broadcasting: `+ - * /` (operators between tensors,
//! variables and plain scalars, owned or borrowed, in any order), `%` and `rem_euclid`,
//! `maximum`, `minimum`.

use std::borrow::Cow;

use smallvec::smallvec;

use super::{additive, additive_owned, binary, both, static_rule, sum_tangents};
use crate::base::dtype::Float;
use crate::base::primal::{Elementary, ElementaryOps, Primal, PrimalOps};
use crate::base::tensor::Tensor;
use crate::record::forward::Tangents;
use crate::record::node::Params;
use crate::record::stack::{self, NodeSpec};

/// Anything usable as an operand of a tensor op: a tensor or variable (owned or borrowed)
/// or a plain scalar of the same dtype. Reading a variable this way is a read the tape sees.
///
/// ```
/// use gradtape_runtime::{Tensor, Variable};
/// let x = Tensor::from_vec(vec![1.0_f32, 5.0], &[2]);
/// let v = Variable::new(3.0_f32);
/// assert_eq!(x.maximum(&v).to_vec(), vec![3.0, 5.0]);
/// assert_eq!(x.maximum(2.0).to_vec(), vec![2.0, 5.0]);
/// ```
pub trait Operand<T: Float> {
    /// The operand as a tensor, borrowed when it already is one.
    fn as_tensor(&self) -> Cow<'_, Tensor<T>>;

    /// The operand's value if it is a plain number, which `*` then records as a scaling
    /// of the other operand (no constant tensor, nothing saved). `None` for tensors and
    /// variables.
    #[doc(hidden)]
    #[inline]
    fn as_number(&self) -> Option<T> {
        None
    }
}

impl<T: Float> Operand<T> for Tensor<T> {
    #[inline]
    fn as_tensor(&self) -> Cow<'_, Tensor<T>> {
        Cow::Borrowed(self)
    }
}

impl<T: Float> Operand<T> for T {
    #[inline]
    fn as_tensor(&self) -> Cow<'_, Tensor<T>> {
        Cow::Owned(Tensor::scalar(*self))
    }

    #[inline]
    fn as_number(&self) -> Option<T> {
        Some(*self)
    }
}

impl<T: Float> Operand<T> for &Tensor<T> {
    #[inline]
    fn as_tensor(&self) -> Cow<'_, Tensor<T>> {
        Cow::Borrowed(*self)
    }
}

/// Elementwise sum with broadcasting; also the `+` operator.
#[track_caller]
pub(crate) fn add<T: Float>(x: &Tensor<T>, y: &Tensor<T>) -> Tensor<T> {
    // d(x + y) = dx + dy
    additive(x, y, &"add", |a, b| a + b, (pass_through, pass_through))
}

/// Elementwise difference with broadcasting; also the `-` operator.
#[track_caller]
pub(crate) fn sub<T: Float>(x: &Tensor<T>, y: &Tensor<T>) -> Tensor<T> {
    // d(x - y) = dx - dy
    additive(x, y, &"sub", |a, b| a - b, (sub_rhs, sub_rhs))
}

/// The left operand of `+` and `-`: an owned tensor lends its buffer to the result when no
/// other tensor shares it (see `ops::additive_owned`); anything else is borrowed.
pub(crate) trait AdditiveLhs<T: Float>: Operand<T> + Sized {
    #[track_caller]
    fn add_to(self, rhs: &Tensor<T>) -> Tensor<T> {
        add(&self.as_tensor(), rhs)
    }
    #[track_caller]
    fn sub_to(self, rhs: &Tensor<T>) -> Tensor<T> {
        sub(&self.as_tensor(), rhs)
    }
}

impl<T: Float> AdditiveLhs<T> for Tensor<T> {
    #[inline]
    #[track_caller]
    fn add_to(self, rhs: &Tensor<T>) -> Tensor<T> {
        additive_owned(
            self,
            rhs,
            &"add",
            |a, b| a + b,
            (pass_through, pass_through),
        )
    }
    #[inline]
    #[track_caller]
    fn sub_to(self, rhs: &Tensor<T>) -> Tensor<T> {
        additive_owned(self, rhs, &"sub", |a, b| a - b, (sub_rhs, sub_rhs))
    }
}

impl<T: Float> AdditiveLhs<T> for &Tensor<T> {}

/// Elementwise product with broadcasting; also the `*` operator.
#[track_caller]
pub(crate) fn mul<T: Float>(x: &Tensor<T>, y: &Tensor<T>) -> Tensor<T> {
    // d(x y) = y dx + x dy
    binary(
        x,
        y,
        &"mul",
        |a, b| a * b,
        (
            |x: &Tensor<T>, y: &Tensor<T>, g: &Tensor<T>, [nx, ny]: [bool; 2]| {
                (nx.then(|| mul_grad(x, y, g)), ny.then(|| mul_grad(y, x, g)))
            },
            |x: &T, y: &T, g: &T, [nx, ny]: [bool; 2]| {
                (nx.then(|| mul_lhs(y, g)), ny.then(|| mul_rhs(x, g)))
            },
        ),
    )
}

/// `x * c` for a plain number `c`, the `*` of a tensor and a number in either order: the
/// same values as [`mul`] with `c` as a 0-d tensor, but recorded as a scaling whose rule
/// keeps no operand (and the number never becomes a tensor of its own).
#[inline]
#[track_caller]
pub(crate) fn scale<T: Float>(x: &Tensor<T>, c: T) -> Tensor<T> {
    // d(x c) = c dx
    super::linear(
        x,
        &"scale",
        c.to_f64(),
        |v| v * c,
        both!(|g, c| Primal::scale(g, c)),
    )
}

/// `x * rhs`: a scaling when `rhs` is a plain number, else the product [`mul`].
#[inline]
#[track_caller]
pub(crate) fn mul_operand<T: Float>(x: &Tensor<T>, rhs: &impl Operand<T>) -> Tensor<T> {
    match rhs.as_number() {
        Some(c) => scale(x, c),
        None => mul(x, &rhs.as_tensor()),
    }
}

/// The cotangent of the factor `x` of `x * other`: `g · other`, at the broadcast shape.
/// When `x` is 0-d and `other` already has the cotangent's shape, the sum that `binary`
/// would then take down to `x`'s shape is fused in (`dot_all`): no product array.
fn mul_grad<T: Float>(x: &Tensor<T>, other: &Tensor<T>, g: &Tensor<T>) -> Tensor<T> {
    let fuse = x.rank() == 0
        && other.rank() > 0
        && crate::base::tensor::same_shape(other.shape(), g.shape())
        && crate::base::context::batch_rank() == 0;
    if fuse {
        super::reduce::dot_all(g, other)
    } else {
        mul_lhs(other, g)
    }
}

/// Elementwise quotient with broadcasting; also the `/` operator.
#[track_caller]
pub(crate) fn div<T: Float>(x: &Tensor<T>, y: &Tensor<T>) -> Tensor<T> {
    // d(x / y) = dx / y - x dy / y²
    binary(
        x,
        y,
        &"div",
        |a, b| a / b,
        both!(|x, y, g, [nx, ny]| (nx.then(|| div_lhs(y, g)), ny.then(|| div_rhs(x, y, g)))),
    )
}

/// `c·x·y` elementwise with broadcasting, in one pass: the product-then-scale that rules
/// such as square's `2·x·g` compute, without the intermediate `x·y`. Recorded as one op,
/// whose own rule is written with it, so higher orders work as for `*`.
#[track_caller]
pub(crate) fn mul_scaled<T: Float>(x: &Tensor<T>, y: &Tensor<T>, c: f64) -> Tensor<T> {
    let scale = T::from_f64(c);
    // (x·y)·c, in the order `x.mul(y).scale(c)` rounds in
    let data = super::zip_broadcast(x, y, "mul_scaled", |p, q| p * q * scale);
    let spec = |_: &Tensor<T>| NodeSpec {
        op: "mul_scaled",
        // ∂(c x y)/∂x = c y, ∂(c x y)/∂y = c x
        rule: static_rule(|ctx, g| {
            let Params::Real(c) = *ctx.params else {
                unreachable!("mul_scaled saves its factor")
            };
            let (x, y, g) = (
                ctx.saved[0].typed::<T>(),
                ctx.saved[1].typed::<T>(),
                g.typed::<T>(),
            );
            // as in `binary`: sum broadcast axes away, keeping a jacobian's batch axes
            smallvec![
                ctx.needs[0].then(|| T::into_any(mul_scaled(g, y, c).sum_to_batched(x.shape()))),
                ctx.needs[1].then(|| T::into_any(mul_scaled(g, x, c).sum_to_batched(y.shape()))),
            ]
        }),
        saved: smallvec![T::into_any(x.clone()), T::into_any(y.clone())],
        params: Params::Real(c),
    };
    // d(c x y) = c (dx y + x dy)
    let jvp = |t: &Tangents<'_>, out: &Tensor<T>| {
        let dx = t.of::<T>(0).map(|dx| mul_scaled(dx, y, c));
        let dy = t.of::<T>(1).map(|dy| mul_scaled(x, dy, c));
        sum_tangents(dx, dy, out.shape())
    };
    stack::record(data, &[x.id(), y.id()], spec, &jvp)
}

impl<T: Float> Tensor<T> {
    /// Elementwise maximum with broadcasting. Where the two are equal the whole gradient goes
    /// to `self`, as TensorFlow's `maximum` gives it to its first operand.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f32, 5.0], &[2]);
    /// assert_eq!(x.maximum(3.0).to_vec(), vec![3.0, 5.0]);
    /// ```
    ///
    /// # Panics
    /// If the shapes do not broadcast.
    #[track_caller]
    pub fn maximum(&self, other: impl Operand<T>) -> Tensor<T> {
        let other = other.as_tensor();
        binary(
            self,
            &other,
            &"maximum",
            crate::base::primal::maximum,
            both!(|x, y, g, [nx, ny]| (
                nx.then(|| maximum_lhs(x, y, g)),
                ny.then(|| maximum_rhs(x, y, g))
            )),
        )
    }

    /// Elementwise minimum with broadcasting; on ties the whole gradient goes to `self`, as
    /// in TensorFlow.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f32, 5.0], &[2]);
    /// assert_eq!(x.minimum(3.0).to_vec(), vec![1.0, 3.0]);
    /// ```
    ///
    /// # Panics
    /// If the shapes do not broadcast.
    #[track_caller]
    pub fn minimum(&self, other: impl Operand<T>) -> Tensor<T> {
        let other = other.as_tensor();
        binary(
            self,
            &other,
            &"minimum",
            crate::base::primal::minimum,
            both!(|x, y, g, [nx, ny]| (
                nx.then(|| minimum_lhs(x, y, g)),
                ny.then(|| minimum_rhs(x, y, g))
            )),
        )
    }
}

impl<T: Float> Tensor<T> {
    /// The four-quadrant arctangent of `self / other` elementwise, with broadcasting: the
    /// angle of the point `(other, self)`, in `[-π, π]` (`f64::atan2`, TensorFlow's `atan2`).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let y = Tensor::from_vec(vec![1.0_f64, -1.0], &[2]);
    /// let angle = y.atan2(-1.0).to_vec();
    /// assert_eq!(angle, vec![3.0 * std::f64::consts::FRAC_PI_4, -3.0 * std::f64::consts::FRAC_PI_4]);
    /// ```
    ///
    /// # Panics
    /// If the shapes do not broadcast.
    #[track_caller]
    pub fn atan2(&self, other: impl Operand<T>) -> Tensor<T> {
        let other = other.as_tensor();
        binary(
            self,
            &other,
            &"atan2",
            num_traits::Float::atan2,
            both!(|y, x, g, [ny, nx]| (
                ny.then(|| atan2_lhs(y, x, g)),
                nx.then(|| atan2_rhs(y, x, g))
            )),
        )
    }

    /// `√(self² + other²)` elementwise, with broadcasting, without overflow or underflow in
    /// the squares (`f64::hypot`).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(3.0_f64).hypot(4.0).to_scalar(), 5.0);
    /// // x² would overflow
    /// let big = Tensor::scalar(3e200_f64).hypot(4e200).to_scalar();
    /// assert!((big / 5e200 - 1.0).abs() < 1e-15);
    /// ```
    ///
    /// Its gradient at `(0, 0)`, where the function has a cone's tip, is NaN.
    ///
    /// # Panics
    /// If the shapes do not broadcast.
    #[track_caller]
    pub fn hypot(&self, other: impl Operand<T>) -> Tensor<T> {
        let other = other.as_tensor();
        binary(
            self,
            &other,
            &"hypot",
            num_traits::Float::hypot,
            both!(|x, y, g, [nx, ny]| (
                nx.then(|| hypot_lhs(x, y, g)),
                ny.then(|| hypot_rhs(x, y, g))
            )),
        )
    }

    /// `self` to the power `other` elementwise, with broadcasting, both differentiable
    /// (TensorFlow's `pow`; [`Tensor::powf`] takes a constant exponent and saves nothing
    /// for it). Rust's `x.powf(y)` in `#[differentiable]` code is this op when `y` is
    /// differentiable.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![2.0_f64, 9.0], &[2]);
    /// let y = Tensor::from_vec(vec![3.0_f64, 0.5], &[2]);
    /// assert_eq!(x.pow(&y).to_vec(), vec![8.0, 3.0]);
    /// ```
    ///
    /// As in TensorFlow, the gradient with respect to the exponent, `xʸ ln x`, is taken as
    /// 0 where `x ≤ 0` (where `ln x` is not real), so that a zero base gives 0, not NaN.
    ///
    /// # Panics
    /// If the shapes do not broadcast.
    #[track_caller]
    pub fn pow(&self, other: impl Operand<T>) -> Tensor<T> {
        let other = other.as_tensor();
        binary(
            self,
            &other,
            &"pow",
            num_traits::Float::powf,
            both!(|x, y, g, [nx, ny]| (nx.then(|| pow_lhs(x, y, g)), ny.then(|| pow_rhs(x, y, g)))),
        )
    }

    /// The logarithm of `self` in base `base` elementwise, with broadcasting,
    /// `ln self / ln base` (`f64::log`); the base is differentiable too.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![8.0_f64, 81.0], &[2]);
    /// let base = Tensor::from_vec(vec![2.0_f64, 3.0], &[2]);
    /// let y = x.log(&base).to_vec();
    /// assert!((y[0] - 3.0).abs() < 1e-14 && (y[1] - 4.0).abs() < 1e-14);
    /// ```
    ///
    /// # Panics
    /// If the shapes do not broadcast.
    #[track_caller]
    pub fn log(&self, base: impl Operand<T>) -> Tensor<T> {
        let base = base.as_tensor();
        binary(
            self,
            &base,
            &"log",
            num_traits::Float::log,
            both!(|x, b, g, [nx, nb]| (nx.then(|| log_lhs(x, b, g)), nb.then(|| log_rhs(x, b, g)))),
        )
    }

    /// The remainder of `self / other` elementwise, with broadcasting: Rust's `%` on
    /// floats (`self − n·other` with `n = trunc(self / other)`, C's `fmod`, TensorFlow's
    /// `truncatemod`; the sign of `self`). Also the `%` operator.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![7.5_f64, -7.5], &[2]);
    /// assert_eq!(x.rem(2.0).to_vec(), vec![1.5, -1.5]);
    /// assert_eq!((&x % 2.0).to_vec(), vec![1.5, -1.5]);
    /// ```
    ///
    /// Its derivative is 1 in `self` and `−n` in `other`, everywhere but at the jumps
    /// (`self` a nonzero multiple of `other`). There, as `floor`'s zero there, it is the
    /// derivative of the piece whose value the op returns: the remainder is `0` there, the
    /// start of the piece of `n = self / other`, so the derivative in `other` is `−n`.
    /// A jump is never straddled: `n` is taken from the remainder computed (see
    /// [`Elementary::rem_quotient`](crate::Elementary::rem_quotient)), so the
    /// derivative is always that of the piece the value lies on.
    ///
    /// # Panics
    /// If the shapes do not broadcast.
    #[track_caller]
    pub fn rem(&self, other: impl Operand<T>) -> Tensor<T> {
        let other = other.as_tensor();
        rem(self, &other)
    }

    /// Euclid's remainder of `self / other` elementwise, with broadcasting
    /// (`f64::rem_euclid`: `0 ≤ r < |other|`, computed as Rust computes it, `self % other`
    /// moved up by `|other|` when negative; TensorFlow's `floormod` for `other > 0`).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![7.5_f64, -7.5], &[2]);
    /// assert_eq!(x.rem_euclid(2.0).to_vec(), vec![1.5, 0.5]);
    /// assert_eq!(x.rem_euclid(-2.0).to_vec(), vec![1.5, 0.5]);
    /// ```
    ///
    /// Its derivative is 1 in `self` and `−q` in `other`, `q = self.div_euclid(other)`
    /// (`r = self − q·other`, for either sign of `other`), everywhere but at the jumps;
    /// there it is the derivative of the piece whose value the op returns, as for
    /// [`Tensor::rem`].
    ///
    /// # Panics
    /// If the shapes do not broadcast.
    #[track_caller]
    pub fn rem_euclid(&self, other: impl Operand<T>) -> Tensor<T> {
        let other = other.as_tensor();
        binary(
            self,
            &other,
            &"rem_euclid",
            crate::base::primal::rem_euclid_value,
            both!(|x, y, g, [nx, ny]| (
                nx.then(|| pass_through(g)),
                ny.then(|| rem_euclid_rhs(x, y, g))
            )),
        )
    }

    /// `min(max(self, min), max)` elementwise, with broadcasting: TensorFlow's
    /// `clip_by_value`, computed as TensorFlow computes it (`maximum(minimum(t, max), min)`),
    /// so its gradient is TensorFlow's: 1 strictly inside the bounds, 0 outside, and 1 at
    /// a bound (a tie of `minimum` or `maximum` goes to its first operand, here `self`);
    /// a bound that is a tensor gets the cotangent of the elements clipped to it.
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, Tensor};
    /// let x = Tensor::from_vec(vec![-2.0_f64, 0.5, 1.0, 3.0], &[4]);
    /// let tape = GradientTape::new();
    /// tape.watch(&x);
    /// let y = tape.record(|| x.clip_by_value(-1.0, 1.0));
    /// assert_eq!(y.to_vec(), vec![-1.0, 0.5, 1.0, 1.0]);
    /// // 0 outside, 1 inside and at the bound 1.0, as TensorFlow
    /// let g = tape.gradient(&y, &x).unwrap().unwrap();
    /// assert_eq!(g.to_vec(), vec![0.0, 1.0, 1.0, 0.0]);
    /// ```
    ///
    /// Unlike `f64::clamp` it does not panic when `min > max`: every element is then `min`,
    /// as in TensorFlow.
    ///
    /// # Panics
    /// If the shapes do not broadcast.
    #[track_caller]
    pub fn clip_by_value(&self, min: impl Operand<T>, max: impl Operand<T>) -> Tensor<T> {
        self.minimum(max).maximum(min)
    }

    /// Rust's name (`f64::clamp`) for [`Tensor::clip_by_value`]: the same ops, the same
    /// gradient.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![-2.0_f32, 0.5, 3.0], &[3]);
    /// assert_eq!(x.clamp(-1.0, 1.0).to_vec(), vec![-1.0, 0.5, 1.0]);
    /// ```
    ///
    /// # Panics
    /// If the shapes do not broadcast.
    #[track_caller]
    pub fn clamp(&self, min: impl Operand<T>, max: impl Operand<T>) -> Tensor<T> {
        self.clip_by_value(min, max)
    }

    /// `self * a + b` elementwise, with broadcasting, recorded as a product and a sum (so
    /// rounded twice, unlike `f64::mul_add`'s single rounding): what `#[differentiable]`
    /// lowers Rust's `x.mul_add(a, b)` to.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
    /// assert_eq!(x.mul_add(3.0, 0.5).to_vec(), vec![3.5, 6.5]);
    /// ```
    ///
    /// # Panics
    /// If the shapes do not broadcast.
    #[track_caller]
    pub fn mul_add(&self, a: impl Operand<T>, b: impl Operand<T>) -> Tensor<T> {
        mul_operand(self, &a) + b
    }
}

/// Elementwise truncated remainder with broadcasting; [`Tensor::rem`] and the `%`
/// operator.
#[track_caller]
pub(crate) fn rem<T: Float>(x: &Tensor<T>, y: &Tensor<T>) -> Tensor<T> {
    // d(x % y) = dx − n dy, n = trunc(x / y) constant between the jumps
    binary(
        x,
        y,
        &"rem",
        |a, b| a % b,
        both!(|x, y, g, [nx, ny]| (nx.then(|| pass_through(g)), ny.then(|| rem_rhs(x, y, g)))),
    )
}

/// Elementwise negation; the unary `-` operator.
#[track_caller]
pub(crate) fn neg<T: Float>(x: &Tensor<T>) -> Tensor<T> {
    let data = x.map_data(|v| -v);
    let spec = |_: &Tensor<T>| NodeSpec {
        op: "neg",
        // d(-x) = -dx
        rule: static_rule(|_, g| smallvec![Some(g.clone().negate())]),
        saved: smallvec![],
        params: Params::None,
    };
    let jvp = |t: &Tangents<'_>, _: &Tensor<T>| t.of::<T>(0).map(neg);
    stack::record(data, &[x.id()], spec, &jvp)
}

/// Backward rule of `x + y` for either input, and of `x - y` for `x`: the cotangent
/// passes through unchanged.
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::pass_through(&2.0_f64), 2.0);
/// ```
pub fn pass_through<V: Primal>(g: &V) -> V {
    g.clone()
}

/// Backward rule of `x - y` for `y`: ∂(x - y)/∂y = -1.
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::sub_rhs(&2.0_f64), -2.0);
/// ```
pub fn sub_rhs<V: Primal>(g: &V) -> V {
    g.neg()
}

/// Backward rule of `x * y` for `x`: ∂(x y)/∂x = y.
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::mul_lhs(&3.0_f64, &2.0), 6.0);
/// ```
pub fn mul_lhs<V: Primal>(y: &V, g: &V) -> V {
    g.mul(y)
}

/// Backward rule of `x * y` for `y`: ∂(x y)/∂y = x.
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::mul_rhs(&3.0_f64, &2.0), 6.0);
/// ```
pub fn mul_rhs<V: Primal>(x: &V, g: &V) -> V {
    g.mul(x)
}

/// Backward rule of `x / y` for `x`: ∂(x / y)/∂x = 1 / y.
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::div_lhs(&4.0_f64, &2.0), 0.5);
/// ```
pub fn div_lhs<V: Primal>(y: &V, g: &V) -> V {
    g.div(y)
}

/// Backward rule of `x / y` for `y`: ∂(x / y)/∂y = -x / y².
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::div_rhs(&1.0_f64, &2.0, &1.0), -0.25);
/// ```
pub fn div_rhs<V: Primal>(x: &V, y: &V, g: &V) -> V {
    g.mul(x).div(y).div(y).neg()
}

/// Backward rule of `max(x, y)` for `x`: ∂max/∂x = [x ≥ y] (a tie goes to `x`, as in
/// TensorFlow, so that the two partials always sum to 1).
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::maximum_lhs(&3.0_f64, &1.0, &2.0), 2.0);
/// assert_eq!(vjp::maximum_lhs(&1.0_f64, &1.0, &2.0), 2.0);
/// ```
pub fn maximum_lhs<V: Primal>(x: &V, y: &V, g: &V) -> V {
    g.mul(&x.at_least(y))
}

/// Backward rule of `max(x, y)` for `y`: ∂max/∂y = `[x < y]` (nothing on a tie).
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::maximum_rhs(&1.0_f64, &3.0, &2.0), 2.0);
/// assert_eq!(vjp::maximum_rhs(&1.0_f64, &1.0, &2.0), 0.0);
/// ```
pub fn maximum_rhs<V: Primal>(x: &V, y: &V, g: &V) -> V {
    g.mul(&x.at_least(y).one_minus())
}

/// Backward rule of `min(x, y)` for `x`: ∂min/∂x = [x ≤ y] (a tie goes to `x`, as in
/// TensorFlow).
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::minimum_lhs(&1.0_f64, &3.0, &2.0), 2.0);
/// assert_eq!(vjp::minimum_lhs(&1.0_f64, &1.0, &2.0), 2.0);
/// ```
pub fn minimum_lhs<V: Primal>(x: &V, y: &V, g: &V) -> V {
    g.mul(&y.at_least(x))
}

/// Backward rule of `min(x, y)` for `y`: ∂min/∂y = `[x > y]` (nothing on a tie).
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::minimum_rhs(&3.0_f64, &1.0, &2.0), 2.0);
/// assert_eq!(vjp::minimum_rhs(&1.0_f64, &1.0, &2.0), 0.0);
/// ```
pub fn minimum_rhs<V: Primal>(x: &V, y: &V, g: &V) -> V {
    g.mul(&y.at_least(x).one_minus())
}

/// Backward rule of `atan2(y, x)` for `y` (the receiver): ∂/∂y = x / (x² + y²).
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::atan2_lhs(&1.0_f64, &1.0, &2.0), 1.0);
/// ```
pub fn atan2_lhs<V: Elementary>(y: &V, x: &V, g: &V) -> V {
    g.mul(x).div(&x.square().add(&y.square()))
}

/// Backward rule of `atan2(y, x)` for `x`: ∂/∂x = −y / (x² + y²).
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::atan2_rhs(&1.0_f64, &1.0, &2.0), -1.0);
/// ```
pub fn atan2_rhs<V: Elementary>(y: &V, x: &V, g: &V) -> V {
    g.mul(y).div(&x.square().add(&y.square())).neg()
}

/// Backward rule of `hypot(x, y)` for `x`: ∂/∂x = x / hypot(x, y).
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::hypot_lhs(&3.0_f64, &4.0, &5.0), 3.0);
/// ```
pub fn hypot_lhs<V: Elementary>(x: &V, y: &V, g: &V) -> V {
    g.mul(x).div(&x.hypot(y))
}

/// Backward rule of `hypot(x, y)` for `y`: ∂/∂y = y / hypot(x, y).
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::hypot_rhs(&3.0_f64, &4.0, &5.0), 4.0);
/// ```
pub fn hypot_rhs<V: Elementary>(x: &V, y: &V, g: &V) -> V {
    g.mul(y).div(&x.hypot(y))
}

/// Backward rule of `pow(x, y)` for the base `x`: ∂xʸ/∂x = y xʸ⁻¹ (TensorFlow's
/// `grad * y * pow(x, y - 1)`), with y − 1 written −(1 − y).
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::pow_lhs(&2.0_f64, &3.0, &1.0), 12.0);
/// ```
pub fn pow_lhs<V: Elementary>(x: &V, y: &V, g: &V) -> V {
    g.mul(y).mul(&x.pow(&y.one_minus().neg()))
}

/// Backward rule of `pow(x, y)` for the exponent `y`: ∂xʸ/∂y = xʸ ln x where x > 0, and 0
/// where x ≤ 0 (TensorFlow's: `ln x` is taken of `x` where positive and of 1 elsewhere,
/// then masked, so that no NaN comes out of the masked-off elements).
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::pow_rhs(&1.0_f64, &3.0, &2.0), 0.0); // ln 1 = 0
/// assert_eq!(vjp::pow_rhs(&0.0_f64, &3.0, &2.0), 0.0); // x ≤ 0: 0, not NaN
/// assert!((vjp::pow_rhs(&2.0_f64, &3.0, &1.0) - 8.0 * 2.0_f64.ln()).abs() < 1e-12);
/// ```
pub fn pow_rhs<V: Elementary>(x: &V, y: &V, g: &V) -> V {
    let positive = x.positive_mask();
    // x where positive, 1 elsewhere: x·m + (1 − m)
    let safe = x.mul(&positive).add(&positive.one_minus());
    g.mul(&x.pow(y)).mul(&safe.ln().mul(&positive))
}

/// Backward rule of `log(x, b)` (`ln x / ln b`) for `x`: ∂/∂x = 1 / (x ln b).
///
/// ```
/// # use gradtape_runtime::vjp;
/// let e = std::f64::consts::E;
/// assert!((vjp::log_lhs(&2.0_f64, &e, &1.0) - 0.5).abs() < 1e-15);
/// ```
pub fn log_lhs<V: Elementary>(x: &V, b: &V, g: &V) -> V {
    g.div(&x.mul(&b.ln()))
}

/// Backward rule of `log(x, b)` for the base `b`: ∂/∂b = −ln x / (b ln² b).
///
/// ```
/// # use gradtape_runtime::vjp;
/// let e = std::f64::consts::E;
/// assert!((vjp::log_rhs(&e, &e, &1.0) + 1.0 / e).abs() < 1e-15);
/// ```
pub fn log_rhs<V: Elementary>(x: &V, b: &V, g: &V) -> V {
    g.mul(&x.ln()).div(&b.mul(&b.ln().square())).neg()
}

/// Backward rule of `x % y` (Rust's `%`, truncated) for `y`: ∂/∂y = −n, where `n` is the
/// integer with `x % y = x − n·y` (`trunc(x / y)`, taken from the remainder: a constant).
/// The rule of `x` is `pass_through`: ∂/∂x = 1.
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::rem_rhs(&7.5_f64, &2.0, &1.0), -3.0);
/// assert_eq!(vjp::rem_rhs(&-7.5_f64, &2.0, &1.0), 3.0); // n = −3
/// assert_eq!(vjp::rem_rhs(&7.5_f64, &-2.0, &1.0), 3.0); // n = −3
/// assert_eq!(vjp::rem_rhs(&1.5_f64, &2.0, &1.0), 0.0); // |x| < |y|: x % y = x
/// ```
pub fn rem_rhs<V: Elementary>(x: &V, y: &V, g: &V) -> V {
    g.mul(&x.rem_quotient(y)).neg()
}

/// Backward rule of `x.rem_euclid(y)` for `y`: ∂/∂y = −q, where `q = x.div_euclid(y)` is the
/// integer with `x.rem_euclid(y) = x − q·y` (a constant, taken from the remainder). From
/// Rust's definition, `r = x % y`, then `r + |y|` where `r < 0`: the first term's
/// derivative is `−trunc(x / y)`, the second's `sign(y)`, and `trunc(x / y) − sign(y)` is
/// `div_euclid`'s value there, for either sign of `y`. The rule of `x` is `pass_through`.
///
/// ```
/// # use gradtape_runtime::vjp;
/// assert_eq!(vjp::rem_euclid_rhs(&7.5_f64, &2.0, &1.0), -3.0); // q = 3
/// assert_eq!(vjp::rem_euclid_rhs(&-7.5_f64, &2.0, &1.0), 4.0); // q = −4: −7.5 = −4·2 + 0.5
/// assert_eq!(vjp::rem_euclid_rhs(&-7.5_f64, &-2.0, &1.0), -4.0); // q = 4: −7.5 = 4·(−2) + 0.5
/// assert_eq!(vjp::rem_euclid_rhs(&7.5_f64, &-2.0, &1.0), 3.0); // q = −3: 7.5 = −3·(−2) + 1.5
/// ```
pub fn rem_euclid_rhs<V: Elementary>(x: &V, y: &V, g: &V) -> V {
    g.mul(&x.rem_euclid_quotient(y)).neg()
}

impl crate::base::dtype::AnyTensor {
    /// Negation, recorded.
    pub(crate) fn negate(self) -> crate::base::dtype::AnyTensor {
        match self {
            crate::base::dtype::AnyTensor::F32(t) => crate::base::dtype::AnyTensor::F32(neg(&t)),
            crate::base::dtype::AnyTensor::F64(t) => crate::base::dtype::AnyTensor::F64(neg(&t)),
        }
    }
}

/// `impl Op<R: Operand<T>> for L` for every tensor-like left-hand side `L`.
macro_rules! tensor_lhs_ops {
    ($($lhs:ty),*) => {$(
        impl<T: $crate::Float, R: $crate::Operand<T>> ::std::ops::Add<R> for $lhs {
            type Output = $crate::Tensor<T>;
            #[inline]
            #[track_caller]
            fn add(self, rhs: R) -> $crate::Tensor<T> { $crate::ops::binary::AdditiveLhs::add_to(self, &$crate::Operand::as_tensor(&rhs)) }
        }
        impl<T: $crate::Float, R: $crate::Operand<T>> ::std::ops::Sub<R> for $lhs {
            type Output = $crate::Tensor<T>;
            #[inline]
            #[track_caller]
            fn sub(self, rhs: R) -> $crate::Tensor<T> { $crate::ops::binary::AdditiveLhs::sub_to(self, &$crate::Operand::as_tensor(&rhs)) }
        }
        impl<T: $crate::Float, R: $crate::Operand<T>> ::std::ops::Mul<R> for $lhs {
            type Output = $crate::Tensor<T>;
            #[inline]
            #[track_caller]
            fn mul(self, rhs: R) -> $crate::Tensor<T> { $crate::ops::binary::mul_operand(&$crate::Operand::<T>::as_tensor(&self), &rhs) }
        }
        impl<T: $crate::Float, R: $crate::Operand<T>> ::std::ops::Div<R> for $lhs {
            type Output = $crate::Tensor<T>;
            #[inline]
            #[track_caller]
            fn div(self, rhs: R) -> $crate::Tensor<T> { $crate::ops::binary::div(&$crate::Operand::<T>::as_tensor(&self), &$crate::Operand::as_tensor(&rhs)) }
        }
        impl<T: $crate::Float, R: $crate::Operand<T>> ::std::ops::Rem<R> for $lhs {
            type Output = $crate::Tensor<T>;
            #[inline]
            #[track_caller]
            fn rem(self, rhs: R) -> $crate::Tensor<T> { $crate::ops::binary::rem(&$crate::Operand::<T>::as_tensor(&self), &$crate::Operand::as_tensor(&rhs)) }
        }
        impl<T: $crate::Float> ::std::ops::Neg for $lhs {
            type Output = $crate::Tensor<T>;
            #[track_caller]
            fn neg(self) -> $crate::Tensor<T> { $crate::ops::binary::neg(&$crate::Operand::<T>::as_tensor(&self)) }
        }
    )*};
}

pub(crate) use tensor_lhs_ops;

tensor_lhs_ops!(Tensor<T>, &Tensor<T>);

/// The sum of the tensors, as `a + b + c` (each `+` recorded, broadcasting as `+` does).
/// An empty iterator sums to a 0-d `-0.0`, the identity of `+` that `f64`'s own `Sum`
/// starts from: folding from it gives the same bits as the sum written out, so a
/// `#[differentiable]` body may spell it as that fold.
///
/// ```
/// use gradtape_runtime::Tensor;
/// let terms = [Tensor::from_vec(vec![1.0, 2.0], &[2]), Tensor::scalar(0.5)];
/// let total: Tensor<f64> = terms.iter().map(|t| t * 2.0).sum();
/// assert_eq!(total.to_vec(), vec![3.0, 5.0]);
/// let by_reference: Tensor<f64> = terms.iter().sum();
/// assert_eq!(by_reference.to_vec(), vec![1.5, 2.5]);
/// let empty: Tensor<f64> = std::iter::empty::<Tensor<f64>>().sum();
/// assert!(empty.shape().is_empty() && empty.to_scalar().is_sign_negative());
/// ```
impl<T: crate::Float> std::iter::Sum for Tensor<T> {
    #[track_caller]
    fn sum<I: Iterator<Item = Tensor<T>>>(iter: I) -> Tensor<T> {
        iter.reduce(|total, term| total + term)
            .unwrap_or_else(|| Tensor::scalar(T::neg_zero()))
    }
}

/// [`Sum`](std::iter::Sum) over references: `tensors.iter().sum()`.
impl<'a, T: crate::Float> std::iter::Sum<&'a Tensor<T>> for Tensor<T> {
    #[track_caller]
    fn sum<I: Iterator<Item = &'a Tensor<T>>>(iter: I) -> Tensor<T> {
        iter.map(Tensor::clone).sum()
    }
}

/// The product of the tensors, as `a * b * c` (each `*` recorded, broadcasting as `*`
/// does). An empty iterator multiplies to a 0-d `1`.
///
/// ```
/// use gradtape_runtime::Tensor;
/// let factors = [Tensor::from_vec(vec![1.0, 2.0], &[2]), Tensor::scalar(3.0)];
/// let product: Tensor<f64> = factors.iter().product();
/// assert_eq!(product.to_vec(), vec![3.0, 6.0]);
/// let empty: Tensor<f64> = std::iter::empty::<Tensor<f64>>().product();
/// assert_eq!(empty.to_scalar(), 1.0);
/// ```
impl<T: crate::Float> std::iter::Product for Tensor<T> {
    #[track_caller]
    fn product<I: Iterator<Item = Tensor<T>>>(iter: I) -> Tensor<T> {
        iter.reduce(|product, factor| product * factor)
            .unwrap_or_else(|| Tensor::scalar(T::one()))
    }
}

/// [`Product`](std::iter::Product) over references: `tensors.iter().product()`.
impl<'a, T: crate::Float> std::iter::Product<&'a Tensor<T>> for Tensor<T> {
    #[track_caller]
    fn product<I: Iterator<Item = &'a Tensor<T>>>(iter: I) -> Tensor<T> {
        iter.map(Tensor::clone).product()
    }
}

/// `number op tensor` for each float dtype and right-hand side (a blanket impl is not
/// allowed for a foreign `T`).
macro_rules! scalar_lhs_ops {
    ($($t:ty => $rhs:ty),* $(,)?) => {$(
        impl ::std::ops::Add<$rhs> for $t {
            type Output = $crate::Tensor<$t>;
            #[track_caller]
            fn add(self, rhs: $rhs) -> $crate::Tensor<$t> {
                $crate::ops::binary::add(&$crate::Tensor::scalar(self), &$crate::Operand::as_tensor(&rhs))
            }
        }
        impl ::std::ops::Sub<$rhs> for $t {
            type Output = $crate::Tensor<$t>;
            #[track_caller]
            fn sub(self, rhs: $rhs) -> $crate::Tensor<$t> {
                $crate::ops::binary::sub(&$crate::Tensor::scalar(self), &$crate::Operand::as_tensor(&rhs))
            }
        }
        impl ::std::ops::Mul<$rhs> for $t {
            type Output = $crate::Tensor<$t>;
            #[track_caller]
            fn mul(self, rhs: $rhs) -> $crate::Tensor<$t> {
                $crate::ops::binary::scale(&$crate::Operand::as_tensor(&rhs), self)
            }
        }
        impl ::std::ops::Div<$rhs> for $t {
            type Output = $crate::Tensor<$t>;
            #[track_caller]
            fn div(self, rhs: $rhs) -> $crate::Tensor<$t> {
                $crate::ops::binary::div(&$crate::Tensor::scalar(self), &$crate::Operand::as_tensor(&rhs))
            }
        }
        impl ::std::ops::Rem<$rhs> for $t {
            type Output = $crate::Tensor<$t>;
            #[track_caller]
            fn rem(self, rhs: $rhs) -> $crate::Tensor<$t> {
                $crate::ops::binary::rem(&$crate::Tensor::scalar(self), &$crate::Operand::as_tensor(&rhs))
            }
        }
    )*};
}
pub(crate) use scalar_lhs_ops;

scalar_lhs_ops!(f32 => Tensor<f32>, f32 => &Tensor<f32>, f64 => Tensor<f64>, f64 => &Tensor<f64>);
