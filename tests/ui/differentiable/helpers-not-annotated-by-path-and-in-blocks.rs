use gradtape::differentiable;

// Calls of functions that are not annotated, reached three ways: through a module path,
// from a function inside a block (as in a test), and with three arguments, two of them
// differentiable. Each is one error, at the callee's name, in the macro's words.
mod util {
    pub fn norm(x: f64, y: f64) -> f64 {
        (x * x + y * y).sqrt()
    }
}

fn scaled(x: f64, y: f64, scale: f64) -> f64 {
    scale * (x + y)
}

#[differentiable]
fn by_path(x: f64, y: f64) -> f64 {
    util::norm(x, y) + scaled(x, y, 2.0)
}

fn main() {
    fn cube(x: f64) -> f64 {
        x * x * x
    }

    #[differentiable]
    fn in_a_block(x: f64) -> f64 {
        cube(x) + 1.0
    }
}
