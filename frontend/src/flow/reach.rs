//! Reachability questions ("can `to` run after `from`?") answered without a table per start
//! node: the checker asks one per reference, and a table per referenced node made a chain of
//! n steps cost n² time and memory.
//!
//! Two labels, built in one linear pass each, answer most questions at once:
//! * strongly connected components numbered in Tarjan's order, in which an edge between two
//!   components always goes from a higher number to a lower one: nodes of one component reach
//!   each other, and a node never reaches a component with a higher number;
//! * a depth-first forest with preorder intervals: a node reaches everything in its subtree.
//!
//! The rest is a search from `from` that only enters components numbered between the two and
//! stops at the first node in `to`'s component or whose subtree holds `to`. On canvases (chains, fans, diamonds,
//! branches that merge) that search ends within a few steps; its worst case is the size of the
//! part of the graph between the two nodes.

use super::super::ir::NodeId;
use super::tarjan;
use std::collections::HashSet;

pub(super) struct Reach {
    /// Component of each node, in Tarjan's numbering (sinks first).
    component: Vec<u32>,
    /// Whether a component is a cycle: several nodes, or one with an edge to itself.
    cyclic: Vec<bool>,
    /// Preorder number of each node in the depth-first forest.
    pre: Vec<u32>,
    /// Largest preorder number in each node's subtree.
    last: Vec<u32>,
}

impl Reach {
    /// Labels for `graph`; the forest starts at `root` when given, so that everything `root`
    /// reaches is in its subtree.
    pub(super) fn new(graph: &[Vec<NodeId>], root: Option<NodeId>) -> Reach {
        let n = graph.len();
        let sccs = tarjan(graph);
        let mut component = vec![0u32; n];
        let mut cyclic = vec![false; sccs.len()];
        for (i, scc) in sccs.iter().enumerate() {
            for v in scc {
                component[v.index()] = i as u32;
            }
            cyclic[i] = scc.len() > 1 || graph[scc[0].index()].contains(&scc[0]);
        }
        let (pre, last) = preorder_intervals(graph, root);
        Reach {
            component,
            cyclic,
            pre,
            last,
        }
    }

    /// Whether the forest's root reaches `v` (or is `v`): the forest starts there.
    pub(super) fn reached_from_root(&self, root: NodeId, v: NodeId) -> bool {
        self.in_subtree(root, v)
    }

    fn in_subtree(&self, root: NodeId, v: NodeId) -> bool {
        let (r, v) = (root.index(), v.index());
        self.pre[r] <= self.pre[v] && self.pre[v] <= self.last[r]
    }

    /// Whether a non-empty path leads from `from` to `to`.
    pub(super) fn reaches(&self, graph: &[Vec<NodeId>], from: NodeId, to: NodeId) -> bool {
        let (cf, ct) = (self.component[from.index()], self.component[to.index()]);
        if from == to || cf == ct {
            return self.cyclic[cf as usize];
        }
        if cf < ct {
            return false;
        }
        if self.in_subtree(from, to) {
            return true;
        }
        let mut seen = HashSet::from([from]);
        let mut stack = vec![from];
        while let Some(v) = stack.pop() {
            for &s in &graph[v.index()] {
                // A node of `to`'s component reaches `to`, as does one whose subtree holds it.
                if self.component[s.index()] == ct || self.in_subtree(s, to) {
                    return true;
                }
                if self.component[s.index()] > ct && seen.insert(s) {
                    stack.push(s);
                }
            }
        }
        false
    }
}

/// Preorder number and last preorder number of each node's subtree in a depth-first forest
/// (iterative, so deep chains do not exhaust the stack), started at `root` first.
fn preorder_intervals(graph: &[Vec<NodeId>], root: Option<NodeId>) -> (Vec<u32>, Vec<u32>) {
    let n = graph.len();
    let mut pre = vec![u32::MAX; n];
    let mut last = vec![0u32; n];
    let mut counter = 0u32;
    let roots = root.map(NodeId::index).into_iter().chain(0..n);
    for r in roots {
        if pre[r] != u32::MAX {
            continue;
        }
        pre[r] = counter;
        counter += 1;
        let mut stack: Vec<(usize, usize)> = vec![(r, 0)];
        while let Some((v, i)) = stack.pop() {
            match graph[v].get(i) {
                Some(s) => {
                    stack.push((v, i + 1));
                    let s = s.index();
                    if pre[s] == u32::MAX {
                        pre[s] = counter;
                        counter += 1;
                        stack.push((s, 0));
                    }
                }
                None => last[v] = counter - 1,
            }
        }
    }
    (pre, last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(edges: &[&[u32]]) -> Vec<Vec<NodeId>> {
        edges
            .iter()
            .map(|s| s.iter().map(|&i| NodeId(i)).collect())
            .collect()
    }

    /// Every answer equals a plain search's, on graphs with cycles, self-edges, joins and
    /// unreachable parts.
    #[test]
    fn agrees_with_a_plain_search() {
        let graphs = [
            g(&[&[1], &[2], &[3], &[]]),
            g(&[&[1, 2], &[3], &[3], &[4], &[]]),
            g(&[&[1], &[2], &[0, 3], &[3], &[], &[4, 0]]),
            g(&[&[2], &[0], &[5], &[1, 4], &[], &[3], &[6, 1]]),
            g(&[&[], &[0], &[1, 3], &[2]]),
        ];
        for graph in &graphs {
            for root in [None, Some(NodeId(0))] {
                let reach = Reach::new(graph, root);
                for from in 0..graph.len() {
                    let mut seen = vec![false; graph.len()];
                    let mut stack = graph[from].clone();
                    while let Some(v) = stack.pop() {
                        if !seen[v.index()] {
                            seen[v.index()] = true;
                            stack.extend(graph[v.index()].iter().copied());
                        }
                    }
                    for (to, &expected) in seen.iter().enumerate() {
                        let (f, t) = (NodeId(from as u32), NodeId(to as u32));
                        assert_eq!(
                            reach.reaches(graph, f, t),
                            expected,
                            "{graph:?} {from} {to}"
                        );
                    }
                }
            }
        }
    }
}
