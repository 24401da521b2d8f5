//! Two-way fork-join for the few operations big enough to pay for a second thread (W4's
//! products and weight updates): the calling thread runs the first part itself and offers
//! the second to one helper thread, taking it back if the helper has not started it by the
//! time the first part is done.
//!
//! Why one helper of our own and not a pool: the caller must compute one part itself (a
//! sleeping caller costs a wake-up of tens of µs), and the helper must still be awake when
//! the next split comes after a short serial stretch, so it spins for [`IDLE_SPIN`] after
//! each job before it parks, as OpenMP runtimes do by default. (What rayon cost here is in
//! docs/PERFORMANCE.md.)
//!
//! `GRADTAPE_NUM_THREADS=1`, or [`set_num_threads`]`(1)` before the first operation, turns
//! splitting off (one thread does everything).

use std::any::Any;
use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// How long the helper keeps spinning after a job before it parks: longer than the serial
/// stretches between the split operations of a training step (W4: ~40 µs), short enough
/// that an idle program gives the core back at once.
const IDLE_SPIN: Duration = Duration::from_micros(500);

/// How long the caller spins for the helper's part before parking. A half of W4's
/// products takes ~120 µs, so the spin rarely runs out; parking is for a helper that was
/// descheduled.
const WAIT_SPIN: Duration = Duration::from_micros(200);

/// Whether a second thread can help at all: more than one core, splitting not turned off,
/// and the helper thread running.
pub(crate) fn can_split() -> bool {
    helper().is_some()
}

/// Runs `first` on this thread and `second` on the helper thread if it is free to start
/// it, else on this thread after `first`; returns when both have run.
///
/// `second` may borrow from the caller: it never runs after this call returns. A panic in
/// `first` still waits for (or cancels) `second` before unwinding further; a panic in
/// `second` on the helper is resumed on this thread once `first` is done.
pub(crate) fn join_halves(first: impl FnOnce(), second: impl FnOnce() + Send) {
    let Some(helper) = helper() else {
        first();
        return second();
    };
    let job: Box<dyn FnOnce() + Send + '_> = Box::new(second);
    // SAFETY: the `'static` is a lie the rest of this function makes true. The job is
    // reachable only through `offer`, and `Settle` (dropped before this function returns,
    // also when `first` unwinds) does not return until either the helper has taken the job
    // out, run it and dropped it (`done`), or this thread has claimed it and taken it out
    // itself. So nothing the job borrows is used after the borrow ends; what the helper's
    // `Arc` may keep alive longer holds no job.
    let job: Box<dyn FnOnce() + Send + 'static> = unsafe { std::mem::transmute(job) };
    let offer = Arc::new(Offer {
        job: UnsafeCell::new(Some(job)),
        claimed: AtomicBool::new(false),
        done: AtomicBool::new(false),
        panic: Mutex::new(None),
        caller: std::thread::current(),
    });
    let raw = Arc::into_raw(Arc::clone(&offer)).cast_mut();
    let offered = helper.offer(raw);
    if !offered {
        // SAFETY: `raw` came from `Arc::into_raw` just above and was not handed on.
        drop(unsafe { Arc::from_raw(raw) });
    }
    let settle = Settle {
        helper,
        offer: &offer,
        raw: offered.then_some(raw),
    };
    first();
    drop(settle);
    if let Some(payload) = offer.panic.lock().unwrap_or_else(|e| e.into_inner()).take() {
        std::panic::resume_unwind(payload);
    }
}

/// The second part of a [`join_halves`]: whoever sets `claimed` first takes the job out of
/// `job` and runs it; if that is the helper, it then sets `done` and unparks `caller`.
struct Offer {
    job: UnsafeCell<Option<Box<dyn FnOnce() + Send>>>,
    claimed: AtomicBool,
    done: AtomicBool,
    /// A panic of the job on the helper, for the caller to resume.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    caller: Thread,
}

// SAFETY: `job` is touched only by the one thread that flips `claimed` (see `join_halves`);
// the other fields are atomics or `Sync` already.
unsafe impl Sync for Offer {}

impl Offer {
    /// Takes the job out if this thread is the first to claim it.
    fn claim(&self) -> Option<Box<dyn FnOnce() + Send>> {
        if self.claimed.swap(true, Ordering::AcqRel) {
            return None;
        }
        // SAFETY: this thread flipped `claimed`, so it alone owns the cell.
        unsafe { (*self.job.get()).take() }
    }
}

/// Settles a [`join_halves`]'s second part when dropped: runs it here if the helper has not
/// claimed it, else waits until the helper is done with it.
struct Settle<'a> {
    helper: &'static Helper,
    offer: &'a Arc<Offer>,
    /// The reference the helper's slot holds, if the offer was made.
    raw: Option<*mut Offer>,
}

impl Drop for Settle<'_> {
    fn drop(&mut self) {
        let offer = self.offer;
        if let Some(job) = offer.claim() {
            if let Some(raw) = self.raw {
                self.helper.withdraw(raw);
            }
            // When unwinding, taking the job is enough: dropping it runs nothing.
            if !std::thread::panicking() {
                job();
            }
            return;
        }
        // The helper is running it and its part takes about as long as ours did: a short
        // spin answers sooner than a futex wake-up. The clock is read every 64 spins.
        let spin_until = Instant::now() + WAIT_SPIN;
        let mut spins = 0_u32;
        while !offer.done.load(Ordering::Acquire) {
            spins = spins.wrapping_add(1);
            if !spins.is_multiple_of(64) || Instant::now() < spin_until {
                std::hint::spin_loop();
            } else {
                std::thread::park();
            }
        }
    }
}

/// The helper thread's mailbox: at most one pending offer (an `Arc` turned into a raw
/// pointer), and whether the helper is parked.
struct Helper {
    pending: AtomicPtr<Offer>,
    sleeping: AtomicBool,
    thread: Thread,
}

/// The helper, started on first use (or fixed by [`set_num_threads`]); `None` with one
/// core, with `GRADTAPE_NUM_THREADS=1`, after `set_num_threads(1)`, or if the thread could
/// not be started.
static HELPER: OnceLock<Option<&'static Helper>> = OnceLock::new();

fn helper() -> Option<&'static Helper> {
    *HELPER.get_or_init(|| start_helper(threads_from_environment()))
}

/// `GRADTAPE_NUM_THREADS` if it is set to a number, else the machine's cores.
fn threads_from_environment() -> usize {
    std::env::var("GRADTAPE_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or_else(cores)
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// How many threads gradtape's operations use: 2 when the largest of them split their
/// work with a helper thread, 1 when everything runs on the calling thread (one core,
/// `GRADTAPE_NUM_THREADS=1`, or [`set_num_threads`]`(1)`). Asking fixes the count, as the
/// first operation that could split does.
///
/// ```
/// use gradtape_runtime::num_threads;
/// assert!(matches!(num_threads(), 1 | 2));
/// ```
pub fn num_threads() -> usize {
    thread_count(helper())
}

/// The threads at work with `helper` (or without one).
fn thread_count(helper: Option<&Helper>) -> usize {
    if helper.is_some() { 2 } else { 1 }
}

/// Sets how many threads gradtape's operations may use, overriding `GRADTAPE_NUM_THREADS`:
/// 1 (or 0) keeps every operation on the calling thread (as a benchmark comparing
/// single-threaded tools needs), 2 or more lets the largest ones (products, convolutions, weight updates)
/// split their work in two. The count is fixed once an operation that could split has run
/// (or [`num_threads`] was asked), because the helper thread is started then: a later call
/// asking for a different count returns [`ThreadCountFixed`] and changes nothing.
///
/// ```
/// use gradtape_runtime::{num_threads, set_num_threads};
/// set_num_threads(1).unwrap();
/// assert_eq!(num_threads(), 1);
/// // asking again for what is in force is no error; asking for more is
/// assert!(set_num_threads(1).is_ok());
/// # if std::thread::available_parallelism().map_or(1, |n| n.get()) > 1 {
/// assert_eq!(set_num_threads(2).unwrap_err().in_force, 1);
/// # }
/// ```
pub fn set_num_threads(threads: usize) -> Result<(), ThreadCountFixed> {
    let mut fixed_now = false;
    let helper = *HELPER.get_or_init(|| {
        fixed_now = true;
        start_helper(threads)
    });
    let in_force = thread_count(helper);
    // What `threads` would have given had it been first: two threads need two cores.
    let asked = if threads >= 2 && cores() >= 2 { 2 } else { 1 };
    if fixed_now || asked == in_force {
        Ok(())
    } else {
        Err(ThreadCountFixed {
            asked: threads,
            in_force,
        })
    }
}

/// [`set_num_threads`] was called after the thread count had been fixed, asking for
/// another count.
///
/// ```
/// use gradtape_runtime::{ThreadCountFixed, set_num_threads};
/// set_num_threads(1).unwrap();
/// # if std::thread::available_parallelism().map_or(1, |n| n.get()) > 1 {
/// let error: ThreadCountFixed = set_num_threads(4).unwrap_err();
/// assert_eq!((error.asked, error.in_force), (4, 1));
/// assert!(error.to_string().starts_with("set_num_threads(4): gradtape already runs on 1"));
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "set_num_threads({asked}): gradtape already runs on {in_force} thread(s); the count is \
     fixed by the first operation that could split, so set it before any"
)]
pub struct ThreadCountFixed {
    /// The count asked for.
    pub asked: usize,
    /// The count in force (1 or 2).
    pub in_force: usize,
}

fn start_helper(wanted: usize) -> Option<&'static Helper> {
    if wanted < 2 || cores() < 2 {
        return None;
    }
    let (sender, receiver) = std::sync::mpsc::channel::<&'static Helper>();
    let spawned = std::thread::Builder::new()
        .name("gradtape-helper".into())
        .spawn(move || {
            // The helper lives as long as the process: leaking it gives the `'static`
            // reference both sides hold.
            let helper: &'static Helper = Box::leak(Box::new(Helper {
                pending: AtomicPtr::new(ptr::null_mut()),
                sleeping: AtomicBool::new(false),
                thread: std::thread::current(),
            }));
            if sender.send(helper).is_ok() {
                helper.serve();
            }
        });
    spawned.ok()?;
    receiver.recv().ok()
}

impl Helper {
    /// Puts `raw` in the slot unless another offer is pending; wakes the helper if parked.
    fn offer(&self, raw: *mut Offer) -> bool {
        // SeqCst here and in `serve`: either the helper sees the offer before it parks, or
        // this thread sees it sleeping and unparks it (an unpark before the park makes the
        // park return at once).
        let placed = self
            .pending
            .compare_exchange(ptr::null_mut(), raw, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok();
        if placed && self.sleeping.load(Ordering::SeqCst) {
            self.thread.unpark();
        }
        placed
    }

    /// Takes `raw` back out of the slot if the helper has not taken it.
    fn withdraw(&self, raw: *mut Offer) {
        let taken_back = self
            .pending
            .compare_exchange(raw, ptr::null_mut(), Ordering::AcqRel, Ordering::Acquire)
            .is_ok();
        if taken_back {
            // SAFETY: the slot's reference, from `Arc::into_raw` in `join_halves`; taking
            // it out of the slot made it ours.
            drop(unsafe { Arc::from_raw(raw) });
        }
    }

    /// The helper thread's loop: run offers, spin while recently busy, else park.
    fn serve(&self) -> ! {
        let mut idle_since = Instant::now();
        let mut spins = 0_u32;
        loop {
            let raw = self.pending.swap(ptr::null_mut(), Ordering::AcqRel);
            if !raw.is_null() {
                // SAFETY: the slot's reference, from `Arc::into_raw` in `join_halves`;
                // swapping it out of the slot made it ours.
                let offer = unsafe { Arc::from_raw(raw) };
                Self::run(&offer);
                idle_since = Instant::now();
                continue;
            }
            spins = spins.wrapping_add(1);
            if !spins.is_multiple_of(64) {
                std::hint::spin_loop();
                continue;
            }
            if idle_since.elapsed() < IDLE_SPIN {
                // Every 64 spins the core is offered to any other runnable thread: on a
                // loaded machine a helper spinning through its idle time took the calling
                // thread's share of the cores (W8, which hands it a job every few hundred
                // µs: step 21 → 23-40 ms beside one busy process, 17.5-19 ms with the
                // yield; session 10). On an idle machine the yield returns at once.
                std::thread::yield_now();
                continue;
            }
            self.sleeping.store(true, Ordering::SeqCst);
            if self.pending.load(Ordering::SeqCst).is_null() {
                std::thread::park();
            }
            self.sleeping.store(false, Ordering::SeqCst);
            idle_since = Instant::now();
        }
    }

    /// Runs an offer's job if the caller has not claimed it back.
    fn run(offer: &Offer) {
        let Some(job) = offer.claim() else {
            return;
        };
        if let Err(payload) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)) {
            *offer.panic.lock().unwrap_or_else(|e| e.into_inner()) = Some(payload);
        }
        offer.done.store(true, Ordering::Release);
        offer.caller.unpark();
    }
}

/// From this many elements an elementwise pass ([`map_collect`], [`zip_collect`],
/// [`filled`], [`chunks_in_place`]) is shared between two threads: 2¹⁷ f32 (512 KB) take
/// ~30 µs on one core, far above a hand-over's cost, and below it (W4's and W6's arrays, at
/// most 64 K elements) nothing changes. W8's activations are 0.2–2.8 M elements (session
/// 10).
pub(crate) const SPLIT_ELEMENTWISE: usize = 1 << 17;

/// How many parts a shared pass is cut into ([`for_each_part`]).
pub(crate) const PARTS: usize = 8;

/// `f(i, part)` for each of `parts` (`i` its index), the parts claimed one at a time by
/// this thread and, if it is free, the helper: each runs at most once, and all have run
/// when this returns.
///
/// Why claimed parts and not two fixed halves (W8's memory-bound passes, session 10): on a
/// loaded machine the helper can be descheduled half-way through a half, and the caller,
/// done with its own, then waited for it; W8's step measured 21 ms with halves against 25
/// with another process spinning on the second core. With eight claimed parts the caller
/// takes over whatever the helper has not started, and waits at most for the one part it
/// is in.
pub(crate) fn for_each_part<P: Send>(parts: Vec<P>, f: impl Fn(usize, P) + Sync) {
    if parts.len() < 2 || !can_split() {
        for (i, part) in parts.into_iter().enumerate() {
            f(i, part);
        }
        return;
    }
    let slots: Vec<Mutex<Option<P>>> = parts.into_iter().map(|p| Mutex::new(Some(p))).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        loop {
            // each index is handed out once, so each slot is taken once
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(slot) = slots.get(i) else { break };
            let part = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
            f(i, part.expect("each part is claimed once"));
        }
    };
    // (the closure holds only shared references, so it is `Copy`: both threads run it)
    join_halves(work, work);
}

/// `out` cut into at most [`PARTS`] consecutive pieces, each a multiple of `block`
/// elements long (`block` must divide `out.len()`), with the offset of each.
fn pieces<T>(out: &mut [T], block: usize) -> Vec<(usize, &mut [T])> {
    let blocks = out.len() / block.max(1);
    let per_piece = blocks.div_ceil(PARTS).max(1) * block.max(1);
    out.chunks_mut(per_piece)
        .enumerate()
        .map(|(i, piece)| (i * per_piece, piece))
        .collect()
}

/// Writes `f(x)` into each slot of `out` for the `x` of `xs` at the same place.
#[inline(always)]
fn write_map<A, U>(out: &mut [MaybeUninit<U>], xs: &[A], f: &impl Fn(&A) -> U) {
    for (o, x) in out.iter_mut().zip(xs) {
        o.write(f(x));
    }
}

/// [`write_map`] compiled for the best instruction set the CPU has (AVX-512 or AVX2 where
/// present, picked at run time by `pulp`; else the baseline's), so that a branch-free `f`
/// inlined into it is vectorised at that width. What it writes is `write_map`'s: every
/// slot of `out` that has an `x`.
fn write_map_vectorised<A, U>(out: &mut [MaybeUninit<U>], xs: &[A], f: &impl Fn(&A) -> U) {
    struct WriteMap<'a, A, U, F> {
        out: &'a mut [MaybeUninit<U>],
        xs: &'a [A],
        f: &'a F,
    }
    impl<A, U, F: Fn(&A) -> U> pulp::WithSimd for WriteMap<'_, A, U, F> {
        type Output = ();
        // (inlined into pulp's function with the target features enabled: the loop and
        // `f` are compiled there)
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, _: S) {
            write_map(self.out, self.xs, self.f);
        }
    }
    pulp::Arch::new().dispatch(WriteMap { out, xs, f });
}

/// `xs.iter().map(f).collect()`, shared with the helper ([`for_each_part`]) when `xs` is
/// long (at least [`SPLIT_ELEMENTWISE`]). Each element is `f` of its own operand alone, so
/// the result is the same to the bit either way.
pub(crate) fn map_collect<A: Sync, U: Send>(xs: &[A], f: impl Fn(&A) -> U + Sync) -> Vec<U> {
    if xs.len() < SPLIT_ELEMENTWISE || !can_split() {
        return xs.iter().map(f).collect();
    }
    collect_parts::<false, A, U>(xs, f)
}

/// [`map_collect`] with each part's loop compiled for the best instruction set the CPU has
/// ([`write_map_vectorised`]): for a branch-free `f` the compiler vectorises, such as the
/// array kernel of `exp`. Each element is still `f` of its own operand alone, so the
/// result is the same to the bit as `map_collect`'s, for any `f` that computes the same
/// bits in every instruction set (no fused multiply-add where the baseline has none).
pub(crate) fn map_collect_vectorised<A: Sync, U: Send>(
    xs: &[A],
    f: impl Fn(&A) -> U + Sync,
) -> Vec<U> {
    collect_parts::<true, A, U>(xs, f)
}

/// `f` of each of `xs`, collected: written by [`write_map_vectorised`] (`VECTORISED`) or
/// [`write_map`], in one go when short, else in parts shared with the helper.
fn collect_parts<const VECTORISED: bool, A: Sync, U: Send>(
    xs: &[A],
    f: impl Fn(&A) -> U + Sync,
) -> Vec<U> {
    let write = |out: &mut [MaybeUninit<U>], xs: &[A]| {
        if VECTORISED {
            write_map_vectorised(out, xs, &f);
        } else {
            write_map(out, xs, &f);
        }
    };
    let mut out = Vec::with_capacity(xs.len());
    if xs.len() < SPLIT_ELEMENTWISE || !can_split() {
        write(&mut out.spare_capacity_mut()[..xs.len()], xs);
    } else {
        let parts = pieces(&mut out.spare_capacity_mut()[..xs.len()], 1);
        for_each_part(parts, |_, (at, o)| write(o, &xs[at..at + o.len()]));
    }
    // SAFETY: both writers write every slot of the `out` they are given that has an `x`
    // (a zip of the two), and each call was given as many `x`s as slots: all of the first
    // `xs.len()` at once, or each part's own (`for_each_part` returned, which it does only
    // once every part ran: it resumes a panic of any part instead).
    unsafe { out.set_len(xs.len()) };
    out
}

/// `xs.iter().zip(ys).map(|(x, y)| f(x, y)).collect()` for two slices of the same length,
/// shared with the helper when long, as [`map_collect`].
pub(crate) fn zip_collect<A: Sync, B: Sync, U: Send>(
    xs: &[A],
    ys: &[B],
    f: impl Fn(&A, &B) -> U + Sync,
) -> Vec<U> {
    assert_eq!(xs.len(), ys.len(), "zip_collect: equal lengths");
    if xs.len() < SPLIT_ELEMENTWISE || !can_split() {
        return xs.iter().zip(ys).map(|(x, y)| f(x, y)).collect();
    }
    let mut out = Vec::with_capacity(xs.len());
    let parts = pieces(&mut out.spare_capacity_mut()[..xs.len()], 1);
    for_each_part(parts, |_, (at, o)| {
        let (xs, ys) = (&xs[at..at + o.len()], &ys[at..at + o.len()]);
        for ((o, x), y) in o.iter_mut().zip(xs).zip(ys) {
            o.write(f(x, y));
        }
    });
    // SAFETY: as in `map_collect`: every one of the first `xs.len()` slots was written.
    unsafe { out.set_len(xs.len()) };
    out
}

/// `vec![value; len]`, shared with the helper when long (as [`map_collect`]): W8's max
/// pooling and input gradients start from 3–11 MB of zeros, which one thread's `memset`
/// wrote while the other core waited.
pub(crate) fn filled<T: Copy + Send + Sync>(len: usize, value: T) -> Vec<T> {
    if len < SPLIT_ELEMENTWISE || !can_split() {
        return vec![value; len];
    }
    let mut out = Vec::with_capacity(len);
    let parts = pieces(&mut out.spare_capacity_mut()[..len], 1);
    for_each_part(parts, |_, (_, o)| {
        o.iter_mut().for_each(|o| _ = o.write(value));
    });
    // SAFETY: as in `map_collect`: every one of the first `len` slots was written.
    unsafe { out.set_len(len) };
    out
}

/// `f(i, chunk)` over `xs` in place, for the `xs.len() / block` consecutive chunks of
/// `block` elements (`i` the chunk's index), shared with the helper when `xs` is long (at
/// least [`SPLIT_ELEMENTWISE`]). `block` must divide `xs.len()`.
pub(crate) fn chunks_in_place<T: Send>(
    xs: &mut [T],
    block: usize,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    debug_assert!(block > 0 && xs.len().is_multiple_of(block), "whole chunks");
    let each = |first: usize, xs: &mut [T]| {
        for (i, chunk) in xs.chunks_exact_mut(block).enumerate() {
            f(first + i, chunk);
        }
    };
    if xs.len() < SPLIT_ELEMENTWISE || xs.len() / block < 2 || !can_split() {
        return each(0, xs);
    }
    for_each_part(pieces(xs, block), |_, (at, part)| each(at / block, part));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The split elementwise passes at, around and far above the threshold, odd and even
    /// lengths, against the plain loops; and a panic in a half leaves no half-written
    /// vector behind (the unwinding reaches the caller).
    #[test]
    fn split_elementwise_passes_equal_the_plain_loops() {
        for len in [
            0,
            1,
            SPLIT_ELEMENTWISE - 1,
            SPLIT_ELEMENTWISE,
            SPLIT_ELEMENTWISE + 1,
            3 * SPLIT_ELEMENTWISE + 7,
        ] {
            let xs: Vec<u64> = (0..len as u64)
                .map(|i| i * 2_654_435_761 % 1_000_003)
                .collect();
            let ys: Vec<u64> = xs.iter().rev().copied().collect();
            let mapped: Vec<u64> = xs.iter().map(|x| x * 3 + 1).collect();
            assert_eq!(map_collect(&xs, |x| x * 3 + 1), mapped, "{len}");
            let zipped: Vec<u64> = xs.iter().zip(&ys).map(|(x, y)| x ^ y).collect();
            assert_eq!(zip_collect(&xs, &ys, |x, y| x ^ y), zipped, "{len}");
            assert_eq!(filled(len, 7_u64), vec![7_u64; len], "{len}");
            for block in [1, 7] {
                let whole = len / block * block;
                let mut chunked = xs[..whole].to_vec();
                chunks_in_place(&mut chunked, block, |i, c| {
                    c.iter_mut().for_each(|v| *v += i as u64)
                });
                let want: Vec<u64> = (0..whole).map(|j| xs[j] + (j / block) as u64).collect();
                assert_eq!(chunked, want, "{len}, block {block}");
            }
        }
        let xs = vec![1_u32; 2 * SPLIT_ELEMENTWISE];
        let result = std::panic::catch_unwind(|| {
            map_collect(&xs, |&x| {
                assert!(x == 1, "never");
                x
            })
            .len()
        });
        assert_eq!(result.ok(), Some(2 * SPLIT_ELEMENTWISE));
        let result = std::panic::catch_unwind(|| map_collect(&xs, |_| -> u32 { panic!("a half") }));
        assert!(result.is_err());
    }

    #[test]
    fn both_parts_run_before_the_call_returns() {
        for _ in 0..200 {
            let (mut a, mut b) = (0, 0);
            join_halves(|| a = 1, || b = 2);
            assert_eq!((a, b), (1, 2));
        }
    }

    #[test]
    fn many_callers_at_once_each_get_both_parts() {
        std::thread::scope(|scope| {
            for t in 0..4_u64 {
                scope.spawn(move || {
                    for i in 0..500_u64 {
                        let (mut a, mut b) = (0, 0);
                        join_halves(|| a = t + i, || b = t * i);
                        assert_eq!((a, b), (t + i, t * i));
                    }
                });
            }
        });
    }

    #[test]
    fn a_panic_in_the_first_part_still_settles_the_second() {
        let mut second_runs = 0;
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            join_halves(|| panic!("first part"), || second_runs += 1)
        }));
        assert!(result.is_err());
        // The helper ran it before the panic was noticed, or it was cancelled: at most
        // once, and the borrow of `second_runs` has ended here.
        assert!(second_runs <= 1);
    }

    #[test]
    fn a_panic_in_the_second_part_reaches_the_caller() {
        for _ in 0..50 {
            let result = std::panic::catch_unwind(|| {
                join_halves(
                    || std::thread::sleep(Duration::from_micros(200)),
                    || panic!("second part"),
                )
            });
            let payload = result.expect_err("the second part's panic is resumed");
            assert_eq!(payload.downcast_ref::<&str>(), Some(&"second part"));
        }
    }
}
