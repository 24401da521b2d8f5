//! `ht`: the Jacobian (theta and us columns, by the annotated error functions' tangent
//! code) against central finite differences of the objective and against the rows their
//! adjoint gives (`grad_into`), hand-computed values, the JSON input read as the reference
//! reads it, and bad input.

use gradtape_gradbench::Failure;
use gradtape_gradbench::evals::ht::{self, Problem, THETA, complicated_error, simple_error};
use serde_json::{Value, json};

/// A pose with every parameter away from zero (and a global rotation above the identity
/// cut-off).
fn theta() -> Vec<f64> {
    (0..THETA)
        .map(|c| 0.3 * ((c * 7 % 11) as f64 / 11.0 - 0.4))
        .collect()
}

fn us() -> Vec<f64> {
    vec![0.2, 0.3, 0.6, 0.1]
}

fn objective(problem: &Problem, theta: &[f64], us: Option<&[f64]>) -> Vec<f64> {
    problem.objective(theta, us)
}

/// Central differences of the objective along parameter `c` of `theta` (or of `us`).
fn difference(problem: &Problem, us: Option<&[f64]>, in_us: bool, c: usize) -> Vec<f64> {
    let h = 1e-6;
    let at = |delta: f64| {
        let (mut t, mut u) = (theta(), us.map(<[f64]>::to_vec));
        if in_us {
            u.as_mut().unwrap()[c] += delta;
        } else {
            t[c] += delta;
        }
        objective(problem, &t, u.as_deref())
    };
    let (up, down) = (at(h), at(-h));
    up.iter()
        .zip(&down)
        .map(|(a, b)| (a - b) / (2.0 * h))
        .collect()
}

fn close(what: &str, ours: f64, reference: f64) {
    assert!(
        (ours - reference).abs() <= 1e-6 * (1.0 + reference.abs()),
        "{what}: {ours} vs {reference}"
    );
}

fn check_jacobian(problem: &Problem) {
    let us = problem.is_complicated().then(us);
    let jacobian = problem.jacobian(&theta(), us.as_deref());
    let (by_theta, by_us) = (&jacobian.by_theta, &jacobian.by_us);
    assert_eq!(by_theta.len(), THETA);
    let mut nonzero = 0;
    for (c, column) in by_theta.iter().enumerate() {
        let fd = difference(problem, us.as_deref(), false, c);
        for (row, (a, b)) in column.iter().zip(&fd).enumerate() {
            close(&format!("∂err[{row}]/∂θ[{c}]"), *a, *b);
            nonzero += usize::from(b.abs() > 1e-3);
        }
    }
    // the example moves under most parameters (the bones after the first finger's weight
    // no vertex, so some columns are zero)
    assert!(nonzero > 20, "{nonzero}");
    if let Some(us) = &us {
        let by_us = by_us.as_ref().expect("complicated: us columns");
        for point in 0..2 {
            for (j, column) in by_us.iter().enumerate() {
                let fd = difference(problem, Some(us), true, 2 * point + j);
                for k in 0..3 {
                    close(
                        &format!("∂err[{point}, {k}]/∂u[{point}, {j}]"),
                        column[3 * point + k],
                        fd[3 * point + k],
                    );
                    // and nothing from the other point's u
                    close("cross term", fd[3 * (1 - point) + k], 0.0);
                }
            }
        }
    } else {
        assert!(by_us.is_none());
    }
}

#[test]
fn simple_jacobian_matches_finite_differences() {
    check_jacobian(&Problem::example(false));
}

#[test]
fn complicated_jacobian_matches_finite_differences() {
    check_jacobian(&Problem::example(true));
}

#[test]
fn mirrored_jacobian_matches_finite_differences() {
    for complicated in [false, true] {
        let mut problem = Problem::example(complicated);
        problem.model.is_mirrored = true;
        check_jacobian(&problem);
    }
}

/// The forward columns (`jvp`) against the reverse rows (`grad_into` with the output
/// cotangent `e_r`): two generated codes of the same functions, which must agree.
#[test]
fn tangent_columns_equal_adjoint_rows() {
    for complicated in [false, true] {
        let problem = Problem::example(complicated);
        let (theta, us) = (theta(), us());
        let jacobian = problem.jacobian(&theta, complicated.then_some(&us[..]));
        let (model, data) = (&problem.model, &problem.correspondences);
        for r in 0..6 {
            let mut err = [0.0; 6];
            let (mut d_theta, mut d_us, mut d_err) = ([0.0; THETA], [0.0; 4], [0.0; 6]);
            d_err[r] = 1.0;
            if complicated {
                complicated_error::grad_into(
                    &theta,
                    &us,
                    model,
                    data,
                    &mut err,
                    &mut d_theta,
                    &mut d_us,
                    &mut d_err,
                );
                let by_us = jacobian.by_us.as_ref().unwrap();
                for j in 0..2 {
                    close("us", by_us[j][r], d_us[2 * (r / 3) + j]);
                }
            } else {
                simple_error::grad_into(&theta, model, data, &mut err, &mut d_theta, &mut d_err);
            }
            for (c, column) in jacobian.by_theta.iter().enumerate() {
                close(&format!("∂err[{r}]/∂θ[{c}]"), column[r], d_theta[c]);
            }
        }
    }
}

#[test]
fn hand_computed_values() {
    // the rest pose translated by t: err = point − (rest vertex + t); the example's
    // targets are vertices 2 = (2, 0, 0.5) and 1 = (1.5, 0.5, 0)
    let problem = Problem::example(false);
    let mut theta = vec![0.0; THETA];
    theta[3..6].copy_from_slice(&[0.1, 0.2, 0.3]);
    let err = objective(&problem, &theta, None);
    let expected = [-0.1, -0.1, -0.4, -0.2, -0.1, -0.4];
    for (a, b) in err.iter().zip(expected) {
        assert!((a - b).abs() < 1e-12, "{err:?}");
    }
    let by_theta = problem.jacobian(&theta, None).by_theta;
    // ∂err/∂t = −I for every point; the rotation below 10⁻⁴ is the identity, constant
    // (no NaN from the angle's tangent, 0/0 at a zero angle, which the branch leaves)
    for k in 0..3 {
        let column = &by_theta[3 + k];
        for point in 0..2 {
            for l in 0..3 {
                let expected = if l == k { -1.0 } else { 0.0 };
                assert_eq!(column[3 * point + l], expected);
            }
        }
        assert!(by_theta[k].iter().all(|&d| d == 0.0));
    }
    // complicated, at rest: ∂err/∂u₀ = −(a − c) for the first point, of the triangle
    // (a, b, c) = vertices (0, 1, 2): a = (1, 0, 0), c = (2, 0, 0.5)
    let problem = Problem::example(true);
    let by_us = problem.jacobian(&[0.0; THETA], Some(&us())).by_us.unwrap();
    let (a, c) = ([1.0, 0.0, 0.0], [2.0, 0.0, 0.5]);
    for k in 0..3 {
        assert!((by_us[0][k] + (a[k] - c[k])).abs() < 1e-12, "{by_us:?}");
    }
}

/// The example as the eval sends it (matrices row by row, positions and weights per
/// vertex).
fn input(complicated: bool) -> Value {
    let bones = 22;
    let shift = |x: f64| {
        json!([
            [1.0, 0.0, 0.0, x],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0]
        ])
    };
    let mut weights = vec![vec![0.0; bones]; 3];
    weights[0][0] = 1.0;
    weights[1][0] = 0.5;
    weights[1][2] = 0.5;
    weights[2][2] = 1.0;
    json!({
        "theta": theta(),
        "us": if complicated { json!([[0.2, 0.3], [0.6, 0.1]]) } else { json!([]) },
        "data": {
            "model": {
                "bone_count": bones,
                "bone_names": (0..bones).map(|b| format!("bone{b}")).collect::<Vec<_>>(),
                "parents": (0..bones).map(|b| if b == 0 { -1 } else { b.min(2) as i64 - 1 }).collect::<Vec<_>>(),
                "base_relatives": (0..bones).map(|b| shift(if b == 0 { 0.0 } else { 1.0 })).collect::<Vec<_>>(),
                "inverse_base_absolutes": (0..bones).map(|b| shift(-(b.min(2) as f64))).collect::<Vec<_>>(),
                "base_positions": [[1.0, 0.0, 0.0, 1.0], [1.5, 0.5, 0.0, 1.0], [2.0, 0.0, 0.5, 1.0]],
                "weights": weights,
                "triangles": [[0, 1, 2], [2, 0, 1]],
                "is_mirrored": false,
            },
            "correspondences": if complicated { json!([0, 1]) } else { json!([2, 1]) },
            "points": [[2.0, 0.1, 0.4], [1.4, 0.6, -0.1]],
        },
        "min_runs": 2,
        "min_seconds": 0,
    })
}

#[test]
fn evaluate_reads_the_input_as_the_reference() {
    for complicated in [false, true] {
        let problem = Problem::example(complicated);
        let us = complicated.then(us);
        let done = ht::evaluate("objective", input(complicated)).unwrap();
        assert_eq!(done.timings.len(), 2);
        let expected = objective(&problem, &theta(), us.as_deref());
        assert_eq!(done.output, json!(expected));
        let done = ht::evaluate("jacobian", input(complicated)).unwrap();
        let rows: Vec<Vec<f64>> = serde_json::from_value(done.output).unwrap();
        assert_eq!(rows.len(), 6);
        let columns = THETA + if complicated { 2 } else { 0 };
        assert!(rows.iter().all(|row| row.len() == columns));
        // the theta columns are the last 26, row 3i + k
        let c0 = if complicated { 2 } else { 0 };
        let fd = difference(&problem, us.as_deref(), false, 7);
        for (row, d) in fd.iter().enumerate() {
            close("row of the output", rows[row][c0 + 7], *d);
        }
    }
}

fn bad_input(input: Value, says: &str) {
    match ht::evaluate("jacobian", input) {
        Err(Failure::BadInput { module, reason }) => {
            assert_eq!(module, "ht");
            assert!(reason.contains(says), "{reason}");
        }
        other => panic!("expected bad input, got {other:?}"),
    }
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let mut missing = input(true);
    missing["data"].as_object_mut().unwrap().remove("points");
    bad_input(missing, "missing field `points`");
    let mut short = input(false);
    short["theta"] = json!(vec![0.0; 3]);
    bad_input(short, "theta has 3 numbers");
    let mut us = input(true);
    us["us"] = json!([[0.1, 0.2]]);
    bad_input(us, "us has 1 rows for 2 correspondences");
    let mut far = input(false);
    far["data"]["correspondences"] = json!([2, 3]);
    bad_input(far, "names vertex 3");
    let mut triangle = input(true);
    triangle["data"]["correspondences"] = json!([0, 5]);
    bad_input(triangle, "there are 2 triangles");
    let mut parents = input(false);
    parents["data"]["model"]["parents"][3] = json!(7);
    bad_input(parents, "parents[3] = 7");
    let mut matrix = input(false);
    matrix["data"]["model"]["base_relatives"][1][2] = json!([0.0, 1.0]);
    bad_input(matrix, "base_relatives[1][2] has 2 numbers");
    let mut bones = input(false);
    bones["data"]["model"]["bone_count"] = json!(21);
    bad_input(bones, "bone_count = 21");
    let mut weights = input(false);
    weights["data"]["model"]["weights"][0] = json!([1.0]);
    bad_input(weights, "weights[0] has 1 numbers");
    assert!(matches!(
        ht::evaluate("hessian", input(false)),
        Err(Failure::UnknownFunction { .. })
    ));
}
