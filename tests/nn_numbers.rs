//! The training toolkit's numbers against hand-computed values: layers, losses, metrics and
//! optimizers. Each expected value carries its derivation.

use approx::assert_abs_diff_eq;
use gradtape::nn::metrics::{accuracy, argmax_rows};
use gradtape::nn::{
    Activation, Adam, Dense, Layer, Optimizer, Sequential, Sgd, glorot_uniform, losses,
};
use gradtape::{GradientTape, Tensor, Variable};

mod common;

fn dense_3x2() -> Dense<f64> {
    let kernel = Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2]);
    Dense::from_values("d", kernel, Tensor::from_vec(vec![0.5, -1.0], &[2]))
}

#[test]
fn dense_forward_is_x_kernel_plus_bias_then_activation() {
    let x = Tensor::from_vec(vec![1.0, 0.0, -1.0, 2.0, 1.0, 0.0], &[2, 3]);
    // row 0: [1·1 - 5, 1·2 - 6] + [0.5, -1] = [-3.5, -5]; row 1: [2 + 3, 4 + 4] + b = [5.5, 7]
    assert_eq!(dense_3x2().call(&x).to_vec(), vec![-3.5, -5.0, 5.5, 7.0]);
    let relu = dense_3x2().with_activation(Activation::Relu);
    assert_eq!(relu.call(&x).to_vec(), vec![0.0, 0.0, 5.5, 7.0]);
    let tanh = dense_3x2().with_activation(Activation::Tanh);
    assert_abs_diff_eq!(
        tanh.call(&x).to_vec()[0],
        (-3.5_f64).tanh(),
        epsilon = 1e-15
    );
}

#[test]
fn dense_gradients_are_x_transpose_times_the_relu_mask() {
    let layer = dense_3x2().with_activation(Activation::Relu);
    let x = Tensor::from_vec(vec![1.0, 0.0, -1.0, 2.0, 1.0, 0.0], &[2, 3]);
    let tape = GradientTape::new();
    let y = tape.record(|| layer.call(&x).sum());
    let grads = tape.gradient(&y, &layer.trainable_variables()).unwrap();
    // Only row 1 is active: mask = [[0, 0], [1, 1]]; dK = xᵀ mask = [[2, 2], [1, 1], [0, 0]],
    // db = column sums of the mask = [1, 1].
    assert_eq!(
        grads[0].as_ref().unwrap().to_vec(),
        vec![2.0, 2.0, 1.0, 1.0, 0.0, 0.0]
    );
    assert_eq!(grads[1].as_ref().unwrap().to_vec(), vec![1.0, 1.0]);
}

#[test]
fn glorot_uniform_has_keras_limit_and_variance_and_is_seeded() {
    let (fan_in, fan_out) = (300, 100);
    let w = glorot_uniform::<f64>(fan_in, fan_out, 3);
    let limit = (6.0 / (fan_in + fan_out) as f64).sqrt();
    let values = w.to_vec();
    assert!(values.iter().all(|v| v.abs() <= limit));
    // uniform on [-l, l): mean 0, variance l²/3 = 2 / (fan_in + fan_out) = 0.005
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    assert_abs_diff_eq!(mean, 0.0, epsilon = 1e-3);
    assert_abs_diff_eq!(variance, 0.005, epsilon = 1e-4);
    assert_eq!(values, glorot_uniform::<f64>(fan_in, fan_out, 3).to_vec());
    assert_ne!(values, glorot_uniform::<f64>(fan_in, fan_out, 4).to_vec());
}

#[test]
fn sequential_composes_layers_and_lists_their_variables() {
    let first = Dense::<f64>::new("a", 3, 4, 1).with_activation(Activation::Sigmoid);
    let second = Dense::<f64>::new("b", 4, 2, 2);
    let x = Tensor::from_vec(vec![0.1, 0.2, 0.3], &[1, 3]);
    let by_hand = second.call(&first.call(&x)).to_vec();
    let model = Sequential::new().push(first).push(second);
    assert_eq!(model.call(&x).to_vec(), by_hand);
    let names: Vec<String> = model
        .trainable_variables()
        .iter()
        .map(|v| v.name().to_string())
        .collect();
    assert_eq!(names, ["a/kernel", "a/bias", "b/kernel", "b/bias"]);
}

#[test]
fn mean_squared_error_value_and_gradient() {
    let p = Tensor::from_vec(vec![1.0, 2.0, 4.0, 0.0], &[2, 2]);
    let y = Tensor::from_vec(vec![0.0, 2.0, 1.0, 1.0], &[2, 2]);
    let tape = GradientTape::new();
    tape.watch(&p);
    let loss = tape.record(|| losses::mean_squared_error(&p, &y));
    // (1 + 0 + 9 + 1) / 4
    assert_eq!(loss.to_scalar(), 2.75);
    // d/dp mean((p - y)²) = 2 (p - y) / 4
    let g = tape.gradient(&loss, &p).unwrap().unwrap();
    assert_eq!(g.to_vec(), vec![0.5, 0.0, 1.5, -0.5]);
}

/// A `[n, 1]` prediction against `[n]` targets is one value per example, as Keras reads it
/// (`squeeze_or_expand_to_same_rank`), not an `[n, n]` table of every pair.
#[test]
fn mse_rank_mismatch_is_not_broadcast() {
    let p = Tensor::from_vec(vec![1.0, 2.0, 4.0], &[3, 1]);
    let y = Tensor::from_vec(vec![1.0, 2.0, 3.0], &[3]);
    // equal values: no loss (broadcast to [3, 3] it was (0+1+9 + 1+0+4 + 9+4+1) / 9 ≠ 0)
    let same = Tensor::from_vec(vec![1.0, 2.0, 3.0], &[3, 1]);
    assert_eq!(losses::mean_squared_error(&same, &y).to_scalar(), 0.0);
    assert_eq!(losses::mean_squared_error(&y, &same).to_scalar(), 0.0);
    let tape = GradientTape::new();
    tape.watch(&p);
    let loss = tape.record(|| losses::mean_squared_error(&p, &y));
    // (0 + 0 + 1) / 3
    assert_abs_diff_eq!(loss.to_scalar(), 1.0 / 3.0, epsilon = 1e-15);
    // d/dp mean((p - y)²) = 2 (p - y) / 3, in p's own shape
    let g = tape.gradient(&loss, &p).unwrap().unwrap();
    assert_eq!(g.shape(), &[3, 1]);
    assert_eq!(g.to_vec(), vec![0.0, 0.0, 2.0 / 3.0]);
}

#[test]
fn mse_target_may_broadcast_to_the_prediction() {
    let p = Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0], &[2, 2]);
    // one target row for every example: ((1-1)² + (2-3)² + (3-1)² + (4-3)²) / 4
    let y = Tensor::from_vec(vec![1.0, 3.0], &[2]);
    assert_eq!(losses::mean_squared_error(&p, &y).to_scalar(), 1.5);
    // a scalar target: (0 + 1 + 4 + 9) / 4
    assert_eq!(
        losses::mean_squared_error(&p, &Tensor::scalar(1.0)).to_scalar(),
        3.5
    );
}

#[test]
#[should_panic(
    expected = "mean_squared_error: prediction of shape [3, 1] and target of shape [1, 3] do not match"
)]
fn mse_mutual_broadcast_panics_naming_both_shapes() {
    // each broadcasts against the other into [3, 3]: a loss over pairs, never meant
    let p = Tensor::<f32>::zeros(&[3, 1]);
    losses::mean_squared_error(&p, &Tensor::zeros(&[1, 3]));
}

#[test]
#[should_panic(
    expected = "mean_squared_error: prediction of shape [2, 3] and target of shape [3, 2] do not match"
)]
fn mse_incompatible_shapes_panic_naming_both_shapes() {
    losses::mean_squared_error(&Tensor::<f32>::zeros(&[2, 3]), &Tensor::zeros(&[3, 2]));
}

#[test]
#[should_panic(expected = "logits of shape [4] need [batch, classes]")]
fn cross_entropy_rejects_logits_that_are_not_a_batch() {
    losses::sparse_softmax_cross_entropy(&Tensor::<f32>::zeros(&[4]), &[0, 0, 0, 0]);
}

#[test]
fn cross_entropy_value_and_gradient_are_softmax_minus_one_hot() {
    let logits = Tensor::from_vec(vec![1.0, 2.0, 3.0, 0.0, 0.0, 0.0], &[2, 3]);
    let tape = GradientTape::new();
    tape.watch(&logits);
    let loss = tape.record(|| losses::sparse_softmax_cross_entropy(&logits, &[2, 0]));
    // row 0: -ln(e³ / (e + e² + e³)) = ln(1 + e⁻¹ + e⁻²); row 1: -ln(1/3) = ln 3
    let e = std::f64::consts::E;
    let row0 = (1.0 + 1.0 / e + 1.0 / (e * e)).ln();
    assert_abs_diff_eq!(loss.to_scalar(), (row0 + 3f64.ln()) / 2.0, epsilon = 1e-14);
    // ∂/∂logits of the mean = (softmax - one_hot(label)) / batch
    let z = e + e * e + e.powi(3);
    let expected = [
        e / z / 2.0,
        e * e / z / 2.0,
        (e.powi(3) / z - 1.0) / 2.0,
        (1.0 / 3.0 - 1.0) / 2.0,
        1.0 / 6.0,
        1.0 / 6.0,
    ];
    let g = tape.gradient(&loss, &logits).unwrap().unwrap().to_vec();
    for (got, want) in g.iter().zip(expected) {
        assert_abs_diff_eq!(*got, want, epsilon = 1e-14);
    }
}

#[test]
fn cross_entropy_is_stable_for_huge_logits() {
    let logits = Tensor::from_vec(vec![1000.0_f32, 0.0, -1000.0, 0.0], &[2, 2]);
    let tape = GradientTape::new();
    tape.watch(&logits);
    let loss = tape.record(|| losses::sparse_softmax_cross_entropy(&logits, &[0, 0]));
    // row 0: -ln(1 / (1 + e⁻¹⁰⁰⁰)) = 0; row 1: -ln(e⁻¹⁰⁰⁰ / (e⁻¹⁰⁰⁰ + 1)) = 1000; mean 500
    assert_abs_diff_eq!(loss.to_scalar(), 500.0, epsilon = 1e-3);
    // gradient row 1: (softmax - one_hot) / 2 = ([0, 1] - [1, 0]) / 2
    let g = tape.gradient(&loss, &logits).unwrap().unwrap().to_vec();
    assert_eq!(g, vec![0.0, 0.0, -0.5, 0.5]);
}

#[test]
fn cross_entropy_gradient_matches_finite_differences() {
    let values = vec![0.3, -1.2, 2.0, 0.7, 0.1, -0.4, 1.5, 1.4];
    let labels = [3, 0];
    let loss_at = |v: &[f64]| {
        losses::sparse_softmax_cross_entropy(&Tensor::from_vec(v.to_vec(), &[2, 4]), &labels)
            .to_scalar()
    };
    let logits = Tensor::from_vec(values.clone(), &[2, 4]);
    let tape = GradientTape::new();
    tape.watch(&logits);
    let loss = tape.record(|| losses::sparse_softmax_cross_entropy(&logits, &labels));
    let g = tape.gradient(&loss, &logits).unwrap().unwrap().to_vec();
    let h = 1e-6;
    for i in 0..values.len() {
        let (mut up, mut down) = (values.clone(), values.clone());
        up[i] += h;
        down[i] -= h;
        let central = (loss_at(&up) - loss_at(&down)) / (2.0 * h);
        assert_abs_diff_eq!(g[i], central, epsilon = 1e-8);
    }
}

#[test]
#[should_panic(expected = "label 3 is not a class index")]
fn cross_entropy_rejects_out_of_range_labels() {
    losses::sparse_softmax_cross_entropy(&Tensor::<f32>::zeros(&[1, 3]), &[3]);
}

#[test]
fn accuracy_counts_rows_whose_argmax_is_the_label() {
    let logits = Tensor::from_vec(vec![0.9_f32, 0.1, 0.2, 0.8, 0.5, 0.5, 0.3, 0.7], &[4, 2]);
    // argmax per row: 0, 1, 0 (tie: first), 1
    assert_eq!(argmax_rows(&logits), vec![0, 1, 0, 1]);
    assert_eq!(accuracy(&logits, &[0, 1, 1, 0]), 0.5);
}

#[test]
fn sgd_is_w_minus_learning_rate_times_g() {
    let w = Variable::new(Tensor::from_vec(vec![1.0, 2.0], &[2]));
    let mut sgd = Sgd::new(0.1);
    sgd.apply_gradients([(Some(Tensor::from_vec(vec![0.5, -1.0], &[2])), &w)]);
    // [1 - 0.05, 2 + 0.1]
    assert_eq!(w.value().to_vec(), vec![0.95, 2.1]);
}

#[test]
fn sgd_momentum_follows_keras() {
    let w = Variable::new(1.0);
    let mut sgd = Sgd::new(0.1).with_momentum(0.9);
    let g = || Some(Tensor::scalar(1.0));
    sgd.apply_gradients([(g(), &w)]);
    // v = -0.1·1 = -0.1, w = 1 - 0.1 = 0.9
    assert_abs_diff_eq!(w.value().to_scalar(), 0.9, epsilon = 1e-15);
    sgd.apply_gradients([(g(), &w)]);
    // v = 0.9·(-0.1) - 0.1 = -0.19, w = 0.9 - 0.19 = 0.71
    assert_abs_diff_eq!(w.value().to_scalar(), 0.71, epsilon = 1e-15);
}

#[test]
fn sgd_momentum_on_arrays_follows_keras() {
    // The array path, element by element the same numbers as the scalar test above.
    let w = Variable::new(Tensor::from_vec(vec![1.0, 2.0], &[2]));
    let mut sgd = Sgd::new(0.1).with_momentum(0.9);
    let g = || Some(Tensor::from_vec(vec![1.0, -1.0], &[2]));
    sgd.apply_gradients([(g(), &w)]);
    // v = [-0.1, 0.1], w = [0.9, 2.1]
    let got = w.value().to_vec();
    assert_abs_diff_eq!(got[0], 0.9, epsilon = 1e-15);
    assert_abs_diff_eq!(got[1], 2.1, epsilon = 1e-15);
    sgd.apply_gradients([(g(), &w)]);
    // v = [0.9·(-0.1) - 0.1, 0.9·0.1 + 0.1] = [-0.19, 0.19], w = [0.71, 2.29]
    let got = w.value().to_vec();
    assert_abs_diff_eq!(got[0], 0.71, epsilon = 1e-15);
    assert_abs_diff_eq!(got[1], 2.29, epsilon = 1e-15);
}

#[test]
fn sgd_nesterov_follows_keras() {
    let w = Variable::new(1.0);
    let mut sgd = Sgd::new(0.1).with_momentum(0.9).with_nesterov(true);
    let g = || Some(Tensor::scalar(1.0));
    sgd.apply_gradients([(g(), &w)]);
    // v = -0.1; w += 0.9·v - 0.1 = -0.19 → 0.81
    assert_abs_diff_eq!(w.value().to_scalar(), 0.81, epsilon = 1e-15);
    sgd.apply_gradients([(g(), &w)]);
    // v = 0.9·(-0.1) - 0.1 = -0.19; w += 0.9·(-0.19) - 0.1 = -0.271 → 0.539
    assert_abs_diff_eq!(w.value().to_scalar(), 0.539, epsilon = 1e-15);
}

#[test]
fn adam_follows_tensorflow() {
    let w = Variable::new(1.0);
    let mut adam = Adam::new(0.1);
    let expected = [
        // t = 1: m = 0.1, v = 0.001, alpha = 0.1·√0.001/0.1 = 0.0316228,
        // w = 1 - 0.1·alpha/(√0.001 + 1e-7) = 0.9000003
        0.900000316226766,
        // t = 2, g = -2: m = 0.1 + (-2 - 0.1)·0.1 = -0.11, v = 0.001 + (4 - 0.001)·0.001
        // = 0.004999, alpha = 0.1·√(1 - 0.999²)/(1 - 0.9²) = 0.0235317,
        // w = 0.9000003 + 0.11·alpha/(√0.004999 + 1e-7) = 0.9366106
        0.936610617150388,
        // t = 3, g = 0.5, the same way
        0.9502796645796052,
    ];
    for (g, want) in [1.0, -2.0, 0.5].into_iter().zip(expected) {
        adam.apply_gradients([(Some(Tensor::scalar(g)), &w)]);
        assert_abs_diff_eq!(w.value().to_scalar(), want, epsilon = 1e-14);
    }
    assert_eq!(adam.iterations(), 3);
}

#[test]
fn adam_adds_epsilon_outside_the_square_root_of_the_raw_moment() {
    // With a large epsilon the formula variants differ: TF divides m·alpha by √v + ε
    // (ε is "epsilon hat"). t = 1: alpha = √0.001 = 0.0316228,
    // w = 1 - 0.1·0.0316228/(0.0316228 + 1) = 0.9969347.
    let w = Variable::new(1.0);
    let mut adam = Adam::new(0.1).with_epsilon(1.0);
    adam.apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
    assert_abs_diff_eq!(w.value().to_scalar(), 0.9969346569968285, epsilon = 1e-14);
    adam.apply_gradients([(Some(Tensor::scalar(-2.0)), &w)]);
    assert_abs_diff_eq!(w.value().to_scalar(), 0.9993522111756049, epsilon = 1e-14);
}

#[test]
fn optimizers_skip_missing_gradients_and_count_steps() {
    let (a, b) = (Variable::new(1.0_f32), Variable::new(2.0_f32));
    let mut sgd = Sgd::new(1.0);
    sgd.apply_gradients([(None, &a), (Some(Tensor::scalar(0.5)), &b)]);
    assert_eq!((a.value().to_scalar(), b.value().to_scalar()), (1.0, 1.5));
    assert_eq!(sgd.iterations(), 1);
}

#[test]
fn optimizer_updates_are_not_recorded_on_an_active_tape() {
    let w = Variable::new(3.0);
    let tape = GradientTape::new();
    let y = tape.record(|| {
        let y = w.square();
        Sgd::new(0.1).apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
        y
    });
    // d/dw w² = 2w = 6 at the value read before the update
    assert_eq!(tape.gradient(&y, &w).unwrap().unwrap().to_scalar(), 6.0);
    assert_abs_diff_eq!(w.value().to_scalar(), 2.9, epsilon = 1e-15);
}

#[test]
#[should_panic(expected = "gradient of shape [3] for variable 'w' of shape [2]")]
fn optimizers_reject_mismatched_gradients() {
    let w = Variable::with_name("w", Tensor::<f32>::zeros(&[2]));
    Adam::new(0.1).apply_gradients([(Some(Tensor::zeros(&[3])), &w)]);
}

/// The panic of a mismatched gradient points at the `apply_gradients` call, not into the
/// optimizer (`#[track_caller]` from the trait method down to the check).
#[test]
fn optimizer_shape_panics_point_at_the_apply_gradients_call() {
    let w = Variable::with_name("w", Tensor::<f32>::zeros(&[2]));
    let (mut sgd, grads) = (Sgd::new(0.1), [(Some(Tensor::zeros(&[3])), &w)]);
    let line = line!() + 1;
    let (file, at, message) = common::panic_site(|| sgd.apply_gradients(grads));
    assert_eq!((file.as_str(), at), (file!(), line), "{message}");
    let (file, _, message) = common::panic_site(|| {
        let mut adam = Adam::new(0.1).with_epsilon(1e-7);
        adam.apply_gradients([(Some(Tensor::zeros(&[3])), &w)]);
    });
    assert_eq!(file, file!(), "{message}");
    assert!(message.contains("Adam::apply_gradients"), "{message}");
}

/// A layer of a `Sequential` that rejects its input reports the model's `call`, the
/// user's line, not the fold inside `Sequential`.
#[test]
fn sequential_shape_panics_point_at_the_models_call() {
    let model = Sequential::new()
        .push(Dense::<f64>::new("first", 3, 2, 0))
        .push(Dense::new("second", 4, 1, 1));
    let x = Tensor::zeros(&[5, 3]);
    let line = line!() + 1;
    let (file, at, message) = common::panic_site(|| drop(model.call(&x)));
    assert_eq!((file.as_str(), at), (file!(), line), "{message}");
    assert!(
        message.contains("layer 'second' expects inputs of shape [batch, 4], got [5, 2]"),
        "{message}"
    );
}

/// A training step updates the weights in place: once the tape has released what it saved,
/// no tensor shares a kernel's storage, so neither optimizer allocates a second one.
#[test]
fn optimizers_update_weights_in_place_after_a_step() {
    let address = |v: &Variable<f32>| v.value().view().as_ptr();
    for adam in [false, true] {
        let dense = Dense::new("dense", 4, 3, 0);
        let variables = dense.trainable_variables();
        let x = Tensor::from_vec((0..8).map(|i| i as f32 / 8.0).collect(), &[2, 4]);
        let before = address(&variables[0]);
        let tape = GradientTape::new();
        let loss = tape.record(|| dense.call(&x).square().mean());
        let grads = tape.gradient(&loss, &variables).unwrap();
        if adam {
            Adam::new(0.01).apply_gradients(grads.into_iter().zip(&variables));
        } else {
            Sgd::new(0.1).apply_gradients(grads.into_iter().zip(&variables));
        }
        assert_eq!(address(&variables[0]), before, "adam: {adam}");
    }
}
