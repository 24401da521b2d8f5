use gradtape::differentiable;

// one level would be no checkpointing; past five, a level's forward pass buys nothing
#[differentiable(checkpoint(snapshots = 10, levels = 1))]
fn f(x0: f64, steps: usize) -> f64 {
    let mut x = x0;
    for _ in 0..steps {
        x = x.sin() + 0.5;
    }
    x
}

#[differentiable(checkpoint(levels = 6))]
fn g(x0: f64, steps: usize) -> f64 {
    let mut x = x0;
    for _ in 0..steps {
        x = x.sin() + 0.5;
    }
    x
}

fn main() {}
