//! What the scalar-mode program generator (`gradtape-fuzz --scalar`, fuzz/src/scalar.rs)
//! found, each kept as a named regression test: the smallest function showing it, checked
//! against analytic derivatives and central differences.

#[macro_use]
mod common;

use common::{central_differences, close};
use gradtape::{Differentiable, differentiable};

// ----- a fold inside a condition was rejected, its error on the attribute -----

/// `fold` in an `if` condition: the iterator rewrite spells the fold out as a loop
/// assigning its accumulator, and the check that a condition writes no differentiable
/// value took that assignment (of a local of the condition) for the user's, rejecting the
/// function with "this assignment is inside a condition" on the attribute.
#[differentiable]
fn fold_in_a_condition(x: &[f64], s: f64) -> f64 {
    if x.iter().fold(0.0, |acc, v| acc * 0.5 + *v * s) > 0.0 {
        x[0] * s
    } else {
        x[1] * s * s
    }
}

/// The same with a block of the user's own in the condition, rebinding its local.
#[differentiable]
fn local_rebound_in_a_condition(x: &[f64], s: f64) -> f64 {
    let mut y = x[0] * s;
    while {
        let mut t = y;
        t *= 2.0;
        t
    } < 1.0
    {
        y += 0.5;
    }
    y * y
}

#[test]
fn a_fold_inside_a_condition_is_run_as_written() {
    for (x, s) in [([0.3, -0.2], 0.7), ([-0.3, 0.2], 0.7)] {
        let (value, (dx, ds)) = fold_in_a_condition::grad(&x, s);
        // fold = (x0 * s) * 0.5 + x1 * s
        let first = (x[0] * 0.5 + x[1]) * s > 0.0;
        let (want_value, want_dx, want_ds) = if first {
            (x[0] * s, vec![s, 0.0], x[0])
        } else {
            (x[1] * s * s, vec![0.0, s * s], 2.0 * x[1] * s)
        };
        assert_eq!(value, want_value);
        assert_eq!(fold_in_a_condition(&x, s), value);
        assert_eq!(dx, want_dx);
        assert!(close(ds, want_ds, 1e-15));
        let p = [x[0], x[1], s];
        let differences =
            central_differences(&|p: &[f64]| fold_in_a_condition::primal(&p[..2], p[2]), &p);
        for (k, g) in dx.iter().chain([&ds]).enumerate() {
            assert!(
                close(*g, differences[k], 1e-7),
                "∂/∂p{k}: {g} vs {}",
                differences[k]
            );
        }
    }
}

#[test]
fn a_local_rebound_inside_a_condition_is_run_as_written() {
    let (x, s) = ([0.1, 0.0], 0.5);
    // y = 0.05 → 0.55 (one step: 2 · 0.55 > 1), so y = x0 s + 0.5
    let (value, (dx, ds)) = local_rebound_in_a_condition::grad(&x, s);
    let y = x[0] * s + 0.5;
    assert_eq!(local_rebound_in_a_condition(&x, s), value);
    assert!(close(value, y * y, 1e-15));
    assert!(close(dx[0], 2.0 * y * s, 1e-15));
    assert!(close(ds, 2.0 * y * x[0], 1e-15));
}

// ----- a closure never called was rejected -----

/// A closure bound by `let` and never called (left over, or called on one branch of a
/// `cfg`): it was not inlined (no call), and lowering then met it as a value and rejected
/// the function ("this closure is not differentiated").
#[differentiable]
#[allow(unused_variables)]
fn closure_never_called(x: f64, y: f64) -> f64 {
    let unused = move |v: f64| v * y;
    x * y + x.sin()
}

#[test]
fn a_closure_never_called_changes_nothing() {
    let (x, y) = (0.4, -1.3);
    let (value, [dx, dy]) = closure_never_called::grad(x, y);
    assert_eq!(value, x * y + x.sin());
    assert_eq!(closure_never_called(x, y), value);
    assert_eq!(dx, y + x.cos());
    assert_eq!(dy, x);
}

// ----- `mul_add`'s value in `grad` was rounded twice -----

/// `x.mul_add(a, b)` on numbers: `grad` recorded it as `x * a + b` and computed that,
/// rounded twice, so its value differed from the function's (Rust's fused `mul_add`,
/// rounded once) in the last bit for about a third of all inputs.
#[differentiable]
fn fused(x: f64, a: f64, b: f64) -> f64 {
    x.mul_add(a, b)
}

/// The same with operands that are not names (an element, a call): each is read once.
#[differentiable]
fn fused_of_expressions(x: &[f64], b: f64) -> f64 {
    (x[0] * 2.0).mul_add(x[1].sin(), b * b)
}

/// Generic over the float type.
#[differentiable]
fn fused_generic<T: gradtape::Float>(x: T, a: T) -> T {
    x.mul_add(a, T::from(0.25).unwrap())
}

#[test]
fn the_gradient_of_mul_add_carries_the_fused_value() {
    let mut differing = 0;
    for k in 0..500 {
        let x = (k as f64 * 0.7317).sin();
        let a = (k as f64 * 1.3).cos() * 1.7;
        let b = (k as f64 * 0.11).sin();
        let exact = x.mul_add(a, b);
        if exact != x * a + b {
            differing += 1;
        }
        let (value, [dx, da, db]) = fused::grad(x, a, b);
        assert_eq!(value.to_bits(), exact.to_bits(), "fused at {x}, {a}, {b}");
        assert_eq!(fused(x, a, b).to_bits(), exact.to_bits());
        assert_eq!((dx, da, db), (a, x, 1.0));
        let (value, _) = fused_generic::grad(x, a);
        assert_eq!(fused_generic(x, a).to_bits(), value.to_bits());
        assert_eq!(value.to_bits(), x.mul_add(a, 0.25).to_bits());
        let value32 = fused_generic::grad(x as f32, a as f32).0;
        assert_eq!(
            value32.to_bits(),
            (x as f32).mul_add(a as f32, 0.25).to_bits()
        );
    }
    // the inputs do exercise the difference
    assert!(
        differing > 100,
        "only {differing} inputs tell the roundings apart"
    );

    let (x, b) = ([0.3, -1.1], 0.6);
    let (value, (dx, db)) = fused_of_expressions::grad(&x, b);
    assert_eq!(fused_of_expressions(&x, b).to_bits(), value.to_bits());
    assert_eq!(
        value.to_bits(),
        (x[0] * 2.0).mul_add(x[1].sin(), b * b).to_bits()
    );
    assert!(close(dx[0], 2.0 * x[1].sin(), 1e-15));
    assert!(close(dx[1], x[0] * 2.0 * x[1].cos(), 1e-15));
    assert!(close(db, 2.0 * b, 1e-15));
}

// ----- a closure calling another was not inlined -----

/// `g` calls `f`, and `f` is also called after `g`: `f`'s inlined body binds its
/// parameter `u` in the statements after `g`, and `g`'s body (holding `f`'s inlined body,
/// which binds `u` in a block of its own) counted as reading that `u`, so `g` was not
/// inlined and its call was rejected ("`g` is a value").
#[differentiable]
fn closure_calling_a_closure(x: &[f64], s: f64) -> f64 {
    let c = x[0] * s;
    let f = |u: f64, w: f64| (u * c - w).tanh();
    let g = |v: f64| f(v, v * v) + c;
    f(x[1], s) + g(s)
}

#[test]
fn a_closure_calling_another_is_inlined() {
    let (x, s) = ([0.3, -0.4], 0.7);
    let (value, (dx, ds)) = closure_calling_a_closure::grad(&x, s);
    let f = |u: f64, w: f64, c: f64| (u * c - w).tanh();
    let whole = |p: &[f64]| {
        let c = p[0] * p[2];
        f(p[1], p[2], c) + f(p[2], p[2] * p[2], c) + c
    };
    let p = [x[0], x[1], s];
    assert!(close(value, whole(&p), 1e-15));
    assert_eq!(closure_calling_a_closure(&x, s), value);
    let differences = central_differences(&whole, &p);
    for (k, g) in dx.iter().chain([&ds]).enumerate() {
        assert!(
            close(*g, differences[k], 1e-8),
            "∂/∂p{k}: {g} vs {}",
            differences[k]
        );
    }
}

// ----- `if let Some(v) = a.first()` was rejected -----

/// `if let` on `first()`, `last()` and `get(i)` of a float slice, binding the element by
/// reference (`Some(v)`) or by copy (`Some(&v)`), as a statement and as a value, with an
/// index past the end (the `else` branch).
#[differentiable]
fn ends_by_if_let(x: &[f64], s: f64) -> f64 {
    let mut a = s;
    if let Some(v) = x.first() {
        a = a * 0.5 + (*v).sin();
    }
    let b = if let Some(&w) = x.last() { w * s } else { 0.0 };
    let c = if let Some(u) = x.get(1) { *u * *u } else { s };
    let d = if let Some(u) = x.get(7) { *u } else { s * 3.0 };
    a + b + c + d
}

#[test]
fn if_let_on_the_ends_of_a_slice_reads_the_element() {
    let (x, s) = ([0.1, 0.2, 0.4], 0.3);
    let (value, (dx, ds)) = ends_by_if_let::grad(&x, s);
    let want = s * 0.5 + x[0].sin() + x[2] * s + x[1] * x[1] + s * 3.0;
    assert!(close(value, want, 1e-15));
    assert_eq!(ends_by_if_let(&x, s), value);
    assert!(close(dx[0], x[0].cos(), 1e-15));
    assert!(close(dx[1], 2.0 * x[1], 1e-15));
    assert!(close(dx[2], s, 1e-15));
    assert!(close(ds, 0.5 + x[2] + 3.0, 1e-15));
    // an empty slice takes every `else`
    let (value, (dx, ds)) = ends_by_if_let::grad(&[], s);
    assert!(close(value, s + 0.0 + s + s * 3.0, 1e-15));
    assert!(dx.is_empty());
    assert!(close(ds, 1.0 + 1.0 + 3.0, 1e-15));
}

// ----- a writer taking a struct parameter had no `vjp` -----

/// A struct parameter for the writers below.
#[derive(Differentiable, Clone, Debug)]
struct Gain {
    k: f64,
    w: [f64; 2],
}

/// A writer with a differentiable struct parameter. Its `vjp` is built on a hidden twin
/// taking the struct's fields as parameters of their own, and wrapped the twin's pullback
/// in a closure of the result's cotangent alone, while the twin's pullback takes the
/// output's cotangent buffer too: the generated code did not compile (E0593 and E0057 on
/// the attribute).
#[differentiable]
fn gained_into(#[differentiable] g: &Gain, x: &[f64], out: &mut [f64]) -> f64 {
    for i in 0..2 {
        out[i] = out[i] * g.k + g.w[i] * x[i].sin();
    }
    g.k * x[0]
}

#[test]
fn a_writer_with_a_struct_parameter_has_a_vjp() {
    // the objective: the value plus ⟨c, out⟩ after the call, out's initial values inputs
    let c = [0.7, -1.3];
    let objective = |p: &[f64]| {
        let g = Gain {
            k: p[0],
            w: [p[1], p[2]],
        };
        let mut out = [p[5], p[6]];
        let value = gained_into::primal(&g, &p[3..5], &mut out);
        value + c[0] * out[0] + c[1] * out[1]
    };
    let p = [0.8, -0.4, 1.2, 0.3, -0.6, 0.5, 0.9];
    let (g, x, out0) = (
        Gain {
            k: p[0],
            w: [p[1], p[2]],
        },
        [p[3], p[4]],
        [p[5], p[6]],
    );
    let mut out = out0;
    let (value, pullback) = gained_into::vjp(&g, &x, &mut out);
    let mut d_out = c;
    let (d_g, d_x, ()) = pullback(1.0, &mut d_out);
    let (d_g, d_x) = (d_g.expect("g is read"), d_x.expect("x is read"));
    assert_eq!(value, g.k * x[0]);
    let by_vjp = [vec![d_g.k, d_g.w[0], d_g.w[1]], d_x, d_out.to_vec()].concat();
    // by hand: out_i' = out_i k + w_i sin(x_i)
    let by_hand = [
        x[0] + c[0] * out0[0] + c[1] * out0[1],
        c[0] * x[0].sin(),
        c[1] * x[1].sin(),
        g.k + c[0] * g.w[0] * x[0].cos(),
        c[1] * g.w[1] * x[1].cos(),
        c[0] * g.k,
        c[1] * g.k,
    ];
    let differences = central_differences(&objective, &p);
    for k in 0..p.len() {
        assert!(
            close(by_vjp[k], by_hand[k], 1e-15),
            "∂/∂p{k}: {} by vjp, {} by hand",
            by_vjp[k],
            by_hand[k]
        );
        assert!(
            close(by_vjp[k], differences[k], 1e-8),
            "∂/∂p{k}: {} by vjp, {} by differences",
            by_vjp[k],
            differences[k]
        );
    }
    // `grad_into` gives the same
    let (mut out, mut d_g, mut d_x, mut d_out) = (
        out0,
        Gain {
            k: 0.0,
            w: [0.0; 2],
        },
        [0.0; 2],
        c,
    );
    gained_into::grad_into(&g, &x, &mut out, &mut d_g, &mut d_x, &mut d_out);
    let by_grad_into = [
        vec![d_g.k, d_g.w[0], d_g.w[1]],
        d_x.to_vec(),
        d_out.to_vec(),
    ]
    .concat();
    assert_eq!(by_grad_into, by_vjp);
    // and the function itself what `vjp` computed
    let mut by_itself = out0;
    assert_eq!(gained_into(&g, &x, &mut by_itself), value);
    assert_eq!(by_itself, out);
}

// ----- `T::max(a, b)` through a float type parameter was rejected -----

/// Float methods called by their paths through the function's float type parameter, as
/// `f64::max(a, b)` is through `f64`: the body's rewrite made method calls of `f32::`/`f64::`
/// paths only, so `T::max(a, b)` stayed a call of an associated function, which rustc then
/// rejected on the expansion (E0277, "this associated function is called from a
/// `#[differentiable]` body but has no companion items").
#[differentiable]
fn float_methods_by_type_parameter<T: gradtape::Float>(x: T, y: T) -> T {
    let two = T::from(2.0).unwrap();
    let half = T::from(0.5).unwrap();
    T::max(x, y) * T::min(x * y, y)
        + <T>::hypot(x, T::one() + y * y)
        + T::clamp(x, -half, half)
        + T::atan2(x, two)
}

#[test]
fn float_methods_called_through_a_type_parameter_are_the_methods() {
    // (0.3, 0.2): max is x, min is x·y, the clamp passes x; (-0.7, 0.4): max is y, min
    // is x·y, the clamp holds at -0.5
    for (x, y) in [(0.3_f64, 0.2_f64), (-0.7, 0.4)] {
        let (value, [dx, dy]) = float_methods_by_type_parameter::grad(x, y);
        let c = 1.0 + y * y;
        let r = x.hypot(c);
        let (product, d_product) = if x > y {
            (x * x * y, [2.0 * x * y, x * x])
        } else {
            (x * y * y, [y * y, 2.0 * x * y])
        };
        let (clamped, d_clamped) = if x.abs() < 0.5 {
            (x, 1.0)
        } else {
            (x.clamp(-0.5, 0.5), 0.0)
        };
        let want = product + r + clamped + x.atan2(2.0);
        assert!(close(value, want, 1e-15), "{value} vs {want}");
        assert_eq!(
            float_methods_by_type_parameter(x, y).to_bits(),
            value.to_bits()
        );
        let want_dx = d_product[0] + x / r + d_clamped + 2.0 / (x * x + 4.0);
        let want_dy = d_product[1] + c * 2.0 * y / r;
        assert!(close(dx, want_dx, 1e-14), "∂/∂x {dx} vs {want_dx}");
        assert!(close(dy, want_dy, 1e-14), "∂/∂y {dy} vs {want_dy}");
        let differences = central_differences(
            &|p: &[f64]| float_methods_by_type_parameter::primal(p[0], p[1]),
            &[x, y],
        );
        for (k, g) in [dx, dy].iter().enumerate() {
            assert!(
                close(*g, differences[k], 1e-7),
                "∂/∂p{k}: {g} vs {}",
                differences[k]
            );
        }
        // the same body at f32
        let (value32, [dx32, _]) = float_methods_by_type_parameter::grad(x as f32, y as f32);
        assert!((value32 as f64 - want).abs() < 1e-5);
        assert!((dx32 as f64 - want_dx).abs() < 1e-5);
    }
}

// ----- an `enumerate` index after a tuple read by field was taken for a number -----

/// An annotated helper returning a pair.
#[differentiable]
fn pair_of<T: gradtape::Float>(a: T, b: T) -> (T, T) {
    (a * b.cos(), (a - b).tanh())
}

/// A struct parameter of floats, an array and a vector.
#[derive(Differentiable, Clone, Debug)]
struct Settings {
    a: f64,
    b: f64,
    w: [f64; 3],
    v: Vec<f64>,
}

/// (A module of its own: the parentheses that moved the temporaries are the point, and
/// `unused_parens` is allowed for the generated items too only from an enclosing item.)
#[allow(unused_parens)]
mod spelled_with_parentheses {
    use super::*;

    /// A pair read by field (`t4.0`, `t4.1`) and then `enumerate`'s index cast to a float. Its
    /// reads by field make lowering rewrite the statements after it, a new syntax tree in
    /// every round of its activity analysis, which keyed declarations by the address of their
    /// syntax node alone: a key forced in one round matched the desugared `let k: usize =
    /// gradtape_k;` of the next, and `k + 1` was taken for a differentiable number (rustc's
    /// E0277 on the attribute, `usize: gradtape::generated::Own`; `T::from(k + 1).unwrap()` in
    /// the generic form was "`unwrap` is not a differentiable method"). Whether it happened
    /// turned on the spelling (the parentheses here move the numbering of the temporaries)
    /// and on the build: the generated programs compiled under `cargo test` and not under
    /// `cargo clippy`.
    #[differentiable]
    #[rustfmt::skip]
    fn enumerate_index_after_a_pair_read_by_field(#[differentiable] p: &Settings, x: &[f64], s: f64) -> f64 {
        let n1 = if s.max(p.w[2]) > p.b { ((p.b).atan() * (p.b).sin()) } else { s.clamp((-0.8_f64), (0.9_f64)) };
        let t4 = pair_of((n1 * s), p.b);
        let n5 = t4.0 * x.iter().enumerate().map(|(k, v)| *v * ((k + 1) as f64)).sum::<f64>() + t4.1;
        p.b + n1 + n5
    }

    #[test]
    fn an_enumerate_index_after_a_pair_read_by_field_stays_an_integer() {
        // both branches of the `if`: s.max(w2) above b, then below
        for (b, s) in [(0.2, 0.4), (0.9, 0.3)] {
            let p = Settings {
                a: 0.1,
                b,
                w: [0.3, -0.4, 0.5],
                v: vec![0.6; 4],
            };
            let x = [0.3, -0.1, 0.7, 0.2];
            let (value, (dp, dx, ds)) = enumerate_index_after_a_pair_read_by_field::grad(&p, &x, s);
            assert_eq!(
                enumerate_index_after_a_pair_read_by_field(&p, &x, s).to_bits(),
                value.to_bits()
            );
            // by hand: n1, the pair, the weighted sum Σ (k + 1) x_k
            let n1 = if s.max(p.w[2]) > b {
                b.atan() * b.sin()
            } else {
                s.clamp(-0.8, 0.9)
            };
            let weighted: f64 = x.iter().enumerate().map(|(k, v)| v * (k + 1) as f64).sum();
            let a = n1 * s;
            let want = b + n1 + a * b.cos() * weighted + (a - b).tanh();
            assert!(close(value, want, 1e-15), "{value} vs {want}");
            // against central differences in every input (a, b, w, v, x, s)
            let flat = |p: &Settings| [vec![p.a, p.b], p.w.to_vec(), p.v.clone()].concat();
            let inputs = [flat(&p), x.to_vec(), vec![s]].concat();
            let differences = central_differences(
                &|q: &[f64]| {
                    let p = Settings {
                        a: q[0],
                        b: q[1],
                        w: [q[2], q[3], q[4]],
                        v: q[5..9].to_vec(),
                    };
                    enumerate_index_after_a_pair_read_by_field::primal(&p, &q[9..13], q[13])
                },
                &inputs,
            );
            let gradient = [flat(&dp), dx, vec![ds]].concat();
            for (k, (g, d)) in gradient.iter().zip(&differences).enumerate() {
                assert!(close(*g, *d, 1e-7), "∂/∂p{k}: {g} vs {d}");
            }
            // the weights of x are (k + 1) times the pair's first part's factor
            for (k, g) in gradient[9..13].iter().enumerate() {
                assert!(close(*g, a * b.cos() * (k + 1) as f64, 1e-14));
            }
        }
    }
}

// ----- a declaration's activity outlives the syntax it was found in -----

twice! {
    /// Locals made active only by a later assignment (`acc`, `best`), among the statements
    /// after a pair read by field: lowering rewrites those statements into new syntax in
    /// every round of its activity analysis, so the key a round forces a declaration by must
    /// name the same declaration in the next (`lower.rs`, `DeclKey`), and two of the same
    /// name (the shadowing `acc`) stay two.
    fn locals_forced_after_a_pair_read_by_field / locals_forced_after_a_pair_read_by_field_on_duals<T>(x: &[T]) -> T {
        let t = (x[0] * x[1], x[1].sin());
        let mut acc = T::zero();
        for k in 0..x.len() {
            acc = acc + t.0 * x[k] * T::from(k + 1).unwrap();
        }
        let mut best = T::from(-2.0).unwrap();
        for v in x.iter() {
            if *v * t.1 > best {
                best = *v * t.1;
            }
        }
        let acc = acc * best;
        let mut acc = acc + T::one();
        acc = acc * t.1;
        acc + t.0
    }
}

#[test]
fn locals_forced_active_after_a_pair_read_by_field_stay_active() {
    one_slice_twice!(
        locals_forced_after_a_pair_read_by_field,
        locals_forced_after_a_pair_read_by_field_on_duals at
        [0.3, -0.7, 1.1, 0.4],
        [-0.5, 0.9, 0.2, -1.3],
    );
}
