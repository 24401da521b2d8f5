// A checkpointed loop reruns on a copy of each local it reads (the local may be moved
// or dropped after the loop): here a `Well` that is not `Clone`.
use gradtape::differentiable;

struct Well {
    k: f64,
}

impl Well {
    fn strength(&self) -> f64 {
        self.k
    }
}

#[differentiable(checkpoint)]
fn fall(x0: f64, steps: usize) -> f64 {
    let well = Well { k: 2.0 };
    let mut x = x0;
    for _ in 0..steps {
        x = x - 0.1 * well.strength() * x.sin();
    }
    x
}

fn main() {}
