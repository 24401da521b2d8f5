//! Convolution and pooling over NHWC images, TensorFlow's `tf.nn.conv2d` (HWIO filters,
//! strides, `SAME`/`VALID` padding with TF's exact arithmetic, dilation, groups) and
//! `tf.nn.max_pool2d` / `tf.nn.avg_pool2d`.
//!
//! A convolution is an im2col copy (each output position's receptive field as one row) and
//! one `gemm` product per group, the kernel `matmul` uses, block by block of images so that
//! each block's im2col matrix is still in cache when its product reads it (the parts of the
//! batch shared by the two threads; `image_parts`); its two gradients are ops of their
//! own (`conv2d_backprop_input`, `conv2d_backprop_filter`, as in TensorFlow), each recorded
//! with a rule written in these three ops, so a gradient of a gradient (a gradient penalty)
//! is as exact as the first. All three are bilinear, so each JVP is the op applied to one
//! tangent at a time.
//!
//! Pooling: max pooling computes only the values; its gradient (`max_pool2d_backprop`,
//! TensorFlow's `MaxPoolGrad`) finds each window's first maximum again from the saved input
//! and output (TensorFlow's tie-break) and routes the cotangent there, and its own rule
//! (`max_pool2d_select`, `MaxPoolGradGrad`) gathers from the same positions. Average
//! pooling is linear; it and its transpose `avg_pool2d_backprop` are each other's rules. Under `SAME` padding the padded positions
//! take no part: never a maximum, not counted in an average (as TensorFlow).

use ndarray::{ArrayD, ArrayView2, IxDyn, s};
use smallvec::smallvec;

use super::linalg::{gemm_into, gemm_store};
use super::{static_rule, sum_tangents};
use crate::base::context::batch_rank;
use crate::base::dtype::{AnyTensor, Float};
use crate::base::primal::{PrimalOps, positive_mask_of, relu_value};
use crate::base::tensor::{Data, Dims, Tensor};
use crate::record::forward::Tangents;
use crate::record::node::{InputGrads, Params, RuleCtx};
use crate::record::stack::{self, NodeSpec};

/// How a window meets the border, TensorFlow's `padding` argument.
///
/// With `Valid` the window stays inside the input: `out = ⌈(in − (k − 1)·d) / s⌉`. With
/// `Same`, `out = ⌈in / s⌉` and the input is padded by
/// `total = max((out − 1)·s + (k − 1)·d + 1 − in, 0)`, of which `total / 2` (rounded down)
/// goes before and the rest after, as in TensorFlow.
///
/// ```
/// use gradtape_runtime::Padding;
/// // 5 wide, 2-wide window, stride 2: VALID gives 2 outputs, SAME gives 3
/// assert_eq!(Padding::Valid.output_len(5, 2, 2, 1), Some(2));
/// assert_eq!(Padding::Same.output_len(5, 2, 2, 1), Some(3));
/// // a 3-wide window dilated by 2 spans 5 inputs: it does not fit in 4
/// assert_eq!(Padding::Valid.output_len(4, 3, 1, 2), None);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Padding {
    /// No padding: only windows wholly inside the input (TensorFlow's default).
    #[default]
    Valid,
    /// Zero padding (for max pooling: none of its positions is ever the maximum) so that
    /// the output has `⌈in / stride⌉` positions.
    Same,
}

impl Padding {
    /// The number of output positions along an axis of `input` elements, for a window of
    /// `kernel` taps `dilation` apart moved by `stride`; `None` where `Valid`'s window does
    /// not fit (or `kernel`, `stride` or `dilation` is zero).
    ///
    /// ```
    /// use gradtape_runtime::Padding;
    /// assert_eq!(Padding::Valid.output_len(28, 3, 1, 1), Some(26));
    /// assert_eq!(Padding::Same.output_len(28, 3, 1, 1), Some(28));
    /// ```
    pub fn output_len(
        self,
        input: usize,
        kernel: usize,
        stride: usize,
        dilation: usize,
    ) -> Option<usize> {
        self.out_and_pad(input, kernel, stride, dilation)
            .map(|(out, _)| out)
    }

    /// The output length and the padding before the first element (TF's `pad_top` /
    /// `pad_left`).
    fn out_and_pad(
        self,
        input: usize,
        kernel: usize,
        stride: usize,
        dilation: usize,
    ) -> Option<(usize, usize)> {
        if kernel == 0 || stride == 0 || dilation == 0 {
            return None;
        }
        let span = (kernel - 1) * dilation + 1;
        match self {
            Padding::Valid => (input >= span).then(|| ((input - span) / stride + 1, 0)),
            Padding::Same => {
                let out = input.div_ceil(stride);
                if out == 0 {
                    return Some((0, 0));
                }
                let total = ((out - 1) * stride + span).saturating_sub(input);
                Some((out, total / 2))
            }
        }
    }
}

/// The options of [`Tensor::conv2d`] and its gradients: strides, padding, dilations and
/// groups, TensorFlow's defaults (`1`, `VALID`, `1`, `1`) unless set.
///
/// ```
/// use gradtape_runtime::{Conv2dOptions, Padding};
/// let options = Conv2dOptions::new().strides(2, 2).padding(Padding::Same);
/// assert_eq!(options.strides, (2, 2));
/// assert_eq!(options.dilations, (1, 1));
/// assert_eq!(Conv2dOptions::default().padding, Padding::Valid);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Conv2dOptions {
    /// How far the window moves between outputs, (rows, columns).
    pub strides: (usize, usize),
    /// `Valid` or `Same`.
    pub padding: Padding,
    /// The distance between the filter's taps, (rows, columns): 1 is a dense filter.
    pub dilations: (usize, usize),
    /// Channel groups: input channel group `g` meets only the filters of output group `g`
    /// (`groups = c_in` with one filter each is a depthwise convolution). Must divide both
    /// channel counts.
    pub groups: usize,
}

impl Default for Conv2dOptions {
    fn default() -> Self {
        Conv2dOptions {
            strides: (1, 1),
            padding: Padding::Valid,
            dilations: (1, 1),
            groups: 1,
        }
    }
}

impl Conv2dOptions {
    /// TensorFlow's defaults: stride 1, `Valid`, dilation 1, one group.
    ///
    /// ```
    /// use gradtape_runtime::Conv2dOptions;
    /// assert_eq!(Conv2dOptions::new(), Conv2dOptions::default());
    /// ```
    pub fn new() -> Conv2dOptions {
        Conv2dOptions::default()
    }

    /// With strides `(rows, cols)`.
    ///
    /// ```
    /// use gradtape_runtime::Conv2dOptions;
    /// assert_eq!(Conv2dOptions::new().strides(2, 1).strides, (2, 1));
    /// ```
    pub fn strides(mut self, rows: usize, cols: usize) -> Conv2dOptions {
        self.strides = (rows, cols);
        self
    }

    /// With `padding`.
    ///
    /// ```
    /// use gradtape_runtime::{Conv2dOptions, Padding};
    /// assert_eq!(Conv2dOptions::new().padding(Padding::Same).padding, Padding::Same);
    /// ```
    pub fn padding(mut self, padding: Padding) -> Conv2dOptions {
        self.padding = padding;
        self
    }

    /// With dilations `(rows, cols)`.
    ///
    /// ```
    /// use gradtape_runtime::Conv2dOptions;
    /// assert_eq!(Conv2dOptions::new().dilations(2, 2).dilations, (2, 2));
    /// ```
    pub fn dilations(mut self, rows: usize, cols: usize) -> Conv2dOptions {
        self.dilations = (rows, cols);
        self
    }

    /// With `groups` channel groups.
    ///
    /// ```
    /// use gradtape_runtime::Conv2dOptions;
    /// assert_eq!(Conv2dOptions::new().groups(3).groups, 3);
    /// ```
    pub fn groups(mut self, groups: usize) -> Conv2dOptions {
        self.groups = groups;
        self
    }
}

/// Every size of one convolution (or pooling window), checked: the input `[n, h, w, c_in]`,
/// the filter `[kh, kw, c_in / groups, c_out]`, the output `[n, oh, ow, c_out]` and the
/// padding before the first row and column. A pooling window is a depthwise one
/// (`c_out = c_in = groups`).
#[derive(Clone, Copy, Debug)]
struct Geometry {
    n: usize,
    h: usize,
    w: usize,
    c_in: usize,
    kh: usize,
    kw: usize,
    c_out: usize,
    groups: usize,
    sh: usize,
    sw: usize,
    dh: usize,
    dw: usize,
    padding: Padding,
    oh: usize,
    ow: usize,
    pad_top: usize,
    pad_left: usize,
}

impl Geometry {
    /// The geometry of `op` on an input of `input` shape and a filter of `filter` shape.
    ///
    /// # Panics
    /// On a wrong rank, channel count, group count, a zero stride or dilation, or a window
    /// larger than the (padded) input; the message names `op` and the shapes.
    #[track_caller]
    fn conv(op: &str, input: &[usize], filter: &[usize], o: Conv2dOptions) -> Geometry {
        assert!(
            input.len() == 4 && filter.len() == 4,
            "{op}: needs an NHWC input [n, h, w, c_in] and an HWIO filter [kh, kw, c_in / groups, c_out], got shapes {input:?} and {filter:?}"
        );
        let groups = o.groups;
        assert!(
            groups > 0 && input[3].is_multiple_of(groups) && filter[3].is_multiple_of(groups),
            "{op}: {groups} groups must divide the input's {} channels and the filter's {} output channels (shapes {input:?} and {filter:?})",
            input[3],
            filter[3]
        );
        assert!(
            filter[2] * groups == input[3],
            "{op}: the filter's input channels times the groups ({} · {groups}) must equal the input's {} channels (shapes {input:?} and {filter:?})",
            filter[2],
            input[3]
        );
        Geometry::window(
            op,
            input,
            [filter[0], filter[1]],
            filter[3],
            groups,
            o,
            filter,
        )
    }

    /// The geometry of a pooling window of `ksize` over `input` (one group per channel).
    #[track_caller]
    fn pool(
        op: &str,
        input: &[usize],
        ksize: (usize, usize),
        strides: (usize, usize),
        padding: Padding,
    ) -> Geometry {
        assert!(
            input.len() == 4,
            "{op}: needs an NHWC input [n, h, w, c], got shape {input:?}"
        );
        let options = Conv2dOptions::new()
            .strides(strides.0, strides.1)
            .padding(padding);
        let c = input[3];
        Geometry::window(
            op,
            input,
            [ksize.0, ksize.1],
            c,
            c.max(1),
            options,
            &[ksize.0, ksize.1],
        )
    }

    #[track_caller]
    fn window(
        op: &str,
        input: &[usize],
        [kh, kw]: [usize; 2],
        c_out: usize,
        groups: usize,
        o: Conv2dOptions,
        kernel_shape: &[usize],
    ) -> Geometry {
        let ((sh, sw), (dh, dw)) = (o.strides, o.dilations);
        assert!(
            sh > 0 && sw > 0 && dh > 0 && dw > 0,
            "{op}: strides {:?} and dilations {:?} must be positive (input shape {input:?}, window {kernel_shape:?})",
            o.strides,
            o.dilations
        );
        assert!(
            kh > 0 && kw > 0,
            "{op}: the window {kernel_shape:?} must have positive height and width (input shape {input:?})"
        );
        let rows = o.padding.out_and_pad(input[1], kh, sh, dh);
        let cols = o.padding.out_and_pad(input[2], kw, sw, dw);
        let (Some((oh, pad_top)), Some((ow, pad_left))) = (rows, cols) else {
            panic!(
                "{op}: the window {kernel_shape:?} with dilations {:?} is larger than the input {input:?} under {:?} padding",
                o.dilations, o.padding
            )
        };
        Geometry {
            n: input[0],
            h: input[1],
            w: input[2],
            c_in: input[3],
            kh,
            kw,
            c_out,
            groups,
            sh,
            sw,
            dh,
            dw,
            padding: o.padding,
            oh,
            ow,
            pad_top,
            pad_left,
        }
    }

    fn input_shape(&self) -> [usize; 4] {
        [self.n, self.h, self.w, self.c_in]
    }

    fn filter_shape(&self) -> [usize; 4] {
        [self.kh, self.kw, self.c_in / self.groups, self.c_out]
    }

    fn output_shape(&self) -> [usize; 4] {
        [self.n, self.oh, self.ow, self.c_out]
    }

    /// Output positions (rows of the im2col matrix).
    fn positions(&self) -> usize {
        self.n * self.oh * self.ow
    }

    /// The input row and column tap (`ky`, `kx`) of output (`oy`, `ox`) reads, or `None`
    /// in the padding.
    #[inline]
    fn tap(&self, oy: usize, ox: usize, ky: usize, kx: usize) -> Option<(usize, usize)> {
        let iy = (oy * self.sh + ky * self.dh).checked_sub(self.pad_top)?;
        let ix = (ox * self.sw + kx * self.dw).checked_sub(self.pad_left)?;
        (iy < self.h && ix < self.w).then_some((iy, ix))
    }

    /// Whether each image's windows are disjoint and together cover every input position
    /// (W8's 2x2 pooling of a 26x26 map): then routing a cotangent back writes each input
    /// element exactly once. Disjoint: a stride at least the (dilated) window's span, on
    /// each axis; covering: every input row and column is some window's tap.
    fn tiles_input(&self) -> bool {
        let covered =
            |out: usize, stride: usize, taps: usize, dilation: usize, pad: usize, len: usize| {
                let span = (taps.max(1) - 1) * dilation + 1;
                let hits = (0..out)
                    .flat_map(|o| (0..taps).map(move |k| o * stride + k * dilation))
                    .filter(|&at| at.checked_sub(pad).is_some_and(|i| i < len))
                    .count();
                stride >= span && hits == len
            };
        covered(self.oh, self.sh, self.kh, self.dh, self.pad_top, self.h)
            && covered(self.ow, self.sw, self.kw, self.dw, self.pad_left, self.w)
    }

    /// The sizes a node keeps: the input and filter shapes and the options.
    fn params(&self) -> Params {
        let [n, h, w, c] = self.input_shape();
        let [kh, kw, ci, co] = self.filter_shape();
        let same = usize::from(self.padding == Padding::Same);
        let dims: Dims = [
            n,
            h,
            w,
            c,
            kh,
            kw,
            ci,
            co,
            self.sh,
            self.sw,
            self.dh,
            self.dw,
            same,
            self.groups,
        ]
        .into_iter()
        .collect();
        Params::Dims(dims)
    }
}

/// The input shape, filter shape and options a convolution node keeps (see
/// [`Geometry::params`]).
fn conv_params(params: &Params) -> ([usize; 4], [usize; 4], Conv2dOptions) {
    let Params::Dims(d) = params else {
        unreachable!("a convolution keeps its sizes")
    };
    let padding = if d[12] == 1 {
        Padding::Same
    } else {
        Padding::Valid
    };
    let options = Conv2dOptions {
        strides: (d[8], d[9]),
        padding,
        dilations: (d[10], d[11]),
        groups: d[13],
    };
    ([d[0], d[1], d[2], d[3]], [d[4], d[5], d[6], d[7]], options)
}

/// The elements of `t` in row-major order, borrowed when already so.
fn row_major<T: Float>(t: &Tensor<T>) -> std::borrow::Cow<'_, [T]> {
    let view = t.view();
    match view.to_slice() {
        Some(values) => std::borrow::Cow::Borrowed(values),
        None => std::borrow::Cow::Owned(view.iter().copied().collect()),
    }
}

/// The largest scratch matrix (bytes) a thread keeps between convolutions: a block's is
/// about [`BLOCK_BYTES`], but a single image's can be larger (one image is the smallest
/// block). Bounded so that one huge convolution does not hold its memory until the thread
/// exits.
const MAX_SCRATCH_BYTES: usize = 64 << 20;

thread_local! {
    /// This thread's spare im2col / col2im matrix, a `Vec<T>` of the last dtype used.
    static SCRATCH: std::cell::RefCell<Option<Box<dyn std::any::Any>>> =
        const { std::cell::RefCell::new(None) };
}

/// `f` given a buffer of `len` elements whose contents are stale (`f` must write every
/// element it reads): this thread's spare buffer when it holds `T` and is large enough,
/// else a new one, kept for the next call if at most [`MAX_SCRATCH_BYTES`]. A fresh
/// multi-megabyte buffer per convolution had to be zero-filled and, unless the allocator
/// kept the last one (see `base/alloc.rs`), faulted in a page at a time; a reused one is
/// neither.
fn with_scratch<T: Float, R>(len: usize, f: impl FnOnce(&mut [T]) -> R) -> R {
    let spare = SCRATCH.with(|s| s.borrow_mut().take());
    let mut buffer: Vec<T> = spare
        .and_then(|b| b.downcast::<Vec<T>>().ok())
        .map(|b| *b)
        .unwrap_or_default();
    if buffer.len() < len {
        // the old one is dropped first, so the two are never both resident
        drop(std::mem::take(&mut buffer));
        buffer = vec![T::ZERO; len];
    }
    let result = f(&mut buffer[..len]);
    if buffer.len() * std::mem::size_of::<T>() <= MAX_SCRATCH_BYTES {
        SCRATCH.with(|s| *s.borrow_mut() = Some(Box::new(buffer)));
    }
    result
}

/// From this many elements written, a pass over the images (im2col, col2im, max pooling
/// and its routing) is shared between two threads: 2¹⁵ f32 take ~10 µs on one core, well
/// above a hand-over's cost. W8's passes are 0.3–17.8 M elements, and with the products
/// the only two-thread work, the helper thread was idle through them (37% of its samples
/// spinning in the profile of session 10).
const SPLIT_IMAGES: usize = 1 << 15;

/// `f(part, images, out_part)` for consecutive parts of the images of `g`'s batch
/// ([`batch_parts`]), where `part` is `g` with `n = images.len()` and `out_part` the slice
/// of `out` those images own (`out` holds `g.n` equal pieces, one per image): the parts
/// shared with the helper thread (`parallel::for_each_part`) when `out` is large enough,
/// else once over the whole batch.
///
/// Invariant that makes the split exact: each image's piece of `out` is computed only from
/// that image's inputs, in the same order whichever thread does it, so the result is the
/// same to the bit as one pass (the tests compare them).
fn over_image_parts<E: Send>(
    g: &Geometry,
    out: &mut [E],
    f: impl Fn(&Geometry, std::ops::Range<usize>, &mut [E]) + Sync,
) {
    use crate::base::parallel::{PARTS, can_split, for_each_part};
    if g.n < 2 || out.len() < SPLIT_IMAGES || !can_split() {
        return f(g, 0..g.n, out);
    }
    debug_assert!(out.len().is_multiple_of(g.n), "one equal piece per image");
    let per_image = out.len() / g.n;
    let pieces = pieces_of(out, &batch_parts(g.n, PARTS), per_image);
    for_each_part(pieces, |_, (images, piece)| {
        let part = Geometry {
            n: images.len(),
            ..*g
        };
        f(&part, images, piece);
    });
}

/// `0..n` cut into at most `count` consecutive, non-empty ranges of nearly equal length:
/// the parts of a batch of `n` images that the two threads claim.
fn batch_parts(n: usize, count: usize) -> Vec<std::ops::Range<usize>> {
    (0..count)
        .map(|i| i * n / count..(i + 1) * n / count)
        .filter(|r| !r.is_empty())
        .collect()
}

/// The elements of images `images` of an NHWC array whose images are `per_image` long.
fn images_of<'a, T>(values: &'a [T], images: &std::ops::Range<usize>, per_image: usize) -> &'a [T] {
    &values[images.start * per_image..images.end * per_image]
}

/// The bytes of im2col matrix a convolution builds and consumes at a time on each thread:
/// small enough to stay in a core's L2 cache (1 MB on the project's AMD host, 2 MB on its
/// Intel one) between im2col writing it and the product reading it, large enough that each
/// product (a block's rows by the filter) is big enough for gemm's blocking. The whole
/// batch's matrix, W8's conv 2 at 17.8 MB, went through memory twice per op.
const BLOCK_BYTES: usize = 512 << 10;

/// How a convolution pass (forward, or either gradient) cuts the batch `g` describes: into
/// at most [`PARTS`](crate::base::parallel::PARTS) consecutive ranges of images (the
/// parts two threads claim, when the pass is large), each walked in blocks of at most the
/// returned number of images, whose im2col matrix is at most [`BLOCK_BYTES`].
///
/// Invariant: the cut depends on the geometry and the element size alone, never on how
/// many threads run, so every result (the filter gradient's sums of parts included) is the
/// same to the bit with one thread or two.
fn image_parts(g: &Geometry, elem_bytes: usize) -> (Vec<std::ops::Range<usize>>, usize) {
    use crate::base::parallel::PARTS;
    let k = g.kh * g.kw * (g.c_in / g.groups);
    let per_image = (g.oh * g.ow * k).max(1);
    let per_block = (BLOCK_BYTES / (per_image * elem_bytes)).clamp(1, g.n.max(1));
    let count = if g.n * per_image < SPLIT_IMAGES {
        1
    } else {
        PARTS
    };
    (batch_parts(g.n, count), per_block)
}

/// `images` of the batch `g` describes in consecutive blocks of at most `per_block` images,
/// each with its geometry (`g` with `n` the block's image count).
fn blocks_of(
    images: std::ops::Range<usize>,
    per_block: usize,
    g: &Geometry,
) -> impl Iterator<Item = (std::ops::Range<usize>, Geometry)> {
    let g = *g;
    images.clone().step_by(per_block).map(move |start| {
        let block = start..(start + per_block).min(images.end);
        let geometry = Geometry {
            n: block.len(),
            ..g
        };
        (block, geometry)
    })
}

/// `values` cut into the pieces `parts` own, `per_image` elements per image.
fn pieces_of<'a, T>(
    values: &'a mut [T],
    parts: &[std::ops::Range<usize>],
    per_image: usize,
) -> Vec<(std::ops::Range<usize>, &'a mut [T])> {
    let mut rest = values;
    let mut pieces = Vec::with_capacity(parts.len());
    for images in parts {
        let (piece, after) = std::mem::take(&mut rest).split_at_mut(images.len() * per_image);
        pieces.push((images.clone(), piece));
        rest = after;
    }
    pieces
}

/// `slots` as the initialised values they now hold.
///
/// # Safety
/// Every element of `slots` must have been written.
unsafe fn assume_written<T>(slots: &mut [std::mem::MaybeUninit<T>]) -> &mut [T] {
    // SAFETY: `MaybeUninit<T>` has `T`'s layout, and the caller promises every element is
    // initialised.
    unsafe { &mut *(std::ptr::from_mut(slots) as *mut [T]) }
}

/// Writes the im2col matrix of channel group `group` into `cols` (every element): one row
/// per output position, holding its receptive field as `[kh, kw, c_in / groups]` (the
/// filter's row order), zeros where the window is in the padding.
fn im2col<T: Float>(cols: &mut [T], x: &[T], g: &Geometry, group: usize) {
    let cig = g.c_in / g.groups;
    let k = g.kh * g.kw * cig;
    debug_assert_eq!(cols.len(), g.positions() * k);
    if k == 0 {
        return;
    }
    // With one group and dilation 1 a window's row of taps is one contiguous run of the
    // input (kw pixels of all channels): one copy per kernel row where it lies wholly inside.
    let runs = g.groups == 1 && g.dw == 1 && cig > 1;
    // With one channel per group (W8's first layer) a window wholly inside the input is
    // `k` loads at fixed offsets from its first tap, with no per-tap padding arithmetic.
    let offsets: Vec<usize> = (0..g.kh)
        .flat_map(|ky| (0..g.kw).map(move |kx| (ky * g.dh * g.w + kx * g.dw) * g.c_in))
        .collect();
    let span = offsets.last().map_or(0, |&last| last + 1);
    let mut rows = cols.chunks_exact_mut(k);
    for b in 0..g.n {
        for oy in 0..g.oh {
            for ox in 0..g.ow {
                let row = rows.next().expect("one row per position");
                if cig == 1
                    && let (Some((iy, ix)), Some(_)) =
                        (g.tap(oy, ox, 0, 0), g.tap(oy, ox, g.kh - 1, g.kw - 1))
                {
                    let first = ((b * g.h + iy) * g.w + ix) * g.c_in + group;
                    let window = &x[first..first + span];
                    for (d, &at) in row.iter_mut().zip(&offsets) {
                        *d = window[at];
                    }
                    continue;
                }
                for ky in 0..g.kh {
                    let line = &mut row[ky * g.kw * cig..(ky + 1) * g.kw * cig];
                    if runs
                        && let (Some((iy, ix)), Some(_)) =
                            (g.tap(oy, ox, ky, 0), g.tap(oy, ox, ky, g.kw - 1))
                    {
                        let src = ((b * g.h + iy) * g.w + ix) * g.c_in;
                        line.copy_from_slice(&x[src..src + line.len()]);
                        continue;
                    }
                    for (kx, taps) in line.chunks_exact_mut(cig).enumerate() {
                        match g.tap(oy, ox, ky, kx) {
                            Some((iy, ix)) => {
                                let src = ((b * g.h + iy) * g.w + ix) * g.c_in + group * cig;
                                if cig == 1 {
                                    // one channel (W8's first layer): a store, not a memcpy call
                                    taps[0] = x[src];
                                } else {
                                    taps.copy_from_slice(&x[src..src + cig]);
                                }
                            }
                            None => taps.fill(T::ZERO),
                        }
                    }
                }
            }
        }
    }
}

/// The transpose of [`im2col`]: adds each row's entries back onto the input positions they
/// were copied from (overlapping windows sum).
fn col2im_add<T: Float>(dx: &mut [T], cols: &[T], g: &Geometry, group: usize) {
    let cig = g.c_in / g.groups;
    let k = g.kh * g.kw * cig;
    if k == 0 {
        return;
    }
    let mut rows = cols.chunks_exact(k);
    for b in 0..g.n {
        for oy in 0..g.oh {
            for ox in 0..g.ow {
                let row = rows.next().expect("one row per position");
                for ky in 0..g.kh {
                    for kx in 0..g.kw {
                        if let Some((iy, ix)) = g.tap(oy, ox, ky, kx) {
                            let dst = ((b * g.h + iy) * g.w + ix) * g.c_in + group * cig;
                            let src = (ky * g.kw + kx) * cig;
                            for (d, &v) in dx[dst..dst + cig].iter_mut().zip(&row[src..src + cig]) {
                                *d += v;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The filter `[kh, kw, c_in / groups, c_out]` as its `[kh·kw·c_in / groups, c_out]` matrix.
fn filter_matrix<'a, T: Float>(f: &'a [T], g: &Geometry) -> ArrayView2<'a, T> {
    let k = g.kh * g.kw * (g.c_in / g.groups);
    ArrayView2::from_shape((k, g.c_out), f).expect("filter size checked")
}

/// The output channels of group `group`.
fn group_columns(g: &Geometry, group: usize) -> std::ops::Range<usize> {
    let cog = g.c_out / g.groups;
    group * cog..(group + 1) * cog
}

/// `conv2d`'s value: per block of images and group, `im2col(block) @ filter` written into
/// that group's output channels of the block's rows; `[positions, c_out]` is the NHWC
/// output, no reordering.
fn conv_values<T: Float>(x: &Tensor<T>, f: &Tensor<T>, g: &Geometry) -> ArrayD<T> {
    conv_values_then(x, f, g, |_| {})
}

/// [`conv_values`], with `finish` applied to each block's output rows (whole rows of
/// `c_out` channels, every element written) while they are still in cache: the fused
/// bias and ReLU.
fn conv_values_then<T: Float>(
    x: &Tensor<T>,
    f: &Tensor<T>,
    g: &Geometry,
    finish: impl Fn(&mut [T]) + Sync,
) -> ArrayD<T> {
    let (xs, fs) = (row_major(x), row_major(f));
    let fm = filter_matrix(&fs, g);
    let k = fm.nrows();
    let (in_image, out_image) = (g.h * g.w * g.c_in, g.oh * g.ow * g.c_out);
    let len = g.n * out_image;
    let mut out: Vec<T> = Vec::with_capacity(len);
    let (parts, per_block) = image_parts(g, std::mem::size_of::<T>());
    // a lone part runs on this thread, whose products may then use the second one
    let split = parts.len() < 2;
    let pieces = pieces_of(&mut out.spare_capacity_mut()[..len], &parts, out_image);
    crate::base::parallel::for_each_part(pieces, |_, (images, piece)| {
        for (block, bg) in blocks_of(images.clone(), per_block, g) {
            let rows = bg.positions();
            let at = (block.start - images.start) * out_image;
            let slots = &mut piece[at..at + block.len() * out_image];
            let mut o =
                ndarray::ArrayViewMut2::from_shape((rows, g.c_out), &mut *slots).expect("rows");
            with_scratch(rows * k, |cols: &mut [T]| {
                for group in 0..g.groups {
                    im2col(cols, images_of(&xs, &block, in_image), &bg, group);
                    let a = ArrayView2::from_shape((rows, k), &*cols).expect("rows x k");
                    let range = group_columns(g, group);
                    gemm_into(
                        &a,
                        &fm.slice(s![.., range.clone()]),
                        &mut o.slice_mut(s![.., range]),
                        split,
                    );
                }
            });
            // SAFETY: the groups' column ranges cover all `c_out` columns, and `gemm_into`
            // wrote every element of each.
            finish(unsafe { assume_written(slots) });
        }
    });
    // SAFETY: the parts cover every image and `for_each_part` returned (it resumes a
    // panic of any part instead), so every block of every part was written.
    unsafe { out.set_len(len) };
    ArrayD::from_shape_vec(IxDyn(&g.output_shape()), out).expect("positions x channels")
}

/// The output cotangent a gradient pass reads: `ḡ` itself, or, in the fused
/// `conv2d_bias_relu`'s rule, ReLU's share of it, `ḡ · [y > 0]` for the op's output `y`,
/// built block by block in a scratch buffer just before the block's product reads it (so
/// never an output-sized array of its own).
#[derive(Clone, Copy)]
struct Cotangent<'a, T> {
    grad: &'a [T],
    relu_output: Option<&'a [T]>,
}

impl<'a, T: Float> Cotangent<'a, T> {
    /// `ḡ` as it is.
    fn plain(grad: &'a [T]) -> Self {
        Cotangent {
            grad,
            relu_output: None,
        }
    }

    /// How much scratch [`rows`](Self::rows) needs for `len` elements.
    fn scratch_len(&self, len: usize) -> usize {
        if self.relu_output.is_some() { len } else { 0 }
    }

    /// The cotangent's elements for `images` (`per_image` each): `ḡ`'s own, or ReLU's
    /// share of them written into `scratch` (the product ReLU's rule records, `ḡ ·
    /// positive_mask(y)`, element by element, so the same values).
    fn rows<'s>(
        &self,
        images: &std::ops::Range<usize>,
        per_image: usize,
        scratch: &'s mut [T],
    ) -> &'s [T]
    where
        'a: 's,
    {
        let grad = images_of(self.grad, images, per_image);
        let Some(y) = self.relu_output else {
            return grad;
        };
        let masked = &mut scratch[..grad.len()];
        let y = images_of(y, images, per_image);
        for ((m, &g), &y) in masked.iter_mut().zip(grad).zip(y) {
            *m = g * positive_mask_of(y);
        }
        masked
    }
}

/// `conv2d_backprop_input`'s value: per block of images and group, `ḡ @ filterᵀ` (one row
/// per output position) added back onto the input positions each row came from, into the
/// block's images (zeroed by their part first).
fn backprop_input_values<T: Float>(
    cotangent: Cotangent<'_, T>,
    f: &Tensor<T>,
    g: &Geometry,
) -> ArrayD<T> {
    let fs = row_major(f);
    let fm = filter_matrix(&fs, g);
    let k = fm.nrows();
    let (in_image, out_image) = (g.h * g.w * g.c_in, g.oh * g.ow * g.c_out);
    let len = g.n * in_image;
    let mut dx: Vec<T> = Vec::with_capacity(len);
    let (parts, per_block) = image_parts(g, std::mem::size_of::<T>());
    let split = parts.len() < 2;
    let pieces = pieces_of(&mut dx.spare_capacity_mut()[..len], &parts, in_image);
    crate::base::parallel::for_each_part(pieces, |_, (images, piece)| {
        piece.fill(std::mem::MaybeUninit::new(T::ZERO));
        // SAFETY: just filled.
        let piece = unsafe { assume_written(piece) };
        for (block, bg) in blocks_of(images.clone(), per_block, g) {
            let rows = bg.positions();
            let at = (block.start - images.start) * in_image;
            let dx_block = &mut piece[at..at + block.len() * in_image];
            let masked = cotangent.scratch_len(rows * g.c_out);
            with_scratch(rows * k + masked, |scratch: &mut [T]| {
                let (cols, masked) = scratch.split_at_mut(rows * k);
                let gm = ArrayView2::from_shape(
                    (rows, g.c_out),
                    cotangent.rows(&block, out_image, masked),
                )
                .expect("output size checked");
                for group in 0..g.groups {
                    let range = group_columns(g, group);
                    let mut cm = ndarray::ArrayViewMut2::from_shape((rows, k), &mut *cols)
                        .expect("rows x k");
                    gemm_store(
                        &gm.slice(s![.., range.clone()]),
                        &fm.slice(s![.., range]).t(),
                        &mut cm,
                        false,
                        split,
                    );
                    col2im_add(dx_block, cols, &bg, group);
                }
            });
        }
    });
    // SAFETY: as in `conv_values_then`: every part filled its piece.
    unsafe { dx.set_len(len) };
    ArrayD::from_shape_vec(IxDyn(&g.input_shape()), dx).expect("input size")
}

/// `conv2d_backprop_filter`'s value: per group, `im2col(x)ᵀ @ ḡ` in that group's columns,
/// summed block by block into one sum per part of the batch, the parts' sums then added in
/// order (see [`image_parts`]: the same order whatever the thread count). With
/// `bias_sums`, also the cotangent summed over every position (the gradient of a bias
/// added per channel), in the same order: row after row within a part, then the parts'
/// sums in order.
fn backprop_filter_values<T: Float>(
    x: &Tensor<T>,
    cotangent: Cotangent<'_, T>,
    g: &Geometry,
    bias_sums: bool,
) -> (ArrayD<T>, Option<Vec<T>>) {
    let xs = row_major(x);
    let k = g.kh * g.kw * (g.c_in / g.groups);
    let (in_image, out_image) = (g.h * g.w * g.c_in, g.oh * g.ow * g.c_out);
    let (parts, per_block) = image_parts(g, std::mem::size_of::<T>());
    let split = parts.len() < 2;
    let bias_len = if bias_sums { g.c_out } else { 0 };
    let mut sums: Vec<(Vec<T>, Vec<T>)> = parts
        .iter()
        .map(|_| (vec![T::ZERO; k * g.c_out], vec![T::ZERO; bias_len]))
        .collect();
    let jobs: Vec<_> = parts.iter().cloned().zip(sums.iter_mut()).collect();
    crate::base::parallel::for_each_part(jobs, |_, (images, (sum, bias_sum))| {
        let mut sm =
            ndarray::ArrayViewMut2::from_shape((k, g.c_out), &mut sum[..]).expect("k x c_out");
        for (block, bg) in blocks_of(images, per_block, g) {
            let rows = bg.positions();
            let masked = cotangent.scratch_len(rows * g.c_out);
            with_scratch(rows * k + masked, |scratch: &mut [T]| {
                let (cols, masked) = scratch.split_at_mut(rows * k);
                let block_rows = cotangent.rows(&block, out_image, masked);
                if !bias_sum.is_empty() {
                    for row in block_rows.chunks_exact(g.c_out) {
                        for (b, &v) in bias_sum.iter_mut().zip(row) {
                            *b += v;
                        }
                    }
                }
                let gm = ArrayView2::from_shape((rows, g.c_out), block_rows)
                    .expect("output size checked");
                for group in 0..g.groups {
                    im2col(cols, images_of(&xs, &block, in_image), &bg, group);
                    let a = ArrayView2::from_shape((rows, k), &*cols).expect("rows x k");
                    let range = group_columns(g, group);
                    gemm_store(
                        &a.t(),
                        &gm.slice(s![.., range.clone()]),
                        &mut sm.slice_mut(s![.., range]),
                        true,
                        split,
                    );
                }
            });
        }
    });
    let mut sums = sums.into_iter();
    let (mut total, mut bias_total) = sums
        .next()
        .unwrap_or_else(|| (vec![T::ZERO; k * g.c_out], vec![T::ZERO; bias_len]));
    for (sum, bias_sum) in sums {
        for (t, v) in total.iter_mut().zip(sum) {
            *t += v;
        }
        for (t, v) in bias_total.iter_mut().zip(bias_sum) {
            *t += v;
        }
    }
    let filter = ArrayD::from_shape_vec(IxDyn(&g.filter_shape()), total).expect("filter size");
    (filter, bias_sums.then_some(bias_total))
}

/// `f` applied to a cotangent whose first axis is the batch of images, with a jacobian
/// sweep's `k` leading batch axes folded into that axis (the op treats each image alike,
/// so the extra examples are more images) and unfolded again in the result.
fn folded<T: Float>(
    cot: &Tensor<T>,
    k: usize,
    f: impl FnOnce(&Tensor<T>) -> Tensor<T>,
) -> Tensor<T> {
    if k == 0 {
        return f(cot);
    }
    let shape = cot.shape();
    let (lead, inner) = shape.split_at(k);
    let count: usize = lead.iter().product();
    let mut flat: Vec<usize> = inner.to_vec();
    flat[0] *= count;
    let out = f(&cot.reshape(&flat));
    let mut unfolded: Vec<usize> = lead.to_vec();
    unfolded.push(inner[0]);
    unfolded.extend_from_slice(&out.shape()[1..]);
    out.reshape(&unfolded)
}

/// `f` applied to each example of a cotangent with a jacobian sweep's `k` leading batch axes,
/// the results stacked behind the same axes (recorded slices, reshapes and a concatenation,
/// so an outer tape sees it all). For the rules whose batched operand is not the image
/// batch: a filter's cotangent, or the filter gradient of a batched cotangent.
fn per_example<T: Float>(
    cot: &Tensor<T>,
    k: usize,
    f: impl Fn(&Tensor<T>) -> Tensor<T>,
) -> Tensor<T> {
    if k == 0 {
        return f(cot);
    }
    let shape = cot.shape();
    let (lead, inner) = shape.split_at(k);
    let count: usize = lead.iter().product();
    let mut flat = vec![count];
    flat.extend_from_slice(inner);
    let flat = cot.reshape(&flat);
    let parts: Vec<Tensor<T>> = (0..count)
        .map(|i| {
            let one = f(&flat.slice(0, i, 1).reshape(inner));
            let mut with_axis = vec![1];
            with_axis.extend_from_slice(one.shape());
            one.reshape(&with_axis)
        })
        .collect();
    let refs: Vec<&Tensor<T>> = parts.iter().collect();
    let stacked = Tensor::concat(&refs, 0);
    let mut out_shape = lead.to_vec();
    out_shape.extend_from_slice(&stacked.shape()[1..]);
    stacked.reshape(&out_shape)
}

/// `shape` with its first (image batch) axis set to `n`.
fn with_batch(shape: [usize; 4], n: usize) -> [usize; 4] {
    [n, shape[1], shape[2], shape[3]]
}

impl<T: Float> Tensor<T> {
    /// The 2-D convolution (cross-correlation, as in every deep-learning library) of an NHWC
    /// input `[n, h, w, c_in]` with an HWIO filter `[kh, kw, c_in / groups, c_out]`:
    /// TensorFlow's `tf.nn.conv2d`, with its strides, `SAME`/`VALID` padding arithmetic,
    /// dilations, and groups (`groups = c_in` is a depthwise convolution). The result is
    /// `[n, oh, ow, c_out]`, with `oh`, `ow` as [`Padding::output_len`] says.
    ///
    /// Differentiable in both operands, to any order: its gradients are
    /// [`conv2d_backprop_input`](Self::conv2d_backprop_input) and
    /// [`conv2d_backprop_filter`](Self::conv2d_backprop_filter), recorded ops with rules of
    /// their own.
    ///
    /// ```
    /// use gradtape_runtime::{Conv2dOptions, Padding, Tensor};
    /// // a 3x3 image and a 2x2 filter of ones: each output sums a 2x2 block
    /// let x = Tensor::from_vec((1..=9).map(f64::from).collect(), &[1, 3, 3, 1]);
    /// let w = Tensor::ones(&[2, 2, 1, 1]);
    /// let y = x.conv2d(&w, Conv2dOptions::new());
    /// assert_eq!(y.shape(), &[1, 2, 2, 1]);
    /// assert_eq!(y.to_vec(), vec![12.0, 16.0, 24.0, 28.0]);
    /// let same = x.conv2d(&w, Conv2dOptions::new().padding(Padding::Same));
    /// assert_eq!(same.shape(), &[1, 3, 3, 1]);
    /// ```
    ///
    /// # Panics
    /// If the input or filter is not 4-D, the channels do not match (`c_in = filter[2] ·
    /// groups`), the groups do not divide both channel counts, a stride or dilation is zero,
    /// or the (dilated) filter is larger than the input under `Valid` padding; the message
    /// names the op and both shapes.
    #[track_caller]
    pub fn conv2d(&self, filter: &Tensor<T>, options: Conv2dOptions) -> Tensor<T> {
        let g = Geometry::conv("conv2d", self.shape(), filter.shape(), options);
        let data = Data::from_array(conv_values(self, filter, &g));
        let spec = |_: &Tensor<T>| NodeSpec {
            op: "conv2d",
            rule: static_rule(|ctx, g| match g {
                AnyTensor::F32(g) => conv2d_rule(ctx, g),
                AnyTensor::F64(g) => conv2d_rule(ctx, g),
            }),
            saved: smallvec![T::into_any(self.clone()), T::into_any(filter.clone())],
            params: g.params(),
        };
        // bilinear: d conv(x, w) = conv(dx, w) + conv(x, dw)
        let jvp = |t: &Tangents<'_>, out: &Tensor<T>| {
            let dx = t.of::<T>(0).map(|dx| dx.conv2d(filter, options));
            let dw = t.of::<T>(1).map(|dw| self.conv2d(dw, options));
            sum_tangents(dx, dw, out.shape())
        };
        stack::record(data, &[self.id(), filter.id()], spec, &jvp)
    }

    /// The gradient of [`conv2d`](Self::conv2d) with respect to its input, for this
    /// cotangent of its output `[n, oh, ow, c_out]`: TensorFlow's
    /// `tf.nn.conv2d_backprop_input` (a transposed convolution). Linear in `self` and in
    /// `filter`; `⟨conv2d_backprop_input(ḡ, w), x⟩ = ⟨conv2d(x, w), ḡ⟩` for every `x`.
    ///
    /// ```
    /// use gradtape_runtime::{Conv2dOptions, Tensor};
    /// // each output of a 2x2 filter of ones over a 3x3 image read a 2x2 block: the centre
    /// // was read by all four, the corners by one
    /// let g = Tensor::<f64>::ones(&[1, 2, 2, 1]);
    /// let w = Tensor::ones(&[2, 2, 1, 1]);
    /// let dx = g.conv2d_backprop_input(&w, &[1, 3, 3, 1], Conv2dOptions::new());
    /// assert_eq!(dx.to_vec(), vec![1.0, 2.0, 1.0, 2.0, 4.0, 2.0, 1.0, 2.0, 1.0]);
    /// ```
    ///
    /// # Panics
    /// As [`conv2d`](Self::conv2d) for `input_shape` and the filter, and if `self` is not
    /// the output shape they give.
    #[track_caller]
    pub fn conv2d_backprop_input(
        &self,
        filter: &Tensor<T>,
        input_shape: &[usize],
        options: Conv2dOptions,
    ) -> Tensor<T> {
        const OP: &str = "conv2d_backprop_input";
        let g = Geometry::conv(OP, input_shape, filter.shape(), options);
        assert!(
            self.shape() == g.output_shape(),
            "{OP}: the output gradient has shape {:?}, the input {input_shape:?} and filter {:?} give outputs of shape {:?}",
            self.shape(),
            filter.shape(),
            g.output_shape()
        );
        let gs = row_major(self);
        let data = Data::from_array(backprop_input_values(Cotangent::plain(&gs), filter, &g));
        let spec = |_: &Tensor<T>| NodeSpec {
            op: OP,
            rule: static_rule(|ctx, g| match g {
                AnyTensor::F32(g) => backprop_input_rule(ctx, g),
                AnyTensor::F64(g) => backprop_input_rule(ctx, g),
            }),
            saved: smallvec![T::into_any(self.clone()), T::into_any(filter.clone())],
            params: g.params(),
        };
        // bilinear in (ḡ, w)
        let jvp = |t: &Tangents<'_>, out: &Tensor<T>| {
            let dg = t
                .of::<T>(0)
                .map(|dg| dg.conv2d_backprop_input(filter, input_shape, options));
            let dw = t
                .of::<T>(1)
                .map(|dw| self.conv2d_backprop_input(dw, input_shape, options));
            sum_tangents(dg, dw, out.shape())
        };
        stack::record(data, &[self.id(), filter.id()], spec, &jvp)
    }

    /// The gradient of [`conv2d`](Self::conv2d) with respect to its filter, for this input
    /// and the cotangent `grad` of the output: TensorFlow's `tf.nn.conv2d_backprop_filter`.
    /// Linear in `self` and in `grad`; `⟨conv2d_backprop_filter(x, ḡ), w⟩ = ⟨conv2d(x, w),
    /// ḡ⟩` for every `w`.
    ///
    /// ```
    /// use gradtape_runtime::{Conv2dOptions, Tensor};
    /// // with ḡ all ones, filter tap (i, j) sums the inputs it met: a 2x2 block sum each
    /// let x = Tensor::from_vec((1..=9).map(f64::from).collect(), &[1, 3, 3, 1]);
    /// let g = Tensor::ones(&[1, 2, 2, 1]);
    /// let dw = x.conv2d_backprop_filter(&g, &[2, 2, 1, 1], Conv2dOptions::new());
    /// assert_eq!(dw.to_vec(), vec![12.0, 16.0, 24.0, 28.0]);
    /// ```
    ///
    /// # Panics
    /// As [`conv2d`](Self::conv2d) for the input and `filter_shape`, and if `grad` is not
    /// the output shape they give.
    #[track_caller]
    pub fn conv2d_backprop_filter(
        &self,
        grad: &Tensor<T>,
        filter_shape: &[usize],
        options: Conv2dOptions,
    ) -> Tensor<T> {
        const OP: &str = "conv2d_backprop_filter";
        let g = Geometry::conv(OP, self.shape(), filter_shape, options);
        assert!(
            grad.shape() == g.output_shape(),
            "{OP}: the output gradient has shape {:?}, the input {:?} and filter {filter_shape:?} give outputs of shape {:?}",
            grad.shape(),
            self.shape(),
            g.output_shape()
        );
        let gs = row_major(grad);
        let (values, _) = backprop_filter_values(self, Cotangent::plain(&gs), &g, false);
        let data = Data::from_array(values);
        let spec = |_: &Tensor<T>| NodeSpec {
            op: OP,
            rule: static_rule(|ctx, g| match g {
                AnyTensor::F32(g) => backprop_filter_rule(ctx, g),
                AnyTensor::F64(g) => backprop_filter_rule(ctx, g),
            }),
            saved: smallvec![T::into_any(self.clone()), T::into_any(grad.clone())],
            params: g.params(),
        };
        // bilinear in (x, ḡ)
        let jvp = |t: &Tangents<'_>, out: &Tensor<T>| {
            let dx = t
                .of::<T>(0)
                .map(|dx| dx.conv2d_backprop_filter(grad, filter_shape, options));
            let dg = t
                .of::<T>(1)
                .map(|dg| self.conv2d_backprop_filter(dg, filter_shape, options));
            sum_tangents(dx, dg, out.shape())
        };
        stack::record(data, &[self.id(), grad.id()], spec, &jvp)
    }
}

impl<T: Float> Tensor<T> {
    /// `relu(conv2d(self, filter) + bias)` as one op: a convolution layer with a `[c_out]`
    /// bias and a ReLU (Keras' `Conv2D(activation="relu")`). The same values, to the bit, as
    /// [`conv2d`](Self::conv2d), `+ bias` and [`relu`](Self::relu) one after the other, and
    /// the same gradients (those of `self` and `filter` to the bit, the bias's summed in
    /// another order, so within rounding), with fewer passes over the output and no
    /// output-sized temporaries: the bias and the ReLU are applied to each block of the
    /// product as it is written, and the rule takes ReLU's mask from the output it keeps and
    /// applies it block by block inside the gradients' own passes.
    ///
    /// Differentiable in all three operands, to any order (its rule is written in
    /// `conv2d`'s gradient ops and recorded masks and sums).
    ///
    /// ```
    /// use gradtape_runtime::{Conv2dOptions, Tensor};
    /// // a 3x3 image and a 2x2 filter of ones: block sums 12, 16, 24, 28
    /// let x = Tensor::from_vec((1..=9).map(f64::from).collect(), &[1, 3, 3, 1]);
    /// let w = Tensor::ones(&[2, 2, 1, 1]);
    /// let b = Tensor::from_vec(vec![-20.0], &[1]);
    /// let y = x.conv2d_bias_relu(&w, &b, Conv2dOptions::new());
    /// assert_eq!(y.to_vec(), vec![0.0, 0.0, 4.0, 8.0]);
    /// assert_eq!(y.to_vec(), (x.conv2d(&w, Conv2dOptions::new()) + &b).relu().to_vec());
    /// ```
    ///
    /// # Panics
    /// As [`conv2d`](Self::conv2d), and if `bias` is not `[c_out]` (the filter's last
    /// axis); the message names the op and the shapes.
    #[track_caller]
    pub fn conv2d_bias_relu(
        &self,
        filter: &Tensor<T>,
        bias: &Tensor<T>,
        options: Conv2dOptions,
    ) -> Tensor<T> {
        const OP: &str = "conv2d_bias_relu";
        let g = Geometry::conv(OP, self.shape(), filter.shape(), options);
        assert!(
            bias.shape() == [g.c_out],
            "{OP}: the bias must be [{}], one per output channel, got shape {:?} (input {:?}, filter {:?})",
            g.c_out,
            bias.shape(),
            self.shape(),
            filter.shape()
        );
        let bias_values = row_major(bias);
        let values = conv_values_then(self, filter, &g, |rows| add_bias_relu(rows, &bias_values));
        let data = Data::from_array(values);
        let spec = |out: &Tensor<T>| NodeSpec {
            op: OP,
            rule: static_rule(|ctx, g| match g {
                AnyTensor::F32(g) => conv2d_bias_relu_rule(ctx, g),
                AnyTensor::F64(g) => conv2d_bias_relu_rule(ctx, g),
            }),
            saved: smallvec![
                T::into_any(self.clone()),
                T::into_any(filter.clone()),
                T::into_any(out.clone())
            ],
            params: g.params(),
        };
        // d relu(conv(x, w) + b) = [y > 0] · (conv(dx, w) + conv(x, dw) + db)
        let jvp = |t: &Tangents<'_>, out: &Tensor<T>| {
            let dx = t.of::<T>(0).map(|dx| dx.conv2d(filter, options));
            let dw = t.of::<T>(1).map(|dw| self.conv2d(dw, options));
            let linear = sum_tangents(dx, dw, out.shape());
            sum_tangents(linear, t.of::<T>(2).cloned(), out.shape())
                .map(|d| d.mul(&out.positive_mask()))
        };
        stack::record(data, &[self.id(), filter.id(), bias.id()], spec, &jvp)
    }
}

/// `relu(v + bias[c])` for each element `v` of channel `c` in `values`, whole NHWC rows of
/// `bias.len()` channels, in place: the arithmetic of `+ bias` then `relu` (one rounding,
/// then the select), each element alone. Called on each block of the product as it is
/// written ([`conv_values_then`]), while the block is in cache.
fn add_bias_relu<T: Float>(values: &mut [T], bias: &[T]) {
    if bias.is_empty() {
        return;
    }
    for row in values.chunks_exact_mut(bias.len()) {
        for (v, &b) in row.iter_mut().zip(bias) {
            *v = relu_value(*v + b);
        }
    }
}

/// y = relu(conv(x, w) + b): with m = ḡ·[y > 0] (ReLU's rule, its mask read from y),
/// x̄ = conv2d_backprop_input(m, w), w̄ = conv2d_backprop_filter(x, m) and b̄ = m summed
/// over the images and positions.
///
/// When nothing records and there is no jacobian batch, directly: m is never an array of
/// its own but built block by block inside the two gradient passes ([`Cotangent`]), and b̄
/// summed in the filter gradient's pass. x̄ and w̄ are then the same bits as through the
/// recorded ops; b̄ is summed by part of the batch (rows in order within a part, the parts'
/// sums in order: the same bits with one thread or two), not in `sum_to_shape`'s order, so
/// it matches the composition within rounding. Otherwise with those recorded ops, which is
/// what makes second order and batched sweeps work.
fn conv2d_bias_relu_rule<T: Float>(ctx: &RuleCtx<'_>, g: &Tensor<T>) -> InputGrads {
    let (x, w, y) = (
        ctx.saved[0].typed::<T>(),
        ctx.saved[1].typed::<T>(),
        ctx.saved[2].typed::<T>(),
    );
    if ctx.unrecorded && batch_rank() == 0 {
        let (x_shape, w_shape, options) = conv_params(ctx.params);
        let geometry = Geometry::conv("conv2d_bias_relu", &x_shape, &w_shape, options);
        let (gs, ys) = (row_major(g), row_major(y));
        let m = Cotangent {
            grad: &gs,
            relu_output: Some(&ys),
        };
        let gx = ctx.needs[0]
            .then(|| T::into_any(super::constant(backprop_input_values(m, w, &geometry))));
        // b̄ comes from the filter gradient's pass, run (and w̄ dropped) if only b̄ is needed
        let (gw, gb) = if ctx.needs[1] || ctx.needs[2] {
            let (gw, gb) = backprop_filter_values(x, m, &geometry, ctx.needs[2]);
            let gb = gb.map(|sums| {
                let sums = ArrayD::from_shape_vec(IxDyn(&[w_shape[3]]), sums).expect("c_out");
                T::into_any(super::constant(sums))
            });
            (ctx.needs[1].then(|| T::into_any(super::constant(gw))), gb)
        } else {
            (None, None)
        };
        return smallvec![gx, gw, gb];
    }
    let channels = w.shape()[3];
    let masked = g.mul(&y.positive_mask());
    let gb = ctx.needs[2].then(|| masked.sum_to_batched(&[channels]));
    let (gx, gw) = conv_grads(ctx, x, w, &masked);
    smallvec![gx, gw, gb.map(T::into_any)]
}

/// y = conv(x, w): x̄ = conv2d_backprop_input(ḡ, w), w̄ = conv2d_backprop_filter(x, ḡ).
fn conv2d_rule<T: Float>(ctx: &RuleCtx<'_>, g: &Tensor<T>) -> InputGrads {
    let (x, w) = (ctx.saved[0].typed::<T>(), ctx.saved[1].typed::<T>());
    let (gx, gw) = conv_grads(ctx, x, w, g);
    smallvec![gx, gw]
}

/// The convolution's two cotangents for the cotangent `g` of its output (with a jacobian
/// sweep's leading batch axes), each only where `ctx.needs` asks: x̄ =
/// conv2d_backprop_input(ḡ, w), w̄ = conv2d_backprop_filter(x, ḡ).
fn conv_grads<T: Float>(
    ctx: &RuleCtx<'_>,
    x: &Tensor<T>,
    w: &Tensor<T>,
    g: &Tensor<T>,
) -> (Option<AnyTensor>, Option<AnyTensor>) {
    let (x_shape, w_shape, options) = conv_params(ctx.params);
    let k = batch_rank();
    let gx = ctx.needs[0].then(|| {
        T::into_any(folded(g, k, |g| {
            g.conv2d_backprop_input(w, &with_batch(x_shape, g.shape()[0]), options)
        }))
    });
    let gw = ctx.needs[1].then(|| {
        T::into_any(per_example(g, k, |g| {
            x.conv2d_backprop_filter(g, &w_shape, options)
        }))
    });
    (gx, gw)
}

/// z = B(ḡ, w) with ⟨B(ḡ, w), h⟩ = ⟨conv(h, w), ḡ⟩: for a cotangent h of z,
/// ∂/∂ḡ = conv(h, w) and ∂/∂w = conv2d_backprop_filter(h, ḡ).
fn backprop_input_rule<T: Float>(ctx: &RuleCtx<'_>, h: &Tensor<T>) -> InputGrads {
    let (g, w) = (ctx.saved[0].typed::<T>(), ctx.saved[1].typed::<T>());
    let (_, w_shape, options) = conv_params(ctx.params);
    let k = batch_rank();
    let gg = ctx.needs[0].then(|| T::into_any(folded(h, k, |h| h.conv2d(w, options))));
    let gw = ctx.needs[1].then(|| {
        T::into_any(per_example(h, k, |h| {
            h.conv2d_backprop_filter(g, &w_shape, options)
        }))
    });
    smallvec![gg, gw]
}

/// z = F(x, ḡ) with ⟨F(x, ḡ), v⟩ = ⟨conv(x, v), ḡ⟩: for a cotangent v of z,
/// ∂/∂x = conv2d_backprop_input(ḡ, v) and ∂/∂ḡ = conv(x, v).
fn backprop_filter_rule<T: Float>(ctx: &RuleCtx<'_>, v: &Tensor<T>) -> InputGrads {
    let (x, g) = (ctx.saved[0].typed::<T>(), ctx.saved[1].typed::<T>());
    let (x_shape, _, options) = conv_params(ctx.params);
    let k = batch_rank();
    let gx = ctx.needs[0].then(|| {
        T::into_any(per_example(v, k, |v| {
            g.conv2d_backprop_input(v, &x_shape, options)
        }))
    });
    let gg = ctx.needs[1].then(|| T::into_any(per_example(v, k, |v| x.conv2d(v, options))));
    smallvec![gx, gg]
}

impl<T: Float> Tensor<T> {
    /// The maximum over each `ksize` window of an NHWC input `[n, h, w, c]`, moved by
    /// `strides`, per channel: TensorFlow's `tf.nn.max_pool2d`. Under `Same` padding the
    /// padded positions are never the maximum. The gradient goes to each window's maximum,
    /// to the first in row-major order where several are equal (as TensorFlow's).
    ///
    /// ```
    /// use gradtape_runtime::{Padding, Tensor};
    /// let x = Tensor::from_vec((1..=16).map(f64::from).collect(), &[1, 4, 4, 1]);
    /// let y = x.max_pool2d((2, 2), (2, 2), Padding::Valid);
    /// assert_eq!(y.to_vec(), vec![6.0, 8.0, 14.0, 16.0]);
    /// ```
    ///
    /// # Panics
    /// If the input is not 4-D, a window size or stride is zero, or the window is larger
    /// than the input under `Valid` padding.
    #[track_caller]
    pub fn max_pool2d(
        &self,
        ksize: (usize, usize),
        strides: (usize, usize),
        padding: Padding,
    ) -> Tensor<T> {
        let g = Geometry::pool("max_pool2d", self.shape(), ksize, strides, padding);
        let data = Data::from_array(max_pool_values(self, &g));
        // Only the values are computed and kept: the rule finds each window's maximum
        // again from the input and this output (TensorFlow's `MaxPoolGrad` takes the same
        // three), where keeping an argmax cost a `usize` per output written in the forward.
        let spec = |out: &Tensor<T>| NodeSpec {
            op: "max_pool2d",
            // x̄ = ḡ added at each window's first maximum
            rule: static_rule(routed_rule::<true>),
            saved: smallvec![T::into_any(self.clone()), T::into_any(out.clone())],
            params: g.params(),
        };
        // piecewise linear: the tangent at each window's first maximum
        let jvp = |t: &Tangents<'_>, out: &Tensor<T>| {
            t.of::<T>(0)
                .map(|t| t.max_pool2d_routed(self, out, ksize, strides, padding, Route::Gather))
        };
        stack::record(data, &[self.id()], spec, &jvp)
    }

    /// Max pooling's routing applied to this tensor (with any leading batch axes), one of
    /// two recorded ops, each linear in `self` (so its JVP is itself applied to the
    /// tangent) and the other's transpose (so each is the other's rule, which gives every
    /// order). `input` and `output` are the pooling's, constants here: the routing is
    /// piecewise constant in them.
    ///
    /// - `Route::Scatter`, `max_pool2d_backprop` (TensorFlow's `MaxPoolGrad`, the rule of
    ///   [`max_pool2d`](Self::max_pool2d)): each element of this output-shaped cotangent
    ///   added at its window's first maximum in `input`, the pooling's `output` saying
    ///   which value that is.
    /// - `Route::Gather`, `max_pool2d_select` (`MaxPoolGradGrad`, max pooling's JVP): the
    ///   elements of this input-shaped tensor at each window's first maximum, shaped as
    ///   `output`.
    #[track_caller]
    fn max_pool2d_routed(
        &self,
        input: &Tensor<T>,
        output: &Tensor<T>,
        ksize: (usize, usize),
        strides: (usize, usize),
        padding: Padding,
        route: Route,
    ) -> Tensor<T> {
        let op = route.op();
        let g = Geometry::pool(op, input.shape(), ksize, strides, padding);
        let expected = match route {
            Route::Scatter => g.output_shape(),
            Route::Gather => g.input_shape(),
        };
        let lead = check_routed(op, self, output, &expected, &g);
        let data = Data::from_array(max_pool_route(input, output, self, lead, &g, route));
        let spec = |_: &Tensor<T>| NodeSpec {
            op,
            rule: match route {
                Route::Scatter => static_rule(routed_rule::<false>),
                Route::Gather => static_rule(routed_rule::<true>),
            },
            saved: smallvec![T::into_any(input.clone()), T::into_any(output.clone())],
            params: g.params(),
        };
        let jvp = |t: &Tangents<'_>, _: &Tensor<T>| {
            t.of::<T>(0)
                .map(|t| t.max_pool2d_routed(input, output, ksize, strides, padding, route))
        };
        stack::record(data, &[self.id()], spec, &jvp)
    }
}

/// Which way a cotangent crosses max pooling's routing (each window's first maximum).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    /// Output-shaped in, input-shaped out: each element added at its window's maximum.
    Scatter,
    /// Input-shaped in, output-shaped out: the element at each window's maximum.
    Gather,
}

impl Route {
    /// The op that routes this way (its row in the vocabulary).
    fn op(self) -> &'static str {
        match self {
            Route::Scatter => "max_pool2d_backprop",
            Route::Gather => "max_pool2d_select",
        }
    }
}

/// The rule of a node that saved a max pooling's input and output: the cotangent routed by
/// `Scatter` (added at each window's first maximum) or, for `SCATTER = false`, by `Gather`.
fn routed_rule<const SCATTER: bool>(ctx: &RuleCtx<'_>, g: &AnyTensor) -> InputGrads {
    let route = if SCATTER {
        Route::Scatter
    } else {
        Route::Gather
    };
    smallvec![Some(match g {
        AnyTensor::F32(g) => AnyTensor::F32(max_pool_routed(ctx, g, route)),
        AnyTensor::F64(g) => AnyTensor::F64(max_pool_routed(ctx, g, route)),
    })]
}

/// A max pooling rule's result for the cotangent `c` of a node that saved the pooling's
/// input and output and keeps its geometry: `max_pool2d_backprop` (`Scatter`) or
/// `max_pool2d_select` (`Gather`) applied to `c`.
fn max_pool_routed<T: Float>(ctx: &RuleCtx<'_>, c: &Tensor<T>, route: Route) -> Tensor<T> {
    let (x, y) = (ctx.saved[0].typed::<T>(), ctx.saved[1].typed::<T>());
    let (_, [kh, kw, ..], o) = conv_params(ctx.params);
    c.max_pool2d_routed(x, y, (kh, kw), o.strides, o.padding, route)
}

/// Checks that `output` is the pooling's output shape and that `c` is `expected` behind
/// any leading batch axes; returns those leading axes.
#[track_caller]
fn check_routed<'a, T: Float>(
    op: &str,
    c: &'a Tensor<T>,
    output: &Tensor<T>,
    expected: &[usize],
    g: &Geometry,
) -> &'a [usize] {
    let shape = c.shape();
    assert!(
        output.shape() == g.output_shape()
            && shape.len() >= 4
            && &shape[shape.len() - 4..] == expected,
        "{op}: the pooling's input {:?} gives outputs of shape {:?}; got an output of shape {:?} and an operand of shape {shape:?} (expected {expected:?} behind any batch axes)",
        g.input_shape(),
        g.output_shape(),
        output.shape()
    );
    &shape[..shape.len() - 4]
}

/// Whether input value `v` is the maximum `top` its window gave (NaN matching NaN: a
/// window whose first element is NaN pools to it).
#[inline]
fn is_the_max<T: Float>(v: T, top: T) -> bool {
    // `|` and `&`, not `||` and `&&`: no branch, so the channel loops vectorise
    (v == top) | (v.is_nan() & top.is_nan())
}

/// `c` (with `lead` batch axes) routed through max pooling of input `x` to output `y`:
/// scattered to (`Scatter`) or gathered from (`Gather`) each window's first maximum in
/// row-major order, which the forward kept (it replaces a maximum only with a strictly
/// greater value, so the first element equal to the window's value is the one).
fn max_pool_route<T: Float>(
    x: &Tensor<T>,
    y: &Tensor<T>,
    c: &Tensor<T>,
    lead: &[usize],
    g: &Geometry,
    route: Route,
) -> ArrayD<T> {
    let (xs, ys, cs) = (row_major(x), row_major(y), row_major(c));
    let (x_len, y_len) = (xs.len(), ys.len());
    let (from_len, to_len, to_shape) = match route {
        Route::Scatter => (y_len, x_len, g.input_shape()),
        Route::Gather => (x_len, y_len, g.output_shape()),
    };
    let len = lead.iter().product::<usize>() * to_len;
    let out = if route == Route::Scatter && from_len > 0 && to_len > 0 && g.tiles_input() {
        // every element written once: no zeros first (an 11 MB fill per step in W8)
        let mut out: Vec<T> = Vec::with_capacity(len);
        over_routed_parts(
            &mut out.spare_capacity_mut()[..len],
            (&cs, &xs, &ys),
            g,
            route,
            |part, to, [from, xs, ys]| {
                scatter(to, from, xs, ys, part, |d, share| {
                    _ = d.write(T::ZERO + share)
                });
            },
        );
        // SAFETY: the windows tile each image (`tiles_input`: disjoint, covering every
        // position), so `scatter` wrote every element of every image of every lead index.
        unsafe { out.set_len(len) };
        out
    } else {
        let mut out = crate::base::parallel::filled(len, T::ZERO);
        over_routed_parts(
            &mut out,
            (&cs, &xs, &ys),
            g,
            route,
            |part, to, [from, xs, ys]| match route {
                Route::Scatter => scatter(to, from, xs, ys, part, |d, share| *d += share),
                Route::Gather => gather(to, from, xs, ys, part),
            },
        );
        out
    };
    let shape: Vec<usize> = lead.iter().chain(&to_shape).copied().collect();
    ArrayD::from_shape_vec(IxDyn(&shape), out).expect("routed size")
}

/// `visit(part, to, [from, xs, ys])` for [`max_pool_route`]: per lead index, its `to` in
/// `out` and its `from` in `cs` (images of the pooling's input or output, as `route` says),
/// part by part of the images ([`over_image_parts`]), beside the slices of the pooling's
/// input `xs` and output `ys` those images own. Nothing to visit when either side is empty.
fn over_routed_parts<T: Float, E: Send>(
    out: &mut [E],
    (cs, xs, ys): (&[T], &[T], &[T]),
    g: &Geometry,
    route: Route,
    visit: impl Fn(&Geometry, &mut [E], [&[T]; 3]) + Sync,
) {
    let (x_image, y_image) = (g.h * g.w * g.c_in, g.oh * g.ow * g.c_in);
    let (from_image, to_image) = match route {
        Route::Scatter => (y_image, x_image),
        Route::Gather => (x_image, y_image),
    };
    let (from_len, to_len) = (g.n * from_image, g.n * to_image);
    if from_len == 0 || to_len == 0 {
        return;
    }
    for (to, from) in out.chunks_exact_mut(to_len).zip(cs.chunks_exact(from_len)) {
        over_image_parts(g, to, |part, images, to| {
            let from = images_of(from, &images, from_image);
            let (xs, ys) = (
                images_of(xs, &images, x_image),
                images_of(ys, &images, y_image),
            );
            visit(part, to, [from, xs, ys]);
        });
    }
}

/// [`max_pool_route`]'s scatter over the images `g` describes: each window's cotangent in
/// `from` handed to `store` at the window's first maximum, and zero at its other taps, the
/// pooling's input `xs` and output `ys` saying where. `store` adds onto zeros, or, where
/// the windows tile the input, writes (`0 + share`: the same bits as the addition, a
/// `-0.0` share included).
fn scatter<T: Float, S>(
    to: &mut [S],
    from: &[T],
    xs: &[T],
    ys: &[T],
    g: &Geometry,
    store: impl Fn(&mut S, T),
) {
    let ch = g.c_in;
    // Selects over contiguous channel rows, not branches (which tap holds the maximum is
    // a coin toss on real data) and not a flag per channel: one vector compare and blend
    // per row. Per channel, the part of the window's cotangent not yet routed:
    let mut pending = vec![T::ZERO; ch];
    each_window(g, |o, taps| {
        let top = &ys[o..o + ch];
        pending.copy_from_slice(&from[o..o + ch]);
        for &at in taps {
            let (d, v) = (&mut to[at..at + ch], &xs[at..at + ch]);
            for (((d, &v), &top), p) in d.iter_mut().zip(v).zip(top).zip(&mut pending) {
                // routed once: what is stored is taken out of `pending`
                let hit = is_the_max(v, top);
                store(d, if hit { *p } else { T::ZERO });
                *p = if hit { T::ZERO } else { *p };
            }
        }
    })
}

/// [`max_pool_route`]'s gather over the images `g` describes: into `to` (zeros) the
/// element of `from` at each window's first maximum.
fn gather<T: Float>(to: &mut [T], from: &[T], xs: &[T], ys: &[T], g: &Geometry) {
    let ch = g.c_in;
    each_window(g, |o, taps| {
        let (d, top) = (&mut to[o..o + ch], &ys[o..o + ch]);
        // the last tap first, so that the first maximum's value is the one kept
        for &at in taps.iter().rev() {
            let (v, h) = (&xs[at..at + ch], &from[at..at + ch]);
            for (((d, &v), &top), &h) in d.iter_mut().zip(v).zip(top).zip(h) {
                *d = if is_the_max(v, top) { h } else { *d };
            }
        }
    })
}

/// Calls `visit(o, taps)` for each pooling window in output order: `o` the flat output
/// index of its first channel, `taps` the flat input index of the first channel of each
/// of its positions inside the input, in row-major order.
fn each_window(g: &Geometry, mut visit: impl FnMut(usize, &[usize])) {
    let c = g.c_in;
    let mut taps: Vec<usize> = Vec::with_capacity(g.kh * g.kw);
    let mut o = 0;
    for b in 0..g.n {
        for oy in 0..g.oh {
            for ox in 0..g.ow {
                taps.clear();
                for ky in 0..g.kh {
                    for kx in 0..g.kw {
                        if let Some((iy, ix)) = g.tap(oy, ox, ky, kx) {
                            taps.push(((b * g.h + iy) * g.w + ix) * c);
                        }
                    }
                }
                visit(o, &taps);
                o += c;
            }
        }
    }
}

/// Max pooling's values: per window and channel the maximum, the first tap's value
/// replaced only by a strictly greater one (so a NaN is kept only as the first tap).
fn max_pool_values<T: Float>(x: &Tensor<T>, g: &Geometry) -> ArrayD<T> {
    let xs = row_major(x);
    let mut values = crate::base::parallel::filled(g.positions() * g.c_in, T::ZERO);
    let per_image = g.h * g.w * g.c_in;
    over_image_parts(g, &mut values, |part, images, values| {
        max_pool_values_into(values, images_of(&xs, &images, per_image), part);
    });
    ArrayD::from_shape_vec(IxDyn(&g.output_shape()), values).expect("output size")
}

/// [`max_pool_values`]' pass: the maxima of the images of `xs` (as `g` describes them)
/// written into `values`.
fn max_pool_values_into<T: Float>(values: &mut [T], xs: &[T], g: &Geometry) {
    let c = g.c_in;
    if c == 0 {
        return;
    }
    let mut windows = values.chunks_exact_mut(c);
    for b in 0..g.n {
        for oy in 0..g.oh {
            for ox in 0..g.ow {
                let top = windows.next().expect("one row of channels per position");
                // a window always has a real position (SAME pads less than a window)
                let mut first = true;
                for ky in 0..g.kh {
                    for kx in 0..g.kw {
                        let Some((iy, ix)) = g.tap(oy, ox, ky, kx) else {
                            continue;
                        };
                        let base = ((b * g.h + iy) * g.w + ix) * c;
                        let row = &xs[base..base + c];
                        if first {
                            top.copy_from_slice(row);
                            first = false;
                        } else {
                            // a select over contiguous channels: one vector max each
                            for (t, &v) in top.iter_mut().zip(row) {
                                *t = if v > *t { v } else { *t };
                            }
                        }
                    }
                }
            }
        }
    }
}

impl<T: Float> Tensor<T> {
    /// The mean over each `ksize` window of an NHWC input `[n, h, w, c]`, moved by
    /// `strides`, per channel: TensorFlow's `tf.nn.avg_pool2d`. Under `Same` padding the
    /// padded positions are not counted (a corner window of a 2x2 pool may average one
    /// element).
    ///
    /// ```
    /// use gradtape_runtime::{Padding, Tensor};
    /// let x = Tensor::from_vec((1..=9).map(f64::from).collect(), &[1, 3, 3, 1]);
    /// // SAME with stride 2: windows at rows/columns {0, 1} and {2}
    /// let y = x.avg_pool2d((2, 2), (2, 2), Padding::Same);
    /// assert_eq!(y.to_vec(), vec![3.0, 4.5, 7.5, 9.0]);
    /// ```
    ///
    /// # Panics
    /// As [`max_pool2d`](Self::max_pool2d).
    #[track_caller]
    pub fn avg_pool2d(
        &self,
        ksize: (usize, usize),
        strides: (usize, usize),
        padding: Padding,
    ) -> Tensor<T> {
        let g = Geometry::pool("avg_pool2d", self.shape(), ksize, strides, padding);
        let data = Data::from_array(avg_pool_values(self, &g));
        let spec = |_: &Tensor<T>| NodeSpec {
            op: "avg_pool2d",
            // linear: x̄ = the transpose applied to ḡ
            rule: static_rule(|ctx, g| {
                let (x_shape, [kh, kw, ..], o) = conv_params(ctx.params);
                let k = batch_rank();
                smallvec![Some(match g {
                    AnyTensor::F32(g) => AnyTensor::F32(folded(g, k, |g| {
                        g.avg_pool2d_backprop(
                            &with_batch(x_shape, g.shape()[0]),
                            (kh, kw),
                            o.strides,
                            o.padding,
                        )
                    })),
                    AnyTensor::F64(g) => AnyTensor::F64(folded(g, k, |g| {
                        g.avg_pool2d_backprop(
                            &with_batch(x_shape, g.shape()[0]),
                            (kh, kw),
                            o.strides,
                            o.padding,
                        )
                    })),
                })]
            }),
            saved: smallvec![],
            params: g.params(),
        };
        // linear: the op applied to the tangent
        let jvp = |t: &Tangents<'_>, _: &Tensor<T>| {
            t.of::<T>(0).map(|t| t.avg_pool2d(ksize, strides, padding))
        };
        stack::record(data, &[self.id()], spec, &jvp)
    }

    /// The gradient of [`avg_pool2d`](Self::avg_pool2d) for this cotangent of its output:
    /// each element divided by its window's count and added over the window
    /// (TensorFlow's `AvgPoolGrad`), an input of `input_shape`. Linear; its gradient is
    /// `avg_pool2d` itself.
    ///
    /// ```
    /// use gradtape_runtime::{Padding, Tensor};
    /// let g = Tensor::<f64>::ones(&[1, 1, 1, 1]);
    /// let dx = g.avg_pool2d_backprop(&[1, 2, 2, 1], (2, 2), (2, 2), Padding::Valid);
    /// assert_eq!(dx.to_vec(), vec![0.25; 4]);
    /// ```
    ///
    /// # Panics
    /// As [`avg_pool2d`](Self::avg_pool2d) for `input_shape`, and if `self` is not the
    /// output shape it gives.
    #[track_caller]
    pub fn avg_pool2d_backprop(
        &self,
        input_shape: &[usize],
        ksize: (usize, usize),
        strides: (usize, usize),
        padding: Padding,
    ) -> Tensor<T> {
        const OP: &str = "avg_pool2d_backprop";
        let g = Geometry::pool(OP, input_shape, ksize, strides, padding);
        assert!(
            self.shape() == g.output_shape(),
            "{OP}: the output gradient has shape {:?}, the input {input_shape:?} and window {ksize:?} give outputs of shape {:?}",
            self.shape(),
            g.output_shape()
        );
        let data = Data::from_array(avg_pool_backprop_values(self, &g));
        let spec = |_: &Tensor<T>| NodeSpec {
            op: OP,
            // linear, the transpose of average pooling: ḡ = avg_pool2d(h)
            rule: static_rule(|ctx, h| {
                let (_, [kh, kw, ..], o) = conv_params(ctx.params);
                let k = batch_rank();
                smallvec![Some(match h {
                    AnyTensor::F32(h) => AnyTensor::F32(folded(h, k, |h| h.avg_pool2d(
                        (kh, kw),
                        o.strides,
                        o.padding
                    ))),
                    AnyTensor::F64(h) => AnyTensor::F64(folded(h, k, |h| h.avg_pool2d(
                        (kh, kw),
                        o.strides,
                        o.padding
                    ))),
                })]
            }),
            saved: smallvec![],
            params: g.params(),
        };
        // linear: the op applied to the tangent
        let jvp = |t: &Tangents<'_>, _: &Tensor<T>| {
            t.of::<T>(0)
                .map(|t| t.avg_pool2d_backprop(input_shape, ksize, strides, padding))
        };
        stack::record(data, &[self.id()], spec, &jvp)
    }
}

/// The number of input positions window (`oy`, `ox`) covers (the padding not counted).
fn window_count(g: &Geometry, oy: usize, ox: usize) -> usize {
    let mut count = 0;
    for ky in 0..g.kh {
        for kx in 0..g.kw {
            count += usize::from(g.tap(oy, ox, ky, kx).is_some());
        }
    }
    count
}

fn avg_pool_values<T: Float>(x: &Tensor<T>, g: &Geometry) -> ArrayD<T> {
    let xs = row_major(x);
    let c = g.c_in;
    let mut values = Vec::with_capacity(g.positions() * c);
    let mut sum = vec![T::ZERO; c];
    for b in 0..g.n {
        for oy in 0..g.oh {
            for ox in 0..g.ow {
                sum.fill(T::ZERO);
                for ky in 0..g.kh {
                    for kx in 0..g.kw {
                        if let Some((iy, ix)) = g.tap(oy, ox, ky, kx) {
                            let base = ((b * g.h + iy) * g.w + ix) * c;
                            for (s, &v) in sum.iter_mut().zip(&xs[base..base + c]) {
                                *s += v;
                            }
                        }
                    }
                }
                let scale = T::ONE / T::from_f64(window_count(g, oy, ox) as f64);
                values.extend(sum.iter().map(|&s| s * scale));
            }
        }
    }
    ArrayD::from_shape_vec(IxDyn(&g.output_shape()), values).expect("output size")
}

fn avg_pool_backprop_values<T: Float>(grad: &Tensor<T>, g: &Geometry) -> ArrayD<T> {
    let gs = row_major(grad);
    let c = g.c_in;
    let mut dx = crate::base::parallel::filled(g.input_shape().iter().product(), T::ZERO);
    let mut rows = gs.chunks_exact(c.max(1));
    for b in 0..g.n {
        for oy in 0..g.oh {
            for ox in 0..g.ow {
                let Some(row) = rows.next() else {
                    continue;
                };
                let scale = T::ONE / T::from_f64(window_count(g, oy, ox) as f64);
                for ky in 0..g.kh {
                    for kx in 0..g.kw {
                        if let Some((iy, ix)) = g.tap(oy, ox, ky, kx) {
                            let base = ((b * g.h + iy) * g.w + ix) * c;
                            for (d, &v) in dx[base..base + c].iter_mut().zip(row) {
                                *d += v * scale;
                            }
                        }
                    }
                }
            }
        }
    }
    ArrayD::from_shape_vec(IxDyn(&g.input_shape()), dx).expect("input size")
}
