//! The guide (`gradtape::guide`) shows the code `#[differentiable]` generates for its first
//! example; this test keeps that text true.

use gradtape::differentiable;

#[differentiable]
fn scaled_sin(x: f64, a: f64) -> f64 {
    a * x.sin()
}

/// The text of the guide's first ```` ```text ```` block, without the `//! ` prefixes.
fn guide_generated_block() -> String {
    let source = include_str!("../src/guide.rs");
    let lines: Vec<&str> = source
        .lines()
        .map(|line| {
            line.strip_prefix("//! ")
                .unwrap_or(line.trim_start_matches("//!"))
        })
        .collect();
    let start = lines
        .iter()
        .position(|line| *line == "```text")
        .expect("the guide has a text block");
    let end = start
        + lines[start..]
            .iter()
            .position(|line| *line == "```")
            .expect("the text block ends");
    lines[start + 1..end].join("\n")
}

#[test]
fn the_guide_shows_the_code_the_attribute_generates() {
    let shown = guide_generated_block();
    let generated = scaled_sin::GENERATED.trim_end();
    assert_eq!(scaled_sin(0.5, 2.0), 2.0 * 0.5_f64.sin());
    assert_eq!(
        shown, generated,
        "src/guide.rs shows outdated generated code for `scaled_sin`; replace its text block with:\n{generated}"
    );
}
