//! Remainders in `#[differentiable]` code: `%` and `%=` on floats (Rust's truncated
//! remainder, the row `rem`), `rem_euclid` (the row `rem_euclid`), `div_euclid` (an
//! integer-valued quotient: a constant) and `fract` (`x − x.trunc()`: derivative 1); and
//! `copysign` (`±x`).
//!
//! `a % b = a − n·b` with `n = trunc(a / b)`: 1 in `a`, `−n` in `b` between the jumps.
//! `a.rem_euclid(b) = a − q·b` with `q = a.div_euclid(b)`: 1 in `a`, `−q` in `b`, for
//! either sign of `b` (from Rust's definition, `r = a % b`, then `r + |b|` where `r < 0`:
//! `−trunc(a / b) + sign(b)` there, which is `−q`). At a jump the derivative is that of
//! the piece whose value the op returns (the remainder is 0 there: the start of the piece
//! of `n = a / b`), as `floor`'s zero is there: checked at jumps by hand, and on both
//! sides of each jump and away from them against the oracles.
//!
//! Oracles: generic bodies (`twice!`) against the same body run on dual numbers and
//! against central differences, orders 1 and 2; `f64`-only bodies (`rem_euclid`,
//! `div_euclid` and `fract`, which `num_traits::Float` lacks) against central
//! differences, orders 1 and 2, `jvp` against the gradient (`common::faces::Case`), and
//! the derivatives derived by hand; tensor bodies against the same body recorded op by op
//! (`f::primal`) and central differences, orders 1 and 2 (`common::check_annotated`), on
//! arrays and on 0-d inputs (the plain-number path).

#[macro_use]
mod common;

use common::twice::Twice;
use common::{Tolerance, check_annotated};
use gradtape::{Tensor, differentiable};

// ----- `%` in generic code, against dual numbers -----

twice! {
    /// A phase wrapped into one period, squared and weighted: `%` with a differentiable
    /// divisor, then `%` by a constant.
    fn wrapped_phase / wrapped_phase_on_duals<T>(x: T, period: T, weight: T) -> T {
        let phase = (x * T::from(3.0).unwrap()) % period;
        weight * phase * phase + phase % T::from(0.75).unwrap()
    }
}

fn check_wrapped_phase(x: f64, period: f64, weight: f64) {
    Twice {
        name: "wrapped_phase",
        itself: &|p| wrapped_phase(p[0], p[1], p[2]),
        primal: &|p| wrapped_phase::primal(p[0], p[1], p[2]),
        grad: &|p| {
            let (value, g) = wrapped_phase::grad(p[0], p[1], p[2]);
            (value, g.to_vec())
        },
        on_duals: &|d| wrapped_phase_on_duals(d[0], d[1], d[2]),
    }
    .check([x, period, weight]);
}

#[test]
fn remainder_by_a_differentiable_period_against_dual_numbers() {
    // 3x = 2·1.3 is a jump of `(3x) % 1.3`: on both sides of it, then away from every
    // jump, for both signs of the dividend and of the divisor
    let jump = 2.0 * 1.3 / 3.0;
    for x in [jump - 1e-3, jump + 1e-3, 0.3, -1.7, 2.45] {
        check_wrapped_phase(x, 1.3, 0.8);
        check_wrapped_phase(x, -1.3, 0.8);
    }
}

// ----- `%` and `%=` on f64, by hand at and around the jumps -----

/// `(3x) % p`: 3 in `x`, `−n` in `p`.
#[differentiable]
fn tripled_rem(x: f64, p: f64) -> f64 {
    (x * 3.0) % p
}

/// The same with `%=` on a local, then a product so that the Hessian is not zero.
#[differentiable]
fn tripled_rem_assign(x: f64, p: f64) -> f64 {
    let mut r = x * 3.0;
    r %= p;
    r * p
}

#[test]
fn remainder_operator_on_both_sides_of_a_jump_and_away() {
    // 3x = 2·1.5 at x = 1: the jump from n = 1 to n = 2
    for (x, p, n) in [
        (1.0 - 1e-3, 1.5, 1.0),
        (1.0 + 1e-3, 1.5, 2.0),
        (0.2, 1.5, 0.0),
        (-1.3, 1.5, -2.0),
        (2.3, -1.5, -4.0),
        (-2.3, -1.5, 4.0),
    ] {
        numbers!(tripled_rem(0, 1)).check_with_second_order(&[x, p]);
        numbers!(tripled_rem_assign(0, 1)).check_with_second_order(&[x, p]);
        let (value, g) = tripled_rem::grad(x, p);
        assert_eq!(value.to_bits(), ((x * 3.0) % p).to_bits());
        assert_eq!(g, [3.0, -n], "({x}, {p})");
        // d/dp (r p) = r + p·(−n)
        let (r, g) = tripled_rem_assign::grad(x, p);
        assert_eq!(g[0], 3.0 * p);
        assert!((g[1] - (r / p - n * p)).abs() < 1e-12, "({x}, {p}): {g:?}");
    }
}

#[test]
fn remainder_at_a_jump_has_the_derivative_of_the_piece_it_returns() {
    // at 3x = 2p exactly the remainder is 0, the start of the piece n = 2 (the right side
    // for positive operands), whose derivative in p is −2
    let (value, g) = tripled_rem::grad(1.0, 1.5);
    assert_eq!(value, 0.0);
    assert_eq!(g, [3.0, -2.0]);
    assert_eq!(tripled_rem::jvp(1.0, 1.5, 0.0, 1.0), (0.0, -2.0));
    // a negative dividend: (−3) % 1.5 = −0, the piece n = −2
    let (value, g) = tripled_rem::grad(-1.0, 1.5);
    assert_eq!(value, 0.0);
    assert_eq!(g, [3.0, 2.0]);
}

/// `a % b` alone.
#[differentiable]
fn plain_rem(a: f64, b: f64) -> f64 {
    a % b
}

#[test]
fn remainder_a_hair_below_a_jump_takes_its_own_piece() {
    // the quotient a / b rounds up to 25 while the remainder is still 24's (x − 24·b, just
    // below b): the derivative in b is −24, the slope of the piece the value is on; from
    // trunc(a / b) it would be −25, the next piece's
    let (a, b) = (119.38069778508886_f64, 4.7752279114035545);
    assert_eq!((a / b).trunc(), 25.0);
    assert_eq!((a % b).to_bits(), (a - 24.0 * b).to_bits());
    let (value, g) = plain_rem::grad(a, b);
    assert_eq!(value.to_bits(), plain_rem(a, b).to_bits());
    assert_eq!(g, [1.0, -24.0]);
    assert_eq!(plain_rem::jvp(a, b, 0.0, 1.0).1, -24.0);
}

// ----- `rem_euclid`, `div_euclid`, `fract` on f64 -----

/// An angle wrapped into `[0, |turn|)`, times the turn.
#[differentiable]
fn wrapped_angle(theta: f64, turn: f64) -> f64 {
    (theta * 2.0).rem_euclid(turn) * turn
}

/// `rem_euclid` alone.
#[differentiable]
fn euclid(a: f64, b: f64) -> f64 {
    a.rem_euclid(b)
}

/// The same remainder by `div_euclid`, a constant: `t − k·p`.
#[differentiable]
fn cycles_removed(t: f64, p: f64) -> f64 {
    let k = t.div_euclid(p);
    (t - k * p) * t
}

/// `fract` of a product, scaled.
#[differentiable]
fn fractional(x: f64, y: f64) -> f64 {
    (x * y).fract() * y
}

#[test]
fn euclidean_remainder_for_both_signs_of_the_divisor() {
    // 2θ = 3·0.9 at θ = 1.35 (a jump for either sign of the turn); then away from jumps
    for theta in [1.35 - 1e-3, 1.35 + 1e-3, 0.2, -0.2, -1.9, 3.1] {
        for turn in [0.9, -0.9] {
            numbers!(wrapped_angle(0, 1)).check_with_second_order(&[theta, turn]);
            numbers!(euclid(0, 1)).check_with_second_order(&[2.0 * theta, turn]);
            // by hand: 1 in a, −a.div_euclid(b) in b
            let a = 2.0 * theta;
            let (r, g) = euclid::grad(a, turn);
            assert_eq!(r.to_bits(), a.rem_euclid(turn).to_bits());
            assert_eq!(g, [1.0, -a.div_euclid(turn)], "({a}, {turn})");
            assert!((0.0..0.9).contains(&r));
        }
    }
    // b < 0 from Rust's definition, a = −2.5, b = −2: a % b = −0.5 < 0, so the result is
    // a % b + |b| = a − trunc(a / b)·b − b = 1.5, whose derivative in b is
    // −trunc(a / b) − 1 = −2: −a.div_euclid(b)
    let (r, g) = euclid::grad(-2.5, -2.0);
    assert_eq!(r, 1.5);
    assert_eq!(g, [1.0, -2.0]);
    assert_eq!((-2.5_f64).div_euclid(-2.0), 2.0);
    // at a jump: a = 2b exactly, remainder 0, the piece q = 2 for b > 0 and q = −2 for
    // b < 0 (a = 2 = (−2)·(−1))
    assert_eq!(euclid::grad(2.0, 1.0), (0.0, [1.0, -2.0]));
    assert_eq!(euclid::grad(2.0, -1.0), (0.0, [1.0, 2.0]));
    assert_eq!(euclid::grad(-2.0, 1.0), (0.0, [1.0, 2.0]));
}

#[test]
fn div_euclid_is_a_constant_and_fract_passes_the_gradient() {
    for (t, p) in [(2.7, 0.8), (-2.7, 0.8), (2.7, -0.8), (0.3, 0.8)] {
        numbers!(cycles_removed(0, 1)).check_with_second_order(&[t, p]);
        // d/dt (t − k p) t = (t − k p) + t, d/dp = −k t
        let k = t.div_euclid(p);
        let (value, g) = cycles_removed::grad(t, p);
        assert_eq!(value.to_bits(), ((t - k * p) * t).to_bits());
        assert!((g[0] - ((t - k * p) + t)).abs() < 1e-12);
        assert!((g[1] + k * t).abs() < 1e-12);
    }
    for (x, y) in [(1.3, 2.1), (-1.3, 2.1), (0.4, -0.7)] {
        numbers!(fractional(0, 1)).check_with_second_order(&[x, y]);
        // d/dx fract(x y) y = y², d/dy = x y + fract(x y)
        let (value, g) = fractional::grad(x, y);
        assert_eq!(value.to_bits(), ((x * y).fract() * y).to_bits());
        assert!((g[0] - y * y).abs() < 1e-12);
        assert!((g[1] - (x * y + (x * y).fract())).abs() < 1e-12);
    }
}

// ----- tensors -----

/// A sawtooth and a Euclidean wrap of tensors, by tensor and by constant divisors.
#[differentiable]
fn sawtooth_wave(t: &Tensor<f64>, period: &Tensor<f64>) -> Tensor<f64> {
    let phase = (t % period) / period;
    let wrapped = t.rem_euclid(period) * period;
    &phase * &phase + wrapped + (t * 2.0) % 0.9 + t.rem_euclid(-0.7)
}

fn tensor(values: &[f64], shape: &[usize]) -> Tensor<f64> {
    Tensor::from_vec(values.to_vec(), shape)
}

#[test]
fn remainders_on_tensors() {
    let f = |x: &[Tensor<f64>]| sawtooth_wave(&x[0], &x[1]);
    let plain = |x: &[Tensor<f64>]| sawtooth_wave::primal(&x[0], &x[1]);
    // dividends on either side of zero spanning several periods, divisors of both signs
    // (each point away from the jumps of all four remainders)
    let t = tensor(&[2.3, -1.75, 0.4, -3.1, 5.2, 1.05], &[2, 3]);
    let period = tensor(&[0.85, -1.2, 1.45], &[3]);
    check_annotated("sawtooth_wave", &[t, period], &f, &plain, Tolerance::F64, 3).unwrap();
    for (t, p) in [(2.3, 0.85), (-1.75, -1.2), (0.4, 1.45)] {
        let inputs = [Tensor::scalar(t), Tensor::scalar(p)];
        check_annotated("sawtooth_wave 0-d", &inputs, &f, &plain, Tolerance::F64, 4).unwrap();
    }
}

// ----- `copysign` -----

twice! {
    /// A magnitude given the sign of a differentiable source: `copysign` is `±x`, slope
    /// `±1` in `x`, none in the sign (piecewise constant, as `signum`).
    fn signed_magnitude / signed_magnitude_on_duals<T>(x: T, s: T) -> T {
        let m = (x * x + T::one()).ln();
        m.copysign(s) * x + x.copysign(s * x - T::one())
    }
}

/// `copysign` alone.
#[differentiable]
fn with_sign_of(x: f64, s: f64) -> f64 {
    x.copysign(s)
}

#[test]
fn copysign_against_dual_numbers_and_at_zero() {
    // on both sides of each sign change of the sign source, for both signs of x
    for x in [0.7, -0.7, 1.9] {
        for s in [0.3, -0.3, 2.5, -2.5] {
            Twice {
                name: "signed_magnitude",
                itself: &|p| signed_magnitude(p[0], p[1]),
                primal: &|p| signed_magnitude::primal(p[0], p[1]),
                grad: &|p| {
                    let (value, g) = signed_magnitude::grad(p[0], p[1]);
                    (value, g.to_vec())
                },
                on_duals: &|d| signed_magnitude_on_duals(d[0], d[1]),
            }
            .check([x, s]);
        }
    }
    // the same bits as std's, ±0 and a NaN sign source included
    for (x, s) in [
        (0.0, -1.0),
        (-0.0, 1.0),
        (2.5, f64::NAN),
        (-2.5, -f64::NAN),
        (1.5, -0.0),
    ] {
        let (value, _) = with_sign_of::grad(x, s);
        assert_eq!(value.to_bits(), x.copysign(s).to_bits(), "({x}, {s})");
        assert_eq!(with_sign_of(x, s).to_bits(), x.copysign(s).to_bits());
    }
    // at x = ±0 the slope of the side its sign bit is on: +0 with a negative sign is the
    // piece x > 0 of −x
    assert_eq!(with_sign_of::grad(0.0, -1.0).1, [-1.0, 0.0]);
    assert_eq!(with_sign_of::grad(-0.0, -1.0).1, [1.0, 0.0]);
    assert_eq!(with_sign_of::grad(-3.0, 2.0).1, [-1.0, 0.0]);
    assert_eq!(with_sign_of::jvp(-3.0, 2.0, 1.0, 1.0), (3.0, -1.0));
}
