// A rejected function with a marked struct parameter and parameters held constant
// (`constant(..)`), whose companion items the user calls: the macro's error is the answer,
// once, at the function's tokens. `jvp` and `grad_into` take one tangent or buffer per
// differentiable parameter, none for a constant: the stand-in companion counts them so
// (it counted the constants too, and a call with the right arguments was rustc's E0061,
// "this function takes 6 arguments but 5 arguments were supplied", beside the macro's
// error). Rejected by the struct pass, and by the pipeline its twin runs through; a
// method's too.
use gradtape::{Differentiable, differentiable};

#[derive(Differentiable, Clone)]
struct Spring {
    k: f64,
    rest: f64,
}

// rejected by the struct pass (`s` read whole)
#[differentiable(constant(x))]
fn held(#[differentiable] s: &Spring, x: f64, y: f64) -> f64 {
    let copy = s;
    copy.k * (x - s.rest) * y
}

// rejected by the pipeline (`unsafe`)
#[differentiable(constant(a, x))]
fn spread(#[differentiable] s: &Spring, a: &[f64], x: f64, y: f64) -> f64 {
    let t = unsafe { std::ptr::read(&y) };
    s.k * a[0] * (x - s.rest) * t
}

impl Spring {
    #[differentiable(constant(x))]
    fn stretch(#[differentiable] &self, x: f64, y: f64) -> f64 {
        let t = unsafe { std::ptr::read(&y) };
        self.k * (x - self.rest) * t
    }
}

fn main() {
    let s = Spring { k: 2.0, rest: 1.0 };
    let (_, d) = held::jvp(&s, 3.0, 0.5, &s, 1.0);
    let (_, e) = spread::jvp(&s, &[1.0], 3.0, 0.5, &s, 1.0);
    let (_, f) = s.stretch_jvp(3.0, 0.5, &s, 1.0);
    println!("{d} {e} {f}");
}
