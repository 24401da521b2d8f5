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

// A local array of enum values iterated and matched is differentiated; an item passed on
// whole to a function is not.
#[differentiable]
fn total_area(x: &[f64]) -> f64 {
    let shapes = [Shape::Circle(x[0]), Shape::Square(x[1])];
    let mut total = 0.0;
    for s in &shapes {
        total += area_of(s);
    }
    total
}

fn main() {}
