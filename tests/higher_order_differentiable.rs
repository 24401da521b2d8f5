//! Higher order through `#[differentiable]` functions, in every nesting combination: nested
//! `record` scopes, a persistent tape's gradient (and jacobian) inside its own scope, the
//! jacobian of a gradient (Hessians), the gradient and the jacobian of a jacobian, third
//! order by three tapes; plus `jacobian` and `batch_jacobian` of targets computed by
//! annotated functions. The functions have loops, branches, `match`, matmul, reductions,
//! calls of other annotated functions and tuple results.
//!
//! Every quantity is computed twice, through the fused function and through the same body
//! recorded op by op (`f::primal`), and checked against central finite differences of the
//! plain function in f64 (first and second order) or analytic values.

use std::cell::Cell;

use gradtape::{
    GradientOptions, GradientTape, JacobianOptions, Tensor, UnconnectedGradients, Variable,
    differentiable,
};

// ----- the functions -----

/// A loop whose steps alternate between two updates.
#[differentiable]
fn looped(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    let mut z = x * y;
    for i in 0..3 {
        if i % 2 == 0 {
            z = z.sin() * y + x;
        } else {
            let t = &z * x;
            z = t.tanh();
        }
    }
    z
}

/// A branch on a value, a `match` on a constant and a `while` loop.
#[differentiable]
fn branchy(x: &Tensor<f64>, y: &Tensor<f64>, mode: u8) -> Tensor<f64> {
    let s = (x * y).sum();
    let mut out = if s.to_scalar() > 0.0 {
        x.exp() * y
    } else {
        (x - y).cos()
    };
    out = match mode {
        0 => &out * &out,
        _ => out.sigmoid() + x,
    };
    let mut k = 0;
    while k < 2 {
        out = &out * x + y.square();
        k += 1;
    }
    out
}

/// A dense layer with reductions: `w [2,3]`, `x [3,2]`, `b [2]`, result `[2]`.
#[differentiable]
fn dense(w: &Tensor<f64>, x: &Tensor<f64>, b: &Tensor<f64>) -> Tensor<f64> {
    let h = (w.matmul(x) + b).tanh();
    h.sum_axis(1, false) * h.mean() + w.square().sum()
}

#[differentiable]
fn cell(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    (x * y).sin() + x.square()
}

/// Calls of another annotated function.
#[differentiable]
fn composed(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    let a = cell(x, y);
    cell(&a, x) * y
}

/// Two results from one call.
#[differentiable]
fn polar(r: &Tensor<f64>, t: &Tensor<f64>) -> (Tensor<f64>, Tensor<f64>) {
    (r * t.cos(), r * t.sin())
}

/// Elementwise with broadcasting (`x [2,3]`, `b [3]`, `s []`): its adjoint is written in
/// broadcasting-safe ops only.
#[differentiable]
fn elementwise(x: &Tensor<f64>, b: &Tensor<f64>, s: &Tensor<f64>) -> Tensor<f64> {
    let u = (x * b).sin() + x.square() * s;
    let v = u.maximum(&(b * 0.1)) / (s * s + 1.0);
    v * x - b.exp()
}

// ----- oracles -----

type F<'a> = &'a dyn Fn(&[Tensor<f64>]) -> Tensor<f64>;

const ZERO: UnconnectedGradients = UnconnectedGradients::Zero;

fn t(values: &[f64], shape: &[usize]) -> Tensor<f64> {
    Tensor::from_vec(values.to_vec(), shape)
}

/// Fixed weights `0.3, 0.4, …` (mod 1.1) of `n` elements.
fn weights(n: usize, seed: usize) -> Vec<f64> {
    (0..n)
        .map(|i| 0.3 + 0.1 * ((i * 7 + seed * 3) % 11) as f64)
        .collect()
}

fn size(x: &[Tensor<f64>]) -> usize {
    x.iter().map(Tensor::len).sum()
}

fn watch_all(tape: &GradientTape, x: &[Tensor<f64>]) {
    for input in x {
        tape.watch(input);
    }
}

/// Blocks of `rows` rows each, side by side: `[rows, Σ cols]` (recorded ops).
fn side_by_side(blocks: &[Tensor<f64>], rows: usize) -> Tensor<f64> {
    let parts: Vec<Tensor<f64>> = blocks
        .iter()
        .map(|b| b.reshape(&[rows, b.len() / rows]))
        .collect();
    Tensor::concat(&parts.iter().collect::<Vec<_>>(), 1)
}

/// Every element of every input, in one vector (recorded ops).
fn flat(parts: &[Tensor<f64>]) -> Tensor<f64> {
    let n = parts.iter().map(Tensor::len).sum();
    side_by_side(parts, 1).reshape(&[n])
}

fn gradients(tape: &GradientTape, y: &Tensor<f64>, x: &[Tensor<f64>]) -> Vec<Tensor<f64>> {
    let options = GradientOptions::new().unconnected(ZERO);
    let grads = tape.gradient_with(y, x.to_vec(), options).unwrap();
    grads.into_iter().map(|g| g.expect("zeros")).collect()
}

/// The jacobian of `y` for every input, each of shape `y.shape + x.shape` (checked).
fn jacobians(tape: &GradientTape, y: &Tensor<f64>, x: &[Tensor<f64>]) -> Vec<Tensor<f64>> {
    let options = JacobianOptions::new().unconnected(ZERO);
    let jacs = tape.jacobian_with(y, x.to_vec(), options).unwrap();
    jacs.into_iter()
        .zip(x)
        .map(|(j, input)| {
            let j = j.expect("zeros");
            let shape: Vec<usize> = y.shape().iter().chain(input.shape()).copied().collect();
            assert_eq!(j.shape(), &shape[..], "jacobian shape");
            j
        })
        .collect()
}

/// `x` with its flat element `j` moved by `delta`.
fn shifted(x: &[Tensor<f64>], j: usize, delta: f64) -> Vec<Tensor<f64>> {
    let mut moved = x.to_vec();
    let mut j = j;
    for input in moved.iter_mut() {
        if j < input.len() {
            let mut values = input.to_vec();
            values[j] += delta;
            *input = Tensor::from_vec(values, input.shape());
            return moved;
        }
        j -= input.len();
    }
    unreachable!("index within the inputs")
}

/// Central differences: `[m, N]`, ∂f_i/∂x_j over the flat inputs.
fn fd_first(f: F, x: &[Tensor<f64>]) -> Vec<f64> {
    let h = 1e-6;
    let (m, n) = (f(x).len(), size(x));
    let mut out = vec![0.0; m * n];
    for j in 0..n {
        let (plus, minus) = (
            f(&shifted(x, j, h)).to_vec(),
            f(&shifted(x, j, -h)).to_vec(),
        );
        for i in 0..m {
            out[i * n + j] = (plus[i] - minus[i]) / (2.0 * h);
        }
    }
    out
}

/// Second-order central differences: `[m, N, N]`, ∂²f_i/∂x_j∂x_k.
fn fd_second(f: F, x: &[Tensor<f64>]) -> Vec<f64> {
    let h = 1e-4;
    let (m, n) = (f(x).len(), size(x));
    let mut out = vec![0.0; m * n * n];
    for j in 0..n {
        for k in 0..n {
            let at = |dj: f64, dk: f64| f(&shifted(&shifted(x, j, dj), k, dk)).to_vec();
            let (pp, pm, mp, mm) = (at(h, h), at(h, -h), at(-h, h), at(-h, -h));
            for i in 0..m {
                out[(i * n + j) * n + k] = (pp[i] - pm[i] - mp[i] + mm[i]) / (4.0 * h * h);
            }
        }
    }
    out
}

#[track_caller]
fn assert_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * (1.0 + w.abs()),
            "{what}[{i}]: {g} vs {w}\n  got  {got:?}\n  want {want:?}"
        );
    }
}

// ----- the nesting combinations, each a function of (f, x) -----

/// ∂f/∂x by `jacobian`: `[m, N]`.
fn first_order(f: F, x: &[Tensor<f64>]) -> Vec<f64> {
    let tape = GradientTape::new();
    watch_all(&tape, x);
    let y = tape.record(|| f(x));
    side_by_side(&jacobians(&tape, &y, x), y.len()).to_vec()
}

/// The Hessian of Σ f as the jacobian of a gradient taken in a nested `record` scope.
fn hessian_by_nested_scopes(f: F, x: &[Tensor<f64>]) -> Vec<f64> {
    let n = size(x);
    let outer = GradientTape::new();
    watch_all(&outer, x);
    let g = outer.record(|| {
        let inner = GradientTape::new();
        watch_all(&inner, x);
        let y = inner.record(|| f(x).sum());
        flat(&gradients(&inner, &y, x))
    });
    side_by_side(&jacobians(&outer, &g, x), n).to_vec()
}

/// The same Hessian from one persistent tape: its gradient taken inside its own scope is
/// recorded on it, as in TensorFlow.
fn hessian_by_persistent_tape(f: F, x: &[Tensor<f64>]) -> Vec<f64> {
    let n = size(x);
    let tape = GradientTape::persistent();
    watch_all(&tape, x);
    let g = tape.record(|| {
        let y = f(x).sum();
        flat(&gradients(&tape, &y, x))
    });
    side_by_side(&jacobians(&tape, &g, x), n).to_vec()
}

/// The Hessian-vector product `H v` of Σ f: the gradient of `∇f · v` on an outer tape.
fn hessian_vector(f: F, x: &[Tensor<f64>], v: &Tensor<f64>) -> Tensor<f64> {
    let outer = GradientTape::new();
    watch_all(&outer, x);
    let dot = outer.record(|| {
        let inner = GradientTape::new();
        watch_all(&inner, x);
        let y = inner.record(|| f(x).sum());
        (flat(&gradients(&inner, &y, x)) * v).sum()
    });
    flat(&gradients(&outer, &dot, x))
}

/// The gradient of `Σ c ⊙ ∂f/∂x` (the jacobian taken in a nested scope): `[N]`.
fn gradient_of_jacobian(f: F, x: &[Tensor<f64>], c: &Tensor<f64>) -> Vec<f64> {
    let outer = GradientTape::new();
    watch_all(&outer, x);
    let s = outer.record(|| {
        let inner = GradientTape::new();
        watch_all(&inner, x);
        let y = inner.record(|| f(x));
        (side_by_side(&jacobians(&inner, &y, x), y.len()) * c).sum()
    });
    flat(&gradients(&outer, &s, x)).to_vec()
}

/// The same from one persistent tape that takes the jacobian inside its own scope.
fn gradient_of_own_jacobian(f: F, x: &[Tensor<f64>], c: &Tensor<f64>) -> Vec<f64> {
    let tape = GradientTape::persistent();
    watch_all(&tape, x);
    let s = tape.record(|| {
        let y = f(x);
        (side_by_side(&jacobians(&tape, &y, x), y.len()) * c).sum()
    });
    flat(&gradients(&tape, &s, x)).to_vec()
}

/// ∂²f/∂x² as the jacobian of a jacobian: `[m, N, N]`.
fn jacobian_of_jacobian(f: F, x: &[Tensor<f64>]) -> Vec<f64> {
    let n = size(x);
    let outer = GradientTape::new();
    watch_all(&outer, x);
    let jac = outer.record(|| {
        let inner = GradientTape::new();
        watch_all(&inner, x);
        let y = inner.record(|| f(x));
        let m = y.len();
        side_by_side(&jacobians(&inner, &y, x), m).reshape(&[m * n])
    });
    side_by_side(&jacobians(&outer, &jac, x), jac.len()).to_vec()
}

/// `u · (∇(v · ∇(Σ f)))` differentiated once more: third order by three nested tapes, `[N]`.
fn third_order(f: F, x: &[Tensor<f64>], v: &Tensor<f64>, u: &Tensor<f64>) -> Vec<f64> {
    let t3 = GradientTape::new();
    watch_all(&t3, x);
    let huv = t3.record(|| (hessian_vector(f, x, v) * u).sum());
    flat(&gradients(&t3, &huv, x)).to_vec()
}

/// Runs every combination through the fused function and op by op, and checks both
/// against finite differences of the plain function.
fn check_all(name: &str, x: &[Tensor<f64>], fused: F, plain: F) {
    let (m, n) = (plain(x).len(), size(x));
    assert_close(
        &format!("{name} value"),
        &fused(x).to_vec(),
        &plain(x).to_vec(),
        1e-12,
    );
    let first = fd_first(plain, x);
    let second = fd_second(plain, x);
    // Σᵢ ∂²fᵢ/∂xⱼ∂xₖ
    let hessian: Vec<f64> = (0..n * n)
        .map(|jk| (0..m).map(|i| second[i * n * n + jk]).sum())
        .collect();
    let c = t(&weights(m * n, 1), &[m, n]);
    let cv = c.to_vec();
    // Σᵢⱼ cᵢⱼ ∂²fᵢ/∂xⱼ∂xₖ
    let weighted: Vec<f64> = (0..n)
        .map(|k| {
            (0..m * n)
                .map(|ij| cv[ij] * second[ij * n + k])
                .sum::<f64>()
        })
        .collect();
    let both = |what: &str, compute: &dyn Fn(F) -> Vec<f64>, want: &[f64], tol: f64| {
        let (by_macro, by_tape) = (compute(fused), compute(plain));
        assert_close(
            &format!("{name} {what}: macro vs tape"),
            &by_macro,
            &by_tape,
            1e-9,
        );
        assert_close(&format!("{name} {what}: macro vs fd"), &by_macro, want, tol);
    };
    both("jacobian", &|f| first_order(f, x), &first, 1e-6);
    both(
        "hessian, nested scopes",
        &|f| hessian_by_nested_scopes(f, x),
        &hessian,
        1e-5,
    );
    both(
        "hessian, persistent",
        &|f| hessian_by_persistent_tape(f, x),
        &hessian,
        1e-5,
    );
    both(
        "grad of jacobian",
        &|f| gradient_of_jacobian(f, x, &c),
        &weighted,
        1e-5,
    );
    both(
        "grad of own jacobian",
        &|f| gradient_of_own_jacobian(f, x, &c),
        &weighted,
        1e-5,
    );
    both(
        "jacobian of jacobian",
        &|f| jacobian_of_jacobian(f, x),
        &second,
        1e-5,
    );

    // Third order: against central differences of the op-by-op `u · H v`, whose own
    // accuracy the Hessian checks above establish.
    let (v, u) = (t(&weights(n, 2), &[n]), t(&weights(n, 3), &[n]));
    let huv = |x: &[Tensor<f64>]| (hessian_vector(plain, x, &v) * &u).sum();
    let fd_third = fd_first(&huv, x);
    both(
        "third order",
        &|f| third_order(f, x, &v, &u),
        &fd_third,
        1e-5,
    );
}

macro_rules! check {
    ($name:literal, $x:expr, |$a:ident| $fused:expr, $plain:expr) => {{
        let x: Vec<Tensor<f64>> = $x;
        check_all(
            $name,
            &x,
            &|$a: &[Tensor<f64>]| $fused,
            &|$a: &[Tensor<f64>]| $plain,
        );
    }};
}

fn vec3() -> Tensor<f64> {
    t(&[0.3, -0.7, 1.1], &[3])
}

fn vec3b() -> Tensor<f64> {
    t(&[0.9, 0.2, -0.4], &[3])
}

// ----- every combination, per function -----

#[test]
fn loops_and_branches() {
    check!(
        "looped",
        vec![vec3(), vec3b()],
        |a| looped(&a[0], &a[1]),
        looped::primal(&a[0], &a[1])
    );
    // both sides of the value branch (Σ x y = -0.31 + … > 0 or < 0), both match arms
    for mode in [0, 1] {
        check!(
            "branchy, then",
            vec![vec3(), t(&[0.9, 0.2, 0.4], &[3])],
            |a| branchy(&a[0], &a[1], mode),
            branchy::primal(&a[0], &a[1], mode)
        );
        check!(
            "branchy, else",
            vec![vec3(), t(&[0.9, 0.8, -0.4], &[3])],
            |a| branchy(&a[0], &a[1], mode),
            branchy::primal(&a[0], &a[1], mode)
        );
    }
}

#[test]
fn matmul_and_reductions() {
    check!(
        "dense",
        vec![
            t(&[0.5, -0.2, 0.8, 1.3, -0.6, 0.1], &[2, 3]),
            t(&[0.4, 0.9, -0.3, 0.2, 0.7, -1.1], &[3, 2]),
            t(&[0.1, -0.2], &[2]),
        ],
        |a| dense(&a[0], &a[1], &a[2]),
        dense::primal(&a[0], &a[1], &a[2])
    );
}

#[test]
fn composition_of_annotated_functions() {
    check!(
        "composed",
        vec![vec3(), vec3b()],
        |a| composed(&a[0], &a[1]),
        composed::primal(&a[0], &a[1])
    );
    // annotated calls inside op-by-op code, mixed with plain ops
    check!(
        "mixed",
        vec![vec3(), vec3b()],
        |a| cell(&looped(&a[0], &a[1]), &a[0]).exp() * &a[1],
        cell::primal(&looped::primal(&a[0], &a[1]), &a[0]).exp() * &a[1]
    );
}

#[test]
fn tuple_results() {
    // both results of one call, combined: two fused nodes sharing one adjoint
    let combine = |(a, b): (Tensor<f64>, Tensor<f64>)| &a * &b + a.square() - b.sin();
    check!(
        "polar",
        vec![vec3(), vec3b()],
        |a| combine(polar(&a[0], &a[1])),
        combine(polar::primal(&a[0], &a[1]))
    );
    // one result alone (the other's cotangent is a symbolic zero)
    check!(
        "polar.1",
        vec![vec3(), vec3b()],
        |a| polar(&a[0], &a[1]).1,
        polar::primal(&a[0], &a[1]).1
    );
}

#[test]
fn elementwise_with_broadcasting() {
    check!(
        "elementwise",
        vec![
            t(&[0.5, -0.2, 0.8, 1.3, -0.6, 0.1], &[2, 3]),
            vec3b(),
            Tensor::scalar(0.7),
        ],
        |a| elementwise(&a[0], &a[1], &a[2]),
        elementwise::primal(&a[0], &a[1], &a[2])
    );
}

#[test]
fn the_fused_path_is_the_one_exercised() {
    let (x, y) = (vec3(), vec3b());
    let outer = GradientTape::new();
    outer.watch(&x);
    let inner = GradientTape::new();
    outer.record(|| {
        inner.watch(&x);
        inner.record(|| looped(&x, &y).sum());
    });
    // one fused node on the tape that watched x when the call was made, on both tapes
    assert_eq!(inner.recorded_ops(), ["looped", "sum"]);
    assert_eq!(outer.recorded_ops(), ["looped", "sum"]);
}

#[test]
fn x_to_the_fifth_by_a_loop_up_to_order_three() {
    #[differentiable]
    fn power(x: &Tensor<f64>, n: usize) -> Tensor<f64> {
        let mut p = x.clone();
        for _ in 1..n {
            p = p * x;
        }
        p
    }
    // x⁵ at 1.5: 5x⁴, 20x³, 60x²
    let x = Tensor::scalar(1.5_f64);
    let (t1, t2, t3) = (
        GradientTape::new(),
        GradientTape::new(),
        GradientTape::persistent(),
    );
    t3.watch(&x);
    let d2 = t3.record(|| {
        t2.watch(&x);
        let d1 = t2.record(|| {
            t1.watch(&x);
            let y = t1.record(|| power(&x, 5));
            t1.gradient(&y, &x).unwrap().unwrap()
        });
        assert_eq!(d1.to_scalar(), 5.0 * 1.5_f64.powi(4));
        t2.gradient(&d1, &x).unwrap().unwrap()
    });
    assert_eq!(d2.to_scalar(), 20.0 * 1.5_f64.powi(3));
    assert_eq!(
        t3.gradient(&d2, &x).unwrap().unwrap().to_scalar(),
        60.0 * 1.5 * 1.5
    );
    // and the fourth from the persistent tape's gradient inside its own scope: 120x
    let d3 = t3.record(|| t3.gradient(&d2, &x).unwrap().unwrap());
    assert_eq!(
        t3.gradient(&d3, &x).unwrap().unwrap().to_scalar(),
        120.0 * 1.5
    );
}

#[test]
fn variables_as_parameters_at_second_order() {
    #[differentiable]
    fn energy(w: &Variable<f64>, x: &Tensor<f64>) -> Tensor<f64> {
        (w * x).sin() * w
    }
    // f = Σ w sin(w xᵢ); penalty P = Σᵢ (∂f/∂xᵢ)² = Σ w⁴ cos²(w xᵢ)
    // dP/dw = Σ 4w³ cos²(w xᵢ) - 2 w⁴ xᵢ cos(w xᵢ) sin(w xᵢ)
    let w = Variable::new(0.8_f64);
    let x = vec3();
    let outer = GradientTape::new();
    let penalty = outer.record(|| {
        let inner = GradientTape::new();
        inner.watch(&x);
        let f = inner.record(|| energy(&w, &x).sum());
        inner.gradient(&f, &x).unwrap().unwrap().square().sum()
    });
    let wv = 0.8_f64;
    let want: f64 = x
        .to_vec()
        .iter()
        .map(|&xi| {
            let (c, s) = ((wv * xi).cos(), (wv * xi).sin());
            4.0 * wv.powi(3) * c * c - 2.0 * wv.powi(4) * xi * c * s
        })
        .sum();
    let got = outer.gradient(&penalty, &w).unwrap().unwrap().to_scalar();
    assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    // ∂²f/∂w² = Σ 2xᵢ cos(w xᵢ) - w xᵢ² sin(w xᵢ), by one persistent tape
    let tape = GradientTape::persistent();
    let dw = tape.record(|| {
        let f = energy(&w, &x).sum();
        tape.gradient(&f, &w).unwrap().unwrap()
    });
    let want: f64 = x
        .to_vec()
        .iter()
        .map(|&xi| 2.0 * xi * (wv * xi).cos() - wv * xi * xi * (wv * xi).sin())
        .sum();
    let got = tape.gradient(&dw, &w).unwrap().unwrap().to_scalar();
    assert!((got - want).abs() < 1e-12, "{got} vs {want}");
}

// ----- jacobian and batch_jacobian of annotated targets -----

/// Per example: `tanh(xₙ W) · Σ xₙ`, `x [b,3]`, `w [3,2]`: result `[b,2]`.
#[differentiable]
fn per_example(x: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    x.matmul(w).tanh() * x.sum_axis(1, true)
}

fn batch() -> Tensor<f64> {
    t(
        &[
            0.5, -0.2, 0.8, 1.3, -0.6, 0.1, 0.2, 0.4, -0.9, 0.0, 0.7, 0.3,
        ],
        &[4, 3],
    )
}

fn w32() -> Tensor<f64> {
    t(&[0.4, 0.9, -0.3, 0.2, 0.7, -1.1], &[3, 2])
}

#[test]
fn jacobian_of_a_matrix_valued_annotated_target() {
    let (x, w) = (batch(), w32());
    let tape = GradientTape::persistent();
    tape.watch(&x);
    tape.watch(&w);
    let y = tape.record(|| per_example(&x, &w));
    let (jx, jw) = tape.jacobian(&y, (&x, &w)).unwrap();
    let (jx, jw) = (jx.unwrap(), jw.unwrap());
    assert_eq!(jx.shape(), &[4, 2, 4, 3]);
    assert_eq!(jw.shape(), &[4, 2, 3, 2]);
    let xs = [x.clone(), w.clone()];
    let plain = |a: &[Tensor<f64>]| per_example::primal(&a[0], &a[1]);
    let fd = fd_first(&plain, &xs);
    let got = side_by_side(&[jx, jw], 8).to_vec();
    assert_close("per_example jacobian vs fd", &got, &fd, 1e-6);
    let fused = |a: &[Tensor<f64>]| per_example(&a[0], &a[1]);
    assert_close(
        "per_example jacobian vs tape",
        &first_order(&fused, &xs),
        &first_order(&plain, &xs),
        1e-12,
    );
}

#[test]
fn batch_jacobian_of_annotated_targets() {
    let (x, w) = (batch(), w32());
    let by = |fused: bool| {
        let tape = GradientTape::new();
        tape.watch(&x);
        let y = tape.record(|| {
            if fused {
                per_example(&x, &w)
            } else {
                per_example::primal(&x, &w)
            }
        });
        tape.batch_jacobian(&y, &x).unwrap().unwrap()
    };
    let j = by(true);
    assert_eq!(j.shape(), &[4, 2, 3]);
    // the diagonal blocks of the full jacobian, by finite differences
    let full = fd_first(
        &|a: &[Tensor<f64>]| per_example::primal(&a[0], &w),
        std::slice::from_ref(&x),
    );
    let mut want = Vec::new();
    for n in 0..4 {
        for i in 0..2 {
            for k in 0..3 {
                want.push(full[(n * 2 + i) * 12 + n * 3 + k]);
            }
        }
    }
    assert_close("batch jacobian vs fd", &j.to_vec(), &want, 1e-6);
    assert_close(
        "batch jacobian vs tape",
        &j.to_vec(),
        &by(false).to_vec(),
        1e-12,
    );

    // an elementwise target: per example, diag blocks of shape [3, 3]
    let (b, s) = (vec3b(), Tensor::scalar(0.7));
    let xe = t(&[0.5, -0.2, 0.8, 1.3, -0.6, 0.1], &[2, 3]);
    let tape = GradientTape::new();
    tape.watch(&xe);
    let y = tape.record(|| elementwise(&xe, &b, &s));
    let j = tape.batch_jacobian(&y, &xe).unwrap().unwrap();
    assert_eq!(j.shape(), &[2, 3, 3]);
    let full = fd_first(
        &|a: &[Tensor<f64>]| elementwise::primal(&a[0], &b, &s),
        std::slice::from_ref(&xe),
    );
    let mut want = Vec::new();
    for n in 0..2 {
        for i in 0..3 {
            for k in 0..3 {
                want.push(full[(n * 3 + i) * 6 + n * 3 + k]);
            }
        }
    }
    assert_close("elementwise batch jacobian vs fd", &j.to_vec(), &want, 1e-6);
}

/// `s = Σ c ⊙ batch_jacobian(f(x), x)`; `∂s/∂x` through the fused function against the
/// op-by-op one and against finite differences of the op-by-op `s`.
fn check_gradient_of_batch_jacobian(name: &str, x: &Tensor<f64>, fused: F, plain: F) {
    let s_of = |x: &Tensor<f64>, f: F| {
        let inner = GradientTape::new();
        inner.watch(x);
        let y = inner.record(|| f(std::slice::from_ref(x)));
        let j = inner.batch_jacobian(&y, x).unwrap().unwrap();
        (&j * t(&weights(j.len(), 5), j.shape())).sum()
    };
    let grad = |f: F| {
        let outer = GradientTape::new();
        outer.watch(x);
        let s = outer.record(|| s_of(x, f));
        outer.gradient(&s, x).unwrap().unwrap().to_vec()
    };
    let fd = fd_first(
        &|a: &[Tensor<f64>]| s_of(&a[0], plain),
        std::slice::from_ref(x),
    );
    assert_close(
        &format!("{name} vs tape"),
        &grad(fused),
        &grad(plain),
        1e-10,
    );
    assert_close(&format!("{name} vs fd"), &grad(fused), &fd, 1e-6);
}

#[test]
fn gradient_of_a_batch_jacobian_through_annotated_functions() {
    let w = w32();
    check_gradient_of_batch_jacobian("per_example", &batch(), &|a| per_example(&a[0], &w), &|a| {
        per_example::primal(&a[0], &w)
    });
    let (b, s) = (vec3b(), Tensor::scalar(0.7));
    check_gradient_of_batch_jacobian(
        "elementwise",
        &t(&[0.5, -0.2, 0.8, 1.3, -0.6, 0.1], &[2, 3]),
        &|a| elementwise(&a[0], &b, &s),
        &|a| elementwise::primal(&a[0], &b, &s),
    );
}

// ----- a jacobian's batched sweep through fused nodes -----

thread_local! {
    static FORWARD_RUNS: Cell<usize> = const { Cell::new(0) };
}

/// `elementwise`, counting how often its forward code runs.
#[differentiable]
fn counted(x: &Tensor<f64>, b: &Tensor<f64>) -> Tensor<f64> {
    FORWARD_RUNS.with(|runs| runs.set(runs.get() + 1));
    (x * b).sin() * x + b.exp()
}

/// Row `i` of the jacobian by its own backward sweep (no batch axis): the per-example
/// result the batched sweep must reproduce.
fn jacobian_row_by_row(f: &dyn Fn() -> Tensor<f64>, x: &[Tensor<f64>]) -> Vec<f64> {
    let tape = GradientTape::persistent();
    watch_all(&tape, x);
    let y = tape.record(f);
    let m = y.len();
    let mut out = Vec::new();
    for i in 0..m {
        let mut seed = vec![0.0; m];
        seed[i] = 1.0;
        let options = GradientOptions::new()
            .unconnected(ZERO)
            .output_gradients(Tensor::from_vec(seed, y.shape()));
        let grads = tape.gradient_with(&y, x.to_vec(), options).unwrap();
        let grads: Vec<Tensor<f64>> = grads.into_iter().map(|g| g.unwrap()).collect();
        out.extend(flat(&grads).to_vec());
    }
    out
}

#[test]
fn a_batched_sweep_through_fused_nodes_matches_the_sweep_per_row() {
    let xe = t(&[0.5, -0.2, 0.8, 1.3, -0.6, 0.1], &[2, 3]);
    let (b, s) = (vec3b(), Tensor::scalar(0.7));
    let inputs = [xe.clone(), b.clone(), s.clone()];
    let fused = |a: &[Tensor<f64>]| elementwise(&a[0], &a[1], &a[2]);
    let rows = jacobian_row_by_row(&|| elementwise(&xe, &b, &s), &inputs);
    assert_close("elementwise", &first_order(&fused, &inputs), &rows, 1e-14);
    // in chunks of one and of four rows too
    for chunk in [1, 4] {
        let tape = GradientTape::new();
        watch_all(&tape, &inputs);
        let y = tape.record(|| elementwise(&xe, &b, &s));
        let options = JacobianOptions::new().max_batch(chunk).unconnected(ZERO);
        let jacs: Vec<Tensor<f64>> = tape
            .jacobian_with(&y, inputs.to_vec(), options)
            .unwrap()
            .into_iter()
            .map(Option::unwrap)
            .collect();
        assert_close("chunked", &side_by_side(&jacs, 6).to_vec(), &rows, 1e-14);
    }
    // loops and branches
    let (x, y) = (vec3(), vec3b());
    let inputs = [x.clone(), y.clone()];
    let rows = jacobian_row_by_row(&|| looped(&x, &y), &inputs);
    let fused = |a: &[Tensor<f64>]| looped(&a[0], &a[1]);
    assert_close("looped", &first_order(&fused, &inputs), &rows, 1e-14);
    // a function whose adjoint includes matmul and reductions
    let (x, w) = (batch(), w32());
    let inputs = [x.clone(), w.clone()];
    let fused = |a: &[Tensor<f64>]| per_example(&a[0], &a[1]);
    let rows = jacobian_row_by_row(&|| per_example(&x, &w), &inputs);
    assert_close("per_example", &first_order(&fused, &inputs), &rows, 1e-14);
    // composition and tuple results
    let (x, y) = (vec3(), vec3b());
    let inputs = [x.clone(), y.clone()];
    let rows = jacobian_row_by_row(&|| composed(&x, &y), &inputs);
    let fused = |a: &[Tensor<f64>]| composed(&a[0], &a[1]);
    assert_close("composed", &first_order(&fused, &inputs), &rows, 1e-14);
    let rows = jacobian_row_by_row(&|| polar(&x, &y).0, &inputs);
    let fused = |a: &[Tensor<f64>]| polar(&a[0], &a[1]).0;
    assert_close("polar", &first_order(&fused, &inputs), &rows, 1e-14);
}

#[test]
fn a_jacobian_through_an_elementwise_function_replays_it_once() {
    // Under an outer tape the fused node's rule recomputes the forward code (so that the
    // jacobian is connected to the inputs there): once per backward sweep when the adjoint
    // is batch-safe, not once per row.
    let x = t(&[0.5, -0.2, 0.8, 1.3, -0.6, 0.1], &[2, 3]);
    let b = vec3b();
    let outer = GradientTape::new();
    outer.watch(&x);
    let inner = GradientTape::new();
    let total = outer.record(|| {
        inner.watch(&x);
        let y = inner.record(|| counted(&x, &b));
        let before = FORWARD_RUNS.with(Cell::get);
        let j = inner.jacobian(&y, &x).unwrap().unwrap();
        assert_eq!(FORWARD_RUNS.with(Cell::get) - before, 1);
        j.sum()
    });
    // Σᵢⱼ ∂yᵢ/∂xⱼ = Σ ∂yᵢ/∂xᵢ = Σ b cos(x b) x + sin(x b); its gradient:
    // ∂/∂x = 2b cos(x b) - b² x sin(x b)
    let g = outer.gradient(&total, &x).unwrap().unwrap().to_vec();
    let bv = b.to_vec();
    let want: Vec<f64> = x
        .to_vec()
        .iter()
        .enumerate()
        .map(|(k, &xv)| {
            let bk = bv[k % 3];
            2.0 * bk * (xv * bk).cos() - bk * bk * xv * (xv * bk).sin()
        })
        .collect();
    assert_close("gradient of the jacobian's sum", &g, &want, 1e-12);
}

#[test]
fn a_batched_sweep_through_a_variable_parameter() {
    #[differentiable]
    fn scaled(w: &Variable<f64>, x: &Tensor<f64>) -> Tensor<f64> {
        (w * x).tanh() + w * w
    }
    let w = Variable::new(0.8_f64);
    let x = vec3();
    let jacobian = |fused: bool| {
        let tape = GradientTape::persistent();
        tape.watch(&x);
        let y = tape.record(|| {
            if fused {
                scaled(&w, &x)
            } else {
                scaled::primal(&w, &x)
            }
        });
        let (jw, jx) = tape.jacobian(&y, (&w, &x)).unwrap();
        let (jw, jx) = (jw.unwrap(), jx.unwrap());
        assert_eq!((jw.shape(), jx.shape()), (&[3][..], &[3, 3][..]));
        // each row by its own sweep
        for i in 0..3 {
            let mut seed = vec![0.0; 3];
            seed[i] = 1.0;
            let options = GradientOptions::new().output_gradients(t(&seed, &[3]));
            let (gw, gx) = tape.gradient_with(&y, (&w, &x), options).unwrap();
            assert_eq!(gw.unwrap().to_scalar(), jw.to_vec()[i]);
            assert_eq!(gx.unwrap().to_vec(), jx.to_vec()[i * 3..i * 3 + 3]);
        }
        (jw.to_vec(), jx.to_vec())
    };
    // ∂yᵢ/∂w = xᵢ (1 - tanh²(w xᵢ)) + 2w, ∂yᵢ/∂xⱼ = [i = j] w (1 - tanh²(w xᵢ))
    let (jw, jx) = jacobian(true);
    for (i, &xi) in x.to_vec().iter().enumerate() {
        let sech2 = 1.0 - (0.8 * xi).tanh().powi(2);
        assert!((jw[i] - (xi * sech2 + 1.6)).abs() < 1e-14);
        assert!((jx[i * 4] - 0.8 * sech2).abs() < 1e-14);
    }
    let (pw, px) = jacobian(false);
    assert_close("∂y/∂w macro vs tape", &jw, &pw, 1e-14);
    assert_close("∂y/∂x macro vs tape", &jx, &px, 1e-14);
}
