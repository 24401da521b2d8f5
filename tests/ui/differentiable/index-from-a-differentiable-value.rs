use gradtape::differentiable;

#[differentiable]
fn f(x: &[f64]) -> f64 {
    x[{
        let t = x[0];
        t as usize
    }]
}

fn main() {}
