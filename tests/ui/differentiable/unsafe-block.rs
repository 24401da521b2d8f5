use gradtape::{Tensor, differentiable};

#[differentiable]
fn f(x: &Tensor<f32>) -> Tensor<f32> {
    let scale = unsafe { std::mem::transmute::<u32, f32>(1065353216) };
    x * scale
}

fn main() {}
