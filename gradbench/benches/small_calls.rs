//! The cost of calls between small annotated functions (issue 13): one bundle-adjustment
//! reprojection error (GradBench's `ba`), differentiated by `grad_into`, written twice:
//! as the C++ reference writes it, five small writers over slices calling each other
//! (`cross`, `rodrigues_rotate_point`, `radial_distort`, `project`, `reprojection_error`),
//! and as one function with the same arithmetic (the eval's own
//! [`reprojection_error`](gradtape_gradbench::evals::ba::reprojection_error)). Both give the same Jacobian row (checked before timing); the ratio is what the
//! calls cost: each small callee's save stacks, the `Option<Vec>` cotangents of its slice
//! parameters, its local arrays' growable shadows, and the boxed pullback of a call in a
//! branch.

// `criterion_group!` generates an undocumented function.
#![allow(missing_docs)]
// The functions are written as the C++ reference writes them, index loops included.
#![allow(clippy::needless_range_loop)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use gradtape_gradbench::evals::ba::reprojection_error;

mod composed {
    use gradtape::differentiable;

    #[differentiable]
    pub fn cross(a: &[f64], b: &[f64], out: &mut [f64]) {
        out[0] = a[1] * b[2] - a[2] * b[1];
        out[1] = a[2] * b[0] - a[0] * b[2];
        out[2] = a[0] * b[1] - a[1] * b[0];
    }

    #[differentiable]
    pub fn rodrigues_rotate_point(rot: &[f64], pt: &[f64], rotated: &mut [f64]) {
        let sqtheta: f64 = rot.iter().map(|r| r * r).sum();
        if sqtheta != 0.0 {
            let theta = sqtheta.sqrt();
            let (sin, cos) = theta.sin_cos();
            let w = [rot[0] / theta, rot[1] / theta, rot[2] / theta];
            let mut w_cross_pt = [0.0; 3];
            cross(&w, pt, &mut w_cross_pt);
            let along = (w[0] * pt[0] + w[1] * pt[1] + w[2] * pt[2]) * (1.0 - cos);
            for i in 0..3 {
                rotated[i] = pt[i] * cos + w_cross_pt[i] * sin + w[i] * along;
            }
        } else {
            let mut rot_cross_pt = [0.0; 3];
            cross(rot, pt, &mut rot_cross_pt);
            for i in 0..3 {
                rotated[i] = pt[i] + rot_cross_pt[i];
            }
        }
    }

    #[differentiable]
    pub fn radial_distort(rad: &[f64], proj: &mut [f64]) {
        let rsq = proj[0] * proj[0] + proj[1] * proj[1];
        let l = 1.0 + rad[0] * rsq + rad[1] * rsq * rsq;
        proj[0] *= l;
        proj[1] *= l;
    }

    #[differentiable]
    pub fn project(cam: &[f64], x: &[f64], proj: &mut [f64]) {
        let xo = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
        let mut xcam = [0.0; 3];
        rodrigues_rotate_point(&cam[0..3], &xo, &mut xcam);
        proj[0] = xcam[0] / xcam[2];
        proj[1] = xcam[1] / xcam[2];
        radial_distort(&cam[9..11], &mut *proj);
        proj[0] = proj[0] * cam[6] + cam[7];
        proj[1] = proj[1] * cam[6] + cam[8];
    }

    #[differentiable(constant(feat))]
    pub fn reprojection_error(cam: &[f64], x: &[f64], w: f64, feat: &[f64], err: &mut [f64]) {
        let mut proj = [0.0; 2];
        project(cam, x, &mut proj);
        err[0] = w * (proj[0] - feat[0]);
        err[1] = w * (proj[1] - feat[1]);
    }
}

type Row = ([f64; 11], [f64; 3], f64);

const CAM: [f64; 11] = [0.3, -0.2, 0.15, 0.1, -0.2, 0.3, 2.0, 0.5, -0.3, 0.05, -0.02];
const X: [f64; 3] = [0.2, -0.4, 4.0];
const FEAT: [f64; 2] = [0.1, -0.3];

fn row_composed(seed: [f64; 2]) -> Row {
    let (mut d_cam, mut d_x, mut d_w) = ([0.0; 11], [0.0; 3], 0.0);
    let (mut err, mut d_err) = ([0.0; 2], seed);
    composed::reprojection_error::grad_into(
        &CAM, &X, 0.9, &FEAT, &mut err, &mut d_cam, &mut d_x, &mut d_w, &mut d_err,
    );
    (d_cam, d_x, d_w)
}

fn row_single(seed: [f64; 2]) -> Row {
    let (mut d_cam, mut d_x, mut d_w) = ([0.0; 11], [0.0; 3], 0.0);
    let (mut err, mut d_err) = ([0.0; 2], seed);
    reprojection_error::grad_into(
        &CAM, &X, 0.9, &FEAT, &mut err, &mut d_cam, &mut d_x, &mut d_w, &mut d_err,
    );
    (d_cam, d_x, d_w)
}

fn bench(c: &mut Criterion) {
    for seed in [[1.0, 0.0], [0.0, 1.0]] {
        let (a, b) = (row_composed(seed), row_single(seed));
        let close = |p: f64, q: f64| (p - q).abs() <= 1e-13 * (1.0 + q.abs());
        assert!(
            a.0.iter().zip(&b.0).all(|(p, q)| close(*p, *q))
                && a.1.iter().zip(&b.1).all(|(p, q)| close(*p, *q))
                && close(a.2, b.2),
            "the two forms disagree: {a:?} vs {b:?}"
        );
    }
    // the functions themselves agree too
    let (mut a, mut b) = ([0.0; 2], [0.0; 2]);
    composed::reprojection_error(&CAM, &X, 0.9, &FEAT, &mut a);
    reprojection_error(&CAM, &X, 0.9, &FEAT, &mut b);
    assert!((a[0] - b[0]).abs() < 1e-13 && (a[1] - b[1]).abs() < 1e-13);
    println!(
        "error {b:?}; d/dcam of its x row: {:?}",
        row_single([1.0, 0.0]).0
    );
    let mut group = c.benchmark_group("small calls: one reprojection row");
    group.bench_function("five annotated writers calling each other", |b| {
        b.iter(|| row_composed(black_box([1.0, 0.0])))
    });
    group.bench_function("one annotated function", |b| {
        b.iter(|| row_single(black_box([1.0, 0.0])))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
