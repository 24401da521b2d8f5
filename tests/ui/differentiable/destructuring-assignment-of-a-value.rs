use gradtape::differentiable;

// A destructuring assignment of a value the macro cannot split: a tuple read from a table
// at a computed index (reading it twice, once per part, would compute the index twice).
// Tuples and branches (`(a, b) = if .. { (..) } else { (..) };`), arrays, names, fields,
// `*r` and `table[i]` are split.
#[differentiable]
fn f(x: f64, y: f64, table: &[(f64, f64)]) -> f64 {
    let mut a = x;
    let mut b = y;
    for i in 0..table.len() - 1 {
        (a, b) = table[i + 1];
    }
    a * b
}

fn main() {}
