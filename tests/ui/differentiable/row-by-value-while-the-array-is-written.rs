use gradtape::differentiable;

// `for row in m` of an owned array copies the rows; the body writes `m`, so `m[k]` is no
// longer the row it copied: a row by value is read as `m[k]` only where the body leaves
// `m` alone
#[differentiable]
fn f(mut m: [[f64; 2]; 2]) -> f64 {
    let mut s = 0.0;
    for row in m {
        m[0][0] = row[1];
        s += row[0];
    }
    s + m[0][0]
}

fn main() {}
