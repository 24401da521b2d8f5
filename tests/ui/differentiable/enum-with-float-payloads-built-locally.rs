use gradtape::differentiable;

enum Shape {
    Circle(f64),
    Square(f64),
}

// An enum carrying differentiable values built in the body is not differentiated (one
// passed in as a constant parameter is).
#[differentiable]
fn area(x: f64, round: bool) -> f64 {
    let shape = if round { Shape::Circle(x) } else { Shape::Square(x) };
    match shape {
        Shape::Circle(r) => 3.14 * r * r,
        Shape::Square(s) => s * s,
    }
}

fn main() {}
