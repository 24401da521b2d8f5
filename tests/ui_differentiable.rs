//! Compile-fail cases of `#[differentiable]`: one misuse per file, with the reviewed
//! diagnostics beside it.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/differentiable/*.rs");
}
