//! Convolution and pooling against hand-computed small cases, TensorFlow's output shapes and
//! padding arithmetic, a direct seven-loop convolution as an oracle for every option, a
//! gradient penalty (second order) against finite differences, jacobians (batched rules)
//! against one vector-Jacobian product per row, and the panics of bad input.

mod common;

use gradtape::{Conv2dOptions, Float, GradientOptions, GradientTape, Padding, Tensor};

/// `1, 2, …` in an NHWC tensor of `shape`.
fn counting(shape: &[usize]) -> Tensor<f64> {
    let n: usize = shape.iter().product();
    Tensor::from_vec((1..=n).map(|v| v as f64).collect(), shape)
}

fn close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(
            (a - b).abs() <= tol * (1.0 + b.abs()),
            "element {k}: {a} vs {b}\n{got:?}\n{want:?}"
        );
    }
}

#[test]
fn a_3x3_image_and_a_2x2_filter_by_hand() {
    // x = [[1 2 3] [4 5 6] [7 8 9]], w = [[1 2] [3 4]]:
    // y₀₀ = 1·1 + 2·2 + 4·3 + 5·4 = 37, y₀₁ = 2 + 6 + 15 + 24 = 47,
    // y₁₀ = 4 + 10 + 21 + 32 = 67,     y₁₁ = 5 + 12 + 24 + 36 = 77
    let x = counting(&[1, 3, 3, 1]);
    let w = Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0], &[2, 2, 1, 1]);
    let y = x.conv2d(&w, Conv2dOptions::new());
    assert_eq!(y.shape(), &[1, 2, 2, 1]);
    assert_eq!(y.to_vec(), vec![37.0, 47.0, 67.0, 77.0]);
}

#[test]
fn stride_2_by_hand() {
    // 4x4 image 1..16, w = [[1 2] [3 4]], stride 2: the four disjoint 2x2 blocks
    // (1 2 5 6) → 1 + 4 + 15 + 24 = 44, (3 4 7 8) → 64, (9 10 13 14) → 124, (11 12 15 16) → 144
    let x = counting(&[1, 4, 4, 1]);
    let w = Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0], &[2, 2, 1, 1]);
    let y = x.conv2d(&w, Conv2dOptions::new().strides(2, 2));
    assert_eq!(y.to_vec(), vec![44.0, 64.0, 124.0, 144.0]);
}

#[test]
fn same_padding_odd_kernel_pads_both_sides() {
    // 3x3 ones filter, SAME: pad 1 on each side; each output sums its 3x3 neighbourhood
    let x = counting(&[1, 3, 3, 1]);
    let w = Tensor::ones(&[3, 3, 1, 1]);
    let y = x.conv2d(&w, Conv2dOptions::new().padding(Padding::Same));
    assert_eq!(
        y.to_vec(),
        vec![12.0, 21.0, 16.0, 27.0, 45.0, 33.0, 24.0, 39.0, 28.0]
    );
}

#[test]
fn same_padding_even_kernel_pads_after() {
    // 2x2 ones filter, SAME, stride 1 on 3: total padding 1, before = 1 / 2 = 0, so the
    // padding is after: the last row and column of windows see one row or column
    let x = counting(&[1, 3, 3, 1]);
    let w = Tensor::ones(&[2, 2, 1, 1]);
    let y = x.conv2d(&w, Conv2dOptions::new().padding(Padding::Same));
    assert_eq!(
        y.to_vec(),
        vec![12.0, 16.0, 9.0, 24.0, 28.0, 15.0, 15.0, 17.0, 9.0]
    );
}

#[test]
fn same_padding_with_stride_is_asymmetric_as_in_tensorflow() {
    // 4x4, 3x3 ones, stride 2, SAME: out 2, total = (2 − 1)·2 + 3 − 4 = 1, top = 0:
    // windows cover rows/cols {0, 1, 2} and {2, 3, pad}
    // (0,0): 1+2+3+5+6+7+9+10+11 = 54; (0,1): 3+4+7+8+11+12 = 45;
    // (1,0): 9+10+11+13+14+15 = 72;    (1,1): 11+12+15+16 = 54
    let x = counting(&[1, 4, 4, 1]);
    let w = Tensor::ones(&[3, 3, 1, 1]);
    let options = Conv2dOptions::new().strides(2, 2).padding(Padding::Same);
    assert_eq!(x.conv2d(&w, options).to_vec(), vec![54.0, 45.0, 72.0, 54.0]);
}

#[test]
fn dilation_2_by_hand() {
    // 5x5 image x(r, c) = 5r + c + 1, w = [[1 2] [3 4]] dilated by 2 (taps 2 apart):
    // y(r, c) = x(r, c) + 2x(r, c+2) + 3x(r+2, c) + 4x(r+2, c+2) = 10·x(r, c) + 4 + 30 + 48
    let x = counting(&[1, 5, 5, 1]);
    let w = Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0], &[2, 2, 1, 1]);
    let y = x.conv2d(&w, Conv2dOptions::new().dilations(2, 2));
    assert_eq!(y.shape(), &[1, 3, 3, 1]);
    let want: Vec<f64> = (0..3)
        .flat_map(|r| (0..3).map(move |c| 10.0 * (5 * r + c + 1) as f64 + 82.0))
        .collect();
    assert_eq!(y.to_vec(), want);
}

#[test]
fn depthwise_groups_keep_channels_apart() {
    // 2x2 image, channel 0 = 1 2 3 4, channel 1 = 10 20 30 40; groups = 2, one filter
    // each: channel 0's taps the diagonal [[1 0] [0 1]], channel 1's the anti-diagonal
    // y₀ = 1 + 4 = 5, y₁ = 20 + 30 = 50
    let x = Tensor::from_vec(
        vec![1.0, 10.0, 2.0, 20.0, 3.0, 30.0, 4.0, 40.0],
        &[1, 2, 2, 2],
    );
    // HWIO [2, 2, 1, 2]: (ky, kx) → [channel 0's tap, channel 1's tap]
    let w = Tensor::from_vec(vec![1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0], &[2, 2, 1, 2]);
    let y = x.conv2d(&w, Conv2dOptions::new().groups(2));
    assert_eq!(y.shape(), &[1, 1, 1, 2]);
    assert_eq!(y.to_vec(), vec![5.0, 50.0]);
}

#[test]
fn output_shapes_follow_tensorflows_arithmetic() {
    // (input, kernel, stride, dilation, padding, TF's output length):
    // VALID ⌈(in − (k−1)·d) / s⌉, SAME ⌈in / s⌉
    let cases = [
        (28, 3, 1, 1, Padding::Valid, 26),
        (28, 3, 1, 1, Padding::Same, 28),
        (28, 3, 2, 1, Padding::Valid, 13),
        (28, 3, 2, 1, Padding::Same, 14),
        (26, 2, 2, 1, Padding::Valid, 13),
        (11, 2, 2, 1, Padding::Valid, 5),
        (7, 2, 2, 1, Padding::Valid, 3),
        (7, 2, 2, 1, Padding::Same, 4),
        (5, 3, 1, 2, Padding::Valid, 1),
        (5, 3, 1, 2, Padding::Same, 5),
        (10, 4, 3, 1, Padding::Valid, 3),
        (10, 4, 3, 1, Padding::Same, 4),
        (6, 3, 2, 2, Padding::Valid, 1),
        (6, 3, 2, 2, Padding::Same, 3),
        (1, 1, 1, 1, Padding::Valid, 1),
        (1, 3, 1, 1, Padding::Same, 1),
    ];
    for (size, k, s, d, padding, want) in cases {
        assert_eq!(
            padding.output_len(size, k, s, d),
            Some(want),
            "{size} {k} {s} {d} {padding:?}"
        );
        // rows and columns with different settings: (size, k) on rows, (size + 1, 1) on cols
        let x = Tensor::<f64>::zeros(&[2, size, size + 1, 3]);
        let w = Tensor::zeros(&[k, 1, 3, 4]);
        let options = Conv2dOptions::new()
            .strides(s, 1)
            .dilations(d, 1)
            .padding(padding);
        assert_eq!(x.conv2d(&w, options).shape(), &[2, want, size + 1, 4]);
        if d == 1 {
            assert_eq!(
                x.max_pool2d((k, 1), (s, 1), padding).shape(),
                &[2, want, size + 1, 3]
            );
            assert_eq!(
                x.avg_pool2d((k, 1), (s, 1), padding).shape(),
                &[2, want, size + 1, 3]
            );
        }
    }
    assert_eq!(Padding::Valid.output_len(4, 3, 1, 2), None);
}

/// The direct definition, seven loops, as an oracle independent of im2col and gemm.
fn direct_conv(x: &Tensor<f64>, w: &Tensor<f64>, o: Conv2dOptions) -> (Vec<usize>, Vec<f64>) {
    let (xs, ws) = (x.shape().to_vec(), w.shape().to_vec());
    let (xv, wv) = (x.to_vec(), w.to_vec());
    let (n, h, wd, ci) = (xs[0], xs[1], xs[2], xs[3]);
    let (kh, kw, cig, co) = (ws[0], ws[1], ws[2], ws[3]);
    let cog = co / o.groups;
    let axis = |size: usize, k: usize, s: usize, d: usize| -> (usize, i64) {
        let span = (k - 1) * d + 1;
        match o.padding {
            Padding::Valid => ((size - span) / s + 1, 0),
            Padding::Same => {
                let out = size.div_ceil(s);
                let total = ((out - 1) * s + span).saturating_sub(size);
                (out, (total / 2) as i64)
            }
        }
    };
    let (oh, top) = axis(h, kh, o.strides.0, o.dilations.0);
    let (ow, left) = axis(wd, kw, o.strides.1, o.dilations.1);
    let mut out = Vec::new();
    for b in 0..n {
        for oy in 0..oh {
            for ox in 0..ow {
                for c in 0..co {
                    let group = c / cog;
                    let mut sum = 0.0;
                    for ky in 0..kh {
                        for kx in 0..kw {
                            let iy = (oy * o.strides.0 + ky * o.dilations.0) as i64 - top;
                            let ix = (ox * o.strides.1 + kx * o.dilations.1) as i64 - left;
                            if iy < 0 || ix < 0 || iy >= h as i64 || ix >= wd as i64 {
                                continue;
                            }
                            for q in 0..cig {
                                let xin = ((b * h + iy as usize) * wd + ix as usize) * ci
                                    + group * cig
                                    + q;
                                let win = ((ky * kw + kx) * cig + q) * co + c;
                                sum += xv[xin] * wv[win];
                            }
                        }
                    }
                    out.push(sum);
                }
            }
        }
    }
    (vec![n, oh, ow, co], out)
}

fn option_sets() -> Vec<(&'static str, [usize; 4], [usize; 4], Conv2dOptions)> {
    let o = Conv2dOptions::new;
    vec![
        ("valid", [2, 6, 5, 3], [3, 2, 3, 4], o()),
        (
            "same",
            [2, 6, 5, 3],
            [3, 2, 3, 4],
            o().padding(Padding::Same),
        ),
        (
            "stride 2 same",
            [1, 7, 6, 2],
            [3, 3, 2, 3],
            o().strides(2, 2).padding(Padding::Same),
        ),
        (
            "stride (3, 2) valid",
            [1, 8, 7, 2],
            [2, 3, 2, 2],
            o().strides(3, 2),
        ),
        (
            "dilation 2 valid",
            [1, 7, 7, 2],
            [3, 2, 2, 3],
            o().dilations(2, 2),
        ),
        (
            "dilation (2, 3) same",
            [1, 6, 7, 1],
            [2, 2, 1, 2],
            o().dilations(2, 3).padding(Padding::Same),
        ),
        ("groups 2", [2, 5, 5, 4], [2, 2, 2, 6], o().groups(2)),
        (
            "depthwise same",
            [1, 5, 4, 3],
            [3, 3, 1, 3],
            o().groups(3).padding(Padding::Same),
        ),
        (
            "depthwise multiplier 2",
            [1, 4, 4, 2],
            [2, 2, 1, 4],
            o().groups(2).strides(2, 1),
        ),
    ]
}

#[test]
fn every_option_set_matches_the_direct_definition() {
    for (k, (name, xs, ws, options)) in option_sets().into_iter().enumerate() {
        let x = Tensor::<f64>::random_normal(&xs, 0.0, 1.0, 10 + k as u64);
        let w = Tensor::<f64>::random_normal(&ws, 0.0, 1.0, 50 + k as u64);
        let y = x.conv2d(&w, options);
        let (shape, want) = direct_conv(&x, &w, options);
        assert_eq!(y.shape(), &shape[..], "{name}");
        close(&y.to_vec(), &want, 1e-12);
        // f32 runs the same kernels
        let y32 = x.cast::<f32>().conv2d(&w.cast::<f32>(), options);
        let y32: Vec<f64> = y32.to_vec().into_iter().map(f64::from).collect();
        close(&y32, &want, 1e-4);
    }
}

/// ⟨conv(x, w), ḡ⟩ = ⟨x, backprop_input(ḡ, w)⟩ = ⟨w, backprop_filter(x, ḡ)⟩: the two
/// gradient ops are the transposes of the convolution in each operand.
#[test]
fn the_backprops_are_the_transposes() {
    let dot = |a: &Tensor<f64>, b: &Tensor<f64>| -> f64 {
        a.to_vec().iter().zip(b.to_vec()).map(|(p, q)| p * q).sum()
    };
    for (k, (name, xs, ws, options)) in option_sets().into_iter().enumerate() {
        let x = Tensor::<f64>::random_normal(&xs, 0.0, 1.0, 100 + k as u64);
        let w = Tensor::<f64>::random_normal(&ws, 0.0, 1.0, 200 + k as u64);
        let y = x.conv2d(&w, options);
        let g = Tensor::<f64>::random_normal(y.shape(), 0.0, 1.0, 300 + k as u64);
        let lhs = dot(&y, &g);
        let dx = g.conv2d_backprop_input(&w, &xs, options);
        let dw = x.conv2d_backprop_filter(&g, &ws, options);
        assert!(
            (lhs - dot(&x, &dx)).abs() < 1e-10 * (1.0 + lhs.abs()),
            "{name}: input"
        );
        assert!(
            (lhs - dot(&w, &dw)).abs() < 1e-10 * (1.0 + lhs.abs()),
            "{name}: filter"
        );
    }
}

#[test]
fn max_pool_by_hand() {
    let x = counting(&[1, 4, 4, 1]);
    assert_eq!(
        x.max_pool2d((2, 2), (2, 2), Padding::Valid).to_vec(),
        vec![6.0, 8.0, 14.0, 16.0]
    );
    // SAME, 2x2 stride 2 on 3x3: windows {0, 1} and {2} (padding after)
    let x = counting(&[1, 3, 3, 1]);
    assert_eq!(
        x.max_pool2d((2, 2), (2, 2), Padding::Same).to_vec(),
        vec![5.0, 6.0, 8.0, 9.0]
    );
    // all negative: the padding is never the maximum (it is not a zero)
    let x = -counting(&[1, 3, 3, 1]);
    assert_eq!(
        x.max_pool2d((2, 2), (2, 2), Padding::Same).to_vec(),
        vec![-1.0, -3.0, -7.0, -9.0]
    );
}

fn pool_gradient(x: &Tensor<f64>, pool: impl Fn(&Tensor<f64>) -> Tensor<f64>) -> Vec<f64> {
    let tape = GradientTape::new();
    tape.watch(x);
    let y = tape.record(|| pool(x).sum());
    tape.gradient(&y, x).unwrap().unwrap().to_vec()
}

#[test]
fn max_pool_gradient_goes_to_the_first_maximum() {
    // a tie: all four equal, the first (row-major) takes the whole gradient, as TF's
    let x = Tensor::from_vec(vec![1.0; 4], &[1, 2, 2, 1]);
    let g = pool_gradient(&x, |x| x.max_pool2d((2, 2), (2, 2), Padding::Valid));
    assert_eq!(g, vec![1.0, 0.0, 0.0, 0.0]);
    // overlapping windows [1 3] and [3 2] both pick the 3: it gets both cotangents
    let x = Tensor::from_vec(vec![1.0, 3.0, 2.0], &[1, 1, 3, 1]);
    let g = pool_gradient(&x, |x| x.max_pool2d((1, 2), (1, 1), Padding::Valid));
    assert_eq!(g, vec![0.0, 2.0, 0.0]);
    // per channel: channel 0 peaks at position 1, channel 1 at position 0
    let x = Tensor::from_vec(vec![1.0, 9.0, 5.0, 2.0], &[1, 1, 2, 2]);
    let g = pool_gradient(&x, |x| x.max_pool2d((1, 2), (1, 2), Padding::Valid));
    assert_eq!(g, vec![0.0, 1.0, 1.0, 0.0]);
}

/// Max pooling's gradient where the windows tile the input (each input element written
/// once, no zeros first) against the same windows in an input one row and one column
/// larger, which no window reaches (the general path: zeros, then each share added): the
/// same bits on the shared positions, zeros on the others, and a `-0.0` cotangent routed
/// as `+0.0` by both (the general path adds it onto a zero). Regression for the tiled
/// scatter of session 22.
#[test]
fn max_pool_gradient_where_windows_tile_the_input_equals_the_general_path() {
    let tiled = Tensor::<f64>::random_normal(&[2, 4, 4, 3], 0.0, 1.0, 81);
    let t = tiled.to_vec();
    // the same images with a fifth row and column of large values no window reaches
    let mut wider = vec![9.0; 2 * 5 * 5 * 3];
    for b in 0..2 {
        for i in 0..4 {
            for j in 0..4 {
                for c in 0..3 {
                    wider[((b * 5 + i) * 5 + j) * 3 + c] = t[((b * 4 + i) * 4 + j) * 3 + c];
                }
            }
        }
    }
    let wider = Tensor::from_vec(wider, &[2, 5, 5, 3]);
    let mut seed = Tensor::<f64>::random_normal(&[2, 2, 2, 3], 0.0, 1.0, 82).to_vec();
    seed[4] = -0.0;
    let seed = Tensor::from_vec(seed, &[2, 2, 2, 3]);
    let routed = |x: &Tensor<f64>| {
        let tape = GradientTape::new();
        tape.watch(x);
        let y = tape.record(|| x.max_pool2d((2, 2), (2, 2), Padding::Valid));
        assert_eq!(y.shape(), &[2, 2, 2, 3]);
        let options = GradientOptions::new().output_gradients(&seed);
        tape.gradient_with(&y, x, options).unwrap().unwrap()
    };
    let (d_tiled, d_wider) = (bits(&routed(&tiled)), bits(&routed(&wider)));
    for b in 0..2 {
        for i in 0..5 {
            for j in 0..5 {
                for c in 0..3 {
                    let at = ((b * 5 + i) * 5 + j) * 3 + c;
                    if i < 4 && j < 4 {
                        assert_eq!(d_tiled[((b * 4 + i) * 4 + j) * 3 + c], d_wider[at]);
                    } else {
                        assert_eq!(d_wider[at], 0.0f64.to_bits());
                    }
                }
            }
        }
    }
    assert!(
        !d_tiled.contains(&(-0.0f64).to_bits()),
        "-0.0 routed as +0.0"
    );
    let dense = routed(&tiled).to_vec();
    assert_eq!(
        dense.iter().filter(|v| **v != 0.0).count(),
        2 * 2 * 2 * 3 - 1
    );
}

/// The gradient finds each window's maximum again from the input and the output (no argmax
/// is kept): a NaN pools only as a window's first element, and then takes the gradient;
/// a later NaN is never the maximum, so neither its value nor its gradient is taken.
#[test]
fn max_pool_gradient_follows_nan_as_the_forward_does() {
    // window [NaN 1; 2 3]: the first element is NaN, so is the output, and it gets ḡ
    let x = Tensor::from_vec(vec![f64::NAN, 1.0, 2.0, 3.0], &[1, 2, 2, 1]);
    let y = x.max_pool2d((2, 2), (2, 2), Padding::Valid);
    assert!(y.to_vec()[0].is_nan());
    let g = pool_gradient(&x, |x| x.max_pool2d((2, 2), (2, 2), Padding::Valid));
    assert_eq!(g, vec![1.0, 0.0, 0.0, 0.0]);
    // window [1 NaN; 3 2]: NaN > 1 is false, 3 > 1 is true: the 3 is the maximum
    let x = Tensor::from_vec(vec![1.0, f64::NAN, 3.0, 2.0], &[1, 2, 2, 1]);
    assert_eq!(
        x.max_pool2d((2, 2), (2, 2), Padding::Valid).to_vec(),
        vec![3.0]
    );
    let g = pool_gradient(&x, |x| x.max_pool2d((2, 2), (2, 2), Padding::Valid));
    assert_eq!(g, vec![0.0, 0.0, 1.0, 0.0]);
}

/// Second order through ties: the gradient's own rule (`max_pool2d_select`, TF's
/// `MaxPoolGradGrad`) takes the element at the same first maximum the gradient used.
#[test]
fn max_pool_second_order_takes_the_first_of_tied_maxima() {
    // the 2x2 windows of a [1, 2, 4, 1] image, [5 5; 5 5] and [1 7; 7 1]: their first
    // maxima (row-major) are at flat positions 0 and 3
    let x = Tensor::from_vec(vec![5.0, 5.0, 1.0, 7.0, 5.0, 5.0, 7.0, 1.0], &[1, 2, 4, 1]);
    let seed = Tensor::from_vec(vec![1.0, 1.0], &[1, 1, 2, 1]);
    let h = counting(&[1, 2, 4, 1]);
    let outer = GradientTape::new();
    outer.watch(&seed);
    let inner_product = outer.record(|| {
        let inner = GradientTape::new();
        inner.watch(&x);
        let y = inner.record(|| x.max_pool2d((2, 2), (2, 2), Padding::Valid));
        let options = GradientOptions::new().output_gradients(&seed);
        let dx = inner.gradient_with(&y, &x, options).unwrap().unwrap();
        // dx = seed at the first maxima
        assert_eq!(dx.to_vec(), vec![1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
        (&dx * &h).sum()
    });
    // d⟨dx, h⟩/d seed = h at each window's first maximum: h₀ = 1, h₃ = 4
    let g = outer.gradient(&inner_product, &seed).unwrap().unwrap();
    assert_eq!(g.to_vec(), vec![1.0, 4.0]);
}

/// The im2col matrix lives in a per-thread buffer reused between convolutions: a `Same`
/// convolution after a larger `Valid` one must see zeros, not the earlier values, where its
/// windows reach into the padding.
#[test]
fn a_reused_im2col_buffer_holds_no_stale_values() {
    let big = Tensor::<f64>::random_uniform(&[4, 9, 9, 3], 1.0, 2.0, 5);
    let w3 = Tensor::<f64>::ones(&[3, 3, 3, 2]);
    drop(big.conv2d(&w3, Conv2dOptions::new()));
    // x = [[1 2 3] [4 5 6] [7 8 9]], a 2x2 filter of ones, SAME: one row and one column
    // of padding after, so y₀₂ = 3 + 6, y₁₂ = 6 + 9, y₂₀ = 7 + 8, y₂₁ = 8 + 9, y₂₂ = 9
    let x = counting(&[1, 3, 3, 1]);
    let w = Tensor::<f64>::ones(&[2, 2, 1, 1]);
    let options = Conv2dOptions::new().padding(Padding::Same);
    assert_eq!(
        x.conv2d(&w, options).to_vec(),
        vec![12.0, 16.0, 9.0, 24.0, 28.0, 15.0, 15.0, 17.0, 9.0]
    );
    // and the filter gradient, whose im2col matrix is the same buffer again: with ḡ all
    // ones, tap (0, 0) sums every input, tap (1, 1) the inputs not in the first row or
    // column (5 + 6 + 8 + 9)
    drop(big.conv2d(&w3, Conv2dOptions::new()));
    let g = Tensor::<f64>::ones(&[1, 3, 3, 1]);
    assert_eq!(
        x.conv2d_backprop_filter(&g, &[2, 2, 1, 1], options)
            .to_vec(),
        vec![45.0, 33.0, 39.0, 28.0]
    );
}

/// Large batches are cut into blocks of images shared by two threads (im2col, col2im, max
/// pooling and its routing; session 10): an odd batch (7 images) whose passes are over the
/// split threshold (2¹⁵ elements) must give what each image gives alone, to the bit
/// (an image's values never depend on where the batch was cut), the direct definition's
/// values, and filter gradients that are the sums of the per-image ones.
#[test]
fn batches_split_over_two_threads_match_image_by_image() {
    let image = |t: &Tensor<f64>, b: usize| t.slice(0, b, 1);
    let cat = |parts: Vec<Tensor<f64>>| Tensor::concat(&parts.iter().collect::<Vec<_>>(), 0);
    for options in [
        Conv2dOptions::new(),
        Conv2dOptions::new().strides(2, 1).padding(Padding::Same),
    ] {
        // 7 · 14 · 14 positions · 36 taps = 49,392 im2col elements (valid)
        let x = Tensor::<f64>::random_normal(&[7, 16, 16, 4], 0.0, 1.0, 71);
        let w = Tensor::<f64>::random_normal(&[3, 3, 4, 8], 0.0, 0.5, 72);
        let y = x.conv2d(&w, options);
        let (shape, want) = direct_conv(&x, &w, options);
        assert_eq!(y.shape(), &shape[..]);
        close(&y.to_vec(), &want, 1e-12);
        let by_image = cat((0..7).map(|b| image(&x, b).conv2d(&w, options)).collect());
        assert_eq!(y.to_vec(), by_image.to_vec(), "forward, {options:?}");
        let g = Tensor::<f64>::random_normal(y.shape(), 0.0, 1.0, 73);
        let dx = g.conv2d_backprop_input(&w, x.shape(), options);
        let mut one = x.shape().to_vec();
        one[0] = 1;
        let dx_by_image = cat((0..7)
            .map(|b| image(&g, b).conv2d_backprop_input(&w, &one, options))
            .collect());
        assert_eq!(
            dx.to_vec(),
            dx_by_image.to_vec(),
            "input gradient, {options:?}"
        );
        let dw = x.conv2d_backprop_filter(&g, w.shape(), options);
        let mut dw_sum = vec![0.0; w.to_vec().len()];
        for b in 0..7 {
            let part = image(&x, b).conv2d_backprop_filter(&image(&g, b), w.shape(), options);
            for (s, v) in dw_sum.iter_mut().zip(part.to_vec()) {
                *s += v;
            }
        }
        close(&dw.to_vec(), &dw_sum, 1e-12);
    }
    // max pooling: 9 · 20 · 20 · 16 = 57,600 outputs; its gradient (scatter) and the
    // gradient's own rule (gather, second order) image by image
    let x = Tensor::<f64>::random_normal(&[9, 40, 40, 16], 0.0, 1.0, 74);
    let pool = |x: &Tensor<f64>| x.max_pool2d((2, 2), (2, 2), Padding::Valid);
    let y = pool(&x);
    let y_by_image = cat((0..9).map(|b| pool(&image(&x, b))).collect());
    assert_eq!(y.to_vec(), y_by_image.to_vec());
    let seed = Tensor::<f64>::random_normal(y.shape(), 0.0, 1.0, 75);
    let h = Tensor::<f64>::random_normal(x.shape(), 0.0, 1.0, 76);
    // dx = the seed routed to the maxima; d⟨dx, h⟩/d seed = h gathered from them
    let routes = |x: &Tensor<f64>, seed: &Tensor<f64>, h: &Tensor<f64>| {
        let outer = GradientTape::new();
        outer.watch(seed);
        let (dx, inner_product) = outer.record(|| {
            let inner = GradientTape::new();
            inner.watch(x);
            let y = inner.record(|| pool(x));
            let options = GradientOptions::new().output_gradients(seed);
            let dx = inner.gradient_with(&y, x, options).unwrap().unwrap();
            let product = (&dx * h).sum();
            (dx, product)
        });
        let gathered = outer.gradient(&inner_product, seed).unwrap().unwrap();
        (dx.to_vec(), gathered.to_vec())
    };
    let (dx, gathered) = routes(&x, &seed, &h);
    let (mut dx_by_image, mut gathered_by_image) = (Vec::new(), Vec::new());
    for b in 0..9 {
        let (d, g) = routes(&image(&x, b), &image(&seed, b), &image(&h, b));
        dx_by_image.extend(d);
        gathered_by_image.extend(g);
    }
    assert_eq!(dx, dx_by_image);
    assert_eq!(gathered, gathered_by_image);
}

/// The convolutions walk the batch in parts (claimed by two threads) and each part in
/// blocks of images whose im2col matrix stays in cache (session 21: 512 KB). A batch whose
/// parts hold two or three images, in blocks of two (so a part ends with a block of one),
/// with groups, strides and SAME padding: the forward against the direct definition and
/// image by image (to the bit: an image's output never depends on its block), the input
/// gradient image by image (to the bit) and both gradients against the transposes' identity
/// `⟨conv(x, w), ḡ⟩ = ⟨x, x̄⟩ = ⟨w, w̄⟩`, the filter gradient also against the sum of the
/// images' own.
#[test]
fn blocked_passes_with_partial_blocks_match_the_definitions() {
    let dot = |a: &Tensor<f64>, b: &Tensor<f64>| -> f64 {
        a.to_vec().iter().zip(b.to_vec()).map(|(p, q)| p * q).sum()
    };
    let image = |t: &Tensor<f64>, b: usize| t.slice(0, b, 1);
    // 18 · 18 positions · 72 taps · 8 bytes = 187 KB of im2col per image: blocks of two
    for (x_shape, w_shape, options) in [
        ([21, 20, 20, 8], [3, 3, 8, 6], Conv2dOptions::new()),
        (
            [21, 20, 20, 8],
            [3, 3, 4, 6],
            Conv2dOptions::new()
                .groups(2)
                .strides(2, 1)
                .padding(Padding::Same),
        ),
    ] {
        let x = Tensor::<f64>::random_normal(&x_shape, 0.0, 1.0, 91);
        let w = Tensor::<f64>::random_normal(&w_shape, 0.0, 0.5, 92);
        let y = x.conv2d(&w, options);
        let (shape, want) = direct_conv(&x, &w, options);
        assert_eq!(y.shape(), &shape[..]);
        close(&y.to_vec(), &want, 1e-12);
        let g = Tensor::<f64>::random_normal(y.shape(), 0.0, 1.0, 93);
        let dx = g.conv2d_backprop_input(&w, &x_shape, options);
        let dw = x.conv2d_backprop_filter(&g, &w_shape, options);
        let lhs = dot(&y, &g);
        assert!(
            (lhs - dot(&x, &dx)).abs() < 1e-10 * (1.0 + lhs.abs()),
            "{options:?}: input"
        );
        assert!(
            (lhs - dot(&w, &dw)).abs() < 1e-10 * (1.0 + lhs.abs()),
            "{options:?}: filter"
        );
        let mut one = x_shape;
        one[0] = 1;
        let mut dw_sum = vec![0.0; dw.to_vec().len()];
        for b in 0..x_shape[0] {
            let (xb, gb) = (image(&x, b), image(&g, b));
            assert_eq!(
                xb.conv2d(&w, options).to_vec(),
                image(&y, b).to_vec(),
                "forward {b}"
            );
            assert_eq!(
                gb.conv2d_backprop_input(&w, &one, options).to_vec(),
                image(&dx, b).to_vec(),
                "input gradient {b}"
            );
            for (s, v) in dw_sum
                .iter_mut()
                .zip(xb.conv2d_backprop_filter(&gb, &w_shape, options).to_vec())
            {
                *s += v;
            }
        }
        close(&dw.to_vec(), &dw_sum, 1e-12);
    }
}

/// A tensor's elements as bits (through an exact cast to f64): equal only if every element
/// is, signed zeros and NaNs included.
fn bits<T: Float>(t: &Tensor<T>) -> Vec<u64> {
    t.cast::<f64>()
        .to_vec()
        .iter()
        .map(|v| v.to_bits())
        .collect()
}

/// `y` of `x`, `w`, `b` and the gradients of ⟨y, seed⟩ with respect to all three, as bits.
fn value_and_gradients<T: Float>(
    f: impl Fn(&Tensor<T>, &Tensor<T>, &Tensor<T>) -> Tensor<T>,
    x: &Tensor<T>,
    w: &Tensor<T>,
    b: &Tensor<T>,
    seed: &Tensor<T>,
) -> [Vec<u64>; 4] {
    let tape = GradientTape::new();
    for v in [x, w, b] {
        tape.watch(v);
    }
    let y = tape.record(|| f(x, w, b));
    let options = GradientOptions::new().output_gradients(seed);
    let grads = tape.gradient_with(&y, &[x, w, b], options).unwrap();
    let grad = |i: usize| bits(grads[i].as_ref().expect("connected"));
    [bits(&y), grad(0), grad(1), grad(2)]
}

/// `conv2d_bias_relu` against `conv2d`, `+ bias` and `relu` recorded one by one: the same
/// arithmetic in the same order for the value (the bias added to each product, then ReLU's
/// select) and for x̄ and w̄ (ReLU's cotangent product, built block by block inside the
/// fused rule's gradient passes, then the same products), so the same bits. b̄ is summed by
/// part of the batch in the fused rule and row after row by `sum_to_shape`, so it agrees
/// within rounding: both are checked against the sums in f64 of the same cotangent. In
/// f32 at W8's first layer's shapes (passes long enough to be split over two threads) and
/// in f64 under other options, with pre-activations of exactly zero (ReLU passes nothing
/// there) in the f64 case.
///
/// b̄'s bound, 32 ε Σ|m|: both orders are within about ε √rows of the running sum's
/// magnitude (random roundings), a lost or doubled row is off by a whole |m|.
#[test]
fn fused_conv_bias_relu_equals_the_composition() {
    fn check<T: Float>(x: &Tensor<T>, w: &Tensor<T>, b: &Tensor<T>, options: Conv2dOptions) {
        let y = x.conv2d(w, options);
        let seed = Tensor::<T>::random_normal(y.shape(), T::ZERO, T::ONE, 93);
        let fused =
            value_and_gradients(|x, w, b| x.conv2d_bias_relu(w, b, options), x, w, b, &seed);
        let composed =
            value_and_gradients(|x, w, b| (x.conv2d(w, options) + b).relu(), x, w, b, &seed);
        for (i, what) in ["value", "x̄", "w̄"].iter().enumerate() {
            assert!(fused[i] == composed[i], "{what} differs, {options:?}");
        }
        // b̄: the exact sums of ḡ·[y > 0] per channel, in f64, as the reference
        let out = (x.conv2d(w, options) + b).relu().cast::<f64>().to_vec();
        let g = seed.cast::<f64>().to_vec();
        let channels = b.shape()[0];
        let (mut exact, mut magnitude) = (vec![0.0; channels], vec![0.0; channels]);
        for (i, (&g, &y)) in g.iter().zip(&out).enumerate() {
            let m = if y > 0.0 { g } else { 0.0 };
            exact[i % channels] += m;
            magnitude[i % channels] += m.abs();
        }
        let epsilon = if std::mem::size_of::<T>() == 4 {
            f64::from(f32::EPSILON)
        } else {
            f64::EPSILON
        };
        for c in 0..channels {
            // far inside the worst case of (rows - 1) · ε · Σ|m|, far outside a lost row
            let bound = 32.0 * epsilon * magnitude[c];
            for (sum, what) in [(fused[3][c], "fused"), (composed[3][c], "composed")] {
                let sum = f64::from_bits(sum);
                let exact = exact[c];
                assert!(
                    (sum - exact).abs() <= bound,
                    "{what} b̄[{c}] = {sum}, exact {exact}, bound {bound}, {options:?}"
                );
            }
        }
    }
    // W8's first layer at batch 16: 346,112 outputs
    let x = Tensor::<f32>::random_uniform(&[16, 28, 28, 1], 0.0, 1.0, 91);
    let w = Tensor::<f32>::random_uniform(&[3, 3, 1, 32], -0.5, 0.5, 92);
    let b = Tensor::<f32>::random_uniform(&[32], -0.3, 0.3, 94);
    check(&x, &w, &b, Conv2dOptions::new());
    // integers: the window sums of a ones filter are exact, so a bias of minus one of them
    // makes some pre-activations exactly zero
    let x = Tensor::from_vec((0..50).map(|v| f64::from(v % 7)).collect(), &[2, 5, 5, 1]);
    let w = Tensor::ones(&[2, 2, 1, 2]);
    let sums = x.conv2d(&w, Conv2dOptions::new()).to_vec();
    let b = Tensor::from_vec(vec![-sums[0], -sums[3]], &[2]);
    let pre = (x.conv2d(&w, Conv2dOptions::new()) + &b).to_vec();
    assert!(pre.contains(&0.0), "the case has zero pre-activations");
    check(&x, &w, &b, Conv2dOptions::new());
    let x = Tensor::<f64>::random_normal(&[3, 7, 6, 4], 0.0, 1.0, 95);
    let w = Tensor::<f64>::random_normal(&[3, 3, 2, 6], 0.0, 1.0, 96);
    let b = Tensor::<f64>::random_normal(&[6], 0.0, 1.0, 97);
    let options = Conv2dOptions::new()
        .groups(2)
        .strides(2, 1)
        .padding(Padding::Same);
    check(&x, &w, &b, options);
}

/// The fused rule's direct path computes only the gradients asked for (b̄ from the filter
/// gradient's pass, which then runs without w̄ being asked): each operand's gradient alone,
/// and each pair, the same bits as all three at once. Regression for the direct path of
/// session 22.
#[test]
fn fused_conv_bias_relu_gradients_asked_alone_equal_those_asked_together() {
    let x = Tensor::<f32>::random_uniform(&[16, 28, 28, 1], 0.0, 1.0, 101);
    let w = Tensor::<f32>::random_uniform(&[3, 3, 1, 8], -0.5, 0.5, 102);
    let b = Tensor::<f32>::random_uniform(&[8], -0.3, 0.3, 103);
    let options = Conv2dOptions::new();
    let seed = Tensor::<f32>::random_normal(&[16, 26, 26, 8], 0.0, 1.0, 104);
    let operands = [&x, &w, &b];
    let gradients = |asked: &[usize]| {
        let tape = GradientTape::new();
        for &i in asked {
            tape.watch(operands[i]);
        }
        let y = tape.record(|| x.conv2d_bias_relu(&w, &b, options));
        let sources: Vec<&Tensor<f32>> = asked.iter().map(|&i| operands[i]).collect();
        let gradient_options = GradientOptions::new().output_gradients(&seed);
        let grads = tape
            .gradient_with(&y, &sources[..], gradient_options)
            .unwrap();
        grads
            .iter()
            .map(|g| bits(g.as_ref().expect("connected")))
            .collect::<Vec<_>>()
    };
    let all = gradients(&[0, 1, 2]);
    for asked in [&[0][..], &[1], &[2], &[0, 1], &[0, 2], &[1, 2]] {
        let some = gradients(asked);
        for (got, &i) in some.iter().zip(asked) {
            assert!(*got == all[i], "operand {i} asked with {asked:?}");
        }
    }
}

#[test]
fn avg_pool_by_hand_counts_only_real_positions() {
    let x = counting(&[1, 3, 3, 1]);
    // SAME 2x2 stride 2: (1+2+4+5)/4 = 3, (3+6)/2 = 4.5, (7+8)/2 = 7.5, 9/1 = 9
    assert_eq!(
        x.avg_pool2d((2, 2), (2, 2), Padding::Same).to_vec(),
        vec![3.0, 4.5, 7.5, 9.0]
    );
    // its gradient: each input gets 1/count of each window it is in
    let g = pool_gradient(&x, |x| x.avg_pool2d((2, 2), (2, 2), Padding::Same));
    assert_eq!(g, vec![0.25, 0.25, 0.5, 0.25, 0.25, 0.5, 0.5, 0.5, 1.0]);
    // VALID 2x2 stride 1: four overlapping windows; the centre is in all of them
    let g = pool_gradient(&x, |x| x.avg_pool2d((2, 2), (1, 1), Padding::Valid));
    assert_eq!(g, vec![0.25, 0.5, 0.25, 0.5, 1.0, 0.5, 0.25, 0.5, 0.25]);
}

#[test]
fn conv_gradients_by_hand() {
    // y = conv(x, w) on the 3x3 image with the 2x2 filter, loss Σ y: the filter's gradient
    // sums the block each tap met (12, 16, 24, 28), the input's counts how often each
    // pixel met each tap
    let x = counting(&[1, 3, 3, 1]);
    let w = Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0], &[2, 2, 1, 1]);
    let tape = GradientTape::new();
    tape.watch(&x);
    tape.watch(&w);
    let loss = tape.record(|| x.conv2d(&w, Conv2dOptions::new()).sum());
    let grads = tape.gradient(&loss, [&x, &w]).unwrap();
    assert_eq!(
        grads[1].as_ref().unwrap().to_vec(),
        vec![12.0, 16.0, 24.0, 28.0]
    );
    // pixel (r, c) meets tap (i, j) when output (r − i, c − j) exists
    assert_eq!(
        grads[0].as_ref().unwrap().to_vec(),
        vec![1.0, 3.0, 2.0, 4.0, 10.0, 6.0, 3.0, 7.0, 4.0]
    );
}

/// A gradient penalty: P(w) = ‖∂L/∂x‖² with L = Σ tanh(conv(x, w)), differentiated with
/// respect to the filter by an outer tape (through `conv2d_backprop_input`'s rule), against
/// central differences of P computed with the inner tape alone.
#[test]
fn gradient_penalty_differentiated_by_the_filter_matches_finite_differences() {
    let options = Conv2dOptions::new().strides(2, 1).padding(Padding::Same);
    let x = Tensor::<f64>::random_normal(&[2, 5, 4, 2], 0.0, 1.0, 7);
    let w0 = Tensor::<f64>::random_normal(&[3, 2, 2, 3], 0.0, 0.5, 8);
    let penalty = |w: &Tensor<f64>| -> Tensor<f64> {
        let inner = GradientTape::new();
        inner.watch(&x);
        let loss = inner.record(|| x.conv2d(w, options).tanh().sum());
        inner.gradient(&loss, &x).unwrap().unwrap().square().sum()
    };
    let outer = GradientTape::new();
    outer.watch(&w0);
    let p = outer.record(|| penalty(&w0));
    let analytic = outer.gradient(&p, &w0).unwrap().unwrap().to_vec();
    let base = w0.to_vec();
    let h = 1e-6;
    for k in 0..base.len() {
        let at = |delta: f64| {
            let mut v = base.clone();
            v[k] += delta;
            penalty(&Tensor::from_vec(v, w0.shape())).to_scalar()
        };
        let fd = (at(h) - at(-h)) / (2.0 * h);
        assert!(
            (analytic[k] - fd).abs() < 1e-6 * (1.0 + fd.abs()),
            "element {k}: {} vs {fd}",
            analytic[k]
        );
    }
}

/// One vector-Jacobian product per output element, seeded with its one-hot vector: the
/// rows of the Jacobian without a batched sweep.
fn jacobian_by_rows(f: impl Fn(&Tensor<f64>) -> Tensor<f64>, source: &Tensor<f64>) -> Vec<f64> {
    let len = f(source).len();
    let shape = f(source).shape().to_vec();
    let mut rows = Vec::new();
    for i in 0..len {
        let mut seed = vec![0.0; len];
        seed[i] = 1.0;
        let tape = GradientTape::new();
        tape.watch(source);
        let y = tape.record(|| f(source));
        let options = GradientOptions::new().output_gradients(Tensor::from_vec(seed, &shape));
        rows.extend(
            tape.gradient_with(&y, source, options)
                .unwrap()
                .unwrap()
                .to_vec(),
        );
    }
    rows
}

/// Jacobians run the rules once with a batch axis in front of every cotangent: of the
/// convolution in each operand, of its gradient ops (a Hessian's blocks), and of the pools.
#[test]
fn jacobians_through_batched_rules_match_row_by_row() {
    let options = Conv2dOptions::new().padding(Padding::Same).strides(1, 2);
    let x = Tensor::<f64>::random_normal(&[2, 3, 4, 2], 0.0, 1.0, 21);
    let w = Tensor::<f64>::random_normal(&[2, 2, 2, 3], 0.0, 1.0, 22);
    let b = Tensor::<f64>::random_normal(&[3], 0.0, 1.0, 23);
    type F<'a> = Box<dyn Fn(&Tensor<f64>) -> Tensor<f64> + 'a>;
    let grad_x = |w: &Tensor<f64>| {
        let tape = GradientTape::new();
        tape.watch(&x);
        let l = tape.record(|| x.conv2d(w, options).tanh().sum());
        tape.gradient(&l, &x).unwrap().unwrap()
    };
    let grad_w = |x: &Tensor<f64>| {
        let tape = GradientTape::new();
        tape.watch(&w);
        let l = tape.record(|| x.conv2d(&w, options).tanh().sum());
        tape.gradient(&l, &w).unwrap().unwrap()
    };
    let cases: Vec<(&str, &Tensor<f64>, F<'_>)> = vec![
        ("conv by x", &x, Box::new(|x| x.conv2d(&w, options))),
        ("conv by w", &w, Box::new(|w| x.conv2d(w, options))),
        (
            "conv bias relu by x",
            &x,
            Box::new(|x| x.conv2d_bias_relu(&w, &b, options)),
        ),
        (
            "conv bias relu by w",
            &w,
            Box::new(|w| x.conv2d_bias_relu(w, &b, options)),
        ),
        (
            "conv bias relu by b",
            &b,
            Box::new(|b| x.conv2d_bias_relu(&w, b, options)),
        ),
        ("∂L/∂x by w", &w, Box::new(grad_x)),
        ("∂L/∂w by x", &x, Box::new(grad_w)),
        (
            "max pool",
            &x,
            Box::new(|x| x.max_pool2d((2, 2), (1, 2), Padding::Same)),
        ),
        (
            "avg pool",
            &x,
            Box::new(|x| x.avg_pool2d((2, 3), (2, 1), Padding::Same)),
        ),
        (
            "max pool squared",
            &x,
            Box::new(|x| x.max_pool2d((2, 2), (1, 1), Padding::Valid).square()),
        ),
    ];
    for (name, source, f) in cases {
        let tape = GradientTape::new();
        tape.watch(source);
        let y = tape.record(|| f(source));
        let jac = tape.jacobian(&y, source).unwrap().unwrap();
        let mut want_shape = y.shape().to_vec();
        want_shape.extend_from_slice(source.shape());
        assert_eq!(jac.shape(), &want_shape[..], "{name}");
        close(&jac.to_vec(), &jacobian_by_rows(&f, source), 1e-12);
    }
}

#[test]
fn bad_input_panics_name_the_op_and_the_shapes() {
    let x = Tensor::<f64>::zeros(&[1, 4, 4, 2]);
    let o = Conv2dOptions::new;
    type Case<'a> = (Box<dyn Fn() + 'a>, &'a str);
    let cases: Vec<Case<'_>> = vec![
        (
            Box::new(|| {
                drop(Tensor::<f64>::zeros(&[4, 4, 2]).conv2d(&Tensor::zeros(&[2, 2, 2, 1]), o()))
            }),
            "conv2d: needs an NHWC input",
        ),
        (
            Box::new(|| drop(x.conv2d(&Tensor::zeros(&[2, 2, 3, 1]), o()))),
            "conv2d: the filter's input channels times the groups (3 · 1) must equal the input's 2 channels (shapes [1, 4, 4, 2] and [2, 2, 3, 1])",
        ),
        (
            Box::new(|| drop(x.conv2d(&Tensor::zeros(&[2, 2, 1, 3]), o().groups(2)))),
            "conv2d: 2 groups must divide the input's 2 channels and the filter's 3 output channels",
        ),
        (
            Box::new(|| drop(x.conv2d(&Tensor::zeros(&[2, 2, 2, 1]), o().strides(0, 1)))),
            "conv2d: strides (0, 1) and dilations (1, 1) must be positive",
        ),
        (
            Box::new(|| drop(x.conv2d(&Tensor::zeros(&[5, 2, 2, 1]), o()))),
            "conv2d: the window [5, 2, 2, 1] with dilations (1, 1) is larger than the input [1, 4, 4, 2] under Valid padding",
        ),
        (
            Box::new(|| drop(x.conv2d(&Tensor::zeros(&[3, 3, 2, 1]), o().dilations(2, 1)))),
            "is larger than the input",
        ),
        (
            Box::new(|| {
                drop(Tensor::<f64>::zeros(&[1, 2, 2, 1]).conv2d_backprop_input(
                    &Tensor::zeros(&[2, 2, 2, 1]),
                    &[1, 4, 4, 2],
                    o(),
                ))
            }),
            "conv2d_backprop_input: the output gradient has shape [1, 2, 2, 1], the input [1, 4, 4, 2] and filter [2, 2, 2, 1] give outputs of shape [1, 3, 3, 1]",
        ),
        (
            Box::new(|| {
                drop(x.conv2d_backprop_filter(&Tensor::zeros(&[1, 3, 3, 2]), &[2, 2, 2, 1], o()))
            }),
            "conv2d_backprop_filter: the output gradient has shape [1, 3, 3, 2]",
        ),
        (
            Box::new(|| {
                drop(x.conv2d_bias_relu(&Tensor::zeros(&[2, 2, 2, 3]), &Tensor::zeros(&[2]), o()))
            }),
            "conv2d_bias_relu: the bias must be [3], one per output channel, got shape [2] (input [1, 4, 4, 2], filter [2, 2, 2, 3])",
        ),
        (
            Box::new(|| {
                drop(x.conv2d_bias_relu(&Tensor::zeros(&[2, 2, 3, 1]), &Tensor::zeros(&[1]), o()))
            }),
            "conv2d_bias_relu: the filter's input channels times the groups (3 · 1) must equal the input's 2 channels",
        ),
        (
            Box::new(|| drop(x.max_pool2d((2, 2), (2, 0), Padding::Valid))),
            "max_pool2d: strides (2, 0)",
        ),
        (
            Box::new(|| drop(x.avg_pool2d((5, 1), (1, 1), Padding::Valid))),
            "avg_pool2d: the window [5, 1] with dilations (1, 1) is larger than the input [1, 4, 4, 2]",
        ),
        (
            Box::new(|| {
                drop(Tensor::<f64>::zeros(&[4, 4]).max_pool2d((2, 2), (2, 2), Padding::Same))
            }),
            "max_pool2d: needs an NHWC input [n, h, w, c], got shape [4, 4]",
        ),
    ];
    for (call, expected) in cases {
        let (file, _, message) = common::panic_site(call);
        assert!(
            message.contains(expected),
            "{message}\nshould contain\n{expected}"
        );
        // `#[track_caller]` all the way: the panic points into this file
        assert!(
            file.ends_with("conv.rs") && file.contains("tests"),
            "{file}: {message}"
        );
    }
}

/// `#[differentiable]` knows the new ops from the vocabulary alone (rows with tensor rules,
/// replayed on a sub-tape): an annotated convolution block against finite differences to
/// second order and against its own body recorded op by op.
#[gradtape::differentiable]
fn conv_block(x: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
    let y = x
        .conv2d(w, Conv2dOptions::new().padding(Padding::Same))
        .tanh();
    y.max_pool2d((2, 2), (2, 2), Padding::Valid).square()
        + y.avg_pool2d((2, 2), (2, 2), Padding::Valid)
}

#[test]
fn the_macro_differentiates_a_conv_block() {
    use gradtape::{GradcheckOptions, gradcheck_with};
    let x = Tensor::<f64>::random_normal(&[1, 4, 4, 2], 0.0, 1.0, 31);
    let w = Tensor::<f64>::random_normal(&[3, 3, 2, 2], 0.0, 0.5, 32);
    let inputs = [x.clone(), w.clone()];
    let options = GradcheckOptions::new().second_order(true);
    gradcheck_with(|t| conv_block(&t[0], &t[1]), &inputs, options).unwrap();
    let grads = |f: &dyn Fn() -> Tensor<f64>| {
        let tape = GradientTape::new();
        tape.watch(&x);
        tape.watch(&w);
        let y = tape.record(|| f().sum());
        let [gx, gw] = tape.gradient(&y, [&x, &w]).unwrap();
        [gx.unwrap().to_vec(), gw.unwrap().to_vec()]
    };
    let by_macro = grads(&|| conv_block(&x, &w));
    let by_tape = grads(&|| conv_block::primal(&x, &w));
    for (a, b) in by_macro.iter().zip(&by_tape) {
        close(a, b, 1e-12);
    }
}
