use gradtape::differentiable;

// A sub-slice bound by a slice pattern (`rest @ ..`) or by `let` is read as a view of the
// array; a part of that part (`rest[1..]`) is not, and the sub-slice bound by name is then
// rejected.
#[differentiable]
fn head_plus_rest(x: &[f64]) -> f64 {
    match x {
        [a, rest @ ..] => a + rest[1..].iter().sum::<f64>(),
        [] => 0.0,
    }
}

fn main() {}
