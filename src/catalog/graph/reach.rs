//! Which kept bundles upgrade to which only through removed ones, in time
//! that grows with the edges, not with the kept bundles times the edges: a
//! catalog's `skipRange`s commonly make every bundle of a package an upgrade
//! from every earlier one.
//!
//! The removed bundles and the edges between them form a graph; each of its
//! strongly connected components leads, through removed bundles only, to
//! the same entries of kept bundles (its exits). Components are met sinks
//! first (Tarjan's order), so each one's exits are its own edges to kept
//! bundles and the exits of the components it leads to, already known. A
//! kept bundle then reaches, through removed ones, the exits of the removed
//! bundles it upgrades to.

use std::collections::{BTreeMap, BTreeSet};

use super::{Edges, Package};

/// For each (channel, kept bundle `J`): the kept bundles that upgrade to
/// `J` through at least one removed bundle (the path's last step in that
/// channel, its others in any), and have no edge of their own to it there.
pub(super) fn through_removed<'p>(
    package: &'p Package,
    edges: &Edges<'p>,
    kept: &BTreeSet<&str>,
) -> BTreeMap<(&'p str, &'p str), BTreeSet<&'p str>> {
    let removed: Vec<&str> = package.bundles.keys().map(String::as_str).filter(|b| !kept.contains(b)).collect();
    let index: BTreeMap<&str, usize> = removed.iter().enumerate().map(|(i, b)| (*b, i)).collect();
    let targets: Vec<(&str, &str)> = {
        let all: BTreeSet<(&str, &str)> = edges.values().flatten().copied().filter(|(_, j)| kept.contains(j)).collect();
        all.into_iter().collect()
    };
    let target: BTreeMap<(&str, &str), usize> = targets.iter().enumerate().map(|(i, t)| (*t, i)).collect();
    let words = targets.len().div_ceil(64);
    // Each removed bundle: the removed bundles it upgrades to, and its own exits.
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); removed.len()];
    let mut own: Vec<Vec<u64>> = vec![vec![0; words]; removed.len()];
    for (i, r) in removed.iter().enumerate() {
        for to in edges.get(r).into_iter().flatten() {
            match index.get(to.1) {
                Some(&j) => next[i].push(j),
                None => set(&mut own[i], target[to]),
            }
        }
    }
    let exits = component_exits(&next, own);
    let mut out: BTreeMap<(&str, &str), BTreeSet<&str>> = BTreeMap::new();
    for start in package.bundles.keys().filter(|b| kept.contains(b.as_str())) {
        let mut reached = vec![0u64; words];
        for to in edges.get(start.as_str()).into_iter().flatten() {
            if let Some(&r) = index.get(to.1) {
                reached.iter_mut().zip(&exits[r]).for_each(|(a, b)| *a |= b);
            }
        }
        // An upgrade the bundle has an edge of its own for needs no other.
        let direct = edges.get(start.as_str());
        for (_, to) in targets.iter().enumerate().filter(|(t, _)| reached[t / 64] >> (t % 64) & 1 == 1) {
            if to.1 != start.as_str() && !direct.is_some_and(|d| d.contains(to)) {
                out.entry(*to).or_default().insert(start.as_str());
            }
        }
    }
    out
}

fn set(bits: &mut [u64], at: usize) {
    bits[at / 64] |= 1 << (at % 64);
}

/// Each node's exits through the graph `next`: its own and every node's it
/// reaches, found per strongly connected component (iterative Tarjan).
fn component_exits(next: &[Vec<usize>], own: Vec<Vec<u64>>) -> Vec<Vec<u64>> {
    let n = next.len();
    let (mut order, mut low, mut on_stack) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut counter) = (Vec::new(), 0);
    // Each node's component: the node that roots it, once it is found.
    let mut component = vec![usize::MAX; n];
    let mut exits = own;
    for root in 0..n {
        if order[root] != usize::MAX {
            continue;
        }
        // (node, the next of its edges to follow)
        let mut calls = vec![(root, 0usize)];
        order[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut at)) = calls.last_mut() {
            if let Some(&w) = next[v].get(*at) {
                *at += 1;
                if order[w] == usize::MAX {
                    order[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    calls.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(order[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == order[v] {
                // v roots a component: every component it leads to is done.
                let mut members = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component[w] = v;
                    members.push(w);
                    if w == v {
                        break;
                    }
                }
                let mut union = vec![0u64; exits.first().map_or(0, Vec::len)];
                for &m in &members {
                    union.iter_mut().zip(&exits[m]).for_each(|(a, b)| *a |= b);
                    for &w in &next[m] {
                        if component[w] != v {
                            union.iter_mut().zip(&exits[w]).for_each(|(a, b)| *a |= b);
                        }
                    }
                }
                for &m in &members {
                    exits[m].clone_from(&union);
                }
            }
        }
    }
    exits
}
