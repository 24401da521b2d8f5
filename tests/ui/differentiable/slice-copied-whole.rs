use gradtape::differentiable;

// `let y = x;` of a borrowed array parameter is a view of the whole (`&x[..]`), and a `mut`
// one assigned parts of the same array later (`y = &x[1..];`) a slice walked through it;
// one assigned another array (`y = w;`) is no one part of either.
#[differentiable]
fn f(x: &[f64], w: &[f64]) -> f64 {
    let mut y = x;
    if y[0] > 0.0 {
        y = w;
    }
    y[0] * 2.0
}

fn main() {}
