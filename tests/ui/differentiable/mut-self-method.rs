use gradtape::differentiable;

struct Accumulator {
    total: f64,
}

impl Accumulator {
    #[differentiable]
    fn add(&mut self, x: f64) -> f64 {
        self.total += x;
        self.total
    }
}

fn main() {}
