//! The vocabulary of gradtape's primitives: one table that says, for every op the runtime
//! records, its name, its operands and constant arguments, what its backward rule keeps from
//! the forward, and how that rule is written.
//!
//! Two crates read it and neither keeps a list of its own: the runtime derives its elementwise
//! boilerplate from it (the recorded values, `Variable`'s reading methods, the 0-d kernels) and
//! `#[differentiable]` derives what it knows of each method (which rule to call, what to save
//! for it, which ops to replay on a sub-tape). A test records every row on a tape and checks
//! the node the runtime pushes against the row, so the table cannot drift from the code.
//!
//! This is JAX's primitive table and Tangent's adjoint registry in Rust's idiom: data in a
//! dependency-free crate (a procedural macro can read it at compile time), with the rules
//! themselves beside each op's forward in the runtime.
//!
//! ```
//! use gradtape_primitives::{Rule, Saved, lookup};
//! let exp = lookup("exp").unwrap();
//! assert_eq!(exp.rule, Rule::Elementwise);
//! assert_eq!(exp.saves, &[Saved::Output]); // d/dx eˣ = eˣ: the rule reads the output
//! assert_eq!(lookup("matmul").unwrap().rule, Rule::Tensor);
//! ```

#![no_std]

/// A value a backward rule keeps from the forward computation.
///
/// ```
/// use gradtape_primitives::{Saved, lookup};
/// // d/dx sin x = cos x: the rule needs the input
/// assert_eq!(lookup("sin").unwrap().saves, &[Saved::Input(0)]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Saved {
    /// The operand in this position (0 is the receiver).
    Input(usize),
    /// The op's result.
    Output,
    /// A value computed during the forward that is neither an operand nor the result (the
    /// probabilities of a fused softmax cross-entropy).
    Derived,
}

/// How a primitive's backward rule is written, which decides how generated code uses it.
///
/// ```
/// use gradtape_primitives::{Rule, lookup};
/// assert_eq!(lookup("tanh").unwrap().rule, Rule::Elementwise);
/// assert_eq!(lookup("sum").unwrap().rule, Rule::Tensor);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Elementwise, one generic function per operand over the runtime's `Primal` trait
    /// (`vjp::<name>` for a unary op, the [`Primitive::rules`] for a binary one). It runs on
    /// tensors and on plain `f32`/`f64`, so generated adjoints call it directly, and a forward
    /// kernel on plain numbers exists under the same name (the 0-d path).
    Elementwise,
    /// A rule on tensors only (it names shapes or axes): generated code replays the op on a
    /// sub-tape and takes the runtime's gradient.
    Tensor,
    /// No gradient flows: the result is an integer or boolean tensor, or a piecewise
    /// constant float op TensorFlow registers no gradient for (`floor`, `ceil`, `round`;
    /// `trunc` with them). The op is not recorded, so a gradient through it alone is
    /// `None`; `#[differentiable]` code takes its result as a constant (derivative zero).
    None,
}

/// A constant (never differentiated) argument of a primitive.
///
/// ```
/// use gradtape_primitives::{Param, lookup};
/// assert_eq!(lookup("powi").unwrap().params, &[Param::Int]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// An `i32` (`powi`'s exponent).
    Int,
    /// A float, kept in the node as an `f64` (`powf`'s exponent, a scale factor).
    Real,
    /// An axis, a shape, a range or indices: structure, not values.
    Structure,
}

/// One row of the vocabulary.
///
/// ```
/// use gradtape_primitives::lookup;
/// let mul = lookup("mul").unwrap();
/// assert_eq!(mul.operands, Some(2));
/// assert_eq!(mul.rules, &["mul_lhs", "mul_rhs"]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Primitive {
    /// The op's name as the tape records it, and its method on `Tensor` where it has one.
    pub name: &'static str,
    /// Tensor operands, the receiver first (differentiable where their dtype is a float).
    /// `None` for a list of any length (`concat`).
    pub operands: Option<usize>,
    /// Constant arguments after the operands.
    pub params: &'static [Param],
    /// What the backward rule keeps, in the order the node stores it.
    pub saves: &'static [Saved],
    /// How the rule is written.
    pub rule: Rule,
    /// For an elementwise binary op, the rule of each operand (`vjp::<rule>`); for a unary
    /// one, its rule is `vjp::<name>`, and this is empty.
    pub rules: &'static [&'static str],
}

impl Primitive {
    /// Whether a method of this name also runs on plain `f32`/`f64`: an elementwise rule
    /// with a forward kernel of the same name.
    ///
    /// ```
    /// use gradtape_primitives::lookup;
    /// assert!(lookup("relu").unwrap().runs_on_numbers());
    /// assert!(!lookup("softmax").unwrap().runs_on_numbers());
    /// ```
    pub const fn runs_on_numbers(&self) -> bool {
        matches!(self.rule, Rule::Elementwise)
    }

    /// Whether the rule keeps the op's result (rather than, or besides, an operand).
    ///
    /// ```
    /// use gradtape_primitives::lookup;
    /// assert!(lookup("sigmoid").unwrap().saves_output());
    /// assert!(!lookup("square").unwrap().saves_output());
    /// ```
    pub const fn saves_output(&self) -> bool {
        let mut i = 0;
        while i < self.saves.len() {
            if matches!(self.saves[i], Saved::Output) {
                return true;
            }
            i += 1;
        }
        false
    }
}

/// Calls `$callback!` with every elementwise unary primitive as `name: Saved,` rows: the one
/// list the runtime derives its per-op boilerplate from (with a row here, `Variable` gains
/// the reading method and generated code the 0-d kernel; see ARCHITECTURE.md, "Adding a
/// primitive"). [`ELEMENTWISE_UNARY`] is built from it too.
///
/// ```
/// macro_rules! count {
///     ($($name:ident: $saved:ident,)*) => { [$(stringify!($name)),*].len() };
/// }
/// let n = gradtape_primitives::elementwise_unary!(count);
/// assert_eq!(n, gradtape_primitives::ELEMENTWISE_UNARY.len());
/// ```
#[macro_export]
macro_rules! elementwise_unary {
    ($callback:ident) => {
        $callback! {
            square: Input,
            sqrt: Output,
            exp: Output,
            ln: Input,
            log1p: Input,
            sin: Input,
            cos: Input,
            tanh: Output,
            sigmoid: Output,
            relu: Output,
            softplus: Input,
            abs: Input,
            tan: Output,
            asin: Input,
            acos: Input,
            atan: Input,
            sinh: Input,
            cosh: Input,
            asinh: Input,
            acosh: Input,
            atanh: Input,
            exp2: Output,
            expm1: Output,
            log2: Input,
            log10: Input,
            cbrt: Output,
            recip: Output,
            erf: Input,
            // linear (`x · 180/π`, `x · π/180`): the rule reads no value; a unary row
            // keeps one, the input here, which the rule leaves unread
            to_degrees: Input,
            to_radians: Input,
        }
    };
}

macro_rules! unary_rows {
    ($($name:ident: $saved:ident,)*) => {
        /// The elementwise unary primitives with no constant argument, in [`elementwise_unary!`]'s
        /// order.
        ///
        /// ```
        /// assert!(gradtape_primitives::ELEMENTWISE_UNARY.iter().any(|p| p.name == "exp"));
        /// ```
        pub const ELEMENTWISE_UNARY: &[Primitive] = &[$(Primitive {
            name: stringify!($name),
            operands: Some(1),
            params: &[],
            saves: &[unary_saved!($saved)],
            rule: Rule::Elementwise,
            rules: &[],
        }),*];
    };
}

macro_rules! unary_saved {
    (Input) => {
        Saved::Input(0)
    };
    (Output) => {
        Saved::Output
    };
}

elementwise_unary!(unary_rows);

const fn row(
    name: &'static str,
    operands: usize,
    params: &'static [Param],
    saves: &'static [Saved],
    rule: Rule,
    rules: &'static [&'static str],
) -> Primitive {
    Primitive {
        name,
        operands: Some(operands),
        params,
        saves,
        rule,
        rules,
    }
}

use Param::{Int, Real, Structure};
use Rule::{Elementwise, Tensor};
use Saved::{Derived, Input, Output};

/// The other primitives: elementwise ones with a constant argument or two operands, then the
/// ops whose rules are written on tensors.
///
/// ```
/// assert!(gradtape_primitives::OTHER_PRIMITIVES.iter().any(|p| p.name == "matmul"));
/// ```
pub const OTHER_PRIMITIVES: &[Primitive] = &[
    // elementwise, with a constant argument
    row("powi", 1, &[Int], &[Input(0)], Elementwise, &[]),
    row("powf", 1, &[Real], &[Input(0)], Elementwise, &[]),
    // elementwise, two operands (broadcasting); each operand has its own rule
    row(
        "add",
        2,
        &[],
        &[],
        Elementwise,
        &["pass_through", "pass_through"],
    ),
    row(
        "sub",
        2,
        &[],
        &[],
        Elementwise,
        &["pass_through", "sub_rhs"],
    ),
    row(
        "mul",
        2,
        &[],
        &[Input(0), Input(1)],
        Elementwise,
        &["mul_lhs", "mul_rhs"],
    ),
    row(
        "div",
        2,
        &[],
        &[Input(0), Input(1)],
        Elementwise,
        &["div_lhs", "div_rhs"],
    ),
    row(
        "maximum",
        2,
        &[],
        &[Input(0), Input(1)],
        Elementwise,
        &["maximum_lhs", "maximum_rhs"],
    ),
    row(
        "minimum",
        2,
        &[],
        &[Input(0), Input(1)],
        Elementwise,
        &["minimum_lhs", "minimum_rhs"],
    ),
    row(
        "atan2",
        2,
        &[],
        &[Input(0), Input(1)],
        Elementwise,
        &["atan2_lhs", "atan2_rhs"],
    ),
    row(
        "hypot",
        2,
        &[],
        &[Input(0), Input(1)],
        Elementwise,
        &["hypot_lhs", "hypot_rhs"],
    ),
    // `x^y` with a differentiable exponent (`powf` above keeps a constant one)
    row(
        "pow",
        2,
        &[],
        &[Input(0), Input(1)],
        Elementwise,
        &["pow_lhs", "pow_rhs"],
    ),
    // `ln x / ln base`, the base differentiable too
    row(
        "log",
        2,
        &[],
        &[Input(0), Input(1)],
        Elementwise,
        &["log_lhs", "log_rhs"],
    ),
    // remainders, `x − n·y` for an integer `n` the values decide: 1 in `x` (`add`'s rule),
    // `−n` in `y`; `rem` is Rust's `%` (truncated division, C's `fmod`), `rem_euclid`
    // Euclid's (`0 ≤ r < |y|`)
    row(
        "rem",
        2,
        &[],
        &[Input(0), Input(1)],
        Elementwise,
        &["pass_through", "rem_rhs"],
    ),
    row(
        "rem_euclid",
        2,
        &[],
        &[Input(0), Input(1)],
        Elementwise,
        &["pass_through", "rem_euclid_rhs"],
    ),
    // elementwise, piecewise constant with no gradient (TensorFlow registers `Floor`,
    // `Ceil` and `Round` with a `None` gradient; `trunc` goes with them): not recorded
    row("floor", 1, &[], &[], Rule::None, &[]),
    row("ceil", 1, &[], &[], Rule::None, &[]),
    row("round", 1, &[], &[], Rule::None, &[]),
    row("trunc", 1, &[], &[], Rule::None, &[]),
    // `x * c` for a plain number `c`: linear, so nothing is kept (the factor is a param)
    row("scale", 1, &[Real], &[], Tensor, &[]),
    // `c·x·y` in one pass, what rules such as square's `2·x·g` compute
    row("mul_scaled", 2, &[Real], &[Input(0), Input(1)], Tensor, &[]),
    row("neg", 1, &[], &[], Tensor, &[]),
    // reductions
    row("sum", 1, &[], &[], Tensor, &[]),
    row("mean", 1, &[], &[], Tensor, &[]),
    row("max", 1, &[], &[Input(0), Output], Tensor, &[]),
    row("sum_to_shape", 1, &[Structure], &[], Tensor, &[]),
    row("broadcast_to", 1, &[Structure], &[], Tensor, &[]),
    row("dot", 2, &[], &[Input(0), Input(1)], Tensor, &[]),
    // scans: linear, the transpose runs the other way
    row("cumsum", 1, &[Structure], &[], Tensor, &[]),
    // shapes
    row("reshape", 1, &[Structure], &[], Tensor, &[]),
    row("permute", 1, &[Structure], &[], Tensor, &[]),
    row("slice", 1, &[Structure], &[], Tensor, &[]),
    row("gather", 1, &[Structure], &[], Tensor, &[]),
    row("scatter_add", 1, &[Structure], &[], Tensor, &[]),
    // `Tensor::where_cond(&condition, &a, &b)`: the condition (a `bool` tensor) is structure
    row("where_cond", 2, &[Structure], &[], Tensor, &[]),
    Primitive {
        name: "concat",
        operands: None,
        params: &[Structure],
        saves: &[],
        rule: Tensor,
        rules: &[],
    },
    row("cast", 1, &[], &[], Tensor, &[]),
    // products
    row("matmul", 2, &[], &[Input(0), Input(1)], Tensor, &[]),
    row(
        "matmul_transposed",
        2,
        &[],
        &[Input(0), Input(1)],
        Tensor,
        &[],
    ),
    row("xw_plus_b", 3, &[], &[Input(0), Input(1)], Tensor, &[]),
    // networks
    row("softmax", 1, &[], &[Output], Tensor, &[]),
    row("log_softmax", 1, &[], &[Output], Tensor, &[]),
    row(
        "sparse_softmax_cross_entropy_with_logits",
        1,
        &[Structure],
        &[Input(0), Derived],
        Tensor,
        &[],
    ),
    // convolution and pooling over NHWC images (the options are structure); each
    // gradient is an op of its own, recorded by the rule above it, with a rule of its own
    row(
        "conv2d",
        2,
        &[Structure],
        &[Input(0), Input(1)],
        Tensor,
        &[],
    ),
    row(
        "conv2d_backprop_input",
        2,
        &[Structure],
        &[Input(0), Input(1)],
        Tensor,
        &[],
    ),
    row(
        "conv2d_backprop_filter",
        2,
        &[Structure],
        &[Input(0), Input(1)],
        Tensor,
        &[],
    ),
    // relu(conv2d(x, w) + b) in one op (a Conv2D layer with a ReLU): its rule needs the
    // convolution's operands and, for ReLU's mask, the output
    row(
        "conv2d_bias_relu",
        3,
        &[Structure],
        &[Input(0), Input(1), Output],
        Tensor,
        &[],
    ),
    // max pooling's rule finds each window's maximum again from its input and output; its
    // gradient and that gradient's rule (the positions' gather) keep the two as constants
    row(
        "max_pool2d",
        1,
        &[Structure],
        &[Input(0), Output],
        Tensor,
        &[],
    ),
    row(
        "max_pool2d_backprop",
        1,
        &[Structure],
        &[Derived, Derived],
        Tensor,
        &[],
    ),
    row(
        "max_pool2d_select",
        1,
        &[Structure],
        &[Derived, Derived],
        Tensor,
        &[],
    ),
    row("avg_pool2d", 1, &[Structure], &[], Tensor, &[]),
    row("avg_pool2d_backprop", 1, &[Structure], &[], Tensor, &[]),
    // piecewise constant (masks and signs the rules use): recorded with a zero rule, so a
    // derivative through them is connected and zero, as TensorFlow's
    row("positive_mask", 1, &[], &[], Tensor, &[]),
    row("sign", 1, &[], &[], Tensor, &[]),
    // no gradient: integer or boolean results
    row("argmax_axis", 1, &[Structure], &[], Rule::None, &[]),
    row("equal", 2, &[], &[], Rule::None, &[]),
    row("not_equal", 2, &[], &[], Rule::None, &[]),
    row("greater", 2, &[], &[], Rule::None, &[]),
    row("greater_equal", 2, &[], &[], Rule::None, &[]),
    row("less", 2, &[], &[], Rule::None, &[]),
    row("less_equal", 2, &[], &[], Rule::None, &[]),
];

/// Methods and associated functions of `Tensor` made of other ops (the runtime's
/// `ops/composite.rs`): they record the primitives they are built from and have no row or
/// rule of their own. `#[differentiable]` replays them on a sub-tape, as it does a call.
///
/// ```
/// assert!(gradtape_primitives::COMPOSITES.contains(&"logsumexp_axis"));
/// assert!(gradtape_primitives::lookup("logsumexp_axis").is_none());
/// ```
pub const COMPOSITES: &[&str] = &[
    "min",
    "min_axis",
    "logsumexp",
    "logsumexp_axis",
    "variance",
    "variance_axis",
    "std",
    "std_axis",
    "norm",
    "norm_axis",
    "prod",
    "prod_axis",
    "stack",
];

/// Methods of `Tensor` that record a primitive of another name: `(method, primitive)`.
///
/// ```
/// use gradtape_primitives::method;
/// assert_eq!(method("sum_axis").unwrap().name, "sum");
/// assert_eq!(method("sum").unwrap().name, "sum");
/// ```
pub const ALIASES: &[(&str, &str)] = &[
    ("sum_axis", "sum"),
    ("mean_axis", "mean"),
    ("max_axis", "max"),
    ("transpose", "permute"),
    // Rust's names for TensorFlow's, so that `#[differentiable]` code written for `f64`
    // reads the same on tensors
    ("exp_m1", "expm1"),
    ("ln_1p", "log1p"),
];

/// The primitive a `Tensor` method of this name records: its own row, or the row
/// [`ALIASES`] names.
///
/// ```
/// assert_eq!(gradtape_primitives::method("transpose").unwrap().name, "permute");
/// assert!(gradtape_primitives::method("shape").is_none());
/// ```
pub const fn method(name: &str) -> Option<&'static Primitive> {
    let mut i = 0;
    while i < ALIASES.len() {
        if same(ALIASES[i].0, name) {
            return lookup(ALIASES[i].1);
        }
        i += 1;
    }
    lookup(name)
}

/// Methods of `Tensor` that read metadata, not elements: no gradient flows through them.
///
/// ```
/// assert!(gradtape_primitives::METADATA.contains(&"shape"));
/// ```
pub const METADATA: &[&str] = &["shape", "len", "rank", "dtype", "is_empty"];

/// Methods that turn a differentiable value into plain data, leaving the library (what is
/// computed from their result is constant to every tape).
///
/// ```
/// assert!(gradtape_primitives::ESCAPES.contains(&"to_vec"));
/// ```
pub const ESCAPES: &[&str] = &["to_scalar", "to_vec", "view", "to_ndarray", "value"];

/// The row named `name`, if it is a primitive. A `const fn`, so the runtime reads what a
/// rule saves at compile time.
///
/// ```
/// use gradtape_primitives::lookup;
/// assert_eq!(lookup("relu").unwrap().name, "relu");
/// assert!(lookup("no_such_op").is_none());
/// ```
pub const fn lookup(name: &str) -> Option<&'static Primitive> {
    let mut i = 0;
    while i < ELEMENTWISE_UNARY.len() {
        if same(ELEMENTWISE_UNARY[i].name, name) {
            return Some(&ELEMENTWISE_UNARY[i]);
        }
        i += 1;
    }
    let mut i = 0;
    while i < OTHER_PRIMITIVES.len() {
        if same(OTHER_PRIMITIVES[i].name, name) {
            return Some(&OTHER_PRIMITIVES[i]);
        }
        i += 1;
    }
    None
}

/// The row named `name`, failing the build if there is none: for the runtime's ops, whose
/// rows must exist.
///
/// ```
/// const EXP: &gradtape_primitives::Primitive = gradtape_primitives::row_of("exp");
/// assert_eq!(EXP.operands, Some(1));
/// ```
pub const fn row_of(name: &str) -> &'static Primitive {
    match lookup(name) {
        Some(p) => p,
        None => panic!("an op of the runtime has no row in gradtape-primitives"),
    }
}

/// Every primitive: [`ELEMENTWISE_UNARY`], then [`OTHER_PRIMITIVES`].
///
/// ```
/// let n = gradtape_primitives::all().count();
/// assert!(n > 40);
/// ```
pub fn all() -> impl Iterator<Item = &'static Primitive> {
    ELEMENTWISE_UNARY.iter().chain(OTHER_PRIMITIVES)
}

/// `a == b` in a `const fn`.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        for (i, a) in all().enumerate() {
            for b in all().skip(i + 1) {
                assert_ne!(a.name, b.name, "two rows named {}", a.name);
            }
        }
    }

    #[test]
    fn elementwise_rows_are_consistent() {
        for p in all().filter(|p| p.rule == Rule::Elementwise) {
            let unary = p.operands == Some(1);
            // a unary elementwise rule is `vjp::<name>`; a binary one names one rule per operand
            assert_eq!(p.rules.len(), if unary { 0 } else { 2 }, "{}", p.name);
            for saved in p.saves {
                if let Saved::Input(k) = saved {
                    assert!(Some(*k) < p.operands, "{} saves operand {k}", p.name);
                }
            }
        }
    }
}
