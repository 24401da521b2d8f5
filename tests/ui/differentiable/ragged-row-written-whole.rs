use gradtape::differentiable;

// a row of a ragged array of rows (a `Vec<f64>`, whose length the assignment may change)
// is written element by element, not whole; fixed-size rows are written whole (`m[0] =
// m[1];` of `[[f64; 2]; 2]`, formerly this case, is `tests/differentiable_arrays.rs`'s
// `row_from_its_own_array`)
#[differentiable]
fn f(x: f64) -> f64 {
    let mut m = vec![vec![0.0; 2]; 2];
    let r = vec![x, x * 2.0];
    m[0] = r;
    m[0][0] * m[1][1]
}

fn main() {}
