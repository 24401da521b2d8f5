use gradtape::differentiable;

trait Potential {
    fn energy(&self, x: f64) -> f64;
}

struct Spring {
    k: f64,
}

// The block's own attribute puts the method's companions beside it; a rejected body in a
// marked method is still the macro's error, spanned in the method.
#[differentiable]
impl Potential for Spring {
    #[differentiable]
    fn energy(&self, x: f64) -> f64 {
        let mut total = 0.0;
        let cell = std::cell::Cell::new(x);
        total += cell.get();
        total * self.k
    }
}

fn main() {}
