// A rejected method's (and a rejected associated function's) companion items called by the
// user's own code (`s.energy_grad(x)`, `Spring::energy_grad(&s, x)`, `s.energy_vjp(x)`,
// `s.energy_jvp(..)`, `Spring::ENERGY_GENERATED`, `Integrator::rate_grad(..)`): the macro's
// error is the answer, once, at the method's tokens. The calls add nothing (they were
// rustc's E0599, "no method named `energy_grad`", beside it): the rejected method's fallback
// puts stand-in items beside it, as a function's puts a stand-in companion type. A method
// annotated alone, one in an annotated trait `impl`, an associated function of an annotated
// block, and a method with a marked `self` (rejected by the struct pass) and with arrays.
use gradtape::{Differentiable, differentiable};

#[derive(Differentiable, Clone)]
struct Spring {
    k: f64,
    rest: f64,
}

impl Spring {
    #[differentiable]
    fn energy(&self, x: f64) -> f64 {
        let y = unsafe { std::ptr::read(&x) };
        0.5 * self.k * (y - self.rest) * (y - self.rest)
    }

    #[differentiable]
    fn spread(&self, a: &[f64], s: f64) -> f64 {
        let t = unsafe { std::ptr::read(&s) };
        a[0] * t * self.k
    }

    #[differentiable]
    fn stretch(#[differentiable] &self, x: f64) -> f64 {
        let copy = self;
        copy.k * (x - self.rest)
    }
}

trait Potential {
    fn potential(&self, x: f64) -> f64;
}

#[differentiable]
impl Potential for Spring {
    #[differentiable]
    fn potential(&self, x: f64) -> f64 {
        let y = unsafe { std::ptr::read(&x) };
        self.k * y
    }
}

struct Integrator;

#[differentiable]
impl Integrator {
    #[differentiable]
    fn rate(k: f64, x: f64) -> f64 {
        let y = unsafe { std::ptr::read(&x) };
        -k * y * y * y
    }
}

fn main() {
    let s = Spring { k: 2.0, rest: 1.0 };
    let (e, [dx]) = s.energy_grad(1.5);
    let (_, [dx2]) = Spring::energy_grad(&s, 1.5);
    let (v, pullback) = s.energy_vjp(1.5);
    let (_, (_, gx)) = pullback(1.0);
    let (_, dot) = s.energy_jvp(1.5, 1.0);
    println!("{e} {dx} {dx2} {v} {gx:?} {dot} {}", s.energy_primal(2.0));
    println!("{}", Spring::ENERGY_GENERATED.len());
    let a = [1.0, 2.0];
    let mut da = [0.0; 2];
    let mut ds = 0.0;
    let total = s.spread_grad_into(&a, 3.0, &mut da, &mut ds);
    let (_, tangent) = s.spread_jvp(&a, 3.0, &[1.0, 0.0], 1.0);
    println!("{total} {tangent}");
    let (_, (g_s, g_x)) = s.stretch_grad(3.0);
    let (_, d) = s.stretch_jvp(3.0, &s, 1.0);
    println!("{} {g_x} {d}", g_s.k);
    let (p, [dp]) = s.potential_grad(0.5);
    println!("{p} {dp}");
    let (r, [dk, dr]) = Integrator::rate_grad(1.5, 0.7);
    let (_, rt) = Integrator::rate_jvp(1.5, 0.7, 1.0, 0.0);
    println!("{r} {dk} {dr} {rt}");
}
