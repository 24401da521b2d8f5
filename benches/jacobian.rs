//! W6 `jacobian` (../shared/bench/WORKLOADS.md, defined in `w6/mod.rs`) under criterion.
//! Prints the trace of the jacobian, checked against the analytic one.

use criterion::{Criterion, criterion_group, criterion_main};

mod w6;

fn bench(c: &mut Criterion) {
    let (w, b, x) = w6::inputs();
    let j = w6::jacobian(&w, &b, &x);
    println!(
        "W6 jacobian: shape {:?}, trace {:.6} (checked against the analytic trace)",
        j.shape(),
        w6::checked_trace(&j, &w, &b, &x)
    );
    c.bench_function("W6 jacobian 256x256", |bench| {
        bench.iter(|| w6::jacobian(&w, &b, &x))
    });
}

// `criterion_group!` defines an undocumented public function.
#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, bench);
}
use group::benches;
criterion_main!(benches);
