//! Differentiable structs passed on whole (issue 13, "Structs and methods"): a struct
//! parameter marked `#[differentiable]`, or a field of one holding a struct or an array,
//! handed to another annotated function (`dense(&model.hidden, x)`) or method
//! (`self.first.forward(x)`), its gradient coming back through the callee's own gradient
//! of that struct. Each function is checked through every face (`f`, `primal`, `grad`,
//! `grad_into`, `jvp`) against central differences and, where smooth, at second order;
//! one is checked to the bit against the same model written over its fields as
//! parameters of their own.
//!
//! The kinds: a two-layer model of dense layers, a residual layer passing itself on, a
//! weight decay over a `Vec` and an array field passed to a slice function, a network whose
//! `&self` method calls its layers' methods, a model three structs deep (a sub-struct
//! passed whole and one of its floats read too), generic layers at `f32` and `f64`, two
//! springs of a system, a recurrent cell called in a loop, annotated callers holding the
//! struct constant, a model's `loss` passing its own `self` on, layers passed on in
//! branches (one of them twice on a path, its two gradients summed), and layers behind a
//! `Box` (passed on and called through it, generic too), also against a tape.

#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use common::close;
use common::faces::{Case, point};
use gradtape::{Differentiable, GradientTape, Tensor, differentiable};
use num_traits::Float;

/// A struct's floats, in order, and back.
trait Flat: Sized {
    fn to_flat(&self) -> Vec<f64>;
    /// The struct from the first floats of `x` (its shape and constants from `like`), and
    /// how many it took.
    fn from_flat(x: &[f64], like: &Self) -> (Self, usize);
}

/// The faces of a function of one struct (its other inputs fixed), as a [`Case`] over the
/// struct's floats.
struct Faces<'a, S> {
    name: &'a str,
    like: &'a S,
    itself: &'a dyn Fn(&S) -> f64,
    primal: &'a dyn Fn(&S) -> f64,
    grad: &'a dyn Fn(&S) -> (f64, S),
    grad_into: &'a dyn Fn(&S, &mut S) -> f64,
    jvp: &'a dyn Fn(&S, &S) -> (f64, f64),
}

impl<S: Flat + Differentiable> Faces<'_, S> {
    fn check(&self, seed: u64, second_order: bool) {
        let like = self.like;
        let of = |x: &[f64]| S::from_flat(x, like).0;
        let grad = |x: &[f64]| {
            let (value, d) = (self.grad)(&of(x));
            (value, d.to_flat())
        };
        let case = Case {
            name: self.name,
            itself: &|x| (self.itself)(&of(x)),
            primal: &|x| (self.primal)(&of(x)),
            grad: Some(&grad),
            grad_into: &|x| {
                let s = of(x);
                let mut d = s.zero_like();
                let value = (self.grad_into)(&s, &mut d);
                (value, d.to_flat())
            },
            jvp: &|x, t| (self.jvp)(&of(x), &of(t)),
        };
        let x = point(like.to_flat().len(), seed, -0.9, 0.9);
        if second_order {
            case.check_with_second_order(&x);
        } else {
            case.check(&x);
        }
        // `grad_into` accumulates: twice is twice the gradient
        let s = of(&x);
        let mut d = s.zero_like();
        (self.grad_into)(&s, &mut d);
        (self.grad_into)(&s, &mut d);
        let once = grad(&x).1;
        for (twice, once) in d.to_flat().iter().zip(&once) {
            // (the partial sums may be added in another order)
            assert!(
                (twice - 2.0 * once).abs() <= 1e-14 * once.abs().max(1.0),
                "{}: grad_into accumulates: {twice} after two calls, {once} after one",
                self.name
            );
        }
    }
}

// ----- layers passed on to an annotated function -----

#[derive(Differentiable, Debug, Clone)]
struct Dense {
    w: Vec<f64>,
    b: f64,
}

impl Flat for Dense {
    fn to_flat(&self) -> Vec<f64> {
        let mut out = self.w.clone();
        out.push(self.b);
        out
    }
    fn from_flat(x: &[f64], like: &Self) -> (Self, usize) {
        let n = like.w.len();
        (
            Dense {
                w: x[..n].to_vec(),
                b: x[n],
            },
            n + 1,
        )
    }
}

#[differentiable]
fn dense(#[differentiable] layer: &Dense, x: &[f64]) -> f64 {
    let mut s = layer.b;
    for i in 0..x.len() {
        s += layer.w[i] * x[i];
    }
    s.tanh()
}

#[derive(Differentiable, Debug, Clone)]
struct TwoLayer {
    hidden: Dense,
    out: Dense,
    scale: f64,
    name: String,
}

impl Flat for TwoLayer {
    fn to_flat(&self) -> Vec<f64> {
        let mut out = self.hidden.to_flat();
        out.extend(self.out.to_flat());
        out.push(self.scale);
        out
    }
    fn from_flat(x: &[f64], like: &Self) -> (Self, usize) {
        let (hidden, a) = Dense::from_flat(x, &like.hidden);
        let (out, b) = Dense::from_flat(&x[a..], &like.out);
        let scale = x[a + b];
        let name = like.name.clone();
        let model = TwoLayer {
            hidden,
            out,
            scale,
            name,
        };
        (model, a + b + 1)
    }
}

#[differentiable]
fn two_layer(#[differentiable] m: &TwoLayer, x: &[f64]) -> f64 {
    let h = dense(&m.hidden, x);
    let features = [h, h * h];
    dense(&m.out, &features) * m.scale
}

/// The same model over the layers' fields as parameters of their own (the form written
/// before structs could be passed on).
#[differentiable]
fn dense_fields(w: &[f64], b: f64, x: &[f64]) -> f64 {
    let mut s = b;
    for i in 0..x.len() {
        s += w[i] * x[i];
    }
    s.tanh()
}

#[differentiable]
fn two_layer_fields(hw: &[f64], hb: f64, ow: &[f64], ob: f64, scale: f64, x: &[f64]) -> f64 {
    let h = dense_fields(hw, hb, x);
    let features = [h, h * h];
    dense_fields(ow, ob, &features) * scale
}

fn a_two_layer_model() -> TwoLayer {
    TwoLayer {
        hidden: Dense {
            w: vec![0.3, -0.2, 0.5],
            b: 0.1,
        },
        out: Dense {
            w: vec![0.7, -0.4],
            b: -0.3,
        },
        scale: 1.3,
        name: "mlp".into(),
    }
}

#[test]
fn sub_structs_passed_to_an_annotated_function() {
    let like = a_two_layer_model();
    let x = [0.5, -1.5, 0.25];
    Faces {
        name: "two_layer",
        like: &like,
        itself: &|m| two_layer(m, &x),
        primal: &|m| two_layer::primal(m, &x),
        grad: &|m| {
            let (value, (d_m, _)) = two_layer::grad(m, &x);
            assert_eq!(d_m.name, "mlp", "a constant field is a copy");
            (value, d_m)
        },
        grad_into: &|m, d| two_layer::grad_into(m, &x, d, &mut [0.0; 3]),
        jvp: &|m, t| two_layer::jvp(m, &x, t, &[0.0; 3]),
    }
    .check(1, true);

    // to the bit against the fields as parameters
    let m = &like;
    let (value, (d_m, d_x)) = two_layer::grad(m, &x);
    let (by_fields, [d_hw, d_hb, d_ow, d_ob, d_scale, d_x2]) = {
        let (value, pullback) =
            two_layer_fields::vjp(&m.hidden.w, m.hidden.b, &m.out.w, m.out.b, m.scale, &x);
        let g = pullback(1.0);
        (
            value,
            [
                g.0.unwrap(),
                vec![g.1.unwrap()],
                g.2.unwrap(),
                vec![g.3.unwrap()],
                vec![g.4.unwrap()],
                g.5.unwrap(),
            ],
        )
    };
    let bits = |v: &[f64]| v.iter().map(|g| g.to_bits()).collect::<Vec<_>>();
    assert_eq!(value.to_bits(), by_fields.to_bits());
    let fields_value = two_layer_fields(&m.hidden.w, m.hidden.b, &m.out.w, m.out.b, m.scale, &x);
    assert_eq!(value.to_bits(), fields_value.to_bits());
    assert_eq!(bits(&d_m.hidden.w), bits(&d_hw));
    assert_eq!(bits(&[d_m.hidden.b]), bits(&d_hb));
    assert_eq!(bits(&d_m.out.w), bits(&d_ow));
    assert_eq!(bits(&[d_m.out.b]), bits(&d_ob));
    assert_eq!(bits(&[d_m.scale]), bits(&d_scale));
    assert_eq!(bits(&d_x), bits(&d_x2));
}

// ----- the marked parameter itself passed on -----

#[differentiable]
fn residual(#[differentiable] layer: &Dense, x: &[f64]) -> f64 {
    // the layer passed on whole, and one of its fields read here too
    dense(layer, x) + layer.b * layer.b
}

#[test]
fn a_struct_parameter_passed_on_whole() {
    let like = Dense {
        w: vec![0.4, -0.6],
        b: 0.2,
    };
    let x = [1.5, 0.5];
    Faces {
        name: "residual",
        like: &like,
        itself: &|l| residual(l, &x),
        primal: &|l| residual::primal(l, &x),
        grad: &|l| {
            let (value, (d_l, _)) = residual::grad(l, &x);
            (value, d_l)
        },
        grad_into: &|l, d| residual::grad_into(l, &x, d, &mut [0.0; 2]),
        jvp: &|l, t| residual::jvp(l, &x, t, &[0.0; 2]),
    }
    .check(2, true);
    // by hand: d/db = (1 - tanh²(s)) + 2b
    let s: f64 = like.b + 0.4 * 1.5 - 0.6 * 0.5;
    let (_, (d_l, d_x)) = residual::grad(&like, &x);
    assert!((d_l.b - ((1.0 - s.tanh().powi(2)) + 2.0 * like.b)).abs() < 1e-15);
    assert!((d_x[0] - (1.0 - s.tanh().powi(2)) * 0.4).abs() < 1e-15);
}

// ----- array fields passed to a slice function -----

#[differentiable]
fn sum_of_squares(v: &[f64]) -> f64 {
    let mut total = 0.0;
    for x in v {
        total += x * x;
    }
    total
}

#[derive(Differentiable, Debug, Clone)]
struct Regularised {
    w: Vec<f64>,
    anchors: [f64; 3],
    lambda: f64,
}

impl Flat for Regularised {
    fn to_flat(&self) -> Vec<f64> {
        let mut out = self.w.clone();
        out.extend(self.anchors);
        out.push(self.lambda);
        out
    }
    fn from_flat(x: &[f64], like: &Self) -> (Self, usize) {
        let n = like.w.len();
        let r = Regularised {
            w: x[..n].to_vec(),
            anchors: [x[n], x[n + 1], x[n + 2]],
            lambda: x[n + 3],
        };
        (r, n + 4)
    }
}

#[differentiable]
fn weight_decay(#[differentiable] r: &Regularised) -> f64 {
    // a `Vec` field and an array field, each passed whole to a slice parameter
    r.lambda * sum_of_squares(&r.w) + sum_of_squares(&r.anchors) / 3.0
}

#[test]
fn array_fields_passed_to_a_slice_function() {
    let like = Regularised {
        w: vec![0.1, 0.2, 0.3, 0.4],
        anchors: [1.0, 2.0, 3.0],
        lambda: 0.5,
    };
    Faces {
        name: "weight_decay",
        like: &like,
        itself: &weight_decay,
        primal: &weight_decay::primal,
        grad: &|r| {
            let (value, [d_r]) = weight_decay::grad(r);
            (value, d_r)
        },
        grad_into: &|r, d| weight_decay::grad_into(r, d),
        jvp: &|r, t| weight_decay::jvp(r, t),
    }
    .check(3, true);
    let (_, [d]) = weight_decay::grad(&like);
    let decay: Vec<f64> = like.w.iter().map(|w| 2.0 * like.lambda * w).collect();
    assert_eq!(d.w, decay);
    assert_eq!(d.anchors, [2.0 / 3.0, 4.0 / 3.0, 2.0]);
    assert_eq!(d.lambda, 0.01 + 0.04 + 0.09 + 0.16);
}

// ----- methods calling their layers' methods -----

impl Dense {
    #[differentiable]
    fn forward(#[differentiable] &self, x: &[f64]) -> f64 {
        let mut s = self.b;
        for i in 0..x.len() {
            s += self.w[i] * x[i];
        }
        s.tanh()
    }
}

#[derive(Differentiable, Debug, Clone)]
struct Network {
    first: Dense,
    second: Dense,
}

impl Flat for Network {
    fn to_flat(&self) -> Vec<f64> {
        let mut out = self.first.to_flat();
        out.extend(self.second.to_flat());
        out
    }
    fn from_flat(x: &[f64], like: &Self) -> (Self, usize) {
        let (first, a) = Dense::from_flat(x, &like.first);
        let (second, b) = Dense::from_flat(&x[a..], &like.second);
        (Network { first, second }, a + b)
    }
}

impl Network {
    #[differentiable]
    fn loss(#[differentiable] &self, x: &[f64], target: f64) -> f64 {
        let h = self.first.forward(x);
        let features = [h, 1.0 - h];
        let o = self.second.forward(&features);
        (o - target) * (o - target)
    }
}

#[differentiable]
fn through_a_method(#[differentiable] layer: &Dense, x: &[f64]) -> f64 {
    // the marked parameter itself as another annotated method's receiver
    layer.forward(x) * layer.b
}

#[test]
fn a_method_calling_its_layers_methods() {
    let like = Network {
        first: Dense {
            w: vec![0.3, -0.2],
            b: 0.1,
        },
        second: Dense {
            w: vec![0.5, 0.4],
            b: -0.2,
        },
    };
    let x = [0.5, 1.5];
    Faces {
        name: "Network::loss",
        like: &like,
        itself: &|n| n.loss(&x, 0.3),
        primal: &|n| Network::loss_primal(n, &x, 0.3),
        grad: &|n| {
            let (value, (d_n, _, _)) = n.loss_grad(&x, 0.3);
            (value, d_n)
        },
        grad_into: &|n, d| n.loss_grad_into(&x, 0.3, d, &mut [0.0; 2], &mut 0.0),
        jvp: &|n, t| n.loss_jvp(&x, 0.3, t, &[0.0; 2], 0.0),
    }
    .check(4, true);

    Faces {
        name: "through_a_method",
        like: &like.first,
        itself: &|l| through_a_method(l, &x),
        primal: &|l| through_a_method::primal(l, &x),
        grad: &|l| {
            let (value, (d_l, _)) = through_a_method::grad(l, &x);
            (value, d_l)
        },
        grad_into: &|l, d| through_a_method::grad_into(l, &x, d, &mut [0.0; 2]),
        jvp: &|l, t| through_a_method::jvp(l, &x, t, &[0.0; 2]),
    }
    .check(5, true);
}

// ----- three structs deep, a sub-struct passed whole and its float read too -----

#[derive(Differentiable, Debug, Clone)]
struct Block {
    layer: Dense,
    gain: f64,
}

#[derive(Differentiable, Debug, Clone)]
struct Deep {
    block: Block,
    bias: f64,
    depth: usize,
}

impl Flat for Deep {
    fn to_flat(&self) -> Vec<f64> {
        let mut out = self.block.layer.to_flat();
        out.extend([self.block.gain, self.bias]);
        out
    }
    fn from_flat(x: &[f64], like: &Self) -> (Self, usize) {
        let (layer, n) = Dense::from_flat(x, &like.block.layer);
        let deep = Deep {
            block: Block { layer, gain: x[n] },
            bias: x[n + 1],
            depth: like.depth,
        };
        (deep, n + 2)
    }
}

#[differentiable]
fn block_output(#[differentiable] b: &Block, x: &[f64]) -> f64 {
    dense(&b.layer, x) * b.gain
}

#[differentiable]
fn deep_output(#[differentiable] m: &Deep, x: &[f64]) -> f64 {
    // `m.block` passed whole, `m.block.gain` and `m.block.layer.b` read here as well
    let mut total = m.bias;
    for _ in 0..m.depth {
        total += block_output(&m.block, x) + m.block.gain * m.block.layer.b;
    }
    total
}

#[test]
fn three_structs_deep_with_overlapping_reads() {
    let like = Deep {
        block: Block {
            layer: Dense {
                w: vec![0.2, 0.9],
                b: -0.4,
            },
            gain: 0.7,
        },
        bias: 0.05,
        depth: 3,
    };
    let x = [0.8, -0.3];
    Faces {
        name: "deep_output",
        like: &like,
        itself: &|m| deep_output(m, &x),
        primal: &|m| deep_output::primal(m, &x),
        grad: &|m| {
            let (value, (d_m, _)) = deep_output::grad(m, &x);
            assert_eq!(d_m.depth, 3);
            (value, d_m)
        },
        grad_into: &|m, d| deep_output::grad_into(m, &x, d, &mut [0.0; 2]),
        jvp: &|m, t| deep_output::jvp(m, &x, t, &[0.0; 2]),
    }
    .check(6, true);
}

// ----- generic layers, both precisions -----

#[derive(Differentiable, Debug, Clone)]
struct Affine<T> {
    slope: T,
    offset: T,
}

#[derive(Differentiable, Debug, Clone)]
struct Stack<T> {
    inner: Affine<T>,
    outer: Affine<T>,
}

impl Flat for Stack<f64> {
    fn to_flat(&self) -> Vec<f64> {
        vec![
            self.inner.slope,
            self.inner.offset,
            self.outer.slope,
            self.outer.offset,
        ]
    }
    fn from_flat(x: &[f64], _: &Self) -> (Self, usize) {
        let affine = |k: usize| Affine {
            slope: x[k],
            offset: x[k + 1],
        };
        (
            Stack {
                inner: affine(0),
                outer: affine(2),
            },
            4,
        )
    }
}

#[differentiable]
fn affine_sine<T: Float>(#[differentiable] a: &Affine<T>, x: T) -> T {
    (a.slope * x + a.offset).sin()
}

#[differentiable]
fn stacked<T: Float>(#[differentiable] s: &Stack<T>, x: T) -> T {
    let inner = affine_sine(&s.inner, x);
    affine_sine(&s.outer, inner) + inner * T::from(0.5).unwrap()
}

#[test]
fn generic_layers_at_both_precisions() {
    let like = Stack {
        inner: Affine {
            slope: 1.1,
            offset: 0.2,
        },
        outer: Affine {
            slope: -0.7,
            offset: 0.4,
        },
    };
    Faces {
        name: "stacked",
        like: &like,
        itself: &|s| stacked(s, 0.6),
        primal: &|s| stacked::primal(s, 0.6),
        grad: &|s| {
            let (value, (d_s, _)) = stacked::grad(s, 0.6);
            (value, d_s)
        },
        grad_into: &|s, d| stacked::grad_into(s, 0.6, d, &mut 0.0),
        jvp: &|s, t| stacked::jvp(s, 0.6, t, 0.0),
    }
    .check(7, true);
    // f32: the same gradient, to f32's precision
    let s32 = Stack {
        inner: Affine {
            slope: 1.1_f32,
            offset: 0.2,
        },
        outer: Affine {
            slope: -0.7,
            offset: 0.4,
        },
    };
    let (_, (d32, _)) = stacked::grad(&s32, 0.6_f32);
    let (_, (d64, _)) = stacked::grad(&like, 0.6);
    for (a, b) in [
        (d32.inner.slope, d64.inner.slope),
        (d32.inner.offset, d64.inner.offset),
        (d32.outer.slope, d64.outer.slope),
        (d32.outer.offset, d64.outer.offset),
    ] {
        assert!((f64::from(a) - b).abs() < 1e-5, "{a} vs {b}");
    }
}

// ----- a physical system of springs -----

#[derive(Differentiable, Debug, Clone)]
struct Spring {
    stiffness: f64,
    rest: f64,
}

#[derive(Differentiable, Debug, Clone)]
struct Springs {
    left: Spring,
    right: Spring,
    width: f64,
}

impl Flat for Springs {
    fn to_flat(&self) -> Vec<f64> {
        vec![
            self.left.stiffness,
            self.left.rest,
            self.right.stiffness,
            self.right.rest,
            self.width,
        ]
    }
    fn from_flat(x: &[f64], _: &Self) -> (Self, usize) {
        let spring = |k: usize| Spring {
            stiffness: x[k],
            rest: x[k + 1],
        };
        let springs = Springs {
            left: spring(0),
            right: spring(2),
            width: x[4],
        };
        (springs, 5)
    }
}

#[differentiable]
fn spring_energy(#[differentiable] s: &Spring, length: f64) -> f64 {
    let stretch = length - s.rest;
    0.5 * s.stiffness * stretch * stretch
}

#[differentiable]
fn system_energy(#[differentiable] sys: &Springs, position: f64) -> f64 {
    spring_energy(&sys.left, position) + spring_energy(&sys.right, sys.width - position)
}

#[test]
fn a_system_of_springs() {
    let like = Springs {
        left: Spring {
            stiffness: 2.0,
            rest: 0.3,
        },
        right: Spring {
            stiffness: 3.0,
            rest: 0.4,
        },
        width: 1.5,
    };
    Faces {
        name: "system_energy",
        like: &like,
        itself: &|s| system_energy(s, 0.6),
        primal: &|s| system_energy::primal(s, 0.6),
        grad: &|s| {
            let (value, (d_s, _)) = system_energy::grad(s, 0.6);
            (value, d_s)
        },
        grad_into: &|s, d| system_energy::grad_into(s, 0.6, d, &mut 0.0),
        jvp: &|s, t| system_energy::jvp(s, 0.6, t, 0.0),
    }
    .check(8, true);
    // by hand: ∂E/∂width = k_r (width - x - rest_r)
    let (_, (d, d_x)) = system_energy::grad(&like, 0.6);
    assert!((d.width - 3.0 * (1.5 - 0.6 - 0.4)).abs() < 1e-15);
    assert!((d_x - (2.0 * (0.6 - 0.3) - 3.0 * (1.5 - 0.6 - 0.4))).abs() < 1e-15);
}

// ----- a recurrent cell called in a loop -----

#[derive(Differentiable, Debug, Clone)]
struct Cell {
    w: f64,
    u: f64,
    b: f64,
}

#[derive(Differentiable, Debug, Clone)]
struct Recurrent {
    cell: Cell,
    decay: f64,
}

impl Flat for Recurrent {
    fn to_flat(&self) -> Vec<f64> {
        vec![self.cell.w, self.cell.u, self.cell.b, self.decay]
    }
    fn from_flat(x: &[f64], _: &Self) -> (Self, usize) {
        let cell = Cell {
            w: x[0],
            u: x[1],
            b: x[2],
        };
        (Recurrent { cell, decay: x[3] }, 4)
    }
}

#[differentiable]
fn cell_step(#[differentiable] c: &Cell, h: f64, input: f64) -> f64 {
    (c.w * h + c.u * input + c.b).tanh()
}

#[differentiable]
fn rollout(#[differentiable] r: &Recurrent, inputs: &[f64]) -> f64 {
    let mut h = 0.0;
    for &input in inputs {
        h = cell_step(&r.cell, h, input) * r.decay;
    }
    h
}

#[test]
fn a_recurrent_cell_called_in_a_loop() {
    let like = Recurrent {
        cell: Cell {
            w: 0.8,
            u: -0.5,
            b: 0.1,
        },
        decay: 0.9,
    };
    let inputs = [0.3, -0.7, 1.1, 0.4, -0.2];
    Faces {
        name: "rollout",
        like: &like,
        itself: &|r| rollout(r, &inputs),
        primal: &|r| rollout::primal(r, &inputs),
        grad: &|r| {
            let (value, (d_r, _)) = rollout::grad(r, &inputs);
            (value, d_r)
        },
        grad_into: &|r, d| rollout::grad_into(r, &inputs, d, &mut [0.0; 5]),
        jvp: &|r, t| rollout::jvp(r, &inputs, t, &[0.0; 5]),
    }
    .check(9, true);
}

// ----- annotated callers holding the struct constant -----

#[differentiable]
fn scaled_model(m: &TwoLayer, x: &[f64], s: f64) -> f64 {
    two_layer(m, x) * s
}

#[test]
fn an_annotated_caller_holding_the_struct_constant() {
    let m = a_two_layer_model();
    let x = [0.5, -1.5, 0.25];
    let (value, (d_x, d_s)) = scaled_model::grad(&m, &x, 2.0);
    assert_eq!(value, two_layer(&m, &x) * 2.0);
    assert_eq!(value, scaled_model(&m, &x, 2.0));
    let (_, (_, d_x_inner)) = two_layer::grad(&m, &x);
    for (a, b) in d_x.iter().zip(&d_x_inner) {
        assert!((a - 2.0 * b).abs() < 1e-15);
    }
    assert_eq!(d_s, two_layer(&m, &x));
    // forward mode through the caller: the callee gets no tangent for the struct
    let t = [1.0, 0.0, 0.0];
    let (_, dot) = scaled_model::jvp(&m, &x, 2.0, &t, 0.0);
    assert!((dot - d_x[0]).abs() < 1e-14);
}

// ----- `self` passed on whole, and constant fields of a struct passed on -----

#[derive(Differentiable, Debug, Clone)]
struct Regression {
    w: Vec<f64>,
    b: f64,
    /// a constant, read as a loop bound beside the struct passed on whole
    used: usize,
}

impl Flat for Regression {
    fn to_flat(&self) -> Vec<f64> {
        let mut out = self.w.clone();
        out.push(self.b);
        out
    }
    fn from_flat(x: &[f64], like: &Self) -> (Self, usize) {
        let n = like.w.len();
        let r = Regression {
            w: x[..n].to_vec(),
            b: x[n],
            used: like.used,
        };
        (r, n + 1)
    }
}

impl Regression {
    #[differentiable]
    fn predict(#[differentiable] &self, x: &[f64]) -> f64 {
        let mut s = self.b;
        for i in 0..self.used {
            s += self.w[i] * x[i];
        }
        s.tanh()
    }

    #[differentiable]
    fn loss(#[differentiable] &self, x: &[f64], y: f64) -> f64 {
        // `self` itself the receiver of another marked method, and a field read here too
        let p = self.predict(x);
        (p - y) * (p - y) + 0.01 * self.b * self.b
    }
}

#[differentiable]
fn scaled_by_count(#[differentiable] r: &Regression, x: &[f64]) -> f64 {
    // a constant field of a struct that is also passed on whole
    let used: usize = r.used;
    r.predict(x) * used as f64
}

#[test]
fn self_passed_on_and_constant_fields_of_a_struct_passed_on() {
    let like = Regression {
        w: vec![0.5, 0.2, -0.4],
        b: 0.1,
        used: 2,
    };
    let x = [1.0, 2.0, 3.0];
    Faces {
        name: "Regression::loss",
        like: &like,
        itself: &|r| r.loss(&x, 0.3),
        primal: &|r| Regression::loss_primal(r, &x, 0.3),
        grad: &|r| {
            let (value, (d_r, _, _)) = r.loss_grad(&x, 0.3);
            assert_eq!(d_r.used, 2);
            (value, d_r)
        },
        grad_into: &|r, d| r.loss_grad_into(&x, 0.3, d, &mut [0.0; 3], &mut 0.0),
        jvp: &|r, t| r.loss_jvp(&x, 0.3, t, &[0.0; 3], 0.0),
    }
    .check(10, true);
    Faces {
        name: "scaled_by_count",
        like: &like,
        itself: &|r| scaled_by_count(r, &x),
        primal: &|r| scaled_by_count::primal(r, &x),
        grad: &|r| {
            let (value, (d_r, _)) = scaled_by_count::grad(r, &x);
            (value, d_r)
        },
        grad_into: &|r, d| scaled_by_count::grad_into(r, &x, d, &mut [0.0; 3]),
        jvp: &|r, t| scaled_by_count::jvp(r, &x, t, &[0.0; 3]),
    }
    .check(11, true);
    // the unused weight gets no gradient
    let (_, (d, _)) = scaled_by_count::grad(&like, &x);
    assert_eq!(d.w[2], 0.0);
}

// ----- passed on in branches, and the same struct passed twice -----

#[derive(Differentiable, Debug, Clone)]
struct Pair {
    left: Dense,
    right: Dense,
}

impl Flat for Pair {
    fn to_flat(&self) -> Vec<f64> {
        let mut out = self.left.to_flat();
        out.extend(self.right.to_flat());
        out
    }
    fn from_flat(x: &[f64], like: &Self) -> (Self, usize) {
        let (left, a) = Dense::from_flat(x, &like.left);
        let (right, b) = Dense::from_flat(&x[a..], &like.right);
        (Pair { left, right }, a + b)
    }
}

#[differentiable]
fn branchy(#[differentiable] p: &Pair, x: &[f64], pick_left: bool) -> f64 {
    // each layer passed on in a branch (its pullback kept once), and `left` twice on
    // one path: its two cotangents are summed
    let first = if pick_left {
        dense(&p.left, x) + dense(&p.left, x) * 0.5
    } else {
        dense(&p.right, x)
    };
    match x.len() {
        0 => first,
        _ => first * dense(&p.right, x),
    }
}

#[test]
fn passed_on_in_branches_and_twice() {
    let like = Pair {
        left: Dense {
            w: vec![0.3, -0.6],
            b: 0.2,
        },
        right: Dense {
            w: vec![-0.1, 0.8],
            b: -0.4,
        },
    };
    let x = [0.7, 1.1];
    for pick_left in [true, false] {
        Faces {
            name: if pick_left {
                "branchy, left"
            } else {
                "branchy, right"
            },
            like: &like,
            itself: &|p| branchy(p, &x, pick_left),
            primal: &|p| branchy::primal(p, &x, pick_left),
            grad: &|p| {
                let (value, (d_p, _)) = branchy::grad(p, &x, pick_left);
                (value, d_p)
            },
            grad_into: &|p, d| branchy::grad_into(p, &x, pick_left, d, &mut [0.0; 2]),
            jvp: &|p, t| branchy::jvp(p, &x, pick_left, t, &[0.0; 2]),
        }
        .check(12, true);
    }
    // the path not taken gets no gradient
    let (_, (d, _)) = branchy::grad(&like, &x, false);
    assert_eq!((d.left.w.clone(), d.left.b), (vec![0.0, 0.0], 0.0));
}

// ----- layers behind a `Box` -----
//
// A field `Box<Dense>` passed on whole, to a function (`dense(&m.sub, x)`, a deref coercion
// at the call) or as a method's receiver (`m.sub.forward(x)`, autoderef), from a free
// function and from a marked `&self` method, with a float of the boxed layer read beside
// it. The callee's gradient is a `Dense`, added inside the box of the caller's
// (`WholeCotangent<Box<S>> for S`), and its tangent is the box's content (`TangentStruct<S>
// for &Box<S>`): before, the runtime's "a `Dense` cotangent cannot be added into a
// `Box<Dense>`" at the argument and rustc's E0277 of `TangentStruct` on the attribute.
// Each is checked through every face and at second order, and against the same model
// recorded op by op on a tape.

#[derive(Differentiable, Debug, Clone)]
struct Boxed {
    sub: Box<Dense>,
    head: Box<Dense>,
    scale: f64,
}

impl Flat for Boxed {
    fn to_flat(&self) -> Vec<f64> {
        let mut out = self.sub.to_flat();
        out.extend(self.head.to_flat());
        out.push(self.scale);
        out
    }
    fn from_flat(x: &[f64], like: &Self) -> (Self, usize) {
        let (sub, a) = Dense::from_flat(x, &like.sub);
        let (head, b) = Dense::from_flat(&x[a..], &like.head);
        let boxed = Boxed {
            sub: Box::new(sub),
            head: Box::new(head),
            scale: x[a + b],
        };
        (boxed, a + b + 1)
    }
}

#[differentiable]
fn boxed_by_function(#[differentiable] m: &Boxed, x: &[f64]) -> f64 {
    let h = dense(&m.sub, x);
    let features = [h, h * h];
    dense(&m.head, &features) * m.scale
}

#[differentiable]
fn boxed_by_method(#[differentiable] m: &Boxed, x: &[f64]) -> f64 {
    let h = m.sub.forward(x);
    let features = [h, h * h];
    m.head.forward(&features) * m.scale
}

impl Boxed {
    /// Both ways through one box, and the boxed layer's bias read here too.
    #[differentiable]
    fn mixed(#[differentiable] &self, x: &[f64]) -> f64 {
        let h = self.sub.forward(x);
        let features = [h, self.sub.b];
        dense(&self.head, &features) * self.scale + dense(&self.sub, x) * self.sub.b
    }
}

/// `tanh(b + Σ wᵢ xᵢ)` recorded op by op, `p` the layer's `[w.., b]`.
fn dense_on_tape(p: &[Tensor<f64>], x: &[Tensor<f64>]) -> Tensor<f64> {
    let n = x.len();
    let mut s = p[n].clone();
    for i in 0..n {
        s = &s + &(&p[i] * &x[i]);
    }
    s.tanh()
}

/// The value and gradient of `f` at `point` recorded op by op on a tape, each coordinate a
/// watched 0-d tensor: the oracle beside central differences.
fn on_tape(point: &[f64], f: &dyn Fn(&[Tensor<f64>]) -> Tensor<f64>) -> (f64, Vec<f64>) {
    let xs: Vec<Tensor<f64>> = point.iter().map(|&v| Tensor::scalar(v)).collect();
    let tape = GradientTape::new();
    for x in &xs {
        tape.watch(x);
    }
    let y = tape.record(|| f(&xs));
    let g = tape.gradient(&y, &xs).expect("a gradient");
    let g = g.into_iter().map(|g| g.map_or(0.0, |g| g.to_scalar()));
    (y.to_scalar(), g.collect())
}

/// `grad` at `like` against the tape's, value and gradient.
fn against_tape<S: Flat>(
    name: &str,
    like: &S,
    grad: &dyn Fn(&S) -> (f64, S),
    taped: &dyn Fn(&[Tensor<f64>]) -> Tensor<f64>,
) {
    let (value, d) = grad(like);
    let (by_tape, expected) = on_tape(&like.to_flat(), taped);
    assert!(close(value, by_tape, 1e-14), "{name}: {value} vs {by_tape}");
    for (k, (g, e)) in d.to_flat().iter().zip(&expected).enumerate() {
        assert!(close(*g, *e, 1e-12), "{name}: d/dp{k} = {g}, on a tape {e}");
    }
}

#[test]
fn boxed_layers_passed_on_and_called() {
    let like = Boxed {
        sub: Box::new(Dense {
            w: vec![0.3, -0.2, 0.5],
            b: 0.1,
        }),
        head: Box::new(Dense {
            w: vec![0.7, -0.4],
            b: -0.3,
        }),
        scale: 1.3,
    };
    let x = [0.5, -1.5, 0.25];
    let constants = |x: &[f64]| x.iter().map(|&v| Tensor::scalar(v)).collect::<Vec<_>>();
    // the flat point: sub's [w0, w1, w2, b], head's [w0, w1, b], scale
    let two_layers = |p: &[Tensor<f64>]| {
        let h = dense_on_tape(&p[..4], &constants(&x));
        let features = [h.clone(), &h * &h];
        &dense_on_tape(&p[4..7], &features) * &p[7]
    };
    Faces {
        name: "boxed_by_function",
        like: &like,
        itself: &|m| boxed_by_function(m, &x),
        primal: &|m| boxed_by_function::primal(m, &x),
        grad: &|m| {
            let (value, (d_m, _)) = boxed_by_function::grad(m, &x);
            (value, d_m)
        },
        grad_into: &|m, d| boxed_by_function::grad_into(m, &x, d, &mut [0.0; 3]),
        jvp: &|m, t| boxed_by_function::jvp(m, &x, t, &[0.0; 3]),
    }
    .check(13, true);
    against_tape(
        "boxed_by_function",
        &like,
        &|m| {
            let (value, (d_m, _)) = boxed_by_function::grad(m, &x);
            (value, d_m)
        },
        &two_layers,
    );

    Faces {
        name: "boxed_by_method",
        like: &like,
        itself: &|m| boxed_by_method(m, &x),
        primal: &|m| boxed_by_method::primal(m, &x),
        grad: &|m| {
            let (value, (d_m, _)) = boxed_by_method::grad(m, &x);
            (value, d_m)
        },
        grad_into: &|m, d| boxed_by_method::grad_into(m, &x, d, &mut [0.0; 3]),
        jvp: &|m, t| boxed_by_method::jvp(m, &x, t, &[0.0; 3]),
    }
    .check(14, true);
    against_tape(
        "boxed_by_method",
        &like,
        &|m| {
            let (value, (d_m, _)) = boxed_by_method::grad(m, &x);
            (value, d_m)
        },
        &two_layers,
    );
    // the two are one model: the same bits
    let (by_function, (d_f, _)) = boxed_by_function::grad(&like, &x);
    let (by_method, (d_m, _)) = boxed_by_method::grad(&like, &x);
    assert_eq!(by_function.to_bits(), by_method.to_bits());
    assert_eq!(d_f.to_flat(), d_m.to_flat());

    Faces {
        name: "Boxed::mixed",
        like: &like,
        itself: &|m| m.mixed(&x),
        primal: &|m| Boxed::mixed_primal(m, &x),
        grad: &|m| {
            let (value, (d_m, _)) = m.mixed_grad(&x);
            (value, d_m)
        },
        grad_into: &|m, d| m.mixed_grad_into(&x, d, &mut [0.0; 3]),
        jvp: &|m, t| m.mixed_jvp(&x, t, &[0.0; 3]),
    }
    .check(15, true);
    against_tape(
        "Boxed::mixed",
        &like,
        &|m| {
            let (value, (d_m, _)) = m.mixed_grad(&x);
            (value, d_m)
        },
        &|p| {
            let sub = dense_on_tape(&p[..4], &constants(&x));
            let features = [sub.clone(), p[3].clone()];
            let head = &dense_on_tape(&p[4..7], &features) * &p[7];
            &head + &(&sub * &p[3])
        },
    );
}

// ----- a generic layer behind a `Box`, both precisions -----

#[derive(Differentiable, Debug, Clone)]
struct BoxedStack<T> {
    inner: Box<Affine<T>>,
    outer: Affine<T>,
}

impl Flat for BoxedStack<f64> {
    fn to_flat(&self) -> Vec<f64> {
        let [a, b, c, d] = [
            self.inner.slope,
            self.inner.offset,
            self.outer.slope,
            self.outer.offset,
        ];
        vec![a, b, c, d]
    }
    fn from_flat(x: &[f64], _: &Self) -> (Self, usize) {
        let affine = |k: usize| Affine {
            slope: x[k],
            offset: x[k + 1],
        };
        let stack = BoxedStack {
            inner: Box::new(affine(0)),
            outer: affine(2),
        };
        (stack, 4)
    }
}

#[differentiable]
fn boxed_stacked<T: Float>(#[differentiable] s: &BoxedStack<T>, x: T) -> T {
    let inner = affine_sine(&s.inner, x);
    affine_sine(&s.outer, inner) + inner * s.inner.slope
}

#[test]
fn a_generic_boxed_layer_at_both_precisions() {
    let like = BoxedStack {
        inner: Box::new(Affine {
            slope: 1.1,
            offset: 0.2,
        }),
        outer: Affine {
            slope: -0.7,
            offset: 0.4,
        },
    };
    let grad = |s: &BoxedStack<f64>| {
        let (value, (d_s, _)) = boxed_stacked::grad(s, 0.6);
        (value, d_s)
    };
    Faces {
        name: "boxed_stacked",
        like: &like,
        itself: &|s| boxed_stacked(s, 0.6),
        primal: &|s| boxed_stacked::primal(s, 0.6),
        grad: &grad,
        grad_into: &|s, d| boxed_stacked::grad_into(s, 0.6, d, &mut 0.0),
        jvp: &|s, t| boxed_stacked::jvp(s, 0.6, t, 0.0),
    }
    .check(16, true);
    against_tape("boxed_stacked", &like, &grad, &|p| {
        let x = Tensor::scalar(0.6);
        let inner = (&(&p[0] * &x) + &p[1]).sin();
        let outer = (&(&p[2] * &inner) + &p[3]).sin();
        &outer + &(&inner * &p[0])
    });
    // f32: the same gradient, to f32's precision
    let s32 = BoxedStack {
        inner: Box::new(Affine {
            slope: 1.1_f32,
            offset: 0.2,
        }),
        outer: Affine {
            slope: -0.7,
            offset: 0.4,
        },
    };
    let (_, (d32, _)) = boxed_stacked::grad(&s32, 0.6_f32);
    let d64 = grad(&like).1;
    for (a, b) in [
        (d32.inner.slope, d64.inner.slope),
        (d32.inner.offset, d64.inner.offset),
        (d32.outer.slope, d64.outer.slope),
        (d32.outer.offset, d64.outer.offset),
    ] {
        assert!((f64::from(a) - b).abs() < 1e-5, "{a} vs {b}");
    }
}

// ----- float methods on the elements of a float array field -----
//
// The struct pass tells an array of structs inside a struct (`m.layers[i].forward(h)`,
// rejected) from a float array by the method its element receives: a float's method that
// is no op of the vocabulary (`sin_cos`, rewritten before lowering) still marks a float
// array, indexed or iterated. Regression test for that check.

#[differentiable]
fn sin_cos_of_weights(#[differentiable] layer: &Dense, x: &[f64]) -> f64 {
    let mut total = layer.b;
    for i in 0..x.len() {
        let (s, c) = layer.w[i].sin_cos();
        total += s * x[i] + c * c;
    }
    for w in &layer.w {
        let (s, _) = w.sin_cos();
        total += s * layer.b;
    }
    total
}

#[test]
fn float_methods_on_a_float_array_fields_elements() {
    let like = Dense {
        w: vec![0.4, -0.6, 1.1],
        b: 0.2,
    };
    let x = [1.5, 0.5, -0.7];
    let grad = |l: &Dense| {
        let (value, (d_l, _)) = sin_cos_of_weights::grad(l, &x);
        (value, d_l)
    };
    Faces {
        name: "sin_cos_of_weights",
        like: &like,
        itself: &|l| sin_cos_of_weights(l, &x),
        primal: &|l| sin_cos_of_weights::primal(l, &x),
        grad: &grad,
        grad_into: &|l, d| sin_cos_of_weights::grad_into(l, &x, d, &mut [0.0; 3]),
        jvp: &|l, t| sin_cos_of_weights::jvp(l, &x, t, &[0.0; 3]),
    }
    .check(17, true);
    // the flat point: w0, w1, w2, b
    against_tape("sin_cos_of_weights", &like, &grad, &|p| {
        let mut total = p[3].clone();
        for i in 0..3 {
            let (s, c) = (p[i].sin(), p[i].cos());
            total = &(&total + &(&s * &Tensor::scalar(x[i]))) + &(&c * &c);
        }
        for w in &p[..3] {
            total = &total + &(&w.sin() * &p[3]);
        }
        total
    });
}
