//! `#[differentiable]` functions a `macro_rules!` writes from fragments in their bodies
//! (issue 13): `$e:expr`, `$p:pat`, `$s:stmt`, `$b:block` and `$i:ident` in statements and
//! expressions, and whole functions built from fragments.
//!
//! rustc hands a proc macro each `expr`, `stmt` and `block` fragment wrapped in an
//! invisible (`None`-delimited) group, which syn keeps as `Expr::Group`; the group also
//! carries precedence (`$e * 2.0` with `$e = a + b` is `(a + b) * 2.0`). Each function is
//! checked through its faces (`f`, `f::primal`, `f::grad`, `f::grad_into` where it exists,
//! `f::jvp`) against each other, against central differences, and at second order as
//! scalar mode has it (`common::faces::Case`); tensor functions against their op-by-op
//! tape and central differences at orders 1 and 2 (`common::check_annotated`).

#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use common::faces::{Case, point};
use common::{Tolerance, check_annotated};
use gradtape::{Tensor, differentiable};

// ----- 1. `$e:expr`: precedence kept, and in every place an expression goes -----

/// `$e * 2.0` with `$e = a + b`: the group is `(a + b)`, never `a + b * 2.0`.
macro_rules! times_two {
    ($name:ident($a:ident, $b:ident) = $e:expr) => {
        #[differentiable]
        fn $name($a: f64, $b: f64) -> f64 {
            $e * 2.0
        }
    };
}

times_two!(sum_times_two(a, b) = a + b);
// a block-like fragment as an operand: `(if a > b { a } else { b }) * 2.0`
times_two!(larger_times_two(a, b) = if a > b { a.sin() } else { b * b });

/// The same fragment as a method's receiver (`$e.exp()` is `(-a * b).exp()`), as a
/// unary operand (`-$e`), as a divisor, in a `let` and in a condition.
macro_rules! expression_places {
    ($name:ident($a:ident, $b:ident) = $e:expr, $neg:expr) => {
        #[differentiable]
        fn $name($a: f64, $b: f64) -> f64 {
            let y = $e * 2.0 + 1.0 / $e;
            let z = $neg.exp() - -$e;
            if $e > 0.0 { y.sin() * z } else { y * $neg }
        }
    };
}

expression_places!(expression_places_fn(a, b) = a + b, -a * b);

#[test]
fn expression_fragments_keep_their_grouping() {
    // (1 + 3) * 2 = 8, d/da = d/db = 2 (not 1 + 3 * 2 = 7 with gradient [1, 2])
    let (value, gradient) = sum_times_two::grad(1.0, 3.0);
    assert_eq!((value, gradient), (8.0, [2.0, 2.0]));
    assert_eq!(sum_times_two(1.0, 3.0), 8.0);
    assert_eq!(sum_times_two::jvp(1.0, 3.0, 1.0, 0.0), (8.0, 2.0));
    numbers!(sum_times_two(0, 1)).check_with_second_order(&[0.3, -1.2]);
    assert_eq!(
        larger_times_two::grad(0.5, 0.25).1,
        [0.5f64.cos() * 2.0, 0.0]
    );
    let larger = numbers!(larger_times_two(0, 1));
    larger.check_with_second_order(&[0.5, 0.25]);
    larger.check_with_second_order(&[-0.5, 0.75]);

    // by hand, as rustc reads the fragments
    let (a, b) = (0.4f64, 0.7f64);
    let y = (a + b) * 2.0 + 1.0 / (a + b);
    let z = (-a * b).exp() - -(a + b);
    assert_eq!(
        expression_places_fn(a, b).to_bits(),
        (y.sin() * z).to_bits()
    );
    let f = numbers!(expression_places_fn(0, 1));
    f.check_with_second_order(&[a, b]);
    // the other branch
    f.check_with_second_order(&[-0.9, 0.2]);
}

/// Fragments over a slice: `$xs` as the receiver of an iterator form
/// (`$xs.iter().map(..).sum()`), `$w[$k]` indexed by a fragment, and a sum as a factor.
macro_rules! slice_fragments {
    ($name:ident($w:ident), $xs:expr, $k:expr, $scale:expr) => {
        #[differentiable]
        fn $name($w: &[f64]) -> f64 {
            let s: f64 = $xs.iter().map(|v| v * v).sum();
            let mut t = 0.0;
            for i in 0..$w.len() {
                t += $w[i] * $w[$k];
            }
            s.sqrt() * $scale + t
        }
    };
}

slice_fragments!(slice_fragments_fn(w), w, w.len() - 1, w[0] + w[1]);

#[test]
fn expression_fragments_over_slices() {
    let w = [0.5, -0.3, 0.8, 0.2];
    let s: f64 = w.iter().map(|v| v * v).sum();
    let t: f64 = w.iter().map(|v| v * w[3]).sum();
    let by_hand = s.sqrt() * (w[0] + w[1]) + t;
    assert!((slice_fragments_fn(&w) - by_hand).abs() < 1e-15);
    Case {
        name: "slice_fragments_fn",
        itself: &|x| slice_fragments_fn(x),
        primal: &|x| slice_fragments_fn::primal(x),
        grad: Some(&|x| {
            let (v, [g]) = slice_fragments_fn::grad(x);
            (v, g)
        }),
        grad_into: &|x| {
            let mut g = vec![0.0; x.len()];
            let v = slice_fragments_fn::grad_into(x, &mut g);
            (v, g)
        },
        jvp: &|x, t| slice_fragments_fn::jvp(x, t),
    }
    .check_with_second_order(&w);
    Case {
        name: "slice_fragments_fn",
        itself: &|x| slice_fragments_fn(x),
        primal: &|x| slice_fragments_fn::primal(x),
        grad: None,
        grad_into: &|x| {
            let mut g = vec![0.0; x.len()];
            let v = slice_fragments_fn::grad_into(x, &mut g);
            (v, g)
        },
        jvp: &|x, t| slice_fragments_fn::jvp(x, t),
    }
    .check(&point(6, 31, -1.0, 1.0));
}

/// `vec![$e; $n]` with fragments: a buffer of zeros (`$zero = 0.0`, its length a
/// fragment `$n`) and one filled with a differentiable value (`$fill = w[0] * 2.0`, a
/// sum inside the group), each then read and written by index.
macro_rules! repeated_fragments {
    ($name:ident($w:ident), $zero:expr, $fill:expr, $n:expr) => {
        #[differentiable]
        fn $name($w: &[f64]) -> f64 {
            let mut acc = vec![$zero; $n];
            let filled = vec![$fill; $n];
            let mut fixed = [$zero; 3];
            for i in 0..$w.len() {
                acc[i] = $w[i] * filled[i] + $fill;
                fixed[i % 3] += acc[i];
            }
            let mut s = 0.0;
            for i in 0..acc.len() {
                s += acc[i] * acc[i];
            }
            s + fixed[0] * fixed[1] - fixed[2]
        }
    };
}

repeated_fragments!(repeated_fragments_fn(w), 0.0, w[0] * 2.0 + w[1], w.len());

#[test]
fn repeated_element_fragments() {
    let w = [0.5, -0.3, 0.8, 0.2];
    let fill = w[0] * 2.0 + w[1];
    let acc: Vec<f64> = w.iter().map(|v| v * fill + fill).collect();
    let mut fixed = [0.0; 3];
    for (i, a) in acc.iter().enumerate() {
        fixed[i % 3] += a;
    }
    let by_hand = acc.iter().map(|a| a * a).sum::<f64>() + fixed[0] * fixed[1] - fixed[2];
    assert!((repeated_fragments_fn(&w) - by_hand).abs() < 1e-14);
    for x in [w.to_vec(), point(6, 37, -1.0, 1.0)] {
        Case {
            name: "repeated_fragments_fn",
            itself: &|x| repeated_fragments_fn(x),
            primal: &|x| repeated_fragments_fn::primal(x),
            grad: Some(&|x| {
                let (v, [g]) = repeated_fragments_fn::grad(x);
                (v, g)
            }),
            grad_into: &|x| {
                let mut g = vec![0.0; x.len()];
                let v = repeated_fragments_fn::grad_into(x, &mut g);
                (v, g)
            },
            jvp: &|x, t| repeated_fragments_fn::jvp(x, t),
        }
        .check_with_second_order(&x);
    }
}

// ----- 2. `$p:pat`, `$s:stmt`, `$b:block`, `$i:ident` -----

/// `let $p = $e;` destructuring a tuple, then `$r` reading what it bound.
macro_rules! destructured {
    ($name:ident($x:ident, $y:ident), $p:pat = $e:expr => $r:expr) => {
        #[differentiable]
        fn $name($x: f64, $y: f64) -> f64 {
            let $p = $e;
            $r
        }
    };
}

destructured!(destructured_fn(x, y), (u, v) = (y * x, x - y) => u.sin() * v + u);

/// Statements as fragments (`let` with and without a type, a compound assignment, an
/// expression statement), then the tail.
macro_rules! from_statements {
    (fn $name:ident($($arg:ident),+) { $($s:stmt);* } => $tail:expr) => {
        #[differentiable]
        fn $name($($arg: f64),+) -> f64 {
            $($s;)*
            $tail
        }
    };
}

from_statements!(fn statements_fn(x, y) {
    let p = x * y;
    let mut q: f64 = x + y;
    q *= p.cos();
    q += 1.0
} => p + q * q);

/// A block as a `let`'s value and as a loop's body; a loop variable and its bound given as
/// `$i:ident` and `$n:expr`.
macro_rules! blocks {
    ($name:ident($x:ident, $acc:ident, $i:ident), $n:expr, $init:block, $step:block) => {
        #[differentiable]
        fn $name($x: f64) -> f64 {
            let mut $acc = $init;
            for $i in 0..$n $step
            $acc
        }
    };
}

blocks!(blocks_fn(x, acc, k), 4, { x * 0.5 }, {
    acc = acc * x.sin() + k as f64 * x;
});

/// Fragments passed on by one `macro_rules!` to another (`from_statements!`,
/// `times_two!`): each arrives in a group inside a group.
macro_rules! passes_on {
    (fn $name:ident($x:ident, $y:ident) { $s:stmt } => $tail:expr) => {
        from_statements!(fn $name($x, $y) { $s } => $tail);
    };
    ($name:ident($a:ident, $b:ident) = $e:expr) => {
        times_two!($name($a, $b) = $e);
    };
}

passes_on!(fn passed_on_statement(x, y) { let z: f64 = x.sin() * y } => z * z + x);
passes_on!(passed_on_expression(a, b) = a - b);

#[test]
fn fragments_passed_on() {
    // (3 - 1) * 2 = 4, not 3 - 1 * 2 = 1
    assert_eq!(passed_on_expression::grad(3.0, 1.0), (4.0, [2.0, -2.0]));
    numbers!(passed_on_expression(0, 1)).check_with_second_order(&[0.2, 0.9]);
    let (x, y) = (0.6f64, -1.4f64);
    let z = x.sin() * y;
    assert_eq!(passed_on_statement(x, y).to_bits(), (z * z + x).to_bits());
    numbers!(passed_on_statement(0, 1)).check_with_second_order(&[x, y]);
}

/// A condition and a `match` scrutinee as fragments (`if $c`, `while $w`, `match $m`).
macro_rules! conditions {
    ($name:ident($x:ident; $n:ident) if $c:expr, while $w:expr, match $m:expr) => {
        #[differentiable]
        fn $name($x: f64) -> f64 {
            let mut y = if $c { $x * $x } else { -$x };
            let mut $n = 0;
            while $w {
                y = y * 0.5 + $x;
                $n += 1;
            }
            match $m {
                0 => y,
                _ => y * $x,
            }
        }
    };
}

conditions!(conditions_fn(x; n) if x > 0.5 && x < 2.0, while n < 3, match n % 2);

#[test]
fn condition_fragments() {
    let f = numbers!(conditions_fn(0));
    f.check_with_second_order(&[0.8]);
    f.check_with_second_order(&[-0.3]);
}

#[test]
fn pattern_statement_block_and_ident_fragments() {
    let (x, y) = (0.8f64, -0.35f64);
    let (u, v) = (y * x, x - y);
    assert_eq!(destructured_fn(x, y).to_bits(), (u.sin() * v + u).to_bits());
    numbers!(destructured_fn(0, 1)).check_with_second_order(&[x, y]);

    let p = x * y;
    let q = (x + y) * p.cos() + 1.0;
    assert_eq!(statements_fn(x, y).to_bits(), (p + q * q).to_bits());
    numbers!(statements_fn(0, 1)).check_with_second_order(&[x, y]);

    let mut acc = x * 0.5;
    for k in 0..4 {
        acc = acc * x.sin() + k as f64 * x;
    }
    assert_eq!(blocks_fn(x).to_bits(), acc.to_bits());
    numbers!(blocks_fn(0)).check_with_second_order(&[x]);
}

// ----- 3. a whole function from fragments: signature, statements, tail -----

/// Every part of the function a fragment: its name, parameters (`$t:ty`), statements and
/// result.
macro_rules! whole {
    ($(#[$meta:meta])* fn $name:ident($($arg:ident: $t:ty),+) -> $r:ty $body:block) => {
        $(#[$meta])*
        #[differentiable]
        fn $name($($arg: $t),+) -> $r $body
    };
}

whole! {
    /// Damped Newton for `y² = a + b`, with `b` a slice of weights.
    fn whole_fn(a: f64, w: &[f64]) -> f64 {
        let mut target = a;
        for i in 0..w.len() {
            target += w[i] * w[i];
        }
        let mut y = target;
        for _ in 0..6 {
            y = 0.5 * (y + target / y);
        }
        y * a
    }
}

#[test]
fn whole_function_from_fragments() {
    let (a, w) = (1.3, [0.4, -0.2, 0.7]);
    assert!((whole_fn(a, &w) - (a + 0.69f64).sqrt() * a).abs() < 1e-12);
    Case {
        name: "whole_fn",
        itself: &|x| whole_fn(x[0], &x[1..]),
        primal: &|x| whole_fn::primal(x[0], &x[1..]),
        grad: Some(&|x| {
            let (v, (da, dw)) = whole_fn::grad(x[0], &x[1..]);
            (v, [vec![da], dw].concat())
        }),
        grad_into: &|x| {
            let (mut da, mut dw) = (0.0, vec![0.0; x.len() - 1]);
            let v = whole_fn::grad_into(x[0], &x[1..], &mut da, &mut dw);
            (v, [vec![da], dw].concat())
        },
        jvp: &|x, t| whole_fn::jvp(x[0], &x[1..], t[0], &t[1..]),
    }
    .check_with_second_order(&[a, w[0], w[1], w[2]]);
}

// ----- 4. tensors: the same fragments on a fused node -----

macro_rules! tensor_fragments {
    ($name:ident($a:ident, $b:ident) = $e:expr, $p:pat, $s:stmt => $r:expr) => {
        #[differentiable]
        fn $name($a: &Tensor<f64>, $b: &Tensor<f64>) -> Tensor<f64> {
            $s;
            let $p = ($e * 2.0, $a * $b);
            $r + $e
        }
    };
}

tensor_fragments!(
    tensor_fragments_fn(a, b) = a + b,
    (u, v),
    let half = b * 0.5
    => u.sin() * &v + &half
);

#[test]
fn fragments_on_tensors() {
    // value: (a + b) * 2 grouped
    let (a, b) = (Tensor::scalar(0.3), Tensor::scalar(0.5));
    let by_hand = (0.8f64 * 2.0).sin() * 0.15 + 0.25 + 0.8;
    assert!((tensor_fragments_fn(&a, &b).to_scalar() - by_hand).abs() < 1e-15);
    let v = |values: &[f64]| Tensor::from_vec(values.to_vec(), &[values.len()]);
    let fused = |x: &[Tensor<f64>]| tensor_fragments_fn(&x[0], &x[1]);
    let plain = |x: &[Tensor<f64>]| tensor_fragments_fn::primal(&x[0], &x[1]);
    let inputs = [v(&[0.3, -0.7, 1.1]), v(&[0.5, 0.2, -0.4])];
    if let Err(message) = check_annotated(
        "tensor_fragments_fn",
        &inputs,
        &fused,
        &plain,
        Tolerance::F64,
        7,
    ) {
        panic!("{message}");
    }
}
