// A rejected method called from annotated callers, by method syntax and by the type's
// path, and a rejected associated function called by `Self::..`: the method's own errors
// are the answer, once each, at its tokens. The callers add nothing (their generated code
// calls the method's companion items, `energy_vjp_now` and the others, which were rustc's
// E0599 beside the macro's error): the rejected method's fallback puts stand-in items
// beside it, returning a type that holds its first error.
use gradtape::differentiable;

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
    fn doubled(&self, x: f64) -> f64 {
        2.0 * self.energy(x) + x
    }
}

#[differentiable]
fn work(s: &Spring, x: f64) -> f64 {
    s.energy(x) * x
}

struct Integrator {
    dt: f64,
}

#[differentiable]
impl Integrator {
    #[differentiable]
    fn rate(k: f64, x: f64) -> f64 {
        let p = &x as *const f64;
        -k * x * unsafe { *p }
    }

    #[differentiable]
    fn step(&self, x: f64) -> f64 {
        x + self.dt * Self::rate(0.5, x)
    }
}

fn main() {}
