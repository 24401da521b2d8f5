//! RMSprop, AdamW, Adagrad, AMSGrad, learning-rate schedules and gradient clipping against
//! hand-computed values (each with its arithmetic) and against the worked examples and
//! golden values of Keras 3's own tests (`keras/src/optimizers/*_test.py`,
//! `schedules/learning_rate_schedule_test.py`). SGD and Adam's plain formulas are in
//! `nn_numbers.rs`.

use approx::assert_abs_diff_eq;
use gradtape::nn::clipping::{clip_by_global_norm, clip_by_norm, global_norm};
use gradtape::nn::schedules::{
    CosineDecay, ExponentialDecay, InverseTimeDecay, LearningRateSchedule, LinearWarmup,
    PiecewiseConstantDecay,
};
use gradtape::nn::{Adagrad, Adam, AdamW, Dense, Layer, Optimizer, RmsProp, Sgd};
use gradtape::{GradientTape, Tensor, Variable};

mod common;

/// Applies the scalar gradients `gs` one step each to `w = 1` and returns `w` after each.
fn trajectory(optimizer: &mut impl Optimizer<f64>, gs: &[f64]) -> Vec<f64> {
    let w = Variable::new(1.0);
    gs.iter()
        .map(|&g| {
            optimizer.apply_gradients([(Some(Tensor::scalar(g)), &w)]);
            w.value().to_scalar()
        })
        .collect()
}

fn assert_all_close(got: &[f64], want: &[f64], tolerance: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tolerance,
            "element {i}: got {g}, want {w} ({got:?})"
        );
    }
}

/// Keras' golden-value protocol: `x = ones(10)`, one step with gradient 0.01 everywhere,
/// then steps with `arange(0.1, 1.1, 0.1)`; `x` is compared before each of those steps.
fn keras_golden(optimizer: &mut impl Optimizer<f64>, golden: &[[f64; 10]]) {
    let x = Variable::new(Tensor::ones(&[10]));
    let first = Tensor::full(&[10], 0.01);
    let grads = Tensor::from_vec((1..=10).map(|i| i as f64 / 10.0).collect(), &[10]);
    optimizer.apply_gradients([(Some(first), &x)]);
    for row in golden {
        // Keras: assertAllClose(x, golden[i], rtol=5e-4, atol=5e-4)
        for (got, want) in x.value().to_vec().iter().zip(row) {
            assert!(
                (got - want).abs() <= 5e-4 + 5e-4 * want.abs(),
                "got {:?}, want {row:?}",
                x.value().to_vec()
            );
        }
        optimizer.apply_gradients([(Some(grads.clone()), &x)]);
    }
}

// ---------------------------------------------------------------------------------------
// RMSprop

#[test]
fn rmsprop_follows_keras_over_three_steps() {
    // lr 0.1, rho 0.9, ε 1e-7, w = 1, g = 1, -2, 0.5: velocity = 0.9·v + 0.1·g²,
    // w -= 0.1·g/√(v + ε)
    let want = [
        // v = 0.1, increment = 0.1/√0.1000001 = 0.3162276
        0.6837723920969265,
        // v = 0.09 + 0.4 = 0.49, increment = -0.2/√0.4900001 = -0.2857143
        0.9694866486566978,
        // v = 0.441 + 0.025 = 0.466, increment = 0.05/√0.4660001 = 0.0732448
        0.8962418146019542,
    ];
    let got = trajectory(&mut RmsProp::new(0.1), &[1.0, -2.0, 0.5]);
    assert_all_close(&got, &want, 1e-15);
}

#[test]
fn rmsprop_momentum_accumulates_the_increments() {
    // The increments of the test above, 0.3162276, -0.2857143, 0.0732448, accumulated as
    // m = 0.5·m + increment and subtracted.
    let want = [
        // m = 0.3162276, w = 1 - 0.3162276
        0.6837723920969265,
        // m = 0.1581138 - 0.2857143 = -0.1276005, w = 0.6837724 + 0.1276005
        0.811372844705161,
        // m = -0.0638002 + 0.0732448 = 0.0094446, w = 0.8113728 - 0.0094446
        0.8019282369545346,
    ];
    let got = trajectory(&mut RmsProp::new(0.1).with_momentum(0.5), &[1.0, -2.0, 0.5]);
    assert_all_close(&got, &want, 1e-15);
}

#[test]
fn centered_rmsprop_divides_by_the_variance_estimate() {
    // average = 0.9·a + 0.1·g; denominator = v - a² + ε (v as in the plain test)
    let want = [
        // a = 0.1: increment = 0.1/√(0.1 - 0.01 + 1e-7) = 0.3333331
        0.6666668518516974,
        // a = 0.09 - 0.2 = -0.11: increment = -0.2/√(0.49 - 0.0121 + 1e-7) = -0.2893087
        0.955975512651452,
        // a = -0.099 + 0.05 = -0.049: increment = 0.05/√(0.466 - 0.002401 + 1e-7) = 0.0734343
        0.8825412544406439,
    ];
    let got = trajectory(
        &mut RmsProp::new(0.1).with_centered(true),
        &[1.0, -2.0, 0.5],
    );
    assert_all_close(&got, &want, 1e-15);
    // with momentum 0.5 as well: m = 0.3333331, then 0.1666666 - 0.2893087 = -0.1226421,
    // then -0.0613210 + 0.0734343 = 0.0121132
    let want = [0.6666668518516974, 0.7893089385773007, 0.7771957237292941];
    let got = trajectory(
        &mut RmsProp::new(0.1).with_centered(true).with_momentum(0.5),
        &[1.0, -2.0, 0.5],
    );
    assert_all_close(&got, &want, 1e-15);
}

#[test]
fn rmsprop_reproduces_keras_examples() {
    // The docstring: RMSprop(learning_rate=0.1) on loss = var1²/2 from var1 = 10 gives
    // 9.683772 (in float32).
    let var1 = Variable::new(10.0_f32);
    let tape = GradientTape::new();
    let loss = tape.record(|| var1.square() / 2.0);
    let grad = tape.gradient(&loss, &var1).unwrap();
    let mut rmsprop = RmsProp::new(0.1);
    rmsprop.apply_gradients([(grad, &var1)]);
    assert_abs_diff_eq!(var1.value().to_scalar(), 9.683772, epsilon = 1e-6);

    // test_single_step: lr 0.5, g = [1, 6, 7, 2] from [1, 2, 3, 4]; each increment is
    // 0.5·g/√(0.1·g² + ε) ≈ 0.5/√0.1 = 1.5811
    let vars = Variable::new(Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0], &[4]));
    let grads = Tensor::from_vec(vec![1.0, 6.0, 7.0, 2.0], &[4]);
    RmsProp::new(0.5).apply_gradients([(Some(grads), &vars)]);
    assert_all_close(
        &vars.value().to_vec(),
        &[-0.5811, 0.4189, 1.4189, 2.4189],
        1e-4,
    );

    // test_correctness_with_golden, centered with Keras' defaults
    let golden = [
        [0.9967; 10],
        [0.9933; 10],
        [0.9908; 10],
        [0.9885; 10],
        [0.9864; 10],
    ];
    keras_golden(&mut RmsProp::new(0.001).with_centered(true), &golden);
}

// ---------------------------------------------------------------------------------------
// Adagrad

#[test]
fn adagrad_follows_keras_over_three_steps() {
    // lr 0.1, accumulator from 0.1, ε 1e-7, w = 1: acc += g², w -= 0.1·g/√(acc + ε)
    let want = [
        // acc = 1.1: w = 1 - 0.1/√1.1000001 = 1 - 0.0953463
        0.9046537454093613,
        // acc = 5.1: w += 0.2/√5.1000001 = 0.0885615
        0.9932152330951209,
        // acc = 5.35: w -= 0.05/√5.3500001 = 0.0216169
        0.9715983482387921,
    ];
    let got = trajectory(&mut Adagrad::new(0.1), &[1.0, -2.0, 0.5]);
    assert_all_close(&got, &want, 1e-15);
}

#[test]
fn adagrad_reproduces_keras_tests() {
    // test_single_step: lr 0.5, g = [1, 6, 7, 2] from [1, 2, 3, 4]:
    // w -= 0.5·g/√(0.1 + g² + ε), e.g. 1 - 0.5/√1.1 = 0.5233
    let vars = Variable::new(Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0], &[4]));
    let grads = Tensor::from_vec(vec![1.0, 6.0, 7.0, 2.0], &[4]);
    Adagrad::new(0.5).apply_gradients([(Some(grads), &vars)]);
    assert_all_close(
        &vars.value().to_vec(),
        &[0.5233, 1.5007, 2.5005, 3.5061],
        1e-4,
    );

    // test_correctness_with_golden: lr 0.2, initial accumulator 0.3, ε 1e-6
    #[rustfmt::skip]
    let golden = [
        [0.9963, 0.9963, 0.9963, 0.9963, 0.9963, 0.9963, 0.9963, 0.9963, 0.9963, 0.9963],
        [0.9604, 0.9278, 0.9003, 0.8784, 0.8615, 0.8487, 0.8388, 0.8313, 0.8255, 0.8209],
        [0.9251, 0.8629, 0.8137, 0.7768, 0.7497, 0.7298, 0.7151, 0.704, 0.6956, 0.6891],
        [0.8903, 0.8012, 0.7342, 0.6862, 0.6521, 0.6277, 0.6099, 0.5967, 0.5867, 0.579],
        [0.856, 0.7422, 0.6604, 0.6037, 0.5644, 0.5367, 0.5168, 0.5021, 0.491, 0.4825],
    ];
    let mut adagrad = Adagrad::new(0.2)
        .with_initial_accumulator_value(0.3)
        .with_epsilon(1e-6);
    keras_golden(&mut adagrad, &golden);
}

#[test]
fn adagrad_accumulators_start_at_the_initial_value() {
    // initial 0: acc = g², so the first step is lr·g/√(g² + ε) ≈ lr·sign(g), per element
    let w = Variable::new(Tensor::from_vec(vec![0.0, 0.0], &[2]));
    let mut adagrad = Adagrad::new(1.0).with_initial_accumulator_value(0.0);
    adagrad.apply_gradients([(Some(Tensor::from_vec(vec![4.0, -0.5], &[2])), &w)]);
    // -4/√(16 + 1e-7) and 0.5/√(0.25 + 1e-7)
    let want = [
        -4.0 / (16.0_f64 + 1e-7).sqrt(),
        0.5 / (0.25_f64 + 1e-7).sqrt(),
    ];
    assert_all_close(&w.value().to_vec(), &want, 1e-15);
}

// ---------------------------------------------------------------------------------------
// AdamW and AMSGrad

#[test]
fn adamw_decays_then_takes_adams_step() {
    // lr 0.1, weight decay 0.1, g = 1, -2, 0.5 from w = 1. The decay multiplies w by
    // 1 - 0.1·0.1 = 0.99; Adam's increments do not depend on w and are those of
    // nn_numbers' adam_follows_tensorflow: -0.0999997, +0.0366103, +0.0136691.
    let want = [
        // 1·0.99 - 0.0999997
        0.890000316226766,
        // 0.8900003·0.99 + 0.0366103
        0.9177106139881203,
        // 0.9177106·0.99 + 0.0136691
        0.9222025552774563,
    ];
    let got = trajectory(
        &mut AdamW::new(0.1).with_weight_decay(0.1),
        &[1.0, -2.0, 0.5],
    );
    assert_all_close(&got, &want, 1e-14);
    // the same numbers as Adam with Keras' base-optimizer weight decay
    let got = trajectory(
        &mut Adam::new(0.1).with_weight_decay(0.1),
        &[1.0, -2.0, 0.5],
    );
    assert_all_close(&got, &want, 1e-14);
}

#[test]
fn adamw_decay_is_decoupled_from_the_gradient() {
    // With a zero gradient, AdamW moves w by w·wd·lr only: 2 - 2·0.01·0.1 = 1.998.
    let w = Variable::new(2.0);
    AdamW::new(0.1)
        .with_weight_decay(0.01)
        .apply_gradients([(Some(Tensor::scalar(0.0)), &w)]);
    assert_abs_diff_eq!(w.value().to_scalar(), 1.998, epsilon = 1e-15);
    // L2 regularisation instead puts wd·w = 0.02 into Adam's gradient, whose normalised
    // first step is the whole learning rate, fifty times the decay: 2 - 0.1·√v/(√v + ε)
    // with √v = 0.02·√0.001 = 6.3e-4, so ε takes 1.6e-4 of the step.
    let l2 = Variable::new(2.0);
    Adam::new(0.1).apply_gradients([(Some(Tensor::scalar(0.01 * 2.0)), &l2)]);
    assert_abs_diff_eq!(l2.value().to_scalar(), 1.9, epsilon = 2e-5);
}

#[test]
fn adamw_reproduces_keras_tests() {
    // test_single_step: lr 0.5, Keras' default decay 0.004, g = [1, 6, 7, 2] from
    // [1, 2, 3, 4]: w·(1 - 0.002) - 0.5 (Adam's first step is about lr per element)
    let vars = Variable::new(Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[4]));
    let grads = Tensor::from_vec(vec![1.0, 6.0, 7.0, 2.0], &[4]);
    AdamW::new(0.5).apply_gradients([(Some(grads), &vars)]);
    for (got, want) in vars
        .value()
        .to_vec()
        .iter()
        .zip([0.4980, 1.4960, 2.494, 3.492])
    {
        assert_abs_diff_eq!(*got, want, epsilon = 1e-4);
    }

    // test_correctness_with_golden: lr 1, weight decay 0.5, ε 2
    #[rustfmt::skip]
    let golden = [
        [0.4998, 0.4998, 0.4998, 0.4998, 0.4998, 0.4998, 0.4998, 0.4998, 0.4998, 0.4998],
        [0.2486, 0.2475, 0.2463, 0.2451, 0.244, 0.2428, 0.2417, 0.2405, 0.2394, 0.2382],
        [0.1223, 0.1198, 0.1174, 0.1149, 0.1124, 0.11, 0.1075, 0.1051, 0.1027, 0.1003],
        [0.0586, 0.0549, 0.0512, 0.0475, 0.0439, 0.0402, 0.0366, 0.033, 0.0294, 0.0258],
        [0.0263, 0.0215, 0.0167, 0.012, 0.0073, 0.0026, -0.0021, -0.0067, -0.0113, -0.0159],
    ];
    let mut adamw = AdamW::new(1.0).with_weight_decay(0.5).with_epsilon(2.0);
    keras_golden(&mut adamw, &golden);
}

/// Keras' `test_weight_decay`, which every optimizer's test file repeats: three optimizers
/// with decay 0.004 at lr 1 and zero gradients each decay `var1` once (2·0.996³ =
/// 1.9760959), while `var2` (excluded by name) and `var3` (excluded as a variable) stay 2.
#[test]
fn every_optimizer_reproduces_keras_weight_decay_test() {
    fn check<O: Optimizer<f64>>(
        name: &str,
        make: impl Fn() -> O,
        by_names: impl Fn(O, &[&str]) -> O,
        by_vars: impl Fn(O, &[&Variable<f64>]) -> O,
    ) {
        let zero = || Some(Tensor::scalar(0.0));
        let var1 = Variable::new(2.0);
        let var2 = Variable::with_name("exclude", 2.0);
        let var3 = Variable::new(2.0);
        make().apply_gradients([(zero(), &var1)]);
        by_names(make(), &["exclude"]).apply_gradients([(zero(), &var1), (zero(), &var2)]);
        by_vars(make(), &[&var3]).apply_gradients([(zero(), &var1), (zero(), &var3)]);
        assert_abs_diff_eq!(var1.value().to_scalar(), 1.9760959, epsilon = 1e-6);
        assert_eq!(var2.value().to_scalar(), 2.0, "{name}");
        assert_eq!(var3.value().to_scalar(), 2.0, "{name}");
    }
    check(
        "Sgd",
        || Sgd::new(1.0).with_weight_decay(0.004),
        |o, n| o.exclude_from_weight_decay_names(n),
        |o, v| o.exclude_from_weight_decay(v),
    );
    check(
        "Adam",
        || Adam::new(1.0).with_weight_decay(0.004),
        |o, n| o.exclude_from_weight_decay_names(n),
        |o, v| o.exclude_from_weight_decay(v),
    );
    check(
        "AdamW",
        || AdamW::new(1.0).with_weight_decay(0.004),
        |o, n| o.exclude_from_weight_decay_names(n),
        |o, v| o.exclude_from_weight_decay(v),
    );
    check(
        "RmsProp",
        || RmsProp::new(1.0).with_weight_decay(0.004),
        |o, n| o.exclude_from_weight_decay_names(n),
        |o, v| o.exclude_from_weight_decay(v),
    );
    check(
        "Adagrad",
        || Adagrad::new(1.0).with_weight_decay(0.004),
        |o, n| o.exclude_from_weight_decay_names(n),
        |o, v| o.exclude_from_weight_decay(v),
    );
}

#[test]
fn weight_decay_skips_variables_without_gradients() {
    // Keras filters the None gradients out before decaying: `b` is not decayed.
    let (a, b) = (Variable::new(1.0), Variable::new(1.0));
    AdamW::new(0.5).apply_gradients([(Some(Tensor::scalar(0.0)), &a), (None, &b)]);
    // 1 - 1·0.004·0.5
    assert_abs_diff_eq!(a.value().to_scalar(), 0.998, epsilon = 1e-15);
    assert_eq!(b.value().to_scalar(), 1.0);
}

#[test]
fn amsgrad_divides_by_the_largest_second_moment() {
    // g = 10, 0.1, 0.1 from w = 1, lr 0.1: v = 0.1, then 0.1 + (0.01 - 0.1)·0.001 = 0.09991,
    // then 0.0998201: v falls, v_hat stays 0.1. m = 1, 0.91, 0.829.
    let want = [
        // t = 1: alpha = 0.0316228, w = 1 - 1·alpha/(√0.1 + 1e-7) = 0.9000000
        0.9000000316227666,
        // t = 2: alpha = 0.0235317, w -= 0.91·alpha/(√0.1 + 1e-7) = 0.0677164
        0.8322836020919865,
        // t = 3: alpha = 0.0202011, w -= 0.829·alpha/(√0.1 + 1e-7) = 0.0529576
        0.7793259714485228,
    ];
    let got = trajectory(&mut Adam::new(0.1).with_amsgrad(true), &[10.0, 0.1, 0.1]);
    assert_all_close(&got, &want, 1e-14);
    // plain Adam divides by √0.09991 and √0.0998201 instead: larger steps
    let plain = trajectory(&mut Adam::new(0.1), &[10.0, 0.1, 0.1]);
    assert_all_close(
        &plain,
        &[0.9000000316227666, 0.8322531091240405, 0.7792477760833135],
        1e-14,
    );
    let got = trajectory(
        &mut AdamW::new(0.1).with_weight_decay(0.0).with_amsgrad(true),
        &[10.0, 0.1, 0.1],
    );
    assert_all_close(&got, &want, 1e-14);
}

// ---------------------------------------------------------------------------------------
// Schedules

#[test]
fn exponential_decay_follows_keras() {
    let smooth = ExponentialDecay::new(0.1, 2, 0.5);
    // 0.1·0.5^(step/2): 0.1, 0.1·√0.5, 0.05, 0.1·0.5^1.5
    assert_eq!(smooth.rate(0), 0.1);
    assert_abs_diff_eq!(smooth.rate(1), 0.1 * 0.5_f64.sqrt(), epsilon = 1e-16);
    assert_abs_diff_eq!(smooth.rate(2), 0.05, epsilon = 1e-16);
    assert_abs_diff_eq!(smooth.rate(3), 0.03535533905932738, epsilon = 1e-16);
    // Keras' test_continuous: 0.05·0.96^(5/10)
    assert_abs_diff_eq!(
        ExponentialDecay::new(0.05, 10, 0.96).rate(5),
        0.048989794855663564,
        epsilon = 1e-16
    );
    // Keras' test_staircase: decay_steps 3, 0.96: flat at steps 1 and 2, 0.1·0.96³³ at 100
    let stairs = ExponentialDecay::new(0.1, 3, 0.96).with_staircase(true);
    assert_eq!((stairs.rate(1), stairs.rate(2)), (0.1, 0.1));
    assert_abs_diff_eq!(stairs.rate(3), 0.096, epsilon = 1e-16);
    assert_abs_diff_eq!(stairs.rate(100), 0.1 * 0.96_f64.powi(33), epsilon = 1e-16);
}

#[test]
fn inverse_time_decay_follows_keras() {
    // 0.1/(1 + 0.5·step/2): step 1 → 0.1/1.25 = 0.08, step 3 → 0.1/1.75
    let smooth = InverseTimeDecay::new(0.1, 2, 0.5);
    assert_eq!(smooth.rate(0), 0.1);
    assert_abs_diff_eq!(smooth.rate(1), 0.08, epsilon = 1e-16);
    assert_abs_diff_eq!(smooth.rate(3), 0.05714285714285715, epsilon = 1e-16);
    // staircase: ⌊step/2⌋, so step 3 → 0.1/1.5
    let stairs = InverseTimeDecay::new(0.1, 2, 0.5).with_staircase(true);
    assert_eq!(stairs.rate(1), 0.1);
    assert_abs_diff_eq!(stairs.rate(3), 0.06666666666666667, epsilon = 1e-16);
    // Keras' test_decay and test_staircase: k = 10, rate 0.96, steps 0..=10
    let (decay, staircase) = (
        InverseTimeDecay::new(0.1, 10, 0.96),
        InverseTimeDecay::new(0.1, 10, 0.96).with_staircase(true),
    );
    for i in 0..=10_u64 {
        let want = 0.1 / (1.0 + i as f64 / 10.0 * 0.96);
        assert_abs_diff_eq!(decay.rate(i), want, epsilon = 1e-15);
        let want = 0.1 / (1.0 + 0.96 * (i / 10) as f64);
        assert_abs_diff_eq!(staircase.rate(i), want, epsilon = 1e-15);
    }
}

#[test]
fn piecewise_constant_decay_follows_keras() {
    // Keras' test_piecewise_values: boundaries [100, 110, 120]; a boundary step still has
    // the value before it
    let schedule = PiecewiseConstantDecay::new(vec![100, 110, 120], vec![1.0, 0.1, 0.01, 0.001]);
    for (step, want) in [
        (0, 1.0),
        (100, 1.0),
        (105, 0.1),
        (110, 0.1),
        (120, 0.01),
        (121, 0.001),
        (999, 0.001),
    ] {
        assert_eq!(schedule.rate(step), want, "step {step}");
    }
    // test_boundary_values: [1, 2, 3] → 0.4 at 0 and 1, 0.5 at 2, 0.6 at 3, 0.7 at 4
    let schedule = PiecewiseConstantDecay::new(vec![1, 2, 3], vec![0.4, 0.5, 0.6, 0.7]);
    let got: Vec<f64> = (0..5).map(|step| schedule.rate(step)).collect();
    assert_eq!(got, vec![0.4, 0.4, 0.5, 0.6, 0.7]);
    // no boundaries: one constant rate
    assert_eq!(PiecewiseConstantDecay::new(vec![], vec![0.3]).rate(7), 0.3);
}

#[test]
#[should_panic(expected = "PiecewiseConstantDecay::new: 2 boundaries need 3 values, got 2")]
fn piecewise_constant_decay_rejects_mismatched_lengths() {
    PiecewiseConstantDecay::new(vec![1, 2], vec![1.0, 0.5]);
}

#[test]
#[should_panic(expected = "boundaries must increase strictly, got [5, 5]")]
fn piecewise_constant_decay_rejects_unsorted_boundaries() {
    PiecewiseConstantDecay::new(vec![5, 5], vec![1.0, 0.5, 0.1]);
}

#[test]
#[should_panic(expected = "CosineDecay::new: decay_steps must be positive, got 0")]
fn decays_reject_zero_decay_steps() {
    CosineDecay::new(0.1, 0);
}

#[test]
fn cosine_decay_follows_keras() {
    // 1 → alpha over 100 steps: at 25, (1 - 0.1)·0.5·(1 + cos(π/4)) + 0.1 = 0.8681981
    let schedule = CosineDecay::new(1.0, 100).with_alpha(0.1);
    assert_eq!(schedule.rate(0), 1.0);
    assert_abs_diff_eq!(schedule.rate(25), 0.8681980515339464, epsilon = 1e-15);
    assert_abs_diff_eq!(schedule.rate(50), 0.55, epsilon = 1e-15);
    // the end and beyond: alpha
    assert_abs_diff_eq!(schedule.rate(100), 0.1, epsilon = 1e-15);
    assert_abs_diff_eq!(schedule.rate(1000), 0.1, epsilon = 1e-15);
    // Keras' test_decay and test_alpha: steps 0, 250, ..., 1250 of 1000
    let reference = |step: u64, alpha: f64| {
        let fraction = step.min(1000) as f64 / 1000.0;
        (1.0 - alpha) * 0.5 * (1.0 + (std::f64::consts::PI * fraction).cos()) + alpha
    };
    for step in (0..1500).step_by(250) {
        let plain = CosineDecay::new(1.0, 1000);
        assert_abs_diff_eq!(plain.rate(step), reference(step, 0.0), epsilon = 1e-15);
        let with_alpha = CosineDecay::new(1.0, 1000).with_alpha(0.1);
        assert_abs_diff_eq!(with_alpha.rate(step), reference(step, 0.1), epsilon = 1e-15);
    }
}

#[test]
fn cosine_decay_warms_up_linearly_then_decays_from_the_target() {
    // warm-up from 0.1 to 1 over 4 steps: 0.1 + 0.9·step/4; then the decay from 1 over 8
    // steps with alpha 0
    let schedule = CosineDecay::new(0.1, 8).with_warmup(1.0, 4);
    assert_eq!(schedule.rate(0), 0.1);
    // 0.1 + 0.9·3/4
    assert_abs_diff_eq!(schedule.rate(3), 0.775, epsilon = 1e-15);
    assert_eq!(schedule.rate(4), 1.0);
    // 4 steps into the 8-step decay: 0.5·(1 + cos(π/2))
    assert_abs_diff_eq!(schedule.rate(8), 0.5, epsilon = 1e-15);
    assert_abs_diff_eq!(schedule.rate(12), 0.0, epsilon = 1e-15);
    assert_abs_diff_eq!(schedule.rate(100), 0.0, epsilon = 1e-15);
    // Keras' test_warmup_decay: warm-up 2000 steps from 0 to 10, decay over 1000
    let keras = CosineDecay::new(0.0, 1000).with_warmup(10.0, 2000);
    for step in (0..3000).step_by(250) {
        let want = if step < 2000 {
            step as f64 / 2000.0 * 10.0
        } else {
            let fraction = (step - 2000) as f64 / 1000.0;
            10.0 * 0.5 * (1.0 + (std::f64::consts::PI * fraction).cos())
        };
        assert_abs_diff_eq!(keras.rate(step), want, epsilon = 1e-12);
    }
}

#[test]
fn linear_warmup_ramps_to_the_wrapped_schedules_value() {
    // In front of a cosine decay from 0.1 over 100 steps, from 0.01 over 10 steps: the ramp
    // ends at the decay's value at step 10, 0.05·(1 + cos(π/10)) = 0.0975528.
    let schedule = LinearWarmup::new(CosineDecay::new(0.1, 100), 10, 0.01);
    assert_eq!(schedule.rate(0), 0.01);
    // 0.01 + 5/10·(0.0975528 - 0.01)
    assert_abs_diff_eq!(schedule.rate(5), 0.05377641290737885, epsilon = 1e-15);
    // from step 10 on, the wrapped schedule at the same (global) step
    assert_abs_diff_eq!(schedule.rate(10), 0.09755282581475769, epsilon = 1e-15);
    assert_abs_diff_eq!(schedule.rate(50), 0.05, epsilon = 1e-15);
    // no warm-up steps: the wrapped schedule unchanged
    let none = LinearWarmup::new(ExponentialDecay::new(0.1, 1, 0.5), 0, 0.0);
    assert_eq!(none.rate(0), 0.1);
    assert_eq!(none.rate(1), 0.05);
}

/// Keras evaluates the schedule at `iterations` before the step increments it: the first
/// step uses `rate(0)`. With boundaries [1], steps 0 and 1 use 1.0 and step 2 uses 0.1.
#[test]
fn a_schedule_changes_the_rate_at_the_right_step() {
    let w = Variable::new(0.0);
    let mut sgd = Sgd::from_schedule(PiecewiseConstantDecay::new(vec![1], vec![1.0, 0.1]));
    let mut seen = Vec::new();
    for _ in 0..3 {
        seen.push(sgd.learning_rate());
        sgd.apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
    }
    assert_eq!(seen, vec![1.0, 1.0, 0.1]);
    // w = 0 - 1 - 1 - 0.1
    assert_abs_diff_eq!(w.value().to_scalar(), -2.1, epsilon = 1e-15);
    assert_eq!(sgd.learning_rate(), 0.1);
}

#[test]
fn scheduled_adam_scales_its_step_and_its_weight_decay_by_the_step_rate() {
    // Adam's first step moves w by about its learning rate; AdamW's decay is w·wd·lr.
    // Rates 0.1 then 0.01 (ExponentialDecay by 0.1 per step).
    let w = Variable::new(1.0);
    let mut adamw = AdamW::from_schedule(ExponentialDecay::new(0.1, 1, 0.1)).with_weight_decay(0.5);
    adamw.apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
    // decay 1 - 1·0.5·0.1 = 0.95, Adam's step -0.0999997 at lr 0.1
    assert_abs_diff_eq!(w.value().to_scalar(), 0.850000316226766, epsilon = 1e-14);
    adamw.apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
    // decay ·(1 - 0.5·0.01) = ·0.995; Adam at t = 2 with g = 1 again: m = 0.19, v = 0.001999,
    // alpha = 0.01·√0.001999/0.19, step = m·alpha/(√v + ε) = 0.01 (up to ε)
    // (ε/√v makes it 0.01·(1 - 2.2e-6))
    let want = 0.850000316226766 * 0.995 - 0.01;
    assert_abs_diff_eq!(w.value().to_scalar(), want, epsilon = 1e-7);
}

#[test]
fn closures_are_schedules() {
    let w = Variable::new(0.0_f32);
    let mut rmsprop = RmsProp::from_schedule(|step: u64| if step == 0 { 0.0 } else { 1.0 });
    rmsprop.apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
    assert_eq!(w.value().to_scalar(), 0.0); // rate 0 at step 0
    assert_eq!(rmsprop.learning_rate(), 1.0);
}

#[test]
fn set_learning_rate_panics_on_a_scheduled_optimizer() {
    let mut adam = Adam::<f32>::from_schedule(CosineDecay::new(0.1, 10));
    let line = line!() + 1;
    let (file, at, message) = common::panic_site(|| adam.set_learning_rate(0.01));
    assert_eq!((file.as_str(), at), (file!(), line), "{message}");
    assert!(
        message.contains(
            "Adam::set_learning_rate: this optimizer's learning rate comes from a schedule"
        ),
        "{message}"
    );
}

#[test]
fn a_negative_scheduled_rate_panics_at_the_step_naming_it() {
    let w = Variable::new(0.0_f64);
    let mut sgd = Sgd::from_schedule(|step: u64| 0.1 - 0.1 * step as f64);
    sgd.apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
    sgd.apply_gradients([(Some(Tensor::scalar(1.0)), &w)]); // rate 0 at step 1
    let line = line!() + 2;
    let (file, at, message) =
        common::panic_site(|| sgd.apply_gradients([(Some(Tensor::scalar(1.0)), &w)]));
    assert_eq!((file.as_str(), at), (file!(), line), "{message}");
    assert!(
        message.contains("Sgd::apply_gradients: the learning rate schedule gave -0.1 at step 2"),
        "{message}"
    );
}

// ---------------------------------------------------------------------------------------
// Clipping: the functions

#[test]
fn clip_by_norm_scales_only_tensors_longer_than_the_threshold() {
    let t = Tensor::from_vec(vec![3.0, -4.0], &[2]);
    // norm 5: to norm 1 it is [3, -4]·1/5
    assert_all_close(&clip_by_norm(&t, 1.0).to_vec(), &[0.6, -0.8], 1e-16);
    // norm 5 ≤ 5 and ≤ 10: unchanged ([3, -4]·5/5, ·10/10)
    assert_eq!(clip_by_norm(&t, 5.0).to_vec(), vec![3.0, -4.0]);
    assert_eq!(clip_by_norm(&t, 10.0).to_vec(), vec![3.0, -4.0]);
    // 0-d and f32
    assert_eq!(
        clip_by_norm(&Tensor::scalar(-8.0_f32), 2.0).to_scalar(),
        -2.0
    );
    // more elements than the eight partial sums, and a remainder: eleven 1s and a 5 have
    // norm √(11 + 25) = 6, so clipping to 3 halves them
    let mut values = vec![1.0_f32; 11];
    values.push(5.0);
    let long = Tensor::from_vec(values, &[3, 4]);
    let mut want = vec![0.5; 11];
    want.push(2.5);
    assert_eq!(clip_by_norm(&long, 3.0).to_vec(), want);
    assert_eq!(global_norm(&[Some(long), Some(Tensor::scalar(8.0))]), 10.0);
    // the shape is kept
    let m = Tensor::from_vec(vec![0.0, 6.0, 0.0, 8.0], &[2, 2]);
    let clipped = clip_by_norm(&m, 5.0);
    assert_eq!(clipped.shape(), &[2, 2]);
    assert_eq!(clipped.to_vec(), vec![0.0, 3.0, 0.0, 4.0]);
}

#[test]
fn clip_by_norm_edge_cases() {
    // all zeros: TF's guard keeps them zeros, not 0/0
    let zeros = clip_by_norm(&Tensor::<f64>::zeros(&[3]), 1.0);
    assert_eq!(zeros.to_vec(), vec![0.0, 0.0, 0.0]);
    // a NaN makes the norm NaN and every element NaN
    let nan = clip_by_norm(&Tensor::from_vec(vec![f64::NAN, 1.0], &[2]), 1.0);
    assert!(nan.to_vec().iter().all(|x| x.is_nan()));
    // an infinity: norm ∞, so the finite elements become x·1/∞ = 0 and ∞·1/∞ = NaN
    let inf = clip_by_norm(&Tensor::from_vec(vec![f64::INFINITY, 1.0], &[2]), 1.0).to_vec();
    assert!(inf[0].is_nan() && inf[1] == 0.0, "{inf:?}");
}

#[test]
fn clip_by_global_norm_follows_tensorflow() {
    let grads = vec![
        Some(Tensor::from_vec(vec![1.0, 2.0], &[2])),
        None,
        Some(Tensor::from_vec(vec![2.0, 0.0, 4.0], &[3])),
    ];
    // global norm √(1 + 4 + 4 + 16) = 5
    assert_eq!(global_norm(&grads), 5.0);
    let (clipped, norm) = clip_by_global_norm(&grads, 2.5);
    // the norm before clipping; every tensor times 2.5·min(1/5, 1/2.5) = 0.5
    assert_eq!(norm, 5.0);
    assert_eq!(clipped.len(), 3);
    assert_eq!(clipped[0].as_ref().unwrap().to_vec(), vec![0.5, 1.0]);
    assert!(clipped[1].is_none());
    assert_eq!(clipped[2].as_ref().unwrap().to_vec(), vec![1.0, 0.0, 2.0]);
    assert_eq!(global_norm(&clipped), 2.5);
    // a norm under the threshold: scale 8·(1/8) = 1, values kept
    let (kept, norm) = clip_by_global_norm(&grads, 8.0);
    assert_eq!(norm, 5.0);
    assert_eq!(kept[2].as_ref().unwrap().to_vec(), vec![2.0, 0.0, 4.0]);
}

#[test]
fn clip_by_global_norm_edge_cases() {
    // all zeros: 1/0 = ∞, min(∞, 1/c) = 1/c, scale 1: zeros, not NaN
    let zeros = vec![Some(Tensor::<f64>::zeros(&[2])), Some(Tensor::scalar(0.0))];
    let (clipped, norm) = clip_by_global_norm(&zeros, 1.0);
    assert_eq!(norm, 0.0);
    assert_eq!(clipped[0].as_ref().unwrap().to_vec(), vec![0.0, 0.0]);
    assert_eq!(clipped[1].as_ref().unwrap().to_scalar(), 0.0);
    // nothing but None (or nothing): norm 0, the Nones kept
    let (clipped, norm) = clip_by_global_norm::<f32>(&[None, None], 1.0);
    assert_eq!((clipped.len(), norm), (2, 0.0));
    assert!(clipped.iter().all(Option::is_none));
    let (clipped, norm) = clip_by_global_norm::<f64>(&[], 1.0);
    assert!(clipped.is_empty());
    assert_eq!(norm, 0.0);
    // a NaN in one tensor: every tensor NaN ("to signal that an error occurred")
    let nan = vec![
        Some(Tensor::from_vec(vec![f64::NAN], &[1])),
        Some(Tensor::from_vec(vec![1.0, 2.0], &[2])),
    ];
    let (clipped, norm) = clip_by_global_norm(&nan, 1.0);
    assert!(norm.is_nan());
    for t in clipped.iter().flatten() {
        assert!(t.to_vec().iter().all(|x| x.is_nan()), "{t}");
    }
    // an infinity: norm ∞, and again every element NaN (TF's scale + (norm - norm))
    let inf = vec![
        Some(Tensor::scalar(f64::INFINITY)),
        Some(Tensor::scalar(1.0)),
    ];
    let (clipped, norm) = clip_by_global_norm(&inf, 1.0);
    assert_eq!(norm, f64::INFINITY);
    assert!(clipped.iter().flatten().all(|t| t.to_scalar().is_nan()));
}

#[test]
#[should_panic(expected = "clip_by_global_norm: clip_norm must be positive and finite, got 0")]
fn clip_by_global_norm_rejects_a_zero_threshold() {
    clip_by_global_norm(&[Some(Tensor::scalar(1.0_f64))], 0.0);
}

#[test]
#[should_panic(expected = "clip_by_norm: clip_norm must be positive and finite, got NaN")]
fn clip_by_norm_rejects_a_nan_threshold() {
    clip_by_norm(&Tensor::scalar(1.0_f64), f64::NAN);
}

#[test]
fn clipping_is_not_recorded() {
    // The results are constants to a recording tape: no path to the inputs.
    let x = Tensor::from_vec(vec![3.0, 4.0], &[2]);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let (by_norm, by_global) = tape.record(|| {
        let by_global = clip_by_global_norm(&[Some(x.clone())], 1.0)
            .0
            .remove(0)
            .unwrap();
        (clip_by_norm(&x, 1.0).sum(), by_global.sum())
    });
    assert!(tape.gradient(&by_norm, &x).unwrap().is_none());
    assert!(tape.gradient(&by_global, &x).unwrap().is_none());
}

// ---------------------------------------------------------------------------------------
// Clipping: the optimizer options

#[test]
fn clipnorm_clips_each_gradient_to_its_own_norm() {
    // SGD at lr 1, so w = -clipped g. [30, 40] (norm 50) becomes [3, 4]; [0.3, 0.4] (norm
    // 0.5 < 5) is kept up to the rounding of ·5/5.
    let (a, b) = (
        Variable::new(Tensor::zeros(&[2])),
        Variable::new(Tensor::zeros(&[2])),
    );
    let g = |x: f64, y: f64| Some(Tensor::from_vec(vec![x, y], &[2]));
    let mut sgd = Sgd::new(1.0).with_clipnorm(5.0);
    sgd.apply_gradients([(g(30.0, 40.0), &a), (g(0.3, 0.4), &b)]);
    assert_eq!(a.value().to_vec(), vec![-3.0, -4.0]);
    assert_all_close(&b.value().to_vec(), &[-0.3, -0.4], 1e-16);
    // Keras' test_clip_norm: [100, 100] to norm 1 is [√2/2, √2/2]
    let w = Variable::new(Tensor::zeros(&[2]));
    RmsProp::new(1.0)
        .with_rho(0.0)
        .with_clipnorm(1.0)
        .apply_gradients([(g(100.0, 100.0), &w)]);
    // rho 0: each increment is g/√(g² + ε) with g = √2/2: about 1
    let half = 0.5_f64.sqrt();
    assert_all_close(
        &w.value().to_vec(),
        &[-half / (0.5 + 1e-7_f64).sqrt(); 2],
        1e-15,
    );
}

#[test]
fn clipnorm_keeps_a_zero_gradient_and_passes_nan_on() {
    let w = Variable::new(Tensor::from_vec(vec![1.0, 2.0], &[2]));
    let mut adam = Adam::new(0.1).with_clipnorm(1.0);
    adam.apply_gradients([(Some(Tensor::zeros(&[2])), &w)]);
    // g = 0·1/1: Adam's step is 0/(0 + ε) = 0
    assert_eq!(w.value().to_vec(), vec![1.0, 2.0]);
    adam.apply_gradients([(Some(Tensor::from_vec(vec![f64::NAN, 1.0], &[2])), &w)]);
    assert!(w.value().to_vec().iter().all(|x| x.is_nan()));
}

#[test]
fn clipvalue_clamps_each_element() {
    // Keras' test_clip_value: [100, 100] to 1 is [1, 1]; here also -100 and 0.5
    let w = Variable::new(Tensor::zeros(&[4]));
    let g = Tensor::from_vec(vec![100.0, -100.0, 0.5, f64::NAN], &[4]);
    Sgd::new(1.0)
        .with_clipvalue(1.0)
        .apply_gradients([(Some(g), &w)]);
    let got = w.value().to_vec();
    assert_eq!(&got[..3], &[-1.0, 1.0, -0.5]);
    assert!(got[3].is_nan(), "a NaN is not clipped into range: {got:?}");
}

#[test]
fn global_clipnorm_clips_all_gradients_together() {
    // Keras' test_global_clip_norm: [50, 100] with global_clipnorm 1 is [50, 100]/‖·‖.
    // Spread over two variables (and a missing gradient between them), the scale is the same.
    let (a, none, b) = (Variable::new(0.0), Variable::new(7.0), Variable::new(0.0));
    let mut sgd = Sgd::new(1.0).with_global_clipnorm(1.0);
    sgd.apply_gradients([
        (Some(Tensor::scalar(50.0)), &a),
        (None, &none),
        (Some(Tensor::scalar(100.0)), &b),
    ]);
    let norm = 12500.0_f64.sqrt();
    assert_abs_diff_eq!(a.value().to_scalar(), -50.0 / norm, epsilon = 1e-15);
    assert_abs_diff_eq!(b.value().to_scalar(), -100.0 / norm, epsilon = 1e-15);
    assert_eq!(none.value().to_scalar(), 7.0);
    assert_eq!(sgd.iterations(), 1);
    // under the threshold the step is plain SGD (up to the rounding of 200·(1/200))
    sgd = Sgd::new(1.0).with_global_clipnorm(200.0);
    sgd.apply_gradients([
        (Some(Tensor::scalar(50.0)), &a),
        (Some(Tensor::scalar(100.0)), &b),
    ]);
    assert_abs_diff_eq!(a.value().to_scalar(), -50.0 / norm - 50.0, epsilon = 1e-12);
}

#[test]
fn global_clipnorm_turns_a_non_finite_norm_into_nan_weights() {
    // As tf.clip_by_global_norm: one infinite gradient makes every gradient NaN.
    let (a, b) = (Variable::new(1.0), Variable::new(1.0));
    let mut adagrad = Adagrad::new(0.1).with_global_clipnorm(1.0);
    adagrad.apply_gradients([
        (Some(Tensor::scalar(f64::INFINITY)), &a),
        (Some(Tensor::scalar(1.0)), &b),
    ]);
    assert!(a.value().to_scalar().is_nan() && b.value().to_scalar().is_nan());
}

#[test]
fn global_clipnorm_checks_every_shape_before_updating() {
    let a = Variable::with_name("a", Tensor::<f64>::zeros(&[2]));
    let b = Variable::with_name("b", Tensor::<f64>::zeros(&[2]));
    let mut adam = Adam::new(0.1).with_global_clipnorm(1.0);
    let line = line!() + 2;
    let (file, at, message) = common::panic_site(|| {
        adam.apply_gradients([
            (Some(Tensor::ones(&[2])), &a),
            (Some(Tensor::ones(&[3])), &b),
        ])
    });
    assert_eq!((file.as_str(), at), (file!(), line), "{message}");
    assert!(
        message
            .contains("Adam::apply_gradients: gradient of shape [3] for variable 'b' of shape [2]"),
        "{message}"
    );
    assert_eq!(a.value().to_vec(), vec![0.0, 0.0], "nothing was updated");
}

#[test]
#[should_panic(
    expected = "AdamW::with_clipvalue: only one of clipnorm, clipvalue and global_clipnorm can be set, and clipnorm already is"
)]
fn only_one_clipping_option() {
    let _ = AdamW::<f32>::new(0.1)
        .with_clipnorm(1.0)
        .with_clipvalue(1.0);
}

#[test]
#[should_panic(
    expected = "RmsProp::with_global_clipnorm: global_clipnorm must be positive and finite, got -1"
)]
fn clipping_thresholds_must_be_positive() {
    let _ = RmsProp::<f64>::new(0.1).with_global_clipnorm(-1.0);
}

// ---------------------------------------------------------------------------------------
// What every optimizer shares

#[test]
fn new_optimizers_name_themselves_in_shape_panics_at_the_call() {
    let w = Variable::with_name("w", Tensor::<f32>::zeros(&[2]));
    let bad = || [(Some(Tensor::zeros(&[3])), &w)];
    let check = |name: &str, step: &dyn Fn()| {
        let (file, _, message) = common::panic_site(step);
        assert_eq!(file, file!(), "{message}");
        let want = format!("{name}: gradient of shape [3] for variable 'w' of shape [2]");
        assert!(message.contains(&want), "{message}");
    };
    check("RmsProp::apply_gradients", &|| {
        RmsProp::new(0.1).apply_gradients(bad())
    });
    check("AdamW::apply_gradients", &|| {
        AdamW::new(0.1).apply_gradients(bad())
    });
    check("Adagrad::apply_gradients", &|| {
        Adagrad::new(0.1).apply_gradients(bad())
    });
}

#[test]
fn new_optimizers_skip_missing_gradients_and_count_steps() {
    let (a, b) = (Variable::new(1.0_f32), Variable::new(2.0_f32));
    let mut rmsprop = RmsProp::new(0.1);
    rmsprop.apply_gradients([(None, &a), (Some(Tensor::scalar(1.0)), &b)]);
    let mut adagrad = Adagrad::new(0.1);
    adagrad.apply_gradients([(None, &a)]);
    assert_eq!(a.value().to_scalar(), 1.0);
    assert!(b.value().to_scalar() < 2.0);
    assert_eq!((rmsprop.iterations(), adagrad.iterations()), (1, 1));
}

#[test]
fn new_optimizers_are_not_recorded_on_an_active_tape() {
    let w = Variable::new(3.0);
    let tape = GradientTape::new();
    let y = tape.record(|| {
        let y = w.square();
        RmsProp::new(0.1).apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
        AdamW::new(0.1).apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
        Adagrad::new(0.1).apply_gradients([(Some(Tensor::scalar(1.0)), &w)]);
        y
    });
    // d/dw w² = 2w = 6 at the value read before the updates
    assert_eq!(tape.gradient(&y, &w).unwrap().unwrap().to_scalar(), 6.0);
    assert!(w.value().to_scalar() < 3.0);
}

/// After a training step no tensor shares a kernel's storage, so each optimizer updates it
/// in place, with and without the clipping and decay options.
#[test]
fn new_optimizers_update_weights_in_place() {
    type Step = Box<dyn Fn(Vec<Option<Tensor<f32>>>, &[Variable<f32>])>;
    let steps: Vec<(&str, Step)> = vec![
        (
            "RmsProp",
            Box::new(|g, v| {
                RmsProp::new(0.01)
                    .with_centered(true)
                    .with_momentum(0.9)
                    .apply_gradients(g.into_iter().zip(v))
            }),
        ),
        (
            "AdamW",
            Box::new(|g, v| {
                AdamW::new(0.01)
                    .with_amsgrad(true)
                    .apply_gradients(g.into_iter().zip(v))
            }),
        ),
        (
            "Adagrad",
            Box::new(|g, v| {
                Adagrad::new(0.01)
                    .with_clipnorm(1.0)
                    .apply_gradients(g.into_iter().zip(v))
            }),
        ),
        (
            "Adam, global clipnorm",
            Box::new(|g, v| {
                Adam::new(0.01)
                    .with_global_clipnorm(1.0)
                    .apply_gradients(g.into_iter().zip(v))
            }),
        ),
        (
            "Sgd, clipvalue and decay",
            Box::new(|g, v| {
                Sgd::new(0.1)
                    .with_clipvalue(0.1)
                    .with_weight_decay(0.1)
                    .apply_gradients(g.into_iter().zip(v))
            }),
        ),
    ];
    let address = |v: &Variable<f32>| v.value().view().as_ptr();
    for (name, step) in steps {
        let dense = Dense::new("dense", 4, 3, 0);
        let variables = dense.trainable_variables();
        let x = Tensor::from_vec((0..8).map(|i| i as f32 / 8.0).collect(), &[2, 4]);
        let before = address(&variables[0]);
        let value_before = variables[0].value().to_vec();
        let tape = GradientTape::new();
        let loss = tape.record(|| dense.call(&x).square().mean());
        let grads = tape.gradient(&loss, &variables).unwrap();
        step(grads, &variables);
        assert_eq!(address(&variables[0]), before, "{name}");
        assert_ne!(variables[0].value().to_vec(), value_before, "{name}");
    }
}

#[test]
fn optimizers_are_send() {
    fn send<O: Send>(_: &O) {}
    send(&Sgd::<f32>::from_schedule(CosineDecay::new(0.1, 10)));
    send(&Adam::<f32>::new(0.1));
    send(&AdamW::<f64>::new(0.1));
    send(&RmsProp::<f32>::new(0.1));
    send(&Adagrad::<f64>::new(0.1));
}
