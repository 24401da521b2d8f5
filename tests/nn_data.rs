//! The IDX reader (formats and error cases), seeded minibatches, and checkpoints.

use std::io::Write;
use std::path::{Path, PathBuf};

use gradtape::nn::checkpoint::{self, CheckpointError};
use gradtape::nn::data::{DataError, IMAGES_MAGIC, LABELS_MAGIC, Minibatches, Mnist, read_idx};
use gradtape::nn::{Dense, Layer};
use gradtape::{Tensor, Variable};

/// A fresh folder under the system's temporary directory, unique to this test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gradtape-nn-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// An IDX file of `count` 2x2 images whose pixel values are their index.
fn images_idx(count: u32) -> Vec<u8> {
    let mut bytes = IMAGES_MAGIC.to_be_bytes().to_vec();
    for d in [count, 2, 2] {
        bytes.extend(d.to_be_bytes());
    }
    bytes.extend((0..count).flat_map(|i| [i as u8; 4]));
    bytes
}

fn labels_idx(labels: &[u8]) -> Vec<u8> {
    let mut bytes = LABELS_MAGIC.to_be_bytes().to_vec();
    bytes.extend((labels.len() as u32).to_be_bytes());
    bytes.extend(labels);
    bytes
}

fn write(path: &Path, bytes: &[u8]) -> PathBuf {
    std::fs::write(path, bytes).unwrap();
    path.to_path_buf()
}

fn shipped_subset() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/mnist-subset")
}

#[test]
fn reads_plain_and_gzip_idx_alike() {
    let dir = scratch("plain-gzip");
    let plain = read_idx(write(&dir.join("a"), &images_idx(3)), IMAGES_MAGIC).unwrap();
    let gz = read_idx(
        write(&dir.join("b.gz"), &gzip(&images_idx(3))),
        IMAGES_MAGIC,
    )
    .unwrap();
    assert_eq!(plain, gz);
    assert_eq!(plain.dims, vec![3, 2, 2]);
    assert_eq!(plain.data, vec![0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
}

#[test]
fn wrong_magic_names_both_numbers() {
    let dir = scratch("magic");
    let path = write(&dir.join("labels-as-images"), &labels_idx(&[1, 2]));
    let err = read_idx(&path, IMAGES_MAGIC).unwrap_err();
    assert!(matches!(
        err,
        DataError::WrongMagic {
            expected: 2051,
            found: 2049,
            kind: "images",
            ..
        }
    ));
    assert!(err.to_string().contains("not an IDX images file"), "{err}");
}

#[test]
fn truncated_files_say_how_many_bytes_are_missing() {
    let dir = scratch("truncated");
    let full = images_idx(3); // 16-byte header + 12 pixels = 28 bytes
    let cut_body = write(&dir.join("body"), &full[..25]);
    let err = read_idx(&cut_body, IMAGES_MAGIC).unwrap_err();
    assert!(
        matches!(
            err,
            DataError::Truncated {
                expected: 28,
                found: 25,
                ..
            }
        ),
        "{err}"
    );
    let cut_header = write(&dir.join("header"), &full[..10]);
    let err = read_idx(&cut_header, IMAGES_MAGIC).unwrap_err();
    assert!(
        matches!(
            err,
            DataError::Truncated {
                expected: 16,
                found: 10,
                ..
            }
        ),
        "{err}"
    );
    // a complete gzip stream of a truncated file
    let gz_of_cut = write(&dir.join("body.gz"), &gzip(&full[..25]));
    assert!(matches!(
        read_idx(&gz_of_cut, IMAGES_MAGIC),
        Err(DataError::Truncated {
            expected: 28,
            found: 25,
            ..
        })
    ));
    // a gzip stream cut short
    let compressed = gzip(&images_idx(200));
    let cut_stream = write(&dir.join("stream.gz"), &compressed[..compressed.len() / 2]);
    let err = read_idx(&cut_stream, IMAGES_MAGIC).unwrap_err();
    assert!(matches!(err, DataError::BadGzip { .. }), "{err}");
}

/// A header whose dimensions multiply past `usize::MAX` (here 2³¹ · 2³¹ · 4 = 2⁶⁴, which
/// wraps to 0 bytes of data) is corrupt, not an empty file.
#[test]
fn idx_header_whose_size_overflows_is_rejected() {
    let dir = scratch("overflow");
    let mut bytes = IMAGES_MAGIC.to_be_bytes().to_vec();
    for d in [1_u32 << 31, 1 << 31, 4] {
        bytes.extend(d.to_be_bytes());
    }
    let path = write(&dir.join("huge"), &bytes);
    let err = read_idx(&path, IMAGES_MAGIC).unwrap_err();
    assert!(
        matches!(&err, DataError::Oversized { dims, .. } if dims == &[1 << 31, 1 << 31, 4]),
        "{err}"
    );
    let shown = err.to_string();
    assert!(
        shown.contains("[2147483648, 2147483648, 4]") && shown.contains("overflow"),
        "{shown}"
    );
}

#[test]
fn missing_files_say_where_they_were_looked_for() {
    let dir = scratch("missing");
    let err = Mnist::load(&dir).unwrap_err();
    let DataError::Missing { gz } = &err else {
        panic!("expected Missing, got {err}")
    };
    assert_eq!(gz, &dir.join("train-images-idx3-ubyte.gz"));
    assert!(err.to_string().contains("MNIST_DIR"), "{err}");
    let err = read_idx(dir.join("nothing"), LABELS_MAGIC).unwrap_err();
    assert!(
        matches!(&err, DataError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    );
}

#[test]
fn images_and_labels_must_agree_on_the_count() {
    let dir = scratch("count");
    write(&dir.join("train-images-idx3-ubyte"), &images_idx(3));
    write(
        &dir.join("train-labels-idx1-ubyte.gz"),
        &gzip(&labels_idx(&[1, 2])),
    );
    let err = Mnist::load(&dir).unwrap_err();
    assert!(
        matches!(
            err,
            DataError::CountMismatch {
                images: 3,
                labels: 2,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn loads_the_shipped_subset_with_the_real_first_labels() {
    let mnist = Mnist::load(shipped_subset()).unwrap();
    assert_eq!((mnist.train.len(), mnist.test.len()), (6000, 1000));
    assert_eq!(mnist.train.image_size(), 784);
    // The first training labels of MNIST (shared/data/mnist/README.md).
    assert_eq!(mnist.train.labels()[..10], [5, 0, 4, 1, 9, 2, 1, 3, 1, 4]);
    let (x, y) = mnist.train.batch(&[0, 1]);
    assert_eq!(x.shape(), &[2, 784]);
    assert_eq!(y, vec![5, 0]);
    assert!(x.to_vec().iter().all(|p| (0.0..=1.0).contains(p)));
}

#[test]
fn minibatches_cover_every_index_once_per_epoch_reproducibly() {
    let epoch = |seed| Minibatches::new(10, 4).shuffled(seed).collect::<Vec<_>>();
    let batches = epoch(1);
    assert_eq!(
        batches.iter().map(Vec::len).collect::<Vec<_>>(),
        vec![4, 4, 2]
    );
    let mut all = batches.concat();
    all.sort();
    assert_eq!(all, (0..10).collect::<Vec<_>>());
    assert_eq!(batches, epoch(1));
    assert_ne!(batches, epoch(2));
    assert_eq!(Minibatches::new(10, 4).batch_count(), 3);
}

#[test]
fn checkpoint_round_trip_restores_every_value() {
    let dir = scratch("roundtrip");
    let path = dir.join("model.safetensors");
    let trained = [
        Dense::<f32>::new("a", 4, 3, 1),
        Dense::<f32>::new("b", 3, 2, 2),
    ];
    trained[0]
        .bias()
        .assign(Tensor::from_vec(vec![0.25, -0.5, 1.0], &[3]));
    let saved: Vec<Variable<f32>> = trained
        .iter()
        .flat_map(|l| l.trainable_variables())
        .collect();
    checkpoint::save(&path, &saved).unwrap();

    let fresh = [
        Dense::<f32>::new("a", 4, 3, 10),
        Dense::<f32>::new("b", 3, 2, 20),
    ];
    let restored: Vec<Variable<f32>> = fresh.iter().flat_map(|l| l.trainable_variables()).collect();
    assert_ne!(restored[0].value().to_vec(), saved[0].value().to_vec());
    checkpoint::restore(&path, &restored).unwrap();
    for (r, s) in restored.iter().zip(&saved) {
        assert_eq!(r.value().to_vec(), s.value().to_vec(), "{}", r.name());
    }
    let x = Tensor::from_vec(vec![0.1, 0.2, 0.3, 0.4], &[1, 4]);
    assert_eq!(
        fresh[1].call(&fresh[0].call(&x)).to_vec(),
        trained[1].call(&trained[0].call(&x)).to_vec()
    );
}

#[test]
fn checkpoint_errors_leave_variables_unchanged() {
    let dir = scratch("ckpt-errors");
    let path = dir.join("w.safetensors");
    let w = Variable::with_name("w", Tensor::from_vec(vec![1.0_f64, 2.0], &[2]));
    checkpoint::save(&path, std::slice::from_ref(&w)).unwrap();

    let other = Variable::with_name("v", Tensor::from_vec(vec![5.0_f64], &[1]));
    let same = Variable::with_name("w", Tensor::from_vec(vec![7.0_f64, 8.0], &[2]));
    let err = checkpoint::restore(&path, &[same.clone(), other.clone()]).unwrap_err();
    assert!(
        matches!(&err, CheckpointError::Missing { name, .. } if name == "v"),
        "{err}"
    );
    assert_eq!(
        same.value().to_vec(),
        vec![7.0, 8.0],
        "nothing restored on error"
    );

    let wide = Variable::with_name("w", Tensor::<f64>::zeros(&[3]));
    let err = checkpoint::restore(&path, &[wide]).unwrap_err();
    assert!(
        matches!(err, CheckpointError::ShapeMismatch { .. }),
        "{err}"
    );

    let single = Variable::with_name("w", Tensor::<f32>::zeros(&[2]));
    let err = checkpoint::restore(&path, &[single]).unwrap_err();
    assert!(
        matches!(
            err,
            CheckpointError::DtypeMismatch {
                expected: "f32",
                ..
            }
        ),
        "{err}"
    );

    let twin = Variable::with_name("w", Tensor::<f64>::zeros(&[2]));
    let err = checkpoint::save(dir.join("twins.safetensors"), &[w, twin]).unwrap_err();
    assert!(
        matches!(err, CheckpointError::DuplicateName(ref n) if n == "w"),
        "{err}"
    );

    std::fs::write(dir.join("junk.safetensors"), b"not a checkpoint").unwrap();
    let err = checkpoint::restore(dir.join("junk.safetensors"), &[same]).unwrap_err();
    assert!(matches!(err, CheckpointError::Format { .. }), "{err}");
}
