//! Dtype conversion. Between `f32` and `f64` a cast is differentiable (the gradient is cast
//! back, so it has the source's dtype); from or to an integer dtype the result is a fresh
//! constant, which cuts the gradient path as in TensorFlow.

use smallvec::smallvec;

use super::static_rule;
use crate::base::dtype::{AnyTensor, DType};
use crate::base::tensor::Tensor;
use crate::record::forward::Tangents;
use crate::record::node::Params;
use crate::record::stack::{self, NodeSpec};

impl<T: DType> Tensor<T> {
    /// The elements converted to dtype `U` (as Rust's `as` converts; `bool` is 0 or 1).
    ///
    /// ```
    /// use gradtape_runtime::Tensor;
    /// let labels = Tensor::from_vec(vec![1_u8, 0, 2], &[3]);
    /// assert_eq!(labels.cast::<f32>().to_vec(), vec![1.0, 0.0, 2.0]);
    /// assert_eq!(Tensor::scalar(2.7_f64).cast::<i32>().to_scalar(), 2);
    /// ```
    #[track_caller]
    pub fn cast<U: DType>(&self) -> Tensor<U> {
        if let Some(any) = AnyTensor::try_from_typed(self)
            && let Some(cast) = cast_float(&any, U::NAME)
        {
            let boxed: Box<dyn std::any::Any> = match cast {
                AnyTensor::F32(t) => Box::new(t),
                AnyTensor::F64(t) => Box::new(t),
            };
            return *boxed
                .downcast::<Tensor<U>>()
                .expect("cast_float returns dtype U");
        }
        let out = Tensor::from_data(self.map_data(|v| U::from_f64(v.to_f64())));
        // an integer on either side cuts the gradient path: note it for `explain`
        crate::base::cuts::note_cast::<T, U>(self.id(), out.id());
        out
    }
}

/// A recorded float-to-float cast to the dtype named `target`, or `None` if `target` is
/// not a float dtype.
#[track_caller]
fn cast_float(x: &AnyTensor, target: &str) -> Option<AnyTensor> {
    match (x, target) {
        (AnyTensor::F32(t), "f32") => Some(AnyTensor::F32(t.clone())),
        (AnyTensor::F64(t), "f64") => Some(AnyTensor::F64(t.clone())),
        (AnyTensor::F32(t), "f64") => Some(AnyTensor::F64(recorded_cast(t, |v| v as f64))),
        (AnyTensor::F64(t), "f32") => Some(AnyTensor::F32(recorded_cast(t, |v| v as f32))),
        _ => None,
    }
}

#[track_caller]
fn recorded_cast<T: crate::Float, U: crate::Float>(
    x: &Tensor<T>,
    f: impl Fn(T) -> U + Sync,
) -> Tensor<U> {
    let data = x.map_data(f);
    let spec = |_: &Tensor<U>| NodeSpec {
        op: "cast",
        // a cast's cotangent is the output's, cast back to the input's dtype
        rule: static_rule(|_, g| {
            let input_dtype = match g {
                AnyTensor::F32(_) => "f64",
                AnyTensor::F64(_) => "f32",
            };
            smallvec![cast_float(g, input_dtype)]
        }),
        saved: smallvec![],
        params: Params::None,
    };
    // linear: the tangent, cast the same way
    let jvp = |t: &Tangents<'_>, _: &Tensor<U>| {
        t.any(0)
            .and_then(|t| cast_float(t, U::NAME))
            .map(|t| U::from_any_owned(t).expect("cast_float gives the target dtype"))
    };
    stack::record(data, &[x.id()], spec, &jvp)
}
