use gradtape::differentiable;

// A closure made at the end of a block (`let f = { ..; |v| .. };`, or a closure's call
// returning one) is bound by `let` once the block's statements run before it; not where
// they bind a name the statements after read (`k`, here the outer one): the closure is
// then a value.
#[differentiable]
fn shadowed_by_its_block(x: f64, y: f64) -> f64 {
    let k = y * 5.0;
    let scaled = {
        let k = x * 2.0;
        move |v: f64| v * k
    };
    scaled(y) + k
}

fn main() {}
