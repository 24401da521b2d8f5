//! Fits a quadratic y = c2·x² + c1·x + c0 to noisy samples of y = 3x² - 2x + 1 with Adam,
//! prints the coefficients and draws the fit over the data.
//!
//! `cargo run --example polynomial_regression [-- --plot PATH]`

use std::path::PathBuf;

use gradtape::nn::{Adam, Optimizer, losses, plot};
use gradtape::{GradientTape, Tensor, Variable};

/// Runs this example (the tour calls it too).
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let plot_path = plot_path("polynomial_regression.png");
    let x = Tensor::linspace(-2.0_f32, 2.0, 200);
    let noise = Tensor::random_normal(&[200], 0.0, 0.5, 42);
    let y = x.square() * 3.0 - &x * 2.0 + 1.0 + &noise;

    let coefficients = [
        Variable::with_name("c0", 0.0_f32),
        Variable::with_name("c1", 0.0_f32),
        Variable::with_name("c2", 0.0_f32),
    ];
    let [c0, c1, c2] = &coefficients;
    let model = |x: &Tensor<f32>| c2 * &x.square() + c1 * x + c0;
    let mut adam = Adam::new(0.05);
    for step in 0..2000 {
        let tape = GradientTape::new();
        let loss = tape.record(|| losses::mean_squared_error(&model(&x), &y));
        let grads = tape.gradient(&loss, &coefficients)?;
        adam.apply_gradients(grads.into_iter().zip(&coefficients));
        if step % 400 == 0 {
            println!("step {step:4}: loss {:.6}", loss.to_scalar());
        }
    }
    let [c0, c1, c2] = coefficients.each_ref().map(|c| c.value().to_scalar());
    let sign = |v: f32| if v < 0.0 { '-' } else { '+' };
    let equation = format!(
        "y ≈ {c2:.2}x² {} {:.2}x {} {:.2}",
        sign(c1),
        c1.abs(),
        sign(c0),
        c0.abs()
    );
    println!("{equation}");
    println!("coefficients: c2 = {c2:.4}, c1 = {c1:.4}, c0 = {c0:.4} (true: 3, -2, 1)");

    let points: Vec<(f64, f64)> = x
        .to_vec()
        .iter()
        .zip(y.to_vec())
        .map(|(&x, y)| (x.into(), y.into()))
        .collect();
    let curve: Vec<(f64, f64)> = points
        .iter()
        .map(|&(x, _)| (x, f64::from(c2) * x * x + f64::from(c1) * x + f64::from(c0)))
        .collect();
    plot::fit(&plot_path, &equation, &points, &curve, ("x", "y"))?;
    println!("plot: {}", plot_path.display());
    Ok(())
}

/// `--plot PATH`, or `target/plots/NAME` in the workspace.
fn plot_path(name: &str) -> PathBuf {
    let args: Vec<String> = std::env::args().collect();
    let path = match args.iter().position(|a| a == "--plot") {
        Some(i) => PathBuf::from(args.get(i + 1).expect("--plot needs a path")),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("target/plots")
            .join(name),
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("cannot create the plot's folder");
    }
    path
}
