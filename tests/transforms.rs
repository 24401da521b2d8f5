//! The one-call transforms (`gradtape::transforms`) against analytic derivatives, central
//! differences and each other: forward and reverse Jacobians agree, `hvp` is the Hessian
//! times the vector, and the transforms nest.

mod common;

use common::{Domain, sample};
use gradtape::Tensor;
use gradtape::transforms::{JacobianMode, grad, hessian, hvp, jacobian, jvp, value_and_grad, vjp};

fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * (1.0 + w.abs()),
            "element {k}: {g} vs {w}\n{got:?}\n{want:?}"
        );
    }
}

/// Rosenbrock's function in n dimensions (W5's), written with slices.
fn rosenbrock(x: &Tensor<f64>) -> Tensor<f64> {
    let n = x.len();
    let (head, tail) = (x.slice(0, 0, n - 1), x.slice(0, 1, n - 1));
    ((&tail - head.square()).square() * 100.0 + (1.0 - &head).square()).sum()
}

/// Its gradient and Hessian by hand.
fn rosenbrock_derivatives(x: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let n = x.len();
    let mut g = vec![0.0; n];
    let mut h = vec![0.0; n * n];
    for i in 0..n - 1 {
        let (a, b) = (x[i], x[i + 1]);
        let r = b - a * a;
        g[i] += -400.0 * a * r - 2.0 * (1.0 - a);
        g[i + 1] += 200.0 * r;
        h[i * n + i] += 1200.0 * a * a - 400.0 * b + 2.0;
        h[i * n + i + 1] += -400.0 * a;
        h[(i + 1) * n + i] += -400.0 * a;
        h[(i + 1) * n + i + 1] += 200.0;
    }
    (g, h)
}

#[test]
fn grad_and_value_and_grad_match_the_analytic_gradient() {
    let x = sample(&[6], Domain::Normal, 11);
    let (g_want, _) = rosenbrock_derivatives(&x.to_vec());
    assert_close(&grad(rosenbrock, &x).to_vec(), &g_want, 1e-12);
    let (y, g) = value_and_grad(rosenbrock, &x);
    assert_eq!(y.to_scalar(), rosenbrock(&x).to_scalar());
    assert_close(&g.to_vec(), &g_want, 1e-12);
    // unconnected: zeros of the input's shape
    let g = grad(|_| Tensor::scalar(3.0_f64), &x);
    assert_eq!(g.to_vec(), vec![0.0; 6]);
}

#[test]
#[should_panic(expected = "value_and_grad: the function returned shape [3]")]
fn grad_of_a_non_scalar_function_panics() {
    let x = Tensor::from_vec(vec![1.0_f64, 2.0, 3.0], &[3]);
    grad(|x| x.square(), &x);
}

#[test]
fn hvp_is_the_hessian_times_the_vector() {
    let x = sample(&[8], Domain::Normal, 12);
    let v = sample(&[8], Domain::Normal, 13);
    let (_, h) = rosenbrock_derivatives(&x.to_vec());
    let want: Vec<f64> = (0..8)
        .map(|i| (0..8).map(|j| h[i * 8 + j] * v.to_vec()[j]).sum())
        .collect();
    assert_close(&hvp(rosenbrock, &x, &v).to_vec(), &want, 1e-11);
    // and the full Hessian
    let hess = hessian(rosenbrock, &x);
    assert_eq!(hess.shape(), &[8, 8]);
    assert_close(&hess.to_vec(), &h, 1e-12);
}

#[test]
fn jvp_and_vjp_are_transposes() {
    let f = |x: &Tensor<f64>| {
        let a = Tensor::from_vec((0..15).map(|k| (k as f64 * 0.37).sin()).collect(), &[5, 3]);
        a.matmul(&x.reshape(&[3, 1])).tanh().reshape(&[5])
    };
    let x = sample(&[3], Domain::Normal, 14);
    let u = sample(&[3], Domain::Normal, 15);
    let w = sample(&[5], Domain::Normal, 16);
    let (y, ju) = jvp(f, &x, &u);
    let (y2, pullback) = vjp(f, &x);
    assert_eq!(y.to_vec(), y2.to_vec());
    let jtw = pullback(&w);
    let lhs: f64 = ju.to_vec().iter().zip(w.to_vec()).map(|(a, b)| a * b).sum();
    let rhs: f64 = jtw
        .to_vec()
        .iter()
        .zip(u.to_vec())
        .map(|(a, b)| a * b)
        .sum();
    assert!(
        (lhs - rhs).abs() < 1e-12 * (1.0 + lhs.abs()),
        "{lhs} vs {rhs}"
    );
    // the pullback can be called again
    assert_eq!(pullback(&w).to_vec(), jtw.to_vec());
}

/// Both modes, tall and wide, against central differences column by column.
#[test]
fn forward_and_reverse_jacobians_agree_with_central_differences() {
    let mixing = |m: usize, n: usize| {
        Tensor::from_vec(
            (0..m * n)
                .map(|k| ((k * 7 % 11) as f64 - 5.0) / 4.0)
                .collect(),
            &[m, n],
        )
    };
    for (m, n) in [(5, 2), (2, 5), (3, 3)] {
        let a = mixing(m, n);
        let f = |x: &Tensor<f64>| {
            let z = a.matmul(&x.reshape(&[n, 1])).reshape(&[m]);
            z.sin() * &z + z.exp().sum()
        };
        let x = sample(&[n], Domain::Normal, (10 * m + n) as u64);
        let forward = jacobian(f, &x, JacobianMode::Forward);
        let reverse = jacobian(f, &x, JacobianMode::Reverse);
        let auto = jacobian(f, &x, JacobianMode::Auto);
        assert_eq!(forward.shape(), &[m, n]);
        assert_eq!(reverse.shape(), &[m, n]);
        assert_close(&forward.to_vec(), &reverse.to_vec(), 1e-12);
        assert_close(&auto.to_vec(), &reverse.to_vec(), 1e-12);
        let h = 1e-6;
        let xs = x.to_vec();
        let fj = forward.to_vec();
        for j in 0..n {
            let shifted = |s: f64| {
                let mut v = xs.clone();
                v[j] += s * h;
                f(&Tensor::from_vec(v, &[n])).to_vec()
            };
            let (p, q) = (shifted(1.0), shifted(-1.0));
            for i in 0..m {
                let fd = (p[i] - q[i]) / (2.0 * h);
                assert!(
                    (fj[i * n + j] - fd).abs() < 1e-6 * (1.0 + fd.abs()),
                    "J[{i}, {j}] = {} vs {fd}",
                    fj[i * n + j]
                );
            }
        }
    }
}

#[test]
fn jacobians_keep_the_shapes_of_both_sides() {
    let x = sample(&[2, 3], Domain::Normal, 21);
    let f = |x: &Tensor<f64>| x.transpose().square();
    for mode in [JacobianMode::Forward, JacobianMode::Reverse] {
        let j = jacobian(f, &x, mode);
        assert_eq!(j.shape(), &[3, 2, 2, 3], "{mode:?}");
        // ∂(xᵀ)²[a, b] / ∂x[c, d] = 2 x[b, a] when (c, d) = (b, a)
        let (jv, xv) = (j.to_vec(), x.to_vec());
        for a in 0..3 {
            for b in 0..2 {
                for c in 0..2 {
                    for d in 0..3 {
                        let want = if (c, d) == (b, a) {
                            2.0 * xv[b * 3 + a]
                        } else {
                            0.0
                        };
                        assert_eq!(jv[((a * 2 + b) * 2 + c) * 3 + d], want);
                    }
                }
            }
        }
    }
}

#[test]
fn transforms_nest() {
    // third derivative of x⁴ at 1.5: 24x
    let x = Tensor::scalar(1.5_f64);
    let d3 = grad(|x| grad(|x| grad(|x| x.powi(4), x), x), &x);
    assert!((d3.to_scalar() - 36.0).abs() < 1e-12);
    // the gradient of an hvp: ∂/∂x (H(x)·v) for Σ x⁴ is diag(24 x) v
    let x = Tensor::from_vec(vec![1.0_f64, -2.0], &[2]);
    let v = Tensor::from_vec(vec![0.5_f64, 1.0], &[2]);
    let g = grad(|x| hvp(|x| x.powi(4).sum(), x, &v).sum(), &x);
    assert_close(&g.to_vec(), &[12.0, -48.0], 1e-12);
    // a forward jacobian inside a tape's record is differentiated by it
    let g = grad(
        |x| jacobian(|x| x.sin(), x, JacobianMode::Forward).sum(),
        &x,
    );
    // Σ J = Σ cos xᵢ: its gradient is -sin x
    assert_close(&g.to_vec(), &[-(1.0_f64.sin()), 2.0_f64.sin()], 1e-12);
}
