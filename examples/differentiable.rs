//! A walk through `#[differentiable]`: the seed function recorded as one fused node, its
//! generated adjoint printed, a plain float function with a tape-free gradient, a
//! second derivative through nested tapes, a model written as a struct of floats fitted
//! through its method's gradient, which comes back as the same struct, and a network of
//! such structs whose methods call their parts' methods, as a user writes layers.
//!
//! Run with `cargo run --example differentiable`.

use gradtape::{Differentiable, GradientTape, Tensor, Variable, differentiable};

/// The seed example of TensorFlow's autodiff guide, written once.
#[differentiable]
fn seed(w1: &Variable<f32>, w2: &Variable<f32>) -> Tensor<f32> {
    3.0 * w1.powi(2) + 2.0 * w1 * w2
}

/// W7 of the benchmark workloads: a plain float function.
#[differentiable]
fn w7(x: f64, y: f64) -> f64 {
    (x * y).sin() + x.exp() / (1.0 + y * y)
}

/// A loop: per-iteration values are kept on stacks for the adjoint.
#[differentiable]
fn chain(x: &Tensor<f64>, steps: usize) -> Tensor<f64> {
    let mut y = x.clone();
    for _ in 0..steps {
        y = y.sin() * 0.9 + &y * 0.1;
    }
    y
}

/// A model as a struct of floats: `y = amplitude · exp(−rate · t)`.
#[derive(Differentiable, Debug, Clone)]
struct Decay {
    amplitude: f64,
    rate: f64,
}

impl Decay {
    /// The mean squared error on samples `(t, y)`, differentiated with respect to the model
    /// itself (`self` marked); the samples are data (`constant`).
    #[differentiable(constant(t, y))]
    fn loss(#[differentiable] &self, t: &[f64], y: &[f64]) -> f64 {
        let mut total = 0.0;
        for i in 0..t.len() {
            let r = self.amplitude * (-self.rate * t[i]).exp() - y[i];
            total += r * r;
        }
        total / t.len() as f64
    }
}

/// One neuron: `tanh(w x + b)`.
#[derive(Differentiable, Debug, Clone)]
struct Neuron {
    w: f64,
    b: f64,
}

impl Neuron {
    #[differentiable]
    fn forward(#[differentiable] &self, x: f64) -> f64 {
        (self.w * x + self.b).tanh()
    }
}

/// Three neurons and a linear read-out: a network of structs.
#[derive(Differentiable, Debug, Clone)]
struct Network {
    a: Neuron,
    b: Neuron,
    c: Neuron,
    out: [f64; 3],
    bias: f64,
}

impl Network {
    /// The prediction: each neuron's `forward` called on the network's own parts.
    #[differentiable]
    fn predict(#[differentiable] &self, x: f64) -> f64 {
        self.out[0] * self.a.forward(x)
            + self.out[1] * self.b.forward(x)
            + self.out[2] * self.c.forward(x)
            + self.bias
    }

    /// The mean squared error, through `predict` on `self`.
    #[differentiable(constant(xs, ys))]
    fn loss(#[differentiable] &self, xs: &[f64], ys: &[f64]) -> f64 {
        let mut total = 0.0;
        for i in 0..xs.len() {
            let r = self.predict(xs[i]) - ys[i];
            total += r * r;
        }
        total / xs.len() as f64
    }

    /// One step of gradient descent with the gradient `d` (a `Network` too).
    fn descend(&mut self, d: &Network, rate: f64) {
        for (neuron, grad) in [
            (&mut self.a, &d.a),
            (&mut self.b, &d.b),
            (&mut self.c, &d.c),
        ] {
            neuron.w -= rate * grad.w;
            neuron.b -= rate * grad.b;
        }
        for (w, g) in self.out.iter_mut().zip(&d.out) {
            *w -= rate * g;
        }
        self.bias -= rate * d.bias;
    }
}

/// Runs every section of this example in order (the tour calls it too).
pub fn main() {
    // 1. On a tape: one node, whose rule is the adjoint derived at compile time.
    let (w1, w2) = (Variable::new(5.0_f32), Variable::new(3.0_f32));
    let tape = GradientTape::new();
    let z = tape.record(|| seed(&w1, &w2));
    println!("recorded ops: {:?}", tape.recorded_ops());
    let [d1, d2] = tape.gradient(&z, [&w1, &w2]).unwrap();
    // ∂z/∂w1 = 6 w1 + 2 w2 = 36, ∂z/∂w2 = 2 w1 = 10
    println!(
        "z = {z}, dz/dw1 = {}, dz/dw2 = {}",
        d1.unwrap(),
        d2.unwrap()
    );

    // 2. The generated forward and adjoint, as source.
    println!("\nThe code generated for `w7`:\n{}", w7::GENERATED);

    // 3. A tape-free gradient of the plain function: no tape, no allocation.
    let (value, [dx, dy]) = w7::grad(0.5, 0.25);
    assert_eq!(value, w7(0.5, 0.25));
    println!("w7(0.5, 0.25) = {value:.6}, gradient = [{dx:.6}, {dy:.6}]");

    // 4. Higher order: the adjoint stays connected on an outer tape.
    let x = Tensor::scalar(0.5_f64);
    let (outer, inner) = (GradientTape::new(), GradientTape::new());
    outer.watch(&x);
    let first = outer.record(|| {
        inner.watch(&x);
        let y = inner.record(|| chain(&x, 10));
        inner.gradient(&y, &x).unwrap().unwrap()
    });
    let second = outer.gradient(&first, &x).unwrap().unwrap();
    println!("chain'(0.5) = {first}, chain''(0.5) = {second}");

    // 5. A struct of floats: the model's gradient is a `Decay`, accumulated tape-free into
    // one buffer reused across steps.
    let t: Vec<f64> = (0..40).map(|i| 0.1 * i as f64).collect();
    let y: Vec<f64> = t.iter().map(|t| 2.0 * (-0.7 * t).exp()).collect();
    let mut model = Decay {
        amplitude: 1.0,
        rate: 0.2,
    };
    let mut d_model = model.zero_like();
    let first = model.loss(&t, &y);
    for _ in 0..2000 {
        d_model = d_model.zero_like();
        model.loss_grad_into(&t, &y, &mut d_model);
        model.amplitude -= 0.5 * d_model.amplitude;
        model.rate -= 0.5 * d_model.rate;
    }
    let last = model.loss(&t, &y);
    println!(
        "Decay fit: loss {first:.4} -> {last:.2e}, amplitude {:.4} (2), rate {:.4} (0.7)",
        model.amplitude, model.rate
    );
    assert!((model.amplitude - 2.0).abs() < 1e-3 && (model.rate - 0.7).abs() < 1e-3);

    // 6. A network of structs: `loss` calls `self.predict`, which calls each neuron's
    // `forward`; the gradient of every part comes back inside one `Network`.
    let xs: Vec<f64> = (0..41).map(|i| -2.0 + 0.1 * i as f64).collect();
    let ys: Vec<f64> = xs.iter().map(|x| x.sin()).collect();
    let neuron = |w: f64, b: f64| Neuron { w, b };
    let mut net = Network {
        a: neuron(0.5, 0.1),
        b: neuron(-0.3, 0.2),
        c: neuron(0.8, -0.1),
        out: [0.3, -0.2, 0.4],
        bias: 0.0,
    };
    let first = net.loss(&xs, &ys);
    let mut d_net = net.zero_like();
    for _ in 0..5000 {
        d_net = d_net.zero_like();
        net.loss_grad_into(&xs, &ys, &mut d_net);
        net.descend(&d_net, 0.3);
    }
    let last = net.loss(&xs, &ys);
    println!("Network fit of sin on [-2, 2]: loss {first:.4} -> {last:.2e}");
    assert!(
        last < 0.01 * first,
        "the network's fit: loss {first} -> {last}"
    );
}
