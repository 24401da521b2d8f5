use gradtape::differentiable;

fn norm<T: num_traits::Float>(v: &[T]) -> T {
    v.iter().fold(T::zero(), |a, &b| a + b * b).sqrt()
}

fn scale<T: num_traits::Float>(x: T) -> T {
    x + x
}

// a differentiable array passed to a plain helper (dual numbers replace numbers only)
#[differentiable(plain(norm))]
fn length(v: &[f64]) -> f64 {
    norm(v)
}

// a plain helper named with generic arguments
#[differentiable(plain(scale::<f64>))]
fn doubled(x: f64) -> f64 {
    scale(x)
}

// `plain()` naming nothing
#[differentiable(plain())]
fn nothing(x: f64) -> f64 {
    x
}

fn main() {}
