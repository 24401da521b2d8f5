// A local copied from a field (its type not spelled) and then written element by element
// with differentiable values: the macro cannot tell it is a float array, and says how to
// make it one (`let mut r: [f64; 4] = ..`), rather than that only locals can be assigned.
use gradtape::differentiable;

pub struct Model {
    pub rel: Vec<[f64; 4]>,
}

#[differentiable]
fn posed(theta: &[f64], model: &Model) -> f64 {
    let mut total = 0.0;
    for b in 0..model.rel.len() {
        let mut r = model.rel[b];
        r[0] = r[0] * theta[b].cos();
        total += r[0] + r[1];
    }
    total
}

fn main() {
    let model = Model { rel: vec![[1.0; 4]] };
    let _ = posed(&[0.5], &model);
}
