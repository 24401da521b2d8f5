//! Forward mode and checkpointing, after TensorFlow's `tf.autodiff.ForwardAccumulator` and
//! `tf.recompute_grad` documentation: a Jacobian-vector product, a Hessian-vector product
//! by forward over reverse, a Jacobian by forward mode, an annotated function's generated
//! tangent code (`f::jvp`), the one-call transforms, and a long simulation differentiated
//! with checkpoints. Every value is checked against the
//! reverse-mode answer (or a hand-computed one) before it is printed.
//!
//! Run with `cargo run --release --example forward_mode`.

use gradtape::transforms::{self, JacobianMode};
use gradtape::{ForwardAccumulator, GradientTape, Tensor, Variable, checkpoint, differentiable};

/// Runs every section; the tour calls it too.
pub fn main() {
    jvp_of_a_function();
    hessian_vector_product();
    jacobian_by_forward_mode();
    tangent_code_of_an_annotated_function();
    one_call_transforms();
    checkpointed_simulation();
    checkpointed_annotated_loop();
}

fn heading(title: &str) {
    println!("\n== {title} ==");
}

/// Asserts `a` and `b` agree to `tol` (relative above 1), element by element.
fn check(what: &str, a: &Tensor<f64>, b: &Tensor<f64>, tol: f64) {
    assert_eq!(a.shape(), b.shape(), "{what}");
    for (x, y) in a.to_vec().iter().zip(b.to_vec()) {
        assert!((x - y).abs() <= tol * (1.0 + y.abs()), "{what}: {a} vs {b}");
    }
}

/// `with tf.autodiff.ForwardAccumulator(primals, tangents) as acc: ...; acc.jvp(y)`
fn jvp_of_a_function() {
    heading("A Jacobian-vector product: ForwardAccumulator");
    let x = Tensor::from_vec(vec![0.5_f64, 1.0, 2.0], &[3]);
    let v = Tensor::from_vec(vec![1.0_f64, 0.0, -1.0], &[3]);
    let acc = ForwardAccumulator::new(&x, &v).expect("v has x's shape");
    let y = acc.record(|| x.exp() * x.sin());
    let jvp = acc.jvp(&y).expect("y depends on x");
    println!("x = {x}\nv = {v}\ny = eˣ sin x = {y}\nJ·v = {jvp}");
    // the same by reverse mode: row i of the (diagonal) Jacobian, times v
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| x.exp() * x.sin());
    let diagonal = tape.gradient(&y, &x).unwrap().unwrap(); // Σᵢ ∂yᵢ/∂x = the diagonal
    check("J·v", &jvp, &(&diagonal * &v), 1e-12);
    println!("(equal to the reverse-mode diagonal times v)");
}

/// TensorFlow's ForwardAccumulator documentation, "Hessian-vector products".
fn hessian_vector_product() {
    heading("A Hessian-vector product: forward over reverse");
    let v = Variable::new(Tensor::from_vec(vec![1.0_f32, 2.0], &[2]));
    let acc = ForwardAccumulator::new(&v, Tensor::from_vec(vec![1.0_f32, 3.0], &[2])).unwrap();
    let backward = acc.record(|| {
        let tape = GradientTape::new();
        let y = tape.record(|| v.value().powf(3.0).sum());
        tape.gradient(&y, &v).unwrap().unwrap()
    });
    let hvp = acc.jvp(&backward).unwrap();
    println!("backward = {backward}   (TensorFlow: [3., 12.])");
    println!("acc.jvp(backward) = {hvp}   (TensorFlow: [6., 36.])");
    assert_eq!(backward.to_vec(), vec![3.0, 12.0]);
    assert_eq!(hvp.to_vec(), vec![6.0, 36.0]);
}

/// A layer written once: `#[differentiable]` generates its tangent code beside its adjoint.
#[differentiable]
fn layer(x: &Tensor<f64>, w: &Tensor<f64>, b: &Tensor<f64>) -> Tensor<f64> {
    (x.matmul(w) + b).tanh()
}

/// `f::jvp` directly, and the same tangent from an accumulator around a call of `f`.
fn tangent_code_of_an_annotated_function() {
    heading("An annotated function's tangent code: layer::jvp");
    let x = Tensor::from_vec(vec![0.5_f64, -1.0, 2.0], &[1, 3]);
    let w = Tensor::from_vec(vec![0.1_f64, 0.2, -0.3, 0.4, 0.5, -0.6], &[3, 2]);
    let b = Tensor::from_vec(vec![0.05_f64, -0.05], &[2]);
    let dw = Tensor::from_vec(vec![1.0_f64, 0.0, 0.0, 1.0, 0.0, 0.0], &[3, 2]);
    let (zx, zb) = (Tensor::zeros(&[1, 3]), Tensor::zeros(&[2]));
    // one tangent per tensor parameter, after the parameters: here along w only
    let (y, dy) = layer::jvp(&x, &w, &b, &zx, &dw, &zb);
    println!(
        "y = tanh(x w + b) = {y}
along dw: dy = {dy}"
    );
    // by hand: dy = (1 - y²) ⊙ (x dw)
    let by_hand = (1.0 - &y * &y) * x.matmul(&dw);
    check("layer::jvp", &dy, &by_hand, 1e-12);
    // a call of `layer` under an accumulator computes its tangent with the same code
    let acc = ForwardAccumulator::new(&w, &dw).unwrap();
    let y = acc.record(|| layer(&x, &w, &b));
    check(
        "the call under an accumulator",
        &acc.jvp(&y).unwrap(),
        &by_hand,
        1e-12,
    );
    println!("(equal to (1 - y²) ⊙ (x dw), and to an accumulator's tangent of a call of `layer`)");
}

/// Column by column: one forward pass per input element (JAX's `jacfwd`).
fn jacobian_by_forward_mode() {
    heading("A Jacobian by forward mode: one pass per input");
    // a tall Jacobian: 2 inputs, 6 outputs (the forward mode's good case)
    let f = |x: &Tensor<f64>| {
        let t = Tensor::from_vec(vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0], &[6]);
        // a damped oscillation: amplitude x₀, decay x₁
        (&t * -&x.slice(0, 1, 1)).exp() * (&t * 6.0).cos() * x.slice(0, 0, 1)
    };
    let x = Tensor::from_vec(vec![2.0_f64, 0.7], &[2]);
    let columns: Vec<Tensor<f64>> = (0..2)
        .map(|k| {
            let basis = Tensor::from_vec((0..2).map(|i| f64::from(i == k)).collect(), &[2]);
            let acc = ForwardAccumulator::new(&x, basis).unwrap();
            let y = acc.record(|| f(&x));
            acc.jvp(&y).unwrap().reshape(&[6, 1])
        })
        .collect();
    let jacobian = Tensor::concat(&[&columns[0], &columns[1]], 1);
    println!("J (6 x 2) = {jacobian}");
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| f(&x));
    let reverse = tape.jacobian(&y, &x).unwrap().unwrap();
    check("forward-mode Jacobian", &jacobian, &reverse, 1e-12);
    println!("(equal to tape.jacobian, reverse mode)");
}

/// `gradtape::transforms`: answers without tapes in sight.
fn one_call_transforms() {
    heading("One-call transforms: grad, hvp, hessian, jacobian");
    // Rosenbrock's function (workload W5)
    let rosenbrock = |x: &Tensor<f64>| {
        let n = x.len();
        let (head, tail) = (x.slice(0, 0, n - 1), x.slice(0, 1, n - 1));
        ((&tail - head.square()).square() * 100.0 + (1.0 - &head).square()).sum()
    };
    let x = Tensor::from_vec(vec![-1.2_f64, 1.0, 0.5, 0.8], &[4]);
    let v = Tensor::from_vec(vec![1.0_f64, 0.0, 0.0, -1.0], &[4]);
    let (value, gradient) = transforms::value_and_grad(rosenbrock, &x);
    let hessian = transforms::hessian(rosenbrock, &x);
    let hvp = transforms::hvp(rosenbrock, &x, &v);
    println!("f(x) = {value}\n∇f = {gradient}\nH·v = {hvp}");
    check(
        "hvp",
        &hvp,
        &hessian.matmul(&v.reshape(&[4, 1])).reshape(&[4]),
        1e-12,
    );
    println!("(H·v by forward over reverse equals the full Hessian times v)");
    let forward = transforms::jacobian(|x| x.sin() * x, &x, JacobianMode::Forward);
    let reverse = transforms::jacobian(|x| x.sin() * x, &x, JacobianMode::Reverse);
    check("jacobian modes", &forward, &reverse, 1e-12);
    println!("jacfwd and jacrev of x sin x agree: diagonal {:?}", {
        let j = forward.to_vec();
        (0..4).map(|i| j[i * 5]).collect::<Vec<_>>()
    });
}

/// A long RK4 simulation of a 16-dimensional system, differentiated with respect to its
/// parameters: once with every step on the tape, once with the tape keeping only every
/// 50th state (`checkpoint` around each segment, recomputed during the backward sweep).
fn checkpointed_simulation() {
    heading("Checkpointing: a 2,000-step simulation");
    const STEPS: usize = 2000;
    const SEGMENT: usize = 50;
    let dt = 0.01;
    // dx/dt = -x + tanh(w ⊙ roll(x)): a ring of coupled units
    let rate = |x: &Tensor<f64>, w: &Tensor<f64>| {
        let rolled = Tensor::concat(&[&x.slice(0, 15, 1), &x.slice(0, 0, 15)], 0);
        (w * &rolled).tanh() - x
    };
    let rk4 = move |x: &Tensor<f64>, w: &Tensor<f64>| {
        let k1 = rate(x, w);
        let k2 = rate(&(x + &k1 * (dt / 2.0)), w);
        let k3 = rate(&(x + &k2 * (dt / 2.0)), w);
        let k4 = rate(&(x + &k3 * dt), w);
        x + (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (dt / 6.0)
    };
    let x0 = Tensor::from_vec((0..16).map(|i| (i as f64 * 0.4).sin()).collect(), &[16]);
    let w = Tensor::from_vec((0..16).map(|i| 1.0 + 0.1 * i as f64).collect(), &[16]);

    let plain = GradientTape::new();
    plain.watch(&w);
    let loss = plain.record(|| {
        let mut x = x0.clone();
        for _ in 0..STEPS {
            x = rk4(&x, &w);
        }
        x.square().sum()
    });
    let kept_plain = plain.recorded_ops().len();
    let grad_plain = plain.gradient(&loss, &w).unwrap().unwrap();

    let checked = GradientTape::new();
    checked.watch(&w);
    let loss_checked = checked.record(|| {
        let mut x = x0.clone();
        for _ in 0..STEPS / SEGMENT {
            let segment = move |inputs: &[Tensor<f64>]| {
                let (mut x, w) = (inputs[0].clone(), &inputs[1]);
                for _ in 0..SEGMENT {
                    x = rk4(&x, w);
                }
                x
            };
            x = checkpoint(segment, &[&x, &w]);
        }
        x.square().sum()
    });
    let kept_checked = checked.recorded_ops().len();
    let grad_checked = checked.gradient(&loss_checked, &w).unwrap().unwrap();
    check("checkpointed gradient", &grad_checked, &grad_plain, 1e-10);
    println!("loss = {}", loss.to_scalar());
    println!("∂loss/∂w₀..₃ = {:?}", &grad_plain.to_vec()[..4]);
    println!(
        "ops kept by the tape: {kept_plain} without checkpoints, {kept_checked} with one every \
         {SEGMENT} steps; the gradients agree to 1e-10"
    );
}

/// A damped pendulum of a million steps as a user writes it, over plain floats: annotated
/// once as it is and once with `checkpoint(snapshots = 100, levels = 3)`, whose adjoint
/// keeps 100 + 100 states and 100 steps' saves instead of a million steps' saves.
#[differentiable]
fn pendulum(x0: f64, k: f64, damping: f64, steps: usize) -> f64 {
    let (mut x, mut v) = (x0, 0.0);
    for _ in 0..steps {
        let a = -k * x.sin() - damping * v;
        v += 1e-5 * a;
        x += 1e-5 * v;
    }
    x * x + v * v
}

#[differentiable(checkpoint(snapshots = 100, levels = 3))]
#[allow(dead_code)] // called through its generated `grad`, compared with `pendulum`'s
fn pendulum_checkpointed(x0: f64, k: f64, damping: f64, steps: usize) -> f64 {
    let (mut x, mut v) = (x0, 0.0);
    for _ in 0..steps {
        let a = -k * x.sin() - damping * v;
        v += 1e-5 * a;
        x += 1e-5 * v;
    }
    x * x + v * v
}

fn checkpointed_annotated_loop() {
    heading("Checkpointing an annotated loop: a million steps, three levels");
    const STEPS: usize = 1_000_000;
    let (value, gradient) = pendulum::grad(1.2, 9.8, 0.1, STEPS);
    let (same, checkpointed) = pendulum_checkpointed::grad(1.2, 9.8, 0.1, STEPS);
    // the rerun repeats the same operations in the same order: equal to the bit
    assert_eq!(value.to_bits(), same.to_bits());
    assert_eq!(gradient.map(f64::to_bits), checkpointed.map(f64::to_bits));
    // and against central differences in k
    let h = 1e-6;
    let by_differences =
        (pendulum(1.2, 9.8 + h, 0.1, STEPS) - pendulum(1.2, 9.8 - h, 0.1, STEPS)) / (2.0 * h);
    assert!(
        (checkpointed[1] - by_differences).abs() <= 1e-5 * (1.0 + by_differences.abs()),
        "{} vs {by_differences}",
        checkpointed[1]
    );
    println!("x² + v² after 10⁶ steps of 10⁻⁵ = {value}");
    println!("∂/∂(x0, k, damping) = {checkpointed:?}");
    println!(
        "(equal to the bit to the uncheckpointed gradient, and to central differences in k; \
         the checkpointed adjoint held 200 states and 100 steps' saves)"
    );
}
