//! Per-thread pools of the small lists a `gradient` call builds (its targets, sources,
//! seeds and results). A training loop takes one gradient per step, and a gradient of a
//! few scalars spent a fifth of its time allocating and freeing these.

use std::cell::RefCell;
use std::ops::{Deref, DerefMut};
use std::thread::LocalKey;

use crate::dtype::AnyTensor;

use super::structure::SourceKey;

/// A pool of emptied `Vec`s of one element type.
pub(crate) type Pool<T> = RefCell<Vec<Vec<T>>>;

/// Keep at most this many spare lists per pool (gradients nest: a custom rule may take one).
const MAX_SPARE: usize = 4;

thread_local! {
    pub(crate) static TENSORS: Pool<AnyTensor> = const { RefCell::new(Vec::new()) };
    pub(crate) static KEYS: Pool<SourceKey> = const { RefCell::new(Vec::new()) };
    pub(crate) static RESULTS: Pool<Option<AnyTensor>> = const { RefCell::new(Vec::new()) };
}

/// An empty `Vec` taken from `pool`, given back (emptied) when dropped.
pub(crate) struct Pooled<T: 'static> {
    vec: Vec<T>,
    pool: &'static LocalKey<Pool<T>>,
}

impl<T: 'static> Pooled<T> {
    /// An empty list from `pool` (or a new one if the pool is empty).
    pub(crate) fn take(pool: &'static LocalKey<Pool<T>>) -> Pooled<T> {
        let vec = pool
            .try_with(|spare| spare.borrow_mut().pop())
            .ok()
            .flatten()
            .unwrap_or_default();
        Pooled { vec, pool }
    }
}

impl<T> Deref for Pooled<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.vec
    }
}

impl<T> DerefMut for Pooled<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.vec
    }
}

impl<T> AsMut<Vec<T>> for Pooled<T> {
    fn as_mut(&mut self) -> &mut Vec<T> {
        &mut self.vec
    }
}

impl<T: 'static> Drop for Pooled<T> {
    fn drop(&mut self) {
        let mut vec = std::mem::take(&mut self.vec);
        if vec.capacity() == 0 {
            return;
        }
        vec.clear();
        // During thread teardown the pool may be gone; then the list just drops.
        let _ = self.pool.try_with(|spare| {
            let mut spare = spare.borrow_mut();
            if spare.len() < MAX_SPARE {
                spare.push(vec);
            }
        });
    }
}
