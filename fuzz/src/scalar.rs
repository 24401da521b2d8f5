//! Scalar-mode programs: plain-float `#[differentiable]` functions over a slice and a
//! number (`fn program_<seed><T: gradtape::Float>(x: &[T], s: T) -> T`), the form most
//! annotated code takes and the one no tape can check (nothing records `f64` arithmetic).
//! Some programs are writers too, taking an output `out: &mut [T]` last that they write
//! (`out[i] = ..`, `+=`, `iter_mut`, passed on to an annotated writer) and read; some take
//! a struct of floats first (`#[differentiable] p: &Params<T>`: two floats, a `[T; 3]` and
//! a `Vec<T>`), read by field ([`Shape`]).
//!
//! Each program is written three times from the same generated statements: annotated and
//! generic, annotated on `f64` (its twin), and as a plain function generic over
//! `num_traits::Float` (`program_<seed>_on_duals`), which its test runs on dual numbers
//! (`gradtape::generated::Dual`): each float operation's forward rule, no source
//! transformation. The test checks the objective (the value, plus `⟨w, out⟩` of the
//! output for a writer, whose initial values are inputs too) by `primal`, the function
//! itself, `grad` (a writer's `grad_into` with `w` as the output's cotangent), `grad_into`
//! (a writer's `vjp` pullback) and `jvp`: the gradient against the dual numbers and central
//! differences, each Hessian column (differences of the gradient) against differences of
//! the duals' gradient, `jvp` against the gradient along a direction, the twin to the bit,
//! and the generic function at `f32` against dual numbers on `f32`. A struct's gradient is
//! compared field by field (flattened in field order).
//!
//! What the statements cover ([`STATEMENTS`], one row per kind): `let` and `let mut`
//! numbers updated in place, local buffers (`vec![..; 4]`, `to_vec`) written by index and
//! by `iter_mut`, loops carrying several values (`for`, `while`, `loop` with `break`),
//! `continue`, early `return` (also from a loop), `if`/`else` on comparisons of values (as
//! statements and as values), `match` on a loop index, tuple `let`s, `move` closures
//! capturing differentiable values, iterator sums and folds (`map`, `zip`, `enumerate`,
//! `rev`, `windows`; over `x`, buffers and the struct's array fields), calls of an
//! annotated helper and of an annotated writer into a local buffer or the output, and the
//! float methods with derivatives (in domains where they are smooth, `T::max(a, b)`,
//! `atan2` and `hypot` with two differentiable arguments among them). And the forms users
//! write on top of those: `match` on the loop index with or-patterns, a range under a
//! guard and a binding; `let Some(v) = o else { .. };` of an `Option` made by an `if`
//! (diverging by `return`, `continue` or `break`), `if let Some(v) = b.get(i)` and
//! `match x.first()` on elements that may be missing; two values carried through a `while` by one tuple
//! assignment (`(p, q) = (p + q * h, q - p.sin() * h)`); local arrays `[T; N]` (from a
//! literal or filled by index) used wherever a buffer is; a 2×2 array of rows written as
//! `m[r][col]`; a pair (a helper's result or a tuple) read as `.0` and `.1`; and a float
//! cast to an index (`.to_usize()`, `as usize` in the `f64` twin).

use crate::Rng;

/// How often (percent) a closure is left uncalled.
const UNCALLED_CLOSURE: u64 = 30;
/// How often (percent) a `match`'s arms are bare assignments (`0 => a = a + b,`).
const BARE_ARMS: u64 = 50;

/// The length of `x` and of every local buffer.
const LEN: usize = 4;

/// A kind of statement the generator writes: one row of [`STATEMENTS`] each.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Statement {
    /// `let n = e;`
    Let,
    /// `a = a * c + e;` of a mutable number (a contraction)
    Update,
    /// `b[i] = b[i] * e + leaf;`
    UpdateElement,
    /// `let n = if c { a } else { b };`
    LetIf,
    /// `let (p, q) = (a, b);`
    LetPair,
    /// `let f = move |v: T| e;`, called or not
    Closure,
    /// `let n = helper_soft(a, b);`
    HelperSoft,
    /// `a += e;` or `a -= e;`, sometimes then `a *= c;`
    CompoundNumber,
    /// `let k = e; b[i] += k;`
    CompoundElement,
    /// `let (p, q) = helper_pair(a, b);`
    HelperPair,
    /// `helper_smooth(&mut b, k);`, an annotated writer into a buffer (or the output)
    HelperSmooth,
    /// `let n = helper_power(e, n);`, a recursive annotated helper
    HelperPower,
    /// a closure of two parameters, and a closure calling it
    TwoClosures,
    /// `for i in 0..LEN { .. }` (or reversed), its body more statements
    For,
    /// two values carried through a loop, updated in order (a symplectic Euler step)
    SymplecticEuler,
    /// `if c { a = e; } else { a = a - e; }`
    IfElse,
    /// `for v in b.iter_mut() { *v = e; }`
    IterMut,
    /// `for i in 1..LEN { b[i] = b[i - 1] * c + b[i].tanh(); }`
    PrefixRecurrence,
    /// a `while` loop, or a `loop` with `break`, counting in `usize`
    WhileOrLoop,
    /// `if c { break; }` or `if c { continue; }`, in a loop
    BreakOrContinue,
    /// `if c { return e; }`
    EarlyReturn,
    /// `match i % 3 { .. }` on the loop index, bare or braced arms
    MatchOnIndex,
    /// `match i { k if k % 2 == 0 => .., _ => .. }`
    MatchGuards,
    /// `let n = loop { .. break v; };`
    LoopValue,
    /// `if let Some(v) = x.first() { .. }` (or `last`)
    IfLetEnd,
    /// `'outer: for .. { for .. { if c { break 'outer; } .. } }`
    LabelledBreak,
    /// `for pair in b.chunks(2) { .. }`
    Chunks,
    /// a running maximum and a sum of exponentials carried through a loop
    RunningMax,
    /// `out[i] = e;` (writers)
    WriteOutput,
    /// `let k = e; out[i] += k;` (writers)
    AddToOutput,
    /// `for v in out.iter_mut() { *v = e; }` (writers)
    IterMutOutput,
    /// `for (o, v) in out.iter_mut().zip(x.iter()) { *o = ..; }` (writers)
    ZipIntoOutput,
    /// the struct parameter's array fields read in a loop (struct parameters)
    FieldLoop,
    /// `match i { 0 | 2 => .., 1..=2 if c => .., _ => {} }` on the loop index
    MatchPatterns,
    /// `let Some(v) = o else { return e; };` of an `Option` made by an `if` (`continue`
    /// or `break` in a loop)
    LetElse,
    /// `if let Some(v) = x.get(i) { .. } else { .. }`, or `match x.first() { .. }`
    OptionGet,
    /// `(p, q) = (p + q * h, q - p.sin() * h);` in a `while`: carried values updated at once
    TupleAssignWhile,
    /// `let t = helper_pair(a, b);` (or a tuple) read as `t.0` and `t.1`
    TupleFields,
    /// `let mut m = [[T::zero(); 2]; 2];` written as `m[r][c]`, read as a determinant
    MatrixRows,
    /// `let k = (e.abs() * 2.5).floor().to_usize().unwrap() % LEN;` (`as usize` on `f64`),
    /// a float cast to an index
    CastIndex,
}

/// What a statement needs of where it is written, besides depth for blocks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Needs {
    Nothing,
    /// inside a loop (`break`, `continue`)
    InLoop,
    /// a loop index in scope
    LoopIndex,
    /// a program that writes an output
    Output,
    /// a program with a struct parameter
    Params,
}

/// One kind of statement and how often it is drawn.
struct Row {
    statement: Statement,
    /// Relative weight among the rows allowed where a statement is drawn.
    weight: u64,
    /// It has blocks (of its own statements or fixed ones): written only while the depth
    /// lasts, so that nesting stays bounded.
    blocks: bool,
    needs: Needs,
}

const fn row(statement: Statement, weight: u64, blocks: bool, needs: Needs) -> Row {
    Row {
        statement,
        weight,
        blocks,
        needs,
    }
}

/// Every statement the generator writes. A new kind is one row here and one arm of
/// [`ScalarProgram::write`]. (Where blocks are allowed, they are about half the draws.)
const STATEMENTS: &[Row] = {
    use Needs::*;
    use Statement::*;
    &[
        row(Let, 5, false, Nothing),
        row(Update, 5, false, Nothing),
        row(UpdateElement, 2, false, Nothing),
        row(LetIf, 2, false, Nothing),
        row(LetPair, 2, false, Nothing),
        row(Closure, 2, false, Nothing),
        row(HelperSoft, 2, false, Nothing),
        row(CompoundNumber, 3, false, Nothing),
        row(CompoundElement, 3, false, Nothing),
        row(HelperPair, 2, false, Nothing),
        row(HelperSmooth, 2, false, Nothing),
        row(HelperPower, 1, false, Nothing),
        row(TwoClosures, 1, false, Nothing),
        row(For, 6, true, Nothing),
        row(SymplecticEuler, 2, true, Nothing),
        row(IfElse, 3, true, Nothing),
        row(IterMut, 2, true, Nothing),
        row(PrefixRecurrence, 2, true, Nothing),
        row(WhileOrLoop, 3, true, Nothing),
        row(BreakOrContinue, 3, true, InLoop),
        row(EarlyReturn, 2, true, Nothing),
        row(MatchOnIndex, 2, true, LoopIndex),
        row(MatchGuards, 2, true, LoopIndex),
        row(LoopValue, 2, true, Nothing),
        row(IfLetEnd, 2, true, Nothing),
        row(LabelledBreak, 2, true, Nothing),
        row(Chunks, 2, true, Nothing),
        row(RunningMax, 2, true, Nothing),
        row(WriteOutput, 4, false, Output),
        row(AddToOutput, 3, false, Output),
        row(IterMutOutput, 2, true, Output),
        row(ZipIntoOutput, 2, true, Output),
        row(FieldLoop, 3, true, Params),
        row(MatchPatterns, 2, true, LoopIndex),
        row(LetElse, 2, false, Nothing),
        row(OptionGet, 2, false, Nothing),
        row(TupleAssignWhile, 2, true, Nothing),
        row(TupleFields, 2, false, Nothing),
        row(MatrixRows, 1, true, Nothing),
        row(CastIndex, 1, false, Nothing),
    ]
};

/// The writer's output parameter, `out: &mut [T]` of [`LEN`] numbers.
const OUTPUT: &str = "out";
/// The struct parameter, `p: &Params<T>` (fields `a`, `b`, `w: [T; PARAM_ARRAY]`,
/// `v: Vec<T>` of [`LEN`]).
const PARAMS: &str = "p";
/// The length of the struct parameter's `[T; N]` field.
const PARAM_ARRAY: usize = 3;

/// What a program takes besides `x: &[T]` and `s: T`.
#[derive(Clone, Copy)]
pub struct Shape {
    /// `out: &mut [T]` last, which the program writes (and may read).
    pub writer: bool,
    /// `#[differentiable] p: &Params<T>` first, a struct of floats read by field.
    pub params: bool,
}

/// How often (percent) a program writes an output, and how often it takes a struct.
const WRITERS: u64 = 35;
const WITH_PARAMS: u64 = 35;

impl Shape {
    fn of(seed: u64) -> Shape {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5_4a9e);
        Shape {
            writer: rng.chance(WRITERS),
            params: rng.chance(WITH_PARAMS),
        }
    }

    /// The program's inputs flattened, in order: the struct's floats (`a`, `b`, `w`, `v`),
    /// `x`, `s`, and the output's initial values.
    fn inputs(self) -> usize {
        let params = if self.params {
            2 + PARAM_ARRAY + LEN
        } else {
            0
        };
        let output = if self.writer { LEN } else { 0 };
        params + LEN + 1 + output
    }
}

/// A name in scope and what it holds.
#[derive(Clone)]
struct Local {
    name: String,
    kind: LocalKind,
    /// `let mut`: statements may assign it.
    mutable: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum LocalKind {
    Number,
    /// A `Vec<T>` of [`LEN`] numbers.
    Buffer,
    /// A `move` closure from `T` to `T`.
    Closure,
}

pub struct ScalarProgram {
    rng: Rng,
    /// The body, with `{H}` where a helper's name ends (empty for the annotated copy,
    /// `_on_duals` for the plain one).
    code: String,
    indent: usize,
    /// Blocks of locals: a block's end drops its names.
    scopes: Vec<Vec<Local>>,
    /// The loop index in scope (a `usize`), if any.
    index: Option<String>,
    /// Inside a loop: `break` and `continue` may appear.
    in_loop: bool,
    /// The number bound by the closure being written (`*v` or `v`), if any: inside a
    /// closure only it, `s`, constants and captured numbers are read.
    bound: Option<String>,
    next: usize,
    /// What the program takes besides `x` and `s`.
    shape: Shape,
}

impl ScalarProgram {
    fn new(seed: u64) -> Self {
        let shape = Shape::of(seed);
        let mut root = Vec::new();
        if shape.writer {
            // the output is a buffer the statements write and read like a local one
            root.push(Local {
                name: OUTPUT.to_owned(),
                kind: LocalKind::Buffer,
                mutable: true,
            });
        }
        ScalarProgram {
            rng: Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0x5ca1_ab1e),
            code: String::new(),
            indent: 1,
            scopes: vec![root],
            index: None,
            in_loop: false,
            bound: None,
            next: 0,
            shape,
        }
    }

    fn line(&mut self, text: &str) {
        self.code.push_str(&"    ".repeat(self.indent));
        self.code.push_str(text);
        self.code.push('\n');
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }

    fn declare(&mut self, name: &str, kind: LocalKind, mutable: bool) {
        self.scopes
            .last_mut()
            .expect("a scope is open")
            .push(Local {
                name: name.to_owned(),
                kind,
                mutable,
            });
    }

    fn visible(&self, kind: LocalKind, mutable: bool) -> Vec<String> {
        self.scopes
            .iter()
            .flatten()
            .filter(|local| local.kind == kind && (local.mutable || !mutable))
            .map(|local| local.name.clone())
            .collect()
    }

    fn pick(&mut self, names: &[String]) -> Option<String> {
        if names.is_empty() {
            None
        } else {
            Some(names[self.rng.below(names.len() as u64) as usize].clone())
        }
    }

    fn open(&mut self) {
        self.indent += 1;
        self.scopes.push(Vec::new());
    }

    fn close(&mut self) {
        self.scopes.pop();
        self.indent -= 1;
    }

    /// A factor in (-1, 1).
    fn factor(&mut self) -> String {
        format!("T::from({}).unwrap()", self.rng.constant(-1, 1))
    }

    fn constant(&mut self) -> String {
        format!("T::from({}).unwrap()", self.rng.constant(-2, 2))
    }

    /// An index into `x` or a buffer: a constant, or from the loop index.
    fn index(&mut self) -> String {
        match (&self.index, self.rng.below(3)) {
            (Some(i), 0) => i.clone(),
            (Some(i), 1) => format!("({i} + {}) % {LEN}", 1 + self.rng.below(LEN as u64 - 1)),
            _ => self.rng.below(LEN as u64).to_string(),
        }
    }

    /// A leaf: an input, a local, an element, a constant, or the closure's bound value.
    fn leaf(&mut self) -> String {
        if let Some(bound) = self.bound.clone() {
            return match self.rng.below(4) {
                0 | 1 => bound,
                2 => "s".to_owned(),
                _ => self.constant(),
            };
        }
        loop {
            match self.rng.below(7) {
                0 => return "s".to_owned(),
                1 | 2 => {
                    let i = self.index();
                    return format!("x[{i}]");
                }
                3 => {
                    let numbers = self.visible(LocalKind::Number, false);
                    if let Some(name) = self.pick(&numbers) {
                        return name;
                    }
                }
                4 => {
                    let buffers = self.visible(LocalKind::Buffer, false);
                    if let Some(name) = self.pick(&buffers) {
                        let i = self.index();
                        return format!("{name}[{i}]");
                    }
                }
                5 if self.shape.params => return self.field(),
                5 => {}
                _ => return self.constant(),
            }
        }
    }

    /// A read of the struct parameter: a float field, or an element of an array field.
    fn field(&mut self) -> String {
        match self.rng.below(4) {
            0 => format!("{PARAMS}.a"),
            1 => format!("{PARAMS}.b"),
            2 => {
                let i = match (&self.index, self.rng.below(2)) {
                    (Some(i), 0) => format!("{i} % {PARAM_ARRAY}"),
                    _ => self.rng.below(PARAM_ARRAY as u64).to_string(),
                };
                format!("{PARAMS}.w[{i}]")
            }
            _ => {
                let i = self.index();
                format!("{PARAMS}.v[{i}]")
            }
        }
    }

    /// A number expression of nesting at most `depth`.
    fn expr(&mut self, depth: usize) -> String {
        if depth == 0 || self.rng.chance(25) {
            return self.leaf();
        }
        let d = depth - 1;
        match self.rng.below(26) {
            0 | 1 => format!("({} + {})", self.expr(d), self.expr(d)),
            2 | 3 => format!("({} - {})", self.expr(d), self.expr(d)),
            4 | 5 => format!("({} * {})", self.expr(d), self.expr(d)),
            6 => {
                // a denominator at least 1.5
                let (a, b) = (self.expr(d), self.operand(d));
                format!("({a} / (T::from(1.5).unwrap() + {b} * {b}))")
            }
            7 => format!("{}.sin()", self.operand(d)),
            8 => format!("{}.cos()", self.operand(d)),
            9 => format!("{}.tanh()", self.operand(d)),
            10 => {
                let a = self.operand(d);
                format!("({a} * {a} + T::one()).sqrt()")
            }
            11 => {
                let a = self.operand(d);
                format!("({a} * {a} + T::one()).ln()")
            }
            12 => format!("{}.tanh().exp()", self.operand(d)),
            13 => format!("{}.powi({})", self.operand(d), 2 + self.rng.below(2)),
            14 => format!("{}.max({})", self.operand(d), self.expr(d)),
            15 => format!("{}.min({})", self.operand(d), self.expr(d)),
            16 => format!(
                "{}.mul_add({}, {})",
                self.operand(d),
                self.expr(d),
                self.expr(d)
            ),
            17 => format!("{}.atan()", self.operand(d)),
            18 => format!("{}.hypot(T::one())", self.operand(d)),
            19 => self.closure_call(d),
            20 => {
                // kinks (away from the sample points) and zero derivatives
                let a = self.operand(d);
                match self.rng.below(5) {
                    0 => format!("{a}.abs()"),
                    1 => format!("{a}.clamp(T::from(-0.8).unwrap(), T::from(0.9).unwrap())"),
                    2 => format!("({a}.signum() * {})", self.operand(d)),
                    3 => format!("({a}.floor() + {})", self.operand(d)),
                    _ => format!("({a} * {a} + T::one()).powf({})", self.expr(d)),
                }
            }
            21 => {
                // two-argument `max`/`min` called through the type (`f64::max(a, b)` in
                // the twin)
                let which = ["max", "min"][self.rng.below(2) as usize];
                format!("T::{which}({}, {})", self.expr(d), self.expr(d))
            }
            // (the second arguments kept away from the points where these are singular)
            22 => {
                let (a, b) = (self.operand(d), self.operand(d));
                format!("{a}.atan2(T::from(1.5).unwrap() + {b} * {b})")
            }
            23 => {
                let (a, b) = (self.operand(d), self.operand(d));
                format!("{a}.hypot(T::one() + {b} * {b})")
            }
            _ => self.iterated(d),
        }
    }

    /// An expression as a method's receiver (parenthesised unless a leaf).
    fn operand(&mut self, depth: usize) -> String {
        let e = self.expr(depth);
        if e.starts_with('(') || e.chars().all(|c| c.is_alphanumeric() || c == '_') {
            e
        } else {
            format!("({e})")
        }
    }

    /// A call of a closure in scope, else a leaf.
    fn closure_call(&mut self, depth: usize) -> String {
        if self.bound.is_some() {
            return self.leaf();
        }
        let closures = self.visible(LocalKind::Closure, false);
        match self.pick(&closures) {
            Some(f) => format!("{f}({})", self.expr(depth)),
            None => self.leaf(),
        }
    }

    /// A sum or fold over `x` or a buffer.
    fn iterated(&mut self, depth: usize) -> String {
        if self.bound.is_some() {
            return self.leaf();
        }
        let buffers = self.visible(LocalKind::Buffer, false);
        let source = match self.pick(&buffers) {
            Some(b) if self.rng.chance(40) => b,
            _ if self.shape.params && self.rng.chance(40) => {
                [format!("{PARAMS}.w"), format!("{PARAMS}.v")][self.rng.below(2) as usize].clone()
            }
            _ => "x".to_owned(),
        };
        let body = |p: &mut ScalarProgram, bound: &str| {
            p.bound = Some(bound.to_owned());
            let e = p.expr(depth.min(2));
            p.bound = None;
            e
        };
        match self.rng.below(7) {
            0 | 1 => {
                let e = body(self, "*v");
                format!("{source}.iter().map(|v| {e}).sum::<T>()")
            }
            2 => {
                let c = self.factor();
                let e = body(self, "*v");
                format!("{source}.iter().fold(T::zero(), |acc, v| acc * {c} + {e})")
            }
            3 => {
                let other = match self.pick(&buffers) {
                    Some(b) => b,
                    None => "x".to_owned(),
                };
                format!("{source}.iter().zip({other}.iter()).map(|(a, b)| *a * *b).sum::<T>()")
            }
            4 => format!(
                "{source}.iter().enumerate().map(|(k, v)| *v * T::from(k + 1).unwrap()).sum::<T>()"
            ),
            5 => {
                let e = body(self, "*v");
                let adaptor =
                    ["rev()", "skip(1)", "take(3)", "step_by(2)"][self.rng.below(4) as usize];
                format!("{source}.iter().{adaptor}.map(|v| {e}).sum::<T>()")
            }
            _ => {
                let c = self.constant();
                format!("{source}.windows(2).map(|w| (w[1] - w[0]) * {c}).sum::<T>()")
            }
        }
    }

    /// A comparison of two values.
    fn condition(&mut self) -> String {
        let op = [">", "<", ">=", "<="][self.rng.below(4) as usize];
        format!("{} {op} {}", self.expr(2), self.expr(1))
    }

    /// A mutable number in scope, declaring one first if there is none.
    fn mutable_number(&mut self) -> String {
        let names = self.visible(LocalKind::Number, true);
        match self.pick(&names) {
            Some(name) => name,
            None => {
                let name = self.fresh("a");
                let e = self.expr(2);
                self.line(&format!("let mut {name} = {e};"));
                self.declare(&name, LocalKind::Number, true);
                name
            }
        }
    }

    /// A mutable buffer in scope, declaring one first if there is none.
    fn mutable_buffer(&mut self) -> String {
        let names = self.visible(LocalKind::Buffer, true);
        match self.pick(&names) {
            Some(name) => name,
            None => self.new_buffer(),
        }
    }

    fn new_buffer(&mut self) -> String {
        let name = self.fresh("b");
        let draw = self.rng.below(5);
        if draw < 2 {
            self.line(&format!("let mut {name} = x.to_vec();"));
        } else if draw == 2 {
            // a local array of numbers from a literal
            let elements: Vec<String> = (0..LEN).map(|_| self.expr(1)).collect();
            self.line(&format!("let mut {name} = [{}];", elements.join(", ")));
        } else {
            // a vector or a local array `[T; LEN]`, filled by index
            let zeros = if draw == 3 {
                format!("vec![T::zero(); {LEN}]")
            } else {
                format!("[T::zero(); {LEN}]")
            };
            self.line(&format!("let mut {name} = {zeros};"));
            let saved = self.index.replace("i".to_owned());
            self.line(&format!("for i in 0..{LEN} {{"));
            self.open();
            let e = self.expr(2);
            self.line(&format!("{name}[i] = {e};"));
            self.close();
            self.line("}");
            self.index = saved;
        }
        self.declare(&name, LocalKind::Buffer, true);
        name
    }

    /// A loop's body: a few updates of numbers and buffers (no declarations that outlive it).
    fn loop_body(&mut self, depth: usize) {
        let was = std::mem::replace(&mut self.in_loop, true);
        for _ in 0..1 + self.rng.below(3) {
            self.statement(depth);
        }
        self.in_loop = was;
    }

    /// Whether a row of [`STATEMENTS`] may be written here.
    fn allows(&self, row: &Row, depth: usize) -> bool {
        (!row.blocks || depth > 0)
            && match row.needs {
                Needs::Nothing => true,
                Needs::InLoop => self.in_loop,
                Needs::LoopIndex => self.index.is_some(),
                Needs::Output => self.shape.writer,
                Needs::Params => self.shape.params,
            }
    }

    /// One statement, its kind drawn from [`STATEMENTS`] by weight among those allowed.
    fn statement(&mut self, depth: usize) {
        let allowed: Vec<&Row> = STATEMENTS
            .iter()
            .filter(|row| self.allows(row, depth))
            .collect();
        let mut draw = self.rng.below(allowed.iter().map(|row| row.weight).sum());
        let row = allowed
            .iter()
            .find(|row| {
                let here = draw < row.weight;
                draw = draw.saturating_sub(row.weight);
                here
            })
            .expect("the draw is below the total weight");
        self.write(row.statement, depth);
    }

    /// A statement of kind `statement`; `depth` bounds the nesting of its blocks.
    fn write(&mut self, statement: Statement, depth: usize) {
        match statement {
            Statement::Let => {
                let name = self.fresh("n");
                let e = self.expr(3);
                self.line(&format!("let {name} = {e};"));
                self.declare(&name, LocalKind::Number, false);
            }
            Statement::Update => {
                let name = self.mutable_number();
                // a contraction, so that updates in loops stay of moderate size
                let (c, e) = (self.factor(), self.expr(3));
                self.line(&format!("{name} = {name} * {c} + {e};"));
            }
            Statement::UpdateElement => {
                let buffer = self.mutable_buffer();
                let i = self.index();
                let (e, leaf) = (self.expr(2), self.leaf());
                self.line(&format!("{buffer}[{i}] = {buffer}[{i}] * {e} + {leaf};"));
            }
            Statement::LetIf => {
                let name = self.fresh("n");
                let c = self.condition();
                let (a, b) = (self.expr(2), self.expr(2));
                self.line(&format!("let {name} = if {c} {{ {a} }} else {{ {b} }};"));
                self.declare(&name, LocalKind::Number, false);
            }
            Statement::LetPair => {
                let (p, q) = (self.fresh("n"), self.fresh("n"));
                let (a, b) = (self.expr(2), self.expr(2));
                self.line(&format!("let ({p}, {q}) = ({a}, {b});"));
                self.declare(&p, LocalKind::Number, false);
                self.declare(&q, LocalKind::Number, false);
            }
            Statement::Closure => {
                let name = self.fresh("f");
                let was = self.bound.replace("v".to_owned());
                let e = self.expr(2);
                self.bound = was;
                // a captured local, copied where the closure is made
                let captured = self.visible(LocalKind::Number, false);
                let e = match self.pick(&captured) {
                    Some(c) => format!("{e} * {c}"),
                    None => e,
                };
                self.line(&format!("let {name} = move |v: T| {e};"));
                self.declare(&name, LocalKind::Closure, false);
                if !self.rng.chance(UNCALLED_CLOSURE) {
                    let (value, arg) = (self.fresh("n"), self.expr(2));
                    self.line(&format!("let {value} = {name}({arg});"));
                    self.declare(&value, LocalKind::Number, false);
                }
            }
            Statement::HelperSoft => {
                let name = self.fresh("n");
                let (a, b) = (self.expr(2), self.expr(2));
                self.line(&format!("let {name} = helper_soft{{H}}({a}, {b});"));
                self.declare(&name, LocalKind::Number, false);
            }
            Statement::CompoundNumber => {
                let name = self.mutable_number();
                let e = self.expr(2);
                let op = ["+=", "-="][self.rng.below(2) as usize];
                self.line(&format!("{name} {op} {e};"));
                if self.rng.chance(40) {
                    let f = self.factor();
                    self.line(&format!("{name} *= {f};"));
                }
            }
            Statement::CompoundElement => {
                let buffer = self.mutable_buffer();
                self.add_to_element(&buffer);
            }
            Statement::HelperPair => {
                let (p, q) = (self.fresh("n"), self.fresh("n"));
                let (a, b) = (self.expr(2), self.expr(2));
                self.line(&format!("let ({p}, {q}) = helper_pair{{H}}({a}, {b});"));
                self.declare(&p, LocalKind::Number, false);
                self.declare(&q, LocalKind::Number, false);
            }
            Statement::HelperSmooth => {
                let buffer = self.mutable_buffer();
                // (the argument first: it may read the buffer lent mutably)
                let k = self.fresh("k");
                let e = self.expr(2);
                self.line(&format!("let {k} = {e};"));
                let lent = if buffer == OUTPUT {
                    // the caller's own output passed on: as it is, reborrowed, or a part
                    ["out", "&mut *out", "&mut out[..]", "&mut out[1..]"]
                        [self.rng.below(4) as usize]
                        .to_owned()
                } else {
                    format!("&mut {buffer}")
                };
                self.line(&format!("helper_smooth{{H}}({lent}, {k});"));
            }
            Statement::HelperPower => {
                let name = self.fresh("n");
                let e = self.expr(2);
                let n = 1 + self.rng.below(4);
                self.line(&format!("let {name} = helper_power{{H}}({e}, {n});"));
                self.declare(&name, LocalKind::Number, false);
            }
            Statement::TwoClosures => {
                // a closure of two parameters, and a closure calling another
                let (f, g) = (self.fresh("f"), self.fresh("f"));
                let captured = self.expr(1);
                let c = self.fresh("n");
                self.line(&format!("let {c} = {captured};"));
                self.declare(&c, LocalKind::Number, false);
                self.line(&format!("let {f} = |u: T, w: T| (u * {c} - w).tanh();"));
                self.line(&format!("let {g} = |u: T| {f}(u, u * u) + {c};"));
                let (a, b) = (self.expr(2), self.expr(2));
                let value = self.fresh("n");
                self.line(&format!("let {value} = {f}({a}, {b}) + {g}({b});"));
                self.declare(&value, LocalKind::Number, false);
            }
            Statement::For => {
                // a `for` loop over the indices, carrying numbers and buffers
                let saved = self.index.replace("i".to_owned());
                let range = if self.rng.chance(30) {
                    format!("(0..{LEN}).rev()")
                } else {
                    format!("0..{LEN}")
                };
                self.line(&format!("for i in {range} {{"));
                self.open();
                self.loop_body(depth - 1);
                self.close();
                self.line("}");
                self.index = saved;
            }
            Statement::SymplecticEuler => {
                // two carried values updated in order
                let (p, q) = (self.fresh("p"), self.fresh("q"));
                let (a, b) = (self.expr(1), self.expr(1));
                self.line(&format!("let mut {p} = {a};"));
                self.line(&format!("let mut {q} = {b};"));
                let h = format!("0.{}", 1 + self.rng.below(5));
                let saved = self.index.replace("i".to_owned());
                self.line(&format!("for i in 0..{LEN} {{"));
                self.open();
                self.line(&format!(
                    "{q} = {q} - ({p} + x[i]).sin() * T::from({h}).unwrap();"
                ));
                self.line(&format!("{p} = {p} + {q} * T::from({h}).unwrap();"));
                self.close();
                self.line("}");
                self.index = saved;
                self.declare(&p, LocalKind::Number, true);
                self.declare(&q, LocalKind::Number, true);
            }
            Statement::IfElse => {
                let name = self.mutable_number();
                let c = self.condition();
                self.line(&format!("if {c} {{"));
                self.open();
                let e = self.expr(3);
                self.line(&format!("{name} = {e};"));
                self.close();
                self.line("} else {");
                self.open();
                let e = self.expr(2);
                self.line(&format!("{name} = {name} - {e};"));
                self.close();
                self.line("}");
            }
            Statement::IterMut => {
                let buffer = self.mutable_buffer();
                self.iter_mut(&buffer);
            }
            Statement::PrefixRecurrence => {
                let buffer = self.mutable_buffer();
                let c = self.factor();
                self.line(&format!("for i in 1..{LEN} {{"));
                self.open();
                self.line(&format!(
                    "{buffer}[i] = {buffer}[i - 1] * {c} + {buffer}[i].tanh();"
                ));
                self.close();
                self.line("}");
            }
            Statement::WhileOrLoop => {
                // a `while` loop and a `loop` with `break`, counting in `usize`
                let name = self.mutable_number();
                let k = self.fresh("k");
                let steps = 1 + self.rng.below(3);
                self.line(&format!("let mut {k} = 0;"));
                if self.rng.chance(50) {
                    self.line(&format!("while {k} < {steps} {{"));
                    self.open();
                    let e = self.expr(2);
                    self.line(&format!("{name} = ({name} + {e}).tanh();"));
                    self.line(&format!("{k} += 1;"));
                    self.close();
                    self.line("}");
                } else {
                    self.line("loop {");
                    self.open();
                    let e = self.expr(2);
                    // (the update bounded: `e` may be a power of `name`, which would
                    // grow past what central differences resolve)
                    self.line(&format!(
                        "{name} = {name} * T::from(0.5).unwrap() + ({e}).tanh();"
                    ));
                    self.line(&format!("{k} += 1;"));
                    self.line(&format!("if {k} >= {steps} {{"));
                    self.line("    break;");
                    self.line("}");
                    self.close();
                    self.line("}");
                }
            }
            Statement::BreakOrContinue => {
                let c = self.condition();
                let word = if self.rng.chance(50) {
                    "break"
                } else {
                    "continue"
                };
                self.line(&format!("if {c} {{"));
                self.line(&format!("    {word};"));
                self.line("}");
            }
            Statement::EarlyReturn => {
                let c = self.condition();
                let e = self.expr(2);
                self.line(&format!("if {c} {{"));
                self.line(&format!("    return {e};"));
                self.line("}");
            }
            Statement::MatchOnIndex => {
                let name = self.mutable_number();
                let i = self.index.clone().expect("a loop index is in scope");
                let (a, b, c) = (self.expr(2), self.expr(2), self.expr(1));
                self.line(&format!("match {i} % 3 {{"));
                if self.rng.chance(BARE_ARMS) {
                    self.line(&format!("    0 => {name} = {name} + {a},"));
                    self.line(&format!("    1 => {name} = {name} * {b},"));
                    self.line(&format!("    _ => {name} = {c},"));
                } else {
                    self.line(&format!("    0 => {{ {name} = {name} + {a}; }}"));
                    self.line(&format!("    1 => {{ {name} = {name} * {b}; }}"));
                    self.line(&format!("    _ => {{ {name} = {c}; }}"));
                }
                self.line("}");
            }
            Statement::MatchGuards => {
                let name = self.mutable_number();
                let i = self.index.clone().expect("a loop index is in scope");
                let (a, b) = (self.expr(2), self.expr(2));
                self.line(&format!("match {i} {{"));
                self.line(&format!(
                    "    k if k % 2 == 0 => {{ {name} = {name} * T::from(0.5).unwrap() + {a}; }}"
                ));
                self.line(&format!("    _ => {{ {name} = {name} - {b}; }}"));
                self.line("}");
            }
            Statement::LoopValue => {
                // `loop` with `break` carrying a value
                let (name, k) = (self.fresh("n"), self.fresh("k"));
                let acc = self.fresh("r");
                let start = self.expr(1);
                let e = self.expr(2);
                let steps = 2 + self.rng.below(3);
                self.line(&format!("let mut {acc} = {start};"));
                self.line(&format!("let mut {k} = 0;"));
                self.line(&format!("let {name} = loop {{"));
                self.line(&format!(
                    "    {acc} = ({acc} * T::from(0.7).unwrap() + {e}).sin();"
                ));
                self.line(&format!("    {k} += 1;"));
                self.line(&format!("    if {k} == {steps} {{"));
                self.line(&format!("        break {acc} * {acc};"));
                self.line("    }");
                self.line("};");
                self.declare(&name, LocalKind::Number, false);
            }
            Statement::IfLetEnd => {
                // `if let` on the ends of a slice
                let name = self.mutable_number();
                let end = ["first", "last"][self.rng.below(2) as usize];
                let c = self.factor();
                self.line(&format!("if let Some(v) = x.{end}() {{"));
                self.line(&format!("    {name} = {name} * {c} + (*v).sin();"));
                self.line("}");
            }
            Statement::LabelledBreak => {
                let name = self.mutable_number();
                let saved = self.index.replace("j".to_owned());
                self.line(&format!("'outer: for i in 0..{LEN} {{"));
                self.line(&format!("    for j in 0..{LEN} {{"));
                self.indent += 2;
                let c = self.condition();
                self.line(&format!("if {c} {{"));
                self.line("    break 'outer;");
                self.line("}");
                let e = self.expr(2);
                self.line(&format!("{name} = ({name} + {e} * x[i]).tanh();"));
                self.indent -= 2;
                self.line("    }");
                self.line("}");
                self.index = saved;
            }
            Statement::Chunks => {
                // a `for` over `chunks(2)` of a buffer or `x`
                let name = self.mutable_number();
                let buffers = self.visible(LocalKind::Buffer, false);
                let source = self.pick(&buffers).unwrap_or_else(|| "x".to_owned());
                let c = self.factor();
                self.line(&format!("for pair in {source}.chunks(2) {{"));
                self.line(&format!(
                    "    {name} = {name} * {c} + pair[0] * pair[1].tanh();"
                ));
                self.line("}");
            }
            Statement::RunningMax => {
                // a loop carrying a running maximum and a sum, in either order
                let (m, t) = (self.fresh("m"), self.fresh("t"));
                self.line(&format!("let mut {m} = x[0];"));
                self.line(&format!("let mut {t} = T::zero();"));
                self.line(&format!("for i in 1..{LEN} {{"));
                if self.rng.chance(50) {
                    self.line(&format!("    {m} = {m}.max(x[i]);"));
                    self.line(&format!("    {t} = {t} + (x[i] - {m}).exp();"));
                } else {
                    self.line(&format!("    {t} = {t} + (x[i] - {m}).exp();"));
                    self.line(&format!("    {m} = {m}.max(x[i]);"));
                }
                self.line("}");
                self.declare(&m, LocalKind::Number, true);
                self.declare(&t, LocalKind::Number, true);
            }
            Statement::WriteOutput => {
                let i = self.index();
                let e = self.expr(3);
                self.line(&format!("{OUTPUT}[{i}] = {e};"));
            }
            Statement::AddToOutput => self.add_to_element(OUTPUT),
            Statement::IterMutOutput => self.iter_mut(OUTPUT),
            Statement::ZipIntoOutput => {
                // the output beside `x`, pairwise
                let c = self.factor();
                self.line(&format!(
                    "for (o, v) in {OUTPUT}.iter_mut().zip(x.iter()) {{"
                ));
                self.open();
                let was = self.bound.replace("*o".to_owned());
                let e = self.expr(2);
                self.bound = was;
                self.line(&format!("*o = {e} * {c} + (*v).sin();"));
                self.close();
                self.line("}");
            }
            Statement::FieldLoop => {
                // the struct's array fields read in a loop, by index and pairwise
                let name = self.mutable_number();
                let c = self.factor();
                if self.rng.chance(50) {
                    self.line(&format!("for i in 0..{PARAM_ARRAY} {{"));
                    self.line(&format!(
                        "    {name} = {name} * {c} + {PARAMS}.w[i] * x[i + 1].tanh();"
                    ));
                } else {
                    self.line(&format!(
                        "for (w, v) in {PARAMS}.w.iter().zip({PARAMS}.v.iter()) {{"
                    ));
                    self.line(&format!("    {name} = {name} * {c} + *w * (*v).sin();"));
                }
                self.line("}");
            }
            Statement::MatchPatterns => {
                // or-patterns, a range with a guard, a binding, and an empty arm
                let name = self.mutable_number();
                let i = self.index.clone().expect("a loop index is in scope");
                let (c, a, b) = (self.condition(), self.expr(2), self.expr(2));
                let f = self.factor();
                self.line(&format!("match {i} {{"));
                self.line(&format!("    0 | 2 => {name} = {name} * {f} + {a},"));
                self.line(&format!(
                    "    1..=2 if {c} => {{ {name} = ({name} + {b}).tanh(); }}"
                ));
                self.line(&format!(
                    "    k if k + 1 == {LEN} => {name} = {name} * {name}.cos(),"
                ));
                self.line("    _ => {}");
                self.line("}");
            }
            Statement::LetElse => {
                // an `Option` made by an `if`, taken apart by `let .. else` diverging by
                // `return` (or in a loop by `continue` or `break`)
                let (o, v, name) = (self.fresh("o"), self.fresh("v"), self.fresh("n"));
                let (c, e) = (self.condition(), self.expr(2));
                self.line(&format!(
                    "let {o} = if {c} {{ Some({e}) }} else {{ None }};"
                ));
                let otherwise = if self.in_loop && self.rng.chance(60) {
                    ["continue;", "break;"][self.rng.below(2) as usize].to_owned()
                } else {
                    format!("return {};", self.expr(2))
                };
                self.line(&format!("let Some({v}) = {o} else {{ {otherwise} }};"));
                let e = self.expr(2);
                self.line(&format!("let {name} = {v} * {e};"));
                self.declare(&name, LocalKind::Number, false);
            }
            Statement::OptionGet => {
                // an element that may be missing (`i + 1` in a loop), of `x` or a buffer
                let buffers = self.visible(LocalKind::Buffer, false);
                let source = match self.pick(&buffers) {
                    Some(b) if self.rng.chance(40) => b,
                    _ => "x".to_owned(),
                };
                let at = match self.index.clone() {
                    Some(i) if self.rng.chance(50) => format!("{i} + 1"),
                    _ => self.index(),
                };
                if self.rng.chance(50) {
                    let name = self.mutable_number();
                    let (f, e) = (self.factor(), self.expr(2));
                    self.line(&format!("if let Some(v) = {source}.get({at}) {{"));
                    self.line(&format!("    {name} = {name} * {f} + (*v).sin();"));
                    self.line("} else {");
                    self.line(&format!("    {name} = {name} - {e};"));
                    self.line("}");
                } else {
                    let name = self.fresh("n");
                    let option = match self.rng.below(3) {
                        0 => format!("{source}.first()"),
                        1 => format!("{source}.last()"),
                        _ => format!("{source}.get({at})"),
                    };
                    let (a, b) = (self.expr(2), self.expr(2));
                    self.line(&format!("let {name} = match {option} {{"));
                    self.line(&format!("    Some(v) => *v * {a},"));
                    self.line(&format!("    None => {b},"));
                    self.line("};");
                    self.declare(&name, LocalKind::Number, false);
                }
            }
            Statement::TupleAssignWhile => {
                // two carried values updated at once (an integrator), in either order
                let (p, q, k) = (self.fresh("p"), self.fresh("q"), self.fresh("k"));
                let (a, b) = (self.expr(1), self.expr(1));
                self.line(&format!("let (mut {p}, mut {q}) = ({a}, {b});"));
                self.line(&format!("let mut {k} = 0;"));
                let steps = 2 + self.rng.below(3);
                let h = format!("T::from(0.{}).unwrap()", 1 + self.rng.below(4));
                self.line(&format!("while {k} < {steps} {{"));
                self.open();
                let force = self.expr(1);
                let p_next = format!("{p} + {q} * {h}");
                let q_next = format!("{q} - ({p} + {force}).sin() * {h}");
                if self.rng.chance(50) {
                    self.line(&format!("({p}, {q}) = ({p_next}, {q_next});"));
                } else {
                    self.line(&format!("({q}, {p}) = ({q_next}, {p_next});"));
                }
                self.line(&format!("{k} += 1;"));
                self.close();
                self.line("}");
                self.declare(&p, LocalKind::Number, true);
                self.declare(&q, LocalKind::Number, true);
            }
            Statement::TupleFields => {
                let (t, name) = (self.fresh("t"), self.fresh("n"));
                let (a, b) = (self.expr(2), self.expr(2));
                if self.rng.chance(60) {
                    self.line(&format!("let {t} = helper_pair{{H}}({a}, {b});"));
                } else {
                    self.line(&format!("let {t} = ({a}, {b});"));
                }
                let e = self.expr(2);
                self.line(&format!("let {name} = {t}.0 * {e} + {t}.1;"));
                self.declare(&name, LocalKind::Number, false);
            }
            Statement::MatrixRows => {
                // a local 2×2 array of rows written as `m[r][col]`, read as a determinant
                let (m, name) = (self.fresh("m"), self.fresh("n"));
                self.line(&format!("let mut {m} = [[T::zero(); 2]; 2];"));
                self.line("for r in 0..2 {");
                self.line("    for col in 0..2 {");
                let saved = self.index.replace("r".to_owned());
                let e = self.expr(2);
                self.index = saved;
                self.line(&format!("        {m}[r][col] = {e} + x[r + col];"));
                self.line("    }");
                self.line("}");
                if self.rng.chance(50) {
                    let (r, col) = (self.rng.below(2), self.rng.below(2));
                    let k = self.fresh("k");
                    let e = self.expr(1);
                    self.line(&format!("let {k} = {e};"));
                    self.line(&format!("{m}[{r}][{col}] += {k};"));
                }
                self.line(&format!(
                    "let {name} = {m}[0][0] * {m}[1][1] - {m}[0][1] * {m}[1][0];"
                ));
                self.declare(&name, LocalKind::Number, false);
            }
            Statement::CastIndex => {
                // a float cast to an index (a constant: its derivative is zero where the
                // `floor` does not jump, which the sample points avoid almost surely)
                let (k, name) = (self.fresh("k"), self.fresh("n"));
                let e = self.operand(2);
                self.line(&format!(
                    "let {k} = ({e}.tanh().abs() * T::from(3.5).unwrap()).floor().to_usize().unwrap();"
                ));
                let buffers = self.visible(LocalKind::Buffer, false);
                let source = match self.pick(&buffers) {
                    Some(b) if self.rng.chance(40) => b,
                    _ => "x".to_owned(),
                };
                let e = self.expr(2);
                self.line(&format!("let {name} = {source}[{k}] * {e};"));
                self.declare(&name, LocalKind::Number, false);
            }
        }
    }

    /// `buffer[i] += k;` of a value computed first (for a generic `T`, `+=` is a method
    /// call, which may not read the buffer it lends mutably).
    fn add_to_element(&mut self, buffer: &str) {
        let i = self.index();
        let (k, e) = (self.fresh("k"), self.expr(2));
        self.line(&format!("let {k} = {e};"));
        self.line(&format!("{buffer}[{i}] += {k};"));
    }

    /// `for v in buffer.iter_mut() { *v = ..; }`, the new value from `*v`.
    fn iter_mut(&mut self, buffer: &str) {
        self.line(&format!("for v in {buffer}.iter_mut() {{"));
        self.open();
        let was = self.bound.replace("*v".to_owned());
        let e = self.expr(2);
        self.bound = was;
        self.line(&format!("*v = {e};"));
        self.close();
        self.line("}");
    }

    /// The body of program `seed`, with `{H}` where helper names end.
    fn body(seed: u64) -> String {
        let mut p = ScalarProgram::new(seed);
        for _ in 0..3 + p.rng.below(5) {
            p.statement(2);
        }
        // the result reads what the statements made
        let mut parts = vec![p.expr(2)];
        if p.shape.params {
            // (a struct parameter no statement read would have no gradient: the macro
            // rejects that, rightly)
            parts.push(p.field());
        }
        for name in p.visible(LocalKind::Number, false) {
            if p.rng.chance(50) {
                parts.push(name);
            }
        }
        for name in p.visible(LocalKind::Buffer, false) {
            parts.push(format!("{name}.iter().copied().sum::<T>()"));
        }
        p.line(&parts.join(" + "));
        p.code
    }

    /// Program `seed` three times: annotated and generic, annotated on `f64` (constants
    /// as literals and casts), and plain and generic, for dual numbers.
    pub fn functions(seed: u64) -> String {
        let shape = Shape::of(seed);
        let body = ScalarProgram::body(seed);
        let lints = "#[allow(clippy::all, unused)]";
        let duals = "num_traits::Float + std::iter::Sum + std::ops::AddAssign + std::ops::SubAssign + std::ops::MulAssign";
        let signature = |float: &str, marked: bool| {
            let mark = if marked { "#[differentiable] " } else { "" };
            let params = if shape.params {
                format!("{mark}{PARAMS}: &Params<{float}>, ")
            } else {
                String::new()
            };
            let output = if shape.writer {
                format!(", {OUTPUT}: &mut [{float}]")
            } else {
                String::new()
            };
            format!("({params}x: &[{float}], s: {float}{output}) -> {float}")
        };
        format!(
            "#[differentiable]\n{lints}\nfn program_{seed}<T: gradtape::Float>{} {{\n{}}}\n\n\
             #[differentiable]\n{lints}\nfn program_{seed}_f64{} {{\n{}}}\n\n\
             {lints}\nfn program_{seed}_on_duals<T: {duals}>{} {{\n{}}}\n",
            signature("T", true),
            body.replace("{H}", ""),
            signature("f64", true),
            on_f64(&body.replace("{H}", "")),
            signature("T", false),
            body.replace("{H}", "_on_duals"),
        )
    }
}

/// The faces of program `function` (`program_<seed>` or its `_f64` twin) at `p` along
/// `t` ([`Shape::inputs`] floats each), on float type `F`: the body of a function
/// returning the test's `Faces<F>`.
fn faces(function: &str, shape: Shape) -> String {
    let first = if shape.params {
        2 + PARAM_ARRAY + LEN
    } else {
        0
    };
    let (x, s, out) = (first, first + LEN, first + LEN + 1);
    let zeros = format!("vec![F::zero(); {LEN}]");
    // the arguments from the inputs (`p`) or the tangents (`t`), the output aside
    let args = |from: &str| {
        let params = if shape.params {
            format!("&params(&{from}[..{first}]), ")
        } else {
            String::new()
        };
        format!("{params}&{from}[{x}..{s}], {from}[{s}]")
    };
    let (p, t) = (args("p"), args("t"));
    let mut code = String::new();
    if shape.writer {
        let fresh = format!("p[{out}..].to_vec()");
        let d_params = if shape.params {
            format!("let mut d_params = params(&[F::zero(); {first}]);\n")
        } else {
            String::new()
        };
        let into_params = if shape.params { "&mut d_params, " } else { "" };
        let flat_params = if shape.params {
            "flat(&d_params), "
        } else {
            ""
        };
        let (pulled_params, pulled_flat) = if shape.params {
            (
                "d_params, ",
                format!("d_params.map_or(vec![F::zero(); {first}], |d| flat(&d)), "),
            )
        } else {
            ("", String::new())
        };
        let tangent_params = if shape.params {
            format!("&params(&t[..{first}]), ")
        } else {
            String::new()
        };
        code.push_str(&format!(
            "let mut out = {fresh};\n\
             let primal = {function}::primal({p}, &mut out) + weighted(&out);\n\
             let mut out = {fresh};\n\
             let itself = {function}({p}, &mut out) + weighted(&out);\n\
             let mut out = {fresh};\n\
             {d_params}\
             let (mut dx, mut ds, mut d_out) = ({zeros}, F::zero(), weights::<F>());\n\
             let value = {function}::grad_into({p}, &mut out, {into_params}&mut dx, &mut ds, &mut d_out);\n\
             let grad = (value + weighted(&out), [{flat_params}dx, vec![ds], d_out].concat());\n\
             let mut out = {fresh};\n\
             let (value, pullback) = {function}::vjp({p}, &mut out);\n\
             let mut d_out = weights::<F>();\n\
             let ({pulled_params}dx, ds, _) = pullback(F::one(), &mut d_out);\n\
             let other = (value + weighted(&out), [{pulled_flat}dx.unwrap_or({zeros}), vec![ds.unwrap_or(F::zero())], d_out].concat());\n\
             let mut out = {fresh};\n\
             let mut t_out = t[{out}..].to_vec();\n\
             let (value, tangent) = {function}::jvp({p}, &mut out, {tangent_params}&t[{x}..{s}], t[{s}], &mut t_out);\n\
             let jvp = (value + weighted(&out), tangent + weighted(&t_out));\n"
        ));
    } else {
        let (grad_params, flat_params, d_params, into_params) = if shape.params {
            (
                "d_params, ",
                "flat(&d_params), ",
                format!("let mut d_params = params(&[F::zero(); {first}]);\n"),
                "&mut d_params, ",
            )
        } else {
            ("", "", String::new(), "")
        };
        code.push_str(&format!(
            "let primal = {function}::primal({p});\n\
             let itself = {function}({p});\n\
             let (value, ({grad_params}dx, ds)) = {function}::grad({p});\n\
             let grad = (value, [{flat_params}dx, vec![ds]].concat());\n\
             {d_params}\
             let (mut dx, mut ds) = ({zeros}, F::zero());\n\
             let value = {function}::grad_into({p}, {into_params}&mut dx, &mut ds);\n\
             let other = (value, [{flat_params}dx, vec![ds]].concat());\n\
             let jvp = {function}::jvp({p}, {t});\n"
        ));
    }
    code.push_str("Faces { primal, itself, grad, other, jvp }\n");
    code
}

/// The objective of program `seed` on dual numbers (or any float type `D`).
fn objective_on_duals(seed: u64, shape: Shape) -> String {
    let first = if shape.params {
        2 + PARAM_ARRAY + LEN
    } else {
        0
    };
    let (x, s, out) = (first, first + LEN, first + LEN + 1);
    let params = if shape.params {
        format!("&params(&d[..{first}]), ")
    } else {
        String::new()
    };
    let call = format!("program_{seed}_on_duals({params}&d[{x}..{s}], d[{s}]");
    if shape.writer {
        format!("let mut out = d[{out}..].to_vec();\n{call}, &mut out) + weighted(&out)\n")
    } else {
        format!("{call})\n")
    }
}

/// A generic body as the same function on `f64` would be written: `T::from(0.5).unwrap()`
/// as `0.5_f64`, `T::from(k + 1).unwrap()` as `(k + 1) as f64`, `T::zero()` as `0.0`.
fn on_f64(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some(start) = rest.find("T::from(") {
        out.push_str(&rest[..start]);
        let inner_start = start + "T::from(".len();
        let inner_end = inner_start
            + rest[inner_start..]
                .find(").unwrap()")
                .expect("every T::from(..) is unwrapped");
        let inner = &rest[inner_start..inner_end];
        if inner.parse::<f64>().is_ok() {
            out.push_str(&format!("({inner}_f64)"));
        } else {
            out.push_str(&format!("(({inner}) as f64)"));
        }
        rest = &rest[inner_end + ").unwrap()".len()..];
    }
    out.push_str(rest);
    out.replace("T::zero()", "0.0")
        .replace("T::one()", "1.0")
        .replace("::<T>", "::<f64>")
        .replace("T::max(", "f64::max(")
        .replace("T::min(", "f64::min(")
        .replace(".to_usize().unwrap()", " as usize")
        .replace(": T|", ": f64|")
        .replace(": T,", ": f64,")
}

pub const HEADER: &str = r#"//! Scalar-mode programs written by `gradtape-fuzz --scalar` (fuzz/src/scalar.rs): each
//! a plain-float annotated function (some writing an output `out: &mut [T]`, some taking a
//! struct `p: &Params<T>`), its `f64` twin, and the same body generic over
//! `num_traits::Float` run on dual numbers; checked against the dual numbers and central
//! differences, orders 1 and 2, through every face, and at `f32` against dual numbers on
//! `f32`. Generated: do not edit; regenerate with
//! `cargo run -p gradtape-fuzz -- --scalar --seeds SEEDS --test-file tests/generated_scalar_programs.rs`.

#![allow(unused, clippy::all)]

mod common;

use common::{central_differences, close};
use gradtape::generated::Dual;
use gradtape::{Differentiable, differentiable};
// (`F::zero()` in the `f64` twins' faces, where `F` is `f64`)
use num_traits::{One, Zero};

/// Called by the programs: an annotated helper.
#[differentiable]
fn helper_soft<T: gradtape::Float>(a: T, b: T) -> T {
    (a * b).tanh() + a * T::from(0.5).unwrap()
}

fn helper_soft_on_duals<T: num_traits::Float>(a: T, b: T) -> T {
    (a * b).tanh() + a * T::from(0.5).unwrap()
}

/// Called by the programs: an annotated recursive helper, `v` to the power `n` by halves.
#[differentiable]
fn helper_power<T: gradtape::Float>(v: T, n: usize) -> T {
    if n == 0 {
        T::one()
    } else if n % 2 == 0 {
        let h = helper_power(v, n / 2);
        h * h
    } else {
        v * helper_power(v, n - 1)
    }
}

fn helper_power_on_duals<T: num_traits::Float>(v: T, n: usize) -> T {
    if n == 0 {
        T::one()
    } else if n % 2 == 0 {
        let h = helper_power_on_duals(v, n / 2);
        h * h
    } else {
        v * helper_power_on_duals(v, n - 1)
    }
}

/// Called by the programs: an annotated helper returning a pair.
#[differentiable]
fn helper_pair<T: gradtape::Float>(a: T, b: T) -> (T, T) {
    (a * b.cos(), (a - b).tanh())
}

fn helper_pair_on_duals<T: num_traits::Float>(a: T, b: T) -> (T, T) {
    (a * b.cos(), (a - b).tanh())
}

/// Called by the programs: an annotated writer into a caller's buffer.
#[differentiable]
fn helper_smooth<T: gradtape::Float>(buf: &mut [T], k: T) {
    for i in 1..buf.len() {
        buf[i] = buf[i] * k.tanh() + buf[i - 1] * T::from(0.25).unwrap();
    }
}

fn helper_smooth_on_duals<T: num_traits::Float>(buf: &mut [T], k: T) {
    for i in 1..buf.len() {
        buf[i] = buf[i] * k.tanh() + buf[i - 1] * T::from(0.25).unwrap();
    }
}

/// The struct parameter some programs take (`#[differentiable] p: &Params<T>`): floats
/// read by field, a fixed-size array and a vector, its gradient a `Params` compared field
/// by field.
#[derive(Differentiable, Clone, Debug)]
struct Params<T> {
    a: T,
    b: T,
    w: [T; 3],
    v: Vec<T>,
}

/// The number of floats in a `Params`.
const PARAMS: usize = 9;

/// `Params` from its floats, in order (`a`, `b`, `w`, `v`).
fn params<F: Copy>(p: &[F]) -> Params<F> {
    Params {
        a: p[0],
        b: p[1],
        w: [p[2], p[3], p[4]],
        v: p[5..9].to_vec(),
    }
}

/// A `Params` (a gradient, a tangent) as its floats, field by field in order.
fn flat<F: Copy>(p: &Params<F>) -> Vec<F> {
    [vec![p.a, p.b], p.w.to_vec(), p.v.clone()].concat()
}

/// A writer is checked through its value plus `⟨WEIGHTS, out⟩`, with `out`'s initial
/// values inputs too (it may read them): `grad_into` and the pullback take `WEIGHTS` as
/// `out`'s cotangent.
const WEIGHTS: [f64; 4] = [0.7, -0.4, 1.1, 0.3];

fn weights<F: num_traits::Float>() -> Vec<F> {
    WEIGHTS.iter().map(|w| F::from(*w).unwrap()).collect()
}

fn weighted<F: num_traits::Float>(out: &[F]) -> F {
    out.iter()
        .zip(WEIGHTS)
        .fold(F::zero(), |total, (o, w)| total + *o * F::from(w).unwrap())
}

/// A program's faces at a point `p` (its inputs flattened: the struct's floats, `x`, `s`,
/// the output's initial values), each giving the objective (the value, plus `⟨WEIGHTS,
/// out⟩` for a writer).
struct Faces<F> {
    /// by `f::primal`
    primal: F,
    /// by `f` itself
    itself: F,
    /// the objective and its gradient: by `f::grad`, or for a writer by `f::grad_into`
    grad: (F, Vec<F>),
    /// the same another way: by `f::grad_into` into zeroed buffers, or for a writer by
    /// `f::vjp`'s pullback
    other: (F, Vec<F>),
    /// by `f::jvp` along a direction `t`: the objective and its derivative along `t`
    jvp: (F, F),
}

/// The inputs of program `seed`: in (-1, 1), from a small generator of its own.
fn point<const M: usize>(seed: u64) -> [f64; M] {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    std::array::from_fn(|_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    })
}

/// The objective and its gradient on dual numbers, one direction per input.
fn by_duals<F: gradtape::Float, const M: usize>(
    on_duals: &dyn Fn(&[Dual<F, M>]) -> Dual<F, M>,
    p: &[F],
) -> (F, Vec<F>) {
    let d: Vec<Dual<F, M>> = p.iter().enumerate().map(|(i, &v)| Dual::variable(v, i)).collect();
    let y = on_duals(&d);
    (y.value, y.partials.to_vec())
}

/// Program `name`'s faces at `p` against dual numbers and differences (orders 1 and 2),
/// against each other (`other`, `jvp` along `t`), and its `f64` twin's to the bit.
fn check<const M: usize>(
    name: &str,
    p: [f64; M],
    t: [f64; M],
    faces: &dyn Fn(&[f64], &[f64]) -> Faces<f64>,
    twin: &dyn Fn(&[f64], &[f64]) -> Faces<f64>,
    on_duals: &dyn Fn(&[Dual<f64, M>]) -> Dual<f64, M>,
) {
    let at = faces(&p, &t);
    let value = at.primal;
    assert!(value.is_finite(), "{name}: value {value} at {p:?}");
    assert_eq!(at.itself.to_bits(), value.to_bits(), "{name}: f against primal");
    let (by_grad, gradient) = &at.grad;
    assert_eq!(by_grad.to_bits(), value.to_bits(), "{name}: grad's value");
    let (dual_value, dual_gradient) = by_duals(on_duals, &p);
    assert!(close(dual_value, value, 1e-12), "{name}: {dual_value} on duals, {value}");
    let differences = central_differences(&|q| faces(q, &t).primal, &p);
    for k in 0..M {
        assert!(
            close(gradient[k], dual_gradient[k], 1e-10),
            "{name}: ∂/∂p{k} {} vs dual numbers {} at {p:?}\n  grad  {gradient:?}\n  duals {dual_gradient:?}",
            gradient[k],
            dual_gradient[k]
        );
        assert!(
            close(gradient[k], differences[k], 1e-5),
            "{name}: ∂/∂p{k} {} vs central differences {} at {p:?}",
            gradient[k],
            differences[k]
        );
    }
    // order two: each Hessian column by differences of the gradient, against the same
    // differences of the dual numbers' gradient
    let h = 1e-5;
    for j in 0..M {
        let moved = |by: f64| {
            let mut q = p;
            q[j] += by;
            q
        };
        let (up, down) = (faces(&moved(h), &t).grad.1, faces(&moved(-h), &t).grad.1);
        let (dual_up, dual_down) = (by_duals(on_duals, &moved(h)).1, by_duals(on_duals, &moved(-h)).1);
        for i in 0..M {
            let of_grad = (up[i] - down[i]) / (2.0 * h);
            let of_duals = (dual_up[i] - dual_down[i]) / (2.0 * h);
            assert!(
                close(of_grad, of_duals, 1e-6),
                "{name}: H[{i}][{j}] {of_grad} by grad, {of_duals} by dual numbers at {p:?}"
            );
        }
    }
    // the other faces
    let (by_other, other) = &at.other;
    assert_eq!(by_other.to_bits(), value.to_bits(), "{name}: the other gradient's value");
    for (k, (a, b)) in other.iter().zip(gradient).enumerate() {
        assert!(close(*a, *b, 1e-13), "{name}: ∂/∂p{k} {a} the other way, {b} by grad");
    }
    let (by_jvp, tangent) = at.jvp;
    assert_eq!(by_jvp.to_bits(), value.to_bits(), "{name}: jvp's value");
    let along: f64 = gradient.iter().zip(&t).map(|(g, t)| g * t).sum();
    assert!(close(tangent, along, 1e-10), "{name}: jvp {tangent}, gradient along t {along}");
    // the `f64` twin: the same code on `f64`, the same to the bit
    let twin = twin(&p, &t);
    let bits = |faces: &Faces<f64>| -> Vec<u64> {
        [faces.primal, faces.itself, faces.grad.0, faces.other.0, faces.jvp.0, faces.jvp.1]
            .iter()
            .chain(&faces.grad.1)
            .chain(&faces.other.1)
            .map(|v| v.to_bits())
            .collect()
    };
    assert_eq!(bits(&twin), bits(&at), "{name}: the f64 twin against the generic function");
}

/// The generic program at `f32`: its value and gradient against dual numbers on `f32` at
/// the same point (the same operations on the same values, so the same branches taken),
/// within `f32`'s rounding: the value relative to its size, each partial relative to the
/// gradient's largest (the reverse sweep sums the same terms in another order, each term
/// up to that size).
fn at_f32<const M: usize>(
    name: &str,
    p: [f64; M],
    faces: &dyn Fn(&[f32], &[f32]) -> Faces<f32>,
    on_duals: &dyn Fn(&[Dual<f32, M>]) -> Dual<f32, M>,
) {
    let p: Vec<f32> = p.iter().map(|&v| v as f32).collect();
    let at = faces(&p, &[0.0; M]);
    let value = at.primal;
    assert!(value.is_finite(), "{name} at f32: value {value} at {p:?}");
    assert_eq!(at.itself.to_bits(), value.to_bits(), "{name} at f32: f against primal");
    let (by_grad, gradient) = &at.grad;
    assert_eq!(by_grad.to_bits(), value.to_bits(), "{name} at f32: grad's value");
    let (dual_value, dual_gradient) = by_duals(on_duals, &p);
    assert!(
        (value - dual_value).abs() <= F32_VALUE * (1.0 + dual_value.abs()),
        "{name} at f32: {value}, on duals {dual_value}"
    );
    let largest = dual_gradient.iter().fold(0.0_f32, |m, g| m.max(g.abs()));
    for (k, (g, d)) in gradient.iter().zip(&dual_gradient).enumerate() {
        assert!(
            (g - d).abs() <= F32_GRADIENT * (1.0 + largest),
            "{name} at f32: ∂/∂p{k} {g} vs dual numbers {d} at {p:?}"
        );
    }
}

/// `f32`'s tolerances: some 170 and 1700 roundings (of 2^-24 each) at the scale of the
/// values compared.
const F32_VALUE: f32 = 1e-5;
const F32_GRADIENT: f32 = 1e-4;
"#;

/// Program `seed` and its test.
pub fn program_and_test(seed: u64) -> String {
    let shape = Shape::of(seed);
    let m = shape.inputs();
    let duals = "num_traits::Float + std::iter::Sum + std::ops::AddAssign + std::ops::SubAssign + std::ops::MulAssign";
    format!(
        "\n{functions}\n\
         fn program_{seed}_faces<F: gradtape::Float + Differentiable>(p: &[F], t: &[F]) -> Faces<F> {{\n{generic}}}\n\n\
         fn program_{seed}_f64_faces(p: &[f64], t: &[f64]) -> Faces<f64> {{\ntype F = f64;\n{twin}}}\n\n\
         fn program_{seed}_objective_on_duals<D: {duals}>(d: &[D]) -> D {{\n{on_duals}}}\n\n\
         #[test]\n\
         fn program_{seed}_matches_dual_numbers_and_finite_differences() {{\n\
         check::<{m}>(\"program_{seed}\", point({seed}), point({seed} + 7), &program_{seed}_faces, &program_{seed}_f64_faces, &program_{seed}_objective_on_duals);\n\
         at_f32::<{m}>(\"program_{seed}\", point({seed}), &program_{seed}_faces, &program_{seed}_objective_on_duals);\n\
         }}\n",
        functions = ScalarProgram::functions(seed),
        generic = faces(&format!("program_{seed}"), shape),
        twin = faces(&format!("program_{seed}_f64"), shape),
        on_duals = objective_on_duals(seed, shape),
    )
}
