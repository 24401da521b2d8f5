//! The reverse sweep of a handful of 0-d nodes (W1's shape: a scalar loss of a few scalar
//! variables), with the gradients written straight into the results.
//!
//! The general sweep ([`super::backward::run`]) pays a fixed cost per gradient that such a
//! program feels more than its nodes: the sweep guard (two borrows of the tape), the
//! scratch taken from and given back to the thread's pool, the lists of target and source
//! nodes, the relevance marks, and the records moved out of the tape and back. Here the
//! cotangents live in a small array on the stack, the records are read in place under one
//! shared borrow, and each source's gradient is summed straight from the slots.
//!
//! Chosen only where it computes what the general sweep computes, bit for bit (see
//! [`sweep`] for the exact conditions, and the tests below, which run a corpus of small
//! programs through both): every node in the sweep's extent is a compact record
//! ([`ScalarNode`]) of the targets' dtype or a leaf, so the general sweep would only ever
//! multiply numbers by partials there, in the order this one does.

use super::backward::{Gradients, in_dtype, sum_in_dtype};
use super::structure::SourceKey;
use crate::base::dtype::AnyTensor;
use crate::base::tensor::Tensor;
use crate::record::node::{NO_NODE, NodeId, Record};
use crate::record::stack::{self, TapeCell};
use crate::record::state::TapeState;

/// At most this many nodes (the last target's node and everything before it): the slots
/// are an array on the stack and the symbolic zeros one bit each of a `u32`.
const FEW: usize = 16;

/// The sweep's cotangent slots: a number per node below [`FEW`], in the sweep's dtype
/// (`f32` if `SINGLE`, else `f64`), widened to `f64` as the general sweep's `Cot::Number`
/// holds it.
struct Slots<const SINGLE: bool> {
    value: [f64; FEW],
    /// Bit `i`: slot `i` holds a number. A slot never written is a symbolic zero
    /// (`Cot::Zero`), which is not a written 0: `-0.0` added to it stays `-0.0`, and a
    /// source whose slots are all unwritten has no gradient (`None`).
    set: u32,
}

impl<const SINGLE: bool> Slots<SINGLE> {
    /// `Cot::add_number` of `v` into slot `j`, exactly: the first number rounded to the
    /// dtype, each later one added in the dtype's own arithmetic.
    #[inline(always)]
    fn add(&mut self, j: usize, v: f64) {
        let bit = 1 << j;
        let slot = &mut self.value[j];
        if self.set & bit == 0 {
            *slot = in_dtype(SINGLE, v);
            self.set |= bit;
        } else {
            *slot = sum_in_dtype(SINGLE, *slot, v);
        }
    }

    /// Slot `i`'s number, if it holds one (`i` may be any node).
    #[inline(always)]
    fn get(&self, i: usize) -> Option<f64> {
        (i < FEW && self.set & (1 << i) != 0).then(|| self.value[i])
    }
}

#[cfg(test)]
thread_local! {
    /// Tests only: every sweep takes the general path (see `tests`).
    static FORCE_GENERAL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Tests only: how many sweeps this path has run on this thread.
    static TAKEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Runs the sweep of `targets` (each seeded with 1) back to `sources` and appends each
/// source's gradient to `out`, if the tape's records are of the kind this path handles;
/// returns `false`, having read nothing but the records and written nothing, if they are
/// not. The caller checked that the tape may be swept (`GradientTape::check_usable` or its
/// equivalent), and asks only for default seeds and no batch axes.
///
/// Taken exactly when (each of these is something the general sweep treats specially, or
/// a case whose rounding this path does not reproduce):
/// - nothing records on the thread (a recorded sweep holds tensors, so that its sums are
///   recorded for higher order), and the tape itself is not recording (a persistent tape
///   differentiated inside its own scope runs each node's general rule, which may round
///   differently from the partials: `g / y` against `(1 / y) · g`);
/// - the tape is not in anomaly mode (its sweep checks each cotangent);
/// - there is at least one target, every target is a 0-d inline value of one dtype and
///   is a node of this tape below [`FEW`] (a target off the tape is seeded straight into
///   a source equal to it, TensorFlow's `gradient(x, x)`: the general path's `direct`);
/// - every general node on the tape is a leaf, and every compact record below the last
///   target's node that a cotangent reaches is of the targets' dtype: no general rule
///   (custom gradients, fused calls, casts, negation, array ops) would run, no saved value
///   or captured state is dropped on the way, and every cotangent is a number of one
///   dtype. (A compact record no cotangent reaches is skipped, as the general sweep
///   skips it.)
///
/// Every node below the end is swept, where the general sweep skips those no source
/// descends to (`mark_relevant`): a node's cotangent flows only into its inputs, and a node
/// with an input that descends from a source descends from it too, so what the extra
/// nodes compute never reaches a slot a source reads.
pub(super) fn sweep(
    tape: &TapeCell,
    targets: &[AnyTensor],
    sources: &[SourceKey],
    out: &mut Gradients,
) -> bool {
    #[cfg(test)]
    if FORCE_GENERAL.with(std::cell::Cell::get) {
        return false;
    }
    if stack::any_recording() {
        return false;
    }
    let state = tape.borrow();
    // (every general node a leaf: leaves are the general nodes `push_leaf` counts, so
    // the counts are equal exactly when no other general node is on the tape)
    if state.check_numerics || state.is_recording() || state.general.len() != state.leaf_count {
        return false;
    }
    match targets.first() {
        Some(AnyTensor::F32(_)) => sweep_in::<true>(&state, targets, sources, out),
        Some(AnyTensor::F64(_)) => sweep_in::<false>(&state, targets, sources, out),
        None => false,
    }
}

/// [`sweep`] in one dtype, the first target's (`f32` if `SINGLE`).
#[inline(always)]
fn sweep_in<const SINGLE: bool>(
    state: &TapeState,
    targets: &[AnyTensor],
    sources: &[SourceKey],
    out: &mut Gradients,
) -> bool {
    let mut slots = Slots::<SINGLE> {
        value: [0.0; FEW],
        set: 0,
    };
    // One past the last target's node: the sweep's extent.
    let mut end = 0;
    // Seeded in the targets' order, as the general sweep adds its seeds.
    for target in targets {
        let zero_d = match target {
            AnyTensor::F32(t) => SINGLE && t.as_inline_scalar().is_some(),
            AnyTensor::F64(t) => !SINGLE && t.as_inline_scalar().is_some(),
        };
        // (`NO_NODE` is past `FEW`)
        let node = state.lookup(target.id()) as usize;
        if !zero_d || node >= FEW {
            return false;
        }
        end = end.max(node + 1);
        slots.add(node, 1.0);
    }
    let records = state.records();
    let below = &records.records[..end];
    for i in (0..end).rev() {
        // (no cotangent: nothing to pass on, as the general sweep passes nothing)
        let Some(g) = slots.get(i) else {
            continue;
        };
        let Record::Scalar(ref node) = below[i] else {
            // (a leaf: see the caller's test)
            debug_assert!(records.is_leaf(i), "every general node is a leaf");
            continue;
        };
        if node.single != SINGLE {
            return false;
        }
        // `step_scalar`: `∂ₖ · g` into each tracked input, in input order.
        let inputs = if node.binary { 2 } else { 1 };
        for k in 0..inputs {
            let j = node.inputs[k];
            if j != NO_NODE {
                slots.add(j as usize, node.partials[k] * g);
            }
        }
    }
    // `gather`: each source's gradient is the sum of its nodes' cotangents, in the order
    // its nodes were recorded (a variable's reads), rounded as the general sum rounds.
    for source in sources {
        let mut total = None;
        let mut add = |node: NodeId| {
            // (the general sweep's slots end at `end`: a source's node past it adds nothing)
            if (node as usize) < end
                && let Some(v) = slots.get(node as usize)
            {
                // (rounding a slot's number again changes nothing; the general sum does
                // it, so this does too)
                total = Some(match total {
                    None => in_dtype(SINGLE, v),
                    Some(t) => sum_in_dtype(SINGLE, t, v),
                });
            }
        };
        match source {
            SourceKey::Tensor(t) => match state.lookup(t.id()) {
                NO_NODE => {}
                node => add(node),
            },
            SourceKey::Variable(v) => {
                if let Some(index) = state.variable_index(v.id()) {
                    for &node in &state.variables[index].leaves {
                        add(node);
                    }
                }
            }
        }
        out.push(total.map(|v| {
            if SINGLE {
                // exact: the value is an `f32` widened
                AnyTensor::F32(Tensor::scalar(v as f32))
            } else {
                AnyTensor::F64(Tensor::scalar(v))
            }
        }));
    }
    #[cfg(test)]
    TAKEN.with(|taken| taken.set(taken.get() + 1));
    true
}

/// Every program of the corpus runs twice: as it comes (this path where it applies) and
/// with every sweep forced onto the general path; the gradients (and errors) must be the
/// same to the bit, and this path must have run exactly where the program expects it.
#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::{FORCE_GENERAL, TAKEN};
    use crate::{
        AnyTensor, Float, GradientOptions, GradientTape, Tensor, UnconnectedGradients, Variable,
        custom_gradient, without_recording,
    };

    /// Which path a program's sweeps take.
    #[derive(Clone, Copy, Debug)]
    enum Path {
        /// This one, this many times.
        Few(usize),
        /// The general one, every time.
        General,
    }

    /// A gradient's bits, dtype-tagged (`None` for no gradient).
    fn bits<T: Float>(grads: &[Option<Tensor<T>>]) -> Vec<Option<(&'static str, u64)>> {
        grads
            .iter()
            .map(|g| {
                g.as_ref().map(|g| match T::into_any(g.clone()) {
                    AnyTensor::F32(t) => ("f32", u64::from(t.to_scalar().to_bits())),
                    AnyTensor::F64(t) => ("f64", t.to_scalar().to_bits()),
                })
            })
            .collect()
    }

    /// Runs `program` both ways and compares what it printed (gradients as bits).
    fn check(name: &str, expect: Path, program: impl Fn() -> String) {
        let taken = || TAKEN.with(Cell::get);
        let before = taken();
        let fast = program();
        let ran = taken() - before;
        FORCE_GENERAL.with(|force| force.set(true));
        let general = program();
        FORCE_GENERAL.with(|force| force.set(false));
        assert_eq!(fast, general, "{name}: this path against the general sweep");
        match expect {
            Path::Few(n) => assert_eq!(ran, n, "{name}: sweeps this path should have run"),
            Path::General => assert_eq!(ran, 0, "{name}: this path should not have run"),
        }
    }

    /// The unary primitives of the vocabulary, each as a function of a 0-d tensor.
    macro_rules! unary_table {
        ($($name:ident: $saved:ident,)*) => {
            fn unary_ops<T: Float>() -> Vec<(&'static str, fn(&Tensor<T>) -> Tensor<T>)> {
                vec![$((stringify!($name), |x: &Tensor<T>| x.$name())),*]
            }
        };
    }
    gradtape_primitives::elementwise_unary!(unary_table);

    /// The two-operand and parametrised 0-d ops, and compositions of them.
    type Binary<T> = fn(&Tensor<T>, &Tensor<T>) -> Tensor<T>;

    fn binary_ops<T: Float>() -> Vec<(&'static str, Binary<T>)> {
        let ops: [(&'static str, Binary<T>); 28] = [
            ("add", |x, z| x + z),
            ("sub", |x, z| x - z),
            ("mul", |x, z| x * z),
            ("div", |x, z| x / z),
            ("rem", |x, z| x % z),
            ("rem_euclid", |x, z| x.rem_euclid(z)),
            ("maximum", |x, z| x.maximum(z)),
            ("minimum", |x, z| x.minimum(z)),
            ("maximum of a tie", |x, _| x.maximum(x)),
            ("atan2", |x, z| x.atan2(z)),
            ("hypot", |x, z| x.hypot(z)),
            ("pow", |x, z| x.pow(z)),
            ("log", |x, z| x.log(z)),
            ("x times x", |x, _| x * x),
            ("powi 3", |x, _| x.powi(3)),
            ("powi 0", |x, _| x.powi(0)),
            ("powf", |x, z| x.powf(T::from_f64(2.5)) * z),
            ("neg", |x, z| -x + z),
            ("scale by -0", |x, z| {
                x * T::from_f64(-0.0) + z * T::from_f64(0.0)
            }),
            ("number minus", |x, z| {
                (x - T::from_f64(1.0)) * (z + T::from_f64(2.0))
            }),
            ("clamp", |x, z| x.clamp(T::from_f64(0.0), z)),
            ("mul_add", |x, z| x.mul_add(z, x)),
            // (recorded with a gradient of zeros, as TensorFlow registers it)
            ("sign", |x, z| x.sign() * z + x),
            // (not recorded at all: no gradient)
            ("floor", |x, z| x.floor() * z + z),
            ("round", |x, z| x.round() * z + x.ceil()),
            ("trunc", |x, _| x.trunc() * x),
            ("ln of a negative", |x, z| {
                (z - x * T::from_f64(3.0)).ln() * z
            }),
            ("sums of shared reads", |x, z| {
                let s = x.sin();
                (&s * z + s.cos() * x) / (z * z + s)
            }),
        ];
        ops.into()
    }

    fn tape_with<T: Float>(watched: &[&Tensor<T>]) -> GradientTape {
        let tape = GradientTape::new();
        for &x in watched {
            tape.watch(x);
        }
        tape
    }

    fn every_op<T: Float>() {
        for (name, op) in unary_ops::<T>() {
            let x0 = if name == "acosh" { 1.6 } else { 0.6 };
            check(name, Path::Few(1), || {
                let x = Tensor::scalar(T::from_f64(x0));
                let tape = tape_with(&[&x]);
                let y = tape.record(|| op(&x) * &x + op(&(&x * T::from_f64(0.5))));
                format!("{:?}", bits(&[tape.gradient(&y, &x).unwrap()]))
            });
        }
        for (name, op) in binary_ops::<T>() {
            // (negation's rule is written on tensors: a general node, the general sweep)
            let expect = if name == "neg" {
                Path::General
            } else {
                Path::Few(1)
            };
            check(name, expect, || {
                let (x, z) = (
                    Tensor::scalar(T::from_f64(0.7)),
                    Tensor::scalar(T::from_f64(1.3)),
                );
                let tape = tape_with(&[&x, &z]);
                let y = tape.record(|| op(&x, &z));
                format!("{:?}", bits(&tape.gradient(&y, [&x, &z]).unwrap()))
            });
        }
    }

    #[test]
    fn every_0d_op_in_f32_and_f64() {
        every_op::<f32>();
        every_op::<f64>();
    }

    #[test]
    fn variables_read_several_times() {
        // W1, and a variable read three times among others
        check("W1", Path::Few(1), || {
            let (w1, w2) = (Variable::new(5.0_f32), Variable::new(3.0_f32));
            let tape = GradientTape::new();
            let z = tape.record(|| 3.0 * w1.powi(2) + 2.0 * &w1 * &w2);
            format!("{:?}", bits(&tape.gradient(&z, [&w1, &w2]).unwrap()))
        });
        check("three reads, f64", Path::Few(1), || {
            let (a, b) = (Variable::new(0.3_f64), Variable::new(-1.7_f64));
            let tape = GradientTape::new();
            let z = tape.record(|| a.sin() * &b + a.exp() / (&a * &b));
            format!("{:?}", bits(&tape.gradient(&z, [&a, &b]).unwrap()))
        });
        check("variables and tensors as sources", Path::Few(1), || {
            let w = Variable::new(0.25_f32);
            let x = Tensor::scalar(2.0_f32);
            let tape = tape_with(&[&x]);
            let z = tape.record(|| (&w * &x).tanh() + x.square() * &w);
            let (gw, gx) = tape.gradient(&z, (&w, &x)).unwrap();
            format!("{:?} {:?}", bits(&[gw]), bits(&[gx]))
        });
        check("an assign between reads", Path::Few(1), || {
            let w = Variable::new(1.5_f64);
            let tape = GradientTape::new();
            let z = tape.record(|| {
                let first = w.value().sin();
                w.assign(-0.5);
                first * w.value().cos()
            });
            format!("{:?}", bits(&[tape.gradient(&z, &w).unwrap()]))
        });
    }

    #[test]
    fn unconnected_sources() {
        let program = |options: fn() -> GradientOptions| {
            move || {
                let (w, unused) = (Variable::new(0.5_f32), Variable::new(1.0_f32));
                let (x, watched, plain) = (
                    Tensor::scalar(1.5_f32),
                    Tensor::scalar(2.5_f32),
                    Tensor::scalar(3.5_f32),
                );
                let tape = tape_with(&[&x, &watched]);
                let y = tape.record(|| (&w * &x).sin() + &plain);
                let grads = tape.gradient_with(&y, [&w, &unused], options()).unwrap();
                // (a second tape: a non-persistent one answers once)
                let tape2 = tape_with(&[&x, &watched]);
                let y2 = tape2.record(|| x.cos() * &plain);
                let tensors = tape2
                    .gradient_with(&y2, [&x, &watched, &plain, &y], options())
                    .unwrap();
                format!("{:?} {:?}", bits(&grads), bits(&tensors))
            }
        };
        check(
            "unconnected as None",
            Path::Few(2),
            program(GradientOptions::new),
        );
        check(
            "unconnected as zeros",
            Path::Few(2),
            program(|| GradientOptions::new().unconnected(UnconnectedGradients::Zero)),
        );
        check("gradient_connected's error", Path::Few(1), || {
            let (w, unused) = (Variable::new(0.5_f64), Variable::with_name("u", 1.0_f64));
            let tape = GradientTape::new();
            let y = tape.record(|| w.sin());
            format!(
                "{:?}",
                tape.gradient_connected(&y, [&w, &unused]).map(|_| ())
            )
        });
        check(
            "a target off the tape that is a source",
            Path::General,
            || {
                let x = Tensor::scalar(1.5_f64);
                let tape = GradientTape::new();
                format!("{:?}", bits(&[tape.gradient(&x, &x).unwrap()]))
            },
        );
        check("a watched target that is a source", Path::Few(1), || {
            let x = Tensor::scalar(1.5_f64);
            let tape = tape_with(&[&x]);
            format!("{:?}", bits(&[tape.gradient(&x, &x).unwrap()]))
        });
    }

    #[test]
    fn persistent_tapes_and_several_targets() {
        check("a persistent tape used twice", Path::Few(2), || {
            let (a, b) = (Variable::new(0.8_f32), Variable::new(-0.4_f32));
            let tape = GradientTape::persistent();
            let (y, z) = tape.record(|| {
                let y = a.sinh() * &b;
                (y.clone(), &y / b.exp())
            });
            let first = tape.gradient(&z, [&a, &b]).unwrap();
            let second = tape.gradient(&y, [&b, &a]).unwrap();
            format!("{:?} {:?}", bits(&first), bits(&second))
        });
        check("two targets, summed", Path::Few(1), || {
            let x = Tensor::scalar(0.9_f64);
            let tape = tape_with(&[&x]);
            let (y, z) = tape.record(|| (x.atan(), x.sqrt() * &x));
            format!("{:?}", bits(&[tape.gradient(&[&y, &z], &x).unwrap()]))
        });
        check("a paused stretch inside the scope", Path::Few(1), || {
            let x = Tensor::scalar(0.9_f32);
            let tape = tape_with(&[&x]);
            let y = tape.record(|| {
                let a = x.sin();
                let c = tape.stop_recording(|| a.cos());
                let d = without_recording(|| &a * 3.0);
                a * c + d
            });
            format!("{:?}", bits(&[tape.gradient(&y, &x).unwrap()]))
        });
    }

    #[test]
    fn what_the_general_sweep_keeps() {
        check("second order: nested tapes", Path::General, || {
            let x = Tensor::scalar(0.7_f64);
            let outer = tape_with(&[&x]);
            let g = outer.record(|| {
                let inner = tape_with(&[&x]);
                let y = inner.record(|| x.sin() * &x);
                inner.gradient(&y, &x).unwrap().unwrap()
            });
            format!("{:?}", bits(&[outer.gradient(&g, &x).unwrap()]))
        });
        check("inside its own scope", Path::General, || {
            let x = Tensor::scalar(0.7_f32);
            let tape = GradientTape::persistent();
            tape.watch(&x);
            let g = tape.record(|| {
                let y = &x / x.cos();
                tape.gradient(&y, &x).unwrap()
            });
            format!("{:?}", bits(&[g]))
        });
        check("anomaly mode", Path::General, || {
            let x = Tensor::scalar(0.7_f32);
            let tape = GradientTape::builder().check_numerics(true).build();
            tape.watch(&x);
            let y = tape.record(|| x.sin() * &x);
            format!("{:?}", bits(&[tape.gradient(&y, &x).unwrap()]))
        });
        check("a cast", Path::General, || {
            let x = Tensor::scalar(0.7_f32);
            let tape = tape_with(&[&x]);
            let y = tape.record(|| x.sin().cast::<f64>().exp());
            format!("{:?}", bits(&[tape.gradient(&y, &x).unwrap()]))
        });
        check("a custom gradient", Path::General, || {
            let x = Tensor::scalar(0.7_f64);
            let tape = tape_with(&[&x]);
            let y = tape.record(|| {
                let c = custom_gradient("twice", &[&x], |xs| {
                    (&xs[0] * 2.0, |g: &Tensor<f64>| vec![Some(g * 3.0)])
                });
                c.sin()
            });
            format!("{:?}", bits(&[tape.gradient(&y, &x).unwrap()]))
        });
        check("more nodes than a few", Path::General, || {
            let x = Tensor::scalar(0.7_f32);
            let tape = tape_with(&[&x]);
            let y = tape.record(|| (0..20).fold(x.clone(), |y, _| y.sin() * 0.9 + &x));
            format!("{:?}", bits(&[tape.gradient(&y, &x).unwrap()]))
        });
        check("an array target", Path::General, || {
            let x = Tensor::scalar(0.7_f32);
            let tape = tape_with(&[&x]);
            let y = tape.record(|| x.sin().reshape(&[1]));
            format!("{:?}", bits(&[tape.gradient(&y, &x).unwrap()]))
        });
        check("seeds given", Path::General, || {
            let x = Tensor::scalar(0.7_f32);
            let tape = tape_with(&[&x]);
            let y = tape.record(|| x.sin());
            let options = GradientOptions::new().output_gradients([Tensor::scalar(2.0_f32)]);
            format!(
                "{:?}",
                bits(&[tape.gradient_with(&y, &x, options).unwrap()])
            )
        });
        check("targets of two dtypes", Path::General, || {
            let (x, z) = (Tensor::scalar(0.7_f32), Tensor::scalar(0.7_f64));
            let tape = GradientTape::new();
            tape.watch(&x);
            tape.watch(&z);
            let (y, w) = tape.record(|| (x.sin(), z.cos()));
            let targets = [AnyTensor::F32(y), AnyTensor::F64(w)];
            let (gx, gz) = tape.gradient(&targets[..], (&x, &z)).unwrap();
            format!("{:?} {:?}", bits(&[gx]), bits(&[gz]))
        });
        check("a chain of the other dtype beside", Path::Few(1), || {
            // (the f64 nodes get no cotangent from the f32 target: skipped, as the general
            // sweep skips them)
            let (x, z) = (Tensor::scalar(0.7_f32), Tensor::scalar(0.7_f64));
            let tape = GradientTape::new();
            tape.watch(&x);
            tape.watch(&z);
            let y = tape.record(|| {
                let _beside = z.cos() * &z;
                x.sin()
            });
            let (gx, gz) = tape.gradient(&y, (&x, &z)).unwrap();
            format!("{:?} {:?}", bits(&[gx]), bits(&[gz]))
        });
    }
}
