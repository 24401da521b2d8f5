use gradtape::differentiable;

fn twice_applied(f: impl Fn(f64) -> f64, v: f64) -> f64 {
    f(f(v))
}

// A closure defined inside another closure's body and called there, passed by name to a
// method (`xs.iter().map(inner)`) or returned is differentiated; one handed to a helper
// that is not annotated is not, in a closure or out of one.
#[differentiable]
fn nested(x: f64, y: f64) -> f64 {
    let outer = |a: f64| {
        let inner = |b: f64| b * y;
        twice_applied(inner, a) + a
    };
    outer(x)
}

fn main() {}
