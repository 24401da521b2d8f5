//! The runtime against the vocabulary of ops (`gradtape-primitives`), which
//! `#[differentiable]` also reads: every row is recorded on a tape here, and the node the
//! runtime pushes must have the row's name, operand count and saved values. A mismatch
//! would compile and give a wrong gradient in generated code, so it fails here instead.

use gradtape::generated::{self, RecordedNode};
use gradtape::{Conv2dOptions, GradientOptions, GradientTape, Padding, Primal, Tensor};
use gradtape_primitives::{Primitive, Rule, Saved};

/// Operands away from every op's kinks and poles, shaped so that each op accepts them.
fn operand(seed: u64, shape: &[usize]) -> Tensor<f64> {
    Tensor::random_uniform(shape, 0.5, 2.0, seed)
}

/// Records `f` of `inputs`, every input watched, and returns the node of the op `name`.
fn record(name: &str, inputs: &[Tensor<f64>], f: impl FnOnce(&[Tensor<f64>])) -> RecordedNode {
    let tape = GradientTape::persistent();
    for x in inputs {
        tape.watch(x);
    }
    tape.record(|| f(inputs));
    let nodes = generated::recorded_nodes(&tape);
    nodes
        .into_iter()
        .find(|node| node.op == name)
        .unwrap_or_else(|| panic!("recording `{name}` pushed no node of that name"))
}

/// The node the runtime records for the row `p`: one case per primitive, so a new row
/// without a case fails here.
fn node_of(p: &Primitive) -> RecordedNode {
    let v = |seed| operand(seed, &[2, 3]);
    let m = |seed, shape: &[usize]| operand(seed, shape);
    let name = p.name;
    match name {
        "powi" => record(name, &[v(1)], |x| drop(x[0].powi(3))),
        "powf" => record(name, &[v(1)], |x| drop(x[0].powf(2.5))),
        "add" => record(name, &[v(1), v(2)], |x| drop(&x[0] + &x[1])),
        "sub" => record(name, &[v(1), v(2)], |x| drop(&x[0] - &x[1])),
        "mul" => record(name, &[v(1), v(2)], |x| drop(&x[0] * &x[1])),
        "div" => record(name, &[v(1), v(2)], |x| drop(&x[0] / &x[1])),
        "maximum" => record(name, &[v(1), v(2)], |x| drop(x[0].maximum(&x[1]))),
        "minimum" => record(name, &[v(1), v(2)], |x| drop(x[0].minimum(&x[1]))),
        "atan2" => record(name, &[v(1), v(2)], |x| drop(x[0].atan2(&x[1]))),
        "hypot" => record(name, &[v(1), v(2)], |x| drop(x[0].hypot(&x[1]))),
        "pow" => record(name, &[v(1), v(2)], |x| drop(x[0].pow(&x[1]))),
        "log" => record(name, &[v(1), v(2)], |x| drop(x[0].log(&x[1]))),
        "rem" => record(name, &[v(1), v(2)], |x| drop(&x[0] % &x[1])),
        "rem_euclid" => record(name, &[v(1), v(2)], |x| drop(x[0].rem_euclid(&x[1]))),
        "scale" => record(name, &[v(1)], |x| drop(&x[0] * 3.0)),
        "mul_scaled" => {
            let x = v(1);
            recorded_by_a_rule(name, &x, &x, &v(2), || x.square())
        }
        "neg" => record(name, &[v(1)], |x| drop(-&x[0])),
        "sum" => record(name, &[v(1)], |x| drop(x[0].sum())),
        "mean" => record(name, &[v(1)], |x| drop(x[0].mean())),
        "max" => record(name, &[v(1)], |x| drop(x[0].max())),
        "sum_to_shape" => record(name, &[v(1)], |x| drop(x[0].sum_to_shape(&[3]))),
        "broadcast_to" => record(name, &[m(1, &[3])], |x| drop(x[0].broadcast_to(&[2, 3]))),
        "dot" => {
            let (a, x) = (Tensor::scalar(1.5), m(2, &[3]));
            recorded_by_a_rule(name, &a, &x, &m(3, &[3]), || &a * &x)
        }
        "reshape" => record(name, &[v(1)], |x| drop(x[0].reshape(&[3, 2]))),
        "permute" => record(name, &[v(1)], |x| drop(x[0].permute(&[1, 0]))),
        "slice" => record(name, &[v(1)], |x| drop(x[0].slice(1, 0, 2))),
        "gather" => record(name, &[v(1)], |x| drop(x[0].gather(1, &[2, 0]))),
        "where_cond" => record(name, &[v(1), m(2, &[3])], |x| {
            let condition = x[0].greater(&Tensor::scalar(1.0));
            drop(Tensor::where_cond(&condition, &x[0], &x[1]))
        }),
        "cumsum" => record(name, &[v(1)], |x| drop(x[0].cumsum(1, false, true))),
        "scatter_add" => record(name, &[v(1)], |x| drop(x[0].scatter_add(1, &[1, 0, 1], 2))),
        "concat" => record(name, &[v(1), v(2)], |x| {
            drop(Tensor::concat(&[&x[0], &x[1]], 0))
        }),
        "cast" => record(name, &[v(1)], |x| drop(x[0].cast::<f32>())),
        "matmul" => record(name, &[v(1), m(2, &[3, 4])], |x| drop(x[0].matmul(&x[1]))),
        "matmul_transposed" => record(name, &[v(1), m(2, &[4, 3])], |x| {
            drop(x[0].matmul_transposed(&x[1], false, true))
        }),
        "xw_plus_b" => record(name, &[v(1), m(2, &[3, 4]), m(3, &[4])], |x| {
            drop(x[0].xw_plus_b(&x[1], &x[2]))
        }),
        "softmax" => record(name, &[v(1)], |x| drop(x[0].softmax(1))),
        "log_softmax" => record(name, &[v(1)], |x| drop(x[0].log_softmax(1))),
        "sparse_softmax_cross_entropy_with_logits" => record(name, &[v(1)], |x| {
            drop(x[0].sparse_softmax_cross_entropy_with_logits(&[2, 0]))
        }),
        "conv2d" => record(name, &[m(1, &[1, 3, 3, 2]), m(2, &[2, 2, 2, 2])], |x| {
            drop(x[0].conv2d(&x[1], Conv2dOptions::new()))
        }),
        "conv2d_backprop_input" => record(name, &[m(1, &[1, 2, 2, 2]), m(2, &[2, 2, 2, 2])], |x| {
            drop(x[0].conv2d_backprop_input(&x[1], &[1, 3, 3, 2], Conv2dOptions::new()))
        }),
        "conv2d_backprop_filter" => {
            record(name, &[m(1, &[1, 3, 3, 2]), m(2, &[1, 2, 2, 2])], |x| {
                drop(x[0].conv2d_backprop_filter(&x[1], &[2, 2, 2, 2], Conv2dOptions::new()))
            })
        }
        "conv2d_bias_relu" => record(
            name,
            &[m(1, &[1, 3, 3, 2]), m(2, &[2, 2, 2, 2]), m(3, &[2])],
            |x| drop(x[0].conv2d_bias_relu(&x[1], &x[2], Conv2dOptions::new())),
        ),
        "max_pool2d" => record(name, &[m(1, &[1, 4, 4, 1])], |x| {
            drop(x[0].max_pool2d((2, 2), (2, 2), Padding::Valid))
        }),
        "max_pool2d_backprop" => {
            // recorded by max_pool2d's rule only
            let x = m(1, &[1, 4, 4, 1]);
            recorded_by_a_rule(name, &x, &x, &m(2, &[1, 2, 2, 1]), || {
                x.max_pool2d((2, 2), (2, 2), Padding::Valid)
            })
        }
        "max_pool2d_select" => {
            // recorded by max_pool2d_backprop's rule only: a third tape watches the
            // cotangent of the gradient max_pool2d's rule recorded on a second
            let (x, seed, h) = (
                m(1, &[1, 4, 4, 1]),
                m(2, &[1, 2, 2, 1]),
                m(3, &[1, 4, 4, 1]),
            );
            let outer = GradientTape::persistent();
            outer.watch(&h);
            outer.record(|| {
                let middle = GradientTape::new();
                middle.watch(&seed);
                let dx = middle.record(|| {
                    let inner = GradientTape::new();
                    inner.watch(&x);
                    let y = inner.record(|| x.max_pool2d((2, 2), (2, 2), Padding::Valid));
                    let options = GradientOptions::new().output_gradients(&seed);
                    inner.gradient_with(&y, &x, options).unwrap().unwrap()
                });
                let options = GradientOptions::new().output_gradients(&h);
                drop(middle.gradient_with(&dx, &seed, options).unwrap());
            });
            generated::recorded_nodes(&outer)
                .into_iter()
                .find(|node| node.op == name)
                .unwrap_or_else(|| panic!("no `{name}` recorded by the rules"))
        }
        "avg_pool2d" => record(name, &[m(1, &[1, 4, 4, 1])], |x| {
            drop(x[0].avg_pool2d((2, 2), (2, 2), Padding::Valid))
        }),
        "avg_pool2d_backprop" => record(name, &[m(1, &[1, 2, 2, 1])], |x| {
            drop(x[0].avg_pool2d_backprop(&[1, 4, 4, 1], (2, 2), (2, 2), Padding::Valid))
        }),
        "positive_mask" => record(name, &[v(1)], |x| drop(Primal::positive_mask(&x[0]))),
        "sign" => record(name, &[v(1)], |x| drop(x[0].sign())),
        unary if p.rule == Rule::Elementwise && p.operands == Some(1) => {
            record(unary, &[v(1)], |x| drop(unary_op(unary, &x[0])))
        }
        other => panic!("the vocabulary's row `{other}` has no case in tests/vocabulary.rs"),
    }
}

/// An op only rules record (`dot`, in the rule of a 0-d factor; `mul_scaled`, in
/// square's `2·x·g`): the gradient of `y` with respect to `source`, seeded with `seed`,
/// taken while an outer tape watches the seed and `watched`, and the node named `name`
/// that the rule recorded there.
fn recorded_by_a_rule(
    name: &str,
    source: &Tensor<f64>,
    watched: &Tensor<f64>,
    seed: &Tensor<f64>,
    y: impl FnOnce() -> Tensor<f64>,
) -> RecordedNode {
    let outer = GradientTape::persistent();
    outer.watch(seed);
    outer.watch(watched);
    outer.record(|| {
        let inner = GradientTape::new();
        inner.watch(source);
        let y = inner.record(y);
        let options = GradientOptions::new().output_gradients(seed);
        drop(inner.gradient_with(&y, source, options).unwrap());
    });
    generated::recorded_nodes(&outer)
        .into_iter()
        .find(|node| node.op == name)
        .unwrap_or_else(|| panic!("no `{name}` recorded by the rules"))
}

/// The elementwise unary op `name`, called through the method of that name.
fn unary_op(name: &str, x: &Tensor<f64>) -> Tensor<f64> {
    macro_rules! by_name {
        ($($op:ident: $saved:ident,)*) => {
            match name {
                $(stringify!($op) => x.$op(),)*
                other => panic!("`{other}` is not an elementwise unary row"),
            }
        };
    }
    gradtape_primitives::elementwise_unary!(by_name)
}

#[test]
fn every_differentiable_row_matches_what_the_runtime_records() {
    let mut checked = 0;
    for p in gradtape_primitives::all().filter(|p| p.rule != Rule::None) {
        let node = node_of(p);
        if let Some(operands) = p.operands {
            assert_eq!(node.inputs, operands, "`{}`: operand count", p.name);
        }
        assert_eq!(node.saved, p.saves, "`{}`: what the rule keeps", p.name);
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} rows checked");
}

#[test]
fn aliased_methods_record_their_primitive() {
    let x = operand(1, &[2, 3]);
    type Call = (&'static str, fn(&Tensor<f64>));
    let calls: [Call; 6] = [
        ("sum_axis", |x| drop(x.sum_axis(1, false))),
        ("mean_axis", |x| drop(x.mean_axis(1, false))),
        ("max_axis", |x| drop(x.max_axis(1, true))),
        ("transpose", |x| drop(x.transpose())),
        ("exp_m1", |x| drop(x.exp_m1())),
        ("ln_1p", |x| drop(x.ln_1p())),
    ];
    for (method, call) in calls {
        let p = gradtape_primitives::method(method).unwrap();
        let node = record(p.name, std::slice::from_ref(&x), |x| call(&x[0]));
        assert_eq!(node.saved, p.saves, "`{method}` records `{}`", p.name);
    }
    assert_eq!(gradtape_primitives::ALIASES.len(), calls.len());
}

#[test]
fn rows_without_a_gradient_record_nothing() {
    let x = operand(1, &[2, 3]);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    tape.record(|| {
        drop(x.argmax_axis(1));
        drop(x.equal(&x));
        drop(x.not_equal(&x));
        drop(x.greater(&x));
        drop(x.greater_equal(&x));
        drop(x.less(&x));
        drop(x.less_equal(&x));
        drop(x.floor());
        drop(x.ceil());
        drop(x.round());
        drop(x.trunc());
    });
    assert!(generated::recorded_nodes(&tape).is_empty());
    let names = [
        "argmax_axis",
        "equal",
        "not_equal",
        "greater",
        "greater_equal",
        "less",
        "less_equal",
        "floor",
        "ceil",
        "round",
        "trunc",
    ];
    let rows = gradtape_primitives::all().filter(|p| p.rule == Rule::None);
    assert_eq!(
        rows.count(),
        names.len(),
        "a row without a gradient is missing here"
    );
    for name in names {
        assert_eq!(gradtape_primitives::row_of(name).rule, Rule::None);
    }
}

#[test]
fn a_saved_input_is_told_from_the_output() {
    // The classification the test above relies on: `square` keeps its input, `exp` its
    // output, `max` both.
    let x = operand(3, &[4]);
    for (name, expected) in [
        ("square", vec![Saved::Input(0)]),
        ("exp", vec![Saved::Output]),
    ] {
        assert_eq!(
            record(name, std::slice::from_ref(&x), |x| drop(unary_op(
                name, &x[0]
            )))
            .saved,
            expected
        );
    }
    let node = record("max", &[x], |x| drop(x[0].max()));
    assert_eq!(node.saved, [Saved::Input(0), Saved::Output]);
}

/// `log1p`, ARCHITECTURE.md's worked example of adding a primitive, added with a row, its
/// forward and rule, and a gradcheck row only: `#[differentiable]` differentiates it with
/// no macro change, on tensors and on the 0-d path, orders 1 and 2.
#[gradtape::differentiable]
fn softened(x: &Tensor<f64>) -> Tensor<f64> {
    x.log1p() * x
}

#[test]
fn the_macro_differentiates_a_new_row_with_no_change() {
    use gradtape::{GradcheckOptions, gradcheck_with};
    let options = GradcheckOptions::new().second_order(true);
    for x in [
        Tensor::from_vec(vec![0.25, 1.5, 3.0], &[3]),
        Tensor::scalar(0.75),
    ] {
        // the annotated function against central differences…
        gradcheck_with(|x| softened(&x[0]), std::slice::from_ref(&x), options).unwrap();
        // …and against its own body recorded op by op
        let by_tape = {
            let tape = GradientTape::new();
            tape.watch(&x);
            let y = tape.record(|| softened::primal(&x).sum());
            tape.gradient(&y, &x).unwrap().unwrap()
        };
        let by_macro = {
            let tape = GradientTape::new();
            tape.watch(&x);
            let y = tape.record(|| softened(&x).sum());
            tape.gradient(&y, &x).unwrap().unwrap()
        };
        for (a, b) in by_macro.to_vec().iter().zip(by_tape.to_vec()) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
    }
}
