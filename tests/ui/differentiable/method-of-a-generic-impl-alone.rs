use gradtape::{Float, differentiable};

struct Spring<T> {
    k: T,
}

// The method alone cannot see the block's `T: Float`: the error says to annotate the
// block as well (`#[differentiable] impl<T: Float> Spring<T>` works).
impl<T: Float> Spring<T> {
    #[differentiable]
    fn energy(&self, x: T) -> T {
        self.k * x * x
    }
}

fn main() {}
