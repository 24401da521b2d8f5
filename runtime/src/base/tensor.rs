//! [`Tensor`]: an immutable n-d array with an identity the tape can track.

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use ndarray::{ArrayD, ArrayViewD, Dimension, IxDyn};
use rand::SeedableRng;
use rand_distr::Distribution;

use crate::base::dtype::{DType, Float};

/// A shape: short, so kept inline.
pub(crate) type Dims = smallvec::SmallVec<[usize; 4]>;

/// The identity of one tensor value, shared by its clones and by nothing else.
///
/// Ids of tensors born on a tape encode that tape and the node (see `tape::state`); other
/// ids come from a per-thread counter. The top bit tells the two apart.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct TensorId(pub(crate) u64);

/// Ids with this bit set encode `(tape, node)`; see `tape::state::TapeState::lookup`.
pub(crate) const TAPE_ENCODED_BIT: u64 = 1 << 63;

/// Plain ids are handed out to threads in blocks, so the common case is a thread-local
/// increment rather than an atomic read-modify-write.
const ID_BLOCK: u64 = 1 << 16;
static NEXT_ID_BLOCK: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static ID_RANGE: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

impl TensorId {
    /// A new id that no other tensor has or will have.
    #[inline]
    pub(crate) fn fresh() -> TensorId {
        ID_RANGE.with(|range| {
            let (next, end) = range.get();
            let (next, end) = if next < end {
                (next, end)
            } else {
                let start = NEXT_ID_BLOCK.fetch_add(ID_BLOCK, Ordering::Relaxed);
                (start, start + ID_BLOCK)
            };
            range.set((next + 1, end));
            debug_assert!(next < ARRAY_BIT, "plain tensor ids exhausted");
            TensorId(next)
        })
    }
}

/// Where a tensor's elements live. Scalars are stored inline so that scalar code, the
/// most tape-overhead-sensitive case, allocates nothing per op. Arrays are shared behind an
/// `Arc`; a reshape of a contiguous array shares its elements ([`Stored::Reshaped`])
/// instead of copying them. (Two variants, not three: with a third, the clone and drop
/// glue of every tensor, scalars included, grew enough to cost W2 1–4% more instructions
/// per op.)
///
/// Nothing writes through a shared buffer: the two in-place writers (`owned + y` and a
/// variable's update) write only into a [`Stored::Own`] whose `Arc` is unique
/// (`Arc::get_mut`; a variable copies a shared one first, [`Stored::into_own`]), and a
/// reshape holds a strong count on its base, so neither an array nor any reshape of it is
/// ever unique while the other lives.
#[derive(Clone)]
pub(crate) enum Data<T> {
    Scalar(Word<T>),
    Array(Arc<Stored<T>>),
}

/// An array's elements: its own, or another shape of a contiguous array's.
pub(crate) enum Stored<T> {
    Own(ArrayD<T>),
    Reshaped(Reshaped<T>),
}

/// The elements of a standard-layout array under another shape of the same size, at
/// least 1-d: what a reshape makes, in O(1) instead of a copy.
///
/// Invariants (made by [`Reshaped::new`], the only constructor): `base` is a
/// [`Stored::Own`] in standard layout (so its `as_slice()` is `Some`), and `dim` has as
/// many elements and at least one axis. A reshape of a reshape points at the same base, so
/// reshapes never nest.
pub(crate) struct Reshaped<T> {
    base: Arc<Stored<T>>,
    dim: IxDyn,
}

impl<T> Stored<T> {
    /// The array, when the elements are its own.
    #[inline]
    pub(crate) fn own(&self) -> Option<&ArrayD<T>> {
        match self {
            Stored::Own(a) => Some(a),
            Stored::Reshaped(_) => None,
        }
    }

    /// The array to write into, when the elements are its own.
    #[inline]
    pub(crate) fn own_mut(&mut self) -> Option<&mut ArrayD<T>> {
        match self {
            Stored::Own(a) => Some(a),
            Stored::Reshaped(_) => None,
        }
    }

    /// The shape.
    #[inline]
    pub(crate) fn shape(&self) -> &[usize] {
        match self {
            Stored::Own(a) => a.shape(),
            Stored::Reshaped(r) => r.dim.slice(),
        }
    }

    /// The number of elements.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        match self {
            Stored::Own(a) => a.len(),
            Stored::Reshaped(r) => r.elements().len(),
        }
    }

    /// The elements in row-major order when they are stored so (always for a reshape; for
    /// an array of its own in standard layout).
    #[inline]
    pub(crate) fn as_slice(&self) -> Option<&[T]> {
        match self {
            Stored::Own(a) => a.as_slice(),
            Stored::Reshaped(r) => Some(r.elements()),
        }
    }

    /// The elements as an array view.
    #[inline]
    pub(crate) fn view(&self) -> ArrayViewD<'_, T> {
        match self {
            Stored::Own(a) => a.view(),
            Stored::Reshaped(r) => ArrayViewD::from_shape(r.dim.clone(), r.elements())
                .expect("a reshape has its base's number of elements"),
        }
    }

    /// What a probe of the element storage watches: the array itself, or a reshape's base.
    pub(crate) fn storage(this: &Arc<Stored<T>>) -> &Arc<Stored<T>> {
        match &**this {
            Stored::Own(_) => this,
            Stored::Reshaped(r) => &r.base,
        }
    }
}

impl<T: Clone> Stored<T> {
    /// An owned array of these elements and shape: the buffer itself when nothing else
    /// holds it (a reshape's base included), else a copy (of the same layout for an array
    /// of its own).
    pub(crate) fn into_own(this: Arc<Stored<T>>) -> ArrayD<T> {
        let stored = Arc::try_unwrap(this).unwrap_or_else(|shared| match &*shared {
            Stored::Own(a) => Stored::Own(a.clone()),
            Stored::Reshaped(r) => Stored::Reshaped(Reshaped {
                base: Arc::clone(&r.base),
                dim: r.dim.clone(),
            }),
        });
        match stored {
            Stored::Own(a) => a,
            Stored::Reshaped(Reshaped { base, dim }) => Stored::into_own(base)
                .into_shape_with_order(dim)
                .expect("a reshape's base is in standard layout with as many elements"),
        }
    }
}

impl<T> Reshaped<T> {
    /// The elements of `stored` (an array of its own or a reshape, whose base is then
    /// shared) under `shape`; `None` when they are not in standard layout (then they must
    /// be copied into the new order).
    ///
    /// # Panics
    /// If `shape` has no axes or another number of elements (the caller checked both).
    pub(crate) fn new(stored: &Arc<Stored<T>>, shape: &[usize]) -> Option<Reshaped<T>> {
        assert!(
            !shape.is_empty() && shape.iter().product::<usize>() == stored.len(),
            "gradtape internal: reshape of {:?} to {shape:?}",
            stored.shape()
        );
        let base = Stored::storage(stored);
        base.own()?.as_slice()?;
        Some(Reshaped {
            base: Arc::clone(base),
            dim: IxDyn(shape),
        })
    }

    /// The elements in row-major order.
    fn elements(&self) -> &[T] {
        self.base
            .own()
            .and_then(|a| a.as_slice())
            .expect("a reshape's base is an array of its own in standard layout")
    }
}

/// A 0-d value in a full 64-bit word: its bytes first, then zeros. Both variants of
/// [`Data`] then hold one word, and the compiler keeps a `Data` in two registers (a tag and
/// the word) between computing an op and recording it, instead of writing it in two
/// narrow stores and reading it back with one wide load (a store-forwarding stall per op;
/// docs/PERFORMANCE.md, "Store forwarding").
///
/// The field is private to this module, so every `Word<T>` comes from [`Word::new`] and
/// holds a valid `T` at its start; `as_mut` writes only `T`s there.
///
/// Transparent, so that a tensor holds it as a plain `u64` (see [`Tensor`]).
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(crate) struct Word<T>(u64, PhantomData<fn() -> T>);

impl<T: DType> Word<T> {
    #[inline(always)]
    pub(crate) fn new(value: T) -> Word<T> {
        const {
            assert!(size_of::<T>() <= size_of::<u64>() && align_of::<T>() <= align_of::<u64>());
        }
        let mut word = 0_u64;
        // SAFETY: `T` is no larger and no more aligned than `u64` (checked at compile time
        // above), so writing one `T` at the start of the aligned, initialised `word` stays
        // inside it; `T: Copy`, so nothing is leaked or dropped.
        unsafe { std::ptr::write((&raw mut word).cast::<T>(), value) };
        Word(word, PhantomData)
    }

    #[inline(always)]
    pub(crate) fn get(self) -> T {
        *self.as_ref()
    }

    /// The value in place (a 0-d tensor's `view` borrows it).
    #[inline(always)]
    pub(crate) fn as_ref(&self) -> &T {
        // SAFETY: the word starts with a valid `T` (see the type's docs), fits one (checked
        // in `new`), and is borrowed for as long as the returned reference.
        unsafe { &*(&raw const self.0).cast::<T>() }
    }

    /// The value in place, for an update of a 0-d variable.
    #[inline(always)]
    pub(crate) fn as_mut(&mut self) -> &mut T {
        // SAFETY: as for `as_ref`; through `&mut T` only a valid `T` can be written back,
        // so the word still starts with one afterwards.
        unsafe { &mut *(&raw mut self.0).cast::<T>() }
    }
}

impl<T: DType> Data<T> {
    /// The 0-d value `value`.
    #[inline(always)]
    pub(crate) fn scalar(value: T) -> Data<T> {
        Data::Scalar(Word::new(value))
    }

    /// Stores a 0-d array inline, anything else behind an `Arc`.
    pub(crate) fn from_array(array: ArrayD<T>) -> Data<T> {
        if array.ndim() == 0 {
            Data::scalar(*array.first().expect("a 0-d array has one element"))
        } else {
            crate::base::alloc::note_array::<T>(array.len());
            Data::Array(Arc::new(Stored::Own(array)))
        }
    }

    /// The elements `values`, in row-major order, with shape `dim` (whose size they must
    /// match): 0-d inline, others through [`array_from_vec`].
    #[inline]
    pub(crate) fn from_vec(dim: IxDyn, values: Vec<T>) -> Data<T> {
        if dim.ndim() == 0 {
            Data::scalar(values[0])
        } else {
            crate::base::alloc::note_array::<T>(values.len());
            Data::Array(Arc::new(Stored::Own(array_from_vec(dim, values))))
        }
    }

    /// `value` repeated over `shape`: one buffer, filled in one pass.
    ///
    /// # Panics
    /// Naming `op` and the shape, if it has more elements than a tensor can hold.
    #[inline]
    #[track_caller]
    pub(crate) fn filled(op: &str, shape: &[usize], value: T) -> Data<T> {
        if shape.is_empty() {
            return Data::scalar(value);
        }
        let len = checked_len::<T>(op, shape);
        crate::base::alloc::note_array::<T>(len);
        Data::Array(Arc::new(Stored::Own(array_from_vec(
            IxDyn(shape),
            vec![value; len],
        ))))
    }
}

/// An array of shape `dim` holding `values` in row-major order; their count must be the
/// size of `dim`. Rank 1, the common small case, skips `from_shape_vec`'s general stride
/// and overflow checks, which cost more than the rest of building a small tensor.
#[inline]
pub(crate) fn array_from_vec<T>(dim: IxDyn, values: Vec<T>) -> ArrayD<T> {
    debug_assert_eq!(dim.size(), values.len(), "array_from_vec: size mismatch");
    if dim.ndim() == 1 {
        return ndarray::Array1::from_vec(values).into_dyn();
    }
    ArrayD::from_shape_vec(dim, values).expect("one element per position")
}

/// The most elements a tensor of `T` can hold: an allocation may not exceed `isize::MAX`
/// bytes (and ndarray limits a shape's product to it).
fn max_len<T>() -> usize {
    isize::MAX as usize / std::mem::size_of::<T>().max(1)
}

/// The number of elements of `shape`, checked: a product that overflowed would wrap to a
/// small number, which a short buffer could match.
///
/// # Panics
/// Naming `op` and the shape, if the product is more elements than a tensor can hold.
#[track_caller]
pub(crate) fn checked_len<T>(op: &str, shape: &[usize]) -> usize {
    let len = shape.iter().try_fold(1_usize, |n, &d| n.checked_mul(d));
    // (a `match`, not `unwrap_or_else`: a closure would be the reported caller)
    match len.filter(|&n| n <= max_len::<T>()) {
        Some(len) => len,
        None => panic!("{op}: shape {shape:?} has more elements than a tensor can hold"),
    }
}

/// `f` over every element of `a`: a slice loop when `a` is in standard layout, `mapv`
/// otherwise (which keeps the layout: a transposed result stays transposed).
#[inline]
pub(crate) fn map_array<T: DType, U: DType, S: ndarray::Data<Elem = T>>(
    a: &ndarray::ArrayBase<S, IxDyn>,
    f: impl Fn(T) -> U + Sync,
) -> Data<U> {
    match a.as_slice() {
        Some(values) => Data::from_vec(a.raw_dim(), map_slice(values, f)),
        None => Data::from_array(a.mapv(f)),
    }
}

/// [`map_array`] for an `f` that vectorises (branch-free, and the same bits in every
/// instruction set): the slice loop is compiled for the best instruction set the CPU has
/// (`parallel::map_collect_vectorised`).
#[inline]
pub(crate) fn map_array_vectorised<T: DType, S: ndarray::Data<Elem = T>>(
    a: &ndarray::ArrayBase<S, IxDyn>,
    f: impl Fn(T) -> T + Sync,
) -> Data<T> {
    match a.as_slice() {
        Some(values) => Data::from_vec(
            a.raw_dim(),
            crate::base::parallel::map_collect_vectorised(values, |&v| f(v)),
        ),
        None => Data::from_array(a.mapv(f)),
    }
}

/// `f` over contiguous `values`, collected: a plain slice loop the compiler vectorises,
/// over two threads for a long slice (`parallel::map_collect`).
#[inline]
pub(crate) fn map_slice<T: Copy + Sync, U: Send>(
    values: &[T],
    f: impl Fn(T) -> U + Sync,
) -> Vec<U> {
    crate::base::parallel::map_collect(values, |&v| f(v))
}

/// An immutable n-dimensional array of `T`, cheap to clone (clones share storage and
/// identity), which a [`GradientTape`](crate::GradientTape) can record operations on.
///
/// Differentiable for `T = f32` or `f64`; `i32`, `i64`, `u8` and `bool` tensors hold data
/// and labels and can never be differentiated (a compile error, see [`Float`]).
///
/// ```
/// use gradtape_runtime::Tensor;
/// let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[2, 2]);
/// let y = &x * 2.0 + 1.0;
/// assert_eq!(y.shape(), &[2, 2]);
/// assert_eq!(y.to_vec(), vec![3.0, 5.0, 7.0, 9.0]);
/// assert_eq!(Tensor::scalar(6.0_f32).to_string(), "Tensor(6.0, shape=[], dtype=f32)");
/// ```
pub struct Tensor<T: DType> {
    /// The id's bits, with [`ARRAY_BIT`] set when `word` holds an array.
    tagged_id: u64,
    /// With [`ARRAY_BIT`] clear in `tagged_id`: the bits of a [`Word<T>`], the 0-d value.
    /// With it set: the exposed address of an `Arc<Stored<T>>` (`Arc::into_raw`) of which
    /// this tensor owns one strong count, taken when it was made or cloned and given back
    /// when it drops.
    word: u64,
    /// The `Arc` that `word` may hold, for the auto traits (`Send`, `Sync`) and drop check.
    owns: PhantomData<Arc<Stored<T>>>,
}

/// Set in a tensor's `tagged_id` when it holds an array. No [`TensorId`] has it: plain ids
/// stay below it (`TensorId::fresh`), and a tape's encoded ids leave it clear
/// (`record::state`).
///
/// Why a tensor is two words, the kind folded into the id: a `Tensor` of an id and a
/// [`Data`] took three words, which Rust returns through memory, and every op's 0-d output
/// was written there in narrow stores and copied on with a wide load, a store-forwarding
/// stall per op (docs/PERFORMANCE.md); two integer words are returned in two registers.
pub(crate) const ARRAY_BIT: u64 = 1 << 62;

impl<T: DType> Clone for Tensor<T> {
    #[inline(always)]
    fn clone(&self) -> Tensor<T> {
        if self.is_array() {
            // SAFETY: `word` is the address of a live `Arc` allocation of which this tensor
            // owns a count (the invariant of `word`), so incrementing its count is valid; the
            // clone owns the new count.
            unsafe { Arc::increment_strong_count(self.array_ptr()) };
        }
        Tensor {
            tagged_id: self.tagged_id,
            word: self.word,
            owns: PhantomData,
        }
    }
}

impl<T: DType> Drop for Tensor<T> {
    #[inline(always)]
    fn drop(&mut self) {
        if self.is_array() {
            // SAFETY: `word` came from `Arc::into_raw` and this tensor owns one count of it
            // (the invariant of `word`), which it gives back here, once: the tensor is gone.
            drop(unsafe { Arc::from_raw(self.array_ptr()) });
        }
    }
}

/// A tensor's elements, borrowed: [`Tensor::data`].
pub(crate) enum DataRef<'a, T> {
    Scalar(&'a Word<T>),
    Array(&'a Stored<T>),
}

impl<'a, T: DType> DataRef<'a, T> {
    /// The elements in row-major order when they are stored so (always for a 0-d value and
    /// a [`Reshaped`]; for an array in standard layout).
    #[inline]
    pub(crate) fn as_slice(&self) -> Option<&'a [T]> {
        match *self {
            DataRef::Scalar(v) => Some(std::slice::from_ref(v.as_ref())),
            DataRef::Array(a) => a.as_slice(),
        }
    }
}

impl<T: DType> Tensor<T> {
    /// Wraps computed data under a new identity (a constant as far as any tape knows).
    #[inline]
    pub(crate) fn from_data(data: Data<T>) -> Tensor<T> {
        Tensor::with_id(TensorId::fresh(), data)
    }

    /// Wraps data under an identity the tape chose for it.
    #[inline(always)]
    pub(crate) fn with_id(id: TensorId, data: Data<T>) -> Tensor<T> {
        debug_assert!(id.0 & ARRAY_BIT == 0, "a tensor id never has ARRAY_BIT");
        match data {
            Data::Scalar(value) => Tensor {
                tagged_id: id.0,
                word: value.0,
                owns: PhantomData,
            },
            Data::Array(array) => Tensor {
                tagged_id: id.0 | ARRAY_BIT,
                // the count `array` held passes to the tensor
                word: Arc::into_raw(array).expose_provenance() as u64,
                owns: PhantomData,
            },
        }
    }

    /// Whether `word` holds an array (else a 0-d value).
    #[inline(always)]
    fn is_array(&self) -> bool {
        self.tagged_id & ARRAY_BIT != 0
    }

    /// The array's address, when `word` holds one.
    #[inline(always)]
    fn array_ptr(&self) -> *const Stored<T> {
        debug_assert!(self.is_array());
        // (an address on a 64-bit target, so the cast is exact there; on a 32-bit one it
        // was widened from a `usize` in `with_id`, and narrows back losslessly)
        std::ptr::with_exposed_provenance(self.word as usize)
    }

    /// The elements, borrowed.
    #[inline(always)]
    pub(crate) fn data(&self) -> DataRef<'_, T> {
        if self.is_array() {
            // SAFETY: the allocation is live while this tensor owns its count (the
            // invariant of `word`), and the tensor is borrowed for the reference's life;
            // nothing writes through a shared array (see `Data`).
            DataRef::Array(unsafe { &*self.array_ptr() })
        } else {
            // SAFETY: `Word<T>` is a transparent `u64` and `word` holds a `Word<T>`'s bits
            // (the invariant of `word`), so this is a valid `Word<T>`, borrowed with `self`.
            DataRef::Scalar(unsafe { &*(&raw const self.word).cast::<Word<T>>() })
        }
    }

    /// The elements, owned: the tensor's identity is dropped, its storage kept.
    #[inline(always)]
    pub(crate) fn into_data(self) -> Data<T> {
        let this = std::mem::ManuallyDrop::new(self);
        if this.is_array() {
            // SAFETY: the tensor's count passes to the returned `Arc` (`this` is never
            // dropped, so the count is not given back twice).
            Data::Array(unsafe { Arc::from_raw(this.array_ptr()) })
        } else {
            Data::Scalar(Word(this.word, PhantomData))
        }
    }

    /// The elements, as a new handle (an array's storage shared).
    #[inline]
    pub(crate) fn data_clone(&self) -> Data<T> {
        self.clone().into_data()
    }

    /// The array's storage, shared, when this is not 0-d.
    pub(crate) fn shared_array(&self) -> Option<Arc<Stored<T>>> {
        match self.data_clone() {
            Data::Array(array) => Some(array),
            Data::Scalar(_) => None,
        }
    }

    /// The array's storage to write into, when no other handle (tensor, reshape or probe)
    /// holds it: the condition under which `Arc::get_mut` gives it.
    pub(crate) fn unique_array_mut(&mut self) -> Option<&mut Stored<T>> {
        if !self.is_array() {
            return None;
        }
        // SAFETY: `word` came from `Arc::into_raw` (the invariant of `word`); the `Arc`
        // rebuilt here is never dropped, so this tensor's count stays as it was.
        let mut array = std::mem::ManuallyDrop::new(unsafe { Arc::from_raw(self.array_ptr()) });
        let stored: *mut Stored<T> = Arc::get_mut(&mut array)?;
        // SAFETY: `get_mut` found this the only handle to the allocation, which lives while
        // this tensor does; borrowing the tensor mutably for the reference's life keeps any
        // other handle from being made (cloning needs the tensor), so the access is unique.
        Some(unsafe { &mut *stored })
    }

    /// The elements to write into, in place: made the tensor's own first, a copy when
    /// another handle shares them or they are a reshape's (a variable's update). The
    /// identity is kept.
    pub(crate) fn elements_mut(&mut self) -> ndarray::ArrayViewMutD<'_, T> {
        if !self.is_array() {
            // SAFETY: as in `data`, mutably: through `&mut T` only a valid `T` is written,
            // so `word` still holds a `Word<T>`'s bits afterwards.
            let word = unsafe { &mut *(&raw mut self.word).cast::<Word<T>>() };
            return ndarray::ArrayViewMut::from(std::slice::from_mut(word.as_mut()))
                .into_shape_with_order(IxDyn(&[]))
                .expect("one element is a 0-d array");
        }
        if self.unique_array_mut().and_then(Stored::own_mut).is_none() {
            // The `Arc` moved out, not cloned, so that `into_own` takes a reshape's base
            // itself when nothing else holds it.
            let id = self.id();
            let taken = std::mem::replace(self, Tensor::with_id(id, Data::scalar(T::ZERO)));
            let Data::Array(array) = taken.into_data() else {
                unreachable!("an array, checked above")
            };
            *self = Tensor::with_id(
                id,
                Data::Array(Arc::new(Stored::Own(Stored::into_own(array)))),
            );
        }
        self.unique_array_mut()
            .and_then(Stored::own_mut)
            .expect("made unique above")
            .view_mut()
    }

    /// Whether the tensor has shape `shape`: a cheaper test than comparing `shape()` with
    /// `==`, which calls `memcmp` even for a 0-d shape.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let x = Tensor::<f32>::zeros(&[2, 3]);
    /// assert!(x.has_shape(&[2, 3]));
    /// assert!(!x.has_shape(&[3, 2]));
    /// ```
    #[inline]
    pub fn has_shape(&self, shape: &[usize]) -> bool {
        same_shape(self.shape(), shape)
    }

    /// This value's identity on the tape.
    #[inline]
    pub(crate) fn id(&self) -> TensorId {
        TensorId(self.tagged_id & !ARRAY_BIT)
    }

    /// A 0-d tensor holding `value`.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let t = Tensor::scalar(2.5_f64);
    /// assert_eq!(t.shape(), &[] as &[usize]);
    /// assert_eq!(t.to_scalar(), 2.5);
    /// ```
    #[inline]
    pub fn scalar(value: T) -> Tensor<T> {
        Tensor::from_data(Data::scalar(value))
    }

    /// A tensor of `shape` whose elements, in row-major order, are `data`.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let t = Tensor::from_vec(vec![1_i64, 2, 3, 4, 5, 6], &[2, 3]);
    /// assert_eq!(t.shape(), &[2, 3]);
    /// ```
    ///
    /// # Panics
    /// If `data.len()` is not the product of `shape`, or that product is more elements than
    /// a tensor can hold.
    #[track_caller]
    pub fn from_vec(data: Vec<T>, shape: &[usize]) -> Tensor<T> {
        let expected = checked_len::<T>("Tensor::from_vec", shape);
        assert!(
            data.len() == expected,
            "Tensor::from_vec: {} elements cannot have shape {:?} ({} elements)",
            data.len(),
            shape,
            expected
        );
        let t = Tensor::from_data(Data::from_vec(IxDyn(shape), data));
        crate::base::cuts::note_import(t.id(), t.view().iter().copied(), t.len());
        t
    }

    /// A tensor of `shape` filled with `value`.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::full(&[2], 7_u8).to_vec(), vec![7, 7]);
    /// ```
    ///
    /// # Panics
    /// If the product of `shape` is more elements than a tensor can hold (it overflows
    /// `usize`, or the buffer would exceed `isize::MAX` bytes), naming the shape.
    #[track_caller]
    pub fn full(shape: &[usize], value: T) -> Tensor<T> {
        Tensor::filled("Tensor::full", shape, value)
    }

    /// A tensor of `shape` filled with zeros (`false` for `bool`).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::<f32>::zeros(&[3]).to_vec(), vec![0.0; 3]);
    /// ```
    ///
    /// # Panics
    /// As [`Tensor::full`].
    #[track_caller]
    pub fn zeros(shape: &[usize]) -> Tensor<T> {
        Tensor::filled("Tensor::zeros", shape, T::ZERO)
    }

    /// A tensor of `shape` filled with ones (`true` for `bool`).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::<f64>::ones(&[2, 1]).to_vec(), vec![1.0, 1.0]);
    /// ```
    ///
    /// # Panics
    /// As [`Tensor::full`].
    #[track_caller]
    pub fn ones(shape: &[usize]) -> Tensor<T> {
        Tensor::filled("Tensor::ones", shape, T::ONE)
    }

    /// [`Tensor::full`], its panic naming the constructor `op`.
    #[track_caller]
    fn filled(op: &str, shape: &[usize], value: T) -> Tensor<T> {
        if shape.is_empty() {
            return Tensor::scalar(value);
        }
        Tensor::from_data(Data::filled(op, shape, value))
    }

    /// The tensor's shape; empty for a scalar.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::<f32>::zeros(&[4, 2]).shape(), &[4, 2]);
    /// ```
    #[inline]
    pub fn shape(&self) -> &[usize] {
        match self.data() {
            DataRef::Scalar(_) => &[],
            DataRef::Array(a) => a.shape(),
        }
    }

    /// The number of axes (0 for a scalar).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::<f32>::zeros(&[4, 2]).rank(), 2);
    /// ```
    #[inline]
    pub fn rank(&self) -> usize {
        self.shape().len()
    }

    /// The number of elements.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::<f32>::zeros(&[4, 2]).len(), 8);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        match self.data() {
            DataRef::Scalar(_) => 1,
            DataRef::Array(a) => a.len(),
        }
    }

    /// Whether the tensor has no elements (some axis has length 0).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert!(Tensor::<f32>::zeros(&[0, 3]).is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The dtype's name, e.g. `"f32"`.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::scalar(true).dtype(), "bool");
    /// ```
    pub fn dtype(&self) -> &'static str {
        T::NAME
    }

    /// A read-only ndarray view of the elements.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let t = Tensor::from_vec(vec![1.0_f32, 2.0], &[2]);
    /// assert_eq!(t.view()[[1]], 2.0);
    /// ```
    pub fn view(&self) -> ArrayViewD<'_, T> {
        match self.data() {
            // `aview0` skips `from_shape`'s checks, which cost more than a scalar op.
            DataRef::Scalar(v) => ndarray::aview0(v.as_ref()).into_dyn(),
            DataRef::Array(a) => a.view(),
        }
    }

    /// The elements in row-major order. The values leave the library: a tensor built from
    /// them again is a constant to every tape, as in TensorFlow.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let t = Tensor::from_vec(vec![1_i32, 2, 3, 4], &[2, 2]);
    /// assert_eq!(t.to_vec(), vec![1, 2, 3, 4]);
    /// ```
    pub fn to_vec(&self) -> Vec<T> {
        crate::base::cuts::note_export(self.id(), self.view().iter().copied(), self.len());
        match self.data() {
            DataRef::Scalar(v) => vec![v.get()],
            DataRef::Array(a) => match a.as_slice() {
                Some(values) => values.to_vec(),
                None => a.view().iter().copied().collect(),
            },
        }
    }

    /// The single element of a tensor with one element (of any rank).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::from_vec(vec![4.0_f32], &[1, 1]).to_scalar(), 4.0);
    /// ```
    ///
    /// # Panics
    /// If the tensor does not have exactly one element.
    #[track_caller]
    #[inline]
    pub fn to_scalar(&self) -> T {
        if let DataRef::Scalar(v) = self.data() {
            return v.get();
        }
        self.array_to_scalar()
    }

    /// [`to_scalar`](Self::to_scalar) of an array: out of line, so that a 0-d value's
    /// read inlines to a load in the caller.
    #[track_caller]
    #[inline(never)]
    fn array_to_scalar(&self) -> T {
        assert!(
            self.len() == 1,
            "to_scalar: tensor of shape {:?} has {} elements, not 1",
            self.shape(),
            self.len()
        );
        *self.view().iter().next().expect("one element")
    }

    /// The elements as an owned ndarray array (copied; the tensor is unchanged).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let a = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]).to_ndarray();
    /// assert_eq!(a, ndarray::arr1(&[1.0, 2.0]).into_dyn());
    /// ```
    pub fn to_ndarray(&self) -> ArrayD<T> {
        crate::base::cuts::note_export(self.id(), self.view().iter().copied(), self.len());
        self.view().to_owned()
    }

    /// The inline scalar, if this tensor is 0-d.
    #[inline]
    pub(crate) fn as_inline_scalar(&self) -> Option<T> {
        match self.data() {
            DataRef::Scalar(v) => Some(v.get()),
            DataRef::Array(_) => None,
        }
    }

    /// A probe that tells whether this tensor's element storage is still alive, i.e. held
    /// by some tensor (a user's, or a value a tape saved for its backward rule). Holds no
    /// storage itself. Scalars are stored inline, so their probe always reports `false`.
    /// For tests of the tape's memory behaviour; not part of the stable API.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let t = Tensor::<f32>::zeros(&[1000]);
    /// let alive = t.storage_probe();
    /// let copy = t.clone();
    /// drop(t);
    /// assert!(alive()); // `copy` shares the storage
    /// drop(copy);
    /// assert!(!alive());
    /// ```
    #[doc(hidden)]
    pub fn storage_probe(&self) -> impl Fn() -> bool + Send + Sync + use<T> {
        // a reshape's elements are its base's
        let weak = self
            .shared_array()
            .map(|array| Arc::downgrade(Stored::storage(&array)));
        move || weak.as_ref().is_some_and(|w| w.strong_count() > 0)
    }

    /// Applies `scalar` to a 0-d tensor's value and `element` to each element of an array
    /// (`element` vectorises: [`map_array_vectorised`]); not recorded on any tape. For the
    /// ops whose arrays have a kernel of their own (`exp`).
    #[inline]
    pub(crate) fn map_data_vectorised(
        &self,
        scalar: impl Fn(T) -> T,
        element: impl Fn(T) -> T + Sync,
    ) -> Data<T> {
        match self.data() {
            DataRef::Scalar(v) => Data::scalar(scalar(v.get())),
            DataRef::Array(a) => map_stored_vectorised(a, element),
        }
    }

    /// Applies `f` to every element; not recorded on any tape (used for constant masks and
    /// by recordable ops for their forward values).
    #[inline]
    pub(crate) fn map_data<U: DType>(&self, f: impl Fn(T) -> U + Sync) -> Data<U> {
        match self.data() {
            DataRef::Scalar(v) => Data::scalar(f(v.get())),
            DataRef::Array(a) => map_stored(a, f),
        }
    }
}

/// [`Tensor::map_data`] of an array. Out of line, so that an op on a 0-d value, which
/// inlines into its caller, does not carry the array loop with it.
#[inline(never)]
fn map_stored<T: DType, U: DType>(a: &Stored<T>, f: impl Fn(T) -> U + Sync) -> Data<U> {
    match a {
        Stored::Own(a) => map_array(a, f),
        Stored::Reshaped(_) => map_array(&a.view(), f),
    }
}

/// [`Tensor::map_data_vectorised`] of an array (out of line, as [`map_stored`]).
#[inline(never)]
fn map_stored_vectorised<T: DType>(a: &Stored<T>, element: impl Fn(T) -> T + Sync) -> Data<T> {
    match a {
        Stored::Own(a) => map_array_vectorised(a, element),
        Stored::Reshaped(_) => map_array_vectorised(&a.view(), element),
    }
}

impl<T: Float> Tensor<T> {
    /// `num` evenly spaced values from `start` to `end`, both included (NumPy's `linspace`).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::linspace(0.0_f32, 1.0, 5).to_vec(), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    /// ```
    pub fn linspace(start: T, end: T, num: usize) -> Tensor<T> {
        let step = if num > 1 {
            (end - start) / T::from_f64((num - 1) as f64)
        } else {
            T::zero()
        };
        let data = (0..num)
            .map(|i| {
                if i + 1 == num && num > 1 {
                    end
                } else {
                    start + step * T::from_f64(i as f64)
                }
            })
            .collect();
        Tensor::from_vec(data, &[num])
    }

    /// Values `start, start + step, …` below `end` (NumPy's `arange`).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// assert_eq!(Tensor::arange(0.0_f64, 2.0, 0.5).to_vec(), vec![0.0, 0.5, 1.0, 1.5]);
    /// ```
    ///
    /// # Panics
    /// If `step` is zero or not finite, `start` or `end` is not finite, or the range has
    /// more elements than a tensor can hold.
    #[track_caller]
    pub fn arange(start: T, end: T, step: T) -> Tensor<T> {
        assert!(
            step != T::zero() && step.is_finite(),
            "Tensor::arange: step must be finite and non-zero, got {step}"
        );
        assert!(
            start.is_finite() && end.is_finite(),
            "Tensor::arange: start {start} and end {end} must be finite"
        );
        let count = ((end - start) / step).ceil().to_f64().max(0.0);
        // (`as usize` would saturate, and the allocation fail far from here)
        assert!(
            count <= max_len::<T>() as f64,
            "Tensor::arange: [{start}, {end}) with step {step} has {count} elements, more \
             than a tensor can hold"
        );
        let count = count as usize;
        let data = (0..count)
            .map(|i| start + step * T::from_f64(i as f64))
            .collect();
        Tensor::from_vec(data, &[count])
    }

    /// Samples from a normal distribution with the given mean and standard deviation,
    /// reproducibly for a given `seed`.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let a = Tensor::<f32>::random_normal(&[3, 2], 0.0, 1.0, 42);
    /// assert_eq!(a.to_vec(), Tensor::<f32>::random_normal(&[3, 2], 0.0, 1.0, 42).to_vec());
    /// ```
    ///
    /// # Panics
    /// If `std` is negative or not finite.
    #[track_caller]
    pub fn random_normal(shape: &[usize], mean: T, std: T, seed: u64) -> Tensor<T> {
        assert!(
            std >= T::zero() && std.is_finite(),
            "Tensor::random_normal: the standard deviation must be finite and non-negative, got {std}"
        );
        let normal =
            rand_distr::Normal::new(mean.to_f64(), std.to_f64()).expect("std checked above");
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let len = checked_len::<T>("Tensor::random_normal", shape);
        let data = (0..len)
            .map(|_| T::from_f64(normal.sample(&mut rng)))
            .collect();
        Tensor::from_vec(data, shape)
    }

    /// Samples uniformly from `[low, high)`, reproducibly for a given `seed`.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let u = Tensor::<f64>::random_uniform(&[100], -1.0, 1.0, 7);
    /// assert!(u.to_vec().iter().all(|v| (-1.0..1.0).contains(v)));
    /// ```
    ///
    /// # Panics
    /// If `low >= high` or either is not finite.
    #[track_caller]
    pub fn random_uniform(shape: &[usize], low: T, high: T, seed: u64) -> Tensor<T> {
        assert!(
            low < high && low.is_finite() && high.is_finite(),
            "Tensor::random_uniform: need finite low < high, got [{low}, {high})"
        );
        let uniform =
            rand_distr::Uniform::new(low.to_f64(), high.to_f64()).expect("bounds checked above");
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let len = checked_len::<T>("Tensor::random_uniform", shape);
        let data = (0..len)
            .map(|_| {
                // Rounding to f32 can land exactly on `high`; keep the interval half-open.
                let v = T::from_f64(uniform.sample(&mut rng));
                if v < high { v } else { low }
            })
            .collect();
        Tensor::from_vec(data, shape)
    }
}

impl<T: DType, D: Dimension> From<ndarray::Array<T, D>> for Tensor<T> {
    /// Takes ownership of an ndarray array without copying its elements.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let t = Tensor::from(ndarray::arr2(&[[1.0_f32, 2.0], [3.0, 4.0]]));
    /// assert_eq!(t.shape(), &[2, 2]);
    /// ```
    fn from(array: ndarray::Array<T, D>) -> Tensor<T> {
        if array.ndim() == 0 {
            // one element: nothing for `note_import` to match, and no `IxDyn` to build
            return Tensor::scalar(*array.first().expect("a 0-d array has one element"));
        }
        let t = Tensor::from_data(Data::from_array(array.into_dyn()));
        crate::base::cuts::note_import(t.id(), t.view().iter().copied(), t.len());
        t
    }
}

impl<T: DType> From<Tensor<T>> for ArrayD<T> {
    /// Moves the elements out when this is the only handle to them, copies otherwise.
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let a: ndarray::ArrayD<f32> = Tensor::from_vec(vec![1.0, 2.0], &[2]).into();
    /// assert_eq!(a.shape(), &[2]);
    /// ```
    fn from(t: Tensor<T>) -> ArrayD<T> {
        match t.into_data() {
            Data::Scalar(v) => ArrayD::from_elem(IxDyn(&[]), v.get()),
            Data::Array(a) => Stored::into_own(a),
        }
    }
}

/// Prints like TensorFlow's `tf.Tensor(6.0, shape=(), dtype=float32)`, in Rust words:
/// `Tensor(6.0, shape=[], dtype=f32)`. Large tensors are summarised with `...`.
impl<T: DType> fmt::Display for Tensor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tensor(")?;
        write_nested(f, &self.view())?;
        write!(f, ", shape={:?}, dtype={})", self.shape(), T::NAME)
    }
}

impl<T: DType> fmt::Debug for Tensor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Above this many elements, `Display` shows the first and last few of each axis.
const SUMMARY_THRESHOLD: usize = 1000;
const SUMMARY_EDGE: usize = 3;

fn write_nested<T: DType>(f: &mut fmt::Formatter<'_>, view: &ArrayViewD<'_, T>) -> fmt::Result {
    let summarise = view.len() > SUMMARY_THRESHOLD;
    write_axis(f, view, summarise)
}

fn write_axis<T: DType>(
    f: &mut fmt::Formatter<'_>,
    view: &ArrayViewD<'_, T>,
    summarise: bool,
) -> fmt::Result {
    if view.ndim() == 0 {
        return write!(f, "{:?}", view.first().expect("0-d view has one element"));
    }
    let len = view.len_of(ndarray::Axis(0));
    write!(f, "[")?;
    let mut first = true;
    for i in 0..len {
        if summarise && len > 2 * SUMMARY_EDGE && i == SUMMARY_EDGE {
            write!(f, ", ...")?;
        }
        if summarise && len > 2 * SUMMARY_EDGE && (SUMMARY_EDGE..len - SUMMARY_EDGE).contains(&i) {
            continue;
        }
        if !first {
            write!(f, ", ")?;
        }
        first = false;
        write_axis(f, &view.index_axis(ndarray::Axis(0), i), summarise)?;
    }
    write!(f, "]")
}

/// Whether two shapes are equal. Slice `==` calls `memcmp` even for empty (0-d) shapes,
/// which costs more than a whole scalar op on the tape; this loop does not.
#[inline]
pub(crate) fn same_shape(a: &[usize], b: &[usize]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p == q)
}

#[cfg(test)]
mod tests {
    use super::Word;
    use crate::base::dtype::DType;

    /// Every bit pattern a dtype's edge values have survives the trip through a word, read
    /// by value and in place, and an in-place write is read back.
    fn round_trips<T: DType>(values: &[T], write: T) {
        for &v in values {
            let mut word = Word::new(v);
            assert_eq!(format!("{:?}", word.get()), format!("{v:?}"));
            assert_eq!(format!("{:?}", *word.as_ref()), format!("{v:?}"));
            *word.as_mut() = write;
            assert_eq!(format!("{:?}", word.get()), format!("{write:?}"));
        }
    }

    #[test]
    fn a_word_holds_every_dtype_exactly() {
        round_trips(&[0.0_f32, -0.0, f32::MIN_POSITIVE, f32::MAX, f32::NAN], 1.5);
        round_trips(
            &[0.0_f64, -0.0, f64::MIN_POSITIVE, f64::MAX, f64::NAN],
            -2.5,
        );
        round_trips(&[0_i32, -1, i32::MIN, i32::MAX], 7);
        round_trips(&[0_i64, -1, i64::MIN, i64::MAX], -7);
        round_trips(&[0_u8, 1, u8::MAX], 9);
        round_trips(&[false, true], true);
        // NaN payloads too: compare bits, which `Debug` does not show.
        let nan = f32::from_bits(0x7fc0_1234);
        assert_eq!(Word::new(nan).get().to_bits(), 0x7fc0_1234);
        let nan = f64::from_bits(0x7ff8_0000_dead_beef);
        assert_eq!(Word::new(nan).get().to_bits(), 0x7ff8_0000_dead_beef);
    }

    /// The two-word handle's ownership, every way a count is taken and given back: run
    /// under Miri (`cargo +nightly miri test -p gradtape-runtime --lib handle`), which
    /// reports a leak, a double free or a use after free that this test alone could not
    /// see.
    #[test]
    fn a_handle_owns_exactly_one_count_of_its_array() {
        use super::{Arc, Data, DataRef, Tensor};
        let array = Tensor::from_vec(vec![1.0_f64, 2.0, 3.0, 4.0], &[2, 2]);
        let count = |t: &Tensor<f64>| Arc::strong_count(&t.shared_array().unwrap()) - 1;
        assert_eq!(count(&array), 1);
        let copy = array.clone();
        assert_eq!((count(&array), copy.id()), (2, array.id()));
        drop(copy);
        assert_eq!(count(&array), 1);
        // borrowed, owned, shared, and written in place only while unique
        assert!(matches!(array.data(), DataRef::Array(a) if a.len() == 4));
        let mut unique = array.clone();
        assert!(unique.unique_array_mut().is_none(), "shared with `array`");
        drop(array);
        let stored = unique.unique_array_mut().expect("unique now");
        stored.own_mut().unwrap()[[0, 0]] = -1.0;
        assert_eq!(unique.to_vec(), vec![-1.0, 2.0, 3.0, 4.0]);
        let Data::Array(taken) = unique.clone().into_data() else {
            panic!("an array")
        };
        assert_eq!(Arc::strong_count(&taken), 2);
        drop(unique);
        assert_eq!(Arc::strong_count(&taken), 1);
        // a shared reshape written through `elements_mut` is copied first
        let base = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[4]);
        let mut view = base.reshape(&[2, 2]);
        let id = view.id();
        view.elements_mut()[[1, 1]] = 9.0;
        assert_eq!(
            (base.to_vec(), view.to_vec()),
            (vec![1.0, 2.0, 3.0, 4.0], vec![1.0, 2.0, 3.0, 9.0])
        );
        assert_eq!(view.id(), id, "the identity is kept");
        // 0-d values hold no count, and their word is written in place
        let mut scalar = Tensor::scalar(2.5_f32);
        assert!(scalar.shared_array().is_none() && scalar.unique_array_mut().is_none());
        scalar.elements_mut()[[]] = 4.0;
        assert_eq!(
            (scalar.clone().to_scalar(), scalar.as_inline_scalar()),
            (4.0, Some(4.0))
        );
        let probe = Tensor::<f64>::zeros(&[3]).storage_probe();
        assert!(!probe());
    }
}
