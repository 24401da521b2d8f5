//! `#[differentiable]` on tapes: one fused node per call, the plain-speed paths, nested
//! tapes for higher orders, and the generated code being inspectable.

use gradtape::{
    GradientOptions, GradientTape, Tensor, UnconnectedGradients, Variable, differentiable,
    stop_gradient,
};

#[differentiable]
fn seed(w1: &Tensor<f32>, w2: &Tensor<f32>) -> Tensor<f32> {
    3.0 * w1.powi(2) + 2.0 * w1 * w2
}

#[differentiable]
fn seed_variables(w1: &Variable<f32>, w2: &Variable<f32>) -> Tensor<f32> {
    3.0 * w1.powi(2) + 2.0 * w1 * w2
}

#[differentiable]
fn fourth_power(x: &Tensor<f64>) -> Tensor<f64> {
    let square = x * x;
    &square * &square
}

#[test]
fn an_annotated_call_records_exactly_one_node() {
    let (w1, w2) = (Variable::new(5.0_f32), Variable::new(3.0_f32));
    let tape = GradientTape::persistent();
    let z = tape.record(|| seed(&w1.value(), &w2.value()));
    assert_eq!(tape.recorded_ops(), ["seed"]);
    // ∂z/∂w1 = 6 w1 + 2 w2 = 36, ∂z/∂w2 = 2 w1 = 10
    let [d1, d2] = tape.gradient(&z, [&w1, &w2]).unwrap();
    assert_eq!(
        (d1.unwrap().to_scalar(), d2.unwrap().to_scalar()),
        (36.0, 10.0)
    );
    // the op-by-op body records one node per op instead
    let plain = GradientTape::new();
    plain.record(|| seed::primal(&w1.value(), &w2.value()));
    assert_eq!(plain.recorded_ops().len(), 5);
}

#[test]
fn variables_are_arguments_like_anywhere_else() {
    let (w1, w2) = (Variable::new(5.0_f32), Variable::new(3.0_f32));
    let tape = GradientTape::new();
    let z = tape.record(|| seed_variables(&w1, &w2));
    let [d1, d2] = tape.gradient(&z, [&w1, &w2]).unwrap();
    assert_eq!(
        (d1.unwrap().to_scalar(), d2.unwrap().to_scalar()),
        (36.0, 10.0)
    );
}

#[test]
fn with_nothing_recording_or_watched_the_body_runs_plainly() {
    let (a, b) = (Tensor::scalar(5.0_f32), Tensor::scalar(3.0_f32));
    // 3·25 + 2·15 = 105
    assert_eq!(seed(&a, &b).to_scalar(), 105.0);
    let tape = GradientTape::new();
    let z = tape.record(|| seed(&a, &b));
    assert_eq!(z.to_scalar(), 105.0);
    assert!(tape.recorded_ops().is_empty());
}

#[test]
fn nested_tapes_give_exact_higher_orders() {
    // x⁴ at 2: 4x³ = 32, 12x² = 48, 24x = 48
    let x = Tensor::scalar(2.0_f64);
    let (t1, t2, t3) = (
        GradientTape::new(),
        GradientTape::new(),
        GradientTape::new(),
    );
    t3.watch(&x);
    let d2 = t3.record(|| {
        t2.watch(&x);
        let d1 = t2.record(|| {
            t1.watch(&x);
            let y = t1.record(|| fourth_power(&x));
            t1.gradient(&y, &x).unwrap().unwrap()
        });
        assert_eq!(d1.to_scalar(), 32.0);
        t2.gradient(&d1, &x).unwrap().unwrap()
    });
    assert_eq!(d2.to_scalar(), 48.0);
    assert_eq!(t3.gradient(&d2, &x).unwrap().unwrap().to_scalar(), 48.0);
}

#[test]
fn a_persistent_tape_can_run_the_adjoint_twice() {
    let x = Tensor::from_vec(vec![1.0_f64, -2.0], &[2]);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let y = tape.record(|| fourth_power(&x).sum());
    for _ in 0..2 {
        // d/dx Σ x⁴ = 4x³
        assert_eq!(
            tape.gradient(&y, &x).unwrap().unwrap().to_vec(),
            vec![4.0, -32.0]
        );
    }
}

#[test]
fn the_generated_code_is_inspectable() {
    assert!(seed::GENERATED.contains("pub fn vjp"));
    assert!(seed::GENERATED.contains("vjp::powi"));
    assert!(seed::GENERATED.contains("vjp::mul_rhs"));
}

#[test]
fn the_pullback_works_without_any_tape() {
    let (a, b) = (Tensor::scalar(5.0_f32), Tensor::scalar(3.0_f32));
    let (value, pullback) = seed::vjp(&a, &b);
    assert_eq!(value.to_scalar(), 105.0);
    let (d1, d2) = pullback(Tensor::scalar(1.0));
    assert_eq!(
        (d1.unwrap().to_scalar(), d2.unwrap().to_scalar()),
        (36.0, 10.0)
    );
}

#[differentiable]
fn larger_plus_smaller(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    x.maximum(y) + x.minimum(y) * 3.0
}

/// On ties TensorFlow gives the whole cotangent to the first operand of `maximum` and
/// `minimum`; the fused adjoint must agree with the op-by-op tape there too.
#[test]
fn ties_in_maximum_and_minimum_follow_the_op_by_op_tape() {
    let x = Tensor::from_vec(vec![1.0, 2.0, 3.0], &[3]);
    let y = Tensor::from_vec(vec![1.0, 0.0, 5.0], &[3]);
    let gradients = |fused: bool| {
        let tape = GradientTape::new();
        tape.watch(&[&x, &y]);
        let total = tape.record(|| {
            let out = if fused {
                larger_plus_smaller(&x, &y)
            } else {
                larger_plus_smaller::primal(&x, &y)
            };
            out.sum()
        });
        let (gx, gy) = tape.gradient(&total, (&x, &y)).unwrap();
        (gx.unwrap().to_vec(), gy.unwrap().to_vec())
    };
    // element 0 ties: x gets max's 1 and min's 3, y gets nothing
    assert_eq!(gradients(false), (vec![4.0, 1.0, 3.0], vec![0.0, 3.0, 1.0]));
    assert_eq!(gradients(true), gradients(false));
}

#[differentiable]
fn larger_plus_smaller_numbers(x: f64, y: f64) -> f64 {
    x.max(y) + x.min(y) * 3.0
}

/// The same on plain numbers, where the generated code saves which operand won instead
/// of both operands (a `bool` per `max`/`min`): ties to the first operand, and a select,
/// so the operand that lost gets a zero even from an infinite cotangent (TensorFlow's
/// gradient of `maximum` selects too), where a product with `[x ≥ y]` would give NaN.
#[test]
fn ties_in_max_and_min_of_numbers_go_to_the_first_operand() {
    assert_eq!(larger_plus_smaller_numbers(1.0, 1.0), 4.0);
    assert_eq!(
        larger_plus_smaller_numbers::grad(1.0, 1.0),
        (4.0, [4.0, 0.0])
    );
    assert_eq!(
        larger_plus_smaller_numbers::grad(2.0, 0.0),
        (2.0, [1.0, 3.0])
    );
    assert_eq!(
        larger_plus_smaller_numbers::grad(3.0, 5.0),
        (14.0, [3.0, 1.0])
    );
    let (_, pullback) = larger_plus_smaller_numbers::vjp(2.0, 0.0);
    let (dx, dy) = pullback(f64::INFINITY);
    assert_eq!((dx, dy), (Some(f64::INFINITY), Some(f64::INFINITY)));
    let (_, pullback) = larger_plus_smaller_numbers::vjp(2.0, 2.0);
    assert_eq!(pullback(f64::INFINITY), (Some(f64::INFINITY), Some(0.0)));
}

// ----- stop_gradient (the runtime's, imported and by path) -----

#[differentiable]
fn damped(x: &Tensor<f64>) -> Tensor<f64> {
    x * stop_gradient(x) + x.sin()
}

#[differentiable]
fn cross(x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    x * gradtape::stop_gradient(&(x * y)) + y.square()
}

#[differentiable]
fn frozen(x: &Tensor<f64>) -> Tensor<f64> {
    stop_gradient(x) * 2.0
}

/// Derivatives of orders 1..=3 of `f` at `x` by three nested tapes.
fn three_orders(f: &dyn Fn(&Tensor<f64>) -> Tensor<f64>, x: f64) -> [f64; 3] {
    let x = Tensor::scalar(x);
    let (t1, t2, t3) = (
        GradientTape::new(),
        GradientTape::new(),
        GradientTape::new(),
    );
    t3.watch(&x);
    let (d1, d2) = t3.record(|| {
        t2.watch(&x);
        let d1 = t2.record(|| {
            t1.watch(&x);
            let y = t1.record(|| f(&x));
            t1.gradient(&y, &x).unwrap().unwrap()
        });
        (d1.clone(), t2.gradient(&d1, &x).unwrap().unwrap())
    });
    let d3 = t3.gradient(&d2, &x).unwrap().unwrap();
    [d1.to_scalar(), d2.to_scalar(), d3.to_scalar()]
}

#[test]
fn stop_gradient_inside_an_annotated_function_to_third_order() {
    // f = x sg(x) + sin x: f' = sg(x) + cos x = x + cos x, f'' = -sin x, f''' = -cos x (the
    // stopped factor is a constant at every order)
    let x = 0.7_f64;
    let want = [x + x.cos(), -x.sin(), -x.cos()];
    let (fused, plain) = (three_orders(&damped, x), three_orders(&damped::primal, x));
    for k in 0..3 {
        assert!((fused[k] - want[k]).abs() < 1e-12, "{fused:?} vs {want:?}");
        assert!(
            (fused[k] - plain[k]).abs() < 1e-12,
            "{fused:?} vs {plain:?}"
        );
    }
}

#[test]
fn stop_gradient_in_a_jacobian_and_a_hessian() {
    // ∂fᵢ/∂xⱼ = [i = j] (xᵢ + cos xᵢ); the Hessian of Σ f is diag(-sin x)
    let x = Tensor::from_vec(vec![0.3, -0.7, 1.1], &[3]);
    let outer = GradientTape::new();
    outer.watch(&x);
    let (jacobian, grad) = outer.record(|| {
        let inner = GradientTape::persistent();
        inner.watch(&x);
        let (y, total) = inner.record(|| {
            let y = damped(&x);
            let total = y.sum();
            (y, total)
        });
        (
            inner.jacobian(&y, &x).unwrap().unwrap(),
            inner.gradient(&total, &x).unwrap().unwrap(),
        )
    });
    let xs = x.to_vec();
    let hessian = outer.jacobian(&grad, &x).unwrap().unwrap().to_vec();
    for i in 0..3 {
        for j in 0..3 {
            let (want_j, want_h) = if i == j {
                (xs[i] + xs[i].cos(), -xs[i].sin())
            } else {
                (0.0, 0.0)
            };
            assert!((jacobian.to_vec()[i * 3 + j] - want_j).abs() < 1e-14);
            assert!((hessian[i * 3 + j] - want_h).abs() < 1e-14);
        }
    }
}

#[test]
fn stop_gradient_by_path_of_a_computed_value() {
    // f = x sg(x y) + y²: ∂f/∂x = x y, ∂f/∂y = 2y; differentiated again, ∂f/∂x has no path
    // to x or y (TensorFlow's StopGradient has no gradient), ∂²f/∂y² = 2
    let (x, y) = (
        Tensor::from_vec(vec![0.3, -0.7], &[2]),
        Tensor::from_vec(vec![0.9, 0.2], &[2]),
    );
    for fused in [true, false] {
        let outer = GradientTape::persistent();
        outer.watch(&[&x, &y]);
        let (dx, dy) = outer.record(|| {
            let inner = GradientTape::new();
            inner.watch(&[&x, &y]);
            let f = inner.record(|| {
                let f = if fused {
                    cross(&x, &y)
                } else {
                    cross::primal(&x, &y)
                };
                f.sum()
            });
            let (dx, dy) = inner.gradient(&f, (&x, &y)).unwrap();
            (dx.unwrap(), dy.unwrap())
        });
        assert_eq!(dx.to_vec(), (&x * &y).to_vec());
        assert_eq!(dy.to_vec(), (&y * 2.0).to_vec());
        let (dxx, dxy) = outer.gradient(&dx, (&x, &y)).unwrap();
        assert!(dxx.is_none() && dxy.is_none());
        let (dyx, dyy) = outer.gradient(&dy, (&x, &y)).unwrap();
        assert!(dyx.is_none());
        assert_eq!(dyy.unwrap().to_vec(), vec![2.0, 2.0]);
    }
}

#[test]
fn a_wholly_stopped_result_has_no_gradient() {
    let x = Tensor::from_vec(vec![1.0, 2.0], &[2]);
    for fused in [true, false] {
        let tape = GradientTape::persistent();
        tape.watch(&x);
        let y = tape.record(|| {
            if fused {
                frozen(&x)
            } else {
                frozen::primal(&x)
            }
        });
        assert_eq!(y.to_vec(), vec![2.0, 4.0]);
        assert!(tape.gradient(&y, &x).unwrap().is_none());
        let zero = GradientOptions::new().unconnected(UnconnectedGradients::Zero);
        let g = tape.gradient_with(&y, &x, zero).unwrap().unwrap();
        assert_eq!(g.to_vec(), vec![0.0, 0.0]);
    }
}

/// What the error for `to_scalar` on a differentiable value advises: read it through
/// `stop_gradient`, as a constant.
#[differentiable]
fn stopped_reads(x: &Tensor<f64>) -> Tensor<f64> {
    let scale = stop_gradient(&x.sum()).to_scalar();
    let n = stop_gradient(&x.max()).to_scalar().round() as i32;
    x.powi(n) * scale
}

#[test]
fn values_read_through_stop_gradient_are_constants() {
    // with s = Σx = 4.3 and n = round(max x) = 3 held constant: d/dx s xⁿ = s n xⁿ⁻¹
    let x = Tensor::from_vec(vec![0.5, 1.2, 2.6], &[3]);
    let (s, n) = (4.3, 3);
    for fused in [true, false] {
        let tape = GradientTape::new();
        tape.watch(&x);
        let y = tape.record(|| {
            let y = if fused {
                stopped_reads(&x)
            } else {
                stopped_reads::primal(&x)
            };
            y.sum()
        });
        let g = tape.gradient(&y, &x).unwrap().unwrap().to_vec();
        for (got, xi) in g.iter().zip(x.to_vec()) {
            let want = s * n as f64 * xi.powi(n - 1);
            assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        }
    }
}

#[differentiable]
fn variable_stopped(w: &Variable<f64>, x: &Tensor<f64>) -> Tensor<f64> {
    w * x + stop_gradient(&w.value()) * x.sin()
}

#[test]
fn stop_gradient_of_a_variable_parameter() {
    // f = w x + sg(w) sin x: ∂f/∂w = x, ∂f/∂x = w + w cos x; ∂²f/∂x∂w = 1 (the stopped w
    // contributes nothing), ∂²f/∂x² = -w sin x
    let w = Variable::new(0.5_f64);
    let x = Tensor::scalar(0.3_f64);
    for fused in [true, false] {
        let outer = GradientTape::persistent();
        outer.watch(&x);
        let (dw, dx) = outer.record(|| {
            let inner = GradientTape::new();
            inner.watch(&x);
            let f = inner.record(|| {
                if fused {
                    variable_stopped(&w, &x)
                } else {
                    variable_stopped::primal(&w, &x)
                }
            });
            let (dw, dx) = inner.gradient(&f, (&w, &x)).unwrap();
            (dw.unwrap(), dx.unwrap())
        });
        assert_eq!(dw.to_scalar(), 0.3);
        assert!((dx.to_scalar() - (0.5 + 0.5 * 0.3_f64.cos())).abs() < 1e-15);
        let (dxw, dxx) = outer.gradient(&dx, (&w, &x)).unwrap();
        assert_eq!(dxw.unwrap().to_scalar(), 1.0);
        assert!((dxx.unwrap().to_scalar() + 0.5 * 0.3_f64.sin()).abs() < 1e-15);
    }
}

mod plain_numbers {
    use gradtape::differentiable;

    /// On plain numbers no tape tracks anything, so the runtime's `stop_gradient` (which
    /// takes tensors) does not apply; the macro recognises any function of that name, and
    /// an identity on numbers gives the same semantics.
    fn stop_gradient(x: f64) -> f64 {
        x
    }

    #[differentiable]
    fn half_stopped(x: f64, y: f64) -> f64 {
        x * stop_gradient(x * y) + y.sin()
    }

    #[test]
    fn stop_gradient_on_plain_numbers() {
        // ∂/∂x = sg(x y) = 1, ∂/∂y = cos y
        let (value, [dx, dy]) = half_stopped::grad(0.5, 2.0);
        assert_eq!(value, half_stopped(0.5, 2.0));
        assert_eq!(value, 0.5 + 2.0_f64.sin());
        assert_eq!((dx, dy), (1.0, 2.0_f64.cos()));
    }
}

#[differentiable]
fn times_stopped_self(x: f64) -> f64 {
    x * gradtape::stop_gradient(x)
}

/// In a plain-float function `stop_gradient` takes the number itself; the call's result is
/// a constant for the generated adjoint, as for tensors.
#[test]
fn stop_gradient_on_plain_floats_in_scalar_mode() {
    let (value, [dx]) = times_stopped_self::grad(3.0);
    // d/dx (x · c) = c = 3 with c = x held constant, not 2x = 6
    assert_eq!((value, dx), (9.0, 3.0));
    assert_eq!(times_stopped_self(3.0), value);
}

// ----- a block that shadows a name keeps the binding inside it (Rust's scoping) -----

mod shadowing_in_blocks {
    use gradtape::{GradientTape, Tensor, differentiable};

    /// `let y = { let x = x.exp(); x * 3 }; y - x`: after the block `x` is the parameter.
    #[differentiable]
    fn block_value(x: &Tensor<f64>) -> Tensor<f64> {
        let y = {
            let x = x.exp();
            x * 3.0
        };
        y - x
    }

    /// The same with the block as a statement assigning an outer binding.
    #[differentiable]
    fn block_statement(x: &Tensor<f64>) -> Tensor<f64> {
        let mut y = x * 1.0;
        {
            let x = x.sin();
            y = y + x;
        }
        y * x
    }

    /// Shadowing inside both branches of an `if`, a `for` body and a `match` arm.
    #[differentiable]
    fn branches_loops_and_arms(x: &Tensor<f64>, k: usize) -> Tensor<f64> {
        let a = if k > 0 {
            let x = x.tanh();
            x * 2.0
        } else {
            let x = x.cos();
            x + 1.0
        };
        let mut acc = a * x;
        for _ in 0..k {
            let x = acc.sin();
            acc = acc + x;
        }
        let b = match k {
            0 => {
                let x = x.square();
                x
            }
            _ => {
                let x = x.exp();
                x * 0.5
            }
        };
        acc + b * x
    }

    /// A block in a block, each shadowing.
    #[differentiable]
    fn nested_blocks(x: &Tensor<f64>) -> Tensor<f64> {
        let y = {
            let x = x * 2.0;
            let z = {
                let x = x.exp();
                x + 1.0
            };
            z * x
        };
        y + x
    }

    /// Found by `gradtape-fuzz` (seed 2): the branches of a `let x = if ..` read the `x` it
    /// shadows, which Rust puts in scope only after the `let`.
    #[differentiable]
    fn branches_read_the_name_their_let_shadows(x: &Tensor<f64>) -> Tensor<f64> {
        let x = if x.sum().to_scalar() > 0.0 {
            x.tanh()
        } else {
            x * 2.0
        };
        let x = {
            let t = x.exp();
            t + &x
        };
        x * 3.0
    }

    #[differentiable]
    fn block_on_numbers(x: f64) -> f64 {
        let y = {
            let x = x.exp();
            x * 3.0
        };
        y - x
    }

    fn t(values: &[f64]) -> Tensor<f64> {
        Tensor::from_vec(values.to_vec(), &[values.len()])
    }

    fn tape_gradient(f: impl Fn(&Tensor<f64>) -> Tensor<f64>, x: &Tensor<f64>) -> Vec<f64> {
        let tape = GradientTape::new();
        tape.watch(x);
        let y = tape.record(|| f(x).sum());
        tape.gradient(&y, x).unwrap().unwrap().to_vec()
    }

    fn assert_close(what: &str, a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len(), "{what}: lengths");
        for (p, q) in a.iter().zip(b) {
            assert!(
                (p - q).abs() <= 1e-12 * (1.0 + q.abs()),
                "{what}: {a:?} vs {b:?}"
            );
        }
    }

    /// Value and gradient of `f` against the expected ones, on tensors and on a 0-d input
    /// (the plain-number path), with and without a tape.
    fn check(
        name: &str,
        f: impl Fn(&Tensor<f64>) -> Tensor<f64>,
        value: impl Fn(f64) -> f64,
        derivative: impl Fn(f64) -> f64,
    ) {
        for x in [t(&[0.3, -0.7, 1.1]), Tensor::scalar(0.4)] {
            let xs = x.to_vec();
            let expected: Vec<f64> = xs.iter().map(|&v| value(v)).collect();
            let slope: Vec<f64> = xs.iter().map(|&v| derivative(v)).collect();
            assert_close(&format!("{name} value"), &f(&x).to_vec(), &expected);
            let tape = GradientTape::new();
            tape.watch(&x);
            let recorded = tape.record(|| f(&x));
            assert_close(
                &format!("{name} value on a tape"),
                &recorded.to_vec(),
                &expected,
            );
            assert_close(&format!("{name} gradient"), &tape_gradient(&f, &x), &slope);
        }
    }

    #[test]
    fn a_block_that_shadows_a_name_does_not_leak_it() {
        // y - x = 3eˣ - x; d/dx = 3eˣ - 1
        check(
            "block_value",
            block_value,
            |x| 3.0 * x.exp() - x,
            |x| 3.0 * x.exp() - 1.0,
        );
        // (x + sin x) x; d/dx = x + sin x + x (1 + cos x)
        check(
            "block_statement",
            block_statement,
            |x| (x + x.sin()) * x,
            |x| x + x.sin() + x * (1.0 + x.cos()),
        );
        // (2x + e^{2x}... ): y = (e^{2x} + 1)·2x, y + x; d/dx = 2e^{2x}·2x + 2(e^{2x} + 1) + 1
        check(
            "nested_blocks",
            nested_blocks,
            |x| ((2.0 * x).exp() + 1.0) * 2.0 * x + x,
            |x| 4.0 * x * (2.0 * x).exp() + 2.0 * ((2.0 * x).exp() + 1.0) + 1.0,
        );
    }

    #[test]
    fn shadowing_in_branches_loop_bodies_and_match_arms_does_not_leak() {
        for k in [0, 2] {
            let f = |x: &Tensor<f64>| branches_loops_and_arms(x, k);
            let plain = |x: &Tensor<f64>| branches_loops_and_arms::primal(x, k);
            let x = t(&[0.3, -0.7, 1.1]);
            assert_close("value", &f(&x).to_vec(), &plain(&x).to_vec());
            assert_close("gradient", &tape_gradient(f, &x), &tape_gradient(plain, &x));
        }
    }

    #[test]
    fn a_let_whose_branches_read_the_name_it_shadows() {
        // x > 0 here: 3 (e^{tanh x} + tanh x); d/dx = 3 (e^{tanh x} + 1)(1 - tanh² x)
        let th = |x: f64| x.tanh();
        check(
            "branches_read_the_name_their_let_shadows",
            branches_read_the_name_their_let_shadows,
            |x| 3.0 * (th(x).exp() + th(x)),
            |x| 3.0 * (th(x).exp() + 1.0) * (1.0 - th(x) * th(x)),
        );
    }

    #[test]
    fn a_block_that_shadows_a_name_does_not_leak_it_on_plain_numbers() {
        // 3eˣ - x; d/dx = 3eˣ - 1
        let (value, [dx]) = block_on_numbers::grad(0.4);
        assert_eq!(value, block_on_numbers(0.4));
        assert!((value - (3.0 * 0.4_f64.exp() - 0.4)).abs() < 1e-12);
        assert!((dx - (3.0 * 0.4_f64.exp() - 1.0)).abs() < 1e-12);
    }
}

// ----- differentiable values reached through parameters of other types -----

/// Tensors and variables read through a parameter that is no tensor or variable (a struct,
/// a slice, a `Vec`, a nested model) are no input of a fused node: such a function runs op
/// by op on the caller's tapes, so every gradient is the op-by-op tape's, never `None`.
mod values_reached_through_other_parameters {
    use gradtape::{GradientTape, Tensor, Variable, differentiable};

    #[derive(Clone)]
    pub(super) struct Affine {
        pub(super) a: Variable<f64>,
        pub(super) b: Variable<f64>,
    }

    #[differentiable]
    pub(super) fn affine(p: &Affine, x: &Tensor<f64>) -> Tensor<f64> {
        x * &p.a.value() + &p.b.value()
    }

    #[differentiable]
    fn weighted(ws: &[Tensor<f64>], x: &Tensor<f64>) -> Tensor<f64> {
        (x * &ws[0]).tanh() + x.exp() * &ws[1]
    }

    #[differentiable]
    fn through_vec(ws: &Vec<Variable<f64>>, x: &Tensor<f64>) -> Tensor<f64> {
        let h = (x * &ws[0].value()).sin();
        h * &ws[1].value()
    }

    #[derive(Clone)]
    struct Layer {
        w: Variable<f64>,
        b: Variable<f64>,
    }

    #[derive(Clone)]
    struct Mlp {
        first: Layer,
        second: Layer,
    }

    #[differentiable]
    fn mlp(m: &Mlp, x: &Tensor<f64>) -> Tensor<f64> {
        let h = (x.matmul(&m.first.w.value()) + &m.first.b.value()).tanh();
        h.matmul(&m.second.w.value()) + &m.second.b.value()
    }

    /// No tensor parameter at all: the model alone.
    #[differentiable]
    fn mlp_at_a_fixed_point(m: &Mlp) -> Tensor<f64> {
        let x = Tensor::from_vec([0.5, -1.0].to_vec(), &[1, 2]);
        mlp(m, &x)
    }

    fn t(values: &[f64], shape: &[usize]) -> Tensor<f64> {
        Tensor::from_vec(values.to_vec(), shape)
    }

    fn assert_close(what: &str, a: &Tensor<f64>, b: &Tensor<f64>) {
        assert_eq!(a.shape(), b.shape(), "{what}: shapes");
        for (p, q) in a.to_vec().iter().zip(b.to_vec()) {
            assert!(
                (p - q).abs() <= 1e-12 * (1.0 + q.abs()),
                "{what}: {a} vs {b}"
            );
        }
    }

    /// The gradients of `Σ f` w.r.t. `variables` and `tensors` (all watched), and the
    /// Hessian-vector products along ones, from `f` and from the op-by-op `plain`: equal,
    /// and none `None`.
    fn check_against_the_op_by_op_tape(
        name: &str,
        f: &dyn Fn() -> Tensor<f64>,
        plain: &dyn Fn() -> Tensor<f64>,
        variables: &[&Variable<f64>],
        tensors: &[&Tensor<f64>],
    ) {
        let gradients = |g: &dyn Fn() -> Tensor<f64>| {
            let outer = GradientTape::new();
            for x in tensors {
                outer.watch(*x);
            }
            let (first, along_ones) = outer.record(|| {
                let tape = GradientTape::new();
                for x in tensors {
                    tape.watch(*x);
                }
                let y = tape.record(|| g().sum());
                let dv = tape.gradient(&y, variables.to_vec()).unwrap();
                let dt = tape.gradient(&y, tensors.to_vec());
                let dt = dt.unwrap_or_default();
                let first: Vec<Tensor<f64>> = dv
                    .into_iter()
                    .chain(dt)
                    .map(|d| d.unwrap_or_else(|| panic!("{name}: a gradient is None")))
                    .collect();
                let along_ones = first
                    .iter()
                    .fold(Tensor::scalar(0.0), |acc, d| acc + d.sum());
                (first, along_ones)
            });
            let second = outer.gradient(&along_ones, variables.to_vec()).unwrap();
            (first, second)
        };
        let (value, expected) = (f(), plain());
        assert_close(&format!("{name} value"), &value, &expected);
        let (first, second) = gradients(f);
        let (first_plain, second_plain) = gradients(plain);
        for (k, (d, e)) in first.iter().zip(&first_plain).enumerate() {
            assert_close(&format!("{name} gradient {k}"), d, e);
        }
        for (k, (d, e)) in second.iter().zip(&second_plain).enumerate() {
            match (d, e) {
                (Some(d), Some(e)) => assert_close(&format!("{name} second order {k}"), d, e),
                (None, None) => {}
                _ => panic!("{name} second order {k}: {d:?} vs {e:?}"),
            }
        }
    }

    #[test]
    fn variables_inside_a_struct_parameter_get_gradients() {
        let p = Affine {
            a: Variable::new(t(&[2.0, -1.0], &[2])),
            b: Variable::new(t(&[0.5, 0.25], &[2])),
        };
        let x = t(&[0.3, 0.7], &[2]);
        let tape = GradientTape::new();
        tape.watch(&x);
        let y = tape.record(|| affine(&p, &x).sum());
        let [da, db] = tape.gradient(&y, [&p.a, &p.b]).unwrap();
        // ∂/∂a Σ(x a + b) = x, ∂/∂b = 1
        assert_close("d/da", &da.expect("d/da"), &x);
        assert_close("d/db", &db.expect("d/db"), &t(&[1.0, 1.0], &[2]));
        check_against_the_op_by_op_tape(
            "affine",
            &|| affine(&p, &x),
            &|| affine::primal(&p, &x),
            &[&p.a, &p.b],
            &[&x],
        );
    }

    #[test]
    fn tensors_in_a_slice_parameter_get_gradients() {
        let ws = [t(&[0.4, -0.3], &[2]), t(&[1.5, 0.2], &[2])];
        let x = t(&[0.3, -0.7], &[2]);
        let tape = GradientTape::new();
        tape.watch(&ws[0]);
        tape.watch(&ws[1]);
        let y = tape.record(|| weighted(&ws, &x).sum());
        let [d0, d1] = tape.gradient(&y, [&ws[0], &ws[1]]).unwrap();
        // ∂/∂w1 Σ(tanh(x w0) + eˣ w1) = eˣ
        assert_close("d/dw1", &d1.expect("d/dw1"), &x.exp());
        assert!(d0.is_some(), "d/dw0 is None");
        let watched = |f: &dyn Fn() -> Tensor<f64>| {
            let tape = GradientTape::new();
            tape.watch(&ws[0]);
            tape.watch(&x);
            let y = tape.record(|| f().sum());
            tape.gradient(&y, [&ws[0], &x]).unwrap()
        };
        let (fused, plain) = (
            watched(&|| weighted(&ws, &x)),
            watched(&|| weighted::primal(&ws, &x)),
        );
        for (d, e) in fused.iter().zip(&plain) {
            assert_close("weighted", d.as_ref().unwrap(), e.as_ref().unwrap());
        }
    }

    #[test]
    fn variables_in_a_vec_parameter_get_gradients() {
        let ws = vec![
            Variable::new(t(&[0.4, -0.3], &[2])),
            Variable::new(t(&[1.5, 0.2], &[2])),
        ];
        let x = t(&[0.3, -0.7], &[2]);
        check_against_the_op_by_op_tape(
            "through_vec",
            &|| through_vec(&ws, &x),
            &|| through_vec::primal(&ws, &x),
            &[&ws[0], &ws[1]],
            &[&x],
        );
    }

    #[test]
    fn a_second_layer_of_a_nested_model_gets_gradients_with_constant_data() {
        let m = Mlp {
            first: Layer {
                w: Variable::new(t(&[0.3, -0.2, 0.5, 0.1, 0.4, -0.6], &[2, 3])),
                b: Variable::new(t(&[0.1, 0.0, -0.1], &[3])),
            },
            second: Layer {
                w: Variable::new(t(&[0.7, -0.5, 0.2], &[3, 1])),
                b: Variable::new(t(&[0.05], &[1])),
            },
        };
        // constant data: nothing watched but the model's variables
        let x = t(&[0.5, -1.0, 1.5, 0.25], &[2, 2]);
        let variables = [&m.first.w, &m.first.b, &m.second.w, &m.second.b];
        let tape = GradientTape::new();
        let y = tape.record(|| mlp(&m, &x).sum());
        let grads = tape.gradient(&y, variables.to_vec()).unwrap();
        assert!(
            grads.iter().all(Option::is_some),
            "a layer's gradient is None"
        );
        check_against_the_op_by_op_tape(
            "mlp",
            &|| mlp(&m, &x),
            &|| mlp::primal(&m, &x),
            &variables,
            &[],
        );
        check_against_the_op_by_op_tape(
            "mlp_at_a_fixed_point",
            &|| mlp_at_a_fixed_point(&m),
            &|| mlp_at_a_fixed_point::primal(&m),
            &variables,
            &[],
        );
    }

    /// `f::vjp` differentiates with respect to the tensor and variable parameters; what is
    /// read through the others is held constant (a partial derivative), and their entry of
    /// the pullback's result is `()`.
    #[test]
    fn the_pullback_holds_values_reached_through_other_parameters_constant() {
        let p = Affine {
            a: Variable::new(t(&[2.0, -1.0], &[2])),
            b: Variable::new(t(&[0.5, 0.25], &[2])),
        };
        let x = t(&[0.3, 0.7], &[2]);
        let (value, pullback) = affine::vjp(&p, &x);
        assert_close("value", &value, &affine::primal(&p, &x));
        let ((), dx) = pullback(t(&[1.0, 1.0], &[2]));
        // ∂/∂x (x a + b) = a
        assert_close("d/dx", &dx.expect("d/dx"), &p.a.value());
    }
}

/// The attribute's documented example: op by op through a struct, fused with the
/// variables as parameters; the same gradients.
mod documented_example_of_values_reached_through_a_struct {
    use gradtape::{GradientTape, Tensor, Variable, differentiable};

    use super::values_reached_through_other_parameters::{Affine, affine};

    #[differentiable]
    fn affine_fused(a: &Variable<f64>, b: &Variable<f64>, x: &Tensor<f64>) -> Tensor<f64> {
        x * a + b
    }

    #[test]
    fn op_by_op_through_a_struct_and_fused_with_variable_parameters_agree() {
        let p = Affine {
            a: Variable::new(2.0),
            b: Variable::new(0.5),
        };
        let x = Tensor::scalar(3.0);
        let tape = GradientTape::persistent();
        let y = tape.record(|| affine(&p, &x) + affine_fused(&p.a, &p.b, &x));
        assert_eq!(
            tape.recorded_ops()
                .iter()
                .filter(|op| **op == "affine_fused")
                .count(),
            1
        );
        let [da, db] = tape.gradient(&y, [&p.a, &p.b]).unwrap();
        // d/da 2(x a + b) = 2x = 6, d/db = 2
        assert_eq!(
            (da.unwrap().to_scalar(), db.unwrap().to_scalar()),
            (6.0, 2.0)
        );
    }
}

/// Regression: a parameter array that grew gave a gradient longer than the parameter
/// (`grad`) or panicked (`grad_into`); growing it is now the macro's error
/// (`tests/ui/differentiable/parameter-array-grows.rs`), and a local copy grows instead.
#[differentiable]
fn grown_copy(v: &[f64]) -> f64 {
    let mut w = v.to_vec();
    let x = w[0] * 2.0;
    w.push(x);
    w[2] * w[1] + w[0]
}

/// A `Vec` parameter cloned, the copy written and read back; the parameter itself read
/// after (its gradient gets both paths).
#[differentiable]
fn cloned_and_scaled(v: Vec<f64>, s: f64) -> f64 {
    let mut w = v.clone();
    for wi in w.iter_mut() {
        *wi *= s;
    }
    w.iter().sum::<f64>() * v[0]
}

#[test]
fn a_local_copy_of_a_parameter_array_grows() {
    // 2 v0 v1 + v0: ∂/∂v0 = 2 v1 + 1, ∂/∂v1 = 2 v0
    assert_eq!(grown_copy(&[1.0, 3.0]), 7.0);
    assert_eq!(grown_copy::grad(&[1.0, 3.0]), (7.0, [vec![7.0, 2.0]]));
    let mut d = vec![0.0; 2];
    assert_eq!(grown_copy::grad_into(&[1.0, 3.0], &mut d), 7.0);
    assert_eq!(d, vec![7.0, 2.0]);
    // s (v0 + v1 + v2) v0: ∂/∂v0 = s (2 v0 + v1 + v2), ∂/∂v1 = ∂/∂v2 = s v0, ∂/∂s = Σv v0
    assert_eq!(cloned_and_scaled(vec![1.0, 2.0, 3.0], 0.5), 3.0);
    let (value, (dv, ds)) = cloned_and_scaled::grad(vec![1.0, 2.0, 3.0], 0.5);
    assert_eq!(value, 3.0);
    assert_eq!(dv, vec![3.5, 0.5, 0.5]);
    assert_eq!(ds, 6.0);
}
