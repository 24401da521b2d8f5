//! Higher-order derivatives with nested tapes: derivatives of x³ and sin x up to order 4,
//! the Rosenbrock Hessian (workload W5), a Hessian-vector product without forming the
//! Hessian, a loss with a gradient penalty trained for a few steps, and the Hessian of a
//! `#[differentiable]` function.
//!
//! Run with `cargo run --example higher_order`.

use gradtape::{GradientTape, Tensor, UnconnectedGradients, Variable, differentiable};

/// Derivatives of orders 1..=4 of `f` at `x`: each order is one more tape around the last.
fn derivatives(f: &dyn Fn(&Tensor<f64>) -> Tensor<f64>, x: f64) -> Vec<f64> {
    fn level(
        f: &dyn Fn(&Tensor<f64>) -> Tensor<f64>,
        x: &Tensor<f64>,
        order: usize,
        out: &mut Vec<f64>,
    ) -> Tensor<f64> {
        if order == 0 {
            return f(x);
        }
        let tape = GradientTape::new();
        tape.watch(x);
        let y = tape.record(|| level(f, x, order - 1, out));
        // a derivative that is constant has no path to x: zeros, as TensorFlow's ZERO option
        let dy = tape
            .gradient_with(
                &y,
                x,
                gradtape::GradientOptions::new().unconnected(UnconnectedGradients::Zero),
            )
            .expect("fresh tape")
            .expect("zeros for unconnected");
        out.push(dy.to_scalar());
        dy
    }
    let mut out = Vec::new();
    level(f, &Tensor::scalar(x), 4, &mut out);
    out
}

fn rosenbrock(x: &Tensor<f32>) -> Tensor<f32> {
    let n = x.len();
    let (head, tail) = (x.slice(0, 0, n - 1), x.slice(0, 1, n - 1));
    ((tail - head.square()).square() * 100.0 + (1.0 - head).square()).sum()
}

/// The gradient of the Rosenbrock function, recorded on whatever tape records around it.
fn rosenbrock_gradient(x: &Tensor<f32>) -> Tensor<f32> {
    let inner = GradientTape::new();
    inner.watch(x);
    let f = inner.record(|| rosenbrock(x));
    inner.gradient(&f, x).unwrap().expect("f depends on x")
}

/// The same function as one fused node, its adjoint derived at compile time. Differentiated
/// under an outer tape, the adjoint recomputes its forward code with recorded ops, so the
/// gradient can be differentiated again.
#[differentiable]
fn rosenbrock_fused(x: &Tensor<f32>) -> Tensor<f32> {
    let n = x.len();
    let head = x.slice(0, 0, n - 1);
    let tail = x.slice(0, 1, n - 1);
    ((tail - head.square()).square() * 100.0 + (1.0 - head).square()).sum()
}

fn print_orders(name: &str, got: &[f64], analytic: &[f64]) {
    println!("{name}");
    for (order, (g, a)) in got.iter().zip(analytic).enumerate() {
        println!("  order {}: {g:>10.6}   analytic {a:>10.6}", order + 1);
    }
}

/// Runs every section of this example in order (the tour calls it too).
pub fn main() {
    let x = 1.5;
    let cube = derivatives(&|x| x * x * x, x);
    print_orders(
        "x³ at x = 1.5 (3x², 6x, 6, 0)",
        &cube,
        &[3.0 * x * x, 6.0 * x, 6.0, 0.0],
    );
    let sine = derivatives(&|x| x.sin(), x);
    print_orders(
        "sin x at x = 1.5 (cos, -sin, -cos, sin)",
        &sine,
        &[x.cos(), -x.sin(), -x.cos(), x.sin()],
    );

    // W5: the 64x64 Rosenbrock Hessian as the jacobian of a gradient
    let n = 64;
    let x = Tensor::from_vec((0..n).map(|i| 0.5 + 0.01 * i as f32).collect(), &[n]);
    let outer = GradientTape::new();
    outer.watch(&x);
    let grad = outer.record(|| rosenbrock_gradient(&x));
    let h = outer
        .jacobian(&grad, &x)
        .unwrap()
        .expect("connected")
        .to_vec();
    println!("Rosenbrock Hessian, n = 64, xᵢ = 0.5 + 0.01 i");
    println!(
        "  H[0][0] = {:>8.3}   analytic 1200x₀² - 400x₁ + 2 = 98",
        h[0]
    );
    println!("  H[0][1] = {:>8.3}   analytic -400x₀ = -200", h[1]);

    // Hessian-vector product: Hv = ∇(∇f · v), one extra backward sweep, no 64x64 matrix
    let v = Tensor::from_vec(
        (0..n)
            .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect(),
        &[n],
    );
    let outer = GradientTape::new();
    outer.watch(&x);
    let gv = outer.record(|| (rosenbrock_gradient(&x) * &v).sum());
    let hv = outer
        .gradient(&gv, &x)
        .unwrap()
        .expect("connected")
        .to_vec();
    let dense: f32 = (0..n).map(|j| h[j] * v.to_vec()[j]).sum();
    println!(
        "Hessian-vector product (Hv)[0] = {:.3}; from the full Hessian {:.3}",
        hv[0], dense
    );

    // A gradient penalty: loss = mse + λ · mean ‖∂f/∂x‖² for f(x) = tanh(x w + b)
    let inputs = Tensor::from_vec(
        (0..24).map(|i| ((i * 7 % 11) as f32 - 5.0) / 5.0).collect(),
        &[8, 3],
    );
    let labels = Tensor::from_vec(
        (0..8).map(|i| ((i % 3) as f32 - 1.0) * 0.5).collect(),
        &[8, 1],
    );
    let w = Variable::new(Tensor::from_vec(vec![0.5_f32, -0.3, 0.8], &[3, 1]));
    let b = Variable::new(0.1_f32);
    let (lr, lambda) = (0.2_f32, 0.1_f32);
    println!("Training with a gradient penalty (λ = {lambda}):");
    for step in 0..5 {
        let tape = GradientTape::new();
        let (loss, penalty) = tape.record(|| {
            let inner = GradientTape::new();
            inner.watch(&inputs);
            let out = inner.record(|| (inputs.matmul(&w.value()) + &b).tanh());
            let dx = inner.gradient(&out, &inputs).unwrap().expect("connected");
            let penalty = dx.square().sum_axis(1, false).mean();
            let mse = (&out - &labels).square().mean();
            (mse + &penalty * lambda, penalty)
        });
        let [gw, gb] = tape.gradient(&loss, [&w, &b]).unwrap();
        println!(
            "  step {step}: loss {:.5}, penalty {:.5}",
            loss.to_scalar(),
            penalty.to_scalar()
        );
        w.assign_sub(gw.expect("w is used") * lr);
        b.assign_sub(gb.expect("b is used") * lr);
    }

    // The Hessian of a #[differentiable] function: the same jacobian of a gradient
    let outer = GradientTape::new();
    outer.watch(&x);
    let grad = outer.record(|| {
        let inner = GradientTape::new();
        inner.watch(&x);
        let f = inner.record(|| rosenbrock_fused(&x));
        inner.gradient(&f, &x).unwrap().expect("f depends on x")
    });
    let fused = outer.jacobian(&grad, &x).unwrap().expect("connected");
    let gap = fused
        .to_vec()
        .iter()
        .zip(&h)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    println!(
        "Hessian of #[differentiable] rosenbrock_fused: H[0][0] = {:.3}, H[0][1] = {:.3}, \
         largest difference from the op-by-op Hessian {gap:.1e}",
        fused.to_vec()[0],
        fused.to_vec()[1]
    );
}
