use gradtape::differentiable;

// A grid of rows (`Vec<Vec<f64>>`) assigned whole: its rows may change length, so it is not
// copied element by element (a flat `Vec` of the same length is: `state = next;`).
#[differentiable]
fn relaxed(x: &[f64]) -> f64 {
    let mut grid = vec![vec![0.0; x.len()]; 2];
    for i in 0..x.len() {
        grid[0][i] = x[i];
    }
    for _ in 0..3 {
        let mut next = vec![vec![0.0; x.len()]; 2];
        for i in 0..x.len() {
            next[1][i] = 0.5 * grid[0][i];
        }
        grid = next;
    }
    grid[1][0]
}

fn main() {}
