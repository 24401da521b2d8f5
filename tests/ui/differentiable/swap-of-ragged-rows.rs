// `m.swap(i, j)` on an array of rows of one width exchanges the rows' elements one at a
// time; on a ragged array of rows (`Vec<Vec<f64>>`) it exchanges the rows' lengths too,
// which no exchange of elements is: the macro's error at the `swap`.
use gradtape::differentiable;

#[differentiable]
fn ragged_swap(x: f64, y: f64) -> f64 {
    let mut m = vec![vec![0.0; 2]; 3];
    m[0][0] = x;
    m[1][1] = y;
    m.swap(0, 1);
    m[0][1] * m[1][0] + x
}

fn main() {}
