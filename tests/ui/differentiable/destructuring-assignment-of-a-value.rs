use gradtape::differentiable;

// A destructuring assignment of a value the macro cannot split: a tuple an iterator
// chain gives. Tuples and branches (`(a, b) = if .. { (..) } else { (..) };`), arrays,
// names, fields, `*r`, `table[i]` and `table[i + 1]` (read once into a local) are split.
#[differentiable]
fn f(x: f64, y: f64, table: &[(f64, f64)]) -> f64 {
    let mut a = x;
    let mut b = y;
    for i in 0..table.len() - 1 {
        (a, b) = table.iter().copied().nth(i + 1).unwrap_or((a, b));
    }
    a * b
}

fn main() {}
