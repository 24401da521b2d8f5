// Found by the scalar program generator (program_47's `f64` twin, in a hunt of seeds
// 40..240): rustc rejects the expansion with E0277 (`usize: gradtape::generated::Own`,
// `usize: gradtape::generated::ZeroTangent`) spanned on the attribute. The expansion keeps
// `k + 1`, in the `enumerate` closure, for the adjoint of its `as f64`, as if it were a
// differentiable number. It depends on how the body is spelled: without the parentheses
// around `n1 * s`, around the `clamp`'s bounds or around the cast, it compiles (they move
// the numbering of lowering's temporaries), and the program compiled among the hunt's
// others gave the error in one build and not in another of the same file.
use gradtape::{Differentiable, differentiable};

#[differentiable]
fn helper_pair<T: gradtape::Float>(a: T, b: T) -> (T, T) {
    (a * b.cos(), (a - b).tanh())
}

#[derive(Differentiable, Clone, Debug)]
struct Params<T> {
    a: T,
    b: T,
    w: [T; 3],
    v: Vec<T>,
}

#[differentiable]
#[rustfmt::skip]
fn enumerate_cast_beside_struct_parameter(#[differentiable] p: &Params<f64>, x: &[f64], s: f64) -> f64 {
    let n1 = if s.max(p.w[2]) > p.b { ((p.b).atan() * (p.b).sin()) } else { s.clamp((-0.8_f64), (0.9_f64)) };
    let t4 = helper_pair((n1 * s), p.b);
    let n5 = t4.0 * x.iter().enumerate().map(|(k, v)| *v * ((k + 1) as f64)).sum::<f64>() + t4.1;
    p.b + n1 + n5
}

fn main() {
    let p = Params { a: 0.1, b: 0.2, w: [0.3, -0.4, 0.5], v: vec![0.6; 4] };
    let _ = enumerate_cast_beside_struct_parameter::grad(&p, &[0.3, -0.1, 0.7, 0.2], 0.4);
}
