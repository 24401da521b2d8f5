use gradtape::{Differentiable, differentiable};

// A method called on a differentiable struct (a marked `self`, a marked parameter) that is
// not annotated: the caller's generated code names its companion items (`stretch_vjp`),
// which it does not have. The answer is the runtime's message at the method's name, once
// per call, whether the method takes `&self` or `self`: not rustc's "no method named
// `stretch_vjp`" once per generated function, nor inference errors in the code after the
// call.
#[derive(Differentiable, Clone, Copy)]
struct Spring {
    k: f64,
    rest: f64,
}

impl Spring {
    fn stretch(&self, x: f64) -> f64 {
        x - self.rest
    }

    fn scaled(self, x: f64) -> f64 {
        self.k * x
    }
}

#[differentiable]
impl Spring {
    #[differentiable]
    fn energy(#[differentiable] &self, x: f64) -> f64 {
        let d = self.stretch(x);
        0.5 * self.k * d * d
    }
}

#[differentiable]
fn of_a_parameter(#[differentiable] s: &Spring, x: f64) -> f64 {
    s.scaled(x) + x
}

fn main() {}
