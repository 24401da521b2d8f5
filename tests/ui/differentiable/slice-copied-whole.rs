use gradtape::differentiable;

// `let y = x;` of a borrowed array parameter is a view of the whole (`&x[..]`); a `mut`
// name that another view replaces later is not followed.
#[differentiable]
fn f(x: &[f64]) -> f64 {
    let mut y = x;
    if y[0] > 0.0 {
        y = &x[1..];
    }
    y[0] * 2.0
}

fn main() {}
