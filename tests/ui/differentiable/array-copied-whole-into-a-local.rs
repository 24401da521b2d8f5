use gradtape::differentiable;

// A matrix power by repeated products: the copy `let mut m = *a;` and the double buffer
// `m = next;` are each reported once; the reads `m[i][k]` after them are not.
#[differentiable]
fn trace_of_cube(a: &[[f64; 2]; 2]) -> f64 {
    let mut m = *a;
    for _ in 0..2 {
        let mut next = [[0.0; 2]; 2];
        for i in 0..2 {
            for j in 0..2 {
                for k in 0..2 {
                    next[i][j] += m[i][k] * a[k][j];
                }
            }
        }
        m = next;
    }
    m[0][0] + m[1][1]
}

fn main() {}
