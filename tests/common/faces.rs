//! One function's faces on a flat vector of all its inputs, checked against each other
//! and against central differences: the harness of `tests/differentiable_slices.rs` and
//! `tests/differentiable_arrays.rs` (`f`, `f::primal`, `f::grad`, `f::grad_into`,
//! `f::jvp` of a scalar-mode function over arrays).

use super::{central_differences, close};

/// A deterministic point in `[lo, hi)` per coordinate (SplitMix64).
pub fn point(n: usize, seed: u64, lo: f64, hi: f64) -> Vec<f64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            lo + (hi - lo) * (z >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

/// The value at a point.
pub type Value<'a> = &'a dyn Fn(&[f64]) -> f64;
/// The value and the gradient at a point.
pub type Gradient<'a> = &'a dyn Fn(&[f64]) -> (f64, Vec<f64>);
/// The value and the tangent at a point along a direction.
pub type Tangent<'a> = &'a dyn Fn(&[f64], &[f64]) -> (f64, f64);

/// A function's faces on a flat vector of all its inputs (row after row for a matrix).
pub struct Case<'a> {
    pub name: &'a str,
    pub itself: Value<'a>,
    pub primal: Value<'a>,
    /// `None` for a function without `grad` (one writing a `&mut` array).
    pub grad: Option<Gradient<'a>>,
    pub grad_into: Gradient<'a>,
    pub jvp: Tangent<'a>,
}

impl Case<'_> {
    /// Values to the bit, `grad_into` against `grad` to the bit, the gradient against
    /// central differences, `jvp` against `<grad, v>`.
    pub fn check(&self, x: &[f64]) {
        let name = self.name;
        let value = (self.primal)(x);
        assert_eq!(
            (self.itself)(x).to_bits(),
            value.to_bits(),
            "{name}: itself"
        );
        let (by_into, into) = (self.grad_into)(x);
        assert_eq!(
            by_into.to_bits(),
            value.to_bits(),
            "{name}: grad_into's value"
        );
        if let Some(grad) = self.grad {
            let (by_grad, gradient) = grad(x);
            assert_eq!(by_grad.to_bits(), value.to_bits(), "{name}: grad's value");
            let bits = |v: &[f64]| v.iter().map(|g| g.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&gradient), bits(&into), "{name}: grad_into vs grad");
        }
        let expected = central_differences(self.primal, x);
        for (k, (g, e)) in into.iter().zip(&expected).enumerate() {
            assert!(
                close(*g, *e, 1e-5),
                "{name}: d/dx{k} = {g}, central differences {e}"
            );
        }
        let v = point(x.len(), 99, -1.0, 1.0);
        let (by_jvp, tangent) = (self.jvp)(x, &v);
        assert_eq!(by_jvp.to_bits(), value.to_bits(), "{name}: jvp's value");
        let dot: f64 = into.iter().zip(&v).map(|(g, v)| g * v).sum();
        assert!(
            close(tangent, dot, 1e-10),
            "{name}: jvp {tangent} vs <grad, v> {dot}"
        );
    }

    /// [`check`](Self::check), then second order as scalar mode has it.
    pub fn check_with_second_order(&self, x: &[f64]) {
        self.check(x);
        let v = point(x.len(), 99, -1.0, 1.0);
        self.check_second_order(x, &v);
    }

    /// Row `i` of the Hessian by central differences of the gradient against second
    /// differences of the value, and `d/ds jvp(x + s e_j, v)` against `e_jᵀ H v` by second
    /// differences.
    fn check_second_order(&self, x: &[f64], v: &[f64]) {
        let (name, n, h) = (self.name, x.len(), 1e-4);
        let grad = self
            .grad
            .unwrap_or_else(|| panic!("{name}: second order needs `grad`"));
        let along = |x: &[f64], d: &[f64], s: f64| -> Vec<f64> {
            x.iter().zip(d).map(|(x, d)| x + s * d).collect()
        };
        let unit = |j: usize| -> Vec<f64> { (0..n).map(|k| f64::from(k == j)).collect() };
        let f = |x: &[f64]| (self.primal)(x);
        for j in 0..n {
            let e = unit(j);
            let (up, down) = (grad(&along(x, &e, h)).1, grad(&along(x, &e, -h)).1);
            for i in 0..n {
                let of_grad = (up[i] - down[i]) / (2.0 * h);
                let ei = unit(i);
                let at = |s: f64, t: f64| f(&along(&along(x, &ei, s), &e, t));
                let second = (at(h, h) - at(h, -h) - at(-h, h) + at(-h, -h)) / (4.0 * h * h);
                assert!(
                    close(of_grad, second, 1e-4),
                    "{name}: H[{i}][{j}] = {of_grad} by the gradient, {second} by second differences"
                );
            }
            let of_jvp = ((self.jvp)(&along(x, &e, h), v).1 - (self.jvp)(&along(x, &e, -h), v).1)
                / (2.0 * h);
            let at = |s: f64, t: f64| f(&along(&along(x, &e, s), v, t));
            let second = (at(h, h) - at(h, -h) - at(-h, h) + at(-h, -h)) / (4.0 * h * h);
            assert!(
                close(of_jvp, second, 1e-4),
                "{name}: d/dx{j} jvp(v) = {of_jvp}, second differences {second}"
            );
        }
    }
}

/// Splits a flat vector into parts of the given lengths.
pub fn split(x: &[f64], lens: &[usize]) -> Vec<Vec<f64>> {
    let mut at = 0;
    lens.iter()
        .map(|&n| {
            at += n;
            x[at - n..at].to_vec()
        })
        .collect()
}

/// The faces of `f(x: &[f64], c)` with `c` a constant (a count, an index), at the point
/// `x`: checked (`slice_and_constant!(f, c, x)`) or checked with second order
/// (`slice_and_constant!(@second_order f, c, x)`).
#[allow(unused_macros)]
macro_rules! slice_and_constant {
    (@second_order $f:ident, $c:expr, $x:expr) => {
        slice_and_constant!(@run check_with_second_order; $f, $c, $x)
    };
    ($f:ident, $c:expr, $x:expr) => {
        slice_and_constant!(@run check; $f, $c, $x)
    };
    (@run $check:ident; $f:ident, $c:expr, $x:expr) => {{
        let c = $c;
        let x: Vec<f64> = $x;
        common::faces::Case {
            name: stringify!($f),
            itself: &|x| $f(x, c),
            primal: &|x| $f::primal(x, c),
            grad: Some(&|x| {
                let (value, [g]) = $f::grad(x, c);
                (value, g)
            }),
            grad_into: &|x| {
                let mut g = vec![0.0; x.len()];
                let value = $f::grad_into(x, c, &mut g);
                (value, g)
            },
            jvp: &|x, v| $f::jvp(x, c, v),
        }
        .$check(&x)
    }};
}

/// The faces of a function of plain `f64`s only, whose parameters are the flat point's
/// entries `k..` (no `grad_into`: `grad` stands in for it): `numbers!(f(0, 1))`, a
/// [`Case`] to check.
#[allow(unused_macros)]
macro_rules! numbers {
    ($f:ident($($k:literal),+)) => {
        common::faces::Case {
            name: stringify!($f),
            itself: &|x| $f($(x[$k]),+),
            primal: &|x| $f::primal($(x[$k]),+),
            grad: Some(&|x| {
                let (v, g) = $f::grad($(x[$k]),+);
                (v, g.to_vec())
            }),
            // float parameters only: no `grad_into`, `grad` stands in
            grad_into: &|x| {
                let (v, g) = $f::grad($(x[$k]),+);
                (v, g.to_vec())
            },
            jvp: &|x, t| $f::jvp($(x[$k]),+, $(t[$k]),+),
        }
    };
}

/// The faces of `f(x: &[f64], k: f64)` on the flat point `[x.., k]`: checked
/// (`slice_and_float!(f, x)`) or checked with second order
/// (`slice_and_float!(@second_order f, x)`).
#[allow(unused_macros)]
macro_rules! slice_and_float {
    (@second_order $f:ident, $x:expr) => {
        slice_and_float!(@run check_with_second_order; $f, $x)
    };
    ($f:ident, $x:expr) => {
        slice_and_float!(@run check; $f, $x)
    };
    (@run $check:ident; $f:ident, $x:expr) => {{
        let x: Vec<f64> = $x;
        let n = x.len() - 1;
        common::faces::Case {
            name: stringify!($f),
            itself: &|x| $f(&x[..n], x[n]),
            primal: &|x| $f::primal(&x[..n], x[n]),
            grad: Some(&|x| {
                let (v, (gs, gf)) = $f::grad(&x[..n], x[n]);
                (v, [gs, vec![gf]].concat())
            }),
            grad_into: &|x| {
                let (mut ds, mut df) = (vec![0.0; n], 0.0);
                let v = $f::grad_into(&x[..n], x[n], &mut ds, &mut df);
                (v, [ds, vec![df]].concat())
            },
            jvp: &|x, t| $f::jvp(&x[..n], x[n], &t[..n], t[n]),
        }
        .$check(&x)
    }};
}

/// The faces of a function whose parameters are all `&[f64]` slices, of lengths `lens`,
/// checked (`slices!(f, ..)`) or checked with second order (`slices!(@second_order f, ..)`).
#[allow(unused_macros)]
macro_rules! slices {
    (@second_order $f:ident, $lens:expr, [$($k:tt),+], $x:expr) => {
        slices!(@run check_with_second_order; $f, $lens, [$($k),+], $x)
    };
    ($f:ident, $lens:expr, [$($k:tt),+], $x:expr) => {
        slices!(@run check; $f, $lens, [$($k),+], $x)
    };
    (@run $check:ident; $f:ident, $lens:expr, [$($k:tt),+], $x:expr) => {{
        use common::faces::{Case, split};
        let lens: &[usize] = &$lens;
        let x: Vec<f64> = $x;
        Case {
            name: stringify!($f),
            itself: &|x| { let p = split(x, lens); $f($(&p[$k]),+) },
            primal: &|x| { let p = split(x, lens); $f::primal($(&p[$k]),+) },
            grad: Some(&|x| {
                let p = split(x, lens);
                let (value, g) = $f::grad($(&p[$k]),+);
                (value, g.concat())
            }),
            grad_into: &|x| {
                let p = split(x, lens);
                let mut d: Vec<Vec<f64>> = lens.iter().map(|&n| vec![0.0; n]).collect();
                let value = {
                    let mut buffers = d.iter_mut();
                    $f::grad_into($(&p[$k]),+, $({ let _ = $k; buffers.next().unwrap() }),+)
                };
                (value, d.concat())
            },
            jvp: &|x, v| {
                let (p, t) = (split(x, lens), split(v, lens));
                $f::jvp($(&p[$k]),+, $(&t[$k]),+)
            },
        }
        .$check(&x)
    }};
}

/// A plain-float function's faces: `f` itself and `f::primal` (the body as written), `f::grad`
/// (reverse mode) and `f::jvp` (forward mode), all at the same point.
pub struct Scalar<'a> {
    pub name: &'a str,
    pub itself: Value<'a>,
    pub primal: Value<'a>,
    pub grad: Gradient<'a>,
    pub jvp: Tangent<'a>,
}

impl Scalar<'_> {
    /// The value of `grad` and `jvp` is the body's, to the bit; the gradient matches
    /// central differences; the tangent along a direction `v` is `⟨∇f, v⟩`.
    pub fn check(&self, x: &[f64]) {
        let name = self.name;
        let value = (self.primal)(x);
        assert_eq!(
            (self.itself)(x).to_bits(),
            value.to_bits(),
            "`{name}` at {x:?}: itself"
        );
        let (by_grad, gradient) = (self.grad)(x);
        assert_eq!(
            by_grad.to_bits(),
            value.to_bits(),
            "`{name}` at {x:?}: grad's value"
        );
        let expected = central_differences(self.primal, x);
        for (k, (g, e)) in gradient.iter().zip(&expected).enumerate() {
            assert!(
                close(*g, *e, 1e-6),
                "`{name}` at {x:?}: ∂/∂x{k} {g} vs central differences {e}\n  {gradient:?}\n  {expected:?}"
            );
        }
        let v: Vec<f64> = (0..x.len()).map(|k| 0.5 - 0.3 * k as f64).collect();
        let (by_jvp, tangent) = (self.jvp)(x, &v);
        assert_eq!(
            by_jvp.to_bits(),
            value.to_bits(),
            "`{name}` at {x:?}: jvp's value"
        );
        let dot: f64 = gradient.iter().zip(&v).map(|(g, v)| g * v).sum();
        assert!(
            close(tangent, dot, 1e-10),
            "`{name}` at {x:?}: jvp {tangent} vs ⟨grad, v⟩ {dot}"
        );
    }
}

/// A face at a point and a direction (a cotangent or a tangent): the value and what the
/// direction gives (the gradient, the tangent), on flat vectors.
pub type Directed<'a> = &'a dyn Fn(&[f64], &[f64]) -> (Vec<f64>, Vec<f64>);

/// A vector-valued function's faces on flat vectors: the function, its primal, the
/// pullback of a cotangent (value, gradient) and `jvp` (value, tangent).
pub struct VectorFaces<'a> {
    pub name: &'a str,
    pub itself: &'a dyn Fn(&[f64]) -> Vec<f64>,
    pub primal: &'a dyn Fn(&[f64]) -> Vec<f64>,
    pub vjp: Directed<'a>,
    pub jvp: Directed<'a>,
}

impl VectorFaces<'_> {
    /// Values to the bit, each Jacobian row (pullback of a unit cotangent) against central
    /// differences, each column (`jvp` along a unit tangent) against the rows, then second
    /// order through `⟨w, f(x)⟩`.
    // (a Jacobian's entries indexed by row and column, two arrays at once)
    #[allow(clippy::needless_range_loop)]
    pub fn check(&self, x: &[f64]) {
        let name = self.name;
        let bits = |v: &[f64]| v.iter().map(|g| g.to_bits()).collect::<Vec<_>>();
        let value = (self.primal)(x);
        let (n, m) = (x.len(), value.len());
        assert_eq!(bits(&(self.itself)(x)), bits(&value), "{name}: itself");
        let unit =
            |k: usize, len: usize| -> Vec<f64> { (0..len).map(|i| f64::from(i == k)).collect() };
        let mut rows = Vec::new();
        for i in 0..m {
            let (by_vjp, row) = (self.vjp)(x, &unit(i, m));
            assert_eq!(bits(&by_vjp), bits(&value), "{name}: vjp's value");
            let expected = central_differences(&|x| (self.primal)(x)[i], x);
            for j in 0..n {
                assert!(
                    close(row[j], expected[j], 1e-6),
                    "{name}: d out{i} / d in{j} = {}, central differences {}",
                    row[j],
                    expected[j]
                );
            }
            rows.push(row);
        }
        for j in 0..n {
            let (by_jvp, column) = (self.jvp)(x, &unit(j, n));
            assert_eq!(bits(&by_jvp), bits(&value), "{name}: jvp's value");
            for i in 0..m {
                assert!(
                    close(column[i], rows[i][j], 1e-12),
                    "{name}: jvp's d out{i} / d in{j} = {}, the pullback's {}",
                    column[i],
                    rows[i][j]
                );
            }
        }
        // second order: the scalar ⟨w, f(x)⟩, its gradient the pullback of w
        let w = point(m, 7, -1.0, 1.0);
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a * b).sum::<f64>();
        let scalar = |x: &[f64]| dot(&w, &(self.primal)(x));
        let gradient = |x: &[f64]| {
            let (value, g) = (self.vjp)(x, &w);
            (dot(&w, &value), g)
        };
        Case {
            name,
            itself: &|x| dot(&w, &(self.itself)(x)),
            primal: &scalar,
            grad: Some(&gradient),
            grad_into: &gradient,
            jvp: &|x, t| {
                let (value, tangent) = (self.jvp)(x, t);
                (dot(&w, &value), dot(&w, &tangent))
            },
        }
        .check_with_second_order(x);
    }
}
