//! Layers: [`Dense`] and [`Sequential`], the convolutional layers ([`Conv2D`], [`MaxPool2D`],
//! [`AvgPool2D`], [`Flatten`], in `conv.rs`), [`Dropout`] (`regularization.rs`),
//! [`LayerNormalization`] and [`BatchNormalization`] (`normalization.rs`), [`Embedding`]
//! (`embedding.rs`), and the [`Layer`] trait every model implements.

mod conv;
mod embedding;
mod normalization;
mod regularization;
mod spec;

pub use conv::{AvgPool2D, Conv2D, DataFormat, Flatten, MaxPool2D, glorot_uniform_conv};
pub use embedding::Embedding;
pub use normalization::{BatchNormalization, LayerNormalization};
pub use regularization::Dropout;
pub use spec::{Conv2DSpec, DenseSpec, LayerSpec};

use std::collections::HashMap;

use gradtape_runtime::{Float, Tensor, Variable, without_recording};

/// A model or a piece of one: a function of its input with trainable variables.
///
/// ```
/// use gradtape_nn::{Dense, Layer};
/// use gradtape_runtime::Tensor;
/// let layer = Dense::<f32>::new("dense", 3, 2, 0);
/// let y = layer.call(&Tensor::ones(&[4, 3]));
/// assert_eq!(y.shape(), &[4, 2]);
/// assert_eq!(layer.trainable_variables().len(), 2);
/// ```
pub trait Layer<T: Float> {
    /// Applies the layer to a batch `x` (recorded on any active tape).
    ///
    /// # Panics
    /// If `x`'s shape is not one the layer takes. Every implementation is
    /// `#[track_caller]`, so the panic points at the user's call, also through a
    /// [`Sequential`] of boxed layers.
    #[track_caller]
    fn call(&self, x: &Tensor<T>) -> Tensor<T>;

    /// The variables an optimizer updates, in a fixed order.
    fn trainable_variables(&self) -> Vec<Variable<T>>;

    /// Applies the layer as [`call`](Self::call) does, with the same result, and appends
    /// the post-activation output of each layer inside it to `outputs`, in order (for
    /// [`ActivationStats`](crate::diagnostics::ActivationStats)). The outputs are the
    /// tensors the forward pass computed, not copies: collecting them records nothing and
    /// computes nothing more. The default appends nothing; [`Dense`] appends its output and
    /// [`Sequential`] its layers'.
    ///
    /// ```
    /// use gradtape_nn::{Activation, Dense, Layer, Sequential};
    /// use gradtape_runtime::Tensor;
    /// let model = Sequential::new()
    ///     .push(Dense::<f32>::new("hidden", 3, 4, 0).with_activation(Activation::Relu))
    ///     .push(Dense::new("out", 4, 2, 1));
    /// let x = Tensor::ones(&[5, 3]);
    /// let mut outputs = Vec::new();
    /// let y = model.call_with_activations(&x, &mut outputs);
    /// assert_eq!(y.to_vec(), model.call(&x).to_vec());
    /// assert_eq!(outputs.len(), 2);
    /// assert_eq!((outputs[0].layer.as_str(), outputs[0].output.shape()), ("hidden", &[5, 4][..]));
    /// assert_eq!(outputs[1].output.to_vec(), y.to_vec());
    /// ```
    fn call_with_activations(&self, x: &Tensor<T>, outputs: &mut Vec<LayerOutput<T>>) -> Tensor<T> {
        let _ = outputs;
        self.call(x)
    }

    /// Applies the layer in training mode, Keras' `training=True`: [`Dropout`] drops units
    /// and [`BatchNormalization`] normalises by the batch's statistics and updates its
    /// moving ones. [`call`](Self::call) is inference mode. The default is `call`: most
    /// layers act the same either way; [`Sequential`] passes the mode on to its layers.
    ///
    /// ```
    /// use gradtape_nn::{Dense, Dropout, Layer, Sequential};
    /// use gradtape_runtime::Tensor;
    /// let model = Sequential::new()
    ///     .push(Dense::<f64>::new("hidden", 4, 8, 0))
    ///     .push(Dropout::new(0.5, 1));
    /// let x = Tensor::ones(&[2, 4]);
    /// // inference: dropout is the identity
    /// assert_eq!(model.call(&x).to_vec(), Dense::<f64>::new("hidden", 4, 8, 0).call(&x).to_vec());
    /// // training: some units are zero
    /// assert!(model.call_training(&x).to_vec().contains(&0.0));
    /// ```
    #[track_caller]
    fn call_training(&self, x: &Tensor<T>) -> Tensor<T> {
        self.call(x)
    }
}

/// One layer's post-activation output for a batch, as
/// [`Layer::call_with_activations`] collects them.
///
/// ```
/// use gradtape_nn::{Activation, LayerOutput};
/// use gradtape_runtime::Tensor;
/// let out = LayerOutput { layer: "hidden".to_string(), activation: Activation::Relu, output: Tensor::<f32>::zeros(&[2, 3]) };
/// assert_eq!(out.output.shape(), &[2, 3]);
/// ```
#[derive(Clone, Debug)]
pub struct LayerOutput<T: Float> {
    /// The layer's name.
    pub layer: String,
    /// The activation that produced `output`.
    pub activation: Activation,
    /// The output, `[batch, units]`.
    pub output: Tensor<T>,
}

/// An elementwise (or, for softmax, per-row) function applied to a layer's output.
///
/// ```
/// use gradtape_nn::Activation;
/// use gradtape_runtime::Tensor;
/// let x = Tensor::from_vec(vec![-1.0_f32, 2.0], &[1, 2]);
/// assert_eq!(Activation::Relu.apply(&x).to_vec(), vec![0.0, 2.0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Activation {
    /// The identity (Keras' `activation=None`).
    #[default]
    Linear,
    /// `max(x, 0)`.
    Relu,
    /// `1 / (1 + exp(-x))`.
    Sigmoid,
    /// `tanh x`.
    Tanh,
    /// Softmax over the last axis.
    Softmax,
}

impl Activation {
    /// Applies the activation to `x`.
    ///
    /// ```
    /// use gradtape_nn::Activation;
    /// use gradtape_runtime::Tensor;
    /// let p = Activation::Softmax.apply(&Tensor::from_vec(vec![0.0_f64, 0.0], &[1, 2]));
    /// assert_eq!(p.to_vec(), vec![0.5, 0.5]);
    /// ```
    pub fn apply<T: Float>(self, x: &Tensor<T>) -> Tensor<T> {
        match self {
            Activation::Linear => x.clone(),
            Activation::Relu => x.relu(),
            Activation::Sigmoid => x.sigmoid(),
            Activation::Tanh => x.tanh(),
            Activation::Softmax => x.softmax(x.rank().saturating_sub(1)),
        }
    }
}

/// Glorot (Xavier) uniform initial values for a `[fan_in, fan_out]` kernel: uniform on
/// `[-limit, limit)` with `limit = sqrt(6 / (fan_in + fan_out))`, as Keras'
/// `GlorotUniform`, reproducible for a given `seed`.
///
/// ```
/// use gradtape_nn::glorot_uniform;
/// let w = glorot_uniform::<f32>(784, 128, 7);
/// let limit = (6.0_f32 / (784.0 + 128.0)).sqrt();
/// assert_eq!(w.shape(), &[784, 128]);
/// assert!(w.to_vec().iter().all(|v| v.abs() <= limit));
/// ```
///
/// # Panics
/// If `fan_in + fan_out` is zero.
#[track_caller]
pub fn glorot_uniform<T: Float>(fan_in: usize, fan_out: usize, seed: u64) -> Tensor<T> {
    assert!(
        fan_in + fan_out > 0,
        "glorot_uniform: fan_in + fan_out must be positive, got shape [{fan_in}, {fan_out}]"
    );
    let limit = T::from_f64((6.0 / (fan_in + fan_out) as f64).sqrt());
    Tensor::random_uniform(&[fan_in, fan_out], -limit, limit, seed)
}

/// A fully connected layer, Keras' `Dense`: `activation(x @ kernel + bias)`, with a
/// `[inputs, units]` kernel (Glorot-uniform initial values from a seed) and a `[units]` bias
/// (zeros). Its variables are named `"{name}/kernel"` and `"{name}/bias"`, which is how
/// [`checkpoint`](crate::checkpoint) files find them.
///
/// ```
/// use gradtape_nn::{Activation, Dense, Layer};
/// use gradtape_runtime::Tensor;
/// let layer = Dense::<f32>::new("hidden", 2, 3, 42).with_activation(Activation::Relu);
/// assert_eq!(layer.kernel().name(), "hidden/kernel");
/// let y = layer.call(&Tensor::from_vec(vec![1.0, -1.0], &[1, 2]));
/// assert!(y.to_vec().iter().all(|&v| v >= 0.0));
/// ```
pub struct Dense<T: Float> {
    name: String,
    kernel: Variable<T>,
    bias: Variable<T>,
    activation: Activation,
}

impl<T: Float> Dense<T> {
    /// A layer from `inputs` features to `units`, named `name`, its kernel drawn with `seed`.
    ///
    /// ```
    /// use gradtape_nn::Dense;
    /// let layer = Dense::<f64>::new("out", 4, 10, 1);
    /// assert_eq!(layer.kernel().shape(), vec![4, 10]);
    /// assert_eq!(layer.bias().value().to_vec(), vec![0.0; 10]);
    /// ```
    pub fn new(name: &str, inputs: usize, units: usize, seed: u64) -> Dense<T> {
        Dense::from_values(
            name,
            glorot_uniform(inputs, units, seed),
            Tensor::zeros(&[units]),
        )
    }

    /// A layer with the given kernel `[inputs, units]` and bias `[units]`.
    ///
    /// ```
    /// use gradtape_nn::{Dense, Layer};
    /// use gradtape_runtime::Tensor;
    /// let kernel = Tensor::from_vec(vec![1.0_f32, 2.0], &[2, 1]);
    /// let layer = Dense::from_values("d", kernel, Tensor::from_vec(vec![0.5], &[1]));
    /// // [3, 4] @ [1, 2]ᵀ + 0.5 = 11.5
    /// assert_eq!(layer.call(&Tensor::from_vec(vec![3.0, 4.0], &[1, 2])).to_vec(), vec![11.5]);
    /// ```
    ///
    /// # Panics
    /// If the kernel is not 2-D or the bias is not `[units]`.
    #[track_caller]
    pub fn from_values(name: &str, kernel: Tensor<T>, bias: Tensor<T>) -> Dense<T> {
        assert!(
            kernel.rank() == 2 && bias.shape() == [kernel.shape()[1]],
            "Dense::from_values: layer '{name}' needs a [inputs, units] kernel and a [units] bias, got shapes {:?} and {:?}",
            kernel.shape(),
            bias.shape()
        );
        Dense {
            name: name.to_string(),
            kernel: Variable::with_name(format!("{name}/kernel"), kernel),
            bias: Variable::with_name(format!("{name}/bias"), bias),
            activation: Activation::Linear,
        }
    }

    /// The same layer with `activation` applied to its output.
    pub fn with_activation(mut self, activation: Activation) -> Dense<T> {
        self.activation = activation;
        self
    }

    /// The layer's name, the prefix of its variables' names.
    ///
    /// ```
    /// use gradtape_nn::Dense;
    /// assert_eq!(Dense::<f32>::new("hidden", 2, 3, 0).name(), "hidden");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The `[inputs, units]` kernel.
    pub fn kernel(&self) -> &Variable<T> {
        &self.kernel
    }

    /// The `[units]` bias.
    pub fn bias(&self) -> &Variable<T> {
        &self.bias
    }

    /// The activation applied to the output.
    pub fn activation(&self) -> Activation {
        self.activation
    }
}

impl<T: Float> Layer<T> for Dense<T> {
    #[track_caller]
    fn call(&self, x: &Tensor<T>) -> Tensor<T> {
        let kernel = self.kernel.value();
        assert!(
            x.rank() == 2 && x.shape()[1] == kernel.shape()[0],
            "Dense: layer '{}' expects inputs of shape [batch, {}], got {:?}",
            self.name,
            kernel.shape()[0],
            x.shape()
        );
        // one op: the bias is written first and the product added onto it
        self.activation.apply(&x.xw_plus_b(&kernel, &self.bias))
    }

    fn trainable_variables(&self) -> Vec<Variable<T>> {
        vec![self.kernel.clone(), self.bias.clone()]
    }

    #[track_caller]
    fn call_with_activations(&self, x: &Tensor<T>, outputs: &mut Vec<LayerOutput<T>>) -> Tensor<T> {
        let y = self.call(x);
        outputs.push(LayerOutput {
            layer: self.name.clone(),
            activation: self.activation,
            output: y.clone(),
        });
        y
    }
}

/// Layers applied one after another, Keras' `Sequential`.
///
/// ```
/// use gradtape_nn::{Activation, Dense, Layer, Sequential};
/// use gradtape_runtime::Tensor;
/// let model = Sequential::new()
///     .push(Dense::<f32>::new("hidden", 784, 256, 1).with_activation(Activation::Relu))
///     .push(Dense::new("logits", 256, 10, 2));
/// assert_eq!(model.call(&Tensor::zeros(&[32, 784])).shape(), &[32, 10]);
/// let names: Vec<String> = model.trainable_variables().iter().map(|v| v.name().into()).collect();
/// assert_eq!(names, ["hidden/kernel", "hidden/bias", "logits/kernel", "logits/bias"]);
/// ```
pub struct Sequential<T: Float> {
    layers: Vec<Box<dyn Layer<T>>>,
    /// From [`Sequential::input`]: what layers added by their sizes are built from.
    shaped: Option<Shaped>,
}

/// A model with an input shape: the shape of one example after the layers so far, how many
/// layers of each Keras base name it has (for the next one's name), and its seed.
struct Shaped {
    shape: Vec<usize>,
    names: HashMap<&'static str, usize>,
    seed: u64,
    built: u64,
}

impl<T: Float> Default for Sequential<T> {
    fn default() -> Self {
        Sequential::new()
    }
}

impl<T: Float> Sequential<T> {
    /// A model with no layers (the identity).
    pub fn new() -> Sequential<T> {
        Sequential {
            layers: Vec::new(),
            shaped: None,
        }
    }

    /// A model for examples of `shape` (without the batch axis), Keras'
    /// `Sequential([Input(shape), ...])`: layers [`add`](Self::add)ed by their sizes
    /// (`Dense::units(128)`, `Conv2D::filters(32, (3, 3))`) get their input size from the
    /// layers before them, a Keras-style name (`dense`, `dense_1`, `conv2d`, ...) and a
    /// seed from the model's ([`with_seed`](Self::with_seed), 0 unless set), so a model is
    /// described as in Keras and built at once (its variables exist before the first call).
    ///
    /// ```
    /// use gradtape_nn::{Activation, Conv2D, Dense, Flatten, Layer, MaxPool2D, Sequential};
    /// use gradtape_runtime::Tensor;
    /// let relu = Activation::Relu;
    /// let model = Sequential::<f32>::input(&[28, 28, 1])
    ///     .add(Conv2D::filters(32, (3, 3)).activation(relu))
    ///     .add(MaxPool2D::new((2, 2)))
    ///     .add(Flatten)
    ///     .add(Dense::units(10));
    /// assert_eq!(model.output_shape(), Some(&[10][..]));
    /// // the dense layer's input size, 13·13·32, came from the layers before it
    /// assert_eq!(model.trainable_variables()[2].shape(), vec![5408, 10]);
    /// assert_eq!(model.call(&Tensor::zeros(&[4, 28, 28, 1])).shape(), &[4, 10]);
    /// ```
    ///
    /// # Panics
    /// If a dimension of `shape` is zero.
    #[track_caller]
    pub fn input(shape: &[usize]) -> Sequential<T> {
        assert!(
            shape.iter().all(|&d| d > 0),
            "Sequential::input: every dimension of an example must be positive, got {shape:?}"
        );
        Sequential {
            layers: Vec::new(),
            shaped: Some(Shaped {
                shape: shape.to_vec(),
                names: HashMap::new(),
                seed: 0,
                built: 0,
            }),
        }
    }

    /// The same model, drawing the initial values of the layers added after this from
    /// `seed` (two models of one description and seed start equal).
    ///
    /// # Panics
    /// If the model has no input shape ([`input`](Self::input)).
    #[track_caller]
    pub fn with_seed(mut self, seed: u64) -> Sequential<T> {
        let shaped = self.shaped.as_mut().unwrap_or_else(|| {
            panic!("Sequential::with_seed: seeds are for layers added by their sizes: start with Sequential::input(&[..])")
        });
        shaped.seed = seed;
        self
    }

    /// The model with a layer described by its sizes appended, built for the shape the
    /// layers before it give (see [`input`](Self::input)).
    ///
    /// # Panics
    /// If the model has no input shape, or the layer cannot take that shape (the message
    /// says what to add before it).
    // Keras' `model.add`, by value like every builder method here; not `+`.
    #[allow(clippy::should_implement_trait)]
    #[track_caller]
    pub fn add(mut self, spec: impl spec::LayerSpec<T>) -> Sequential<T> {
        let Some(shaped) = self.shaped.as_mut() else {
            panic!(
                "Sequential::add: a layer described by its sizes needs the model's input shape: start with Sequential::input(&[..]), or push a layer built with its sizes"
            );
        };
        let base = spec.base_name();
        let count = shaped.names.entry(base).or_insert(0);
        let name = match *count {
            0 => base.to_string(),
            n => format!("{base}_{n}"),
        };
        *count += 1;
        // a distinct stream per layer (the golden-ratio increment spreads nearby seeds)
        let seed = shaped
            .seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(shaped.built);
        shaped.built += 1;
        let layer = spec.build(&name, &shaped.shape, seed);
        self.push_boxed(layer)
    }

    /// The model with `layer`, built with its sizes, appended. In a model with an input
    /// shape, the layer is run once on a zero example to find the shape of its output,
    /// so a layer that cannot take the shape fails here, not at the first batch.
    #[track_caller]
    pub fn push(self, layer: impl Layer<T> + 'static) -> Sequential<T> {
        self.push_boxed(Box::new(layer))
    }

    #[track_caller]
    fn push_boxed(mut self, layer: Box<dyn Layer<T>>) -> Sequential<T> {
        if let Some(shaped) = self.shaped.as_mut() {
            let mut batch = vec![1];
            batch.extend_from_slice(&shaped.shape);
            let output = without_recording(|| layer.call(&Tensor::zeros(&batch)));
            shaped.shape = output.shape()[1..].to_vec();
        }
        self.layers.push(layer);
        self
    }

    /// The shape of one example of the model's output (without the batch axis), for a
    /// model with an input shape ([`input`](Self::input)); `None` otherwise.
    pub fn output_shape(&self) -> Option<&[usize]> {
        self.shaped.as_ref().map(|shaped| &shaped.shape[..])
    }

    /// The number of layers.
    pub fn len(&self) -> usize {
        self.layers.len()
    }

    /// Whether the model has no layers.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }
}

impl<T: Float> Layer<T> for Sequential<T> {
    fn call(&self, x: &Tensor<T>) -> Tensor<T> {
        // A loop, not a fold: a closure would report its own line as the caller.
        let mut h = x.clone();
        for layer in &self.layers {
            h = layer.call(&h);
        }
        h
    }

    fn trainable_variables(&self) -> Vec<Variable<T>> {
        self.layers
            .iter()
            .flat_map(|layer| layer.trainable_variables())
            .collect()
    }

    fn call_with_activations(&self, x: &Tensor<T>, outputs: &mut Vec<LayerOutput<T>>) -> Tensor<T> {
        self.layers.iter().fold(x.clone(), |h, layer| {
            layer.call_with_activations(&h, outputs)
        })
    }

    fn call_training(&self, x: &Tensor<T>) -> Tensor<T> {
        let mut h = x.clone();
        for layer in &self.layers {
            h = layer.call_training(&h);
        }
        h
    }
}
