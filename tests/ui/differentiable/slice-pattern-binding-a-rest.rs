use gradtape::differentiable;

// A sub-slice bound by a slice pattern (`rest @ ..`) or by `let` is read as a view of the
// array, and so is a part of it to its end (`rest[1..]`); a part of it with an end
// (`rest[..2]`) is not, and the sub-slice bound by name is then rejected.
#[differentiable]
fn head_plus_rest(x: &[f64]) -> f64 {
    match x {
        [a, rest @ ..] => a + rest[..2].iter().sum::<f64>(),
        [] => 0.0,
    }
}

fn main() {}
