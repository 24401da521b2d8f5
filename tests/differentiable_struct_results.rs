use gradtape::{Differentiable, differentiable};

#[derive(Differentiable, Debug, Clone, Copy, PartialEq)]
struct State {
    x: f64,
    v: f64,
}

#[differentiable]
fn euler(x: f64, v: f64, dt: f64) -> State {
    State {
        x: x + dt * v,
        v: v - dt * x.sin(),
    }
}

#[differentiable]
fn step(#[differentiable] s: &State, dt: f64) -> State {
    State {
        x: s.x + dt * s.v,
        v: s.v - dt * s.x,
    }
}

#[test]
fn smoke() {
    let (value, pullback) = euler::vjp(0.5, 0.25, 0.1);
    assert_eq!(value, euler(0.5, 0.25, 0.1));
    let g = pullback(State { x: 1.0, v: 0.0 });
    println!("{g:?} {}", euler::GENERATED);
    let (v, t) = euler::jvp(0.5, 0.25, 0.1, 1.0, 0.0, 0.0);
    println!("{v:?} {t:?}");
    let s = State { x: 0.5, v: 0.25 };
    let (value, pullback) = step::vjp(&s, 0.1);
    println!("{value:?} {:?}", pullback(State { x: 1.0, v: 0.0 }));
}
