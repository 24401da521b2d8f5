use gradtape::differentiable;

// An associated function (no `self`) annotated in an `impl` block that is not: its
// companion items need the block's own `#[differentiable]`. Named by the macro where the
// function names `Self`, at the function's name.
struct Spring {
    k: f64,
}

impl Spring {
    #[differentiable]
    fn stiffer(k: f64, x: f64) -> f64 {
        Self::scale() * k * x * x
    }

    fn scale() -> f64 {
        0.5
    }
}

fn main() {
    let _ = Spring { k: 1.0 }.k;
}
