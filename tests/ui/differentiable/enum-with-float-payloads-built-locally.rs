use gradtape::differentiable;

enum Shape {
    Circle(f64),
    Square(f64),
}

fn area_of(shape: &Shape) -> f64 {
    match shape {
        Shape::Circle(r) => 3.14 * r * r,
        Shape::Square(s) => s * s,
    }
}

// An enum carrying differentiable values built in the body and only matched is
// differentiated (a tag and a local per field); one passed on whole is not.
#[differentiable]
fn area(x: f64, round: bool) -> f64 {
    let shape = if round { Shape::Circle(x) } else { Shape::Square(x) };
    area_of(&shape)
}

fn main() {}
