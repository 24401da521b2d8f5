//! The companion items of a tensor-mode `#[differentiable]` function that reads `Variable`s
//! through a struct parameter (issue 13: is a gradient lost without an error?). Such a
//! function runs op by op (`analyse/reach.rs`); its `vjp` and `jvp` are built from the
//! generated code, in which the struct is a constant parameter: the pullback's entry for it
//! is `()` (a type, not a `None`), and the variables' gradients come from a tape recording
//! the forward, which runs the same ops. Each item a user can call is checked against
//! `GradientTape::gradient` of the same body written with plain runtime ops, itself checked
//! against central differences; so are a `Variable` parameter (read by the fused node) and a
//! method of an annotated `impl` block.

mod common;

use common::check_variables_against_differences;
use gradtape::{ForwardAccumulator, GradientTape, Sources, Tensor, Variable, differentiable};

// ----- the model and the oracle -----

#[derive(Sources)]
struct Model {
    w: Variable<f64>,
    b: Variable<f64>,
}

fn model() -> Model {
    Model {
        w: Variable::new(Tensor::from_vec(vec![0.5, -1.25, 0.75], &[3])),
        b: Variable::new(Tensor::from_vec(vec![0.25], &[1])),
    }
}

fn input() -> Tensor<f64> {
    Tensor::from_vec(vec![1.0, -2.0, 0.5], &[3])
}

/// The body every annotated form below writes, with plain runtime ops.
fn loss_plain(w: &Tensor<f64>, b: &Tensor<f64>, x: &Tensor<f64>) -> Tensor<f64> {
    (x * w + b).tanh().square().sum()
}

/// The oracle's gradients of `w`, `b` and `x`, from the op-by-op tape, each checked against
/// central differences before use.
struct Oracle {
    value: f64,
    dw: Tensor<f64>,
    db: Tensor<f64>,
    dx: Tensor<f64>,
}

fn oracle(m: &Model, x: &Tensor<f64>) -> Oracle {
    let tape = GradientTape::persistent();
    tape.watch(x);
    let value = tape.record(|| loss_plain(&m.w.value(), &m.b.value(), x));
    let grads = tape.gradient(&value, m).unwrap();
    let (dw, db) = (grads.w.unwrap(), grads.b.unwrap());
    let dx = tape.gradient(&value, x).unwrap().unwrap();
    check_variables_against_differences(
        "loss_plain",
        &[&m.w, &m.b],
        &[dw.clone(), db.clone()],
        &|| loss_plain(&m.w.value(), &m.b.value(), x).to_scalar(),
    );
    let h = 1e-6;
    for (i, g) in dx.to_vec().iter().enumerate() {
        let at = |delta: f64| {
            let mut moved = x.to_vec();
            moved[i] += delta;
            loss_plain(
                &m.w.value(),
                &m.b.value(),
                &Tensor::from_vec(moved, x.shape()),
            )
            .to_scalar()
        };
        let fd = (at(h) - at(-h)) / (2.0 * h);
        assert!(
            (g - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
            "x[{i}]: {g} vs central differences {fd}"
        );
    }
    Oracle {
        value: value.to_scalar(),
        dw,
        db,
        dx,
    }
}

fn assert_close(name: &str, got: &Tensor<f64>, want: &Tensor<f64>) {
    assert_eq!(got.shape(), want.shape(), "`{name}`: shape");
    for (i, (g, w)) in got.to_vec().iter().zip(want.to_vec()).enumerate() {
        assert!(
            (g - w).abs() <= 1e-12 * (1.0 + w.abs()),
            "`{name}`[{i}]: {g} vs the oracle's {w}"
        );
    }
}

fn dot(a: &Tensor<f64>, b: &Tensor<f64>) -> f64 {
    a.to_vec().iter().zip(b.to_vec()).map(|(a, b)| a * b).sum()
}

// ----- the variables read through a struct parameter -----

#[differentiable]
fn loss(m: &Model, x: &Tensor<f64>) -> Tensor<f64> {
    (x * &m.w.value() + &m.b.value()).tanh().square().sum()
}

#[test]
fn struct_variables_get_their_gradients_through_the_function() {
    let (m, x) = (model(), input());
    let want = oracle(&m, &x);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let value = tape.record(|| loss(&m, &x));
    assert_eq!(value.to_scalar(), want.value);
    let grads = tape.gradient(&value, &m).unwrap();
    assert_close("loss: w", &grads.w.unwrap(), &want.dw);
    assert_close("loss: b", &grads.b.unwrap(), &want.db);
    assert_close(
        "loss: x",
        &tape.gradient(&value, &x).unwrap().unwrap(),
        &want.dx,
    );
}

#[test]
fn struct_variables_get_their_gradients_through_primal() {
    let (m, x) = (model(), input());
    let want = oracle(&m, &x);
    let tape = GradientTape::new();
    let value = tape.record(|| loss::primal(&m, &x));
    let grads = tape.gradient(&value, &m).unwrap();
    assert_close("primal: w", &grads.w.unwrap(), &want.dw);
    assert_close("primal: b", &grads.b.unwrap(), &want.db);
}

/// `vjp`'s pullback holds the struct constant: its entry is `()` (the pattern below would
/// not compile were it an `Option`, so a change of that type is seen here), never a `None`
/// or a zero standing for the variables' gradients. The tensor parameter's entry is right,
/// and a tape recording `vjp`'s forward gives the variables theirs.
#[test]
fn vjp_holds_the_struct_constant_and_its_forward_records_the_variables() {
    let (m, x) = (model(), input());
    let want = oracle(&m, &x);
    let (value, pullback) = loss::vjp(&m, &x);
    assert_eq!(value.to_scalar(), want.value);
    let ((), dx) = pullback(Tensor::ones(value.shape()));
    assert_close("vjp: x", &dx.unwrap(), &want.dx);
    // the cotangent scales the entry linearly
    let ((), dx_half) = pullback(Tensor::scalar(0.5));
    assert_close("vjp: x, half", &(dx_half.unwrap() * 2.0), &want.dx);

    let tape = GradientTape::persistent();
    tape.watch(&x);
    let value = tape.record(|| loss::vjp(&m, &x).0);
    let grads = tape.gradient(&value, &m).unwrap();
    assert_close("recorded vjp: w", &grads.w.unwrap(), &want.dw);
    assert_close("recorded vjp: b", &grads.b.unwrap(), &want.db);
    assert_close(
        "recorded vjp: x",
        &tape.gradient(&value, &x).unwrap().unwrap(),
        &want.dx,
    );
}

/// `jvp` takes a tangent for the tensor parameter alone (the struct is constant to it); an
/// accumulator watching a variable still sees the variable's reads, which `jvp`'s forward
/// runs as recordable ops.
#[test]
fn jvp_takes_the_tensor_tangent_and_an_accumulator_sees_the_variables() {
    let (m, x) = (model(), input());
    let want = oracle(&m, &x);
    let tangent_x = Tensor::from_vec(vec![0.3, -0.7, 1.1], &[3]);
    let (value, tangent) = loss::jvp(&m, &x, &tangent_x);
    assert_eq!(value.to_scalar(), want.value);
    let expected = dot(&want.dx, &tangent_x);
    assert!((tangent.to_scalar() - expected).abs() <= 1e-12 * (1.0 + expected.abs()));

    let tangent_w = Tensor::from_vec(vec![-0.4, 0.9, 0.2], &[3]);
    let accumulator = ForwardAccumulator::new(&m.w, tangent_w.clone()).unwrap();
    let (value, explicit) = accumulator.record(|| loss::jvp(&m, &x, &Tensor::zeros(&[3])));
    // no tangent of `x`: the explicit directional derivative is zero, as the oracle's is
    assert_eq!(explicit.to_scalar(), 0.0);
    let through_w = accumulator.jvp(&value).unwrap().to_scalar();
    let expected = dot(&want.dw, &tangent_w);
    assert!(
        (through_w - expected).abs() <= 1e-12 * (1.0 + expected.abs()),
        "accumulator through w: {through_w} vs {expected}"
    );
}

// ----- the variables as parameters (the fused node's inputs) -----

#[differentiable]
fn loss_of_variables(w: &Variable<f64>, b: &Variable<f64>, x: &Tensor<f64>) -> Tensor<f64> {
    (x * &w.value() + &b.value()).tanh().square().sum()
}

#[test]
fn variable_parameters_get_their_gradients_from_every_item() {
    let (m, x) = (model(), input());
    let want = oracle(&m, &x);
    let tape = GradientTape::new();
    let value = tape.record(|| loss_of_variables(&m.w, &m.b, &x));
    assert_eq!(value.to_scalar(), want.value);
    let grads = tape.gradient(&value, &m).unwrap();
    assert_close("variables: w", &grads.w.unwrap(), &want.dw);
    assert_close("variables: b", &grads.b.unwrap(), &want.db);

    // `vjp` takes a variable's value and gives its cotangent
    let (value, pullback) = loss_of_variables::vjp(&m.w.value(), &m.b.value(), &x);
    assert_eq!(value.to_scalar(), want.value);
    let (dw, db, dx) = pullback(Tensor::ones(value.shape()));
    assert_close("variables vjp: w", &dw.unwrap(), &want.dw);
    assert_close("variables vjp: b", &db.unwrap(), &want.db);
    assert_close("variables vjp: x", &dx.unwrap(), &want.dx);

    let (tangent_w, tangent_b, tangent_x) = (
        Tensor::from_vec(vec![-0.4, 0.9, 0.2], &[3]),
        Tensor::from_vec(vec![0.6], &[1]),
        Tensor::from_vec(vec![0.3, -0.7, 1.1], &[3]),
    );
    let (_, tangent) = loss_of_variables::jvp(
        &m.w.value(),
        &m.b.value(),
        &x,
        &tangent_w,
        &tangent_b,
        &tangent_x,
    );
    let expected =
        dot(&want.dw, &tangent_w) + dot(&want.db, &tangent_b) + dot(&want.dx, &tangent_x);
    assert!(
        (tangent.to_scalar() - expected).abs() <= 1e-12 * (1.0 + expected.abs()),
        "variables jvp: {} vs {expected}",
        tangent.to_scalar()
    );
}

/// A Hessian-vector product in `w` of `run` (nested tapes) against central differences
/// of its first-order gradient.
fn check_second_order_in_w(name: &str, run: &dyn Fn(&Model, &Tensor<f64>) -> Tensor<f64>) {
    let (m, x) = (model(), input());
    let direction = Tensor::from_vec(vec![0.7, -0.2, 0.5], &[3]);
    let gradient_w = |m: &Model| {
        let tape = GradientTape::new();
        let value = tape.record(|| run(m, &x));
        tape.gradient(&value, &m.w).unwrap().unwrap()
    };
    let outer = GradientTape::new();
    let product = outer.record(|| (gradient_w(&m) * &direction).sum());
    let hvp = outer.gradient(&product, &m.w).unwrap().unwrap().to_vec();
    let (values, h) = (m.w.value().to_vec(), 1e-5);
    let moved = |delta: f64| {
        let shifted: Vec<f64> = values
            .iter()
            .zip(direction.to_vec())
            .map(|(w, d)| w + delta * d)
            .collect();
        m.w.assign(Tensor::from_vec(shifted, &[3]));
        let g = gradient_w(&m).to_vec();
        m.w.assign(Tensor::from_vec(values.clone(), &[3]));
        g
    };
    let (up, down) = (moved(h), moved(-h));
    for i in 0..3 {
        let fd = (up[i] - down[i]) / (2.0 * h);
        assert!(
            (hvp[i] - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
            "`{name}`: hvp[{i}]: {} vs central differences {fd}",
            hvp[i]
        );
    }
}

/// Order 2 through the struct (op by op), `vjp`'s recorded forward, and the fused node
/// taking the variables as parameters.
#[test]
fn second_order_in_the_variables() {
    check_second_order_in_w("loss", &|m, x| loss(m, x));
    check_second_order_in_w("loss::vjp", &|m, x| loss::vjp(m, x).0);
    check_second_order_in_w("loss_of_variables", &|m, x| {
        loss_of_variables(&m.w, &m.b, x)
    });
    check_second_order_in_w("Model::loss", &|m, x| m.loss(x));
}

// ----- the variables read in a method of an annotated `impl` block -----

#[differentiable]
impl Model {
    /// Runs as written on the caller's tapes (no node, no companion items).
    #[differentiable]
    fn loss(&self, x: &Tensor<f64>) -> Tensor<f64> {
        (x * &self.w.value() + &self.b.value())
            .tanh()
            .square()
            .sum()
    }

    /// An associated function of the block, taking the model: also as written.
    #[differentiable]
    fn loss_of(m: &Model, x: &Tensor<f64>) -> Tensor<f64> {
        (x * &m.w.value() + &m.b.value()).tanh().square().sum()
    }
}

#[test]
fn method_and_associated_function_read_the_variables() {
    let (m, x) = (model(), input());
    let want = oracle(&m, &x);
    for (name, run) in [
        (
            "method",
            &(|m: &Model, x: &Tensor<f64>| m.loss(x))
                as &dyn Fn(&Model, &Tensor<f64>) -> Tensor<f64>,
        ),
        ("associated", &|m: &Model, x: &Tensor<f64>| {
            Model::loss_of(m, x)
        }),
    ] {
        let tape = GradientTape::persistent();
        tape.watch(&x);
        let value = tape.record(|| run(&m, &x));
        assert_eq!(value.to_scalar(), want.value, "{name}");
        let grads = tape.gradient(&value, &m).unwrap();
        assert_close(&format!("{name}: w"), &grads.w.unwrap(), &want.dw);
        assert_close(&format!("{name}: b"), &grads.b.unwrap(), &want.db);
        assert_close(
            &format!("{name}: x"),
            &tape.gradient(&value, &x).unwrap().unwrap(),
            &want.dx,
        );
    }
}

// ----- a variable read in the body that is no parameter -----

thread_local! {
    /// A variable no parameter holds: the body reads it by name.
    static SCALE: Variable<f64> = Variable::new(Tensor::from_vec(vec![1.5], &[1]));
}

#[differentiable]
fn scaled_loss(x: &Tensor<f64>) -> Tensor<f64> {
    let scale = SCALE.with(|s| s.value());
    (x * &scale).tanh().square().sum()
}

/// Its `vjp` has no entry for the variable (it is no parameter) and the `x` entry is right;
/// the function, and `vjp`'s forward, give the variable its gradient on a tape.
#[test]
fn a_variable_read_by_name_gets_its_gradient_from_the_tape() {
    let x = input();
    let scale = SCALE.with(Variable::clone);
    let plain = |x: &Tensor<f64>| (x * &scale.value()).tanh().square().sum();
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let value = tape.record(|| plain(&x));
    let want_scale = tape.gradient(&value, &scale).unwrap().unwrap();
    let want_x = tape.gradient(&value, &x).unwrap().unwrap();
    check_variables_against_differences(
        "scaled_loss",
        &[&scale],
        std::slice::from_ref(&want_scale),
        &|| plain(&x).to_scalar(),
    );

    let (value, pullback) = scaled_loss::vjp(&x);
    assert_eq!(value.to_scalar(), plain(&x).to_scalar());
    let (dx,) = pullback(Tensor::ones(value.shape()));
    assert_close("scaled_loss vjp: x", &dx.unwrap(), &want_x);

    for (name, run) in [
        (
            "function",
            &scaled_loss as &dyn Fn(&Tensor<f64>) -> Tensor<f64>,
        ),
        ("vjp's forward", &|x: &Tensor<f64>| scaled_loss::vjp(x).0),
    ] {
        let tape = GradientTape::new();
        let value = tape.record(|| run(&x));
        let got = tape.gradient(&value, &scale).unwrap().unwrap();
        assert_close(&format!("scaled_loss {name}: scale"), &got, &want_scale);
    }
}
