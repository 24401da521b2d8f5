// A rejected function (and method) with an array result, indexed by an annotated caller:
// the callee's own message is the one error (the caller's call of its writer,
// `cross::__gradtape_write_vjp_partial`, was rustc's "no associated item" beside it).
use gradtape::differentiable;

#[differentiable]
fn cross(a: &[f64], b: &[f64]) -> [f64; 3] {
    let s = a[0].next_up();
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], s * b[1] - a[1] * b[0]]
}

#[differentiable]
fn uses_the_cross(x: &[f64]) -> f64 {
    let c = cross(&x[..3], &x[3..]);
    c[0] * c[0] + c[1] * c[2]
}

struct Spring {
    k: f64,
}

impl Spring {
    #[differentiable]
    fn force(&self, x: &[f64]) -> [f64; 2] {
        [x[0].next_up() * self.k, x[1] * self.k]
    }
}

#[differentiable]
fn uses_the_force(s: &Spring, x: &[f64]) -> f64 {
    let f = s.force(x);
    f[0] + f[1]
}

fn main() {}
