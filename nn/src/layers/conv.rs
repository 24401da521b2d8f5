//! Convolutional layers, Keras' `Conv2D`, `MaxPool2D`, `AvgPool2D` and `Flatten`, over NHWC
//! batches `[batch, height, width, channels]`.

use std::borrow::Cow;

use gradtape_runtime::{Conv2dOptions, Float, Padding, Tensor, Variable};

use super::{Activation, Layer, LayerOutput};

/// Glorot (Xavier) uniform initial values for a convolution kernel of `shape`
/// `[kh, kw, in, out]` (HWIO): uniform on `[-limit, limit)` with
/// `limit = sqrt(6 / (fan_in + fan_out))`, `fan_in = kh·kw·in` and `fan_out = kh·kw·out`, as
/// Keras' `GlorotUniform` computes the fans of a convolution kernel.
///
/// ```
/// use gradtape_nn::glorot_uniform_conv;
/// let w = glorot_uniform_conv::<f32>([3, 3, 1, 32], 0);
/// let limit = (6.0_f32 / (9.0 * 1.0 + 9.0 * 32.0)).sqrt();
/// assert_eq!(w.shape(), &[3, 3, 1, 32]);
/// assert!(w.to_vec().iter().all(|v| v.abs() <= limit));
/// ```
///
/// # Panics
/// If a dimension of `shape` is zero.
#[track_caller]
pub fn glorot_uniform_conv<T: Float>(shape: [usize; 4], seed: u64) -> Tensor<T> {
    assert!(
        shape.iter().all(|&d| d > 0),
        "glorot_uniform_conv: every dimension of the kernel must be positive, got shape {shape:?}"
    );
    let receptive = shape[0] * shape[1];
    let (fan_in, fan_out) = (receptive * shape[2], receptive * shape[3]);
    let limit = T::from_f64((6.0 / (fan_in + fan_out) as f64).sqrt());
    Tensor::random_uniform(&shape, -limit, limit, seed)
}

/// Where a layer's images keep their channels: Keras' `data_format`. The convolution and
/// pooling ops are NHWC (TensorFlow's layout on CPU); a `ChannelsFirst` layer (NCHW, as
/// PyTorch's) transposes its input to NHWC and its output back, two copies per call.
///
/// ```
/// use gradtape_nn::{Conv2D, DataFormat, Layer};
/// use gradtape_runtime::Tensor;
/// let layer = Conv2D::<f32>::new("conv", 3, 8, (3, 3), 0).with_data_format(DataFormat::ChannelsFirst);
/// // [batch, channels, height, width]
/// assert_eq!(layer.call(&Tensor::zeros(&[2, 3, 28, 28])).shape(), &[2, 8, 26, 26]);
/// assert_eq!(DataFormat::default(), DataFormat::ChannelsLast);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DataFormat {
    /// `[batch, height, width, channels]` (NHWC), Keras' default.
    #[default]
    ChannelsLast,
    /// `[batch, channels, height, width]` (NCHW).
    ChannelsFirst,
}

impl DataFormat {
    /// The layout's name for messages.
    fn describe(self) -> &'static str {
        match self {
            DataFormat::ChannelsLast => "NHWC inputs [batch, height, width, channels]",
            DataFormat::ChannelsFirst => "NCHW inputs [batch, channels, height, width]",
        }
    }

    /// The channel axis of a 4-D batch.
    fn channel_axis(self) -> usize {
        match self {
            DataFormat::ChannelsLast => 3,
            DataFormat::ChannelsFirst => 1,
        }
    }

    /// A batch in this layout as NHWC (no copy when it already is). Not a closure-taking
    /// helper: the ops' `#[track_caller]` panics must reach the layer's caller.
    fn layout_to_nhwc<T: Float>(self, x: &Tensor<T>) -> Cow<'_, Tensor<T>> {
        match self {
            DataFormat::ChannelsLast => Cow::Borrowed(x),
            DataFormat::ChannelsFirst => Cow::Owned(x.permute(&[0, 2, 3, 1])),
        }
    }

    /// An NHWC result in this layout.
    fn nhwc_to_layout<T: Float>(self, y: Tensor<T>) -> Tensor<T> {
        match self {
            DataFormat::ChannelsLast => y,
            DataFormat::ChannelsFirst => y.permute(&[0, 3, 1, 2]),
        }
    }
}

/// A 2-D convolution layer, Keras' `Conv2D`: `activation(conv2d(x, kernel) + bias)` over NHWC
/// batches, with an HWIO kernel `[kh, kw, in, filters]` (Glorot-uniform initial
/// values from a seed, [`glorot_uniform_conv`]) and a `[filters]` bias (zeros). Stride 1,
/// `Valid` padding, no dilation and one channel group unless set, as in Keras. Its variables
/// are named `"{name}/kernel"` and `"{name}/bias"`.
///
/// Grouped convolutions (Keras' `groups`): the kernel is `[kh, kw, in / groups, filters]`;
/// build one with [`Conv2D::filters`]`(..).groups(g)` in a model, or with
/// [`from_values`](Conv2D::from_values) and [`with_groups`](Conv2D::with_groups).
///
/// ```
/// use gradtape_nn::{Activation, Conv2D, Layer};
/// use gradtape_runtime::{Padding, Tensor};
/// let layer = Conv2D::<f32>::new("conv", 1, 8, (3, 3), 0).with_activation(Activation::Relu);
/// assert_eq!(layer.call(&Tensor::zeros(&[2, 28, 28, 1])).shape(), &[2, 26, 26, 8]);
/// let same = Conv2D::<f32>::new("conv", 1, 8, (3, 3), 0)
///     .with_strides(2, 2)
///     .with_padding(Padding::Same);
/// assert_eq!(same.call(&Tensor::zeros(&[2, 28, 28, 1])).shape(), &[2, 14, 14, 8]);
/// ```
pub struct Conv2D<T: Float> {
    name: String,
    kernel: Variable<T>,
    bias: Variable<T>,
    options: Conv2dOptions,
    activation: Activation,
    data_format: DataFormat,
}

impl<T: Float> Conv2D<T> {
    /// A layer from `in_channels` to `filters` channels with a `kernel_size` (rows,
    /// columns) window, named `name`, its kernel drawn with `seed`.
    ///
    /// ```
    /// use gradtape_nn::Conv2D;
    /// let layer = Conv2D::<f64>::new("conv1", 3, 16, (5, 5), 1);
    /// assert_eq!(layer.kernel().shape(), vec![5, 5, 3, 16]);
    /// assert_eq!(layer.bias().value().to_vec(), vec![0.0; 16]);
    /// ```
    ///
    /// # Panics
    /// If a size is zero.
    #[track_caller]
    pub fn new(
        name: &str,
        in_channels: usize,
        filters: usize,
        kernel_size: (usize, usize),
        seed: u64,
    ) -> Conv2D<T> {
        let shape = [kernel_size.0, kernel_size.1, in_channels, filters];
        assert!(
            shape.iter().all(|&d| d > 0),
            "Conv2D::new: layer '{name}' needs positive sizes, got kernel shape {shape:?} (kh, kw, in, filters)"
        );
        Conv2D::from_values(
            name,
            glorot_uniform_conv(shape, seed),
            Tensor::zeros(&[filters]),
        )
    }

    /// A layer with the given HWIO kernel `[kh, kw, in, filters]` and bias
    /// `[filters]`.
    ///
    /// ```
    /// use gradtape_nn::{Conv2D, Layer};
    /// use gradtape_runtime::Tensor;
    /// let kernel = Tensor::from_vec(vec![1.0_f64, 2.0, 3.0, 4.0], &[2, 2, 1, 1]);
    /// let layer = Conv2D::from_values("c", kernel, Tensor::from_vec(vec![0.5], &[1]));
    /// // 1·1 + 2·2 + 3·3 + 4·4 + 0.5
    /// let x = Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0], &[1, 2, 2, 1]);
    /// assert_eq!(layer.call(&x).to_vec(), vec![30.5]);
    /// ```
    ///
    /// # Panics
    /// If the kernel is not 4-D or the bias is not `[filters]`.
    #[track_caller]
    pub fn from_values(name: &str, kernel: Tensor<T>, bias: Tensor<T>) -> Conv2D<T> {
        assert!(
            kernel.rank() == 4 && bias.shape() == [kernel.shape()[3]],
            "Conv2D::from_values: layer '{name}' needs a [kh, kw, in, filters] kernel and a [filters] bias, got shapes {:?} and {:?}",
            kernel.shape(),
            bias.shape()
        );
        Conv2D {
            name: name.to_string(),
            kernel: Variable::with_name(format!("{name}/kernel"), kernel),
            bias: Variable::with_name(format!("{name}/bias"), bias),
            options: Conv2dOptions::new(),
            activation: Activation::Linear,
            data_format: DataFormat::ChannelsLast,
        }
    }

    /// The same layer with strides `(rows, cols)`.
    pub fn with_strides(mut self, rows: usize, cols: usize) -> Conv2D<T> {
        self.options = self.options.strides(rows, cols);
        self
    }

    /// The same layer with `padding`.
    pub fn with_padding(mut self, padding: Padding) -> Conv2D<T> {
        self.options = self.options.padding(padding);
        self
    }

    /// The same layer with dilations `(rows, cols)`.
    pub fn with_dilations(mut self, rows: usize, cols: usize) -> Conv2D<T> {
        self.options = self.options.dilations(rows, cols);
        self
    }

    /// The same layer with `groups` channel groups (Keras' `groups`): input channel group
    /// `g` meets only the filters of output group `g`; `groups` = input channels with a
    /// `[kh, kw, 1, filters]` kernel is a depthwise convolution. The kernel must be
    /// `[kh, kw, in / groups, filters]`, so this suits a layer made by
    /// [`from_values`](Conv2D::from_values); [`Conv2D::filters`]`(..).groups(g)` draws such
    /// a kernel for a model.
    ///
    /// ```
    /// use gradtape_nn::{Conv2D, Layer};
    /// use gradtape_runtime::Tensor;
    /// // two groups of one channel each: a depthwise 1x1 convolution scaling channel 0 by 2
    /// // and channel 1 by 3
    /// let kernel = Tensor::from_vec(vec![2.0_f64, 3.0], &[1, 1, 1, 2]);
    /// let layer = Conv2D::from_values("dw", kernel, Tensor::zeros(&[2])).with_groups(2);
    /// let x = Tensor::from_vec(vec![1.0, 10.0], &[1, 1, 1, 2]);
    /// assert_eq!(layer.call(&x).to_vec(), vec![2.0, 30.0]);
    /// ```
    ///
    /// # Panics
    /// If `groups` is zero or does not divide the kernel's filters.
    #[track_caller]
    pub fn with_groups(mut self, groups: usize) -> Conv2D<T> {
        let kernel_shape = self.kernel.shape();
        assert!(
            groups > 0 && kernel_shape[3].is_multiple_of(groups),
            "Conv2D::with_groups: layer '{}' cannot split its {} filters into {groups} groups (kernel shape {kernel_shape:?})",
            self.name,
            kernel_shape[3]
        );
        self.options = self.options.groups(groups);
        self
    }

    /// The same layer with `activation` applied to its output.
    pub fn with_activation(mut self, activation: Activation) -> Conv2D<T> {
        self.activation = activation;
        self
    }

    /// The same layer for images in `data_format` (see [`DataFormat`]).
    pub fn with_data_format(mut self, data_format: DataFormat) -> Conv2D<T> {
        self.data_format = data_format;
        self
    }

    /// The layer's name, the prefix of its variables' names.
    ///
    /// ```
    /// use gradtape_nn::Conv2D;
    /// assert_eq!(Conv2D::<f32>::new("conv", 1, 2, (3, 3), 0).name(), "conv");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The HWIO kernel `[kh, kw, in, filters]`.
    pub fn kernel(&self) -> &Variable<T> {
        &self.kernel
    }

    /// The `[filters]` bias.
    pub fn bias(&self) -> &Variable<T> {
        &self.bias
    }

    /// The convolution's strides, padding, dilations and groups.
    pub fn options(&self) -> Conv2dOptions {
        self.options
    }

    /// The activation applied to the output.
    pub fn activation(&self) -> Activation {
        self.activation
    }

    /// Where the layer's images keep their channels.
    pub fn data_format(&self) -> DataFormat {
        self.data_format
    }
}

impl<T: Float> Layer<T> for Conv2D<T> {
    #[track_caller]
    fn call(&self, x: &Tensor<T>) -> Tensor<T> {
        let kernel = self.kernel.value();
        let ks = kernel.shape();
        let channels = ks[2] * self.options.groups;
        let format = self.data_format;
        assert!(
            x.rank() == 4 && x.shape()[format.channel_axis()] == channels,
            "Conv2D: layer '{}' expects {} with {channels} channels, got {:?}",
            self.name,
            format.describe(),
            x.shape()
        );
        let x = format.layout_to_nhwc(x);
        let y = match self.activation {
            // one op: the bias and the ReLU in the product's output pass, and ReLU's mask
            // taken from the output in the rule (the same values as the composition)
            Activation::Relu => x.conv2d_bias_relu(&kernel, &self.bias.value(), self.options),
            activation => activation.apply(&(x.conv2d(&kernel, self.options) + self.bias.value())),
        };
        format.nhwc_to_layout(y)
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

/// Checks that a pooling layer's input is a batch of images.
#[track_caller]
fn check_images<T: Float>(layer: &str, x: &Tensor<T>, format: DataFormat) {
    assert!(
        x.rank() == 4,
        "{layer}: expects {}, got {:?}",
        format.describe(),
        x.shape()
    );
}

/// Max pooling, Keras' `MaxPool2D`: the maximum of each `pool_size` window per channel,
/// moved by `strides` (the pool size unless set, as in Keras), `Valid` padding unless set.
///
/// ```
/// use gradtape_nn::{Layer, MaxPool2D};
/// use gradtape_runtime::Tensor;
/// let pool = MaxPool2D::new((2, 2));
/// let x = Tensor::from_vec((1..=16_u8).map(f32::from).collect(), &[1, 4, 4, 1]);
/// assert_eq!(pool.call(&x).to_vec(), vec![6.0, 8.0, 14.0, 16.0]);
/// assert!(Layer::<f32>::trainable_variables(&pool).is_empty());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaxPool2D {
    pool_size: (usize, usize),
    strides: (usize, usize),
    padding: Padding,
    data_format: DataFormat,
}

impl MaxPool2D {
    /// Windows of `pool_size` (rows, columns), moved by the same (no overlap).
    pub fn new(pool_size: (usize, usize)) -> MaxPool2D {
        MaxPool2D {
            pool_size,
            strides: pool_size,
            padding: Padding::Valid,
            data_format: DataFormat::ChannelsLast,
        }
    }

    /// The same layer with strides `(rows, cols)`.
    ///
    /// ```
    /// use gradtape_nn::{Layer, MaxPool2D};
    /// use gradtape_runtime::Tensor;
    /// let pool = MaxPool2D::new((2, 2)).with_strides(1, 1);
    /// assert_eq!(pool.call(&Tensor::<f32>::zeros(&[1, 4, 4, 3])).shape(), &[1, 3, 3, 3]);
    /// ```
    pub fn with_strides(mut self, rows: usize, cols: usize) -> MaxPool2D {
        self.strides = (rows, cols);
        self
    }

    /// The same layer with `padding`.
    ///
    /// ```
    /// use gradtape_nn::{Layer, MaxPool2D};
    /// use gradtape_runtime::{Padding, Tensor};
    /// let pool = MaxPool2D::new((2, 2)).with_padding(Padding::Same);
    /// assert_eq!(pool.call(&Tensor::<f32>::zeros(&[1, 5, 5, 1])).shape(), &[1, 3, 3, 1]);
    /// ```
    pub fn with_padding(mut self, padding: Padding) -> MaxPool2D {
        self.padding = padding;
        self
    }

    /// The same layer for images in `data_format` (see [`DataFormat`]).
    pub fn with_data_format(mut self, data_format: DataFormat) -> MaxPool2D {
        self.data_format = data_format;
        self
    }
}

impl<T: Float> Layer<T> for MaxPool2D {
    #[track_caller]
    fn call(&self, x: &Tensor<T>) -> Tensor<T> {
        check_images("MaxPool2D", x, self.data_format);
        let nhwc = self.data_format.layout_to_nhwc(x);
        let y = nhwc.max_pool2d(self.pool_size, self.strides, self.padding);
        self.data_format.nhwc_to_layout(y)
    }

    fn trainable_variables(&self) -> Vec<Variable<T>> {
        Vec::new()
    }
}

/// Average pooling, Keras' `AveragePooling2D`: the mean of each `pool_size` window per
/// channel (padding not counted), moved by `strides` (the pool size unless set).
///
/// ```
/// use gradtape_nn::{AvgPool2D, Layer};
/// use gradtape_runtime::Tensor;
/// let pool = AvgPool2D::new((2, 2));
/// let x = Tensor::from_vec((1..=16_u8).map(f32::from).collect(), &[1, 4, 4, 1]);
/// assert_eq!(pool.call(&x).to_vec(), vec![3.5, 5.5, 11.5, 13.5]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AvgPool2D {
    pool_size: (usize, usize),
    strides: (usize, usize),
    padding: Padding,
    data_format: DataFormat,
}

impl AvgPool2D {
    /// Windows of `pool_size` (rows, columns), moved by the same (no overlap).
    pub fn new(pool_size: (usize, usize)) -> AvgPool2D {
        AvgPool2D {
            pool_size,
            strides: pool_size,
            padding: Padding::Valid,
            data_format: DataFormat::ChannelsLast,
        }
    }

    /// The same layer with strides `(rows, cols)`.
    ///
    /// ```
    /// use gradtape_nn::{AvgPool2D, Layer};
    /// use gradtape_runtime::Tensor;
    /// let pool = AvgPool2D::new((3, 3)).with_strides(1, 1);
    /// assert_eq!(pool.call(&Tensor::<f32>::zeros(&[1, 4, 4, 2])).shape(), &[1, 2, 2, 2]);
    /// ```
    pub fn with_strides(mut self, rows: usize, cols: usize) -> AvgPool2D {
        self.strides = (rows, cols);
        self
    }

    /// The same layer with `padding`.
    ///
    /// ```
    /// use gradtape_nn::{AvgPool2D, Layer};
    /// use gradtape_runtime::{Padding, Tensor};
    /// let pool = AvgPool2D::new((2, 2)).with_padding(Padding::Same);
    /// assert_eq!(pool.call(&Tensor::<f32>::zeros(&[1, 3, 3, 1])).shape(), &[1, 2, 2, 1]);
    /// ```
    pub fn with_padding(mut self, padding: Padding) -> AvgPool2D {
        self.padding = padding;
        self
    }

    /// The same layer for images in `data_format` (see [`DataFormat`]).
    pub fn with_data_format(mut self, data_format: DataFormat) -> AvgPool2D {
        self.data_format = data_format;
        self
    }
}

impl<T: Float> Layer<T> for AvgPool2D {
    #[track_caller]
    fn call(&self, x: &Tensor<T>) -> Tensor<T> {
        check_images("AvgPool2D", x, self.data_format);
        let nhwc = self.data_format.layout_to_nhwc(x);
        let y = nhwc.avg_pool2d(self.pool_size, self.strides, self.padding);
        self.data_format.nhwc_to_layout(y)
    }

    fn trainable_variables(&self) -> Vec<Variable<T>> {
        Vec::new()
    }
}

/// Keras' `Flatten`: `[batch, d1, d2, …]` to `[batch, d1·d2·…]`, in row-major (for NHWC,
/// channels-last) order.
///
/// ```
/// use gradtape_nn::{Flatten, Layer};
/// use gradtape_runtime::Tensor;
/// let x = Tensor::<f32>::zeros(&[8, 5, 5, 64]);
/// assert_eq!(Flatten.call(&x).shape(), &[8, 1600]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flatten;

impl<T: Float> Layer<T> for Flatten {
    #[track_caller]
    fn call(&self, x: &Tensor<T>) -> Tensor<T> {
        assert!(
            x.rank() >= 1,
            "Flatten: expects inputs with a batch axis, got shape {:?}",
            x.shape()
        );
        let batch = x.shape()[0];
        let rest: usize = x.shape()[1..].iter().product();
        x.reshape(&[batch, rest])
    }

    fn trainable_variables(&self) -> Vec<Variable<T>> {
        Vec::new()
    }
}
