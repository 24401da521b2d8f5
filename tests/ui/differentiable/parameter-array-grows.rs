use gradtape::differentiable;

// A parameter's gradient has the parameter's length: it cannot grow (regression: `grad`
// gave three entries for a `Vec` of two, and `grad_into` panicked).
#[differentiable]
fn grow(mut v: Vec<f64>) -> f64 {
    let x = v[0] * 2.0;
    v.push(x);
    v[2] * v[1] + v[0]
}

fn main() {}
