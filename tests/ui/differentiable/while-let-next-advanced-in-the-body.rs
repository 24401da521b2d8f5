use gradtape::differentiable;

// The iterator is advanced in the body too: the loop is no `for` over it, and stays
// rejected (an iterator of differentiable values held in a local).
#[differentiable]
fn pairs(x: &[f64]) -> f64 {
    let mut it = x.iter();
    let mut total = 0.0;
    while let Some(a) = it.next() {
        if let Some(b) = it.next() {
            total += a * b;
        }
    }
    total
}

fn main() {}
