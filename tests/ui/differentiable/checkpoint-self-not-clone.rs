// A method taking `self` by value whose checkpointed loop reads it: the adjoint reruns
// the loop on a copy of `self`, and this `Well` is not `Clone`.
use gradtape::differentiable;

struct Well {
    k: f64,
}

impl Well {
    #[differentiable(checkpoint)]
    fn fall(self, x0: f64, steps: usize) -> f64 {
        let mut x = x0;
        for _ in 0..steps {
            x = x - 0.1 * self.k * x.sin();
        }
        x
    }
}

fn main() {}
