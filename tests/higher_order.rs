//! Higher-order derivatives in every nesting combination: nested `record` scopes, a
//! persistent tape's gradient inside its own scope, the jacobian of a gradient (Hessians),
//! the gradient and the jacobian of a jacobian, Hessian-vector products. Checked against
//! analytic derivatives (derivations in comments) or central finite differences in f64.
//! (Through `#[differentiable]` functions: see the macro's tests.)

use gradtape::{GradientOptions, GradientTape, Tensor, UnconnectedGradients};

/// Derivatives of orders 1..=`order` of `f` at `x`, one nested tape per order.
fn nested_derivatives(f: &dyn Fn(&Tensor<f64>) -> Tensor<f64>, x: f64, order: usize) -> Vec<f64> {
    let x = Tensor::scalar(x);
    let mut out = Vec::new();
    derive(f, &x, order, &mut out);
    out
}

/// Returns f at this level; pushes derivatives innermost first.
fn derive(
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
    let y = tape.record(|| derive(f, x, order - 1, out));
    let dy = tape.gradient(&y, x).unwrap().expect("connected");
    out.push(dy.to_scalar());
    dy
}

#[test]
fn x_to_the_fourth_matches_tensorflow() {
    // d/dx x⁴ = 4x³ = 32, 12x² = 48, 24x = 48 at x = 2 (TensorFlow prints the same)
    let d = nested_derivatives(&|x| x.powi(4), 2.0, 3);
    assert_eq!(d, vec![32.0, 48.0, 48.0]);
}

#[test]
fn x_cubed_and_sine_up_to_order_four() {
    // x³: 3x², 6x, 6, 0 at x = 1.5
    let d = nested_derivatives(&|x| x * x * x, 1.5, 3);
    assert_eq!(d, vec![6.75, 9.0, 6.0]);
    // sin: cos, -sin, -cos, sin
    let x: f64 = 0.7;
    let d = nested_derivatives(&|x| x.sin(), x, 4);
    let expected = [x.cos(), -x.sin(), -x.cos(), x.sin()];
    for (got, want) in d.iter().zip(expected) {
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    }
}

#[test]
fn fourth_derivative_of_a_cubic_is_none_then_zero() {
    // d⁴/dx⁴ x³ = 0: the third derivative 6 is a constant, so the fourth is not connected
    let x = Tensor::scalar(1.5_f64);
    let t4 = GradientTape::persistent();
    t4.watch(&x);
    let d3 = t4.record(|| nested_derivatives_tensor(&x, 3));
    assert_eq!(d3.to_scalar(), 6.0);
    assert!(t4.gradient(&d3, &x).unwrap().is_none());
    let zero = GradientOptions::new().unconnected(UnconnectedGradients::Zero);
    assert_eq!(
        t4.gradient_with(&d3, &x, zero)
            .unwrap()
            .unwrap()
            .to_scalar(),
        0.0
    );
}

fn nested_derivatives_tensor(x: &Tensor<f64>, order: usize) -> Tensor<f64> {
    if order == 0 {
        return x * x * x;
    }
    let tape = GradientTape::new();
    tape.watch(x);
    let y = tape.record(|| nested_derivatives_tensor(x, order - 1));
    tape.gradient(&y, x).unwrap().unwrap()
}

#[test]
fn second_derivative_of_a_linear_function_is_none() {
    let x = Tensor::scalar(2.0_f32);
    let outer = GradientTape::new();
    outer.watch(&x);
    let g = outer.record(|| {
        let inner = GradientTape::new();
        inner.watch(&x);
        let y = inner.record(|| &x * 3.0);
        inner.gradient(&y, &x).unwrap().unwrap()
    });
    assert_eq!(g.to_scalar(), 3.0);
    assert!(outer.gradient(&g, &x).unwrap().is_none());
}

#[test]
fn persistent_tape_gradient_inside_its_own_scope_is_recorded() {
    // y = x³: dy/dx = 3x² = 12 and, from the same tape, d²y/dx² = 6x = 12 at x = 2
    let x = Tensor::scalar(2.0_f64);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let dy = tape.record(|| {
        let y = x.powi(3);
        tape.gradient(&y, &x).unwrap().unwrap()
    });
    assert_eq!(dy.to_scalar(), 12.0);
    assert_eq!(tape.gradient(&dy, &x).unwrap().unwrap().to_scalar(), 12.0);
}

fn rosenbrock(x: &Tensor<f64>) -> Tensor<f64> {
    let n = x.len();
    let (head, tail) = (x.slice(0, 0, n - 1), x.slice(0, 1, n - 1));
    ((tail - head.square()).square() * 100.0 + (1.0 - head).square()).sum()
}

/// The Rosenbrock Hessian, by hand: with f = Σ 100(xᵢ₊₁ - xᵢ²)² + (1 - xᵢ)²,
/// ∂²f/∂xᵢ² = 1200xᵢ² - 400xᵢ₊₁ + 2 (i < n-1) + 200 (i > 0), ∂²f/∂xᵢ∂xᵢ₊₁ = -400xᵢ.
fn rosenbrock_hessian(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut h = vec![0.0; n * n];
    for i in 0..n {
        if i + 1 < n {
            h[i * n + i] += 1200.0 * x[i] * x[i] - 400.0 * x[i + 1] + 2.0;
            h[i * n + i + 1] = -400.0 * x[i];
            h[(i + 1) * n + i] = -400.0 * x[i];
        }
        if i > 0 {
            h[i * n + i] += 200.0;
        }
    }
    h
}

#[test]
fn hessian_as_jacobian_of_a_gradient() {
    let values: Vec<f64> = (0..6).map(|i| 0.5 + 0.1 * i as f64).collect();
    let x = Tensor::from_vec(values.clone(), &[6]);
    let outer = GradientTape::new();
    outer.watch(&x);
    let grad = outer.record(|| {
        let inner = GradientTape::new();
        inner.watch(&x);
        let f = inner.record(|| rosenbrock(&x));
        inner.gradient(&f, &x).unwrap().unwrap()
    });
    let h = outer.jacobian(&grad, &x).unwrap().unwrap();
    assert_eq!(h.shape(), &[6, 6]);
    for (got, want) in h.to_vec().iter().zip(rosenbrock_hessian(&values)) {
        assert!((got - want).abs() < 1e-9, "{got} vs {want}");
    }
}

#[test]
fn hessian_from_one_persistent_tape() {
    let values = vec![0.3, -0.2, 0.9];
    let x = Tensor::from_vec(values.clone(), &[3]);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let grad = tape.record(|| {
        let f = rosenbrock(&x);
        tape.gradient(&f, &x).unwrap().unwrap()
    });
    let h = tape.jacobian(&grad, &x).unwrap().unwrap();
    for (got, want) in h.to_vec().iter().zip(rosenbrock_hessian(&values)) {
        assert!((got - want).abs() < 1e-9, "{got} vs {want}");
    }
}

#[test]
fn hessian_vector_product_without_the_hessian() {
    // Hv = ∇(∇f · v), one gradient of a scalar, compared with the full Hessian times v
    let values = vec![0.5, 0.7, -0.4, 1.1];
    let v = Tensor::from_vec(vec![1.0, -2.0, 0.5, 3.0], &[4]);
    let x = Tensor::from_vec(values.clone(), &[4]);
    let outer = GradientTape::new();
    outer.watch(&x);
    let gv = outer.record(|| {
        let inner = GradientTape::new();
        inner.watch(&x);
        let f = inner.record(|| rosenbrock(&x));
        (inner.gradient(&f, &x).unwrap().unwrap() * &v).sum()
    });
    let hv = outer.gradient(&gv, &x).unwrap().unwrap().to_vec();
    let h = rosenbrock_hessian(&values);
    let vv = v.to_vec();
    for i in 0..4 {
        let want: f64 = (0..4).map(|j| h[i * 4 + j] * vv[j]).sum();
        assert!((hv[i] - want).abs() < 1e-9, "{} vs {want}", hv[i]);
    }
}

fn matrix(rows: usize, cols: usize, seed: f64) -> Tensor<f64> {
    let data = (0..rows * cols)
        .map(|i| ((i as f64 + 1.0) * seed).sin())
        .collect();
    Tensor::from_vec(data, &[rows, cols])
}

/// y = sin(W x) for x of shape [3]: the vector function of the jacobian tests.
fn layer(w: &Tensor<f64>, x: &Tensor<f64>) -> Tensor<f64> {
    let n = x.len();
    w.matmul(&x.reshape(&[n, 1])).reshape(&[w.shape()[0]]).sin()
}

/// The jacobian of `layer`, analytically: J = diag(cos(W x)) W.
fn layer_jacobian(w: &Tensor<f64>, x: &[f64]) -> Vec<f64> {
    let (m, n) = (w.shape()[0], w.shape()[1]);
    let wv = w.to_vec();
    let mut j = vec![0.0; m * n];
    for i in 0..m {
        let z: f64 = (0..n).map(|k| wv[i * n + k] * x[k]).sum();
        for k in 0..n {
            j[i * n + k] = z.cos() * wv[i * n + k];
        }
    }
    j
}

#[test]
fn gradient_of_a_jacobian() {
    // s(x) = Σᵢⱼ Jᵢⱼ(x) weighted by cᵢⱼ; checked against central differences of s
    let w = matrix(2, 3, 0.8);
    let c = matrix(2, 3, 1.7);
    let values = vec![0.4, -0.3, 0.9];
    let x = Tensor::from_vec(values.clone(), &[3]);
    let outer = GradientTape::new();
    outer.watch(&x);
    let s = outer.record(|| {
        let inner = GradientTape::new();
        inner.watch(&x);
        let y = inner.record(|| layer(&w, &x));
        (inner.jacobian(&y, &x).unwrap().unwrap() * &c).sum()
    });
    let grad = outer.gradient(&s, &x).unwrap().unwrap().to_vec();
    let s_at = |x: &[f64]| -> f64 {
        layer_jacobian(&w, x)
            .iter()
            .zip(c.to_vec())
            .map(|(j, c)| j * c)
            .sum()
    };
    assert!((s.to_scalar() - s_at(&values)).abs() < 1e-12);
    let h = 1e-6;
    for k in 0..3 {
        let (mut plus, mut minus) = (values.clone(), values.clone());
        plus[k] += h;
        minus[k] -= h;
        let want = (s_at(&plus) - s_at(&minus)) / (2.0 * h);
        assert!((grad[k] - want).abs() < 1e-7, "{} vs {want}", grad[k]);
    }
}

#[test]
fn jacobian_of_a_jacobian() {
    // ∂Jᵢⱼ/∂xₖ = -sin((W x)ᵢ) Wᵢⱼ Wᵢₖ
    let w = matrix(2, 3, 0.6);
    let values = vec![0.2, 0.5, -0.7];
    let x = Tensor::from_vec(values.clone(), &[3]);
    let outer = GradientTape::new();
    outer.watch(&x);
    let jac = outer.record(|| {
        let inner = GradientTape::new();
        inner.watch(&x);
        let y = inner.record(|| layer(&w, &x));
        inner.jacobian(&y, &x).unwrap().unwrap()
    });
    let second = outer.jacobian(&jac, &x).unwrap().unwrap();
    assert_eq!(second.shape(), &[2, 3, 3]);
    let wv = w.to_vec();
    for i in 0..2 {
        let z: f64 = (0..3).map(|k| wv[i * 3 + k] * values[k]).sum();
        for j in 0..3 {
            for k in 0..3 {
                let want = -z.sin() * wv[i * 3 + j] * wv[i * 3 + k];
                let got = second.to_vec()[(i * 3 + j) * 3 + k];
                assert!((got - want).abs() < 1e-12, "{got} vs {want}");
            }
        }
    }
}

#[test]
fn batch_jacobian_under_an_outer_tape() {
    // per example yₙ = xₙ³ (elementwise): batch jacobian diag(3xₙ²); its sum's gradient 6xₙ
    let x = Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0], &[2, 2]);
    let outer = GradientTape::new();
    outer.watch(&x);
    let total = outer.record(|| {
        let inner = GradientTape::new();
        inner.watch(&x);
        let y = inner.record(|| x.powi(3));
        inner.batch_jacobian(&y, &x).unwrap().unwrap().sum()
    });
    assert_eq!(total.to_scalar(), 3.0 * (1.0 + 4.0 + 9.0 + 16.0));
    let g = outer.gradient(&total, &x).unwrap().unwrap();
    assert_eq!(g.to_vec(), vec![6.0, 12.0, 18.0, 24.0]);
}

#[test]
fn gradient_penalty_is_differentiable() {
    // L(w) = ‖∇ₓ (w x²)‖² = (2 w x)² summed: dL/dw = 8 w Σ x² = 8·1.5·5 = 60
    let w = gradtape::Variable::new(1.5_f64);
    let x = Tensor::from_vec(vec![1.0, 2.0], &[2]);
    let outer = GradientTape::new();
    let penalty = outer.record(|| {
        let inner = GradientTape::new();
        inner.watch(&x);
        let y = inner.record(|| (&w * x.square()).sum());
        inner.gradient(&y, &x).unwrap().unwrap().square().sum()
    });
    assert_eq!(penalty.to_scalar(), 45.0);
    assert_eq!(
        outer.gradient(&penalty, &w).unwrap().unwrap().to_scalar(),
        60.0
    );
}
