//! The guide to `#[differentiable]`: what it differentiates, how, what it generates, and
//! what it rejects.
//!
//! `#[differentiable]` rewrites a function at compile time into forward code that keeps
//! what its derivative needs, plus the adjoint (the pullback) derived from the function's
//! own syntax, statement by statement, as Tapenade, Clad and Enzyme do. Every example on
//! this page runs as a test.
//!
//! # Two modes
//!
//! **Scalar mode**: a function of plain `f32`/`f64` numbers (and any other parameters, held
//! constant) is differentiated with no tape at all. Its companion items give the gradient
//! and a forward derivative that allocate nothing in straight-line code:
//!
//! ```
//! use gradtape::differentiable;
//!
//! #[differentiable]
//! fn scaled_sin(x: f64, a: f64) -> f64 {
//!     a * x.sin()
//! }
//!
//! let (x, a) = (0.5_f64, 2.0);
//! // value and gradient, one entry per float parameter
//! let (value, [dx, da]) = scaled_sin::grad(x, a);
//! assert_eq!(value, a * x.sin());
//! assert_eq!((dx, da), (a * x.cos(), x.sin()));
//! // value and pullback: the cotangent of the result in, one `Option` per parameter out
//! let (_, pullback) = scaled_sin::vjp(x, a);
//! assert_eq!(pullback(1.0), (Some(a * x.cos()), Some(x.sin())));
//! // forward mode: one tangent per float parameter after the parameters
//! assert_eq!(scaled_sin::jvp(x, a, 1.0, 0.0), (value, a * x.cos()));
//! // the body as written, and the function itself
//! assert_eq!((scaled_sin::primal(x, a), scaled_sin(x, a)), (value, value));
//! ```
//!
//! **Tensor mode**: a function that takes tensors or `&Variable`s records **one** node on
//! the tapes that watch its inputs, whose backward rule is the generated adjoint; the
//! gradients are those of the same body recorded op by op (`f::primal`):
//!
//! ```
//! use gradtape::{GradientTape, Tensor, Variable, differentiable};
//!
//! #[differentiable]
//! fn squared_error(w: &Variable<f64>, x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
//!     let prediction = x.matmul(w).sigmoid();
//!     (&prediction - y).square().mean()
//! }
//!
//! let w = Variable::new(Tensor::from_vec(vec![0.5, -0.25], &[2, 1]));
//! let x = Tensor::from_vec(vec![1.0, 2.0, -1.0, 0.5], &[2, 2]);
//! let y = Tensor::from_vec(vec![1.0, 0.0], &[2, 1]);
//! let gradient = |f: &dyn Fn() -> Tensor<f64>| {
//!     let tape = GradientTape::new();
//!     let loss = tape.record(f);
//!     tape.gradient(&loss, &w).unwrap().unwrap().to_vec()
//! };
//! let fused = gradient(&|| squared_error(&w, &x, &y));
//! let op_by_op = gradient(&|| squared_error::primal(&w, &x, &y));
//! for (a, b) in fused.iter().zip(&op_by_op) {
//!     assert!((a - b).abs() < 1e-15);
//! }
//! ```
//!
//! Where every differentiable input of a tensor-mode call is 0-d and the body is
//! elementwise, the call runs the generated code on plain numbers and still records one
//! node. A function whose parameters may hold tensors the node would not see (a struct, a
//! slice or `Vec` of tensors, a nested model), or whose body reads a variable that is no
//! parameter, runs its body op by op on the caller's tapes instead, so no gradient is
//! silently `None` (see [Structs](#structs)).
//!
//! # The companion items
//!
//! Beside `fn f`, the attribute writes a type `f` (the function and the type share the
//! name, as a tuple struct and its constructor do):
//!
//! | item | mode | what it is |
//! | --- | --- | --- |
//! | `f(..)` | both | the function: the body as written when nothing records, one node on the tapes otherwise |
//! | `f::vjp(..)` | both | `(value, pullback)`; the pullback maps the result's cotangent to one entry per parameter: `Option` of a cotangent for a differentiable one, `()` for a constant; for a function writing `&mut [F]` outputs it also takes each output's cotangent, a `&mut [F]` it updates in place (as `grad_into` does), and gives `()` for the output |
//! | `f::grad(..)` | scalar, one result | `(value, gradient)`: an array of the float parameters' partial derivatives in order (a tuple when their types differ) |
//! | `f::grad_into(.., buffers..)` | scalar, with array parameters | the value; each array parameter's gradient added into a buffer the caller owns, nothing allocated for it |
//! | `f::jvp(.., tangents..)` | both | `(value, tangent)`: the directional derivative, one tangent per differentiable parameter (a `&Tensor` in tensor mode); what an annotated call's node computes under a `ForwardAccumulator` |
//! | `f::primal(..)` | both | the body as written, never fused: the reference the tests compare against |
//! | `f::GENERATED` | both | the generated code, formatted, as a `&str` |
//!
//! # What a body may contain
//!
//! - `let` (shadowing, `let mut`, type annotations), assignment and compound assignment to
//!   locals and `mut` parameters, tuple patterns (`let (x, v) = (x + dt * v, v - dt * x);`
//!   reads the old values), `.0`/`.1` of tuples, read and written (`t.0 = t.0 * t.1;`),
//!   a tuple assigned whole (`w = (w.0 * z.0 - w.1 * z.1, w.0 * z.1 + w.1 * z.0);`, the
//!   values read before any part is written), and `match t { .. }` on a local tuple;
//! - arithmetic with literals on either side, and `as f32`/`as f64` between float types;
//! - the float methods under their `f64` names (`sin`, `exp`, `ln_1p`, `powf` with a
//!   differentiable exponent, `atan2`, `hypot`, `mul_add`, `clamp`, `max`/`min`,
//!   `to_degrees`/`to_radians`, `let (s, c) = x.sin_cos();`, `a % b` and `a %= b`,
//!   `rem_euclid`, `fract`, `copysign`, ...; `signum`, `floor`, `ceil`, `round`, `trunc`,
//!   `div_euclid` and casts to integers are constants; a remainder's derivative is 1 in the
//!   dividend and minus the integer quotient in the divisor, at a jump that of the piece
//!   whose value it returns, as `floor`'s zero), and
//!   on tensors every op of the runtime's vocabulary of primitives (`gradtape-primitives`:
//!   each op's forward, VJP and JVP rules are one row, which the attribute reads, so a new
//!   op needs no change to the macro) and the ops built from them (`logsumexp`, `norm`,
//!   `prod`, `stack`, ...);
//! - `if`/`else`, `match` (guards, bindings, enums, `Option`, tuples, slice patterns of
//!   names such as `[a, b]` and `[first, .., last]`, and a sub-slice bound by reference,
//!   `[head, rest @ ..]`, read as a view of the array), `if let`,
//!   `while let` (also `while let Some(v) = it.next()` of an iterator bound by `let` and
//!   used for nothing else: the `for` loop it is), `let ... else` (also on an element,
//!   `let Some(&v) = x.get(i) else { .. };`, `first()`, `last()`), `for` over a range or
//!   any iterator of constants, `while`, `loop`, `break` (with a value, labelled),
//!   labelled blocks (`'a: { .. break 'a v; .. }`, run as a `loop` whose body runs once),
//!   `continue`, and `return` anywhere;
//! - let chains, `if let Some(&s) = x.get(3) && s > 0.0 { .. } else { .. }` (any mix of
//!   `let`s and conditions, also in `while`): nested `if let`s, a `match` with a guard,
//!   or, when a `let` is not first, the chain's branch marked taken (by a flag, or by
//!   holding its value in an option) so that the `else` is written once;
//! - `let (a, b) = if .. { (..) } else { (..) };` and the same with `match`: each branch's
//!   tuple is assigned part by part; so is a destructuring assignment, `(lo, hi) = if ..
//!   { (..) } else { (..) };`. `[a, b] = [b, a];`, `[a, b] = arr;`, and `(a, b) = t;` of
//!   a tuple by name, field, `*r` or `table[i]` are assigned element by element, every
//!   element read before any is assigned; a place with a computed index, `(p, q) =
//!   table[i + 1];`, is read once into a local first;
//! - a block, a branch with statements or a `loop` that tests differentiable values but
//!   gives a constant, `let n = { let mut c = 0; for v in x { if *v > 0.0 { c += 1; } } c
//!   };` (a count, an index found by a search, a flag): a constant, as written (its
//!   derivative is zero wherever it has one), decided on what lowering finds the block
//!   gives on every path; a block that gives a float built from the values on some path
//!   is differentiable; so are positions and orderings decided by comparisons, a
//!   `binary_search_by`/`partition_point` over a differentiable array (its closure may
//!   test differentiable values, not write them) and `partial_cmp`/`total_cmp`;
//! - in scalar mode, a part of a float array bound by name, `let tail = &x[1..];` (or by a
//!   slice pattern, `rest @ ..`), read as a view of the array (`tail[k]`, `tail.len()`,
//!   the iterator forms over it, and any part of it, `tail[1..]`, `tail[..2]`,
//!   `tail[i..=j]`, itself a view, bound by `let` or iterated); each read and each part's
//!   end is checked against the view's own length, so a read past its end panics as the
//!   body does, with the slice's message. A window or chunk's parts (`w[..2]`) are read
//!   the same way; `let y = x;` of a borrowed array parameter is the view of the whole,
//!   `&x[..]`, and `let (head, tail) = x.split_at(k);` two views, `&x[..k]` and `&x[k..]`;
//!   `while let Some(v) = x.get(i)` is the `loop` with a `match` on the element Rust makes
//!   of it, and `std::mem::swap(&mut p, &mut q)` of differentiable locals the assignment
//!   `(p, q) = (q, p)`. A sub-slice assigned again (`s = rest;`, walking an array) is rejected;
//! - in scalar mode, an enum value built in the body and only matched: `let shape = if c
//!   { Shape::Circle(r) } else { Shape::Square(s) };` (any `if`/`match`/block ending in
//!   variants, also reassigned, `shape = match shape { .. };`), read by `match shape { ..
//!   }` or `if let` with arms binding its fields by name: it becomes a tag and a local per
//!   field (`shape_tag`, `shape_v0_0`), read only where the tag says the variant is built.
//!   Every variant built must be named by some arm (a pattern names only variants). A
//!   field of a constant (a `&Config`, a closure, a struct deriving nothing) may be of any
//!   type: it is held in an `Option` (a float field holds its `Default` while another
//!   variant is built). A local array of them, `let shapes = [Shape::Circle(x[0]),
//!   Shape::Square(x[1])];` (or `vec![..]`), iterated by a `for` loop, `for s in &shapes`
//!   (or `shapes.iter()`, or by value) whose item is only matched, is the loop over its
//!   positions, each item built as its iteration starts from the payloads bound once in
//!   the order written (an arm of `match s` binds the fields by reference, as through
//!   `&Shape`); `shapes.len()` is the literal's count. An enum value passed on, returned,
//!   copied or matched by reference is rejected, and so is an array of them used
//!   otherwise;
//! - in scalar mode, an in-place sort of a float array of the body (a local copy, `let
//!   mut v = x.to_vec();`, a buffer, a `&mut` parameter): `v.sort_by(|a, b| ..)`,
//!   `sort_unstable_by`, `sort_by_key`, `sort_unstable_by_key`, `sort_by_cached_key`, and
//!   `select_nth_unstable_by(k, ..)` (or `_by_key`) called as a statement, read by
//!   `*v.select_nth_unstable_by(k, ..).1`, or destructured, `let (lo, m, hi) =
//!   v.select_nth_unstable_by(k, ..);`, `m` read as `*m` (the element at `k`) and `lo`,
//!   `hi` as the parts on each side (its result held otherwise is not followed: read
//!   `v[k]` after it). The permutation
//!   the values decide (piecewise, like `max`): the body's own call runs on a copy of the
//!   values, so the arrangement is the body's bit for bit whatever the algorithm does with
//!   ties (an unstable sort's order of `-0.0` and `0.0` under `partial_cmp`, or of `-2.0`
//!   and `2.0` under a key `abs`), each position is paired with the input holding its
//!   bits, and the elements are moved there by swaps, their cotangents following them.
//!   Of identical inputs (same bits), which takes which place is a convention (the
//!   derivative at such a tie has no one value): the first of them the first place, as a
//!   stable sort keeps them. The comparison or key runs exactly as often as in the body;
//! - in scalar mode, `max_by`/`min_by` over a float array (`a.iter()`, then `copied`,
//!   `rev`, `skip`, `take`, `step_by`, and a last `map`), by a comparison (a closure that
//!   is not `move`, or a path like `f64::total_cmp`) or a key (`max_by_key`,
//!   `min_by_key`), read by `unwrap`, `expect`, `*..unwrap()` over references, `match` or
//!   `if let` where its statement evaluates it first: the loop of the iterator's fold,
//!   each item compared with the one kept by `std::cmp::max_by`/`min_by` themselves, so
//!   the element kept is the iterator's (`max_by` the last of equal maxima, `min_by` the
//!   first of equal minima, `total_cmp`'s `-0.0 < 0.0` and NaNs at the ends), and its
//!   cotangent goes to that element. With its position, an argmax, `let (i, v) =
//!   a.iter().enumerate().max_by(|p, q| p.1.total_cmp(q.1)).unwrap();` (also `copied`
//!   before `enumerate`, `min_by`, a key, `expect`, or the position alone through
//!   `.map(|(i, _)| i)`) is the same loop over the positions, each item `(k, &a[k])`
//!   compared as the iterator compares them, the position a constant and the element
//!   read where it is kept. `reduce` over values (`x.iter().copied()
//!   .reduce(f64::max)`, `.reduce(|a, b| a + b)`, after a last `map`), read the same ways
//!   and by `unwrap_or`, is the loop of its fold from the first item (`None` on an empty
//!   array, as the iterator's); over `x.iter()` (a reference to an element as its value,
//!   `*x.iter().reduce(|a, b| if a > b { a } else { b }).unwrap()`, `.copied()`,
//!   `Some(&v)`) the step, whose parameters are plain names, runs on the values they
//!   refer to (`*a` read as `a`), keeping the element it returns; such an option read by
//!   `.map(|m| ..).unwrap_or(d)` is the `match` it stands for (also in generic code, the
//!   default `T::zero()` or `T::from(0.5).unwrap()`: constants, no call with effects), and
//!   used otherwise (`.map(..)` of the reference held) is rejected: write `.copied()` first.
//!   `f64::max` in a `fold` or a `reduce` is the op `max`, whose ties (the cotangent to its
//!   first operand, the value kept) and NaNs are its own;
//! - in scalar mode, `Option`s of differentiable numbers held in a local (`let mut best =
//!   None;`, `best = Some(v);`, `Some`/`None` from branches) and read by `match` (guards
//!   and bindings), `if let`, `let Some(v) = best else { .. }`, `unwrap_or`, `unwrap`,
//!   `expect`, `is_some`, `is_none`, `map_or`: the local becomes a flag and a value
//!   (`best_is_some`, `best_value`), read only where the flag is set. An option of a
//!   constant of any type (`Some(&config)`, a pair holding a reference) is split the same
//!   way, its value held in an `Option`. A local initialised by a call of a function with
//!   an `Option` result is one too (see "Options as results"). An option passed on or
//!   copied is rejected. `o.unwrap_or(d)` of an option the body does not build (a parameter, a
//!   field, also a `Result`) with a differentiable default is the `match` it stands for;
//! - in scalar mode, a local struct read and written field by field, as an integrator
//!   keeps its state (`let mut s = State { x: x0, v: 0.0 };`, `s.v -= dt * k * s.x;`,
//!   `s.x += dt * s.v;`, `s = State { x: .., v: .. };` with every field, or `s =
//!   step(&s, dt);` passing it whole to an annotated function returning the struct, see
//!   [Structs as results](#structs-as-results)), copied (`let prev = s;`, then split in
//!   its turn) or updated by `State { v: .., ..s }`: it is split into one local per field
//!   before lowering, each with its own shadow. An annotated method called on it,
//!   `s.energy(k)`, `s = s.step(dt);` (`&self` or `self`), gets the receiver built again
//!   from the fields' locals, given to the method field by field; a local whose fields
//!   are all constants keeps its methods as written (any method: `&mut self`, one lending
//!   from `self`). A struct returned, or passed whole to a function or method that is not
//!   annotated, is rejected (keep the fields as locals, or pass them as separate
//!   parameters);
//! - a condition (of an `if` or a `while`, a match guard) runs as written, a constant: it may read
//!   differentiable values and call searches (`while x.iter().any(|&v| v * s > t)`), but
//!   an assignment of a differentiable value inside it is rejected (make it a statement
//!   before the condition);
//! - calls of other annotated functions (through their `vjp`, or `jvp` in forward mode; a
//!   tuple result may be destructured, a method's too: `let (f, e) = self.stats(x);`, and
//!   a struct result read by its fields: `let s = step(..);` then `s.x`, `step(..).x`,
//!   `let State { x, v } = step(..);`, an array result indexed: `let c = cross(a, b);`
//!   then `c[i]`, or rows `[[f64; 2]; 2]`, see [Arrays as results](#arrays-as-results)), of the function itself and of functions that call
//!   it back (recursion, mutual recursion: a scalar-mode function whose call of another
//!   function is conditional, in a branch or a loop, returns its pullback boxed, one
//!   allocation per call, since a cycle of pullbacks has no finite `impl Fn` type), of any function built from the runtime's ops (in tensor mode: replayed on
//!   a tape of its own inside the node), of plain generic helpers named in `plain(..)`
//!   (scalar mode: run on dual numbers; see "Plain helpers" below), and of anything on
//!   constants;
//! - float methods called by their paths, `f64::max(a, b)`, `f32::sin(x)`, also through a
//!   float type parameter (`T::max(a, b)`): they are the method calls `a.max(b)`, `x.sin()`;
//! - generic code over the float type, `fn f<T: Float>(x: T) -> T` with `num_traits::Float`
//!   (or `gradtape::Float`) as the bound, inline or in a `where` clause, using `T::one()`,
//!   `T::from(0.5).unwrap()` and the like: the function keeps its bounds, and its companion
//!   items are available where `T` is `f32` or `f64`; `T::from(v).unwrap()` (or
//!   `.expect(..)`, `<T as NumCast>::from(v)`) of a differentiable float `v` is the cast
//!   it is (`v as T`: a generic Horner's rule over `f64` coefficients), and so is
//!   `f64::from(v)` of an `f32`; a callee generic over an array's length, `fn norm<const
//!   N: usize>(v: [f64; N])` (also `&[f64; N]`, `&mut [f64; N]`), is called as any other;
//! - functions a `macro_rules!` writes, their types given as fragments (`fn $name(x: $t,
//!   w: &[$t]) -> $t` with `$t:ty`): such a type reaches the attribute in an invisible
//!   group, which it reads through, as it does parentheses (`(f64)`); so do fragments in
//!   the body, `$e:expr`, `$s:stmt` (a `let` among them), `$b:block`, `$p:pat` and
//!   `$i:ident`, up to a whole function from fragments. An expression's group keeps its
//!   grouping (`$e * 2.0` with `$e = a + b` is `(a + b) * 2.0`, as rustc reads it);
//! - local closures bound by `let` and local `fn` items, called by name: each call is
//!   replaced by the body (arguments evaluated first, then bound to the parameters), so
//!   what a closure captures is differentiated as if written in place; a parameter taking
//!   a slice (`|v: &[f64]|`, `&[f64; N]`, `&Vec<f64>`) given a differentiable array by
//!   name (`norm(&x)`, `norm(x)` of a slice `x`) reads that array element by element (a
//!   range of one, `norm(&x[1..])`, is rejected as a copy); a parameter taken by
//!   reference (`|v: &Tensor<f64>|`, `|v: &f64|`) is given `&r` of a local holding a
//!   reference (`let r = &x[0]; d(&r)`) as the call's coercion gives it, `r`; a closure
//!   may call one bound before it, or one defined inside its own body (inlined there
//!   first), and one never called is left out; one passed by name as a method's argument
//!   (`xs.iter().map(sq)`, `.fold(0.0, add)`, `.max_by(by_value)`, in the function or in
//!   a closure's body) is the closure calling it there (`|a| sq(a)`), then inlined; one a
//!   closure returns (`let scale = |s: f64| move |v: f64| v * s; let f = scale(y);`, or
//!   `{ let g = move |v| ..; g }`) or a block ends in (`let f = { let k = ..; move |v| v *
//!   k };`) is bound by `let` once the block's statements have run, where nothing after
//!   it names what they bind (then it is a value: rejected); a `return` in its
//!   body returns from the closure (`|t: f64| { if t < 0.0 { return -t; } t * t }`), and
//!   one assigning what it captures (`let mut add = |v: f64| acc += v * x;`) assigns
//!   the variable at each call, as Rust's `FnMut` does;
//! - `stop_gradient(..)`, and macros that only read values (`assert!`, `println!`, ...).
//!
//! A control-flow example: the branch taken and the trip count are part of the forward
//! run, so the derivative is that of the path the inputs took.
//!
//! ```
//! use gradtape::differentiable;
//!
//! /// Steps of a damped oscillator until it settles or `limit` steps have run.
//! #[differentiable]
//! fn settle(x0: f64, v0: f64, k: f64, limit: usize) -> f64 {
//!     let (mut x, mut v) = (x0, v0);
//!     let mut steps = 0;
//!     loop {
//!         if steps == limit || (x.abs() < 1e-3 && v.abs() < 1e-3) {
//!             break;
//!         }
//!         let a = -k * x - 0.5 * v;
//!         (x, v) = (x + 0.01 * v, v + 0.01 * a);
//!         steps += 1;
//!     }
//!     x * x + v * v
//! }
//!
//! let (value, [dx0, dv0, dk]) = settle::grad(1.0, 0.0, 4.0, 200);
//! let h = 1e-6;
//! let fd_x0 = (settle(1.0 + h, 0.0, 4.0, 200) - settle(1.0 - h, 0.0, 4.0, 200)) / (2.0 * h);
//! let fd_k = (settle(1.0, 0.0, 4.0 + h, 200) - settle(1.0, 0.0, 4.0 - h, 200)) / (2.0 * h);
//! assert!(value > 0.0 && dv0.is_finite());
//! assert!((dx0 - fd_x0).abs() < 1e-7 && (dk - fd_k).abs() < 1e-7);
//! ```
//!
//! The same state kept in a local struct, updated field by field, is split into one local
//! per field (`s_x`, `s_v` in the generated code, each with its own shadow):
//!
//! ```
//! use gradtape::differentiable;
//!
//! struct State {
//!     x: f64,
//!     v: f64,
//! }
//!
//! #[differentiable]
//! fn spring(x0: f64, k: f64) -> f64 {
//!     let mut s = State { x: x0, v: 0.0 };
//!     for _ in 0..100 {
//!         s.v -= 0.01 * k * s.x;
//!         s.x += 0.01 * s.v;
//!     }
//!     s.x
//! }
//!
//! // the result is linear in x0: d/dx0 = spring(1, k)
//! let (value, [dx0, _dk]) = spring::grad(2.0, 3.0);
//! assert!((value - 2.0 * spring(1.0, 3.0)).abs() < 1e-12);
//! assert!((dx0 - spring(1.0, 3.0)).abs() < 1e-12);
//! ```
//!
//! Tuples flow between annotated functions:
//!
//! ```
//! use gradtape::differentiable;
//!
//! #[differentiable]
//! fn polar(x: f64, y: f64) -> (f64, f64) {
//!     ((x * x + y * y).sqrt(), y.atan2(x))
//! }
//!
//! #[differentiable]
//! fn spiral_arc(x: f64, y: f64) -> f64 {
//!     let (r, theta) = polar(x, y);
//!     r * theta
//! }
//!
//! // at (0, 1): r = 1, θ = π/2; ∂(rθ)/∂x = θ·x/r + r·(-y/r²) = -1, ∂/∂y = θ·y/r + r·x/r² = π/2
//! let (_, [dx, dy]) = spiral_arc::grad(0.0, 1.0);
//! assert!((dx + 1.0).abs() < 1e-15 && (dy - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
//! ```
//!
//! Generic code over the float type:
//!
//! ```
//! use gradtape::differentiable;
//! use num_traits::Float;
//!
//! #[differentiable]
//! fn logistic<T: Float>(x: T, k: T) -> T {
//!     T::one() / (T::one() + (-k * x).exp())
//! }
//!
//! // d/dx σ(kx) = k σ (1 − σ), at f64 and at f32
//! let (s, [dx, _]) = logistic::grad(0.5_f64, 2.0);
//! assert!((dx - 2.0 * s * (1.0 - s)).abs() < 1e-15);
//! let (s, [dx, _]) = logistic::grad(0.5_f32, 2.0);
//! assert!((dx - 2.0 * s * (1.0 - s)).abs() < 1e-6);
//! ```
//!
//! # Arrays, slices and vectors
//!
//! Parameters `&[F]`, `[F; N]`, `&[F; N]`, `Vec<F>` and `&Vec<F>` of floats (`f32`, `f64`
//! or a type parameter bound by `Float`, `&[T]`) are differentiable in scalar mode, and
//! `&mut [F]` (or `&mut [[F; N]]`) is an output the function writes. The body
//! reads and writes elements (`a[i]`, `a[i] += ..`), asks `.len()`, builds local buffers
//! (`vec![0.0; n]`, `[0.0; 3]`, `vec![x[0]; n]` of a differentiable value,
//! `Vec::with_capacity` and `push`, also of a row onto a local `Vec<[F; C]>`, a literal of
//! its elements or a local row by name, `path.push([x, y])`, its elements computed
//! before the push; `let [x, v] = states[i - 1];` of a row;
//! `let mut w = a.to_vec();` or `a.clone()`, a local copy
//! that may grow where the parameter may not; `let y: Vec<f64> = x.iter().map(..)
//! .collect();`; `a.copy_from_slice(&b)`), copies fixed-size arrays whole (`let mut m =
//! *a;` of `a: &[f64; N]` or `&[[f64; N]; M]`, `a.clone()`, rows of fixed width
//! `let mut p = pos.to_vec();` of `pos: &[[f64; N]]`, and `state = next;` between
//! `[f64; N]` locals, as an integrator's step replaces its state, or `m = [a, b, c];` of
//! an array literal, its value taken before the place as Rust does: element by element,
//! the length fixed by the type; a flat float `Vec` local assigned another array of the
//! body, `state = next;` or `next.clone()` (a double buffer), element by element too,
//! after checking the lengths agree: Rust's assignment would resize `state`, so where
//! they differ the generated code panics naming both; so is a `Vec` of fixed-size rows
//! assigned another (`pos = next.clone();` of `Vec<[f64; 2]>`), row by row, and a
//! ragged one (`Vec<Vec<f64>>`, a grid double-buffered, `u = next.clone();`), each
//! row's length checked too (one written out, `let m = vec![vec![x[0], x[1]], vec![x[2],
//! x[3], 0.5]];`, is a local array of rows); a local whose value does not show its type, `let mut r = model.rows[b];`, is
//! written element by element once its type is spelled, `let mut r: [f64; 4] = ..`),
//! and uses the iterator forms people write (`iter`, `iter_mut`, whose item's methods,
//! `v.sin()` or `v.is_nan()`, are the element's, `zip`,
//! `enumerate`, `rev`, `copied`, `take_while`, `skip_while`, `map` with
//! `sum`/`product`, `fold`, `for &v in a`, and
//! `for w in a.windows(k)`/`a.chunks(k)`/`a.chunks_exact(k)` (also zipped with another
//! array's views or elements, `xs.windows(2).zip(ys.windows(2))`, `x.chunks(2).zip(w)`,
//! and enumerated) or `a.windows(k).map(..).sum()` and `.fold(..)` of them; a chain of
//! maps, `.map(f).map(g)`, is one map doing both; a chain over a `const` or `static`
//! table, `NODES.iter().zip(WEIGHTS.iter())`, by its `SCREAMING_CASE` name, reads its
//! elements as constants, and so does a chain over a field of a struct, which is data in
//! scalar mode: `self.w.iter().zip(x.iter())`, `x.iter().zip(&model.w)`, `for s in
//! self.scale.iter()`; a `zip` with a constant array parameter of any element type,
//! `for (z, &y) in logits.iter().zip(labels)` of `labels: &[bool]` (also `&[usize]`, an
//! owned `[u8; N]`, pairs), reads the partner's element as the iterator gives it
//! (`&labels[k]`), over the shorter length; an array literal, `[h0, h1].iter()`, is a local array; a chain
//! over a range, `(0..n).map(|i| x[i] * y[i]).sum()` or `.collect()`, is the loop over
//! the range, and so is a fold, sum or product over a range or any iterator of constants
//! that carries a differentiable value, `(0..n).fold(x, |acc, _| acc.cos())`,
//! `exponents.iter().map(|&k| x.powi(k)).sum::<f64>()` of a `&[i32]`, after any maps
//! (the source evaluated first, then the initial value, each map's body and the fold's
//! run once per item in order, as the iterator runs them); `items.for_each(|p| body);` is
//! the `for` loop it is, a function named as a map's or fold's closure (`.map(f64::exp)`,
//! `.fold(init, T::max)`) the closure calling it, and `v.reverse();` the swaps it makes;
//! `*x.first().unwrap()`, `x.last().unwrap()` and `x.swap(i, j)` are element
//! reads and writes, `if let Some(v) = x.first() { .. } else { .. }` and `match
//! x.first() { .. }` (also `last()`, `get(i)`, `Some(&v)`, `None`, `_`, guards) the
//! element read behind a test of its index, `let [w, x, y, z] = q;` one read per name,
//! and `let [p, q] = [e, f];` one `let` per value), also over parts
//! of arrays (`for b in &x[i + 1..]`, `x[1..].iter().zip(&w[..n])`,
//! `x.iter().skip(1).take(n)`, `x.iter().step_by(2)`, and `skip`/`take`/`step_by` after
//! a `step_by`, counting strided items: `x.iter().step_by(2).skip(1).take(n)`), which are
//! lowered to indexed loops.
//!
//! A local array of tuples, `let pairs: Vec<(f64, f64)> = vec![(x[0], 2.0), (x[1],
//! 3.0)];` (or `[(..), ..]`, `vec![(a, b); n]`, `Vec::new()` then `pairs.push((a, b))`),
//! is one array per position, `pairs_0` and `pairs_1`, kept in step: `pairs[i].0` is
//! `pairs_0[i]` (read or written, `pairs[i].1 += ..`), `pairs[i]` whole the tuple of the
//! elements (`let (a, b) = pairs[i];`, `pairs[i] = (a, b);`), `len()` the first's, a push
//! binds the tuple's parts before either array grows, and an iterator over the elements
//! (`for (v, w) in &pairs`, `for &(v, w) in pairs.iter()`, `for p in &pairs` read by
//! `p.0`, `pairs.iter().map(|(v, w)| v * w).sum()`, either side of a `zip`,
//! `x.iter().zip(&pairs)`, after `enumerate`, `rev`, `skip`, `take`, `step_by` or
//! `filter`) is the `zip` of the positions' iterators, its patterns binding the same
//! names to the same types; `swap(i, j)` and `reverse()` reorder every position. Elements with effects are evaluated in the
//! order written. An array of tuples passed on whole, returned or used any other way is
//! rejected.
//!
//! The adaptors in such a chain are the loop they stand for, item by item. A `filter`
//! before the `map` (`p.iter().zip(q).filter(|(a, _)| **a > 0.0).map(..).sum()`, in a
//! `for` loop, a reduction, a `collect`) is the `continue` it stands for, its closure's
//! statements run once per element, in order, before the map's (one `*` less is written
//! for the reference the closure is given: `**a` reads `a`'s value); `count()` is an
//! integer, a constant. `skip`/`take`/`step_by` after `enumerate`, `zip` or `rev` count
//! the items, so `x.iter().enumerate().skip(1)` gives the positions from 1, and a `rev`
//! after them reverses the items they left: `rev`, `skip`, `take` and `enumerate` in any
//! order are the iterator's (`x.iter().rev().take(3).enumerate()` gives the last three
//! from the end, positions 0, 1, 2; fewer if `x` is shorter; a `skip`/`take` after a
//! `rev` of an array's elements is the part of it they leave, read from its end). An
//! `enumerate` or `zip` after a `step_by` of reversed items stays rejected. A `fold`
//! with a tuple accumulator, `let (s, q) = x.iter().fold((0.0, 0.0), |(s, q), &v| (s +
//! v, q + v * v));` or `.fold(..).1`, keeps one accumulator per part. An element's
//! option with a default, `x.first().copied().unwrap_or(0.0)`, `x.get(i).copied()
//! .unwrap_or_else(|| ..)`, `.unwrap_or_default()`, `x.get(i).map_or(d, |v| ..)`, is
//! the element behind a test of its index, the eager default evaluated first as the
//! call's argument is. A `collect` that ends a block (or an `if`'s branches), `let y:
//! Vec<f64> = { ..; e.iter().map(|v| v / s).collect() };`, pushes into `y` where the
//! block ends. A `map` followed by more adapters, `x.iter().map(|v| v * w).zip(y.iter())
//! .map(|(a, b)| a - b).sum()`, both sides of a `zip` mapped, `x.iter().map(|v| v.exp())
//! .filter(|e| *e > 1.0).sum()` (the predicate reads the mapped value), `enumerate` after
//! a `map`, is a value computed as each iteration starts, in the chain's order (the left
//! side of a `zip` before its right side, only for the pairs it yields, as the iterators
//! run them); a map returning a tuple keeps a local per part, and a `for` loop over a
//! chain ending in a `map` (`for s in x.iter().map(|v| v * v).take(3)`) binds each mapped
//! value as the iteration starts. A `rev` or `take` after a map (`x.iter().map(|v| v *
//! v).rev().enumerate()`) is the same as before it, the map running on the same items
//! in the same order; so is a `skip` or `step_by` after a map without effects (no
//! assignment, call or indexing in its closure: `x.iter().map(|v| v.exp()).skip(1)
//! .zip(y)`), while after one with effects, which the iterator runs on the items it
//! passes over too, it stays rejected, as a filter before `enumerate`/`zip`/`skip`/..
//! (which would count the items left) does: move the `skip` before the `map`, or test
//! the value in a `for` loop. A reversed side of a `zip`, `x.iter().zip(x.iter().rev())`
//! (a palindrome score, a convolution's kernel read backwards) or `x.iter().rev().zip(w)`,
//! reads its own array from its own end, `len - 1 - k`, for as many pairs as the shorter
//! side has, as `zip` pairs them (a reversed left side mapped with effects stays
//! rejected: `Zip` may run that map once more on an item it drops). Over an array of
//! rows, a `collect` of floats (`let xs: Vec<f64> = x0.iter().map(|r| r[0]).collect();`,
//! the map's value an element, arithmetic or a float method, or the `let` typed
//! `Vec<F>`) is a flat local buffer. A copy read at once, `x.to_vec()[i]`,
//! `x.to_vec().iter()`, `.into_iter()` or `.len()` (also `to_owned`, `clone`), is that
//! read of `x` where the body never writes `x`. A slice walked by assigning it again,
//! `let mut s = &x[..];` (also `x`, `&x[i..j]`, of a borrowed array parameter) then `s =
//! &s[1..];` or `while let [first, rest @ ..] = s { ..; s = rest; }` (also `[first, middle
//! @ .., last]`), is two positions in `x`: `s[i]` reads `x` there, checked against `s`'s
//! length as the slice checks it, and `s.len()`, `s.is_empty()`, `s.iter()`, `if let
//! Some(v) = s.first()` (`last()`, `get(i)`) and a pattern's `rest` read the same; one
//! passed on whole, captured by a closure or assigned
//! another array stays rejected. `let p: [f64; 3] =
//! core::array::from_fn(|i| x[i] * w[i]);` (also `std::array::from_fn`, `N` from the
//! annotation, a turbofish, or the signature's `-> [F; N]` where `p` is the body's tail)
//! is a local array filled by a loop in index order. `v.extend_from_slice(&x[..k])` and `v.extend(x.iter().map(..))`
//! on a local float `Vec` push each item in turn, as the methods do. A row picked by
//! index is a source like an array, `w[r].iter().zip(x).map(|(a, b)| a * b).sum()` (a
//! matrix-vector product's row; the index evaluated once, where the chain starts), and
//! an array literal of differentiable values passed to a call, `norm([x[0], 2.0 *
//! x[1]])` or `dot(&[a, b], w)`, is a local array holding it, made where the argument
//! stands.
//!
//! ```
//! use gradtape::differentiable;
//!
//! /// The Kullback–Leibler divergence over the nonzero terms of `p`, plus the variance
//! /// of `p` from a tuple fold.
//! #[differentiable]
//! fn kl_plus_variance(p: &[f64], q: &[f64]) -> f64 {
//!     let kl: f64 = p
//!         .iter()
//!         .zip(q.iter())
//!         .filter(|(a, _)| **a > 0.0)
//!         .map(|(a, b)| a * (a / b).ln())
//!         .sum();
//!     let (s, sq) = p.iter().fold((0.0, 0.0), |(s, sq), &v| (s + v, sq + v * v));
//!     let n = p.len() as f64;
//!     kl + sq / n - (s / n) * (s / n)
//! }
//!
//! let (p, q) = ([0.5, 0.0, 0.5], [0.25, 0.5, 0.25]);
//! let (value, [dp, dq]) = kl_plus_variance::grad(&p, &q);
//! assert!((value - (2.0f64.ln() + 0.5 / 3.0 - 1.0 / 9.0)).abs() < 1e-12);
//! // the zero term is skipped: its cotangent comes from the variance alone
//! assert!((dp[1] - (-2.0 / 9.0)).abs() < 1e-12);
//! assert!((dq[0] + 2.0).abs() < 1e-12 && dq[1] == 0.0 && (dq[2] + 2.0).abs() < 1e-12);
//! ```
//!
//! ```
//! use gradtape::differentiable;
//!
//! /// Residuals of a scaled series against observations, the largest of them, and a
//! /// median of the exponentials above one.
//! #[differentiable]
//! fn chains(x: &[f64], y: &[f64], w: f64) -> f64 {
//!     let r: Vec<f64> = x.iter().map(|v| v * w).zip(y.iter()).map(|(a, b)| a - b).collect();
//!     let worst = r.iter().copied().reduce(f64::max).unwrap_or(0.0);
//!     let mut big: Vec<f64> = Vec::new();
//!     big.extend(x.iter().map(|v| v.exp()).filter(|e| *e > 1.0));
//!     let p: [f64; 2] = core::array::from_fn(|i| r[i] * r[i]);
//!     let mid = big.len() / 2;
//!     let m = *big.select_nth_unstable_by(mid, |a, b| a.total_cmp(b)).1;
//!     worst + p[0] + p[1] + m
//! }
//!
//! let (x, y) = ([0.5, 1.0, 2.0], [0.25, 0.5, 0.5]);
//! let (value, (dx, dy, dw)) = chains::grad(&x, &y, 2.0);
//! // r = [0.75, 1.5, 3.5]; the worst is r[2]; the median of e^x is e^1
//! let expected = 3.5 + 0.75f64.powi(2) + 1.5f64.powi(2) + 1.0f64.exp();
//! assert!((value - expected).abs() < 1e-12);
//! assert!((dx[0] - 2.0 * 0.75 * 2.0).abs() < 1e-12);
//! assert!((dx[1] - (2.0 * 1.5 * 2.0 + 1.0f64.exp())).abs() < 1e-12);
//! assert!((dx[2] - 2.0).abs() < 1e-12 && (dy[2] + 1.0).abs() < 1e-12);
//! assert!((dw - (2.0 + 2.0 * 0.75 * 0.5 + 2.0 * 1.5 * 1.0)).abs() < 1e-12);
//! ```
//!
//! The searches `position` (and `rposition`), `find`, `any` and `all` over such a chain (`a.iter()`, then
//! `copied`, `rev`, `skip`, `take`, `step_by`), with a closure of one name, are the loop
//! with a `break` they stand for, run just before the statement that evaluates them first
//! (a `let`'s value, an `if`'s condition, an `if let`'s or a `match`'s scrutinee, or the
//! receiver of a method there): `let i = x.iter().position(|&v| v > t).unwrap_or(n);` gives
//! a constant index, `any`/`all` constant flags, and `if let Some(&v) =
//! x.iter().find(|&&v| v > t) { .. }` the element, whose cotangent goes back to the
//! element found. The closure's statements (`|&v| { s += v; v > t }`) run in the loop,
//! differentiated. `find` over `a.iter()` is read as a number (`.copied()`, `Some(&v)`,
//! `Some(v)` with `*v`, or `.is_some()`); `a.iter().copied().find(..)` also gives an
//! `Option<F>` local. In an `if`'s or a `while`'s condition a search runs as written, as
//! the whole condition does.
//!
//! ```
//! use gradtape::differentiable;
//!
//! /// The first element above `t`, squared (or `t` if none), and the energy of the tail
//! /// from the first element below `-t`.
//! #[differentiable]
//! fn first_above(x: &[f64], t: f64) -> f64 {
//!     let i = x.iter().position(|&v| v < -t).unwrap_or(x.len());
//!     let mut tail = 0.0;
//!     for j in i..x.len() {
//!         tail += x[j] * x[j];
//!     }
//!     if let Some(&v) = x.iter().find(|&&v| v > t) {
//!         v * v + tail
//!     } else {
//!         t + tail
//!     }
//! }
//!
//! // x[1] = 0.9 is found, x[2] = -0.8 starts the tail: the cotangent goes to them alone
//! let (value, (dx, dt)) = first_above::grad(&[0.1, 0.9, -0.8, 0.3], 0.5);
//! assert!((value - (0.81 + 0.64 + 0.09)).abs() < 1e-12);
//! assert_eq!(dx, vec![0.0, 1.8, -1.6, 0.6]);
//! assert_eq!(dt, 0.0);
//! ```
//!
//! `max_by`/`min_by` (and `max_by_key`/`min_by_key`) over such a chain, a last `map`
//! allowed, are the loop of the iterator's fold run the same way, each step decided by
//! `std::cmp::max_by`/`min_by` themselves, so the element kept is the iterator's (the
//! last of equal maxima, the first of equal minima) and takes the cotangent; an in-place
//! sort of a float array of the body (`sort_by`, `sort_unstable_by`, by a key,
//! `select_nth_unstable_by` as a statement) is the permutation the body's own call makes,
//! found on a copy of the values, each element's cotangent following it:
//!
//! ```
//! use gradtape::differentiable;
//!
//! /// The largest magnitude's element, times the median of a copy.
//! #[differentiable]
//! fn peak_times_median(x: &[f64]) -> f64 {
//!     let peak = x.iter().copied().max_by(|a, b| a.abs().total_cmp(&b.abs())).unwrap();
//!     let mut v = x.to_vec();
//!     v.sort_unstable_by(|a, b| a.total_cmp(b));
//!     peak * v[v.len() / 2]
//! }
//!
//! // the peak is x[1] = -2.0, the median x[4] = 0.3
//! let (value, [dx]) = peak_times_median::grad(&[0.1, -2.0, 0.5, 1.5, 0.3]);
//! assert_eq!(value, -2.0 * 0.3);
//! assert_eq!(dx, vec![0.0, 0.3, 0.0, 0.0, -2.0]);
//! ```
//! The adjoint keeps a shadow buffer beside each array, as Enzyme does. Gradients come back in the parameter's shape,
//! and `f::grad_into` adds them into buffers the caller owns, allocating nothing per call:
//!
//! ```
//! use gradtape::differentiable;
//!
//! #[differentiable]
//! fn log_sum_exp(x: &[f64]) -> f64 {
//!     let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
//!     let s: f64 = x.iter().map(|v| (v - m).exp()).sum();
//!     s.ln() + m
//! }
//!
//! let x = [1.0, 2.0, 3.0];
//! let (value, [gradient]) = log_sum_exp::grad(&x);
//! // the gradient of log-sum-exp is the softmax
//! let total: f64 = x.iter().map(|v| v.exp()).sum();
//! for (g, v) in gradient.iter().zip(&x) {
//!     assert!((g - v.exp() / total).abs() < 1e-15);
//! }
//! // the same into the caller's buffer (it accumulates, as Enzyme's shadows do)
//! let mut dx = [0.0; 3];
//! assert_eq!(log_sum_exp::grad_into(&x, &mut dx), value);
//! assert_eq!(dx.to_vec(), gradient);
//! ```
//!
//! A function that writes a `&mut [F]` output takes that output's cotangent from the
//! caller, in a buffer beside it (`grad_into`, and its `vjp`'s pullback takes that buffer
//! as an argument; it has no `grad`: there is no result to seed):
//!
//! ```
//! use gradtape::differentiable;
//!
//! #[differentiable]
//! fn moving_average(x: &[f64], out: &mut [f64]) {
//!     let window = x.len() - out.len() + 1;
//!     for i in 0..out.len() {
//!         let mut s = 0.0;
//!         for j in 0..window {
//!             s += x[i + j];
//!         }
//!         out[i] = s / window as f64;
//!     }
//! }
//!
//! // d⟨w, out⟩/dx for w = (1, 10)
//! let (mut out, mut dx, mut d_out) = ([0.0; 2], [0.0; 3], [1.0, 10.0]);
//! moving_average::grad_into(&[1.0, 2.0, 3.0], &mut out, &mut dx, &mut d_out);
//! assert_eq!(out, [1.5, 2.5]);
//! assert_eq!(dx, [0.5, 5.5, 5.0]);
//! ```
//!
//! Another annotated function that writes a `&mut [F]` output is called passing whole
//! arrays (`step(&state, &mut next);`, also `&mut out[..]` and `&mut *out` of the caller's
//! own output; `let e = step(..);` if it also returns a float, `let (a, b) = step(..);`
//! if a tuple, destructured) or parts of flat ones
//! (`&mut out[2 * i..2 * i + 2]`, `&mut u[1..]`, `&mut u[..=k]`): its `vjp` writes the
//! array, and its pullback takes the array's shadow (or the same part of it) in place, as
//! `grad_into` takes its buffer. A part's bounds are evaluated once, before the call, and
//! kept for the adjoint. The caller's own `&mut [F]` parameter may be passed on as it is
//! (`step(x, y);`, `let e = w(x, y);`, `w(x, y) * 2.0`, `return w(x, y);`, which Rust
//! reborrows): the macro cannot tell from the call whether the callee writes it (`&mut
//! [F]`) or only reads it (`&[F]`), so the generated code serves both, the callee's types
//! choosing (a read leaves the array's cotangent as it was, plus the read's), also
//! beside another array passed `&mut` or other such parameters (`kick(pos, vel, dt);`
//! of a callee reading `pos` and writing `vel`, `let e = step(pos, vel, dt);`): the
//! forward code records which ones the callee writes, and the pullback takes their
//! shadows. A parameter of rows (`m: &mut [[F; N]]`, `&mut [[F; N]; M]`) passes on the
//! same way. A writing method of a constant receiver is called the same way
//! (`layer.apply(&x, &mut h);`, through its `apply_vjp`; `let (a, b) = layer.stats(&x,
//! &mut h);` and `(a, _) = ..` of a tuple result too), and so is a method of a constant
//! receiver given the caller's own `&mut [F]` parameter as it is (`self.relax(x, y);`,
//! `let e = r.energy(x, y);`), as a function is. `std::mem::swap(&mut state, &mut next);` of two float arrays swaps their
//! shadows too. So an integrator calls its step function in a loop:
//!
//! ```
//! use gradtape::differentiable;
//!
//! /// One explicit-Euler step of `x' = v`, `v' = -k x`.
//! #[differentiable]
//! fn step(state: &[f64], k: f64, dt: f64, next: &mut [f64]) {
//!     next[0] = state[0] + dt * state[1];
//!     next[1] = state[1] - dt * k * state[0];
//! }
//!
//! #[differentiable]
//! fn final_position(x0: f64, k: f64) -> f64 {
//!     let mut state = [x0, 0.0];
//!     let mut next = [0.0; 2];
//!     for _ in 0..2 {
//!         step(&state, k, 0.5, &mut next);
//!         state[0] = next[0];
//!         state[1] = next[1];
//!     }
//!     state[0]
//! }
//!
//! // two steps of h = 1/2: x₂ = x₀ (1 − k/4), so d/dx₀ = 1 − k/4 and d/dk = −x₀/4
//! let (x, [dx0, dk]) = final_position::grad(2.0, 1.0);
//! assert_eq!((x, dx0, dk), (1.5, 0.75, -0.5));
//! ```
//!
//! Generic code works on arrays of its float type as on `f64` arrays:
//!
//! ```
//! use gradtape::differentiable;
//! use num_traits::Float;
//!
//! #[differentiable]
//! fn rms<T: Float>(x: &[T]) -> T {
//!     let mut s = T::zero();
//!     for v in x.iter() {
//!         s = s + *v * *v;
//!     }
//!     (s / T::from(x.len()).unwrap()).sqrt()
//! }
//!
//! // d rms / dxᵢ = xᵢ / (n rms)
//! let (r, [g]) = rms::grad(&[3.0_f32, 4.0][..]);
//! assert_eq!(r * r, 12.5);
//! assert!((g[0] - 3.0 / (2.0 * r)).abs() < 1e-6);
//! ```
//!
//! An array is passed whole to another annotated function as Rust passes it (`&x`, `x`,
//! `&x[..]`, `x.clone()`, a local buffer, a `[F; 3]` by value): the callee's pullback
//! gives the array's cotangent, which the caller adds into its shadow, and its forward
//! code takes the array's tangent. A part of an array (a row `&m[i]`, a range `&v[1..]`)
//! is copied into a local array first, element by element, and that copy is passed.
//!
//! Arrays of rows (`[[F; N]; M]`, `&[[F; N]; M]`, `&[[F; N]]`, `Vec<[F; N]>`, a local
//! `[[0.0; N]; M]`, `vec![[0.0; N]; m]` or `[[a, b], [c, d]]`, and rows repeated from
//! differentiable values, `[[x; N]; M]`, `[[a, b]; M]`, `vec![vec![x; n]; m]`, each value
//! evaluated once as Rust evaluates it) are read and written as
//! `m[i][j]` (also `m[i][j] += ..`), with one flat shadow (element `i * N + j`), and get
//! gradients of their own shape. Their rows are iterated as Rust iterates them (`for row
//! in m`, `&m`, `m.iter()`, `iter_mut`, with `enumerate`, `zip`, `rev`, and `map` + `sum`,
//! `product` or `fold`): `row` stands for row `k` of `m` in the body, so `row[j]`,
//! `row.len()`, `dot(row, x)` and the iterator forms on the row (`for x in row`,
//! `row.iter().zip(w).map(|(a, b)| a * b).sum()`) read `m[k][j]`. A row by value (`for row
//! in m` of an owned array) is read so where the body leaves `m` alone, which is exact.
//! A row is copied whole into a local (`let r = m[i];`, `m[i].clone()`), and a row of
//! fixed size (`[[F; N]; M]`, `&mut [[F; N]; M]`, `&mut [[F; N]]`) is written whole,
//! `m[i] = r;` from a local `[F; N]` (or `*r`, `r.clone()`), `m[i] = [a, b, c];`,
//! `m[i] = m[k];`: the value is taken first, as Rust evaluates it before the place (so
//! `m[i] = [m[i][1], m[i][0]];` swaps), then written element by element, each element's
//! cotangent flowing back to what it was computed from.
//!
//! *Ragged* arrays of rows, whose rows need not share a length (`&[Vec<F>]`,
//! `Vec<Vec<F>>`, `&Vec<Vec<F>>`, a local `vec![vec![0.0; n]; m]` or a typed
//! `Vec<Vec<F>>`), are read and written the same way (`m[i][j]`, `m[i].len()`, `m.len()`,
//! rows iterated, a row passed as `&m[i]` or copied as `m[i].to_vec()`, the whole array
//! passed to another annotated function). Element `m[i][j]` has the index
//! `i * RAGGED_STRIDE + j` (`RAGGED_STRIDE` = 2³² on 64-bit targets), checked against
//! row `i`'s own length, and the shadow is a shadow of rows, so no table of row offsets is
//! built: `f::grad` returns a `Vec<Vec<F>>` of the parameter's shape, `f::grad_into` adds
//! into the caller's rows (`&mut [Vec<F>]`, their shape checked, nothing allocated), and
//! `f::jvp` takes the tangent as rows (`&[Vec<F>]`).
//!
//! ```
//! use gradtape::differentiable;
//!
//! // the k-means cost: Σ over points of the squared distance to the nearest centroid
//! #[differentiable]
//! fn kmeans_cost(points: &[Vec<f64>], centroids: &[Vec<f64>]) -> f64 {
//!     let mut cost = 0.0;
//!     for p in points {
//!         let mut best = f64::INFINITY;
//!         for c in centroids {
//!             let d: f64 = p.iter().zip(c.iter()).map(|(a, b)| (a - b) * (a - b)).sum();
//!             best = best.min(d);
//!         }
//!         cost += best;
//!     }
//!     cost
//! }
//!
//! let points = vec![vec![0.0, 0.0], vec![4.0, 1.0]];
//! let centroids = vec![vec![1.0, 0.0], vec![4.0, 3.0]];
//! // each point's nearest centroid at distance² 1 and 4; d/dc = 2 (c - p) for the nearest
//! let (value, [_, dc]) = kmeans_cost::grad(&points, &centroids);
//! assert_eq!(value, 5.0);
//! assert_eq!(dc, vec![vec![2.0, 0.0], vec![0.0, 4.0]]);
//! // into the caller's rows, allocating nothing
//! let (mut dp, mut dc2) = (vec![vec![0.0; 2]; 2], vec![vec![0.0; 2]; 2]);
//! kmeans_cost::grad_into(&points, &centroids, &mut dp, &mut dc2);
//! assert_eq!(dc2, dc);
//! ```
//!
//! ```
//! use gradtape::differentiable;
//!
//! #[differentiable]
//! fn det3(m: &[[f64; 3]; 3]) -> f64 {
//!     m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
//!         - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
//!         + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
//! }
//!
//! #[differentiable]
//! fn log_det_of_scaled(m: [[f64; 3]; 3], s: f64) -> f64 {
//!     let mut scaled = [[0.0; 3]; 3];
//!     for i in 0..3 {
//!         for j in 0..3 {
//!             scaled[i][j] = s * m[i][j];
//!         }
//!     }
//!     det3(&scaled).ln()
//! }
//!
//! // ln det(sM) = 3 ln s + ln det M: d/ds = 3/s, d/dM = M⁻ᵀ (here M = 2I)
//! let m = [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]];
//! let (value, (dm, ds)) = log_det_of_scaled::grad(m, 0.5);
//! assert!((value - 0.0).abs() < 1e-15);
//! assert!((ds - 6.0).abs() < 1e-12);
//! assert!((dm[0][0] - 0.5).abs() < 1e-15 && dm[0][1] == 0.0);
//! ```
//!
//! `#[differentiable(constant(data))]` holds a float parameter constant (data to fit, not
//! a variable): it gets no gradient.
//!
//! ## Collections of tensors (tensor mode)
//!
//! A parameter holding tensors (`&[Tensor<f64>]`, `Vec<Tensor<f64>>`, `&Vec<..>`,
//! `[Tensor<f64>; N]`) is no input a fused node could see, so the function runs op by op,
//! as written, on the caller's tapes (as a struct of tensors does; `strict` rejects it).
//! The body reads the tensors as any Rust code does: `xs[i]`, `.len()`, `iter()`, `zip`,
//! `enumerate`, `map` then `fold`, `sum` or `product` (`Tensor` implements
//! [`Sum`](std::iter::Sum) and [`Product`](std::iter::Product), over values and
//! references); each tensor's gradient comes from the tape, one per element
//! (`tape.gradient(&y, xs.to_vec())`).
//!
//! In a fused body, `chain.fold(init, |acc, v| e)` over an iterator (a constant array's
//! `iter()`, a range; `map` calls before it are fused in) with a tensor accumulator is
//! the loop it stands for, `{ let mut acc = init; for v in chain { acc = e; } acc }`,
//! differentiated as any loop-carried value (not when a closure may `return` or is
//! `move`). So is `chain.sum::<Tensor<T>>()` (or `product`, or `let s: Tensor<T> =
//! chain.sum();`): the fold from the empty sum, a 0-d `-0.0` (`1` for a product), whose
//! bits are those of the sum written out. A sum named by no type (`.sum::<f64>()` of
//! constants) stays as written. A fused body keeps no
//! collection of differentiable tensors of its own: `vec![..]` of them, `push` onto a
//! `Vec` and indexing one are rejected; take the tensors as a slice parameter, or build
//! and read the vector in a plain helper the body calls with the tensors
//! (`helper(&[a.clone(), b.clone()])`), which runs on a sub-tape inside the node.
//!
//! ```
//! use gradtape::{GradientTape, Tensor, differentiable};
//!
//! /// A polynomial by Horner's rule, the coefficients constants, the accumulator a tensor.
//! #[differentiable]
//! fn horner(x: &Tensor<f64>, coefficients: &[f64]) -> Tensor<f64> {
//!     coefficients.iter().rev().fold(x * 0.0, |acc, c| acc * x + *c)
//! }
//!
//! /// A sine series `Σ c_k sin(k x)`, summed by `sum`.
//! #[differentiable]
//! fn sine_series(x: &Tensor<f64>, coefficients: &[f64]) -> Tensor<f64> {
//!     coefficients
//!         .iter()
//!         .enumerate()
//!         .map(|(k, c)| (x * (k as f64 + 1.0)).sin() * *c)
//!         .sum::<Tensor<f64>>()
//! }
//!
//! /// The layers of an MLP given as a slice: run op by op on the caller's tape.
//! #[differentiable]
//! fn mlp(weights: &[Tensor<f64>], x: &Tensor<f64>) -> Tensor<f64> {
//!     let mut h = x.clone();
//!     for w in weights {
//!         h = h.matmul(w).tanh();
//!     }
//!     h.sum()
//! }
//!
//! let x = Tensor::scalar(2.0);
//! let tape = GradientTape::new();
//! tape.watch(&x);
//! let y = tape.record(|| horner(&x, &[1.0, -3.0, 0.5]));
//! // d/dx (1 - 3x + x²/2) = -3 + x
//! let dx = tape.gradient(&y, &x).unwrap().unwrap();
//! assert!((dx.to_scalar() - (-1.0)).abs() < 1e-12);
//!
//! let tape = GradientTape::new();
//! tape.watch(&x);
//! let y = tape.record(|| sine_series(&x, &[1.0, 0.5]));
//! // d/dx (sin x + sin 2x / 2) = cos x + cos 2x
//! let dx = tape.gradient(&y, &x).unwrap().unwrap();
//! assert!((dx.to_scalar() - (2.0_f64.cos() + 4.0_f64.cos())).abs() < 1e-12);
//!
//! let weights = vec![
//!     Tensor::from_vec(vec![0.5, -0.3, 0.2, 0.4], &[2, 2]),
//!     Tensor::from_vec(vec![-0.1, 0.6, 0.3, 0.2], &[2, 2]),
//! ];
//! let input = Tensor::from_vec(vec![1.0, -1.0], &[1, 2]);
//! let tape = GradientTape::new();
//! for w in &weights {
//!     tape.watch(w);
//! }
//! let y = tape.record(|| mlp(&weights, &input));
//! let grads = tape.gradient(&y, weights.to_vec()).unwrap();
//! // one gradient per layer, each of its layer's shape
//! assert_eq!(grads.len(), 2);
//! for (g, w) in grads.iter().zip(&weights) {
//!     assert_eq!(g.as_ref().unwrap().shape(), w.shape());
//! }
//! ```
//!
//! # How it is differentiated: the generated code
//!
//! The body is lowered to one primitive operation per statement, with its control flow
//! kept. The forward code runs the user's expressions and keeps (`generated::own`) what
//! each operation's rule will read; the pullback walks the statements in reverse, adding
//! each operation's share of the cotangent into its operands' slots (`d_x`), with the same
//! rule functions (`vjp::sin`, `vjp::mul_lhs`, ...) the tape uses, so each rule exists
//! once. The forward derivative (`jvp`) carries a tangent beside each value through the
//! same rules. The body is `vjp_partial`, whose pullback takes `Option` of the result's
//! cotangent: an annotated caller passes `None` for a value that reaches nothing (a call
//! whose value is dropped, `w(x, y);`), and the pullback then skips the value's share
//! rather than multiply a zero by the partials (`0 · ∞` is NaN where a partial is
//! infinite, as `√y` is at 0), as a tape skips an output no target depends on; `vjp`
//! passes its cotangent as `Some`. `vjp_now` is the same forward code with the pullback
//! applied to `g` at once, in the same function: what `grad` runs, and what an annotated
//! caller's adjoint runs for a call in straight-line code; `vjp_into` is what a caller's
//! adjoint runs for a call it replays, adding an array parameter's cotangent into the
//! caller's buffer (its sink; a float parameter has none, `NoArraySink`). For
//! `scaled_sin` above, `scaled_sin::GENERATED` is:
//!
//! ```text
//! pub fn vjp(x: f64, a: f64) -> (f64, impl Fn(f64) -> (Option<f64>, Option<f64>) + use<>) {
//!     let (value, pullback) = Self::vjp_partial(x, a);
//!     (
//!         value,
//!         move |g: f64| -> (Option<f64>, Option<f64>) {
//!             pullback(::core::option::Option::Some(g))
//!         },
//!     )
//! }
//! pub fn vjp_partial(
//!     x: f64,
//!     a: f64,
//! ) -> (f64, impl Fn(::core::option::Option<f64>) -> (Option<f64>, Option<f64>) + use<>) {
//!     use ::gradtape::__private::{generated, vjp};
//!     let x0 = generated::own(&x);
//!     let t0 = x.sin();
//!     let lhs1 = generated::own(&a);
//!     let rhs1 = generated::own(&t0);
//!     let t1 = a * t0;
//!     let value = t1;
//!     (
//!         value,
//!         move |g: ::core::option::Option<f64>| -> (Option<f64>, Option<f64>) {
//!             let mut d_x: Option<f64> = None;
//!             let mut d_a: Option<f64> = None;
//!             let mut d_t0 = None;
//!             let mut d_t1 = None;
//!             generated::accumulate_option(&mut d_t1, g);
//!             if let Some(g) = d_t1.take() {
//!                 generated::accumulate(&mut d_a, vjp::mul_lhs(&rhs1, &g));
//!                 generated::accumulate(&mut d_t0, vjp::mul_rhs(&lhs1, &g));
//!             }
//!             if let Some(g) = d_t0.take() {
//!                 generated::accumulate(&mut d_x, vjp::sin(&x0, &g));
//!             }
//!             (d_x, d_a)
//!         },
//!     )
//! }
//! pub fn vjp_now(x: f64, a: f64, g: f64) -> (f64, (Option<f64>, Option<f64>)) {
//!     use ::gradtape::__private::{generated, vjp};
//!     let x0 = generated::own(&x);
//!     let t0 = x.sin();
//!     let lhs1 = generated::own(&a);
//!     let rhs1 = generated::own(&t0);
//!     let t1 = a * t0;
//!     let value = t1;
//!     (
//!         value,
//!         {
//!             let mut d_x: Option<f64> = None;
//!             let mut d_a: Option<f64> = None;
//!             let mut d_t0 = None;
//!             let mut d_t1 = None;
//!             generated::accumulate(&mut d_t1, g);
//!             if let Some(g) = d_t1.take() {
//!                 generated::accumulate(&mut d_a, vjp::mul_lhs(&rhs1, &g));
//!                 generated::accumulate(&mut d_t0, vjp::mul_rhs(&lhs1, &g));
//!             }
//!             if let Some(g) = d_t0.take() {
//!                 generated::accumulate(&mut d_x, vjp::sin(&x0, &g));
//!             }
//!             (d_x, d_a)
//!         },
//!     )
//! }
//! pub fn vjp_into<
//!     GradtapeSink0: ::gradtape::__private::generated::NoArraySink,
//!     GradtapeSink1: ::gradtape::__private::generated::NoArraySink,
//! >(
//!     x: f64,
//!     a: f64,
//!     g: ::core::option::Option<f64>,
//!     (sink_x, sink_a): (GradtapeSink0, GradtapeSink1),
//! ) -> (f64, (Option<f64>, Option<f64>)) {
//!     use ::gradtape::__private::{generated, vjp};
//!     let x0 = generated::own(&x);
//!     let t0 = x.sin();
//!     let lhs1 = generated::own(&a);
//!     let rhs1 = generated::own(&t0);
//!     let t1 = a * t0;
//!     let value = t1;
//!     (
//!         value,
//!         {
//!             let mut d_x: Option<f64> = None;
//!             let mut d_a: Option<f64> = None;
//!             let mut d_t0 = None;
//!             let mut d_t1 = None;
//!             generated::accumulate_option(&mut d_t1, g);
//!             if let Some(g) = d_t1.take() {
//!                 generated::accumulate(&mut d_a, vjp::mul_lhs(&rhs1, &g));
//!                 generated::accumulate(&mut d_t0, vjp::mul_rhs(&lhs1, &g));
//!             }
//!             if let Some(g) = d_t0.take() {
//!                 generated::accumulate(&mut d_x, vjp::sin(&x0, &g));
//!             }
//!             (d_x, d_a)
//!         },
//!     )
//! }
//! pub fn jvp(x: f64, a: f64, tan_x: f64, tan_a: f64) -> (f64, f64) {
//!     use ::gradtape::__private::{generated, vjp};
//!     let tan_t0 = vjp::sin(&generated::own(&x), &tan_x);
//!     let t0 = x.sin();
//!     let tan_t1 = vjp::mul_lhs(&generated::own(&t0), &tan_a)
//!         + vjp::mul_rhs(&generated::own(&a), &tan_t0);
//!     let t1 = a * t0;
//!     let out0 = t1;
//!     let tan_out0 = tan_t1;
//!     (out0, tan_out0)
//! }
//! ```
//!
//! (`tests/guide.rs` checks that this text is what the attribute generates today.)
//!
//! Control flow follows Tapenade: an `if` pushes the branch it took, a `match` the arm, a
//! loop its trip count and how each iteration ended (at its end, or by which jump); values
//! a rule reads inside a loop go on stacks, reserved from the iterator's size hint, and
//! values saved in a branch outside loops in a one-slot `generated::SavedOnce` (no
//! allocation). The
//! pullback pops them and replays each iteration's statements in reverse. Two kinds of value
//! are not saved per trip: an index that is a loop's counter plus a constant (`x[i]`,
//! `y[i - 1]` in `for i in 1..n`, and the iterator forms' own counters) is recomputed from
//! the trip being replayed, and an operand the loop never changes (a parameter nothing
//! writes, an immutable `let` before the loop: `dt` in `x += dt * v`) is saved once as the
//! loop starts. In `grad_into` (and the `vjp_into` a caller's adjoint runs for a replayed
//! call) the adjoint runs after the forward code in the same function, so an operand that
//! is a short chain of arithmetic on elements read at loop counters is not saved at all:
//! the adjoint reads the elements again. That holds for an array parameter borrowed
//! immutably, and for a local array declared in the function's top block with a fresh
//! value (`vec![..]`, `[e; N]`, `Vec::new()`, `.to_vec()`) when no top-level statement from
//! the read on writes it, pushes to it, swaps it, passes it as `&mut`, or moves it: JAX's
//! stage arrays, each filled by one loop and then only read, save nothing per element. A
//! read followed by a write (a later loop, a later trip of an enclosing loop) is saved.
//! In tensor mode an
//! op with no elementwise rule (`matmul`, reductions, softmax, calls of plain functions) is
//! recorded on a small tape of its own during the forward run (`generated::trace`), and the
//! pullback asks that tape for its vector-Jacobian product: the runtime's own rules.
//!
//! # Higher order
//!
//! When the pullback of a tensor-mode node runs while an outer tape records, it recomputes
//! the forward from its inputs with recorded ops, so second and higher derivatives are exact
//! and connected, as for any op:
//!
//! ```
//! use gradtape::{GradientTape, Tensor, differentiable};
//!
//! #[differentiable]
//! fn cubic(x: &Tensor<f64>) -> Tensor<f64> {
//!     x * x * x
//! }
//!
//! let x = Tensor::scalar(2.0);
//! let outer = GradientTape::new();
//! outer.watch(&x);
//! let first = outer.record(|| {
//!     let inner = GradientTape::new();
//!     inner.watch(&x);
//!     let y = inner.record(|| cubic(&x));
//!     inner.gradient(&y, &x).unwrap().unwrap()
//! });
//! let second = outer.gradient(&first, &x).unwrap().unwrap();
//! // d/dx x³ = 3x² = 12, d²/dx² = 6x = 12
//! assert_eq!((first.to_scalar(), second.to_scalar()), (12.0, 12.0));
//! ```
//!
//! # Checkpointing long loops
//!
//! The pullback of a loop needs what every trip saved: a simulation of 10⁶ steps holds 10⁶
//! steps' saves. `#[differentiable(checkpoint)]` (scalar mode) checkpoints each loop at the
//! top level of the body (`for`, `while` or `loop`, any trip count, known up front or not):
//!
//! - the forward code runs the loop saving nothing for the adjoint, and at the start of each
//!   segment of trips pushes a snapshot of the loop's carried state: every mutable name
//!   declared before the loop that the loop mentions (`let mut` numbers, arrays and
//!   counters, `mut` parameters, `&mut` array parameters), cloned;
//! - the pullback walks the segments last to first: it restores a snapshot, reruns the
//!   segment with the ordinary forward code (saving onto stacks of its own) and runs the
//!   ordinary adjoint of those trips, so it holds one segment's saves at a time.
//!
//! At most `snapshots` states are kept (200 unless `checkpoint(snapshots = n)` says
//! otherwise, n ≥ 2). A `for` over an iterator that knows its length (a range, an indexed
//! loop) gets segments of `ceil(n / snapshots)` trips at once. Otherwise (`while`, `loop`,
//! other iterators) the trip count is not known up front: snapshots start one per trip,
//! and each time the budget is full every other one is dropped and the segments double.
//! For `n` trips the pullback thus holds at most `snapshots` states plus the saves of
//! `2n / snapshots` trips, and the loop runs forward twice in all.
//!
//! `checkpoint(levels = l)` (2 to 5; 2 is the above) checkpoints the reruns too: the
//! pullback reruns each segment quietly, keeping up to `snapshots` snapshots within it,
//! and so on `l` levels deep, the last level rerunning its trips with saves. For `n` trips
//! it holds `(l - 1) · snapshots` states and the saves of `n / snapshots^(l - 1)` trips, and
//! the loop runs forward `l` times: a million steps with `checkpoint(snapshots = 100,
//! levels = 3)` keep 200 states and 100 steps' saves (a multi-level schedule in the manner
//! of Griewank's: each level a uniform split, not revolve's binomial placement, which would
//! need fewer reruns for the same memory). The rerun repeats
//! the same float operations in the same order, so the gradient is the uncheckpointed one
//! to the bit, at every level, `break` and `continue` included:
//!
//! ```
//! use gradtape::differentiable;
//!
//! #[differentiable]
//! fn pendulum(x0: f64, v0: f64, k: f64, steps: usize) -> f64 {
//!     let (mut x, mut v) = (x0, v0);
//!     for _ in 0..steps {
//!         let a = -k * x.sin();
//!         x += 0.01 * v;
//!         v += 0.01 * a;
//!     }
//!     x * v
//! }
//!
//! #[differentiable(checkpoint(snapshots = 50))]
//! fn pendulum_checkpointed(x0: f64, v0: f64, k: f64, steps: usize) -> f64 {
//!     let (mut x, mut v) = (x0, v0);
//!     for _ in 0..steps {
//!         let a = -k * x.sin();
//!         x += 0.01 * v;
//!         v += 0.01 * a;
//!     }
//!     x * v
//! }
//!
//! #[differentiable(checkpoint(snapshots = 20, levels = 3))]
//! fn pendulum_three_levels(x0: f64, v0: f64, k: f64, steps: usize) -> f64 {
//!     let (mut x, mut v) = (x0, v0);
//!     for _ in 0..steps {
//!         let a = -k * x.sin();
//!         x += 0.01 * v;
//!         v += 0.01 * a;
//!     }
//!     x * v
//! }
//!
//! // 10,000 steps: 50 snapshots and one segment's saves (200 steps) instead of 10,000
//! let (value, gradient) = pendulum::grad(0.5, 0.0, 2.0, 10_000);
//! let (same, checkpointed) = pendulum_checkpointed::grad(0.5, 0.0, 2.0, 10_000);
//! assert_eq!(value.to_bits(), same.to_bits());
//! assert_eq!(gradient.map(f64::to_bits), checkpointed.map(f64::to_bits));
//! // three levels: 20 + 20 snapshots and 25 steps' saves
//! let (_, deeper) = pendulum_three_levels::grad(0.5, 0.0, 2.0, 10_000);
//! assert_eq!(gradient.map(f64::to_bits), deeper.map(f64::to_bits));
//! ```
//!
//! A `for` loop's iterator is built again for each rerun segment (from the values its
//! expression read before the loop) and advanced to the segment's first trip with
//! `Iterator::skip`: free on ranges, one `next` per skipped item on other iterators, so it
//! must give the same items again (no `drain`).
//!
//! The names the loop only reads are copied once before it, so that the adjoint can rerun
//! it: a local by `Clone`. A shared borrow parameter (`well: &Well`) is read in place by
//! `grad` and `grad_into`, whose adjoint reruns the loop within the call (the borrow cannot
//! change there), so what it points to need not be `Clone`; `vjp`'s pullback outlives the
//! borrow and reruns the loop on an owned copy (`to_owned`), so `f::vjp` alone asks for
//! `Well: Clone` (a use of it with a `Well` that is not is the macro's message at the
//! argument). A local borrow the loop reads is a borrow error in `vjp`: read through the
//! parameter instead. What the loop changes is snapshotted, so it must be `Clone` too.
//! Rejected with an error: a `return` inside a
//! checkpointed loop (`break` out and return after it), a body with no top-level loop, and
//! tensor functions, whose loops record on the tape: `gradtape::checkpointed_loop`
//! checkpoints those. `benches/checkpoint.rs` measures both on a 10⁶-step RK4
//! (`docs/PERFORMANCE.md`).
//!
//! # Structs
//!
//! A model written as a struct is a source structure for `tape.gradient` with
//! [`#[derive(Sources)]`](derive@crate::Sources), and comes back as a gradients struct of
//! the same shape. An annotated function taking it runs op by op (a fused node would not
//! see the tensors inside), so every field gets its gradient:
//!
//! ```
//! use gradtape::{GradientTape, Sources, Tensor, Variable, differentiable};
//!
//! #[derive(Sources)]
//! struct Line {
//!     slope: Variable<f64>,
//!     intercept: Variable<f64>,
//! }
//!
//! #[differentiable]
//! fn residual(line: &Line, x: &Tensor<f64>, y: &Tensor<f64>) -> Tensor<f64> {
//!     (x * &line.slope.value() + &line.intercept.value() - y).square().sum()
//! }
//!
//! let line = Line { slope: Variable::new(2.0), intercept: Variable::new(1.0) };
//! let (x, y) = (Tensor::scalar(3.0), Tensor::scalar(5.0));
//! let tape = GradientTape::new();
//! let loss = tape.record(|| residual(&line, &x, &y));
//! let grads: LineGradients = tape.gradient(&loss, &line).unwrap();
//! // (3·2 + 1 − 5)² = 4: ∂/∂slope = 2·2·3 = 12, ∂/∂intercept = 2·2 = 4
//! assert_eq!(grads.slope.unwrap().to_scalar(), 12.0);
//! assert_eq!(grads.intercept.unwrap().to_scalar(), 4.0);
//! ```
//!
//! Its companion items are built from the generated code, to which the struct is a constant
//! parameter: `residual::vjp`'s pullback gives `()` for `line` (a type with no gradient in
//! it, never a `None` standing for one) and `Some` cotangents for the tensors, and
//! `residual::jvp` takes tangents for the tensors only. The variables' gradients come from
//! a tape recording the call (or `vjp`'s forward, which runs the same recordable ops), and
//! their tangents from a `ForwardAccumulator` watching them. A variable taken as a
//! parameter itself (`w: &Variable<f64>`) is an input of the node: `vjp` takes its value
//! and gives its cotangent.
//!
//! ## Structs of floats (scalar mode)
//!
//! A parameter set or a model of plain floats (`f32`/`f64` fields, `Vec`s and arrays of
//! them, nested such structs) derives [`Differentiable`](derive@crate::Differentiable), and
//! a parameter of its type marked `#[differentiable]` gets its gradient back as a value of
//! the same struct: every float field holds its partial derivative, every array its gradient
//! of the same length. Fields of an integer, `bool`, `char` or `String` type (or arrays and
//! tuples of those), references,
//! and fields marked `#[constant]` are constants: the gradient holds a copy. Unmarked, a
//! struct parameter stays a constant, as before. A writer (`fn f(#[differentiable] p: &P,
//! x: &[f64], out: &mut [f64])`, returning nothing) takes one too: its `grad_into` and
//! `vjp`'s pullback give the struct's gradient of the output's values as they give the
//! arrays'.
//!
//! ```
//! use gradtape::{Differentiable, differentiable};
//!
//! #[derive(Differentiable, Debug, Clone, PartialEq)]
//! struct Line {
//!     w: Vec<f64>,
//!     b: f64,
//!     #[constant]
//!     name: String,
//! }
//!
//! #[differentiable]
//! fn squared_error(#[differentiable] line: &Line, x: &[f64], y: f64) -> f64 {
//!     let mut z = line.b;
//!     for i in 0..x.len() {
//!         z += line.w[i] * x[i];
//!     }
//!     (z - y) * (z - y)
//! }
//!
//! let line = Line { w: vec![1.0, 2.0], b: 0.5, name: "fit".into() };
//! // z = 1·3 + 2·1 + 0.5 = 5.5, z − y = 1.5: ∂/∂w = 2·1.5·x, ∂/∂b = 2·1.5, ∂/∂x = 2·1.5·w
//! let (value, (d_line, d_x, d_y)) = squared_error::grad(&line, &[3.0, 1.0], 4.0);
//! assert_eq!(value, 2.25);
//! assert_eq!(d_line, Line { w: vec![9.0, 3.0], b: 3.0, name: "fit".into() });
//! assert_eq!((d_x, d_y), (vec![3.0, 6.0], -3.0));
//!
//! // tape-free into the caller's buffers (`+=`): a struct's buffer is a value of the struct
//! let (mut d_line, mut d_x, mut d_y) = (line.zero_like(), [0.0; 2], 0.0);
//! squared_error::grad_into(&line, &[3.0, 1.0], 4.0, &mut d_line, &mut d_x, &mut d_y);
//! assert_eq!(d_line.w, vec![9.0, 3.0]);
//!
//! // forward mode: a struct's tangent is a value of the struct
//! let t_line = Line { w: vec![0.0, 0.0], b: 1.0, name: String::new() };
//! assert_eq!(squared_error::jvp(&line, &[3.0, 1.0], 4.0, &t_line, &[0.0; 2], 0.0), (2.25, 3.0));
//! ```
//!
//! **How.** A proc macro sees no types, so the fields are found by how the body reads
//! them: a field path indexed, iterated, measured (`len`) or borrowed whole (`&p.w`) is an
//! array; one read in arithmetic, as a call's argument, by a `let` with no type or a float
//! method is a float; one read only where a constant goes (an index, a range, a condition
//! or comparison, a `match` whose patterns bind nothing, an integer cast, a `let` typed
//! with an integer, `println!`) is a constant. Where a value may flow on (a `match` or
//! `if let` whose pattern binds it, a `let` typed with an alias or a tuple), the read is a
//! value's. The function is then differentiated through a hidden twin that takes each
//! float and array path as a parameter of its own (`line_b: f64`, `line_w: &[f64]`), which
//! every form above already differentiates; `f::GENERATED` shows the twin's code. The
//! companion items take and give the struct: `vjp`'s pullback gives `Option<Line>` (and
//! takes a `&mut [F]` output's cotangent buffer after the result's, as any writer's does), `grad`
//! a `Line`, `grad_into` accumulates into a `&mut Line` (also for a function with no array
//! parameter, built on `grad`: no allocation), `jvp` takes a `&Line` tangent. A
//! wrong guess is never a gradient of the wrong thing: each lifted path's value is read
//! through a check of its type spanned at the field (`p.n` of a `usize` read in arithmetic
//! is a compile error there, naming the fix; so is a float field read only through `as`,
//! whose gradient would be lost).
//!
//! **Passed on whole.** A model is built of layers: the marked struct, or a field of it
//! holding a struct or an array, may be handed whole to another annotated function
//! (`dense(&m.hidden, x)`, `dense(layer, x)`, `sum_of_squares(&m.w)`) or be the receiver
//! of another annotated method whose `self` is marked (`self.first.forward(x)`,
//! `layer.forward(x)`, and `self.predict(x)` in a method whose `self` is marked: a model's
//! `loss` calling its own `predict`), or be given whole to another annotated method whose
//! parameter is marked (`well.energy(&state, x)`, `well.energy(&m.state, x)`; in a loop
//! and a checkpointed loop too). The callee's own gradient of that struct (its pullback's
//! `Option<S>`) is added into the caller's gradient, so a model's gradient is gathered from
//! its layers' functions as written. The field's type is named through the derive (a
//! struct whose `Differentiable` is written by hand names none: a compile error at the
//! parameter); a callee that holds the struct constant (an unmarked parameter or `self`)
//! would lose its gradient, and is a compile error at the argument.
//!
//! ```
//! use gradtape::{Differentiable, differentiable};
//!
//! #[derive(Differentiable, Clone)]
//! struct Dense {
//!     w: Vec<f64>,
//!     b: f64,
//! }
//!
//! impl Dense {
//!     #[differentiable]
//!     fn forward(#[differentiable] &self, x: &[f64]) -> f64 {
//!         let mut z = self.b;
//!         for i in 0..x.len() {
//!             z += self.w[i] * x[i];
//!         }
//!         z.tanh()
//!     }
//! }
//!
//! #[derive(Differentiable, Clone)]
//! struct TwoLayer {
//!     hidden: Dense,
//!     out: Dense,
//! }
//!
//! #[differentiable]
//! fn loss(#[differentiable] m: &TwoLayer, x: &[f64], y: f64) -> f64 {
//!     let h = m.hidden.forward(x);
//!     let features = [h, h * h];
//!     let o = m.out.forward(&features);
//!     (o - y) * (o - y)
//! }
//!
//! let m = TwoLayer {
//!     hidden: Dense { w: vec![0.5, -0.3], b: 0.1 },
//!     out: Dense { w: vec![1.2, 0.4], b: 0.0 },
//! };
//! let (value, (d_m, _, _)) = loss::grad(&m, &[1.0, 2.0], 0.5);
//! // the hidden layer's bias, against a central difference
//! let h = 1e-6;
//! let (mut up, mut down) = (m.clone(), m.clone());
//! up.hidden.b += h;
//! down.hidden.b -= h;
//! let fd = (loss(&up, &[1.0, 2.0], 0.5) - loss(&down, &[1.0, 2.0], 0.5)) / (2.0 * h);
//! assert_eq!(value, loss(&m, &[1.0, 2.0], 0.5));
//! assert!((d_m.hidden.b - fd).abs() < 1e-8);
//! ```
//!
//! **Rejected, with the macro's message at the user's tokens:** the marked parameter used
//! whole other than passed on (copied, returned: read the fields and pass those), a field
//! passed whole and also read as a float, a field
//! written (copy it into a local), a binding shadowing the parameter, a field read both as
//! an array and as a float, a field read inside a macro other than the printing and
//! assertion ones, a marked parameter that is no struct (floats and arrays need no mark)
//! or taken by `&mut`, and a result that is no float, tuple, array or struct of floats
//! (below). Arrays of rows or of structs inside
//! the struct are not differentiable fields yet (mark them `#[constant]` to read them as
//! data). Without the derive, the type is "not `Differentiable`", at the parameter's type.
//!
//! ## Structs as results
//!
//! A function may return a struct of floats (deriving
//! [`Differentiable`](derive@crate::Differentiable)) built by a literal: an integrator's
//! step returning the new state. It is a vector-valued function, as one returning a tuple
//! is: `vjp`'s pullback takes the result's cotangent as a value of the struct (every field
//! its cotangent) and `jvp` gives the tangent as one. An annotated caller reads the result
//! by its fields (`let s = step(..);` then `s.x`, `step(..).x`, `let State { x, v } =
//! step(..);`, and `s = step(..);` again of a `let mut s = step(..);`), and a local struct
//! may be replaced by it and passed whole, as an integrator does, `s = step(&s, dt);`:
//!
//! ```
//! use gradtape::{Differentiable, differentiable};
//!
//! #[derive(Differentiable, Debug, Clone, Copy, PartialEq)]
//! struct State {
//!     x: f64,
//!     v: f64,
//! }
//!
//! /// One explicit-Euler step of `x' = v`, `v' = -k x`.
//! #[differentiable]
//! fn step(#[differentiable] s: &State, k: f64, dt: f64) -> State {
//!     State {
//!         x: s.x + dt * s.v,
//!         v: s.v - dt * k * s.x,
//!     }
//! }
//!
//! let s = State { x: 1.0, v: 0.5 };
//! let (next, pullback) = step::vjp(&s, 2.0, 0.1);
//! assert_eq!(next, step(&s, 2.0, 0.1));
//! // the cotangent of the result's `x`: ∂x'/∂s = (1, dt), ∂x'/∂k = 0, ∂x'/∂dt = v
//! let (d_s, d_k, d_dt) = pullback(State { x: 1.0, v: 0.0 });
//! assert_eq!(d_s, Some(State { x: 1.0, v: 0.1 }));
//! assert_eq!((d_k, d_dt), (Some(0.0), Some(0.5)));
//! // forward mode: along k, the tangent of the result is a state
//! let (_, tangent) = step::jvp(&s, 2.0, 0.1, &State { x: 0.0, v: 0.0 }, 1.0, 0.0);
//! assert_eq!(tangent, State { x: 0.0, v: -0.1 });
//!
//! /// The energy after `n` steps, the state a local struct passed to each step and
//! /// replaced by its result.
//! #[differentiable]
//! fn energy_after(x0: f64, k: f64, n: usize) -> f64 {
//!     let mut s = State { x: x0, v: 0.0 };
//!     for _ in 0..n {
//!         s = step(&s, k, 0.01);
//!     }
//!     0.5 * s.v * s.v + 0.5 * k * s.x * s.x
//! }
//!
//! let (value, [d_x0, d_k]) = energy_after::grad(1.0, 4.0, 100);
//! assert_eq!(value, energy_after(1.0, 4.0, 100));
//! // both partial derivatives against central differences
//! let h = 1e-6;
//! let fd_x0 = (energy_after(1.0 + h, 4.0, 100) - energy_after(1.0 - h, 4.0, 100)) / (2.0 * h);
//! let fd_k = (energy_after(1.0, 4.0 + h, 100) - energy_after(1.0, 4.0 - h, 100)) / (2.0 * h);
//! assert!((d_x0 - fd_x0).abs() < 1e-6 && (d_k - fd_k).abs() < 1e-6);
//! ```
//!
//! A caller may also hold the result whole, as one value: pass it on to a function taking
//! the struct (`norm(&s)`, `norm(&step(..))`), call an annotated method of it whose
//! `self` is marked (`s.energy(k)`; one returning a struct or a tuple read by its parts,
//! `let t = s.advance(dt); t.x`, `let (a, b) = s.stats(k);`), copy or clone it (`let t = s;`), read its fields
//! beside that (`norm(&s) + s.x`), replace it by the next step's in a loop (`let mut s =
//! step(..); for .. { s = step(&s, k, dt); }`, checkpointed too), choose it by a branch
//! (`let s = if c { a.kick(..) } else { step(..) };`, a `match`, then `s.energy(k)` too),
//! and return it (`fn run(..) -> State { let s = step(..); s }`, or `step(..)` as the
//! result itself):
//!
//! ```
//! # use gradtape::{Differentiable, differentiable};
//! # #[derive(Differentiable, Debug, Clone, Copy, PartialEq)]
//! # struct State {
//! #     x: f64,
//! #     v: f64,
//! # }
//! # #[differentiable]
//! # fn step(#[differentiable] s: &State, k: f64, dt: f64) -> State {
//! #     State {
//! #         x: s.x + dt * s.v,
//! #         v: s.v - dt * k * s.x,
//! #     }
//! # }
//! #[differentiable]
//! fn norm(#[differentiable] s: &State) -> f64 {
//!     (s.x * s.x + s.v * s.v).sqrt()
//! }
//!
//! /// The state after `n` steps from `(x0, 0)`, returned whole.
//! #[differentiable]
//! fn run(x0: f64, k: f64, n: usize) -> State {
//!     let mut s = step(&State { x: x0, v: 0.0 }, k, 0.01);
//!     for _ in 1..n {
//!         s = step(&s, k, 0.01);
//!     }
//!     s
//! }
//!
//! /// The distance from the origin after `n` steps, plus the position.
//! #[differentiable]
//! fn reach(x0: f64, k: f64, n: usize) -> f64 {
//!     let s = run(x0, k, n);
//!     norm(&s) + s.x
//! }
//!
//! let (value, [d_x0, d_k]) = reach::grad(1.0, 4.0, 50);
//! assert_eq!(value, reach(1.0, 4.0, 50));
//! let h = 1e-6;
//! let fd_x0 = (reach(1.0 + h, 4.0, 50) - reach(1.0 - h, 4.0, 50)) / (2.0 * h);
//! let fd_k = (reach(1.0, 4.0 + h, 50) - reach(1.0, 4.0 - h, 50)) / (2.0 * h);
//! assert!((d_x0 - fd_x0).abs() < 1e-6 && (d_k - fd_k).abs() < 1e-6);
//! // `run` returns the struct on: its pullback takes a value of it
//! let (end, pullback) = run::vjp(1.0, 4.0, 50);
//! assert_eq!(end, run(1.0, 4.0, 50));
//! let (d_x0_of_x, _, _) = pullback(State { x: 1.0, v: 0.0 });
//! let fd = (run(1.0 + h, 4.0, 50).x - run(1.0 - h, 4.0, 50).x) / (2.0 * h);
//! assert!((d_x0_of_x.unwrap() - fd).abs() < 1e-6);
//! ```
//!
//! **How.** As for a struct parameter, the macro sees no types: the fields are the ones the
//! literal names (each `return` and the body's end give one, through `if`/`else` and
//! `match` arms, all naming the fields in the same order), and the function is
//! differentiated through a hidden twin returning them as a tuple of the function's float
//! type: for a function generic over it, its float parameter's or type parameter's; for a
//! method, its first float parameter's, else `f64`; for any other function the struct's
//! own (its first field's type, so `fn rhs(#[differentiable] s: &Narrow) -> Narrow` of a
//! struct of `f32` is differentiated at `f32`); `f::GENERATED`
//! shows the twin's code. A caller holding the result whole knows nothing of its fields
//! and needs not: the struct is one differentiable value, its cotangent a value of the
//! struct (the derive makes it summable, `generated::Accumulate`), passed to the callee's
//! pullback, given by a pullback taking the struct, and added field by field; a field read
//! of it (`s.x`) gives the pullback a zero of the struct holding the field's cotangent.
//! A caller reading
//! the result by its fields calls the callee's `vjp` and takes the fields it reads as the
//! call's parts, a tuple result's; its adjoint gives the callee's pullback a zero of the
//! struct (`Differentiable::zero_like`) holding the read fields' cotangents. A local struct
//! passed whole (`step(&s, dt)`, `norm(&s)`, `sim.advance(&s)`) is built again from its
//! fields' locals, which the call takes one by one: the callee's gradient of the struct
//! (its pullback's `Option<S>`, so the parameter must be marked `#[differentiable]`) gives
//! each field's, and its tangent is the struct of the fields' tangents. A field that is
//! no float of that type is a compile error at the field, in the macro's words.
//!
//! A method returns a struct the same way (its `self` constant, or marked), and an
//! associated function of an `impl` block carrying `#[differentiable]` too: their items
//! are `step_vjp`, `step_jvp` and `step_primal` beside them, and a caller reads
//! `sim.step(..)` or `Sim::start(..)` by its fields as a function's.
//!
//! **Rejected, with the macro's message at the user's tokens:** a result that is a literal
//! at one of its places and a value held whole at another (return the literal of its
//! fields, `State { x: s.x, v: s.v }`, at both), a literal with `..base`, literals naming
//! the fields in two orders, an associated function returning a struct annotated without
//! its `impl` block (it cannot place its items there), a field whose value is no float by
//! its spelling (an integer or `bool` literal, a comparison, an integer cast or parameter);
//! with the runtime's message there: a field of another type than the float type (at the
//! field; so a struct mixing `f32` and `f64` fields is that message at each field of the
//! other type, `tests/ui/differentiable/struct-mixing-float-types.rs`), and a struct (or
//! any differentiable value) passed to a parameter its callee holds constant (at the
//! argument).
//!
//! ## Arrays as results
//!
//! A function may return an array of floats whose length is a literal, `[f64; 3]` (or
//! `[T; 3]` for a float type parameter): a cross product, an acceleration, an
//! integrator's next state. Its result positions are any value of the array's type: a
//! literal `[a, b, c]`, a repeat `[v; 3]`, a local buffer filled and returned (`out`),
//! `*p` of a parameter, another call's result, through `if`/`else`, `match` and `return`.
//! `vjp`'s pullback takes the result's cotangent as an array and `jvp` gives the tangent
//! as one. An annotated caller that indexes or iterates the result (`let c = cross(a,
//! b);` then `c[i]`, `c.iter()`, `for v in c.iter()`, `let [x, y, z] = cross(a, b);`,
//! `s = step(&s, dt);` of a local array `s`) holds it as a local array of its own, and
//! one that passes it on whole (`norm(&cross(a, b))`) holds it as one value. An array of
//! rows, `[[f64; 2]; 2]` (a rotation, an outer product, a Jacobian: at most 12 elements
//! in all), is returned and read the same way, row-major: a caller reads it by rows
//! (`r[0][1]`, `let row = r[1];`, `for row in r.iter()`, `r.iter().map(|row| ..)`, `let
//! [[c, s], [ms, c2]] = rotation(t);`, a row passed on, `dot(&r[0], x)`):
//!
//! ```
//! use gradtape::differentiable;
//!
//! #[differentiable]
//! fn cross(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
//!     [
//!         a[1] * b[2] - a[2] * b[1],
//!         a[2] * b[0] - a[0] * b[2],
//!         a[0] * b[1] - a[1] * b[0],
//!     ]
//! }
//!
//! let (a, b) = ([0.3, -1.2, 2.0], [1.5, 0.7, -0.4]);
//! let (c, pullback) = cross::vjp(&a, &b);
//! assert_eq!(c, cross(&a, &b));
//! // the cotangent of the result's first element: ∂c₀/∂a = (0, b₂, -b₁)
//! let (d_a, d_b) = pullback([1.0, 0.0, 0.0]);
//! assert_eq!(d_a, Some([0.0, b[2], -b[1]]));
//! assert_eq!(d_b, Some([0.0, -a[2], a[1]]));
//!
//! /// An oscillator's right-hand side, and one explicit-Euler step of it.
//! #[differentiable]
//! fn rhs(s: &[f64; 2], k: f64) -> [f64; 2] {
//!     [s[1], -k * s[0]]
//! }
//!
//! #[differentiable]
//! fn energy_after(s0: &[f64; 2], k: f64, n: usize) -> f64 {
//!     let mut s = *s0;
//!     for _ in 0..n {
//!         let ds = rhs(&s, k);
//!         for i in 0..2 {
//!             s[i] += 0.01 * ds[i];
//!         }
//!     }
//!     0.5 * s[1] * s[1] + 0.5 * k * s[0] * s[0]
//! }
//!
//! let (value, (d_s0, d_k)) = energy_after::grad(&[1.0, 0.0], 4.0, 100);
//! assert_eq!(value, energy_after(&[1.0, 0.0], 4.0, 100));
//! let h = 1e-6;
//! let fd_k = (energy_after(&[1.0, 0.0], 4.0 + h, 100)
//!     - energy_after(&[1.0, 0.0], 4.0 - h, 100))
//!     / (2.0 * h);
//! assert!((d_k - fd_k).abs() < 1e-6);
//! let fd_x0 = (energy_after(&[1.0 + h, 0.0], 4.0, 100)
//!     - energy_after(&[1.0 - h, 0.0], 4.0, 100))
//!     / (2.0 * h);
//! assert!((d_s0[0] - fd_x0).abs() < 1e-6);
//!
//! /// A rotation matrix, its pullback taking the cotangent as rows.
//! #[differentiable]
//! fn rotation(t: f64) -> [[f64; 2]; 2] {
//!     let (s, c) = t.sin_cos();
//!     [[c, -s], [s, c]]
//! }
//!
//! let (r, pullback) = rotation::vjp(0.5);
//! assert_eq!(r, rotation(0.5));
//! // d r₀₁ / dt = d(-sin t)/dt = -cos t
//! let (d_t,) = pullback([[0.0, 1.0], [0.0, 0.0]]);
//! assert_eq!(d_t, Some(-0.5f64.cos()));
//!
//! #[differentiable]
//! fn rotated_y(t: f64, x: &[f64; 2]) -> f64 {
//!     let r = rotation(t);
//!     r[1][0] * x[0] + r[1][1] * x[1]
//! }
//!
//! // d/dt (sin t · x₀ + cos t · x₁) = cos t · x₀ - sin t · x₁
//! let (_, (d_t, _)) = rotated_y::grad(0.5, &[2.0, 3.0]);
//! assert!((d_t - (0.5f64.cos() * 2.0 - 0.5f64.sin() * 3.0)).abs() < 1e-15);
//! ```
//!
//! **How.** The array is differentiated as the tuple of its elements, through a hidden
//! twin as a struct result is (above; `f::GENERATED` shows the twin's code, each result
//! position the tuple of its elements: `(out[0], out[1])` of a buffer, `{ let r =
//! f(..); (r[0], r[1]) }` of a call). The caller cannot know the length, and needs not:
//! beside the twin, the macro writes the function's *writer*, which writes the result
//! into a `&mut [F; N]` (the twin's tuple element by element), and a caller indexing the
//! result makes it a local array (starting as zeros of the writer's type) that the call
//! writes, a call writing a `&mut` array like any other (Enzyme's shadow in place). From
//! there the result is a local array: indexed, iterated, copied, passed on. An array of
//! rows' writer takes `&mut [[F; C]; R]`; the caller, which cannot spell `C`, reads the
//! row length off its local's type (`generated::row_len`); its code reading the result
//! by rows (an element by two indices, a row bound or iterated and indexed) is what
//! tells it the result is rows. A result passed on whole (`trace(&rotation(t))`) is one
//! value, its cotangent summed element by element. A call
//! reading no differentiable value stays as written (a constant array, of any function).
//! A method (`spring.force(x)`) and an associated function of an annotated `impl` block
//! (`Self::rotate(&f, t)`) return arrays the same way, their writers beside them; a
//! method's receiver may be a differentiable struct (`let v = p.velocity(dt); v[0]` of a
//! marked `p`, or a marked `self`), which then gets the method's gradient of its `self`.
//! A struct literal of differentiable values passed to such a call, or to any function
//! writing a `&mut` array (`blend_into(&Blend { a, b }, x, &mut out)`), is given to it
//! field by field, as to a function returning a value; a field holding an array of
//! differentiable values (`Unit { w: [x[1], 0.5, x[2]], b, .. }`, a `Vec` too) is an
//! array passed whole, copied into the call's literal (the caller's array stays its own),
//! and its constant fields of any type (a count, a flag) are constants.
//!
//! **Rejected:** an array whose length is no literal (`[f64; N]`, `[[f64; N]; 3]` of a
//! const generic: the twin's tuple needs the length) or of more than 12 elements (the
//! most parts a result's tuple has, and so a tuple result's parts and a struct result's
//! fields: write longer results into a `&mut [f64]` parameter), an array literal (or a
//! row literal) of another length than the result's, and an indexed call's result of a
//! function that is not annotated (the runtime's message at its name).
//!
//! ## Options as results
//!
//! A function may return `Option<F>` of its float type (`f32`, `f64` or a float type
//! parameter): a root that may not exist, a crossing, a ray's hit, a ratio undefined at
//! zero. Its result positions are `Some(value)`, `None`, or any other option (a local
//! built in branches or a loop, another such function's call), and `e?` returns `None` as
//! it does in Rust. `grad`, `vjp` and `jvp` give `None` where the function returns
//! `None`, and otherwise what a float function's give (`grad` the value and the gradient,
//! `vjp` the value and the pullback of its cotangent); there is no `grad_into`. An
//! annotated caller reads the option as it reads an option local (above): `match` (with
//! guards), `if let`, `let Some(v) = .. else`, `unwrap_or`, `map_or`, `expect`, `unwrap`,
//! `is_some`, on the call itself or on a local holding it, also inside an iterator's
//! closure (`x.iter().map(|&v| inverse(v).unwrap_or(0.0)).sum()`):
//!
//! ```
//! use gradtape::differentiable;
//!
//! /// The larger real root of a t² + b t + c, none for a negative discriminant.
//! #[differentiable]
//! fn larger_root(a: f64, b: f64, c: f64) -> Option<f64> {
//!     let discriminant = b * b - 4.0 * a * c;
//!     if discriminant < 0.0 {
//!         return None;
//!     }
//!     Some((-b + discriminant.sqrt()) / (2.0 * a))
//! }
//!
//! // t² - 3t + 1: the root (3 + √5) / 2, and d/dc = -1 / √5
//! let (root, [_, _, d_c]) = larger_root::grad(1.0, -3.0, 1.0).unwrap();
//! assert_eq!(Some(root), larger_root(1.0, -3.0, 1.0));
//! assert!((d_c + 1.0 / 5.0_f64.sqrt()).abs() < 1e-12);
//! assert!(larger_root::grad(1.0, 1.0, 1.0).is_none());
//!
//! /// When a ball thrown up at `speed` from `height` lands (zero if it never does).
//! #[differentiable]
//! fn landing_time(height: f64, speed: f64, gravity: f64) -> f64 {
//!     // 0.5 g t² - v t - h = 0
//!     match larger_root(0.5 * gravity, -speed, -height) {
//!         Some(t) if t > 0.0 => t,
//!         _ => 0.0,
//!     }
//! }
//!
//! let (t, [d_height, _, _]) = landing_time::grad(2.0, 3.0, 9.8);
//! let h = 1e-6;
//! let fd = (landing_time(2.0 + h, 3.0, 9.8) - landing_time(2.0 - h, 3.0, 9.8)) / (2.0 * h);
//! assert!(t > 0.0 && (d_height - fd).abs() < 1e-6);
//! ```
//!
//! **How.** The option is differentiated as two numbers, through a hidden twin returning
//! them as a tuple: the value (zero for `None`) and the variant, `1` for `Some` and `-1`
//! for `None` (`generated::option_parts`), a constant whose derivative is zero.
//! `f::GENERATED` shows the twin's code. A caller cannot know the callee's result type,
//! and needs not: where an option local is initialised by a function's call (a `match`,
//! an `if let` or a method on the call is read from such a local), its uses say it is an
//! option, and when the call reads a differentiable value it reads the call's two parts
//! through the callee's companion (`f::__gradtape_option`, a call with a tuple result),
//! its flag the variant's sign. A call reading no differentiable value stays as written
//! (an option of constants, of any function and any type).
//!
//! **Rejected:** a method or associated function with an `Option` result (write a free
//! function taking the struct), and an option of a differentiable value from a function
//! that is not annotated (the runtime's message at its name).
//!
//! # Methods
//!
//! `#[differentiable]` works on methods taking `&self` (or `self`) in an `impl` block.
//! `self` is a constant parameter, as an unmarked struct parameter is; marked
//! `#[differentiable] &self` (or `self`) in scalar mode, it is differentiated as a struct of
//! floats (above): a layer's or a model's own weights get their gradient.
//!
//! - **Tensor mode** (a layer's or model's `forward`): `self` may hold variables, so the
//!   method runs op by op on the caller's tapes, as written, and its gradients reach the
//!   variables inside `self` (through `#[derive(Sources)]`). It gets no companion items
//!   and may therefore sit in a trait's `impl` too (`impl Layer for Dense`). Other
//!   annotated functions call it like any tensor function. An associated function (no
//!   `self`) of a tensor `impl` block marked `#[differentiable]` runs so too. Since the
//!   tape records the body as written, one the generated adjoint could not transform (a
//!   local `Vec` of tensors, below) is accepted as well; `strict` refuses both.
//! - **Scalar mode** (a physical model's `energy`, a parameter set's `residual`): the
//!   companion items are associated functions beside the method, named after it:
//!   `energy_vjp` (whose pullback gives `()` for `self`), `energy_jvp`, `energy_grad`,
//!   `energy_grad_into` with array parameters, `energy_primal` and `ENERGY_GENERATED`.
//!   An annotated caller's `s.energy(x)` on differentiable arguments calls
//!   `s.energy_vjp(x)` (or `s.energy_jvp(..)`), so the receiver may be any expression of
//!   a type with such a method (a concrete type: a generic `P: Potential` has no such
//!   items). An `impl` block of a trait cannot hold the extra items: put
//!   `#[differentiable]` on the block too, and they go into an inherent `impl` of the type
//!   beside it, `pub`:
//!
//! ```
//! use gradtape::differentiable;
//!
//! trait Potential {
//!     fn energy(&self, x: f64) -> f64;
//! }
//!
//! struct Spring {
//!     k: f64,
//! }
//!
//! #[differentiable]
//! impl Potential for Spring {
//!     #[differentiable]
//!     fn energy(&self, x: f64) -> f64 {
//!         0.5 * self.k * x * x
//!     }
//! }
//!
//! let spring = Spring { k: 3.0 };
//! assert_eq!(spring.energy_grad(2.0), (6.0, [6.0]));
//! ```
//!
//! **Associated functions** (no `self`, scalar mode): mark the function and put
//! `#[differentiable]` on its `impl` block too, and its companion items are associated
//! functions beside it, as a method's (`Integrator::rate_grad`, `rate_vjp`, `rate_jvp`,
//! `rate_grad_into`, `RATE_GENERATED`). An annotated caller's `Self::rate(k, x)` or
//! `Integrator::rate(k, x)` calls them, straight-line, in loops and recursively; a type of
//! the standard library (`Vec::from`, `Box::new`) is not taken for one. Annotated alone,
//! an associated function cannot place its items (a macro on it cannot see the block):
//! one that names `Self` is the macro's error saying so; a call of one that is not
//! annotated is an error at its name ("has no companion items").
//!
//! ```
//! use gradtape::differentiable;
//!
//! struct Integrator {
//!     k: f64,
//!     dt: f64,
//! }
//!
//! #[differentiable]
//! impl Integrator {
//!     #[differentiable]
//!     fn rate(k: f64, x: f64) -> f64 {
//!         -k * x * x * x
//!     }
//!
//!     #[differentiable]
//!     fn step(&self, x: f64) -> f64 {
//!         x + self.dt * Self::rate(self.k, x)
//!     }
//! }
//!
//! // d/dk = −x³, d/dx = −3 k x²
//! assert_eq!(Integrator::rate_grad(2.0, 0.5), (-0.25, [-0.125, -1.5]));
//! let integrator = Integrator { k: 2.0, dt: 0.1 };
//! let (_, [d_x]) = integrator.step_grad(0.5);
//! assert!((d_x - (1.0 - 0.1 * 1.5)).abs() < 1e-15);
//! ```
//!
//! With `self` marked, `self`'s gradient comes first, a value of the struct (the type
//! derives [`Differentiable`](derive@crate::Differentiable)); `{method}_vjp`'s pullback
//! gives `Option<Self>` for it, `{method}_jvp` takes a `&Self` tangent after the others,
//! `{method}_grad_into` a `&mut Self` buffer. An annotated caller's `n.activation(x)`
//! treats the receiver as a constant, as before. `self` is read by field: a method called
//! on it (`self.rest()`) is the macro's error, since the gradient through that method's
//! reads could not be followed.
//!
//! ```
//! use gradtape::{Differentiable, differentiable};
//!
//! #[derive(Differentiable, Debug, PartialEq)]
//! struct Neuron {
//!     w: [f64; 2],
//!     b: f64,
//! }
//!
//! impl Neuron {
//!     #[differentiable]
//!     fn activation(#[differentiable] &self, x: &[f64]) -> f64 {
//!         (self.w[0] * x[0] + self.w[1] * x[1] + self.b).tanh()
//!     }
//! }
//!
//! let neuron = Neuron { w: [0.5, -0.5], b: 0.0 };
//! // w·x + b = 0: tanh' = 1, so ∂/∂w = x, ∂/∂b = 1, ∂/∂x = w
//! let (value, (d_neuron, d_x)) = neuron.activation_grad(&[1.0, 1.0]);
//! assert_eq!(value, 0.0);
//! assert_eq!(d_neuron, Neuron { w: [1.0, 1.0], b: 1.0 });
//! assert_eq!(d_x, vec![0.5, -0.5]);
//! ```
//!
//!
//! ```
//! use gradtape::{GradientTape, Sources, Tensor, Variable, differentiable};
//!
//! struct Spring {
//!     k: f64,
//!     rest: f64,
//! }
//!
//! impl Spring {
//!     #[differentiable]
//!     fn energy(&self, x: f64) -> f64 {
//!         let stretch = x - self.rest;
//!         0.5 * self.k * stretch * stretch
//!     }
//! }
//!
//! let spring = Spring { k: 4.0, rest: 1.0 };
//! // k (x − rest) = 4 · 0.5
//! assert_eq!(spring.energy_grad(1.5), (0.5, [2.0]));
//!
//! #[derive(Sources)]
//! struct Dense {
//!     kernel: Variable<f64>,
//!     bias: Variable<f64>,
//! }
//!
//! impl Dense {
//!     #[differentiable]
//!     fn forward(&self, x: &Tensor<f64>) -> Tensor<f64> {
//!         (x.matmul(&self.kernel.value()) + &self.bias.value()).tanh()
//!     }
//! }
//!
//! let layer = Dense {
//!     kernel: Variable::new(Tensor::from_vec(vec![0.5, -0.25], &[2, 1])),
//!     bias: Variable::new(Tensor::from_vec(vec![0.0], &[1])),
//! };
//! let x = Tensor::from_vec(vec![1.0, 2.0], &[1, 2]);
//! let tape = GradientTape::new();
//! let y = tape.record(|| layer.forward(&x).sum());
//! let grads: DenseGradients = tape.gradient(&y, &layer).unwrap();
//! // x W + b = 0, so tanh' = 1 and ∂y/∂W = xᵀ
//! assert_eq!(grads.kernel.unwrap().to_vec(), vec![1.0, 2.0]);
//! ```
//!
//! # Plain helpers: the fallback, and strict mode
//!
//! A call in an annotated body goes to the callee's generated items (`helper::vjp`,
//! `helper::jvp_call`). In `grad_into` and `grad`, the call runs as written and the adjoint
//! calls the hidden `helper::vjp_into` (or `vjp_now`), which recomputes the callee's
//! forward pass and reads its arguments in place instead of keeping copies of every
//! operand for a pullback: on the caller's parameters as they are in straight-line code
//! (*joint*), and on copies the forward code saved of the arguments the body may change in
//! a loop or a branch (*replayed*), each array's cotangent added straight into the
//! caller's. The callee's body then runs twice, which matters only to a body with side
//! effects, such as a `println!`. A proc macro sees one item at a time, so the macro cannot tell
//! whether a callee is annotated; the generated code finds out by name resolution (the
//! callee imported under an alias that a fallback type fills when the callee has no
//! companion), and a call of a function that is not annotated is a compile error at its
//! name: "this function is called from a `#[differentiable]` body on plain numbers but is
//! neither annotated with `#[differentiable]` nor named in `plain(..)`" (in tensor mode
//! under `strict`, "but is not annotated with `#[differentiable]`"). A method of a struct deriving `Differentiable` is found the
//! same way (a fallback method that the struct's own annotated method shadows), and one
//! that is not annotated is the error "this method of a struct deriving `Differentiable`
//! is called from a `#[differentiable]` body but has no companion items", at its name. On
//! a receiver whose type derives nothing (a configuration struct, `spring.energy(x)` of
//! `spring: &Spring`), a method that is not annotated is rustc's "the method
//! `energy_vjp` exists .. but its trait bounds were not satisfied" (E0599), at its name,
//! once per generated function: a fallback for every type would be chosen before an
//! annotated method reached through a `Box`, an `Rc` or a second reference, turning valid
//! calls into errors (`generated::DerivedStruct` says why no bound can tell those types
//! apart). Two ways
//! out for a function, besides annotating the helper (a generic helper can be annotated as
//! it is):
//!
//! - **Scalar mode: name it in `plain(..)`.** `#[differentiable(plain(softplus,
//!   util::norm))]` makes each call of those functions run the helper, unchanged, on dual
//!   numbers (`generated::Dual<T, N>`, which implements `num_traits::Float` and
//!   `FloatConst`): one evaluation with `N` derivative lanes, one per differentiable
//!   number passed, gives the value and every partial derivative exactly. The pullback
//!   multiplies them by the result's cotangent, and `jvp` runs the helper once with one
//!   lane, seeded with the arguments' tangents. The helper must be generic over
//!   `num_traits::Float` and return that type or a tuple of it. Its constant arguments pass
//!   through as they are (integers, slices of data, flags), a float of the caller's type
//!   becoming a constant dual where the helper's parameter is its float type. Each
//!   derivative follows the runtime's rule (ties of `max`/`min` to the first operand, `abs`
//!   0 at 0, `powf`'s exponent 0 where the base is not positive, the rounding family
//!   constant). The cost: one evaluation per call, each operation carrying `N` partials.
//!   A helper that is not generic, or whose parameter is an array, is an error at the call.
//! - **Tensor mode: nothing to do.** A call in a tensor function is replayed on a tape of
//!   its own inside the node (`generated::trace`), so a plain function built from the
//!   runtime's ops records op by op there, and its gradient is the tape's.
//!
//! **A tensor body with no static adjoint runs on a sub-tape.** A free tensor function
//! with a tensor result (or a tuple of them) whose body keeps a local `Vec` of tensors
//! (`vec![..]`, `push`, `k[i]`), hands a closure over tensors on as a value, calls a macro
//! of the user's or a tensor method the vocabulary of ops does not know (a trait of the
//! user's) is not rejected: its body becomes a plain helper, `__gradtape_traced_f` beside
//! it, which the function's node calls on a tape of its own, as it calls any plain
//! helper. Its gradients are the tape's, its cost that of recording the body op by op;
//! the helper's call under `generated::trace` in `f::GENERATED` shows it. A tuple
//! result's helper runs once per call, each part's gradient from that one run's tape
//! (`generated::trace_parts`), as for any plain helper's tuple destructured by `let`.
//!
//! ```
//! use gradtape::{GradientTape, Tensor, differentiable};
//!
//! /// The stages of an iteration kept in a local `Vec`, read back by index.
//! #[differentiable]
//! fn stages(x: &Tensor<f64>, w: &Tensor<f64>) -> Tensor<f64> {
//!     let mut k = vec![x.clone()];
//!     for i in 1..3 {
//!         let next = (&k[i - 1] * w).tanh();
//!         k.push(next);
//!     }
//!     k.iter().sum::<Tensor<f64>>()
//! }
//!
//! let (x, w) = (Tensor::scalar(0.5), Tensor::scalar(0.8));
//! let tape = GradientTape::new();
//! tape.watch(&x);
//! let y = tape.record(|| stages(&x, &w));
//! let dx = tape.gradient(&y, &x).unwrap().unwrap().to_scalar();
//! // y = x + tanh(wx) + tanh(w tanh(wx))
//! let (a, b) = ((0.8_f64 * 0.5).tanh(), 0.8 * (0.8_f64 * 0.5).tanh());
//! let expected = 1.0 + 0.8 * (1.0 - a * a) * (1.0 + 0.8 * (1.0 - b.tanh().powi(2)));
//! assert!((dx - expected).abs() < 1e-12);
//! assert!(stages::GENERATED.contains("__gradtape_traced_stages"));
//! ```
//!
//! ```
//! use gradtape::differentiable;
//! use num_traits::Float;
//!
//! // not annotated: generic over the float type, as numeric helpers are
//! fn softplus<T: Float>(x: T) -> T {
//!     x.exp().ln_1p()
//! }
//!
//! #[differentiable(plain(softplus))]
//! fn loss(w: f64, label: f64) -> f64 {
//!     softplus(w * 1.5) - label * w
//! }
//!
//! let (value, [dw, dlabel]) = loss::grad(0.4, 1.0);
//! assert_eq!(value, loss(0.4, 1.0));
//! let sigma = 1.0 / (1.0 + (-0.6_f64).exp());
//! assert!((dw - (1.5 * sigma - 1.0)).abs() < 1e-15);
//! assert_eq!(dlabel, -0.4);
//! // the fallback is visible in the generated code
//! assert!(loss::GENERATED.contains("dual_vjp"));
//! ```
//!
//! **Strict mode.** `#[differentiable(strict)]` asks that nothing in the body be
//! differentiated at run time by a fallback, and makes each one the macro's error, at the
//! call: a plain helper; a scalar-mode call in a branch or a loop, whose pullback is boxed
//! because it may recurse (a heap allocation per call); a tensor-mode method called on
//! differentiable tensors, or a tensor function (or method) whose body reads tensors the
//! fused node does not see, since both run op by op; a tensor body that would run on a
//! sub-tape (above), whose constructs are then each reported. In tensor mode every called
//! function must be annotated: a plain one is the "not annotated" error above, at its name.
//!
//! ```compile_fail
//! use gradtape::differentiable;
//!
//! fn softplus<T: num_traits::Float>(x: T) -> T {
//!     x.exp().ln_1p()
//! }
//!
//! // error: `strict` allows no fallback, and `softplus` is a plain helper
//! #[differentiable(strict, plain(softplus))]
//! fn loss(w: f64) -> f64 {
//!     softplus(w)
//! }
//! ```
//!
//! # What is rejected, and why
//!
//! What cannot be differentiated is the macro's own compile error, on the offending tokens,
//! all of them reported at once; never a silently wrong gradient. Each case below has a
//! compile-fail test in `tests/ui/differentiable/`:
//!
//! - no differentiable parameter, or a result that is not a float, a float tensor, a
//!   tuple of them, an `Option` of a float, an array of floats or a struct of floats
//!   built by a literal (integers are data: an
//!   integer gradient does not exist), parameters
//!   that are patterns rather than names, tuple parameters (pass the numbers, or an
//!   array);
//! - `unsafe` functions and blocks, `async` functions: their effects have no adjoint;
//! - `&mut` parameters of tensors or numbers, and mutation through references, fields or
//!   indexing: the adjoint would need the overwritten values, which it cannot see;
//! - closures over differentiable values used as values (handed to a function that is not
//!   annotated, stored), rather than called by name or passed by name to a method; macros
//!   that compute (not just read);
//! - methods that turn a differentiable value into plain data (`to_scalar`, `to_vec`, ...):
//!   they would cut the gradient silently (use `stop_gradient` if that is the intent);
//! - a `for` loop over a differentiable tensor (loop over indices instead), indexing a
//!   tensor (it is sliced and gathered with its ops) or anything but a float array by its
//!   name, an index computed from a differentiable value (its derivative would be lost), a
//!   float array copied or returned whole (passed whole to an annotated function it is
//!   differentiated; a fixed-size array `[F; N]` copied into a local is), a row `m[i]` of an array of rows used whole (but for a local's copy, `let r = m[i];`,
//!   and a row of fixed size written whole, `m[i] = r;`), a call writing a `&mut`
//!   float array that writes a part of an array of rows (`&mut m[1..]`), or whose tuple
//!   result is kept whole rather than destructured, a differentiable array handed `&mut`
//!   to the standard library (`std::mem::take(&mut next)`: copy the elements) other than
//!   by `std::mem::swap` of two arrays, `&mut [F]` in a tensor function;
//! - `?` outside a function with an `Option` result, an `if` producing a value without an
//!   `else`, an assignment of a differentiable value inside a condition;
//! - a search (`position`, `find`, `any`, `all`) that is not rewritten (over a `map` or a
//!   `zip`, not the first thing its statement evaluates, an `Option<&F>` from `find`
//!   passed on whole);
//! - a `&mut self` method: its mutation of `self` has no adjoint.
//!
//! A rejected function's errors are the whole answer: its companion items still exist,
//! as stand-ins whose results hold its first error, so the user's own calls of them
//! (`f::grad(x)`, `f::jvp(..)`) and annotated callers of the function add no errors of
//! their own. So do a rejected method's (`s.energy_grad(x)`, `Spring::energy_grad(&s,
//! x)`, an annotated caller's `s.energy(x)`) and a rejected associated function's of an
//! annotated `impl` block (`Integrator::rate_grad(k, x)`), in scalar mode (a tensor
//! method has no companion items).
//!
//! ```compile_fail
//! use gradtape::differentiable;
//!
//! // error: `i64` results cannot be differentiated
//! #[differentiable]
//! fn rounded(x: f64) -> i64 {
//!     x.round() as i64
//! }
//! ```
//!
//! ```compile_fail
//! use gradtape::{Tensor, differentiable};
//!
//! // error: `to_vec` turns a differentiable value into plain data
//! #[differentiable]
//! fn largest(x: &Tensor<f64>) -> Tensor<f64> {
//!     Tensor::scalar(x.to_vec().into_iter().fold(f64::MIN, f64::max))
//! }
//! ```
//!
//! # Limits today
//!
//! Not yet transformed, and so rejected with the messages above: a call of an annotated
//! function that writes a part of an array of rows, or writes a float array and returns a
//! tuple kept whole (destructured, `let (a, b) = f(&x, &mut out);`, it is differentiated),
//! a ragged array of rows (`&[Vec<F>]`) grown
//! by a row (`m.push(row)`), a `&mut [Vec<F>]` output, a ragged row written whole
//! (`m[i] = r` of a `Vec<Vec<F>>`; fixed-size rows are), a row returned (a row is copied
//! whole by `let r = m[i];`, `m[i].clone()`), a row by
//! value (`for row in m` of an owned array) whose loop body also names `m` (loop over the
//! indices and copy the row, `let row = m[k];`), arrays deeper than rows of floats, `windows`/`chunks` other than as a `for`
//! loop's iterator or a reduction's source; scalar-mode methods of a generic
//! `impl<T: Float>` whose floats are the `impl`'s `T`, unless the `impl` block carries
//! `#[differentiable]` too (a method alone cannot see the block's `T: Float`; the block
//! restates it for its marked methods), a type's associated functions called on differentiable numbers
//! of the standard library (`Vec::from(x)`: the macro's error), and an associated function
//! annotated without its `impl` block (see "Methods"). A plain helper
//! (below) takes differentiable numbers, not arrays, and is a function, not a method.
//! Second order in scalar mode is numerical only: no derivative code runs over the
//! generated code on numbers, so a Hessian of a slice function is taken by differences of
//! `f::grad` or `f::jvp` (exact second order is tensor mode's, through tapes).
//! A closure or function pointer passed in and called on differentiable values (`f(x)`
//! with `f: &dyn Fn(f64) -> f64`) is rejected in scalar mode: its body is not the macro's
//! to see (`tests/ui/differentiable/call-of-a-closure-parameter.rs`); in tensor mode the
//! call is replayed op by op on the node's sub-tape.
//! Also rejected today: a struct result held whole given to a function that is not
//! annotated, or to a parameter its callee holds constant
//! (`tests/ui/differentiable/struct-result-used-whole.rs`); a local struct passed whole
//! to a plain helper (`tests/ui/differentiable/struct-result-misuse.rs`);
//! and searches over chains with a `map`, `zip` or `enumerate`, or
//! in a place their statement does not evaluate first (`tests/ui/differentiable/
//! search-left-as-written.rs`: loop over the indices, with a `break`).
