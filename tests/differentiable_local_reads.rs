//! Reads of local arrays the adjoint repeats in place (issues 13 and 14,
//! `macros/src/analyse/local_reads.rs`): a local array read after the statements that
//! write it is read again by `grad_into`'s adjoint instead of saved per element, as the
//! caller's arrays are. Each function is checked against dual numbers and central
//! differences at orders 1 and 2 (`twice!`, as `differentiable_corpus_duals.rs`), and
//! the generated code is checked for what it saves: nothing per element where the rule
//! applies, and the reads saved where a write follows them (a later statement, a later
//! trip of an outer loop, a writer's `&mut`, a swap), whose gradients would be wrong if
//! read in place.

#[macro_use]
mod common;

use common::twice::Twice;
use gradtape::differentiable;

// ----- read in place: nothing writes the array after the read -----

twice! {
    /// One classical Runge–Kutta step of `y₀′ = x₀`, `yᵢ′ = xᵢ yᵢ₋₁` in JAX's form: the
    /// four stages in local arrays, each filled by a loop and then only read by the
    /// following loops, and the new state reduced.
    fn stages_in_arrays / stages_in_arrays_on_duals<T>(x: &[T], y: &[T]) -> T {
        let n = x.len();
        let h = T::from(0.5).unwrap();
        let half = h / T::from(2.0).unwrap();
        let sixth = h / T::from(6.0).unwrap();
        let mut k1 = vec![T::zero(); n];
        let mut k2 = vec![T::zero(); n];
        let mut k3 = vec![T::zero(); n];
        let mut k4 = vec![T::zero(); n];
        k1[0] = x[0];
        for i in 1..n {
            k1[i] = x[i] * y[i - 1];
        }
        k2[0] = x[0];
        for i in 1..n {
            k2[i] = x[i] * (y[i - 1] + half * k1[i - 1]);
        }
        k3[0] = x[0];
        for i in 1..n {
            k3[i] = x[i] * (y[i - 1] + half * k2[i - 1]);
        }
        k4[0] = x[0];
        for i in 1..n {
            k4[i] = x[i] * (y[i - 1] + h * k3[i - 1]);
        }
        let mut total = T::zero();
        for i in 0..n {
            total = total + (y[i] + sixth * (k1[i] + k2[i] + k2[i] + k3[i] + k3[i] + k4[i]));
        }
        total * total
    }
}

twice! {
    /// Prefix sums of squares, then products of neighbouring sums.
    fn prefix_sums_then_reads / prefix_sums_then_reads_on_duals<T>(x: &[T]) -> T {
        let n = x.len();
        let mut c = vec![T::zero(); n];
        c[0] = x[0];
        for i in 1..n {
            c[i] = c[i - 1] + x[i] * x[i];
        }
        let mut total = T::zero();
        for i in 1..n {
            total = total + c[i] * c[i - 1] * x[i];
        }
        total
    }
}

twice! {
    /// A buffer filled by one loop, then reduced twice (by an iterator and by index).
    fn buffer_reduced / buffer_reduced_on_duals<T>(x: &[T]) -> T {
        let mut b = vec![T::zero(); x.len()];
        for i in 0..x.len() {
            b[i] = x[i] * x[i] - x[i];
        }
        let mut total = T::zero();
        for v in b.iter() {
            total = total + *v * *v;
        }
        for i in 0..b.len() {
            total = total + b[i] * x[i];
        }
        total
    }
}

twice! {
    /// A fixed-size local array and a `Vec` grown by `push`, each filled then read.
    fn fixed_and_pushed / fixed_and_pushed_on_duals<T>(x: &[T]) -> T {
        let mut m = [T::zero(); 3];
        for i in 0..3 {
            m[i] = x[i] * x[i + 1];
        }
        let mut s = Vec::new();
        for i in 0..3 {
            s.push(x[i] - x[i + 1]);
        }
        let mut total = T::zero();
        for i in 0..3 {
            total = total + m[i] * s[i] * m[i];
        }
        total
    }
}

// ----- saved: a write follows the read -----

twice! {
    /// Read, then overwritten by a later loop, then read again (the last reads in place).
    fn written_after_read / written_after_read_on_duals<T>(x: &[T]) -> T {
        let n = x.len();
        let mut a = vec![T::zero(); n];
        for i in 0..n {
            a[i] = x[i] * x[i];
        }
        let mut total = T::zero();
        for i in 0..n {
            total = total + a[i] * x[i];
        }
        for i in 0..n {
            a[i] = a[i] * a[i];
        }
        for i in 0..n {
            total = total + a[i] * x[i];
        }
        total
    }
}

twice! {
    /// Read, then written in the same trip of an outer loop: the next trip reads new
    /// values.
    fn written_in_a_later_trip / written_in_a_later_trip_on_duals<T>(x: &[T]) -> T {
        let n = x.len();
        let mut a = vec![T::zero(); n];
        for i in 0..n {
            a[i] = x[i] - T::one();
        }
        let mut total = T::zero();
        for _ in 0..3 {
            for i in 0..n {
                total = total + a[i] * a[i];
            }
            for i in 0..n {
                a[i] = a[i] * x[i] + T::one();
            }
        }
        total
    }
}

/// `outᵢ ← outᵢ xᵢ + xᵢ`, in place.
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn scale_of<T: num_traits::Float>(x: &[T], out: &mut [T]) {
    for i in 0..out.len() {
        out[i] = out[i] * x[i] + x[i];
    }
}

twice! {
    /// Read, then written by a writer's `&mut`, then read again.
    fn written_by_a_writer / written_by_a_writer_on_duals<T>(x: &[T]) -> T {
        let n = x.len();
        let mut a = vec![T::zero(); n];
        for i in 0..n {
            a[i] = x[i] * x[i];
        }
        let mut total = T::zero();
        for i in 0..n {
            total = total + a[i] * x[i];
        }
        scale_of(x, &mut a);
        for i in 0..n {
            total = total + a[i] * a[i];
        }
        total
    }
}

twice! {
    /// Read, then swapped with another buffer, then read again.
    fn swapped_after_read / swapped_after_read_on_duals<T>(x: &[T]) -> T {
        let n = x.len();
        let mut a = vec![T::zero(); n];
        let mut b = vec![T::zero(); n];
        for i in 0..n {
            a[i] = x[i] * x[i];
            b[i] = x[i] + T::one();
        }
        let mut total = T::zero();
        for i in 0..n {
            total = total + a[i] * b[i];
        }
        std::mem::swap(&mut a, &mut b);
        for i in 0..n {
            total = total + a[i] * x[i] * b[i];
        }
        total
    }
}

twice! {
    /// A buffer read in place, times a name bound twice: in the loop (the value the read's
    /// product took) and after it at the top. The adjoint must not recompute `b[i] * c`
    /// with the top-level `c`: only a name bound once is read as it is.
    fn constant_name_bound_twice / constant_name_bound_twice_on_duals<T>(x: &[T]) -> T {
        let n = x.len();
        let mut b = vec![T::zero(); n];
        for i in 0..n {
            b[i] = x[i] * x[i];
        }
        let mut total = T::zero();
        for i in 0..n {
            let c = T::from(i + 2).unwrap();
            let t = b[i] * c;
            total = total + t * x[i];
        }
        let c = T::from(7.0).unwrap();
        total * c
    }
}

// ----- the checks -----

/// What `grad_into` saves (by name: `lhs7`, `trips3`), from `f::GENERATED`
/// (`common::saved_names`).
fn grad_into_stacks(code: &str) -> Vec<String> {
    common::saved_names(common::generated_fn(code, "grad_into"))
}

/// Whether `grad_into` saves a value it read per element: a stack other than trip
/// counts and the indices of pushes (`idx`, a write's).
fn saves_per_element(code: &str) -> bool {
    grad_into_stacks(code)
        .iter()
        .any(|name| !name.starts_with("trips") && !name.starts_with("idx"))
}

#[test]
fn stage_arrays_read_in_place() {
    Twice::<8> {
        name: "stages_in_arrays",
        itself: &|p| stages_in_arrays(&p[..4], &p[4..]),
        primal: &|p| stages_in_arrays::primal(&p[..4], &p[4..]),
        grad: &|p| {
            let (value, [dx, dy]) = stages_in_arrays::grad(&p[..4], &p[4..]);
            (value, [dx, dy].concat())
        },
        on_duals: &|d| stages_in_arrays_on_duals(&d[..4], &d[4..]),
    }
    .check([0.7, -0.4, 1.3, 0.9, 0.2, -1.1, 0.6, 1.4]);
    // every stage read in place: nothing saved per element
    assert!(
        !saves_per_element(stages_in_arrays::GENERATED),
        "{:?}",
        grad_into_stacks(stages_in_arrays::GENERATED)
    );
}

#[test]
fn filled_then_read_in_place() {
    one_slice_twice!(prefix_sums_then_reads, prefix_sums_then_reads_on_duals at [0.3, -1.2, 0.8, 1.5, -0.6]
    );
    one_slice_twice!(buffer_reduced, buffer_reduced_on_duals at [0.3, -1.2, 0.8, 1.5]
    );
    one_slice_twice!(fixed_and_pushed, fixed_and_pushed_on_duals at [0.3, -1.2, 0.8, 1.5]
    );
    for code in [
        prefix_sums_then_reads::GENERATED,
        buffer_reduced::GENERATED,
        fixed_and_pushed::GENERATED,
    ] {
        assert!(!saves_per_element(code), "{:?}", grad_into_stacks(code));
    }
}

#[test]
fn written_after_the_read_keeps_saving() {
    let x = [0.3, -1.2, 0.8, 1.5];
    one_slice_twice!(written_after_read, written_after_read_on_duals at x);
    one_slice_twice!(written_in_a_later_trip, written_in_a_later_trip_on_duals at x);
    one_slice_twice!(written_by_a_writer, written_by_a_writer_on_duals at x);
    one_slice_twice!(swapped_after_read, swapped_after_read_on_duals at x);
    one_slice_twice!(constant_name_bound_twice, constant_name_bound_twice_on_duals at x
    );
    for code in [
        written_after_read::GENERATED,
        written_in_a_later_trip::GENERATED,
        written_by_a_writer::GENERATED,
        swapped_after_read::GENERATED,
        constant_name_bound_twice::GENERATED,
    ] {
        assert!(saves_per_element(code), "{:?}", grad_into_stacks(code));
    }
}
