//! Compile-fail cases of tape misuse: each must fail to build with a message that says
//! gradients need a float dtype and how to cast; and a mistyped method, which must not make
//! rustc suggest the runtime's rule-helper traits (the `.stderr` files hold the exact output).

#[test]
fn tape_misuse_does_not_compile() {
    trybuild::TestCases::new().compile_fail("tests/ui/tape/*.rs");
}
