use gradtape::differentiable;

#[differentiable]
fn tail_sum(x: &[f64]) -> f64 {
    x.iter().sum()
}

// A slice walked by assigning it again (`s = &s[1..];`, `s = rest;`) is read through its
// positions in the array (`s[0]`, `s.len()`, `while let [first, rest @ ..] = s`); one
// also passed on whole (`tail_sum(s)`) is not: it is no one part of the array.
#[differentiable]
fn walked_tail_sums(x: &[f64]) -> f64 {
    let mut s = &x[..];
    let mut total = 0.0;
    while !s.is_empty() {
        total += tail_sum(s) * s[0];
        s = &s[1..];
    }
    total
}

fn main() {}
