use gradtape::differentiable;

fn twice_applied(f: impl Fn(f64) -> f64, v: f64) -> f64 {
    f(f(v))
}

// A closure defined inside another closure's body and only called there is inlined; one
// used as a value (here handed to a helper) is not, in a closure or out of one.
#[differentiable]
fn nested(x: f64, y: f64) -> f64 {
    let outer = |a: f64| {
        let inner = |b: f64| b * y;
        twice_applied(inner, a) + a
    };
    outer(x)
}

fn main() {}
