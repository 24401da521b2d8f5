use gradtape::differentiable;

// A closure defined inside another closure's body is not inlined, and so is a closure
// over differentiable values used as a value.
#[differentiable]
fn nested(x: f64, y: f64) -> f64 {
    let outer = |a: f64| {
        let inner = |b: f64| b * y;
        inner(a) + a
    };
    outer(x)
}

fn main() {}
