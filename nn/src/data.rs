//! MNIST in the standard IDX format (gzip-compressed or plain), and seeded minibatches.
//!
//! ```no_run
//! use gradtape_nn::data::{Minibatches, Mnist};
//! let mnist = Mnist::load("../shared/data/mnist")?;
//! for indices in Minibatches::new(mnist.train.len(), 128).shuffled(0) {
//!     let (images, labels) = mnist.train.batch(&indices); // [128, 784] in [0, 1], labels 0..9
//!     # let _ = (images, labels);
//! }
//! # Ok::<(), gradtape_nn::data::DataError>(())
//! ```

use std::io::Read;
use std::path::{Path, PathBuf};

use gradtape_runtime::Tensor;
use rand::SeedableRng;
use rand::seq::SliceRandom;

/// Why an MNIST or IDX file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// Neither the gzip nor the plain file exists.
    #[error(
        "MNIST file not found: {} (nor the same name without .gz); point to the folder of the four IDX files with --data DIR or MNIST_DIR",
        gz.display()
    )]
    Missing {
        /// The gzip path tried first.
        gz: PathBuf,
    },
    /// The file could not be opened or read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The first four bytes are not the magic number of the expected kind of IDX file.
    #[error(
        "{} is not an IDX {kind} file: magic number {found:#010x}, expected {expected:#010x} ({expected})",
        path.display()
    )]
    WrongMagic {
        /// The file.
        path: PathBuf,
        /// What the file should hold ("images" or "labels").
        kind: &'static str,
        /// The magic number expected (2051 for images, 2049 for labels).
        expected: u32,
        /// The magic number found.
        found: u32,
    },
    /// The file ends before the header or the data its header announces.
    #[error(
        "{} is truncated: its header announces {expected} bytes, the file has {found}",
        path.display()
    )]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Bytes needed (header and data, after decompression).
        expected: usize,
        /// Bytes present.
        found: usize,
    },
    /// The header announces dimensions whose product (with the header, in bytes) overflows
    /// `usize`: a corrupt header, not a file this machine could hold.
    #[error(
        "{} has a corrupt header: its dimensions {dims:?} multiply to more bytes than this \
         machine can address (overflow)",
        path.display()
    )]
    Oversized {
        /// The file.
        path: PathBuf,
        /// The dimensions the header announces.
        dims: Vec<u32>,
    },
    /// The gzip stream ends early or is corrupt.
    #[error("{} is a truncated or corrupt gzip file: {source}", path.display())]
    BadGzip {
        /// The file.
        path: PathBuf,
        /// The decompressor's error.
        source: std::io::Error,
    },
    /// An images file and its labels file disagree on the number of items.
    #[error("{images} images but {labels} labels in {}", dir.display())]
    CountMismatch {
        /// The folder.
        dir: PathBuf,
        /// Items in the images file.
        images: usize,
        /// Items in the labels file.
        labels: usize,
    },
}

/// The magic number of an IDX file of unsigned bytes with `rank` axes.
const fn idx_magic(rank: u8) -> u32 {
    0x0800 | rank as u32
}

/// Magic number of an IDX file of `[n, rows, cols]` u8 images: 2051.
pub const IMAGES_MAGIC: u32 = idx_magic(3);
/// Magic number of an IDX file of `[n]` u8 labels: 2049.
pub const LABELS_MAGIC: u32 = idx_magic(1);

/// The contents of an IDX file of unsigned bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Idx {
    /// The axes' lengths, from the header.
    pub dims: Vec<usize>,
    /// The elements in row-major order.
    pub data: Vec<u8>,
}

/// Reads an IDX file of unsigned bytes whose magic number must be `magic` (e.g.
/// [`IMAGES_MAGIC`]); gzip is detected from the file's first bytes, not its name.
///
/// ```
/// use gradtape_nn::data::{LABELS_MAGIC, read_idx};
/// let path = std::env::temp_dir().join("gradtape-doc-labels.idx");
/// std::fs::write(&path, [0, 0, 8, 1, 0, 0, 0, 3, 7, 2, 1]).unwrap();
/// let idx = read_idx(&path, LABELS_MAGIC).unwrap();
/// assert_eq!((idx.dims, idx.data), (vec![3], vec![7, 2, 1]));
/// ```
///
/// # Errors
/// [`DataError::Io`] if it cannot be read (a missing file included), [`DataError::BadGzip`]
/// for a broken gzip stream, [`DataError::WrongMagic`], [`DataError::Oversized`] if the
/// header's dimensions multiply past what `usize` holds, or [`DataError::Truncated`] if it
/// holds fewer bytes than its header announces.
pub fn read_idx(path: impl AsRef<Path>, magic: u32) -> Result<Idx, DataError> {
    let path = path.as_ref();
    let bytes = read_maybe_gzip(path)?;
    parse_idx(path, bytes, magic)
}

fn read_maybe_gzip(path: &Path) -> Result<Vec<u8>, DataError> {
    let io = |source| DataError::Io {
        path: path.to_path_buf(),
        source,
    };
    let raw = std::fs::read(path).map_err(io)?;
    const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
    if !raw.starts_with(&GZIP_MAGIC) {
        return Ok(raw);
    }
    // A gzip file ends with its uncompressed size (mod 2³²): reserving it up front keeps
    // peak memory at one copy of the data instead of a doubling vector's reallocations.
    let size_hint = raw
        .last_chunk::<4>()
        .map_or(0, |size| u32::from_le_bytes(*size) as usize);
    let mut bytes = Vec::with_capacity(size_hint.min(1 << 30));
    flate2::read::GzDecoder::new(raw.as_slice())
        .read_to_end(&mut bytes)
        .map_err(|source| DataError::BadGzip {
            path: path.to_path_buf(),
            source,
        })?;
    Ok(bytes)
}

fn parse_idx(path: &Path, mut bytes: Vec<u8>, magic: u32) -> Result<Idx, DataError> {
    let truncated = |expected| DataError::Truncated {
        path: path.to_path_buf(),
        expected,
        found: bytes.len(),
    };
    let word = |i: usize| {
        bytes
            .get(4 * i..4 * i + 4)
            .map(|b| u32::from_be_bytes(b.try_into().expect("4 bytes")))
    };
    let found = word(0).ok_or_else(|| truncated(4))?;
    if found != magic {
        return Err(DataError::WrongMagic {
            path: path.to_path_buf(),
            kind: if magic == IMAGES_MAGIC {
                "images"
            } else {
                "labels"
            },
            expected: magic,
            found,
        });
    }
    let rank = (magic & 0xff) as usize;
    let header = 4 * (rank + 1);
    let dims = (1..=rank)
        .map(word)
        .collect::<Option<Vec<u32>>>()
        .ok_or_else(|| truncated(header))?;
    // Checked: the header is untrusted, and a product that wrapped could match a short file.
    let expected = dims
        .iter()
        .try_fold(1_usize, |count, &d| {
            count.checked_mul(usize::try_from(d).ok()?)
        })
        .and_then(|count| count.checked_add(header))
        .ok_or_else(|| DataError::Oversized {
            path: path.to_path_buf(),
            dims: dims.clone(),
        })?;
    let dims: Vec<usize> = dims.into_iter().map(|d| d as usize).collect();
    if bytes.len() < expected {
        return Err(truncated(expected));
    }
    // In place: the data is the file less its header, and no second copy is made.
    bytes.truncate(expected);
    bytes.drain(..header);
    Ok(Idx { dims, data: bytes })
}

/// One part of MNIST (training or test): `len` images of `rows x cols` u8 pixels and their
/// labels. Pixels stay as bytes (a quarter of the memory of floats) until a batch is made.
#[derive(Clone, Debug)]
pub struct MnistSplit {
    images: Vec<u8>,
    labels: Vec<u8>,
    rows: usize,
    cols: usize,
}

impl MnistSplit {
    /// A split from raw pixels (`len * rows * cols` bytes, row-major) and labels.
    ///
    /// ```
    /// use gradtape_nn::data::MnistSplit;
    /// let split = MnistSplit::new(vec![0, 255, 255, 0], vec![3], 2, 2);
    /// let (x, y) = split.batch(&[0]);
    /// assert_eq!((x.to_vec(), y), (vec![0.0, 1.0, 1.0, 0.0], vec![3]));
    /// ```
    ///
    /// # Panics
    /// If the sizes disagree.
    #[track_caller]
    pub fn new(images: Vec<u8>, labels: Vec<u8>, rows: usize, cols: usize) -> MnistSplit {
        assert!(
            images.len() == labels.len() * rows * cols,
            "MnistSplit::new: {} pixel bytes for {} labels of {rows}x{cols} images",
            images.len(),
            labels.len()
        );
        MnistSplit {
            images,
            labels,
            rows,
            cols,
        }
    }

    /// The number of examples.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether there are no examples.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Pixels per image (784 for MNIST).
    pub fn image_size(&self) -> usize {
        self.rows * self.cols
    }

    /// All labels, in file order.
    pub fn labels(&self) -> &[u8] {
        &self.labels
    }

    /// The first `len` examples (all of them if there are fewer).
    pub fn take(&self, len: usize) -> MnistSplit {
        let len = len.min(self.len());
        MnistSplit::new(
            self.images[..len * self.image_size()].to_vec(),
            self.labels[..len].to_vec(),
            self.rows,
            self.cols,
        )
    }

    /// The examples at `indices` as a `[indices.len(), rows * cols]` float tensor with
    /// pixels scaled to `[0, 1]`, and their labels.
    ///
    /// # Panics
    /// If an index is out of range.
    #[track_caller]
    pub fn batch(&self, indices: &[usize]) -> (Tensor<f32>, Vec<usize>) {
        let size = self.image_size();
        let mut pixels = Vec::with_capacity(indices.len() * size);
        for &i in indices {
            assert!(
                i < self.len(),
                "MnistSplit::batch: index {i} out of range for {} examples",
                self.len()
            );
            pixels.extend(
                self.images[i * size..(i + 1) * size]
                    .iter()
                    .map(|&p| f32::from(p) / 255.0),
            );
        }
        let labels = indices
            .iter()
            .map(|&i| usize::from(self.labels[i]))
            .collect();
        (Tensor::from_vec(pixels, &[indices.len(), size]), labels)
    }
}

/// The MNIST training and test sets.
#[derive(Clone, Debug)]
pub struct Mnist {
    /// `train-images-idx3-ubyte` and `train-labels-idx1-ubyte`.
    pub train: MnistSplit,
    /// `t10k-images-idx3-ubyte` and `t10k-labels-idx1-ubyte`.
    pub test: MnistSplit,
}

impl Mnist {
    /// Loads the four standard files from `dir`, each either gzip-compressed (`….gz`, tried
    /// first) or plain.
    ///
    /// # Errors
    /// [`DataError::Missing`] for a file that is in neither form, and the errors of
    /// [`read_idx`] and [`DataError::CountMismatch`] for a bad file.
    pub fn load(dir: impl AsRef<Path>) -> Result<Mnist, DataError> {
        let dir = dir.as_ref();
        Ok(Mnist {
            train: load_split(dir, "train")?,
            test: load_split(dir, "t10k")?,
        })
    }
}

fn load_split(dir: &Path, prefix: &str) -> Result<MnistSplit, DataError> {
    let images = read_idx(
        find(dir, &format!("{prefix}-images-idx3-ubyte"))?,
        IMAGES_MAGIC,
    )?;
    let labels = read_idx(
        find(dir, &format!("{prefix}-labels-idx1-ubyte"))?,
        LABELS_MAGIC,
    )?;
    let (count, rows, cols) = (images.dims[0], images.dims[1], images.dims[2]);
    if count != labels.dims[0] {
        return Err(DataError::CountMismatch {
            dir: dir.to_path_buf(),
            images: count,
            labels: labels.dims[0],
        });
    }
    Ok(MnistSplit::new(images.data, labels.data, rows, cols))
}

fn find(dir: &Path, name: &str) -> Result<PathBuf, DataError> {
    let gz = dir.join(format!("{name}.gz"));
    if gz.is_file() {
        return Ok(gz);
    }
    let plain = dir.join(name);
    if plain.is_file() {
        return Ok(plain);
    }
    Err(DataError::Missing { gz })
}

/// The index batches of one epoch over `len` examples: in order, or shuffled with a seed.
/// The last batch is smaller when `batch_size` does not divide `len` (as Keras does).
///
/// ```
/// use gradtape_nn::data::Minibatches;
/// let batches: Vec<Vec<usize>> = Minibatches::new(5, 2).collect();
/// assert_eq!(batches, vec![vec![0, 1], vec![2, 3], vec![4]]);
/// let shuffled: Vec<Vec<usize>> = Minibatches::new(5, 2).shuffled(7).collect();
/// assert_eq!(shuffled, Minibatches::new(5, 2).shuffled(7).collect::<Vec<_>>());
/// let mut all: Vec<usize> = shuffled.concat();
/// all.sort();
/// assert_eq!(all, vec![0, 1, 2, 3, 4]);
/// ```
#[derive(Clone, Debug)]
pub struct Minibatches {
    order: Vec<usize>,
    batch_size: usize,
    next: usize,
}

impl Minibatches {
    /// Batches of `batch_size` indices over `0..len`, in order.
    ///
    /// # Panics
    /// If `batch_size` is zero.
    #[track_caller]
    pub fn new(len: usize, batch_size: usize) -> Minibatches {
        assert!(
            batch_size > 0,
            "Minibatches::new: batch size must be positive"
        );
        Minibatches {
            order: (0..len).collect(),
            batch_size,
            next: 0,
        }
    }

    /// The same batches over a permutation of the indices drawn from `seed` (use a
    /// different seed per epoch, e.g. `seed + epoch`).
    pub fn shuffled(mut self, seed: u64) -> Minibatches {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        self.order.shuffle(&mut rng);
        self
    }

    /// How many batches the epoch has in all.
    pub fn batch_count(&self) -> usize {
        self.order.len().div_ceil(self.batch_size)
    }
}

impl Iterator for Minibatches {
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        if self.next >= self.order.len() {
            return None;
        }
        let end = (self.next + self.batch_size).min(self.order.len());
        let batch = self.order[self.next..end].to_vec();
        self.next = end;
        Some(batch)
    }
}
