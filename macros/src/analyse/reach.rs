//! Analysis of what the fused node can see: it takes the signature model and the function
//! and gives whether the body may read differentiable values that are no input of the
//! node. The node's inputs are the tensor and variable parameters; a tensor or variable
//! reached through a parameter of another type (a struct, a slice or `Vec` of tensors, a
//! tuple...) or a variable read in the body (`.value()` on anything but a variable
//! parameter) would be a constant to the generated adjoint, and a gradient with respect to
//! it would silently be `None`. Such a function runs op by op on the caller's tapes
//! instead: the body as written, each op recorded, every gradient right.

use syn::visit::{self, Visit};
use syn::{GenericArgument, Ident, ItemFn, PathArguments, Type};

use crate::model::sig::{self, Kind, Signature};
use crate::syntax::single_ident;

/// Whether the function must run op by op: a parameter of another kind whose type may hold
/// tensors or variables, or a variable read in the body that is no parameter.
pub fn op_by_op(sig: &Signature, item: &ItemFn) -> bool {
    let type_params = sig::type_params(item);
    let opaque_param = sig
        .params
        .iter()
        .any(|p| p.kind == Kind::Constant && may_hold_tensors(&p.ty, &type_params));
    opaque_param || reads_other_variables(sig, item)
}

/// Whether a value of type `ty` may contain a tensor or a variable: anything but numbers,
/// text, integer tensors and the standard containers of those (an unknown type, such as a
/// user's struct or a type parameter not bound by `Float`, may).
pub fn may_hold_tensors(ty: &Type, float_params: &[Ident]) -> bool {
    match ty {
        Type::Reference(reference) => may_hold_tensors(&reference.elem, float_params),
        Type::Paren(paren) => may_hold_tensors(&paren.elem, float_params),
        Type::Slice(slice) => may_hold_tensors(&slice.elem, float_params),
        Type::Array(array) => may_hold_tensors(&array.elem, float_params),
        Type::Tuple(tuple) => tuple
            .elems
            .iter()
            .any(|t| may_hold_tensors(t, float_params)),
        // A function pointer captures nothing.
        Type::FnPtr(_) | Type::Never(_) => false,
        Type::Path(path) if path.qself.is_none() => {
            let Some(last) = path.path.segments.last() else {
                return true;
            };
            let name = last.ident.to_string();
            let args: Vec<&Type> = match &last.arguments {
                PathArguments::AngleBracketed(args) => args
                    .args
                    .iter()
                    .filter_map(|arg| match arg {
                        GenericArgument::Type(ty) => Some(ty),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            match name.as_str() {
                "Variable" => true,
                // A float tensor is a parameter of its own kind; any other holds data.
                "Tensor" => args.first().is_some_and(|e| sig::is_float(e, float_params)),
                "Vec" | "VecDeque" | "Option" | "Box" | "Rc" | "Arc" | "Cow" | "HashMap"
                | "BTreeMap" | "HashSet" | "BTreeSet" | "Range" | "RangeInclusive" => {
                    args.iter().any(|t| may_hold_tensors(t, float_params))
                }
                "f32" | "f64" | "str" | "String" | "char" | "Shape" => false,
                _ if sig::is_integer(ty) => false,
                _ if args.is_empty() && float_params.contains(&last.ident) => false,
                _ => true,
            }
        }
        // `impl Trait`, `dyn Trait` (a closure may capture tensors), pointers, macros.
        _ => true,
    }
}

/// Whether the body reads a variable other than a variable parameter: `.value()` on
/// anything else (a field, a static, an element of a collection).
fn reads_other_variables(sig: &Signature, item: &ItemFn) -> bool {
    struct Reads<'s> {
        variables: Vec<&'s Ident>,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Reads<'_> {
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            let on_parameter = || {
                single_ident(crate::syntax::strip_parens(&call.receiver))
                    .is_some_and(|ident| self.variables.contains(&ident))
            };
            if call.method == "value" && call.args.is_empty() && !on_parameter() {
                self.found = true;
            }
            visit::visit_expr_method_call(self, call);
        }
    }
    let mut reads = Reads {
        variables: sig
            .params
            .iter()
            .filter(|p| p.kind == Kind::Variable)
            .map(|p| &p.ident)
            .collect(),
        found: false,
    };
    reads.visit_block(&item.block);
    reads.found
}
