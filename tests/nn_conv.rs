//! The convolutional layers: `Conv2D` against hand-computed values and Keras' Glorot-uniform
//! fans, the pools and `Flatten` by hand, a small CNN's gradients for every variable against
//! central differences, and a few training steps that learn to tell two patterns apart.

mod common;

use gradtape::nn::{
    Activation, Adam, AvgPool2D, Conv2D, DataFormat, Dense, Flatten, Layer, MaxPool2D, Optimizer,
    Sequential, glorot_uniform_conv, losses,
};
use gradtape::{GradientTape, Padding, Tensor};

fn counting(shape: &[usize]) -> Tensor<f64> {
    let n: usize = shape.iter().product();
    Tensor::from_vec((1..=n).map(|v| v as f64).collect(), shape)
}

#[test]
fn conv2d_layer_by_hand_with_bias_and_relu() {
    // conv of 1..9 (3x3) with [[1 2] [3 4]]: 37 47 67 77; bias −40, ReLU: 0 7 27 37
    let kernel = Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0], &[2, 2, 1, 1]);
    let layer = Conv2D::from_values("c", kernel, Tensor::from_vec(vec![-40.0], &[1]))
        .with_activation(Activation::Relu);
    let y = layer.call(&counting(&[1, 3, 3, 1]));
    assert_eq!(y.shape(), &[1, 2, 2, 1]);
    assert_eq!(y.to_vec(), vec![0.0, 7.0, 27.0, 37.0]);
    // the bias is per filter, broadcast over positions: two filters, biases 1 and −1
    let kernel = Tensor::from_vec(vec![1.0, 0.0], &[1, 1, 1, 2]);
    let layer = Conv2D::from_values("c2", kernel, Tensor::from_vec(vec![1.0, -1.0], &[2]));
    let y = layer.call(&counting(&[1, 1, 2, 1]));
    // position 0 (x = 1): [1 + 1, 0 − 1]; position 1 (x = 2): [2 + 1, 0 − 1]
    assert_eq!(y.to_vec(), vec![2.0, -1.0, 3.0, -1.0]);
}

#[test]
fn conv2d_layer_options_give_tensorflows_shapes() {
    let x = Tensor::<f32>::zeros(&[3, 28, 28, 1]);
    let base = || Conv2D::<f32>::new("c", 1, 4, (3, 3), 0);
    assert_eq!(base().call(&x).shape(), &[3, 26, 26, 4]);
    assert_eq!(
        base().with_padding(Padding::Same).call(&x).shape(),
        &[3, 28, 28, 4]
    );
    assert_eq!(base().with_strides(2, 2).call(&x).shape(), &[3, 13, 13, 4]);
    assert_eq!(
        base()
            .with_strides(2, 2)
            .with_padding(Padding::Same)
            .call(&x)
            .shape(),
        &[3, 14, 14, 4]
    );
    assert_eq!(
        base().with_dilations(2, 2).call(&x).shape(),
        &[3, 24, 24, 4]
    );
}

#[test]
fn conv2d_layer_initialises_as_keras() {
    // Keras' GlorotUniform for a [3, 3, 32, 64] kernel: fan_in = 9·32, fan_out = 9·64,
    // limit = sqrt(6 / (288 + 576)); the variance of U(−l, l) is l²/3
    let layer = Conv2D::<f64>::new("conv2", 32, 64, (3, 3), 11);
    let kernel = layer.kernel().value();
    assert_eq!(kernel.shape(), &[3, 3, 32, 64]);
    let limit = (6.0_f64 / (288.0 + 576.0)).sqrt();
    let values = kernel.to_vec();
    assert!(values.iter().all(|v| v.abs() <= limit));
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64;
    // 18,432 draws: the sample variance is within a few percent of l²/3
    assert!(
        (variance / (limit * limit / 3.0) - 1.0).abs() < 0.05,
        "{variance}"
    );
    assert!(mean.abs() < 0.05 * limit);
    assert_eq!(layer.bias().value().to_vec(), vec![0.0; 64]);
    let names: Vec<String> = layer
        .trainable_variables()
        .iter()
        .map(|v| v.name().to_string())
        .collect();
    assert_eq!(names, ["conv2/kernel", "conv2/bias"]);
    // reproducible for a seed, different across seeds
    assert_eq!(
        glorot_uniform_conv::<f64>([3, 3, 32, 64], 11).to_vec(),
        values
    );
    assert_ne!(
        glorot_uniform_conv::<f64>([3, 3, 32, 64], 12).to_vec(),
        values
    );
}

#[test]
fn pools_and_flatten_by_hand() {
    let x = counting(&[1, 4, 4, 1]);
    // 2x2 windows, stride 2 (Keras: strides default to the pool size)
    assert_eq!(
        MaxPool2D::new((2, 2)).call(&x).to_vec(),
        vec![6.0, 8.0, 14.0, 16.0]
    );
    // (1 + 2 + 5 + 6) / 4 = 3.5, …
    assert_eq!(
        AvgPool2D::new((2, 2)).call(&x).to_vec(),
        vec![3.5, 5.5, 11.5, 13.5]
    );
    // 3x3 windows, stride 1: maxima at the windows' bottom-right corners
    assert_eq!(
        MaxPool2D::new((3, 3)).with_strides(1, 1).call(&x).to_vec(),
        vec![11.0, 12.0, 15.0, 16.0]
    );
    // SAME on 3x3 with 2x2 stride 2 (padding after): (1+2+4+5)/4, (3+6)/2, (7+8)/2, 9
    let x3 = counting(&[1, 3, 3, 1]);
    assert_eq!(
        AvgPool2D::new((2, 2))
            .with_padding(Padding::Same)
            .call(&x3)
            .to_vec(),
        vec![3.0, 4.5, 7.5, 9.0]
    );
    // Flatten keeps NHWC order: channels fastest
    let x = counting(&[2, 2, 2, 3]);
    let flat = Flatten.call(&x);
    assert_eq!(flat.shape(), &[2, 12]);
    assert_eq!(flat.to_vec(), x.to_vec());
}

/// A small CNN in f64: Conv2D (ReLU) → MaxPool2D → Conv2D (tanh, SAME) → AvgPool2D →
/// Flatten → Dense, as `Sequential` composes them.
fn small_cnn() -> Sequential<f64> {
    Sequential::new()
        .push(Conv2D::new("c1", 1, 3, (3, 3), 1).with_activation(Activation::Tanh))
        .push(MaxPool2D::new((2, 2)))
        .push(
            Conv2D::new("c2", 3, 4, (2, 2), 2)
                .with_padding(Padding::Same)
                .with_activation(Activation::Tanh),
        )
        .push(AvgPool2D::new((2, 2)))
        .push(Flatten)
        .push(Dense::new("out", 4, 2, 3))
}

#[test]
fn a_small_cnns_gradients_match_central_differences() {
    let model = small_cnn();
    let x = Tensor::<f64>::random_normal(&[2, 6, 6, 1], 0.0, 1.0, 5);
    let labels = [0, 1];
    let variables = model.trainable_variables();
    assert_eq!(variables.len(), 6);
    // random biases, so that no bias sits at a symmetric point
    for (k, v) in variables.iter().enumerate() {
        v.assign(Tensor::random_normal(&v.shape(), 0.0, 0.3, 40 + k as u64));
    }
    let loss = || losses::sparse_softmax_cross_entropy(&model.call(&x), &labels);
    let tape = GradientTape::new();
    let l = tape.record(loss);
    let grads = tape.gradient(&l, &variables).unwrap();
    let h = 1e-6;
    for (v, g) in variables.iter().zip(&grads) {
        let g = g.as_ref().expect("every variable is connected").to_vec();
        let base = v.value().to_vec();
        for k in 0..base.len() {
            let at = |delta: f64| {
                let mut w = base.clone();
                w[k] += delta;
                v.assign(Tensor::from_vec(w, &v.shape()));
                loss().to_scalar()
            };
            let fd = (at(h) - at(-h)) / (2.0 * h);
            v.assign(Tensor::from_vec(base.clone(), &v.shape()));
            assert!(
                (g[k] - fd).abs() < 1e-6 * (1.0 + fd.abs()),
                "{} element {k}: {} vs {fd}",
                v.name(),
                g[k]
            );
        }
    }
}

#[test]
fn a_cnn_learns_vertical_from_horizontal_bars() {
    // 8x8 images with one bright bar: class 0 a row, class 1 a column, on noise
    let mut images = Vec::new();
    let mut labels = Vec::new();
    let noise = Tensor::<f32>::random_uniform(&[16, 8, 8, 1], 0.0, 0.2, 9).to_vec();
    for i in 0..16 {
        let (class, at) = (i % 2, (i / 2) % 8);
        for r in 0..8 {
            for c in 0..8 {
                let on = if class == 0 { r == at } else { c == at };
                images.push(f32::from(u8::from(on)) + noise[(i * 8 + r) * 8 + c]);
            }
        }
        labels.push(class);
    }
    let x = Tensor::from_vec(images, &[16, 8, 8, 1]);
    let model = Sequential::new()
        .push(Conv2D::<f32>::new("conv", 1, 4, (3, 3), 3).with_activation(Activation::Relu))
        .push(MaxPool2D::new((2, 2)))
        .push(Flatten)
        .push(Dense::new("logits", 36, 2, 4));
    let variables = model.trainable_variables();
    let mut optimizer = Adam::new(0.01);
    let mut history = Vec::new();
    for _ in 0..60 {
        let tape = GradientTape::new();
        let loss = tape.record(|| losses::sparse_softmax_cross_entropy(&model.call(&x), &labels));
        history.push(loss.to_scalar());
        let grads = tape.gradient(&loss, &variables).unwrap();
        optimizer.apply_gradients(grads.into_iter().zip(&variables));
    }
    let (first, last) = (history[0], *history.last().unwrap());
    assert!(last < 0.1 * first, "loss {first} → {last}");
    let predicted = model.call(&x).argmax_axis(1).to_vec();
    let correct = predicted
        .iter()
        .zip(&labels)
        .filter(|(p, l)| **p as usize == **l)
        .count();
    assert_eq!(correct, 16);
}

#[test]
fn bad_input_panics_name_the_layer_and_the_shapes() {
    let conv = Conv2D::<f32>::new("conv1", 3, 8, (3, 3), 0);
    let (file, _, message) = common::panic_site(|| drop(conv.call(&Tensor::zeros(&[2, 8, 8, 1]))));
    assert!(file.ends_with("nn_conv.rs"), "{file}");
    assert_eq!(
        message,
        "Conv2D: layer 'conv1' expects NHWC inputs [batch, height, width, channels] with 3 channels, got [2, 8, 8, 1]"
    );
    let (_, _, message) = common::panic_site(|| {
        drop(Layer::<f32>::call(
            &MaxPool2D::new((2, 2)),
            &Tensor::zeros(&[8, 8]),
        ))
    });
    assert_eq!(
        message,
        "MaxPool2D: expects NHWC inputs [batch, height, width, channels], got [8, 8]"
    );
    let (_, _, message) = common::panic_site(|| drop(Conv2D::<f32>::new("c", 0, 8, (3, 3), 0)));
    assert!(
        message.starts_with("Conv2D::new: layer 'c' needs positive sizes"),
        "{message}"
    );
    // a window larger than the input: the op's message, pointing at this file
    let (file, _, message) = common::panic_site(|| drop(conv.call(&Tensor::zeros(&[1, 2, 2, 3]))));
    assert!(file.ends_with("nn_conv.rs"), "{file}");
    assert!(
        message.contains("conv2d: the window [3, 3, 3, 8]"),
        "{message}"
    );
}

/// A grouped layer (Keras' `groups`) equals one ungrouped convolution per channel group on
/// that group's channels and filters, concatenated: an oracle that never runs the grouped
/// kernel; and its kernel's gradient matches central differences.
#[test]
fn grouped_conv2d_layer_is_one_convolution_per_group() {
    let groups = 3;
    let (in_per_group, out_per_group) = (2, 2);
    let kernel = glorot_uniform_conv::<f64>([3, 3, in_per_group, groups * out_per_group], 5);
    let bias = Tensor::from_vec(vec![0.1, -0.2, 0.3, -0.4, 0.5, -0.6], &[6]);
    let layer = Conv2D::from_values("grouped", kernel.clone(), bias.clone())
        .with_groups(groups)
        .with_padding(Padding::Same)
        .with_activation(Activation::Tanh);
    let x = Tensor::random_normal(&[2, 5, 5, groups * in_per_group], 0.0, 1.0, 9);
    let grouped = layer.call(&x);
    assert_eq!(grouped.shape(), &[2, 5, 5, 6]);
    let parts: Vec<Tensor<f64>> = (0..groups)
        .map(|g| {
            let part = Conv2D::from_values(
                "part",
                kernel.slice(3, g * out_per_group, out_per_group),
                bias.slice(0, g * out_per_group, out_per_group),
            )
            .with_padding(Padding::Same)
            .with_activation(Activation::Tanh);
            part.call(&x.slice(3, g * in_per_group, in_per_group))
        })
        .collect();
    let expected = Tensor::concat(&parts.iter().collect::<Vec<_>>(), 3);
    for (a, b) in grouped.to_vec().iter().zip(expected.to_vec()) {
        assert!((a - b).abs() < 1e-12, "{a} vs {b}");
    }

    // the kernel's gradient against central differences of the loss
    let loss = |layer: &Conv2D<f64>| layer.call(&x).square().sum();
    let tape = GradientTape::new();
    let y = tape.record(|| loss(&layer));
    let g = tape.gradient(&y, layer.kernel()).unwrap().unwrap().to_vec();
    let values = kernel.to_vec();
    for i in [0, 7, 19, 35] {
        let h = 1e-6;
        let at = |delta: f64| {
            let mut v = values.clone();
            v[i] += delta;
            let probe =
                Conv2D::from_values("probe", Tensor::from_vec(v, kernel.shape()), bias.clone())
                    .with_groups(groups)
                    .with_padding(Padding::Same)
                    .with_activation(Activation::Tanh);
            loss(&probe).to_scalar()
        };
        let fd = (at(h) - at(-h)) / (2.0 * h);
        assert!(
            (g[i] - fd).abs() < 1e-6 * (1.0 + fd.abs()),
            "kernel[{i}]: {} vs {fd}",
            g[i]
        );
    }
}

/// Keras' path: `Conv2D::filters(..).groups(g)` in a model draws a `[kh, kw, in / g,
/// filters]` kernel; a depthwise layer (groups = channels); bad groups name the layer.
#[test]
fn grouped_conv2d_in_a_model_and_its_errors() {
    let model = Sequential::<f64>::input(&[6, 6, 4])
        .add(Conv2D::filters(8, (3, 3)).groups(4))
        .add(Flatten)
        .add(Dense::units(2));
    let variables = model.trainable_variables();
    assert_eq!(variables[0].shape(), vec![3, 3, 1, 8]);
    assert_eq!(model.call(&Tensor::zeros(&[3, 6, 6, 4])).shape(), &[3, 2]);
    // Glorot's fans of the grouped kernel: (9·1, 9·8)
    let limit = (6.0_f64 / (9.0 + 72.0)).sqrt();
    assert!(
        variables[0]
            .value()
            .to_vec()
            .iter()
            .all(|v| v.abs() <= limit)
    );

    let (_, _, message) = common::panic_site(|| {
        drop(Sequential::<f64>::input(&[6, 6, 4]).add(Conv2D::filters(6, (3, 3)).groups(4)))
    });
    assert!(
        message.contains("cannot split 4 input channels and 6 filters into 4 groups"),
        "{message}"
    );
    let kernel = Tensor::<f64>::zeros(&[3, 3, 2, 6]);
    let (file, _, message) = common::panic_site(|| {
        drop(Conv2D::from_values("c", kernel.clone(), Tensor::zeros(&[6])).with_groups(4))
    });
    assert!(file.ends_with("nn_conv.rs"), "{file}");
    assert!(
        message.contains("layer 'c' cannot split its 6 filters into 4 groups"),
        "{message}"
    );
    // a grouped layer names the channels it expects: in / groups · groups
    let layer = Conv2D::from_values("c", kernel, Tensor::zeros(&[6])).with_groups(3);
    let (_, _, message) = common::panic_site(|| drop(layer.call(&Tensor::zeros(&[1, 5, 5, 4]))));
    assert_eq!(
        message,
        "Conv2D: layer 'c' expects NHWC inputs [batch, height, width, channels] with 6 channels, got [1, 5, 5, 4]"
    );
}

/// `DataFormat::ChannelsFirst` (NCHW): each layer equals its NHWC self on the transposed
/// batch, values and every gradient (input and variables), at orders 1 and 2 of the input.
#[test]
fn channels_first_layers_equal_channels_last_on_transposed_batches() {
    let to_nchw = |x: &Tensor<f64>| x.permute(&[0, 3, 1, 2]);
    let kernel = glorot_uniform_conv::<f64>([3, 3, 2, 4], 3);
    let bias = Tensor::from_vec(vec![0.1, -0.2, 0.3, -0.4], &[4]);
    let conv = |format| {
        Conv2D::from_values("c", kernel.clone(), bias.clone())
            .with_padding(Padding::Same)
            .with_strides(2, 1)
            .with_activation(Activation::Tanh)
            .with_data_format(format)
    };
    let (last, first) = (
        conv(DataFormat::ChannelsLast),
        conv(DataFormat::ChannelsFirst),
    );
    let x = Tensor::random_normal(&[2, 6, 5, 2], 0.0, 1.0, 4);
    let xt = to_nchw(&x);
    let close = |a: &Tensor<f64>, b: &Tensor<f64>| {
        assert_eq!(a.shape(), b.shape());
        for (u, v) in a.to_vec().iter().zip(b.to_vec()) {
            assert!((u - v).abs() < 1e-12, "{u} vs {v}");
        }
    };
    close(&first.call(&xt), &to_nchw(&last.call(&x)));
    // gradients of the same scalar loss: input (first and second order) and kernel
    let gradients = |layer: &Conv2D<f64>, input: &Tensor<f64>| {
        let outer = GradientTape::new();
        outer.watch(input);
        let (dx, dk) = outer.record(|| {
            let inner = GradientTape::persistent();
            inner.watch(input);
            let loss = inner.record(|| layer.call(input).square().sum());
            let dx = inner.gradient(&loss, input).unwrap().unwrap();
            let dk = inner.gradient(&loss, layer.kernel()).unwrap().unwrap();
            (dx, dk)
        });
        let curvature = outer.record(|| dx.square().sum());
        let ddx = outer.gradient(&curvature, input).unwrap().unwrap();
        (dx, dk, ddx)
    };
    let (dx_last, dk_last, ddx_last) = gradients(&last, &x);
    let (dx_first, dk_first, ddx_first) = gradients(&first, &xt);
    close(&dx_first, &to_nchw(&dx_last));
    close(&dk_first, &dk_last);
    close(&ddx_first, &to_nchw(&ddx_last));

    for pool in [
        Box::new(|f| Box::new(MaxPool2D::new((2, 2)).with_data_format(f)) as Box<dyn Layer<f64>>)
            as Box<dyn Fn(DataFormat) -> Box<dyn Layer<f64>>>,
        Box::new(|f| {
            Box::new(
                AvgPool2D::new((2, 2))
                    .with_padding(Padding::Same)
                    .with_data_format(f),
            )
        }),
    ] {
        let (last, first) = (
            pool(DataFormat::ChannelsLast),
            pool(DataFormat::ChannelsFirst),
        );
        close(&first.call(&xt), &to_nchw(&last.call(&x)));
    }

    // Keras' path, and the messages name the layout
    let model = Sequential::<f64>::input(&[2, 6, 5])
        .add(Conv2D::filters(3, (3, 3)).data_format(DataFormat::ChannelsFirst))
        .add(Flatten)
        .add(Dense::units(1));
    assert_eq!(model.trainable_variables()[0].shape(), vec![3, 3, 2, 3]);
    assert_eq!(model.call(&xt).shape(), &[2, 1]);
    let (_, _, message) = common::panic_site(|| drop(first.call(&x)));
    assert_eq!(
        message,
        "Conv2D: layer 'c' expects NCHW inputs [batch, channels, height, width] with 2 channels, got [2, 6, 5, 2]"
    );
}
