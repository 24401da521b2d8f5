use gradtape::differentiable;

// An array of rows is differentiated as the tuple of its elements, at most 12 of them in
// all: a 4x4 matrix has 16.
#[differentiable]
fn scaling(s: f64) -> [[f64; 4]; 4] {
    let mut m = [[0.0; 4]; 4];
    for i in 0..4 {
        m[i][i] = s;
    }
    m
}

fn main() {}
