//! `ba`: the sparse Jacobian against central finite differences of the objective, a few
//! entries against hand-computed numbers, the output encoding, and bad input.

use gradtape_gradbench::Failure;
use gradtape_gradbench::evals::ba::{self, CAMERA_PARAMS, Problem, SparseJacobian};
use serde_json::json;

/// A small problem whose cameras, points, weights and features all differ, one camera with
/// a zero rotation (the small-angle branch).
fn problem() -> Problem {
    let (n, m, p) = (3, 4, 7);
    let mut cams = Vec::new();
    for c in 0..n {
        let s = c as f64;
        let rotation = if c == 1 {
            [0.0, 0.0, 0.0]
        } else {
            [0.3 - 0.1 * s, -0.2 + 0.05 * s, 0.15 * (s + 1.0)]
        };
        cams.extend(rotation);
        cams.extend([0.1 * s, -0.2, 0.3 + 0.1 * s]); // centre
        cams.push(2.0 + s); // focal length
        cams.extend([0.5 - 0.1 * s, -0.3]); // principal point
        cams.extend([0.05 + 0.01 * s, -0.02]); // distortion
    }
    let points = (0..3 * m)
        .map(|k| 0.3 * ((k * 7 % 5) as f64) - 0.4 + if k % 3 == 2 { 4.0 } else { 0.0 })
        .collect();
    Problem {
        n,
        m,
        cams,
        points,
        weights: (0..p).map(|i| 0.8 + 0.1 * i as f64).collect(),
        feats: (0..2 * p).map(|k| 0.2 * k as f64 - 0.5).collect(),
        obs: (0..p).map(|i| (i * 2 % n, (i * 3 + 1) % m)).collect(),
    }
}

/// The objective's `3p` values (reprojection errors, then weight errors).
fn objective(problem: &Problem) -> Vec<f64> {
    let (mut reproj, mut weight) = (Vec::new(), Vec::new());
    problem.objective(&mut reproj, &mut weight);
    reproj.extend(weight);
    reproj
}

/// The Jacobian by central differences, dense, `[3p][11n + 3m + p]`.
fn finite_differences(problem: &Problem) -> Vec<Vec<f64>> {
    let columns = problem.cams.len() + problem.points.len() + problem.weights.len();
    let rows = 3 * problem.obs.len();
    let mut dense = vec![vec![0.0; columns]; rows];
    let h = 1e-6;
    for column in 0..columns {
        let shifted = |delta: f64| {
            let mut q = problem.clone();
            let (nc, np) = (q.cams.len(), q.points.len());
            if column < nc {
                q.cams[column] += delta;
            } else if column < nc + np {
                q.points[column - nc] += delta;
            } else {
                q.weights[column - nc - np] += delta;
            }
            objective(&q)
        };
        let (up, down) = (shifted(h), shifted(-h));
        for (entry, (up, down)) in dense.iter_mut().zip(up.iter().zip(&down)) {
            entry[column] = (up - down) / (2.0 * h);
        }
    }
    dense
}

fn dense(jacobian: &SparseJacobian, rows: usize, columns: usize) -> Vec<Vec<f64>> {
    assert_eq!(jacobian.rows.len(), rows + 1);
    let mut dense = vec![vec![0.0; columns]; rows];
    for (row, out) in dense.iter_mut().enumerate() {
        for k in jacobian.rows[row]..jacobian.rows[row + 1] {
            out[jacobian.cols[k]] += jacobian.vals[k];
        }
    }
    dense
}

#[test]
fn jacobian_matches_finite_differences() {
    let problem = problem();
    let mut jacobian = SparseJacobian::default();
    problem.jacobian(&mut jacobian);
    let p = problem.obs.len();
    assert_eq!(jacobian.cols.len(), 30 * p + p);
    let columns = CAMERA_PARAMS * problem.n + 3 * problem.m + p;
    let ours = dense(&jacobian, 3 * p, columns);
    let fd = finite_differences(&problem);
    for (row, (a, b)) in ours.iter().zip(&fd).enumerate() {
        for (column, (x, y)) in a.iter().zip(b).enumerate() {
            assert!(
                (x - y).abs() <= 1e-6 * (1.0 + y.abs()),
                "row {row} column {column}: {x} vs finite differences {y}"
            );
        }
    }
    // the second run reuses the buffers and gives the same matrix
    let first = jacobian.clone();
    problem.jacobian(&mut jacobian);
    assert_eq!(
        (first.rows, first.cols, first.vals),
        (jacobian.rows, jacobian.cols, jacobian.vals)
    );
}

#[test]
fn hand_computed_entries() {
    // one observation: no rotation, camera at the origin, f = 2, principal point
    // (0.5, 0), k1 = 0.1, k2 = 0; the point (1, 2, 4), weight 3, feature (0, 0)
    let mut cam = [0.0; 11];
    cam[6] = 2.0;
    cam[7] = 0.5;
    cam[9] = 0.1;
    let problem = Problem::duplicated(1, 1, 1, &cam, &[1.0, 2.0, 4.0], 3.0, &[0.0, 0.0]);
    let mut jacobian = SparseJacobian::default();
    problem.jacobian(&mut jacobian);
    let l = 1.0 + 0.1 * 5.0 / 16.0; // the distortion at (1/4, 1/2)
    let row_x = &jacobian.vals[0..15];
    // ∂ex/∂f = w · h0 · L, ∂ex/∂u0 = w, ∂ex/∂v0 = 0, ∂ex/∂k1 = w f h0 r², ∂ex/∂w = proj_x
    assert!((row_x[6] - 3.0 * 0.25 * l).abs() < 1e-12);
    assert_eq!((row_x[7], row_x[8]), (3.0, 0.0));
    assert!((row_x[9] - 3.0 * 2.0 * 0.25 * 5.0 / 16.0).abs() < 1e-12);
    assert!((row_x[14] - (0.25 * l * 2.0 + 0.5)).abs() < 1e-12);
    // ∂ex/∂x0 = w f (L + 2 k1 h0²) / x2
    let expected = 3.0 * 2.0 * (l + 2.0 * 0.1 * 0.25 * 0.25) / 4.0;
    assert!((row_x[11] - expected).abs() < 1e-12, "{}", row_x[11]);
    // the weight row: −2w
    assert_eq!(jacobian.vals[30], -6.0);
    assert_eq!(jacobian.cols[30], 11 + 3);
}

#[test]
fn evaluate_encodes_as_the_reference() {
    let input = json!({
        "n": 2, "m": 3, "p": 40, "cam": [0.1, -0.2, 0.3, 0.0, 0.0, -5.0, 2.0, 0.1, 0.2, 0.01, 0.0],
        "x": [0.5, -0.5, 1.0], "w": 0.9, "feat": [0.3, -0.1], "min_runs": 2, "min_seconds": 0,
    });
    let done = ba::evaluate("objective", input.clone()).unwrap();
    assert_eq!(done.timings.len(), 2);
    assert_eq!(done.output["reproj_error"]["repeated"], 40);
    assert_eq!(
        done.output["reproj_error"]["elements"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        done.output["w_err"],
        json!({ "element": 1.0 - 0.9 * 0.9, "repeated": 40 })
    );
    let done = ba::evaluate("jacobian", input).unwrap();
    let rows: Vec<usize> = serde_json::from_value(done.output["rows"].clone()).unwrap();
    let cols: Vec<usize> = serde_json::from_value(done.output["cols"].clone()).unwrap();
    let vals: Vec<f64> = serde_json::from_value(done.output["vals"].clone()).unwrap();
    assert_eq!((rows.len(), cols.len(), vals.len()), (31, 31, 31));
    assert_eq!(&rows[..4], &[0, 15, 30, 45]);
    assert_eq!(*rows.last().unwrap(), 31 * 40);
    // the first row's columns: camera 0, point 0, weight 0; the last: weight 39
    let first: Vec<usize> = (0..11).chain([22, 23, 24, 31]).collect();
    assert_eq!(&cols[..15], first.as_slice());
    assert_eq!(*cols.last().unwrap(), 22 + 9 + 39);
    assert_eq!(*vals.last().unwrap(), -1.8);
}

fn bad_input(function: &str, input: serde_json::Value, says: &str) {
    match ba::evaluate(function, input) {
        Err(Failure::BadInput { module, reason }) => {
            assert_eq!(module, "ba");
            assert!(reason.contains(says), "{reason}");
        }
        other => panic!("expected bad input, got {other:?}"),
    }
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let zeros = vec![0.0; 11];
    let good = json!({
        "n": 1, "m": 1, "p": 1, "cam": zeros, "x": [0.0, 0.0, 1.0], "w": 1.0,
        "feat": [0.0, 0.0], "min_runs": 1, "min_seconds": 0,
    });
    let with = |field: &str, value: serde_json::Value| {
        let mut input = good.clone();
        input[field] = value;
        input
    };
    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("cam");
    bad_input("objective", missing, "missing field `cam`");
    bad_input(
        "jacobian",
        with("cam", json!(vec![0.0; 10])),
        "cam has 10 numbers",
    );
    bad_input("jacobian", with("x", json!([0.0, 1.0])), "x has 2 numbers");
    bad_input(
        "objective",
        with("feat", json!([0.0])),
        "feat has 1 numbers",
    );
    bad_input("jacobian", with("p", json!(0)), "p = 0");
    bad_input("jacobian", with("n", json!(-1)), "invalid value");
    bad_input("objective", with("w", json!("heavy")), "invalid type");
    assert!(matches!(
        ba::evaluate("hessian", good),
        Err(Failure::UnknownFunction { .. })
    ));
}
