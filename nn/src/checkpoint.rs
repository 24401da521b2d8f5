//! Saving and restoring variables by name in the [safetensors] format, so a trained model
//! can be reloaded (in this or another program, by anything that reads safetensors).
//!
//! [safetensors]: https://github.com/huggingface/safetensors
//!
//! ```
//! use gradtape_nn::{Dense, Layer, checkpoint};
//! let path = std::env::temp_dir().join("gradtape-doc-checkpoint.safetensors");
//! let trained = Dense::<f32>::new("dense", 3, 2, 1);
//! checkpoint::save(&path, &trained.trainable_variables()).unwrap();
//!
//! let fresh = Dense::<f32>::new("dense", 3, 2, 99); // other initial values
//! checkpoint::restore(&path, &fresh.trainable_variables()).unwrap();
//! assert_eq!(fresh.kernel().value().to_vec(), trained.kernel().value().to_vec());
//! ```

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use gradtape_runtime::{DType, Float, Tensor, Variable, without_recording};
use safetensors::{Dtype, SafeTensors, tensor::TensorView};

/// Why a checkpoint could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The file could not be written or read.
    #[error("checkpoint {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file is not valid safetensors.
    #[error("checkpoint {}: {source}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// The parser's error.
        source: safetensors::SafeTensorError,
    },
    /// Two variables share a name, so the file could not tell them apart.
    #[error(
        "two variables are named '{0}': checkpoints store variables by name, so names must be unique"
    )]
    DuplicateName(String),
    /// A variable has no entry in the file.
    #[error("checkpoint {} has no tensor named '{name}'", path.display())]
    Missing {
        /// The file.
        path: PathBuf,
        /// The variable's name.
        name: String,
    },
    /// The stored tensor has another shape than the variable.
    #[error("tensor '{name}' has shape {found:?} in the checkpoint, the variable has {expected:?}")]
    ShapeMismatch {
        /// The variable's name.
        name: String,
        /// The variable's shape.
        expected: Vec<usize>,
        /// The stored shape.
        found: Vec<usize>,
    },
    /// The stored tensor has another dtype than the variable.
    #[error("tensor '{name}' has dtype {found:?} in the checkpoint, the variable is {expected}")]
    DtypeMismatch {
        /// The variable's name.
        name: String,
        /// The variable's dtype.
        expected: &'static str,
        /// The stored dtype.
        found: Dtype,
    },
}

fn safetensors_dtype<T: Float>() -> Dtype {
    if T::NAME == "f32" {
        Dtype::F32
    } else {
        Dtype::F64
    }
}

/// Little-endian bytes of the elements (safetensors' byte order). Converting through `f64`
/// is exact for both float dtypes.
fn to_le_bytes<T: Float>(values: &[T]) -> Vec<u8> {
    match safetensors_dtype::<T>() {
        Dtype::F32 => values
            .iter()
            .flat_map(|v| (DType::to_f64(*v) as f32).to_le_bytes())
            .collect(),
        _ => values
            .iter()
            .flat_map(|v| DType::to_f64(*v).to_le_bytes())
            .collect(),
    }
}

fn from_le_bytes<T: Float>(bytes: &[u8]) -> Vec<T> {
    match safetensors_dtype::<T>() {
        Dtype::F32 => bytes
            .chunks_exact(4)
            .map(|b| T::from_f64(f32::from_le_bytes(b.try_into().expect("4 bytes")).into()))
            .collect(),
        _ => bytes
            .chunks_exact(8)
            .map(|b| T::from_f64(f64::from_le_bytes(b.try_into().expect("8 bytes"))))
            .collect(),
    }
}

/// Writes the current values of `variables` to `path`, each under its name.
///
/// # Errors
/// [`CheckpointError::DuplicateName`] if two variables share a name, or an I/O error.
pub fn save<T: Float>(
    path: impl AsRef<Path>,
    variables: &[Variable<T>],
) -> Result<(), CheckpointError> {
    let path = path.as_ref();
    let mut names = HashSet::new();
    for var in variables {
        if !names.insert(var.name()) {
            return Err(CheckpointError::DuplicateName(var.name().to_string()));
        }
    }
    let entries: Vec<(String, Vec<usize>, Vec<u8>)> = variables
        .iter()
        .map(|var| {
            let value = without_recording(|| var.value());
            (
                var.name().to_string(),
                value.shape().to_vec(),
                to_le_bytes(&value.to_vec()),
            )
        })
        .collect();
    let format = |source| CheckpointError::Format {
        path: path.to_path_buf(),
        source,
    };
    let views = entries
        .iter()
        .map(|(name, shape, bytes)| {
            TensorView::new(safetensors_dtype::<T>(), shape.clone(), bytes).map(|view| (name, view))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(format)?;
    let bytes = safetensors::serialize(views, None).map_err(format)?;
    std::fs::write(path, bytes).map_err(|source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Sets each of `variables` to the tensor stored under its name in `path`. Every variable
/// is checked before any is changed, so on error none is. Entries of the file that no
/// variable names are ignored.
///
/// # Errors
/// [`CheckpointError::Missing`], [`CheckpointError::ShapeMismatch`] or
/// [`CheckpointError::DtypeMismatch`] for a variable the file does not match, and I/O or
/// format errors for the file itself.
pub fn restore<T: Float>(
    path: impl AsRef<Path>,
    variables: &[Variable<T>],
) -> Result<(), CheckpointError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let file = SafeTensors::deserialize(&bytes).map_err(|source| CheckpointError::Format {
        path: path.to_path_buf(),
        source,
    })?;
    let values = variables
        .iter()
        .map(|var| stored_value(path, &file, var))
        .collect::<Result<Vec<_>, _>>()?;
    for (var, value) in variables.iter().zip(values) {
        var.assign(value);
    }
    Ok(())
}

fn stored_value<T: Float>(
    path: &Path,
    file: &SafeTensors<'_>,
    var: &Variable<T>,
) -> Result<Tensor<T>, CheckpointError> {
    let name = var.name().to_string();
    let view = file.tensor(&name).map_err(|_| CheckpointError::Missing {
        path: path.to_path_buf(),
        name: name.clone(),
    })?;
    if view.dtype() != safetensors_dtype::<T>() {
        return Err(CheckpointError::DtypeMismatch {
            name,
            expected: T::NAME,
            found: view.dtype(),
        });
    }
    let expected = var.shape();
    if view.shape() != expected.as_slice() {
        return Err(CheckpointError::ShapeMismatch {
            name,
            expected,
            found: view.shape().to_vec(),
        });
    }
    Ok(Tensor::from_vec(from_le_bytes(view.data()), view.shape()))
}
