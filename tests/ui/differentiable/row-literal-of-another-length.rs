use gradtape::differentiable;

// A row written as a literal has the length of the result's rows (the twin's tuple is
// row-major, `C` elements a row): the macro's message at the row, not rustc's mismatch
// in the generated code.
#[differentiable]
fn shear(k: f64) -> [[f64; 2]; 2] {
    [[1.0, k, 0.0], [0.0, 1.0]]
}

// A result of a const generic row length cannot be counted.
#[differentiable]
fn diagonal<const N: usize>(x: f64) -> [[f64; N]; 2] {
    [[x; N]; 2]
}

fn main() {}
