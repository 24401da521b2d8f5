//! Checkpointing (issue 15's target): the gradient of an RK4 integration of 10⁶ steps over a
//! 16-float state with respect to its 16 parameters, by the tape and by `#[differentiable]`
//! code, each with and without checkpointing:
//!
//! - `tape`: every step on the tape; `tape-checkpointed`: `checkpointed_loop` (two levels,
//!   the square-root schedule);
//! - `macro`: the same ODE on plain floats, annotated `#[differentiable]` (scalar mode, every
//!   step's saves on the generated code's stacks); `macro-checkpoint`:
//!   `#[differentiable(checkpoint)]` (200 snapshots); `macro-checkpoint-1000`:
//!   `checkpoint(snapshots = 1000)`; `macro-checkpoint-3-levels`:
//!   `checkpoint(snapshots = 100, levels = 3)` (100 + 100 states and 100 trips' saves).
//!
//! Each runs in a child process of its own, so that each peak resident memory (`VmHWM`,
//! read from `/proc/self/status`) is its own; the bench prints time, peak memory and the
//! first gradient entries, and fails unless the gradients agree (the annotated ones to the
//! bit, the tape's to 1e-9 relative).
//!
//! `cargo bench --bench checkpoint`; `CHECKPOINT_STEPS=n` for another length,
//! `CHECKPOINT_MODES=macro,macro-checkpoint` for some of the variants only.

use std::process::Command;
use std::time::Instant;

use gradtape::{GradientTape, Tensor, checkpointed_loop, differentiable};

const DT: f64 = 1e-3;

/// dx/dt = -x + tanh(w ⊙ roll(x)): a ring of 16 coupled units.
fn rate(x: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let rolled = Tensor::concat(&[&x.slice(0, 15, 1), &x.slice(0, 0, 15)], 0);
    (w * &rolled).tanh() - x
}

/// One classical Runge-Kutta step.
fn rk4(x: &Tensor<f64>, params: &[Tensor<f64>]) -> Tensor<f64> {
    let w = &params[0];
    let k1 = rate(x, w);
    let k2 = rate(&(x + &k1 * (DT / 2.0)), w);
    let k3 = rate(&(x + &k2 * (DT / 2.0)), w);
    let k4 = rate(&(x + &k3 * DT), w);
    x + (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (DT / 6.0)
}

/// The same RK4 step on plain floats, annotated three ways: `rk4_macro`,
/// `rk4_macro_checkpoint` and `rk4_macro_checkpoint_1000`. `x0` is data, `w` the 16
/// weights; the result is `|x(T)|²`.
macro_rules! rk4_annotated {
    ($($name:ident: ($($arg:tt)*);)*) => {$(
        #[differentiable($($arg)*)]
        #[allow(dead_code)] // only its gradient runs
        #[allow(clippy::needless_range_loop, clippy::assign_op_pattern)] // the tape variant's operations, element by element
        fn $name(x0: &[f64], w: &[f64], steps: usize) -> f64 {
            let mut x = vec![0.0; 16];
            for i in 0..16 {
                x[i] = x0[i];
            }
            for _ in 0..steps {
                // k = rate(x) = -x + tanh(w ⊙ roll(x)), roll(x)[i] = x[(i + 15) % 16]
                let mut k1 = vec![0.0; 16];
                for i in 0..16 {
                    k1[i] = (w[i] * x[(i + 15) % 16]).tanh() - x[i];
                }
                let mut x2 = vec![0.0; 16];
                for i in 0..16 {
                    x2[i] = x[i] + k1[i] * 0.0005;
                }
                let mut k2 = vec![0.0; 16];
                for i in 0..16 {
                    k2[i] = (w[i] * x2[(i + 15) % 16]).tanh() - x2[i];
                }
                let mut x3 = vec![0.0; 16];
                for i in 0..16 {
                    x3[i] = x[i] + k2[i] * 0.0005;
                }
                let mut k3 = vec![0.0; 16];
                for i in 0..16 {
                    k3[i] = (w[i] * x3[(i + 15) % 16]).tanh() - x3[i];
                }
                let mut x4 = vec![0.0; 16];
                for i in 0..16 {
                    x4[i] = x[i] + k3[i] * 0.001;
                }
                let mut k4 = vec![0.0; 16];
                for i in 0..16 {
                    k4[i] = (w[i] * x4[(i + 15) % 16]).tanh() - x4[i];
                }
                for i in 0..16 {
                    x[i] = x[i] + (k1[i] + k2[i] * 2.0 + k3[i] * 2.0 + k4[i]) * (0.001 / 6.0);
                }
            }
            let mut loss = 0.0;
            for i in 0..16 {
                loss += x[i] * x[i];
            }
            loss
        }
    )*};
}

rk4_annotated! {
    rk4_macro: (constant(x0));
    rk4_macro_checkpoint: (constant(x0), checkpoint);
    rk4_macro_checkpoint_1000: (constant(x0), checkpoint(snapshots = 1000));
    rk4_macro_checkpoint_3_levels: (constant(x0), checkpoint(snapshots = 100, levels = 3));
}

/// Peak resident memory of this process so far, in MB.
fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux /proc");
    let kb: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("VmHWM in /proc/self/status");
    kb / 1024.0
}

/// The child: one gradient by `mode`, printed as `time_s peak_mb g0 g1 ... g15`.
fn child(mode: &str, steps: usize) {
    let x0: Vec<f64> = (0..16).map(|i| (i as f64 * 0.4).sin()).collect();
    let w: Vec<f64> = (0..16).map(|i| 1.0 + 0.05 * i as f64).collect();
    let start = Instant::now();
    let gradient = match mode {
        "macro" => rk4_macro::grad(&x0, &w, steps).1[0].clone(),
        "macro-checkpoint" => rk4_macro_checkpoint::grad(&x0, &w, steps).1[0].clone(),
        "macro-checkpoint-1000" => rk4_macro_checkpoint_1000::grad(&x0, &w, steps).1[0].clone(),
        "macro-checkpoint-3-levels" => {
            rk4_macro_checkpoint_3_levels::grad(&x0, &w, steps).1[0].clone()
        }
        "tape" | "tape-checkpointed" => {
            let x0 = Tensor::from_vec(x0, &[16]);
            let w = Tensor::from_vec(w, &[16]);
            let tape = GradientTape::new();
            tape.watch(&w);
            let loss = tape.record(|| {
                let end = if mode == "tape" {
                    (0..steps).fold(x0.clone(), |x, _| rk4(&x, std::slice::from_ref(&w)))
                } else {
                    checkpointed_loop(&x0, &[&w], steps, 2, rk4)
                };
                end.square().sum()
            });
            tape.gradient(&loss, &w).unwrap().unwrap().to_vec()
        }
        _ => panic!("unknown mode {mode}"),
    };
    let seconds = start.elapsed().as_secs_f64();
    let values: Vec<String> = gradient.iter().map(|g| format!("{g:e}")).collect();
    println!("{seconds} {} {}", peak_rss_mb(), values.join(" "));
}

/// Prints `checked` against `plain`: time and peak memory ratios.
fn ratios(what: &str, checked: &[f64], plain: &[f64]) {
    println!(
        "{what}: time {:.2}x, peak memory {:.4}x (1/{:.0})",
        checked[0] / plain[0],
        checked[1] / plain[1],
        plain[1] / checked[1]
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("child") {
        child(&args[2], args[3].parse().expect("steps"));
        return;
    }
    let steps: usize = std::env::var("CHECKPOINT_STEPS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000);
    let modes: Vec<String> = std::env::var("CHECKPOINT_MODES")
        .map(|modes| modes.split(',').map(str::to_string).collect())
        .unwrap_or_else(|_| {
            [
                "macro-checkpoint",
                "macro-checkpoint-1000",
                "macro-checkpoint-3-levels",
                "macro",
                "tape-checkpointed",
                "tape",
            ]
            .map(str::to_string)
            .to_vec()
        });
    let exe = std::env::current_exe().expect("the bench's own path");
    let mut results = std::collections::HashMap::new();
    for mode in &modes {
        let out = Command::new(&exe)
            .args(["child", mode, &steps.to_string()])
            .output()
            .expect("run the child");
        assert!(
            out.status.success(),
            "{mode}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let line = String::from_utf8(out.stdout).expect("utf-8");
        let fields: Vec<f64> = line
            .split_whitespace()
            .map(|f| f.parse().unwrap())
            .collect();
        println!(
            "RK4, {steps} steps, 16-float state, {mode:>21}: {:7.2} s, peak RSS {:8.1} MB, dL/dw[0..3] = {:?}",
            fields[0],
            fields[1],
            &fields[2..5]
        );
        results.insert(mode.as_str(), fields);
    }
    // The annotated gradients, checkpointed or not, to the bit (the recomputation repeats
    // the same operations); the tape's (another order of operations) to 1e-9.
    if let Some(plain) = results.get("macro") {
        for mode in [
            "macro-checkpoint",
            "macro-checkpoint-1000",
            "macro-checkpoint-3-levels",
        ] {
            if let Some(checked) = results.get(mode) {
                assert_eq!(checked[2..], plain[2..], "{mode}: gradients differ");
                ratios(&format!("{mode} / macro"), checked, plain);
            }
        }
    }
    if let (Some(checked), Some(plain)) = (results.get("tape-checkpointed"), results.get("tape")) {
        ratios("tape-checkpointed / tape", checked, plain);
    }
    let tape = results.get("tape").or(results.get("tape-checkpointed"));
    for (mode, fields) in &results {
        if let Some(tape) = tape {
            for (a, b) in fields[2..].iter().zip(&tape[2..]) {
                assert!(
                    (a - b).abs() <= 1e-9 * (1.0 + b.abs()),
                    "{mode}: gradients differ from the tape's: {a} vs {b}"
                );
            }
        }
    }
    println!("gradients agree (the annotated ones to the bit, the tape's to 1e-9)");
}
