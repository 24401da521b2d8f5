//! `GradientTape::explain`: every cause of a `None` gradient, each checked to be `None`
//! first, with the printed advice.

use gradtape::{CutCause, Explanation, GradientTape, Tensor, Variable, VariableNotWatched};

/// Asserts the gradient is `None` and returns the explanation.
fn why_none(tape: &GradientTape, y: &Tensor<f32>, x: &Tensor<f32>) -> Explanation {
    assert!(
        tape.gradient(y, x).unwrap().is_none(),
        "the gradient exists"
    );
    tape.explain(y, x)
}

#[test]
fn connected_paths_say_so() {
    let x = Tensor::scalar(2.0_f32);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let y = tape.record(|| x.square().sin());
    assert!(tape.gradient(&y, &x).unwrap().is_some());
    assert_eq!(tape.explain(&y, &x), Explanation::Connected);
    assert_eq!(tape.explain(&x, &x), Explanation::Connected);
}

#[test]
fn unwatched_tensor() {
    let x = Tensor::scalar(2.0_f32);
    let tape = GradientTape::persistent();
    let y = tape.record(|| x.square());
    let why = why_none(&tape, &y, &x);
    assert_eq!(why, Explanation::TensorNotWatched);
    assert!(why.to_string().contains("call tape.watch(&source)"));
}

#[test]
fn unwatched_variables_for_each_reason() {
    let frozen = Variable::with_name("frozen", 1.0_f32).trainable(false);
    let tape = GradientTape::persistent();
    let y = tape.record(|| frozen.square());
    assert!(tape.gradient(&y, &frozen).unwrap().is_none());
    let why = tape.explain(&y, &frozen);
    assert_eq!(
        why,
        Explanation::VariableNotWatched {
            name: "frozen".into(),
            reason: VariableNotWatched::NotTrainable
        }
    );
    assert!(why.to_string().contains("tape.watch(&frozen)"));

    let w = Variable::with_name("w", 1.0_f32);
    let off = GradientTape::builder()
        .persistent(true)
        .watch_accessed_variables(false)
        .build();
    let y = off.record(|| w.square());
    assert!(off.gradient(&y, &w).unwrap().is_none());
    let why = off.explain(&y, &w);
    assert!(matches!(
        why,
        Explanation::VariableNotWatched {
            reason: VariableNotWatched::AccessWatchingOff,
            ..
        }
    ));
    assert!(why.to_string().contains("watch_accessed_variables(false)"));

    let unread = Variable::with_name("unread", 1.0_f32);
    let tape = GradientTape::persistent();
    let y = tape.record(|| w.square());
    assert!(tape.gradient(&y, &unread).unwrap().is_none());
    let why = tape.explain(&y, &unread);
    assert!(matches!(
        why,
        Explanation::VariableNotWatched {
            reason: VariableNotWatched::NeverRead,
            ..
        }
    ));
    assert!(why.to_string().contains("never read"));
}

#[test]
fn watched_after_the_target_was_computed() {
    // the target was not recorded at all: x was not yet watched when it was computed
    let x = Tensor::scalar(2.0_f32);
    let tape = GradientTape::persistent();
    let y = tape.record(|| x.square());
    tape.watch(&x);
    let why = why_none(&tape, &y, &x);
    assert_eq!(why, Explanation::WatchedAfterTarget);
    assert!(why.to_string().contains("not retroactive"));

    // the target was recorded (through w), before x was watched
    let (w, x) = (Tensor::scalar(1.0_f32), Tensor::scalar(2.0_f32));
    let tape = GradientTape::persistent();
    tape.watch(&w);
    let y = tape.record(|| &w * &x);
    tape.watch(&x);
    assert_eq!(why_none(&tape, &y, &x), Explanation::WatchedAfterTarget);
}

#[test]
fn path_cut_by_leaving_the_library() {
    let x = Tensor::from_vec(vec![1.0_f32, 2.0, 3.0], &[3]);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let y = tape.record(|| {
        let squared = x.square();
        let copied = Tensor::from_vec(squared.to_vec(), squared.shape());
        (copied * 2.0).sum()
    });
    let why = why_none(&tape, &y, &x);
    assert_eq!(
        why,
        Explanation::PathCut {
            cause: CutCause::LeftLibrary
        }
    );
    assert!(why.to_string().contains("to_vec"));
}

#[test]
fn path_cut_by_an_integer_cast() {
    let x = Tensor::from_vec(vec![1.5_f32, 2.5], &[2]);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let y = tape.record(|| (x.exp().cast::<i32>().cast::<f32>() + 1.0).sum());
    let why = why_none(&tape, &y, &x);
    assert_eq!(
        why,
        Explanation::PathCut {
            cause: CutCause::IntegerCast { dtype: "i32" }
        }
    );
    assert!(why.to_string().contains("i32"));
}

#[test]
fn integer_data_that_never_came_from_the_source_is_not_a_cut() {
    // labels cast to float do not come from x: the honest answer is "no path"
    let x = Tensor::scalar(2.0_f32);
    let labels = Tensor::from_vec(vec![1_u8, 0], &[2]);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let other = Tensor::scalar(1.0_f32);
    tape.watch(&other);
    let y = tape.record(|| (labels.cast::<f32>() * &other).sum());
    assert_eq!(
        why_none(&tape, &y, &x),
        Explanation::NoPath { target_op: "sum" }
    );
}

#[test]
fn source_downstream_of_the_target() {
    let x = Tensor::scalar(0.5_f32);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let (y, later) = tape.record(|| {
        let y = x.sin();
        let later = y.square();
        (y, later)
    });
    let why = why_none(&tape, &y, &later);
    assert_eq!(why, Explanation::SourceAfterTarget);
    assert!(why.to_string().contains("downstream"));
}

#[test]
fn target_not_recorded() {
    let x = Tensor::scalar(0.5_f32);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let y = tape.record(|| tape.stop_recording(|| x.exp()));
    let why = why_none(&tape, &y, &x);
    assert_eq!(why, Explanation::TargetNotRecorded);
    assert!(why.to_string().contains("stop_recording"));
}

#[test]
fn no_recorded_path() {
    let (x, w) = (Tensor::scalar(0.5_f32), Tensor::scalar(1.5_f32));
    let tape = GradientTape::persistent();
    tape.watch(&x);
    tape.watch(&w);
    let y = tape.record(|| w.square());
    let why = why_none(&tape, &y, &x);
    assert_eq!(
        why,
        Explanation::NoPath {
            target_op: "square"
        }
    );
    assert!(why.to_string().contains("`square`"));
}

#[test]
fn released_records() {
    let x = Tensor::scalar(0.5_f32);
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| x.square());
    tape.gradient(&y, &x).unwrap();
    let why = tape.explain(&y, &x);
    assert_eq!(why, Explanation::RecordsReleased);
    assert!(why.to_string().contains("persistent"));
}

#[test]
fn cut_registry_answers_for_the_latest_recording_only() {
    // after a new outermost recording the old cut is forgotten; the answer falls back to
    // what the tape shows, which is still true
    let x = Tensor::from_vec(vec![1.0_f32, 2.0], &[2]);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let y = tape.record(|| Tensor::from_vec(x.exp().to_vec(), &[2]).sum());
    assert!(matches!(tape.explain(&y, &x), Explanation::PathCut { .. }));
    GradientTape::new().record(|| ());
    assert_eq!(tape.explain(&y, &x), Explanation::TargetNotRecorded);
}
