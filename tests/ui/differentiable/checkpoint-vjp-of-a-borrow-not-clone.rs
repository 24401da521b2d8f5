// `grad` reruns the checkpointed loop on the borrow `well` itself; `vjp`'s pullback
// outlives the borrow, so it needs a copy of the `Well`, which is not `Clone`.
use gradtape::differentiable;

struct Well {
    k: f64,
}

#[differentiable(checkpoint)]
fn fall(x0: f64, well: &Well, steps: usize) -> f64 {
    let mut x = x0;
    for _ in 0..steps {
        x = x - 0.1 * well.k * x.sin();
    }
    x
}

fn main() {
    let well = Well { k: 2.0 };
    let _ = fall::grad(0.5, &well, 10);
    let (_, pullback) = fall::vjp(0.5, &well, 10);
    let _ = pullback(1.0);
}
