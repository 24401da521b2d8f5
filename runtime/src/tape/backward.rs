//! The reverse sweep: from seeded targets back to the sources, one rule call per node that
//! lies on a path between them.

use std::rc::Rc;

use smallvec::SmallVec;

use super::node::{NO_NODE, Node, NodeId};
use super::recording::TapeCell;
use super::state::TapeState;
use super::structure::SourceKey;
use crate::dtype::AnyTensor;

/// A sweep's inputs, already validated.
pub(crate) struct Sweep<'a> {
    pub targets: &'a [AnyTensor],
    pub seeds: Vec<AnyTensor>,
    pub sources: &'a [SourceKey],
    /// Leading batch axes every cotangent carries (0 for `gradient`; 1 for a jacobian's
    /// vectorised sweep, see `jacobian::batch_rank`).
    pub batch_rank: usize,
    /// Keep the records even on a non-persistent tape (a jacobian sweeping in chunks).
    pub retain: bool,
}

/// Where each source sits on the tape: the nodes whose gradients sum to its gradient.
type SourceNodes = SmallVec<[NodeId; 1]>;

/// Runs the sweep and returns each source's gradient (`None` if unconnected).
pub(crate) fn run(tape: &Rc<TapeCell>, sweep: Sweep<'_>) -> Vec<Option<AnyTensor>> {
    // Set for every sweep, also to 0: a rule that takes a gradient of its own (a fused
    // function's sub-tape) inside a batched sweep must not see the outer batch axes.
    let _batch = super::jacobian::enter_batch(sweep.batch_rank);
    let (target_nodes, source_nodes, end) = {
        let state = tape.borrow();
        let target_nodes: Vec<NodeId> =
            sweep.targets.iter().map(|t| state.lookup(t.id())).collect();
        let source_nodes: Vec<SourceNodes> = sweep
            .sources
            .iter()
            .map(|s| nodes_of_source(&state, s))
            .collect();
        let end = target_nodes
            .iter()
            .filter(|&&n| n != NO_NODE)
            .map(|&n| n as usize + 1)
            .max();
        (target_nodes, source_nodes, end.unwrap_or(0))
    };
    let mut grads: Vec<Option<AnyTensor>> = vec![None; end];
    let mut results: Vec<Option<AnyTensor>> = vec![None; sweep.sources.len()];
    for ((target, node), seed) in sweep.targets.iter().zip(&target_nodes).zip(sweep.seeds) {
        if *node == NO_NODE {
            // Not on the tape: only `gradient(x, x)` itself connects (TensorFlow gives ones).
            for (result, source) in results.iter_mut().zip(sweep.sources) {
                if matches!(source, SourceKey::Tensor(s) if s.id() == target.id()) {
                    accumulate(result, seed.clone());
                }
            }
        } else {
            accumulate(&mut grads[*node as usize], seed);
        }
    }
    if end > 0 {
        sweep_nodes(tape, &mut grads, &source_nodes, end, sweep.retain);
    }
    for (result, nodes) in results.iter_mut().zip(&source_nodes) {
        for &node in nodes {
            if let Some(g) = grads.get(node as usize).and_then(Clone::clone) {
                accumulate(result, g);
            }
        }
    }
    results
}

fn nodes_of_source(state: &TapeState, source: &SourceKey) -> SourceNodes {
    match source {
        SourceKey::Tensor(t) => match state.lookup(t.id()) {
            NO_NODE => SourceNodes::new(),
            node => SourceNodes::from_slice(&[node]),
        },
        SourceKey::Variable(v) => state
            .variable_index(v.id())
            .map(|index| state.variables[index].leaves.clone())
            .unwrap_or_default(),
    }
}

fn accumulate(slot: &mut Option<AnyTensor>, g: AnyTensor) {
    *slot = Some(match slot.take() {
        None => g,
        Some(previous) => previous.accumulate(g),
    });
}

/// Which nodes below `end` lie downstream of a source (or are one): only those need
/// cotangents. Everything else is skipped.
fn relevant_nodes(
    nodes: &[Node],
    source_nodes: &[SourceNodes],
    end: usize,
) -> (Vec<bool>, Vec<bool>) {
    let mut is_source = vec![false; end];
    for &node in source_nodes.iter().flatten() {
        if (node as usize) < end {
            is_source[node as usize] = true;
        }
    }
    let first = is_source.iter().position(|&s| s).unwrap_or(end);
    let mut relevant = is_source.clone();
    for i in first..end {
        if !relevant[i] {
            relevant[i] = nodes[i]
                .inputs
                .iter()
                .any(|&j| j != NO_NODE && relevant[j as usize]);
        }
    }
    (relevant, is_source)
}

fn sweep_nodes(
    tape: &Rc<TapeCell>,
    grads: &mut [Option<AnyTensor>],
    sources: &[SourceNodes],
    end: usize,
    retain: bool,
) {
    let (persistent, recording) = {
        let state = tape.borrow();
        (state.persistent || retain, state.is_recording())
    };
    if recording {
        // A persistent tape differentiating inside its own scope: its rules record onto it,
        // so the node list must stay in place; each node is cloned out before its rule runs.
        let (relevant, is_source) = {
            let state = tape.borrow();
            relevant_nodes(&state.nodes, sources, end)
        };
        for i in (0..end).rev() {
            if relevant[i] {
                let node = tape.borrow().nodes[i].clone();
                step(&node, i, grads, &relevant, is_source[i]);
            }
        }
        return;
    }
    let nodes = std::mem::take(&mut tape.borrow_mut().nodes);
    let (relevant, is_source) = relevant_nodes(&nodes, sources, end);
    if persistent {
        for i in (0..end).rev() {
            if relevant[i] {
                step(&nodes[i], i, grads, &relevant, is_source[i]);
            }
        }
        tape.borrow_mut().nodes = nodes;
    } else {
        // Non-persistent: each node, with the values it saved, is dropped as soon as the
        // sweep has passed it.
        let mut nodes = nodes;
        nodes.truncate(end);
        while let Some(node) = nodes.pop() {
            let i = nodes.len();
            if relevant[i] {
                step(&node, i, grads, &relevant, is_source[i]);
            }
        }
        let mut state = tape.borrow_mut();
        state.nodes = nodes;
        state.clear();
    }
}

/// Pushes node `i`'s cotangent through its rule into its inputs' cotangents.
fn step(node: &Node, i: usize, grads: &mut [Option<AnyTensor>], relevant: &[bool], keep: bool) {
    let g = if keep {
        grads[i].clone()
    } else {
        grads[i].take()
    };
    let Some(g) = g else { return };
    let needs: SmallVec<[bool; 2]> = node
        .inputs
        .iter()
        .map(|&j| j != NO_NODE && relevant[j as usize])
        .collect();
    if !needs.contains(&true) {
        return;
    }
    let input_grads = node.run_rule(&g, &needs);
    for ((&j, need), grad) in node.inputs.iter().zip(needs).zip(input_grads) {
        if let (true, Some(grad)) = (need, grad) {
            accumulate(&mut grads[j as usize], grad);
        }
    }
}
