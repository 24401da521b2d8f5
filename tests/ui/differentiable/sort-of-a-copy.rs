use gradtape::differentiable;

// Sorting a copy of differentiable values has no rule (the permutation is not recorded).
#[differentiable]
fn median(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {}
