// A rejected function's companion items called by the user's own code (`bad::grad(x)`,
// `bad::vjp(x)`, `bad::jvp(..)`, `bad::grad_into(..)`, `bad::primal(..)`, `bad::GENERATED`):
// the macro's error is the answer, once, at the function's tokens. The calls add nothing
// (`grad` and the others were rustc's E0599, "no function or associated item named `grad`",
// beside it): the stand-in companion has every item the real one would, taking as many
// arguments. Also for a function with a marked struct parameter, rejected by the struct
// pass, and one with an array held constant.
use gradtape::{Differentiable, differentiable};

#[differentiable]
fn bad(x: f64) -> f64 {
    let y = unsafe { std::ptr::read(&x) };
    y * y
}

#[differentiable]
fn bad_sum(a: &[f64], y: f64) -> f64 {
    let p = &y as *const f64;
    a[0] * y + unsafe { *p }
}

#[differentiable(constant(a))]
fn bad_scaled(a: &[f64], s: f64) -> f64 {
    let t = unsafe { std::ptr::read(&s) };
    a[0] * t
}

#[derive(Differentiable, Clone)]
struct Spring {
    k: f64,
    rest: f64,
}

#[differentiable]
fn bad_energy(#[differentiable] s: &Spring, x: f64) -> f64 {
    let copy = s;
    0.5 * copy.k * (x - s.rest) * (x - s.rest)
}

fn main() {
    let (value, [dx]) = bad::grad(1.5);
    let (v, pullback) = bad::vjp(1.5);
    let (_, (gx,)) = pullback(1.0);
    let (_, dot) = bad::jvp(1.5, 1.0);
    println!("{value} {dx} {v} {gx:?} {dot} {}", bad::primal(2.0));
    println!("{}", bad::GENERATED.len());
    let a = [1.0, 2.0];
    let mut da = [0.0; 2];
    let mut dy = 0.0;
    let total = bad_sum::grad_into(&a, 3.0, &mut da, &mut dy);
    let (_, tangent) = bad_sum::jvp(&a, 3.0, &[1.0, 0.0], 1.0);
    let (_, [ds]) = bad_scaled::grad(&a, 2.0);
    let (_, t) = bad_scaled::jvp(&a, 2.0, 1.0);
    println!("{total} {tangent} {ds} {t}");
    let s = Spring { k: 2.0, rest: 1.0 };
    let (e, (g_s, g_x)) = bad_energy::grad(&s, 3.0);
    let (_, de) = bad_energy::jvp(&s, 3.0, &s, 1.0);
    println!("{e} {} {g_x} {de}", g_s.k);
}
