use gradtape::differentiable;

// A `move` closure assigning its own copy of `total` (an `FnMut` over the copy, kept from
// call to call): inlined, the body would assign the outer `total`, and read the value
// assigned to it before the call. It is the macro's error at the closure, not a body
// reading the later `total`.
#[differentiable]
fn f(x: f64) -> f64 {
    let mut total = x;
    let mut add = move |v: f64| {
        total += v;
        total
    };
    total = 2.0 * x;
    add(x) + total
}

fn main() {}
