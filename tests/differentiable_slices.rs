use gradtape::differentiable;

#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[differentiable]
fn log_sum_exp(x: &[f64]) -> f64 {
    let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let s: f64 = x.iter().map(|v| (v - m).exp()).sum();
    s.ln() + m
}

#[differentiable]
fn moving_average(x: &[f64], out: &mut [f64]) {
    for i in 0..out.len() {
        out[i] = (x[i] + x[i + 1]) * 0.5;
    }
}

#[differentiable]
fn prefix(x: &[f64]) -> f64 {
    let mut buf = vec![0.0; x.len()];
    let mut acc = 0.0;
    for (i, v) in x.iter().enumerate() {
        acc += *v;
        buf[i] = acc;
    }
    let mut total = 0.0;
    for b in buf.iter() {
        total += b * b;
    }
    total
}

#[test]
fn smoke() {
    let a = [1.0, 2.0, 3.0];
    let b = [4.0, 5.0, 6.0];
    let (v, g) = dot::grad(&a, &b);
    assert_eq!(v, 32.0);
    assert_eq!(g[0], vec![4.0, 5.0, 6.0]);
    let (v, g) = log_sum_exp::grad(&a);
    println!("{v} {g:?}");
    let mut da = [0.0; 3];
    let v2 = log_sum_exp::grad_into(&a, &mut da);
    assert_eq!(v, v2);
    assert_eq!(g[0], da.to_vec());
    let mut out = [0.0; 2];
    let mut dx = [0.0; 3];
    let mut dout = [1.0, 10.0];
    moving_average::grad_into(&a, &mut out, &mut dx, &mut dout);
    assert_eq!(dx, [0.5, 5.5, 5.0]);
    let (v, t) = dot::jvp(&a, &b, &[1.0, 0.0, 0.0], &[0.0; 3]);
    assert_eq!((v, t), (32.0, 4.0));
    println!("{:?}", prefix::grad(&a));
    println!("{}", log_sum_exp::GENERATED);
}
