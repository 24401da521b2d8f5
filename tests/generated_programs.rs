//! Programs written by `gradtape-fuzz` (fuzz/src/main.rs), each an annotated function
//! checked against the op-by-op tape and central finite differences, orders 1 and 2.
//! Generated: do not edit; regenerate with
//! `cargo run -p gradtape-fuzz -- --seeds SEEDS --test-file tests/generated_programs.rs`.

#![allow(unused, clippy::all)]

mod common;

use common::{Domain, Tolerance, check_annotated, sample};
use gradtape::{Tensor, differentiable};

/// Called by the programs: another annotated function, broadcasting.
#[differentiable]
fn helper_mix(u: &Tensor<f64>, v: &Tensor<f64>) -> Tensor<f64> {
    (u * v).tanh() + u * 0.5
}

/// Called by the programs: another annotated function with a branch on a value.
#[differentiable]
fn helper_bend(u: &Tensor<f64>) -> Tensor<f64> {
    let s = u.sin();
    if u.sum().to_scalar() > 0.0 {
        s * u
    } else {
        s - u * 0.25
    }
}

fn inputs(seed: u64) -> Vec<Tensor<f64>> {
    let domain = Domain::Uniform(-1.0, 1.0);
    vec![
        sample(&[2, 3], domain, seed),
        sample(&[3], domain, seed + 1),
        sample(&[3, 3], domain, seed + 2),
    ]
}

fn check(name: &str, seed: u64, fused: common::Op<'_>, plain: common::Op<'_>) {
    if let Err(message) = check_annotated(name, &inputs(seed), fused, plain, Tolerance::F64, seed) {
        panic!("{message}");
    }
}

#[differentiable]
fn program_0(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let x = (x.tanh()) / ((x.tanh()).square() + 1.0);
    let x = &x + (x.tanh());
    let v1 = 0.1 - (x.tanh());
    let mut acc2 = v1.mean_axis(0, false);
    for _ in 0..3 {
        acc2 = (&acc2 * 0.5 + (y.tanh())).tanh();
    }
    let mut acc3 = v1.matmul(w) * 0.5;
    for _ in 0..1 {
        let v4 = &x / (x.square() + 1.0);
        acc3 = (&acc3 * 0.5 + (acc3.tanh())).tanh();
    }
    (&x * (acc2.mean())) * (v1.sum() * 0.2)
}

#[test]
fn program_0_matches_the_tape_and_finite_differences() {
    check("program_0", 0, &|a| program_0(&a[0], &a[1], &a[2]), &|a| {
        program_0::primal(&a[0], &a[1], &a[2])
    });
}

#[differentiable]
fn program_1(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let v1 = (w.tanh()).mean_axis(1, false);
    let v2 = (x.tanh()) + (x.tanh());
    (x * y) * y
}

#[test]
fn program_1_matches_the_tape_and_finite_differences() {
    check("program_1", 1, &|a| program_1(&a[0], &a[1], &a[2]), &|a| {
        program_1::primal(&a[0], &a[1], &a[2])
    });
}

#[differentiable]
fn program_2(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let x = if (y.mean()).to_scalar() > 0.4 {
        (x.tanh()).cos()
    } else {
        x * (y.mean())
    };
    let v1 = (y.tanh()) + (y.tanh());
    let v2 = v1.mean();
    let v3 = x.sigmoid();
    (&v3 - y) - (v3.sum_axis(0, false) * 0.5)
}

#[test]
fn program_2_matches_the_tape_and_finite_differences() {
    check("program_2", 2, &|a| program_2(&a[0], &a[1], &a[2]), &|a| {
        program_2::primal(&a[0], &a[1], &a[2])
    });
}

#[differentiable]
fn program_3(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let v1 = (y.tanh()) * (y.mean());
    let v2 = (x.tanh()) - (y.tanh());
    let mut acc3 = -0.1 - x;
    for _ in 0..1 {
        let v4 = acc3.cos();
        acc3 = (&acc3 * 0.5 + (acc3.tanh())).tanh();
    }
    let v6 = {
        let mut acc5 = y * (y.mean());
        for _ in 0..1 {
            acc5 = (&acc5 * 0.5 + y).tanh();
        }
        0.3 - x
    };
    (helper_mix(&v6, y)) * (&v1 + &v1)
}

#[test]
fn program_3_matches_the_tape_and_finite_differences() {
    check("program_3", 3, &|a| program_3(&a[0], &a[1], &a[2]), &|a| {
        program_3::primal(&a[0], &a[1], &a[2])
    });
}

#[differentiable]
fn program_4(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let v1 = x.sin() * -1.8;
    let mut acc2 = helper_mix(&v1, y);
    for _ in 0..1 {
        let v3 = &acc2 * (y.mean());
        acc2 = (&acc2 * 0.5 + (x.tanh())).tanh();
    }
    let v6 = {
        let v4 = (x.tanh()) / ((acc2.tanh()).square() + 1.0);
        let v5 = (x.tanh()) * (y.tanh());
        (w.tanh()).mean()
    };
    let v7 = (x.tanh()) * (y.mean());
    let v11 = if (y.mean()).to_scalar() < -0.7 {
        let mut acc8 = x.sum_axis(0, false) * 0.5;
        for _ in 0..3 {
            acc8 = (&acc8 * 0.5 + (y.tanh())).tanh();
        }
        (v1.tanh()) - y
    } else {
        let v10 = if true {
            x.sum_axis(0, false) * 0.5
        } else {
            let v9 = (x.tanh()).matmul(&(w.tanh())) * 0.5;
            (w.tanh()).mean_axis(1, false)
        };
        let x = (v1.tanh()) + (v7.tanh());
        helper_mix(&(acc2.tanh()), &(y.tanh()))
    };
    &v11 * (w.mean())
}

#[test]
fn program_4_matches_the_tape_and_finite_differences() {
    check("program_4", 4, &|a| program_4(&a[0], &a[1], &a[2]), &|a| {
        program_4::primal(&a[0], &a[1], &a[2])
    });
}

#[differentiable]
fn program_5(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let v1 = helper_bend(&(x.tanh()));
    let x = (v1.tanh()).matmul(&(w.tanh())) * 0.5;
    helper_mix(&v1, &(x.sum_axis(0, false) * 0.5))
}

#[test]
fn program_5_matches_the_tape_and_finite_differences() {
    check("program_5", 5, &|a| program_5(&a[0], &a[1], &a[2]), &|a| {
        program_5::primal(&a[0], &a[1], &a[2])
    });
}

#[differentiable]
fn program_6(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let v6 = if (y.mean()).to_scalar() > -0.5 {
        let v3 = {
            let v1 = (x.tanh()).sum_axis(0, false) * 0.5;
            let v1 = &v1 + (y.tanh());
            let v2 = x.sum_axis(0, false) * 0.5;
            -1.0 - (x.tanh())
        };
        0.7 - (x.tanh())
    } else {
        let mut acc4 = -0.6 - x;
        for _ in 0..2 {
            let v5 = &acc4 * y;
            acc4 = (&acc4 * 0.5 + (v5.tanh())).tanh();
        }
        helper_bend(&acc4)
    };
    let v12 = if (y.mean()).to_scalar() > -0.1 {
        let v7 = v6.matmul(&(w.tanh())) * 0.5;
        let mut acc8 = v7.matmul(w) * 0.5;
        for _ in 0..2 {
            let v9 = x * y;
            acc8 = (&acc8 * 0.5 + (v9.tanh())).tanh();
        }
        y.mean()
    } else {
        let y = if (y.mean()).to_scalar() > -0.8 {
            (y.tanh()) + (y.tanh())
        } else {
            let v10 = (w.tanh()).mean_axis(1, false);
            (v10.tanh()) + (y.tanh())
        };
        let v11 = (v6.tanh()) * (y.mean());
        x.sum() * 0.2
    };
    helper_mix(&(x * y), y)
}

#[test]
fn program_6_matches_the_tape_and_finite_differences() {
    check("program_6", 6, &|a| program_6(&a[0], &a[1], &a[2]), &|a| {
        program_6::primal(&a[0], &a[1], &a[2])
    });
}

#[differentiable]
fn program_7(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let v2 = {
        let v1 = if (y.mean()).to_scalar() > -0.7 {
            (y.tanh()) * (y.mean())
        } else {
            let x = x * (y.mean());
            (y.tanh()) + y
        };
        (y.tanh()) + (y.tanh())
    };
    let mut acc3 = x * (v2.mean());
    for _ in 0..3 {
        let v4 = helper_mix(&acc3, &v2);
        acc3 = (&acc3 * 0.5 + (v4.tanh())).tanh();
    }
    (&acc3 - &v2).sin()
}

#[test]
fn program_7_matches_the_tape_and_finite_differences() {
    check("program_7", 7, &|a| program_7(&a[0], &a[1], &a[2]), &|a| {
        program_7::primal(&a[0], &a[1], &a[2])
    });
}

#[differentiable]
fn program_8(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let x = -0.1 - x;
    let v1 = (x.tanh()).matmul(&(w.tanh())) * 0.5;
    let x = {
        let mut acc2 = helper_mix(&x, y);
        for _ in 0..2 {
            acc2 = (&acc2 * 0.5 + &acc2).tanh();
        }
        (acc2.tanh()) + (v1.tanh())
    };
    let v3 = (w.tanh()).mean_axis(1, false);
    let mut acc4 = v1.tanh();
    for _ in 0..1 {
        acc4 = (&acc4 * 0.5 + (x.tanh())).tanh();
    }
    (&v1 / (v1.square() + 1.0)) * (y.mean())
}

#[test]
fn program_8_matches_the_tape_and_finite_differences() {
    check("program_8", 8, &|a| program_8(&a[0], &a[1], &a[2]), &|a| {
        program_8::primal(&a[0], &a[1], &a[2])
    });
}

#[differentiable]
fn program_9(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let v1 = (x.tanh()).tanh().square();
    let v2 = y + (y.tanh());
    let v6 = {
        let mut acc3 = w.mean_axis(1, false);
        for _ in 0..3 {
            acc3 = (&acc3 * 0.5 + (y.tanh())).tanh();
        }
        let acc3 = (y.tanh()) * (acc3.mean());
        let mut acc4 = acc3.sin() * -0.8;
        for _ in 0..2 {
            let v5 = x.mean_axis(0, false);
            acc4 = (&acc4 * 0.5 + (acc3.tanh())).tanh();
        }
        (v1.tanh()) * (y.tanh())
    };
    let v7 = (x.tanh()).sum() * 0.2;
    let mut acc8 = v1.sum_axis(0, false) * 0.5;
    for _ in 0..3 {
        acc8 = (&acc8 * 0.5 + (y.tanh())).tanh();
    }
    x + &v1
}

#[test]
fn program_9_matches_the_tape_and_finite_differences() {
    check("program_9", 9, &|a| program_9(&a[0], &a[1], &a[2]), &|a| {
        program_9::primal(&a[0], &a[1], &a[2])
    });
}

#[differentiable]
fn program_10(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let v1 = (y.tanh()).mean();
    let y = (x.tanh()).sum_axis(0, false) * 0.5;
    let v2 = (x.tanh()) - (y.tanh());
    -0.5 - (x.tanh().exp())
}

#[test]
fn program_10_matches_the_tape_and_finite_differences() {
    check(
        "program_10",
        10,
        &|a| program_10(&a[0], &a[1], &a[2]),
        &|a| program_10::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_11(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let y = (y.tanh()) + (y.tanh());
    let v3 = {
        let x = (x.tanh()).sin();
        let v1 = (x.tanh()).sum_axis(0, false) * 0.5;
        let mut acc2 = x.sum_axis(0, false) * 0.5;
        for _ in 0..3 {
            acc2 = (&acc2 * 0.5 + (v1.tanh())).tanh();
        }
        (x.tanh()).mean_axis(0, false)
    };
    let mut acc4 = x.sum_axis(0, false) * 0.5;
    for _ in 0..2 {
        acc4 = (&acc4 * 0.5 + (y.tanh())).tanh();
    }
    let v5 = (v3.tanh()).sin();
    0.8 - (x / (x.square() + 1.0))
}

#[test]
fn program_11_matches_the_tape_and_finite_differences() {
    check(
        "program_11",
        11,
        &|a| program_11(&a[0], &a[1], &a[2]),
        &|a| program_11::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_12(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let y = y * (y.mean());
    let v1 = (x.tanh()).sum_axis(0, false) * 0.5;
    let x = if true {
        let v3 = {
            let v2 = x - &y;
            helper_bend(&(x.tanh()))
        };
        (v3.tanh()) + (v3.tanh())
    } else {
        let v4 = if 2 + 2 == 5 {
            let v1 = (w.tanh()).mean_axis(1, false);
            (x.tanh()) + (x.tanh())
        } else {
            (x.tanh()).tanh().square()
        };
        (x.tanh()).sigmoid()
    };
    let x = {
        let mut acc5 = w.mean_axis(1, false);
        for _ in 0..2 {
            let v6 = x.sum_axis(0, false) * 0.5;
            acc5 = (&acc5 * 0.5 + (v6.tanh())).tanh();
        }
        (x.tanh()).matmul(&(w.tanh())) * 0.5
    };
    (helper_bend(&x)).matmul(&(w * 0.5)) * 0.5
}

#[test]
fn program_12_matches_the_tape_and_finite_differences() {
    check(
        "program_12",
        12,
        &|a| program_12(&a[0], &a[1], &a[2]),
        &|a| program_12::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_13(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let y = y.cos();
    let mut acc1 = x - &y;
    for _ in 0..1 {
        acc1 = (&acc1 * 0.5 + (x.tanh())).tanh();
    }
    let v6 = if true {
        (acc1.tanh()) * (y.tanh())
    } else {
        let v5 = {
            let v2 = &acc1 + x;
            let v3 = (acc1.tanh()) - (y.tanh());
            let v4 = (v3.tanh()).sum_axis(0, false) * 0.5;
            (y.tanh()).tanh()
        };
        (x.tanh()) / ((x.tanh()).square() + 1.0)
    };
    0.8 - (v6.tanh().square())
}

#[test]
fn program_13_matches_the_tape_and_finite_differences() {
    check(
        "program_13",
        13,
        &|a| program_13(&a[0], &a[1], &a[2]),
        &|a| program_13::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_14(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let v1 = (y.tanh()) + (y.tanh());
    let x = helper_bend(&(x.tanh()));
    let v2 = y + y;
    let x = (x.tanh()).sin() * -1.7;
    let x = {
        let v3 = (x.tanh()) / (x.square() + 1.0);
        (v3.tanh()).matmul(&(w.tanh())) * 0.5
    };
    let x = (x.tanh()) * (v1.tanh());
    (&x * y) * (w.mean_axis(1, false))
}

#[test]
fn program_14_matches_the_tape_and_finite_differences() {
    check(
        "program_14",
        14,
        &|a| program_14(&a[0], &a[1], &a[2]),
        &|a| program_14::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_15(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let v1 = x.sum() * 0.2;
    let mut acc2 = y.tanh().square();
    for _ in 0..1 {
        let v3 = y.sin();
        acc2 = (&acc2 * 0.5 + &acc2).tanh();
    }
    let v4 = -0.8 - x;
    let mut acc5 = x.sum_axis(0, false) * 0.5;
    for _ in 0..1 {
        let v6 = v4.sum_axis(0, false) * 0.5;
        acc5 = (&acc5 * 0.5 + (v6.tanh())).tanh();
    }
    let v12 = if 2 + 2 == 5 {
        let mut acc7 = x / (v4.square() + 1.0);
        for _ in 0..3 {
            let v8 = x.sin() * -1.9;
            acc7 = (&acc7 * 0.5 + &acc7).tanh();
        }
        let y = (v4.tanh()).mean_axis(0, false);
        -0.8 - (x.tanh())
    } else {
        let mut acc9 = x.mean_axis(0, false);
        for _ in 0..2 {
            let v10 = acc5.tanh();
            acc9 = (&acc9 * 0.5 + &acc9).tanh();
        }
        let v11 = &acc5 + (acc9.tanh());
        helper_bend(&(x.tanh()))
    };
    let mut acc13 = x.matmul(w) * 0.5;
    for _ in 0..3 {
        let v14 = v12.sigmoid();
        acc13 = (&acc13 * 0.5 + (v12.tanh())).tanh();
    }
    acc13.sigmoid()
}

#[test]
fn program_15_matches_the_tape_and_finite_differences() {
    check(
        "program_15",
        15,
        &|a| program_15(&a[0], &a[1], &a[2]),
        &|a| program_15::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_16(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let mut acc1 = 0.0 - x;
    for _ in 0..2 {
        acc1 = (&acc1 * 0.5 + (acc1.tanh())).tanh();
    }
    let y = if (y.mean()).to_scalar() > -1.0 {
        let mut acc2 = &acc1 / (x.square() + 1.0);
        for _ in 0..1 {
            acc2 = (&acc2 * 0.5 + x).tanh();
        }
        (acc1.tanh()).sum_axis(0, false) * 0.5
    } else {
        (acc1.tanh()).mean_axis(0, false)
    };
    let mut acc3 = x - &y;
    for _ in 0..2 {
        acc3 = (&acc3 * 0.5 + (x.tanh())).tanh();
    }
    let mut acc4 = &y * (y.mean());
    for _ in 0..1 {
        let v5 = acc3.mean_axis(0, false);
        acc4 = (&acc4 * 0.5 + (y.tanh())).tanh();
    }
    (x.cos()) * (acc1.mean_axis(0, false))
}

#[test]
fn program_16_matches_the_tape_and_finite_differences() {
    check(
        "program_16",
        16,
        &|a| program_16(&a[0], &a[1], &a[2]),
        &|a| program_16::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_17(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let y = w.mean_axis(1, false);
    let v1 = (x.tanh()) + x;
    (&v1 / (v1.square() + 1.0)).tanh()
}

#[test]
fn program_17_matches_the_tape_and_finite_differences() {
    check(
        "program_17",
        17,
        &|a| program_17(&a[0], &a[1], &a[2]),
        &|a| program_17::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_18(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let mut acc1 = y * (y.mean());
    for _ in 0..1 {
        acc1 = (&acc1 * 0.5 + &acc1).tanh();
    }
    let v2 = (x.tanh()).mean_axis(0, false);
    let y = if true {
        let mut acc3 = x * (y.mean());
        for _ in 0..1 {
            acc3 = (&acc3 * 0.5 + (acc3.tanh())).tanh();
        }
        let v4 = 0.8 - x;
        (x.tanh()).sum_axis(0, false) * 0.5
    } else {
        let v5 = x.cos();
        let mut acc6 = helper_bend(x);
        for _ in 0..1 {
            let v7 = acc6.matmul(w) * 0.5;
            acc6 = (&acc6 * 0.5 + (v5.tanh())).tanh();
        }
        x.mean_axis(0, false)
    };
    let v8 = (x.tanh()) - (y.tanh());
    v8.matmul(&(w + &y)) * 0.5
}

#[test]
fn program_18_matches_the_tape_and_finite_differences() {
    check(
        "program_18",
        18,
        &|a| program_18(&a[0], &a[1], &a[2]),
        &|a| program_18::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_19(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let v4 = {
        let v2 = if true {
            let x = (x.tanh()).matmul(&(w.tanh())) * 0.5;
            (w.tanh()).mean_axis(1, false)
        } else {
            let v1 = x / (x.square() + 1.0);
            (v1.tanh()).sum_axis(0, false) * 0.5
        };
        let v3 = (w.tanh()).mean();
        (v2.mean()) * (y.mean())
    };
    let x = (x.tanh()).sigmoid();
    let v6 = {
        let x = helper_mix(&(x.tanh()), &(y.tanh()));
        let v5 = helper_bend(&(x.tanh()));
        (v5.tanh()).mean_axis(0, false)
    };
    let v9 = if true {
        (y.tanh()).sin()
    } else {
        let v6 = {
            let x = &x * &v4;
            let x = -0.8 - (x.tanh());
            (x.tanh()).mean_axis(0, false)
        };
        let mut acc7 = -0.2 - &x;
        for _ in 0..1 {
            let v8 = &acc7 / (x.square() + 1.0);
            acc7 = (&acc7 * 0.5 + (v8.tanh())).tanh();
        }
        (y.tanh()).sin()
    };
    let v11 = {
        let v4 = (v9.mean()) * (v6.mean());
        let v10 = if (v9.mean()).to_scalar() < -0.4 {
            (x.tanh()) * (y.mean())
        } else {
            let x = x.tanh().exp();
            let v6 = x.sum_axis(0, false) * 0.5;
            x.matmul(&(w.tanh())) * 0.5
        };
        let x = (v10.tanh()) + &x;
        (v6.tanh()).tanh().square()
    };
    (&x - y) * (y + &v11)
}

#[test]
fn program_19_matches_the_tape_and_finite_differences() {
    check(
        "program_19",
        19,
        &|a| program_19(&a[0], &a[1], &a[2]),
        &|a| program_19::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_20(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let mut acc1 = x * y;
    for _ in 0..2 {
        acc1 = (&acc1 * 0.5 + (acc1.tanh())).tanh();
    }
    let mut acc2 = acc1.sin() * 1.4;
    for _ in 0..3 {
        acc2 = (&acc2 * 0.5 + (acc1.tanh())).tanh();
    }
    let y = (acc1.tanh()).sum_axis(0, false) * 0.5;
    (helper_bend(&acc1)) + (&acc2 - &y)
}

#[test]
fn program_20_matches_the_tape_and_finite_differences() {
    check(
        "program_20",
        20,
        &|a| program_20(&a[0], &a[1], &a[2]),
        &|a| program_20::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_21(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let y = y * (y.mean());
    let y = y.cos();
    let v1 = x.mean_axis(0, false);
    let v2 = (x.tanh()).mean_axis(0, false);
    let mut acc3 = x.sigmoid();
    for _ in 0..1 {
        acc3 = (&acc3 * 0.5 + x).tanh();
    }
    (x + &acc3) * &y
}

#[test]
fn program_21_matches_the_tape_and_finite_differences() {
    check(
        "program_21",
        21,
        &|a| program_21(&a[0], &a[1], &a[2]),
        &|a| program_21::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_22(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let x = {
        let mut acc1 = y.tanh().exp();
        for _ in 0..1 {
            let v2 = x.mean_axis(0, false);
            acc1 = (&acc1 * 0.5 + y).tanh();
        }
        (x.tanh()).tanh().square()
    };
    let x = {
        let v3 = (x.tanh()) * (y.tanh());
        let mut acc4 = -0.9 - &x;
        for _ in 0..1 {
            let v5 = 0.0 - &x;
            acc4 = (&acc4 * 0.5 + (v3.tanh())).tanh();
        }
        (x.tanh()) + &acc4
    };
    let v6 = w.mean();
    (&x + &x).sigmoid()
}

#[test]
fn program_22_matches_the_tape_and_finite_differences() {
    check(
        "program_22",
        22,
        &|a| program_22(&a[0], &a[1], &a[2]),
        &|a| program_22::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_23(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let x = (x.tanh()).tanh().exp();
    let v4 = {
        let mut acc1 = x.cos();
        for _ in 0..1 {
            let v2 = &acc1 * (y.mean());
            acc1 = (&acc1 * 0.5 + (v2.tanh())).tanh();
        }
        let v3 = (y.tanh()) * (y.mean());
        helper_bend(&(x.tanh()))
    };
    let v9 = if true {
        let v7 = {
            let y = (v4.tanh()).sum_axis(0, false) * 0.5;
            let v5 = y.mean();
            let v6 = (w.tanh()).mean_axis(1, false);
            (v4.tanh()) - (y.tanh())
        };
        (v4.tanh()).sum() * 0.2
    } else {
        let v8 = (y.tanh()) * (y.mean());
        let x = (x.tanh()) + &v4;
        (v8.tanh()).mean()
    };
    let y = (x.tanh()).sum_axis(0, false) * 0.5;
    let v10 = &x * (y.mean());
    let v11 = (y.mean()).sin();
    -0.6 - &x
}

#[test]
fn program_23_matches_the_tape_and_finite_differences() {
    check(
        "program_23",
        23,
        &|a| program_23(&a[0], &a[1], &a[2]),
        &|a| program_23::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_24(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let v1 = (x.tanh()).mean_axis(0, false);
    let v5 = {
        let v4 = if 2 + 2 == 5 {
            let v2 = 0.8 - (x.tanh());
            let v3 = (v2.tanh()).tanh();
            (v1.mean()) * (y.mean())
        } else {
            (v1.mean()).sin()
        };
        (w.tanh()).mean_axis(1, false)
    };
    let v6 = (x.tanh()) + x;
    (x - &v1) / ((v6.matmul(w) * 0.5).square() + 1.0)
}

#[test]
fn program_24_matches_the_tape_and_finite_differences() {
    check(
        "program_24",
        24,
        &|a| program_24(&a[0], &a[1], &a[2]),
        &|a| program_24::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_25(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let x = if (y.mean()).to_scalar() < -0.5 {
        let y = (w.tanh()).mean_axis(1, false);
        let v3 = {
            let v1 = (x.tanh()).sum_axis(0, false) * 0.5;
            let v2 = (y.mean()).sin();
            (w.tanh()).mean_axis(1, false)
        };
        (x.tanh()) + (x.tanh())
    } else {
        (x.tanh()).sigmoid()
    };
    let v4 = helper_mix(&(x.tanh()), y);
    let v5 = (x.tanh()).sum() * 0.2;
    let v6 = if 2 + 2 == 5 {
        (x.tanh()).sigmoid()
    } else {
        let v4 = (v4.tanh()).sigmoid();
        helper_mix(&x, &(y.tanh()))
    };
    let v8 = {
        let y = (v6.tanh()).mean_axis(0, false);
        let v7 = (y.mean()).sin();
        let v5 = (y.mean()) * (y.mean());
        (v6.tanh()).sum_axis(0, false) * 0.5
    };
    (v6.cos()) * (v8.mean())
}

#[test]
fn program_25_matches_the_tape_and_finite_differences() {
    check(
        "program_25",
        25,
        &|a| program_25(&a[0], &a[1], &a[2]),
        &|a| program_25::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_26(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let y = (w.tanh()).mean_axis(1, false);
    let v1 = (y.tanh()) * (y.mean());
    helper_mix(&(x - &v1), &(x.sum_axis(0, false) * 0.5))
}

#[test]
fn program_26_matches_the_tape_and_finite_differences() {
    check(
        "program_26",
        26,
        &|a| program_26(&a[0], &a[1], &a[2]),
        &|a| program_26::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_27(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let mut acc1 = x * y;
    for _ in 0..2 {
        let v2 = x / (x.square() + 1.0);
        acc1 = (&acc1 * 0.5 + (acc1.tanh())).tanh();
    }
    let v3 = x.sum_axis(0, false) * 0.5;
    let v4 = {
        let y = acc1.mean_axis(0, false);
        (acc1.tanh()) * (v3.mean())
    };
    (&acc1 * &v3) * (y.mean())
}

#[test]
fn program_27_matches_the_tape_and_finite_differences() {
    check(
        "program_27",
        27,
        &|a| program_27(&a[0], &a[1], &a[2]),
        &|a| program_27::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_28(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let v1 = y + (y.tanh());
    let mut acc2 = helper_mix(x, y);
    for _ in 0..1 {
        let v3 = x * y;
        acc2 = (&acc2 * 0.5 + &acc2).tanh();
    }
    let v1 = if (y.mean()).to_scalar() < 0.2 {
        let v7 = {
            let v4 = 0.6 - (acc2.tanh());
            let v5 = (acc2.tanh()) * (y.tanh());
            let v6 = (v5.tanh()) / ((x.tanh()).square() + 1.0);
            helper_bend(&(v4.tanh()))
        };
        (w.tanh()).mean_axis(1, false)
    } else {
        let x = (x.tanh()).matmul(&(w.tanh())) * 0.5;
        let mut acc8 = acc2.sum_axis(0, false) * 0.5;
        for _ in 0..1 {
            let v9 = y * (y.mean());
            acc8 = (&acc8 * 0.5 + (acc8.tanh())).tanh();
        }
        (acc8.tanh()) + &acc8
    };
    let v13 = {
        let mut acc10 = x * &v1;
        for _ in 0..3 {
            acc10 = (&acc10 * 0.5 + &acc2).tanh();
        }
        let mut acc11 = &acc2 + x;
        for _ in 0..3 {
            let v12 = &acc10 / (acc2.square() + 1.0);
            acc11 = (&acc11 * 0.5 + (acc11.tanh())).tanh();
        }
        0.5 - (x.tanh())
    };
    (0.1 - &acc2).matmul(w) * 0.5
}

#[test]
fn program_28_matches_the_tape_and_finite_differences() {
    check(
        "program_28",
        28,
        &|a| program_28(&a[0], &a[1], &a[2]),
        &|a| program_28::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_29(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let mut acc1 = x.tanh();
    for _ in 0..3 {
        acc1 = (&acc1 * 0.5 + (acc1.tanh())).tanh();
    }
    let v2 = {
        let y = (x.tanh()).mean_axis(0, false);
        &y * (y.mean())
    };
    let v3 = v2.sigmoid();
    let mut acc4 = &v2 + &v2;
    for _ in 0..1 {
        let v5 = w.mean_axis(1, false);
        acc4 = (&acc4 * 0.5 + y).tanh();
    }
    let v6 = &acc1 / ((x.tanh()).square() + 1.0);
    &acc1 * y
}

#[test]
fn program_29_matches_the_tape_and_finite_differences() {
    check(
        "program_29",
        29,
        &|a| program_29(&a[0], &a[1], &a[2]),
        &|a| program_29::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_30(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let v1 = (x.tanh()).matmul(w) * 0.5;
    let v2 = (v1.tanh()).sum() * 0.2;
    v1.cos()
}

#[test]
fn program_30_matches_the_tape_and_finite_differences() {
    check(
        "program_30",
        30,
        &|a| program_30(&a[0], &a[1], &a[2]),
        &|a| program_30::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_31(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let mut acc1 = helper_bend(x);
    for _ in 0..3 {
        acc1 = (&acc1 * 0.5 + &acc1).tanh();
    }
    let v2 = x.sum() * 0.2;
    let v3 = (acc1.tanh()).sin() * -0.5;
    let mut acc4 = y * &v2;
    for _ in 0..3 {
        acc4 = (&acc4 * 0.5 + (acc4.tanh())).tanh();
    }
    let mut acc5 = x * &acc4;
    for _ in 0..2 {
        acc5 = (&acc5 * 0.5 + (v3.tanh())).tanh();
    }
    helper_bend(&v3)
}

#[test]
fn program_31_matches_the_tape_and_finite_differences() {
    check(
        "program_31",
        31,
        &|a| program_31(&a[0], &a[1], &a[2]),
        &|a| program_31::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_32(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let v1 = if 2 + 2 == 5 {
        (y.tanh()) * (y.mean())
    } else {
        (y.tanh()) * (y.mean())
    };
    let v2 = (x.tanh()).sigmoid();
    let v3 = (y.mean()) * (y.mean());
    let v5 = {
        let v4 = (x.tanh()) - (v1.tanh());
        let x = (v4.tanh()) / ((v4.tanh()).square() + 1.0);
        let y = (x.tanh()).sum_axis(0, false) * 0.5;
        v2.sin() * 1.3
    };
    v5.cos()
}

#[test]
fn program_32_matches_the_tape_and_finite_differences() {
    check(
        "program_32",
        32,
        &|a| program_32(&a[0], &a[1], &a[2]),
        &|a| program_32::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_33(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let mut acc1 = w.mean_axis(1, false);
    for _ in 0..2 {
        let v2 = x.sum_axis(0, false) * 0.5;
        acc1 = (&acc1 * 0.5 + (acc1.tanh())).tanh();
    }
    let v3 = y.tanh().square();
    let mut acc4 = x.matmul(w) * 0.5;
    for _ in 0..3 {
        let v5 = acc4.cos();
        acc4 = (&acc4 * 0.5 + (acc4.tanh())).tanh();
    }
    let v7 = {
        let v3 = if true {
            let acc4 = (x.tanh()).tanh().exp();
            acc1.sin() * -0.8
        } else {
            let x = 0.9 - x;
            let v6 = acc1.mean();
            &v3 + (v3.tanh())
        };
        (x.tanh()).mean_axis(0, false)
    };
    let v8 = (x.tanh()).sum() * 0.2;
    let v9 = 0.4 - (x.tanh());
    (0.4 - &v9).tanh()
}

#[test]
fn program_33_matches_the_tape_and_finite_differences() {
    check(
        "program_33",
        33,
        &|a| program_33(&a[0], &a[1], &a[2]),
        &|a| program_33::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_34(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let mut acc1 = y + y;
    for _ in 0..2 {
        acc1 = (&acc1 * 0.5 + (y.tanh())).tanh();
    }
    let v2 = (y.tanh()).tanh().square();
    let v4 = {
        let v3 = x.mean_axis(0, false);
        (x.tanh()).sum_axis(0, false) * 0.5
    };
    let v4 = &v4 * (v4.mean());
    (x - &acc1).sin()
}

#[test]
fn program_34_matches_the_tape_and_finite_differences() {
    check(
        "program_34",
        34,
        &|a| program_34(&a[0], &a[1], &a[2]),
        &|a| program_34::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_35(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let v4 = if true {
        (x.tanh()).tanh()
    } else {
        let v3 = if true {
            let v1 = (x.tanh()) * y;
            let v2 = (v1.tanh()).matmul(&(w.tanh())) * 0.5;
            y.sin() * -0.4
        } else {
            (y.tanh()).tanh().exp()
        };
        x + (x.tanh())
    };
    let v4 = helper_bend(&(v4.tanh()));
    let x = if (y.mean()).to_scalar() > 0.2 {
        let mut acc5 = &v4 / (v4.square() + 1.0);
        for _ in 0..2 {
            acc5 = (&acc5 * 0.5 + (acc5.tanh())).tanh();
        }
        let x = {
            let v6 = (acc5.tanh()).mean_axis(0, false);
            x + (v4.tanh())
        };
        helper_mix(&(v4.tanh()), &(y.tanh()))
    } else {
        &v4 * (y.mean())
    };
    let v7 = (x.tanh()) / ((x.tanh()).square() + 1.0);
    helper_mix(&(-1.0 - &v4), &(y.tanh().square()))
}

#[test]
fn program_35_matches_the_tape_and_finite_differences() {
    check(
        "program_35",
        35,
        &|a| program_35(&a[0], &a[1], &a[2]),
        &|a| program_35::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_36(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let y = y + (y.tanh());
    let v4 = {
        let v1 = (y.tanh()).mean();
        let v2 = x.sigmoid();
        let v3 = helper_bend(&(x.tanh()));
        (y.tanh()).sin() * -0.8
    };
    (0.9 - x) * (w.mean_axis(1, false))
}

#[test]
fn program_36_matches_the_tape_and_finite_differences() {
    check(
        "program_36",
        36,
        &|a| program_36(&a[0], &a[1], &a[2]),
        &|a| program_36::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_37(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let y = if true {
        (x.tanh()).mean_axis(0, false)
    } else {
        y + (y.tanh())
    };
    let v1 = (x.tanh()) * (y.tanh());
    let v2 = (x.tanh()).sum() * 0.2;
    let v2 = (x.tanh()).sum() * 0.2;
    let v5 = if true {
        let v3 = (y.tanh()) * (y.mean());
        let v4 = (w.tanh()).mean_axis(1, false);
        x.sum_axis(0, false) * 0.5
    } else {
        (y.tanh()) * (y.mean())
    };
    let v7 = {
        let v6 = (v5.tanh()) + (y.tanh());
        let y = (w.tanh()).mean_axis(1, false);
        let v1 = {
            let x = 0.7 - (v1.tanh());
            (v1.tanh()) / (v1.square() + 1.0)
        };
        helper_mix(&(x.tanh()), &(v6.tanh()))
    };
    (-0.7 - x).tanh().exp()
}

#[test]
fn program_37_matches_the_tape_and_finite_differences() {
    check(
        "program_37",
        37,
        &|a| program_37(&a[0], &a[1], &a[2]),
        &|a| program_37::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_38(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let v1 = (x.tanh()).sum() * 0.2;
    let v6 = {
        let y = {
            let v2 = (y.tanh()).tanh().exp();
            let v3 = 0.3 - (x.tanh());
            (y.tanh()) * (v2.mean())
        };
        let mut acc4 = x * &v1;
        for _ in 0..3 {
            let v5 = x.matmul(w) * 0.5;
            acc4 = (&acc4 * 0.5 + &acc4).tanh();
        }
        (acc4.tanh()).mean_axis(0, false)
    };
    let v7 = x.cos();
    let mut acc8 = v7.tanh().square();
    for _ in 0..3 {
        let v9 = &acc8 - &v6;
        acc8 = (&acc8 * 0.5 + (v9.tanh())).tanh();
    }
    (x.matmul(w) * 0.5) * (&v6 * &v1)
}

#[test]
fn program_38_matches_the_tape_and_finite_differences() {
    check(
        "program_38",
        38,
        &|a| program_38(&a[0], &a[1], &a[2]),
        &|a| program_38::primal(&a[0], &a[1], &a[2]),
    );
}

#[differentiable]
fn program_39(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let v1 = x.sum_axis(0, false) * 0.5;
    let v4 = {
        let x = (x.tanh()) / ((x.tanh()).square() + 1.0);
        let x = helper_bend(&x);
        let mut acc2 = &x * y;
        for _ in 0..3 {
            let v3 = 0.1 - &x;
            acc2 = (&acc2 * 0.5 + (x.tanh())).tanh();
        }
        -0.6 - (x.tanh())
    };
    let v5 = (v1.mean()) * (v1.mean());
    let v6 = (x.tanh()).matmul(&(w.tanh())) * 0.5;
    let v4 = (x.tanh()).matmul(w) * 0.5;
    (x - y) * (v6.sum_axis(0, false) * 0.5)
}

#[test]
fn program_39_matches_the_tape_and_finite_differences() {
    check(
        "program_39",
        39,
        &|a| program_39(&a[0], &a[1], &a[2]),
        &|a| program_39::primal(&a[0], &a[1], &a[2]),
    );
}
