//! [`Variable`]: a named, shared, mutable slot holding a tensor, which tapes watch.

use std::cell::RefCell;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError};

use crate::base::dtype::{AnyTensor, DType, Float, is_float};
use crate::base::tensor::Tensor;
use crate::record::{forward, stack};

/// Creation order of variables, which `watched_variables` follows.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct VariableId(u64);

static NEXT_VARIABLE_ID: AtomicU64 = AtomicU64::new(0);

struct Slot<T: DType> {
    id: VariableId,
    name: String,
    trainable: AtomicBool,
    value: RwLock<Tensor<T>>,
}

/// A named, shareable, mutable slot holding a [`Tensor`]: the parameters of a model.
///
/// Clones share the slot (like `Arc`). Reading a trainable float variable inside
/// [`GradientTape::record`](crate::GradientTape::record) makes the tape watch it, and
/// gradients are keyed by the variable, summed over all of its reads.
///
/// Ops take variables directly, so TensorFlow's `3 * w1 ** 2 + 2 * w1 * w2` reads:
///
/// ```
/// use gradtape_runtime::{GradientTape, Variable};
/// let (w1, w2) = (Variable::new(5.0_f32), Variable::new(3.0_f32));
/// let tape = GradientTape::new();
/// let z = tape.record(|| 3.0 * w1.powi(2) + 2.0 * &w1 * &w2);
/// let [d1, d2] = tape.gradient(&z, [&w1, &w2]).unwrap();
/// assert_eq!((d1.unwrap().to_scalar(), d2.unwrap().to_scalar()), (36.0, 10.0));
/// ```
///
/// TensorFlow's pitfall of replacing a variable with a tensor (`x = x + 1` instead of
/// `x.assign_add(1)`, after which the gradient is silently `None`) is a type error here,
/// because `&x + 1.0` is a `Tensor`, not a `Variable`:
///
/// ```compile_fail
/// use gradtape_runtime::Variable;
/// let mut x = Variable::new(2.0_f32);
/// x = &x + 1.0; // error[E0308]: expected `Variable<f32>`, found `Tensor<f32>`
/// ```
///
/// Update it in place instead: `x.assign_add(1.0)`.
pub struct Variable<T: DType> {
    slot: Arc<Slot<T>>,
}

impl<T: DType> Clone for Variable<T> {
    fn clone(&self) -> Self {
        Variable {
            slot: Arc::clone(&self.slot),
        }
    }
}

impl<T: DType> Variable<T> {
    /// A trainable variable holding `initial` (a tensor or a plain scalar), named
    /// `"Variable"` as in TensorFlow.
    ///
    /// ```
    /// use gradtape_runtime::{Tensor, Variable};
    /// let b = Variable::new(Tensor::<f32>::zeros(&[2]));
    /// let s = Variable::new(3.0_f64);
    /// assert_eq!(b.shape(), vec![2]);
    /// assert_eq!(s.name(), "Variable");
    /// ```
    pub fn new(initial: impl Into<Tensor<T>>) -> Variable<T> {
        Variable::build(initial.into(), "Variable".to_string(), true)
    }

    /// A trainable variable with a name (used by `watched_variables` and checkpoints).
    ///
    /// ```
    /// use gradtape_runtime::Variable;
    /// assert_eq!(Variable::with_name("x0", 3.0_f32).name(), "x0");
    /// ```
    pub fn with_name(name: impl Into<String>, initial: impl Into<Tensor<T>>) -> Variable<T> {
        Variable::build(initial.into(), name.into(), true)
    }

    /// The same variable (builder style; clones share the setting) marked trainable or
    /// not. Tapes do not watch non-trainable variables unless told to with `watch`; one
    /// created inside a recording scope and marked non-trainable there is not watched.
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, Variable};
    /// let tape = GradientTape::new();
    /// let x1 = tape.record(|| Variable::with_name("x1", 3.0_f32).trainable(false));
    /// assert!(!x1.is_trainable());
    /// assert!(tape.watched_variables().is_empty());
    /// ```
    pub fn trainable(self, trainable: bool) -> Variable<T> {
        self.slot.trainable.store(trainable, Ordering::Relaxed);
        if trainable {
            self.notify();
        } else if stack::any_recording()
            && let Some(any_var) = AnyVariable::try_from_typed(&self)
        {
            // Creation inside the scope auto-watched it while it was still trainable.
            stack::variable_became_untrainable(&any_var);
        }
        self
    }

    fn build(value: Tensor<T>, name: String, trainable: bool) -> Variable<T> {
        let id = VariableId(NEXT_VARIABLE_ID.fetch_add(1, Ordering::Relaxed));
        let var = Variable {
            slot: Arc::new(Slot {
                id,
                name,
                trainable: AtomicBool::new(trainable),
                value: RwLock::new(value),
            }),
        };
        // A variable created inside a recording scope is watched, as in TensorFlow.
        var.notify();
        var
    }

    /// The variable's name.
    ///
    /// ```
    /// use gradtape_runtime::Variable;
    /// assert_eq!(Variable::with_name("kernel", 0.0_f32).name(), "kernel");
    /// ```
    pub fn name(&self) -> &str {
        &self.slot.name
    }

    /// Whether tapes watch this variable automatically.
    ///
    /// ```
    /// use gradtape_runtime::Variable;
    /// assert!(Variable::new(1.0_f32).is_trainable());
    /// ```
    pub fn is_trainable(&self) -> bool {
        self.slot.trainable.load(Ordering::Relaxed)
    }

    /// The creation-order identity of this variable.
    pub fn id(&self) -> VariableId {
        self.slot.id
    }

    /// The shape of the current value.
    ///
    /// ```
    /// use gradtape_runtime::{Tensor, Variable};
    /// assert_eq!(Variable::new(Tensor::<f32>::zeros(&[3, 2])).shape(), vec![3, 2]);
    /// ```
    pub fn shape(&self) -> Vec<usize> {
        self.peek().shape().to_vec()
    }

    /// Reads the current value. Inside a recording scope this is a read the tape sees: a
    /// trainable variable becomes watched and the value is tracked as one of its reads.
    ///
    /// Every read is a new tensor (TensorFlow's `ReadVariableOp`): a value read before a
    /// scope and used inside it is a constant there, not a path to the variable.
    ///
    /// ```
    /// use gradtape_runtime::{GradientTape, Variable};
    /// let v = Variable::new(2.0_f32);
    /// assert_eq!(v.value().to_scalar(), 2.0);
    /// let read_before = v.value();
    /// let tape = GradientTape::new();
    /// let y = tape.record(|| &read_before * &v);
    /// // only the read inside the scope leads back to v: dy/dv = read_before = 2
    /// assert_eq!(tape.gradient(&y, &v).unwrap().unwrap().to_scalar(), 2.0);
    /// ```
    pub fn value(&self) -> Tensor<T> {
        let data = self.peek().into_data();
        if stack::any_recording() && is_float::<T>() {
            // Each read is a new tensor (TensorFlow's `ReadVariableOp`); the innermost tape
            // that tracks it names it, so finding it later needs no hashing.
            let erase = || AnyVariable::try_from_typed(self).expect("a float variable");
            let value = match stack::variable_read(self.id(), self.is_trainable(), erase) {
                Some(id) => Tensor::with_id(id, data),
                None => Tensor::from_data(data),
            };
            if forward::accumulating() {
                forward::variable_read(self.id(), value.id());
            }
            return value;
        }
        Tensor::from_data(data)
    }

    /// The current value without telling any tape (for optimizers and checkpoints).
    ///
    /// # Panics
    /// Inside this variable's own in-place update (see [`Variable::read_slot`]).
    pub(crate) fn peek(&self) -> Tensor<T> {
        self.read_slot().clone()
    }

    /// The value's lock, read. A panic poisons nothing here: every writer leaves a whole
    /// value behind (at worst a partly updated one, as documented).
    ///
    /// # Panics
    /// Inside this variable's own `update_*` closure on this thread, where waiting for the
    /// lock the update holds would wait forever.
    fn read_slot(&self) -> RwLockReadGuard<'_, Tensor<T>> {
        match self.slot.value.try_read() {
            Ok(value) => value,
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
            // Only when contended: no cost on the usual path.
            Err(TryLockError::WouldBlock) => {
                self.check_not_updating();
                self.slot.value.read().unwrap_or_else(|e| e.into_inner())
            }
        }
    }

    /// The value's lock, written. As [`read_slot`](Self::read_slot).
    fn write_slot(&self) -> RwLockWriteGuard<'_, Tensor<T>> {
        match self.slot.value.try_write() {
            Ok(value) => value,
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
            Err(TryLockError::WouldBlock) => {
                self.check_not_updating();
                self.slot.value.write().unwrap_or_else(|e| e.into_inner())
            }
        }
    }

    /// Panics, naming the variable and the method, if this thread is inside an in-place
    /// update of this variable (whose closure is using it).
    fn check_not_updating(&self) {
        if let Some(method) = updating(self.slot_key()) {
            panic!(
                "Variable::{method}: variable '{}' was used (read, formatted or assigned) inside \
                 its own {method} closure, which holds the value until it returns; read it \
                 before the update, or use the closure's arguments",
                self.slot.name
            );
        }
    }

    /// This variable's slot, as a key for [`UPDATING`].
    fn slot_key(&self) -> usize {
        Arc::as_ptr(&self.slot) as *const () as usize
    }

    /// Replaces the value. The shape may not change (as in TensorFlow).
    ///
    /// ```
    /// use gradtape_runtime::Variable;
    /// let v = Variable::new(2.0_f32);
    /// v.assign(5.0);
    /// assert_eq!(v.value().to_scalar(), 5.0);
    /// ```
    ///
    /// # Panics
    /// If the new value's shape differs from the variable's.
    #[track_caller]
    pub fn assign(&self, value: impl Into<Tensor<T>>) {
        let value = value.into();
        let mut slot = self.write_slot();
        let fresh = Tensor::from_data(value.into_data());
        assert!(
            crate::base::tensor::same_shape(slot.shape(), fresh.shape()),
            "Variable::assign: variable '{}' has shape {:?}, the new value has shape {:?}",
            self.slot.name,
            slot.shape(),
            fresh.shape()
        );
        // A fresh identity: gradients do not flow through `assign`, as in TensorFlow.
        *slot = fresh;
        drop(slot);
        self.notify();
    }

    /// Updates the value elementwise in place: `f` gets each element, mutably, in row-major
    /// order. Like [`assign`](Self::assign) the result is a new value (a new identity, not
    /// recorded); unlike it, when no tensor shares the value's storage (no earlier read is
    /// still alive) the storage is reused instead of allocating a second buffer, which is
    /// what optimizers want for large weights. Tensors read before are never changed: if
    /// one still shares the storage, the update works on a copy.
    ///
    /// ```
    /// use gradtape_runtime::{Tensor, Variable};
    /// let v = Variable::new(Tensor::from_vec(vec![1.0_f32, 2.0], &[2]));
    /// let before = v.value();
    /// v.update_each(|w| *w *= 10.0);
    /// assert_eq!(v.value().to_vec(), vec![10.0, 20.0]);
    /// assert_eq!(before.to_vec(), vec![1.0, 2.0]); // reads are values, not views
    /// ```
    ///
    /// # Panics
    /// If `f` uses this variable (reads, formats or assigns it): the update holds its value
    /// until `f` returns. The message names the variable.
    pub fn update_each(&self, mut f: impl FnMut(&mut T)) {
        self.update_as("update_each", |mut array| array.iter_mut().for_each(&mut f));
    }

    /// [`update_each`](Self::update_each) with the whole array at once, as a mutable view
    /// (to zip it with gradients and optimizer state). If `f` panics, the value may be
    /// partly updated.
    ///
    /// ```
    /// use gradtape_runtime::{Tensor, Variable};
    /// let v = Variable::new(Tensor::from_vec(vec![1.0_f64, 2.0], &[2]));
    /// let g = ndarray::arr1(&[0.5, 0.5]).into_dyn();
    /// v.update_array(|w| ndarray::Zip::from(w).and(&g).for_each(|w, &g| *w -= g));
    /// assert_eq!(v.value().to_vec(), vec![0.5, 1.5]);
    /// ```
    ///
    /// # Panics
    /// As [`update_each`](Self::update_each).
    pub fn update_array(&self, f: impl FnOnce(ndarray::ArrayViewMutD<'_, T>)) {
        self.update_as("update_array", f);
    }

    /// [`update_array`](Self::update_array), named `method` in the message if `f` uses the
    /// variable.
    fn update_as(&self, method: &'static str, f: impl FnOnce(ndarray::ArrayViewMutD<'_, T>)) {
        let mut slot = self.write_slot();
        // Until `f` returns (or unwinds), a use of this variable on this thread is a misuse
        // that would deadlock: `check_not_updating` finds this mark.
        let mark = UpdateMark::enter(self.slot_key(), method);
        // Shared with some tensor, or a reshape: the slot gets an array of the variable's
        // own first (a reshape's base itself when nothing else holds it), before `f` runs,
        // so that a panic in `f` leaves a value there.
        f(slot.elements_mut());
        drop(mark);
        // A fresh identity, as for `assign`.
        *slot = Tensor::from_data(slot.data_clone());
        drop(slot);
        self.notify();
    }
}

impl<T: DType> Variable<T> {
    /// Updates the value in place from `other`, element by element: `f(w, x)` gets each
    /// element `w` of the value, mutably, and the element `x` of `other` at the same
    /// position. In place as [`update_each`](Self::update_each) is (the same rules about
    /// earlier reads hold); a large value is updated on two threads, which is why `f` must
    /// be `Sync`. This is an optimizer's step: `w ← w - lr · g`.
    ///
    /// ```
    /// use gradtape_runtime::{Tensor, Variable};
    /// let w = Variable::new(Tensor::from_vec(vec![1.0_f32, 2.0], &[2]));
    /// let g = Tensor::from_vec(vec![10.0_f32, 20.0], &[2]);
    /// w.update_zip(&g, |w, g| *w -= 0.1 * g);
    /// assert_eq!(w.value().to_vec(), vec![0.0, 0.0]);
    /// ```
    ///
    /// # Panics
    /// If `other`'s shape is not the value's, or as [`update_each`](Self::update_each) if
    /// `f` uses this variable.
    #[track_caller]
    pub fn update_zip(&self, other: &Tensor<T>, f: impl Fn(&mut T, T) + Sync) {
        let shape = self.shape();
        assert!(
            crate::base::tensor::same_shape(&shape, other.shape()),
            "Variable::update_zip: the value has shape {shape:?} but the other tensor has shape {:?}",
            other.shape()
        );
        let x = other.view();
        let key = self.slot_key();
        self.update_as("update_zip", |mut w| {
            match (w.as_slice_mut(), x.as_slice()) {
                (Some(ws), Some(xs)) => zip_slices(ws, xs, &f, key),
                _ => ndarray::Zip::from(w).and(&x).for_each(|w, &x| f(w, x)),
            }
        });
    }

    /// Tells the recording tapes about an access; integer variables are never watched.
    /// Tells the recording tapes that this variable was created or assigned (not read).
    fn notify(&self) {
        if !stack::any_recording() {
            return;
        }
        // Integer variables are never watched.
        if !is_float::<T>() {
            return;
        }
        let erase = || AnyVariable::try_from_typed(self).expect("a float variable");
        stack::variable_accessed(self.id(), self.is_trainable(), erase);
    }
}

impl<T: DType> From<T> for Tensor<T> {
    /// A scalar tensor, so plain numbers can be used where a tensor is expected.
    fn from(value: T) -> Tensor<T> {
        Tensor::scalar(value)
    }
}

impl<T: DType> fmt::Debug for Variable<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Variable('{}', {})", self.slot.name, self.peek())
    }
}

impl<T: DType> fmt::Display for Variable<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// A float variable of either dtype, as `watched_variables` returns them.
///
/// ```
/// use gradtape_runtime::{GradientTape, Variable};
/// let x0 = Variable::with_name("x0", 3.0_f32);
/// let tape = GradientTape::new();
/// tape.record(|| x0.square());
/// let names: Vec<String> = tape.watched_variables().iter().map(|v| v.name().to_string()).collect();
/// assert_eq!(names, ["x0"]);
/// ```
#[derive(Clone, Debug)]
pub enum AnyVariable {
    /// An `f32` variable.
    F32(Variable<f32>),
    /// An `f64` variable.
    F64(Variable<f64>),
}

impl AnyVariable {
    /// The variable's name.
    pub fn name(&self) -> &str {
        match self {
            AnyVariable::F32(v) => v.name(),
            AnyVariable::F64(v) => v.name(),
        }
    }

    /// The variable's creation-order identity.
    pub fn id(&self) -> VariableId {
        match self {
            AnyVariable::F32(v) => v.id(),
            AnyVariable::F64(v) => v.id(),
        }
    }

    /// Whether tapes watch it automatically.
    pub fn trainable(&self) -> bool {
        match self {
            AnyVariable::F32(v) => v.is_trainable(),
            AnyVariable::F64(v) => v.is_trainable(),
        }
    }

    /// The current value, without telling any tape.
    pub(crate) fn peek(&self) -> AnyTensor {
        match self {
            AnyVariable::F32(v) => AnyTensor::F32(v.peek()),
            AnyVariable::F64(v) => AnyTensor::F64(v.peek()),
        }
    }

    /// Erases a typed variable if its dtype is a float; `None` for integer variables.
    fn try_from_typed<T: DType>(var: &Variable<T>) -> Option<AnyVariable> {
        let any: &dyn std::any::Any = var;
        if let Some(v) = any.downcast_ref::<Variable<f32>>() {
            Some(AnyVariable::F32(v.clone()))
        } else {
            any.downcast_ref::<Variable<f64>>()
                .map(|v| AnyVariable::F64(v.clone()))
        }
    }
}

impl<T: Float> From<Variable<T>> for AnyVariable {
    /// Moves `var` in: no second count of its slot is taken and given back (a gradient's
    /// sources are erased this way once per variable per call).
    #[inline]
    fn from(var: Variable<T>) -> AnyVariable {
        let mut var = Some(var);
        let any: &mut dyn std::any::Any = &mut var;
        if let Some(v) = any.downcast_mut::<Option<Variable<f32>>>() {
            return AnyVariable::F32(v.take().expect("just set"));
        }
        let v = any.downcast_mut::<Option<Variable<f64>>>();
        AnyVariable::F64(
            v.and_then(Option::take)
                .expect("every Float dtype is f32 or f64"),
        )
    }
}

impl AnyTensor {
    /// Erases a typed tensor if its dtype is a float; `None` for integer tensors.
    pub(crate) fn try_from_typed<T: DType>(t: &Tensor<T>) -> Option<AnyTensor> {
        let any: &dyn std::any::Any = t;
        if let Some(t) = any.downcast_ref::<Tensor<f32>>() {
            Some(AnyTensor::F32(t.clone()))
        } else {
            any.downcast_ref::<Tensor<f64>>()
                .map(|t| AnyTensor::F64(t.clone()))
        }
    }
}

/// From this many elements an update is split over two threads: 2¹⁶ take ~10 µs on one
/// core (W4's 784x128 kernel is 100,352), well above a hand-over's cost.
const SPLIT_UPDATE: usize = 1 << 16;

/// `f(w, x)` over two equally long slices, on two threads when long enough to pay; `key`:
/// the variable being updated (the helper thread marks it too, see [`UpdateMark`]).
fn zip_slices<T: DType>(ws: &mut [T], xs: &[T], f: &(impl Fn(&mut T, T) + Sync), key: usize) {
    let each = |ws: &mut [T], xs: &[T]| ws.iter_mut().zip(xs).for_each(|(w, &x)| f(w, x));
    if ws.len() < SPLIT_UPDATE || !crate::base::parallel::can_split() {
        return each(ws, xs);
    }
    let mid = ws.len() / 2;
    let ((w1, w2), (x1, x2)) = (ws.split_at_mut(mid), xs.split_at(mid));
    crate::base::parallel::join_halves(
        || each(w1, x1),
        || {
            let _mark = UpdateMark::enter(key, "update_zip");
            each(w2, x2)
        },
    );
}

thread_local! {
    /// The variables this thread is updating in place (slot address, method), innermost
    /// last. Read only when a variable's lock is contended, to tell a closure using its own
    /// variable (a deadlock) from another thread's update (a wait).
    static UPDATING: RefCell<Vec<(usize, &'static str)>> = const { RefCell::new(Vec::new()) };
}

/// The method of the update of the variable `key` this thread is inside, if any.
fn updating(key: usize) -> Option<&'static str> {
    UPDATING
        .try_with(|marks| {
            let marks = marks.borrow();
            marks
                .iter()
                .rev()
                .find(|&&(k, _)| k == key)
                .map(|&(_, m)| m)
        })
        .ok()
        .flatten()
}

/// Marks this thread as inside an update of one variable until dropped (also on unwind).
struct UpdateMark;

impl UpdateMark {
    fn enter(key: usize, method: &'static str) -> UpdateMark {
        UPDATING.with(|marks| marks.borrow_mut().push((key, method)));
        UpdateMark
    }
}

impl Drop for UpdateMark {
    fn drop(&mut self) {
        // During thread teardown the list may be gone, and with it the mark.
        let _ = UPDATING.try_with(|marks| marks.borrow_mut().pop());
    }
}
