//! `#[differentiable]` on methods (issue 13, "`&self` methods in `impl` blocks"): a
//! layer's or model's `forward`, and plain-float methods of a parameter struct.
//!
//! - **Tensor mode.** `self` may hold variables, so a tensor method runs op by op on the
//!   caller's tapes: its gradients reach the variables inside `self` (checked with
//!   `#[derive(Sources)]` against central differences, element by element, and at second
//!   order through a Hessian-vector product against differences of gradients), methods
//!   call methods of their fields, free annotated functions call methods, and a trait's
//!   `impl` may hold one. An associated function of an annotated block runs so too, and
//!   so does a body the generated adjoint could not transform (a local `Vec` of tensors):
//!   the tape records it as written.
//! - **Scalar mode.** `self` is a constant; the companion items are associated functions
//!   beside the method (`energy_vjp`, `energy_grad`, `energy_jvp`, `energy_grad_into`),
//!   which callers reach by method syntax. Checked: the value equal to the method's to
//!   the bit, the gradient against central differences of the method as written, `jvp`
//!   against `grad`, an annotated caller (a free function and a method) through the
//!   callee's generated code, and the Hessian by differences of `grad` against second
//!   differences of the method.

#[macro_use]
mod common;

use common::faces::{Gradient, Tangent, Value};
use common::{central_differences, check_variables_against_differences, close};
use gradtape::{Differentiable, GradientTape, Sources, Tensor, Variable, differentiable};

// ----- tensor mode: layers and models -----

fn v(values: &[f64], shape: &[usize]) -> Variable<f64> {
    Variable::new(Tensor::from_vec(values.to_vec(), shape))
}

fn t(values: &[f64], shape: &[usize]) -> Tensor<f64> {
    Tensor::from_vec(values.to_vec(), shape)
}

/// A dense layer: `activation(x W + b)`, with a configuration field.
#[derive(Sources)]
struct Dense {
    kernel: Variable<f64>,
    bias: Variable<f64>,
    #[sources(skip)]
    relu: bool,
}

impl Dense {
    #[differentiable]
    fn forward(&self, x: &Tensor<f64>) -> Tensor<f64> {
        let z = x.matmul(&self.kernel.value()) + &self.bias.value();
        if self.relu { z.relu() } else { z.tanh() }
    }
}

/// Two layers; its methods call its fields' methods.
#[derive(Sources)]
struct Mlp {
    hidden: Dense,
    output: Dense,
}

impl Mlp {
    #[differentiable]
    fn forward(&self, x: &Tensor<f64>) -> Tensor<f64> {
        let h = self.hidden.forward(x);
        self.output.forward(&h)
    }

    #[differentiable]
    fn loss(&self, x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
        (self.forward(x) - y).square().mean()
    }

    /// A method of `self` alone (an L2 penalty on the kernels).
    #[differentiable]
    fn penalty(&self) -> Tensor<f64> {
        self.hidden.kernel.value().square().sum() + self.output.kernel.value().square().sum()
    }
}

/// A free annotated function calling a model's method.
#[differentiable]
fn regularised_loss(model: &Mlp, x: &Tensor<f64>, y: &Tensor<f64>, weight: f64) -> Tensor<f64> {
    model.loss(x, y) + model.penalty() * weight
}

/// Methods and associated functions whose bodies the generated adjoint cannot transform
/// (a local `Vec` of tensors): they run as written on the caller's tapes, as every tensor
/// function of an `impl` block does (no node of its own), so the tape records the `Vec`
/// as it records the rest.
#[differentiable]
impl Mlp {
    /// Every layer's activation kept in a local `Vec` (as `call_with_activations`
    /// does), the last one returned.
    #[differentiable]
    fn forward_kept(&self, x: &Tensor<f64>) -> Tensor<f64> {
        let mut activations = vec![x.clone()];
        activations.push(self.hidden.forward(&activations[0]));
        activations.push(self.output.forward(&activations[1]));
        activations[2].clone()
    }

    /// A mean squared error, its terms in a local `Vec`: an associated function.
    #[differentiable]
    fn squared_error_kept(prediction: &Tensor<f64>, target: &Tensor<f64>) -> Tensor<f64> {
        let mut terms = vec![prediction - target];
        terms.push(terms[0].square());
        terms[1].mean()
    }

    /// An associated function the generated adjoint could transform: it runs as written
    /// too (it was rustc's "cannot find module `mean_squared`").
    #[differentiable]
    fn mean_squared(prediction: &Tensor<f64>, target: &Tensor<f64>) -> Tensor<f64> {
        (prediction - target).square().mean()
    }

    /// The two above, the associated function reached through `Self`.
    #[differentiable]
    fn loss_kept(&self, x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
        Self::squared_error_kept(&self.forward_kept(x), y)
    }

    /// A tuple result of an associated function: the mean squared error and its square
    /// root, from the same kept terms.
    #[differentiable]
    fn error_and_root(
        prediction: &Tensor<f64>,
        target: &Tensor<f64>,
    ) -> (Tensor<f64>, Tensor<f64>) {
        let mut terms = vec![(prediction - target).square()];
        terms.push(terms[0].mean());
        (terms[1].clone(), terms[1].sqrt())
    }
}

/// A layer behind a trait, as Keras-like code writes it.
trait Layer {
    fn call(&self, x: &Tensor<f64>) -> Tensor<f64>;
}

#[derive(Sources)]
struct Scale {
    gain: Variable<f64>,
}

impl Layer for Scale {
    #[differentiable]
    fn call(&self, x: &Tensor<f64>) -> Tensor<f64> {
        x * &self.gain.value()
    }
}

fn mlp() -> Mlp {
    Mlp {
        hidden: Dense {
            kernel: v(&[0.3, -0.2, 0.5, 0.1, 0.4, -0.6], &[2, 3]),
            bias: v(&[0.05, -0.1, 0.2], &[3]),
            relu: false,
        },
        output: Dense {
            kernel: v(&[0.7, -0.3, 0.2], &[3, 1]),
            bias: v(&[0.1], &[1]),
            relu: false,
        },
    }
}

fn batch() -> (Tensor<f64>, Tensor<f64>) {
    (
        t(&[0.5, -1.0, 1.5, 0.25, -0.75, 2.0], &[3, 2]),
        t(&[0.2, -0.4, 0.9], &[3, 1]),
    )
}

/// The model's variables, in `MlpGrads`' field order.
fn variables(model: &Mlp) -> [&Variable<f64>; 4] {
    [
        &model.hidden.kernel,
        &model.hidden.bias,
        &model.output.kernel,
        &model.output.bias,
    ]
}

fn gradient_of(model: &Mlp, loss: &dyn Fn(&Mlp) -> Tensor<f64>) -> Vec<Tensor<f64>> {
    let tape = GradientTape::new();
    let value = tape.record(|| loss(model));
    let grads = tape.gradient(&value, model).unwrap();
    vec![
        grads.hidden.kernel.expect("connected"),
        grads.hidden.bias.expect("connected"),
        grads.output.kernel.expect("connected"),
        grads.output.bias.expect("connected"),
    ]
}

#[test]
fn a_model_method_differentiates_through_its_fields_methods() {
    let model = mlp();
    let (x, y) = batch();
    let loss = |m: &Mlp| m.loss(&x, &y);
    let grads = gradient_of(&model, &loss);
    check_variables_against_differences("Mlp::loss", &variables(&model), &grads, &|| {
        loss(&model).to_scalar()
    });
}

#[test]
fn a_method_equals_its_body_written_out() {
    let model = mlp();
    let (x, _) = batch();
    let by_hand = {
        let h = (x.matmul(&model.hidden.kernel.value()) + &model.hidden.bias.value()).tanh();
        (h.matmul(&model.output.kernel.value()) + &model.output.bias.value()).tanh()
    };
    assert_eq!(model.forward(&x).to_vec(), by_hand.to_vec());
}

#[test]
fn a_method_of_self_alone_and_a_free_caller() {
    let model = mlp();
    let (x, y) = batch();
    let loss = |m: &Mlp| regularised_loss(m, &x, &y, 0.01);
    let grads = gradient_of(&model, &loss);
    check_variables_against_differences("regularised_loss", &variables(&model), &grads, &|| {
        loss(&model).to_scalar()
    });
    // the penalty's part is 2·weight·W, checked by hand on the output kernel
    let tape = GradientTape::new();
    let penalty = tape.record(|| model.penalty());
    let grads = tape.gradient(&penalty, &model).unwrap();
    let expected: Vec<f64> = model
        .output
        .kernel
        .value()
        .to_vec()
        .iter()
        .map(|w| 2.0 * w)
        .collect();
    assert_eq!(grads.output.kernel.expect("connected").to_vec(), expected);
    // the biases are not in the penalty: TensorFlow's `None`
    assert!(grads.hidden.bias.is_none() && grads.output.bias.is_none());
}

#[test]
fn the_input_gradient_through_a_method() {
    let model = mlp();
    let (x, y) = batch();
    let tape = GradientTape::new();
    tape.watch(&x);
    let loss = tape.record(|| model.loss(&x, &y));
    let dx = tape.gradient(&loss, &x).unwrap().expect("connected");
    let values = x.to_vec();
    let fd = central_differences(
        &|p: &[f64]| model.loss(&t(p, &[3, 2]), &y).to_scalar(),
        &values,
    );
    for (i, (g, d)) in dx.to_vec().iter().zip(&fd).enumerate() {
        assert!(close(*g, *d, 1e-6), "dx[{i}]: {g} vs {d}");
    }
}

#[test]
fn second_order_through_methods() {
    let (x, y) = batch();
    check_second_order(&|m: &Mlp| m.loss(&x, &y));
}

/// The Hessian-vector product of `loss` in the hidden kernel's direction `u`, by a tape
/// over the gradient's tape, against central differences of the gradient along `u`.
fn check_second_order(loss: &dyn Fn(&Mlp) -> Tensor<f64>) {
    let model = mlp();
    let u = t(&[1.0, -0.5, 0.25, 0.75, -1.0, 0.5], &[2, 3]);
    let kernel = &model.hidden.kernel;
    let gradient = |m: &Mlp| gradient_of(m, loss);
    let outer = GradientTape::new();
    let hvp = {
        let directional = outer.record(|| (&gradient(&model)[0] * &u).sum());
        outer.gradient(&directional, &model).unwrap()
    };
    let h = 1e-5;
    let shifted = |delta: f64| {
        let base = kernel.value();
        kernel.assign(&base + &(&u * delta));
        let g = gradient(&model);
        kernel.assign(base);
        g
    };
    let (plus, minus) = (shifted(h), shifted(-h));
    let by_differences: Vec<Vec<f64>> = plus
        .iter()
        .zip(&minus)
        .map(|(p, m)| {
            p.to_vec()
                .iter()
                .zip(m.to_vec())
                .map(|(p, m)| (p - m) / (2.0 * h))
                .collect()
        })
        .collect();
    let hvp = [
        hvp.hidden.kernel.expect("connected"),
        hvp.hidden.bias.expect("connected"),
        hvp.output.kernel.expect("connected"),
        hvp.output.bias.expect("connected"),
    ];
    for (k, (exact, fd)) in hvp.iter().zip(&by_differences).enumerate() {
        for (i, (e, d)) in exact.to_vec().iter().zip(fd).enumerate() {
            assert!(
                close(*e, *d, 1e-5),
                "Hu, variable {k}, element {i}: {e} vs {d}"
            );
        }
    }
}

#[test]
fn a_method_in_a_trait_impl() {
    let scale = Scale {
        gain: v(&[2.0, -3.0], &[2]),
    };
    let x = t(&[1.5, 0.5, -1.0, 4.0], &[2, 2]);
    let layer: &dyn Layer = &scale;
    let tape = GradientTape::new();
    let y = tape.record(|| layer.call(&x).sum());
    let grads = tape.gradient(&y, &scale).unwrap();
    // d/dgain_j Σ_i x_ij gain_j = Σ_i x_ij
    assert_eq!(grads.gain.expect("connected").to_vec(), vec![0.5, 4.5]);
}

#[test]
fn a_relu_layer_method() {
    let layer = Dense {
        kernel: v(&[0.4, -0.7, 0.9, 0.2], &[2, 2]),
        bias: v(&[0.1, -0.2], &[2]),
        relu: true,
    };
    let x = t(&[1.0, 2.0, -0.5, 0.3, 0.8, -1.2], &[3, 2]);
    let loss = || layer.forward(&x).square().sum();
    let tape = GradientTape::new();
    let value = tape.record(loss);
    let grads = tape.gradient(&value, &layer).unwrap();
    check_variables_against_differences(
        "Dense::forward (relu)",
        &[&layer.kernel, &layer.bias],
        &[grads.kernel.unwrap(), grads.bias.unwrap()],
        &|| loss().to_scalar(),
    );
}

// ----- scalar mode: parameter structs of plain floats -----

/// A spring of stiffness `k` and rest length `rest`, with a cubic hardening term.
#[derive(Clone, Copy)]
struct Spring {
    k: f64,
    rest: f64,
    hardening: f64,
}

impl Spring {
    /// The stored energy at length `x`.
    #[differentiable]
    fn energy(&self, x: f64) -> f64 {
        let stretch = x - self.rest;
        0.5 * self.k * stretch * stretch + self.hardening * stretch.powi(4)
    }

    /// The energy of two springs in series sharing the middle node `m`, ends at 0 and
    /// `x`: a method calling a method of `self`.
    #[differentiable]
    fn series(&self, m: f64, x: f64) -> f64 {
        self.energy(m) + self.energy(x - m)
    }

    /// Array parameters and a loop: the energy of a chain of nodes.
    #[differentiable]
    fn chain(&self, nodes: &[f64]) -> f64 {
        let mut total = 0.0;
        for i in 1..nodes.len() {
            total += self.energy(nodes[i] - nodes[i - 1]);
        }
        total
    }

    /// An array passed on to a method of `self` (its cotangent comes back through the
    /// callee's pullback into this function's shadow).
    #[differentiable]
    fn doubled_chain(&self, nodes: &[f64], scale: f64) -> f64 {
        self.chain(nodes) * scale + nodes[0] * nodes[0]
    }

    /// `self` by value (a `Copy` struct), and a branch on a field.
    #[differentiable]
    fn clipped(self, x: f64) -> f64 {
        if self.hardening > 0.0 {
            self.energy(x).min(10.0)
        } else {
            self.energy(x)
        }
    }
}

impl Spring {
    /// Mutual recursion between two methods (`settle`'s call is unconditional,
    /// `relax`'s conditional: its pullback is boxed, which breaks the cycle of types).
    #[differentiable]
    fn relax(&self, x: f64, steps: u32) -> f64 {
        if steps == 0 {
            self.energy(x)
        } else {
            self.settle(x - 0.1 * self.k * (x - self.rest), steps - 1)
        }
    }

    #[differentiable]
    fn settle(&self, x: f64, steps: u32) -> f64 {
        self.relax(x, steps) + 0.01 * x * x
    }
}

/// A potential behind a trait: `#[differentiable]` on the trait's `impl` block puts the
/// companion items of its marked methods into an inherent `impl` of `Morse` beside it.
trait Potential {
    fn energy_at(&self, x: f64) -> f64;
    fn name(&self) -> &'static str;
}

struct Morse {
    depth: f64,
    width: f64,
    rest: f64,
}

#[differentiable]
impl Potential for Morse {
    #[differentiable]
    fn energy_at(&self, x: f64) -> f64 {
        let decay = (-(x - self.rest) * self.width).exp();
        self.depth * (1.0 - decay) * (1.0 - decay)
    }

    fn name(&self) -> &'static str {
        "Morse"
    }
}

/// A free annotated function calling the trait's method on a concrete receiver.
#[differentiable]
fn bond_energy(morse: &Morse, x: f64, y: f64) -> f64 {
    morse.energy_at(y - x) + 0.5 * x * x
}

/// A generic parameter struct: `#[differentiable]` on the `impl<T: Float>` block tells
/// its marked methods that `T` is a float (a method alone sees no such parameter).
struct Pendulum<T> {
    length: T,
    gravity: T,
}

#[differentiable]
impl<T: gradtape::Float> Pendulum<T> {
    #[differentiable]
    fn energy(&self, angle: T, speed: T) -> T {
        let half = T::from(0.5).unwrap();
        half * self.length * self.length * speed * speed
            + self.gravity * self.length * (T::one() - angle.cos())
    }
}

/// A free annotated function calling methods on a struct parameter.
#[differentiable]
fn two_springs(a: &Spring, b: &Spring, x: f64, y: f64) -> f64 {
    a.energy(x) * 2.0 + b.series(x, y)
}

const SPRING: Spring = Spring {
    k: 3.0,
    rest: 1.0,
    hardening: 0.25,
};

/// `grad` against central differences of `value`, `jvp` against `grad`, and the Hessian
/// by central differences of `grad` against second differences of `value`.
fn check_scalar(name: &str, x: &[f64], value: Value<'_>, grad: Gradient<'_>, jvp: Tangent<'_>) {
    let (y, g) = grad(x);
    assert_eq!(y.to_bits(), value(x).to_bits(), "{name}: grad's value");
    let fd = central_differences(value, x);
    for (i, (g, d)) in g.iter().zip(&fd).enumerate() {
        assert!(close(*g, *d, 1e-6), "{name}: d/dx{i}: {g} vs {d}");
    }
    let direction: Vec<f64> = (0..x.len()).map(|i| 0.5 - 0.3 * i as f64).collect();
    let (y_jvp, dot) = jvp(x, &direction);
    assert_eq!(y_jvp.to_bits(), y.to_bits(), "{name}: jvp's value");
    let inner: f64 = g.iter().zip(&direction).map(|(g, v)| g * v).sum();
    assert!(
        close(dot, inner, 1e-12),
        "{name}: jvp {dot} vs <grad, v> {inner}"
    );
    let h = 1e-4;
    for i in 0..x.len() {
        for j in 0..x.len() {
            let shifted = |p: &[(usize, f64)]| {
                let mut moved = x.to_vec();
                for &(k, d) in p {
                    moved[k] += d;
                }
                moved
            };
            let by_grad =
                (grad(&shifted(&[(j, h)])).1[i] - grad(&shifted(&[(j, -h)])).1[i]) / (2.0 * h);
            let second = (value(&shifted(&[(i, h), (j, h)]))
                - value(&shifted(&[(i, h), (j, -h)]))
                - value(&shifted(&[(i, -h), (j, h)]))
                + value(&shifted(&[(i, -h), (j, -h)])))
                / (4.0 * h * h);
            assert!(
                close(by_grad, second, 1e-4),
                "{name}: H[{i}][{j}] {by_grad} vs {second}"
            );
        }
    }
}

#[test]
fn a_plain_float_method_and_its_companions() {
    let s = SPRING;
    check_scalar(
        "Spring::energy",
        &[1.7],
        &|x| s.energy(x[0]),
        &|x| {
            let (y, [g]) = s.energy_grad(x[0]);
            (y, vec![g])
        },
        &|x, v| s.energy_jvp(x[0], v[0]),
    );
    // by hand: k (x - r) + 4 h (x - r)³ at x = 1.7
    let stretch: f64 = 0.7;
    let (_, [g]) = Spring::energy_grad(&s, 1.7);
    assert!(close(g, 3.0 * stretch + stretch.powi(3), 1e-14));
    // the pullback: `()` for `self`, then the float's cotangent
    let (y, pullback) = s.energy_vjp(1.7);
    let ((), dx) = pullback(2.0);
    assert_eq!(y.to_bits(), s.energy(1.7).to_bits());
    assert_eq!(dx, Some(2.0 * g));
    assert!(Spring::ENERGY_GENERATED.contains("fn energy_vjp"));
}

#[test]
fn a_method_calling_a_method_of_self() {
    let s = SPRING;
    check_scalar(
        "Spring::series",
        &[0.8, 2.9],
        &|x| s.series(x[0], x[1]),
        &|x| {
            let (y, g) = s.series_grad(x[0], x[1]);
            (y, g.to_vec())
        },
        &|x, v| s.series_jvp(x[0], x[1], v[0], v[1]),
    );
}

#[test]
fn a_method_with_an_array_parameter() {
    let s = SPRING;
    let nodes = [0.0, 1.3, 2.1, 3.6, 4.4];
    let (y, [g]) = s.chain_grad(&nodes);
    assert_eq!(y.to_bits(), s.chain(&nodes).to_bits());
    let fd = central_differences(&|p: &[f64]| s.chain(p), &nodes);
    for (i, (g, d)) in g.iter().zip(&fd).enumerate() {
        assert!(close(*g, *d, 1e-6), "chain: d/dnode{i}: {g} vs {d}");
    }
    let mut into = vec![0.0; nodes.len()];
    let y_into = s.chain_grad_into(&nodes, &mut into);
    assert_eq!((y_into.to_bits(), into), (y.to_bits(), g));
}

#[test]
fn an_array_passed_to_a_method() {
    let s = SPRING;
    let point = [0.3, 1.3, 2.1, 3.6, 4.4, 0.8];
    let (nodes, scale) = (&point[..5], point[5]);
    let (y, (g_nodes, g_scale)) = s.doubled_chain_grad(nodes, scale);
    assert_eq!(y.to_bits(), s.doubled_chain(nodes, scale).to_bits());
    let fd = central_differences(&|p: &[f64]| s.doubled_chain(&p[..5], p[5]), &point);
    let g: Vec<f64> = g_nodes.iter().copied().chain([g_scale]).collect();
    for (i, (g, d)) in g.iter().zip(&fd).enumerate() {
        assert!(close(*g, *d, 1e-6), "doubled_chain: d/dp{i}: {g} vs {d}");
    }
    let direction = [0.5, -0.2, 0.1, 0.7, -0.4];
    let (_, dot) = s.doubled_chain_jvp(nodes, scale, &direction, 0.3);
    let inner: f64 = g_nodes
        .iter()
        .zip(&direction)
        .map(|(g, v)| g * v)
        .sum::<f64>()
        + g_scale * 0.3;
    assert!(close(dot, inner, 1e-12), "jvp {dot} vs <grad, v> {inner}");
}

#[test]
fn a_method_taking_self_by_value() {
    let s = SPRING;
    // below the clip and above it (the clipped branch's derivative is zero)
    for x in [1.9, 4.5] {
        check_scalar(
            "Spring::clipped",
            &[x],
            &|x| s.clipped(x[0]),
            &|x| {
                let (y, [g]) = s.clipped_grad(x[0]);
                (y, vec![g])
            },
            &|x, v| s.clipped_jvp(x[0], v[0]),
        );
    }
    assert_eq!(s.clipped_grad(4.5).1, [0.0]);
}

#[test]
fn mutually_recursive_methods() {
    let s = SPRING;
    for steps in [0, 1, 5] {
        check_scalar(
            "Spring::relax",
            &[1.9],
            &|x| s.relax(x[0], steps),
            &|x| {
                let (y, [g]) = s.relax_grad(x[0], steps);
                (y, vec![g])
            },
            &|x, v| s.relax_jvp(x[0], steps, v[0]),
        );
    }
}

#[test]
fn a_method_in_a_trait_impl_with_companion_items() {
    let morse = Morse {
        depth: 2.0,
        width: 1.5,
        rest: 1.0,
    };
    let potential: &dyn Potential = &morse;
    assert_eq!(potential.name(), "Morse");
    check_scalar(
        "Morse::energy_at",
        &[1.4],
        &|x| potential.energy_at(x[0]),
        &|x| {
            let (y, [g]) = morse.energy_at_grad(x[0]);
            (y, vec![g])
        },
        &|x, v| morse.energy_at_jvp(x[0], v[0]),
    );
    // by hand: 2 D w e (1 - e), e = exp(-w (x - r))
    let e = (-1.5_f64 * 0.4).exp();
    let (_, [g]) = Morse::energy_at_grad(&morse, 1.4);
    assert!(close(g, 2.0 * 2.0 * 1.5 * e * (1.0 - e), 1e-14));
    assert!(Morse::ENERGY_AT_GENERATED.contains("fn energy_at_vjp"));
    check_scalar(
        "bond_energy",
        &[0.2, 1.7],
        &|x| bond_energy(&morse, x[0], x[1]),
        &|x| {
            let (y, g) = bond_energy::grad(&morse, x[0], x[1]);
            (y, g.to_vec())
        },
        &|x, v| bond_energy::jvp(&morse, x[0], x[1], v[0], v[1]),
    );
}

#[test]
fn a_method_of_a_generic_impl() {
    let pendulum = Pendulum {
        length: 1.5,
        gravity: 9.81,
    };
    check_scalar(
        "Pendulum::energy",
        &[0.4, 1.2],
        &|x| pendulum.energy(x[0], x[1]),
        &|x| {
            let (y, g) = pendulum.energy_grad(x[0], x[1]);
            (y, g.to_vec())
        },
        &|x, v| pendulum.energy_jvp(x[0], x[1], v[0], v[1]),
    );
    // the same code at f32: ∂/∂speed = l² v
    let small = Pendulum {
        length: 2.0_f32,
        gravity: 9.81,
    };
    let (_, [_, d_speed]) = small.energy_grad(0.3, 0.5);
    assert!((d_speed - 2.0).abs() < 1e-6);
}

#[test]
fn a_free_function_calling_methods() {
    let (a, b) = (
        SPRING,
        Spring {
            k: 1.5,
            rest: 0.5,
            hardening: 0.0,
        },
    );
    check_scalar(
        "two_springs",
        &[1.2, 2.6],
        &|x| two_springs(&a, &b, x[0], x[1]),
        &|x| {
            let (y, g) = two_springs::grad(&a, &b, x[0], x[1]);
            (y, g.to_vec())
        },
        &|x, v| two_springs::jvp(&a, &b, x[0], x[1], v[0], v[1]),
    );
}

// ----- scalar mode: a method's tuple result destructured -----

impl Spring {
    /// The force and the energy at length `x`, as a tuple.
    #[differentiable]
    fn force_and_energy(&self, x: f64) -> (f64, f64) {
        let stretch = x - self.rest;
        (
            -self.k * stretch - 4.0 * self.hardening * stretch.powi(3),
            self.energy(x),
        )
    }

    /// `let (f, e) = self.method(..);` inside a method, and `(f, _) = ..` assigned to an
    /// existing local with a part dropped, in a loop (formerly rejected: "a differentiable
    /// value must be bound to a plain name").
    #[differentiable]
    fn relaxed_energy(&self, x: f64) -> f64 {
        let (mut f, e0) = self.force_and_energy(x);
        let mut y = x;
        for _ in 0..3 {
            y += 0.05 * f;
            (f, _) = self.force_and_energy(y);
        }
        e0 + self.energy(y) * f
    }
}

/// A free function destructuring a method's tuple on a parameter struct.
#[differentiable]
fn spring_work(s: &Spring, x: f64, y: f64) -> f64 {
    let (fx, ex) = s.force_and_energy(x);
    let (fy, ey) = s.force_and_energy(y);
    (ey - ex) + 0.5 * (fx + fy) * (y - x)
}

#[test]
fn a_method_with_a_tuple_result() {
    let s = SPRING;
    for x in [[1.3], [0.4]] {
        check_scalar(
            "relaxed_energy",
            &x,
            &|x| s.relaxed_energy(x[0]),
            &|x| {
                let (v, [g]) = s.relaxed_energy_grad(x[0]);
                (v, vec![g])
            },
            &|x, t| s.relaxed_energy_jvp(x[0], t[0]),
        );
    }
    check_scalar(
        "spring_work",
        &[1.3, 0.6],
        &|x| spring_work(&s, x[0], x[1]),
        &|x| {
            let (v, g) = spring_work::grad(&s, x[0], x[1]);
            (v, g.to_vec())
        },
        &|x, t| spring_work::jvp(&s, x[0], x[1], t[0], t[1]),
    );
    // one call of the method's `vjp` per destructuring, its parts from its value
    assert!(spring_work::GENERATED.contains(".force_and_energy_vjp("));
}

// ----- scalar mode: associated functions (no `self`) -----

/// An integrator whose helpers are associated functions: `#[differentiable]` on the `impl`
/// block gives each marked associated function its companion items beside it
/// (`Integrator::rate_vjp`, `rate_grad`, ...), as a method's, and annotated callers reach
/// them by `Self::rate(..)` or `Integrator::rate(..)` (issue 13: rejected before as "a
/// type's associated function", and the attribute on such a function made rustc's "struct
/// is not supported in `impl`s").
struct Integrator {
    k: f64,
    dt: f64,
}

#[differentiable]
impl Integrator {
    /// The right-hand side `x′ = -k x³`.
    #[differentiable]
    fn rate(k: f64, x: f64) -> f64 {
        -k * x * x * x
    }

    /// `x^n` by recursion on `n`, through `Self::power`.
    #[differentiable]
    fn power(x: f64, n: u32) -> f64 {
        if n == 0 {
            1.0
        } else {
            x * Self::power(x, n - 1)
        }
    }

    /// Squares of `x` into `out`.
    #[differentiable]
    fn squares(x: &[f64], out: &mut [f64]) {
        for i in 0..x.len() {
            out[i] = x[i] * x[i];
        }
    }

    /// `Σ xᵢ²`.
    #[differentiable]
    fn norm2(x: &[f64]) -> f64 {
        let mut total = 0.0;
        for v in x {
            total += v * v;
        }
        total
    }

    /// One explicit midpoint step of `x′ = rate(k, x)`, through `Self::rate` twice.
    #[differentiable]
    fn step(&self, x: f64) -> f64 {
        let half = x + 0.5 * self.dt * Self::rate(self.k, x);
        x + self.dt * Self::rate(self.k, half) + Self::power(half, 3) * 1e-3
    }
}

/// A free function calling the associated functions by the type's name, in straight-line
/// code and in a loop, one of them writing an array.
#[differentiable]
fn associated_calls(y: &[f64], x: f64) -> f64 {
    let mut squared = vec![0.0; y.len()];
    Integrator::squares(y, &mut squared);
    let mut total = Integrator::norm2(&squared);
    for i in 0..y.len() {
        total += Integrator::rate(x, squared[i]) + Integrator::power(y[i] * x, 2);
    }
    total
}

#[test]
fn associated_functions_and_their_companions() {
    check_scalar(
        "Integrator::rate",
        &[1.5, 0.7],
        &|x| Integrator::rate(x[0], x[1]),
        &|x| {
            let (v, g) = Integrator::rate_grad(x[0], x[1]);
            (v, g.to_vec())
        },
        &|x, t| Integrator::rate_jvp(x[0], x[1], t[0], t[1]),
    );
    // by hand: d/dk = -x³, d/dx = -3 k x²
    let (_, [dk, dx]) = Integrator::rate_grad(1.5, 0.7);
    assert!(close(dk, -0.343, 1e-14) && close(dx, -3.0 * 1.5 * 0.49, 1e-14));
    check_scalar(
        "Integrator::power",
        &[1.3],
        &|x| Integrator::power(x[0], 4),
        &|x| {
            let (v, [g]) = Integrator::power_grad(x[0], 4);
            (v, vec![g])
        },
        &|x, t| Integrator::power_jvp(x[0], 4, t[0]),
    );
    let integrator = Integrator { k: 0.8, dt: 0.1 };
    check_scalar(
        "Integrator::step",
        &[0.9],
        &|x| integrator.step(x[0]),
        &|x| {
            let (v, [g]) = integrator.step_grad(x[0]);
            (v, vec![g])
        },
        &|x, t| integrator.step_jvp(x[0], t[0]),
    );
    assert!(Integrator::STEP_GENERATED.contains("Self::rate_vjp"));
    assert!(Integrator::NORM2_GENERATED.contains("fn norm2_grad_into"));
}

#[test]
fn associated_functions_called_by_the_types_name() {
    slice_and_float!(@second_order associated_calls, vec![0.3, -1.1, 0.8, 0.6]);
    assert!(associated_calls::GENERATED.contains("Integrator::rate_vjp"));
}

// ----- scalar mode: receivers and arguments that are differentiable structs -----
//
// The struct a method is called on, or given, is one differentiable value: a marked
// parameter (its tangent a `&S`, its gradient a value of `S`) or a struct result held
// whole (its tangent a value of `S` the caller owns, which the call borrows as method
// syntax borrows the receiver). None of these structs is `Copy` and two hold their floats
// in a `Vec` or an array: a tangent moved into the call instead would not compile where
// it is read again.

/// Weights in a `Vec`, and a float.
#[derive(Differentiable, Debug, Clone, PartialEq)]
struct Chain {
    w: Vec<f64>,
    bias: f64,
}

impl Chain {
    /// `self` marked: its gradient is a value of `Chain`.
    #[differentiable]
    fn energy(#[differentiable] &self, k: f64) -> f64 {
        let mut total = self.bias * k;
        for i in 0..self.w.len() {
            total += (self.w[i] * k).sin();
        }
        total
    }
}

/// Weights in an array, and a float.
#[derive(Differentiable, Debug, Clone, PartialEq)]
struct Triple {
    w: [f64; 3],
    scale: f64,
}

impl Triple {
    #[differentiable]
    fn energy(#[differentiable] &self, k: f64) -> f64 {
        self.scale * (self.w[0] * k + self.w[1] * k * k + self.w[2] * k * k * k).tanh()
    }
}

/// A state of two floats that is only `Clone`, the result of annotated functions.
#[derive(Differentiable, Debug, Clone, PartialEq)]
struct Particle {
    x: f64,
    p: f64,
}

#[differentiable]
fn launch(x: f64, p: f64, dt: f64) -> Particle {
    Particle {
        x: x + dt * p,
        p: p - dt * x.sin(),
    }
}

#[differentiable]
fn drift(#[differentiable] s: &Particle, dt: f64) -> Particle {
    Particle {
        x: s.x + dt * s.p,
        p: s.p - dt * s.x.sin(),
    }
}

#[differentiable]
impl Particle {
    #[differentiable]
    fn energy(#[differentiable] &self, k: f64) -> f64 {
        0.5 * (self.p * self.p + k * self.x * self.x)
    }

    /// A struct result of the marked `self`, which a caller reads by its fields.
    #[differentiable]
    fn pushed(#[differentiable] &self, dt: f64) -> Particle {
        Particle {
            x: self.x + dt * self.p,
            p: self.p - dt * self.x.sin(),
        }
    }

    /// A tuple result of the marked `self`, which a caller destructures.
    #[differentiable]
    fn moments(#[differentiable] &self, k: f64) -> (f64, f64) {
        (k * self.x * self.p, self.p.exp())
    }
}

/// A constant receiver whose methods take a marked struct (`Clone`: a checkpointed loop
/// copies the names it only reads for its pullback).
#[derive(Clone)]
struct Well {
    strength: f64,
}

impl Well {
    /// A marked parameter holding a `Vec`: its gradient a value of `Chain`.
    #[differentiable]
    fn of_chain(&self, #[differentiable] c: &Chain, x: f64) -> f64 {
        let mut total = c.bias * x;
        for i in 0..c.w.len() {
            total += self.strength * (c.w[i] - x) * (c.w[i] - x);
        }
        total
    }

    /// A marked parameter of floats that is not `Copy`.
    #[differentiable]
    fn of_particle(&self, #[differentiable] s: &Particle, x: f64) -> f64 {
        self.strength * (s.x - x).cos() + 0.5 * s.p * s.p
    }
}

// callers: a method on a marked parameter (once, in a loop, in a checkpointed loop)

#[differentiable]
fn chain_once(#[differentiable] c: &Chain, k: f64) -> f64 {
    c.energy(k) * c.bias
}

#[differentiable]
fn chain_looped(#[differentiable] c: &Chain, k: f64) -> f64 {
    let mut total = 0.0;
    let mut s = k;
    for _ in 0..3 {
        total += c.energy(s);
        s = 0.5 * s + 0.1 * total;
    }
    total
}

#[differentiable(checkpoint)]
fn chain_checkpointed(#[differentiable] c: &Chain, k: f64) -> f64 {
    let mut total = 0.0;
    let mut s = k;
    for _ in 0..3 {
        total += c.energy(s);
        s = 0.5 * s + 0.1 * total;
    }
    total
}

#[differentiable]
fn triple_once(#[differentiable] t: &Triple, k: f64) -> f64 {
    t.energy(k) + t.w[1] * k
}

#[differentiable]
fn triple_looped(#[differentiable] t: &Triple, k: f64) -> f64 {
    let mut s = k;
    for _ in 0..3 {
        s = t.energy(s) + 0.5 * s;
    }
    s
}

// callers: a method on a struct result held whole (once, in a loop, checkpointed)

#[differentiable]
fn particle_energy(x: f64, p: f64, k: f64) -> f64 {
    let s = launch(x, p, 0.1);
    s.energy(k) * s.p + s.energy(2.0 * k)
}

#[differentiable]
fn particle_path(x: f64, p: f64, k: f64) -> f64 {
    let mut s = launch(x, p, 0.1);
    let mut total = 0.0;
    for _ in 0..4 {
        total += s.energy(k);
        s = drift(&s, 0.1);
    }
    total + s.energy(k)
}

#[differentiable(checkpoint)]
fn particle_path_checkpointed(x: f64, p: f64, k: f64) -> f64 {
    let mut s = launch(x, p, 0.1);
    let mut total = 0.0;
    for _ in 0..4 {
        total += s.energy(k);
        s = drift(&s, 0.1);
    }
    total + s.energy(k)
}

// callers: a method's struct and tuple results on a held struct that is not `Copy`, read
// by their parts (`Stmt::CallParts`, whose receiver's tangent is borrowed as `Op::Call`'s)

#[differentiable]
fn particle_parts(x: f64, p: f64, k: f64) -> f64 {
    let s = launch(x, p, 0.1);
    let t = s.pushed(0.2);
    let (a, b) = s.moments(k);
    t.x * t.p + a * b + s.energy(k)
}

#[differentiable]
fn particle_parts_looped(x: f64, p: f64, k: f64) -> f64 {
    let mut s = launch(x, p, 0.1);
    let mut total = 0.0;
    for _ in 0..3 {
        let (a, b) = s.moments(k);
        let t = s.pushed(0.1);
        total += a * b + t.x;
        s = drift(&s, 0.1);
    }
    total
}

// callers: a method given a marked parameter struct (once, in a loop, checkpointed)

#[differentiable]
fn well_chain_once(well: &Well, #[differentiable] c: &Chain, x: f64) -> f64 {
    well.of_chain(c, x) * x
}

// `&c` of a `&Chain` as users write it, beside `c`
#[allow(clippy::needless_borrow)]
#[differentiable]
fn well_chain_looped(well: &Well, #[differentiable] c: &Chain, x: f64) -> f64 {
    let mut total = 0.0;
    let mut s = x;
    for _ in 0..3 {
        total += well.of_chain(&c, s);
        s = 0.5 * s + 0.01 * total;
    }
    total
}

// `&c` of a `&Chain` as users write it, beside `c`
#[allow(clippy::needless_borrow)]
#[differentiable(checkpoint)]
fn well_chain_checkpointed(well: &Well, #[differentiable] c: &Chain, x: f64) -> f64 {
    let mut total = 0.0;
    let mut s = x;
    for _ in 0..3 {
        total += well.of_chain(&c, s);
        s = 0.5 * s + 0.01 * total;
    }
    total
}

// `&state` of a `&Particle` as users write it, beside `state`
#[allow(clippy::needless_borrow)]
#[differentiable]
fn well_particle_looped(well: &Well, #[differentiable] state: &Particle, x: f64) -> f64 {
    // a constant receiver of the body's own beside the parameter's
    let local = Well { strength: 0.5 };
    let mut total = 0.0;
    for i in 0..3 {
        total += well.of_particle(state, x * i as f64) + local.of_particle(&state, x);
    }
    total
}

// `&state` of a `&Particle` as users write it, beside `state`
#[allow(clippy::needless_borrow)]
#[differentiable(checkpoint)]
fn well_particle_checkpointed(well: &Well, #[differentiable] state: &Particle, x: f64) -> f64 {
    let local = Well { strength: 0.5 };
    let mut total = 0.0;
    for i in 0..3 {
        total += well.of_particle(state, x * i as f64) + local.of_particle(&state, x);
    }
    total
}

/// A struct holding a `Chain`, which a method is given as a field path.
#[derive(Differentiable, Debug, Clone, PartialEq)]
struct Layered {
    first: Chain,
    scale: f64,
}

#[differentiable]
fn well_field_looped(well: &Well, #[differentiable] n: &Layered, x: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..3 {
        total += well.of_chain(&n.first, x + 0.1 * i as f64) * n.scale;
    }
    total
}

/// A struct's floats, in order, and back.
trait Flat: Sized {
    fn to_flat(&self) -> Vec<f64>;
    /// The struct from the first floats of `x`, its shape from `like`.
    fn from_flat(x: &[f64], like: &Self) -> Self;
}

impl Flat for Chain {
    fn to_flat(&self) -> Vec<f64> {
        let mut out = self.w.clone();
        out.push(self.bias);
        out
    }
    fn from_flat(x: &[f64], like: &Self) -> Self {
        let n = like.w.len();
        Chain {
            w: x[..n].to_vec(),
            bias: x[n],
        }
    }
}

impl Flat for Layered {
    fn to_flat(&self) -> Vec<f64> {
        let mut out = self.first.to_flat();
        out.push(self.scale);
        out
    }
    fn from_flat(x: &[f64], like: &Self) -> Self {
        let n = like.first.w.len() + 1;
        Layered {
            first: Chain::from_flat(x, &like.first),
            scale: x[n],
        }
    }
}

impl Flat for Triple {
    fn to_flat(&self) -> Vec<f64> {
        vec![self.w[0], self.w[1], self.w[2], self.scale]
    }
    fn from_flat(x: &[f64], _: &Self) -> Self {
        Triple {
            w: [x[0], x[1], x[2]],
            scale: x[3],
        }
    }
}

impl Flat for Particle {
    fn to_flat(&self) -> Vec<f64> {
        vec![self.x, self.p]
    }
    fn from_flat(x: &[f64], _: &Self) -> Self {
        Particle { x: x[0], p: x[1] }
    }
}

/// The value and the gradients of `vjp`'s pullback of 1 at `(s, x)`.
type Pulled<'a, S> = dyn Fn(&S, f64) -> (f64, Option<S>, Option<f64>) + 'a;
/// The value and the tangent at `(s, x)` along `(t_s, t_x)`.
type Pushed<'a, S> = dyn Fn(&S, f64, &S, f64) -> (f64, f64) + 'a;

/// The faces of an annotated `f(s, x)` of a marked struct `s` and a float `x`, each
/// taking the struct and the float.
struct StructAndFloat<'a, S> {
    name: &'a str,
    itself: &'a dyn Fn(&S, f64) -> f64,
    primal: &'a dyn Fn(&S, f64) -> f64,
    /// `grad`: the value, the struct's gradient and the float's.
    grad: &'a dyn Fn(&S, f64) -> (f64, S, f64),
    /// `vjp`'s pullback of 1 (`None`, no path: a zero).
    vjp: &'a Pulled<'a, S>,
    /// `grad_into`: the gradients added into the buffers, the value returned.
    grad_into: &'a dyn Fn(&S, f64, &mut S, &mut f64) -> f64,
    /// `jvp` along the struct's tangent and the float's.
    jvp: &'a Pushed<'a, S>,
}

impl<S: Flat + Differentiable> StructAndFloat<'_, S> {
    /// On the flat vector of the struct's floats then `x`: `grad` against central
    /// differences, `jvp` against it, the Hessian by differences of `grad` against second
    /// differences (`check_scalar`); `vjp`'s and `grad_into`'s gradients against `grad`'s,
    /// and every value to the bit the function's own.
    fn check(&self, like: &S, x: f64) {
        let name = self.name;
        let n = like.to_flat().len();
        let split = |p: &[f64]| (S::from_flat(p, like), p[n]);
        let join = |s: &S, x: f64| {
            let mut out = s.to_flat();
            out.push(x);
            out
        };
        let mut point = like.to_flat();
        point.push(x);
        let value = |p: &[f64]| {
            let (s, x) = split(p);
            let value = (self.primal)(&s, x);
            assert_eq!(
                value.to_bits(),
                (self.itself)(&s, x).to_bits(),
                "{name}: itself"
            );
            value
        };
        let grad = |p: &[f64]| {
            let (s, x) = split(p);
            let (value, d_s, d_x) = (self.grad)(&s, x);
            (value, join(&d_s, d_x))
        };
        let jvp = |p: &[f64], t: &[f64]| {
            let ((s, x), (t_s, t_x)) = (split(p), split(t));
            (self.jvp)(&s, x, &t_s, t_x)
        };
        check_scalar(name, &point, &value, &grad, &jvp);
        let (s, x) = split(&point);
        let (value, d_s, d_x) = (self.vjp)(&s, x);
        assert_eq!(
            value.to_bits(),
            (self.primal)(&s, x).to_bits(),
            "{name}: vjp's value"
        );
        let by_vjp = join(&d_s.unwrap_or_else(|| s.zero_like()), d_x.unwrap_or(0.0));
        let (mut into_s, mut into_x) = (s.zero_like(), 0.0);
        let by_into = (self.grad_into)(&s, x, &mut into_s, &mut into_x);
        assert_eq!(
            by_into.to_bits(),
            value.to_bits(),
            "{name}: grad_into's value"
        );
        let by_into = join(&into_s, into_x);
        let by_grad = grad(&point).1;
        for (k, ((a, b), c)) in by_vjp.iter().zip(&by_into).zip(&by_grad).enumerate() {
            assert!(
                close(*a, *c, 1e-12),
                "{name}: vjp d/dp{k} {a} vs grad's {c}"
            );
            assert!(
                close(*b, *c, 1e-12),
                "{name}: grad_into d/dp{k} {b} vs grad's {c}"
            );
        }
    }
}

/// The [`StructAndFloat`] faces of an annotated `f(s, x)`, or `f(constant, s, x)`.
macro_rules! struct_and_float {
    ($f:ident) => {
        StructAndFloat {
            name: stringify!($f),
            itself: &|s, x| $f(s, x),
            primal: &|s, x| $f::primal(s, x),
            grad: &|s, x| {
                let (value, (d_s, d_x)) = $f::grad(s, x);
                (value, d_s, d_x)
            },
            vjp: &|s, x| {
                let (value, pullback) = $f::vjp(s, x);
                let (d_s, d_x) = pullback(1.0);
                (value, d_s, d_x)
            },
            grad_into: &|s, x, d_s, d_x| $f::grad_into(s, x, d_s, d_x),
            jvp: &|s, x, t_s, t_x| $f::jvp(s, x, t_s, t_x),
        }
    };
    ($f:ident, $constant:expr) => {
        StructAndFloat {
            name: stringify!($f),
            itself: &|s, x| $f($constant, s, x),
            primal: &|s, x| $f::primal($constant, s, x),
            grad: &|s, x| {
                let (value, (d_s, d_x)) = $f::grad($constant, s, x);
                (value, d_s, d_x)
            },
            vjp: &|s, x| {
                let (value, pullback) = $f::vjp($constant, s, x);
                let (_, d_s, d_x) = pullback(1.0);
                (value, d_s, d_x)
            },
            grad_into: &|s, x, d_s, d_x| $f::grad_into($constant, s, x, d_s, d_x),
            jvp: &|s, x, t_s, t_x| $f::jvp($constant, s, x, t_s, t_x),
        }
    };
}

fn a_chain() -> Chain {
    Chain {
        w: vec![0.4, -0.7, 1.1],
        bias: 0.3,
    }
}

#[test]
fn a_method_on_a_marked_parameter_holding_an_array() {
    let chain = a_chain();
    struct_and_float!(chain_once).check(&chain, 0.6);
    struct_and_float!(chain_looped).check(&chain, 0.6);
    struct_and_float!(chain_checkpointed).check(&chain, 0.6);
    let triple = Triple {
        w: [0.5, -0.3, 0.2],
        scale: 1.4,
    };
    struct_and_float!(triple_once).check(&triple, 0.7);
    struct_and_float!(triple_looped).check(&triple, 0.7);
    // checkpointed: the same operations in the same order, to the bit
    let (value, (d_c, d_k)) = chain_checkpointed::grad(&chain, 0.6);
    let (same, (expected_c, expected_k)) = chain_looped::grad(&chain, 0.6);
    assert_eq!(value.to_bits(), same.to_bits());
    assert_eq!(d_c, expected_c);
    assert_eq!(d_k.to_bits(), expected_k.to_bits());
}

/// The faces of an annotated `f(x, p, k)` of three floats, as closures for
/// `check_scalar`, and `vjp`'s gradient against `grad`'s.
macro_rules! check_three {
    ($f:ident, $at:expr) => {{
        let at: [f64; 3] = $at;
        check_scalar(
            stringify!($f),
            &at,
            &|p| {
                let value = $f::primal(p[0], p[1], p[2]);
                assert_eq!(value.to_bits(), $f(p[0], p[1], p[2]).to_bits());
                value
            },
            &|p| {
                let (value, g) = $f::grad(p[0], p[1], p[2]);
                (value, g.to_vec())
            },
            &|p, t| $f::jvp(p[0], p[1], p[2], t[0], t[1], t[2]),
        );
        let (_, g) = $f::grad(at[0], at[1], at[2]);
        let (_, pullback) = $f::vjp(at[0], at[1], at[2]);
        let (a, b, c) = pullback(1.0);
        for (k, (by_vjp, by_grad)) in [a, b, c].iter().zip(g).enumerate() {
            let by_vjp = by_vjp.unwrap_or(0.0);
            assert!(
                close(by_vjp, by_grad, 1e-12),
                "{}: vjp d/dp{k} {by_vjp} vs grad's {by_grad}",
                stringify!($f)
            );
        }
    }};
}

#[test]
fn a_method_on_a_struct_result_that_is_not_copy() {
    check_three!(particle_energy, [0.8, -0.3, 1.5]);
    check_three!(particle_path, [0.8, -0.3, 1.5]);
    check_three!(particle_path_checkpointed, [0.8, -0.3, 1.5]);
    check_three!(particle_parts, [0.8, -0.3, 1.5]);
    check_three!(particle_parts_looped, [0.8, -0.3, 1.5]);
    let (value, g) = particle_path_checkpointed::grad(0.8, -0.3, 1.5);
    let (same, expected) = particle_path::grad(0.8, -0.3, 1.5);
    assert_eq!(value.to_bits(), same.to_bits());
    assert_eq!(g.map(f64::to_bits), expected.map(f64::to_bits));
}

#[test]
fn a_method_given_a_marked_parameter_struct() {
    let well = Well { strength: 0.8 };
    let chain = a_chain();
    struct_and_float!(well_chain_once, &well).check(&chain, 0.25);
    struct_and_float!(well_chain_looped, &well).check(&chain, 0.25);
    struct_and_float!(well_chain_checkpointed, &well).check(&chain, 0.25);
    let layered = Layered {
        first: a_chain(),
        scale: 1.3,
    };
    struct_and_float!(well_field_looped, &well).check(&layered, 0.25);
    let state = Particle { x: 0.9, p: -0.4 };
    struct_and_float!(well_particle_looped, &well).check(&state, 0.35);
    struct_and_float!(well_particle_checkpointed, &well).check(&state, 0.35);
    let (value, (d_s, d_x)) = well_particle_checkpointed::grad(&well, &state, 0.35);
    let (same, (expected_s, expected_x)) = well_particle_looped::grad(&well, &state, 0.35);
    assert_eq!(value.to_bits(), same.to_bits());
    assert_eq!(d_s, expected_s);
    assert_eq!(d_x.to_bits(), expected_x.to_bits());
}

// ----- annotated methods named like the standard library's slice methods -----
//
// `zip`, `chain`, `copy_from_slice` and `clone_from_slice` take an array in the standard
// library (`a.iter().zip(&p.w)`, `out.copy_from_slice(&p.w)`), and a field of a marked
// struct given to one is read as an array. A user's annotated method of that name is the
// user's where no slice method could be called: on a differentiable struct, on a
// parameter taken by shared borrow, on a local holding a function's result (`zip` and
// `chain` need an iterator, `copy_from_slice` a `mut` binding), or given a marked struct
// itself; there the struct or field it is given is passed on whole, beside the standard
// methods still reading arrays in the same functions.

/// Two floats, whose methods are named like slice methods.
#[derive(Differentiable, Debug, Clone, PartialEq)]
struct Pair {
    a: f64,
    b: f64,
}

#[differentiable]
impl Pair {
    #[differentiable]
    fn zip(#[differentiable] &self, #[differentiable] other: &Pair) -> f64 {
        self.a * other.b + self.b.sin() * other.a
    }

    #[differentiable]
    fn chain(#[differentiable] &self, k: f64) -> f64 {
        self.a * k + (self.b * k).cos()
    }

    #[differentiable]
    fn clone_from_slice(#[differentiable] &self, #[differentiable] other: &Pair) -> f64 {
        (self.a - other.a) * (self.b + other.b)
    }
}

/// A pair started from a float: a struct result a caller holds.
#[differentiable]
fn started(x: f64) -> Pair {
    Pair { a: x, b: x * x }
}

/// Two pairs and an array.
#[derive(Differentiable, Debug, Clone, PartialEq)]
struct Twin {
    pair: Pair,
    other: Pair,
    w: [f64; 2],
}

/// A constant receiver whose methods, named like slice methods, take a marked struct.
#[derive(Clone, Copy)]
struct Gauge {
    gain: f64,
}

impl Gauge {
    #[differentiable]
    fn zip(&self, #[differentiable] p: &Pair, x: f64) -> f64 {
        self.gain * p.a * x + p.b.exp()
    }

    #[differentiable]
    fn copy_from_slice(&self, #[differentiable] p: &Pair) -> f64 {
        self.gain * p.a * p.b
    }
}

/// On the marked struct's fields (`m.pair.zip(&m.other)`), beside the standard `zip`
/// over its array field.
#[differentiable]
fn named_on_a_marked_struct(#[differentiable] m: &Twin, x: f64) -> f64 {
    let dot: f64 = m.w.iter().zip(&m.w).map(|(a, b)| a * b).sum();
    m.pair.zip(&m.other) * x + m.other.chain(x) + dot
}

/// On a parameter taken by shared borrow (`gauge.zip(&m.pair, x)`), beside the standard
/// `copy_from_slice` of its array field into a local.
#[differentiable]
fn named_on_a_borrow(gauge: &Gauge, #[differentiable] m: &Twin, x: f64) -> f64 {
    let mut buffer = [0.0; 2];
    buffer.copy_from_slice(&m.w);
    gauge.zip(&m.pair, x) + gauge.copy_from_slice(&m.other) + buffer[0] * buffer[1] * x
}

/// On a local holding a function's result, and a copy of it.
#[differentiable]
fn named_on_a_result(#[differentiable] m: &Twin, x: f64) -> f64 {
    let s = started(x);
    let t = s.clone();
    s.zip(&m.pair) + t.clone_from_slice(&m.other) * m.w[1]
}

/// On a local holding a function's result, given the marked struct itself.
#[differentiable]
fn named_given_a_marked_struct(#[differentiable] q: &Pair, x: f64) -> f64 {
    let s = started(x);
    s.zip(q) + q.chain(x)
}

/// On a `mut` local a loop replaces (`zip` needs an iterator, which a function's result
/// held by name is not).
#[differentiable]
fn named_on_a_state(#[differentiable] m: &Twin, x: f64) -> f64 {
    let mut s = started(x);
    for _ in 0..2 {
        s = started(0.5 * s.a + 0.1 * s.b);
    }
    s.zip(&m.pair) + s.chain(x)
}

/// On a parameter taken by value, not `mut`, of a type that is no iterator.
#[differentiable]
fn named_on_a_value(gauge: Gauge, #[differentiable] m: &Twin, x: f64) -> f64 {
    gauge.zip(&m.other, x) * gauge.copy_from_slice(&m.pair)
}

impl Flat for Pair {
    fn to_flat(&self) -> Vec<f64> {
        vec![self.a, self.b]
    }
    fn from_flat(x: &[f64], _: &Self) -> Self {
        Pair { a: x[0], b: x[1] }
    }
}

impl Flat for Twin {
    fn to_flat(&self) -> Vec<f64> {
        let mut out = self.pair.to_flat();
        out.extend(self.other.to_flat());
        out.extend(self.w);
        out
    }
    fn from_flat(x: &[f64], _: &Self) -> Self {
        Twin {
            pair: Pair { a: x[0], b: x[1] },
            other: Pair { a: x[2], b: x[3] },
            w: [x[4], x[5]],
        }
    }
}

#[test]
fn methods_named_like_slice_methods() {
    let twin = Twin {
        pair: Pair { a: 0.3, b: 0.7 },
        other: Pair { a: -0.2, b: 1.1 },
        w: [0.5, -0.25],
    };
    struct_and_float!(named_on_a_marked_struct).check(&twin, 0.4);
    let gauge = Gauge { gain: 1.5 };
    struct_and_float!(named_on_a_borrow, &gauge).check(&twin, 0.4);
    struct_and_float!(named_on_a_result).check(&twin, 0.4);
    struct_and_float!(named_given_a_marked_struct).check(&twin.pair, 0.4);
    struct_and_float!(named_on_a_state).check(&twin, 0.4);
    struct_and_float!(named_on_a_value, gauge).check(&twin, 0.4);
    // d/dpair.a of named_on_a_marked_struct = other.b x, d/dw0 = 2 w0 (the standard zip)
    let (_, (d_m, _)) = named_on_a_marked_struct::grad(&twin, 0.4);
    assert!(close(d_m.pair.a, 1.1 * 0.4, 1e-12), "{d_m:?}");
    assert!(close(d_m.w[0], 2.0 * 0.5, 1e-12), "{d_m:?}");
    // d/dw0 of named_on_a_borrow = w1 x (the standard copy_from_slice)
    let (_, d_m, _) = named_on_a_borrow::vjp(&gauge, &twin, 0.4).1(1.0);
    let d_m = d_m.expect("the struct's gradient");
    assert!(close(d_m.w[0], -0.25 * 0.4, 1e-12), "{d_m:?}");
}

// ----- methods and functions a `macro_rules!` writes -----
//
// A user's declarative macro may write an annotated method whose marked `self` its caller
// names (`leak_methods!(self, rate, w)`, a common way past `self`'s hygiene) or whose
// body its caller gives, or a free function whose marked parameter its caller names. The
// fields lifted into the twin's parameters (`self_rate`, `p_w`) resolve as the marked
// parameter's own name does, which the attribute's span may not: they once took the
// attribute's, and rustc answered E0425 "cannot find value `self_rate` in this scope".
// Each is checked bit for bit against the same written by hand, and against central
// differences.

/// A leaky response: a decay rate and weights in a `Vec`.
#[derive(Differentiable, Debug, Clone, PartialEq)]
struct Leak {
    rate: f64,
    w: Vec<f64>,
}

// the loops read as the macros' below, index by index
#[allow(clippy::needless_range_loop)]
impl Leak {
    /// `&self` marked, an array parameter.
    #[differentiable]
    fn response(#[differentiable] &self, x: &[f64], t: f64) -> f64 {
        let mut total = 0.0;
        for i in 0..x.len() {
            total += self.w[i] * x[i];
        }
        (-self.rate * t).exp() * total.tanh()
    }

    /// `self` by value marked.
    #[differentiable]
    fn settled(#[differentiable] self, t: f64) -> f64 {
        self.w[0] * (-self.rate * t).exp() + self.w[1] * self.rate * self.rate
    }
}

/// `response` again, the receiver and the field names given by the caller.
macro_rules! leak_methods {
    ($s:ident, $rate:ident, $w:ident) => {
        #[differentiable]
        fn response_by_macro(#[differentiable] &$s, x: &[f64], t: f64) -> f64 {
            let mut total = 0.0;
            for i in 0..x.len() {
                total += $s.$w[i] * x[i];
            }
            (-$s.$rate * t).exp() * total.tanh()
        }
    };
}

impl Leak {
    leak_methods!(self, rate, w);
}

/// A method whose receiver, parameter and body the caller gives.
macro_rules! method_with_body {
    ($name:ident, $s:ident, $t:ident, $body:block) => {
        #[differentiable]
        fn $name(#[differentiable] $s, $t: f64) -> f64 $body
    };
}

impl Leak {
    method_with_body!(settled_by_macro, self, t, {
        self.w[0] * (-self.rate * t).exp() + self.w[1] * self.rate * self.rate
    });
}

/// `response` as a free function, by hand and with the parameter named by the caller.
#[allow(clippy::needless_range_loop)]
#[differentiable]
fn leak_response(#[differentiable] p: &Leak, x: &[f64], t: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        total += p.w[i] * x[i];
    }
    (-p.rate * t).exp() * total.tanh()
}

macro_rules! leak_function {
    ($name:ident, $p:ident) => {
        #[differentiable]
        fn $name(#[differentiable] $p: &Leak, x: &[f64], t: f64) -> f64 {
            let mut total = 0.0;
            for i in 0..x.len() {
                total += $p.w[i] * x[i];
            }
            (-$p.rate * t).exp() * total.tanh()
        }
    };
}

leak_function!(leak_response_by_macro, p);

/// The point `[rate, w.., x.., t]`, and back.
fn leak_point(x: &[f64]) -> (Leak, Vec<f64>, f64) {
    let n = (x.len() - 2) / 2;
    let leak = Leak {
        rate: x[0],
        w: x[1..1 + n].to_vec(),
    };
    (leak, x[1 + n..1 + 2 * n].to_vec(), x[1 + 2 * n])
}

fn leak_flat(d: &Leak, dx: &[f64], dt: f64) -> Vec<f64> {
    let mut out = vec![d.rate];
    out.extend(&d.w);
    out.extend(dx);
    out.push(dt);
    out
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The gradient of `value` at `x` against central differences.
fn leak_against_differences(name: &str, value: Value<'_>, x: &[f64], g: &[f64]) {
    let fd = central_differences(value, x);
    assert_eq!(g.len(), fd.len(), "{name}");
    for (i, (g, d)) in g.iter().zip(&fd).enumerate() {
        assert!(close(*g, *d, 1e-6), "{name}: d/dp{i}: {g} vs {d}");
    }
}

/// A pullback's value and its cotangents of 2 (flat).
fn pulled<P>((value, pullback): (f64, P)) -> (f64, Vec<f64>)
where
    P: FnOnce(f64) -> (Option<Leak>, Option<Vec<f64>>, Option<f64>),
{
    let (d_s, d_x, d_t) = pullback(2.0);
    let flat = leak_flat(&d_s.unwrap(), &d_x.unwrap(), d_t.unwrap());
    (value, flat)
}

#[test]
fn methods_and_functions_a_macro_rules_writes() {
    let point = [0.7, 0.4, -0.3, 0.9, 1.2, 0.5, -0.8, 0.6];
    let (leak, x, t) = leak_point(&point);
    // `&self` marked, by hand and by the macro: value, grad, vjp, grad_into
    let (y, (d_s, d_x, d_t)) = leak.response_grad(&x, t);
    let (y_m, (d_s_m, d_x_m, d_t_m)) = leak.response_by_macro_grad(&x, t);
    assert_eq!(y.to_bits(), leak.response(&x, t).to_bits());
    assert_eq!(y_m.to_bits(), leak.response_by_macro(&x, t).to_bits());
    assert_eq!(y.to_bits(), y_m.to_bits());
    let g = leak_flat(&d_s, &d_x, d_t);
    assert_eq!(bits(&g), bits(&leak_flat(&d_s_m, &d_x_m, d_t_m)));
    leak_against_differences(
        "response",
        &|p| {
            let (leak, x, t) = leak_point(p);
            leak.response_by_macro(&x, t)
        },
        &point,
        &g,
    );
    let (v, by_hand) = pulled(leak.response_vjp(&x, t));
    let (v_m, by_macro) = pulled(leak.response_by_macro_vjp(&x, t));
    assert_eq!((v.to_bits(), v_m.to_bits()), (y.to_bits(), y.to_bits()));
    assert_eq!(bits(&by_hand), bits(&by_macro));
    let twice: Vec<f64> = g.iter().map(|g| 2.0 * g).collect();
    assert_eq!(bits(&by_macro), bits(&twice));
    let into = |f: &dyn Fn(&mut Leak, &mut [f64], &mut f64) -> f64| {
        let (mut d_s, mut d_x, mut d_t) = (leak.zero_like(), vec![0.0; x.len()], 0.0);
        let value = f(&mut d_s, &mut d_x, &mut d_t);
        (value.to_bits(), bits(&leak_flat(&d_s, &d_x, d_t)))
    };
    let by_hand = into(&|d_s, d_x, d_t| leak.response_grad_into(&x, t, d_s, d_x, d_t));
    let by_macro = into(&|d_s, d_x, d_t| leak.response_by_macro_grad_into(&x, t, d_s, d_x, d_t));
    assert_eq!(by_hand, by_macro);
    assert_eq!(by_macro, (y.to_bits(), bits(&g)));

    // `self` by value marked, the body the caller's
    let (y, (d_s, d_t)) = leak.clone().settled_grad(t);
    let (y_m, (d_s_m, d_t_m)) = leak.clone().settled_by_macro_grad(t);
    assert_eq!(y.to_bits(), leak.clone().settled(t).to_bits());
    assert_eq!(y.to_bits(), y_m.to_bits());
    let g = leak_flat(&d_s, &[], d_t);
    assert_eq!(bits(&g), bits(&leak_flat(&d_s_m, &[], d_t_m)));
    let short = [point[0], point[1], point[2], point[3], t];
    let settled_at = |p: &[f64]| {
        Leak {
            rate: p[0],
            w: p[1..4].to_vec(),
        }
        .settled_by_macro(p[4])
    };
    leak_against_differences("settled", &settled_at, &short, &g);
    // by hand: d/dw1 = rate², d/drate = -t w0 e^(-rate t) + 2 w1 rate
    assert!(close(d_s_m.w[1], leak.rate * leak.rate, 1e-15));
    let decay = (-leak.rate * t).exp();
    let d_rate = -t * leak.w[0] * decay + 2.0 * leak.w[1] * leak.rate;
    assert!(
        close(d_s_m.rate, d_rate, 1e-14),
        "{} vs {d_rate}",
        d_s_m.rate
    );
    let (_, pullback) = leak.clone().settled_vjp(t);
    let (_, pullback_m) = leak.clone().settled_by_macro_vjp(t);
    let (d_s, d_t) = pullback(1.0);
    let (d_s_m, d_t_m) = pullback_m(1.0);
    let (d_s, d_s_m) = (d_s.unwrap(), d_s_m.unwrap());
    assert_eq!(
        bits(&leak_flat(&d_s, &[], d_t.unwrap())),
        bits(&leak_flat(&d_s_m, &[], d_t_m.unwrap()))
    );
    assert_eq!(bits(&leak_flat(&d_s_m, &[], d_t_m.unwrap())), bits(&g));

    // a free function, its marked parameter named by the caller
    let (y, (d_p, d_x, d_t)) = leak_response::grad(&leak, &x, t);
    let (y_m, (d_p_m, d_x_m, d_t_m)) = leak_response_by_macro::grad(&leak, &x, t);
    assert_eq!(y.to_bits(), leak_response(&leak, &x, t).to_bits());
    assert_eq!(y.to_bits(), y_m.to_bits());
    let g = leak_flat(&d_p, &d_x, d_t);
    assert_eq!(bits(&g), bits(&leak_flat(&d_p_m, &d_x_m, d_t_m)));
    leak_against_differences(
        "leak_response",
        &|p| {
            let (leak, x, t) = leak_point(p);
            leak_response_by_macro(&leak, &x, t)
        },
        &point,
        &g,
    );
    let (_, by_hand) = pulled(leak_response::vjp(&leak, &x, t));
    let (_, by_macro) = pulled(leak_response_by_macro::vjp(&leak, &x, t));
    assert_eq!(bits(&by_hand), bits(&by_macro));
    let twice: Vec<f64> = g.iter().map(|g| 2.0 * g).collect();
    assert_eq!(bits(&by_macro), bits(&twice));
    let by_hand = into(&|d_p, d_x, d_t| leak_response::grad_into(&leak, &x, t, d_p, d_x, d_t));
    let by_macro =
        into(&|d_p, d_x, d_t| leak_response_by_macro::grad_into(&leak, &x, t, d_p, d_x, d_t));
    assert_eq!(by_hand, by_macro);
    assert_eq!(by_macro, (y.to_bits(), bits(&g)));
}

// ----- a sub-struct passed on whole in methods and functions a `macro_rules!` writes -----
//
// The same, with a sub-struct field passed on whole (`leak_response(&self.leak, x, t)`,
// `self.leak.response(x, t)`): its lifted parameter (`self_leak`) was declared at the
// attribute with the attribute's hygiene while the reads of a body the caller gives have
// the caller's, and rustc answered E0425 "cannot find value `self_leak` in this scope". A
// field passed on whole is now declared at its first read, location and hygiene, and
// every read of it resolves as declared. Three ways: an `impl` block the macro writes
// whole, a method whose receiver and body the caller gives, and a free function whose
// parameter and body the caller gives; each bit for bit against the same written by hand
// (value, `grad`, `vjp`'s pullback, `grad_into`), which is checked against central
// differences and against the same recorded op by op on a tape.

/// A leak behind a gain: a sub-struct.
#[derive(Differentiable, Debug, Clone, PartialEq)]
struct Gained {
    leak: Leak,
    gain: f64,
}

impl Gained {
    /// The leak passed on to a function and called as a receiver, and its rate read too.
    #[differentiable]
    fn out(#[differentiable] &self, x: &[f64], t: f64) -> f64 {
        leak_response(&self.leak, x, t) * self.gain + self.leak.response(x, t) * self.leak.rate
    }
}

/// `out`, the whole `impl` block written by the macro (`self` its own).
macro_rules! gained_impl {
    ($ty:ty) => {
        impl $ty {
            #[differentiable]
            fn out_by_impl(#[differentiable] &self, x: &[f64], t: f64) -> f64 {
                leak_response(&self.leak, x, t) * self.gain
                    + self.leak.response(x, t) * self.leak.rate
            }
        }
    };
}

gained_impl!(Gained);

/// A method whose receiver, parameters and body the caller gives.
macro_rules! method_of_a_slice_and_time {
    ($name:ident, $s:ident, $x:ident, $t:ident, $body:block) => {
        #[differentiable]
        fn $name(#[differentiable] &$s, $x: &[f64], $t: f64) -> f64 $body
    };
}

impl Gained {
    method_of_a_slice_and_time!(out_by_body, self, x, t, {
        leak_response(&self.leak, x, t) * self.gain + self.leak.response(x, t) * self.leak.rate
    });
}

/// `out` as a free function, its parameter and body given by the caller.
macro_rules! gained_function {
    ($name:ident, $g:ident, $x:ident, $t:ident, $body:block) => {
        #[differentiable]
        fn $name(#[differentiable] $g: &Gained, $x: &[f64], $t: f64) -> f64 $body
    };
}

gained_function!(gained_by_body, g, x, t, {
    leak_response(&g.leak, x, t) * g.gain + g.leak.response(x, t) * g.leak.rate
});

/// The point `[rate, w.., gain, x.., t]`, and back.
fn gained_point(p: &[f64]) -> (Gained, Vec<f64>, f64) {
    let n = (p.len() - 3) / 2;
    let leak = Leak {
        rate: p[0],
        w: p[1..1 + n].to_vec(),
    };
    let gained = Gained {
        leak,
        gain: p[1 + n],
    };
    (gained, p[2 + n..2 + 2 * n].to_vec(), p[2 + 2 * n])
}

fn gained_flat(d: &Gained, dx: &[f64], dt: f64) -> Vec<f64> {
    let mut out = vec![d.leak.rate];
    out.extend(&d.leak.w);
    out.push(d.gain);
    out.extend(dx);
    out.push(dt);
    out
}

/// `out` recorded op by op on a tape, at the point `[rate, w.., gain, x.., t]`: value and
/// gradient.
fn gained_on_tape(p: &[f64]) -> (f64, Vec<f64>) {
    let n = (p.len() - 3) / 2;
    let ps: Vec<Tensor<f64>> = p.iter().map(|&v| Tensor::scalar(v)).collect();
    let tape = GradientTape::new();
    for q in &ps {
        tape.watch(q);
    }
    let y = tape.record(|| {
        let (rate, w, gain) = (&ps[0], &ps[1..1 + n], &ps[1 + n]);
        let (x, t) = (&ps[2 + n..2 + 2 * n], &ps[2 + 2 * n]);
        let mut total = Tensor::scalar(0.0);
        for i in 0..n {
            total = &total + &(&w[i] * &x[i]);
        }
        // e^(-rate t) tanh(Σ wᵢ xᵢ), times the gain plus the rate
        let response = &(-(rate * t)).exp() * &total.tanh();
        &(&response * gain) + &(&response * rate)
    });
    let g = tape.gradient(&y, &ps).expect("a gradient");
    let g = g.into_iter().map(|g| g.map_or(0.0, |g| g.to_scalar()));
    (y.to_scalar(), g.collect())
}

#[test]
fn a_sub_struct_passed_on_whole_in_what_a_macro_rules_writes() {
    let point = [0.7, 0.4, -0.3, 0.9, 1.3, 1.2, 0.5, -0.8, 0.6];
    let (g, x, t) = gained_point(&point);
    // by hand: against a tape and central differences
    let (y, (d_g, d_x, d_t)) = g.out_grad(&x, t);
    assert_eq!(y.to_bits(), g.out(&x, t).to_bits());
    let grad = gained_flat(&d_g, &d_x, d_t);
    let (by_tape, on_tape) = gained_on_tape(&point);
    assert!(close(y, by_tape, 1e-14), "{y} vs {by_tape}");
    for (k, (a, b)) in grad.iter().zip(&on_tape).enumerate() {
        assert!(close(*a, *b, 1e-12), "d/dp{k}: {a}, on a tape {b}");
    }
    leak_against_differences(
        "Gained::out",
        &|p| {
            let (g, x, t) = gained_point(p);
            g.out(&x, t)
        },
        &point,
        &grad,
    );
    // each written by a macro, to the bit against it
    type Grad = (f64, (Gained, Vec<f64>, f64));
    type Pullback = Box<dyn FnOnce(f64) -> (Option<Gained>, Option<Vec<f64>>, Option<f64>)>;
    type Way<'a> = (
        &'a str,
        &'a dyn Fn() -> f64,
        &'a dyn Fn() -> Grad,
        &'a dyn Fn() -> (f64, Pullback),
    );
    let ways: [Way<'_>; 3] = [
        (
            "out_by_impl",
            &|| g.out_by_impl(&x, t),
            &|| g.out_by_impl_grad(&x, t),
            &|| {
                let (value, pullback) = g.out_by_impl_vjp(&x, t);
                (value, Box::new(pullback))
            },
        ),
        (
            "out_by_body",
            &|| g.out_by_body(&x, t),
            &|| g.out_by_body_grad(&x, t),
            &|| {
                let (value, pullback) = g.out_by_body_vjp(&x, t);
                (value, Box::new(pullback))
            },
        ),
        (
            "gained_by_body",
            &|| gained_by_body(&g, &x, t),
            &|| gained_by_body::grad(&g, &x, t),
            &|| {
                let (value, pullback) = gained_by_body::vjp(&g, &x, t);
                (value, Box::new(pullback))
            },
        ),
    ];
    let (_, by_hand) = g.out_vjp(&x, t);
    let (d_g, d_x, d_t) = by_hand(2.0);
    let pulled = bits(&gained_flat(&d_g.unwrap(), &d_x.unwrap(), d_t.unwrap()));
    for (name, itself, grad_of, vjp) in ways {
        assert_eq!(itself().to_bits(), y.to_bits(), "{name}");
        let (y_m, (d_g, d_x, d_t)) = grad_of();
        assert_eq!(y_m.to_bits(), y.to_bits(), "{name}");
        assert_eq!(bits(&gained_flat(&d_g, &d_x, d_t)), bits(&grad), "{name}");
        let (y_m, pullback) = vjp();
        assert_eq!(y_m.to_bits(), y.to_bits(), "{name}");
        let (d_g, d_x, d_t) = pullback(2.0);
        let by_macro = gained_flat(&d_g.unwrap(), &d_x.unwrap(), d_t.unwrap());
        assert_eq!(bits(&by_macro), pulled, "{name}");
    }
    // grad_into, by hand and by each macro
    let into = |f: &dyn Fn(&mut Gained, &mut [f64], &mut f64) -> f64| {
        let (mut d_g, mut d_x, mut d_t) = (g.zero_like(), vec![0.0; x.len()], 0.0);
        let value = f(&mut d_g, &mut d_x, &mut d_t);
        (value.to_bits(), bits(&gained_flat(&d_g, &d_x, d_t)))
    };
    let by_hand = into(&|d_g, d_x, d_t| g.out_grad_into(&x, t, d_g, d_x, d_t));
    assert_eq!(by_hand, (y.to_bits(), bits(&grad)));
    let by_impl = into(&|d_g, d_x, d_t| g.out_by_impl_grad_into(&x, t, d_g, d_x, d_t));
    let by_body = into(&|d_g, d_x, d_t| g.out_by_body_grad_into(&x, t, d_g, d_x, d_t));
    let by_function = into(&|d_g, d_x, d_t| gained_by_body::grad_into(&g, &x, t, d_g, d_x, d_t));
    assert_eq!(by_impl, by_hand);
    assert_eq!(by_body, by_hand);
    assert_eq!(by_function, by_hand);
}

#[test]
fn methods_whose_bodies_run_on_the_tape() {
    let model = mlp();
    let (x, y) = batch();
    // the same values as the methods the generated adjoint transforms, to the last bit
    assert_eq!(model.forward_kept(&x).to_vec(), model.forward(&x).to_vec());
    assert_eq!(
        model.loss_kept(&x, &y).to_vec(),
        model.loss(&x, &y).to_vec()
    );
    // the variables' gradients against central differences and against the same loss
    // written with plain ops on the tape, at orders 1 and 2
    let kept = |m: &Mlp| m.loss_kept(&x, &y);
    let grads = gradient_of(&model, &kept);
    check_variables_against_differences("Mlp::loss_kept", &variables(&model), &grads, &|| {
        kept(&model).to_scalar()
    });
    let by_ops = gradient_of(&model, &|m: &Mlp| {
        let h = (x.matmul(&m.hidden.kernel.value()) + &m.hidden.bias.value()).tanh();
        let prediction = (h.matmul(&m.output.kernel.value()) + &m.output.bias.value()).tanh();
        (prediction - &y).square().mean()
    });
    for (k, (a, b)) in grads.iter().zip(&by_ops).enumerate() {
        for (i, (a, b)) in a.to_vec().iter().zip(b.to_vec()).enumerate() {
            assert!(close(*a, b, 1e-12), "variable {k}, element {i}: {a} vs {b}");
        }
    }
    check_second_order(&kept);
    // the input's gradient, through the method run as written
    let tape = GradientTape::new();
    tape.watch(&x);
    let loss = tape.record(|| model.loss_kept(&x, &y));
    let dx = tape.gradient(&loss, &x).unwrap().expect("connected");
    let fd = central_differences(
        &|p: &[f64]| model.loss_kept(&t(p, &[3, 2]), &y).to_scalar(),
        &x.to_vec(),
    );
    for (i, (g, d)) in dx.to_vec().iter().zip(&fd).enumerate() {
        assert!(close(*g, *d, 1e-6), "dx[{i}]: {g} vs {d}");
    }
    // the associated functions against the same bodies written with plain ops
    let prediction = model.forward(&x);
    let points = [vec![prediction.clone(), y.clone()]];
    let squared_error = |x: &[Tensor<f64>]| (&x[0] - &x[1]).square().mean();
    let both = |(error, root): (Tensor<f64>, Tensor<f64>)| error * 0.3 + root.exp();
    for inputs in &points {
        common::check_annotated(
            "Mlp::mean_squared",
            inputs,
            &|x| Mlp::mean_squared(&x[0], &x[1]),
            &squared_error,
            common::Tolerance::F64,
            2,
        )
        .unwrap();
        common::check_annotated(
            "Mlp::squared_error_kept",
            inputs,
            &|x| Mlp::squared_error_kept(&x[0], &x[1]),
            &squared_error,
            common::Tolerance::F64,
            3,
        )
        .unwrap();
        common::check_annotated(
            "Mlp::error_and_root",
            inputs,
            &|x| both(Mlp::error_and_root(&x[0], &x[1])),
            &|x| {
                let error = squared_error(x);
                both((error.clone(), error.sqrt()))
            },
            common::Tolerance::F64,
            4,
        )
        .unwrap();
    }
}
