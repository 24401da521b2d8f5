// A function the macro rejects, called from annotated callers: its own errors are the
// answer, once each, at its tokens. The callers add nothing (they said "not annotated"
// before): the rejected function's fallback puts a stand-in companion under its name,
// whose items return a type holding the first error, so a caller's generated code checks
// nothing further. Reached by name, through a module path, and with a marked struct
// parameter passed on whole (rejected by the struct pass, or by the pipeline its twin
// runs through).
use gradtape::{Differentiable, differentiable};

#[differentiable]
fn through_unsafe(x: f64) -> f64 {
    let y = unsafe { std::ptr::read(&x) };
    y * y
}

#[differentiable]
fn by_name(x: f64) -> f64 {
    through_unsafe(x) + x
}

mod util {
    use gradtape::differentiable;

    #[differentiable]
    pub fn norm(x: f64, y: f64) -> f64 {
        let p = &x as *const f64;
        (x * y).sqrt() + unsafe { *p }
    }
}

#[differentiable]
fn by_path(x: f64, y: f64) -> f64 {
    util::norm(x, y) * 2.0
}

#[derive(Differentiable, Clone)]
struct Spring {
    k: f64,
    rest: f64,
}

#[differentiable]
fn energy(#[differentiable] s: &Spring, x: f64) -> f64 {
    let copy = s;
    0.5 * copy.k * (x - s.rest) * (x - s.rest)
}

#[differentiable]
fn total(#[differentiable] s: &Spring, x: f64) -> f64 {
    energy(s, x) + s.k
}

#[differentiable]
fn stretch(#[differentiable] s: &Spring, x: f64) -> f64 {
    let d = unsafe { std::ptr::read(&x) } - s.rest;
    s.k * d
}

#[differentiable]
fn stretched(#[differentiable] s: &Spring, x: f64) -> f64 {
    stretch(s, x) * x
}

fn main() {}
