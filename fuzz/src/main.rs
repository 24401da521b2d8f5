//! `gradtape-fuzz`: a random-program generator for `#[differentiable]`, in the spirit of
//! Csmith. From each seed it writes one annotated function over tensors of three shapes
//! (`x: [2, 3]`, `y: [3]`, `w: [3, 3]`): elementwise ops in safe domains, broadcasting,
//! `matmul`, reductions (`sum`, `sum_axis`, `mean`, `mean_axis`), shadowing, nested blocks,
//! `if`/`else` on constant conditions and on comparisons of values, `for` loops carrying
//! state, and calls of other annotated functions; and one test that checks it against the
//! op-by-op tape (`f::primal`) and central finite differences, orders 1 and 2
//! (`tests/common/mod.rs`, `check_annotated`).
//!
//! ```text
//! # the checked-in regression file (40 programs from fixed seeds)
//! cargo run -p gradtape-fuzz -- --seeds 0..40 --test-file tests/generated_programs.rs
//! # a long hunt in a scratch crate that depends on gradtape by path
//! cargo run -p gradtape-fuzz -- --seeds 1000..3000 --out /tmp/fuzz && (cd /tmp/fuzz && cargo test)
//! ```
//!
//! `fuzz/hunt.sh` runs the second with the worktree's target directory.

mod scalar;

use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The shared oracles, copied into a scratch crate: `tests/common/`'s files (`mod.rs`
/// declares the other two as modules).
const COMMON: &[(&str, &str)] = &[
    ("mod.rs", include_str!("../../tests/common/mod.rs")),
    ("faces.rs", include_str!("../../tests/common/faces.rs")),
    ("twice.rs", include_str!("../../tests/common/twice.rs")),
];

/// How many programs one test file of a scratch crate holds (files compile in parallel).
const PER_FILE: u64 = 200;

/// SplitMix64: a small, seedable, dependency-free generator.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    /// A small constant in `[lo, hi)`, printed with one decimal.
    fn constant(&mut self, lo: i64, hi: i64) -> String {
        let tenths = lo * 10 + self.below(((hi - lo) * 10) as u64) as i64;
        format!("{:.1}", tenths as f64 / 10.0)
    }
}

/// The shape of a value: `M` `[2, 3]`, `V` `[3]`, `S` 0-d, `W` `[3, 3]`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    M,
    V,
    S,
    W,
}

/// A name in scope: its kind and whether it is a parameter (a reference already).
#[derive(Clone)]
struct Local {
    name: String,
    kind: Kind,
    param: bool,
}

struct Program {
    rng: Rng,
    scopes: Vec<Vec<Local>>,
    fresh: usize,
    code: String,
    indent: usize,
}

impl Program {
    fn new(seed: u64) -> Self {
        let params = [("x", Kind::M), ("y", Kind::V), ("w", Kind::W)]
            .map(|(name, kind)| Local {
                name: name.into(),
                kind,
                param: true,
            })
            .to_vec();
        Program {
            rng: Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0xfeed),
            scopes: vec![params],
            fresh: 0,
            code: String::new(),
            indent: 1,
        }
    }

    fn line(&mut self, text: &str) {
        let _ = writeln!(self.code, "{}{text}", "    ".repeat(self.indent));
    }

    fn visible(&self, kind: Kind) -> Vec<Local> {
        // The innermost binding of each name hides the others.
        let mut seen: Vec<&str> = Vec::new();
        let mut found = Vec::new();
        for scope in self.scopes.iter().rev() {
            for local in scope.iter().rev() {
                if seen.contains(&local.name.as_str()) {
                    continue;
                }
                seen.push(&local.name);
                if local.kind == kind {
                    found.push(local.clone());
                }
            }
        }
        found
    }

    fn declare(&mut self, name: &str, kind: Kind) {
        self.scopes.last_mut().expect("a scope").push(Local {
            name: name.into(),
            kind,
            param: false,
        });
    }

    /// A name for a new `let`: fresh, or one in scope of the same kind (shadowing it).
    fn let_name(&mut self, kind: Kind) -> String {
        let visible = self.visible(kind);
        if !visible.is_empty() && self.rng.chance(35) {
            let k = self.rng.below(visible.len() as u64) as usize;
            return visible[k].name.clone();
        }
        self.fresh += 1;
        format!("v{}", self.fresh)
    }

    /// A leaf of `kind` as an operand of an operator (`&local`, `param`), or `None`.
    fn leaf(&mut self, kind: Kind) -> Option<(String, String)> {
        let visible = self.visible(kind);
        if visible.is_empty() {
            return None;
        }
        let local = &visible[self.rng.below(visible.len() as u64) as usize];
        let operand = if local.param {
            local.name.clone()
        } else {
            format!("&{}", local.name)
        };
        Some((operand, local.name.clone()))
    }

    /// An expression of `kind`, as an operand (a reference or a parenthesised value).
    fn operand(&mut self, kind: Kind, depth: usize) -> String {
        if (depth == 0 || self.rng.chance(25))
            && let Some((operand, _)) = self.leaf(kind)
        {
            return operand;
        }
        format!("({})", self.expr(kind, depth.saturating_sub(1)))
    }

    /// An expression of `kind` as a method receiver (`local`, `param` or `(value)`).
    fn receiver(&mut self, kind: Kind, depth: usize) -> String {
        if (depth == 0 || self.rng.chance(30))
            && let Some((_, name)) = self.leaf(kind)
        {
            return name;
        }
        format!("({})", self.expr(kind, depth.saturating_sub(1)))
    }

    fn unary(&mut self, kind: Kind, depth: usize) -> String {
        let r = self.receiver(kind, depth);
        match self.rng.below(7) {
            0 => format!("{r}.tanh()"),
            1 => format!("{r}.sin()"),
            2 => format!("{r}.cos()"),
            3 => format!("{r}.sigmoid()"),
            4 => format!("{r}.tanh().exp()"),
            5 => format!("{r}.tanh().square()"),
            _ => format!("{r}.sin() * {}", self.rng.constant(-2, 2)),
        }
    }

    fn expr(&mut self, kind: Kind, depth: usize) -> String {
        if depth == 0 {
            return match kind {
                Kind::S => {
                    let r = self.receiver(Kind::V, 0);
                    format!("{r}.mean()")
                }
                _ => {
                    let r = self.receiver(kind, 0);
                    format!("{r}.tanh()")
                }
            };
        }
        let d = depth - 1;
        match kind {
            Kind::M => match self.rng.below(11) {
                0 | 1 => self.unary(Kind::M, d),
                2 => format!(
                    "{} + {}",
                    self.operand(Kind::M, d),
                    self.operand(Kind::M, d)
                ),
                3 => format!(
                    "{} * {}",
                    self.operand(Kind::M, d),
                    self.operand(Kind::V, d)
                ),
                4 => format!(
                    "{} - {}",
                    self.operand(Kind::M, d),
                    self.operand(Kind::V, d)
                ),
                5 => format!(
                    "{} * {}",
                    self.operand(Kind::M, d),
                    self.operand(Kind::S, d)
                ),
                6 => format!(
                    "{} - {}",
                    self.rng.constant(-1, 1),
                    self.operand(Kind::M, d)
                ),
                7 => {
                    let m = self.receiver(Kind::M, d);
                    let w = self.arg(Kind::W, d);
                    format!("{m}.matmul({w}) * 0.5")
                }
                8 => format!(
                    "{} / ({}.square() + 1.0)",
                    self.operand(Kind::M, d),
                    self.receiver(Kind::M, d)
                ),
                9 => format!(
                    "helper_mix({}, {})",
                    self.arg(Kind::M, d),
                    self.arg(Kind::V, d)
                ),
                _ => format!("helper_bend({})", self.arg(Kind::M, d)),
            },
            Kind::V => match self.rng.below(6) {
                0 => self.unary(Kind::V, d),
                1 => format!("{}.sum_axis(0, false) * 0.5", self.receiver(Kind::M, d)),
                2 => format!("{}.mean_axis(0, false)", self.receiver(Kind::M, d)),
                3 => format!(
                    "{} + {}",
                    self.operand(Kind::V, d),
                    self.operand(Kind::V, d)
                ),
                4 => format!(
                    "{} * {}",
                    self.operand(Kind::V, d),
                    self.operand(Kind::S, d)
                ),
                _ => format!("{}.mean_axis(1, false)", self.receiver(Kind::W, d)),
            },
            Kind::S => match self.rng.below(5) {
                0 => format!("{}.sum() * 0.2", self.receiver(Kind::M, d)),
                1 => format!("{}.mean()", self.receiver(Kind::V, d)),
                2 => format!("{}.sin()", self.receiver(Kind::S, d)),
                3 => format!(
                    "{} * {}",
                    self.operand(Kind::S, d),
                    self.operand(Kind::S, d)
                ),
                _ => format!("{}.mean()", self.receiver(Kind::W, d)),
            },
            Kind::W => match self.rng.below(3) {
                0 => self.unary(Kind::W, d),
                1 => format!("{} * 0.5", self.operand(Kind::W, d)),
                _ => format!(
                    "{} + {}",
                    self.operand(Kind::W, d),
                    self.operand(Kind::V, d)
                ),
            },
        }
    }

    /// An argument of a call: `&value` or a reference.
    fn arg(&mut self, kind: Kind, depth: usize) -> String {
        let operand = self.operand(kind, depth);
        if operand.starts_with('(') {
            format!("&{operand}")
        } else {
            operand
        }
    }

    fn condition(&mut self) -> String {
        match self.rng.below(4) {
            0 => "true".into(),
            1 => "2 + 2 == 5".into(),
            _ => {
                let s = self.receiver(Kind::S, 1);
                let op = if self.rng.chance(50) { ">" } else { "<" };
                format!("{s}.to_scalar() {op} {}", self.rng.constant(-1, 1))
            }
        }
    }

    fn kind(&mut self) -> Kind {
        match self.rng.below(6) {
            0..=2 => Kind::M,
            3 | 4 => Kind::V,
            _ => Kind::S,
        }
    }

    /// A block's statements and its tail of `kind`, in a new scope.
    fn block(&mut self, kind: Kind, statements: u64, depth: usize) -> Vec<String> {
        self.scopes.push(Vec::new());
        let outer = std::mem::take(&mut self.code);
        let indent = self.indent;
        self.indent = 0;
        for _ in 0..statements {
            self.statement(depth);
        }
        let tail = self.expr(kind, 2);
        let body = std::mem::replace(&mut self.code, outer);
        self.indent = indent;
        self.scopes.pop();
        body.lines().map(str::to_string).chain([tail]).collect()
    }

    fn emit_block(&mut self, lines: &[String]) {
        self.indent += 1;
        for line in lines {
            self.line(line);
        }
        self.indent -= 1;
    }

    fn statement(&mut self, depth: usize) {
        let choice = if depth == 0 { 0 } else { self.rng.below(8) };
        let kind = self.kind();
        match choice {
            0..=3 => {
                let value = self.expr(kind, 2);
                let name = self.let_name(kind);
                self.line(&format!("let {name} = {value};"));
                self.declare(&name, kind);
            }
            4 => {
                let n = 1 + self.rng.below(3);
                let lines = self.block(kind, n, depth - 1);
                let name = self.let_name(kind);
                self.line(&format!("let {name} = {{"));
                self.emit_block(&lines);
                self.line("};");
                self.declare(&name, kind);
            }
            5 => {
                let cond = self.condition();
                let (n, m) = (self.rng.below(3), self.rng.below(3));
                let then_lines = self.block(kind, n, depth - 1);
                let else_lines = self.block(kind, m, depth - 1);
                let name = self.let_name(kind);
                self.line(&format!("let {name} = if {cond} {{"));
                self.emit_block(&then_lines);
                self.line("} else {");
                self.emit_block(&else_lines);
                self.line("};");
                self.declare(&name, kind);
            }
            _ => {
                // A loop carrying state: `acc` updated from itself and other values.
                let kind = if kind == Kind::S { Kind::M } else { kind };
                self.fresh += 1;
                let acc = format!("acc{}", self.fresh);
                let init = self.expr(kind, 1);
                self.line(&format!("let mut {acc} = {init};"));
                self.declare(&acc, kind);
                let trips = 1 + self.rng.below(3);
                self.line(&format!("for _ in 0..{trips} {{"));
                self.indent += 1;
                self.scopes.push(Vec::new());
                if self.rng.chance(50) {
                    let value = self.expr(kind, 1);
                    self.fresh += 1;
                    let name = format!("v{}", self.fresh);
                    self.line(&format!("let {name} = {value};"));
                    self.declare(&name, kind);
                }
                let other = self.operand(kind, 1);
                self.line(&format!("{acc} = (&{acc} * 0.5 + {other}).tanh();"));
                self.scopes.pop();
                self.indent -= 1;
                self.line("}");
            }
        }
    }

    /// The function `program_<seed>`.
    fn function(seed: u64) -> String {
        let mut p = Program::new(seed);
        let statements = 2 + p.rng.below(5);
        for _ in 0..statements {
            p.statement(2);
        }
        let tail = p.expr(Kind::M, 3);
        p.line(&tail);
        format!(
            "#[differentiable]\nfn program_{seed}(x: &Tensor<f64>, y: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {{\n{}}}\n",
            p.code
        )
    }
}

const HEADER: &str = r#"//! Programs written by `gradtape-fuzz` (fuzz/src/main.rs), each an annotated function
//! checked against the op-by-op tape and central finite differences, orders 1 and 2.
//! Generated: do not edit; regenerate with
//! `cargo run -p gradtape-fuzz -- --seeds SEEDS --test-file tests/generated_programs.rs`.

#![allow(unused, clippy::all)]

mod common;

use common::{Tolerance, check_annotated, sample, Domain};
use gradtape::{Tensor, differentiable};

/// Called by the programs: another annotated function, broadcasting.
#[differentiable]
fn helper_mix(u: &Tensor<f64>, v: &Tensor<f64>) -> Tensor<f64> {
    (u * v).tanh() + u * 0.5
}

/// Called by the programs: another annotated function with a branch on a value.
#[differentiable]
fn helper_bend(u: &Tensor<f64>) -> Tensor<f64> {
    let s = u.sin();
    if u.sum().to_scalar() > 0.0 { s * u } else { s - u * 0.25 }
}

fn inputs(seed: u64) -> Vec<Tensor<f64>> {
    let domain = Domain::Uniform(-1.0, 1.0);
    vec![
        sample(&[2, 3], domain, seed),
        sample(&[3], domain, seed + 1),
        sample(&[3, 3], domain, seed + 2),
    ]
}

fn check(name: &str, seed: u64, fused: common::Op<'_>, plain: common::Op<'_>) {
    if let Err(message) = check_annotated(name, &inputs(seed), fused, plain, Tolerance::F64, seed) {
        panic!("{message}");
    }
}
"#;

fn program_and_test(seed: u64) -> String {
    format!(
        "\n{}\n#[test]\nfn program_{seed}_matches_the_tape_and_finite_differences() {{\n    check(\n        \"program_{seed}\",\n        {seed},\n        &|a| program_{seed}(&a[0], &a[1], &a[2]),\n        &|a| program_{seed}::primal(&a[0], &a[1], &a[2]),\n    );\n}}\n",
        Program::function(seed)
    )
}

/// Which programs to write: over tensors ([`Program`]) or plain floats
/// ([`scalar::ScalarProgram`]).
#[derive(Clone, Copy)]
enum Mode {
    Tensor,
    Scalar,
}

fn test_file(seeds: Range<u64>, mode: Mode) -> String {
    let (header, program): (&str, fn(u64) -> String) = match mode {
        Mode::Tensor => (HEADER, program_and_test),
        Mode::Scalar => (scalar::HEADER, scalar::program_and_test),
    };
    let mut file = header.to_string();
    for seed in seeds {
        file.push_str(&program(seed));
    }
    file
}

/// A scratch crate that depends on gradtape by path, its programs split over test files.
fn scratch_crate(out: &Path, seeds: Range<u64>, mode: Mode) -> std::io::Result<()> {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("fuzz/ is in the workspace")
        .canonicalize()?;
    std::fs::create_dir_all(out.join("tests/common"))?;
    std::fs::create_dir_all(out.join("src"))?;
    let manifest = format!(
        "[package]\nname = \"gradtape-hunt\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\ngradtape = {{ path = {:?} }}\nnum-traits = \"0.2\"\n\n[workspace]\n\n\
         [profile.dev.package.\"*\"]\nopt-level = 3\n\n[profile.dev]\nopt-level = 1\n",
        repo.display().to_string()
    );
    std::fs::write(out.join("Cargo.toml"), manifest)?;
    // The workspace's toolchain, so that the dependencies built in its target are reused.
    std::fs::copy(
        repo.join("rust-toolchain.toml"),
        out.join("rust-toolchain.toml"),
    )?;
    std::fs::write(
        out.join("src/lib.rs"),
        "//! Generated programs live in tests/.\n",
    )?;
    for (name, text) in COMMON {
        std::fs::write(out.join("tests/common").join(name), text)?;
    }
    let mut start = seeds.start;
    while start < seeds.end {
        let end = (start + PER_FILE).min(seeds.end);
        std::fs::write(
            out.join(format!("tests/programs_{start}.rs")),
            test_file(start..end, mode),
        )?;
        start = end;
    }
    Ok(())
}

fn parse_range(text: &str) -> Option<Range<u64>> {
    let (a, b) = text.split_once("..")?;
    Some(a.parse().ok()?..b.parse().ok()?)
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut seeds = 0..40;
    let (mut test_file_path, mut out, mut print) = (None, None, None);
    let mut mode = Mode::Tensor;
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--scalar" {
            mode = Mode::Scalar;
            i += 1;
            continue;
        }
        let value = args.get(i + 1).cloned();
        match (args[i].as_str(), value) {
            ("--seeds", Some(v)) => seeds = parse_range(&v).expect("--seeds A..B"),
            ("--test-file", Some(v)) => test_file_path = Some(PathBuf::from(v)),
            ("--out", Some(v)) => out = Some(PathBuf::from(v)),
            ("--print", Some(v)) => print = Some(v.parse::<u64>().expect("--print SEED")),
            _ => {
                eprintln!(
                    "usage: gradtape-fuzz [--scalar] [--seeds A..B] (--test-file FILE | --out DIR | --print SEED)"
                );
                std::process::exit(2);
            }
        }
        i += 2;
    }
    if let Some(seed) = print {
        match mode {
            Mode::Tensor => print!("{}", Program::function(seed)),
            Mode::Scalar => print!("{}", scalar::ScalarProgram::functions(seed)),
        }
    }
    if let Some(path) = test_file_path {
        std::fs::write(&path, test_file(seeds.clone(), mode))?;
        // Checked in: formatted as the rest of the workspace is.
        let formatted = std::process::Command::new("rustfmt")
            .args(["--edition", "2024"])
            .arg(&path)
            .status();
        if !formatted.is_ok_and(|status| status.success()) {
            eprintln!("gradtape-fuzz: rustfmt did not run on {}", path.display());
        }
    }
    if let Some(out) = out {
        scratch_crate(&out, seeds, mode)?;
    }
    Ok(())
}
