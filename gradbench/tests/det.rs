//! `det`: the primal against the reference's recursion written out on plain numbers, the
//! gradient against central differences of the primal, hand-computed values, and bad input
//! answered as `BadInput`.

mod common;

use gradtape_gradbench::Failure;
use gradtape_gradbench::evals::det::evaluate;
use serde_json::{Value, json};

fn input(a: &[f64], ell: usize) -> Value {
    json!({ "A": a, "ell": ell, "min_runs": 1, "min_seconds": 0 })
}

fn primal(a: &[f64], ell: usize) -> f64 {
    evaluate("primal", input(a, ell))
        .unwrap()
        .output
        .as_f64()
        .unwrap()
}

fn gradient(a: &[f64], ell: usize) -> Vec<f64> {
    serde_json::from_value(evaluate("gradient", input(a, ell)).unwrap().output).unwrap()
}

/// Expansion along the first remaining row, depth first, as the C++ reference.
fn by_minors(a: &[f64], ell: usize, row: usize, columns: &[usize]) -> f64 {
    if columns.len() == 1 {
        return a[row * ell + columns[0]];
    }
    let mut det = 0.0;
    for (j, &c) in columns.iter().enumerate() {
        let rest: Vec<usize> = columns.iter().copied().filter(|&k| k != c).collect();
        let term = a[row * ell + c] * by_minors(a, ell, row + 1, &rest);
        det = if j % 2 == 0 { det + term } else { det - term };
    }
    det
}

fn matrix(ell: usize, seed: u64) -> Vec<f64> {
    let mut state = seed;
    (0..ell * ell)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64 - 0.3
        })
        .collect()
}

#[test]
fn primal_is_the_recursion() {
    for ell in 1..=7 {
        let a = matrix(ell, ell as u64);
        let columns: Vec<usize> = (0..ell).collect();
        let expected = by_minors(&a, ell, 0, &columns);
        let got = primal(&a, ell);
        assert!(
            (got - expected).abs() <= 1e-13 * (1.0 + expected.abs()),
            "ℓ = {ell}: {got} vs {expected}"
        );
    }
}

#[test]
fn gradient_matches_central_differences() {
    for ell in 1..=5 {
        let a = matrix(ell, 100 + ell as u64);
        let got = gradient(&a, ell);
        assert_eq!(got.len(), ell * ell);
        let expected = common::finite_differences(|a| primal(a, ell), &a, 1e-6);
        common::assert_close(&format!("ℓ = {ell}, entry"), &got, &expected, 1e-8);
    }
}

/// Both formulations (plain numbers for small `ℓ`, tensors for large) at every size either
/// serves: the slice primal is the reference's recursion bit for bit (the same products
/// and sums in the same order; the tensor one sums each minor in a matrix product, to a
/// rounding), and the gradients agree, the slice one with central differences too.
#[test]
fn slice_and_tensor_formulations_agree() {
    use gradtape::Tensor;
    use gradtape_gradbench::evals::det::{Expansion, determinant, determinant_of_slice};
    for ell in 1..=8 {
        let a = matrix(ell, 200 + ell as u64);
        let plan = Expansion::new(ell);
        let t = Tensor::from_vec(a.clone(), &[ell * ell]);
        let by_slice = determinant_of_slice(&a, &plan);
        let columns: Vec<usize> = (0..ell).collect();
        let reference = by_minors(&a, ell, 0, &columns);
        assert_eq!(by_slice.to_bits(), reference.to_bits(), "ℓ = {ell}");
        let by_tensor = determinant(&t, &plan).to_scalar();
        assert!(
            (by_tensor - reference).abs() <= 1e-13 * (1.0 + reference.abs()),
            "ℓ = {ell}: {by_tensor} vs {reference}"
        );
        let mut d_slice = vec![0.0; ell * ell];
        determinant_of_slice::grad_into(&a, &plan, &mut d_slice);
        let (_, pullback) = determinant::vjp(&t, &plan);
        let d_tensor = pullback(Tensor::scalar(1.0)).0.unwrap().to_vec();
        common::assert_close(&format!("ℓ = {ell}, entry"), &d_slice, &d_tensor, 1e-12);
        if ell <= 6 {
            let expected = common::finite_differences(|a| determinant_of_slice(a, &plan), &a, 1e-6);
            common::assert_close(&format!("ℓ = {ell}, entry"), &d_slice, &expected, 1e-8);
        }
    }
}

#[test]
fn values_by_hand() {
    // 2(3 − 2) − 0 + 1(1 − 3) = 0, and the cofactors
    let a = [2.0, 0.0, 1.0, 1.0, 3.0, 2.0, 1.0, 1.0, 1.0];
    assert_eq!(primal(&a, 3), 0.0);
    // ∂det/∂aᵢⱼ = (−1)^(i+j) det(minor ij)
    let cofactors = [1.0, 1.0, -2.0, 1.0, 1.0, -2.0, -3.0, -3.0, 6.0];
    assert_eq!(gradient(&a, 3), cofactors);
    assert_eq!(primal(&[-4.5], 1), -4.5);
    assert_eq!(gradient(&[-4.5], 1), vec![1.0]);
}

fn bad(function: &str, input: Value) -> String {
    common::bad_input_reason("det", evaluate(function, input))
}

#[test]
fn bad_input_is_reported() {
    assert!(bad("primal", input(&[1.0, 2.0, 3.0], 2)).contains("A has 3 entries"));
    assert!(bad("gradient", input(&[], 0)).contains("ell = 0"));
    let mut wrong = input(&[1.0], 1);
    wrong["a"] = wrong["A"].take();
    wrong.as_object_mut().unwrap().remove("A");
    assert!(bad("primal", wrong).contains("missing field `A`"));
    assert!(matches!(
        evaluate("hessian", input(&[1.0], 1)),
        Err(Failure::UnknownFunction { .. })
    ));
    assert!(matches!(
        evaluate("primal", input(&vec![0.0; 144], 12)),
        Err(Failure::Unsupported { .. })
    ));
}
