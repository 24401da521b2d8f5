use gradtape::differentiable;

// not generic: it cannot run on dual numbers, so it cannot be a plain helper (annotate it)
fn cube(x: f64) -> f64 {
    x * x * x
}

#[differentiable(plain(cube))]
fn f(x: f64) -> f64 {
    cube(x) + x
}

fn main() {}
