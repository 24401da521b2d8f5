//! A corpus of `#[differentiable]` functions (Tangent's `tests/functions.py` habit), each
//! checked against two independent oracles, at orders one and two: the op-by-op tape
//! gradient of the same body (`f::primal`, recorded op by op) and central finite
//! differences in f64. Forward mode too: under a `ForwardAccumulator` an annotated call's
//! tangent comes from its generated tangent code (`f::jvp`), checked against the op-by-op
//! accumulator, against the gradient (`jvp(v) = <grad, v>`), and at order two nested with
//! a tape (reverse over forward: `H v`) and with a second accumulator (`vᵀ H v`).

use gradtape::{
    ForwardAccumulator, GradientTape, Tensor, UnconnectedGradients, Variable, differentiable,
};

// ----- oracles -----

type Inputs = Vec<Tensor<f64>>;

fn t(values: &[f64], shape: &[usize]) -> Tensor<f64> {
    Tensor::from_vec(values.to_vec(), shape)
}

/// The loss the checks differentiate: the sum of every output element.
fn total(y: &Tensor<f64>) -> Tensor<f64> {
    y.sum()
}

/// The gradient of `scalar()` w.r.t. each input, recorded on one tape (zeros where it does
/// not depend on an input).
fn gradient_of(x: &[Tensor<f64>], scalar: impl FnOnce() -> Tensor<f64>) -> Inputs {
    let tape = GradientTape::new();
    for input in x {
        tape.watch(input);
    }
    let y = tape.record(scalar);
    let grads = tape.gradient(&y, x.to_vec()).unwrap();
    grads
        .into_iter()
        .zip(x)
        .map(|(g, input)| g.unwrap_or_else(|| Tensor::zeros(input.shape())))
        .collect()
}

/// Gradient of `Σ f(x)` w.r.t. each input, on one tape.
fn tape_gradient(f: &dyn Fn(&[Tensor<f64>]) -> Tensor<f64>, x: &[Tensor<f64>]) -> Inputs {
    gradient_of(x, || total(&f(x)))
}

/// The Hessian-vector product `H v` of `Σ f` with `v = 0.3, 0.4, ...`: the gradient of
/// `∇f · v` taken on an outer tape.
fn hessian_vector(f: &dyn Fn(&[Tensor<f64>]) -> Tensor<f64>, x: &[Tensor<f64>]) -> Inputs {
    gradient_of(x, || {
        let grads = tape_gradient(f, x);
        let mut dot = Tensor::scalar(0.0);
        for (k, g) in grads.iter().enumerate() {
            dot = dot + (g * &direction(k, g.shape())).sum();
        }
        dot
    })
}

/// The tangent of `Σ f(x)` along `direction`, under one accumulator, as a 0-d tensor (so
/// that an outer tape or accumulator can differentiate it again).
fn accumulator_jvp(f: &dyn Fn(&[Tensor<f64>]) -> Tensor<f64>, x: &[Tensor<f64>]) -> Tensor<f64> {
    let tangents: Inputs = directions(x);
    let acc = ForwardAccumulator::new(x.to_vec(), tangents).unwrap();
    let y = acc.record(|| total(&f(x)));
    acc.jvp_with(&y, UnconnectedGradients::Zero).unwrap()
}

/// `H v` by reverse over forward: the gradient of the accumulator's tangent.
fn reverse_over_forward(f: &dyn Fn(&[Tensor<f64>]) -> Tensor<f64>, x: &[Tensor<f64>]) -> Inputs {
    gradient_of(x, || accumulator_jvp(f, x))
}

/// `vᵀ H v` by forward over forward: an outer accumulator's tangent of the inner one's.
fn forward_over_forward(f: &dyn Fn(&[Tensor<f64>]) -> Tensor<f64>, x: &[Tensor<f64>]) -> f64 {
    let outer = ForwardAccumulator::new(x.to_vec(), directions(x)).unwrap();
    let inner_jvp = outer.record(|| accumulator_jvp(f, x));
    outer
        .jvp_with(&inner_jvp, UnconnectedGradients::Zero)
        .unwrap()
        .to_scalar()
}

/// `Σₖ <aₖ, bₖ>`.
fn pairing(a: &[Tensor<f64>], b: &[Tensor<f64>]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(a, b)| (a * b).sum().to_scalar())
        .sum()
}

fn directions(x: &[Tensor<f64>]) -> Inputs {
    x.iter()
        .enumerate()
        .map(|(k, input)| direction(k, input.shape()))
        .collect()
}

fn direction(k: usize, shape: &[usize]) -> Tensor<f64> {
    let n: usize = shape.iter().product();
    let values = (0..n).map(|i| 0.3 + 0.1 * (k * 7 + i) as f64).collect();
    Tensor::from_vec(values, shape)
}

/// Central differences of `scalar(x)` in every element of every input.
fn finite_differences(scalar: &dyn Fn(&[Tensor<f64>]) -> f64, x: &[Tensor<f64>]) -> Vec<Vec<f64>> {
    let h = 1e-5;
    (0..x.len())
        .map(|k| {
            (0..x[k].len())
                .map(|i| {
                    let shifted = |delta: f64| {
                        let mut moved = x.to_vec();
                        let mut values = moved[k].to_vec();
                        values[i] += delta;
                        moved[k] = Tensor::from_vec(values, x[k].shape());
                        scalar(&moved)
                    };
                    (shifted(h) - shifted(-h)) / (2.0 * h)
                })
                .collect()
        })
        .collect()
}

fn assert_close(what: &str, a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (p, q)) in a.iter().zip(b).enumerate() {
        assert!(
            (p - q).abs() <= tol * (1.0 + q.abs()),
            "{what}[{i}]: {p} vs {q}\n  {a:?}\n  {b:?}"
        );
    }
}

/// Checks the fused function against the op-by-op tape and finite differences, at orders
/// one and two.
fn check(
    name: &str,
    x: Inputs,
    fused: impl Fn(&[Tensor<f64>]) -> Tensor<f64>,
    plain: impl Fn(&[Tensor<f64>]) -> Tensor<f64>,
) {
    let value_fused = fused(&x).to_vec();
    let value_plain = plain(&x).to_vec();
    assert_close(&format!("{name} value"), &value_fused, &value_plain, 1e-12);

    let by_macro = tape_gradient(&fused, &x);
    let by_tape = tape_gradient(&plain, &x);
    let by_fd = finite_differences(&|x| total(&plain(x)).to_scalar(), &x);
    for k in 0..x.len() {
        let (m, t) = (by_macro[k].to_vec(), by_tape[k].to_vec());
        assert_close(&format!("{name} d/dx{k} macro vs tape"), &m, &t, 1e-10);
        assert_close(&format!("{name} d/dx{k} macro vs fd"), &m, &by_fd[k], 1e-6);
    }

    let hv_macro = hessian_vector(&fused, &x);
    let hv_tape = hessian_vector(&plain, &x);
    let hv_fd = finite_differences(
        &|x| {
            let grads = tape_gradient(&plain, x);
            grads
                .iter()
                .enumerate()
                .map(|(k, g)| (g * &direction(k, g.shape())).sum().to_scalar())
                .sum()
        },
        &x,
    );
    for k in 0..x.len() {
        let (m, t) = (hv_macro[k].to_vec(), hv_tape[k].to_vec());
        assert_close(&format!("{name} Hv{k} macro vs tape"), &m, &t, 1e-9);
        assert_close(&format!("{name} Hv{k} macro vs fd"), &m, &hv_fd[k], 1e-5);
    }

    // Forward mode, order one: the generated tangent code against the op-by-op
    // accumulator and against the gradient.
    let jvp_macro = accumulator_jvp(&fused, &x).to_scalar();
    let jvp_tape = accumulator_jvp(&plain, &x).to_scalar();
    let v = directions(&x);
    assert_close(
        &format!("{name} jvp macro vs accumulator"),
        &[jvp_macro],
        &[jvp_tape],
        1e-12,
    );
    assert_close(
        &format!("{name} jvp vs <grad, v>"),
        &[jvp_macro],
        &[pairing(&by_tape, &v)],
        1e-10,
    );

    // Order two: reverse over forward gives H v, forward over forward vᵀ H v.
    let rof_macro = reverse_over_forward(&fused, &x);
    for k in 0..x.len() {
        let (m, t) = (rof_macro[k].to_vec(), hv_tape[k].to_vec());
        assert_close(
            &format!("{name} Hv{k} reverse over forward vs tape"),
            &m,
            &t,
            1e-9,
        );
    }
    let fof_macro = forward_over_forward(&fused, &x);
    let fof_tape = forward_over_forward(&plain, &x);
    assert_close(
        &format!("{name} vHv forward over forward vs accumulator"),
        &[fof_macro],
        &[fof_tape],
        1e-10,
    );
    assert_close(
        &format!("{name} vHv vs <Hv, v>"),
        &[fof_macro],
        &[pairing(&hv_tape, &v)],
        1e-9,
    );
}

macro_rules! case {
    ($f:ident($($arg:expr),*) with [$($input:expr),* $(,)?]) => {{
        #[allow(unused_variables)]
        let fused = |x: &[Tensor<f64>]| $f($($arg(x)),*);
        #[allow(unused_variables)]
        let plain = |x: &[Tensor<f64>]| $f::primal($($arg(x)),*);
        check(stringify!($f), vec![$($input),*], fused, plain);
    }};
}

fn a0(x: &[Tensor<f64>]) -> &Tensor<f64> {
    &x[0]
}
fn a1(x: &[Tensor<f64>]) -> &Tensor<f64> {
    &x[1]
}
fn a2(x: &[Tensor<f64>]) -> &Tensor<f64> {
    &x[2]
}

fn vec3() -> Tensor<f64> {
    t(&[0.3, -0.7, 1.1], &[3])
}
fn vec3b() -> Tensor<f64> {
    t(&[0.9, 0.2, -0.4], &[3])
}
fn mat23() -> Tensor<f64> {
    t(&[0.5, -0.2, 0.8, 1.3, -0.6, 0.1], &[2, 3])
}
fn mat32() -> Tensor<f64> {
    t(&[0.4, 0.9, -0.3, 0.2, 0.7, -1.1], &[3, 2])
}
fn scalar(v: f64) -> Tensor<f64> {
    Tensor::scalar(v)
}

// ----- straight-line code -----

/// The seed example: `3 w1² + 2 w1 w2`.
#[differentiable]
fn seed(w1: &Tensor<f64>, w2: &Tensor<f64>) -> Tensor<f64> {
    3.0 * w1.powi(2) + 2.0 * w1 * w2
}

#[differentiable]
fn sin_cos(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    x.sin() * y.cos()
}

#[differentiable]
fn exp_ln(x: &Tensor<f64>) -> Tensor<f64> {
    (x.exp() + 1.0).ln()
}

#[differentiable]
fn tanh_sigmoid(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    x.tanh() + y.sigmoid() * x
}

#[differentiable]
fn sqrt_square(x: &Tensor<f64>) -> Tensor<f64> {
    (x.square() + 1.0).sqrt()
}

#[differentiable]
fn quotient(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    x / (y * y + 1.0)
}

#[differentiable]
fn literals_on_both_sides(x: &Tensor<f64>) -> Tensor<f64> {
    2.0 / (1.0 + x * x) - 3.0 - x * 0.5 + (x - 1.0) / 4.0
}

#[differentiable]
fn negation(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    -x * y + -(x.sin())
}

#[differentiable]
fn real_power(x: &Tensor<f64>) -> Tensor<f64> {
    (x * x + 1.0).powf(1.5) + x.softplus() + x.abs()
}

#[differentiable]
fn integer_power(x: &Tensor<f64>, n: i32) -> Tensor<f64> {
    x.powi(n) + x.powi(n - 1)
}

#[differentiable]
fn reused_local(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    let a = x * y;
    &a * &a + a.sin() + &a
}

#[differentiable]
fn shadowing(x: &Tensor<f64>) -> Tensor<f64> {
    let x = x.sin();
    let x = &x * &x;
    x + 1.0
}

#[differentiable]
fn reassignment(x: &Tensor<f64>) -> Tensor<f64> {
    let mut y = x.clone();
    y = &y * &y;
    y = y.sin() + &y;
    y * x
}

#[differentiable]
fn accumulated_reassignment(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    let mut acc = x.clone();
    acc = acc + y;
    acc = acc * x;
    acc = acc - 1.0;
    acc = acc / 2.0;
    acc
}

#[differentiable]
fn constant_number(x: &Tensor<f64>, s: f64) -> Tensor<f64> {
    let c = s * 2.0;
    x * s + c * x.exp()
}

#[differentiable]
fn owned_parameter(x: Tensor<f64>) -> Tensor<f64> {
    x.sin() * &x
}

#[differentiable]
fn block_expression(x: &Tensor<f64>) -> Tensor<f64> {
    let y = {
        let a = x * 2.0;
        a.sin()
    };
    y * x
}

// ----- broadcasting -----

#[differentiable]
fn broadcast_row(x: &Tensor<f64>, b: &Tensor<f64>, c: &Tensor<f64>) -> Tensor<f64> {
    x * b + c
}

#[differentiable]
fn broadcast_quotient(x: &Tensor<f64>, b: &Tensor<f64>, c: &Tensor<f64>) -> Tensor<f64> {
    (x - b) / (c * c + 1.0)
}

#[differentiable]
fn broadcast_extremes(x: &Tensor<f64>, b: &Tensor<f64>) -> Tensor<f64> {
    x.maximum(b) + x.minimum(&(b * 2.0))
}

// ----- tensor ops with no elementwise rule (differentiated through the runtime) -----

#[differentiable]
fn dense_tanh(x: &Tensor<f64>, w: &Tensor<f64>, b: &Tensor<f64>) -> Tensor<f64> {
    (x.matmul(w) + b).tanh()
}

#[differentiable]
fn matmul_chain(x: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let h = x.matmul(w).sigmoid();
    h.matmul(&h.transpose())
}

#[differentiable]
fn reductions(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    x.sum() * y.mean() + x.max()
}

#[differentiable]
fn axis_reductions(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    x.sum_axis(0, false) * y + x.mean_axis(1, true)
}

#[differentiable]
fn softmax_weighted(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    x.softmax(1) * y + x.log_softmax(0)
}

#[differentiable]
fn reshape_transpose(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    x.reshape(&[3, 2]).transpose() * y
}

#[differentiable]
fn concatenated(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    Tensor::concat(&[x, &y.sin()], 0).square()
}

#[differentiable]
fn slices(x: &Tensor<f64>) -> Tensor<f64> {
    x.slice(0, 1, 2) * x.gather(0, &[0, 2])
}

/// `matmul_transposed`: `xᵀ · w` without materialising the transpose.
#[differentiable]
fn transposed_product(x: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    x.matmul_transposed(w, true, false).tanh()
}

/// `xw_plus_b`: the fused dense layer.
#[differentiable]
fn fused_dense(x: &Tensor<f64>, w: &Tensor<f64>, b: &Tensor<f64>) -> Tensor<f64> {
    x.xw_plus_b(w, b).sigmoid()
}

/// The fused sparse softmax cross-entropy, after a product so that the logits depend on
/// both inputs.
#[differentiable]
fn sparse_cross_entropy(x: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    x.matmul(w)
        .sparse_softmax_cross_entropy_with_logits(&[1, 0])
}

/// `argmax_axis` and `equal` give integer and boolean tensors: constants to the adjoint,
/// read here only for their count.
#[differentiable]
fn integer_results(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    let best = x.argmax_axis(1);
    let same = x.equal(y);
    x.square() * (best.len() + same.len()) as f64
}

// ----- control flow -----

#[differentiable]
fn branch_on_flag(x: &Tensor<f64>, flag: bool) -> Tensor<f64> {
    if flag { x * x } else { x.sin() }
}

#[differentiable]
fn branch_on_value(x: &Tensor<f64>) -> Tensor<f64> {
    let s = x.sum();
    if s.to_scalar() > 0.0 {
        s.exp() * x
    } else {
        x.cos()
    }
}

#[differentiable]
fn branch_in_operand(x: &Tensor<f64>, y: &Tensor<f64>, flag: bool) -> Tensor<f64> {
    x * if flag { y.clone() } else { y.exp() }
}

#[differentiable]
fn matched(x: &Tensor<f64>, mode: u8) -> Tensor<f64> {
    match mode {
        0 => x * x,
        1 => x.exp(),
        _ => x.clone(),
    }
}

#[differentiable]
fn chain_loop(x: &Tensor<f64>, steps: usize) -> Tensor<f64> {
    let mut y = x.clone();
    for _ in 0..steps {
        y = y.sin() * 0.9 + &y * 0.1;
    }
    y
}

#[differentiable]
fn indexed_loop(x: &Tensor<f64>) -> Tensor<f64> {
    let mut acc = Tensor::zeros(x.shape());
    for i in 0..3 {
        acc = acc + x.powi(i + 1) / (i + 1) as f64;
    }
    acc
}

#[differentiable]
fn while_loop(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    let mut z = y.clone();
    let mut k = 0;
    while k < 3 {
        z = &z * x + 0.5;
        k += 1;
    }
    z
}

#[differentiable]
fn branch_inside_loop(x: &Tensor<f64>) -> Tensor<f64> {
    let mut y = x.clone();
    for i in 0..4 {
        if i % 2 == 0 {
            y = y.sin() + x;
        } else {
            let t = &y * x;
            y = t.tanh();
        }
    }
    y
}

#[differentiable]
fn nested_loops(x: &Tensor<f64>) -> Tensor<f64> {
    let mut y = x.clone();
    for _ in 0..2 {
        for _ in 0..3 {
            y = &y * 0.5 + y.cos();
        }
        y = y * x;
    }
    y
}

#[differentiable]
fn early_return(x: &Tensor<f64>) -> Tensor<f64> {
    if x.sum().to_scalar() < 0.0 {
        return x * 2.0;
    }
    let y = x.exp();
    y * x
}

#[differentiable]
fn early_return_in_match(x: &Tensor<f64>, mode: u8) -> Tensor<f64> {
    let y = x.sin();
    match mode {
        0 => return y,
        _ => {}
    }
    y * x
}

// ----- composition -----

#[differentiable]
fn inner(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    x.sin() * y
}

#[differentiable]
fn composed(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    inner(x, y) * 2.0 + inner(&(x * y), x)
}

/// Built from gradtape ops, not annotated.
fn helper(x: &Tensor<f64>) -> Tensor<f64> {
    x.square().sum_axis(0, true) + x
}

#[differentiable]
fn calls_helper(x: &Tensor<f64>) -> Tensor<f64> {
    helper(&x.tanh()) * x
}

/// Identity forward, no gradient (the runtime's `stop_gradient` is added elsewhere; the
/// macro recognises the call by name).
fn stop_gradient(x: &Tensor<f64>) -> Tensor<f64> {
    Tensor::from_vec(x.to_vec(), x.shape())
}

#[differentiable]
fn stopped(x: &Tensor<f64>) -> Tensor<f64> {
    x * stop_gradient(x) + x
}

#[differentiable]
fn integer_data(x: &Tensor<f64>, labels: &Tensor<i64>) -> Tensor<f64> {
    x * labels.cast::<f64>()
}

#[differentiable]
fn tuple_result(x: &Tensor<f64>, y: &Tensor<f64>) -> (Tensor<f64>, Tensor<f64>) {
    (x * y, x.sin())
}

#[differentiable]
fn generic<T: gradtape::Float>(x: &Tensor<T>) -> Tensor<T> {
    x.sin() * x
}

// ----- the checks -----

#[test]
fn straight_line() {
    case!(seed(a0, a1) with [scalar(5.0), scalar(3.0)]);
    case!(sin_cos(a0, a1) with [vec3(), vec3b()]);
    case!(exp_ln(a0) with [vec3()]);
    case!(tanh_sigmoid(a0, a1) with [vec3(), vec3b()]);
    case!(sqrt_square(a0) with [vec3()]);
    case!(quotient(a0, a1) with [vec3(), vec3b()]);
    case!(literals_on_both_sides(a0) with [vec3()]);
    case!(negation(a0, a1) with [vec3(), vec3b()]);
    case!(real_power(a0) with [vec3()]);
    case!(integer_power(a0, |_| 3) with [vec3()]);
    case!(reused_local(a0, a1) with [vec3(), vec3b()]);
    case!(shadowing(a0) with [vec3()]);
    case!(reassignment(a0) with [vec3()]);
    case!(accumulated_reassignment(a0, a1) with [vec3(), vec3b()]);
    case!(constant_number(a0, |_| 0.7) with [vec3()]);
    case!(owned_parameter(|x: &[Tensor<f64>]| x[0].clone()) with [vec3()]);
    case!(block_expression(a0) with [vec3()]);
}

#[test]
fn broadcasting() {
    case!(broadcast_row(a0, a1, a2) with [mat23(), vec3(), scalar(0.4)]);
    case!(broadcast_quotient(a0, a1, a2) with [mat23(), vec3b(), scalar(-0.6)]);
    case!(broadcast_extremes(a0, a1) with [mat23(), vec3()]);
}

#[test]
fn tensor_ops() {
    case!(dense_tanh(a0, a1, a2) with [mat23(), mat32(), t(&[0.1, -0.2], &[2])]);
    case!(matmul_chain(a0, a1) with [mat23(), mat32()]);
    case!(reductions(a0, a1) with [mat23(), vec3()]);
    case!(axis_reductions(a0, a1) with [mat23(), vec3b()]);
    case!(softmax_weighted(a0, a1) with [mat23(), mat23()]);
    case!(reshape_transpose(a0, a1) with [mat23(), mat23()]);
    case!(concatenated(a0, a1) with [vec3(), vec3b()]);
    case!(slices(a0) with [vec3()]);
    case!(transposed_product(a0, a1) with [mat23(), mat23()]);
    case!(fused_dense(a0, a1, a2) with [mat23(), mat32(), t(&[0.1, -0.2], &[2])]);
    case!(sparse_cross_entropy(a0, a1) with [mat23(), mat32()]);
    case!(integer_results(a0, a1) with [mat23(), mat23()]);
}

#[test]
fn control_flow() {
    case!(branch_on_flag(a0, |_| true) with [vec3()]);
    case!(branch_on_flag(a0, |_| false) with [vec3()]);
    case!(branch_on_value(a0) with [vec3()]);
    case!(branch_on_value(a0) with [t(&[-0.3, -0.7, 0.1], &[3])]);
    case!(branch_in_operand(a0, a1, |_| true) with [vec3(), vec3b()]);
    case!(branch_in_operand(a0, a1, |_| false) with [vec3(), vec3b()]);
    for mode in 0..3 {
        case!(matched(a0, |_| mode) with [vec3()]);
    }
    case!(chain_loop(a0, |_| 25) with [vec3()]);
    case!(indexed_loop(a0) with [vec3()]);
    case!(while_loop(a0, a1) with [vec3(), vec3b()]);
    case!(branch_inside_loop(a0) with [vec3()]);
    case!(nested_loops(a0) with [vec3()]);
    case!(early_return(a0) with [vec3()]);
    case!(early_return(a0) with [t(&[-0.3, -0.7, 0.1], &[3])]);
    case!(early_return_in_match(a0, |_| 0) with [vec3()]);
    case!(early_return_in_match(a0, |_| 1) with [vec3()]);
}

#[test]
fn composition_and_constants() {
    case!(composed(a0, a1) with [vec3(), vec3b()]);
    case!(calls_helper(a0) with [mat23()]);
    // stop_gradient departs from finite differences on purpose:
    // d/dx (x sg(x) + x) = sg(x) + 1 = x + 1
    let x = vec3();
    let by_macro = tape_gradient(&|x| stopped(&x[0]), std::slice::from_ref(&x));
    let by_tape = tape_gradient(&|x| stopped::primal(&x[0]), std::slice::from_ref(&x));
    let expected: Vec<f64> = x.to_vec().iter().map(|v| v + 1.0).collect();
    assert_close("stopped macro", &by_macro[0].to_vec(), &expected, 1e-12);
    assert_close("stopped tape", &by_tape[0].to_vec(), &expected, 1e-12);
    let labels = Tensor::from_vec(vec![2_i64, 0, 1], &[3]);
    case!(integer_data(a0, |_| &labels) with [vec3()]);
    case!(generic(a0) with [vec3()]);
}

#[test]
fn tuple_results() {
    // Σ (x y) + Σ sin x, through both outputs of one fused call (two nodes sharing one
    // adjoint), against the op-by-op tape
    let sum_both = |(a, b): (Tensor<f64>, Tensor<f64>)| a + b;
    case!(tuple_sum(a0, a1) with [vec3(), vec3b()]);
    fn tuple_sum(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
        let (a, b) = tuple_result(x, y);
        a + b
    }
    mod tuple_sum {
        use super::*;
        pub fn primal(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
            let (a, b) = tuple_result::primal(x, y);
            a + b
        }
    }
    let _ = sum_both;
}

#[test]
fn variables_as_arguments() {
    #[differentiable]
    fn affine(w: &Variable<f64>, x: &Tensor<f64>) -> Tensor<f64> {
        w * x + w.sin()
    }
    let w = Variable::new(0.8_f64);
    let x = vec3();
    let tape = GradientTape::new();
    let y = tape.record(|| affine(&w, &x).sum());
    // d/dw Σ (w x_i + sin w) = Σ x_i + 3 cos w
    let expected = x.to_vec().iter().sum::<f64>() + 3.0 * 0.8_f64.cos();
    let dw = tape.gradient(&y, &w).unwrap().unwrap().to_scalar();
    assert!((dw - expected).abs() < 1e-12, "{dw} vs {expected}");
}

// ----- plain float functions: the tape-free gradient -----

#[differentiable]
fn w7(x: f64, y: f64) -> f64 {
    (x * y).sin() + x.exp() / (1.0 + y * y)
}

#[differentiable]
fn polynomial(x: f64) -> f64 {
    3.0 * x.powi(3) - 2.0 * x * x + x - 7.0
}

#[differentiable]
fn scalar_branch(x: f64, y: f64) -> f64 {
    if x > y { x * y } else { (x - y).tanh() }
}

#[differentiable]
fn scalar_loop(x: f64, n: usize) -> f64 {
    let mut y = x;
    for _ in 0..n {
        y = y.sin() * 0.9 + y * 0.1;
    }
    y
}

#[differentiable]
fn scalar_composed(x: f64, y: f64) -> f64 {
    w7(x, y) * polynomial(x) + w7(y, x)
}

#[differentiable]
fn scalar_extremes(x: f64, y: f64) -> f64 {
    x.max(y) * x.min(y * 0.5) + (x * x + 1.0).sqrt().ln()
}

#[differentiable]
fn scalar_early_return(x: f64) -> f64 {
    if x < 0.0 {
        return -x;
    }
    let y = x * x;
    y.sqrt() + y
}

#[differentiable]
fn scalar_accumulate(x: f64, y: f64) -> f64 {
    let mut acc = 0.0;
    let mut k = 0;
    while k < 4 {
        acc += x * y / (k as f64 + 1.0);
        acc *= 0.9;
        k += 1;
    }
    acc
}

#[differentiable]
fn single_precision(x: f32, y: f32) -> f32 {
    x * y.exp() - y.powf(2.5)
}

fn scalar_fd(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    (0..x.len())
        .map(|i| {
            let mut up = x.to_vec();
            let mut down = x.to_vec();
            up[i] += h;
            down[i] -= h;
            (f(&up) - f(&down)) / (2.0 * h)
        })
        .collect()
}

/// Checks `grad` against finite differences of `f`, and its Jacobian (the Hessian, by
/// central differences of `grad`) against second differences of `f`.
fn check_scalar(
    name: &str,
    x: &[f64],
    f: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> Vec<f64>,
) {
    assert_close(
        &format!("{name} gradient"),
        &grad(x),
        &scalar_fd(&f, x),
        1e-7,
    );
    let n = x.len();
    let h = 1e-4;
    for i in 0..n {
        let row = scalar_fd(|x| grad(x)[i], x);
        for j in 0..n {
            let second = |di: f64, dj: f64| {
                let mut p = x.to_vec();
                p[i] += di;
                p[j] += dj;
                f(&p)
            };
            let expected =
                (second(h, h) - second(h, -h) - second(-h, h) + second(-h, -h)) / (4.0 * h * h);
            assert_close(&format!("{name} H[{i}][{j}]"), &[row[j]], &[expected], 1e-4);
        }
    }
}

#[test]
fn plain_float_functions() {
    check_scalar(
        "w7",
        &[0.5, 0.25],
        |x| w7(x[0], x[1]),
        |x| w7::grad(x[0], x[1]).1.to_vec(),
    );
    check_scalar(
        "polynomial",
        &[1.3],
        |x| polynomial(x[0]),
        |x| polynomial::grad(x[0]).1.to_vec(),
    );
    for point in [[0.9, 0.4], [0.2, 0.7]] {
        check_scalar(
            "scalar_branch",
            &point,
            |x| scalar_branch(x[0], x[1]),
            |x| scalar_branch::grad(x[0], x[1]).1.to_vec(),
        );
    }
    check_scalar(
        "scalar_loop",
        &[0.5],
        |x| scalar_loop(x[0], 30),
        |x| scalar_loop::grad(x[0], 30).1.to_vec(),
    );
    check_scalar(
        "scalar_composed",
        &[0.3, 0.6],
        |x| scalar_composed(x[0], x[1]),
        |x| scalar_composed::grad(x[0], x[1]).1.to_vec(),
    );
    check_scalar(
        "scalar_extremes",
        &[0.8, 1.1],
        |x| scalar_extremes(x[0], x[1]),
        |x| scalar_extremes::grad(x[0], x[1]).1.to_vec(),
    );
    for point in [[-0.7], [1.4]] {
        check_scalar(
            "scalar_early_return",
            &point,
            |x| scalar_early_return(x[0]),
            |x| scalar_early_return::grad(x[0]).1.to_vec(),
        );
    }
    check_scalar(
        "scalar_accumulate",
        &[0.4, -1.2],
        |x| scalar_accumulate(x[0], x[1]),
        |x| scalar_accumulate::grad(x[0], x[1]).1.to_vec(),
    );
    // f32: d/dx = e^y, d/dy = x e^y - 2.5 y^1.5, at (1.5, 0.5)
    let (value, [dx, dy]) = single_precision::grad(1.5, 0.5);
    assert_eq!(value, single_precision(1.5, 0.5));
    assert!((dx - 0.5_f32.exp()).abs() < 1e-6);
    assert!((dy - (1.5 * 0.5_f32.exp() - 2.5 * 0.5_f32.powf(1.5))).abs() < 1e-6);
}
