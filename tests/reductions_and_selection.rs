//! The ops a TensorFlow user reaches for beyond the first set (issue 16): comparisons,
//! `where_cond`, `cumsum`, `gather` by an index tensor, and the composites `min`,
//! `logsumexp`, `variance`, `std`, `norm` and `stack`. Their derivatives at orders 1 and 2
//! are in `tests/gradcheck.rs`; here: values by hand, TensorFlow's edge cases, the
//! vectorised jacobian through the new rules against forward mode, misuse messages, and
//! `#[differentiable]` using them.

mod common;

use common::{Tolerance, check_annotated, panic_site};
use gradtape::transforms::{self, JacobianMode};
use gradtape::{GradientTape, Tensor, differentiable, generated};

fn t(values: &[f64], shape: &[usize]) -> Tensor<f64> {
    Tensor::from_vec(values.to_vec(), shape)
}

fn assert_close(what: &str, a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tol * (1.0 + y.abs()),
            "{what}[{i}]: {x} vs {y}"
        );
    }
}

#[test]
fn comparisons_are_false_at_nan_except_not_equal() {
    let x = t(&[1.0, f64::NAN, 3.0], &[3]);
    let two = Tensor::scalar(2.0);
    assert_eq!(x.greater(&two).to_vec(), vec![false, false, true]);
    assert_eq!(x.greater_equal(&two).to_vec(), vec![false, false, true]);
    assert_eq!(x.less(&two).to_vec(), vec![true, false, false]);
    assert_eq!(x.less_equal(&two).to_vec(), vec![true, false, false]);
    assert_eq!(x.equal(&x).to_vec(), vec![true, false, true]);
    assert_eq!(x.not_equal(&x).to_vec(), vec![false, true, false]);
}

#[test]
fn a_comparison_of_shapes_that_do_not_broadcast_names_both() {
    let (_, _, message) = panic_site(|| drop(t(&[1.0, 2.0], &[2]).less(&t(&[1.0; 3], &[3]))));
    assert!(message.contains("less"), "{message}");
    assert!(
        message.contains("[2]") && message.contains("[3]"),
        "{message}"
    );
}

#[test]
fn where_cond_keeps_the_unchosen_branch_out_of_value_and_gradient() {
    // tf.where's documented pitfall is a NaN gradient through the unchosen branch of a
    // *computed* value (the chain rule multiplies by it); here the unchosen operand itself
    // holds an infinity and a NaN, and neither reaches the result nor the gradient
    let x = t(&[1.0, 2.0, 3.0], &[3]);
    let bad = t(&[f64::INFINITY, f64::NAN, 5.0], &[3]);
    let mask = Tensor::from_vec(vec![true, true, false], &[3]);
    let tape = GradientTape::new();
    tape.watch(&x);
    tape.watch(&bad);
    let y = tape.record(|| Tensor::where_cond(&mask, &x, &bad) * 2.0);
    assert_eq!(y.to_vec(), vec![2.0, 4.0, 10.0]);
    let (dx, dbad) = tape.gradient_connected(&y, (&x, &bad)).unwrap();
    assert_eq!(dx.to_vec(), vec![2.0, 2.0, 0.0]);
    assert_eq!(dbad.to_vec(), vec![0.0, 0.0, 2.0]);
}

#[test]
fn where_cond_broadcasts_all_three_and_sums_gradients_back() {
    let scalar = Tensor::scalar(10.0);
    let row = t(&[1.0, 2.0, 3.0], &[3]);
    let mask = Tensor::from_vec(vec![true, false], &[2, 1]);
    let tape = GradientTape::new();
    tape.watch(&scalar);
    tape.watch(&row);
    let y = tape.record(|| Tensor::where_cond(&mask, &scalar, &row));
    assert_eq!(y.shape(), &[2, 3]);
    assert_eq!(y.to_vec(), vec![10.0, 10.0, 10.0, 1.0, 2.0, 3.0]);
    let (ds, dr) = tape.gradient_connected(&y, (&scalar, &row)).unwrap();
    assert_eq!(ds.to_vec(), vec![3.0]);
    assert_eq!(dr.to_vec(), vec![1.0, 1.0, 1.0]);
    let (_, _, message) = panic_site(|| drop(Tensor::where_cond(&mask, &t(&[0.0; 4], &[4]), &row)));
    assert!(message.contains("where_cond"), "{message}");
}

#[test]
fn cumsum_by_hand_and_its_gradient_is_the_reverse_cumsum() {
    let x = t(&[1.0, 2.0, 3.0], &[3]);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let (inclusive, exclusive) =
        tape.record(|| (x.cumsum(0, false, false), x.cumsum(0, true, false)));
    assert_eq!(inclusive.to_vec(), vec![1.0, 3.0, 6.0]);
    assert_eq!(exclusive.to_vec(), vec![0.0, 1.0, 3.0]);
    // d Σ cumsum / dxᵢ = how many sums include xᵢ: 3, 2, 1 (and 2, 1, 0 exclusive)
    assert_eq!(
        tape.gradient_connected(&inclusive, &x).unwrap().to_vec(),
        vec![3.0, 2.0, 1.0]
    );
    assert_eq!(
        tape.gradient_connected(&exclusive, &x).unwrap().to_vec(),
        vec![2.0, 1.0, 0.0]
    );
    let (_, _, message) = panic_site(|| drop(x.cumsum(1, false, false)));
    assert!(message.contains("cumsum: axis 1"), "{message}");
}

#[test]
fn tensorflow_edge_cases_of_the_composite_reductions() {
    // reduce_min of nothing is +inf; logsumexp of only -inf is -inf (no NaN from inf - inf)
    assert_eq!(Tensor::<f64>::zeros(&[0]).min().to_scalar(), f64::INFINITY);
    let minus_inf = t(&[f64::NEG_INFINITY, f64::NEG_INFINITY], &[2]);
    assert_eq!(minus_inf.logsumexp().to_scalar(), f64::NEG_INFINITY);
    assert_eq!(
        Tensor::<f64>::zeros(&[0]).logsumexp().to_scalar(),
        f64::NEG_INFINITY
    );
    // the population variance (TensorFlow's), not the sample one
    assert_eq!(t(&[1.0, 3.0], &[2]).variance().to_scalar(), 1.0);
    // min's gradient is split between ties, as max's
    let x = t(&[2.0, 1.0, 1.0], &[3]);
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| x.min());
    assert_eq!(
        tape.gradient_connected(&y, &x).unwrap().to_vec(),
        vec![0.0, 0.5, 0.5]
    );
}

#[test]
fn std_and_norm_give_nan_gradients_where_their_square_root_is_at_zero() {
    // as TensorFlow's: d sqrt(u)/du is infinite at 0, times a zero: NaN, never a silent 0
    let x = t(&[2.0, 2.0], &[2]);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let (s, n) = tape.record(|| (x.std(), (&x - 2.0).norm()));
    assert_eq!(s.to_scalar(), 0.0);
    assert!(
        tape.gradient_connected(&s, &x)
            .unwrap()
            .to_vec()
            .iter()
            .all(|g| g.is_nan())
    );
    assert!(
        tape.gradient_connected(&n, &x)
            .unwrap()
            .to_vec()
            .iter()
            .all(|g| g.is_nan())
    );
}

#[test]
fn gather_takes_argmax_indices_and_checks_them() {
    let table = t(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2]);
    let scores = t(&[0.0, 5.0, 9.0, 1.0], &[2, 2]);
    let tape = GradientTape::new();
    tape.watch(&table);
    let picked = tape.record(|| table.gather(0, &scores.argmax_axis(1)));
    assert_eq!(picked.to_vec(), vec![3.0, 4.0, 1.0, 2.0]);
    // row 0 picked once, row 1 once, row 2 never
    let dt = tape.gradient_connected(&picked, &table).unwrap();
    assert_eq!(dt.to_vec(), vec![1.0, 1.0, 1.0, 1.0, 0.0, 0.0]);
    // a 0-d index removes the axis, as TensorFlow's
    assert_eq!(table.gather(0, &Tensor::scalar(2_i64)).shape(), &[2]);
    let (_, _, message) =
        panic_site(|| drop(table.gather(0, &Tensor::from_vec(vec![-1_i64], &[1]))));
    assert!(message.contains("gather: index -1"), "{message}");
    let (_, _, message) =
        panic_site(|| drop(table.gather(1, &Tensor::from_vec(vec![2_i32], &[1]))));
    assert!(
        message.contains("out of range for an axis of length 2"),
        "{message}"
    );
}

#[test]
fn stack_checks_its_operands() {
    let (a, b) = (t(&[1.0, 2.0], &[2]), t(&[1.0, 2.0, 3.0], &[3]));
    let (_, _, message) = panic_site(|| drop(Tensor::stack(&[&a, &b], 0)));
    assert!(
        message.contains("same shape") && message.contains("[3]"),
        "{message}"
    );
    let (_, _, message) = panic_site(|| drop(Tensor::stack(&[&a, &a], 2)));
    assert!(message.contains("stack: axis 2"), "{message}");
    let (_, _, message) = panic_site(|| drop(Tensor::<f64>::stack(&[], 0)));
    assert!(message.contains("at least one"), "{message}");
}

#[test]
fn composites_record_only_primitives() {
    type Call = (&'static str, fn(&Tensor<f64>) -> Tensor<f64>);
    let calls: [Call; 13] = [
        ("min", |x| x.min()),
        ("min_axis", |x| x.min_axis(1, false)),
        ("logsumexp", |x| x.logsumexp()),
        ("logsumexp_axis", |x| x.logsumexp_axis(0, true)),
        ("variance", |x| x.variance()),
        ("variance_axis", |x| x.variance_axis(1, false)),
        ("std", |x| x.std()),
        ("std_axis", |x| x.std_axis(0, false)),
        ("norm", |x| x.norm()),
        ("norm_axis", |x| x.norm_axis(1, true)),
        ("prod", |x| x.prod()),
        ("prod_axis", |x| x.prod_axis(1, false)),
        ("stack", |x| Tensor::stack(&[x, x], 1)),
    ];
    let names: Vec<&str> = calls.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        names,
        gradtape_primitives::COMPOSITES,
        "the table's list of composites"
    );
    for (name, call) in calls {
        let x = Tensor::random_uniform(&[2, 3], 0.5, 2.0, 7);
        let tape = GradientTape::persistent();
        tape.watch(&x);
        tape.record(|| drop(call(&x)));
        let nodes = generated::recorded_nodes(&tape);
        assert!(!nodes.is_empty(), "`{name}` recorded nothing");
        for node in nodes {
            assert!(
                gradtape_primitives::lookup(node.op).is_some(),
                "`{name}` recorded `{}`, which is no primitive",
                node.op
            );
        }
    }
}

#[test]
fn the_vectorised_jacobian_through_the_new_rules_equals_forward_mode() {
    // the reverse jacobian runs each rule once with the rows as leading batch axes; forward
    // mode runs one JVP per input element: independent paths through every new rule
    let mask = Tensor::from_vec(vec![true, false, false, true, true, false], &[2, 3]);
    let picks = Tensor::from_vec(vec![2_i64, 0, 2], &[3]);
    let f = move |x: &Tensor<f64>| {
        let chosen = Tensor::where_cond(&mask, &x.sin(), &x.square());
        let scanned = chosen.cumsum(1, false, true) * x;
        let gathered = scanned.gather(1, &picks);
        Tensor::stack(
            &[&gathered, &x.logsumexp_axis(1, true).broadcast_to(&[2, 3])],
            0,
        ) + x.variance_axis(0, false).sum()
            + x.norm_axis(1, true)
            + x.min_axis(0, false)
            + x.prod_axis(1, true)
    };
    let x = Tensor::random_normal(&[2, 3], 0.0, 1.0, 11);
    let reverse = transforms::jacobian(f.clone(), &x, JacobianMode::Reverse);
    let forward = transforms::jacobian(f, &x, JacobianMode::Forward);
    assert_eq!(reverse.shape(), &[2, 2, 3, 2, 3]);
    assert_close("jacobian", &reverse.to_vec(), &forward.to_vec(), 1e-12);
}

#[differentiable]
fn robust_scores(x: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let logits = x.matmul(w);
    let centred = &logits - logits.logsumexp_axis(1, true);
    let spread = centred.std_axis(1, false) + centred.variance() + logits.norm();
    let positive = logits.greater(&Tensor::scalar(0.0));
    let clipped = Tensor::where_cond(&positive, &logits, &(&logits * 0.1));
    let running = clipped.cumsum(1, false, false);
    let best = running.gather(1, &[2, 0]);
    Tensor::stack(&[&spread, &best.min_axis(1, false)], 0).sum()
        + running.min()
        + (&logits * 0.3).prod_axis(0, false).sum()
}

#[test]
fn differentiable_functions_use_the_new_ops_in_tensor_mode() {
    let inputs = [
        Tensor::random_normal(&[2, 3], 0.0, 1.0, 3),
        Tensor::random_normal(&[3, 4], 0.0, 1.0, 4),
    ];
    let fused = |x: &[Tensor<f64>]| robust_scores(&x[0], &x[1]);
    let plain = |x: &[Tensor<f64>]| robust_scores::primal(&x[0], &x[1]);
    if let Err(message) =
        check_annotated("robust_scores", &inputs, &fused, &plain, Tolerance::F64, 5)
    {
        panic!("{message}");
    }
}

/// The gradient and Hessian of `reduce_prod` where inputs are zero, against the analytic
/// ones: ∂/∂xᵢ Πx = Π_{k≠i} xₖ and ∂²/∂xᵢ∂xⱼ Πx = Π_{k≠i,j} xₖ (i ≠ j), 0 on the diagonal.
/// A rule dividing the product by the input would give NaN at every zero here.
#[test]
fn prod_is_exact_at_zeros_at_orders_one_and_two() {
    type Case = (&'static [f64], &'static [f64], [[f64; 3]; 3]);
    let cases: [Case; 3] = [
        // one zero: only its own partial is non-zero
        (
            &[2.0, 0.0, 3.0],
            &[0.0, 6.0, 0.0],
            [[0.0, 3.0, 0.0], [3.0, 0.0, 2.0], [0.0, 2.0, 0.0]],
        ),
        // two zeros: the gradient vanishes, the Hessian does not
        (
            &[0.0, 0.0, 3.0],
            &[0.0, 0.0, 0.0],
            [[0.0, 3.0, 0.0], [3.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
        ),
        // no zero
        (
            &[2.0, -1.0, 3.0],
            &[-3.0, 6.0, -2.0],
            [[0.0, 3.0, -1.0], [3.0, 0.0, 2.0], [-1.0, 2.0, 0.0]],
        ),
    ];
    for (input, gradient, hessian) in cases {
        let x = t(input, &[3]);
        let outer = GradientTape::new();
        outer.watch(&x);
        let g = outer.record(|| {
            let inner = GradientTape::new();
            inner.watch(&x);
            let y = inner.record(|| x.prod());
            inner.gradient(&y, &x).unwrap().unwrap()
        });
        assert_eq!(g.to_vec(), gradient, "gradient at {input:?}");
        let rows = outer.jacobian(&g, &x).unwrap().unwrap();
        let expected: Vec<f64> = hessian.iter().flatten().copied().collect();
        assert_eq!(rows.to_vec(), expected, "Hessian at {input:?}");
    }
}

/// Odd lengths carry their last element through the halving steps; an empty axis gives 1
/// and an empty gradient.
#[test]
fn prod_axis_handles_odd_and_empty_axes() {
    for n in 1..=9_usize {
        let values: Vec<f64> = (1..=n).map(|v| v as f64 * 0.5 + 0.25).collect();
        let x = t(&values, &[1, n]);
        let expected: f64 = values.iter().product();
        let got = x.prod_axis(1, false).to_vec();
        assert!(
            (got[0] - expected).abs() <= 1e-12 * expected.abs(),
            "n = {n}"
        );
        let tape = GradientTape::new();
        tape.watch(&x);
        let y = tape.record(|| x.prod_axis(1, false));
        let g = tape.gradient(&y, &x).unwrap().unwrap().to_vec();
        for (i, gi) in g.iter().enumerate() {
            let others: f64 = values
                .iter()
                .enumerate()
                .filter(|&(k, _)| k != i)
                .map(|(_, v)| v)
                .product();
            assert!(
                (gi - others).abs() <= 1e-12 * others.abs(),
                "n = {n}, i = {i}"
            );
        }
    }
    let empty = Tensor::<f64>::zeros(&[2, 0]);
    assert_eq!(empty.prod_axis(1, false).to_vec(), vec![1.0, 1.0]);
    assert_eq!(empty.prod().to_scalar(), 1.0);
    let tape = GradientTape::new();
    tape.watch(&empty);
    let y = tape.record(|| empty.prod_axis(1, true));
    assert_eq!(y.shape(), &[2, 1]);
    let g = tape.gradient(&y, &empty).unwrap().unwrap();
    assert_eq!(g.shape(), &[2, 0]);
}
