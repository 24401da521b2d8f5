// `#[derive(Differentiable)]` needs a struct, and `#[constant]` takes no arguments.
use gradtape::Differentiable;

#[derive(Differentiable)]
enum Shape {
    Circle(f64),
    Square(f64),
}

#[derive(Differentiable)]
struct Params {
    a: f64,
    #[constant(always)]
    label: f64,
}

fn main() {}
