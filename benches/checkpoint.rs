//! Checkpointing (issue 15's target): the gradient of an RK4 integration of 10⁶ steps over a
//! 16-float state with respect to its 16 parameters, once with every step on the tape and
//! once with `checkpointed_loop` (two levels, the square-root schedule). Each runs in a
//! child process of its own, so that each peak resident memory (`VmHWM`, read from
//! `/proc/self/status`) is its own; the bench prints time, peak memory and the first
//! gradient entries, and fails unless the two gradients agree.
//!
//! `cargo bench --bench checkpoint`; `CHECKPOINT_STEPS=n` for another length.

use std::process::Command;
use std::time::Instant;

use gradtape::{GradientTape, Tensor, checkpointed_loop};

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
    let x0 = Tensor::from_vec((0..16).map(|i| (i as f64 * 0.4).sin()).collect(), &[16]);
    let w = Tensor::from_vec((0..16).map(|i| 1.0 + 0.05 * i as f64).collect(), &[16]);
    let start = Instant::now();
    let tape = GradientTape::new();
    tape.watch(&w);
    let loss = tape.record(|| {
        let end = match mode {
            "plain" => (0..steps).fold(x0.clone(), |x, _| rk4(&x, std::slice::from_ref(&w))),
            "checkpointed" => checkpointed_loop(&x0, &[&w], steps, 2, rk4),
            _ => panic!("unknown mode {mode}"),
        };
        end.square().sum()
    });
    let gradient = tape.gradient(&loss, &w).unwrap().unwrap();
    let seconds = start.elapsed().as_secs_f64();
    let values: Vec<String> = gradient.to_vec().iter().map(|g| format!("{g:e}")).collect();
    println!("{seconds} {} {}", peak_rss_mb(), values.join(" "));
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
    let exe = std::env::current_exe().expect("the bench's own path");
    let mut results = Vec::new();
    for mode in ["checkpointed", "plain"] {
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
            "RK4, {steps} steps, 16-float state, {mode:>12}: {:7.2} s, peak RSS {:8.1} MB, dL/dw[0..3] = {:?}",
            fields[0],
            fields[1],
            &fields[2..5]
        );
        results.push(fields);
    }
    let (checked, plain) = (&results[0], &results[1]);
    for (a, b) in checked[2..].iter().zip(&plain[2..]) {
        assert!(
            (a - b).abs() <= 1e-9 * (1.0 + b.abs()),
            "gradients differ: {a} vs {b}"
        );
    }
    println!(
        "checkpointed / plain: time {:.2}x, peak memory {:.4}x (1/{:.0}); gradients agree to 1e-9",
        checked[0] / plain[0],
        checked[1] / plain[1],
        plain[1] / checked[1]
    );
}
