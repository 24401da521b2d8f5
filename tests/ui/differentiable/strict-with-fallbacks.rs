use gradtape::differentiable;

fn softplus<T: num_traits::Float>(x: T) -> T {
    x.exp().ln_1p()
}

#[differentiable]
fn leaf(x: f64) -> f64 {
    x.sin()
}

// `strict` allows no fallback: a plain helper (dual numbers at run time), and a call in a
// branch (its pullback boxed, since it may recurse); both reported at once
#[differentiable(strict, plain(softplus))]
fn f(x: f64) -> f64 {
    let y = softplus(x);
    if y > 1.0 { leaf(y) } else { y }
}

fn main() {}
