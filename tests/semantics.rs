//! One test per row of the first two tables of SEMANTICS.md ("Recording and watching" and
//! "`gradient(target, sources)`"), each named after its row and asserting gradtape's column.
//! The rows whose gradtape behaviour is a compile error are checked here through trait
//! membership and, with their messages, by the trybuild cases in `tests/ui/tape/`.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use gradtape::{
    AnyTensor, ForwardAccumulator, GradientOptions, GradientTape, Sources, TapeError, Targets,
    Tensor, UnconnectedGradients, Variable, Watch, any_recording, generated, without_recording,
};

fn names(tape: &GradientTape) -> Vec<String> {
    tape.watched_variables()
        .iter()
        .map(|v| v.name().to_string())
        .collect()
}

fn scalar<T: gradtape::Float>(grad: Option<Tensor<T>>) -> T {
    grad.expect("a connected gradient").to_scalar()
}

/// Whether `$ty` implements `$tr`, decided at compile time by autoref specialisation (the
/// inherent-looking method on `Probe<T>` wins when the bound holds, the `&Probe<T>` one
/// otherwise). Lets the rows whose answer is "compile error" assert something at run time.
macro_rules! implements {
    ($ty:ty: $tr:path) => {{
        struct Probe<T: ?Sized>(std::marker::PhantomData<T>);
        // Only one of the two traits is used by each expansion.
        #[allow(dead_code)]
        trait Yes {
            fn implemented(&self) -> bool {
                true
            }
        }
        impl<T: $tr + ?Sized> Yes for Probe<T> {}
        #[allow(dead_code)]
        trait No {
            fn implemented(&self) -> bool {
                false
            }
        }
        impl<T: ?Sized> No for &Probe<T> {}
        (&Probe::<$ty>(std::marker::PhantomData)).implemented()
    }};
}

// ---------------------------------------------------------------------------------------
// Recording and watching
// ---------------------------------------------------------------------------------------

#[test]
fn scope_ops_on_another_thread_are_not_recorded() {
    let x = Variable::new(3.0_f32);
    let tape = GradientTape::persistent();
    let (here, there) = tape.record(|| {
        let here = x.square();
        let there = std::thread::scope(|s| s.spawn(|| x.square()).join().unwrap());
        (here, there)
    });
    assert_eq!(here.to_scalar(), there.to_scalar());
    // d/dx x² = 2x = 6 on this thread; the other thread's op was seen by no tape
    assert_eq!(scalar(tape.gradient(&here, &x).unwrap()), 6.0);
    assert!(tape.gradient(&there, &x).unwrap().is_none());
}

#[test]
fn scope_ops_after_the_scope_are_not_recorded() {
    let x = Variable::new(3.0_f32);
    let tape = GradientTape::persistent();
    let inside = tape.record(|| x.square());
    let outside = inside.sin();
    assert_eq!(scalar(tape.gradient(&inside, &x).unwrap()), 6.0);
    assert!(tape.gradient(&outside, &x).unwrap().is_none());
}

#[test]
fn scope_is_left_cleanly_when_the_closure_panics() {
    let x = Variable::new(3.0_f32);
    let tape = GradientTape::new();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tape.record(|| {
            let _ = x.square();
            panic!("user code failed");
        })
    }));
    assert!(caught.is_err());
    assert!(!any_recording(), "the tape was popped while unwinding");
    let y = tape.record(|| x.powi(3));
    assert_eq!(scalar(tape.gradient(&y, &x).unwrap()), 27.0);
}

#[test]
fn which_ops_are_recorded_every_active_tape_tracking_an_input() {
    let (a, b) = (Tensor::scalar(2.0_f64), Tensor::scalar(5.0_f64));
    let outer = GradientTape::persistent();
    let inner = GradientTape::persistent();
    outer.watch(&a);
    inner.watch(&b);
    let (a2, b2, ab) = outer.record(|| inner.record(|| (a.square(), b.square(), &a * &b)));
    // a² only on the outer tape (which tracks a), b² only on the inner one, a·b on both
    assert_eq!(scalar(outer.gradient(&a2, &a).unwrap()), 4.0);
    assert!(inner.gradient(&a2, &a).unwrap().is_none());
    assert_eq!(scalar(inner.gradient(&b2, &b).unwrap()), 10.0);
    assert!(outer.gradient(&b2, &b).unwrap().is_none());
    assert_eq!(scalar(outer.gradient(&ab, &a).unwrap()), 5.0);
    assert_eq!(scalar(inner.gradient(&ab, &b).unwrap()), 2.0);
}

#[test]
fn trainable_variable_auto_watched_on_read() {
    let v = Variable::with_name("v", 4.0_f32);
    let tape = GradientTape::new();
    let y = tape.record(|| v.sqrt());
    assert_eq!(names(&tape), ["v"]);
    // d/dv √v = 1/(2√v) = 0.25
    assert_eq!(scalar(tape.gradient(&y, &v).unwrap()), 0.25);
}

#[test]
fn trainable_variable_auto_watched_on_assign() {
    let v = Variable::with_name("v", 1.0_f32);
    let tape = GradientTape::new();
    tape.record(|| v.assign(2.0));
    assert_eq!(names(&tape), ["v"]);
}

#[test]
fn trainable_variable_auto_watched_on_creation_inside_the_scope() {
    let tape = GradientTape::persistent();
    let v = tape.record(|| Variable::with_name("created", 3.0_f32));
    assert_eq!(names(&tape), ["created"]);
    let y = tape.record(|| v.powi(3));
    // d/dv v³ = 3v² = 27
    assert_eq!(scalar(tape.gradient(&y, &v).unwrap()), 27.0);
}

#[test]
fn trainable_variable_not_auto_watched_with_watch_accessed_variables_false() {
    let v = Variable::with_name("v", 2.0_f32);
    let tape = GradientTape::builder()
        .watch_accessed_variables(false)
        .build();
    let y = tape.record(|| {
        let _created = Variable::with_name("created", 1.0_f32);
        v.assign(3.0);
        v.square()
    });
    assert!(names(&tape).is_empty());
    assert!(tape.gradient(&y, &v).unwrap().is_none());
}

#[test]
fn non_trainable_variable_not_auto_watched_explicit_watch_works() {
    let v = Variable::with_name("frozen", 3.0_f32).trainable(false);
    let tape = GradientTape::new();
    let y = tape.record(|| v.square());
    assert!(names(&tape).is_empty());
    assert!(tape.gradient(&y, &v).unwrap().is_none());

    let tape = GradientTape::new();
    tape.watch(&v);
    let y = tape.record(|| v.square());
    assert_eq!(names(&tape), ["frozen"]);
    assert_eq!(scalar(tape.gradient(&y, &v).unwrap()), 6.0);
}

#[test]
fn non_trainable_variable_created_inside_the_scope_is_not_watched() {
    let tape = GradientTape::new();
    let (frozen, y) = tape.record(|| {
        let frozen = Variable::with_name("frozen", 3.0_f32).trainable(false);
        let y = frozen.square();
        (frozen, y)
    });
    assert!(names(&tape).is_empty());
    assert!(tape.gradient(&y, &frozen).unwrap().is_none());
}

#[test]
fn trainable_flag_is_shared_by_clones() {
    let v = Variable::new(1.0_f32);
    let alias = v.clone().trainable(false);
    assert!(!v.is_trainable());
    assert_eq!(v.id(), alias.id());
}

#[test]
fn watch_accepts_a_list_of_tensors_and_variables() {
    let (a, b) = (Tensor::scalar(2.0_f32), Tensor::scalar(3.0_f32));
    let frozen = Variable::with_name("frozen", 4.0_f32).trainable(false);
    let tape = GradientTape::persistent();
    tape.watch(&vec![a.clone(), b.clone()]);
    tape.watch(&[&frozen]);
    let y = tape.record(|| &a * &b * &frozen);
    let (ga, gb, gf) = tape.gradient(&y, (&a, &b, &frozen)).unwrap();
    // ∂(a b f) = (b f, a f, a b) = (12, 8, 6)
    assert_eq!((scalar(ga), scalar(gb), scalar(gf)), (12.0, 8.0, 6.0));
}

#[test]
fn watch_is_not_retroactive() {
    let x = Tensor::scalar(3.0_f32);
    let tape = GradientTape::new();
    let total = tape.record(|| {
        let before = x.square();
        tape.watch(&x);
        let after = x.powi(3);
        before + after
    });
    // only x³, recorded after the watch, leads back to x: 3x² = 27 (not 27 + 2x)
    assert_eq!(scalar(tape.gradient(&total, &x).unwrap()), 27.0);
}

#[test]
fn watch_of_integer_tensor_or_variable_is_a_compile_error() {
    // `tape.watch(&int_tensor)` does not compile: tests/ui/tape/watch-integer-tensor.rs.
    assert!(!implements!(Tensor<i32>: Watch));
    assert!(!implements!(Tensor<i64>: Watch));
    assert!(!implements!(Tensor<u8>: Watch));
    assert!(!implements!(Tensor<bool>: Watch));
    assert!(!implements!(Variable<i32>: Watch));
    assert!(!implements!(Variable<bool>: Watch));
    assert!(implements!(Tensor<f32>: Watch));
    assert!(implements!(Tensor<f64>: Watch));
    assert!(implements!(Variable<f32>: Watch));
    assert!(implements!([Tensor<f64>]: Watch));
}

#[test]
fn integer_variable_read_inside_the_scope_is_never_watched() {
    let counts = Variable::with_name("counts", Tensor::from_vec(vec![1_i32, 2], &[2]));
    let w = Variable::with_name("w", 1.5_f32);
    let tape = GradientTape::new();
    let y = tape.record(|| {
        let _created = Variable::with_name("steps", 0_i64);
        counts.assign(Tensor::from_vec(vec![2, 3], &[2]));
        (counts.value().cast::<f32>() * &w).sum()
    });
    assert_eq!(names(&tape), ["w"]);
    // asking for the gradient of `counts` does not compile
    // (tests/ui/tape/gradient-wrt-integer-variable.rs)
    assert!(!implements!(Variable<i32>: Sources));
    assert!(!implements!(Tensor<i32>: Targets));
    // ∂/∂w Σ counts·w = Σ counts = 5
    assert_eq!(scalar(tape.gradient(&y, &w).unwrap()), 5.0);
}

#[test]
fn watched_variables_ordered_by_creation() {
    let c = Variable::with_name("c", 1.0_f32);
    let a = Variable::with_name("a", 1.0_f64);
    let b = Variable::with_name("b", 1.0_f32);
    let late = Variable::with_name("late", 1.0_f32).trainable(false);
    let tape = GradientTape::new();
    tape.watch(&late);
    tape.record(|| {
        let _ = b.square();
        let _ = a.square();
        let _ = c.square();
    });
    assert_eq!(names(&tape), ["c", "a", "b", "late"]);
}

#[test]
fn nested_tapes_have_their_own_watch_sets() {
    let x = Tensor::scalar(2.0_f32);
    let v = Variable::with_name("v", 1.0_f32);
    let outer = GradientTape::persistent();
    let inner = GradientTape::builder()
        .persistent(true)
        .watch_accessed_variables(false)
        .build();
    let y = outer.record(|| {
        inner.record(|| {
            inner.watch(&x);
            x.powi(3) + &v
        })
    });
    // inner.watch(x) does not watch x on the outer tape
    assert_eq!(scalar(inner.gradient(&y, &x).unwrap()), 12.0);
    assert!(outer.gradient(&y, &x).unwrap().is_none());
    // the read of v is auto-watched by the outer tape only
    assert_eq!(names(&outer), ["v"]);
    assert!(names(&inner).is_empty());
    assert_eq!(scalar(outer.gradient(&y, &v).unwrap()), 1.0);
}

#[test]
fn reentering_a_finished_tape_appends_to_the_same_record() {
    let v = Variable::new(2.0_f32);
    let tape = GradientTape::new();
    let y = tape.record(|| v.square());
    let unrelated = v.value() * 100.0; // between the scopes: not recorded
    let z = tape.record(|| &y * 3.0 + &unrelated);
    // dz/dv = 3 · 2v = 12
    assert_eq!(scalar(tape.gradient(&z, &v).unwrap()), 12.0);
}

#[test]
fn reentering_a_consumed_non_persistent_tape_starts_a_new_record() {
    let (v, w) = (
        Variable::with_name("v", 2.0_f32),
        Variable::with_name("w", 5.0_f32),
    );
    let tape = GradientTape::new();
    let y = tape.record(|| v.square());
    assert_eq!(scalar(tape.gradient(&y, &v).unwrap()), 4.0);
    assert_eq!(names(&tape), ["v"], "still listed after the gradient");
    let z = tape.record(|| w.square());
    assert_eq!(names(&tape), ["w"]);
    assert_eq!(scalar(tape.gradient(&z, &w).unwrap()), 10.0);
}

#[test]
#[should_panic(expected = "GradientTape::record: this tape is already recording")]
fn entering_a_tape_that_is_already_recording_panics() {
    let tape = GradientTape::new();
    tape.record(|| tape.record(|| ()));
}

#[test]
fn stop_recording_pauses_only_this_tape_outer_tapes_go_on() {
    let x = Variable::new(3.0_f32);
    let outer = GradientTape::new();
    let inner = GradientTape::new();
    let y = outer.record(|| inner.record(|| inner.stop_recording(|| x.square())));
    assert_eq!(scalar(outer.gradient(&y, &x).unwrap()), 6.0);
    assert!(inner.gradient(&y, &x).unwrap().is_none());
}

#[test]
fn stop_recording_then_recording_resumes() {
    let x = Variable::new(3.0_f32);
    let tape = GradientTape::new();
    let y = tape.record(|| {
        let paused = tape.stop_recording(|| x.powi(3));
        let resumed = x.square();
        paused + resumed
    });
    // only x² was recorded: 2x = 6
    assert_eq!(scalar(tape.gradient(&y, &x).unwrap()), 6.0);
}

#[test]
fn watch_inside_stop_recording_does_nothing() {
    let c = Tensor::scalar(3.0_f32);
    let v = Variable::with_name("v", 3.0_f32);
    let tape = GradientTape::builder()
        .persistent(true)
        .watch_accessed_variables(false)
        .build();
    let y = tape.record(|| {
        tape.stop_recording(|| {
            tape.watch(&c);
            tape.watch(&v);
        });
        c.square() + v.square()
    });
    assert!(names(&tape).is_empty());
    let (gc, gv) = tape.gradient(&y, (&c, &v)).unwrap();
    assert!(gc.is_none());
    assert!(gv.is_none());
}

#[test]
fn reset_drops_all_records_and_explicitly_watched_tensors() {
    let x = Tensor::scalar(2.0_f32);
    let v = Variable::with_name("v", 1.0_f32);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let y = tape.record(|| x.square() + v.square());
    tape.reset();
    assert!(names(&tape).is_empty());
    let (gx, gv) = tape.gradient(&y, (&x, &v)).unwrap();
    assert!(gx.is_none());
    assert!(gv.is_none());
    // the explicit watch of x is gone too
    let z = tape.record(|| x.square());
    assert!(tape.gradient(&z, &x).unwrap().is_none());
}

#[test]
fn reset_makes_a_consumed_non_persistent_tape_usable() {
    let v = Variable::new(2.0_f32);
    let tape = GradientTape::new();
    let y = tape.record(|| v.square());
    tape.gradient(&y, &v).unwrap();
    assert_eq!(tape.gradient(&y, &v).unwrap_err(), TapeError::NotPersistent);
    tape.reset();
    let z = tape.record(|| v.powi(3));
    assert_eq!(scalar(tape.gradient(&z, &v).unwrap()), 12.0);
}

#[test]
fn value_that_left_the_library_is_a_constant() {
    let x = Variable::new(Tensor::from_vec(vec![1.0_f32, 2.0], &[2]));
    let tape = GradientTape::persistent();
    let (y, from_vec, from_ndarray) = tape.record(|| {
        let y = x.square();
        let from_vec = Tensor::from_vec(y.to_vec(), y.shape()).sum();
        let from_ndarray = Tensor::from(y.to_ndarray()).sum();
        (y.sum(), from_vec, from_ndarray)
    });
    assert_eq!(from_vec.to_scalar(), y.to_scalar());
    assert_eq!(tape.gradient(&y, &x).unwrap().unwrap().to_vec(), [2.0, 4.0]);
    assert!(tape.gradient(&from_vec, &x).unwrap().is_none());
    assert!(tape.gradient(&from_ndarray, &x).unwrap().is_none());
}

// ---------------------------------------------------------------------------------------
// gradient(target, sources)
// ---------------------------------------------------------------------------------------

/// `y = a·Σb + a·c + a²` with `a = 2` (f32 variable), `b = [1, 2]` (f32 variable) and a
/// watched f64 tensor `c = 3` (cast into the f32 computation):
/// ∂y/∂a = Σb + c + 2a = 10, ∂y/∂b = [a, a] = [2, 2], ∂y/∂c = a = 2 (as f64).
struct Structures {
    a: Variable<f32>,
    b: Variable<f32>,
    c: Tensor<f64>,
    y: Tensor<f32>,
    tape: GradientTape,
}

fn structures() -> Structures {
    let a = Variable::with_name("a", 2.0_f32);
    let b = Variable::with_name("b", Tensor::from_vec(vec![1.0_f32, 2.0], &[2]));
    let c = Tensor::scalar(3.0_f64);
    let tape = GradientTape::persistent();
    tape.watch(&c);
    let y = tape.record(|| &a * b.sum() + &a * c.cast::<f32>() + a.square());
    Structures { a, b, c, y, tape }
}

#[test]
fn result_structure_single_source() {
    let s = structures();
    let g: Option<Tensor<f32>> = s.tape.gradient(&s.y, &s.a).unwrap();
    assert_eq!(scalar(g), 10.0);
    let g: Option<Tensor<f64>> = s.tape.gradient(&s.y, &s.c).unwrap();
    assert_eq!(scalar(g), 2.0);
}

#[test]
fn result_structure_array_slice_and_vec() {
    let s = structures();
    let [ga, gb] = s.tape.gradient(&s.y, [&s.a, &s.b]).unwrap();
    assert_eq!(scalar(ga), 10.0);
    assert_eq!(gb.unwrap().to_vec(), [2.0, 2.0]);

    let vars = vec![&s.b, &s.a];
    let from_slice: Vec<Option<Tensor<f32>>> = s.tape.gradient(&s.y, &vars[..]).unwrap();
    assert_eq!(from_slice.len(), 2);
    assert_eq!(from_slice[0].as_ref().unwrap().to_vec(), [2.0, 2.0]);
    assert_eq!(from_slice[1].as_ref().unwrap().to_scalar(), 10.0);

    let from_vec = s.tape.gradient(&s.y, vars).unwrap();
    assert_eq!(from_vec[1].as_ref().unwrap().to_scalar(), 10.0);

    // a source listed twice gets its full gradient at both places
    let [g1, g2] = s.tape.gradient(&s.y, [&s.a, &s.a]).unwrap();
    assert_eq!((scalar(g1), scalar(g2)), (10.0, 10.0));
}

#[test]
fn result_structure_tuple_mixing_tensors_and_variables() {
    let s = structures();
    // each leaf keeps its own dtype
    type Grads = (
        Option<Tensor<f32>>,
        Option<Tensor<f64>>,
        Option<Tensor<f32>>,
    );
    let (ga, gc, gb): Grads = s.tape.gradient(&s.y, (&s.a, &s.c, &s.b)).unwrap();
    assert_eq!(scalar(ga), 10.0);
    assert_eq!(scalar(gc), 2.0);
    assert_eq!(gb.unwrap().to_vec(), [2.0, 2.0]);
}

#[test]
fn result_structure_hash_map_and_btree_map() {
    let s = structures();
    let by_name = HashMap::from([("a", &s.a), ("b", &s.b)]);
    let grads = s.tape.gradient(&s.y, &by_name).unwrap();
    assert_eq!(grads.len(), 2);
    assert_eq!(grads["a"].as_ref().unwrap().to_scalar(), 10.0);
    assert_eq!(grads["b"].as_ref().unwrap().to_vec(), [2.0, 2.0]);

    let ordered = BTreeMap::from([("b".to_string(), &s.b), ("a".to_string(), &s.a)]);
    let grads = s.tape.gradient(&s.y, ordered).unwrap();
    let keys: Vec<&String> = grads.keys().collect();
    assert_eq!(keys, ["a", "b"]);
    assert_eq!(grads["a"].as_ref().unwrap().to_scalar(), 10.0);
    assert_eq!(grads["b"].as_ref().unwrap().to_vec(), [2.0, 2.0]);
}

#[test]
fn result_structure_nested() {
    let s = structures();
    let nested = (
        vec![&s.b, &s.a],
        HashMap::from([("c", (&s.c, [&s.a]))]),
        [(&s.a, &s.c)],
    );
    let (list, map, pairs) = s.tape.gradient(&s.y, nested).unwrap();
    assert_eq!(list[0].as_ref().unwrap().to_vec(), [2.0, 2.0]);
    assert_eq!(list[1].as_ref().unwrap().to_scalar(), 10.0);
    let (gc, [ga]) = &map["c"];
    assert_eq!(gc.as_ref().unwrap().to_scalar(), 2.0_f64);
    assert_eq!(ga.as_ref().unwrap().to_scalar(), 10.0_f32);
    let [(ga, gc)] = pairs;
    assert_eq!(scalar(ga), 10.0);
    assert_eq!(scalar(gc), 2.0);
}

#[test]
fn unconnected_source_is_none() {
    let (x, unused) = (Variable::new(2.0_f32), Variable::new(3.0_f32));
    let tape = GradientTape::new();
    let y = tape.record(|| {
        let _ = unused.square(); // read and watched, but not on the path to y
        x.square()
    });
    let (gx, gu) = tape.gradient(&y, (&x, &unused)).unwrap();
    assert_eq!(scalar(gx), 4.0);
    assert!(gu.is_none());
}

#[test]
fn unconnected_zero_gives_zeros_of_the_source_shape_and_dtype() {
    let x = Variable::new(2.0_f32);
    let matrix = Variable::new(Tensor::<f64>::ones(&[2, 3]));
    let never_seen = Tensor::<f32>::ones(&[4]);
    let tape = GradientTape::new();
    let y = tape.record(|| x.square());
    let options = GradientOptions::new().unconnected(UnconnectedGradients::Zero);
    let (gx, gm, gn) = tape
        .gradient_with(&y, (&x, &matrix, &never_seen), options)
        .unwrap();
    assert_eq!(scalar(gx), 4.0);
    let gm = gm.unwrap();
    assert_eq!((gm.shape(), gm.dtype()), (&[2, 3][..], "f64"));
    assert_eq!(gm.to_vec(), vec![0.0; 6]);
    let gn = gn.unwrap();
    assert_eq!((gn.shape(), gn.dtype()), (&[4][..], "f32"));
    assert_eq!(gn.to_vec(), vec![0.0; 4]);
}

#[test]
fn non_scalar_target_gives_the_gradient_of_its_sum() {
    let x = Tensor::from_vec(vec![1.0_f64, 2.0, 3.0], &[3]);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let (y, total) = tape.record(|| {
        let y = &x * &x;
        let total = y.sum();
        (y, total)
    });
    let from_vector = tape.gradient(&y, &x).unwrap().unwrap();
    let from_sum = tape.gradient(&total, &x).unwrap().unwrap();
    // d/dx Σ x² = 2x
    assert_eq!(from_vector.to_vec(), [2.0, 4.0, 6.0]);
    assert_eq!(from_vector.to_vec(), from_sum.to_vec());
}

#[test]
fn several_targets_give_the_gradient_of_their_sum() {
    let x = Tensor::scalar(3.0_f32);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let (y1, y2, y3) = tape.record(|| (x.square(), x.cast::<f64>() * 4.0, x.powi(3)));
    // d/dx (x² + 4x + x³) = 2x + 4 + 3x² = 37; targets may mix dtypes
    assert_eq!(scalar(tape.gradient(&(&y1, &y2, &y3), &x).unwrap()), 37.0);
    assert_eq!(scalar(tape.gradient(&[&y1, &y3], &x).unwrap()), 33.0);
    assert_eq!(scalar(tape.gradient(&vec![y1.clone()], &x).unwrap()), 6.0);
}

#[test]
fn gradient_of_x_wrt_x_is_ones_even_unwatched() {
    let x = Tensor::from_vec(vec![5.0_f32, -1.0, 0.5], &[3]);
    let tape = GradientTape::new();
    let g = tape.gradient(&x, &x).unwrap().unwrap();
    assert_eq!((g.shape(), g.to_vec()), (&[3][..], vec![1.0; 3]));

    let watched = Tensor::scalar(2.0_f64);
    let tape = GradientTape::new();
    tape.watch(&watched);
    assert_eq!(scalar(tape.gradient(&watched, &watched).unwrap()), 1.0);
}

#[test]
fn source_that_is_an_intermediate_stops_backprop_there() {
    let x = Tensor::scalar(3.0_f32);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let (y, z) = tape.record(|| {
        let y = x.square();
        let z = &y * &x;
        (y, z)
    });
    // z = y·x: ∂z/∂y = x = 3 (y held fixed); dz/dx through both paths = 3x² = 27
    assert_eq!(scalar(tape.gradient(&z, &y).unwrap()), 3.0);
    let (gy, gx) = tape.gradient(&z, (&y, &x)).unwrap();
    assert_eq!(scalar(gy), 3.0);
    assert_eq!(scalar(gx), 27.0);
}

#[test]
fn source_downstream_of_the_target_is_none() {
    let x = Tensor::scalar(3.0_f32);
    let tape = GradientTape::new();
    tape.watch(&x);
    let (y, z) = tape.record(|| {
        let y = x.square();
        let z = &y + 1.0;
        (y, z)
    });
    assert!(tape.gradient(&y, &z).unwrap().is_none());
}

#[test]
fn output_gradients_one_seed_per_target_of_its_shape() {
    let x = Tensor::from_vec(vec![1.0_f32, 2.0], &[2]);
    let tape = GradientTape::persistent();
    tape.watch(&x);
    let (y1, y2) = tape.record(|| (&x * 3.0, x.square().sum()));
    let seed1 = Tensor::from_vec(vec![1.0_f32, 10.0], &[2]);
    let seed2 = Tensor::scalar(2.0_f32);

    // ∂/∂x (seed1·3x + seed2·Σx²) = 3 seed1 + 2 seed2 x = [3 + 4, 30 + 8]
    let options = GradientOptions::new().output_gradients((&seed1, &seed2));
    let g = tape.gradient_with(&(&y1, &y2), &x, options).unwrap();
    assert_eq!(g.unwrap().to_vec(), [7.0, 38.0]);

    let too_few = GradientOptions::new().output_gradients([&seed1]);
    let err = tape.gradient_with(&(&y1, &y2), &x, too_few).unwrap_err();
    assert_eq!(
        err,
        TapeError::OutputGradientsCount {
            targets: 2,
            seeds: 1
        }
    );
    assert!(err.to_string().contains("exactly one per target"), "{err}");

    let too_many = GradientOptions::new().output_gradients((&seed1, &seed2, &seed2));
    let err = tape.gradient_with(&(&y1, &y2), &x, too_many).unwrap_err();
    assert!(matches!(
        err,
        TapeError::OutputGradientsCount {
            targets: 2,
            seeds: 3
        }
    ));

    let wrong_shape = GradientOptions::new().output_gradients((&seed2, &seed2));
    let err = tape
        .gradient_with(&(&y1, &y2), &x, wrong_shape)
        .unwrap_err();
    assert_eq!(
        err,
        TapeError::OutputGradientMismatch {
            index: 0,
            target_shape: vec![2],
            target_dtype: "f32",
            seed_shape: vec![],
            seed_dtype: "f32",
        }
    );
    let message = err.to_string();
    assert!(
        message.contains("output_gradients[0]") && message.contains("[2]"),
        "{message}"
    );

    let wrong_dtype = GradientOptions::new().output_gradients((&seed1, &Tensor::scalar(2.0_f64)));
    let err = tape
        .gradient_with(&(&y1, &y2), &x, wrong_dtype)
        .unwrap_err();
    assert!(
        matches!(
            err,
            TapeError::OutputGradientMismatch {
                index: 1,
                target_dtype: "f32",
                seed_dtype: "f64",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn output_gradients_error_leaves_a_non_persistent_tape_usable() {
    let x = Variable::new(2.0_f32);
    let tape = GradientTape::new();
    let y = tape.record(|| x.square());
    let bad = GradientOptions::new().output_gradients(Tensor::<f32>::ones(&[3]));
    assert!(tape.gradient_with(&y, &x, bad).is_err());
    assert_eq!(scalar(tape.gradient(&y, &x).unwrap()), 4.0);
}

#[test]
fn second_gradient_on_a_non_persistent_tape_is_an_error() {
    let x = Variable::new(2.0_f32);
    let tape = GradientTape::new();
    let y = tape.record(|| x.square());
    assert_eq!(scalar(tape.gradient(&y, &x).unwrap()), 4.0);
    let err = tape.gradient(&y, &x).unwrap_err();
    assert_eq!(err, TapeError::NotPersistent);
    assert!(
        err.to_string().contains("GradientTape::persistent()"),
        "the message should say to use a persistent tape: {err}"
    );
}

/// A sweep keeps its cotangents in a reused scratch, which forgets its slots without
/// dropping them when none can hold a tensor. A tensor cotangent that a rule's general form
/// put there (a scalar seed, then `sum`'s rule spreading it to an array) must still be
/// released once the gradient is taken: here, the returned gradient's storage, of which
/// the scratch's slot held a clone. Regression guard for that flag (`Scratch::tensors`).
#[test]
fn a_gradients_scratch_releases_every_tensor_cotangent() {
    let x = Tensor::from_vec(vec![1.0_f64, 2.0, 3.0], &[3]);
    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| (&x * 3.0).sum());
    let gx = tape.gradient(&y, &x).unwrap().unwrap();
    assert_eq!(gx.to_vec(), vec![3.0; 3]);
    let alive = gx.storage_probe();
    drop((gx, tape));
    assert!(!alive(), "the scratch kept a tensor cotangent alive");
    // and a scalar gradient after it, reusing the scratch with numbers only
    let s = Tensor::scalar(2.0_f64);
    let tape = GradientTape::new();
    tape.watch(&s);
    let z = tape.record(|| s.sin() * 2.0);
    let dz = tape.gradient(&z, &s).unwrap().unwrap().to_scalar();
    assert_eq!(dz, 2.0_f64.cos() * 2.0);
}

/// An op finds the tape it records on through the thread's one-tape pointer, which follows
/// every change of the tape stack: a nested tape entering (two tapes: both record) and
/// leaving (one again: the outer records alone), and the outer leaving (none records).
/// Regression guard for that pointer (`record::stack`'s `SOLE`).
#[test]
fn the_tape_an_op_records_on_follows_tapes_entering_and_leaving() {
    let x = Tensor::scalar(0.5_f64);
    let outer = GradientTape::builder().persistent(true).build();
    outer.watch(&x);
    let inner = GradientTape::builder().persistent(true).build();
    let (before, nested, after) = outer.record(|| {
        let before = x.sin();
        let nested = inner.record(|| {
            inner.watch(&x);
            x.exp()
        });
        let after = &before * 3.0;
        (before, nested, after)
    });
    // recorded after the nested tape left: on the outer tape only
    let d_after = outer.gradient(&after, &x).unwrap().unwrap().to_scalar();
    assert_eq!(d_after, 0.5_f64.cos() * 3.0);
    // recorded while both were active: on both
    let d_nested = outer.gradient(&nested, &x).unwrap().unwrap().to_scalar();
    assert_eq!(d_nested, 0.5_f64.exp());
    assert_eq!(inner.recorded_ops(), vec!["exp"]);
    assert_eq!(
        outer
            .recorded_ops()
            .iter()
            .filter(|op| **op != "watch")
            .count(),
        3,
        "{:?}",
        outer.recorded_ops()
    );
    assert!(inner.gradient(&before, &x).unwrap().is_none());
    // after both left, nothing records
    let late = x.cos();
    assert!(outer.gradient(&late, &x).unwrap().is_none());
}

/// A recording whose only large value is an intermediate saved by one rule.
struct BigRecord {
    tape: GradientTape,
    loss: Tensor<f32>,
    /// Whether the big intermediate's storage is alive now.
    big_alive: Box<dyn Fn() -> bool>,
    /// Whether it was alive when the first recorded node's rule (the sweep's last) ran.
    alive_at_first_rule: Rc<RefCell<Option<bool>>>,
}

/// Records `probe(x) · ones → sin → sum` on `tape`, where the product `big` (512², held by
/// no one but the tape) is saved only by `sin`, and `probe`'s closure rule reports whether
/// `big` was still alive when the sweep reached it.
fn record_with_big_intermediate(tape: GradientTape, x: &Tensor<f32>) -> BigRecord {
    type Probe = Rc<RefCell<Option<Box<dyn Fn() -> bool>>>>;
    let big_probe: Probe = Rc::new(RefCell::new(None));
    let alive_at_first_rule = Rc::new(RefCell::new(None));
    tape.watch(x);
    let (loss, big_alive) = tape.record(|| {
        let (probe, seen) = (Rc::clone(&big_probe), Rc::clone(&alive_at_first_rule));
        let first = generated::record_closure(
            "probe",
            Tensor::scalar(x.to_scalar()),
            &[AnyTensor::from(x.clone())],
            move |g, _needs| {
                let alive = probe.borrow().as_ref().expect("probe installed")();
                *seen.borrow_mut() = Some(alive);
                vec![Some(g.clone())]
            },
        );
        let big = Tensor::<f32>::ones(&[512, 512]) * &first;
        *big_probe.borrow_mut() = Some(Box::new(big.storage_probe()));
        let big_alive: Box<dyn Fn() -> bool> = Box::new(big.storage_probe());
        (big.sin().sum(), big_alive)
    });
    BigRecord {
        tape,
        loss,
        big_alive,
        alive_at_first_rule,
    }
}

#[test]
fn non_persistent_tape_drops_saved_values_as_the_sweep_passes_them() {
    let x = Tensor::scalar(0.5_f32);
    let BigRecord {
        tape,
        loss,
        big_alive,
        alive_at_first_rule: seen,
    } = record_with_big_intermediate(GradientTape::new(), &x);
    assert!(big_alive(), "the tape keeps what sin's rule needs");
    let g = scalar(tape.gradient(&loss, &x).unwrap());
    // loss = Σ sin(x) over 512² elements: d/dx = 512² cos(x)
    let expected = 512.0 * 512.0 * 0.5_f32.cos();
    // (f32 accumulation over 2¹⁸ terms: allow a relative 10⁻³)
    assert!((g - expected).abs() <= 1e-3 * expected, "{g} vs {expected}");
    assert_eq!(
        *seen.borrow(),
        Some(false),
        "sin's saved input is freed before the sweep reaches the first node"
    );
    assert!(
        !big_alive(),
        "nothing of the record is left after the sweep"
    );
    drop(tape);
}

#[test]
fn non_persistent_tape_drops_saved_values_even_for_an_unconnected_target() {
    let x = Tensor::scalar(0.5_f32);
    let BigRecord {
        tape,
        big_alive,
        alive_at_first_rule: seen,
        ..
    } = record_with_big_intermediate(GradientTape::new(), &x);
    let unrelated = Tensor::scalar(1.0_f32);
    assert!(tape.gradient(&unrelated, &x).unwrap().is_none());
    assert_eq!(*seen.borrow(), None, "no rule ran");
    assert!(!big_alive());
}

#[test]
fn persistent_tape_keeps_everything_until_dropped() {
    let x = Tensor::scalar(0.5_f32);
    let BigRecord {
        tape,
        loss,
        big_alive,
        alive_at_first_rule: seen,
    } = record_with_big_intermediate(GradientTape::persistent(), &x);
    let first = scalar(tape.gradient(&loss, &x).unwrap());
    assert_eq!(*seen.borrow(), Some(true));
    assert!(big_alive());
    assert_eq!(scalar(tape.gradient(&loss, &x).unwrap()), first);
    drop(tape);
    assert!(!big_alive(), "dropping the tape frees what it saved");
}

#[test]
fn gradient_inside_its_own_scope_persistent_records_it() {
    let x = Variable::new(3.0_f64);
    let tape = GradientTape::persistent();
    let d1 = tape.record(|| {
        let y = x.powi(3);
        tape.gradient(&y, &x).unwrap().unwrap()
    });
    // d/dx x³ = 3x² = 27; the gradient was recorded, so d/dx 3x² = 6x = 18 from one tape
    assert_eq!(d1.to_scalar(), 27.0);
    assert_eq!(scalar(tape.gradient(&d1, &x).unwrap()), 18.0);
}

#[test]
fn gradient_inside_its_own_scope_non_persistent_is_an_error() {
    let x = Variable::new(3.0_f64);
    let tape = GradientTape::new();
    let (y, inside) = tape.record(|| {
        let y = x.powi(3);
        let inside = tape.gradient(&y, &x);
        (y, inside)
    });
    let err = inside.unwrap_err();
    assert_eq!(err, TapeError::GradientWhileRecording);
    assert!(err.to_string().contains("persistent"), "{err}");
    // the refused call did not consume the tape
    assert_eq!(scalar(tape.gradient(&y, &x).unwrap()), 27.0);
}

#[test]
fn gradient_inside_stop_recording_of_a_non_persistent_tape_is_allowed() {
    let x = Variable::new(3.0_f64);
    let tape = GradientTape::new();
    let g = tape.record(|| {
        let y = x.powi(3);
        tape.stop_recording(|| tape.gradient(&y, &x))
    });
    assert_eq!(scalar(g.unwrap()), 27.0);
}

#[test]
fn reads_of_one_variable_across_an_assign_are_summed() {
    let v = Variable::new(2.0_f32);
    let tape = GradientTape::new();
    let y = tape.record(|| {
        let before = v.square();
        v.assign(5.0);
        let after = &v * 3.0;
        v.assign_add(1.0);
        let last = &v * 10.0;
        before + after + last
    });
    // d(v²)/dv at the first read (2·2 = 4) + 3 + 10; the assignments are not differentiated
    assert_eq!(scalar(tape.gradient(&y, &v).unwrap()), 17.0);
}

#[test]
fn result_dtype_is_the_source_dtype_through_f32_f64_casts() {
    let v64 = Variable::new(1.5_f64);
    let x32 = Tensor::scalar(2.0_f32);
    let tape = GradientTape::new();
    tape.watch(&x32);
    let y = tape.record(|| v64.value().cast::<f32>().square() + x32.cast::<f64>().powi(3).cast());
    let (g64, g32): (Option<Tensor<f64>>, Option<Tensor<f32>>) =
        tape.gradient(&y, (&v64, &x32)).unwrap();
    let (g64, g32) = (g64.unwrap(), g32.unwrap());
    assert_eq!(g64.dtype(), "f64");
    assert_eq!(g32.dtype(), "f32");
    // d/dv v² = 2v = 3; d/dx x³ = 3x² = 12
    assert_eq!(g64.to_scalar(), 3.0);
    assert_eq!(g32.to_scalar(), 12.0);
}

#[test]
fn gradient_through_an_int_to_float_cast_the_float_side_is_a_constant() {
    let labels = Tensor::from_vec(vec![1_i32, 2, 3], &[3]);
    let w = Variable::new(2.0_f32);
    let tape = GradientTape::persistent();
    let (as_float, y) = tape.record(|| {
        let as_float = labels.cast::<f32>();
        let y = (&as_float * &w).sum();
        (as_float, y)
    });
    // ∂/∂w Σ labels·w = Σ labels = 6; the cast result is a constant nobody watched
    let (gw, gf) = tape.gradient(&y, (&w, &as_float)).unwrap();
    assert_eq!(scalar(gw), 6.0);
    assert!(gf.is_none());
    // being a float tensor, it can be watched like any other
    let tape = GradientTape::new();
    tape.watch(&as_float);
    let y = tape.record(|| (&as_float * &w).sum());
    assert_eq!(
        tape.gradient(&y, &as_float).unwrap().unwrap().to_vec(),
        [2.0; 3]
    );
}

// ---------------------------------------------------------------------------------------
// Thread safety of the values (the tape itself is per-thread by design)
// ---------------------------------------------------------------------------------------

const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Variable<f32>>();
    send_sync::<Variable<f64>>();
    send_sync::<Variable<i64>>();
    send_sync::<Tensor<f32>>();
    send_sync::<Tensor<bool>>();
};

#[test]
fn tensors_and_variables_move_between_threads() {
    let w = Variable::new(3.0_f32);
    let data = Tensor::from_vec(vec![1.0_f32, 2.0], &[2]);
    let grad = std::thread::scope(|s| {
        s.spawn(|| w.assign(4.0)).join().unwrap();
        s.spawn(|| {
            let tape = GradientTape::new();
            let y = tape.record(|| (&data * &w).sum());
            tape.gradient(&y, &w).unwrap().unwrap()
        })
        .join()
        .unwrap()
    });
    // ∂/∂w Σ data·w = Σ data = 3, on a tape that lived on the other thread
    assert_eq!(grad.to_scalar(), 3.0);
    assert_eq!(w.value().to_scalar(), 4.0);
}

// ---------------------------------------------------------------------------------------
// Beyond the tables: pausing every tape (`without_recording`, used by optimizers and
// by `#[differentiable]`'s forward pass) must hold even for tapes opened or paused inside
// ---------------------------------------------------------------------------------------

#[test]
fn without_recording_suspends_outer_tapes_when_a_tape_opens_inside() {
    let x = Variable::new(3.0_f32);
    let outer = GradientTape::new();
    let (y, inner_grad) = outer.record(|| {
        without_recording(|| {
            let inner = GradientTape::new();
            let y = inner.record(|| x.square());
            let g = inner.gradient(&y, &x).unwrap().unwrap();
            (y, g)
        })
    });
    // the inner tape works as usual: 2x = 6
    assert_eq!(inner_grad.to_scalar(), 6.0);
    // the outer tape saw nothing: neither the read of x nor the op
    assert!(names(&outer).is_empty());
    assert!(outer.gradient(&y, &x).unwrap().is_none());
}

#[test]
fn without_recording_holds_when_a_tape_is_paused_inside() {
    let x = Variable::new(3.0_f32);
    let outer = GradientTape::new();
    let other = GradientTape::new();
    let y =
        outer.record(|| other.record(|| without_recording(|| other.stop_recording(|| x.square()))));
    assert!(!any_recording());
    assert!(outer.gradient(&y, &x).unwrap().is_none());
    assert!(other.gradient(&y, &x).unwrap().is_none());
}

/// Regression: a forward accumulator opened inside `without_recording` keeps a count of
/// recorders above zero, and the one tape on the stack was then found by every op (0-d or
/// not) and every variable read as if it recorded: the suspended tape recorded `sin` and
/// gave a gradient through it.
#[test]
fn without_recording_holds_for_an_accumulator_opened_inside() {
    for shape in [vec![], vec![2]] {
        let x = Tensor::from_vec(vec![0.5_f64; shape.iter().product()], &shape);
        let v = Variable::new(Tensor::from_vec(
            vec![0.7_f64; shape.iter().product()],
            &shape,
        ));
        let tape = GradientTape::persistent();
        tape.watch(&x);
        let (y, tangent) = tape.record(|| {
            without_recording(|| {
                let acc = ForwardAccumulator::new(&x, Tensor::<f64>::ones(&shape)).unwrap();
                let y = acc.record(|| x.sin() * v.value());
                let tangent = acc.jvp(&y).unwrap();
                (y, tangent)
            })
        });
        // the accumulator works as usual: d/dx sin(x) v = cos(x) v
        let want = 0.5_f64.cos() * 0.7;
        assert!(
            tangent.to_vec().iter().all(|t| (t - want).abs() < 1e-15),
            "{tangent}"
        );
        // the tape saw nothing: neither the op nor the read
        assert!(
            names(&tape).is_empty(),
            "shape {shape:?}: {:?}",
            names(&tape)
        );
        assert!(tape.gradient(&y, &x).unwrap().is_none());
        assert!(tape.gradient(&y, &v).unwrap().is_none());
    }
}

/// Every read of a variable is a new tensor (TensorFlow's `ReadVariableOp`): a value read
/// before the scope is a constant inside it, even though the variable itself is watched.
#[test]
fn variable_read_outside_the_scope_is_a_constant_inside_it() {
    let v = Variable::new(3.0_f32);
    let read_before = v.value();
    let tape = GradientTape::new();
    let y = tape.record(|| read_before.square() + v.value() * 2.0);
    // only the read inside contributes: d/dv (c² + 2v) = 2
    assert_eq!(tape.gradient(&y, &v).unwrap().unwrap().to_scalar(), 2.0);
}

/// Which nodes a sweep visits does not change which gradients exist: with every leaf of the
/// tape a source (where the sweep skips its relevance walk) and with only some of them, an
/// unconnected source is `None`, a connected one its derivative, repeated sources included.
#[test]
fn gradient_when_every_leaf_is_a_source_or_only_some() {
    let (x, y) = (Variable::new(0.5_f64), Variable::new(2.0_f64));
    let tape = GradientTape::persistent();
    let (only_x, both) = tape.record(|| (x.sin(), x.sin() * &y));
    // every leaf a source
    let [dx, dy] = tape.gradient(&only_x, [&x, &y]).unwrap();
    assert_eq!(scalar(dx), 0.5_f64.cos());
    assert!(dy.is_none(), "y does not lead to sin x");
    let [dx, dy] = tape.gradient(&both, [&x, &y]).unwrap();
    assert_eq!(scalar(dx), 2.0 * 0.5_f64.cos());
    assert_eq!(scalar(dy), 0.5_f64.sin());
    // some leaves, and one source twice
    let [dy, dy_again] = tape.gradient(&both, [&y, &y]).unwrap();
    assert_eq!(scalar(dy), 0.5_f64.sin());
    assert_eq!(scalar(dy_again), 0.5_f64.sin());
    assert!(tape.gradient(&only_x, &y).unwrap().is_none());
    // an intermediate as the only source: the leaves behind it are not needed
    let tape = GradientTape::new();
    let (s, z) = tape.record(|| {
        let s = x.sin();
        let z = s.square() + y.value();
        (s, z)
    });
    assert_eq!(scalar(tape.gradient(&z, &s).unwrap()), 2.0 * 0.5_f64.sin());
}

/// A dropped tape's buffers serve the next tape opened on the thread; nothing else carries
/// over: not its records (an old result is not on the new tape), not its watched variables,
/// not its settings (persistence either way).
#[test]
fn a_new_tape_starts_empty_whatever_the_last_one_did() {
    let (x, unused) = (
        Variable::with_name("x", 2.0_f64),
        Variable::with_name("unused", 1.0_f64),
    );
    let old = {
        let tape = GradientTape::new();
        let y = tape.record(|| x.square() + unused.value());
        assert_eq!(names(&tape), vec!["x", "unused"]);
        y
    };
    let tape = GradientTape::persistent();
    assert!(names(&tape).is_empty());
    let z = tape.record(|| x.sin());
    assert_eq!(names(&tape), vec!["x"]);
    assert!(
        tape.gradient(&old, &x).unwrap().is_none(),
        "old result not on this tape"
    );
    // persistent, though the tape it reuses was not: two gradients
    assert_eq!(scalar(tape.gradient(&z, &x).unwrap()), 2.0_f64.cos());
    assert_eq!(scalar(tape.gradient(&z, &x).unwrap()), 2.0_f64.cos());
    drop(tape);
    // and non-persistent again after a persistent one
    let tape = GradientTape::new();
    let z = tape.record(|| x.square());
    assert_eq!(scalar(tape.gradient(&z, &x).unwrap()), 4.0);
    assert_eq!(tape.gradient(&z, &x).unwrap_err(), TapeError::NotPersistent);
}

/// A record that owns memory (a closure rule's captures) is freed when the tape lets the
/// record go: by the sweep of a non-persistent tape, by `reset`, and when a persistent tape
/// is dropped. (Records that own nothing are forgotten in one step; this checks that the
/// owning ones never are.)
#[test]
fn records_that_own_memory_are_freed_when_released() {
    let captured = Rc::new(());
    let op = |x: &Tensor<f64>| {
        let marker = Rc::clone(&captured);
        gradtape::custom_gradient("doubled", &[x], move |inputs| {
            let value = &inputs[0] * 2.0;
            let backward = move |g: &Tensor<f64>| {
                let _kept = &marker;
                vec![Some(g * 2.0)]
            };
            (value, backward)
        })
    };
    let x = Tensor::scalar(3.0_f64);

    let tape = GradientTape::new();
    tape.watch(&x);
    let y = tape.record(|| op(&x).square());
    assert_eq!(
        Rc::strong_count(&captured),
        2,
        "the record holds the capture"
    );
    // d/dx (2x)² = 8x
    assert_eq!(scalar(tape.gradient(&y, &x).unwrap()), 24.0);
    assert_eq!(Rc::strong_count(&captured), 1, "the sweep frees it");

    let tape = GradientTape::persistent();
    tape.watch(&x);
    tape.record(|| op(&x));
    tape.reset();
    assert_eq!(Rc::strong_count(&captured), 1, "reset frees it");
    tape.watch(&x);
    let y = tape.record(|| op(&x));
    assert_eq!(scalar(tape.gradient(&y, &x).unwrap()), 2.0);
    assert_eq!(Rc::strong_count(&captured), 2, "a persistent tape keeps it");
    drop(tape);
    assert_eq!(Rc::strong_count(&captured), 1, "dropping the tape frees it");
}
