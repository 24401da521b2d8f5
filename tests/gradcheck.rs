//! Every primitive's first and second derivatives against central finite differences in
//! f64 at seeded random points: one row per op and per interesting variant, as JAX's
//! `lax_autodiff_test.py` does with `check_grads`.
//!
//! A row names the op, gives its inputs' shapes and the domain they are drawn from, the
//! function of those inputs, and the order to check. Rows whose second derivative vanishes
//! (linear and piecewise-linear ops) are checked to give `None` at second order, and are
//! checked again composed with a square, so that their rule is also exercised under a
//! recording outer tape.

mod common;

use common::{Domain, Order, Tolerance, check_grads, sample};
use gradtape::{
    Conv2dOptions, GradientOptions, GradientTape, Padding, Primal, Tensor, UnconnectedGradients,
};

use Domain::{AwayFromZero, Normal, Positive, Uniform};
use Order::{Second, SecondIsNone, SecondIsZero};

type F = fn(&[Tensor<f64>]) -> Tensor<f64>;

struct Row {
    name: &'static str,
    inputs: &'static [(&'static [usize], Domain)],
    f: F,
    order: Order,
    tol: Tolerance,
}

const fn row(
    name: &'static str,
    inputs: &'static [(&'static [usize], Domain)],
    f: F,
    order: Order,
) -> Row {
    Row {
        name,
        inputs,
        f,
        order,
        tol: Tolerance::F64,
    }
}

/// Entries strictly between the kinks of `maximum`/`minimum` against an `AwayFromZero`
/// operand (|x| ≥ 1), so that the winner never changes within a finite-difference step.
const NEAR_ZERO: Domain = Uniform(-0.5, 0.5);

/// Dividends of the remainder rows: several pieces of `x / y` on either side of zero.
const REMAINDER_DIVIDEND: Domain = Uniform(-7.0, 7.0);

#[rustfmt::skip]
fn table() -> Vec<Row> {
    vec![
        // + - * / and unary minus, with broadcasting both ways and scalar operands.
        row("add", &[(&[2, 3], Normal), (&[2, 3], Normal)], |x| &x[0] + &x[1], SecondIsNone),
        row("add broadcast rhs", &[(&[2, 3], Normal), (&[3], Normal)], |x| &x[0] + &x[1], SecondIsNone),
        row("add broadcast both", &[(&[2, 1], Normal), (&[1, 3], Normal)], |x| &x[0] + &x[1], SecondIsNone),
        row("add 0-d tensor", &[(&[], Normal), (&[2, 3], Normal)], |x| &x[0] + &x[1], SecondIsNone),
        row("add scalar rhs", &[(&[2, 3], Normal)], |x| &x[0] + 2.0, SecondIsNone),
        row("add scalar lhs", &[(&[2, 3], Normal)], |x| 2.0 + &x[0], SecondIsNone),
        row("sub", &[(&[2, 3], Normal), (&[2, 3], Normal)], |x| &x[0] - &x[1], SecondIsNone),
        row("sub broadcast lhs", &[(&[3], Normal), (&[2, 3], Normal)], |x| &x[0] - &x[1], SecondIsNone),
        row("sub scalar rhs", &[(&[2, 3], Normal)], |x| &x[0] - 1.5, SecondIsNone),
        row("sub scalar lhs", &[(&[2, 3], Normal)], |x| 1.5 - &x[0], SecondIsNone),
        row("neg", &[(&[2, 3], Normal)], |x| -&x[0], SecondIsNone),
        row("mul", &[(&[2, 3], Normal), (&[2, 3], Normal)], |x| &x[0] * &x[1], Second),
        row("mul broadcast rhs", &[(&[2, 3], Normal), (&[2, 1], Normal)], |x| &x[0] * &x[1], Second),
        row("mul broadcast both, ranks differ", &[(&[4, 1, 3], Normal), (&[2, 1], Normal)], |x| &x[0] * &x[1], Second),
        row("mul 0-d tensor", &[(&[], Normal), (&[2, 3], Normal)], |x| &x[0] * &x[1], Second),
        row("mul 0-d tensor rhs", &[(&[2, 3], Normal), (&[], Normal)], |x| &x[0] * &x[1], Second),
        row("mul 0-d tensor, 1-d with remainder", &[(&[], Normal), (&[11], Normal)], |x| &x[0] * &x[1], Second),
        row("mul 0-d tensor, transposed", &[(&[], Normal), (&[2, 3], Normal)], |x| &x[0] * &x[1].transpose(), Second),
        row("mul 0-d tensor squared", &[(&[], Normal), (&[4], Normal)], |x| (&x[0] * &x[1]).square(), Second),
        row("mul self", &[(&[2, 3], Normal)], |x| &x[0] * &x[0], Second),
        row("mul scalar rhs", &[(&[2, 3], Normal)], |x| &x[0] * -3.0, SecondIsNone),
        row("mul scalar lhs", &[(&[2, 3], Normal)], |x| 2.5 * &x[0], SecondIsNone),
        row("mul scalar, 0-d", &[(&[], Normal)], |x| 2.5 * &x[0] * -3.0, SecondIsNone),
        row("div", &[(&[2, 3], Normal), (&[2, 3], AwayFromZero)], |x| &x[0] / &x[1], Second),
        row("div broadcast rhs", &[(&[2, 3], Normal), (&[3], AwayFromZero)], |x| &x[0] / &x[1], Second),
        row("div broadcast lhs", &[(&[3, 1], Normal), (&[2, 3, 4], AwayFromZero)], |x| &x[0] / &x[1], Second),
        row("div scalar rhs", &[(&[2, 3], Normal)], |x| &x[0] / 4.0, SecondIsNone),
        row("div scalar lhs", &[(&[2, 3], AwayFromZero)], |x| 1.5 / &x[0], Second),
        // c·x·y in one pass (the fused product of square's and powi's rules).
        row("mul_scaled", &[(&[2, 3], Normal), (&[2, 3], Normal)], |x| Primal::mul_scaled(&x[0], &x[1], 2.5), Second),
        row("mul_scaled broadcast rhs", &[(&[2, 3], Normal), (&[3], Normal)], |x| Primal::mul_scaled(&x[0], &x[1], -1.5), Second),
        row("mul_scaled broadcast both, ranks differ", &[(&[4, 1, 3], Normal), (&[2, 1], Normal)], |x| Primal::mul_scaled(&x[0], &x[1], 0.5), Second),
        row("mul_scaled 0-d tensor", &[(&[], Normal), (&[2, 3], Normal)], |x| Primal::mul_scaled(&x[0], &x[1], 3.0), Second),
        row("mul_scaled 0-d both", &[(&[], Normal), (&[], Normal)], |x| Primal::mul_scaled(&x[0], &x[1], 3.0), Second),
        row("mul_scaled self", &[(&[2, 3], Normal)], |x| Primal::mul_scaled(&x[0], &x[0], 2.0), Second),
        // Elementwise functions.
        row("square", &[(&[2, 3], Normal)], |x| x[0].square(), Second),
        row("square of 0-d", &[(&[], Normal)], |x| x[0].square(), Second),
        row("square 1-d", &[(&[7], Normal)], |x| x[0].square(), Second),
        row("square of transposed", &[(&[2, 3], Normal)], |x| x[0].transpose().square(), Second),
        row("powi 3", &[(&[2, 3], Normal)], |x| x[0].powi(3), Second),
        row("powi -2", &[(&[2, 3], AwayFromZero)], |x| x[0].powi(-2), Second),
        row("powi 1", &[(&[2, 3], Normal)], |x| x[0].powi(1), Second),
        row("powi 0", &[(&[2, 3], Normal)], |x| x[0].powi(0), SecondIsNone),
        row("powf 2.5", &[(&[2, 3], Positive)], |x| x[0].powf(2.5), Second),
        row("powf -0.5", &[(&[2, 3], Positive)], |x| x[0].powf(-0.5), Second),
        row("sqrt", &[(&[2, 3], Positive)], |x| x[0].sqrt(), Second),
        row("exp", &[(&[2, 3], Normal)], |x| x[0].exp(), Second),
        row("ln", &[(&[2, 3], Positive)], |x| x[0].ln(), Second),
        row("log1p", &[(&[2, 3], Uniform(-0.5, 2.0))], |x| x[0].log1p(), Second),
        row("sin", &[(&[2, 3], Normal)], |x| x[0].sin(), Second),
        row("cos", &[(&[2, 3], Normal)], |x| x[0].cos(), Second),
        row("tanh", &[(&[2, 3], Normal)], |x| x[0].tanh(), Second),
        row("sigmoid", &[(&[2, 3], Uniform(-6.0, 6.0))], |x| x[0].sigmoid(), Second),
        row("softplus", &[(&[2, 3], Uniform(-6.0, 6.0))], |x| x[0].softplus(), Second),
        row("relu", &[(&[2, 3], AwayFromZero)], |x| x[0].relu(), SecondIsZero),
        row("abs", &[(&[2, 3], AwayFromZero)], |x| x[0].abs(), SecondIsZero),
        row("tan", &[(&[2, 3], Uniform(-1.2, 1.2))], |x| x[0].tan(), Second),
        row("asin", &[(&[2, 3], Uniform(-0.9, 0.9))], |x| x[0].asin(), Second),
        row("acos", &[(&[2, 3], Uniform(-0.9, 0.9))], |x| x[0].acos(), Second),
        row("atan", &[(&[2, 3], Normal)], |x| x[0].atan(), Second),
        row("sinh", &[(&[2, 3], Normal)], |x| x[0].sinh(), Second),
        row("cosh", &[(&[2, 3], Normal)], |x| x[0].cosh(), Second),
        row("asinh", &[(&[2, 3], Normal)], |x| x[0].asinh(), Second),
        row("acosh", &[(&[2, 3], Uniform(1.2, 3.0))], |x| x[0].acosh(), Second),
        row("atanh", &[(&[2, 3], Uniform(-0.9, 0.9))], |x| x[0].atanh(), Second),
        row("exp2", &[(&[2, 3], Normal)], |x| x[0].exp2(), Second),
        row("expm1", &[(&[2, 3], Normal)], |x| x[0].expm1(), Second),
        row("exp_m1 (expm1's Rust name)", &[(&[2, 3], Uniform(-1e-3, 1e-3))], |x| x[0].exp_m1(), Second),
        row("ln_1p (log1p's Rust name)", &[(&[2, 3], Uniform(-1e-3, 1e-3))], |x| x[0].ln_1p(), Second),
        row("log2", &[(&[2, 3], Positive)], |x| x[0].log2(), Second),
        row("log10", &[(&[2, 3], Positive)], |x| x[0].log10(), Second),
        row("cbrt", &[(&[2, 3], AwayFromZero)], |x| x[0].cbrt(), Second),
        row("recip", &[(&[2, 3], AwayFromZero)], |x| x[0].recip(), Second),
        row("erf", &[(&[2, 3], Normal)], |x| x[0].erf(), Second),
        row("to_degrees", &[(&[2, 3], Normal)], |x| x[0].to_degrees(), SecondIsNone),
        row("to_radians", &[(&[2, 3], Normal)], |x| x[0].to_radians(), SecondIsNone),
        // Two-operand elementwise functions, both operands differentiable.
        row("atan2", &[(&[2, 3], Normal), (&[2, 3], AwayFromZero)], |x| x[0].atan2(&x[1]), Second),
        row("atan2 broadcast rhs", &[(&[2, 3], Normal), (&[3], AwayFromZero)], |x| x[0].atan2(&x[1]), Second),
        row("atan2 scalar rhs", &[(&[2, 3], Normal)], |x| x[0].atan2(-1.5), Second),
        row("hypot", &[(&[2, 3], Normal), (&[2, 3], AwayFromZero)], |x| x[0].hypot(&x[1]), Second),
        row("hypot broadcast lhs", &[(&[3], AwayFromZero), (&[2, 3], Normal)], |x| x[0].hypot(&x[1]), Second),
        row("pow", &[(&[2, 3], Positive), (&[2, 3], Uniform(-1.5, 2.5))], |x| x[0].pow(&x[1]), Second),
        row("pow broadcast exponent", &[(&[2, 3], Positive), (&[3], Uniform(-1.5, 2.5))], |x| x[0].pow(&x[1]), Second),
        row("pow scalar base", &[(&[2, 3], Normal)], |x| Tensor::scalar(1.7).pow(&x[0]), Second),
        row("log base", &[(&[2, 3], Positive), (&[2, 3], Uniform(1.5, 3.0))], |x| x[0].log(&x[1]), Second),
        row("log constant base", &[(&[2, 3], Positive)], |x| x[0].log(10.0), Second),
        // Remainders: piecewise linear (1 in x, −n in y), drawn where x / y spans several
        // pieces, for both signs of each operand; random points lie off the jumps
        // (`tests/differentiable_remainders.rs` checks both sides of a jump and at it).
        row("rem", &[(&[2, 3], REMAINDER_DIVIDEND), (&[2, 3], Uniform(1.1, 1.9))], |x| &x[0] % &x[1], SecondIsNone),
        row("rem negative divisor", &[(&[2, 3], REMAINDER_DIVIDEND), (&[2, 3], Uniform(-1.9, -1.1))], |x| x[0].rem(&x[1]), SecondIsNone),
        row("rem broadcast rhs", &[(&[2, 3], REMAINDER_DIVIDEND), (&[3], Uniform(1.1, 1.9))], |x| &x[0] % &x[1], SecondIsNone),
        row("rem scalar rhs", &[(&[2, 3], REMAINDER_DIVIDEND)], |x| &x[0] % 1.5, SecondIsNone),
        row("rem scalar lhs", &[(&[2, 3], Uniform(1.1, 1.9))], |x| 7.3 % &x[0], SecondIsNone),
        row("rem times divisor", &[(&[2, 3], REMAINDER_DIVIDEND), (&[2, 3], Uniform(1.1, 1.9))], |x| (&x[0] % &x[1]) * &x[1], Second),
        row("rem_euclid", &[(&[2, 3], REMAINDER_DIVIDEND), (&[2, 3], Uniform(1.1, 1.9))], |x| x[0].rem_euclid(&x[1]), SecondIsNone),
        row("rem_euclid negative divisor", &[(&[2, 3], REMAINDER_DIVIDEND), (&[2, 3], Uniform(-1.9, -1.1))], |x| x[0].rem_euclid(&x[1]), SecondIsNone),
        row("rem_euclid broadcast lhs", &[(&[3], REMAINDER_DIVIDEND), (&[2, 3], AwayFromZero)], |x| x[0].rem_euclid(&x[1]), SecondIsNone),
        row("rem_euclid scalar rhs", &[(&[2, 3], REMAINDER_DIVIDEND)], |x| x[0].rem_euclid(0.7), SecondIsNone),
        row("rem_euclid times dividend", &[(&[2, 3], REMAINDER_DIVIDEND), (&[2, 3], Uniform(-1.9, -1.1))], |x| x[0].rem_euclid(&x[1]) * &x[0], Second),
        // clip_by_value is TensorFlow's maximum(minimum(x, max), min): piecewise linear.
        row("clip_by_value", &[(&[2, 3], Normal)], |x| x[0].clip_by_value(-0.5, 0.7), SecondIsNone),
        row("clip_by_value tensor bounds", &[(&[2, 3], Normal), (&[2, 3], Uniform(-0.6, -0.2)), (&[3], Uniform(0.2, 0.6))], |x| x[0].clip_by_value(&x[1], &x[2]), SecondIsNone),
        row("clamp (clip_by_value's Rust name)", &[(&[2, 3], Normal)], |x| x[0].clamp(-0.3, 0.4), SecondIsNone),
        row("mul_add", &[(&[2, 3], Normal), (&[2, 3], Normal), (&[3], Normal)], |x| x[0].mul_add(&x[1], &x[2]), Second),
        // Piecewise constant: sign's gradient is zeros (connected), the rounding ops are not
        // recorded (so only the other factor's path carries a gradient), as in TensorFlow.
        row("sign", &[(&[2, 3], AwayFromZero)], |x| x[0].sign(), SecondIsNone),
        row("sign times x", &[(&[2, 3], AwayFromZero)], |x| x[0].sign() * &x[0], SecondIsZero),
        row("floor times x", &[(&[2, 3], Uniform(1.1, 1.9))], |x| x[0].floor() * &x[0], SecondIsNone),
        row("ceil times x", &[(&[2, 3], Uniform(-1.9, -1.1))], |x| x[0].ceil() * &x[0], SecondIsNone),
        row("round times x", &[(&[2, 3], Uniform(2.1, 2.4))], |x| x[0].round() * &x[0], SecondIsNone),
        row("trunc times x", &[(&[2, 3], Uniform(-2.9, -2.1))], |x| x[0].trunc() * &x[0], SecondIsNone),
        row("maximum", &[(&[2, 3], AwayFromZero), (&[2, 3], NEAR_ZERO)], |x| x[0].maximum(&x[1]), SecondIsNone),
        row("maximum broadcast rhs", &[(&[2, 3], AwayFromZero), (&[3], NEAR_ZERO)], |x| x[0].maximum(&x[1]), SecondIsNone),
        row("maximum broadcast lhs", &[(&[3], NEAR_ZERO), (&[2, 3], AwayFromZero)], |x| x[0].maximum(&x[1]), SecondIsNone),
        row("maximum scalar", &[(&[2, 3], AwayFromZero)], |x| x[0].maximum(0.25), SecondIsNone),
        row("minimum", &[(&[2, 3], AwayFromZero), (&[2, 3], NEAR_ZERO)], |x| x[0].minimum(&x[1]), SecondIsNone),
        row("minimum broadcast rhs", &[(&[2, 3], AwayFromZero), (&[2, 1], NEAR_ZERO)], |x| x[0].minimum(&x[1]), SecondIsNone),
        row("minimum scalar", &[(&[2, 3], AwayFromZero)], |x| x[0].minimum(-0.25), SecondIsNone),
        // Matrix products.
        row("matmul", &[(&[2, 3], Normal), (&[3, 4], Normal)], |x| x[0].matmul(&x[1]), Second),
        row("matmul batched", &[(&[2, 2, 3], Normal), (&[2, 3, 4], Normal)], |x| x[0].matmul(&x[1]), Second),
        row("matmul batch broadcast rhs rank 2", &[(&[2, 2, 3], Normal), (&[3, 4], Normal)], |x| x[0].matmul(&x[1]), Second),
        row("matmul batch broadcast lhs 1", &[(&[1, 2, 3], Normal), (&[2, 3, 4], Normal)], |x| x[0].matmul(&x[1]), Second),
        row("matmul batch broadcast both", &[(&[2, 1, 2, 3], Normal), (&[3, 3, 2], Normal)], |x| x[0].matmul(&x[1]), Second),
        row("matmul self transposed", &[(&[3, 2], Normal)], |x| x[0].matmul(&x[0].transpose()), Second),
        row("matmul_transposed a", &[(&[3, 2], Normal), (&[3, 4], Normal)], |x| x[0].matmul_transposed(&x[1], true, false), Second),
        row("matmul_transposed b", &[(&[2, 3], Normal), (&[4, 3], Normal)], |x| x[0].matmul_transposed(&x[1], false, true), Second),
        row("matmul_transposed both", &[(&[3, 2], Normal), (&[4, 3], Normal)], |x| x[0].matmul_transposed(&x[1], true, true), Second),
        row("matmul_transposed neither", &[(&[2, 3], Normal), (&[3, 4], Normal)], |x| x[0].matmul_transposed(&x[1], false, false), Second),
        row("matmul_transposed batched a", &[(&[2, 3, 2], Normal), (&[2, 3, 4], Normal)], |x| x[0].matmul_transposed(&x[1], true, false), Second),
        row("matmul_transposed batch broadcast b", &[(&[2, 2, 3], Normal), (&[4, 3], Normal)], |x| x[0].matmul_transposed(&x[1], false, true), Second),
        row("matmul_transposed batch broadcast both", &[(&[2, 1, 3, 2], Normal), (&[3, 2, 3], Normal)], |x| x[0].matmul_transposed(&x[1], true, true), Second),
        row("matmul_transposed self gram", &[(&[3, 2], Normal)], |x| x[0].matmul_transposed(&x[0], true, false), Second),
        row("xw_plus_b", &[(&[3, 2], Normal), (&[2, 4], Normal), (&[4], Normal)], |x| x[0].xw_plus_b(&x[1], &x[2]), Second),
        row("xw_plus_b one row", &[(&[1, 3], Normal), (&[3, 2], Normal), (&[2], Normal)], |x| x[0].xw_plus_b(&x[1], &x[2]), Second),
        row("xw_plus_b then tanh", &[(&[3, 2], Normal), (&[2, 4], Normal), (&[4], Normal)], |x| x[0].xw_plus_b(&x[1], &x[2]).tanh(), Second),
        // Shape ops.
        row("transpose", &[(&[2, 3], Normal)], |x| x[0].transpose(), SecondIsNone),
        row("transpose batched", &[(&[2, 3, 4], Normal)], |x| x[0].transpose(), SecondIsNone),
        row("permute", &[(&[2, 3, 4], Normal)], |x| x[0].permute(&[2, 0, 1]), SecondIsNone),
        row("reshape", &[(&[2, 3], Normal)], |x| x[0].reshape(&[3, 2]), SecondIsNone),
        row("reshape flat to 3-d", &[(&[6], Normal)], |x| x[0].reshape(&[1, 2, 3]), SecondIsNone),
        row("reshape of transposed", &[(&[2, 3], Normal)], |x| x[0].transpose().reshape(&[6]), SecondIsNone),
        row("broadcast_to rows", &[(&[3], Normal)], |x| x[0].broadcast_to(&[2, 3]), SecondIsNone),
        row("broadcast_to columns", &[(&[2, 1], Normal)], |x| x[0].broadcast_to(&[2, 3]), SecondIsNone),
        row("broadcast_to from 0-d", &[(&[], Normal)], |x| x[0].broadcast_to(&[2, 2]), SecondIsNone),
        row("broadcast_to leading ones", &[(&[1, 3], Normal)], |x| x[0].broadcast_to(&[2, 2, 3]), SecondIsNone),
        row("broadcast_to kept dims of 3-d", &[(&[2, 1, 1], Normal)], |x| x[0].broadcast_to(&[2, 3, 4]), SecondIsNone),
        row("broadcast_to middle axis", &[(&[2, 1, 4], Normal)], |x| x[0].broadcast_to(&[2, 3, 4]), SecondIsNone),
        row("sum_to_shape leading", &[(&[2, 3], Normal)], |x| x[0].sum_to_shape(&[3]), SecondIsNone),
        row("sum_to_shape kept", &[(&[2, 3], Normal)], |x| x[0].sum_to_shape(&[2, 1]), SecondIsNone),
        row("sum_to_shape both", &[(&[2, 3, 4], Normal)], |x| x[0].sum_to_shape(&[3, 1]), SecondIsNone),
        row("sum_to_shape to 0-d", &[(&[2, 3], Normal)], |x| x[0].sum_to_shape(&[]), SecondIsNone),
        row("sum_to_shape leading ones", &[(&[2, 3], Normal)], |x| x[0].sum_to_shape(&[1, 3]), SecondIsNone),
        row("sum_to_shape to all ones", &[(&[2, 3], Normal)], |x| x[0].sum_to_shape(&[1, 1]), SecondIsNone),
        row("sum_to_shape kept of 3-d", &[(&[2, 3, 4], Normal)], |x| x[0].sum_to_shape(&[2, 1, 1]), SecondIsNone),
        row("sum_to_shape middle axis", &[(&[2, 3, 4], Normal)], |x| x[0].sum_to_shape(&[2, 1, 4]), SecondIsNone),
        row("sum_to_shape of transposed", &[(&[2, 3], Normal)], |x| x[0].transpose().sum_to_shape(&[2]), SecondIsNone),
        row("concat of 3, axis 0", &[(&[1, 3], Normal), (&[2, 3], Normal), (&[3, 3], Normal)], |x| Tensor::concat(&[&x[0], &x[1], &x[2]], 0), SecondIsNone),
        row("concat of 3, axis 1", &[(&[2, 1], Normal), (&[2, 2], Normal), (&[2, 3], Normal)], |x| Tensor::concat(&[&x[0], &x[1], &x[2]], 1), SecondIsNone),
        row("concat with itself", &[(&[2, 2], Normal)], |x| Tensor::concat(&[&x[0], &x[0]], 0), SecondIsNone),
        row("slice in the middle", &[(&[5, 3], Normal)], |x| x[0].slice(0, 1, 3), SecondIsNone),
        row("slice axis 1 at the start", &[(&[2, 4], Normal)], |x| x[0].slice(1, 0, 2), SecondIsNone),
        row("slice axis 1 at the end", &[(&[2, 4], Normal)], |x| x[0].slice(1, 2, 2), SecondIsNone),
        row("gather repeated indices", &[(&[4, 3], Normal)], |x| x[0].gather(0, &[1, 1, 3, 0, 1]), SecondIsNone),
        row("gather axis 1", &[(&[2, 4], Normal)], |x| x[0].gather(1, &[3, 0, 3]), SecondIsNone),
        row("scatter_add repeated indices", &[(&[3, 2], Normal)], |x| x[0].scatter_add(0, &[2, 0, 2], 4), SecondIsNone),
        row("scatter_add axis 1", &[(&[2, 3], Normal)], |x| x[0].scatter_add(1, &[1, 1, 0], 2), SecondIsNone),
        // Reductions.
        row("sum", &[(&[2, 3], Normal)], |x| x[0].sum(), SecondIsNone),
        row("sum of 0-d", &[(&[], Normal)], |x| x[0].sum(), SecondIsNone),
        row("sum_axis 0", &[(&[2, 3], Normal)], |x| x[0].sum_axis(0, false), SecondIsNone),
        row("sum_axis 1 keep_dims", &[(&[2, 3], Normal)], |x| x[0].sum_axis(1, true), SecondIsNone),
        row("sum_axis middle of 3-d", &[(&[2, 3, 4], Normal)], |x| x[0].sum_axis(1, false), SecondIsNone),
        row("mean", &[(&[2, 3], Normal)], |x| x[0].mean(), SecondIsNone),
        row("mean 1-d with remainder", &[(&[19], Normal)], |x| x[0].mean(), SecondIsNone),
        row("mean of 0-d", &[(&[], Normal)], |x| x[0].mean(), SecondIsNone),
        row("mean_axis middle of 3-d", &[(&[2, 3, 4], Normal)], |x| x[0].mean_axis(1, false), SecondIsNone),
        row("mean times itself", &[(&[2, 3], Normal)], |x| x[0].mean() * x[0].mean_axis(0, true), Second),
        row("mean_axis 0", &[(&[2, 3], Normal)], |x| x[0].mean_axis(0, false), SecondIsNone),
        row("mean_axis 1 keep_dims", &[(&[2, 3], Normal)], |x| x[0].mean_axis(1, true), SecondIsNone),
        row("max", &[(&[2, 3], Normal)], |x| x[0].max(), SecondIsNone),
        row("max_axis 0", &[(&[3, 4], Normal)], |x| x[0].max_axis(0, false), SecondIsNone),
        row("max_axis 1 keep_dims", &[(&[3, 4], Normal)], |x| x[0].max_axis(1, true), SecondIsNone),
        row("max_axis middle of 3-d", &[(&[2, 3, 4], Normal)], |x| x[0].max_axis(1, false), SecondIsNone),
        // Reductions made of other ops (ops/composite.rs).
        row("min", &[(&[2, 3], Normal)], |x| x[0].min(), SecondIsNone),
        row("min_axis 1 keep_dims", &[(&[3, 4], Normal)], |x| x[0].min_axis(1, true), SecondIsNone),
        row("logsumexp", &[(&[2, 3], Normal)], |x| x[0].logsumexp(), Second),
        row("logsumexp of 0-d", &[(&[], Normal)], |x| x[0].logsumexp(), Second),
        row("logsumexp_axis 0", &[(&[3, 4], Normal)], |x| x[0].logsumexp_axis(0, false), Second),
        row("logsumexp_axis large logits keep_dims", &[(&[2, 3], Uniform(50.0, 60.0))], |x| x[0].logsumexp_axis(1, true), Second),
        row("variance", &[(&[2, 3], Normal)], |x| x[0].variance(), Second),
        row("variance_axis middle of 3-d", &[(&[2, 3, 4], Normal)], |x| x[0].variance_axis(1, false), Second),
        row("std", &[(&[2, 3], Normal)], |x| x[0].std(), Second),
        row("std_axis 0 keep_dims", &[(&[3, 4], Normal)], |x| x[0].std_axis(0, true), Second),
        row("norm", &[(&[2, 3], Normal)], |x| x[0].norm(), Second),
        row("norm_axis 1", &[(&[3, 4], Normal)], |x| x[0].norm_axis(1, false), Second),
        row("prod", &[(&[2, 3], Normal)], |x| x[0].prod(), Second),
        row("prod_axis 1", &[(&[3, 4], Normal)], |x| x[0].prod_axis(1, false), Second),
        row("prod_axis 0 odd length keep_dims", &[(&[5, 2], Normal)], |x| x[0].prod_axis(0, true), Second),
        row("prod_axis middle of 3-d", &[(&[2, 3, 4], Normal)], |x| x[0].prod_axis(1, false), Second),
        // Scans.
        row("cumsum axis 1", &[(&[2, 3], Normal)], |x| x[0].cumsum(1, false, false), SecondIsNone),
        row("cumsum exclusive axis 0", &[(&[3, 2], Normal)], |x| x[0].cumsum(0, true, false), SecondIsNone),
        row("cumsum reverse", &[(&[2, 4], Normal)], |x| x[0].cumsum(1, false, true), SecondIsNone),
        row("cumsum exclusive reverse, middle of 3-d", &[(&[2, 3, 2], Normal)], |x| x[0].cumsum(1, true, true), SecondIsNone),
        row("cumsum squared", &[(&[2, 3], Normal)], |x| x[0].cumsum(1, false, false).square(), Second),
        // Stacking and choosing.
        row("stack axis 0", &[(&[2, 3], Normal), (&[2, 3], Normal)], |x| Tensor::stack(&[&x[0], &x[1]], 0), SecondIsNone),
        row("stack last axis, with itself", &[(&[2, 3], Normal)], |x| Tensor::stack(&[&x[0], &x[0].sin()], 2), Second),
        row("where_cond", &[(&[2, 3], Normal), (&[2, 3], Normal)], |x| {
            let mask = Tensor::from_vec(vec![true, false, true, false, false, true], &[2, 3]);
            Tensor::where_cond(&mask, &x[0], &x[1])
        }, SecondIsNone),
        row("where_cond broadcast operands and mask", &[(&[2, 1], Normal), (&[3], Normal)], |x| {
            let mask = Tensor::from_vec(vec![true, false, true], &[3]);
            Tensor::where_cond(&mask, &x[0], &x[1])
        }, SecondIsNone),
        row("where_cond of a comparison, nonlinear branches", &[(&[2, 3], AwayFromZero)], |x| {
            let positive = x[0].greater(&Tensor::scalar(0.0));
            Tensor::where_cond(&positive, &x[0].square(), &x[0].sin())
        }, Second),
        row("gather by an index tensor", &[(&[4, 3], Normal)], |x| {
            x[0].gather(0, &Tensor::from_vec(vec![1_i64, 3, 1, 0], &[2, 2]))
        }, SecondIsNone),
        // Normalisations.
        row("softmax axis 0", &[(&[3, 4], Normal)], |x| x[0].softmax(0), Second),
        row("softmax axis 1", &[(&[3, 4], Normal)], |x| x[0].softmax(1), Second),
        row("softmax 1-d", &[(&[5], Normal)], |x| x[0].softmax(0), Second),
        row("softmax middle of 3-d", &[(&[2, 3, 2], Normal)], |x| x[0].softmax(1), Second),
        row("log_softmax axis 0", &[(&[3, 4], Normal)], |x| x[0].log_softmax(0), Second),
        row("log_softmax axis 1", &[(&[3, 4], Normal)], |x| x[0].log_softmax(1), Second),
        row("log_softmax large logits", &[(&[2, 3], Uniform(50.0, 60.0))], |x| x[0].log_softmax(1), Second),
        row("sparse softmax cross-entropy", &[(&[3, 4], Normal)], |x| x[0].sparse_softmax_cross_entropy_with_logits(&[2, 0, 3]), Second),
        row("sparse softmax cross-entropy large logits", &[(&[2, 3], Uniform(50.0, 60.0))], |x| x[0].sparse_softmax_cross_entropy_with_logits(&[1, 1]), Second),
        row("sparse softmax cross-entropy of a product", &[(&[3, 4], Normal), (&[4, 2], Normal)], |x| {
            x[0].matmul(&x[1]).sparse_softmax_cross_entropy_with_logits(&[1, 0, 1]).mean()
        }, Second),
        // Casts.
        row("cast f64 to f64", &[(&[2, 3], Normal)], |x| x[0].cast::<f64>(), SecondIsNone),
        Row {
            tol: Tolerance::THROUGH_F32,
            ..row("cast f64→f32→f64 chain", &[(&[2, 3], Normal)], |x| x[0].cast::<f32>().sin().cast::<f64>(), Second)
        },
        Row {
            tol: Tolerance::THROUGH_F32,
            ..row("cast f64→f32→f64 linear", &[(&[2, 3], Normal)], |x| x[0].cast::<f32>().cast::<f64>(), SecondIsNone)
        },
        // Compositions of several ops (chain rule through mixed families).
        row("softmax cross-entropy", &[(&[3, 4], Normal), (&[4, 2], Normal)], |x| {
            let labels = Tensor::from_vec(vec![0.0, 1.0, 1.0, 0.0, 1.0, 0.0], &[3, 2]);
            -(x[0].matmul(&x[1]).log_softmax(1) * labels).sum_axis(1, false).mean()
        }, Second),
        row("dense tanh layer", &[(&[2, 3], Normal), (&[3, 2], Normal), (&[2], Normal)], |x| {
            (x[0].matmul(&x[1]) + &x[2]).tanh()
        }, Second),
        // Convolution (NHWC input, HWIO filter) and its two gradient ops, each bilinear, under
        // several option sets; pooling (piecewise linear, linear) and its gradients.
        row("conv2d valid", &[(&[2, 4, 4, 2], Normal), (&[2, 2, 2, 3], Normal)], |x| {
            x[0].conv2d(&x[1], Conv2dOptions::new())
        }, Second),
        row("conv2d stride 2 same", &[(&[1, 5, 5, 2], Normal), (&[3, 3, 2, 2], Normal)], |x| {
            x[0].conv2d(&x[1], Conv2dOptions::new().strides(2, 2).padding(Padding::Same))
        }, Second),
        row("conv2d dilation 2 same", &[(&[1, 5, 6, 1], Normal), (&[2, 2, 1, 2], Normal)], |x| {
            x[0].conv2d(&x[1], Conv2dOptions::new().dilations(2, 2).padding(Padding::Same))
        }, Second),
        row("conv2d groups 2 stride (1, 2)", &[(&[1, 4, 4, 4], Normal), (&[2, 2, 2, 4], Normal)], |x| {
            x[0].conv2d(&x[1], Conv2dOptions::new().groups(2).strides(1, 2))
        }, Second),
        row("conv2d depthwise same", &[(&[1, 4, 4, 3], Normal), (&[3, 3, 1, 3], Normal)], |x| {
            x[0].conv2d(&x[1], Conv2dOptions::new().groups(3).padding(Padding::Same))
        }, Second),
        row("conv2d of the same tensor twice", &[(&[1, 3, 3, 1], Normal)], |x| {
            x[0].conv2d(&x[0].slice(1, 0, 2).slice(2, 0, 2).reshape(&[2, 2, 1, 1]), Conv2dOptions::new())
        }, Second),
        row("conv2d_backprop_input", &[(&[1, 3, 3, 2], Normal), (&[2, 2, 3, 2], Normal)], |x| {
            x[0].conv2d_backprop_input(&x[1], &[1, 4, 4, 3], Conv2dOptions::new())
        }, Second),
        row("conv2d_backprop_input stride 2 same", &[(&[1, 3, 3, 2], Normal), (&[3, 3, 1, 2], Normal)], |x| {
            let options = Conv2dOptions::new().strides(2, 2).padding(Padding::Same);
            x[0].conv2d_backprop_input(&x[1], &[1, 5, 5, 1], options)
        }, Second),
        row("conv2d_backprop_filter", &[(&[1, 4, 4, 2], Normal), (&[1, 3, 3, 3], Normal)], |x| {
            x[0].conv2d_backprop_filter(&x[1], &[2, 2, 2, 3], Conv2dOptions::new())
        }, Second),
        row("conv2d_backprop_filter groups 2 stride 2 same", &[(&[1, 5, 5, 2], Normal), (&[1, 3, 3, 2], Normal)], |x| {
            let options = Conv2dOptions::new().groups(2).strides(2, 2).padding(Padding::Same);
            x[0].conv2d_backprop_filter(&x[1], &[3, 3, 1, 2], options)
        }, Second),
        // relu(conv2d(x, w) + b) as one op (a Conv2D layer with a ReLU)
        row("conv2d_bias_relu valid", &[(&[2, 4, 4, 2], Normal), (&[2, 2, 2, 3], Normal), (&[3], Normal)], |x| {
            x[0].conv2d_bias_relu(&x[1], &x[2], Conv2dOptions::new())
        }, Second),
        row("conv2d_bias_relu groups 2 stride 2 same", &[(&[1, 5, 5, 2], Normal), (&[3, 3, 1, 2], Normal), (&[2], Normal)], |x| {
            let options = Conv2dOptions::new().groups(2).strides(2, 2).padding(Padding::Same);
            x[0].conv2d_bias_relu(&x[1], &x[2], options)
        }, Second),
        row("conv2d_bias_relu then max_pool2d", &[(&[2, 5, 5, 1], Normal), (&[2, 2, 1, 2], Normal), (&[2], Normal)], |x| {
            x[0].conv2d_bias_relu(&x[1], &x[2], Conv2dOptions::new()).max_pool2d((2, 2), (2, 2), Padding::Valid)
        }, Second),
        row("max_pool2d 2x2 stride 2", &[(&[1, 4, 4, 2], Normal)], |x| {
            x[0].max_pool2d((2, 2), (2, 2), Padding::Valid)
        }, SecondIsNone),
        row("max_pool2d 3x3 stride 2 same", &[(&[2, 5, 5, 1], Normal)], |x| {
            x[0].max_pool2d((3, 3), (2, 2), Padding::Same)
        }, SecondIsNone),
        row("avg_pool2d 2x2 stride 2", &[(&[1, 4, 4, 2], Normal)], |x| {
            x[0].avg_pool2d((2, 2), (2, 2), Padding::Valid)
        }, SecondIsNone),
        row("avg_pool2d 3x3 stride 2 same", &[(&[1, 5, 5, 2], Normal)], |x| {
            x[0].avg_pool2d((3, 3), (2, 2), Padding::Same)
        }, SecondIsNone),
        row("avg_pool2d_backprop 3x3 stride 2 same", &[(&[1, 3, 3, 2], Normal)], |x| {
            x[0].avg_pool2d_backprop(&[1, 5, 5, 2], (3, 3), (2, 2), Padding::Same)
        }, SecondIsNone),
        row("conv tanh max_pool block", &[(&[2, 5, 5, 1], Normal), (&[2, 2, 1, 2], Normal)], |x| {
            x[0].conv2d(&x[1], Conv2dOptions::new()).tanh().max_pool2d((2, 2), (2, 2), Padding::Valid)
        }, Second),
    ]
}

fn inputs_of(row: &Row, index: usize) -> Vec<Tensor<f64>> {
    row.inputs
        .iter()
        .enumerate()
        .map(|(k, &(shape, domain))| sample(shape, domain, 1000 * index as u64 + k as u64))
        .collect()
}

/// Runs every row (and every piecewise-linear row composed with a square) and reports all failures
/// together.
#[test]
fn every_op_to_second_order() {
    let mut failures = Vec::new();
    for (index, row) in table().iter().enumerate() {
        let inputs = inputs_of(row, index);
        let seed = index as u64;
        if let Err(e) = check_grads(row.name, &inputs, &row.f, row.order, row.tol, seed) {
            failures.push(e);
        }
        if matches!(row.order, SecondIsNone | SecondIsZero) {
            let name = format!("{} then square", row.name);
            let squared = |x: &[Tensor<f64>]| (row.f)(x).square();
            if let Err(e) = check_grads(&name, &inputs, &squared, Second, row.tol, seed) {
                failures.push(e);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows failed:\n\n{}",
        failures.len(),
        table().len(),
        failures.join("\n\n")
    );
}

/// The table has one row per op: a new op without a row fails here.
/// The elementwise rows (everything before the matrix products), with their operands made
/// 0-d: on one tape, ops on 0-d values are recorded as compact records with their partial
/// derivatives (Jacobian taping), not as general nodes, so each elementwise op's partials
/// are checked here as its general rule is above.
fn elementwise_rows_at_0d() -> Vec<(String, Vec<Tensor<f64>>, F, Order)> {
    table()
        .into_iter()
        .enumerate()
        .take_while(|(_, row)| row.name != "matmul")
        // (a 0-d tensor has no axes to transpose)
        .filter(|(_, row)| !row.name.contains("transposed"))
        .map(|(index, row)| {
            let inputs = row
                .inputs
                .iter()
                .enumerate()
                .map(|(k, &(_, domain))| sample(&[], domain, 7000 + 1000 * index as u64 + k as u64))
                .collect();
            (format!("{} at 0-d", row.name), inputs, row.f, row.order)
        })
        .collect()
}

/// The gradient of `Σ f(x)` by `tape`, every input watched: `None` where unconnected.
fn gradient_on(tape: GradientTape, f: F, inputs: &[Tensor<f64>]) -> Vec<Option<Tensor<f64>>> {
    for x in inputs {
        tape.watch(x);
    }
    let y = tape.record(|| f(inputs).sum());
    tape.gradient(&y, inputs.to_vec()).expect("one gradient")
}

/// Every elementwise op on 0-d operands: first and second order against central
/// differences (`check_grads`, whose second order nests the tapes: general nodes), the
/// compact records' gradient against the general rules' (a tape in anomaly mode records
/// general nodes only), and a second order taken by a tape entered after the first one
/// recorded, so that the compact records' sweep is recorded (each record then runs its
/// general rule, on the values it kept with their ids), against the same with general
/// nodes. (The later tape tracks the inputs only, not the values computed before it was
/// entered, as in TensorFlow: for a composed row that is not the whole second derivative,
/// so the oracle is the general path, not `check_grads`.)
#[test]
fn every_elementwise_op_at_0d_through_compact_records() {
    let rows = elementwise_rows_at_0d();
    assert!(
        rows.iter().any(|(name, ..)| name == "sin at 0-d"),
        "the elementwise rows"
    );
    let mut failures = Vec::new();
    for (index, (name, inputs, f, order)) in rows.into_iter().enumerate() {
        let seed = 7000 + index as u64;
        if let Err(e) = check_grads(&name, &inputs, &f, order, Tolerance::F64, seed) {
            failures.push(e);
        }
        let compact = gradient_on(GradientTape::new(), f, &inputs);
        let general = gradient_on(
            GradientTape::builder().check_numerics(true).build(),
            f,
            &inputs,
        );
        // (a few ulps: a compact record computes `g · ∂` where a rule may compute
        // `g · a / b`, the same derivative rounded in another order)
        if !same_within(&compact, &general, 1e-14) {
            failures.push(format!(
                "row `{name}`: compact records give {compact:?}, general nodes {general:?}"
            ));
        }
        let directions: Vec<Tensor<f64>> = (0..inputs.len())
            .map(|k| Tensor::scalar(0.3 + 0.2 * k as f64))
            .collect();
        let later =
            second_order_by_a_later_tape(GradientTape::persistent(), f, &inputs, &directions);
        let general = GradientTape::builder()
            .persistent(true)
            .check_numerics(true)
            .build();
        let general = second_order_by_a_later_tape(general, f, &inputs, &directions);
        if !same_within(&later, &general, 1e-12) {
            failures.push(format!(
                "row `{name}`: second order through compact records {later:?}, \
                 through general nodes {general:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `∇ₓ⟨∇ₓ f(x), u⟩` where `f` is recorded first, on the persistent tape `first` alone on
/// the stack, and a second tape, entered only afterwards, watches `x` and records the first
/// tape's gradient.
fn second_order_by_a_later_tape(
    first: GradientTape,
    f: F,
    inputs: &[Tensor<f64>],
    directions: &[Tensor<f64>],
) -> Vec<Option<Tensor<f64>>> {
    for x in inputs {
        first.watch(x);
    }
    let y = first.record(|| f(inputs));
    let second = GradientTape::new();
    for x in inputs {
        second.watch(x);
    }
    let along = second.record(|| {
        let grads = first.gradient(&y, inputs.to_vec()).expect("one gradient");
        grads
            .iter()
            .zip(directions)
            .filter_map(|(g, u)| g.as_ref().map(|g| g * u))
            .fold(Tensor::scalar(0.0), |acc, term| acc + term)
    });
    let options = GradientOptions::new().unconnected(UnconnectedGradients::None);
    second
        .gradient_with(&along, inputs.to_vec(), options)
        .expect("one gradient")
}

/// Whether two lists of gradients agree: the same ones `None`, the others of one shape and
/// equal to `rtol` relative (absolute below magnitude 1).
fn same_within(a: &[Option<Tensor<f64>>], b: &[Option<Tensor<f64>>], rtol: f64) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| match (a, b) {
            (None, None) => true,
            (Some(a), Some(b)) => {
                a.shape() == b.shape()
                    && a.to_vec()
                        .iter()
                        .zip(b.to_vec())
                        .all(|(a, b)| (a - b).abs() <= rtol * a.abs().max(b.abs()).max(1.0))
            }
            _ => false,
        })
}

#[test]
fn table_names_are_unique() {
    let rows = table();
    let mut names: Vec<_> = rows.iter().map(|r| r.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), rows.len());
}

/// With `UnconnectedGradients::Zero` the vanishing second derivative of a linear function is
/// 0 rather than `None`; checked by `check_grads` for every `SecondIsNone` row, and here once
/// on its own, by hand: d²/dx² (3x + 1) = 0.
#[test]
fn second_derivative_of_linear_is_none_or_zero() {
    use gradtape::{GradientOptions, UnconnectedGradients};
    let x = Tensor::scalar(2.0_f64);
    for (unconnected, expected) in [
        (UnconnectedGradients::None, None),
        (UnconnectedGradients::Zero, Some(0.0)),
    ] {
        let outer = GradientTape::new();
        outer.watch(&x);
        let dy_dx = outer.record(|| {
            let inner = GradientTape::new();
            inner.watch(&x);
            let y = inner.record(|| &x * 3.0 + 1.0);
            inner.gradient(&y, &x).unwrap().unwrap()
        });
        assert_eq!(dy_dx.to_scalar(), 3.0);
        let options = GradientOptions::new().unconnected(unconnected);
        let d2 = outer.gradient_with(&dy_dx, &x, options).unwrap();
        assert_eq!(d2.map(|t| t.to_scalar()), expected);
    }
}

/// Casting from an integer dtype makes a constant: no gradient flows to anything before it.
#[test]
fn cast_from_integers_is_a_constant() {
    let x = Tensor::from_vec(vec![0.5_f64, 1.5], &[2]);
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| x.cast::<i32>().cast::<f64>() * &x);
    // y = trunc(x) · x with trunc(x) a constant: dy/dx = trunc(x) = [0, 1]
    let g = tape.gradient(&y, &x).unwrap().unwrap();
    assert_eq!(g.to_vec(), vec![0.0, 1.0]);
}

/// Nesting goes on past second order: three tapes give d³/dx³ sin x = -cos x.
#[test]
fn third_order_by_three_nested_tapes() {
    let x = Tensor::from_vec(vec![-1.0_f64, 0.3, 2.0], &[3]);
    let grad = |tape: &GradientTape, y: &Tensor<f64>| tape.gradient(y, &x).unwrap().unwrap();
    let outer = GradientTape::new();
    outer.watch(&x);
    let d2 = outer.record(|| {
        let middle = GradientTape::new();
        middle.watch(&x);
        let d1 = middle.record(|| {
            let inner = GradientTape::new();
            inner.watch(&x);
            let y = inner.record(|| x.sin().sum());
            grad(&inner, &y).sum()
        });
        grad(&middle, &d1).sum()
    });
    let d3 = grad(&outer, &d2);
    for (got, v) in d3.to_vec().into_iter().zip(x.to_vec()) {
        assert!((got + v.cos()).abs() < 1e-15, "d³ sin({v}) = {got}");
    }
}

/// The public `gradcheck` catches a rule that is right at first order and wrong at second:
/// a custom gradient of x³ whose rule, 3·x·x written with `x` as a constant copy, gives the
/// right first derivative but no second (an untracked constant is not differentiated).
#[test]
fn gradcheck_catches_a_rule_wrong_only_at_second_order() {
    use gradtape::{GradcheckError, GradcheckOptions, custom_gradient, gradcheck, gradcheck_with};
    let x = Tensor::from_vec(vec![0.5, -1.5, 2.0], &[3]);
    let cube = |x: &[Tensor<f64>]| {
        custom_gradient("cube", &[&x[0]], |inputs| {
            let frozen = Tensor::from_vec(inputs[0].to_vec(), inputs[0].shape());
            (inputs[0].powi(3), move |g: &Tensor<f64>| {
                vec![Some(g * &frozen.square() * 3.0)]
            })
        })
    };
    let first = gradcheck(cube, std::slice::from_ref(&x)).expect("right at first order");
    assert!(first.first.error < 1e-6);
    let options = GradcheckOptions::new().second_order(true);
    match gradcheck_with(cube, &[x], options) {
        Err(GradcheckError::Mismatch { worst, ops }) => {
            // d²/dx² x³ = 6x: the rule's second derivative is missing
            assert_eq!(worst.order, 2);
            assert!(
                worst.analytic == 0.0 && worst.numeric.abs() > 1.0,
                "{worst}"
            );
            assert_eq!(ops, ["cube"]);
        }
        other => panic!("a wrong second derivative passed gradcheck: {other:?}"),
    }
}

#[test]
fn gradcheck_reports_nan_as_a_mismatch() {
    use gradtape::{GradcheckError, gradcheck};
    let x = Tensor::from_vec(vec![-1.0, 4.0], &[2]);
    // √x at x = -1 is NaN: both values are NaN, which never passes
    let Err(GradcheckError::Mismatch { worst, .. }) = gradcheck(|x| x[0].sqrt(), &[x]) else {
        panic!("NaN must not pass")
    };
    assert_eq!(worst.index, [0]);
    assert!(worst.error.is_infinite());
}
