//! Control flow between nodes as RAGFlow's path extension produces it (BS §16.8), and the facts
//! the checker derives from it.
//!
//! Two graphs are built:
//! * the *run* graph: every way a node can be appended after another, loop back edges included;
//!   "x may have run before c" needs `x` to reach `c` in it (or to run on a parallel branch);
//! * the *once* graph: every loop body taken exactly once, then the loop exits. It is acyclic
//!   for well-formed canvases, which gives each node its possible batch levels and its *guard*.
//!
//! A normal node appends **all** its downstream (an AND split: every branch runs); a Switch or
//! Categorize appends the targets of **one** branch, and a node with an exception route either
//! continues or jumps (OR splits). A node's guard is the condition, over those choices, under
//! which it runs, as a formula in disjunctive normal form. "x has always run when c runs" is
//! then: guard(c) implies guard(x), and x sits at an earlier batch level than c.

mod reach;

use super::catalog::Kind;
use super::ir::{Ir, NodeId};
use reach::Reach;
use std::collections::{HashMap, HashSet, VecDeque};

/// One choice at an OR split: (node, branch). For exception routes branch 0 is "succeeded"
/// and branch 1 "failed".
type Choice = (u32, u32);
/// A conjunction of choices, sorted by node.
type Conj = Vec<Choice>;

/// Beyond this many conjunctions a guard is treated as unknown (no finding is made from it).
const MAX_TERMS: usize = 64;

pub struct Flow {
    run: Vec<Vec<NodeId>>,
    begin: Option<NodeId>,
    reach_run: Reach,
    reach_once: Reach,
    once: Vec<Vec<(NodeId, Option<Choice>)>>,
    /// The once graph without choice labels.
    once_plain: Vec<Vec<NodeId>>,
    /// Shortest and longest distance from `begin` in the once graph (the batches a node can run
    /// in); `None` when unreachable, `usize::MAX` as the longest when a cycle is involved.
    levels: Vec<Option<(usize, usize)>>,
    /// Guards in DNF; `None` when unknown (a cycle, or too large).
    guards: Vec<Option<Vec<Conj>>>,
    /// Number of branches of each OR split, to recognise when all of them are covered.
    arity: HashMap<u32, u32>,
    /// The dominator tree of the once graph, from `begin`.
    dominators: DominatorTree,
}

impl Flow {
    pub fn new(ir: &Ir) -> Flow {
        let n = ir.nodes.len();
        let mut run = vec![Vec::new(); n];
        let mut once: Vec<Vec<(NodeId, Option<Choice>)>> = vec![Vec::new(); n];
        let mut arity = HashMap::new();
        for id in ir.node_ids() {
            let node = ir.node(id);
            let parent = node.parent.map(|p| ir.node(p));
            let loop_parent = parent.filter(|p| matches!(p.kind, Kind::Iteration | Kind::Loop));
            let me = id.0;
            let plain = |targets: &[NodeId]| -> Vec<(NodeId, Option<Choice>)> {
                targets.iter().map(|t| (*t, None)).collect()
            };
            let (mut r, mut o): (Vec<NodeId>, Vec<(NodeId, Option<Choice>)>) = match node.kind {
                Kind::Switch | Kind::Categorize => {
                    arity.insert(me, node.branches.len() as u32);
                    let mut r = Vec::new();
                    let mut o = Vec::new();
                    for (bi, b) in node.branches.iter().enumerate() {
                        for t in &b.targets {
                            r.push(*t);
                            o.push((*t, Some((me, bi as u32))));
                        }
                    }
                    (r, o)
                }
                Kind::Iteration | Kind::Loop => {
                    let t: Vec<NodeId> = node.start.into_iter().collect();
                    (t.clone(), plain(&t))
                }
                Kind::IterationItem | Kind::LoopItem if loop_parent.is_some() => {
                    let p = loop_parent.expect("checked");
                    let mut r = if node.downstream.is_empty() {
                        vec![id]
                    } else {
                        node.downstream.clone()
                    };
                    r.extend(p.downstream.iter().copied());
                    let o = if node.downstream.is_empty() {
                        &p.downstream
                    } else {
                        &node.downstream
                    };
                    (r, plain(o))
                }
                Kind::ExitLoop if parent.is_some_and(|p| p.kind == Kind::Loop) => {
                    let p = parent.expect("checked");
                    (p.downstream.clone(), plain(&p.downstream))
                }
                _ if node.downstream.is_empty() && loop_parent.is_some() => {
                    let p = loop_parent.expect("checked");
                    (p.start.into_iter().collect(), plain(&p.downstream))
                }
                _ => {
                    // An explicit edge back to the enclosing loop's start is a loop back edge:
                    // in the once graph the pass ends and the loop exits.
                    let back = loop_parent.and_then(|p| p.start);
                    let mut o = Vec::new();
                    for t in &node.downstream {
                        if Some(*t) == back {
                            o.extend(plain(&loop_parent.expect("checked").downstream));
                        } else {
                            o.push((*t, None));
                        }
                    }
                    (node.downstream.clone(), o)
                }
            };
            if node.exception.method.is_some() && !node.exception.goto.is_empty() {
                arity.insert(me, 2);
                for edge in o.iter_mut() {
                    if edge.1.is_none() {
                        edge.1 = Some((me, 0));
                    }
                }
                for g in &node.exception.goto {
                    r.push(*g);
                    o.push((*g, Some((me, 1))));
                }
            }

            dedup(&mut r);
            run[id.index()] = r;
            once[id.index()] = o;
        }
        let (levels, guards) = match ir.begin {
            Some(b) => analyse_once(&once, b, &arity),
            None => (vec![None; n], vec![None; n]),
        };
        let once_plain: Vec<Vec<NodeId>> = once
            .iter()
            .map(|s| s.iter().map(|e| e.0).collect())
            .collect();
        let idom = match ir.begin {
            Some(b) => dominators(&once_plain, b),
            None => vec![None; n],
        };
        Flow {
            reach_run: Reach::new(&run, ir.begin),
            reach_once: Reach::new(&once_plain, ir.begin),
            run,
            begin: ir.begin,
            dominators: DominatorTree::new(&idom),
            once,
            once_plain,
            levels,
            guards,
            arity,
        }
    }

    /// Successors in the run graph.
    pub fn successors(&self, n: NodeId) -> &[NodeId] {
        &self.run[n.index()]
    }

    /// Whether `to` can be appended to the path after `from` has run (a non-empty path).
    pub fn can_reach(&self, from: NodeId, to: NodeId) -> bool {
        self.reach_run.reaches(&self.run, from, to)
    }

    /// Like [`Flow::can_reach`] with every loop body run once.
    pub fn can_reach_once(&self, from: NodeId, to: NodeId) -> bool {
        self.reach_once.reaches(&self.once_plain, from, to)
    }

    /// Whether the node can run at all in a run starting at `begin`.
    pub fn is_reachable(&self, n: NodeId) -> bool {
        self.begin
            .is_some_and(|b| self.reach_run.reached_from_root(b, n))
    }

    /// `(shortest, longest)` batch level of a node in the once graph.
    pub fn levels(&self, n: NodeId) -> Option<(usize, usize)> {
        self.levels[n.index()]
    }

    /// Whether every path from `begin` to `b` passes through `a` (loops run once).
    pub fn dominates(&self, a: NodeId, b: NodeId) -> bool {
        self.dominators.dominates(a, b)
    }

    /// Whether `x` runs in every run in which `c` runs (`None` when it cannot be decided).
    pub fn always_runs_with(&self, x: NodeId, c: NodeId) -> Option<bool> {
        let gx = self.guards[x.index()].as_ref()?;
        let gc = self.guards[c.index()].as_ref()?;
        Some(implies(gc, gx))
    }

    /// Whether `x` and `c` can both run in one run (`None` when it cannot be decided): false
    /// when they sit on different branches of the same split.
    pub fn can_run_together(&self, x: NodeId, c: NodeId) -> Option<bool> {
        let gx = self.guards[x.index()].as_ref()?;
        let gc = self.guards[c.index()].as_ref()?;
        Some(gx.iter().any(|tx| gc.iter().any(|tc| compatible(tx, tc))))
    }

    /// Number of branches of an OR split (for tests and diagnostics).
    pub fn arity(&self, n: NodeId) -> Option<u32> {
        self.arity.get(&n.0).copied()
    }

    /// Strongly connected components that form cycles which no Loop/Iteration mediates and no
    /// pause (UserFillUp, legacy Answer) breaks: such a canvas never finishes a turn.
    pub fn unmediated_cycles(&self, ir: &Ir) -> Vec<Vec<NodeId>> {
        let pauses = |n: NodeId| matches!(ir.node(n).kind, Kind::UserFillUp | Kind::Answer);
        let graph: Vec<Vec<NodeId>> = self
            .once
            .iter()
            .enumerate()
            .map(|(i, s)| {
                if pauses(NodeId(i as u32)) {
                    Vec::new()
                } else {
                    s.iter().map(|e| e.0).collect()
                }
            })
            .collect();
        tarjan(&graph)
            .into_iter()
            .filter(|scc| scc.len() > 1 || graph[scc[0].index()].contains(&scc[0]))
            .collect()
    }
}

/// Keep the first of each repeated target (a node with thousands of downstream ids is common
/// at a fan-out, so no pairwise comparison).
fn dedup(v: &mut Vec<NodeId>) {
    let mut seen = HashSet::with_capacity(v.len());
    v.retain(|x| seen.insert(*x));
}

/// Levels and guards over the once graph, in topological order (Kahn) from `entry`. Nodes a
/// cycle blocks keep an unbounded longest level and an unknown guard.
#[allow(clippy::type_complexity)]
fn analyse_once(
    graph: &[Vec<(NodeId, Option<Choice>)>],
    entry: NodeId,
    arity: &HashMap<u32, u32>,
) -> (Vec<Option<(usize, usize)>>, Vec<Option<Vec<Conj>>>) {
    let n = graph.len();
    let mut min = vec![usize::MAX; n];
    let mut queue = VecDeque::from([entry]);
    min[entry.index()] = 0;
    while let Some(v) = queue.pop_front() {
        for (s, _) in &graph[v.index()] {
            if min[s.index()] == usize::MAX {
                min[s.index()] = min[v.index()] + 1;
                queue.push_back(*s);
            }
        }
    }
    let mut indegree = vec![0usize; n];
    for (v, succs) in graph.iter().enumerate() {
        if min[v] != usize::MAX {
            for (s, _) in succs {
                indegree[s.index()] += 1;
            }
        }
    }
    let mut max = vec![0usize; n];
    let mut guard: Vec<Option<Vec<Conj>>> = vec![Some(Vec::new()); n];
    guard[entry.index()] = Some(vec![Vec::new()]);
    let mut done = vec![false; n];
    let mut ready = if indegree[entry.index()] == 0 {
        vec![entry]
    } else {
        Vec::new()
    };
    while let Some(v) = ready.pop() {
        done[v.index()] = true;
        let gv = guard[v.index()].clone();
        for (s, choice) in &graph[v.index()] {
            max[s.index()] = max[s.index()].max(max[v.index()] + 1);
            let contribution = gv.as_ref().map(|g| match choice {
                Some(c) => and_choice(g, *c),
                None => g.clone(),
            });
            guard[s.index()] = match (guard[s.index()].take(), contribution) {
                (Some(acc), Some(add)) => or(acc, add, arity),
                _ => None,
            };
            indegree[s.index()] -= 1;
            if indegree[s.index()] == 0 {
                ready.push(*s);
            }
        }
    }
    let levels = (0..n)
        .map(|i| {
            (min[i] != usize::MAX).then_some((min[i], if done[i] { max[i] } else { usize::MAX }))
        })
        .collect();
    let guards = (0..n)
        .map(|i| if done[i] { guard[i].take() } else { None })
        .collect();
    (levels, guards)
}

fn and_choice(dnf: &[Conj], c: Choice) -> Vec<Conj> {
    dnf.iter()
        .filter_map(|conj| match conj.iter().find(|x| x.0 == c.0) {
            Some(x) if x.1 != c.1 => None, // contradictory: the split took another branch
            Some(_) => Some(conj.clone()),
            None => {
                let mut out = conj.clone();
                out.push(c);
                out.sort_unstable();
                Some(out)
            }
        })
        .collect()
}

/// Disjunction with simplification: drop subsumed terms, merge terms that differ only in a
/// split whose every branch they cover. `None` when the result grows too large.
fn or(mut a: Vec<Conj>, b: Vec<Conj>, arity: &HashMap<u32, u32>) -> Option<Vec<Conj>> {
    a.extend(b);
    loop {
        a.sort();
        a.dedup();
        let before = a.clone();
        // Subsumption: a term containing another term is redundant.
        let mut keep = vec![true; a.len()];
        for i in 0..a.len() {
            for j in 0..a.len() {
                if i != j && keep[j] && subset(&a[j], &a[i]) && (a[j].len() < a[i].len() || j < i) {
                    keep[i] = false;
                    break;
                }
            }
        }
        let mut terms: Vec<Conj> = a
            .into_iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(t, _)| t)
            .collect();
        // Merge: terms equal except for the branch of one split, covering all its branches.
        let mut merged = None;
        'outer: for t in &terms {
            for &(node, _) in t {
                let rest: Conj = t.iter().copied().filter(|c| c.0 != node).collect();
                let branches: Vec<u32> = terms
                    .iter()
                    .filter(|u| {
                        u.len() == t.len()
                            && u.iter()
                                .copied()
                                .filter(|c| c.0 != node)
                                .eq(rest.iter().copied())
                    })
                    .filter_map(|u| u.iter().find(|c| c.0 == node).map(|c| c.1))
                    .collect();
                let all = arity.get(&node).copied().unwrap_or(u32::MAX);
                if (0..all).all(|b| branches.contains(&b)) {
                    merged = Some((node, rest));
                    break 'outer;
                }
            }
        }
        if let Some((node, rest)) = merged {
            terms.retain(|u| {
                !(u.iter().any(|c| c.0 == node)
                    && u.iter()
                        .copied()
                        .filter(|c| c.0 != node)
                        .eq(rest.iter().copied()))
            });
            terms.push(rest);
        }
        if terms.len() > MAX_TERMS {
            return None;
        }
        if terms == before {
            return Some(terms);
        }
        a = terms;
    }
}

/// No split takes different branches in the two terms.
fn compatible(a: &Conj, b: &Conj) -> bool {
    a.iter().all(|x| b.iter().all(|y| x.0 != y.0 || x.1 == y.1))
}

fn subset(small: &Conj, big: &Conj) -> bool {
    small.iter().all(|c| big.contains(c))
}

/// Whether every term of `premise` is covered by some term of `conclusion`.
fn implies(premise: &[Conj], conclusion: &[Conj]) -> bool {
    premise
        .iter()
        .all(|p| conclusion.iter().any(|c| subset(c, p)))
}

/// Immediate dominators (Cooper, Harvey & Kennedy's iterative algorithm).
fn dominators(graph: &[Vec<NodeId>], entry: NodeId) -> Vec<Option<NodeId>> {
    let n = graph.len();
    let mut order = Vec::new();
    let mut visited = vec![false; n];
    let mut stack: Vec<(NodeId, usize)> = vec![(entry, 0)];
    visited[entry.index()] = true;
    while let Some((node, i)) = stack.pop() {
        if let Some(&next) = graph[node.index()].get(i) {
            stack.push((node, i + 1));
            if !visited[next.index()] {
                visited[next.index()] = true;
                stack.push((next, 0));
            }
        } else {
            order.push(node);
        }
    }
    order.reverse();
    let mut rpo = vec![usize::MAX; n];
    for (i, node) in order.iter().enumerate() {
        rpo[node.index()] = i;
    }
    let mut preds: Vec<Vec<NodeId>> = vec![Vec::new(); n];
    for (i, succs) in graph.iter().enumerate() {
        for s in succs {
            preds[s.index()].push(NodeId(i as u32));
        }
    }
    let mut idom: Vec<Option<NodeId>> = vec![None; n];
    idom[entry.index()] = Some(entry);
    let intersect = |idom: &[Option<NodeId>], mut a: NodeId, mut b: NodeId| {
        while a != b {
            while rpo[a.index()] > rpo[b.index()] {
                a = idom[a.index()].unwrap_or(entry);
            }
            while rpo[b.index()] > rpo[a.index()] {
                b = idom[b.index()].unwrap_or(entry);
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().skip(1) {
            let mut new_idom: Option<NodeId> = None;
            for &p in &preds[b.index()] {
                if idom[p.index()].is_none() {
                    continue;
                }
                new_idom = Some(match new_idom {
                    None => p,
                    Some(cur) => intersect(&idom, p, cur),
                });
            }
            if new_idom.is_some() && idom[b.index()] != new_idom {
                idom[b.index()] = new_idom;
                changed = true;
            }
        }
    }
    idom
}

/// The dominator tree with preorder intervals, so that "does `a` dominate `b`" is two
/// comparisons instead of a walk up from `b` (which made a reference to a far ancestor cost the
/// depth of the chain).
struct DominatorTree {
    /// Preorder number in the tree; `u32::MAX` for nodes outside it (unreachable).
    pre: Vec<u32>,
    /// Largest preorder number in the node's subtree.
    last: Vec<u32>,
}

impl DominatorTree {
    fn new(idom: &[Option<NodeId>]) -> DominatorTree {
        let n = idom.len();
        let mut children: Vec<Vec<NodeId>> = vec![Vec::new(); n];
        let mut roots = Vec::new();
        for (i, d) in idom.iter().enumerate() {
            match d {
                Some(d) if d.index() != i => children[d.index()].push(NodeId(i as u32)),
                Some(_) => roots.push(i),
                None => {}
            }
        }
        let mut pre = vec![u32::MAX; n];
        let mut last = vec![0u32; n];
        let mut counter = 0u32;
        for r in roots {
            pre[r] = counter;
            counter += 1;
            let mut stack: Vec<(usize, usize)> = vec![(r, 0)];
            while let Some((v, i)) = stack.pop() {
                match children[v].get(i) {
                    Some(c) => {
                        stack.push((v, i + 1));
                        pre[c.index()] = counter;
                        counter += 1;
                        stack.push((c.index(), 0));
                    }
                    None => last[v] = counter - 1,
                }
            }
        }
        DominatorTree { pre, last }
    }

    /// Whether `a` is `b` or one of its dominators; `b` outside the tree (not reached from
    /// `begin`) is dominated by nothing but itself.
    fn dominates(&self, a: NodeId, b: NodeId) -> bool {
        let (a, b) = (a.index(), b.index());
        a == b
            || (self.pre[b] != u32::MAX
                && self.pre[a] != u32::MAX
                && self.pre[a] <= self.pre[b]
                && self.pre[b] <= self.last[a])
    }
}

/// Tarjan's strongly connected components, iteratively.
fn tarjan(graph: &[Vec<NodeId>]) -> Vec<Vec<NodeId>> {
    let n = graph.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<NodeId> = Vec::new();
    let mut out = Vec::new();
    let mut counter = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some((v, i)) = work.pop() {
            if i == 0 {
                index[v] = counter;
                low[v] = counter;
                counter += 1;
                stack.push(NodeId(v as u32));
                on_stack[v] = true;
            }
            if let Some(w) = graph[v].get(i).map(|w| w.index()) {
                work.push((v, i + 1));
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            if low[v] == index[v] {
                let mut scc = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w.index()] = false;
                    scc.push(w);
                    if w.index() == v {
                        break;
                    }
                }
                scc.reverse();
                out.push(scc);
            }
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
        }
    }
    out
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

    #[test]
    fn tarjan_finds_cycles() {
        let graph = g(&[&[1], &[2], &[0], &[]]);
        let sccs = tarjan(&graph);
        assert!(sccs.iter().any(|s| s.len() == 3));
        assert!(sccs.iter().any(|s| s == &[NodeId(3)]));
    }

    /// The interval test agrees with walking up the immediate dominators, unreachable nodes
    /// included.
    #[test]
    fn dominator_intervals_agree_with_the_idom_walk() {
        let graphs = [
            g(&[&[1, 2], &[3], &[3], &[4], &[]]),
            g(&[&[1], &[2, 3], &[4], &[4], &[1, 5], &[], &[5]]),
            g(&[&[1], &[2], &[3], &[]]),
        ];
        for graph in &graphs {
            let idom = dominators(graph, NodeId(0));
            let tree = DominatorTree::new(&idom);
            for a in 0..graph.len() as u32 {
                for b in 0..graph.len() as u32 {
                    let mut walk = false;
                    let mut cur = Some(NodeId(b));
                    while let Some(c) = cur {
                        if c == NodeId(a) {
                            walk = true;
                            break;
                        }
                        cur = idom[c.index()].filter(|&d| d != c);
                    }
                    assert_eq!(
                        tree.dominates(NodeId(a), NodeId(b)),
                        walk,
                        "{graph:?} {a} {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn guards_merge_when_every_branch_is_covered() {
        let arity = HashMap::from([(7, 2)]);
        let merged = or(vec![vec![(7, 0)]], vec![vec![(7, 1)]], &arity).expect("small");
        assert_eq!(merged, vec![Vec::<Choice>::new()]);
        let partial = or(vec![vec![(7, 0)]], vec![vec![(7, 0), (9, 1)]], &arity).expect("small");
        assert_eq!(partial, vec![vec![(7, 0)]]);
        assert!(implies(&[vec![(7, 0), (9, 1)]], &partial));
        assert!(!implies(&[vec![]], &partial));
    }

    #[test]
    fn fan_out_fan_in_is_unconditional() {
        // 0 -> 1, 2 ; 1 -> 3 ; 2 -> 3 (no OR splits)
        let graph: Vec<Vec<(NodeId, Option<Choice>)>> = vec![
            vec![(NodeId(1), None), (NodeId(2), None)],
            vec![(NodeId(3), None)],
            vec![(NodeId(3), None)],
            vec![],
        ];
        let (levels, guards) = analyse_once(&graph, NodeId(0), &HashMap::new());
        assert_eq!(levels[3], Some((2, 2)));
        assert_eq!(guards[1], Some(vec![vec![]]));
        assert_eq!(guards[3], Some(vec![vec![]]));
    }
}
