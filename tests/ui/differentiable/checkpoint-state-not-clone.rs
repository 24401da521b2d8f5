// A checkpointed loop snapshots what it changes at each segment's start: here a
// generator that is not `Clone`.
use gradtape::differentiable;

struct Noise {
    state: u64,
}

impl Noise {
    fn next(&mut self) -> f64 {
        self.state = self.state.wrapping_mul(6364136223846793005).wrapping_add(1);
        (self.state >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[differentiable(checkpoint)]
fn walk(x0: f64, steps: usize) -> f64 {
    let mut x = x0;
    let mut noise = Noise { state: 7 };
    for _ in 0..steps {
        x = x.sin() + 0.1 * noise.next();
    }
    x
}

fn main() {}
