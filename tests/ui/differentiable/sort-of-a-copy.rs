use gradtape::differentiable;

// `sort_by` of a copy of differentiable values is differentiated (a permutation the
// values decide); an unstable sort is not: its order of ties is its algorithm's.
#[differentiable]
fn median(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_unstable_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {}
