//! The command line of the MNIST training examples (`mnist.rs`, `mnist_cnn.rs`): where the
//! data is, how long to train, from which seed, where the plot and the checkpoint go.

use std::path::PathBuf;

/// What a training example was asked for.
pub struct Options {
    pub data: PathBuf,
    pub epochs: usize,
    pub batch: usize,
    pub plot: PathBuf,
    pub save: PathBuf,
    /// Draws the initial kernels, dropout masks and the batches' order: runs with one
    /// seed are the same run.
    pub seed: u64,
}

impl Options {
    /// The seed of epoch `epoch`'s batch order (the epoch itself for seed 0).
    pub fn epoch_seed(&self, epoch: usize) -> u64 {
        (self.seed << 32).wrapping_add(epoch as u64)
    }
}

/// `--data DIR` (or `MNIST_DIR`, else the shipped subset), `--epochs N` (`default_epochs`
/// unless given), `--batch N` (128), `--seed N` (0), `--plot PATH` and `--save PATH`
/// (`target/plots/{name}.png` and `.safetensors`).
pub fn parse(default_epochs: usize, name: &str) -> Options {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter().position(|a| a == flag).map(|i| {
            args.get(i + 1)
                .unwrap_or_else(|| panic!("{flag} needs a value"))
                .clone()
        })
    };
    let number = |flag: &str, default: usize| {
        value(flag).map_or(default, |v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{flag} needs a number, got {v}"))
        })
    };
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let data = value("--data")
        .or_else(|| std::env::var("MNIST_DIR").ok())
        .map_or_else(
            || workspace.join("examples/data/mnist-subset"),
            PathBuf::from,
        );
    let out = workspace.join("target/plots");
    std::fs::create_dir_all(&out).expect("cannot create target/plots");
    Options {
        data,
        epochs: number("--epochs", default_epochs),
        batch: number("--batch", 128),
        seed: number("--seed", 0) as u64,
        plot: value("--plot").map_or_else(|| out.join(format!("{name}.png")), PathBuf::from),
        save: value("--save")
            .map_or_else(|| out.join(format!("{name}.safetensors")), PathBuf::from),
    }
}
