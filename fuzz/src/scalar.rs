//! Scalar-mode programs: plain-float `#[differentiable]` functions over a slice and a
//! number (`fn program_<seed><T: gradtape::Float>(x: &[T], s: T) -> T`), the form most
//! annotated code takes and the one no tape can check (nothing records `f64` arithmetic).
//!
//! Each program is written twice from the same generated statements: annotated, and as a
//! plain function generic over `num_traits::Float` (`program_<seed>_on_duals`), which its
//! test runs on dual numbers (`gradtape::generated::Dual`): each float operation's forward
//! rule, no source transformation. The test checks the value, `grad` against the dual
//! numbers and central differences, and each Hessian column (differences of `grad`)
//! against differences of the duals' gradient and second differences of the value.
//!
//! What the statements cover: `let` and `let mut` numbers updated in place, local buffers
//! (`vec![..; 4]`, `to_vec`) written by index and by `iter_mut`, loops carrying several
//! values (`for`, `while`, `loop` with `break`), `continue`, early `return` (also from a
//! loop), `if`/`else` on comparisons of values (as statements and as values), `match` on a
//! loop index, tuple `let`s, `move` closures capturing differentiable values, iterator
//! sums and folds (`map`, `zip`, `enumerate`, `rev`, `windows`), calls of an annotated
//! helper and of an annotated writer into a local buffer, and the float methods with
//! derivatives (in domains where they are smooth).

use crate::Rng;

/// How often (percent) a closure is left uncalled.
const UNCALLED_CLOSURE: u64 = 30;
/// How often (percent) a `match`'s arms are bare assignments (`0 => a = a + b,`).
const BARE_ARMS: u64 = 50;

/// The length of `x` and of every local buffer.
const LEN: usize = 4;

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
}

impl ScalarProgram {
    fn new(seed: u64) -> Self {
        ScalarProgram {
            rng: Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0x5ca1_ab1e),
            code: String::new(),
            indent: 1,
            scopes: vec![Vec::new()],
            index: None,
            in_loop: false,
            bound: None,
            next: 0,
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
            match self.rng.below(6) {
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
                _ => return self.constant(),
            }
        }
    }

    /// A number expression of nesting at most `depth`.
    fn expr(&mut self, depth: usize) -> String {
        if depth == 0 || self.rng.chance(25) {
            return self.leaf();
        }
        let d = depth - 1;
        match self.rng.below(23) {
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
        if self.rng.chance(50) {
            self.line(&format!("let mut {name} = x.to_vec();"));
        } else {
            self.line(&format!("let mut {name} = vec![T::zero(); {LEN}];"));
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

    fn statement(&mut self, depth: usize) {
        // statements with blocks only while `depth` lasts
        if depth > 0 && self.rng.chance(55) {
            self.block_statement(depth);
            return;
        }
        match self.rng.below(12) {
            9 => {
                // compound assignments, of a number and of an element
                let name = self.mutable_number();
                let e = self.expr(2);
                let op = ["+=", "-="][self.rng.below(2) as usize];
                self.line(&format!("{name} {op} {e};"));
                if self.rng.chance(40) {
                    let f = self.factor();
                    self.line(&format!("{name} *= {f};"));
                }
                return;
            }
            10 => {
                // (the value first: for a generic `T`, `+=` is a method call, which may not
                // read the buffer it lends mutably)
                let buffer = self.mutable_buffer();
                let i = self.index();
                let (k, e) = (self.fresh("k"), self.expr(2));
                self.line(&format!("let {k} = {e};"));
                self.line(&format!("{buffer}[{i}] += {k};"));
                return;
            }
            11 => {
                let (p, q) = (self.fresh("n"), self.fresh("n"));
                let (a, b) = (self.expr(2), self.expr(2));
                self.line(&format!("let ({p}, {q}) = helper_pair{{H}}({a}, {b});"));
                self.declare(&p, LocalKind::Number, false);
                self.declare(&q, LocalKind::Number, false);
                return;
            }
            _ => {}
        }
        self.simple_statement();
    }

    /// A statement with blocks: loops, branches, jumps.
    fn block_statement(&mut self, depth: usize) {
        match self.rng.below(19) {
            15 => {
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
            16 => {
                // `if let` on the ends of a slice
                let name = self.mutable_number();
                let end = ["first", "last"][self.rng.below(2) as usize];
                let c = self.factor();
                self.line(&format!("if let Some(v) = x.{end}() {{"));
                self.line(&format!("    {name} = {name} * {c} + (*v).sin();"));
                self.line("}");
            }
            17 => {
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
            18 => {
                // a recursive annotated helper
                let name = self.fresh("n");
                let e = self.expr(2);
                let n = 1 + self.rng.below(4);
                self.line(&format!("let {name} = helper_power{{H}}({e}, {n});"));
                self.declare(&name, LocalKind::Number, false);
            }
            11 => {
                // a labelled `break` out of two loops
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
            12 if self.index.is_some() => {
                // `match` with guards on the loop index
                let name = self.mutable_number();
                let i = self.index.clone().expect("checked");
                let (a, b) = (self.expr(2), self.expr(2));
                self.line(&format!("match {i} {{"));
                self.line(&format!(
                    "    k if k % 2 == 0 => {{ {name} = {name} * T::from(0.5).unwrap() + {a}; }}"
                ));
                self.line(&format!("    _ => {{ {name} = {name} - {b}; }}"));
                self.line("}");
            }
            13 => {
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
            14 => {
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
            choice => self.numbered(choice + 9, depth),
        }
    }

    /// A simple statement.
    fn simple_statement(&mut self) {
        let choice = self.rng.below(9);
        self.numbered(choice, 0);
    }

    /// The first statements, by number: 0 to 8 simple, 9 to 19 with blocks (which need
    /// `depth` above 0).
    fn numbered(&mut self, choice: u64, depth: usize) {
        match choice {
            0 | 1 => {
                let name = self.fresh("n");
                let e = self.expr(3);
                self.line(&format!("let {name} = {e};"));
                self.declare(&name, LocalKind::Number, false);
            }
            2 | 3 => {
                let name = self.mutable_number();
                // a contraction, so that updates in loops stay of moderate size
                let (c, e) = (self.factor(), self.expr(3));
                self.line(&format!("{name} = {name} * {c} + {e};"));
            }
            4 => {
                let buffer = self.mutable_buffer();
                let i = self.index();
                let (e, leaf) = (self.expr(2), self.leaf());
                self.line(&format!("{buffer}[{i}] = {buffer}[{i}] * {e} + {leaf};"));
            }
            5 => {
                let name = self.fresh("n");
                let c = self.condition();
                let (a, b) = (self.expr(2), self.expr(2));
                self.line(&format!("let {name} = if {c} {{ {a} }} else {{ {b} }};"));
                self.declare(&name, LocalKind::Number, false);
            }
            6 => {
                let (p, q) = (self.fresh("n"), self.fresh("n"));
                let (a, b) = (self.expr(2), self.expr(2));
                self.line(&format!("let ({p}, {q}) = ({a}, {b});"));
                self.declare(&p, LocalKind::Number, false);
                self.declare(&q, LocalKind::Number, false);
            }
            7 if self.bound.is_none() => {
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
            8 => {
                let name = self.fresh("n");
                let (a, b) = (self.expr(2), self.expr(2));
                self.line(&format!("let {name} = helper_soft{{H}}({a}, {b});"));
                self.declare(&name, LocalKind::Number, false);
            }
            // statements with blocks
            9 | 10 => {
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
            11 => {
                // two carried values updated in order (a symplectic Euler step)
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
            12 => {
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
            13 => {
                let buffer = self.mutable_buffer();
                self.line(&format!("for v in {buffer}.iter_mut() {{"));
                self.open();
                let was = self.bound.replace("*v".to_owned());
                let e = self.expr(2);
                self.bound = was;
                self.line(&format!("*v = {e};"));
                self.close();
                self.line("}");
            }
            14 => {
                // a prefix recurrence over a buffer
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
            15 => {
                // a `while` loop and a `loop` with `break`, counting in `usize`
                let name = self.mutable_number();
                let k = self.fresh("k");
                let steps = 1 + self.rng.below(3);
                if self.rng.chance(50) {
                    self.line(&format!("let mut {k} = 0;"));
                    self.line(&format!("while {k} < {steps} {{"));
                    self.open();
                    let e = self.expr(2);
                    self.line(&format!("{name} = ({name} + {e}).tanh();"));
                    self.line(&format!("{k} += 1;"));
                    self.close();
                    self.line("}");
                } else {
                    self.line(&format!("let mut {k} = 0;"));
                    self.line("loop {");
                    self.open();
                    let e = self.expr(2);
                    self.line(&format!("{name} = {name} * T::from(0.5).unwrap() + {e};"));
                    self.line(&format!("{k} += 1;"));
                    self.line(&format!("if {k} >= {steps} {{"));
                    self.line("    break;");
                    self.line("}");
                    self.close();
                    self.line("}");
                }
            }
            16 if self.in_loop => {
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
            17 if self.bound.is_none() => {
                let c = self.condition();
                let e = self.expr(2);
                self.line(&format!("if {c} {{"));
                self.line(&format!("    return {e};"));
                self.line("}");
            }
            18 if self.index.is_some() => {
                let name = self.mutable_number();
                let i = self.index.clone().expect("checked");
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
            19 => {
                let buffer = self.mutable_buffer();
                // (the argument first: it may read the buffer lent mutably)
                let k = self.fresh("k");
                let e = self.expr(2);
                self.line(&format!("let {k} = {e};"));
                self.line(&format!("helper_smooth{{H}}(&mut {buffer}, {k});"));
            }
            _ => {
                let name = self.fresh("n");
                let e = self.expr(3);
                self.line(&format!("let {name} = {e};"));
                self.declare(&name, LocalKind::Number, false);
            }
        }
    }

    /// The body of program `seed`, with `{H}` where helper names end.
    fn body(seed: u64) -> String {
        let mut p = ScalarProgram::new(seed);
        for _ in 0..3 + p.rng.below(5) {
            p.statement(2);
        }
        // the result reads what the statements made
        let mut parts = vec![p.expr(2)];
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
        let body = ScalarProgram::body(seed);
        let lints = "#[allow(clippy::all, unused)]";
        let duals = "num_traits::Float + std::iter::Sum + std::ops::AddAssign + std::ops::SubAssign + std::ops::MulAssign";
        format!(
            "#[differentiable]\n{lints}\nfn program_{seed}<T: gradtape::Float>(x: &[T], s: T) -> T {{\n{}}}\n\n\
             #[differentiable]\n{lints}\nfn program_{seed}_f64(x: &[f64], s: f64) -> f64 {{\n{}}}\n\n\
             {lints}\nfn program_{seed}_on_duals<T: {duals}>(x: &[T], s: T) -> T {{\n{}}}\n",
            body.replace("{H}", ""),
            on_f64(&body.replace("{H}", "")),
            body.replace("{H}", "_on_duals"),
        )
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
        .replace(": T|", ": f64|")
        .replace(": T,", ": f64,")
}

pub const HEADER: &str = r#"//! Scalar-mode programs written by `gradtape-fuzz --scalar` (fuzz/src/scalar.rs): each
//! a plain-float annotated function, and the same body generic over `num_traits::Float`
//! run on dual numbers; checked against the dual numbers and central differences, orders
//! 1 and 2. Generated: do not edit; regenerate with
//! `cargo run -p gradtape-fuzz -- --scalar --seeds SEEDS --test-file tests/generated_scalar_programs.rs`.

#![allow(unused, clippy::all)]

mod common;

use common::{central_differences, close};
use gradtape::differentiable;
use gradtape::generated::Dual;

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

/// `x` (four entries) then `s`.
const N: usize = 5;

/// The inputs of program `seed`: in (-1, 1), from a small generator of its own.
fn point(seed: u64) -> [f64; N] {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    std::array::from_fn(|_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    })
}

/// `jvp` along `t` against the gradient (the same derivative by forward mode), and
/// `grad_into` into zeroed buffers against `grad`.
fn faces(
    name: &str,
    p: [f64; N],
    t: [f64; N],
    (value, dx, ds): (f64, &[f64], f64),
    jvp: &dyn Fn(&[f64], &[f64]) -> (f64, f64),
    grad_into: &dyn Fn(&[f64], &mut [f64], &mut f64) -> f64,
) {
    let (by_jvp, tangent) = jvp(&p, &t);
    assert_eq!(by_jvp.to_bits(), value.to_bits(), "{name}: jvp's value");
    let along: f64 = dx.iter().zip(&t).map(|(g, t)| g * t).sum::<f64>() + ds * t[4];
    assert!(close(tangent, along, 1e-10), "{name}: jvp {tangent}, gradient along t {along}");
    let (mut into, mut into_s) = (vec![0.0; 4], 0.0);
    let by_into = grad_into(&p, &mut into, &mut into_s);
    assert_eq!(by_into.to_bits(), value.to_bits(), "{name}: grad_into's value");
    for (k, (a, b)) in into.iter().chain([&into_s]).zip(dx.iter().chain([&ds])).enumerate() {
        assert!(close(*a, *b, 1e-13), "{name}: grad_into ∂/∂p{k} {a}, grad {b}");
    }
}

/// The generic program's value and gradient, and its `f64` twin's: the same to the bit.
fn same<'a>(name: &str, generic: impl Iterator<Item = &'a f64>, twin: impl Iterator<Item = &'a f64>) {
    let (generic, twin): (Vec<f64>, Vec<f64>) = (generic.copied().collect(), twin.copied().collect());
    assert!(
        generic.iter().zip(&twin).all(|(a, b)| a.to_bits() == b.to_bits()),
        "{name}: value and gradient {twin:?}, generic {generic:?}"
    );
}

/// Program `name`'s faces at `p`, against dual numbers and differences.
fn check(
    name: &str,
    p: [f64; N],
    primal: &dyn Fn(&[f64]) -> f64,
    itself: &dyn Fn(&[f64]) -> f64,
    grad: &dyn Fn(&[f64]) -> (f64, Vec<f64>),
    on_duals: &dyn Fn(&[Dual<f64, N>]) -> Dual<f64, N>,
) {
    let by_duals = |x: &[f64]| {
        let d: Vec<Dual<f64, N>> = x.iter().enumerate().map(|(i, &v)| Dual::variable(v, i)).collect();
        let y = on_duals(&d);
        (y.value, y.partials.to_vec())
    };
    let value = primal(&p);
    assert!(value.is_finite(), "{name}: value {value} at {p:?}");
    assert_eq!(itself(&p).to_bits(), value.to_bits(), "{name}: f against primal");
    let (by_grad, gradient) = grad(&p);
    assert_eq!(by_grad.to_bits(), value.to_bits(), "{name}: grad's value");
    let (dual_value, dual_gradient) = by_duals(&p);
    assert!(close(dual_value, value, 1e-12), "{name}: {dual_value} on duals, {value}");
    let differences = central_differences(primal, &p);
    for k in 0..N {
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
    // order two: each Hessian column by differences of `grad`, against the same
    // differences of the dual numbers' gradient
    let h = 1e-5;
    for j in 0..N {
        let moved = |by: f64| {
            let mut q = p;
            q[j] += by;
            q
        };
        let (up, down) = (grad(&moved(h)).1, grad(&moved(-h)).1);
        let (dual_up, dual_down) = (by_duals(&moved(h)).1, by_duals(&moved(-h)).1);
        for i in 0..N {
            let of_grad = (up[i] - down[i]) / (2.0 * h);
            let of_duals = (dual_up[i] - dual_down[i]) / (2.0 * h);
            assert!(
                close(of_grad, of_duals, 1e-6),
                "{name}: H[{i}][{j}] {of_grad} by grad, {of_duals} by dual numbers at {p:?}"
            );
        }
    }
}
"#;

/// Program `seed` and its test.
pub fn program_and_test(seed: u64) -> String {
    format!(
        "\n{}\n#[test]\nfn program_{seed}_matches_dual_numbers_and_finite_differences() {{\n    check(\n        \"program_{seed}\",\n        point({seed}),\n        &|p| program_{seed}::primal(&p[..4], p[4]),\n        &|p| program_{seed}(&p[..4], p[4]),\n        &|p| {{\n            let (value, (dx, ds)) = program_{seed}::grad(&p[..4], p[4]);\n            (value, [dx, vec![ds]].concat())\n        }},\n        &|d| program_{seed}_on_duals(&d[..4], d[4]),\n    );\n    let p = point({seed});\n    let (value, (dx, ds)) = program_{seed}::grad(&p[..4], p[4]);\n    faces(\"program_{seed}\", p, point({seed} + 7), (value, &dx, ds), &|p, t| program_{seed}::jvp(&p[..4], p[4], &t[..4], t[4]), &|p, dx, ds| program_{seed}::grad_into(&p[..4], p[4], dx, ds));\n    let (value_f64, (dx_f64, ds_f64)) = program_{seed}_f64::grad(&p[..4], p[4]);\n    same(\"program_{seed}_f64\", [value, ds].iter().chain(&dx), [value_f64, ds_f64].iter().chain(&dx_f64));\n}}\n",
        ScalarProgram::functions(seed)
    )
}
