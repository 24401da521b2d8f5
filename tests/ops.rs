//! Forward values of every op against independent computations (ndarray or hand
//! arithmetic), f32 behaviour, broadcasting shapes, gradients at ties and kinks, `Display`,
//! and every misuse panic: its message (op and shapes) and that it points at the user's line.

use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind};

use approx::assert_relative_eq;
use gradtape::{GradientTape, Primal, Tensor, Variable, vjp};
use ndarray::{ArrayD, Axis, IxDyn, ShapeBuilder};

/// A tensor of `shape` with distinct, non-round entries, and the same as an ndarray array.
fn sample(shape: &[usize]) -> (Tensor<f64>, ArrayD<f64>) {
    let n: usize = shape.iter().product();
    let values: Vec<f64> = (0..n).map(|i| 0.7 * i as f64 - 1.3).collect();
    let array = ArrayD::from_shape_vec(IxDyn(shape), values.clone()).unwrap();
    (Tensor::from_vec(values, shape), array)
}

/// Nonzero entries, for divisors.
fn nonzero(shape: &[usize]) -> (Tensor<f64>, ArrayD<f64>) {
    let (_, a) = sample(shape);
    let a = a.mapv(|v| if v >= 0.0 { v + 0.5 } else { v - 0.5 });
    (Tensor::from(a.clone()), a)
}

#[track_caller]
fn assert_matches(t: &Tensor<f64>, expected: &ArrayD<f64>) {
    assert_eq!(t.shape(), expected.shape(), "shape");
    for (got, want) in t.to_vec().iter().zip(expected.iter()) {
        assert_relative_eq!(*got, *want, max_relative = 1e-12, epsilon = 1e-14);
    }
}

// ---------------------------------------------------------------- binary arithmetic

const BROADCAST_PAIRS: &[(&[usize], &[usize], &[usize])] = &[
    (&[2, 3], &[2, 3], &[2, 3]),
    (&[2, 3], &[3], &[2, 3]),
    (&[3], &[2, 3], &[2, 3]),
    (&[2, 1], &[1, 3], &[2, 3]),
    (&[4, 1, 3], &[2, 1], &[4, 2, 3]),
    (&[], &[2, 3], &[2, 3]),
    (&[2, 3], &[], &[2, 3]),
    (&[], &[], &[]),
    (&[1], &[], &[1]),
    (&[3], &[1, 3], &[1, 3]),
    (&[1, 3], &[3], &[1, 3]),
    (&[2, 3], &[1, 1, 3], &[1, 2, 3]),
    (&[1, 1, 3], &[2, 3], &[1, 2, 3]),
    (&[2, 3, 4], &[3, 4], &[2, 3, 4]),
    (&[3, 4], &[2, 1, 4], &[2, 3, 4]),
    (&[0, 3], &[3], &[0, 3]),
    (&[2, 3], &[2, 1], &[2, 3]),
    (&[2, 1], &[2, 3], &[2, 3]),
    (&[2, 3, 4], &[2, 1, 1], &[2, 3, 4]),
    (&[2, 3, 4], &[2, 3, 1], &[2, 3, 4]),
    (&[2, 1, 1], &[2, 3, 4], &[2, 3, 4]),
    (&[1, 1], &[2, 3], &[2, 3]),
    (&[2, 3], &[1, 1], &[2, 3]),
    (&[2, 1, 4], &[2, 3, 1], &[2, 3, 4]),
];

#[test]
fn arithmetic_broadcasts_as_ndarray_does() {
    for &(sx, sy, expected_shape) in BROADCAST_PAIRS {
        let (x, a) = sample(sx);
        let (y, b) = nonzero(sy);
        for (t, want) in [
            (&x + &y, &a + &b),
            (&x - &y, &a - &b),
            (&x * &y, &a * &b),
            (&x / &y, &a / &b),
        ] {
            assert_eq!(t.shape(), expected_shape, "{sx:?} with {sy:?}");
            assert_matches(&t, &want);
        }
    }
}

/// Column-major storage (from ndarray) takes the general path, with the same values.
#[test]
fn arithmetic_on_column_major_storage() {
    let (_, a) = sample(&[3, 2]);
    let (_, b) = nonzero(&[3, 2]);
    let (a, b) = (a.reversed_axes(), b.reversed_axes());
    assert!(a.as_slice().is_none());
    let (x, y) = (Tensor::from(a.clone()), Tensor::from(b.clone()));
    assert_matches(&(&x * &y), &(&a * &b));
    let (_, row) = sample(&[3]);
    assert_matches(&(&x - &Tensor::from(row.clone())), &(&a - &row));
    assert_matches(&x.exp(), &a.mapv(f64::exp));
}

#[test]
fn maximum_and_minimum_broadcast_elementwise() {
    for &(sx, sy, _) in BROADCAST_PAIRS {
        let (x, a) = sample(sx);
        let (_, b) = nonzero(sy);
        let b = b.mapv(|v| -0.5 * v);
        let y = Tensor::from(b.clone());
        let shape = x.maximum(&y).shape().to_vec();
        let a = a.broadcast(IxDyn(&shape)).unwrap().to_owned();
        let b = b.broadcast(IxDyn(&shape)).unwrap().to_owned();
        let max = ndarray::Zip::from(&a).and(&b).map_collect(|p, q| p.max(*q));
        let min = ndarray::Zip::from(&a).and(&b).map_collect(|p, q| p.min(*q));
        assert_matches(&x.maximum(&y), &max);
        assert_matches(&x.minimum(&y), &min);
    }
}

#[test]
fn scalar_operands_on_either_side() {
    let (x, a) = sample(&[2, 3]);
    assert_matches(&(&x + 2.0), &(&a + 2.0));
    assert_matches(&(2.0 + &x), &(2.0 + &a));
    assert_matches(&(&x - 2.0), &(&a - 2.0));
    assert_matches(&(2.0 - &x), &(2.0 - &a));
    assert_matches(&(&x * 3.0), &(&a * 3.0));
    assert_matches(&(3.0 * &x), &(3.0 * &a));
    assert_matches(&(&x / 4.0), &(&a / 4.0));
    assert_matches(&(4.0 / &x), &a.mapv(|v| 4.0 / v));
    assert_matches(&(-&x), &(-&a));
    assert_matches(&x.maximum(0.0), &a.mapv(|v| v.max(0.0)));
    assert_matches(&x.minimum(0.0), &a.mapv(|v| v.min(0.0)));
    // owned operands too
    assert_matches(&(x.clone() * x.clone() - 1.0), &(&a * &a - 1.0));
}

#[test]
fn variables_are_operands_and_gradients_are_keyed_by_them() {
    let w = Variable::new(Tensor::from_vec(vec![2.0_f64, -3.0], &[2]));
    let x = Tensor::from_vec(vec![1.0_f64, 4.0], &[2]);
    let tape = GradientTape::new();
    let y = tape.record(|| (&w * &x + 1.0 - &w / 2.0 + 2.0 * &w - &w).sum());
    // y = Σ (w x + 1 - w/2 + 2w - w): ∂y/∂w = x + 1/2
    assert_eq!(
        y.to_scalar(),
        (2.0 + 1.0 - 1.0 + 4.0 - 2.0) + (-12.0 + 1.0 + 1.5 - 6.0 + 3.0)
    );
    assert_eq!(
        tape.gradient(&y, &w).unwrap().unwrap().to_vec(),
        vec![1.5, 4.5]
    );
    let v = Variable::new(3.0_f32);
    assert_eq!((&v * &v).to_scalar(), 9.0);
    assert_eq!((1.0 - v.clone()).to_scalar(), -2.0);
    assert_eq!(v.maximum(5.0).to_scalar(), 5.0);
}

// ---------------------------------------------------------------- elementwise functions

type Unary = (
    &'static str,
    fn(&Tensor<f64>) -> Tensor<f64>,
    fn(f64) -> f64,
);

#[test]
fn unary_ops_match_std() {
    let ops: &[Unary] = &[
        ("square", |t| t.square(), |v| v * v),
        ("powi 3", |t| t.powi(3), |v| v * v * v),
        ("powi -2", |t| t.powi(-2), |v| 1.0 / (v * v)),
        ("exp", Tensor::exp, f64::exp),
        ("sin", Tensor::sin, f64::sin),
        ("cos", Tensor::cos, f64::cos),
        ("tanh", Tensor::tanh, f64::tanh),
        ("sigmoid", Tensor::sigmoid, |v| 1.0 / (1.0 + (-v).exp())),
        ("relu", Tensor::relu, |v| if v > 0.0 { v } else { 0.0 }),
        ("softplus", Tensor::softplus, |v| (1.0 + v.exp()).ln()),
        ("abs", Tensor::abs, f64::abs),
    ];
    // 12 points: none at 0, where powi -2 has its pole
    let x = Tensor::linspace(-3.0, 3.0, 12);
    for (name, op, reference) in ops {
        for (got, v) in op(&x).to_vec().into_iter().zip(x.to_vec()) {
            let want = reference(v);
            assert!(
                (got - want).abs() <= 1e-12 * (1.0 + want.abs()),
                "{name}({v}) = {got}, expected {want}"
            );
        }
    }
    let positive = Tensor::linspace(0.25, 4.0, 6);
    let positive_ops: &[Unary] = &[
        ("sqrt", Tensor::sqrt, f64::sqrt),
        ("ln", Tensor::ln, f64::ln),
        ("powf 2.5", |t| t.powf(2.5), |v| v.powf(2.5)),
    ];
    for (name, op, reference) in positive_ops {
        for (got, v) in op(&positive).to_vec().into_iter().zip(positive.to_vec()) {
            assert_relative_eq!(got, reference(v), max_relative = 1e-12);
            let _ = name;
        }
    }
}

#[test]
fn float_method_set_matches_std() {
    // each op against std's f64 method of the same meaning, on points inside its domain
    type TensorFn = fn(&Tensor<f64>) -> Tensor<f64>;
    let ops: &[(&str, TensorFn, &[f64])] = &[
        ("tan", Tensor::tan, &[-1.2, -0.3, 0.0, 0.9, 1.4]),
        ("asin", Tensor::asin, &[-1.0, -0.4, 0.0, 0.7, 1.0]),
        ("acos", Tensor::acos, &[-1.0, -0.4, 0.0, 0.7, 1.0]),
        ("atan", Tensor::atan, &[-30.0, -0.4, 0.0, 2.0]),
        ("sinh", Tensor::sinh, &[-3.0, -0.4, 0.0, 2.0]),
        ("cosh", Tensor::cosh, &[-3.0, -0.4, 0.0, 2.0]),
        ("asinh", Tensor::asinh, &[-3.0, -0.4, 0.0, 2.0]),
        ("acosh", Tensor::acosh, &[1.0, 1.5, 20.0]),
        ("atanh", Tensor::atanh, &[-0.99, -0.4, 0.0, 0.7]),
        ("exp2", Tensor::exp2, &[-3.0, 0.0, 0.5, 10.0]),
        ("expm1", Tensor::expm1, &[-3.0, -1e-9, 0.0, 1e-9, 2.0]),
        ("exp_m1", Tensor::exp_m1, &[-3.0, -1e-9, 0.0, 1e-9, 2.0]),
        ("ln_1p", Tensor::ln_1p, &[-0.5, -1e-9, 0.0, 1e-9, 2.0]),
        ("log2", Tensor::log2, &[0.25, 1.0, 3.0, 1024.0]),
        ("log10", Tensor::log10, &[0.01, 1.0, 3.0, 1e6]),
        ("cbrt", Tensor::cbrt, &[-27.0, -0.5, 0.0, 8.0]),
        ("recip", Tensor::recip, &[-4.0, -0.5, 0.25, 8.0]),
        ("to_degrees", Tensor::to_degrees, &[-7.0, 0.0, 3.5]),
        ("to_radians", Tensor::to_radians, &[-720.0, 0.0, 180.0]),
    ];
    let reference = |name: &str, v: f64| match name {
        "tan" => v.tan(),
        "asin" => v.asin(),
        "acos" => v.acos(),
        "atan" => v.atan(),
        "sinh" => v.sinh(),
        "cosh" => v.cosh(),
        "asinh" => v.asinh(),
        "acosh" => v.acosh(),
        "atanh" => v.atanh(),
        "exp2" => v.exp2(),
        "expm1" | "exp_m1" => v.exp_m1(),
        "ln_1p" => v.ln_1p(),
        "log2" => v.log2(),
        "log10" => v.log10(),
        "cbrt" => v.cbrt(),
        "recip" => v.recip(),
        "to_degrees" => v.to_degrees(),
        "to_radians" => v.to_radians(),
        other => unreachable!("{other}"),
    };
    for (name, op, points) in ops {
        let x = Tensor::from_vec(points.to_vec(), &[points.len()]);
        for (got, &v) in op(&x).to_vec().into_iter().zip(*points) {
            // the same kernel: bit for bit
            assert_eq!(got.to_bits(), reference(name, v).to_bits(), "{name}({v})");
        }
    }
    // out of the domain: NaN, as std
    assert!(Tensor::scalar(1.5_f64).asin().to_scalar().is_nan());
    assert!(Tensor::scalar(0.5_f64).acosh().to_scalar().is_nan());
    // two operands, with broadcasting
    let y = Tensor::from_vec(vec![1.0_f64, -1.0, 0.0, 2.0], &[2, 2]);
    let x = Tensor::from_vec(vec![-1.0_f64, 3.0], &[2]);
    let expected =
        |f: fn(f64, f64) -> f64| vec![f(1.0, -1.0), f(-1.0, 3.0), f(0.0, -1.0), f(2.0, 3.0)];
    assert_eq!(y.atan2(&x).to_vec(), expected(f64::atan2));
    assert_eq!(y.hypot(&x).to_vec(), expected(f64::hypot));
    let base = Tensor::from_vec(vec![2.0_f64, 10.0], &[2]);
    let positive = Tensor::from_vec(vec![8.0_f64, 0.5, 3.0, 1000.0], &[2, 2]);
    assert_eq!(
        positive.log(&base).to_vec(),
        vec![
            8.0_f64.log(2.0),
            0.5_f64.log(10.0),
            3.0_f64.log(2.0),
            1000.0_f64.log(10.0)
        ]
    );
    assert_eq!(
        positive.pow(&x).to_vec(),
        vec![
            8.0_f64.powf(-1.0),
            0.5_f64.powf(3.0),
            3.0_f64.powf(-1.0),
            1000.0_f64.powf(3.0)
        ]
    );
    assert_eq!(x.mul_add(2.0, 0.5).to_vec(), vec![-1.5, 6.5]);
}

#[test]
fn erf_matches_tabulated_values() {
    // Abramowitz & Stegun, table 7.1, to 10 digits
    let x = Tensor::from_vec(vec![0.0_f64, 0.5, 1.0, 2.0, -1.0], &[5]);
    let expected = [0.0, 0.5204998778, 0.8427007929, 0.9953222650, -0.8427007929];
    for (got, want) in x.erf().to_vec().into_iter().zip(expected) {
        assert!((got - want).abs() < 1e-10, "erf: {got} vs {want}");
    }
    // f32 through the same f64 computation, rounded once
    let y = Tensor::scalar(0.5_f32).erf().to_scalar();
    assert_eq!(y, 0.5204998778_f64 as f32);
}

#[test]
fn rounding_ops_follow_tensorflow() {
    let x = Tensor::from_vec(vec![-2.5_f64, -1.5, -0.5, 0.5, 1.5, 2.5, 2.6, -0.0], &[8]);
    // tf.round: halves to even (banker's rounding), unlike f64::round
    assert_eq!(
        x.round().to_vec(),
        vec![-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 3.0, -0.0]
    );
    assert_eq!(
        x.floor().to_vec(),
        vec![-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 2.0, -0.0]
    );
    assert_eq!(
        x.ceil().to_vec(),
        vec![-2.0, -1.0, -0.0, 1.0, 2.0, 3.0, 3.0, -0.0]
    );
    assert_eq!(
        x.trunc().to_vec(),
        vec![-2.0, -1.0, -0.0, 0.0, 1.0, 2.0, 2.0, -0.0]
    );
    // tf.sign: 0 at ±0 (f64::signum gives ±1), NaN at NaN
    let s = Tensor::from_vec(vec![-3.0_f64, -0.0, 0.0, 4.0, f64::NAN], &[5])
        .sign()
        .to_vec();
    assert_eq!(&s[..4], &[-1.0, 0.0, 0.0, 1.0]);
    assert!(s[4].is_nan());
}

#[test]
fn gradients_of_the_piecewise_constant_ops_follow_tensorflow() {
    let x = Tensor::from_vec(vec![-1.5_f64, 0.25, 2.5], &[3]);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let (sign, floor, ceil, round, trunc, mixed) = tape.record(|| {
        (
            x.sign(),
            x.floor(),
            x.ceil(),
            x.round(),
            x.trunc(),
            x.floor() * &x,
        )
    });
    // tf.sign's gradient is registered as zeros: connected, zero
    assert_eq!(
        tape.gradient(&sign, &x).unwrap().unwrap().to_vec(),
        vec![0.0; 3]
    );
    // Floor, Ceil, Round have no gradient: None when they are the only path
    for y in [&floor, &ceil, &round, &trunc] {
        assert!(tape.gradient(y, &x).unwrap().is_none());
    }
    // and a constant factor on another path: d/dx (⌊x⌋ x) = ⌊x⌋
    assert_eq!(
        tape.gradient(&mixed, &x).unwrap().unwrap().to_vec(),
        vec![-2.0, 0.0, 2.0]
    );
}

#[test]
fn clip_by_value_at_its_bounds_gives_the_gradient_to_the_input() {
    // TensorFlow's clip_by_value is maximum(minimum(t, max), min): a tie goes to the first
    // operand, so an element at a bound passes its whole cotangent on
    let x = Tensor::from_vec(vec![-2.0_f64, -1.0, 0.0, 1.0, 2.0], &[5]);
    let (lo, hi) = (Tensor::scalar(-1.0_f64), Tensor::scalar(1.0_f64));
    let tape = GradientTape::new();
    tape.watch(&x);
    tape.watch(&lo);
    tape.watch(&hi);
    let y = tape.record(|| x.clip_by_value(&lo, &hi).sum());
    let g = tape
        .gradient(&y, vec![x.clone(), lo.clone(), hi.clone()])
        .unwrap();
    assert_eq!(
        g[0].as_ref().unwrap().to_vec(),
        vec![0.0, 1.0, 1.0, 1.0, 0.0]
    );
    // each bound gets the cotangent of the elements strictly beyond it
    assert_eq!(g[1].as_ref().unwrap().to_scalar(), 1.0);
    assert_eq!(g[2].as_ref().unwrap().to_scalar(), 1.0);
    // min > max: every element is min (no panic, unlike f64::clamp)
    assert_eq!(x.clip_by_value(1.0, -1.0).to_vec(), vec![1.0; 5]);
}

#[test]
fn gradient_of_pow_in_its_exponent_is_zero_where_the_base_is_not_positive() {
    let x = Tensor::from_vec(vec![0.0_f64, -2.0, 2.0], &[3]);
    let y = Tensor::from_vec(vec![2.0_f64, 3.0, 3.0], &[3]);
    let tape = GradientTape::new();
    tape.watch(&x);
    tape.watch(&y);
    let z = tape.record(|| x.pow(&y).sum());
    let g = tape.gradient(&z, vec![x, y]).unwrap();
    // ∂/∂x = y x^(y−1): 0, 12, 12
    assert_eq!(g[0].as_ref().unwrap().to_vec(), vec![0.0, 12.0, 12.0]);
    // ∂/∂y = x^y ln x where x > 0, else 0 (TensorFlow's masking): no NaN
    let dy = g[1].as_ref().unwrap().to_vec();
    assert_eq!(&dy[..2], &[0.0, 0.0]);
    assert!((dy[2] - 8.0 * 2.0_f64.ln()).abs() < 1e-14);
}

#[test]
fn elementwise_ops_keep_shape() {
    let x = Tensor::<f32>::ones(&[2, 1, 3]);
    for y in [x.exp(), x.relu(), x.powi(2), (&x * 2.0).maximum(&x)] {
        assert_eq!(y.shape(), &[2, 1, 3]);
    }
    assert_eq!(Tensor::scalar(2.0_f32).exp().shape(), &[] as &[usize]);
}

#[test]
fn f32_functions_are_stable_at_extremes() {
    let x = Tensor::from_vec(vec![-100.0_f32, -20.0, 0.0, 20.0, 100.0], &[5]);
    let s = x.sigmoid().to_vec();
    // σ(-100) = e⁻¹⁰⁰ / (1 + e⁻¹⁰⁰) ≈ 3.7e-44, an f32 subnormal: tiny, not NaN
    assert!(s[0] > 0.0 && s[0] < 1e-40);
    assert_eq!(s[2], 0.5);
    assert_eq!(s[4], 1.0);
    assert!(s.iter().all(|v| v.is_finite()));
    let sp = x.softplus().to_vec();
    // ln(1 + e¹⁰⁰) = 100 + ln(1 + e⁻¹⁰⁰) rounds to 100; ln(1 + e⁻¹⁰⁰) ≈ e⁻¹⁰⁰ is tiny
    assert_eq!(sp[4], 100.0);
    assert!(sp[0] > 0.0 && sp[0] < 1e-40);
    assert!((sp[2] - std::f32::consts::LN_2).abs() < 1e-7);
    let logits = Tensor::from_vec(vec![1000.0_f32, 0.0, -1000.0], &[1, 3]);
    let log_p = logits.log_softmax(1).to_vec();
    // log softmax = x - max - ln Σ e^(x - max): [0, -1000, -2000] to f32 precision
    assert_eq!(log_p, vec![0.0, -1000.0, -2000.0]);
    assert_eq!(logits.softmax(1).to_vec(), vec![1.0, 0.0, 0.0]);
}

#[test]
fn f32_gradients_are_f32_and_agree_with_f64() {
    let x64 = Tensor::linspace(-2.0_f64, 2.0, 7);
    let x32 = x64.cast::<f32>();
    let grad64 = {
        let tape = GradientTape::new();
        tape.watch(&x64);
        let y = tape.record(|| (x64.sin() * x64.exp() + x64.tanh().square()).sum());
        tape.gradient(&y, &x64).unwrap().unwrap()
    };
    let tape = GradientTape::new();
    tape.watch(&x32);
    let y = tape.record(|| (x32.sin() * x32.exp() + x32.tanh().square()).sum());
    let grad32: Tensor<f32> = tape.gradient(&y, &x32).unwrap().unwrap();
    assert_eq!(grad32.dtype(), "f32");
    for (g32, g64) in grad32.to_vec().iter().zip(grad64.to_vec()) {
        assert_relative_eq!(*g32 as f64, g64, max_relative = 1e-5, epsilon = 1e-6);
    }
}

#[test]
fn vjp_rules_on_plain_floats_agree_with_the_tape() {
    let x = 0.7_f64;
    let tape_grad = |f: fn(&Tensor<f64>) -> Tensor<f64>| {
        let t = Tensor::scalar(x);
        let tape = GradientTape::new();
        tape.watch(&t);
        let y = tape.record(|| f(&t));
        tape.gradient(&y, &t).unwrap().unwrap().to_scalar()
    };
    assert_eq!(vjp::sin(&x, &1.0), tape_grad(Tensor::sin));
    assert_eq!(vjp::tanh(&x.tanh(), &1.0), tape_grad(Tensor::tanh));
    assert_eq!(vjp::sqrt(&x.sqrt(), &1.0), tape_grad(Tensor::sqrt));
    assert_eq!(vjp::powi(&x, &1.0, 3), tape_grad(|t| t.powi(3)));
    assert_eq!(vjp::softplus(&x, &1.0), tape_grad(Tensor::softplus));
    // d/dx (x · 3) = 3, d/dx (x / 2) = 1/2, d/dy (x / y) = -x / y²
    assert_eq!(vjp::mul_lhs(&3.0, &1.0), 3.0);
    assert_eq!(vjp::div_lhs(&2.0, &1.0), 0.5);
    assert_eq!(vjp::div_rhs(&x, &2.0, &1.0), -x / 4.0);
}

// ---------------------------------------------------------------- kinks and ties

/// The derivative TensorFlow picks at a kink or tie: relu'(0) = 0, |x|'(0) = 0, and a max
/// shared by k entries gives each 1/k.
#[test]
fn gradients_at_kinks_and_ties() {
    let grad = |x: &Tensor<f64>, f: &dyn Fn(&Tensor<f64>) -> Tensor<f64>| {
        let tape = GradientTape::new();
        tape.watch(x);
        let y = tape.record(|| f(x));
        tape.gradient(&y, x).unwrap().unwrap().to_vec()
    };
    let x = Tensor::from_vec(vec![-1.0, 0.0, 2.0], &[3]);
    assert_eq!(grad(&x, &|x| x.relu().sum()), vec![0.0, 0.0, 1.0]);
    assert_eq!(grad(&x, &|x| x.abs().sum()), vec![-1.0, 0.0, 1.0]);
    let tied = Tensor::from_vec(vec![3.0, 1.0, 3.0, 3.0], &[4]);
    assert_eq!(
        grad(&tied, &|x| x.max()),
        vec![1.0 / 3.0, 0.0, 1.0 / 3.0, 1.0 / 3.0]
    );
    let rows = Tensor::from_vec(vec![2.0, 2.0, 1.0, 5.0], &[2, 2]);
    assert_eq!(
        grad(&rows, &|x| x.max_axis(1, false).sum()),
        vec![0.5, 0.5, 0.0, 1.0]
    );
    // on a tie, maximum and minimum give the whole gradient to their first operand
    // (TensorFlow's `greater_equal`/`less_equal` masks), none to the second
    assert_eq!(grad(&x, &|x| x.maximum(0.0).sum()), vec![0.0, 1.0, 1.0]);
    assert_eq!(grad(&x, &|x| x.minimum(0.0).sum()), vec![1.0, 1.0, 0.0]);
    let zero = Tensor::zeros(&[3]);
    assert_eq!(grad(&x, &|x| zero.maximum(x).sum()), vec![0.0, 0.0, 1.0]);
    assert_eq!(grad(&x, &|x| zero.minimum(x).sum()), vec![1.0, 0.0, 0.0]);
    assert_eq!(grad(&x, &|x| x.maximum(x).sum()), vec![1.0, 1.0, 1.0]);
    assert_eq!(grad(&x, &|x| x.minimum(x).sum()), vec![1.0, 1.0, 1.0]);
}

// ---------------------------------------------------------------- matmul

fn matmul_by_hand(a: &ArrayD<f64>, b: &ArrayD<f64>) -> ArrayD<f64> {
    let (m, k, n) = (a.shape()[0], a.shape()[1], b.shape()[1]);
    ArrayD::from_shape_fn(IxDyn(&[m, n]), |ix| {
        (0..k).map(|p| a[[ix[0], p]] * b[[p, ix[1]]]).sum()
    })
}

#[test]
fn matmul_2d_matches_the_sum_of_products() {
    let (x, a) = sample(&[2, 3]);
    let (y, b) = nonzero(&[3, 4]);
    assert_matches(&x.matmul(&y), &matmul_by_hand(&a, &b));
}

#[test]
fn matmul_batches_and_broadcasts_leading_axes() {
    let cases: &[(&[usize], &[usize], &[usize])] = &[
        (&[2, 2, 3], &[2, 3, 4], &[2, 2, 4]),
        (&[2, 2, 3], &[3, 4], &[2, 2, 4]),
        (&[2, 3], &[5, 3, 4], &[5, 2, 4]),
        (&[1, 2, 3], &[2, 3, 4], &[2, 2, 4]),
        (&[2, 1, 2, 3], &[3, 3, 2], &[2, 3, 2, 2]),
    ];
    for &(sx, sy, expected) in cases {
        let (x, a) = sample(sx);
        let (y, b) = nonzero(sy);
        let out = x.matmul(&y);
        assert_eq!(out.shape(), expected, "{sx:?} @ {sy:?}");
        let batch = &expected[..expected.len() - 2];
        let a = a
            .broadcast(IxDyn(&[batch, &sx[sx.len() - 2..]].concat()))
            .unwrap();
        let b = b
            .broadcast(IxDyn(&[batch, &sy[sy.len() - 2..]].concat()))
            .unwrap();
        let count: usize = batch.iter().product();
        let a = a
            .to_shape(IxDyn(&[count, sx[sx.len() - 2], sx[sx.len() - 1]]))
            .unwrap();
        let b = b
            .to_shape(IxDyn(&[count, sy[sy.len() - 2], sy[sy.len() - 1]]))
            .unwrap();
        let products: Vec<ArrayD<f64>> = (0..count)
            .map(|i| {
                matmul_by_hand(
                    &a.index_axis(Axis(0), i).to_owned(),
                    &b.index_axis(Axis(0), i).to_owned(),
                )
            })
            .collect();
        let views: Vec<_> = products.iter().map(|p| p.view()).collect();
        let stacked = ndarray::stack(Axis(0), &views).unwrap();
        assert_matches(
            &out,
            &stacked.into_shape_with_order(IxDyn(expected)).unwrap(),
        );
    }
}

// ---------------------------------------------------------------- shape ops

#[test]
fn transpose_and_permute_match_ndarray() {
    let (x, a) = sample(&[2, 3, 4]);
    assert_matches(
        &x.permute(&[2, 0, 1]),
        &a.clone().permuted_axes(IxDyn(&[2, 0, 1])),
    );
    assert_matches(&x.transpose(), &a.clone().permuted_axes(IxDyn(&[0, 2, 1])));
    assert_matches(&x.permute(&[0, 1, 2]), &a);
    let (m, b) = sample(&[2, 3]);
    assert_matches(&m.transpose(), &b.t().to_owned());
}

#[test]
fn reshape_keeps_row_major_order() {
    let (x, a) = sample(&[2, 3]);
    let want = a.to_shape(IxDyn(&[3, 2])).unwrap().to_owned();
    assert_matches(&x.reshape(&[3, 2]), &want);
    // reshaping a transposed (non-contiguous) value reads it in its logical order
    let t = x.transpose().reshape(&[6]);
    assert_eq!(t.to_vec(), a.t().iter().copied().collect::<Vec<_>>());
    assert_eq!(Tensor::scalar(2.0_f64).reshape(&[1, 1]).shape(), &[1, 1]);
    assert_eq!(
        Tensor::from_vec(vec![2.0_f64], &[1, 1])
            .reshape(&[])
            .to_scalar(),
        2.0
    );
}

/// A reshape of row-major elements shares them (no copy, also through chains of reshapes
/// and back to the first shape), and no write through one alias reaches another: the
/// in-place paths (`owned + y`, a variable's update) copy a shared buffer first, and an
/// array taken out of a reshape is the tensor's own.
#[test]
fn reshape_shares_storage_and_writes_never_reach_an_alias() {
    let address = |t: &Tensor<f64>| t.view().as_ptr();
    let (x, a) = sample(&[2, 3]);
    let x = &x * 1.0; // a fresh temporary: nothing else holds its buffer
    let r = x.reshape(&[3, 2]);
    assert_eq!(address(&r), address(&x), "a row-major reshape shares");
    let flat = r.reshape(&[6]);
    assert_eq!(
        address(&flat),
        address(&x),
        "a reshape of a reshape shares too"
    );
    let back = flat.reshape(&[2, 3]);
    assert_eq!(address(&back), address(&x), "and so does going back");
    assert_matches(&back, &a);
    assert_matches(&r, &a.to_shape(IxDyn(&[3, 2])).unwrap().to_owned());

    // `owned + 1` through either alias computes elsewhere: the other keeps its values
    let from_base = x.clone() + 1.0;
    let from_reshape = r.clone() + 1.0;
    assert_matches(&from_base, &(&a + 1.0));
    assert_matches(
        &from_reshape,
        &(&a + 1.0).to_shape(IxDyn(&[3, 2])).unwrap().to_owned(),
    );
    assert_matches(&x, &a);
    assert_matches(&r, &a.to_shape(IxDyn(&[3, 2])).unwrap().to_owned());
    // ...also once the other alias is gone: the reshape's base is never written
    drop((x, flat, back));
    let after = r.clone() + 1.0;
    assert_matches(
        &after,
        &(&a + 1.0).to_shape(IxDyn(&[3, 2])).unwrap().to_owned(),
    );
    assert_matches(&r, &a.to_shape(IxDyn(&[3, 2])).unwrap().to_owned());

    // a variable holding a reshape: its update leaves the tensor it shares with alone
    let kept = Tensor::from_vec(vec![1.0_f64, 2.0, 3.0, 4.0], &[4]);
    let v = Variable::new(kept.reshape(&[2, 2]));
    v.update_each(|w| *w *= 10.0);
    assert_eq!(kept.to_vec(), vec![1.0, 2.0, 3.0, 4.0]);
    assert_eq!(v.value().to_vec(), vec![10.0, 20.0, 30.0, 40.0]);
    assert_eq!(v.shape(), vec![2, 2]);
    // ...and takes the buffer itself when nothing else holds it
    let only = Tensor::from_vec(vec![1.0_f64, 2.0, 3.0, 4.0], &[4]);
    let before = address(&only);
    let v = Variable::new(only.reshape(&[2, 2]));
    drop(only);
    v.update_each(|w| *w += 1.0);
    assert_eq!(address(&v.value()), before, "moved, not copied");
    assert_eq!(v.value().to_vec(), vec![2.0, 3.0, 4.0, 5.0]);

    // an array taken out of a shared reshape is a copy the tensors never see
    let base = Tensor::from_vec(vec![1.0_f64, 2.0, 3.0, 4.0], &[2, 2]);
    let mut out: ArrayD<f64> = base.reshape(&[4]).into();
    out[[0]] = -1.0;
    assert_eq!(out.shape(), &[4]);
    assert_eq!(base.to_vec(), vec![1.0, 2.0, 3.0, 4.0]);
}

#[test]
fn broadcast_to_and_sum_to_shape_are_transposes() {
    let (x, a) = sample(&[2, 1]);
    let spread = x.broadcast_to(&[3, 2, 4]);
    assert_matches(&spread, &a.broadcast(IxDyn(&[3, 2, 4])).unwrap().to_owned());
    let (y, b) = sample(&[3, 2, 4]);
    let summed = b.sum_axis(Axis(0)).sum_axis(Axis(1)).insert_axis(Axis(1));
    assert_matches(&y.sum_to_shape(&[2, 1]), &summed);
    assert_eq!(y.sum_to_shape(&[]).to_scalar(), b.sum());
    assert_matches(
        &y.sum_to_shape(&[4]),
        &b.sum_axis(Axis(0)).sum_axis(Axis(0)),
    );
    assert_eq!(
        Tensor::scalar(1.5_f64).broadcast_to(&[2]).to_vec(),
        vec![1.5, 1.5]
    );
}

#[test]
fn concat_slice_gather_scatter_match_ndarray() {
    let (p, a) = sample(&[1, 3]);
    let (q, b) = nonzero(&[2, 3]);
    let (r, c) = sample(&[2, 3]);
    let joined = Tensor::concat(&[&p, &q, &r], 0);
    assert_matches(
        &joined,
        &ndarray::concatenate(Axis(0), &[a.view(), b.view(), c.view()]).unwrap(),
    );
    let joined = Tensor::concat(&[&q, &r], 1);
    assert_matches(
        &joined,
        &ndarray::concatenate(Axis(1), &[b.view(), c.view()]).unwrap(),
    );

    let (x, a) = sample(&[5, 3]);
    assert_matches(
        &x.slice(0, 1, 3),
        &a.slice_axis(Axis(0), (1..4).into()).to_owned(),
    );
    assert_matches(
        &x.slice(1, 2, 1),
        &a.slice_axis(Axis(1), (2..3).into()).to_owned(),
    );
    assert_eq!(x.slice(0, 5, 0).shape(), &[0, 3]);

    assert_matches(&x.gather(0, &[4, 0, 4]), &a.select(Axis(0), &[4, 0, 4]));
    assert_matches(&x.gather(1, &[2, 2]), &a.select(Axis(1), &[2, 2]));

    let g = Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2]);
    // rows 0 and 2 land on index 1, row 1 on index 3: [[0,0],[1+5,2+6],[0,0],[3,4]]
    assert_eq!(
        g.scatter_add(0, &[1, 3, 1], 4).to_vec(),
        vec![0.0, 0.0, 6.0, 8.0, 0.0, 0.0, 3.0, 4.0]
    );
}

/// `gather` and `scatter_add` copy and add whole blocks of row-major data; checked on
/// every axis of a rank-3 tensor, with repeated and omitted indices, against element-by-
/// element definitions, in row-major and column-major storage (the latter takes ndarray's
/// view-by-view path), exactly: each output element is one input element, or a sum taken
/// in the order of the indices.
#[test]
fn gather_and_scatter_add_by_blocks_match_their_definitions() {
    let shape = [3, 4, 5];
    let (_, a) = sample(&shape);
    let mut column_major = ArrayD::zeros(IxDyn(&shape).f());
    column_major.assign(&a);
    assert!(column_major.as_slice().is_none() && column_major == a);
    for storage in [a.clone(), column_major] {
        let x = Tensor::from(storage);
        for axis in 0..3 {
            let len = shape[axis];
            let indices: Vec<usize> = vec![len - 1, 0, len - 1, 1];
            let picked = x.gather(axis, &indices);
            let mut picked_shape = shape.to_vec();
            picked_shape[axis] = indices.len();
            let want = ArrayD::from_shape_fn(IxDyn(&picked_shape), |at| {
                let mut from = at.clone();
                from[axis] = indices[at[axis]];
                a[from]
            });
            assert_eq!(picked.shape(), want.shape(), "gather axis {axis}");
            assert_eq!(picked.to_vec(), want.iter().copied().collect::<Vec<_>>());

            // scatter the gathered values back into an axis of length len + 1 (the last
            // entry receives nothing)
            let scattered = picked.scatter_add(axis, &indices, len + 1);
            let mut out_shape = shape.to_vec();
            out_shape[axis] = len + 1;
            let want = ArrayD::from_shape_fn(IxDyn(&out_shape), |at| {
                let mut sum = 0.0;
                for (k, &index) in indices.iter().enumerate() {
                    if index == at[axis] {
                        let mut from = at.clone();
                        from[axis] = k;
                        sum += picked.to_ndarray()[from];
                    }
                }
                sum
            });
            assert_eq!(scattered.shape(), want.shape(), "scatter_add axis {axis}");
            assert_eq!(scattered.to_vec(), want.iter().copied().collect::<Vec<_>>());
        }
    }
}

// ---------------------------------------------------------------- reductions

#[test]
fn reductions_match_ndarray() {
    let (x, a) = sample(&[2, 3, 4]);
    assert_relative_eq!(x.sum().to_scalar(), a.sum(), max_relative = 1e-12);
    assert_relative_eq!(
        x.mean().to_scalar(),
        a.mean().unwrap(),
        max_relative = 1e-12
    );
    assert_eq!(x.max().to_scalar(), a.fold(f64::MIN, |m, &v| m.max(v)));
    for axis in 0..3 {
        let max = a.fold_axis(Axis(axis), f64::MIN, |m, &v| m.max(v));
        let sum = a.sum_axis(Axis(axis));
        let mean = a.mean_axis(Axis(axis)).unwrap();
        assert_matches(&x.sum_axis(axis, false), &sum);
        assert_matches(&x.mean_axis(axis, false), &mean);
        assert_matches(&x.max_axis(axis, false), &max);
        assert_matches(&x.sum_axis(axis, true), &sum.insert_axis(Axis(axis)));
        assert_matches(&x.mean_axis(axis, true), &mean.insert_axis(Axis(axis)));
        assert_matches(&x.max_axis(axis, true), &max.insert_axis(Axis(axis)));
    }
    assert_eq!(Tensor::scalar(4.0_f64).sum().to_scalar(), 4.0);
    assert_eq!(Tensor::scalar(4.0_f64).max().to_scalar(), 4.0);
}

#[test]
fn max_propagates_nan() {
    let x = Tensor::from_vec(vec![1.0_f64, f64::NAN, 3.0], &[3]);
    assert!(x.max().to_scalar().is_nan());
}

// ---------------------------------------------------------------- layouts and edge shapes

/// The values of `sample(shape)` stored column-major (ndarray's reversed axes), so that
/// ops take their general, non-slice paths.
fn column_major(shape: &[usize]) -> (Tensor<f64>, ArrayD<f64>) {
    let reversed: Vec<usize> = shape.iter().rev().copied().collect();
    let (_, a) = sample(&reversed);
    let a = a.reversed_axes();
    let long_axes = shape.iter().filter(|&&d| d > 1).count();
    assert!(long_axes < 2 || a.as_slice().is_none());
    (Tensor::from(a.clone()), a)
}

/// `a` summed to `shape` by ndarray, axis by axis: over missing leading axes and over
/// axes where `shape` has length 1.
fn sum_to_by_ndarray(a: &ArrayD<f64>, shape: &[usize]) -> ArrayD<f64> {
    let lead = a.ndim() - shape.len();
    let mut summed = a.clone();
    for axis in (0..a.ndim()).rev() {
        if axis < lead || (shape[axis - lead] == 1 && a.shape()[axis] != 1) {
            summed = summed.sum_axis(Axis(axis)).insert_axis(Axis(axis));
        }
    }
    summed.into_shape_with_order(IxDyn(shape)).unwrap()
}

#[test]
fn broadcast_to_matches_ndarray_for_every_layout() {
    let pairs: &[(&[usize], &[usize])] = &[
        (&[], &[3]),
        (&[], &[2, 3]),
        (&[3], &[2, 3]),
        (&[1, 3], &[2, 2, 3]),
        (&[2, 1], &[2, 3]),
        (&[2, 1, 1], &[2, 3, 4]),
        (&[2, 1, 4], &[2, 3, 4]),
        (&[1], &[4]),
        (&[3], &[0, 3]),
        (&[0], &[2, 0]),
        (&[], &[0]),
        (&[2, 3], &[4, 2, 3]),
        (&[3, 2], &[3, 2]),
    ];
    for &(from, to) in pairs {
        let (x, a) = sample(from);
        let want = a.broadcast(IxDyn(to)).unwrap().to_owned();
        assert_matches(&x.broadcast_to(to), &want);
        if from.len() >= 2 {
            let (x, a) = column_major(from);
            assert_matches(
                &x.broadcast_to(to),
                &a.broadcast(IxDyn(to)).unwrap().to_owned(),
            );
        }
    }
}

#[test]
fn sum_to_shape_matches_ndarray_for_every_layout() {
    let pairs: &[(&[usize], &[usize])] = &[
        (&[2, 3], &[3]),
        (&[2, 3], &[1, 3]),
        (&[2, 3], &[2, 1]),
        (&[2, 3], &[1, 1]),
        (&[2, 3], &[]),
        (&[2, 3, 4], &[3, 4]),
        (&[2, 3, 4], &[2, 1, 1]),
        (&[2, 3, 4], &[2, 1, 4]),
        (&[2, 3, 4], &[4]),
        (&[2, 3, 4], &[3, 1]),
        (&[2, 3, 4], &[1, 3, 1]),
        (&[5], &[1]),
        (&[0, 3], &[3]),
        (&[2, 0], &[2, 1]),
        (&[0, 3], &[]),
        (&[3, 0], &[0]),
    ];
    for &(from, to) in pairs {
        let (x, a) = sample(from);
        assert_matches(&x.sum_to_shape(to), &sum_to_by_ndarray(&a, to));
        if from.len() >= 2 {
            let (x, a) = column_major(from);
            assert_matches(&x.sum_to_shape(to), &sum_to_by_ndarray(&a, to));
        }
    }
}

/// Full sums, a bias's sum over rows and kept-dimension sums add in the order ndarray does,
/// so f32 results agree bit for bit, for every remainder modulo the eight partial sums.
#[test]
fn sums_add_in_the_order_ndarray_does() {
    for n in 0..40 {
        let values: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin() * 1e3).collect();
        let a = ArrayD::from_shape_vec(IxDyn(&[n]), values.clone()).unwrap();
        let x = Tensor::from_vec(values.clone(), &[n]);
        assert_eq!(x.sum().to_scalar().to_bits(), a.sum().to_bits(), "n = {n}");
        let rows = Tensor::from_vec([values.clone(), values.clone()].concat(), &[2, n]);
        let rows_a = ArrayD::from_shape_vec(IxDyn(&[2, n]), rows.to_vec()).unwrap();
        let kept = rows.sum_to_shape(&[2, 1]).to_vec();
        let kept_a: Vec<f32> = rows_a.sum_axis(Axis(1)).iter().copied().collect();
        assert_eq!(kept, kept_a, "n = {n}");
        let cols = rows.reshape(&[n, 2]).sum_to_shape(&[2]).to_vec();
        let cols_a: Vec<f32> = rows_a
            .into_shape_with_order(IxDyn(&[n, 2]))
            .unwrap()
            .sum_axis(Axis(0))
            .iter()
            .copied()
            .collect();
        assert_eq!(cols, cols_a, "n = {n}");
    }
}

#[test]
fn elementwise_ops_on_empty_tensors_keep_their_shape() {
    let x = Tensor::<f64>::zeros(&[0, 3]);
    for t in [
        &x * 2.0,
        2.0 - &x,
        x.square(),
        x.exp(),
        &x + &Tensor::ones(&[3]),
        Primal::mul_scaled(&x, &Tensor::scalar(2.0), 3.0),
    ] {
        assert_eq!(t.shape(), &[0, 3]);
        assert!(t.to_vec().is_empty());
    }
    assert_eq!(x.sum().to_scalar(), 0.0);
    assert_eq!(x.sum_to_shape(&[3]).to_vec(), vec![0.0; 3]);
}

#[test]
fn elementwise_ops_on_column_major_tensors_match_ndarray() {
    let (x, a) = column_major(&[3, 2]);
    assert_matches(&(&x * 2.5), &(&a * 2.5));
    assert_matches(&(1.5 - &x), &a.mapv(|v| 1.5 - v));
    assert_matches(&x.square(), &a.mapv(|v| v * v));
    assert_matches(&Primal::mul_scaled(&x, &x, 0.5), &a.mapv(|v| v * v * 0.5));
    assert_relative_eq!(x.sum().to_scalar(), a.sum(), max_relative = 1e-12);
    assert_relative_eq!(
        x.mean().to_scalar(),
        a.mean().unwrap(),
        max_relative = 1e-12
    );
    for axis in 0..2 {
        assert_matches(&x.mean_axis(axis, false), &a.mean_axis(Axis(axis)).unwrap());
    }
}

/// A scalar weight's gradient against an array (one fused dot product) rounds as the
/// product array summed would, in f32, also for column-major storage and empty arrays.
#[test]
fn scalar_weight_gradient_is_the_summed_product() {
    for n in [0, 1, 7, 8, 9, 256] {
        let values: Vec<f32> = (0..n).map(|i| (i as f32 * 0.73).sin()).collect();
        let x = Tensor::from_vec(values, &[n]);
        let a = Tensor::scalar(1.3_f32);
        let tape = GradientTape::new();
        tape.watch(&a);
        let y = tape.record(|| (&a * &x).square().sum());
        let g = tape.gradient(&y, &a).unwrap().unwrap();
        // d/da Σ (a x)² = Σ (2 (a x) · 1) x, each product rounded, summed in ndarray's order
        let upstream = Primal::mul_scaled(&(&a * &x), &Tensor::ones(&[n]), 2.0);
        let want = (&upstream * &x).sum();
        assert_eq!(
            g.to_scalar().to_bits(),
            want.to_scalar().to_bits(),
            "n = {n}"
        );
    }
    let (x, a) = column_major(&[3, 2]);
    let w = Tensor::scalar(0.5_f64);
    let tape = GradientTape::new();
    tape.watch(&w);
    let y = tape.record(|| (&w * &x).sum());
    let g = tape.gradient(&y, &w).unwrap().unwrap();
    assert_relative_eq!(g.to_scalar(), a.sum(), max_relative = 1e-12);
}

/// `mean` is one node now, not `sum` then a product: its value rounds as before and its
/// gradient is 1/n everywhere, at first order and (vanishing) at second.
#[test]
fn mean_rounds_as_the_sum_times_the_reciprocal() {
    let values: Vec<f32> = (0..37).map(|i| (i as f32 * 0.61).cos() * 3.0).collect();
    let x = Tensor::from_vec(values, &[37]);
    // the reciprocal as an f64 rounded to f32, as the old product's constant was
    let inv = (1.0_f64 / 37.0) as f32;
    assert_eq!(
        x.mean().to_scalar().to_bits(),
        (x.sum() * inv).to_scalar().to_bits()
    );
    let rows = x.reshape(&[1, 37]);
    assert_eq!(
        rows.mean_axis(1, true).to_vec(),
        (rows.sum_axis(1, true) * inv).to_vec()
    );
    let tape = GradientTape::new();
    tape.watch(&x);
    let m = tape.record(|| x.mean());
    let g = tape.gradient(&m, &x).unwrap().unwrap();
    assert_eq!(g.to_vec(), vec![inv; 37]);
    assert!(Tensor::<f64>::zeros(&[0]).mean().to_scalar().is_nan());
}

/// `mul_scaled` is `(x·y)·c` rounded as the two ops would round it, for every shape pair
/// the binary ops broadcast.
#[test]
fn mul_scaled_is_the_product_then_the_scale() {
    for &(sx, sy, expected_shape) in BROADCAST_PAIRS {
        let (x, _) = sample(sx);
        let (y, _) = nonzero(sy);
        let fused = Primal::mul_scaled(&x, &y, 2.5);
        assert_eq!(fused.shape(), expected_shape, "{sx:?} with {sy:?}");
        assert_eq!(
            fused.to_vec(),
            ((&x * &y) * 2.5).to_vec(),
            "{sx:?} with {sy:?}"
        );
    }
    assert_eq!(Primal::mul_scaled(&3.0_f32, &2.0, 0.5), 3.0);
}

/// First and second derivatives through the contiguous fast paths (map, scalar operand,
/// broadcast, sum to shape, fused product) and through the general paths they bypass agree.
#[test]
fn gradients_of_column_major_inputs_match_row_major() {
    let (cm, a) = column_major(&[3, 2]);
    let rm = Tensor::from(a.as_standard_layout().into_owned());
    assert!(rm.to_ndarray().as_slice().is_some());
    let f = |x: &Tensor<f64>| {
        let spread = x.sum_to_shape(&[1, 2]).broadcast_to(&[3, 2]);
        ((x.square() * 1.5 + &spread) * x + x.powi(3)).sum()
    };
    let grads = |x: &Tensor<f64>| {
        let outer = GradientTape::new();
        let (g, g_sum) = outer.record(|| {
            outer.watch(x);
            let inner = GradientTape::new();
            let y = inner.record(|| {
                inner.watch(x);
                f(x)
            });
            let g = inner.gradient(&y, x).unwrap().unwrap();
            let g_sum = g.sum();
            (g, g_sum)
        });
        let gg = outer.gradient(&g_sum, x).unwrap().unwrap();
        (g.to_vec(), gg.to_vec())
    };
    let ((g_cm, gg_cm), (g_rm, gg_rm)) = (grads(&cm), grads(&rm));
    for (p, q) in g_cm.iter().zip(&g_rm).chain(gg_cm.iter().zip(&gg_rm)) {
        assert_relative_eq!(*p, *q, max_relative = 1e-12);
    }
}

// ---------------------------------------------------------------- softmax

#[test]
fn softmax_and_log_softmax_match_hand_computation() {
    let (x, a) = sample(&[3, 4]);
    for axis in 0..2 {
        let e = a.mapv(f64::exp);
        let total = e.sum_axis(Axis(axis)).insert_axis(Axis(axis));
        let softmax = &e / &total;
        assert_matches(&x.softmax(axis), &softmax);
        assert_matches(&x.log_softmax(axis), &softmax.mapv(f64::ln));
        let sums = x.softmax(axis).sum_axis(axis, false).to_vec();
        assert!(sums.iter().all(|s| (s - 1.0).abs() < 1e-12));
    }
}

// ---------------------------------------------------------------- cast

#[test]
fn cast_converts_as_rust_does() {
    let x = Tensor::from_vec(vec![-1.7_f64, -0.2, 0.0, 2.9], &[2, 2]);
    assert_eq!(x.cast::<i32>().to_vec(), vec![-1, 0, 0, 2]);
    assert_eq!(x.cast::<bool>().to_vec(), vec![true, true, false, true]);
    assert_eq!(x.cast::<f32>().to_vec(), vec![-1.7_f32, -0.2, 0.0, 2.9]);
    assert_eq!(x.cast::<f32>().shape(), &[2, 2]);
    let labels = Tensor::from_vec(vec![3_u8, 0, 255], &[3]);
    assert_eq!(labels.cast::<f64>().to_vec(), vec![3.0, 0.0, 255.0]);
    assert_eq!(labels.cast::<i64>().to_vec(), vec![3, 0, 255]);
}

#[test]
fn gradient_through_a_cast_has_the_source_dtype() {
    let x = Tensor::from_vec(vec![1.0_f32, 2.0], &[2]);
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| x.cast::<f64>().square().sum());
    // d/dx Σ x² = 2x, computed in f64 and cast back to f32
    let g: Tensor<f32> = tape.gradient(&y, &x).unwrap().unwrap();
    assert_eq!(g.to_vec(), vec![2.0, 4.0]);
}

// ---------------------------------------------------------------- Display

#[test]
fn display_prints_like_tensorflow_in_rust_words() {
    assert_eq!(
        Tensor::scalar(6.0_f32).to_string(),
        "Tensor(6.0, shape=[], dtype=f32)"
    );
    let m = Tensor::from_vec(vec![1.0_f64, 2.5, -3.0, 4.0], &[2, 2]);
    assert_eq!(
        m.to_string(),
        "Tensor([[1.0, 2.5], [-3.0, 4.0]], shape=[2, 2], dtype=f64)"
    );
    assert_eq!(format!("{m:?}"), m.to_string());
    assert_eq!(
        Tensor::from_vec(vec![1_i64, -2], &[2]).to_string(),
        "Tensor([1, -2], shape=[2], dtype=i64)"
    );
    assert_eq!(
        Tensor::from_vec(vec![true, false], &[1, 2]).to_string(),
        "Tensor([[true, false]], shape=[1, 2], dtype=bool)"
    );
    assert_eq!(
        Tensor::<f32>::zeros(&[0]).to_string(),
        "Tensor([], shape=[0], dtype=f32)"
    );
    let long = Tensor::arange(0.0_f32, 2000.0, 1.0);
    assert_eq!(
        long.to_string(),
        "Tensor([0.0, 1.0, 2.0, ..., 1997.0, 1998.0, 1999.0], shape=[2000], dtype=f32)"
    );
}

// ---------------------------------------------------------------- misuse

thread_local! {
    static CAPTURING: Cell<bool> = const { Cell::new(false) };
    static CAUGHT: RefCell<Option<(String, u32, String)>> = const { RefCell::new(None) };
}

/// Runs `f`, which must panic, and returns the panic's file, line and message, without
/// printing it. Other threads' panics go to the default hook as usual.
fn panic_site(f: impl FnOnce()) -> (String, u32, String) {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CAPTURING.with(Cell::get) {
                return default(info);
            }
            let message = match info.payload().downcast_ref::<&str>() {
                Some(s) => s.to_string(),
                None => info
                    .payload()
                    .downcast_ref::<String>()
                    .cloned()
                    .unwrap_or_default(),
            };
            let location = info.location().expect("panics have a location");
            let site = (location.file().to_string(), location.line(), message);
            CAUGHT.with(|c| *c.borrow_mut() = Some(site));
        }));
    });
    CAPTURING.with(|c| c.set(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    CAPTURING.with(|c| c.set(false));
    assert!(result.is_err(), "expected a panic");
    CAUGHT
        .with(|c| c.borrow_mut().take())
        .expect("the hook saw the panic")
}

/// One `#[should_panic]` test per misuse, and one test that every misuse's panic points at
/// the line in this file that misused the op (`#[track_caller]` all the way down).
macro_rules! misuse {
    ($($name:ident: $expected:literal => $body:expr;)*) => {
        $(
            #[test]
            #[should_panic(expected = $expected)]
            fn $name() {
                let _ = $body;
            }
        )*

        #[test]
        fn every_misuse_panics_at_the_callers_line() {
            $(
                let (file, _, message) = panic_site(|| { let _ = $body; });
                assert!(message.contains($expected), "{}: {message}", stringify!($name));
                assert_eq!(
                    file,
                    file!(),
                    "{}: the panic points into the library, not at the caller",
                    stringify!($name)
                );
            )*
        }
    };
}

fn zeros(shape: &[usize]) -> Tensor<f64> {
    Tensor::zeros(shape)
}

misuse! {
    add_incompatible: "add: shapes [2, 3] and [4] cannot be broadcast together" => zeros(&[2, 3]) + zeros(&[4]);
    sub_incompatible: "sub: shapes [2] and [3, 3] cannot be broadcast together" => zeros(&[2]) - zeros(&[3, 3]);
    mul_incompatible: "mul: shapes [2, 3] and [3, 2] cannot be broadcast together" => zeros(&[2, 3]) * zeros(&[3, 2]);
    div_incompatible: "div: shapes [5] and [4] cannot be broadcast together" => zeros(&[5]) / zeros(&[4]);
    variable_operand_incompatible: "mul: shapes [2] and [3] cannot be broadcast together" => &Variable::new(zeros(&[2])) * &zeros(&[3]);
    maximum_incompatible: "maximum: shapes [2] and [3] cannot be broadcast together" => zeros(&[2]).maximum(zeros(&[3]));
    minimum_incompatible: "minimum: shapes [2, 1] and [3, 4] cannot be broadcast together" => zeros(&[2, 1]).minimum(zeros(&[3, 4]));
    matmul_inner: "matmul: inner dimensions differ: shapes [2, 3] and [4, 5]" => zeros(&[2, 3]).matmul(&zeros(&[4, 5]));
    matmul_rank: "matmul: needs at least 2 axes on both sides, got shapes [3] and [3, 2]" => zeros(&[3]).matmul(&zeros(&[3, 2]));
    matmul_batch: "matmul: batch axes do not broadcast: shapes [2, 2, 3] and [3, 3, 4]" => zeros(&[2, 2, 3]).matmul(&zeros(&[3, 3, 4]));
    transpose_rank: "transpose: needs at least 2 axes, got shape [3]" => zeros(&[3]).transpose();
    permute_not_a_permutation: "permute: [0, 0] is not a permutation of the axes of shape [2, 3]" => zeros(&[2, 3]).permute(&[0, 0]);
    permute_wrong_length: "permute: [0] is not a permutation of the axes of shape [2, 3]" => zeros(&[2, 3]).permute(&[0]);
    reshape_count: "reshape: cannot reshape a tensor of shape [2, 3] (6 elements) to [4] (4 elements)" => zeros(&[2, 3]).reshape(&[4]);
    broadcast_to_incompatible: "broadcast_to: shape [2] cannot be broadcast to [3, 3]" => zeros(&[2]).broadcast_to(&[3, 3]);
    broadcast_to_fewer_axes: "broadcast_to: shape [2, 3] cannot be broadcast to [3]" => zeros(&[2, 3]).broadcast_to(&[3]);
    sum_to_shape_more_axes: "sum_to_shape: shape [3] cannot be summed to [2, 3]" => zeros(&[3]).sum_to_shape(&[2, 3]);
    sum_to_shape_incompatible: "sum_to_shape: shape [2, 3] cannot be summed to [4]" => zeros(&[2, 3]).sum_to_shape(&[4]);
    concat_nothing: "concat: needs at least one tensor" => Tensor::<f64>::concat(&[], 0);
    concat_axis: "concat: axis 2 is out of range for a tensor of shape [2, 3] (rank 2)" => Tensor::concat(&[&zeros(&[2, 3])], 2);
    concat_shapes: "concat: shapes [2, 3] and [2, 4] differ outside axis 0" => Tensor::concat(&[&zeros(&[2, 3]), &zeros(&[2, 4])], 0);
    concat_ranks: "concat: shapes [2, 3] and [6] differ outside axis 0" => Tensor::concat(&[&zeros(&[2, 3]), &zeros(&[6])], 0);
    slice_axis: "slice: axis 1 is out of range for a tensor of shape [4] (rank 1)" => zeros(&[4]).slice(1, 0, 1);
    slice_range: "slice: range 2..5 exceeds axis 0 of shape [4, 2]" => zeros(&[4, 2]).slice(0, 2, 3);
    slice_range_overflows: "slice: range 18446744073709551615..18446744073709551615+2 exceeds axis 1 of shape [2, 3]" => zeros(&[2, 3]).slice(1, usize::MAX, 2);
    gather_axis: "gather: axis 2 is out of range for a tensor of shape [4, 2] (rank 2)" => zeros(&[4, 2]).gather(2, &[0]);
    gather_index: "gather: index 4 is out of range for axis 0 of shape [4, 2]" => zeros(&[4, 2]).gather(0, &[1, 4]);
    scatter_add_axis: "scatter_add: axis 1 is out of range for a tensor of shape [3] (rank 1)" => zeros(&[3]).scatter_add(1, &[0, 1, 2], 3);
    scatter_add_count: "scatter_add: 2 indices for axis 0 of shape [3]" => zeros(&[3]).scatter_add(0, &[0, 1], 3);
    scatter_add_index: "scatter_add: index 3 is out of range for an output of shape [3, 2] (axis 0), from shape [2, 2]" => zeros(&[2, 2]).scatter_add(0, &[0, 3], 3);
    sum_axis_range: "sum_axis: axis 2 is out of range for a tensor of shape [2, 3] (rank 2)" => zeros(&[2, 3]).sum_axis(2, false);
    sum_axis_of_scalar: "sum_axis: axis 0 is out of range for a tensor of shape [] (rank 0)" => Tensor::scalar(1.0_f64).sum_axis(0, true);
    mean_axis_range: "mean_axis: axis 3 is out of range for a tensor of shape [2, 3] (rank 2)" => zeros(&[2, 3]).mean_axis(3, true);
    max_axis_range: "max_axis: axis 2 is out of range for a tensor of shape [2, 3] (rank 2)" => zeros(&[2, 3]).max_axis(2, false);
    softmax_axis: "softmax: axis 1 is out of range for a tensor of shape [3] (rank 1)" => zeros(&[3]).softmax(1);
    log_softmax_axis: "log_softmax: axis 2 is out of range for a tensor of shape [3, 4] (rank 2)" => zeros(&[3, 4]).log_softmax(2);
    argmax_axis_range: "argmax_axis: axis 1 is out of range for a tensor of shape [3] (rank 1)" => zeros(&[3]).argmax_axis(1);
    equal_incompatible: "equal: shapes [2] and [3] cannot be broadcast together" => zeros(&[2]).equal(&zeros(&[3]));
    one_hot_range: "one_hot: entry 5 of a tensor of shape [2] is not a class index in 0..5" => Tensor::from_vec(vec![0_u8, 5], &[2]).one_hot::<f32>(5);
    from_vec_length: "Tensor::from_vec: 3 elements cannot have shape [2, 2] (4 elements)" => Tensor::from_vec(vec![1.0_f64, 2.0, 3.0], &[2, 2]);
    from_vec_shape_overflows: "Tensor::from_vec: shape [18446744073709551615, 2] has more elements than a tensor can hold" => Tensor::from_vec(vec![1.0_f64], &[usize::MAX, 2]);
    full_shape_overflows: "Tensor::full: shape [18446744073709551615, 2] has more elements than a tensor can hold" => Tensor::full(&[usize::MAX, 2], 1.0_f32);
    zeros_shape_wraps_to_zero: "Tensor::zeros: shape [2, 9223372036854775808] has more elements than a tensor can hold" => Tensor::<f64>::zeros(&[2, 1 << 63]);
    ones_shape_overflows: "Tensor::ones: shape [4294967296, 4294967296, 3] has more elements than a tensor can hold" => Tensor::<u8>::ones(&[1 << 32, 1 << 32, 3]);
    reshape_shape_wraps_to_zero: "reshape: shape [2, 9223372036854775808] has more elements than a tensor can hold" => zeros(&[0]).reshape(&[2, 1 << 63]);
    broadcast_to_shape_overflows: "broadcast_to: shape [2, 9223372036854775808] has more elements than a tensor can hold" => Tensor::scalar(1.0_f64).broadcast_to(&[2, 1 << 63]);
    arange_infinite_end: "Tensor::arange: start 0 and end inf must be finite" => Tensor::<f64>::arange(0.0, f64::INFINITY, 1.0);
    arange_too_long: "Tensor::arange: [0, 100000000000000000000) with step 1 has 100000000000000000000 elements, more than a tensor can hold" => Tensor::<f64>::arange(0.0, 1e20, 1.0);
    to_scalar_many: "to_scalar: tensor of shape [2] has 2 elements, not 1" => zeros(&[2]).to_scalar();
    random_normal_std: "Tensor::random_normal: the standard deviation must be finite and non-negative, got -1" => Tensor::<f64>::random_normal(&[2], 0.0, -1.0, 0);
    random_uniform_bounds: "Tensor::random_uniform: need finite low < high, got [1, 0)" => Tensor::<f64>::random_uniform(&[2], 1.0, 0.0, 0);
}

/// TensorFlow's `reduce_max` of nothing is the identity of `max`, `-inf`; the gradient of
/// an empty input is empty (`[x = max] / #ties` over no elements).
#[test]
fn max_of_an_empty_axis_is_minus_infinity_as_in_tensorflow() {
    let x = zeros(&[2, 0]);
    assert_eq!(x.max().to_scalar(), f64::NEG_INFINITY);
    let along = x.max_axis(1, true);
    assert_eq!(along.shape(), &[2, 1]);
    assert_eq!(along.to_vec(), vec![f64::NEG_INFINITY; 2]);
    let empty_rows = zeros(&[0, 3]).max_axis(0, false);
    assert_eq!(empty_rows.to_vec(), vec![f64::NEG_INFINITY; 3]);
    // a non-empty axis of an empty tensor reduces to nothing
    assert_eq!(zeros(&[0, 3]).max_axis(1, false).shape(), &[0]);

    let tape = GradientTape::persistent();
    tape.watch(&x);
    let (all, rows) = tape.record(|| (x.max(), x.max_axis(1, false)));
    for y in [&all, &rows] {
        let g = tape.gradient(y, &x).unwrap().unwrap();
        assert_eq!(g.shape(), &[2, 0]);
    }
}

/// The exact line, for one representative op.
#[test]
fn matmul_panic_reports_the_users_line() {
    let (a, b) = (zeros(&[2, 3]), zeros(&[4, 5]));
    let line = line!() + 1;
    let (file, at, message) = panic_site(|| drop(a.matmul(&b)));
    assert_eq!((file.as_str(), at), (file!(), line), "{message}");
    assert_eq!(
        message,
        "matmul: inner dimensions differ: shapes [2, 3] and [4, 5]"
    );
    let line = line!() + 1;
    let (file, at, _) = panic_site(|| drop(&a + &b));
    assert_eq!((file.as_str(), at), (file!(), line));
}

/// A 0-d value whose cotangent gathers plain-number contributions (from scalar rules) and
/// tensor contributions (from a rule with no plain-number form: reshape, sum): the sweep
/// must add both kinds, in both orders of arrival.
#[test]
fn scalar_cotangents_mix_with_tensor_cotangents() {
    // f(x) = x² + sum(reshape(x, [1]) * 3) + sin(x): f'(x) = 2x + 3 + cos x.
    let x = Variable::new(0.7_f64);
    let tape = GradientTape::new();
    let y = tape.record(|| {
        let v = x.value();
        v.square() + (v.reshape(&[1]) * 3.0).sum() + v.sin()
    });
    let g = tape.gradient(&y, &x).unwrap().unwrap().to_scalar();
    assert_relative_eq!(g, 2.0 * 0.7 + 3.0 + 0.7_f64.cos(), max_relative = 1e-12);

    // Nested: the inner gradient is recorded by the outer tape (tensors only), so the
    // second derivative f''(x) = 2 - sin x comes out of the same graph.
    let outer = GradientTape::new();
    let dy = outer.record(|| {
        let inner = GradientTape::new();
        let y = inner.record(|| {
            let v = x.value();
            v.square() + (v.reshape(&[1]) * 3.0).sum() + v.sin()
        });
        inner.gradient(&y, &x).unwrap().unwrap()
    });
    let d2 = outer.gradient(&dy, &x).unwrap().unwrap().to_scalar();
    assert_relative_eq!(d2, 2.0 - 0.7_f64.sin(), max_relative = 1e-12);
}

/// Reads of one variable under nested tapes: the innermost tape names each read, the
/// outer tape tracks the same read by its id, and both sum the gradients of every read.
#[test]
fn variable_reads_are_tracked_by_every_watching_tape() {
    let v = Variable::new(1.5_f64);
    let outer = GradientTape::persistent();
    let (y_inner, y_outer) = outer.record(|| {
        let inner = GradientTape::persistent();
        let y = inner.record(|| v.value() * v.value() * v.value());
        let inner_grad = inner.gradient(&y, &v).unwrap().unwrap().to_scalar();
        // d(v³)/dv = 3v²
        assert_relative_eq!(inner_grad, 3.0 * 1.5 * 1.5, max_relative = 1e-12);
        (y, v.value() + 1.0)
    });
    let g = outer.gradient(&y_inner, &v).unwrap().unwrap().to_scalar();
    assert_relative_eq!(g, 3.0 * 1.5 * 1.5, max_relative = 1e-12);
    let g = outer.gradient(&y_outer, &v).unwrap().unwrap().to_scalar();
    assert_relative_eq!(g, 1.0, max_relative = 1e-12);
}

/// `update_array` reuses the variable's storage when no tensor shares it, copies when one
/// does (earlier reads are values, never changed), and gives the result a new identity
/// that a tape watching the variable sees as a new read.
#[test]
fn variable_updates_in_place_only_when_unshared() {
    let v = Variable::new(Tensor::from_vec(vec![1.0_f64, 2.0, 3.0], &[3]));
    let address = |t: &Tensor<f64>| t.view().as_ptr();
    let before = address(&v.value());
    v.update_each(|w| *w *= 2.0);
    let read = v.value();
    assert_eq!(read.to_vec(), vec![2.0, 4.0, 6.0]);
    assert_eq!(
        address(&read),
        before,
        "no tensor shared the storage: updated in place"
    );

    // `read` still shares it now: the update must not change `read`.
    v.update_array(|w| ndarray::Zip::from(w).for_each(|w| *w += 1.0));
    assert_eq!(read.to_vec(), vec![2.0, 4.0, 6.0]);
    assert_eq!(v.value().to_vec(), vec![3.0, 5.0, 7.0]);

    // A read after the update is a new read: d(sum(v))/dv = 1 per element.
    let tape = GradientTape::new();
    let y = tape.record(|| v.value().sum());
    let g = tape.gradient(&y, &v).unwrap().unwrap();
    assert_eq!(g.to_vec(), vec![1.0, 1.0, 1.0]);
}

/// `update_zip` gives every element `f(w, x)`, also for a value large enough to be updated
/// on two threads (the halves meet in the middle) and for a non-contiguous `other` (a
/// transposed view, updated through ndarray's zip).
#[test]
fn variable_update_zip_matches_an_elementwise_loop() {
    for len in [3_usize, (1 << 16) + 3, 300_001] {
        let w0: Vec<f32> = (0..len).map(|i| (i % 97) as f32 * 0.5).collect();
        let g: Vec<f32> = (0..len).map(|i| (i % 13) as f32 - 6.0).collect();
        let v = Variable::new(Tensor::from_vec(w0.clone(), &[len]));
        v.update_zip(&Tensor::from_vec(g.clone(), &[len]), |w, g| *w -= 0.1 * g);
        let want: Vec<f32> = w0.iter().zip(&g).map(|(w, g)| w - 0.1 * g).collect();
        assert_eq!(v.value().to_vec(), want, "length {len}");
    }
    let v = Variable::new(Tensor::from_vec(vec![1.0_f64, 2.0, 3.0, 4.0], &[2, 2]));
    let other = Tensor::from_vec(vec![10.0_f64, 20.0, 30.0, 40.0], &[2, 2]).transpose();
    v.update_zip(&other, |w, x| *w += x);
    assert_eq!(v.value().to_vec(), vec![11.0, 32.0, 23.0, 44.0]);
}

/// Reading a variable inside its own in-place update (even formatting it) would wait
/// forever for the lock the update holds: it panics, naming the variable and the method.
/// Other variables can be read there, and the variable is usable after the panic.
#[test]
fn variable_read_inside_its_own_update_panics_instead_of_deadlocking() {
    let v = Variable::with_name("w", Tensor::from_vec(vec![1.0_f64, 2.0], &[2]));
    let other = Variable::with_name("other", 10.0_f64);
    v.update_each(|w| *w += other.value().to_scalar());
    assert_eq!(v.value().to_vec(), vec![11.0, 12.0]);

    // `attempt` must panic, naming `method` and the variable `name`.
    let refused = |method: &str, name: &str, attempt: &dyn Fn()| {
        let payload = catch_unwind(AssertUnwindSafe(attempt)).expect_err(method);
        let message = payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(message.contains(method), "{method}: {message}");
        assert!(
            message.contains(&format!("variable '{name}'")),
            "{method}: {message}"
        );
    };
    refused("update_each", "w", &|| {
        v.update_each(|w| *w += v.value().sum().to_scalar())
    });
    refused("update_array", "w", &|| {
        v.update_array(|_| drop(format!("{v:?}")))
    });
    refused("update_zip", "w", &|| {
        v.update_zip(&Tensor::zeros(&[2]), |_, _| drop(v.shape()))
    });
    refused("update_each", "w", &|| {
        v.update_each(|w| v.assign(Tensor::from_vec(vec![*w; 2], &[2])))
    });
    // on two threads: the helper's half reads too
    let large = Variable::with_name("large", Tensor::<f32>::zeros(&[1 << 17]));
    let ones = Tensor::ones(&[1 << 17]);
    refused("update_zip", "large", &|| {
        large.update_zip(&ones, |_, _| drop(large.value()))
    });
    // usable again: read, assign, update
    v.assign(Tensor::from_vec(vec![1.0, 2.0], &[2]));
    v.update_each(|w| *w *= 3.0);
    assert_eq!(v.value().to_vec(), vec![3.0, 6.0]);
}

#[test]
#[should_panic(
    expected = "Variable::update_zip: the value has shape [2] but the other tensor has shape [3]"
)]
fn variable_update_zip_rejects_another_shape() {
    let v = Variable::new(Tensor::from_vec(vec![1.0_f32, 2.0], &[2]));
    v.update_zip(&Tensor::from_vec(vec![1.0, 2.0, 3.0], &[3]), |w, x| *w += x);
}

/// A tensor times a plain number, in either order, is the product with that number as a
/// 0-d tensor: the same values and gradients (first and second order), for 0-d and n-d
/// operands; the number is a constant the tape does not track.
#[test]
fn scaling_by_a_number_matches_the_product_with_a_constant_tensor() {
    for shape in [&[][..], &[3][..], &[2, 3][..]] {
        let (x, _) = sample(shape);
        let c = 0.7_f64;
        let tape = GradientTape::persistent();
        tape.watch(&x);
        let (by_number, by_number_left, by_tensor) = tape.record(|| {
            let by_number = (&x * c).sin().sum();
            let by_number_left = (c * &x).sin().sum();
            let by_tensor = (&x * &Tensor::scalar(c)).sin().sum();
            (by_number, by_number_left, by_tensor)
        });
        assert_eq!(by_number.to_scalar(), by_tensor.to_scalar());
        assert_eq!(by_number_left.to_scalar(), by_tensor.to_scalar());
        let grad = |y: &Tensor<f64>| tape.gradient(y, &x).unwrap().unwrap().to_vec();
        assert_eq!(grad(&by_number), grad(&by_tensor));
        assert_eq!(grad(&by_number_left), grad(&by_tensor));
    }
    // second order through nested tapes: d²/dx² sin(c x) = -c² sin(c x)
    let x = Variable::new(0.3_f64);
    let outer = GradientTape::new();
    let dy = outer.record(|| {
        let inner = GradientTape::new();
        let y = inner.record(|| (2.5 * &x).sin());
        inner.gradient(&y, &x).unwrap().unwrap()
    });
    let d2 = outer.gradient(&dy, &x).unwrap().unwrap().to_scalar();
    assert_relative_eq!(d2, -6.25 * (0.75_f64).sin(), max_relative = 1e-12);
}

/// A 0-d variable updates through a 0-d view.
#[test]
fn scalar_variable_updates_in_place() {
    let v = Variable::new(2.5_f32);
    v.update_array(|w| {
        assert_eq!(w.shape(), &[] as &[usize]);
        ndarray::Zip::from(w).for_each(|w| *w = -*w);
    });
    assert_eq!(v.value().to_scalar(), -2.5);
}

/// `owned + y` and `owned - y` compute in the owned operand's buffer when nothing else holds
/// it and the result has its shape; the values are those of the borrowed form for every
/// broadcast pair, whether or not the buffer could be reused.
#[test]
fn owned_left_operands_of_add_and_sub_match_the_borrowed_form() {
    for &(sx, sy, expected_shape) in BROADCAST_PAIRS {
        let (x, a) = sample(sx);
        let (y, b) = nonzero(sy);
        // `&x * 1.0` is a fresh temporary that no other tensor shares
        let sum = (&x * 1.0) + &y;
        let difference = (&x * 1.0) - &y;
        assert_eq!(sum.shape(), expected_shape, "{sx:?} + {sy:?}");
        assert_matches(&sum, &(&a + &b));
        assert_matches(&difference, &(&a - &b));
    }
}

/// The buffer is reused only when no other tensor shares it: a clone keeps its values.
#[test]
fn owned_left_operand_reuses_its_buffer_only_when_unshared() {
    let x = Tensor::from_vec(vec![1.0_f64, 2.0, 3.0], &[3]);
    let temporary = &x * 2.0;
    let address = temporary.view().as_ptr();
    let sum = temporary + 1.0;
    assert_eq!(sum.view().as_ptr(), address, "a temporary lends its buffer");
    assert_eq!(sum.to_vec(), vec![3.0, 5.0, 7.0]);

    let shared = &x * 2.0;
    let kept = shared.clone();
    let sum = shared + 1.0;
    assert_eq!(
        kept.to_vec(),
        vec![2.0, 4.0, 6.0],
        "a shared buffer is never written"
    );
    assert_eq!(sum.to_vec(), vec![3.0, 5.0, 7.0]);

    // a read of a variable shares the variable's storage: the variable keeps its value
    let v = Variable::new(Tensor::from_vec(vec![1.0_f64, 2.0], &[2]));
    let sum = v.value() + 1.0;
    assert_eq!(sum.to_vec(), vec![2.0, 3.0]);
    assert_eq!(v.value().to_vec(), vec![1.0, 2.0]);

    // column-major storage takes the general path
    let (_, a) = sample(&[3, 2]);
    let column_major = Tensor::from(a.clone().reversed_axes());
    let sum = column_major + 1.0;
    assert_matches(&sum, &(&a.reversed_axes() + 1.0));
}

/// A tape sees an in-place sum exactly as a fresh one: gradients through owned temporaries
/// (`a * x + b - y`, the linear-regression loss), first and second order.
#[test]
fn gradients_flow_through_owned_temporaries() {
    let x = Tensor::from_vec(vec![-1.0_f64, 0.0, 0.5, 2.0], &[4]);
    let y = Tensor::from_vec(vec![1.0_f64, 2.0, 0.0, -1.0], &[4]);
    let (a, b) = (Variable::new(0.7_f64), Variable::new(-0.3_f64));
    let outer = GradientTape::new();
    let (da, db) = outer.record(|| {
        let tape = GradientTape::new();
        let loss = tape.record(|| (&a * &x + &b - &y).square().mean());
        let (da, db) = tape.gradient(&loss, (&a, &b)).unwrap();
        (da.unwrap(), db.unwrap())
    });
    // loss = mean((a xᵢ + b - yᵢ)²): d/da = 2 mean(rᵢ xᵢ), d/db = 2 mean(rᵢ)
    let r: Vec<f64> = [(-1.0, 1.0), (0.0, 2.0), (0.5, 0.0), (2.0, -1.0)]
        .iter()
        .map(|&(xi, yi)| 0.7 * xi - 0.3 - yi)
        .collect();
    let xs = [-1.0, 0.0, 0.5, 2.0];
    let want_da = 2.0 * r.iter().zip(xs).map(|(r, x)| r * x).sum::<f64>() / 4.0;
    let want_db = 2.0 * r.iter().sum::<f64>() / 4.0;
    assert_relative_eq!(da.to_scalar(), want_da, max_relative = 1e-12);
    assert_relative_eq!(db.to_scalar(), want_db, max_relative = 1e-12);
    // d²/da db = 2 mean(xᵢ)
    let dab = outer.gradient(&db, &a).unwrap().unwrap().to_scalar();
    assert_relative_eq!(
        dab,
        2.0 * xs.iter().sum::<f64>() / 4.0,
        max_relative = 1e-12
    );
}

/// Elementwise passes over at least 2¹⁷ elements are cut in two halves, one per thread
/// (session 10, for W8's activations): a map, a zip of equal shapes, and the in-place adds
/// of an owned temporary (equal shapes, a bias row, a kept-dimension column, a number),
/// odd and even lengths, must equal the same arithmetic done one element at a time, to the
/// bit; and so must a ReLU's gradient (a mask and a product, both split).
#[test]
fn long_elementwise_passes_split_over_two_threads_match_one_element_at_a_time() {
    let values = |n: usize, seed: u64| Tensor::<f32>::random_normal(&[n], 0.0, 1.0, seed);
    for n in [(1 << 17) + 1, 1 << 18] {
        let (x, y) = (values(n, 1), values(n, 2));
        let (xs, ys) = (x.to_vec(), y.to_vec());
        let relu: Vec<f32> = xs.iter().map(|&v| v.max(0.0)).collect();
        assert_eq!(x.relu().to_vec(), relu, "map, {n}");
        let product: Vec<f32> = xs.iter().zip(&ys).map(|(a, b)| a * b).collect();
        assert_eq!((&x * &y).to_vec(), product, "zip, {n}");
        // `&x * 2.0` is a temporary no other tensor holds: the add is done in its buffer
        let sum: Vec<f32> = xs.iter().zip(&ys).map(|(a, b)| a * 2.0 + b).collect();
        assert_eq!(((&x * 2.0) + &y).to_vec(), sum, "in place, {n}");
        let plus_one: Vec<f32> = xs.iter().map(|a| a * 2.0 + 1.0).collect();
        assert_eq!(((&x * 2.0) + 1.0).to_vec(), plus_one, "a number, {n}");
        // the ReLU's gradient for the cotangent y: y where x > 0
        let tape = GradientTape::new();
        tape.watch(&x);
        let z = tape.record(|| (x.relu() * &y).sum());
        let dx = tape.gradient(&z, &x).unwrap().unwrap();
        let want: Vec<f32> = xs
            .iter()
            .zip(&ys)
            .map(|(&a, &b)| if a > 0.0 { b } else { 0.0 })
            .collect();
        assert_eq!(dx.to_vec(), want, "relu gradient, {n}");
    }
    // a bias row against a [4096, 64] batch, and a [64, 1] column against [64, 4096]
    let x = Tensor::<f32>::random_normal(&[4096, 64], 0.0, 1.0, 3);
    let row = Tensor::<f32>::random_normal(&[64], 0.0, 1.0, 4);
    let (xs, rs) = (x.to_vec(), row.to_vec());
    let want: Vec<f32> = xs
        .iter()
        .enumerate()
        .map(|(i, a)| a * 2.0 + rs[i % 64])
        .collect();
    assert_eq!(((&x * 2.0) + &row).to_vec(), want, "bias row");
    let x = x.reshape(&[64, 4096]);
    let column = row.reshape(&[64, 1]);
    let want: Vec<f32> = xs
        .iter()
        .enumerate()
        .map(|(i, a)| a * 2.0 + rs[i / 4096])
        .collect();
    assert_eq!(((&x * 2.0) + &column).to_vec(), want, "column");
}
