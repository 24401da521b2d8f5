//! Scalar-mode programs written by `gradtape-fuzz --scalar` (fuzz/src/scalar.rs): each
//! a plain-float annotated function, and the same body generic over `num_traits::Float`
//! run on dual numbers; checked against the dual numbers and central differences, orders
//! 1 and 2. Generated: do not edit; regenerate with
//! `cargo run -p gradtape-fuzz -- --scalar --seeds SEEDS --test-file tests/generated_scalar_programs.rs`.

#![allow(unused, clippy::all)]

mod common;

use common::{central_differences, close};
use gradtape::differentiable;
use gradtape::generated::Dual;

/// Called by the programs: an annotated helper.
#[differentiable]
fn helper_soft<T: gradtape::Float>(a: T, b: T) -> T {
    (a * b).tanh() + a * T::from(0.5).unwrap()
}

fn helper_soft_on_duals<T: num_traits::Float>(a: T, b: T) -> T {
    (a * b).tanh() + a * T::from(0.5).unwrap()
}

/// Called by the programs: an annotated recursive helper, `v` to the power `n` by halves.
#[differentiable]
fn helper_power<T: gradtape::Float>(v: T, n: usize) -> T {
    if n == 0 {
        T::one()
    } else if n % 2 == 0 {
        let h = helper_power(v, n / 2);
        h * h
    } else {
        v * helper_power(v, n - 1)
    }
}

fn helper_power_on_duals<T: num_traits::Float>(v: T, n: usize) -> T {
    if n == 0 {
        T::one()
    } else if n % 2 == 0 {
        let h = helper_power_on_duals(v, n / 2);
        h * h
    } else {
        v * helper_power_on_duals(v, n - 1)
    }
}

/// Called by the programs: an annotated helper returning a pair.
#[differentiable]
fn helper_pair<T: gradtape::Float>(a: T, b: T) -> (T, T) {
    (a * b.cos(), (a - b).tanh())
}

fn helper_pair_on_duals<T: num_traits::Float>(a: T, b: T) -> (T, T) {
    (a * b.cos(), (a - b).tanh())
}

/// Called by the programs: an annotated writer into a caller's buffer.
#[differentiable]
fn helper_smooth<T: gradtape::Float>(buf: &mut [T], k: T) {
    for i in 1..buf.len() {
        buf[i] = buf[i] * k.tanh() + buf[i - 1] * T::from(0.25).unwrap();
    }
}

fn helper_smooth_on_duals<T: num_traits::Float>(buf: &mut [T], k: T) {
    for i in 1..buf.len() {
        buf[i] = buf[i] * k.tanh() + buf[i - 1] * T::from(0.25).unwrap();
    }
}

/// `x` (four entries) then `s`.
const N: usize = 5;

/// The inputs of program `seed`: in (-1, 1), from a small generator of its own.
fn point(seed: u64) -> [f64; N] {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    std::array::from_fn(|_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    })
}

/// `jvp` along `t` against the gradient (the same derivative by forward mode), and
/// `grad_into` into zeroed buffers against `grad`.
fn faces(
    name: &str,
    p: [f64; N],
    t: [f64; N],
    (value, dx, ds): (f64, &[f64], f64),
    jvp: &dyn Fn(&[f64], &[f64]) -> (f64, f64),
    grad_into: &dyn Fn(&[f64], &mut [f64], &mut f64) -> f64,
) {
    let (by_jvp, tangent) = jvp(&p, &t);
    assert_eq!(by_jvp.to_bits(), value.to_bits(), "{name}: jvp's value");
    let along: f64 = dx.iter().zip(&t).map(|(g, t)| g * t).sum::<f64>() + ds * t[4];
    assert!(
        close(tangent, along, 1e-10),
        "{name}: jvp {tangent}, gradient along t {along}"
    );
    let (mut into, mut into_s) = (vec![0.0; 4], 0.0);
    let by_into = grad_into(&p, &mut into, &mut into_s);
    assert_eq!(
        by_into.to_bits(),
        value.to_bits(),
        "{name}: grad_into's value"
    );
    for (k, (a, b)) in into
        .iter()
        .chain([&into_s])
        .zip(dx.iter().chain([&ds]))
        .enumerate()
    {
        assert!(
            close(*a, *b, 1e-13),
            "{name}: grad_into ∂/∂p{k} {a}, grad {b}"
        );
    }
}

/// The generic program's value and gradient, and its `f64` twin's: the same to the bit.
fn same<'a>(
    name: &str,
    generic: impl Iterator<Item = &'a f64>,
    twin: impl Iterator<Item = &'a f64>,
) {
    let (generic, twin): (Vec<f64>, Vec<f64>) =
        (generic.copied().collect(), twin.copied().collect());
    assert!(
        generic
            .iter()
            .zip(&twin)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "{name}: value and gradient {twin:?}, generic {generic:?}"
    );
}

/// Program `name`'s faces at `p`, against dual numbers and differences.
fn check(
    name: &str,
    p: [f64; N],
    primal: &dyn Fn(&[f64]) -> f64,
    itself: &dyn Fn(&[f64]) -> f64,
    grad: &dyn Fn(&[f64]) -> (f64, Vec<f64>),
    on_duals: &dyn Fn(&[Dual<f64, N>]) -> Dual<f64, N>,
) {
    let by_duals = |x: &[f64]| {
        let d: Vec<Dual<f64, N>> = x
            .iter()
            .enumerate()
            .map(|(i, &v)| Dual::variable(v, i))
            .collect();
        let y = on_duals(&d);
        (y.value, y.partials.to_vec())
    };
    let value = primal(&p);
    assert!(value.is_finite(), "{name}: value {value} at {p:?}");
    assert_eq!(
        itself(&p).to_bits(),
        value.to_bits(),
        "{name}: f against primal"
    );
    let (by_grad, gradient) = grad(&p);
    assert_eq!(by_grad.to_bits(), value.to_bits(), "{name}: grad's value");
    let (dual_value, dual_gradient) = by_duals(&p);
    assert!(
        close(dual_value, value, 1e-12),
        "{name}: {dual_value} on duals, {value}"
    );
    let differences = central_differences(primal, &p);
    for k in 0..N {
        assert!(
            close(gradient[k], dual_gradient[k], 1e-10),
            "{name}: ∂/∂p{k} {} vs dual numbers {} at {p:?}\n  grad  {gradient:?}\n  duals {dual_gradient:?}",
            gradient[k],
            dual_gradient[k]
        );
        assert!(
            close(gradient[k], differences[k], 1e-5),
            "{name}: ∂/∂p{k} {} vs central differences {} at {p:?}",
            gradient[k],
            differences[k]
        );
    }
    // order two: each Hessian column by differences of `grad`, against the same
    // differences of the dual numbers' gradient
    let h = 1e-5;
    for j in 0..N {
        let moved = |by: f64| {
            let mut q = p;
            q[j] += by;
            q
        };
        let (up, down) = (grad(&moved(h)).1, grad(&moved(-h)).1);
        let (dual_up, dual_down) = (by_duals(&moved(h)).1, by_duals(&moved(-h)).1);
        for i in 0..N {
            let of_grad = (up[i] - down[i]) / (2.0 * h);
            let of_duals = (dual_up[i] - dual_down[i]) / (2.0 * h);
            assert!(
                close(of_grad, of_duals, 1e-6),
                "{name}: H[{i}][{j}] {of_grad} by grad, {of_duals} by dual numbers at {p:?}"
            );
        }
    }
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_0<T: gradtape::Float>(x: &[T], s: T) -> T {
    let (n1, n2) = helper_pair((s / (T::from(1.5).unwrap() + s * s)).atan(), s);
    let n3 = (x
        .windows(2)
        .map(|w| (w[1] - w[0]) * T::from(1.6).unwrap())
        .sum::<T>())
    .tanh();
    let n4 = s.min((T::from(0.6).unwrap()).atan().sin());
    let mut a5 = (x[3] + s).tanh();
    a5 -= n2;
    let mut b6 = x.to_vec();
    let k7 = (s + T::from(-1.0).unwrap()).sin();
    helper_smooth(&mut b6, k7);
    n3 + n1 + n3 + a5 + b6.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_0_f64(x: &[f64], s: f64) -> f64 {
    let (n1, n2) = helper_pair((s / ((1.5_f64) + s * s)).atan(), s);
    let n3 = (x.windows(2).map(|w| (w[1] - w[0]) * (1.6_f64)).sum::<f64>()).tanh();
    let n4 = s.min((0.6_f64).atan().sin());
    let mut a5 = (x[3] + s).tanh();
    a5 -= n2;
    let mut b6 = x.to_vec();
    let k7 = (s + (-1.0_f64)).sin();
    helper_smooth(&mut b6, k7);
    n3 + n1 + n3 + a5 + b6.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_0_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let (n1, n2) = helper_pair_on_duals((s / (T::from(1.5).unwrap() + s * s)).atan(), s);
    let n3 = (x
        .windows(2)
        .map(|w| (w[1] - w[0]) * T::from(1.6).unwrap())
        .sum::<T>())
    .tanh();
    let n4 = s.min((T::from(0.6).unwrap()).atan().sin());
    let mut a5 = (x[3] + s).tanh();
    a5 -= n2;
    let mut b6 = x.to_vec();
    let k7 = (s + T::from(-1.0).unwrap()).sin();
    helper_smooth_on_duals(&mut b6, k7);
    n3 + n1 + n3 + a5 + b6.iter().copied().sum::<T>()
}

#[test]
fn program_0_matches_dual_numbers_and_finite_differences() {
    check(
        "program_0",
        point(0),
        &|p| program_0::primal(&p[..4], p[4]),
        &|p| program_0(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_0::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_0_on_duals(&d[..4], d[4]),
    );
    let p = point(0);
    let (value, (dx, ds)) = program_0::grad(&p[..4], p[4]);
    faces(
        "program_0",
        p,
        point(0 + 7),
        (value, &dx, ds),
        &|p, t| program_0::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_0::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_0_f64::grad(&p[..4], p[4]);
    same(
        "program_0_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_1<T: gradtape::Float>(x: &[T], s: T) -> T {
    for i in (0..4).rev() {
        if (T::from(0.6).unwrap()).max(x[i]) > (x[0] + x[i]) {
            break;
        }
        let mut b1 = x.to_vec();
        b1[i] = b1[i] * b1[(i + 1) % 4] + x[i];
        b1[(i + 3) % 4] = b1[(i + 3) % 4] * s + x[(i + 2) % 4];
    }
    let n2 = (s.mul_add((T::from(-1.0).unwrap()).atan(), (x[0] + s)))
        .mul_add((x[1]).hypot(T::one()).max((s - x[1])), s.tanh());
    let mut b3 = vec![T::zero(); 4];
    for i in 0..4 {
        b3[i] = x[i];
    }
    let k4 = (x[2] * (n2 * n2));
    b3[3] += k4;
    for v in b3.iter_mut() {
        *v = (s.signum() * (*v).atan());
    }
    let n5 = s;
    let n6 = (x[0])
        .tanh()
        .exp()
        .tanh()
        .exp()
        .mul_add(s, (x[3] * s).mul_add((x[2]).powi(3), (n5 - x[2])));
    ((s * s + T::one()).ln() * (s * s + T::one()).ln() + T::one()).sqrt()
        + n2
        + n6
        + b3.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_1_f64(x: &[f64], s: f64) -> f64 {
    for i in (0..4).rev() {
        if (0.6_f64).max(x[i]) > (x[0] + x[i]) {
            break;
        }
        let mut b1 = x.to_vec();
        b1[i] = b1[i] * b1[(i + 1) % 4] + x[i];
        b1[(i + 3) % 4] = b1[(i + 3) % 4] * s + x[(i + 2) % 4];
    }
    let n2 = (s.mul_add((-1.0_f64).atan(), (x[0] + s)))
        .mul_add((x[1]).hypot(1.0).max((s - x[1])), s.tanh());
    let mut b3 = vec![0.0; 4];
    for i in 0..4 {
        b3[i] = x[i];
    }
    let k4 = (x[2] * (n2 * n2));
    b3[3] += k4;
    for v in b3.iter_mut() {
        *v = (s.signum() * (*v).atan());
    }
    let n5 = s;
    let n6 = (x[0])
        .tanh()
        .exp()
        .tanh()
        .exp()
        .mul_add(s, (x[3] * s).mul_add((x[2]).powi(3), (n5 - x[2])));
    ((s * s + 1.0).ln() * (s * s + 1.0).ln() + 1.0).sqrt()
        + n2
        + n6
        + b3.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_1_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    for i in (0..4).rev() {
        if (T::from(0.6).unwrap()).max(x[i]) > (x[0] + x[i]) {
            break;
        }
        let mut b1 = x.to_vec();
        b1[i] = b1[i] * b1[(i + 1) % 4] + x[i];
        b1[(i + 3) % 4] = b1[(i + 3) % 4] * s + x[(i + 2) % 4];
    }
    let n2 = (s.mul_add((T::from(-1.0).unwrap()).atan(), (x[0] + s)))
        .mul_add((x[1]).hypot(T::one()).max((s - x[1])), s.tanh());
    let mut b3 = vec![T::zero(); 4];
    for i in 0..4 {
        b3[i] = x[i];
    }
    let k4 = (x[2] * (n2 * n2));
    b3[3] += k4;
    for v in b3.iter_mut() {
        *v = (s.signum() * (*v).atan());
    }
    let n5 = s;
    let n6 = (x[0])
        .tanh()
        .exp()
        .tanh()
        .exp()
        .mul_add(s, (x[3] * s).mul_add((x[2]).powi(3), (n5 - x[2])));
    ((s * s + T::one()).ln() * (s * s + T::one()).ln() + T::one()).sqrt()
        + n2
        + n6
        + b3.iter().copied().sum::<T>()
}

#[test]
fn program_1_matches_dual_numbers_and_finite_differences() {
    check(
        "program_1",
        point(1),
        &|p| program_1::primal(&p[..4], p[4]),
        &|p| program_1(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_1::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_1_on_duals(&d[..4], d[4]),
    );
    let p = point(1);
    let (value, (dx, ds)) = program_1::grad(&p[..4], p[4]);
    faces(
        "program_1",
        p,
        point(1 + 7),
        (value, &dx, ds),
        &|p, t| program_1::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_1::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_1_f64::grad(&p[..4], p[4]);
    same(
        "program_1_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_2<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut a1 = x[0];
    a1 = a1 * T::from(0.7).unwrap()
        + ((T::from(0.8).unwrap() + x[2]) * (T::from(0.8).unwrap() + x[2]) + T::one())
            .sqrt()
            .powi(3);
    let n2 = s;
    let n3 = helper_soft(
        ((n2.tanh().exp()) * (n2.tanh().exp()) + T::one()).ln(),
        (x[1]).mul_add(a1, s).abs(),
    );
    a1 -= T::from(-1.2).unwrap();
    a1 *= T::from(0.6).unwrap();
    let n4 = helper_soft(
        (T::from(0.4).unwrap()
            + ((T::from(0.7).unwrap()) * (T::from(0.7).unwrap()) + T::one()).ln()),
        (x[2]).max(s).max(((x[0]) * (x[0]) + T::one()).powf(x[2])),
    );
    let n5 = ((s.mul_add(x[1], T::from(-1.5).unwrap()))
        * (s.mul_add(x[1], T::from(-1.5).unwrap()))
        + T::one())
    .sqrt()
    .atan();
    if n3 >= x[2] {
        a1 = ((x[3]).atan() + ((x[2]) * (x[2]) + T::one()).powf(s)).tanh();
    } else {
        a1 = a1 - (x[2]).min(n3).tanh();
    }
    ((x[2]).mul_add(s, x[1]) + (s * s + T::one()).ln()) + n2 + n4
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_2_f64(x: &[f64], s: f64) -> f64 {
    let mut a1 = x[0];
    a1 = a1 * (0.7_f64)
        + (((0.8_f64) + x[2]) * ((0.8_f64) + x[2]) + 1.0)
            .sqrt()
            .powi(3);
    let n2 = s;
    let n3 = helper_soft(
        ((n2.tanh().exp()) * (n2.tanh().exp()) + 1.0).ln(),
        (x[1]).mul_add(a1, s).abs(),
    );
    a1 -= (-1.2_f64);
    a1 *= (0.6_f64);
    let n4 = helper_soft(
        ((0.4_f64) + ((0.7_f64) * (0.7_f64) + 1.0).ln()),
        (x[2]).max(s).max(((x[0]) * (x[0]) + 1.0).powf(x[2])),
    );
    let n5 = ((s.mul_add(x[1], (-1.5_f64))) * (s.mul_add(x[1], (-1.5_f64))) + 1.0)
        .sqrt()
        .atan();
    if n3 >= x[2] {
        a1 = ((x[3]).atan() + ((x[2]) * (x[2]) + 1.0).powf(s)).tanh();
    } else {
        a1 = a1 - (x[2]).min(n3).tanh();
    }
    ((x[2]).mul_add(s, x[1]) + (s * s + 1.0).ln()) + n2 + n4
}

#[allow(clippy::all, unused)]
fn program_2_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut a1 = x[0];
    a1 = a1 * T::from(0.7).unwrap()
        + ((T::from(0.8).unwrap() + x[2]) * (T::from(0.8).unwrap() + x[2]) + T::one())
            .sqrt()
            .powi(3);
    let n2 = s;
    let n3 = helper_soft_on_duals(
        ((n2.tanh().exp()) * (n2.tanh().exp()) + T::one()).ln(),
        (x[1]).mul_add(a1, s).abs(),
    );
    a1 -= T::from(-1.2).unwrap();
    a1 *= T::from(0.6).unwrap();
    let n4 = helper_soft_on_duals(
        (T::from(0.4).unwrap()
            + ((T::from(0.7).unwrap()) * (T::from(0.7).unwrap()) + T::one()).ln()),
        (x[2]).max(s).max(((x[0]) * (x[0]) + T::one()).powf(x[2])),
    );
    let n5 = ((s.mul_add(x[1], T::from(-1.5).unwrap()))
        * (s.mul_add(x[1], T::from(-1.5).unwrap()))
        + T::one())
    .sqrt()
    .atan();
    if n3 >= x[2] {
        a1 = ((x[3]).atan() + ((x[2]) * (x[2]) + T::one()).powf(s)).tanh();
    } else {
        a1 = a1 - (x[2]).min(n3).tanh();
    }
    ((x[2]).mul_add(s, x[1]) + (s * s + T::one()).ln()) + n2 + n4
}

#[test]
fn program_2_matches_dual_numbers_and_finite_differences() {
    check(
        "program_2",
        point(2),
        &|p| program_2::primal(&p[..4], p[4]),
        &|p| program_2(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_2::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_2_on_duals(&d[..4], d[4]),
    );
    let p = point(2);
    let (value, (dx, ds)) = program_2::grad(&p[..4], p[4]);
    faces(
        "program_2",
        p,
        point(2 + 7),
        (value, &dx, ds),
        &|p, t| program_2::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_2::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_2_f64::grad(&p[..4], p[4]);
    same(
        "program_2_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_3<T: gradtape::Float>(x: &[T], s: T) -> T {
    let n1 = (x.iter().map(|v| (*v).mul_add(*v, s)).sum::<T>()).mul_add(
        ((T::from(-1.2).unwrap()).tanh() * (T::from(-1.2).unwrap()).tanh() + T::one())
            .powf(T::from(1.2).unwrap()),
        x[1],
    );
    let mut a2 = x.iter().fold(T::zero(), |acc, v| {
        acc * T::from(-0.4).unwrap() + T::from(1.6).unwrap()
    });
    a2 = a2 * T::from(0.2).unwrap() + n1.tanh().exp();
    let mut b3 = vec![T::zero(); 4];
    for i in 0..4 {
        b3[i] = n1;
    }
    for i in 1..4 {
        b3[i] = b3[i - 1] * T::from(0.6).unwrap() + b3[i].tanh();
    }
    let f4 = move |v: T| (s + T::from(0.0).unwrap()).hypot(T::one()) * n1;
    let n5 = f4((n1 * x[1]).tanh().exp());
    let (n6, n7) = (
        (a2 / (T::from(1.5).unwrap() + s * s)).hypot(T::one()),
        ((x[0]) * (x[0]) + T::one()).sqrt(),
    );
    let n8 = (s * s + T::one()).sqrt();
    if f4((b3[1] - s)) > s {
        return x[3];
    }
    n5 + n5 + n6 + b3.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_3_f64(x: &[f64], s: f64) -> f64 {
    let n1 = (x.iter().map(|v| (*v).mul_add(*v, s)).sum::<f64>()).mul_add(
        ((-1.2_f64).tanh() * (-1.2_f64).tanh() + 1.0).powf((1.2_f64)),
        x[1],
    );
    let mut a2 = x.iter().fold(0.0, |acc, v| acc * (-0.4_f64) + (1.6_f64));
    a2 = a2 * (0.2_f64) + n1.tanh().exp();
    let mut b3 = vec![0.0; 4];
    for i in 0..4 {
        b3[i] = n1;
    }
    for i in 1..4 {
        b3[i] = b3[i - 1] * (0.6_f64) + b3[i].tanh();
    }
    let f4 = move |v: f64| (s + (0.0_f64)).hypot(1.0) * n1;
    let n5 = f4((n1 * x[1]).tanh().exp());
    let (n6, n7) = (
        (a2 / ((1.5_f64) + s * s)).hypot(1.0),
        ((x[0]) * (x[0]) + 1.0).sqrt(),
    );
    let n8 = (s * s + 1.0).sqrt();
    if f4((b3[1] - s)) > s {
        return x[3];
    }
    n5 + n5 + n6 + b3.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_3_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let n1 = (x.iter().map(|v| (*v).mul_add(*v, s)).sum::<T>()).mul_add(
        ((T::from(-1.2).unwrap()).tanh() * (T::from(-1.2).unwrap()).tanh() + T::one())
            .powf(T::from(1.2).unwrap()),
        x[1],
    );
    let mut a2 = x.iter().fold(T::zero(), |acc, v| {
        acc * T::from(-0.4).unwrap() + T::from(1.6).unwrap()
    });
    a2 = a2 * T::from(0.2).unwrap() + n1.tanh().exp();
    let mut b3 = vec![T::zero(); 4];
    for i in 0..4 {
        b3[i] = n1;
    }
    for i in 1..4 {
        b3[i] = b3[i - 1] * T::from(0.6).unwrap() + b3[i].tanh();
    }
    let f4 = move |v: T| (s + T::from(0.0).unwrap()).hypot(T::one()) * n1;
    let n5 = f4((n1 * x[1]).tanh().exp());
    let (n6, n7) = (
        (a2 / (T::from(1.5).unwrap() + s * s)).hypot(T::one()),
        ((x[0]) * (x[0]) + T::one()).sqrt(),
    );
    let n8 = (s * s + T::one()).sqrt();
    if f4((b3[1] - s)) > s {
        return x[3];
    }
    n5 + n5 + n6 + b3.iter().copied().sum::<T>()
}

#[test]
fn program_3_matches_dual_numbers_and_finite_differences() {
    check(
        "program_3",
        point(3),
        &|p| program_3::primal(&p[..4], p[4]),
        &|p| program_3(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_3::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_3_on_duals(&d[..4], d[4]),
    );
    let p = point(3);
    let (value, (dx, ds)) = program_3::grad(&p[..4], p[4]);
    faces(
        "program_3",
        p,
        point(3 + 7),
        (value, &dx, ds),
        &|p, t| program_3::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_3::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_3_f64::grad(&p[..4], p[4]);
    same(
        "program_3_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_4<T: gradtape::Float>(x: &[T], s: T) -> T {
    let n3 = (T::from(-0.9).unwrap()).mul_add(x[0], T::from(0.2).unwrap());
    let f1 = |u: T, w: T| (u * n3 - w).tanh();
    let f2 = |u: T| f1(u, u * u) + n3;
    let n4 = f1(((n3 + n3) * s), x[0]) + f2(x[0]);
    let mut p5 = x
        .iter()
        .fold(T::zero(), |acc, v| acc * T::from(0.0).unwrap() + s);
    let mut q6 = x[3];
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * T::from(0.1).unwrap();
        p5 = p5 + q6 * T::from(0.1).unwrap();
    }
    for pair in x.chunks(2) {
        p5 = p5 * T::from(-0.1).unwrap() + pair[0] * pair[1].tanh();
    }
    for pair in x.chunks(2) {
        p5 = p5 * T::from(-0.9).unwrap() + pair[0] * pair[1].tanh();
    }
    s + n4 + p5
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_4_f64(x: &[f64], s: f64) -> f64 {
    let n3 = (-0.9_f64).mul_add(x[0], (0.2_f64));
    let f1 = |u: f64, w: f64| (u * n3 - w).tanh();
    let f2 = |u: f64| f1(u, u * u) + n3;
    let n4 = f1(((n3 + n3) * s), x[0]) + f2(x[0]);
    let mut p5 = x.iter().fold(0.0, |acc, v| acc * (0.0_f64) + s);
    let mut q6 = x[3];
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * (0.1_f64);
        p5 = p5 + q6 * (0.1_f64);
    }
    for pair in x.chunks(2) {
        p5 = p5 * (-0.1_f64) + pair[0] * pair[1].tanh();
    }
    for pair in x.chunks(2) {
        p5 = p5 * (-0.9_f64) + pair[0] * pair[1].tanh();
    }
    s + n4 + p5
}

#[allow(clippy::all, unused)]
fn program_4_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let n3 = (T::from(-0.9).unwrap()).mul_add(x[0], T::from(0.2).unwrap());
    let f1 = |u: T, w: T| (u * n3 - w).tanh();
    let f2 = |u: T| f1(u, u * u) + n3;
    let n4 = f1(((n3 + n3) * s), x[0]) + f2(x[0]);
    let mut p5 = x
        .iter()
        .fold(T::zero(), |acc, v| acc * T::from(0.0).unwrap() + s);
    let mut q6 = x[3];
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * T::from(0.1).unwrap();
        p5 = p5 + q6 * T::from(0.1).unwrap();
    }
    for pair in x.chunks(2) {
        p5 = p5 * T::from(-0.1).unwrap() + pair[0] * pair[1].tanh();
    }
    for pair in x.chunks(2) {
        p5 = p5 * T::from(-0.9).unwrap() + pair[0] * pair[1].tanh();
    }
    s + n4 + p5
}

#[test]
fn program_4_matches_dual_numbers_and_finite_differences() {
    check(
        "program_4",
        point(4),
        &|p| program_4::primal(&p[..4], p[4]),
        &|p| program_4(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_4::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_4_on_duals(&d[..4], d[4]),
    );
    let p = point(4);
    let (value, (dx, ds)) = program_4::grad(&p[..4], p[4]);
    faces(
        "program_4",
        p,
        point(4 + 7),
        (value, &dx, ds),
        &|p, t| program_4::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_4::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_4_f64::grad(&p[..4], p[4]);
    same(
        "program_4_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_5<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut b1 = x.to_vec();
    let k2 = x[0];
    b1[0] += k2;
    let mut a3 = (s.tanh()).cos();
    a3 = a3 * T::from(0.4).unwrap()
        + ((T::from(-1.5).unwrap() / (T::from(1.5).unwrap() + (x[2]) * (x[2])))
            - ((x[0]) * (x[0]) + T::one()).ln())
        .hypot(T::one());
    let n4 = (x[1]).max(b1[0]).sin();
    a3 = a3 * T::from(-0.8).unwrap()
        + (x[0]).powi(3).cos().mul_add(
            (x.iter()
                .enumerate()
                .map(|(k, v)| *v * T::from(k + 1).unwrap())
                .sum::<T>())
            .atan(),
            a3.powi(2),
        );
    let (n5, n6) = ((a3.tanh().exp() + n4), b1[1]);
    ((x[2]).powi(2) / (T::from(1.5).unwrap() + (n4 + x[0]) * (n4 + x[0])))
        + n5
        + n6
        + b1.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_5_f64(x: &[f64], s: f64) -> f64 {
    let mut b1 = x.to_vec();
    let k2 = x[0];
    b1[0] += k2;
    let mut a3 = (s.tanh()).cos();
    a3 = a3 * (0.4_f64)
        + (((-1.5_f64) / ((1.5_f64) + (x[2]) * (x[2]))) - ((x[0]) * (x[0]) + 1.0).ln()).hypot(1.0);
    let n4 = (x[1]).max(b1[0]).sin();
    a3 = a3 * (-0.8_f64)
        + (x[0]).powi(3).cos().mul_add(
            (x.iter()
                .enumerate()
                .map(|(k, v)| *v * ((k + 1) as f64))
                .sum::<f64>())
            .atan(),
            a3.powi(2),
        );
    let (n5, n6) = ((a3.tanh().exp() + n4), b1[1]);
    ((x[2]).powi(2) / ((1.5_f64) + (n4 + x[0]) * (n4 + x[0])))
        + n5
        + n6
        + b1.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_5_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut b1 = x.to_vec();
    let k2 = x[0];
    b1[0] += k2;
    let mut a3 = (s.tanh()).cos();
    a3 = a3 * T::from(0.4).unwrap()
        + ((T::from(-1.5).unwrap() / (T::from(1.5).unwrap() + (x[2]) * (x[2])))
            - ((x[0]) * (x[0]) + T::one()).ln())
        .hypot(T::one());
    let n4 = (x[1]).max(b1[0]).sin();
    a3 = a3 * T::from(-0.8).unwrap()
        + (x[0]).powi(3).cos().mul_add(
            (x.iter()
                .enumerate()
                .map(|(k, v)| *v * T::from(k + 1).unwrap())
                .sum::<T>())
            .atan(),
            a3.powi(2),
        );
    let (n5, n6) = ((a3.tanh().exp() + n4), b1[1]);
    ((x[2]).powi(2) / (T::from(1.5).unwrap() + (n4 + x[0]) * (n4 + x[0])))
        + n5
        + n6
        + b1.iter().copied().sum::<T>()
}

#[test]
fn program_5_matches_dual_numbers_and_finite_differences() {
    check(
        "program_5",
        point(5),
        &|p| program_5::primal(&p[..4], p[4]),
        &|p| program_5(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_5::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_5_on_duals(&d[..4], d[4]),
    );
    let p = point(5);
    let (value, (dx, ds)) = program_5::grad(&p[..4], p[4]);
    faces(
        "program_5",
        p,
        point(5 + 7),
        (value, &dx, ds),
        &|p, t| program_5::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_5::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_5_f64::grad(&p[..4], p[4]);
    same(
        "program_5_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_6<T: gradtape::Float>(x: &[T], s: T) -> T {
    let n3 = x.iter().map(|v| T::from(-0.6).unwrap()).sum::<T>();
    let f1 = |u: T, w: T| (u * n3 - w).tanh();
    let f2 = |u: T| f1(u, u * u) + n3;
    let n4 = f1((s.tanh().exp() + x[0]), x[3]) + f2(x[3]);
    let n5 = (n4 * n4 + T::one()).powf(
        (x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>()
            + (T::from(-0.7).unwrap()
                / (T::from(1.5).unwrap() + (T::from(-0.6).unwrap()) * (T::from(-0.6).unwrap())))),
    );
    let n6 = s.cos();
    let mut a7 = x[0];
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (s + ((T::from(0.2).unwrap()) * (T::from(0.2).unwrap()) + T::one()).ln()) >= (s - s)
            {
                break 'outer;
            }
            a7 = (a7 + n5 * x[i]).tanh();
        }
    }
    ((a7 * a7 + T::one()).sqrt() + s.tanh()) + n3 + n6
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_6_f64(x: &[f64], s: f64) -> f64 {
    let n3 = x.iter().map(|v| (-0.6_f64)).sum::<f64>();
    let f1 = |u: f64, w: f64| (u * n3 - w).tanh();
    let f2 = |u: f64| f1(u, u * u) + n3;
    let n4 = f1((s.tanh().exp() + x[0]), x[3]) + f2(x[3]);
    let n5 = (n4 * n4 + 1.0).powf(
        (x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<f64>()
            + ((-0.7_f64) / ((1.5_f64) + (-0.6_f64) * (-0.6_f64)))),
    );
    let n6 = s.cos();
    let mut a7 = x[0];
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (s + ((0.2_f64) * (0.2_f64) + 1.0).ln()) >= (s - s) {
                break 'outer;
            }
            a7 = (a7 + n5 * x[i]).tanh();
        }
    }
    ((a7 * a7 + 1.0).sqrt() + s.tanh()) + n3 + n6
}

#[allow(clippy::all, unused)]
fn program_6_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let n3 = x.iter().map(|v| T::from(-0.6).unwrap()).sum::<T>();
    let f1 = |u: T, w: T| (u * n3 - w).tanh();
    let f2 = |u: T| f1(u, u * u) + n3;
    let n4 = f1((s.tanh().exp() + x[0]), x[3]) + f2(x[3]);
    let n5 = (n4 * n4 + T::one()).powf(
        (x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>()
            + (T::from(-0.7).unwrap()
                / (T::from(1.5).unwrap() + (T::from(-0.6).unwrap()) * (T::from(-0.6).unwrap())))),
    );
    let n6 = s.cos();
    let mut a7 = x[0];
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (s + ((T::from(0.2).unwrap()) * (T::from(0.2).unwrap()) + T::one()).ln()) >= (s - s)
            {
                break 'outer;
            }
            a7 = (a7 + n5 * x[i]).tanh();
        }
    }
    ((a7 * a7 + T::one()).sqrt() + s.tanh()) + n3 + n6
}

#[test]
fn program_6_matches_dual_numbers_and_finite_differences() {
    check(
        "program_6",
        point(6),
        &|p| program_6::primal(&p[..4], p[4]),
        &|p| program_6(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_6::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_6_on_duals(&d[..4], d[4]),
    );
    let p = point(6);
    let (value, (dx, ds)) = program_6::grad(&p[..4], p[4]);
    faces(
        "program_6",
        p,
        point(6 + 7),
        (value, &dx, ds),
        &|p, t| program_6::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_6::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_6_f64::grad(&p[..4], p[4]);
    same(
        "program_6_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_7<T: gradtape::Float>(x: &[T], s: T) -> T {
    for i in (0..4).rev() {
        let n1 = helper_power((T::from(-0.3).unwrap() + (x[(i + 1) % 4]).tanh()), 1);
        if (x[(i + 2) % 4]).mul_add((T::from(-1.6).unwrap()).cos(), (x[i] * n1))
            >= (T::from(0.4).unwrap()).min(x[i])
        {
            break;
        }
        let mut a2 = (s * T::from(1.3).unwrap()).hypot(T::one());
        a2 += (T::from(-1.6).unwrap()).cos().sin();
    }
    let n3 = x[1];
    let n4 = helper_soft(
        x.windows(2)
            .map(|w| (w[1] - w[0]) * T::from(-2.0).unwrap())
            .sum::<T>(),
        s.tanh(),
    );
    let mut b5 = x.to_vec();
    let k6 = x
        .iter()
        .map(|v| (T::from(-0.8).unwrap() * T::from(-0.2).unwrap()))
        .sum::<T>();
    b5[2] += k6;
    let mut a7 = ((b5[2]).max(b5[2]) * s.sin());
    a7 += s;
    a7 *= T::from(-0.9).unwrap();
    s.atan() + n3 + n4 + a7 + b5.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_7_f64(x: &[f64], s: f64) -> f64 {
    for i in (0..4).rev() {
        let n1 = helper_power(((-0.3_f64) + (x[(i + 1) % 4]).tanh()), 1);
        if (x[(i + 2) % 4]).mul_add((-1.6_f64).cos(), (x[i] * n1)) >= (0.4_f64).min(x[i]) {
            break;
        }
        let mut a2 = (s * (1.3_f64)).hypot(1.0);
        a2 += (-1.6_f64).cos().sin();
    }
    let n3 = x[1];
    let n4 = helper_soft(
        x.windows(2)
            .map(|w| (w[1] - w[0]) * (-2.0_f64))
            .sum::<f64>(),
        s.tanh(),
    );
    let mut b5 = x.to_vec();
    let k6 = x.iter().map(|v| ((-0.8_f64) * (-0.2_f64))).sum::<f64>();
    b5[2] += k6;
    let mut a7 = ((b5[2]).max(b5[2]) * s.sin());
    a7 += s;
    a7 *= (-0.9_f64);
    s.atan() + n3 + n4 + a7 + b5.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_7_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    for i in (0..4).rev() {
        let n1 = helper_power_on_duals((T::from(-0.3).unwrap() + (x[(i + 1) % 4]).tanh()), 1);
        if (x[(i + 2) % 4]).mul_add((T::from(-1.6).unwrap()).cos(), (x[i] * n1))
            >= (T::from(0.4).unwrap()).min(x[i])
        {
            break;
        }
        let mut a2 = (s * T::from(1.3).unwrap()).hypot(T::one());
        a2 += (T::from(-1.6).unwrap()).cos().sin();
    }
    let n3 = x[1];
    let n4 = helper_soft_on_duals(
        x.windows(2)
            .map(|w| (w[1] - w[0]) * T::from(-2.0).unwrap())
            .sum::<T>(),
        s.tanh(),
    );
    let mut b5 = x.to_vec();
    let k6 = x
        .iter()
        .map(|v| (T::from(-0.8).unwrap() * T::from(-0.2).unwrap()))
        .sum::<T>();
    b5[2] += k6;
    let mut a7 = ((b5[2]).max(b5[2]) * s.sin());
    a7 += s;
    a7 *= T::from(-0.9).unwrap();
    s.atan() + n3 + n4 + a7 + b5.iter().copied().sum::<T>()
}

#[test]
fn program_7_matches_dual_numbers_and_finite_differences() {
    check(
        "program_7",
        point(7),
        &|p| program_7::primal(&p[..4], p[4]),
        &|p| program_7(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_7::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_7_on_duals(&d[..4], d[4]),
    );
    let p = point(7);
    let (value, (dx, ds)) = program_7::grad(&p[..4], p[4]);
    faces(
        "program_7",
        p,
        point(7 + 7),
        (value, &dx, ds),
        &|p, t| program_7::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_7::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_7_f64::grad(&p[..4], p[4]);
    same(
        "program_7_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_8<T: gradtape::Float>(x: &[T], s: T) -> T {
    let (n1, n2) = (s, (x[2]).max(x[0]).powi(2));
    let mut a3 = (n1
        / (T::from(1.5).unwrap()
            + ((T::from(-0.6).unwrap()) * (T::from(-0.6).unwrap()) + T::one()).ln()
                * ((T::from(-0.6).unwrap()) * (T::from(-0.6).unwrap()) + T::one()).ln()));
    a3 = a3 * T::from(-0.2).unwrap()
        + (((x[3]).powi(3) * (x[3]).powi(3) + T::one()).ln()
            / (T::from(1.5).unwrap()
                + ((x[1]).mul_add(x[1], T::from(-1.5).unwrap())
                    / (T::from(1.5).unwrap()
                        + (x.windows(2)
                            .map(|w| (w[1] - w[0]) * T::from(-1.2).unwrap())
                            .sum::<T>())
                            * (x.windows(2)
                                .map(|w| (w[1] - w[0]) * T::from(-1.2).unwrap())
                                .sum::<T>())))
                    * ((x[1]).mul_add(x[1], T::from(-1.5).unwrap())
                        / (T::from(1.5).unwrap()
                            + (x.windows(2)
                                .map(|w| (w[1] - w[0]) * T::from(-1.2).unwrap())
                                .sum::<T>())
                                * (x.windows(2)
                                    .map(|w| (w[1] - w[0]) * T::from(-1.2).unwrap())
                                    .sum::<T>())))));
    let n4 = (T::from(-1.5).unwrap() - x[3]);
    let mut b5 = vec![T::zero(); 4];
    for i in 0..4 {
        b5[i] = s;
    }
    for i in 1..4 {
        b5[i] = b5[i - 1] * T::from(0.9).unwrap() + b5[i].tanh();
    }
    (n1.min(s) + T::from(-0.9).unwrap()) + b5.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_8_f64(x: &[f64], s: f64) -> f64 {
    let (n1, n2) = (s, (x[2]).max(x[0]).powi(2));
    let mut a3 = (n1
        / ((1.5_f64)
            + ((-0.6_f64) * (-0.6_f64) + 1.0).ln() * ((-0.6_f64) * (-0.6_f64) + 1.0).ln()));
    a3 = a3 * (-0.2_f64)
        + (((x[3]).powi(3) * (x[3]).powi(3) + 1.0).ln()
            / ((1.5_f64)
                + ((x[1]).mul_add(x[1], (-1.5_f64))
                    / ((1.5_f64)
                        + (x.windows(2)
                            .map(|w| (w[1] - w[0]) * (-1.2_f64))
                            .sum::<f64>())
                            * (x.windows(2)
                                .map(|w| (w[1] - w[0]) * (-1.2_f64))
                                .sum::<f64>())))
                    * ((x[1]).mul_add(x[1], (-1.5_f64))
                        / ((1.5_f64)
                            + (x.windows(2)
                                .map(|w| (w[1] - w[0]) * (-1.2_f64))
                                .sum::<f64>())
                                * (x.windows(2)
                                    .map(|w| (w[1] - w[0]) * (-1.2_f64))
                                    .sum::<f64>())))));
    let n4 = ((-1.5_f64) - x[3]);
    let mut b5 = vec![0.0; 4];
    for i in 0..4 {
        b5[i] = s;
    }
    for i in 1..4 {
        b5[i] = b5[i - 1] * (0.9_f64) + b5[i].tanh();
    }
    (n1.min(s) + (-0.9_f64)) + b5.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_8_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let (n1, n2) = (s, (x[2]).max(x[0]).powi(2));
    let mut a3 = (n1
        / (T::from(1.5).unwrap()
            + ((T::from(-0.6).unwrap()) * (T::from(-0.6).unwrap()) + T::one()).ln()
                * ((T::from(-0.6).unwrap()) * (T::from(-0.6).unwrap()) + T::one()).ln()));
    a3 = a3 * T::from(-0.2).unwrap()
        + (((x[3]).powi(3) * (x[3]).powi(3) + T::one()).ln()
            / (T::from(1.5).unwrap()
                + ((x[1]).mul_add(x[1], T::from(-1.5).unwrap())
                    / (T::from(1.5).unwrap()
                        + (x.windows(2)
                            .map(|w| (w[1] - w[0]) * T::from(-1.2).unwrap())
                            .sum::<T>())
                            * (x.windows(2)
                                .map(|w| (w[1] - w[0]) * T::from(-1.2).unwrap())
                                .sum::<T>())))
                    * ((x[1]).mul_add(x[1], T::from(-1.5).unwrap())
                        / (T::from(1.5).unwrap()
                            + (x.windows(2)
                                .map(|w| (w[1] - w[0]) * T::from(-1.2).unwrap())
                                .sum::<T>())
                                * (x.windows(2)
                                    .map(|w| (w[1] - w[0]) * T::from(-1.2).unwrap())
                                    .sum::<T>())))));
    let n4 = (T::from(-1.5).unwrap() - x[3]);
    let mut b5 = vec![T::zero(); 4];
    for i in 0..4 {
        b5[i] = s;
    }
    for i in 1..4 {
        b5[i] = b5[i - 1] * T::from(0.9).unwrap() + b5[i].tanh();
    }
    (n1.min(s) + T::from(-0.9).unwrap()) + b5.iter().copied().sum::<T>()
}

#[test]
fn program_8_matches_dual_numbers_and_finite_differences() {
    check(
        "program_8",
        point(8),
        &|p| program_8::primal(&p[..4], p[4]),
        &|p| program_8(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_8::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_8_on_duals(&d[..4], d[4]),
    );
    let p = point(8);
    let (value, (dx, ds)) = program_8::grad(&p[..4], p[4]);
    faces(
        "program_8",
        p,
        point(8 + 7),
        (value, &dx, ds),
        &|p, t| program_8::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_8::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_8_f64::grad(&p[..4], p[4]);
    same(
        "program_8_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_9<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut b1 = x.to_vec();
    let k2 = x[1];
    helper_smooth(&mut b1, k2);
    if (T::from(-1.8).unwrap() * T::from(1.1).unwrap()) <= (x[1]).sin() {
        return (x[3] + s).hypot(T::one());
    }
    let f3 = move |v: T| v.abs();
    let (n4, n5) = helper_pair(
        ((x[2]).signum() * (T::from(-1.0).unwrap()).cos()),
        (T::from(1.8).unwrap() / (T::from(1.5).unwrap() + (x[0]) * (x[0]))).abs(),
    );
    if ((n4 * n4 + T::one()).ln() - (n5 * T::from(0.6).unwrap())) < (x[3]).powi(3) {
        return x[0];
    }
    let n6 = (b1[0]).max((b1[3]).min(x[2]).tanh());
    (n4.powi(2)).min(n4) + n4 + n6 + b1.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_9_f64(x: &[f64], s: f64) -> f64 {
    let mut b1 = x.to_vec();
    let k2 = x[1];
    helper_smooth(&mut b1, k2);
    if ((-1.8_f64) * (1.1_f64)) <= (x[1]).sin() {
        return (x[3] + s).hypot(1.0);
    }
    let f3 = move |v: f64| v.abs();
    let (n4, n5) = helper_pair(
        ((x[2]).signum() * (-1.0_f64).cos()),
        ((1.8_f64) / ((1.5_f64) + (x[0]) * (x[0]))).abs(),
    );
    if ((n4 * n4 + 1.0).ln() - (n5 * (0.6_f64))) < (x[3]).powi(3) {
        return x[0];
    }
    let n6 = (b1[0]).max((b1[3]).min(x[2]).tanh());
    (n4.powi(2)).min(n4) + n4 + n6 + b1.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_9_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut b1 = x.to_vec();
    let k2 = x[1];
    helper_smooth_on_duals(&mut b1, k2);
    if (T::from(-1.8).unwrap() * T::from(1.1).unwrap()) <= (x[1]).sin() {
        return (x[3] + s).hypot(T::one());
    }
    let f3 = move |v: T| v.abs();
    let (n4, n5) = helper_pair_on_duals(
        ((x[2]).signum() * (T::from(-1.0).unwrap()).cos()),
        (T::from(1.8).unwrap() / (T::from(1.5).unwrap() + (x[0]) * (x[0]))).abs(),
    );
    if ((n4 * n4 + T::one()).ln() - (n5 * T::from(0.6).unwrap())) < (x[3]).powi(3) {
        return x[0];
    }
    let n6 = (b1[0]).max((b1[3]).min(x[2]).tanh());
    (n4.powi(2)).min(n4) + n4 + n6 + b1.iter().copied().sum::<T>()
}

#[test]
fn program_9_matches_dual_numbers_and_finite_differences() {
    check(
        "program_9",
        point(9),
        &|p| program_9::primal(&p[..4], p[4]),
        &|p| program_9(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_9::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_9_on_duals(&d[..4], d[4]),
    );
    let p = point(9);
    let (value, (dx, ds)) = program_9::grad(&p[..4], p[4]);
    faces(
        "program_9",
        p,
        point(9 + 7),
        (value, &dx, ds),
        &|p, t| program_9::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_9::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_9_f64::grad(&p[..4], p[4]);
    same(
        "program_9_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_10<T: gradtape::Float>(x: &[T], s: T) -> T {
    let n1 = helper_power((T::from(0.4).unwrap()).cos(), 3);
    let mut a2 = n1;
    a2 = a2 * T::from(0.8).unwrap() + T::from(-1.8).unwrap();
    let mut b3 = x.to_vec();
    b3[3] = b3[3] * (x[1] - s).max((T::from(1.4).unwrap()).mul_add(s, s)) + x[1];
    let (n4, n5) = (
        ((b3[1]).min(x[1]) * (b3[1]).min(x[1]) + T::one()).ln(),
        ((T::from(0.6).unwrap() - x[2])
            * ((T::from(-1.8).unwrap()) * (T::from(-1.8).unwrap()) + T::one()).sqrt()),
    );
    if (x[1]).max(T::from(-0.2).unwrap()).cos() > n4 {
        a2 = ((x[3]) * (x[3]) + T::one())
            .sqrt()
            .mul_add(x.iter().step_by(2).map(|v| *v).sum::<T>(), b3[1]);
    } else {
        a2 = a2 - (n5 - x[3]).sin();
    }
    x[1] + n1 + n4 + b3.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_10_f64(x: &[f64], s: f64) -> f64 {
    let n1 = helper_power((0.4_f64).cos(), 3);
    let mut a2 = n1;
    a2 = a2 * (0.8_f64) + (-1.8_f64);
    let mut b3 = x.to_vec();
    b3[3] = b3[3] * (x[1] - s).max((1.4_f64).mul_add(s, s)) + x[1];
    let (n4, n5) = (
        ((b3[1]).min(x[1]) * (b3[1]).min(x[1]) + 1.0).ln(),
        (((0.6_f64) - x[2]) * ((-1.8_f64) * (-1.8_f64) + 1.0).sqrt()),
    );
    if (x[1]).max((-0.2_f64)).cos() > n4 {
        a2 = ((x[3]) * (x[3]) + 1.0)
            .sqrt()
            .mul_add(x.iter().step_by(2).map(|v| *v).sum::<f64>(), b3[1]);
    } else {
        a2 = a2 - (n5 - x[3]).sin();
    }
    x[1] + n1 + n4 + b3.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_10_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let n1 = helper_power_on_duals((T::from(0.4).unwrap()).cos(), 3);
    let mut a2 = n1;
    a2 = a2 * T::from(0.8).unwrap() + T::from(-1.8).unwrap();
    let mut b3 = x.to_vec();
    b3[3] = b3[3] * (x[1] - s).max((T::from(1.4).unwrap()).mul_add(s, s)) + x[1];
    let (n4, n5) = (
        ((b3[1]).min(x[1]) * (b3[1]).min(x[1]) + T::one()).ln(),
        ((T::from(0.6).unwrap() - x[2])
            * ((T::from(-1.8).unwrap()) * (T::from(-1.8).unwrap()) + T::one()).sqrt()),
    );
    if (x[1]).max(T::from(-0.2).unwrap()).cos() > n4 {
        a2 = ((x[3]) * (x[3]) + T::one())
            .sqrt()
            .mul_add(x.iter().step_by(2).map(|v| *v).sum::<T>(), b3[1]);
    } else {
        a2 = a2 - (n5 - x[3]).sin();
    }
    x[1] + n1 + n4 + b3.iter().copied().sum::<T>()
}

#[test]
fn program_10_matches_dual_numbers_and_finite_differences() {
    check(
        "program_10",
        point(10),
        &|p| program_10::primal(&p[..4], p[4]),
        &|p| program_10(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_10::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_10_on_duals(&d[..4], d[4]),
    );
    let p = point(10);
    let (value, (dx, ds)) = program_10::grad(&p[..4], p[4]);
    faces(
        "program_10",
        p,
        point(10 + 7),
        (value, &dx, ds),
        &|p, t| program_10::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_10::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_10_f64::grad(&p[..4], p[4]);
    same(
        "program_10_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_11<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut a1 = s.hypot(T::one());
    'outer: for i in 0..4 {
        for j in 0..4 {
            if ((x[j]).min(x[(j + 3) % 4]) * (s * s + T::one()).ln()) <= (s + a1) {
                break 'outer;
            }
            a1 = (a1 + a1.min((x[(j + 1) % 4]).tanh()) * x[i]).tanh();
        }
    }
    let (n2, n3) = (x[3], (s.min(a1)).atan());
    let n4 = (x[2] + ((x[2] + n3) * (x[2] + n3) + T::one()).sqrt());
    a1 += a1.min(x[1]);
    let mut b5 = x.to_vec();
    for i in 1..4 {
        b5[i] = b5[i - 1] * T::from(-1.0).unwrap() + b5[i].tanh();
    }
    let n6 = x[3];
    x[2] + a1 + n4 + b5.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_11_f64(x: &[f64], s: f64) -> f64 {
    let mut a1 = s.hypot(1.0);
    'outer: for i in 0..4 {
        for j in 0..4 {
            if ((x[j]).min(x[(j + 3) % 4]) * (s * s + 1.0).ln()) <= (s + a1) {
                break 'outer;
            }
            a1 = (a1 + a1.min((x[(j + 1) % 4]).tanh()) * x[i]).tanh();
        }
    }
    let (n2, n3) = (x[3], (s.min(a1)).atan());
    let n4 = (x[2] + ((x[2] + n3) * (x[2] + n3) + 1.0).sqrt());
    a1 += a1.min(x[1]);
    let mut b5 = x.to_vec();
    for i in 1..4 {
        b5[i] = b5[i - 1] * (-1.0_f64) + b5[i].tanh();
    }
    let n6 = x[3];
    x[2] + a1 + n4 + b5.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_11_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut a1 = s.hypot(T::one());
    'outer: for i in 0..4 {
        for j in 0..4 {
            if ((x[j]).min(x[(j + 3) % 4]) * (s * s + T::one()).ln()) <= (s + a1) {
                break 'outer;
            }
            a1 = (a1 + a1.min((x[(j + 1) % 4]).tanh()) * x[i]).tanh();
        }
    }
    let (n2, n3) = (x[3], (s.min(a1)).atan());
    let n4 = (x[2] + ((x[2] + n3) * (x[2] + n3) + T::one()).sqrt());
    a1 += a1.min(x[1]);
    let mut b5 = x.to_vec();
    for i in 1..4 {
        b5[i] = b5[i - 1] * T::from(-1.0).unwrap() + b5[i].tanh();
    }
    let n6 = x[3];
    x[2] + a1 + n4 + b5.iter().copied().sum::<T>()
}

#[test]
fn program_11_matches_dual_numbers_and_finite_differences() {
    check(
        "program_11",
        point(11),
        &|p| program_11::primal(&p[..4], p[4]),
        &|p| program_11(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_11::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_11_on_duals(&d[..4], d[4]),
    );
    let p = point(11);
    let (value, (dx, ds)) = program_11::grad(&p[..4], p[4]);
    faces(
        "program_11",
        p,
        point(11 + 7),
        (value, &dx, ds),
        &|p, t| program_11::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_11::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_11_f64::grad(&p[..4], p[4]);
    same(
        "program_11_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_12<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut b1 = vec![T::zero(); 4];
    for i in 0..4 {
        b1[i] = ((x[i]).clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap()) + s);
    }
    b1[2] = b1[2] * (T::from(-1.1).unwrap() * s).sin() + x[2];
    let mut r4 = (x[1] * b1[2]);
    let mut k3 = 0;
    let n2 = loop {
        r4 = (r4 * T::from(0.7).unwrap()
            + x.iter()
                .enumerate()
                .map(|(k, v)| *v * T::from(k + 1).unwrap())
                .sum::<T>())
        .sin();
        k3 += 1;
        if k3 == 3 {
            break r4 * r4;
        }
    };
    let mut p5 = (b1[0]).tanh();
    let mut q6 = (T::from(-1.5).unwrap()).min(n2);
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * T::from(0.5).unwrap();
        p5 = p5 + q6 * T::from(0.5).unwrap();
    }
    (s * s + T::one()).sqrt() + p5 + q6 + b1.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_12_f64(x: &[f64], s: f64) -> f64 {
    let mut b1 = vec![0.0; 4];
    for i in 0..4 {
        b1[i] = ((x[i]).clamp((-0.8_f64), (0.9_f64)) + s);
    }
    b1[2] = b1[2] * ((-1.1_f64) * s).sin() + x[2];
    let mut r4 = (x[1] * b1[2]);
    let mut k3 = 0;
    let n2 = loop {
        r4 = (r4 * (0.7_f64)
            + x.iter()
                .enumerate()
                .map(|(k, v)| *v * ((k + 1) as f64))
                .sum::<f64>())
        .sin();
        k3 += 1;
        if k3 == 3 {
            break r4 * r4;
        }
    };
    let mut p5 = (b1[0]).tanh();
    let mut q6 = (-1.5_f64).min(n2);
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * (0.5_f64);
        p5 = p5 + q6 * (0.5_f64);
    }
    (s * s + 1.0).sqrt() + p5 + q6 + b1.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_12_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut b1 = vec![T::zero(); 4];
    for i in 0..4 {
        b1[i] = ((x[i]).clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap()) + s);
    }
    b1[2] = b1[2] * (T::from(-1.1).unwrap() * s).sin() + x[2];
    let mut r4 = (x[1] * b1[2]);
    let mut k3 = 0;
    let n2 = loop {
        r4 = (r4 * T::from(0.7).unwrap()
            + x.iter()
                .enumerate()
                .map(|(k, v)| *v * T::from(k + 1).unwrap())
                .sum::<T>())
        .sin();
        k3 += 1;
        if k3 == 3 {
            break r4 * r4;
        }
    };
    let mut p5 = (b1[0]).tanh();
    let mut q6 = (T::from(-1.5).unwrap()).min(n2);
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * T::from(0.5).unwrap();
        p5 = p5 + q6 * T::from(0.5).unwrap();
    }
    (s * s + T::one()).sqrt() + p5 + q6 + b1.iter().copied().sum::<T>()
}

#[test]
fn program_12_matches_dual_numbers_and_finite_differences() {
    check(
        "program_12",
        point(12),
        &|p| program_12::primal(&p[..4], p[4]),
        &|p| program_12(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_12::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_12_on_duals(&d[..4], d[4]),
    );
    let p = point(12);
    let (value, (dx, ds)) = program_12::grad(&p[..4], p[4]);
    faces(
        "program_12",
        p,
        point(12 + 7),
        (value, &dx, ds),
        &|p, t| program_12::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_12::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_12_f64::grad(&p[..4], p[4]);
    same(
        "program_12_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_13<T: gradtape::Float>(x: &[T], s: T) -> T {
    if s.min(s.min(T::from(1.7).unwrap())) >= s.mul_add(T::from(-1.4).unwrap(), s) {
        return (x[1]).mul_add(
            x.iter().map(|v| T::from(1.0).unwrap()).sum::<T>(),
            T::from(1.5).unwrap(),
        );
    }
    let mut a1 = s;
    let mut k2 = 0;
    while k2 < 3 {
        a1 = (a1 + s).tanh();
        k2 += 1;
    }
    let n3 = helper_power((((x[2]).floor() + (x[0])) * (x[2]).cos()), 3);
    let mut b4 = vec![T::zero(); 4];
    for i in 0..4 {
        b4[i] = (s - (x[i]).max(s));
    }
    let k5 = T::from(0.3).unwrap();
    b4[1] += k5;
    let n6 = helper_power(
        (x.iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>())
        .tanh()
        .exp(),
        1,
    );
    let n7 = (T::from(-1.4).unwrap() + x[2])
        .mul_add((s - b4[2]), s)
        .tanh();
    (x[0] + (x[3]).tanh().exp()) + n3 + n6 + b4.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_13_f64(x: &[f64], s: f64) -> f64 {
    if s.min(s.min((1.7_f64))) >= s.mul_add((-1.4_f64), s) {
        return (x[1]).mul_add(x.iter().map(|v| (1.0_f64)).sum::<f64>(), (1.5_f64));
    }
    let mut a1 = s;
    let mut k2 = 0;
    while k2 < 3 {
        a1 = (a1 + s).tanh();
        k2 += 1;
    }
    let n3 = helper_power((((x[2]).floor() + (x[0])) * (x[2]).cos()), 3);
    let mut b4 = vec![0.0; 4];
    for i in 0..4 {
        b4[i] = (s - (x[i]).max(s));
    }
    let k5 = (0.3_f64);
    b4[1] += k5;
    let n6 = helper_power(
        (x.iter()
            .enumerate()
            .map(|(k, v)| *v * ((k + 1) as f64))
            .sum::<f64>())
        .tanh()
        .exp(),
        1,
    );
    let n7 = ((-1.4_f64) + x[2]).mul_add((s - b4[2]), s).tanh();
    (x[0] + (x[3]).tanh().exp()) + n3 + n6 + b4.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_13_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    if s.min(s.min(T::from(1.7).unwrap())) >= s.mul_add(T::from(-1.4).unwrap(), s) {
        return (x[1]).mul_add(
            x.iter().map(|v| T::from(1.0).unwrap()).sum::<T>(),
            T::from(1.5).unwrap(),
        );
    }
    let mut a1 = s;
    let mut k2 = 0;
    while k2 < 3 {
        a1 = (a1 + s).tanh();
        k2 += 1;
    }
    let n3 = helper_power_on_duals((((x[2]).floor() + (x[0])) * (x[2]).cos()), 3);
    let mut b4 = vec![T::zero(); 4];
    for i in 0..4 {
        b4[i] = (s - (x[i]).max(s));
    }
    let k5 = T::from(0.3).unwrap();
    b4[1] += k5;
    let n6 = helper_power_on_duals(
        (x.iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>())
        .tanh()
        .exp(),
        1,
    );
    let n7 = (T::from(-1.4).unwrap() + x[2])
        .mul_add((s - b4[2]), s)
        .tanh();
    (x[0] + (x[3]).tanh().exp()) + n3 + n6 + b4.iter().copied().sum::<T>()
}

#[test]
fn program_13_matches_dual_numbers_and_finite_differences() {
    check(
        "program_13",
        point(13),
        &|p| program_13::primal(&p[..4], p[4]),
        &|p| program_13(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_13::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_13_on_duals(&d[..4], d[4]),
    );
    let p = point(13);
    let (value, (dx, ds)) = program_13::grad(&p[..4], p[4]);
    faces(
        "program_13",
        p,
        point(13 + 7),
        (value, &dx, ds),
        &|p, t| program_13::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_13::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_13_f64::grad(&p[..4], p[4]);
    same(
        "program_13_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_14<T: gradtape::Float>(x: &[T], s: T) -> T {
    for i in (0..4).rev() {
        let f1 = move |v: T| v;
        let n2 = f1(x.iter().map(|v| *v).sum::<T>());
        let mut a3 = s;
        if let Some(v) = x.first() {
            a3 = a3 * T::from(-0.5).unwrap() + (*v).sin();
        }
        a3 = a3 * T::from(-0.6).unwrap() + (T::from(-0.1).unwrap() - (s - x[(i + 3) % 4])).atan();
    }
    let mut a4 = x[3];
    let mut k5 = 0;
    while k5 < 2 {
        a4 = (a4 + x[2]).tanh();
        k5 += 1;
    }
    let mut b6 = vec![T::zero(); 4];
    for i in 0..4 {
        b6[i] = (x[(i + 1) % 4]
            / (T::from(1.5).unwrap() + (s * s + T::one()).ln() * (s * s + T::one()).ln()));
    }
    b6[0] = b6[0] * T::from(1.0).unwrap() + T::from(-1.5).unwrap();
    let n7 = helper_power((s.cos()).cos(), 2);
    if ((T::from(-0.5).unwrap() + b6[1]) + s) > T::from(0.4).unwrap() {
        a4 = (x[2])
            .min((T::from(-1.3).unwrap() * T::from(0.3).unwrap()))
            .min(
                ((T::from(-0.8).unwrap()) * (T::from(-0.8).unwrap()) + T::one())
                    .sqrt()
                    .tanh(),
            );
    } else {
        a4 = a4 - ((n7.tanh().exp()) * (n7.tanh().exp()) + T::one()).sqrt();
    }
    for i in 0..4 {
        if x.iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>()
            > s
        {
            return (s.min(T::from(-0.2).unwrap())).max((x[0]).mul_add(x[i], x[i]));
        }
        let k8 = (n7.atan()).tanh().exp();
        helper_smooth(&mut b6, k8);
        match i {
            k if k % 2 == 0 => {
                a4 = a4 * T::from(0.5).unwrap() + s;
            }
            _ => {
                a4 = a4
                    - (s.max(x[i])).min(
                        (T::from(0.7).unwrap()
                            / (T::from(1.5).unwrap()
                                + (T::from(1.1).unwrap()) * (T::from(1.1).unwrap()))),
                    );
            }
        }
    }
    ((x[3] + T::from(-1.8).unwrap()) * (x[0]).min(a4)) + n7 + b6.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_14_f64(x: &[f64], s: f64) -> f64 {
    for i in (0..4).rev() {
        let f1 = move |v: f64| v;
        let n2 = f1(x.iter().map(|v| *v).sum::<f64>());
        let mut a3 = s;
        if let Some(v) = x.first() {
            a3 = a3 * (-0.5_f64) + (*v).sin();
        }
        a3 = a3 * (-0.6_f64) + ((-0.1_f64) - (s - x[(i + 3) % 4])).atan();
    }
    let mut a4 = x[3];
    let mut k5 = 0;
    while k5 < 2 {
        a4 = (a4 + x[2]).tanh();
        k5 += 1;
    }
    let mut b6 = vec![0.0; 4];
    for i in 0..4 {
        b6[i] = (x[(i + 1) % 4] / ((1.5_f64) + (s * s + 1.0).ln() * (s * s + 1.0).ln()));
    }
    b6[0] = b6[0] * (1.0_f64) + (-1.5_f64);
    let n7 = helper_power((s.cos()).cos(), 2);
    if (((-0.5_f64) + b6[1]) + s) > (0.4_f64) {
        a4 = (x[2])
            .min(((-1.3_f64) * (0.3_f64)))
            .min(((-0.8_f64) * (-0.8_f64) + 1.0).sqrt().tanh());
    } else {
        a4 = a4 - ((n7.tanh().exp()) * (n7.tanh().exp()) + 1.0).sqrt();
    }
    for i in 0..4 {
        if x.iter()
            .enumerate()
            .map(|(k, v)| *v * ((k + 1) as f64))
            .sum::<f64>()
            > s
        {
            return (s.min((-0.2_f64))).max((x[0]).mul_add(x[i], x[i]));
        }
        let k8 = (n7.atan()).tanh().exp();
        helper_smooth(&mut b6, k8);
        match i {
            k if k % 2 == 0 => {
                a4 = a4 * (0.5_f64) + s;
            }
            _ => {
                a4 = a4 - (s.max(x[i])).min(((0.7_f64) / ((1.5_f64) + (1.1_f64) * (1.1_f64))));
            }
        }
    }
    ((x[3] + (-1.8_f64)) * (x[0]).min(a4)) + n7 + b6.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_14_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    for i in (0..4).rev() {
        let f1 = move |v: T| v;
        let n2 = f1(x.iter().map(|v| *v).sum::<T>());
        let mut a3 = s;
        if let Some(v) = x.first() {
            a3 = a3 * T::from(-0.5).unwrap() + (*v).sin();
        }
        a3 = a3 * T::from(-0.6).unwrap() + (T::from(-0.1).unwrap() - (s - x[(i + 3) % 4])).atan();
    }
    let mut a4 = x[3];
    let mut k5 = 0;
    while k5 < 2 {
        a4 = (a4 + x[2]).tanh();
        k5 += 1;
    }
    let mut b6 = vec![T::zero(); 4];
    for i in 0..4 {
        b6[i] = (x[(i + 1) % 4]
            / (T::from(1.5).unwrap() + (s * s + T::one()).ln() * (s * s + T::one()).ln()));
    }
    b6[0] = b6[0] * T::from(1.0).unwrap() + T::from(-1.5).unwrap();
    let n7 = helper_power_on_duals((s.cos()).cos(), 2);
    if ((T::from(-0.5).unwrap() + b6[1]) + s) > T::from(0.4).unwrap() {
        a4 = (x[2])
            .min((T::from(-1.3).unwrap() * T::from(0.3).unwrap()))
            .min(
                ((T::from(-0.8).unwrap()) * (T::from(-0.8).unwrap()) + T::one())
                    .sqrt()
                    .tanh(),
            );
    } else {
        a4 = a4 - ((n7.tanh().exp()) * (n7.tanh().exp()) + T::one()).sqrt();
    }
    for i in 0..4 {
        if x.iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>()
            > s
        {
            return (s.min(T::from(-0.2).unwrap())).max((x[0]).mul_add(x[i], x[i]));
        }
        let k8 = (n7.atan()).tanh().exp();
        helper_smooth_on_duals(&mut b6, k8);
        match i {
            k if k % 2 == 0 => {
                a4 = a4 * T::from(0.5).unwrap() + s;
            }
            _ => {
                a4 = a4
                    - (s.max(x[i])).min(
                        (T::from(0.7).unwrap()
                            / (T::from(1.5).unwrap()
                                + (T::from(1.1).unwrap()) * (T::from(1.1).unwrap()))),
                    );
            }
        }
    }
    ((x[3] + T::from(-1.8).unwrap()) * (x[0]).min(a4)) + n7 + b6.iter().copied().sum::<T>()
}

#[test]
fn program_14_matches_dual_numbers_and_finite_differences() {
    check(
        "program_14",
        point(14),
        &|p| program_14::primal(&p[..4], p[4]),
        &|p| program_14(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_14::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_14_on_duals(&d[..4], d[4]),
    );
    let p = point(14);
    let (value, (dx, ds)) = program_14::grad(&p[..4], p[4]);
    faces(
        "program_14",
        p,
        point(14 + 7),
        (value, &dx, ds),
        &|p, t| program_14::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_14::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_14_f64::grad(&p[..4], p[4]);
    same(
        "program_14_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_15<T: gradtape::Float>(x: &[T], s: T) -> T {
    let n1 = helper_soft(
        (x[1] + s).hypot(T::one()),
        x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>(),
    );
    let mut a2 = x[3];
    if let Some(v) = x.first() {
        a2 = a2 * T::from(-0.5).unwrap() + (*v).sin();
    }
    a2 = a2 * T::from(0.3).unwrap()
        + ((x[3]).tanh() * (x[3]).tanh() + T::one())
            .sqrt()
            .min((s * s + T::one()).sqrt().min((T::from(-1.6).unwrap() - a2)));
    let mut p3 = (x[2]).atan();
    let mut q4 = x[3];
    for i in 0..4 {
        q4 = q4 - (p3 + x[i]).sin() * T::from(0.2).unwrap();
        p3 = p3 + q4 * T::from(0.2).unwrap();
    }
    let n5 = helper_soft(n1, ((s - x[3]) + (x[2] * a2)));
    x.iter()
        .fold(T::zero(), |acc, v| acc * T::from(-0.8).unwrap() + *v)
        + p3
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_15_f64(x: &[f64], s: f64) -> f64 {
    let n1 = helper_soft(
        (x[1] + s).hypot(1.0),
        x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<f64>(),
    );
    let mut a2 = x[3];
    if let Some(v) = x.first() {
        a2 = a2 * (-0.5_f64) + (*v).sin();
    }
    a2 = a2 * (0.3_f64)
        + ((x[3]).tanh() * (x[3]).tanh() + 1.0)
            .sqrt()
            .min((s * s + 1.0).sqrt().min(((-1.6_f64) - a2)));
    let mut p3 = (x[2]).atan();
    let mut q4 = x[3];
    for i in 0..4 {
        q4 = q4 - (p3 + x[i]).sin() * (0.2_f64);
        p3 = p3 + q4 * (0.2_f64);
    }
    let n5 = helper_soft(n1, ((s - x[3]) + (x[2] * a2)));
    x.iter().fold(0.0, |acc, v| acc * (-0.8_f64) + *v) + p3
}

#[allow(clippy::all, unused)]
fn program_15_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let n1 = helper_soft_on_duals(
        (x[1] + s).hypot(T::one()),
        x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>(),
    );
    let mut a2 = x[3];
    if let Some(v) = x.first() {
        a2 = a2 * T::from(-0.5).unwrap() + (*v).sin();
    }
    a2 = a2 * T::from(0.3).unwrap()
        + ((x[3]).tanh() * (x[3]).tanh() + T::one())
            .sqrt()
            .min((s * s + T::one()).sqrt().min((T::from(-1.6).unwrap() - a2)));
    let mut p3 = (x[2]).atan();
    let mut q4 = x[3];
    for i in 0..4 {
        q4 = q4 - (p3 + x[i]).sin() * T::from(0.2).unwrap();
        p3 = p3 + q4 * T::from(0.2).unwrap();
    }
    let n5 = helper_soft_on_duals(n1, ((s - x[3]) + (x[2] * a2)));
    x.iter()
        .fold(T::zero(), |acc, v| acc * T::from(-0.8).unwrap() + *v)
        + p3
}

#[test]
fn program_15_matches_dual_numbers_and_finite_differences() {
    check(
        "program_15",
        point(15),
        &|p| program_15::primal(&p[..4], p[4]),
        &|p| program_15(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_15::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_15_on_duals(&d[..4], d[4]),
    );
    let p = point(15);
    let (value, (dx, ds)) = program_15::grad(&p[..4], p[4]);
    faces(
        "program_15",
        p,
        point(15 + 7),
        (value, &dx, ds),
        &|p, t| program_15::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_15::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_15_f64::grad(&p[..4], p[4]);
    same(
        "program_15_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_16<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut b1 = x.to_vec();
    for v in b1.iter_mut() {
        *v = s.max((T::from(1.7).unwrap()).cos());
    }
    let mut p2 = x
        .windows(2)
        .map(|w| (w[1] - w[0]) * T::from(0.2).unwrap())
        .sum::<T>();
    let mut q3 = s;
    for i in 0..4 {
        q3 = q3 - (p2 + x[i]).sin() * T::from(0.2).unwrap();
        p2 = p2 + q3 * T::from(0.2).unwrap();
    }
    for pair in b1.chunks(2) {
        p2 = p2 * T::from(-0.9).unwrap() + pair[0] * pair[1].tanh();
    }
    let mut m4 = x[0];
    let mut t5 = T::zero();
    for i in 1..4 {
        m4 = m4.max(x[i]);
        t5 = t5 + (x[i] - m4).exp();
    }
    m4 = m4 * T::from(-0.8).unwrap() + b1[3];
    let mut m6 = x[0];
    let mut t7 = T::zero();
    for i in 1..4 {
        t7 = t7 + (x[i] - m6).exp();
        m6 = m6.max(x[i]);
    }
    (s * T::from(1.0).unwrap()).cos() + p2 + m4 + t5 + t7 + b1.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_16_f64(x: &[f64], s: f64) -> f64 {
    let mut b1 = x.to_vec();
    for v in b1.iter_mut() {
        *v = s.max((1.7_f64).cos());
    }
    let mut p2 = x.windows(2).map(|w| (w[1] - w[0]) * (0.2_f64)).sum::<f64>();
    let mut q3 = s;
    for i in 0..4 {
        q3 = q3 - (p2 + x[i]).sin() * (0.2_f64);
        p2 = p2 + q3 * (0.2_f64);
    }
    for pair in b1.chunks(2) {
        p2 = p2 * (-0.9_f64) + pair[0] * pair[1].tanh();
    }
    let mut m4 = x[0];
    let mut t5 = 0.0;
    for i in 1..4 {
        m4 = m4.max(x[i]);
        t5 = t5 + (x[i] - m4).exp();
    }
    m4 = m4 * (-0.8_f64) + b1[3];
    let mut m6 = x[0];
    let mut t7 = 0.0;
    for i in 1..4 {
        t7 = t7 + (x[i] - m6).exp();
        m6 = m6.max(x[i]);
    }
    (s * (1.0_f64)).cos() + p2 + m4 + t5 + t7 + b1.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_16_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut b1 = x.to_vec();
    for v in b1.iter_mut() {
        *v = s.max((T::from(1.7).unwrap()).cos());
    }
    let mut p2 = x
        .windows(2)
        .map(|w| (w[1] - w[0]) * T::from(0.2).unwrap())
        .sum::<T>();
    let mut q3 = s;
    for i in 0..4 {
        q3 = q3 - (p2 + x[i]).sin() * T::from(0.2).unwrap();
        p2 = p2 + q3 * T::from(0.2).unwrap();
    }
    for pair in b1.chunks(2) {
        p2 = p2 * T::from(-0.9).unwrap() + pair[0] * pair[1].tanh();
    }
    let mut m4 = x[0];
    let mut t5 = T::zero();
    for i in 1..4 {
        m4 = m4.max(x[i]);
        t5 = t5 + (x[i] - m4).exp();
    }
    m4 = m4 * T::from(-0.8).unwrap() + b1[3];
    let mut m6 = x[0];
    let mut t7 = T::zero();
    for i in 1..4 {
        t7 = t7 + (x[i] - m6).exp();
        m6 = m6.max(x[i]);
    }
    (s * T::from(1.0).unwrap()).cos() + p2 + m4 + t5 + t7 + b1.iter().copied().sum::<T>()
}

#[test]
fn program_16_matches_dual_numbers_and_finite_differences() {
    check(
        "program_16",
        point(16),
        &|p| program_16::primal(&p[..4], p[4]),
        &|p| program_16(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_16::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_16_on_duals(&d[..4], d[4]),
    );
    let p = point(16);
    let (value, (dx, ds)) = program_16::grad(&p[..4], p[4]);
    faces(
        "program_16",
        p,
        point(16 + 7),
        (value, &dx, ds),
        &|p, t| program_16::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_16::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_16_f64::grad(&p[..4], p[4]);
    same(
        "program_16_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_17<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut a1 = (s.powi(3)).powi(2);
    a1 = a1 * T::from(0.2).unwrap() + x[2];
    a1 = a1 * T::from(-0.7).unwrap() + (x[0] - x[3]).max(x[0]).hypot(T::one());
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (x[j] - a1).tanh().exp() >= s.hypot(T::one()) {
                break 'outer;
            }
            a1 = (a1 + ((x[1] * s) - (a1 - x[0])) * x[i]).tanh();
        }
    }
    let mut b2 = vec![T::zero(); 4];
    for i in 0..4 {
        b2[i] = T::from(-1.5).unwrap();
    }
    let k3 = (((x[2]) * (x[2]) + T::one()).ln()
        / (T::from(1.5).unwrap()
            + (x.iter().map(|v| *v).sum::<T>()) * (x.iter().map(|v| *v).sum::<T>())));
    b2[3] += k3;
    let f4 = move |v: T| v.powi(2) * a1;
    let n5 = f4(((x[0]).max(T::from(0.5).unwrap()) * (a1.floor() + s)));
    'outer: for i in 0..4 {
        for j in 0..4 {
            if n5 < x[(j + 3) % 4] {
                break 'outer;
            }
            a1 = (a1 + b2[(j + 2) % 4] * x[i]).tanh();
        }
    }
    x[0] + b2.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_17_f64(x: &[f64], s: f64) -> f64 {
    let mut a1 = (s.powi(3)).powi(2);
    a1 = a1 * (0.2_f64) + x[2];
    a1 = a1 * (-0.7_f64) + (x[0] - x[3]).max(x[0]).hypot(1.0);
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (x[j] - a1).tanh().exp() >= s.hypot(1.0) {
                break 'outer;
            }
            a1 = (a1 + ((x[1] * s) - (a1 - x[0])) * x[i]).tanh();
        }
    }
    let mut b2 = vec![0.0; 4];
    for i in 0..4 {
        b2[i] = (-1.5_f64);
    }
    let k3 = (((x[2]) * (x[2]) + 1.0).ln()
        / ((1.5_f64) + (x.iter().map(|v| *v).sum::<f64>()) * (x.iter().map(|v| *v).sum::<f64>())));
    b2[3] += k3;
    let f4 = move |v: f64| v.powi(2) * a1;
    let n5 = f4(((x[0]).max((0.5_f64)) * (a1.floor() + s)));
    'outer: for i in 0..4 {
        for j in 0..4 {
            if n5 < x[(j + 3) % 4] {
                break 'outer;
            }
            a1 = (a1 + b2[(j + 2) % 4] * x[i]).tanh();
        }
    }
    x[0] + b2.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_17_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut a1 = (s.powi(3)).powi(2);
    a1 = a1 * T::from(0.2).unwrap() + x[2];
    a1 = a1 * T::from(-0.7).unwrap() + (x[0] - x[3]).max(x[0]).hypot(T::one());
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (x[j] - a1).tanh().exp() >= s.hypot(T::one()) {
                break 'outer;
            }
            a1 = (a1 + ((x[1] * s) - (a1 - x[0])) * x[i]).tanh();
        }
    }
    let mut b2 = vec![T::zero(); 4];
    for i in 0..4 {
        b2[i] = T::from(-1.5).unwrap();
    }
    let k3 = (((x[2]) * (x[2]) + T::one()).ln()
        / (T::from(1.5).unwrap()
            + (x.iter().map(|v| *v).sum::<T>()) * (x.iter().map(|v| *v).sum::<T>())));
    b2[3] += k3;
    let f4 = move |v: T| v.powi(2) * a1;
    let n5 = f4(((x[0]).max(T::from(0.5).unwrap()) * (a1.floor() + s)));
    'outer: for i in 0..4 {
        for j in 0..4 {
            if n5 < x[(j + 3) % 4] {
                break 'outer;
            }
            a1 = (a1 + b2[(j + 2) % 4] * x[i]).tanh();
        }
    }
    x[0] + b2.iter().copied().sum::<T>()
}

#[test]
fn program_17_matches_dual_numbers_and_finite_differences() {
    check(
        "program_17",
        point(17),
        &|p| program_17::primal(&p[..4], p[4]),
        &|p| program_17(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_17::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_17_on_duals(&d[..4], d[4]),
    );
    let p = point(17);
    let (value, (dx, ds)) = program_17::grad(&p[..4], p[4]);
    faces(
        "program_17",
        p,
        point(17 + 7),
        (value, &dx, ds),
        &|p, t| program_17::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_17::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_17_f64::grad(&p[..4], p[4]);
    same(
        "program_17_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_18<T: gradtape::Float>(x: &[T], s: T) -> T {
    let n1 = (s * s + T::one()).ln();
    let n2 = x[3];
    let (n3, n4) = (
        ((T::from(-0.9).unwrap()).mul_add(s, T::from(0.0).unwrap()) - (x[1]).tanh().exp()),
        (x.windows(2)
            .map(|w| (w[1] - w[0]) * T::from(1.4).unwrap())
            .sum::<T>())
        .max((T::from(-1.6).unwrap()).max(T::from(-1.5).unwrap())),
    );
    for i in 0..4 {
        let mut m5 = x[0];
        let mut t6 = T::zero();
        for i in 1..4 {
            t6 = t6 + (x[i] - m5).exp();
            m5 = m5.max(x[i]);
        }
        match i % 3 {
            0 => {
                t6 = t6 + ((s.max(n4)) * (s.max(n4)) + T::one()).sqrt();
            }
            1 => {
                t6 = t6 * x.iter().map(|v| (T::from(-1.2).unwrap() + *v)).sum::<T>();
            }
            _ => {
                t6 = (x[2] * x[1]);
            }
        }
    }
    let mut b7 = x.to_vec();
    let k8 = s.atan();
    helper_smooth(&mut b7, k8);
    let f9 = move |v: T| v * n3;
    let n10 = if ((n3 * s).signum() * (s * s + T::one()).ln()) < (s * s) {
        s
    } else {
        (x[3]).atan().cos()
    };
    (x[2] + n2).tanh().exp() + b7.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_18_f64(x: &[f64], s: f64) -> f64 {
    let n1 = (s * s + 1.0).ln();
    let n2 = x[3];
    let (n3, n4) = (
        ((-0.9_f64).mul_add(s, (0.0_f64)) - (x[1]).tanh().exp()),
        (x.windows(2).map(|w| (w[1] - w[0]) * (1.4_f64)).sum::<f64>())
            .max((-1.6_f64).max((-1.5_f64))),
    );
    for i in 0..4 {
        let mut m5 = x[0];
        let mut t6 = 0.0;
        for i in 1..4 {
            t6 = t6 + (x[i] - m5).exp();
            m5 = m5.max(x[i]);
        }
        match i % 3 {
            0 => {
                t6 = t6 + ((s.max(n4)) * (s.max(n4)) + 1.0).sqrt();
            }
            1 => {
                t6 = t6 * x.iter().map(|v| ((-1.2_f64) + *v)).sum::<f64>();
            }
            _ => {
                t6 = (x[2] * x[1]);
            }
        }
    }
    let mut b7 = x.to_vec();
    let k8 = s.atan();
    helper_smooth(&mut b7, k8);
    let f9 = move |v: f64| v * n3;
    let n10 = if ((n3 * s).signum() * (s * s + 1.0).ln()) < (s * s) {
        s
    } else {
        (x[3]).atan().cos()
    };
    (x[2] + n2).tanh().exp() + b7.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_18_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let n1 = (s * s + T::one()).ln();
    let n2 = x[3];
    let (n3, n4) = (
        ((T::from(-0.9).unwrap()).mul_add(s, T::from(0.0).unwrap()) - (x[1]).tanh().exp()),
        (x.windows(2)
            .map(|w| (w[1] - w[0]) * T::from(1.4).unwrap())
            .sum::<T>())
        .max((T::from(-1.6).unwrap()).max(T::from(-1.5).unwrap())),
    );
    for i in 0..4 {
        let mut m5 = x[0];
        let mut t6 = T::zero();
        for i in 1..4 {
            t6 = t6 + (x[i] - m5).exp();
            m5 = m5.max(x[i]);
        }
        match i % 3 {
            0 => {
                t6 = t6 + ((s.max(n4)) * (s.max(n4)) + T::one()).sqrt();
            }
            1 => {
                t6 = t6 * x.iter().map(|v| (T::from(-1.2).unwrap() + *v)).sum::<T>();
            }
            _ => {
                t6 = (x[2] * x[1]);
            }
        }
    }
    let mut b7 = x.to_vec();
    let k8 = s.atan();
    helper_smooth_on_duals(&mut b7, k8);
    let f9 = move |v: T| v * n3;
    let n10 = if ((n3 * s).signum() * (s * s + T::one()).ln()) < (s * s) {
        s
    } else {
        (x[3]).atan().cos()
    };
    (x[2] + n2).tanh().exp() + b7.iter().copied().sum::<T>()
}

#[test]
fn program_18_matches_dual_numbers_and_finite_differences() {
    check(
        "program_18",
        point(18),
        &|p| program_18::primal(&p[..4], p[4]),
        &|p| program_18(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_18::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_18_on_duals(&d[..4], d[4]),
    );
    let p = point(18);
    let (value, (dx, ds)) = program_18::grad(&p[..4], p[4]);
    faces(
        "program_18",
        p,
        point(18 + 7),
        (value, &dx, ds),
        &|p, t| program_18::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_18::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_18_f64::grad(&p[..4], p[4]);
    same(
        "program_18_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_19<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut m1 = x[0];
    let mut t2 = T::zero();
    for i in 1..4 {
        t2 = t2 + (x[i] - m1).exp();
        m1 = m1.max(x[i]);
    }
    for i in (0..4).rev() {
        if ((x[(i + 1) % 4]).sin()
            / (T::from(1.5).unwrap()
                + (T::from(-1.5).unwrap()).hypot(T::one())
                    * (T::from(-1.5).unwrap()).hypot(T::one())))
            < m1
        {
            t2 = x.iter().map(|v| (*v).max((*v).tanh().exp())).sum::<T>();
        } else {
            t2 = t2 - (T::from(-1.8).unwrap() * (x[0]).tanh().exp());
        }
        'outer: for i in 0..4 {
            for j in 0..4 {
                if (m1 / (T::from(1.5).unwrap() + (x[j] - m1) * (x[j] - m1))) <= s {
                    break 'outer;
                }
                m1 = (m1 + (T::from(-0.1).unwrap() * x[j]).sin() * x[i]).tanh();
            }
        }
        let n3 = helper_soft(
            ((x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>())
                * (x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>())
                + T::one())
            .sqrt(),
            ((x[i]).sin()
                * (x[(i + 3) % 4]
                    / (T::from(1.5).unwrap()
                        + (T::from(-0.8).unwrap()) * (T::from(-0.8).unwrap())))),
        );
    }
    let f4 = move |v: T| ((T::from(-1.2).unwrap()).cos() * (s + v)) * t2;
    let n5 = f4(s.min(x[3]));
    let mut k6 = 0;
    while k6 < 3 {
        m1 = (m1 + ((s.min(n5)) * (s.min(n5)) + T::one()).sqrt()).tanh();
        k6 += 1;
    }
    let f7 = move |v: T| (v + v).cos() * m1;
    if T::from(1.6).unwrap() >= (T::from(-0.8).unwrap()).atan() {
        t2 = x.iter().map(|v| (s.tanh()).cos()).sum::<T>();
    } else {
        t2 = t2 - s.min((x[3]).atan());
    }
    s + t2 + n5
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_19_f64(x: &[f64], s: f64) -> f64 {
    let mut m1 = x[0];
    let mut t2 = 0.0;
    for i in 1..4 {
        t2 = t2 + (x[i] - m1).exp();
        m1 = m1.max(x[i]);
    }
    for i in (0..4).rev() {
        if ((x[(i + 1) % 4]).sin() / ((1.5_f64) + (-1.5_f64).hypot(1.0) * (-1.5_f64).hypot(1.0)))
            < m1
        {
            t2 = x.iter().map(|v| (*v).max((*v).tanh().exp())).sum::<f64>();
        } else {
            t2 = t2 - ((-1.8_f64) * (x[0]).tanh().exp());
        }
        'outer: for i in 0..4 {
            for j in 0..4 {
                if (m1 / ((1.5_f64) + (x[j] - m1) * (x[j] - m1))) <= s {
                    break 'outer;
                }
                m1 = (m1 + ((-0.1_f64) * x[j]).sin() * x[i]).tanh();
            }
        }
        let n3 = helper_soft(
            ((x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<f64>())
                * (x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<f64>())
                + 1.0)
                .sqrt(),
            ((x[i]).sin() * (x[(i + 3) % 4] / ((1.5_f64) + (-0.8_f64) * (-0.8_f64)))),
        );
    }
    let f4 = move |v: f64| ((-1.2_f64).cos() * (s + v)) * t2;
    let n5 = f4(s.min(x[3]));
    let mut k6 = 0;
    while k6 < 3 {
        m1 = (m1 + ((s.min(n5)) * (s.min(n5)) + 1.0).sqrt()).tanh();
        k6 += 1;
    }
    let f7 = move |v: f64| (v + v).cos() * m1;
    if (1.6_f64) >= (-0.8_f64).atan() {
        t2 = x.iter().map(|v| (s.tanh()).cos()).sum::<f64>();
    } else {
        t2 = t2 - s.min((x[3]).atan());
    }
    s + t2 + n5
}

#[allow(clippy::all, unused)]
fn program_19_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut m1 = x[0];
    let mut t2 = T::zero();
    for i in 1..4 {
        t2 = t2 + (x[i] - m1).exp();
        m1 = m1.max(x[i]);
    }
    for i in (0..4).rev() {
        if ((x[(i + 1) % 4]).sin()
            / (T::from(1.5).unwrap()
                + (T::from(-1.5).unwrap()).hypot(T::one())
                    * (T::from(-1.5).unwrap()).hypot(T::one())))
            < m1
        {
            t2 = x.iter().map(|v| (*v).max((*v).tanh().exp())).sum::<T>();
        } else {
            t2 = t2 - (T::from(-1.8).unwrap() * (x[0]).tanh().exp());
        }
        'outer: for i in 0..4 {
            for j in 0..4 {
                if (m1 / (T::from(1.5).unwrap() + (x[j] - m1) * (x[j] - m1))) <= s {
                    break 'outer;
                }
                m1 = (m1 + (T::from(-0.1).unwrap() * x[j]).sin() * x[i]).tanh();
            }
        }
        let n3 = helper_soft_on_duals(
            ((x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>())
                * (x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>())
                + T::one())
            .sqrt(),
            ((x[i]).sin()
                * (x[(i + 3) % 4]
                    / (T::from(1.5).unwrap()
                        + (T::from(-0.8).unwrap()) * (T::from(-0.8).unwrap())))),
        );
    }
    let f4 = move |v: T| ((T::from(-1.2).unwrap()).cos() * (s + v)) * t2;
    let n5 = f4(s.min(x[3]));
    let mut k6 = 0;
    while k6 < 3 {
        m1 = (m1 + ((s.min(n5)) * (s.min(n5)) + T::one()).sqrt()).tanh();
        k6 += 1;
    }
    let f7 = move |v: T| (v + v).cos() * m1;
    if T::from(1.6).unwrap() >= (T::from(-0.8).unwrap()).atan() {
        t2 = x.iter().map(|v| (s.tanh()).cos()).sum::<T>();
    } else {
        t2 = t2 - s.min((x[3]).atan());
    }
    s + t2 + n5
}

#[test]
fn program_19_matches_dual_numbers_and_finite_differences() {
    check(
        "program_19",
        point(19),
        &|p| program_19::primal(&p[..4], p[4]),
        &|p| program_19(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_19::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_19_on_duals(&d[..4], d[4]),
    );
    let p = point(19);
    let (value, (dx, ds)) = program_19::grad(&p[..4], p[4]);
    faces(
        "program_19",
        p,
        point(19 + 7),
        (value, &dx, ds),
        &|p, t| program_19::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_19::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_19_f64::grad(&p[..4], p[4]);
    same(
        "program_19_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_20<T: gradtape::Float>(x: &[T], s: T) -> T {
    let (n1, n2) = helper_pair(
        ((x[3] * T::from(-0.6).unwrap()) * (x[1] + T::from(1.6).unwrap())),
        T::from(1.0).unwrap(),
    );
    let mut a3 = ((x[2]).tanh() * (x[2]).tanh() + T::one()).powf((x[3]).cos());
    let mut k4 = 0;
    loop {
        a3 =
            a3 * T::from(0.5).unwrap() + ((s * s + T::one()).sqrt() * (T::from(1.7).unwrap() - n2));
        k4 += 1;
        if k4 >= 2 {
            break;
        }
    }
    if T::from(0.2).unwrap() <= (T::from(-1.5).unwrap()).max(s) {
        a3 = ((x[1]).atan().floor() + (a3.min(a3))).tanh();
    } else {
        a3 = a3 - (x[0] - (x[3]).min(s));
    }
    let mut p5 = a3;
    let mut q6 = ((T::from(1.8).unwrap()) * (T::from(1.8).unwrap()) + T::one()).sqrt();
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * T::from(0.1).unwrap();
        p5 = p5 + q6 * T::from(0.1).unwrap();
    }
    a3 = a3 * T::from(-0.2).unwrap() + ((x[1]).atan() * s.atan()).cos();
    (((x[2]) * (x[2]) + T::one()).ln() * x[2]) + n2
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_20_f64(x: &[f64], s: f64) -> f64 {
    let (n1, n2) = helper_pair(((x[3] * (-0.6_f64)) * (x[1] + (1.6_f64))), (1.0_f64));
    let mut a3 = ((x[2]).tanh() * (x[2]).tanh() + 1.0).powf((x[3]).cos());
    let mut k4 = 0;
    loop {
        a3 = a3 * (0.5_f64) + ((s * s + 1.0).sqrt() * ((1.7_f64) - n2));
        k4 += 1;
        if k4 >= 2 {
            break;
        }
    }
    if (0.2_f64) <= (-1.5_f64).max(s) {
        a3 = ((x[1]).atan().floor() + (a3.min(a3))).tanh();
    } else {
        a3 = a3 - (x[0] - (x[3]).min(s));
    }
    let mut p5 = a3;
    let mut q6 = ((1.8_f64) * (1.8_f64) + 1.0).sqrt();
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * (0.1_f64);
        p5 = p5 + q6 * (0.1_f64);
    }
    a3 = a3 * (-0.2_f64) + ((x[1]).atan() * s.atan()).cos();
    (((x[2]) * (x[2]) + 1.0).ln() * x[2]) + n2
}

#[allow(clippy::all, unused)]
fn program_20_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let (n1, n2) = helper_pair_on_duals(
        ((x[3] * T::from(-0.6).unwrap()) * (x[1] + T::from(1.6).unwrap())),
        T::from(1.0).unwrap(),
    );
    let mut a3 = ((x[2]).tanh() * (x[2]).tanh() + T::one()).powf((x[3]).cos());
    let mut k4 = 0;
    loop {
        a3 =
            a3 * T::from(0.5).unwrap() + ((s * s + T::one()).sqrt() * (T::from(1.7).unwrap() - n2));
        k4 += 1;
        if k4 >= 2 {
            break;
        }
    }
    if T::from(0.2).unwrap() <= (T::from(-1.5).unwrap()).max(s) {
        a3 = ((x[1]).atan().floor() + (a3.min(a3))).tanh();
    } else {
        a3 = a3 - (x[0] - (x[3]).min(s));
    }
    let mut p5 = a3;
    let mut q6 = ((T::from(1.8).unwrap()) * (T::from(1.8).unwrap()) + T::one()).sqrt();
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * T::from(0.1).unwrap();
        p5 = p5 + q6 * T::from(0.1).unwrap();
    }
    a3 = a3 * T::from(-0.2).unwrap() + ((x[1]).atan() * s.atan()).cos();
    (((x[2]) * (x[2]) + T::one()).ln() * x[2]) + n2
}

#[test]
fn program_20_matches_dual_numbers_and_finite_differences() {
    check(
        "program_20",
        point(20),
        &|p| program_20::primal(&p[..4], p[4]),
        &|p| program_20(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_20::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_20_on_duals(&d[..4], d[4]),
    );
    let p = point(20);
    let (value, (dx, ds)) = program_20::grad(&p[..4], p[4]);
    faces(
        "program_20",
        p,
        point(20 + 7),
        (value, &dx, ds),
        &|p, t| program_20::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_20::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_20_f64::grad(&p[..4], p[4]);
    same(
        "program_20_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_21<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut b1 = vec![T::zero(); 4];
    for i in 0..4 {
        b1[i] = x[(i + 2) % 4];
    }
    let k2 = (b1[3]).atan().min((s * x[3]));
    b1[2] += k2;
    let n3 = helper_power((T::from(-0.5).unwrap()).tanh().exp(), 1);
    let n4 = (b1[0] + x[0]).atan().sin();
    for i in 1..4 {
        b1[i] = b1[i - 1] * T::from(-0.1).unwrap() + b1[i].tanh();
    }
    (x[1] + b1[3]).min(n4) + n3 + b1.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_21_f64(x: &[f64], s: f64) -> f64 {
    let mut b1 = vec![0.0; 4];
    for i in 0..4 {
        b1[i] = x[(i + 2) % 4];
    }
    let k2 = (b1[3]).atan().min((s * x[3]));
    b1[2] += k2;
    let n3 = helper_power((-0.5_f64).tanh().exp(), 1);
    let n4 = (b1[0] + x[0]).atan().sin();
    for i in 1..4 {
        b1[i] = b1[i - 1] * (-0.1_f64) + b1[i].tanh();
    }
    (x[1] + b1[3]).min(n4) + n3 + b1.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_21_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut b1 = vec![T::zero(); 4];
    for i in 0..4 {
        b1[i] = x[(i + 2) % 4];
    }
    let k2 = (b1[3]).atan().min((s * x[3]));
    b1[2] += k2;
    let n3 = helper_power_on_duals((T::from(-0.5).unwrap()).tanh().exp(), 1);
    let n4 = (b1[0] + x[0]).atan().sin();
    for i in 1..4 {
        b1[i] = b1[i - 1] * T::from(-0.1).unwrap() + b1[i].tanh();
    }
    (x[1] + b1[3]).min(n4) + n3 + b1.iter().copied().sum::<T>()
}

#[test]
fn program_21_matches_dual_numbers_and_finite_differences() {
    check(
        "program_21",
        point(21),
        &|p| program_21::primal(&p[..4], p[4]),
        &|p| program_21(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_21::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_21_on_duals(&d[..4], d[4]),
    );
    let p = point(21);
    let (value, (dx, ds)) = program_21::grad(&p[..4], p[4]);
    faces(
        "program_21",
        p,
        point(21 + 7),
        (value, &dx, ds),
        &|p, t| program_21::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_21::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_21_f64::grad(&p[..4], p[4]);
    same(
        "program_21_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_22<T: gradtape::Float>(x: &[T], s: T) -> T {
    for i in 0..4 {
        let mut a1 = ((x[0]) * (x[0]) + T::one()).ln();
        'outer: for i in 0..4 {
            for j in 0..4 {
                if (x[(j + 2) % 4]).tanh()
                    <= (x[j]
                        / (T::from(1.5).unwrap()
                            + (T::from(-1.3).unwrap()) * (T::from(-1.3).unwrap())))
                {
                    break 'outer;
                }
                a1 = (a1 + x[j] * x[i]).tanh();
            }
        }
    }
    let mut b2 = x.to_vec();
    for v in b2.iter_mut() {
        *v = ((T::from(0.8).unwrap()).sin() * (T::from(-0.1).unwrap()).sin());
    }
    let mut m3 = x[0];
    let mut t4 = T::zero();
    for i in 1..4 {
        t4 = t4 + (x[i] - m3).exp();
        m3 = m3.max(x[i]);
    }
    let mut p5 = s.cos();
    let mut q6 = (x[1] / (T::from(1.5).unwrap() + s * s));
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * T::from(0.4).unwrap();
        p5 = p5 + q6 * T::from(0.4).unwrap();
    }
    x.iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>()
        + m3
        + p5
        + b2.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_22_f64(x: &[f64], s: f64) -> f64 {
    for i in 0..4 {
        let mut a1 = ((x[0]) * (x[0]) + 1.0).ln();
        'outer: for i in 0..4 {
            for j in 0..4 {
                if (x[(j + 2) % 4]).tanh() <= (x[j] / ((1.5_f64) + (-1.3_f64) * (-1.3_f64))) {
                    break 'outer;
                }
                a1 = (a1 + x[j] * x[i]).tanh();
            }
        }
    }
    let mut b2 = x.to_vec();
    for v in b2.iter_mut() {
        *v = ((0.8_f64).sin() * (-0.1_f64).sin());
    }
    let mut m3 = x[0];
    let mut t4 = 0.0;
    for i in 1..4 {
        t4 = t4 + (x[i] - m3).exp();
        m3 = m3.max(x[i]);
    }
    let mut p5 = s.cos();
    let mut q6 = (x[1] / ((1.5_f64) + s * s));
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * (0.4_f64);
        p5 = p5 + q6 * (0.4_f64);
    }
    x.iter()
        .enumerate()
        .map(|(k, v)| *v * ((k + 1) as f64))
        .sum::<f64>()
        + m3
        + p5
        + b2.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_22_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    for i in 0..4 {
        let mut a1 = ((x[0]) * (x[0]) + T::one()).ln();
        'outer: for i in 0..4 {
            for j in 0..4 {
                if (x[(j + 2) % 4]).tanh()
                    <= (x[j]
                        / (T::from(1.5).unwrap()
                            + (T::from(-1.3).unwrap()) * (T::from(-1.3).unwrap())))
                {
                    break 'outer;
                }
                a1 = (a1 + x[j] * x[i]).tanh();
            }
        }
    }
    let mut b2 = x.to_vec();
    for v in b2.iter_mut() {
        *v = ((T::from(0.8).unwrap()).sin() * (T::from(-0.1).unwrap()).sin());
    }
    let mut m3 = x[0];
    let mut t4 = T::zero();
    for i in 1..4 {
        t4 = t4 + (x[i] - m3).exp();
        m3 = m3.max(x[i]);
    }
    let mut p5 = s.cos();
    let mut q6 = (x[1] / (T::from(1.5).unwrap() + s * s));
    for i in 0..4 {
        q6 = q6 - (p5 + x[i]).sin() * T::from(0.4).unwrap();
        p5 = p5 + q6 * T::from(0.4).unwrap();
    }
    x.iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>()
        + m3
        + p5
        + b2.iter().copied().sum::<T>()
}

#[test]
fn program_22_matches_dual_numbers_and_finite_differences() {
    check(
        "program_22",
        point(22),
        &|p| program_22::primal(&p[..4], p[4]),
        &|p| program_22(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_22::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_22_on_duals(&d[..4], d[4]),
    );
    let p = point(22);
    let (value, (dx, ds)) = program_22::grad(&p[..4], p[4]);
    faces(
        "program_22",
        p,
        point(22 + 7),
        (value, &dx, ds),
        &|p, t| program_22::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_22::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_22_f64::grad(&p[..4], p[4]);
    same(
        "program_22_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_23<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut a1 = (T::from(0.3).unwrap()).max(x[3]).atan();
    for pair in x.chunks(2) {
        a1 = a1 * T::from(0.2).unwrap() + pair[0] * pair[1].tanh();
    }
    a1 += x[3];
    let n2 = helper_power(
        x.iter().fold(T::zero(), |acc, v| {
            acc * T::from(0.7).unwrap() + (*v).mul_add(T::from(-0.9).unwrap(), *v)
        }),
        3,
    );
    let mut k3 = 0;
    while k3 < 2 {
        a1 = (a1 + (x[0]).powi(2).tanh().exp()).tanh();
        k3 += 1;
    }
    let n4 = ((s / (T::from(1.5).unwrap() + (x[2]) * (x[2]))).tanh() + (n2.tanh() - x[3]));
    let mut m5 = x[0];
    let mut t6 = T::zero();
    for i in 1..4 {
        m5 = m5.max(x[i]);
        t6 = t6 + (x[i] - m5).exp();
    }
    s + a1 + n2
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_23_f64(x: &[f64], s: f64) -> f64 {
    let mut a1 = (0.3_f64).max(x[3]).atan();
    for pair in x.chunks(2) {
        a1 = a1 * (0.2_f64) + pair[0] * pair[1].tanh();
    }
    a1 += x[3];
    let n2 = helper_power(
        x.iter()
            .fold(0.0, |acc, v| acc * (0.7_f64) + (*v).mul_add((-0.9_f64), *v)),
        3,
    );
    let mut k3 = 0;
    while k3 < 2 {
        a1 = (a1 + (x[0]).powi(2).tanh().exp()).tanh();
        k3 += 1;
    }
    let n4 = ((s / ((1.5_f64) + (x[2]) * (x[2]))).tanh() + (n2.tanh() - x[3]));
    let mut m5 = x[0];
    let mut t6 = 0.0;
    for i in 1..4 {
        m5 = m5.max(x[i]);
        t6 = t6 + (x[i] - m5).exp();
    }
    s + a1 + n2
}

#[allow(clippy::all, unused)]
fn program_23_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut a1 = (T::from(0.3).unwrap()).max(x[3]).atan();
    for pair in x.chunks(2) {
        a1 = a1 * T::from(0.2).unwrap() + pair[0] * pair[1].tanh();
    }
    a1 += x[3];
    let n2 = helper_power_on_duals(
        x.iter().fold(T::zero(), |acc, v| {
            acc * T::from(0.7).unwrap() + (*v).mul_add(T::from(-0.9).unwrap(), *v)
        }),
        3,
    );
    let mut k3 = 0;
    while k3 < 2 {
        a1 = (a1 + (x[0]).powi(2).tanh().exp()).tanh();
        k3 += 1;
    }
    let n4 = ((s / (T::from(1.5).unwrap() + (x[2]) * (x[2]))).tanh() + (n2.tanh() - x[3]));
    let mut m5 = x[0];
    let mut t6 = T::zero();
    for i in 1..4 {
        m5 = m5.max(x[i]);
        t6 = t6 + (x[i] - m5).exp();
    }
    s + a1 + n2
}

#[test]
fn program_23_matches_dual_numbers_and_finite_differences() {
    check(
        "program_23",
        point(23),
        &|p| program_23::primal(&p[..4], p[4]),
        &|p| program_23(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_23::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_23_on_duals(&d[..4], d[4]),
    );
    let p = point(23);
    let (value, (dx, ds)) = program_23::grad(&p[..4], p[4]);
    faces(
        "program_23",
        p,
        point(23 + 7),
        (value, &dx, ds),
        &|p, t| program_23::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_23::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_23_f64::grad(&p[..4], p[4]);
    same(
        "program_23_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_24<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut b1 = x.to_vec();
    b1[3] = b1[3] * (b1[0] - (x[2]).min(x[2])) + x[0];
    let mut a2 = (s * (x[1]).mul_add(b1[3], s));
    for pair in b1.chunks(2) {
        a2 = a2 * T::from(0.4).unwrap() + pair[0] * pair[1].tanh();
    }
    'outer: for i in 0..4 {
        for j in 0..4 {
            if T::from(-1.5).unwrap() > s {
                break 'outer;
            }
            a2 = (a2 + (s * (a2 - b1[2])) * x[i]).tanh();
        }
    }
    T::from(-1.9).unwrap() + b1.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_24_f64(x: &[f64], s: f64) -> f64 {
    let mut b1 = x.to_vec();
    b1[3] = b1[3] * (b1[0] - (x[2]).min(x[2])) + x[0];
    let mut a2 = (s * (x[1]).mul_add(b1[3], s));
    for pair in b1.chunks(2) {
        a2 = a2 * (0.4_f64) + pair[0] * pair[1].tanh();
    }
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (-1.5_f64) > s {
                break 'outer;
            }
            a2 = (a2 + (s * (a2 - b1[2])) * x[i]).tanh();
        }
    }
    (-1.9_f64) + b1.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_24_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut b1 = x.to_vec();
    b1[3] = b1[3] * (b1[0] - (x[2]).min(x[2])) + x[0];
    let mut a2 = (s * (x[1]).mul_add(b1[3], s));
    for pair in b1.chunks(2) {
        a2 = a2 * T::from(0.4).unwrap() + pair[0] * pair[1].tanh();
    }
    'outer: for i in 0..4 {
        for j in 0..4 {
            if T::from(-1.5).unwrap() > s {
                break 'outer;
            }
            a2 = (a2 + (s * (a2 - b1[2])) * x[i]).tanh();
        }
    }
    T::from(-1.9).unwrap() + b1.iter().copied().sum::<T>()
}

#[test]
fn program_24_matches_dual_numbers_and_finite_differences() {
    check(
        "program_24",
        point(24),
        &|p| program_24::primal(&p[..4], p[4]),
        &|p| program_24(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_24::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_24_on_duals(&d[..4], d[4]),
    );
    let p = point(24);
    let (value, (dx, ds)) = program_24::grad(&p[..4], p[4]);
    faces(
        "program_24",
        p,
        point(24 + 7),
        (value, &dx, ds),
        &|p, t| program_24::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_24::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_24_f64::grad(&p[..4], p[4]);
    same(
        "program_24_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_25<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut a1 =
        ((T::from(-1.2).unwrap()).tanh() * (T::from(-1.2).unwrap()).tanh() + T::one()).ln();
    a1 = a1 * T::from(-0.1).unwrap() + ((x[3] - (a1 * a1 + T::one()).sqrt()) + x[2]);
    let n2 = x[2];
    if x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>() < x[2] {
        return x[0];
    }
    let n3 = n2;
    let (n4, n5) = (
        (x[3]).atan().sin(),
        (x.iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>())
        .tanh()
        .exp(),
    );
    let mut b6 = x.to_vec();
    b6[0] = b6[0] * (x[1]).powi(3).min(((b6[0]).floor() + n2)) + a1;
    (T::from(0.2).unwrap()).cos().atan() + n3 + b6.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_25_f64(x: &[f64], s: f64) -> f64 {
    let mut a1 = ((-1.2_f64).tanh() * (-1.2_f64).tanh() + 1.0).ln();
    a1 = a1 * (-0.1_f64) + ((x[3] - (a1 * a1 + 1.0).sqrt()) + x[2]);
    let n2 = x[2];
    if x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<f64>() < x[2] {
        return x[0];
    }
    let n3 = n2;
    let (n4, n5) = (
        (x[3]).atan().sin(),
        (x.iter()
            .enumerate()
            .map(|(k, v)| *v * ((k + 1) as f64))
            .sum::<f64>())
        .tanh()
        .exp(),
    );
    let mut b6 = x.to_vec();
    b6[0] = b6[0] * (x[1]).powi(3).min(((b6[0]).floor() + n2)) + a1;
    (0.2_f64).cos().atan() + n3 + b6.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_25_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut a1 =
        ((T::from(-1.2).unwrap()).tanh() * (T::from(-1.2).unwrap()).tanh() + T::one()).ln();
    a1 = a1 * T::from(-0.1).unwrap() + ((x[3] - (a1 * a1 + T::one()).sqrt()) + x[2]);
    let n2 = x[2];
    if x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>() < x[2] {
        return x[0];
    }
    let n3 = n2;
    let (n4, n5) = (
        (x[3]).atan().sin(),
        (x.iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>())
        .tanh()
        .exp(),
    );
    let mut b6 = x.to_vec();
    b6[0] = b6[0] * (x[1]).powi(3).min(((b6[0]).floor() + n2)) + a1;
    (T::from(0.2).unwrap()).cos().atan() + n3 + b6.iter().copied().sum::<T>()
}

#[test]
fn program_25_matches_dual_numbers_and_finite_differences() {
    check(
        "program_25",
        point(25),
        &|p| program_25::primal(&p[..4], p[4]),
        &|p| program_25(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_25::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_25_on_duals(&d[..4], d[4]),
    );
    let p = point(25);
    let (value, (dx, ds)) = program_25::grad(&p[..4], p[4]);
    faces(
        "program_25",
        p,
        point(25 + 7),
        (value, &dx, ds),
        &|p, t| program_25::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_25::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_25_f64::grad(&p[..4], p[4]);
    same(
        "program_25_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_26<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut a1 = (x[3] * (x[0]).tanh().exp());
    if let Some(v) = x.first() {
        a1 = a1 * T::from(-0.1).unwrap() + (*v).sin();
    }
    for i in 0..4 {
        a1 = a1 * T::from(0.5).unwrap()
            + ((a1 + s).hypot(T::one()) * (a1 + s).hypot(T::one()) + T::one()).ln();
    }
    let n4 = a1.tanh().exp();
    let f2 = |u: T, w: T| (u * n4 - w).tanh();
    let f3 = |u: T| f2(u, u * u) + n4;
    let n5 = f2(
        (s.sin()).mul_add((x[1] * x[2]), (a1 - x[3])),
        (x.iter().map(|v| *v).sum::<T>()).tanh(),
    ) + f3((x.iter().map(|v| *v).sum::<T>()).tanh());
    let n8 = (x[0] / (T::from(1.5).unwrap() + s * s));
    let f6 = |u: T, w: T| (u * n8 - w).tanh();
    let f7 = |u: T| f6(u, u * u) + n8;
    let n9 = f6((n5 * (n5 + s)), (x[2] + x[0])) + f7((x[2] + x[0]));
    let mut b10 = x.to_vec();
    b10[1] = b10[1]
        * ((T::from(0.9).unwrap()).max(b10[2]) * (T::from(0.9).unwrap()).max(b10[2]) + T::one())
            .ln()
        + T::from(1.6).unwrap();
    for v in b10.iter_mut() {
        *v = *v;
    }
    if let Some(v) = x.first() {
        a1 = a1 * T::from(-0.5).unwrap() + (*v).sin();
    }
    (s.min(b10[0]) * (x[2] * b10[0])) + a1 + n4 + n5 + n8 + n9 + b10.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_26_f64(x: &[f64], s: f64) -> f64 {
    let mut a1 = (x[3] * (x[0]).tanh().exp());
    if let Some(v) = x.first() {
        a1 = a1 * (-0.1_f64) + (*v).sin();
    }
    for i in 0..4 {
        a1 = a1 * (0.5_f64) + ((a1 + s).hypot(1.0) * (a1 + s).hypot(1.0) + 1.0).ln();
    }
    let n4 = a1.tanh().exp();
    let f2 = |u: f64, w: f64| (u * n4 - w).tanh();
    let f3 = |u: f64| f2(u, u * u) + n4;
    let n5 = f2(
        (s.sin()).mul_add((x[1] * x[2]), (a1 - x[3])),
        (x.iter().map(|v| *v).sum::<f64>()).tanh(),
    ) + f3((x.iter().map(|v| *v).sum::<f64>()).tanh());
    let n8 = (x[0] / ((1.5_f64) + s * s));
    let f6 = |u: f64, w: f64| (u * n8 - w).tanh();
    let f7 = |u: f64| f6(u, u * u) + n8;
    let n9 = f6((n5 * (n5 + s)), (x[2] + x[0])) + f7((x[2] + x[0]));
    let mut b10 = x.to_vec();
    b10[1] = b10[1] * ((0.9_f64).max(b10[2]) * (0.9_f64).max(b10[2]) + 1.0).ln() + (1.6_f64);
    for v in b10.iter_mut() {
        *v = *v;
    }
    if let Some(v) = x.first() {
        a1 = a1 * (-0.5_f64) + (*v).sin();
    }
    (s.min(b10[0]) * (x[2] * b10[0])) + a1 + n4 + n5 + n8 + n9 + b10.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_26_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut a1 = (x[3] * (x[0]).tanh().exp());
    if let Some(v) = x.first() {
        a1 = a1 * T::from(-0.1).unwrap() + (*v).sin();
    }
    for i in 0..4 {
        a1 = a1 * T::from(0.5).unwrap()
            + ((a1 + s).hypot(T::one()) * (a1 + s).hypot(T::one()) + T::one()).ln();
    }
    let n4 = a1.tanh().exp();
    let f2 = |u: T, w: T| (u * n4 - w).tanh();
    let f3 = |u: T| f2(u, u * u) + n4;
    let n5 = f2(
        (s.sin()).mul_add((x[1] * x[2]), (a1 - x[3])),
        (x.iter().map(|v| *v).sum::<T>()).tanh(),
    ) + f3((x.iter().map(|v| *v).sum::<T>()).tanh());
    let n8 = (x[0] / (T::from(1.5).unwrap() + s * s));
    let f6 = |u: T, w: T| (u * n8 - w).tanh();
    let f7 = |u: T| f6(u, u * u) + n8;
    let n9 = f6((n5 * (n5 + s)), (x[2] + x[0])) + f7((x[2] + x[0]));
    let mut b10 = x.to_vec();
    b10[1] = b10[1]
        * ((T::from(0.9).unwrap()).max(b10[2]) * (T::from(0.9).unwrap()).max(b10[2]) + T::one())
            .ln()
        + T::from(1.6).unwrap();
    for v in b10.iter_mut() {
        *v = *v;
    }
    if let Some(v) = x.first() {
        a1 = a1 * T::from(-0.5).unwrap() + (*v).sin();
    }
    (s.min(b10[0]) * (x[2] * b10[0])) + a1 + n4 + n5 + n8 + n9 + b10.iter().copied().sum::<T>()
}

#[test]
fn program_26_matches_dual_numbers_and_finite_differences() {
    check(
        "program_26",
        point(26),
        &|p| program_26::primal(&p[..4], p[4]),
        &|p| program_26(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_26::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_26_on_duals(&d[..4], d[4]),
    );
    let p = point(26);
    let (value, (dx, ds)) = program_26::grad(&p[..4], p[4]);
    faces(
        "program_26",
        p,
        point(26 + 7),
        (value, &dx, ds),
        &|p, t| program_26::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_26::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_26_f64::grad(&p[..4], p[4]);
    same(
        "program_26_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_27<T: gradtape::Float>(x: &[T], s: T) -> T {
    let n3 = ((x[0]) * (x[0]) + T::one()).ln();
    let f1 = |u: T, w: T| (u * n3 - w).tanh();
    let f2 = |u: T| f1(u, u * u) + n3;
    let n4 = f1(
        x[3],
        (x[2]).mul_add(
            ((T::from(-0.6).unwrap()) * (T::from(-0.6).unwrap()) + T::one()).ln(),
            (n3 * n3 + T::one()).ln(),
        ),
    ) + f2((x[2]).mul_add(
        ((T::from(-0.6).unwrap()) * (T::from(-0.6).unwrap()) + T::one()).ln(),
        (n3 * n3 + T::one()).ln(),
    ));
    let (n5, n6) = helper_pair(
        ((n3 * x[1]) * s.tanh().exp()),
        ((x[0]).max(x[1]) - (x[2] - T::from(1.2).unwrap())),
    );
    let (n7, n8) = (n4, (x.iter().map(|v| s).sum::<T>()).hypot(T::one()));
    (s * x[3]).powi(3) + n3 + n6
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_27_f64(x: &[f64], s: f64) -> f64 {
    let n3 = ((x[0]) * (x[0]) + 1.0).ln();
    let f1 = |u: f64, w: f64| (u * n3 - w).tanh();
    let f2 = |u: f64| f1(u, u * u) + n3;
    let n4 = f1(
        x[3],
        (x[2]).mul_add(((-0.6_f64) * (-0.6_f64) + 1.0).ln(), (n3 * n3 + 1.0).ln()),
    ) + f2((x[2]).mul_add(((-0.6_f64) * (-0.6_f64) + 1.0).ln(), (n3 * n3 + 1.0).ln()));
    let (n5, n6) = helper_pair(
        ((n3 * x[1]) * s.tanh().exp()),
        ((x[0]).max(x[1]) - (x[2] - (1.2_f64))),
    );
    let (n7, n8) = (n4, (x.iter().map(|v| s).sum::<f64>()).hypot(1.0));
    (s * x[3]).powi(3) + n3 + n6
}

#[allow(clippy::all, unused)]
fn program_27_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let n3 = ((x[0]) * (x[0]) + T::one()).ln();
    let f1 = |u: T, w: T| (u * n3 - w).tanh();
    let f2 = |u: T| f1(u, u * u) + n3;
    let n4 = f1(
        x[3],
        (x[2]).mul_add(
            ((T::from(-0.6).unwrap()) * (T::from(-0.6).unwrap()) + T::one()).ln(),
            (n3 * n3 + T::one()).ln(),
        ),
    ) + f2((x[2]).mul_add(
        ((T::from(-0.6).unwrap()) * (T::from(-0.6).unwrap()) + T::one()).ln(),
        (n3 * n3 + T::one()).ln(),
    ));
    let (n5, n6) = helper_pair_on_duals(
        ((n3 * x[1]) * s.tanh().exp()),
        ((x[0]).max(x[1]) - (x[2] - T::from(1.2).unwrap())),
    );
    let (n7, n8) = (n4, (x.iter().map(|v| s).sum::<T>()).hypot(T::one()));
    (s * x[3]).powi(3) + n3 + n6
}

#[test]
fn program_27_matches_dual_numbers_and_finite_differences() {
    check(
        "program_27",
        point(27),
        &|p| program_27::primal(&p[..4], p[4]),
        &|p| program_27(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_27::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_27_on_duals(&d[..4], d[4]),
    );
    let p = point(27);
    let (value, (dx, ds)) = program_27::grad(&p[..4], p[4]);
    faces(
        "program_27",
        p,
        point(27 + 7),
        (value, &dx, ds),
        &|p, t| program_27::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_27::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_27_f64::grad(&p[..4], p[4]);
    same(
        "program_27_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_28<T: gradtape::Float>(x: &[T], s: T) -> T {
    let n1 = s;
    let n2 = x[0];
    let mut r5 = ((T::from(-1.6).unwrap()) * (T::from(-1.6).unwrap()) + T::one()).ln();
    let mut k4 = 0;
    let n3 = loop {
        r5 = (r5 * T::from(0.7).unwrap() + (T::from(-0.7).unwrap()).atan().tanh()).sin();
        k4 += 1;
        if k4 == 4 {
            break r5 * r5;
        }
    };
    let (n6, n7) = helper_pair(n2.tanh().exp(), (x[1] - s));
    let mut m8 = x[0];
    let mut t9 = T::zero();
    for i in 1..4 {
        m8 = m8.max(x[i]);
        t9 = t9 + (x[i] - m8).exp();
    }
    T::from(-1.2).unwrap() + n1 + n2 + n3 + n6 + t9
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_28_f64(x: &[f64], s: f64) -> f64 {
    let n1 = s;
    let n2 = x[0];
    let mut r5 = ((-1.6_f64) * (-1.6_f64) + 1.0).ln();
    let mut k4 = 0;
    let n3 = loop {
        r5 = (r5 * (0.7_f64) + (-0.7_f64).atan().tanh()).sin();
        k4 += 1;
        if k4 == 4 {
            break r5 * r5;
        }
    };
    let (n6, n7) = helper_pair(n2.tanh().exp(), (x[1] - s));
    let mut m8 = x[0];
    let mut t9 = 0.0;
    for i in 1..4 {
        m8 = m8.max(x[i]);
        t9 = t9 + (x[i] - m8).exp();
    }
    (-1.2_f64) + n1 + n2 + n3 + n6 + t9
}

#[allow(clippy::all, unused)]
fn program_28_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let n1 = s;
    let n2 = x[0];
    let mut r5 = ((T::from(-1.6).unwrap()) * (T::from(-1.6).unwrap()) + T::one()).ln();
    let mut k4 = 0;
    let n3 = loop {
        r5 = (r5 * T::from(0.7).unwrap() + (T::from(-0.7).unwrap()).atan().tanh()).sin();
        k4 += 1;
        if k4 == 4 {
            break r5 * r5;
        }
    };
    let (n6, n7) = helper_pair_on_duals(n2.tanh().exp(), (x[1] - s));
    let mut m8 = x[0];
    let mut t9 = T::zero();
    for i in 1..4 {
        m8 = m8.max(x[i]);
        t9 = t9 + (x[i] - m8).exp();
    }
    T::from(-1.2).unwrap() + n1 + n2 + n3 + n6 + t9
}

#[test]
fn program_28_matches_dual_numbers_and_finite_differences() {
    check(
        "program_28",
        point(28),
        &|p| program_28::primal(&p[..4], p[4]),
        &|p| program_28(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_28::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_28_on_duals(&d[..4], d[4]),
    );
    let p = point(28);
    let (value, (dx, ds)) = program_28::grad(&p[..4], p[4]);
    faces(
        "program_28",
        p,
        point(28 + 7),
        (value, &dx, ds),
        &|p, t| program_28::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_28::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_28_f64::grad(&p[..4], p[4]);
    same(
        "program_28_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_29<T: gradtape::Float>(x: &[T], s: T) -> T {
    let (n1, n2) = (
        (s.cos()).mul_add((x[1]).tanh().exp(), s),
        T::from(0.6).unwrap(),
    );
    let mut b3 = vec![T::zero(); 4];
    for i in 0..4 {
        b3[i] = s;
    }
    let k4 = ((T::from(0.6).unwrap()) * (T::from(0.6).unwrap()) + T::one()).sqrt();
    helper_smooth(&mut b3, k4);
    let n5 = (x[3] * n1).tanh().tanh().exp();
    let n6 = if s.max((b3[2]).tanh().exp()) < T::from(-0.7).unwrap() {
        b3[3]
    } else {
        (x[3] * x[1]).min(n2)
    };
    ((b3[0]) * (b3[0]) + T::one()).ln() + n1 + n2 + n6 + b3.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_29_f64(x: &[f64], s: f64) -> f64 {
    let (n1, n2) = ((s.cos()).mul_add((x[1]).tanh().exp(), s), (0.6_f64));
    let mut b3 = vec![0.0; 4];
    for i in 0..4 {
        b3[i] = s;
    }
    let k4 = ((0.6_f64) * (0.6_f64) + 1.0).sqrt();
    helper_smooth(&mut b3, k4);
    let n5 = (x[3] * n1).tanh().tanh().exp();
    let n6 = if s.max((b3[2]).tanh().exp()) < (-0.7_f64) {
        b3[3]
    } else {
        (x[3] * x[1]).min(n2)
    };
    ((b3[0]) * (b3[0]) + 1.0).ln() + n1 + n2 + n6 + b3.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_29_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let (n1, n2) = (
        (s.cos()).mul_add((x[1]).tanh().exp(), s),
        T::from(0.6).unwrap(),
    );
    let mut b3 = vec![T::zero(); 4];
    for i in 0..4 {
        b3[i] = s;
    }
    let k4 = ((T::from(0.6).unwrap()) * (T::from(0.6).unwrap()) + T::one()).sqrt();
    helper_smooth_on_duals(&mut b3, k4);
    let n5 = (x[3] * n1).tanh().tanh().exp();
    let n6 = if s.max((b3[2]).tanh().exp()) < T::from(-0.7).unwrap() {
        b3[3]
    } else {
        (x[3] * x[1]).min(n2)
    };
    ((b3[0]) * (b3[0]) + T::one()).ln() + n1 + n2 + n6 + b3.iter().copied().sum::<T>()
}

#[test]
fn program_29_matches_dual_numbers_and_finite_differences() {
    check(
        "program_29",
        point(29),
        &|p| program_29::primal(&p[..4], p[4]),
        &|p| program_29(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_29::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_29_on_duals(&d[..4], d[4]),
    );
    let p = point(29);
    let (value, (dx, ds)) = program_29::grad(&p[..4], p[4]);
    faces(
        "program_29",
        p,
        point(29 + 7),
        (value, &dx, ds),
        &|p, t| program_29::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_29::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_29_f64::grad(&p[..4], p[4]);
    same(
        "program_29_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_30<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut m1 = x[0];
    let mut t2 = T::zero();
    for i in 1..4 {
        m1 = m1.max(x[i]);
        t2 = t2 + (x[i] - m1).exp();
    }
    for i in 0..4 {
        let n5 = s.atan();
        let f3 = |u: T, w: T| (u * n5 - w).tanh();
        let f4 = |u: T| f3(u, u * u) + n5;
        let n6 = f3(
            ((t2 * t2 + T::one()).sqrt() - T::from(1.1).unwrap()),
            (s.min(x[(i + 2) % 4])
                / (T::from(1.5).unwrap() + (s * s + T::one()).sqrt() * (s * s + T::one()).sqrt())),
        ) + f4((s.min(x[(i + 2) % 4])
            / (T::from(1.5).unwrap() + (s * s + T::one()).sqrt() * (s * s + T::one()).sqrt())));
        if s < x.iter().map(|v| *v).sum::<T>() {
            continue;
        }
        let mut b7 = vec![T::zero(); 4];
        for i in 0..4 {
            b7[i] = n5;
        }
        let k8 = T::from(1.4).unwrap();
        b7[i] += k8;
    }
    let mut b9 = x.to_vec();
    for i in 1..4 {
        b9[i] = b9[i - 1] * T::from(-0.4).unwrap() + b9[i].tanh();
    }
    let n10 = (s * ((T::from(0.8).unwrap()) * (T::from(0.8).unwrap()) + T::one()).sqrt());
    (s.powi(3)).hypot(T::one()) + m1 + t2 + n10 + b9.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_30_f64(x: &[f64], s: f64) -> f64 {
    let mut m1 = x[0];
    let mut t2 = 0.0;
    for i in 1..4 {
        m1 = m1.max(x[i]);
        t2 = t2 + (x[i] - m1).exp();
    }
    for i in 0..4 {
        let n5 = s.atan();
        let f3 = |u: f64, w: f64| (u * n5 - w).tanh();
        let f4 = |u: f64| f3(u, u * u) + n5;
        let n6 = f3(
            ((t2 * t2 + 1.0).sqrt() - (1.1_f64)),
            (s.min(x[(i + 2) % 4]) / ((1.5_f64) + (s * s + 1.0).sqrt() * (s * s + 1.0).sqrt())),
        ) + f4(
            (s.min(x[(i + 2) % 4]) / ((1.5_f64) + (s * s + 1.0).sqrt() * (s * s + 1.0).sqrt()))
        );
        if s < x.iter().map(|v| *v).sum::<f64>() {
            continue;
        }
        let mut b7 = vec![0.0; 4];
        for i in 0..4 {
            b7[i] = n5;
        }
        let k8 = (1.4_f64);
        b7[i] += k8;
    }
    let mut b9 = x.to_vec();
    for i in 1..4 {
        b9[i] = b9[i - 1] * (-0.4_f64) + b9[i].tanh();
    }
    let n10 = (s * ((0.8_f64) * (0.8_f64) + 1.0).sqrt());
    (s.powi(3)).hypot(1.0) + m1 + t2 + n10 + b9.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_30_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut m1 = x[0];
    let mut t2 = T::zero();
    for i in 1..4 {
        m1 = m1.max(x[i]);
        t2 = t2 + (x[i] - m1).exp();
    }
    for i in 0..4 {
        let n5 = s.atan();
        let f3 = |u: T, w: T| (u * n5 - w).tanh();
        let f4 = |u: T| f3(u, u * u) + n5;
        let n6 = f3(
            ((t2 * t2 + T::one()).sqrt() - T::from(1.1).unwrap()),
            (s.min(x[(i + 2) % 4])
                / (T::from(1.5).unwrap() + (s * s + T::one()).sqrt() * (s * s + T::one()).sqrt())),
        ) + f4((s.min(x[(i + 2) % 4])
            / (T::from(1.5).unwrap() + (s * s + T::one()).sqrt() * (s * s + T::one()).sqrt())));
        if s < x.iter().map(|v| *v).sum::<T>() {
            continue;
        }
        let mut b7 = vec![T::zero(); 4];
        for i in 0..4 {
            b7[i] = n5;
        }
        let k8 = T::from(1.4).unwrap();
        b7[i] += k8;
    }
    let mut b9 = x.to_vec();
    for i in 1..4 {
        b9[i] = b9[i - 1] * T::from(-0.4).unwrap() + b9[i].tanh();
    }
    let n10 = (s * ((T::from(0.8).unwrap()) * (T::from(0.8).unwrap()) + T::one()).sqrt());
    (s.powi(3)).hypot(T::one()) + m1 + t2 + n10 + b9.iter().copied().sum::<T>()
}

#[test]
fn program_30_matches_dual_numbers_and_finite_differences() {
    check(
        "program_30",
        point(30),
        &|p| program_30::primal(&p[..4], p[4]),
        &|p| program_30(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_30::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_30_on_duals(&d[..4], d[4]),
    );
    let p = point(30);
    let (value, (dx, ds)) = program_30::grad(&p[..4], p[4]);
    faces(
        "program_30",
        p,
        point(30 + 7),
        (value, &dx, ds),
        &|p, t| program_30::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_30::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_30_f64::grad(&p[..4], p[4]);
    same(
        "program_30_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_31<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut p1 = (T::from(0.9).unwrap()).min(x[2]);
    let mut q2 = (x[0] - T::from(-1.0).unwrap());
    for i in 0..4 {
        q2 = q2 - (p1 + x[i]).sin() * T::from(0.5).unwrap();
        p1 = p1 + q2 * T::from(0.5).unwrap();
    }
    let (n3, n4) = helper_pair(
        (q2 - q2).mul_add(x[1], (x[1]).atan()),
        (T::from(1.6).unwrap() - q2).tanh().exp(),
    );
    let n7 = (s + s);
    let f5 = |u: T, w: T| (u * n7 - w).tanh();
    let f6 = |u: T| f5(u, u * u) + n7;
    let n8 = f5(
        ((x[0]) * (x[0]) + T::one()).powf(x[1]).cos(),
        (x[2] + x[1]).mul_add((T::from(-0.1).unwrap() - x[1]), T::from(-1.4).unwrap()),
    ) + f6((x[2] + x[1]).mul_add((T::from(-0.1).unwrap() - x[1]), T::from(-1.4).unwrap()));
    n4 + n4
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_31_f64(x: &[f64], s: f64) -> f64 {
    let mut p1 = (0.9_f64).min(x[2]);
    let mut q2 = (x[0] - (-1.0_f64));
    for i in 0..4 {
        q2 = q2 - (p1 + x[i]).sin() * (0.5_f64);
        p1 = p1 + q2 * (0.5_f64);
    }
    let (n3, n4) = helper_pair(
        (q2 - q2).mul_add(x[1], (x[1]).atan()),
        ((1.6_f64) - q2).tanh().exp(),
    );
    let n7 = (s + s);
    let f5 = |u: f64, w: f64| (u * n7 - w).tanh();
    let f6 = |u: f64| f5(u, u * u) + n7;
    let n8 = f5(
        ((x[0]) * (x[0]) + 1.0).powf(x[1]).cos(),
        (x[2] + x[1]).mul_add(((-0.1_f64) - x[1]), (-1.4_f64)),
    ) + f6((x[2] + x[1]).mul_add(((-0.1_f64) - x[1]), (-1.4_f64)));
    n4 + n4
}

#[allow(clippy::all, unused)]
fn program_31_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut p1 = (T::from(0.9).unwrap()).min(x[2]);
    let mut q2 = (x[0] - T::from(-1.0).unwrap());
    for i in 0..4 {
        q2 = q2 - (p1 + x[i]).sin() * T::from(0.5).unwrap();
        p1 = p1 + q2 * T::from(0.5).unwrap();
    }
    let (n3, n4) = helper_pair_on_duals(
        (q2 - q2).mul_add(x[1], (x[1]).atan()),
        (T::from(1.6).unwrap() - q2).tanh().exp(),
    );
    let n7 = (s + s);
    let f5 = |u: T, w: T| (u * n7 - w).tanh();
    let f6 = |u: T| f5(u, u * u) + n7;
    let n8 = f5(
        ((x[0]) * (x[0]) + T::one()).powf(x[1]).cos(),
        (x[2] + x[1]).mul_add((T::from(-0.1).unwrap() - x[1]), T::from(-1.4).unwrap()),
    ) + f6((x[2] + x[1]).mul_add((T::from(-0.1).unwrap() - x[1]), T::from(-1.4).unwrap()));
    n4 + n4
}

#[test]
fn program_31_matches_dual_numbers_and_finite_differences() {
    check(
        "program_31",
        point(31),
        &|p| program_31::primal(&p[..4], p[4]),
        &|p| program_31(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_31::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_31_on_duals(&d[..4], d[4]),
    );
    let p = point(31);
    let (value, (dx, ds)) = program_31::grad(&p[..4], p[4]);
    faces(
        "program_31",
        p,
        point(31 + 7),
        (value, &dx, ds),
        &|p, t| program_31::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_31::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_31_f64::grad(&p[..4], p[4]);
    same(
        "program_31_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_32<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut a1 = (s - s).min(s.max(T::from(0.6).unwrap()));
    a1 = a1 * T::from(0.0).unwrap()
        + (s + x[3])
            .max(
                x.iter()
                    .fold(T::zero(), |acc, v| acc * T::from(0.4).unwrap() + s),
            )
            .atan();
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (x[(j + 1) % 4]).max(a1).hypot(T::one()) < s {
                break 'outer;
            }
            a1 = (a1
                + x.windows(2)
                    .map(|w| (w[1] - w[0]) * T::from(1.7).unwrap())
                    .sum::<T>()
                    * x[i])
                .tanh();
        }
    }
    if s > (x[3]).max(s) {
        return (a1.floor() + (a1.sin()));
    }
    if let Some(v) = x.first() {
        a1 = a1 * T::from(-0.4).unwrap() + (*v).sin();
    }
    let (n2, n3) = helper_pair(s, (x[3]).cos().hypot(T::one()));
    s + a1
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_32_f64(x: &[f64], s: f64) -> f64 {
    let mut a1 = (s - s).min(s.max((0.6_f64)));
    a1 = a1 * (0.0_f64)
        + (s + x[3])
            .max(x.iter().fold(0.0, |acc, v| acc * (0.4_f64) + s))
            .atan();
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (x[(j + 1) % 4]).max(a1).hypot(1.0) < s {
                break 'outer;
            }
            a1 = (a1 + x.windows(2).map(|w| (w[1] - w[0]) * (1.7_f64)).sum::<f64>() * x[i]).tanh();
        }
    }
    if s > (x[3]).max(s) {
        return (a1.floor() + (a1.sin()));
    }
    if let Some(v) = x.first() {
        a1 = a1 * (-0.4_f64) + (*v).sin();
    }
    let (n2, n3) = helper_pair(s, (x[3]).cos().hypot(1.0));
    s + a1
}

#[allow(clippy::all, unused)]
fn program_32_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut a1 = (s - s).min(s.max(T::from(0.6).unwrap()));
    a1 = a1 * T::from(0.0).unwrap()
        + (s + x[3])
            .max(
                x.iter()
                    .fold(T::zero(), |acc, v| acc * T::from(0.4).unwrap() + s),
            )
            .atan();
    'outer: for i in 0..4 {
        for j in 0..4 {
            if (x[(j + 1) % 4]).max(a1).hypot(T::one()) < s {
                break 'outer;
            }
            a1 = (a1
                + x.windows(2)
                    .map(|w| (w[1] - w[0]) * T::from(1.7).unwrap())
                    .sum::<T>()
                    * x[i])
                .tanh();
        }
    }
    if s > (x[3]).max(s) {
        return (a1.floor() + (a1.sin()));
    }
    if let Some(v) = x.first() {
        a1 = a1 * T::from(-0.4).unwrap() + (*v).sin();
    }
    let (n2, n3) = helper_pair_on_duals(s, (x[3]).cos().hypot(T::one()));
    s + a1
}

#[test]
fn program_32_matches_dual_numbers_and_finite_differences() {
    check(
        "program_32",
        point(32),
        &|p| program_32::primal(&p[..4], p[4]),
        &|p| program_32(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_32::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_32_on_duals(&d[..4], d[4]),
    );
    let p = point(32);
    let (value, (dx, ds)) = program_32::grad(&p[..4], p[4]);
    faces(
        "program_32",
        p,
        point(32 + 7),
        (value, &dx, ds),
        &|p, t| program_32::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_32::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_32_f64::grad(&p[..4], p[4]);
    same(
        "program_32_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_33<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut p1 = T::from(0.5).unwrap();
    let mut q2 = (s * x[3]);
    for i in 0..4 {
        q2 = q2 - (p1 + x[i]).sin() * T::from(0.5).unwrap();
        p1 = p1 + q2 * T::from(0.5).unwrap();
    }
    let mut k3 = 0;
    while k3 < 3 {
        p1 = (p1 + (s.min(s)).tanh()).tanh();
        k3 += 1;
    }
    let n4 = (x[1]
        + x.iter()
            .map(|v| (*v).clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap()))
            .sum::<T>());
    let n5 =
        (T::from(-1.8).unwrap() / (T::from(1.5).unwrap() + (p1.cos()).cos() * (p1.cos()).cos()));
    (s * s).hypot(T::one()) + p1
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_33_f64(x: &[f64], s: f64) -> f64 {
    let mut p1 = (0.5_f64);
    let mut q2 = (s * x[3]);
    for i in 0..4 {
        q2 = q2 - (p1 + x[i]).sin() * (0.5_f64);
        p1 = p1 + q2 * (0.5_f64);
    }
    let mut k3 = 0;
    while k3 < 3 {
        p1 = (p1 + (s.min(s)).tanh()).tanh();
        k3 += 1;
    }
    let n4 = (x[1]
        + x.iter()
            .map(|v| (*v).clamp((-0.8_f64), (0.9_f64)))
            .sum::<f64>());
    let n5 = ((-1.8_f64) / ((1.5_f64) + (p1.cos()).cos() * (p1.cos()).cos()));
    (s * s).hypot(1.0) + p1
}

#[allow(clippy::all, unused)]
fn program_33_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut p1 = T::from(0.5).unwrap();
    let mut q2 = (s * x[3]);
    for i in 0..4 {
        q2 = q2 - (p1 + x[i]).sin() * T::from(0.5).unwrap();
        p1 = p1 + q2 * T::from(0.5).unwrap();
    }
    let mut k3 = 0;
    while k3 < 3 {
        p1 = (p1 + (s.min(s)).tanh()).tanh();
        k3 += 1;
    }
    let n4 = (x[1]
        + x.iter()
            .map(|v| (*v).clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap()))
            .sum::<T>());
    let n5 =
        (T::from(-1.8).unwrap() / (T::from(1.5).unwrap() + (p1.cos()).cos() * (p1.cos()).cos()));
    (s * s).hypot(T::one()) + p1
}

#[test]
fn program_33_matches_dual_numbers_and_finite_differences() {
    check(
        "program_33",
        point(33),
        &|p| program_33::primal(&p[..4], p[4]),
        &|p| program_33(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_33::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_33_on_duals(&d[..4], d[4]),
    );
    let p = point(33);
    let (value, (dx, ds)) = program_33::grad(&p[..4], p[4]);
    faces(
        "program_33",
        p,
        point(33 + 7),
        (value, &dx, ds),
        &|p, t| program_33::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_33::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_33_f64::grad(&p[..4], p[4]);
    same(
        "program_33_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_34<T: gradtape::Float>(x: &[T], s: T) -> T {
    let n3 = (T::from(-0.1).unwrap()).min(T::from(1.9).unwrap());
    let f1 = |u: T, w: T| (u * n3 - w).tanh();
    let f2 = |u: T| f1(u, u * u) + n3;
    let n4 = f1(((x[3]) * (x[3]) + T::one()).ln().tanh().exp(), s) + f2(s);
    let n5 = (x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>() + s).tanh();
    let mut a6 = s;
    a6 = a6 * T::from(-0.7).unwrap() + x[1];
    if (x
        .iter()
        .fold(T::zero(), |acc, v| acc * T::from(-0.6).unwrap() + *v)
        - T::from(0.6).unwrap())
        < s
    {
        a6 = x
            .iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>();
    } else {
        a6 = a6 - (s.tanh()).atan();
    }
    (n5.sin()).hypot(T::one()) + n3 + n4 + n5 + a6
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_34_f64(x: &[f64], s: f64) -> f64 {
    let n3 = (-0.1_f64).min((1.9_f64));
    let f1 = |u: f64, w: f64| (u * n3 - w).tanh();
    let f2 = |u: f64| f1(u, u * u) + n3;
    let n4 = f1(((x[3]) * (x[3]) + 1.0).ln().tanh().exp(), s) + f2(s);
    let n5 = (x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<f64>() + s).tanh();
    let mut a6 = s;
    a6 = a6 * (-0.7_f64) + x[1];
    if (x.iter().fold(0.0, |acc, v| acc * (-0.6_f64) + *v) - (0.6_f64)) < s {
        a6 = x
            .iter()
            .enumerate()
            .map(|(k, v)| *v * ((k + 1) as f64))
            .sum::<f64>();
    } else {
        a6 = a6 - (s.tanh()).atan();
    }
    (n5.sin()).hypot(1.0) + n3 + n4 + n5 + a6
}

#[allow(clippy::all, unused)]
fn program_34_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let n3 = (T::from(-0.1).unwrap()).min(T::from(1.9).unwrap());
    let f1 = |u: T, w: T| (u * n3 - w).tanh();
    let f2 = |u: T| f1(u, u * u) + n3;
    let n4 = f1(((x[3]) * (x[3]) + T::one()).ln().tanh().exp(), s) + f2(s);
    let n5 = (x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>() + s).tanh();
    let mut a6 = s;
    a6 = a6 * T::from(-0.7).unwrap() + x[1];
    if (x
        .iter()
        .fold(T::zero(), |acc, v| acc * T::from(-0.6).unwrap() + *v)
        - T::from(0.6).unwrap())
        < s
    {
        a6 = x
            .iter()
            .enumerate()
            .map(|(k, v)| *v * T::from(k + 1).unwrap())
            .sum::<T>();
    } else {
        a6 = a6 - (s.tanh()).atan();
    }
    (n5.sin()).hypot(T::one()) + n3 + n4 + n5 + a6
}

#[test]
fn program_34_matches_dual_numbers_and_finite_differences() {
    check(
        "program_34",
        point(34),
        &|p| program_34::primal(&p[..4], p[4]),
        &|p| program_34(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_34::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_34_on_duals(&d[..4], d[4]),
    );
    let p = point(34);
    let (value, (dx, ds)) = program_34::grad(&p[..4], p[4]);
    faces(
        "program_34",
        p,
        point(34 + 7),
        (value, &dx, ds),
        &|p, t| program_34::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_34::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_34_f64::grad(&p[..4], p[4]);
    same(
        "program_34_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_35<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut b1 = x.to_vec();
    b1[2] = b1[2] * s + x[3];
    let f2 = move |v: T| (T::from(1.6).unwrap()).atan().powi(2);
    let n3 = f2(x[3]);
    let n6 = b1[0];
    let f4 = |u: T, w: T| (u * n6 - w).tanh();
    let f5 = |u: T| f4(u, u * u) + n6;
    let n7 = f4((x[3]).tanh().exp().sin(), (x[3]).hypot(T::one()).sin())
        + f5((x[3]).hypot(T::one()).sin());
    f2((s * s + T::one()).powf(s)) + n7 + b1.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_35_f64(x: &[f64], s: f64) -> f64 {
    let mut b1 = x.to_vec();
    b1[2] = b1[2] * s + x[3];
    let f2 = move |v: f64| (1.6_f64).atan().powi(2);
    let n3 = f2(x[3]);
    let n6 = b1[0];
    let f4 = |u: f64, w: f64| (u * n6 - w).tanh();
    let f5 = |u: f64| f4(u, u * u) + n6;
    let n7 = f4((x[3]).tanh().exp().sin(), (x[3]).hypot(1.0).sin()) + f5((x[3]).hypot(1.0).sin());
    f2((s * s + 1.0).powf(s)) + n7 + b1.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_35_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut b1 = x.to_vec();
    b1[2] = b1[2] * s + x[3];
    let f2 = move |v: T| (T::from(1.6).unwrap()).atan().powi(2);
    let n3 = f2(x[3]);
    let n6 = b1[0];
    let f4 = |u: T, w: T| (u * n6 - w).tanh();
    let f5 = |u: T| f4(u, u * u) + n6;
    let n7 = f4((x[3]).tanh().exp().sin(), (x[3]).hypot(T::one()).sin())
        + f5((x[3]).hypot(T::one()).sin());
    f2((s * s + T::one()).powf(s)) + n7 + b1.iter().copied().sum::<T>()
}

#[test]
fn program_35_matches_dual_numbers_and_finite_differences() {
    check(
        "program_35",
        point(35),
        &|p| program_35::primal(&p[..4], p[4]),
        &|p| program_35(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_35::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_35_on_duals(&d[..4], d[4]),
    );
    let p = point(35);
    let (value, (dx, ds)) = program_35::grad(&p[..4], p[4]);
    faces(
        "program_35",
        p,
        point(35 + 7),
        (value, &dx, ds),
        &|p, t| program_35::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_35::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_35_f64::grad(&p[..4], p[4]);
    same(
        "program_35_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_36<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut a1 = x[3];
    let mut k2 = 0;
    while k2 < 3 {
        a1 = (a1 + ((T::from(-0.4).unwrap()).signum() * (x[1])).tanh().exp()).tanh();
        k2 += 1;
    }
    let n5 = a1;
    let f3 = |u: T, w: T| (u * n5 - w).tanh();
    let f4 = |u: T| f3(u, u * u) + n5;
    let n6 = f3(T::from(0.8).unwrap(), s) + f4(s);
    let n7 = helper_power(s.sin(), 2);
    let n8 = (x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>())
    .atan();
    let n9 = (T::from(-0.3).unwrap() + (x[3] + (x[1] * T::from(1.3).unwrap())));
    if ((x[2]) * (x[2]) + T::one()).sqrt().sin() < (n7 + T::from(-1.9).unwrap()) {
        a1 = x
            .iter()
            .map(|v| ((s + T::from(-0.5).unwrap()) + (T::from(-1.4).unwrap() + *v)))
            .sum::<T>();
    } else {
        a1 = a1 - x[0];
    }
    n6 + n9
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_36_f64(x: &[f64], s: f64) -> f64 {
    let mut a1 = x[3];
    let mut k2 = 0;
    while k2 < 3 {
        a1 = (a1 + ((-0.4_f64).signum() * (x[1])).tanh().exp()).tanh();
        k2 += 1;
    }
    let n5 = a1;
    let f3 = |u: f64, w: f64| (u * n5 - w).tanh();
    let f4 = |u: f64| f3(u, u * u) + n5;
    let n6 = f3((0.8_f64), s) + f4(s);
    let n7 = helper_power(s.sin(), 2);
    let n8 = (x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * ((k + 1) as f64))
        .sum::<f64>())
    .atan();
    let n9 = ((-0.3_f64) + (x[3] + (x[1] * (1.3_f64))));
    if ((x[2]) * (x[2]) + 1.0).sqrt().sin() < (n7 + (-1.9_f64)) {
        a1 = x
            .iter()
            .map(|v| ((s + (-0.5_f64)) + ((-1.4_f64) + *v)))
            .sum::<f64>();
    } else {
        a1 = a1 - x[0];
    }
    n6 + n9
}

#[allow(clippy::all, unused)]
fn program_36_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut a1 = x[3];
    let mut k2 = 0;
    while k2 < 3 {
        a1 = (a1 + ((T::from(-0.4).unwrap()).signum() * (x[1])).tanh().exp()).tanh();
        k2 += 1;
    }
    let n5 = a1;
    let f3 = |u: T, w: T| (u * n5 - w).tanh();
    let f4 = |u: T| f3(u, u * u) + n5;
    let n6 = f3(T::from(0.8).unwrap(), s) + f4(s);
    let n7 = helper_power_on_duals(s.sin(), 2);
    let n8 = (x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>())
    .atan();
    let n9 = (T::from(-0.3).unwrap() + (x[3] + (x[1] * T::from(1.3).unwrap())));
    if ((x[2]) * (x[2]) + T::one()).sqrt().sin() < (n7 + T::from(-1.9).unwrap()) {
        a1 = x
            .iter()
            .map(|v| ((s + T::from(-0.5).unwrap()) + (T::from(-1.4).unwrap() + *v)))
            .sum::<T>();
    } else {
        a1 = a1 - x[0];
    }
    n6 + n9
}

#[test]
fn program_36_matches_dual_numbers_and_finite_differences() {
    check(
        "program_36",
        point(36),
        &|p| program_36::primal(&p[..4], p[4]),
        &|p| program_36(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_36::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_36_on_duals(&d[..4], d[4]),
    );
    let p = point(36);
    let (value, (dx, ds)) = program_36::grad(&p[..4], p[4]);
    faces(
        "program_36",
        p,
        point(36 + 7),
        (value, &dx, ds),
        &|p, t| program_36::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_36::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_36_f64::grad(&p[..4], p[4]);
    same(
        "program_36_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_37<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut r3 = x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>();
    let mut k2 = 0;
    let n1 = loop {
        r3 = (r3 * T::from(0.7).unwrap()
            + x.iter()
                .enumerate()
                .map(|(k, v)| *v * T::from(k + 1).unwrap())
                .sum::<T>())
        .sin();
        k2 += 1;
        if k2 == 2 {
            break r3 * r3;
        }
    };
    let n4 = helper_soft(
        (x[2] * n1).cos(),
        ((x[2]).tanh().exp()
            / (T::from(1.5).unwrap()
                + (T::from(-0.4).unwrap()).cos() * (T::from(-0.4).unwrap()).cos())),
    );
    let n7 = (T::from(-0.2).unwrap() + s);
    let f5 = |u: T, w: T| (u * n7 - w).tanh();
    let f6 = |u: T| f5(u, u * u) + n7;
    let n8 = f5(s, n7.tanh().exp()) + f6(n7.tanh().exp());
    let mut p9 = (s - x[1]);
    let mut q10 = x[2];
    for i in 0..4 {
        q10 = q10 - (p9 + x[i]).sin() * T::from(0.1).unwrap();
        p9 = p9 + q10 * T::from(0.1).unwrap();
    }
    let (n11, n12) = helper_pair(x[0], T::from(0.6).unwrap());
    let n13 = (s.powi(3) - (x[3]).hypot(T::one()).sin());
    let n14 = x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>();
    (x[0]).max(n13).atan() + n1 + n4 + n8 + p9 + q10 + n11 + n12 + n13
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_37_f64(x: &[f64], s: f64) -> f64 {
    let mut r3 = x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * ((k + 1) as f64))
        .sum::<f64>();
    let mut k2 = 0;
    let n1 = loop {
        r3 = (r3 * (0.7_f64)
            + x.iter()
                .enumerate()
                .map(|(k, v)| *v * ((k + 1) as f64))
                .sum::<f64>())
        .sin();
        k2 += 1;
        if k2 == 2 {
            break r3 * r3;
        }
    };
    let n4 = helper_soft(
        (x[2] * n1).cos(),
        ((x[2]).tanh().exp() / ((1.5_f64) + (-0.4_f64).cos() * (-0.4_f64).cos())),
    );
    let n7 = ((-0.2_f64) + s);
    let f5 = |u: f64, w: f64| (u * n7 - w).tanh();
    let f6 = |u: f64| f5(u, u * u) + n7;
    let n8 = f5(s, n7.tanh().exp()) + f6(n7.tanh().exp());
    let mut p9 = (s - x[1]);
    let mut q10 = x[2];
    for i in 0..4 {
        q10 = q10 - (p9 + x[i]).sin() * (0.1_f64);
        p9 = p9 + q10 * (0.1_f64);
    }
    let (n11, n12) = helper_pair(x[0], (0.6_f64));
    let n13 = (s.powi(3) - (x[3]).hypot(1.0).sin());
    let n14 = x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * ((k + 1) as f64))
        .sum::<f64>();
    (x[0]).max(n13).atan() + n1 + n4 + n8 + p9 + q10 + n11 + n12 + n13
}

#[allow(clippy::all, unused)]
fn program_37_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut r3 = x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>();
    let mut k2 = 0;
    let n1 = loop {
        r3 = (r3 * T::from(0.7).unwrap()
            + x.iter()
                .enumerate()
                .map(|(k, v)| *v * T::from(k + 1).unwrap())
                .sum::<T>())
        .sin();
        k2 += 1;
        if k2 == 2 {
            break r3 * r3;
        }
    };
    let n4 = helper_soft_on_duals(
        (x[2] * n1).cos(),
        ((x[2]).tanh().exp()
            / (T::from(1.5).unwrap()
                + (T::from(-0.4).unwrap()).cos() * (T::from(-0.4).unwrap()).cos())),
    );
    let n7 = (T::from(-0.2).unwrap() + s);
    let f5 = |u: T, w: T| (u * n7 - w).tanh();
    let f6 = |u: T| f5(u, u * u) + n7;
    let n8 = f5(s, n7.tanh().exp()) + f6(n7.tanh().exp());
    let mut p9 = (s - x[1]);
    let mut q10 = x[2];
    for i in 0..4 {
        q10 = q10 - (p9 + x[i]).sin() * T::from(0.1).unwrap();
        p9 = p9 + q10 * T::from(0.1).unwrap();
    }
    let (n11, n12) = helper_pair_on_duals(x[0], T::from(0.6).unwrap());
    let n13 = (s.powi(3) - (x[3]).hypot(T::one()).sin());
    let n14 = x
        .iter()
        .enumerate()
        .map(|(k, v)| *v * T::from(k + 1).unwrap())
        .sum::<T>();
    (x[0]).max(n13).atan() + n1 + n4 + n8 + p9 + q10 + n11 + n12 + n13
}

#[test]
fn program_37_matches_dual_numbers_and_finite_differences() {
    check(
        "program_37",
        point(37),
        &|p| program_37::primal(&p[..4], p[4]),
        &|p| program_37(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_37::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_37_on_duals(&d[..4], d[4]),
    );
    let p = point(37);
    let (value, (dx, ds)) = program_37::grad(&p[..4], p[4]);
    faces(
        "program_37",
        p,
        point(37 + 7),
        (value, &dx, ds),
        &|p, t| program_37::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_37::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_37_f64::grad(&p[..4], p[4]);
    same(
        "program_37_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_38<T: gradtape::Float>(x: &[T], s: T) -> T {
    let n1 = helper_soft(
        (x[1]).hypot(T::one()),
        (x[3] * x[3]).mul_add((T::from(1.7).unwrap()).min(x[2]), (x[0] * x[1])),
    );
    let n2 = T::from(-0.9).unwrap();
    let mut a3 = (x
        .windows(2)
        .map(|w| (w[1] - w[0]) * T::from(-0.5).unwrap())
        .sum::<T>())
    .mul_add((x[3] + x[2]), (x[3]).cos());
    a3 = a3 * T::from(0.2).unwrap() + a3.min(T::from(0.8).unwrap());
    for pair in x.chunks(2) {
        a3 = a3 * T::from(-0.5).unwrap() + pair[0] * pair[1].tanh();
    }
    let mut b4 = vec![T::zero(); 4];
    for i in 0..4 {
        b4[i] = (x
            .iter()
            .fold(T::zero(), |acc, v| acc * T::from(0.1).unwrap() + *v)
            * (x[2]).sin());
    }
    let k5 = ((n2.max(a3)).signum() * (x[2]).tanh().exp());
    helper_smooth(&mut b4, k5);
    (x.windows(2)
        .map(|w| (w[1] - w[0]) * T::from(-1.9).unwrap())
        .sum::<T>())
    .max(((x[1]) * (x[1]) + T::one()).ln())
        + n2
        + a3
        + b4.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_38_f64(x: &[f64], s: f64) -> f64 {
    let n1 = helper_soft(
        (x[1]).hypot(1.0),
        (x[3] * x[3]).mul_add((1.7_f64).min(x[2]), (x[0] * x[1])),
    );
    let n2 = (-0.9_f64);
    let mut a3 = (x
        .windows(2)
        .map(|w| (w[1] - w[0]) * (-0.5_f64))
        .sum::<f64>())
    .mul_add((x[3] + x[2]), (x[3]).cos());
    a3 = a3 * (0.2_f64) + a3.min((0.8_f64));
    for pair in x.chunks(2) {
        a3 = a3 * (-0.5_f64) + pair[0] * pair[1].tanh();
    }
    let mut b4 = vec![0.0; 4];
    for i in 0..4 {
        b4[i] = (x.iter().fold(0.0, |acc, v| acc * (0.1_f64) + *v) * (x[2]).sin());
    }
    let k5 = ((n2.max(a3)).signum() * (x[2]).tanh().exp());
    helper_smooth(&mut b4, k5);
    (x.windows(2)
        .map(|w| (w[1] - w[0]) * (-1.9_f64))
        .sum::<f64>())
    .max(((x[1]) * (x[1]) + 1.0).ln())
        + n2
        + a3
        + b4.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_38_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let n1 = helper_soft_on_duals(
        (x[1]).hypot(T::one()),
        (x[3] * x[3]).mul_add((T::from(1.7).unwrap()).min(x[2]), (x[0] * x[1])),
    );
    let n2 = T::from(-0.9).unwrap();
    let mut a3 = (x
        .windows(2)
        .map(|w| (w[1] - w[0]) * T::from(-0.5).unwrap())
        .sum::<T>())
    .mul_add((x[3] + x[2]), (x[3]).cos());
    a3 = a3 * T::from(0.2).unwrap() + a3.min(T::from(0.8).unwrap());
    for pair in x.chunks(2) {
        a3 = a3 * T::from(-0.5).unwrap() + pair[0] * pair[1].tanh();
    }
    let mut b4 = vec![T::zero(); 4];
    for i in 0..4 {
        b4[i] = (x
            .iter()
            .fold(T::zero(), |acc, v| acc * T::from(0.1).unwrap() + *v)
            * (x[2]).sin());
    }
    let k5 = ((n2.max(a3)).signum() * (x[2]).tanh().exp());
    helper_smooth_on_duals(&mut b4, k5);
    (x.windows(2)
        .map(|w| (w[1] - w[0]) * T::from(-1.9).unwrap())
        .sum::<T>())
    .max(((x[1]) * (x[1]) + T::one()).ln())
        + n2
        + a3
        + b4.iter().copied().sum::<T>()
}

#[test]
fn program_38_matches_dual_numbers_and_finite_differences() {
    check(
        "program_38",
        point(38),
        &|p| program_38::primal(&p[..4], p[4]),
        &|p| program_38(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_38::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_38_on_duals(&d[..4], d[4]),
    );
    let p = point(38);
    let (value, (dx, ds)) = program_38::grad(&p[..4], p[4]);
    faces(
        "program_38",
        p,
        point(38 + 7),
        (value, &dx, ds),
        &|p, t| program_38::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_38::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_38_f64::grad(&p[..4], p[4]);
    same(
        "program_38_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_39<T: gradtape::Float>(x: &[T], s: T) -> T {
    let mut b1 = vec![T::zero(); 4];
    for i in 0..4 {
        b1[i] = (x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>()
            / (T::from(1.5).unwrap()
                + (x.iter().fold(T::zero(), |acc, v| {
                    acc * T::from(0.0).unwrap() + T::from(1.7).unwrap()
                })) * (x.iter().fold(T::zero(), |acc, v| {
                    acc * T::from(0.0).unwrap() + T::from(1.7).unwrap()
                }))));
    }
    for i in 1..4 {
        b1[i] = b1[i - 1] * T::from(-0.9).unwrap() + b1[i].tanh();
    }
    let f2 = move |v: T| v;
    let n3 = f2(x[1]);
    let n4 = b1[1];
    let k5 = (s.sin() + x[1]);
    helper_smooth(&mut b1, k5);
    let n6 = ((x[3] * x[2]).mul_add(T::from(-1.5).unwrap(), (T::from(-1.2).unwrap() + n4))
        / (T::from(1.5).unwrap() + (s + (x[2]).sin()) * (s + (x[2]).sin())));
    (x[2] - T::from(1.4).unwrap()).cos() + n3 + n4 + b1.iter().copied().sum::<T>()
}

#[differentiable]
#[allow(clippy::all, unused)]
fn program_39_f64(x: &[f64], s: f64) -> f64 {
    let mut b1 = vec![0.0; 4];
    for i in 0..4 {
        b1[i] = (x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<f64>()
            / ((1.5_f64)
                + (x.iter().fold(0.0, |acc, v| acc * (0.0_f64) + (1.7_f64)))
                    * (x.iter().fold(0.0, |acc, v| acc * (0.0_f64) + (1.7_f64)))));
    }
    for i in 1..4 {
        b1[i] = b1[i - 1] * (-0.9_f64) + b1[i].tanh();
    }
    let f2 = move |v: f64| v;
    let n3 = f2(x[1]);
    let n4 = b1[1];
    let k5 = (s.sin() + x[1]);
    helper_smooth(&mut b1, k5);
    let n6 = ((x[3] * x[2]).mul_add((-1.5_f64), ((-1.2_f64) + n4))
        / ((1.5_f64) + (s + (x[2]).sin()) * (s + (x[2]).sin())));
    (x[2] - (1.4_f64)).cos() + n3 + n4 + b1.iter().copied().sum::<f64>()
}

#[allow(clippy::all, unused)]
fn program_39_on_duals<
    T: num_traits::Float
        + std::iter::Sum
        + std::ops::AddAssign
        + std::ops::SubAssign
        + std::ops::MulAssign,
>(
    x: &[T],
    s: T,
) -> T {
    let mut b1 = vec![T::zero(); 4];
    for i in 0..4 {
        b1[i] = (x.iter().zip(x.iter()).map(|(a, b)| *a * *b).sum::<T>()
            / (T::from(1.5).unwrap()
                + (x.iter().fold(T::zero(), |acc, v| {
                    acc * T::from(0.0).unwrap() + T::from(1.7).unwrap()
                })) * (x.iter().fold(T::zero(), |acc, v| {
                    acc * T::from(0.0).unwrap() + T::from(1.7).unwrap()
                }))));
    }
    for i in 1..4 {
        b1[i] = b1[i - 1] * T::from(-0.9).unwrap() + b1[i].tanh();
    }
    let f2 = move |v: T| v;
    let n3 = f2(x[1]);
    let n4 = b1[1];
    let k5 = (s.sin() + x[1]);
    helper_smooth_on_duals(&mut b1, k5);
    let n6 = ((x[3] * x[2]).mul_add(T::from(-1.5).unwrap(), (T::from(-1.2).unwrap() + n4))
        / (T::from(1.5).unwrap() + (s + (x[2]).sin()) * (s + (x[2]).sin())));
    (x[2] - T::from(1.4).unwrap()).cos() + n3 + n4 + b1.iter().copied().sum::<T>()
}

#[test]
fn program_39_matches_dual_numbers_and_finite_differences() {
    check(
        "program_39",
        point(39),
        &|p| program_39::primal(&p[..4], p[4]),
        &|p| program_39(&p[..4], p[4]),
        &|p| {
            let (value, (dx, ds)) = program_39::grad(&p[..4], p[4]);
            (value, [dx, vec![ds]].concat())
        },
        &|d| program_39_on_duals(&d[..4], d[4]),
    );
    let p = point(39);
    let (value, (dx, ds)) = program_39::grad(&p[..4], p[4]);
    faces(
        "program_39",
        p,
        point(39 + 7),
        (value, &dx, ds),
        &|p, t| program_39::jvp(&p[..4], p[4], &t[..4], t[4]),
        &|p, dx, ds| program_39::grad_into(&p[..4], p[4], dx, ds),
    );
    let (value_f64, (dx_f64, ds_f64)) = program_39_f64::grad(&p[..4], p[4]);
    same(
        "program_39_f64",
        [value, ds].iter().chain(&dx),
        [value_f64, ds_f64].iter().chain(&dx_f64),
    );
}
