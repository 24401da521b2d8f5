//! `#[differentiable]` on functions of models written as structs (issue 13, "structs"):
//! structs holding variables, tensors, floats, arrays and `Vec`s of layers, nested structs,
//! tuple structs and generic structs, with configuration fields beside the parameters.
//! Such a function runs op by op on the caller's tapes (a fused node would not see the
//! variables inside the struct), and `#[derive(Sources)]` gives the gradient back as a
//! struct of the same shape. Each gradient is checked against central differences of the
//! loss in f64, element by element of every variable (perturbed with `assign`); one model
//! also at second order (a Hessian-vector product against differences of gradients).

mod common;

use common::check_variables_against_differences;
use gradtape::{Float, GradientTape, Sources, Tensor, Variable, differentiable};

// ----- the oracle -----

fn v(values: &[f64], shape: &[usize]) -> Variable<f64> {
    Variable::new(Tensor::from_vec(values.to_vec(), shape))
}

fn t(values: &[f64], shape: &[usize]) -> Tensor<f64> {
    Tensor::from_vec(values.to_vec(), shape)
}

// ----- the models -----

/// Model 1: A line: two variables.
#[derive(Sources)]
struct Line {
    slope: Variable<f64>,
    intercept: Variable<f64>,
}

#[differentiable]
fn line_residual(line: &Line, x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    (x * &line.slope.value() + &line.intercept.value() - y)
        .square()
        .mean()
}

/// Model 2: A dense layer, generic over the float type, with a configuration field. (Regression:
/// the constant `T::from_f64(..)` made the generated code need `T: Own`, which no generic
/// float had; `Float` now implies it.)
#[derive(Sources)]
struct Dense<T: Float> {
    kernel: Variable<T>,
    bias: Variable<T>,
    #[sources(skip)]
    leaky: f64,
}

#[differentiable]
fn dense_forward<T: Float>(layer: &Dense<T>, x: &Tensor<T>) -> Tensor<T> {
    let z = x.matmul(&layer.kernel) + layer.bias.value();
    let negative = &z * T::from_f64(layer.leaky);
    Tensor::maximum(&z, &negative)
}

/// Model 3: Nested models: a two-layer perceptron of `Dense` layers.
#[derive(Sources)]
struct Mlp {
    hidden: Dense<f64>,
    output: Dense<f64>,
}

#[differentiable]
fn mlp_loss(model: &Mlp, x: &Tensor<f64>, labels: &Tensor<f64>) -> Tensor<f64> {
    let h = dense_forward(&model.hidden, x).tanh();
    let out = dense_forward(&model.output, &h);
    (out - labels).square().sum()
}

/// Model 4: A `Vec` of layers, applied in a loop, with a residual connection.
#[derive(Sources)]
struct Stack {
    layers: Vec<Dense<f64>>,
}

#[differentiable]
fn stack_forward(stack: &Stack, x: &Tensor<f64>) -> Tensor<f64> {
    let mut h = x.clone();
    for layer in &stack.layers {
        h = &h + dense_forward(layer, &h).sin();
    }
    h.square().sum()
}

/// Model 5: A recurrent cell whose weights are variables and whose length and decay are
/// configuration.
#[derive(Sources)]
struct Recurrent {
    input_weights: Variable<f64>,
    state_weights: Variable<f64>,
    #[sources(skip)]
    steps: usize,
    #[sources(skip)]
    decay: f64,
}

#[differentiable]
fn recurrent_run(cell: &Recurrent, x: &Tensor<f64>) -> Tensor<f64> {
    let mut state = Tensor::zeros(&[1, cell.state_weights.shape()[0]]);
    for step in 0..cell.steps {
        let input = x * (cell.decay.powi(step as i32));
        state = (input.matmul(&cell.input_weights) + state.matmul(&cell.state_weights)).tanh();
    }
    state.sum()
}

/// Model 6: A polynomial whose coefficients are an array of variables.
#[derive(Sources)]
struct Polynomial {
    coefficients: [Variable<f64>; 3],
}

#[differentiable]
fn polynomial_fit(p: &Polynomial, x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
    let [c0, c1, c2] = &p.coefficients;
    let prediction = x * x * &c2.value() + x * &c1.value() + &c0.value();
    (prediction - y).square().mean()
}

/// Model 7: Physical parameters of a damped spring, integrated with semi-implicit Euler.
#[derive(Sources)]
struct Spring {
    stiffness: Variable<f64>,
    damping: Variable<f64>,
    #[sources(skip)]
    dt: f64,
}

#[differentiable]
fn spring_energy_after(spring: &Spring, x0: &Tensor<f64>, steps: usize) -> Tensor<f64> {
    let (k, c) = (spring.stiffness.value(), spring.damping.value());
    let mut x = x0.clone();
    let mut velocity = Tensor::zeros(x0.shape());
    for _ in 0..steps {
        let acceleration = -(&k * &x) - &c * &velocity;
        velocity = &velocity + acceleration * spring.dt;
        x = &x + &velocity * spring.dt;
    }
    (&k * x.square() + velocity.square()).sum() * 0.5
}

/// Model 8: A tuple struct.
#[derive(Sources)]
struct Affine(Variable<f64>, Variable<f64>);

#[differentiable]
fn affine_softplus(a: &Affine, x: &Tensor<f64>) -> Tensor<f64> {
    (x * &a.0.value() + &a.1.value()).softplus().sum()
}

/// Model 9: Two structs at once: an encoder and a decoder, and a tensor input.
#[differentiable]
fn autoencoder_loss(encoder: &Dense<f64>, decoder: &Dense<f64>, x: &Tensor<f64>) -> Tensor<f64> {
    let code = dense_forward(encoder, x).sigmoid();
    (dense_forward(decoder, &code) - x).square().mean()
}

/// Model 10: A struct holding a tensor (watched through the struct) beside a variable.
#[derive(Sources)]
struct Embedded {
    table: Tensor<f64>,
    scale: Variable<f64>,
}

#[differentiable]
fn embedded_score(e: &Embedded, rows: &[usize]) -> Tensor<f64> {
    (e.table.gather(0, rows) * &e.scale.value()).logsumexp()
}

/// Model 11: Configuration only (no variables): in scalar mode the struct is data, and the
/// gradient is the float parameter's.
struct Schedule {
    rate: f64,
    steps: usize,
}

#[differentiable]
fn scheduled_descent(x: f64, schedule: &Schedule) -> f64 {
    let mut y = x;
    for _ in 0..schedule.steps {
        y = y - schedule.rate * (y * y - 2.0) * y;
    }
    y
}

fn dense_of(kernel: &[f64], shape: &[usize], bias: &[f64], leaky: f64) -> Dense<f64> {
    Dense {
        kernel: v(kernel, shape),
        bias: v(bias, &[bias.len()]),
        leaky,
    }
}

/// The MLP and data the first-order and second-order checks share.
fn small_mlp() -> (Mlp, Tensor<f64>, Tensor<f64>) {
    let model = Mlp {
        hidden: dense_of(
            &[0.3, -0.5, 0.8, 0.1, 0.2, -0.7],
            &[2, 3],
            &[0.1, 0.0, -0.1],
            0.1,
        ),
        output: dense_of(&[0.5, -0.3, 0.9], &[3, 1], &[0.05], 1.0),
    };
    let (x, labels) = (t(&[0.5, -1.0, 1.5, 0.2], &[2, 2]), t(&[0.3, -0.4], &[2, 1]));
    (model, x, labels)
}

// ----- the checks -----

#[test]
fn structs_of_variables_get_their_gradients_in_their_own_shape() {
    // 1
    let line = Line {
        slope: v(&[0.7], &[]),
        intercept: v(&[-0.2], &[]),
    };
    let (x, y) = (t(&[1.0, 2.0, -1.0], &[3]), t(&[2.0, 3.5, -0.5], &[3]));
    let tape = GradientTape::new();
    let loss = tape.record(|| line_residual(&line, &x, &y));
    let g: LineGradients = tape.gradient(&loss, &line).unwrap();
    check_variables_against_differences(
        "line_residual",
        &[&line.slope, &line.intercept],
        &[g.slope.unwrap(), g.intercept.unwrap()],
        &|| line_residual(&line, &x, &y).to_scalar(),
    );

    // 3 (and 2 inside it)
    let (model, x, labels) = small_mlp();
    let tape = GradientTape::new();
    let loss = tape.record(|| mlp_loss(&model, &x, &labels));
    let g: MlpGradients = tape.gradient(&loss, &model).unwrap();
    check_variables_against_differences(
        "mlp_loss",
        &[
            &model.hidden.kernel,
            &model.hidden.bias,
            &model.output.kernel,
            &model.output.bias,
        ],
        &[
            g.hidden.kernel.unwrap(),
            g.hidden.bias.unwrap(),
            g.output.kernel.unwrap(),
            g.output.bias.unwrap(),
        ],
        &|| mlp_loss(&model, &x, &labels).to_scalar(),
    );

    // 4
    let stack = Stack {
        layers: (0..3)
            .map(|k| {
                let s = 0.2 + 0.1 * k as f64;
                dense_of(&[s, -s, 0.5 * s, s], &[2, 2], &[0.1 * s, -0.1], 0.2)
            })
            .collect(),
    };
    let x = t(&[0.4, -0.6, 1.1, 0.3], &[2, 2]);
    let tape = GradientTape::new();
    let loss = tape.record(|| stack_forward(&stack, &x));
    let g: StackGradients = tape.gradient(&loss, &stack).unwrap();
    let variables: Vec<&Variable<f64>> = stack
        .layers
        .iter()
        .flat_map(|l| [&l.kernel, &l.bias])
        .collect();
    let grads: Vec<Tensor<f64>> = g
        .layers
        .into_iter()
        .flat_map(|l| [l.kernel.unwrap(), l.bias.unwrap()])
        .collect();
    check_variables_against_differences("stack_forward", &variables, &grads, &|| {
        stack_forward(&stack, &x).to_scalar()
    });
}

#[test]
fn structs_with_configuration_arrays_and_tuples() {
    // 5
    let cell = Recurrent {
        input_weights: v(&[0.5, -0.4, 0.3, 0.2, 0.1, -0.6], &[2, 3]),
        state_weights: v(&[0.2, 0.1, 0.0, -0.3, 0.4, 0.1, 0.2, -0.1, 0.3], &[3, 3]),
        steps: 4,
        decay: 0.8,
    };
    let x = t(&[0.7, -0.2], &[1, 2]);
    let tape = GradientTape::new();
    let loss = tape.record(|| recurrent_run(&cell, &x));
    let g: RecurrentGradients = tape.gradient(&loss, &cell).unwrap();
    check_variables_against_differences(
        "recurrent_run",
        &[&cell.input_weights, &cell.state_weights],
        &[g.input_weights.unwrap(), g.state_weights.unwrap()],
        &|| recurrent_run(&cell, &x).to_scalar(),
    );

    // 6
    let p = Polynomial {
        coefficients: [v(&[0.1], &[]), v(&[-0.5], &[]), v(&[0.25], &[])],
    };
    let (x, y) = (t(&[-1.0, 0.5, 2.0], &[3]), t(&[1.0, 0.0, 0.5], &[3]));
    let tape = GradientTape::new();
    let loss = tape.record(|| polynomial_fit(&p, &x, &y));
    let g: PolynomialGradients = tape.gradient(&loss, &p).unwrap();
    let [g0, g1, g2] = g.coefficients;
    check_variables_against_differences(
        "polynomial_fit",
        &[&p.coefficients[0], &p.coefficients[1], &p.coefficients[2]],
        &[g0.unwrap(), g1.unwrap(), g2.unwrap()],
        &|| polynomial_fit(&p, &x, &y).to_scalar(),
    );

    // 7
    let spring = Spring {
        stiffness: v(&[4.0], &[]),
        damping: v(&[0.3], &[]),
        dt: 0.05,
    };
    let x0 = t(&[1.0, -0.5], &[2]);
    let tape = GradientTape::new();
    let loss = tape.record(|| spring_energy_after(&spring, &x0, 30));
    let g: SpringGradients = tape.gradient(&loss, &spring).unwrap();
    check_variables_against_differences(
        "spring_energy_after",
        &[&spring.stiffness, &spring.damping],
        &[g.stiffness.unwrap(), g.damping.unwrap()],
        &|| spring_energy_after(&spring, &x0, 30).to_scalar(),
    );

    // 8
    let a = Affine(v(&[1.5], &[]), v(&[-0.5], &[]));
    let x = t(&[0.2, -1.0, 0.7], &[3]);
    let tape = GradientTape::new();
    let loss = tape.record(|| affine_softplus(&a, &x));
    let g: AffineGradients = tape.gradient(&loss, &a).unwrap();
    check_variables_against_differences(
        "affine_softplus",
        &[&a.0, &a.1],
        &[g.0.unwrap(), g.1.unwrap()],
        &|| affine_softplus(&a, &x).to_scalar(),
    );
}

#[test]
fn several_structs_tensors_inside_and_plain_configuration() {
    // 9: two structs, gradients for both as a tuple of structs
    let encoder = dense_of(&[0.4, -0.2, 0.3, 0.5, 0.1, -0.4], &[3, 2], &[0.0, 0.1], 1.0);
    let decoder = dense_of(
        &[0.2, 0.6, -0.3, -0.1, 0.4, 0.2],
        &[2, 3],
        &[0.05, 0.0, -0.05],
        1.0,
    );
    let x = t(&[0.5, -0.5, 1.0, 0.2, 0.8, -0.3], &[2, 3]);
    let tape = GradientTape::new();
    let loss = tape.record(|| autoencoder_loss(&encoder, &decoder, &x));
    let (ge, gd): (DenseGradients<f64>, DenseGradients<f64>) =
        tape.gradient(&loss, (&encoder, &decoder)).unwrap();
    check_variables_against_differences(
        "autoencoder_loss",
        &[
            &encoder.kernel,
            &encoder.bias,
            &decoder.kernel,
            &decoder.bias,
        ],
        &[
            ge.kernel.unwrap(),
            ge.bias.unwrap(),
            gd.kernel.unwrap(),
            gd.bias.unwrap(),
        ],
        &|| autoencoder_loss(&encoder, &decoder, &x).to_scalar(),
    );

    // 10: a tensor field, watched through the struct
    let e = Embedded {
        table: t(&[0.1, 0.2, -0.3, 0.4, 0.5, -0.6], &[3, 2]),
        scale: v(&[1.5], &[]),
    };
    let rows = [2, 0, 2];
    let tape = GradientTape::new();
    tape.watch(&e.table);
    let loss = tape.record(|| embedded_score(&e, &rows));
    let g: EmbeddedGradients = tape.gradient(&loss, &e).unwrap();
    // the table's gradient by hand: softmax weights of the gathered entries, scaled,
    // added back to their rows
    let gathered: Vec<f64> = rows
        .iter()
        .flat_map(|&r| e.table.to_vec()[2 * r..2 * r + 2].to_vec())
        .collect();
    let exp: Vec<f64> = gathered.iter().map(|v| (v * 1.5).exp()).collect();
    let total: f64 = exp.iter().sum();
    let mut table_grad = [0.0; 6];
    for (k, &r) in rows.iter().enumerate() {
        for j in 0..2 {
            table_grad[2 * r + j] += 1.5 * exp[2 * k + j] / total;
        }
    }
    let got = g.table.unwrap().to_vec();
    for (a, b) in got.iter().zip(table_grad) {
        assert!((a - b).abs() < 1e-12, "{a} vs {b}");
    }
    check_variables_against_differences(
        "embedded_score",
        &[&e.scale],
        &[g.scale.unwrap()],
        &|| embedded_score(&e, &rows).to_scalar(),
    );

    // 11: scalar mode, the struct is data
    let schedule = Schedule {
        rate: 0.1,
        steps: 8,
    };
    let (value, [dx]) = scheduled_descent::grad(1.2, &schedule);
    assert_eq!(value, scheduled_descent::primal(1.2, &schedule));
    let h = 1e-6;
    let fd =
        (scheduled_descent(1.2 + h, &schedule) - scheduled_descent(1.2 - h, &schedule)) / (2.0 * h);
    assert!((dx - fd).abs() < 1e-7, "{dx} vs {fd}");

    // 2 at f32: the generic layer
    let layer = Dense::<f32> {
        kernel: Variable::new(Tensor::from_vec(vec![0.5_f32, -1.0], &[2, 1])),
        bias: Variable::new(Tensor::from_vec(vec![0.25_f32], &[1])),
        leaky: 0.1,
    };
    let x = Tensor::from_vec(vec![1.0_f32, 1.0, 2.0, -1.0], &[2, 2]);
    let tape = GradientTape::new();
    let loss = tape.record(|| dense_forward(&layer, &x).sum());
    let g: DenseGradients<f32> = tape.gradient(&loss, &layer).unwrap();
    // rows give z = -0.25 (leaky: slope 0.1) and 2.25 (slope 1)
    assert_eq!(
        g.kernel.unwrap().to_vec(),
        vec![0.1 * 1.0 + 2.0, 0.1 * 1.0 - 1.0]
    );
    assert_eq!(g.bias.unwrap().to_vec(), vec![1.1]);
}

/// Second order through a struct: the Hessian-vector product of the MLP's loss along a
/// direction in its hidden kernel, against differences of gradients.
#[test]
fn second_order_through_a_struct() {
    let (model, x, labels) = small_mlp();
    let direction = t(&[1.0, 0.0, -1.0, 0.5, 0.5, 0.0], &[2, 3]);
    let gradient = || {
        let tape = GradientTape::new();
        let loss = tape.record(|| mlp_loss(&model, &x, &labels));
        tape.gradient(&loss, &model.hidden.kernel).unwrap().unwrap()
    };
    let outer = GradientTape::new();
    let along = outer.record(|| (gradient() * &direction).sum());
    let hvp = outer
        .gradient(&along, &model.hidden.kernel)
        .unwrap()
        .unwrap();
    // differences of gradients along the direction
    let base = model.hidden.kernel.value();
    let h = 1e-5;
    model.hidden.kernel.assign(&base + &direction * h);
    let up = gradient();
    model.hidden.kernel.assign(&base - &direction * h);
    let down = gradient();
    model.hidden.kernel.assign(base);
    let fd = (up - down) / (2.0 * h);
    for (a, b) in hvp.to_vec().iter().zip(fd.to_vec()) {
        assert!((a - b).abs() <= 1e-6 * (1.0 + b.abs()), "{a} vs {b}");
    }
}
