use gradtape::differentiable;

// A closure reading `y`, which is assigned again before the call, and binding `y` again
// in its own body: the inlined body must read the closure's copy of the outer `y` but
// not the inner one, and the rewrite does not follow the inner scope. It is the macro's
// error at the closure, not a body reading the later `y`.
#[differentiable]
fn f(x: f64) -> f64 {
    let mut y = x * 2.0;
    let g = move |v: f64| {
        let w = v * y;
        let y = w + 1.0;
        y * y
    };
    y = x.sin();
    g(x) + y
}

fn main() {}
