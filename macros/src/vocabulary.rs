//! What the macro knows of each op, all of it read from `gradtape-primitives` (the table the
//! runtime records from): which methods have an elementwise rule and what it keeps, which
//! are replayed on a sub-tape, which read metadata or leave the library, and the rules of the
//! binary operators. Lowering, validation and generation ask here and keep no list of their
//! own, so a new row in the table needs no change to the macro.

use gradtape_primitives::{Param, Primitive, Rule, Saved};

use crate::model::ir::Saves;

/// Rows of the table that are no method to replay on a sub-tape: names only rules and
/// operators record (`scale` is `x * c` for a number `c`, `mul_scaled` the `c·x·y` of rules
/// such as square's, `neg` the `-` operator, `dot` the fused rule of a 0-d factor, the
/// masks and signs of `Primal`, which rules call; `sign` is also a tensor method, which
/// [`has_no_gradient`] makes a constant), and
/// `concat` and `where_cond`, associated functions (`Tensor::concat(..)`, which a tensor
/// function replays like any other call).
const NOT_METHODS: &[&str] = &[
    "scale",
    "mul_scaled",
    "neg",
    "dot",
    "concat",
    "where_cond",
    "positive_mask",
    "sign",
];

/// An elementwise method of one operand whose rule is `vjp::<rule>`.
pub struct Elementwise {
    /// The primitive the method records (`expm1` for Rust's `exp_m1`): its rule is
    /// `vjp::<rule>` and its kernel on one number `generated::scalar::<rule>`.
    pub rule: &'static str,
    /// The value the rule takes: the operand or the result.
    pub saves: Saves,
    /// Its constant arguments, in order.
    pub params: &'static [Param],
}

/// The elementwise unary method `name` (a row's name or an alias of one), if the table has
/// one.
pub fn elementwise(name: &str) -> Option<Elementwise> {
    let row = gradtape_primitives::method(name)?;
    if row.rule != Rule::Elementwise || row.operands != Some(1) {
        return None;
    }
    let saves = match row.saves {
        [Saved::Output] => Saves::Output,
        [Saved::Input(0)] => Saves::Input,
        _ => return None,
    };
    Some(Elementwise {
        rule: row.name,
        saves,
        params: row.params,
    })
}

/// Whether a constant argument is kept by the runtime as an `f64`, so that generated code
/// converts it for the rule (`generated::exponent`, `powf`'s exponent).
pub fn is_real(param: Param) -> bool {
    param == Param::Real
}

/// Whether `name` is a tensor method whose rule is written on tensors, or a composite of
/// such ops: generated code replays it on a sub-tape and takes the runtime's gradient.
pub fn is_traced(name: &str) -> bool {
    let primitive = !NOT_METHODS.contains(&name)
        && gradtape_primitives::method(name).is_some_and(|row| row.rule == Rule::Tensor);
    // a composite (`variance_axis`, `logsumexp`) records primitives: replayed the same way
    primitive || gradtape_primitives::COMPOSITES.contains(&name)
}

/// Methods of the standard collections that store their argument in the receiver: a
/// differentiable value stored in a constant container would escape its adjoint, so such a
/// call is rejected rather than taken for a call of a `#[differentiable]` method.
const STORING: &[&str] = &[
    "push",
    "push_back",
    "push_front",
    "insert",
    "extend",
    "extend_from_slice",
    "append",
    "resize",
    "fill",
    "entry",
    "set",
    "replace",
];

/// Whether `name` is a standard method that stores its argument in its receiver.
pub fn stores_argument(name: &str) -> bool {
    STORING.contains(&name)
}

/// Methods of the standard library's options, results and iterators that take a value or
/// a closure, spelled as no user's method is expected to be: called on a constant receiver
/// with a differentiable argument, one of these is no annotated method of the receiver
/// (which lowering otherwise takes it for, and rustc then answers), but a form the
/// rewrites did not take.
const LIBRARY: &[&str] = &[
    "unwrap_or",
    "unwrap_or_else",
    "map_or",
    "map_or_else",
    "and_then",
    "or_else",
    "get_or_insert",
    "get_or_insert_with",
    "fold",
    "try_fold",
    "rfold",
    "for_each",
    "try_for_each",
    "scan",
    "filter",
    "filter_map",
    "flat_map",
    "take_while",
    "skip_while",
    "map_while",
    "max_by",
    "min_by",
    "max_by_key",
    "min_by_key",
    "reduce",
    "position",
    "rposition",
];

/// Whether `name` is one of the standard library's methods of options, results and
/// iterators taking a value or a closure ([`LIBRARY`]).
pub fn is_library_method(name: &str) -> bool {
    LIBRARY.contains(&name)
}

/// Whether `name` reads a value's metadata (`shape`), not its elements: no gradient flows
/// through the receiver.
pub fn is_metadata(name: &str) -> bool {
    gradtape_primitives::METADATA.contains(&name)
}

/// Float methods whose derivative is zero wherever it exists, besides the rows with no
/// gradient: `sign` (its row's rule gives zeros, as TensorFlow's) and Rust's names of the
/// rounding family (`signum`, `round_ties_even`, and `div_euclid`, an integer-valued
/// quotient: `floor` or `ceil` of `a / b` by the sign of `b`). Generated code computes them as written
/// and takes the result as a constant: its derivative is zero, never a value from a rule.
const ZERO_DERIVATIVE: &[&str] = &[
    "sign",
    "signum",
    "round_ties_even",
    "div_euclid",
    // a position in a sorted float array, decided by comparisons of values (`Result<usize,
    // usize>`, `usize`): piecewise constant
    "binary_search",
    "binary_search_by",
    "binary_search_by_key",
    "partition_point",
    // an `Ordering`: a test on values, as `<` is
    "partial_cmp",
    "total_cmp",
];

/// Whether `name` is a method whose result carries no gradient, so that its value is a
/// constant: an integer or boolean result (`argmax_axis`, `equal`), or a piecewise
/// constant float (`floor`, `ceil`, `round`, `trunc`, `sign`, `signum`, `div_euclid`), a
/// position found by a binary search, an `Ordering`.
pub fn has_no_gradient(name: &str) -> bool {
    ZERO_DERIVATIVE.contains(&name)
        || gradtape_primitives::lookup(name).is_some_and(|row| row.rule == Rule::None)
}

/// Whether `name` turns a differentiable value into plain data, leaving the library.
pub fn is_escape(name: &str) -> bool {
    gradtape_primitives::ESCAPES.contains(&name)
}

/// Whether `name`, run on a tape, gives plain data the tape records as a constant: an
/// escape, but for `value`, whose read of a variable the tape records.
pub fn cuts_the_tape(name: &str) -> bool {
    name != "value" && is_escape(name)
}

/// The rules of a binary row (`add`, `sub`, `mul`, `div`, `rem`, and the two-operand
/// methods: `maximum`, `minimum`, `atan2`, `hypot`, `pow`, `log`, `rem_euclid`).
pub struct Binary {
    /// The rule of each operand, `vjp::<rule>`.
    pub rules: [&'static str; 2],
    /// Which operands the rules may read (the row's `saves`); others are kept only for
    /// their shape, to undo broadcasting.
    pub saves: [bool; 2],
}

/// The row of binary operator `name`; the table's own test guarantees its shape.
pub fn binary(name: &str) -> Binary {
    let row: &Primitive = gradtape_primitives::lookup(name)
        .filter(|row| row.rule == Rule::Elementwise && row.operands == Some(2))
        .expect("the binary operators have elementwise rows in gradtape-primitives");
    Binary {
        rules: [row.rules[0], row.rules[1]],
        saves: [0, 1].map(|k| row.saves.contains(&Saved::Input(k))),
    }
}

/// Rust's names of two-operand float methods whose row has another name: `f64::max` and
/// `f64::min` are the rows `maximum` and `minimum` (`max` alone is the reduction), and
/// `powf` with a differentiable exponent is `pow` (with a constant one it is the unary
/// `powf`, which keeps nothing for the exponent).
const BINARY_METHODS: &[(&str, &str)] = &[("max", "maximum"), ("min", "minimum")];

/// The row of the two-operand elementwise method `name` (`x.atan2(y)`, `x.max(y)`,
/// `x.powf(y)` when `y` is differentiable), given whether its argument is.
pub fn binary_method(name: &str, arg_active: bool) -> Option<&'static str> {
    if name == "powf" {
        return arg_active.then_some("pow");
    }
    if let Some(&(_, row)) = BINARY_METHODS.iter().find(|(method, _)| *method == name) {
        return Some(row);
    }
    // The operators' rows are lowered from `+ - * /`, not from method calls.
    let row = gradtape_primitives::lookup(name)
        .filter(|row| row.rule == Rule::Elementwise && row.operands == Some(2))?;
    (!matches!(row.name, "add" | "sub" | "mul" | "div")).then_some(row.name)
}

/// Which operands (lhs, rhs) a binary rule takes before the cotangent, as its signature in
/// the runtime's `ops/binary.rs` has them: the one fact about the rules the table does not
/// hold (it says what a node keeps, not which rule reads what).
pub fn rule_reads(rule: &str) -> [bool; 2] {
    match rule {
        "mul_lhs" | "div_lhs" => [false, true],
        "mul_rhs" => [true, false],
        "div_rhs" | "maximum_lhs" | "maximum_rhs" | "minimum_lhs" | "minimum_rhs" | "atan2_lhs"
        | "atan2_rhs" | "hypot_lhs" | "hypot_rhs" | "pow_lhs" | "pow_rhs" | "log_lhs"
        | "log_rhs" | "rem_rhs" | "rem_euclid_rhs" => [true, true],
        "pass_through" | "sub_rhs" => [false, false],
        other => {
            panic!("the binary rule `{other}` is new to #[differentiable]: add its operands here")
        }
    }
}

/// The rule that passes the cotangent on unchanged (`add`'s): generated code clones the
/// cotangent in place of calling it.
pub const IDENTITY_RULE: &str = "pass_through";
