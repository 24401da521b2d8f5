//! Every GradientTape example in the seed documents (`/work/shared/seeds/`, the TensorFlow
//! guides gradtape reproduces), with the values they print. Each test names its seed file;
//! where a seed's printed value is wrong for its own program, the test says so and asserts
//! the value TensorFlow actually prints.

use std::collections::HashMap;

use gradtape::{GradientTape, Tensor, Variable};

/// Elementwise closeness with a mixed absolute/relative tolerance.
fn assert_close(actual: &[f32], expected: &[f32], tol: f32) {
    assert_eq!(actual.len(), expected.len(), "{actual:?} vs {expected:?}");
    for (a, e) in actual.iter().zip(expected) {
        assert!(
            (a - e).abs() <= tol * (1.0 + e.abs()),
            "{actual:?} is not within {tol} of {expected:?}"
        );
    }
}

/// Seeds 000 and 001 (Géron's example): `z = 3 w1² + 2 w1 w2` at `(5, 3)`.
#[test]
fn seed_000_001_geron_two_variables() {
    let (w1, w2) = (Variable::new(5.0_f32), Variable::new(3.0_f32));
    let tape = GradientTape::new();
    let z = tape.record(|| 3.0 * w1.powi(2) + 2.0 * &w1 * &w2);
    let [dz_dw1, dz_dw2] = tape.gradient(&z, [&w1, &w2]).unwrap();
    // ∂z/∂w1 = 6 w1 + 2 w2 = 36; ∂z/∂w2 = 2 w1 = 10
    assert_eq!(dz_dw1.unwrap().to_scalar(), 36.0);
    assert_eq!(dz_dw2.unwrap().to_scalar(), 10.0);
}

/// Seed 002, example 1 (linear regression). The seed prints 19.0 and 4.0, but its data lie
/// exactly on its model: w x + b - y = 2x + 1 - (2x + 1) = 0 for every x, so the loss is 0,
/// its gradient is ∂/∂w = mean(2 r x) = 0 and ∂/∂b = mean(2 r) = 0, and TensorFlow prints
/// 0.0 and 0.0 for that program. The printed values in the seed are wrong; we assert the
/// true ones.
#[test]
fn seed_002_linear_regression_exact_fit_has_zero_gradient() {
    let (w, b) = (Variable::new(2.0_f32), Variable::new(1.0_f32));
    let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[4]);
    let y = Tensor::from_vec(vec![3.0_f32, 5.0, 7.0, 9.0], &[4]);
    let tape = GradientTape::new();
    let loss = tape.record(|| {
        let y_hat = &w * &x + &b;
        (y_hat - &y).square().mean()
    });
    assert_eq!(loss.to_scalar(), 0.0);
    let [dw, db] = tape.gradient(&loss, [&w, &b]).unwrap();
    assert_eq!(dw.unwrap().to_scalar(), 0.0);
    assert_eq!(db.unwrap().to_scalar(), 0.0);
}

/// Seed 002, example 1 perturbed so that the gradient is not trivially zero: w = 3.
#[test]
fn seed_002_linear_regression_perturbed() {
    let (w, b) = (Variable::new(3.0_f32), Variable::new(1.0_f32));
    let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[4]);
    let y = Tensor::from_vec(vec![3.0_f32, 5.0, 7.0, 9.0], &[4]);
    let tape = GradientTape::new();
    let loss = tape.record(|| (&w * &x + &b - &y).square().mean());
    let [dw, db] = tape.gradient(&loss, [&w, &b]).unwrap();
    // residual r = 3x + 1 - (2x + 1) = x, so ∂/∂w = mean(2 r x) = mean(2x²) = 2·30/4 = 15
    // and ∂/∂b = mean(2 r) = mean(2x) = 2·10/4 = 5
    assert_eq!(dw.unwrap().to_scalar(), 15.0);
    assert_eq!(db.unwrap().to_scalar(), 5.0);
}

/// Seed 002, example 2: `y = x²`, `z = y + x` at x = 2.
#[test]
fn seed_002_intermediate_operation() {
    let x = Variable::new(2.0_f32);
    let tape = GradientTape::new();
    let z = tape.record(|| {
        let y = x.powi(2);
        y + &x
    });
    // dz/dx = 2x + 1 = 5
    assert_eq!(tape.gradient(&z, &x).unwrap().unwrap().to_scalar(), 5.0);
}

/// Seed 002, example 3: a watched constant, `y = x²` at x = 2.
#[test]
fn seed_002_watched_constant() {
    let x = Tensor::scalar(2.0_f32);
    let tape = GradientTape::new();
    let y = tape.record(|| {
        tape.watch(&x);
        x.powi(2)
    });
    // dy/dx = 2x = 4
    assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_scalar(), 4.0);
}

/// Seed 002, example 3, without the `watch`: the seed's text says the gradient is then None.
#[test]
fn seed_002_unwatched_constant_is_none() {
    let x = Tensor::scalar(2.0_f32);
    let tape = GradientTape::new();
    let y = tape.record(|| x.powi(2));
    assert!(tape.gradient(&y, &x).unwrap().is_none());
}

/// Seed 004, "Gradient tapes": `y = x @ w + b`, `loss = mean(y²)`, on a persistent tape.
#[test]
fn seed_004_matmul_gradient_shapes_and_values() {
    let w = Variable::with_name("w", Tensor::<f32>::random_normal(&[3, 2], 0.0, 1.0, 4));
    let b = Variable::with_name("b", Tensor::<f32>::zeros(&[2]));
    let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0], &[1, 3]);
    let tape = GradientTape::persistent();
    let loss = tape.record(|| {
        let y = x.matmul(&w.value()) + &b;
        y.powi(2).mean()
    });
    let [dl_dw, dl_db] = tape.gradient(&loss, [&w, &b]).unwrap();
    let (dl_dw, dl_db) = (dl_dw.unwrap(), dl_db.unwrap());
    assert_eq!(w.shape(), vec![3, 2]);
    assert_eq!(dl_dw.shape(), &[3, 2]);
    assert_eq!(dl_db.shape(), &[2]);

    // loss = (y₀² + y₁²)/2 with y_j = Σ_i x_i w_ij + b_j, so ∂loss/∂y_j = y_j,
    // ∂loss/∂w_ij = x_i y_j and ∂loss/∂b_j = y_j.
    let wv = w.value().to_vec();
    let xv = [1.0_f32, 2.0, 3.0];
    let y: Vec<f32> = (0..2)
        .map(|j| (0..3).map(|i| xv[i] * wv[i * 2 + j]).sum::<f32>())
        .collect();
    let expected_w: Vec<f32> = (0..3)
        .flat_map(|i| (0..2).map(move |j| (i, j)))
        .map(|(i, j)| xv[i] * y[j])
        .collect();
    assert_close(&dl_dw.to_vec(), &expected_w, 1e-5);
    assert_close(&dl_db.to_vec(), &y, 1e-5);

    // Persistent: the same tape answers again, identically.
    let again = tape.gradient(&loss, &w).unwrap().unwrap();
    assert_eq!(again.to_vec(), dl_dw.to_vec());
}

/// A `Dense(units, activation='relu')` layer as in Keras: Glorot-uniform kernel, zero bias.
struct Dense {
    kernel: Variable<f32>,
    bias: Variable<f32>,
}

impl Dense {
    fn new(inputs: usize, units: usize, seed: u64) -> Dense {
        let limit = (6.0 / (inputs + units) as f32).sqrt();
        Dense {
            kernel: Variable::with_name(
                "dense/kernel",
                Tensor::random_uniform(&[inputs, units], -limit, limit, seed),
            ),
            bias: Variable::with_name("dense/bias", Tensor::zeros(&[units])),
        }
    }

    fn call(&self, x: &Tensor<f32>) -> Tensor<f32> {
        (x.matmul(&self.kernel.value()) + &self.bias).relu()
    }

    fn trainable_variables(&self) -> Vec<&Variable<f32>> {
        vec![&self.kernel, &self.bias]
    }
}

/// Seed 004, "Gradients w.r.t. a model": a Dense layer with ReLU, `loss = mean(y²)`.
#[test]
fn seed_004_dense_layer_gradients() {
    // Checked over several initialisations so that both sides of the ReLU are exercised.
    let mut gates_seen = [false, false];
    for seed in 0..8 {
        let layer = Dense::new(3, 2, seed);
        let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0], &[1, 3]);
        let tape = GradientTape::new();
        let loss = tape.record(|| layer.call(&x).powi(2).mean());
        let grads = tape.gradient(&loss, layer.trainable_variables()).unwrap();
        let names: Vec<&str> = layer
            .trainable_variables()
            .iter()
            .map(|v| v.name())
            .collect();
        assert_eq!(names, ["dense/kernel", "dense/bias"]);
        let dk = grads[0].clone().unwrap();
        let db = grads[1].clone().unwrap();
        assert_eq!(dk.shape(), &[3, 2]);
        assert_eq!(db.shape(), &[2]);

        // pre_j = Σ_i x_i k_ij (bias 0), y_j = relu(pre_j), loss = (y₀² + y₁²)/2:
        // ∂loss/∂pre_j = y_j [pre_j > 0] = y_j (y_j is 0 where the gate is closed),
        // ∂loss/∂k_ij = x_i ∂loss/∂pre_j, ∂loss/∂b_j = ∂loss/∂pre_j.
        let k = layer.kernel.value().to_vec();
        let xv = [1.0_f32, 2.0, 3.0];
        let pre: Vec<f32> = (0..2)
            .map(|j| (0..3).map(|i| xv[i] * k[i * 2 + j]).sum::<f32>())
            .collect();
        let dpre: Vec<f32> = pre.iter().map(|&p| if p > 0.0 { p } else { 0.0 }).collect();
        for &p in &pre {
            gates_seen[usize::from(p > 0.0)] = true;
        }
        let expected_k: Vec<f32> = (0..3)
            .flat_map(|i| (0..2).map(move |j| (i, j)))
            .map(|(i, j)| xv[i] * dpre[j])
            .collect();
        assert_close(&dk.to_vec(), &expected_k, 1e-5);
        assert_close(&db.to_vec(), &dpre, 1e-5);
    }
    assert_eq!(gates_seen, [true, true], "both ReLU gates should occur");
}

/// Seed 004, "Controlling what the tape watches": a watched constant, `y = x²` at x = 3.
#[test]
fn seed_004_watched_constant() {
    let x = Tensor::scalar(3.0_f32);
    let tape = GradientTape::new();
    let y = tape.record(|| {
        tape.watch(&x);
        x.powi(2)
    });
    // dy = 2x dx = 6
    assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_scalar(), 6.0);
}

/// Seed 004: the watched-variables demo. Only the trainable variable `x0` is watched; a
/// non-trainable variable, a tensor computed from a variable, and a constant give `None`.
#[test]
fn seed_004_watched_variables_demo() {
    let x0 = Variable::with_name("x0", 3.0_f32);
    let x1 = Variable::with_name("x1", 3.0_f32).trainable(false);
    // Not a Variable: a variable plus a tensor is a tensor.
    let x2: Tensor<f32> = Variable::with_name("x2", 2.0_f32) + 1.0;
    let x3 = Tensor::scalar(3.0_f32);

    let tape = GradientTape::new();
    let y = tape.record(|| x0.powi(2) + x1.powi(2) + x2.powi(2));
    let (g0, g1, g2, g3) = tape.gradient(&y, (&x0, &x1, &x2, &x3)).unwrap();
    assert_eq!(g0.unwrap().to_string(), "Tensor(6.0, shape=[], dtype=f32)");
    assert!(g1.is_none());
    assert!(g2.is_none());
    assert!(g3.is_none());
    let names: Vec<String> = tape
        .watched_variables()
        .iter()
        .map(|v| v.name().to_string())
        .collect();
    assert_eq!(names, ["x0"]);
}

/// Seed 004: `watch_accessed_variables=False`, only `x1` watched, sources given as a map.
#[test]
fn seed_004_watch_accessed_variables_false() {
    let x0 = Variable::new(0.0_f32);
    let x1 = Variable::new(10.0_f32);
    let tape = GradientTape::builder()
        .watch_accessed_variables(false)
        .build();
    let ys = tape.record(|| {
        tape.watch(&x1);
        let y0 = x0.sin();
        let y1 = x1.softplus();
        (y0 + y1).sum()
    });
    let grad = tape
        .gradient(&ys, HashMap::from([("x0", &x0), ("x1", &x1)]))
        .unwrap();
    assert!(grad["x0"].is_none());
    // d softplus(x)/dx = σ(x); σ(10) = 1/(1 + e⁻¹⁰) = 0.9999546 (f32)
    let g1 = grad["x1"].as_ref().unwrap().to_scalar();
    assert!((g1 - 0.9999546).abs() < 1e-6, "{g1}");
}

/// Seed 004, "Intermediate results": gradient with respect to an intermediate value.
#[test]
fn seed_004_gradient_wrt_intermediate() {
    let x = Tensor::scalar(3.0_f32);
    let tape = GradientTape::new();
    let (y, z) = tape.record(|| {
        tape.watch(&x);
        let y = &x * &x;
        let z = &y * &y;
        (y, z)
    });
    // dz/dy = 2y, where y = x² = 9
    assert_eq!(tape.gradient(&z, &y).unwrap().unwrap().to_scalar(), 18.0);
}

/// Seed 004: a persistent tape over `x = [1, 3]` answers two gradients.
#[test]
fn seed_004_persistent_tape() {
    let x = Tensor::from_vec(vec![1.0_f32, 3.0], &[2]);
    let tape = GradientTape::persistent();
    let (y, z) = tape.record(|| {
        tape.watch(&x);
        let y = &x * &x;
        let z = &y * &y;
        (y, z)
    });
    // z = x⁴: dz/dx = 4x³ = [4, 108]; y = x²: dy/dx = 2x = [2, 6]
    assert_eq!(
        tape.gradient(&z, &x).unwrap().unwrap().to_vec(),
        [4.0, 108.0]
    );
    assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_vec(), [2.0, 6.0]);
}

/// Seed 004, "Getting a gradient of None": a target not connected to the source.
#[test]
fn seed_004_none_unconnected_variable() {
    let x = Variable::new(2.0_f32);
    let y = Variable::new(3.0_f32);
    let tape = GradientTape::new();
    let z = tape.record(|| &y * &y);
    assert!(tape.gradient(&z, &x).unwrap().is_none());
}

/// Seed 004, pitfall 1: a variable replaced by a tensor. In Rust `x = &x + 1.0` does not
/// compile (see `tests/ui/tape/variable-replaced-by-tensor.rs`); the closest program keeps
/// the tensor under a new name, and that tensor, computed outside the tape, is a constant.
#[test]
fn seed_004_none_variable_replaced_by_tensor() {
    let x = Variable::new(2.0_f32);
    let tape = GradientTape::new();
    let y = tape.record(|| &x + 1.0);
    // first epoch: a Variable, dy/dx = 1
    assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_scalar(), 1.0);

    let x_tensor: Tensor<f32> = &x + 1.0;
    let tape = GradientTape::new();
    let y = tape.record(|| &x_tensor + 1.0);
    // second epoch: neither the tensor (nobody watched it) nor the variable it came from
    // (that read happened outside any tape) is connected
    let (g_tensor, g_variable) = tape.gradient(&y, (&x_tensor, &x)).unwrap();
    assert!(g_tensor.is_none());
    assert!(g_variable.is_none());
}

/// Seed 004, pitfall 2: a calculation done outside the library (NumPy in the seed,
/// `to_vec` and a new tensor here) cuts the gradient path.
#[test]
fn seed_004_none_computation_outside_the_library() {
    let x = Variable::new(Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[2, 2]));
    let tape = GradientTape::new();
    let y = tape.record(|| {
        let x2 = x.powi(2);
        // the column mean, computed on plain Rust values
        let v = x2.to_vec();
        let outside = Tensor::from_vec(vec![(v[0] + v[2]) / 2.0, (v[1] + v[3]) / 2.0], &[2]);
        outside.mean()
    });
    assert_eq!(y.to_scalar(), 7.5);
    assert!(tape.gradient(&y, &x).unwrap().is_none());
}

/// Seed 004, pitfall 3: gradients through an integer. Asking for the gradient of an integer
/// variable is a compile error here (`tests/ui/tape/gradient-wrt-integer-variable.rs`); a
/// float variable whose only path to the target goes through an integer cast gets `None`.
#[test]
fn seed_004_none_through_integer_cast() {
    let x = Variable::new(Tensor::from_vec(vec![2.0_f32; 4], &[2, 2]));
    let tape = GradientTape::new();
    let y = tape.record(|| {
        let as_int: Tensor<i32> = x.value().cast::<i32>();
        as_int.cast::<f32>().sum()
    });
    assert_eq!(y.to_scalar(), 8.0);
    assert!(tape.gradient(&y, &x).unwrap().is_none());
}

/// Seed 003, "Higher-Order Derivatives" (nested tapes). The seed's text lost its code; the
/// program is the one SEMANTICS.md records from TensorFlow 2.21: x⁴ at x = 2, three times.
#[test]
fn seed_003_nested_tapes_higher_order() {
    let x = Variable::new(2.0_f32);
    let t3 = GradientTape::new();
    let d2 = t3.record(|| {
        let t2 = GradientTape::new();
        let d1 = t2.record(|| {
            let t1 = GradientTape::new();
            let y = t1.record(|| x.powi(4));
            t1.gradient(&y, &x).unwrap().unwrap()
        });
        assert_eq!(d1.to_scalar(), 32.0); // 4x³
        t2.gradient(&d1, &x).unwrap().unwrap()
    });
    assert_eq!(d2.to_scalar(), 48.0); // 12x²
    assert_eq!(t3.gradient(&d2, &x).unwrap().unwrap().to_scalar(), 48.0); // 24x
}
