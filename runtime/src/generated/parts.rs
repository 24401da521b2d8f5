//! The cotangent of another annotated function's tuple result, built from the parts the
//! caller's adjoint has: `let (a, b) = f(..)` and `let r = f(..); r.0` read the parts by
//! field (`value.0`), so the generated code does not know the tuple's length; the pullback's
//! parameter type does, and picks the implementation.

/// A tuple of optional cotangents built from parts: element `k` from `parts[k]` (taken),
/// `None` past the parts' end.
///
/// ```
/// use gradtape_runtime::generated::FromParts;
/// let pair: (Option<f64>, Option<f64>, Option<f64>) =
///     FromParts::from_parts(&mut [Some(1.0), None]);
/// assert_eq!(pair, (Some(1.0), None, None));
/// ```
pub trait FromParts<V>: Sized {
    /// The tuple from `parts`.
    fn from_parts(parts: &mut [Option<V>]) -> Self;
}

fn take<V>(parts: &mut [Option<V>], k: usize) -> Option<V> {
    parts.get_mut(k).and_then(Option::take)
}

macro_rules! from_parts {
    ($($k:tt),+) => {
        impl<V> FromParts<V> for ($(from_parts!(@option $k),)+) {
            #[inline]
            fn from_parts(parts: &mut [Option<V>]) -> Self {
                ($(take(parts, $k),)+)
            }
        }
    };
    (@option $k:tt) => { Option<V> };
}

from_parts!(0);
from_parts!(0, 1);
from_parts!(0, 1, 2);
from_parts!(0, 1, 2, 3);
from_parts!(0, 1, 2, 3, 4);
from_parts!(0, 1, 2, 3, 4, 5);
from_parts!(0, 1, 2, 3, 4, 5, 6);
from_parts!(0, 1, 2, 3, 4, 5, 6, 7);
from_parts!(0, 1, 2, 3, 4, 5, 6, 7, 8);
from_parts!(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
from_parts!(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
from_parts!(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
