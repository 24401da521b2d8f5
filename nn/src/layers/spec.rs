//! Layers described as Keras' constructors describe them, by their sizes only
//! (`Dense::units(512)`, `Conv2D::filters(32, (3, 3))`): [`LayerSpec`]s that a model with an
//! input shape ([`Sequential::input`](super::Sequential::input)) builds at once, giving each
//! its input size, a Keras-style name and a seed.

use std::marker::PhantomData;

use gradtape_runtime::{Float, Padding};

use super::{Activation, AvgPool2D, Conv2D, DataFormat, Dense, Flatten, Layer, MaxPool2D};

/// A layer known by what Keras' constructor takes: built by
/// [`Sequential::add`](super::Sequential::add) once the shape of its input is known.
///
/// ```
/// use gradtape_nn::{Activation, Dense, Layer, Sequential};
/// let model = Sequential::<f32>::input(&[784])
///     .add(Dense::units(512).activation(Activation::Relu))
///     .add(Dense::units(10));
/// let shapes: Vec<Vec<usize>> = model.trainable_variables().iter().map(|v| v.shape()).collect();
/// assert_eq!(shapes, [vec![784, 512], vec![512], vec![512, 10], vec![10]]);
/// ```
pub trait LayerSpec<T: Float> {
    /// Keras' base name (`"dense"`, `"conv2d"`): a model names its layers `dense`,
    /// `dense_1`, ... in order.
    fn base_name(&self) -> &'static str;

    /// The layer for examples of shape `input` (without the batch axis), named `name`, its
    /// initial values drawn with `seed`.
    ///
    /// # Panics
    /// If the layer cannot take inputs of that shape; the message names the layer, the
    /// shape and what to add before it.
    #[track_caller]
    fn build(self, name: &str, input: &[usize], seed: u64) -> Box<dyn Layer<T>>;
}

/// [`Dense`] by its number of units, Keras' `Dense(units, activation)`.
pub struct DenseSpec<T: Float> {
    units: usize,
    activation: Activation,
    float: PhantomData<T>,
}

impl<T: Float> Dense<T> {
    /// A dense layer of `units` outputs whose input size, name and seed the model gives
    /// ([`Sequential::input`](super::Sequential::input)).
    ///
    /// ```
    /// use gradtape_nn::{Dense, Layer, Sequential};
    /// let model = Sequential::<f64>::input(&[3]).add(Dense::units(2));
    /// assert_eq!(model.trainable_variables()[0].name(), "dense/kernel");
    /// ```
    pub fn units(units: usize) -> DenseSpec<T> {
        DenseSpec {
            units,
            activation: Activation::Linear,
            float: PhantomData,
        }
    }
}

impl<T: Float> DenseSpec<T> {
    /// The same layer with `activation` applied to its output.
    pub fn activation(mut self, activation: Activation) -> DenseSpec<T> {
        self.activation = activation;
        self
    }
}

impl<T: Float> LayerSpec<T> for DenseSpec<T> {
    fn base_name(&self) -> &'static str {
        "dense"
    }

    #[track_caller]
    fn build(self, name: &str, input: &[usize], seed: u64) -> Box<dyn Layer<T>> {
        let [features] = input else {
            panic!(
                "Dense: layer '{name}' takes examples of shape [features], got {input:?}: add Flatten before it"
            );
        };
        Box::new(Dense::new(name, *features, self.units, seed).with_activation(self.activation))
    }
}

/// [`Conv2D`] by its filters and window, Keras' `Conv2D(filters, kernel_size, strides,
/// padding, data_format, dilation_rate, groups, activation)`.
pub struct Conv2DSpec<T: Float> {
    filters: usize,
    kernel_size: (usize, usize),
    strides: (usize, usize),
    padding: Padding,
    dilations: (usize, usize),
    groups: usize,
    data_format: DataFormat,
    activation: Activation,
    float: PhantomData<T>,
}

impl<T: Float> Conv2D<T> {
    /// A convolution of `filters` output channels over `kernel_size` windows whose input
    /// channels, name and seed the model gives ([`Sequential::input`](super::Sequential::input)).
    /// Stride 1, `Valid` padding, no dilation unless set, as Keras'.
    ///
    /// ```
    /// use gradtape_nn::{Conv2D, Layer, Sequential};
    /// let model = Sequential::<f32>::input(&[28, 28, 3]).add(Conv2D::filters(8, (3, 3)));
    /// assert_eq!(model.trainable_variables()[0].shape(), vec![3, 3, 3, 8]);
    /// assert_eq!(model.output_shape(), Some(&[26, 26, 8][..]));
    /// ```
    pub fn filters(filters: usize, kernel_size: (usize, usize)) -> Conv2DSpec<T> {
        Conv2DSpec {
            filters,
            kernel_size,
            strides: (1, 1),
            padding: Padding::Valid,
            dilations: (1, 1),
            groups: 1,
            data_format: DataFormat::ChannelsLast,
            activation: Activation::Linear,
            float: PhantomData,
        }
    }
}

impl<T: Float> Conv2DSpec<T> {
    /// The same layer with strides `(rows, cols)`.
    pub fn strides(mut self, rows: usize, cols: usize) -> Conv2DSpec<T> {
        self.strides = (rows, cols);
        self
    }

    /// The same layer with `padding`.
    pub fn padding(mut self, padding: Padding) -> Conv2DSpec<T> {
        self.padding = padding;
        self
    }

    /// The same layer with dilations `(rows, cols)`.
    pub fn dilations(mut self, rows: usize, cols: usize) -> Conv2DSpec<T> {
        self.dilations = (rows, cols);
        self
    }

    /// The same layer split into `groups` channel groups (Keras' `groups`): its kernel is
    /// `[kh, kw, in / groups, filters]`, Glorot-uniform with that kernel's fans, as Keras'.
    ///
    /// ```
    /// use gradtape_nn::{Conv2D, Layer, Sequential};
    /// let model = Sequential::<f32>::input(&[8, 8, 6]).add(Conv2D::filters(4, (3, 3)).groups(2));
    /// assert_eq!(model.trainable_variables()[0].shape(), vec![3, 3, 3, 4]);
    /// assert_eq!(model.output_shape(), Some(&[6, 6, 4][..]));
    /// ```
    pub fn groups(mut self, groups: usize) -> Conv2DSpec<T> {
        self.groups = groups;
        self
    }

    /// The same layer for images in `data_format`: with
    /// [`DataFormat::ChannelsFirst`] the model's examples are `[channels, height, width]`.
    ///
    /// ```
    /// use gradtape_nn::{Conv2D, DataFormat, Sequential};
    /// let model = Sequential::<f32>::input(&[3, 8, 8])
    ///     .add(Conv2D::filters(4, (3, 3)).data_format(DataFormat::ChannelsFirst));
    /// assert_eq!(model.output_shape(), Some(&[4, 6, 6][..]));
    /// ```
    pub fn data_format(mut self, data_format: DataFormat) -> Conv2DSpec<T> {
        self.data_format = data_format;
        self
    }

    /// The same layer with `activation` applied to its output.
    pub fn activation(mut self, activation: Activation) -> Conv2DSpec<T> {
        self.activation = activation;
        self
    }
}

impl<T: Float> LayerSpec<T> for Conv2DSpec<T> {
    fn base_name(&self) -> &'static str {
        "conv2d"
    }

    #[track_caller]
    fn build(self, name: &str, input: &[usize], seed: u64) -> Box<dyn Layer<T>> {
        let channels = match (self.data_format, input) {
            (DataFormat::ChannelsLast, [_, _, channels])
            | (DataFormat::ChannelsFirst, [channels, _, _]) => channels,
            (DataFormat::ChannelsLast, _) => panic!(
                "Conv2D: layer '{name}' takes NHWC examples of shape [height, width, channels], got {input:?}"
            ),
            (DataFormat::ChannelsFirst, _) => panic!(
                "Conv2D: layer '{name}' takes NCHW examples of shape [channels, height, width], got {input:?}"
            ),
        };
        let groups = self.groups;
        assert!(
            groups > 0 && channels.is_multiple_of(groups) && self.filters.is_multiple_of(groups),
            "Conv2D: layer '{name}' cannot split {channels} input channels and {} filters into {groups} groups",
            self.filters
        );
        // a grouped kernel is `[kh, kw, in / groups, filters]`: `Conv2D::new`'s with that
        // many input channels, Glorot-uniform with its fans
        let layer = Conv2D::new(
            name,
            channels / groups,
            self.filters,
            self.kernel_size,
            seed,
        )
        .with_groups(groups)
        .with_strides(self.strides.0, self.strides.1)
        .with_padding(self.padding)
        .with_dilations(self.dilations.0, self.dilations.1)
        .with_data_format(self.data_format)
        .with_activation(self.activation);
        Box::new(layer)
    }
}

/// Layers with no sizes to give are added to a model as they are, as in Keras
/// (`model.add(Flatten())`); the shape of their output is found as for a pushed layer.
///
/// ```
/// use gradtape_nn::{Conv2D, Dense, Flatten, Layer, MaxPool2D, Sequential};
/// let model = Sequential::<f32>::input(&[28, 28, 1])
///     .add(Conv2D::filters(8, (3, 3)))
///     .add(MaxPool2D::new((2, 2)))
///     .add(Flatten)
///     .add(Dense::units(10));
/// assert_eq!(model.output_shape(), Some(&[10][..]));
/// assert_eq!(model.trainable_variables()[2].shape(), vec![13 * 13 * 8, 10]);
/// ```
macro_rules! sizeless_layer_specs {
    ($($layer:ty => $base:literal),* $(,)?) => {$(
        impl<T: Float> LayerSpec<T> for $layer {
            fn base_name(&self) -> &'static str {
                $base
            }

            fn build(self, _name: &str, _input: &[usize], _seed: u64) -> Box<dyn Layer<T>> {
                Box::new(self)
            }
        }
    )*};
}

sizeless_layer_specs! {
    Flatten => "flatten",
    MaxPool2D => "max_pooling2d",
    AvgPool2D => "average_pooling2d",
}
