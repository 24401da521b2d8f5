//! Gradient and activation statistics (`nn::diagnostics`) against hand-computed values, and
//! the training monitor's warnings (`nn::monitor`) on constructed histories.

use std::collections::{BTreeMap, HashMap};

use gradtape::nn::diagnostics::{ActivationStats, GradientStats, Leaf, is_flat};
use gradtape::nn::monitor::{Monitor, Warning};
use gradtape::nn::{Activation, Dense, Layer, Sequential, plot};
use gradtape::{GradientTape, Tensor, Variable};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// A leaf named `name` with weight `[1]` (‖w‖ = 1) and a scalar gradient `g`.
fn leaf(name: &str, g: Option<f64>) -> Leaf {
    Leaf {
        name: name.into(),
        value: Tensor::scalar(1.0_f64).into(),
        gradient: g.map(|g| Tensor::scalar(g).into()),
    }
}

fn stats(leaves: &[Leaf]) -> GradientStats {
    GradientStats::from_leaves(leaves, 0.1)
}

#[test]
fn gradient_statistics_match_hand_computed_values() {
    let kernel = Variable::with_name(
        "dense/kernel",
        Tensor::from_vec(vec![1.0_f32, 2.0, 2.0, 4.0], &[2, 2]),
    );
    let bias = Variable::with_name("dense/bias", Tensor::from_vec(vec![0.0_f32, 0.0], &[2]));
    let unused = Variable::with_name("unused", 3.0_f32);
    let grads = vec![
        Some(Tensor::from_vec(vec![0.0_f32, -3.0, 4.0, 0.0], &[2, 2])),
        Some(Tensor::from_vec(vec![12.0_f32, 0.0], &[2])),
        None,
    ];
    let variables = vec![kernel, bias, unused];
    let s = GradientStats::new(&variables, &grads, 0.1);

    let k = s.get("dense/kernel").unwrap();
    // ‖w‖ = sqrt(1 + 4 + 4 + 16) = 5
    assert_eq!((k.shape.as_slice(), k.weight_norm), (&[2, 2][..], 5.0));
    let g = k.gradient.as_ref().unwrap();
    // ‖g‖ = sqrt(0 + 9 + 16 + 0) = 5; max |g| = 4; mean = (0 - 3 + 4 + 0) / 4 = 0.25;
    // 2 zeros of 4; update ratio = lr·‖g‖/‖w‖ = 0.1·5/5 = 0.1
    assert_eq!(
        (g.norm, g.max_abs, g.mean, g.zero_fraction),
        (5.0, 4.0, 0.25, 0.5)
    );
    assert!(close(g.update_ratio.unwrap(), 0.1));
    assert_eq!((g.nan, g.infinite), (0, 0));

    let b = s.get("dense/bias").unwrap().gradient.as_ref().unwrap();
    // ‖g‖ = 12, mean = 6, one zero of two; ‖w‖ = 0: no ratio exists
    assert_eq!(
        (b.norm, b.mean, b.zero_fraction, b.update_ratio),
        (12.0, 6.0, 0.5, None)
    );

    // a None gradient is reported as missing, never as zero
    let u = s.get("unused").unwrap();
    assert!(u.gradient.is_none());
    assert_eq!(u.weight_norm, 3.0);
    assert_eq!(
        s.missing().map(|v| v.name.as_str()).collect::<Vec<_>>(),
        ["unused"]
    );

    // global norm = sqrt(5² + 12²) = 13 over the gradients that exist
    assert_eq!(s.global_norm(), 13.0);
    assert_eq!(s.learning_rate(), 0.1);
}

#[test]
fn gradient_statistics_of_a_recorded_gradient() {
    let (w1, w2) = (
        Variable::with_name("w1", 5.0_f32),
        Variable::with_name("w2", 3.0_f32),
    );
    let tape = GradientTape::new();
    let z = tape.record(|| 3.0 * w1.powi(2) + 2.0 * &w1 * &w2);
    let grads = tape.gradient(&z, [&w1, &w2]).unwrap();
    let s = GradientStats::new(&[&w1, &w2], &grads, 0.01);
    // ∂z/∂w1 = 6·w1 + 2·w2 = 36, ∂z/∂w2 = 2·w1 = 10
    let norms: Vec<f64> = s
        .variables()
        .iter()
        .map(|v| v.gradient.as_ref().unwrap().norm)
        .collect();
    assert_eq!(norms, [36.0, 10.0]);
    // sqrt(36² + 10²) = sqrt(1396)
    assert!(close(s.global_norm(), 1396f64.sqrt()));
    // update ratios: 0.01·36/5 = 0.072 and 0.01·10/3
    let ratio = |name: &str| {
        s.get(name)
            .unwrap()
            .gradient
            .as_ref()
            .unwrap()
            .update_ratio
            .unwrap()
    };
    assert!(close(ratio("w1"), 0.072));
    assert!(close(ratio("w2"), 0.1 / 3.0));
}

#[test]
fn non_finite_gradients_are_counted() {
    let w = Variable::with_name("w", Tensor::from_vec(vec![1.0_f64; 4], &[4]));
    let g = Tensor::from_vec(vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -2.0], &[4]);
    let s = GradientStats::new(&w, &Some(g), 0.1);
    let g = s.variables()[0].gradient.as_ref().unwrap();
    // one NaN, two infinities; max |g| skips the NaN and finds +inf; the norm is NaN
    assert_eq!((g.nan, g.infinite, g.max_abs), (1, 2, f64::INFINITY));
    assert!(g.norm.is_nan() && g.mean.is_nan() && !g.is_finite());
    assert!(s.global_norm().is_nan());
}

/// `|a - b| <= tolerance·|b|`.
fn within(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * b.abs()
}

/// The one gradient statistic of `g` (weight `w`, learning rate 1), and `w`'s norm.
fn summary_of<T: gradtape::Float>(
    g: Tensor<T>,
    w: Tensor<T>,
) -> (gradtape::nn::diagnostics::GradientSummary, f64) {
    let w = Variable::with_name("w", w);
    let s = GradientStats::new(&w, &Some(g), 1.0);
    let v = &s.variables()[0];
    (v.gradient.clone().unwrap(), v.weight_norm)
}

#[test]
fn norms_of_large_f32_tensors_are_within_1e_6_of_f64() {
    // g = 1, 2, ..., 100000 (every one exact in f32, their squares up to 1e10 are not):
    // Σ i² = n(n + 1)(2n + 1)/6 = 333,338,333,350,000 for n = 1e5 (exact in f64), Σ i =
    // n(n + 1)/2, so mean = (n + 1)/2 = 50000.5; no zeros; max = n
    let n = 100_000_usize;
    let ramp: Vec<f32> = (1..=n).map(|i| i as f32).collect();
    let ramp = Tensor::from_vec(ramp, &[1000, 100]);
    let (g, w_norm) = summary_of(ramp.clone(), ramp);
    let norm = 333_338_333_350_000_f64.sqrt();
    assert!(within(g.norm, norm, 1e-6), "{} vs {norm}", g.norm);
    assert!(within(w_norm, norm, 1e-6), "{w_norm} vs {norm}");
    assert!(within(g.mean, 50_000.5, 1e-6), "{}", g.mean);
    assert_eq!(
        (g.max_abs, g.zero_fraction, g.nan, g.infinite),
        (1e5, 0.0, 0, 0)
    );
    // update ratio 1·‖g‖/‖w‖ of two equal tensors
    assert!(within(g.update_ratio.unwrap(), 1.0, 1e-12));

    // 0.1f32 (not exact: its value x is 0.100000001490116...) in 100003 elements (not a
    // whole number of blocks or lanes): every seventh (14287, from index 0) zero, of the
    // others every third (28572) negated: ‖g‖ = |x|·sqrt(100003 - 14287), mean =
    // x·(57144 - 28572)/100003
    let n = 100_003_usize;
    let x = f64::from(0.1_f32);
    let values: Vec<f32> = (0..n)
        .map(|i| match (i % 7, i % 3) {
            (0, _) => 0.0,
            (_, 0) => -0.1,
            _ => 0.1,
        })
        .collect();
    let zeros = (0..n).filter(|i| i % 7 == 0).count();
    let negative = (0..n).filter(|i| i % 7 != 0 && i % 3 == 0).count();
    assert_eq!((zeros, negative), (14_287, 28_572));
    let positive = n - zeros - negative;
    let (g, w_norm) = summary_of(
        Tensor::from_vec(values.clone(), &[n]),
        Tensor::from_vec(values, &[n]),
    );
    let norm = x * ((n - zeros) as f64).sqrt();
    assert!(within(g.norm, norm, 1e-6), "{} vs {norm}", g.norm);
    assert!(within(w_norm, norm, 1e-6), "{w_norm} vs {norm}");
    let mean = x * (positive as f64 - negative as f64) / n as f64;
    // a sum of mixed signs is promised to within 16·2⁻²⁴·Σ|g| (16 terms per f32 lane),
    // relative to Σg: Σ|g| / |Σg| = 85716 / 28572 here
    let tolerance = 16.0 * 2f64.powi(-24) * (n - zeros) as f64 / (positive - negative) as f64;
    assert!(within(g.mean, mean, tolerance), "{} vs {mean}", g.mean);
    assert_eq!(g.zero_fraction, zeros as f64 / n as f64);
    assert_eq!(g.max_abs, x);
}

#[test]
fn statistics_of_any_length_match_a_plain_f64_loop() {
    // lengths around the 16 lanes and 256-element blocks, normal values with every fifth
    // zeroed (some negative zeros): each statistic against a plain loop over the values in
    // f64; max, zeros and counts exactly, sums within the f32 lanes' bounds
    for (seed, len) in [0, 1, 15, 16, 17, 255, 256, 257, 4099, 100_003]
        .into_iter()
        .enumerate()
    {
        let mut values = Tensor::<f32>::random_normal(&[len], 0.0, 3.0, seed as u64).to_vec();
        for (i, v) in values.iter_mut().enumerate() {
            if i % 5 == 0 {
                *v = if i % 10 == 0 { -0.0 } else { 0.0 };
            }
        }
        let wide: Vec<f64> = values.iter().map(|&v| f64::from(v)).collect();
        let squares: f64 = wide.iter().map(|v| v * v).sum();
        let total: f64 = wide.iter().sum();
        let absolute: f64 = wide.iter().map(|v| v.abs()).sum();
        let max_abs = wide.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        let zeros = wide.iter().filter(|v| **v == 0.0).count();

        let (g, w_norm) = summary_of(
            Tensor::from_vec(values.clone(), &[len]),
            Tensor::from_vec(values, &[len]),
        );
        let n = len.max(1) as f64;
        assert!(
            within(g.norm, squares.sqrt(), 1e-6),
            "{len}: norm {}",
            g.norm
        );
        assert!(
            within(w_norm, squares.sqrt(), 1e-6),
            "{len}: weight {w_norm}"
        );
        // 16 terms per f32 lane: within 16·2⁻²⁴·Σ|g| of Σg
        let bound = 16.0 * 2f64.powi(-24) * absolute / n;
        assert!(
            (g.mean - total / n).abs() <= bound,
            "{len}: mean {}",
            g.mean
        );
        assert_eq!(g.max_abs, max_abs, "{len}");
        assert_eq!(g.zero_fraction, zeros as f64 / n, "{len}");
        assert_eq!((g.nan, g.infinite), (0, 0));
    }
}

#[test]
fn f32_gradients_beyond_f32_squares_range_are_exact() {
    // (1e20)² overflows f32 and (1e-25)² underflows it; both are summed in f64 again:
    // ‖g‖ = |x|·sqrt(1000) for 1000 elements x, finite, nothing counted as non-finite
    for x in [1e20_f32, -1e20, 1e-25, 3e-39] {
        let t = Tensor::from_vec(vec![x; 1000], &[1000]);
        let (g, w_norm) = summary_of(t.clone(), t);
        let norm = f64::from(x).abs() * 1000f64.sqrt();
        assert!(within(g.norm, norm, 1e-12), "{x}: {} vs {norm}", g.norm);
        assert!(within(w_norm, norm, 1e-12), "{x}: {w_norm} vs {norm}");
        assert_eq!((g.nan, g.infinite, g.max_abs), (0, 0, f64::from(x).abs()));
        assert!(within(g.mean, f64::from(x), 1e-12));
    }
    // an all-zero weight (a fresh bias) has norm 0 exactly, and no update ratio
    let (g, w_norm) = summary_of(Tensor::<f32>::ones(&[300]), Tensor::zeros(&[300]));
    assert_eq!((w_norm, g.update_ratio), (0.0, None));
}

#[test]
fn large_f64_tensors_are_summed_in_f64() {
    // the ramp of the f32 test in f64: its sums are exact integers below 2⁵³
    let n = 100_000_usize;
    let ramp = Tensor::from_vec((1..=n).map(|i| i as f64).collect(), &[n]);
    let (g, w_norm) = summary_of(ramp.clone(), ramp);
    let norm = 333_338_333_350_000_f64.sqrt();
    assert!(within(g.norm, norm, 1e-15) && within(w_norm, norm, 1e-15));
    assert_eq!((g.mean, g.max_abs, g.zero_fraction), (50_000.5, 1e5, 0.0));
}

#[test]
fn every_sources_structure_pairs_with_its_gradients() {
    let (a, b) = (
        Variable::with_name("a", 2.0_f32),
        Variable::with_name("b", 1.0_f64),
    );
    let x = Tensor::scalar(4.0_f32);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    // y = a·x + b: ∂y/∂a = x = 4, ∂y/∂b = 1 (an f64 source), ∂y/∂x = a = 2
    let y = tape.record(|| &a * &x + b.value().cast::<f32>());

    // a tuple of mixed dtypes, with a tensor source (named by its position)
    let grads = tape.gradient(&y, (&a, &b, &x)).unwrap();
    let s = GradientStats::new(&(&a, &b, &x), &grads, 1.0);
    let names: Vec<&str> = s.variables().iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "#2"]);
    // sqrt(4² + 1² + 2²) = sqrt(21)
    assert!(close(s.global_norm(), 21f64.sqrt()));

    // maps: each leaf paired with the gradient under its own key
    let c = Variable::with_name("c", 1.0_f32);
    let sources = HashMap::from([("a", &a), ("c", &c)]);
    let grads = tape.gradient(&y, &sources).unwrap();
    let s = GradientStats::new(&sources, &grads, 1.0);
    assert_eq!(s.get("a").unwrap().gradient.as_ref().unwrap().norm, 4.0);
    assert!(s.get("c").unwrap().gradient.is_none());
    let sources = BTreeMap::from([(1, [&a])]);
    let grads = tape.gradient(&y, &sources).unwrap();
    assert_eq!(GradientStats::new(&sources, &grads, 1.0).global_norm(), 4.0);

    // a slice of variables, as a model's trainable_variables()
    let vars = vec![a.clone()];
    let grads = tape.gradient(&y, &vars).unwrap();
    assert_eq!(
        GradientStats::new(vars.as_slice(), &grads, 1.0).global_norm(),
        4.0
    );
}

#[test]
#[should_panic(expected = "2 sources but 1 gradients")]
fn gradients_of_another_structure_are_refused() {
    let vars = vec![Variable::new(1.0_f32), Variable::new(2.0_f32)];
    GradientStats::new(&vars, &vec![None], 0.1);
}

#[test]
fn activation_statistics_match_hand_computed_values() {
    // ReLU, 2 examples × 3 units: zeros at (0,0), (0,2), (1,0): 3 of 6 outputs flat;
    // unit 0 is zero for both examples: 1 of 3 units dead
    let relu = Tensor::from_vec(vec![0.0_f32, 1.0, 0.0, 0.0, 2.0, 3.0], &[2, 3]);
    let s = ActivationStats::new("relu", Activation::Relu, &relu);
    assert_eq!((s.units, s.batch), (3, 2));
    assert_eq!(
        (s.flat_fraction, s.dead_fraction),
        (Some(0.5), Some(1.0 / 3.0))
    );

    // sigmoid, saturated below 0.01 or above 0.99: 0.005, 0.995 and 0.999 are (3 of 4);
    // unit 0 (0.005, 0.995) is saturated for both examples, unit 1 (0.5, 0.999) is not
    let sigmoid = Tensor::from_vec(vec![0.005_f64, 0.5, 0.995, 0.999], &[2, 2]);
    let s = ActivationStats::new("sigmoid", Activation::Sigmoid, &sigmoid);
    assert_eq!((s.flat_fraction, s.dead_fraction), (Some(0.75), Some(0.5)));

    // tanh, saturated at |y| > 0.99: 0.995, -0.999, -0.995 are (3 of 4); unit 1
    // (-0.999, -0.995) is saturated for both
    let tanh = Tensor::from_vec(vec![0.995_f64, -0.999, 0.5, -0.995], &[2, 2]);
    let s = ActivationStats::new("tanh", Activation::Tanh, &tanh);
    assert_eq!((s.flat_fraction, s.dead_fraction), (Some(0.75), Some(0.5)));
    // the thresholds themselves are not saturated: σ = 0.99 and tanh = 0.99 still pass
    assert_eq!(is_flat(Activation::Sigmoid, 0.99), Some(false));
    assert_eq!(is_flat(Activation::Tanh, 0.99), Some(false));

    // a linear layer has no flat region
    let s = ActivationStats::new("logits", Activation::Linear, &relu);
    assert_eq!((s.flat_fraction, s.dead_fraction), (None, None));
}

#[test]
fn layers_expose_their_activations_without_changing_their_results() {
    // relu(x·[1, -1]) for x = 1, 2: [[1, 0], [2, 0]]: the second unit is dead
    let hidden = Dense::from_values(
        "hidden",
        Tensor::from_vec(vec![1.0_f32, -1.0], &[1, 2]),
        Tensor::from_vec(vec![0.0, 0.0], &[2]),
    )
    .with_activation(Activation::Relu);
    let model = Sequential::new()
        .push(hidden)
        .push(Dense::new("out", 2, 1, 0));
    let x = Tensor::from_vec(vec![1.0_f32, 2.0], &[2, 1]);
    let mut outputs = Vec::new();
    let y = model.call_with_activations(&x, &mut outputs);
    assert_eq!(y.to_vec(), model.call(&x).to_vec());
    assert_eq!(outputs.len(), 2);
    assert_eq!(outputs[0].output.to_vec(), vec![1.0, 0.0, 2.0, 0.0]);
    let layers = ActivationStats::of_layers(&outputs);
    assert_eq!(
        (layers[0].layer.as_str(), layers[0].dead_fraction),
        ("hidden", Some(0.5))
    );
    assert_eq!(
        (layers[1].layer.as_str(), layers[1].dead_fraction),
        ("out", None)
    );

    // on a tape, the gradient through call_with_activations is call's
    let vars = model.trainable_variables();
    let grad = |with: bool| {
        let tape = GradientTape::new();
        let loss = tape.record(|| {
            let y = if with {
                model.call_with_activations(&x, &mut Vec::new())
            } else {
                model.call(&x)
            };
            y.square().sum()
        });
        let grads = tape.gradient(&loss, &vars).unwrap();
        grads
            .into_iter()
            .map(|g| g.unwrap().to_vec())
            .collect::<Vec<_>>()
    };
    assert_eq!(grad(true), grad(false));
}

/// Records `norms[i]` as the gradient of "w" at step `i` and returns every warning.
fn run(monitor: &mut Monitor, norms: &[Option<f64>]) -> Vec<Warning> {
    norms
        .iter()
        .enumerate()
        .flat_map(|(step, &g)| monitor.record(step as u64, &stats(&[leaf("w", g)]), &[]))
        .collect()
}

#[test]
fn vanishing_gradients_warn_after_patience_records_and_once_per_streak() {
    let mut monitor = Monitor::new().with_vanishing(1e-5, 3);
    let low = Some(1e-7);
    let norms = [Some(1.0), low, low, low, low, Some(1.0), low, low, low];
    let warnings = run(&mut monitor, &norms);
    // streaks of lows start at steps 1 and 6; the third low of each is steps 3 and 8, for
    // "w" and for the global norm (the only gradient)
    let at: Vec<(u64, &str)> = warnings.iter().map(|w| (w.step(), w.subject())).collect();
    assert_eq!(
        at,
        [(3, "global norm"), (3, "w"), (8, "global norm"), (8, "w")]
    );
    assert!(matches!(
        &warnings[1],
        Warning::Vanishing { variable: Some(v), norm, threshold, records: 3, .. }
            if v == "w" && *norm == 1e-7 && *threshold == 1e-5
    ));
    let message = warnings[1].to_string();
    assert!(message.contains("vanishing gradient of 'w'"), "{message}");
    assert_eq!(monitor.warnings(), warnings.as_slice());
    assert_eq!(monitor.records().len(), norms.len());
}

#[test]
fn exploding_gradients_warn_when_they_cross_the_threshold() {
    let mut monitor = Monitor::new().with_exploding(1e3);
    let warnings = run(
        &mut monitor,
        &[Some(1.0), Some(1e4), Some(1e5), Some(1.0), Some(2e3)],
    );
    let at: Vec<(u64, &str)> = warnings.iter().map(|w| (w.step(), w.subject())).collect();
    // steps 1 and 4 start a streak above 1e3; step 2 continues one
    assert_eq!(
        at,
        [(1, "global norm"), (1, "w"), (4, "global norm"), (4, "w")]
    );
    assert!(matches!(warnings[1], Warning::Exploding { norm, .. } if norm == 1e4));
    assert!(warnings[1].to_string().contains("Lower the learning rate"));
}

#[test]
fn nan_gradients_warn_as_non_finite_not_as_exploding() {
    let mut monitor = Monitor::new();
    let w = Variable::with_name("dense/kernel", Tensor::from_vec(vec![1.0_f32; 3], &[3]));
    let nan = Tensor::from_vec(vec![f32::NAN, f32::INFINITY, 1.0], &[3]);
    let mut warnings = Vec::new();
    for step in 0..3 {
        let g = if step == 0 {
            Tensor::ones(&[3])
        } else {
            nan.clone()
        };
        warnings.extend(monitor.record(step, &GradientStats::new(&w, &Some(g), 0.1), &[]));
    }
    // raised once, when the NaN appears (step 1), with its counts
    assert_eq!(
        warnings,
        [Warning::NonFinite {
            step: 1,
            variable: "dense/kernel".into(),
            nan: 1,
            infinite: 1
        }]
    );
    assert!(warnings[0].to_string().contains("1 NaN and 1 infinite"));
}

#[test]
fn missing_gradients_warn_once() {
    let mut monitor = Monitor::new();
    let warnings = run(&mut monitor, &[None, None, Some(1.0), None]);
    let at: Vec<u64> = warnings.iter().map(Warning::step).collect();
    assert_eq!(at, [0, 3]);
    assert!(matches!(&warnings[0], Warning::MissingGradient { variable, .. } if variable == "w"));
    assert!(warnings[0].to_string().contains("GradientTape::explain"));
}

#[test]
fn dead_and_saturated_layers_warn_after_patience_records() {
    let mut monitor = Monitor::new().with_vanishing(1e-5, 2).with_dead_units(0.5);
    // relu: 4 units, the first 3 zero for both examples (75% dead), then recovered
    let dead = Tensor::from_vec(vec![0.0_f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 2.0], &[2, 4]);
    let alive = Tensor::<f32>::ones(&[2, 4]);
    // sigmoid: both units saturated for both examples
    let saturated = Tensor::from_vec(vec![0.001_f32, 0.999, 0.002, 0.998], &[2, 2]);
    let mut warnings = Vec::new();
    for (step, relu) in [&dead, &dead, &alive, &dead].into_iter().enumerate() {
        let layers = [
            ActivationStats::new("dense", Activation::Relu, relu),
            ActivationStats::new("sigmoid", Activation::Sigmoid, &saturated),
        ];
        warnings.extend(monitor.record(step as u64, &stats(&[leaf("w", Some(1.0))]), &layers));
    }
    // both layers at their second record in a row (step 1); "dense" recovers at step 2
    // and has only one dead record after it
    assert_eq!(warnings.len(), 2);
    assert_eq!(
        warnings[0],
        Warning::DeadLayer {
            step: 1,
            layer: "dense".into(),
            activation: Activation::Relu,
            dead_fraction: 0.75,
            threshold: 0.5,
            records: 2
        }
    );
    let message = warnings[0].to_string();
    assert!(
        message.contains("dead layer 'dense': 75% of its ReLU units"),
        "{message}"
    );
    let message = warnings[1].to_string();
    assert!(
        message.contains("saturated layer 'sigmoid': 100% of its Sigmoid units"),
        "{message}"
    );
}

#[test]
fn the_history_is_written_as_csv_and_plotted() {
    let mut monitor = Monitor::new().with_every(2);
    assert!(monitor.is_due(4) && !monitor.is_due(3));
    let relu = Tensor::from_vec(vec![0.0_f32, 1.0], &[1, 2]);
    for step in [0, 2, 4] {
        let leaves = [
            leaf("dense/kernel", Some(0.5f64.powi(step))),
            leaf("dense/bias", None),
            leaf("out/kernel", Some(f64::NAN)),
        ];
        let layers = [ActivationStats::new("dense", Activation::Relu, &relu)];
        monitor.record(step as u64, &stats(&leaves), &layers);
    }
    let csv = monitor.to_csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "step,kind,name,statistic,value");
    // the global norm is NaN (a NaN gradient); the step-4 kernel's norm is 0.5⁴
    assert!(lines.contains(&"0,gradient,global,norm,NaN"));
    assert!(lines.contains(&"4,gradient,dense/kernel,norm,0.0625"));
    // update ratio 0.1·0.0625/1
    assert!(lines.contains(&"4,gradient,dense/kernel,update_ratio,0.00625"));
    assert!(lines.contains(&"2,gradient,dense/bias,missing,1"));
    assert!(lines.contains(&"2,activation,dense,dead_fraction,0.5"));
    let dir = std::env::temp_dir().join(format!("gradtape-diagnostics-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    monitor.write_csv(dir.join("history.csv")).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("history.csv")).unwrap(),
        csv
    );
    plot::gradient_norms(dir.join("norms.png"), "norms", &monitor).unwrap();
    plot::dead_units(dir.join("dead.png"), "dead", &monitor).unwrap();
    assert!(std::fs::metadata(dir.join("norms.png")).unwrap().len() > 1000);
    std::fs::remove_dir_all(&dir).unwrap();
}
