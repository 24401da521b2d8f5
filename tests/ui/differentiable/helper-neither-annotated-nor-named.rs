use gradtape::differentiable;

// neither annotated nor named in `plain(..)`: the attribute cannot tell (a proc macro sees
// one item), calls `sq::vjp`, and rustc reports the missing module at the helper's name.
// Annotate `sq`, or write `#[differentiable(plain(sq))]` (it is generic).
fn sq<T: num_traits::Float>(x: T) -> T {
    x * x
}

#[differentiable]
fn f(x: f64) -> f64 {
    sq(x) + x
}

fn main() {}
