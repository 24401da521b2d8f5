use gradtape::differentiable;

fn total_weight(pairs: &[(f64, f64)]) -> f64 {
    pairs.iter().map(|(v, w)| v * w).sum()
}

// A local array of tuples is split into one array per position where every use is one
// the split keeps in step (indexing, `len`, `push`, iterators over the elements); passed
// on whole, it is left as written.
#[differentiable]
fn weighted(x: &[f64]) -> f64 {
    let pairs = vec![(x[0], 2.0), (x[1], 3.0)];
    total_weight(&pairs)
}

fn main() {}
