// `grad` reruns a method's checkpointed loop on `&self` itself; `vjp`'s pullback
// outlives the borrow, so it needs a copy of the `Well`, which is not `Clone`.
use gradtape::differentiable;

struct Well {
    k: f64,
}

impl Well {
    #[differentiable(checkpoint)]
    fn fall(&self, x0: f64, steps: usize) -> f64 {
        let mut x = x0;
        for _ in 0..steps {
            x = x - 0.1 * self.k * x.sin();
        }
        x
    }
}

fn main() {
    let well = Well { k: 2.0 };
    let _ = well.fall_grad(0.5, 10);
    let (_, pullback) = well.fall_vjp(0.5, 10);
    let _ = pullback(1.0);
}
