// A helper named in `plain(..)` runs on dual numbers, which implement `num_traits::Float`
// but not `gradtape::Float`: a helper bounded by the latter is the trait's message, whose
// note says what to do (bound it by `num_traits::Float`, or annotate it).
use gradtape::differentiable;

fn softplus<T: gradtape::Float>(x: T) -> T {
    (T::one() + x.exp()).ln()
}

#[differentiable(plain(softplus))]
fn total(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += softplus(x[i]);
    }
    s
}

fn main() {}
