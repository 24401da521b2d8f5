//! Checks of `#[differentiable]` bodies on plain floats against two oracles (moved here
//! from `differentiable_corpus_duals.rs`, which it serves, with
//! `differentiable_local_reads.rs`): `twice!` writes each body once and compiles it twice,
//! annotated and plain over `num_traits::Float`, and [`Twice`] checks the annotated
//! function's value and gradient against the plain copy run on dual numbers
//! (`gradtape::generated::Dual`) and against central differences, at orders 1 and 2.

use super::faces::{Gradient, Value};
use super::{central_differences_step, close};
use gradtape::generated::Dual;

/// The body twice: `$name`, annotated, and `$on_duals`, plain, both generic over the float
/// type (a parameter's `#[differentiable]` mark, for a struct, goes on the annotated copy
/// only). The bodies write `a = a + b`, not `a += b`, and index their loops: the plain copy
/// is bounded by `num_traits::Float` alone, which has no `+=`, and both copies must be the
/// same tokens.
/// Checks a function of one slice `$f` and its plain twin `$on_duals` (as `twice!` writes
/// them) at each point `$x` (an array of `N` values): [`Twice::check`].
#[allow(unused_macros)]
macro_rules! one_slice_twice {
    ($f:ident, $on_duals:ident at $($x:expr),+ $(,)?) => {
        $(crate::common::twice::Twice {
            name: stringify!($f),
            itself: &|p| $f(p),
            primal: &|p| $f::primal(p),
            grad: &|p| {
                let (value, [g]) = $f::grad(p);
                (value, g)
            },
            on_duals: &|d| $on_duals(d),
        }
        .check($x);)+
    };
}

/// Checks `$f(x, $c)` (as `twice!` writes it: one slice, then one constant, a
/// configuration or a closure) and its plain twin `$on_duals` at each point `$x`:
/// [`Twice::check`].
#[allow(unused_macros)]
macro_rules! with_constant_twice {
    ($f:ident, $on_duals:ident, $c:expr, at $($x:expr),+ $(,)?) => {
        $(crate::common::twice::Twice {
            name: stringify!($f),
            itself: &|p| $f(p, $c),
            primal: &|p| $f::primal(p, $c),
            grad: &|p| {
                let (value, [g]) = $f::grad(p, $c);
                (value, g)
            },
            on_duals: &|d| $on_duals(d, $c),
        }
        .check($x);)+
    };
}

#[allow(unused_macros)]
macro_rules! twice {
    ($(#[$doc:meta])* fn $name:ident / $on_duals:ident <T> ($($(#[$marks:meta])* $arg:ident : $ty:ty),* $(,)?) -> T $body:block) => {
        $(#[$doc])*
        #[differentiable]
        #[allow(clippy::assign_op_pattern, clippy::needless_range_loop, clippy::needless_borrow)]
        fn $name<T: gradtape::Float>($($(#[$marks])* $arg: $ty),*) -> T $body

        #[allow(clippy::assign_op_pattern, clippy::needless_range_loop, clippy::needless_borrow)]
        fn $on_duals<T: num_traits::Float + std::iter::Sum + std::iter::Product + for<'a> std::iter::Product<&'a T>>($($arg: $ty),*) -> T $body
    };
    // a writer: its result is what it writes into a `&mut [T]`
    ($(#[$doc:meta])* fn $name:ident / $on_duals:ident <T> ($($arg:ident : $ty:ty),* $(,)?) $body:block) => {
        $(#[$doc])*
        #[differentiable]
        #[allow(clippy::assign_op_pattern, clippy::needless_range_loop)]
        fn $name<T: gradtape::Float>($($arg: $ty),*) $body

        #[allow(clippy::assign_op_pattern, clippy::needless_range_loop)]
        fn $on_duals<T: num_traits::Float + std::iter::Sum + std::iter::Product + for<'a> std::iter::Product<&'a T>>($($arg: $ty),*) $body
    };
    // one `mut` parameter
    ($(#[$doc:meta])* fn $name:ident / $on_duals:ident <T> (mut $arg:ident : $ty:ty) -> T $body:block) => {
        $(#[$doc])*
        #[differentiable]
        #[allow(clippy::assign_op_pattern, clippy::needless_range_loop)]
        fn $name<T: gradtape::Float>(mut $arg: $ty) -> T $body

        #[allow(clippy::assign_op_pattern, clippy::needless_range_loop)]
        fn $on_duals<T: num_traits::Float + std::iter::Sum + std::iter::Product + for<'a> std::iter::Product<&'a T>>(mut $arg: $ty) -> T $body
    };
}

/// How close `Twice::check_within` asks each comparison to be (relative, as
/// `common::close`), and the steps of its differences.
pub struct Tolerances {
    /// The value against the dual numbers'.
    pub value: f64,
    /// The gradient against the dual numbers' partials.
    pub duals: f64,
    /// The step of the first-order central differences, and the gradient against them.
    pub step: f64,
    pub differences: f64,
    /// The step moving the point for a Hessian column, and that column by differences of
    /// the gradient against differences of the dual numbers' gradient and against second
    /// differences of the value.
    pub hessian_step: f64,
    pub hessian_duals: f64,
    pub hessian_second: f64,
}

impl Tolerances {
    /// A body in f64 throughout.
    pub const F64: Tolerances = Tolerances {
        value: 1e-12,
        duals: 1e-10,
        step: 1e-6,
        differences: 1e-6,
        hessian_step: 1e-4,
        hessian_duals: 1e-7,
        hessian_second: 1e-4,
    };
    /// A body computing part of its value in f32 (`as f32`, ε ≈ 1.2e-7): the dual twin
    /// runs those parts on `Dual<f32, N>`, whose partials round differently from the
    /// adjoint's, and differences with an f64 step would drown in the f32 rounding of the
    /// value (about ε·|f|/h), so larger steps and looser tolerances.
    pub const THROUGH_F32: Tolerances = Tolerances {
        value: 1e-7,
        duals: 1e-5,
        step: 1e-3,
        differences: 1e-3,
        hessian_step: 1e-2,
        hessian_duals: 1e-3,
        hessian_second: 2e-2,
    };
}

/// The differentiable inputs of a function, flattened, and its faces on them.
pub struct Twice<'a, const N: usize> {
    pub name: &'a str,
    pub itself: Value<'a>,
    pub primal: Value<'a>,
    pub grad: Gradient<'a>,
    pub on_duals: &'a dyn Fn(&[Dual<f64, N>]) -> Dual<f64, N>,
}

impl<const N: usize> Twice<'_, N> {
    /// The dual numbers' value and gradient at `x`.
    pub fn by_duals(&self, x: &[f64]) -> (f64, Vec<f64>) {
        let duals: Vec<Dual<f64, N>> = x
            .iter()
            .enumerate()
            .map(|(i, &v)| Dual::variable(v, i))
            .collect();
        let y = (self.on_duals)(&duals);
        (y.value, y.partials.to_vec())
    }

    pub fn check(&self, x: [f64; N]) {
        self.check_within(x, &Tolerances::F64);
    }

    pub fn check_within(&self, x: [f64; N], tol: &Tolerances) {
        let name = self.name;
        let value = (self.primal)(&x);
        assert_eq!((self.itself)(&x).to_bits(), value.to_bits(), "{name}: f");
        let (by_grad, gradient) = (self.grad)(&x);
        assert_eq!(by_grad.to_bits(), value.to_bits(), "{name}: grad's value");
        let (by_duals, dual_gradient) = self.by_duals(&x);
        assert!(
            close(by_duals, value, tol.value),
            "{name}: {by_duals} on duals, {value}"
        );
        let differences = central_differences_step(self.primal, &x, tol.step);
        for k in 0..N {
            assert!(
                close(gradient[k], dual_gradient[k], tol.duals),
                "{name}: ∂/∂x{k} {} vs dual numbers {}\n  {gradient:?}\n  {dual_gradient:?}",
                gradient[k],
                dual_gradient[k]
            );
            assert!(
                close(gradient[k], differences[k], tol.differences),
                "{name}: ∂/∂x{k} {} vs central differences {}",
                gradient[k],
                differences[k]
            );
        }

        // order two, column j of the Hessian three ways
        let h = tol.hessian_step;
        let moved = |j: usize, by: f64| {
            let mut p = x;
            p[j] += by;
            p
        };
        for j in 0..N {
            let (up, down) = ((self.grad)(&moved(j, h)).1, (self.grad)(&moved(j, -h)).1);
            let (dual_up, dual_down) = (
                self.by_duals(&moved(j, h)).1,
                self.by_duals(&moved(j, -h)).1,
            );
            for i in 0..N {
                let of_grad = (up[i] - down[i]) / (2.0 * h);
                let of_duals = (dual_up[i] - dual_down[i]) / (2.0 * h);
                let at = |s: f64, t: f64| {
                    let mut p = moved(j, t);
                    p[i] += s;
                    (self.primal)(&p)
                };
                let second = (at(h, h) - at(h, -h) - at(-h, h) + at(-h, -h)) / (4.0 * h * h);
                assert!(
                    close(of_grad, of_duals, tol.hessian_duals),
                    "{name}: H[{i}][{j}] {of_grad} by the gradient, {of_duals} by dual numbers"
                );
                assert!(
                    close(of_grad, second, tol.hessian_second),
                    "{name}: H[{i}][{j}] {of_grad} by the gradient, {second} by second differences"
                );
            }
        }
    }
}
