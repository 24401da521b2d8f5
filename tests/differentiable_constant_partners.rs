//! A float array's items paired by `zip` with a constant array parameter of another
//! element type: labels (`&[bool]`), counts (`&[usize]`), an owned array of bytes, pairs.
//! The partner's elements are read at the chain's index as the iterator gives them
//! (`&labels[k]`), bound to the user's pattern as written; the loop runs over the shorter
//! length, as `zip` does. Before, "a `for` loop cannot iterate over a differentiable
//! value" answered the ordinary code. Each is checked against dual numbers and central
//! differences at orders 1 and 2 (`with_constant_twice!`). Also `take_while` and
//! `skip_while`, which end or start the items a chain reads.

#[macro_use]
mod common;

use gradtape::differentiable;

twice! {
    /// Binary cross-entropy on logits: the label picks the branch.
    fn logits_cross_entropy / logits_cross_entropy_on_duals<T>(z: &[T], labels: &[bool]) -> T {
        let mut loss = T::zero();
        for (x, &y) in z.iter().zip(labels) {
            let p = T::one() / (T::one() + (-*x).exp());
            loss = loss + if y { -p.ln() } else { -(T::one() - p).ln() };
        }
        loss / T::from(labels.len()).unwrap()
    }
}

twice! {
    /// A masked sum of squares by `map` and `sum`.
    fn masked_squares / masked_squares_on_duals<T>(x: &[T], mask: &[bool]) -> T {
        x.iter()
            .zip(mask.iter())
            .map(|(v, &m)| if m { *v * *v } else { T::zero() })
            .sum()
    }
}

twice! {
    /// The mask as a `filter` reading the partner through the item's reference.
    fn masked_sines / masked_sines_on_duals<T>(x: &[T], mask: &[bool]) -> T {
        x.iter()
            .zip(mask)
            .filter(|(_, m)| **m)
            .map(|(v, _)| v.sin())
            .sum()
    }
}

twice! {
    /// Counts as weights, with the position from an `enumerate` after the `zip`.
    fn weighted_by_counts / weighted_by_counts_on_duals<T>(x: &[T], counts: &[usize]) -> T {
        let mut s = T::zero();
        for (i, (v, c)) in x.iter().zip(counts).enumerate() {
            s = s + *v * *v * T::from(*c + i).unwrap();
        }
        s
    }
}

twice! {
    /// Pairs of a constant and a count, destructured in the loop's pattern.
    fn scaled_pairs / scaled_pairs_on_duals<T>(x: &[T], table: &[(f64, usize)]) -> T {
        let mut s = T::zero();
        for (v, &(c, k)) in x.iter().zip(table) {
            s = s + (*v * T::from(c).unwrap()).exp() * T::from(k).unwrap();
        }
        s
    }
}

/// An owned array of bytes, by value (its `into_iter` gives bytes).
#[differentiable]
fn by_bytes(x: &[f64], ids: [u8; 3]) -> f64 {
    let mut s = 0.0;
    for (v, id) in x.iter().zip(ids) {
        s += v * v * id as f64;
    }
    s
}

#[test]
fn items_paired_with_constant_arrays() {
    let labels = [true, false, true, true];
    with_constant_twice!(logits_cross_entropy, logits_cross_entropy_on_duals, &labels[..], at
        [0.4, -1.1, 0.3, 2.0], [-1.4, 0.2, 0.9, -0.6]);
    with_constant_twice!(masked_squares, masked_squares_on_duals, &labels[..], at
        [0.4, -1.1, 0.3, 2.0], [-1.4, 0.2, 0.9, -0.6]);
    with_constant_twice!(masked_sines, masked_sines_on_duals, &labels[..], at
        [0.4, -1.1, 0.3, 2.0], [-1.4, 0.2, 0.9, -0.6]);
    let counts = [3_usize, 0, 2, 5];
    with_constant_twice!(weighted_by_counts, weighted_by_counts_on_duals, &counts[..], at
        [0.4, -1.1, 0.3, 2.0], [-1.4, 0.2, 0.9, -0.6]);
    let table = [(0.5, 2_usize), (-1.0, 1), (0.25, 3)];
    with_constant_twice!(scaled_pairs, scaled_pairs_on_duals, &table[..], at
        [0.4, -1.1, 0.3], [-1.4, 0.2, 0.9]);
}

#[test]
fn a_shorter_partner_ends_the_loop_as_zip_does() {
    // two labels for four values: the last two values are not read
    let labels = [false, true];
    with_constant_twice!(masked_squares, masked_squares_on_duals, &labels[..], at
        [0.4, -1.1, 0.3, 2.0]);
    let (value, [g]) = masked_squares::grad(&[0.4, -1.1, 0.3, 2.0], &labels);
    assert_eq!(value, 1.1 * 1.1);
    assert_eq!(g, vec![0.0, -2.2, 0.0, 0.0]);
    // and a longer partner: the values end it
    let (value, [g]) = by_bytes::grad(&[0.5, 2.0], [4, 1, 7]);
    assert_eq!(value, by_bytes(&[0.5, 2.0], [4, 1, 7]));
    assert_eq!(value, 0.25 * 4.0 + 4.0);
    assert_eq!(g, vec![4.0, 4.0]);
}

twice! {
    /// `take_while` and `skip_while` before a map and a sum: the prefix of positive values
    /// and what follows the leading negatives.
    fn prefix_and_suffix / prefix_and_suffix_on_duals<T>(x: &[T]) -> T {
        let head: T = x.iter().take_while(|v| **v > T::zero()).map(|v| v.sqrt()).sum();
        let tail: T = x.iter().skip_while(|v| **v < T::zero()).map(|v| *v * *v).sum();
        head + tail
    }
}

twice! {
    /// In `for` loops: `skip_while` tests only until its first failure (a later negative
    /// value is read), `take_while` ends the loop at its first failure.
    fn loops_while / loops_while_on_duals<T>(x: &[T]) -> T {
        let mut s = T::zero();
        for (i, v) in x.iter().enumerate().skip_while(|(_, v)| **v < T::one()) {
            s = s + *v * T::from(i + 1).unwrap();
        }
        for &v in x.iter().take_while(|&&v| v.abs() < T::from(2.0).unwrap()) {
            s = s + v.sin();
        }
        s
    }
}

#[test]
fn take_while_and_skip_while() {
    one_slice_twice!(prefix_and_suffix, prefix_and_suffix_on_duals at
        [0.4, 1.1, -0.3, 2.0], [-1.4, -0.2, 0.9, -0.6], [0.5, 0.7, 0.9]);
    one_slice_twice!(loops_while, loops_while_on_duals at
        [0.4, 1.1, -0.3, 2.5], [-1.4, 0.2, 1.9, -0.6], [0.5, 0.7, 0.9]);
    // every value skipped, none taken: both sums empty
    let (value, [g]) = prefix_and_suffix::grad(&[-1.0, -2.0]);
    assert_eq!(value, prefix_and_suffix(&[-1.0, -2.0]));
    assert_eq!(g, vec![0.0, 0.0]);
}
