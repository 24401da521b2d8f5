//! The seed's linear regression: learn y = 10x + 5 from 256 points by gradient descent on
//! two variables, print the fitted line and draw it over the data.
//!
//! `cargo run --example linear_regression [-- --plot PATH]`

use std::path::PathBuf;

use gradtape::nn::{Optimizer, Sgd, losses, plot};
use gradtape::{GradientTape, Tensor, Variable};

/// Runs this example (the tour calls it too).
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let plot_path = plot_path("linear_regression.png");
    let x = Tensor::linspace(-1.0_f32, 1.0, 256);
    let y = &x * 10.0 + 5.0;
    let (a, b) = (
        Variable::with_name("a", 0.0_f32),
        Variable::with_name("b", 0.0_f32),
    );
    let mut sgd = Sgd::new(0.1);
    for step in 0..1000 {
        let tape = GradientTape::new();
        let loss = tape.record(|| losses::mean_squared_error(&(&a * &x + &b), &y));
        let [da, db] = tape.gradient(&loss, [&a, &b])?;
        sgd.apply_gradients([(da, &a), (db, &b)]);
        if step % 200 == 0 {
            println!("step {step:4}: loss {:.6}", loss.to_scalar());
        }
    }
    let (a, b) = (a.value().to_scalar(), b.value().to_scalar());
    println!("y ≈ {a:.2}x + {b:.2}");

    let points: Vec<(f64, f64)> = x
        .to_vec()
        .iter()
        .zip(y.to_vec())
        .map(|(&x, y)| (x.into(), y.into()))
        .collect();
    let line = [(-1.0, f64::from(b - a)), (1.0, f64::from(a + b))];
    plot::fit(
        &plot_path,
        &format!("y ≈ {a:.2}x + {b:.2}"),
        &points,
        &line,
        ("x", "y"),
    )?;
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
