use gradtape::differentiable;

// A binary search's closure may test differentiable values (its position is a constant),
// `knots.partition_point(|&k| k <= t)`; one that writes a value is code left as written
// changing a differentiable local, and is rejected.
#[differentiable]
fn f(knots: &[f64], t: f64) -> f64 {
    let mut acc = 0.0;
    let i = knots
        .partition_point(|&k| {
            acc += k * t;
            k <= t
        })
        .clamp(1, knots.len() - 1);
    (t - knots[i - 1]) * knots[i] + acc
}

fn main() {}
