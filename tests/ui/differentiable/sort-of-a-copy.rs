use gradtape::differentiable;

// Every in-place sort of a copy of differentiable values is differentiated (`sort_by`,
// `sort_unstable_by`, by a key), and `select_nth_unstable_by` called as a statement, read
// by `*v.select_nth_unstable_by(k, ..).1` or destructured with the middle read as `*m`;
// its result held whole, references into the array, is not followed.
#[differentiable]
fn median(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let mid = v.len() / 2;
    let parts = v.select_nth_unstable_by(mid, |a, b| a.total_cmp(b));
    *parts.1
}

fn main() {}
