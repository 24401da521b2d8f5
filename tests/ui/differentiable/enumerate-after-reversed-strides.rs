use gradtape::differentiable;

// `rev`, `skip`, `take` and `enumerate` in any order are differentiated (a `skip`/`take`
// after a `rev`, a `rev` after them); an `enumerate` after a `step_by` of reversed items
// (which would count the strided items from their own start) is not.
#[differentiable]
fn every_other_from_the_end(x: &[f64]) -> f64 {
    x.iter().rev().step_by(2).enumerate().map(|(i, v)| i as f64 * v).sum()
}

fn main() {}
