use gradtape::differentiable;

// An associated function called on differentiable numbers that is not annotated: the
// caller's generated code names its companion items (`Spring::energy_of_vjp`), which it
// does not have, at the function's name. A standard library type's associated function
// keeps the macro's own error.
struct Spring;

impl Spring {
    fn energy_of(k: f64, x: f64) -> f64 {
        0.5 * k * x * x
    }
}

#[differentiable]
fn total(k: f64, x: f64) -> f64 {
    Spring::energy_of(k, x) + x
}

#[differentiable]
fn boxed(x: f64) -> f64 {
    *Box::new(x) + x
}

fn main() {}
