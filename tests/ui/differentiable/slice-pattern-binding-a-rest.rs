use gradtape::differentiable;

// A slice pattern binding a sub-slice (`rest @ ..`) is left as written, and a
// differentiable array matched whole is rejected; names and `..` alone are differentiated.
#[differentiable]
fn head_plus_rest(x: &[f64]) -> f64 {
    match x {
        [a, rest @ ..] => a + rest.iter().sum::<f64>(),
        [] => 0.0,
    }
}

fn main() {}
