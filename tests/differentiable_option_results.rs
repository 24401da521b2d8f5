//! Functions with an `Option` result (`fn root(a: f64, b: f64) -> Option<f64>`), and the
//! annotated callers that read them by `match`, `if let`, `let .. else`, `unwrap_or`,
//! `map_or`, `expect` (session 36: "`Option<f64>` cannot be the result of a
//! #[differentiable] function", and a caller's option local built by a call was rejected).
//!
//! A callee is checked on its own faces: `primal`, `grad`, `jvp` and `vjp` agree on the
//! variant (all `None` together); where it is `Some`, the value to the bit, the gradient
//! against central differences (at points away from where the variant changes), `jvp`
//! against the gradient, `vjp`'s pullback at one against it, and the second order by
//! differences of the gradient against second differences of the value. Callers are
//! checked as every annotated function is (`Case`, second order included), on both sides
//! of their callees' variants.

#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use common::faces::point;
use common::{central_differences, close};
use gradtape::{Float, differentiable};

// ----- callees -----

/// The larger real root of `a t² + b t + c`, none for a negative discriminant or a
/// degenerate quadratic.
#[differentiable]
fn larger_root(a: f64, b: f64, c: f64) -> Option<f64> {
    if a == 0.0 {
        return None;
    }
    let discriminant = b * b - 4.0 * a * c;
    if discriminant < 0.0 {
        return None;
    }
    Some((-b + discriminant.sqrt()) / (2.0 * a))
}

/// Where a sampled signal first rises through `level`, linearly interpolated between the
/// samples, in units of the sampling step; none if it never does.
#[differentiable]
fn first_crossing(samples: &[f64], level: f64) -> Option<f64> {
    for i in 1..samples.len() {
        if samples[i - 1] < level && samples[i] >= level {
            let fraction = (level - samples[i - 1]) / (samples[i] - samples[i - 1]);
            return Some((i - 1) as f64 + fraction);
        }
    }
    None
}

/// The distance along a unit-normalised ray to the nearest hit of a sphere of `radius` at
/// the origin, none for a miss or a sphere behind.
#[differentiable]
fn ray_sphere(origin: &[f64], direction: &[f64], radius: f64) -> Option<f64> {
    let mut length = 0.0;
    for k in 0..3 {
        length += direction[k] * direction[k];
    }
    let length = length.sqrt();
    let mut along = 0.0;
    let mut distance = 0.0;
    for k in 0..3 {
        along += origin[k] * direction[k] / length;
        distance += origin[k] * origin[k];
    }
    let disc = along * along - (distance - radius * radius);
    if disc < 0.0 {
        None
    } else {
        let t = -along - disc.sqrt();
        if t > 0.0 { Some(t) } else { None }
    }
}

/// A log return, none where a price is not positive.
#[differentiable]
fn log_return(before: f64, after: f64) -> Option<f64> {
    if before <= 0.0 || after <= 0.0 {
        None
    } else {
        Some((after / before).ln())
    }
}

/// A square root, none for a negative number; generic over the float type.
#[differentiable]
fn checked_sqrt<T: Float>(x: T) -> Option<T> {
    if x < T::zero() { None } else { Some(x.sqrt()) }
}

/// Newton's iteration for `√c`, none for a negative `c` or when it has not converged in
/// `limit` steps; the option built in the loop and returned whole.
#[differentiable]
fn newton_sqrt(c: f64, limit: usize) -> Option<f64> {
    if c < 0.0 {
        return None;
    }
    let mut x = c.max(1.0);
    let mut found = None;
    for _ in 0..limit {
        x = 0.5 * (x + c / x);
        if (x * x - c).abs() <= 1e-12 * c.max(1.0) {
            found = Some(x);
            break;
        }
    }
    found
}

/// Another function's option returned as it is, or none past a cut-off.
#[differentiable]
fn root_below(a: f64, b: f64, c: f64, cut: f64) -> Option<f64> {
    if b > cut {
        return None;
    }
    larger_root(a, b, c)
}

/// `?` on options: the first element's ratio to the second, through a slice's `first()`
/// and another function's root (each `?` the `return None` it is).
#[differentiable]
fn ratio_of_roots(x: &[f64]) -> Option<f64> {
    let first = x.first().copied()?;
    let root = larger_root(first, x[1], x[2])?;
    Some(root / first + larger_root(1.0, x[2], -first)?)
}

// ----- the callees' faces -----

/// The value at a point, `None` where the function returns `None`.
type OptionValue<'a> = &'a dyn Fn(&[f64]) -> Option<f64>;
/// The value and the gradient at a point.
type OptionGradient<'a> = &'a dyn Fn(&[f64]) -> Option<(f64, Vec<f64>)>;
/// The value and the tangent at a point along a direction.
type OptionTangent<'a> = &'a dyn Fn(&[f64], &[f64]) -> Option<(f64, f64)>;

/// A function with an `Option` result on a flat vector of its inputs.
struct OptionCase<'a> {
    name: &'a str,
    itself: OptionValue<'a>,
    primal: OptionValue<'a>,
    grad: OptionGradient<'a>,
    /// The pullback applied to one.
    vjp: OptionGradient<'a>,
    jvp: OptionTangent<'a>,
}

impl OptionCase<'_> {
    /// Every face `None` together; else the values to the bit, the gradient against
    /// central differences and the pullback, the tangent against the gradient, and the
    /// Hessian by differences of the gradient against second differences of the value.
    fn check(&self, x: &[f64], some: bool) {
        let name = self.name;
        let value = (self.primal)(x);
        assert_eq!(value.is_some(), some, "{name} at {x:?}: the variant");
        assert_eq!(
            (self.itself)(x).map(f64::to_bits),
            value.map(f64::to_bits),
            "{name}"
        );
        let v = point(x.len(), 17, -1.0, 1.0);
        let (Some(value), Some((by_grad, gradient)), Some((by_vjp, pulled)), Some((by_jvp, t))) =
            (value, (self.grad)(x), (self.vjp)(x), (self.jvp)(x, &v))
        else {
            assert!((self.grad)(x).is_none(), "{name} at {x:?}: grad is Some");
            assert!((self.vjp)(x).is_none(), "{name} at {x:?}: vjp is Some");
            assert!((self.jvp)(x, &v).is_none(), "{name} at {x:?}: jvp is Some");
            return;
        };
        for (face, by) in [("grad", by_grad), ("vjp", by_vjp), ("jvp", by_jvp)] {
            assert_eq!(by.to_bits(), value.to_bits(), "{name}: {face}'s value");
        }
        assert_eq!(gradient, pulled, "{name}: the pullback at one");
        let f = |x: &[f64]| (self.primal)(x).expect("a point inside the `Some` region");
        let expected = central_differences(&f, x);
        for (k, (g, e)) in gradient.iter().zip(&expected).enumerate() {
            assert!(
                close(*g, *e, 1e-5),
                "{name}: d/dx{k} = {g}, differences {e}"
            );
        }
        let dot: f64 = gradient.iter().zip(&v).map(|(g, v)| g * v).sum();
        assert!(close(t, dot, 1e-10), "{name}: jvp {t} vs <grad, v> {dot}");
        // second order: the gradient's differences against the value's second differences
        let (n, h) = (x.len(), 1e-4);
        let shifted = |x: &[f64], k: usize, s: f64| -> Vec<f64> {
            let mut y = x.to_vec();
            y[k] += s;
            y
        };
        for j in 0..n {
            let up = (self.grad)(&shifted(x, j, h)).expect("inside").1;
            let down = (self.grad)(&shifted(x, j, -h)).expect("inside").1;
            for i in 0..n {
                let of_grad = (up[i] - down[i]) / (2.0 * h);
                let at = |s: f64, t: f64| f(&shifted(&shifted(x, i, s), j, t));
                let second = (at(h, h) - at(h, -h) - at(-h, h) + at(-h, -h)) / (4.0 * h * h);
                assert!(
                    close(of_grad, second, 1e-4),
                    "{name}: H[{i}][{j}] = {of_grad}, second differences {second}"
                );
            }
        }
    }
}

/// The `OptionCase` of a function of numbers, `f(x[0], x[1], ..)`.
macro_rules! option_numbers {
    ($f:ident($($k:tt),+) $(; $constant:expr)?) => {
        OptionCase {
            name: stringify!($f),
            itself: &|x| $f($(x[$k]),+ $(, $constant)?),
            primal: &|x| $f::primal($(x[$k]),+ $(, $constant)?),
            grad: &|x| $f::grad($(x[$k]),+ $(, $constant)?).map(|(v, g)| (v, g.to_vec())),
            vjp: &|x| {
                $f::vjp($(x[$k]),+ $(, $constant)?).map(|(v, pullback)| {
                    let entries = pullback(1.0);
                    (v, option_numbers!(@entries entries; $($k),+))
                })
            },
            jvp: &|x, t| {
                $f::jvp($(x[$k]),+ $(, $constant)?, $(t[$k]),+)
            },
        }
    };
    (@entries $e:ident; 0) => { vec![$e.0.unwrap_or(0.0)] };
    (@entries $e:ident; 0, 1) => { vec![$e.0.unwrap_or(0.0), $e.1.unwrap_or(0.0)] };
    (@entries $e:ident; 0, 1, 2) => {
        vec![$e.0.unwrap_or(0.0), $e.1.unwrap_or(0.0), $e.2.unwrap_or(0.0)]
    };
    (@entries $e:ident; 0, 1, 2, 3) => {
        vec![$e.0.unwrap_or(0.0), $e.1.unwrap_or(0.0), $e.2.unwrap_or(0.0), $e.3.unwrap_or(0.0)]
    };
}

#[test]
fn a_quadratic_root_is_differentiated_where_it_exists() {
    let case = option_numbers!(larger_root(0, 1, 2));
    case.check(&[1.0, -3.0, 1.0], true);
    case.check(&[-0.5, 0.7, 2.0], true);
    case.check(&[1.0, 1.0, 1.0], false);
    case.check(&[0.0, 1.0, 1.0], false);
    // the closed form: d/dc of the larger root of t² - 3t + c is -1 / √(9 - 4c)
    let (_, [_, _, dc]) = larger_root::grad(1.0, -3.0, 1.0).unwrap();
    assert!(close(dc, -1.0 / 5.0_f64.sqrt(), 1e-12), "{dc}");
}

#[test]
fn a_log_return_and_a_checked_square_root() {
    let case = option_numbers!(log_return(0, 1));
    case.check(&[2.0, 3.0], true);
    case.check(&[-2.0, 3.0], false);
    case.check(&[2.0, 0.0], false);
    let generic = OptionCase {
        name: "checked_sqrt",
        itself: &|x| checked_sqrt(x[0]),
        primal: &|x| checked_sqrt::primal(x[0]),
        grad: &|x| checked_sqrt::grad(x[0]).map(|(v, g)| (v, g.to_vec())),
        vjp: &|x| checked_sqrt::vjp(x[0]).map(|(v, pullback)| (v, vec![pullback(1.0).0.unwrap()])),
        jvp: &|x, t| checked_sqrt::jvp(x[0], t[0]),
    };
    generic.check(&[2.5], true);
    generic.check(&[-2.5], false);
    // f32: the derivative against the closed form
    let (value, [d]) = checked_sqrt::grad(4.0_f32).unwrap();
    assert_eq!(value, 2.0);
    assert!((d - 0.25).abs() < 1e-7, "{d}");
    assert!(checked_sqrt::grad(-4.0_f32).is_none());
}

#[test]
fn an_option_built_in_a_loop_and_returned_whole() {
    let case = option_numbers!(newton_sqrt(0); 60);
    case.check(&[2.0], true);
    case.check(&[-2.0], false);
    // too few steps to converge: none
    assert!(newton_sqrt::grad(1e6, 3).is_none());
    let (value, [d]) = newton_sqrt::grad(9.0, 60).unwrap();
    assert!(
        close(value, 3.0, 1e-12) && close(d, 1.0 / 6.0, 1e-9),
        "{value} {d}"
    );
}

#[test]
fn another_functions_option_returned() {
    let case = option_numbers!(root_below(0, 1, 2, 3));
    case.check(&[1.0, -3.0, 1.0, 0.0], true);
    case.check(&[1.0, -3.0, 1.0, -4.0], false);
    case.check(&[1.0, 1.0, 1.0, 2.0], false);
}

#[test]
fn a_question_mark_returns_none() {
    let case = OptionCase {
        name: "ratio_of_roots",
        itself: &|x| ratio_of_roots(x),
        primal: &|x| ratio_of_roots::primal(x),
        grad: &|x| ratio_of_roots::grad(x).map(|(v, [g])| (v, g)),
        vjp: &|x| ratio_of_roots::vjp(x).map(|(v, pullback)| (v, pullback(1.0).0.unwrap())),
        jvp: &|x, t| ratio_of_roots::jvp(x, t),
    };
    case.check(&[1.0, -3.0, 1.0], true);
    // each `?` in turn: an empty slice; no real root of t² + t + 1; a root of the first
    // quadratic, but none of t² + t + 1 (the second, c = 1 and -first = 1)
    case.check(&[], false);
    case.check(&[1.0, 1.0, 1.0], false);
    case.check(&[-1.0, 0.5, 1.0], false);
}

#[test]
fn slices_and_options() {
    let crossing = OptionCase {
        name: "first_crossing",
        itself: &|x| first_crossing(&x[..4], x[4]),
        primal: &|x| first_crossing::primal(&x[..4], x[4]),
        grad: &|x| {
            first_crossing::grad(&x[..4], x[4]).map(|(v, (samples, level))| {
                let mut g = samples;
                g.push(level);
                (v, g)
            })
        },
        vjp: &|x| {
            first_crossing::vjp(&x[..4], x[4]).map(|(v, pullback)| {
                let (samples, level) = pullback(1.0);
                let mut g = samples.unwrap();
                g.push(level.unwrap());
                (v, g)
            })
        },
        jvp: &|x, t| first_crossing::jvp(&x[..4], x[4], &t[..4], t[4]),
    };
    crossing.check(&[0.0, 0.2, 0.9, 0.4, 0.5], true);
    crossing.check(&[0.0, 0.2, 0.3, 0.4, 0.5], false);
    let sphere = OptionCase {
        name: "ray_sphere",
        itself: &|x| ray_sphere(&x[..3], &x[3..6], x[6]),
        primal: &|x| ray_sphere::primal(&x[..3], &x[3..6], x[6]),
        grad: &|x| {
            ray_sphere::grad(&x[..3], &x[3..6], x[6])
                .map(|(v, (o, d, r))| (v, [o, d, vec![r]].concat()))
        },
        vjp: &|x| {
            ray_sphere::vjp(&x[..3], &x[3..6], x[6]).map(|(v, pullback)| {
                let (o, d, r) = pullback(1.0);
                (v, [o.unwrap(), d.unwrap(), vec![r.unwrap()]].concat())
            })
        },
        jvp: &|x, t| ray_sphere::jvp(&x[..3], &x[3..6], x[6], &t[..3], &t[3..6], t[6]),
    };
    // from (0, 0, -3) towards the sphere, slightly off the axis
    sphere.check(&[0.1, -0.2, -3.0, 0.05, 0.1, 1.0, 1.0], true);
    // pointing away, and passing beside
    sphere.check(&[0.1, -0.2, -3.0, 0.05, 0.1, -1.0, 1.0], false);
    sphere.check(&[2.0, 0.0, -3.0, 0.0, 0.0, 1.0, 1.0], false);
}

// ----- callers -----

/// The time a thrown ball lands: the positive root of its height, `match` with a guard.
#[differentiable]
fn landing_time(x: &[f64]) -> f64 {
    let (height, speed, gravity) = (x[0], x[1], x[2]);
    // 0.5 g t² - v t - h = 0
    match larger_root(0.5 * gravity, -speed, -height) {
        Some(t) if t > 0.0 => t,
        Some(_) => 0.0,
        None => 0.0,
    }
}

/// The squared log returns of a price series, the undefined ones skipped (`if let` in a
/// loop: a replayed call each trip).
#[differentiable]
fn squared_returns(prices: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 1..prices.len() {
        if let Some(r) = log_return(prices[i - 1], prices[i]) {
            total += r * r;
        }
    }
    total
}

/// A ray's shade: `let .. else` on the hit, dark where it misses.
#[differentiable]
fn shade(x: &[f64]) -> f64 {
    let Some(t) = ray_sphere(&x[..3], &x[3..6], 1.0) else {
        return 0.0;
    };
    (-0.5 * t).exp() * x[6]
}

/// A crossing or the end of the record, `unwrap_or` on the call, `map_or` on a local.
#[differentiable]
fn crossing_or_end(x: &[f64]) -> f64 {
    let at = first_crossing(&x[..4], x[4]).unwrap_or(x.len() as f64);
    let root = log_return(x[0] + 1.0, x[1] + 1.0);
    at * x[0] + root.map_or(0.0, |r| r * x[3])
}

/// Generic code: `map_or` on a generic callee's option (`total = total + ..` as generic
/// code over `num_traits::Float` writes it).
#[allow(clippy::assign_op_pattern)]
#[differentiable]
fn generic_roots<T: Float>(x: &[T]) -> T {
    let mut total = T::zero();
    for i in 0..x.len() {
        total = total + checked_sqrt(x[i]).map_or(T::zero(), |r| r * x[0]);
    }
    total
}

/// An option local assigned a call in a loop, read after it (`expect` behind `is_some`,
/// as the form under test).
#[allow(clippy::unnecessary_unwrap)]
#[differentiable]
fn last_root(x: &[f64]) -> f64 {
    let mut last = None;
    for i in 2..x.len() {
        if x[i] > 0.0 {
            last = larger_root(1.0, x[i - 1], -x[i]);
        }
    }
    if last.is_some() {
        last.expect("a root") * x[0]
    } else {
        x[0]
    }
}

/// A call's option read inside an iterator's closure (`unwrap_or`, a `match`): the
/// desugared loop's body, which `options` reads after the desugaring.
#[differentiable]
fn summed_inverses(x: &[f64]) -> f64 {
    let direct: f64 = x.iter().map(|&v| log_return(1.0, v).unwrap_or(0.0)).sum();
    let matched: f64 = x
        .iter()
        .map(|&v| match larger_root(1.0, v, -1.0) {
            Some(r) => r * r,
            None => 0.0,
        })
        .sum();
    direct + matched
}

/// Index of a tabulated constant:/// Index of a tabulated constant: an option of constants from a plain function, matched
/// as before (its value is no float: the call is read as written).
fn table_index(k: usize) -> Option<usize> {
    (k < 3).then_some(k + 1)
}

#[differentiable]
fn read_by_a_constant_option(x: &[f64]) -> f64 {
    match table_index(1) {
        Some(i) => x[i] * x[0],
        None => 0.0,
    }
}

#[test]
fn callers_read_the_option_by_match_if_let_and_let_else() {
    // lands (height 2, speed 3, gravity 9.8: after about a second), and never reaches a
    // height 2 above it (no real root)
    assert!(landing_time(&[2.0, 3.0, 9.8]) > 1.0);
    slices!(@second_order landing_time, [3], [0], vec![2.0, 3.0, 9.8]);
    assert_eq!(landing_time(&[-2.0, 1.0, 9.8]), 0.0);
    slices!(@second_order landing_time, [3], [0], vec![-2.0, 1.0, 9.8]);
    // every return defined, and one price not positive (its two returns skipped)
    slices!(@second_order squared_returns, [5], [0], vec![1.0, 1.2, 0.9, 1.4, 1.1]);
    slices!(@second_order squared_returns, [5], [0], vec![1.0, 1.2, -0.9, 1.4, 1.1]);
    slices!(@second_order shade, [7], [0], vec![0.1, -0.2, -3.0, 0.05, 0.1, 1.0, 0.8]);
    slices!(@second_order shade, [7], [0], vec![0.1, -0.2, -3.0, 0.05, 0.1, -1.0, 0.8]);
}

#[test]
fn callers_read_the_option_by_its_methods() {
    slices!(@second_order crossing_or_end, [5], [0], vec![0.0, 0.2, 0.9, 0.4, 0.5]);
    slices!(@second_order crossing_or_end, [5], [0], vec![0.0, 0.2, 0.3, 0.4, 0.5]);
    slices!(@second_order generic_roots, [4], [0], vec![0.7, 1.3, -0.4, 2.2]);
    slices!(@second_order last_root, [5], [0], vec![0.7, -1.3, 0.4, 0.9, -0.2]);
    slices!(@second_order last_root, [4], [0], vec![0.7, -1.3, -0.4, -0.9]);
    slices!(@second_order read_by_a_constant_option, [3], [0], point(3, 5, -1.0, 1.0));
    // a negative price: its return is none, read as zero
    slices!(@second_order summed_inverses, [4], [0], vec![0.7, 1.3, -0.4, 2.2]);
    // f32 through the generic callee: against the closed form
    let (value, [g]) = generic_roots::grad(&[4.0_f32, 9.0]);
    assert_eq!(value, 4.0 * 2.0 + 4.0 * 3.0);
    let expected = [2.0 + 4.0 * 0.25 + 3.0, 4.0 / 6.0];
    for (g, e) in g.iter().zip(expected) {
        assert!((g - e).abs() < 1e-6, "{g} vs {e}");
    }
}

#[test]
fn an_expect_on_none_panics_as_options_does() {
    #[differentiable]
    fn expected_root(x: &[f64]) -> f64 {
        larger_root(x[0], x[1], x[2]).expect("a real root")
    }
    let caught = std::panic::catch_unwind(|| expected_root::grad(&[1.0, 1.0, 1.0]));
    let message = caught.expect_err("no real root");
    let text = message
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| message.downcast_ref::<&str>().copied())
        .unwrap_or_default();
    assert_eq!(text, "a real root");
    slices!(expected_root, [3], [0], vec![1.0, -3.0, 1.0]);
}
