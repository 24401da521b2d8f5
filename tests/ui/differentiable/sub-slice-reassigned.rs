use gradtape::differentiable;

// A sub-slice bound by a slice pattern (`rest @ ..`) or by `let` is read as a view of the
// array, and so is any part of it (`rest[..2]`, `rest[1..]`); one assigned again (walking
// an array by `s = &s[1..];`) is not: it is no one part of the array.
#[differentiable]
fn walked_products(x: &[f64]) -> f64 {
    let mut s = &x[..];
    let mut total = 0.0;
    while s.len() > 1 {
        total += s[0] * s[1];
        s = &s[1..];
    }
    total
}

fn main() {}
