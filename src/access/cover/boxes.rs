//! The box algebra of the escalation check: a rule's permissions as boxes
//! (one set of values per dimension), and what is left of a box once owner
//! rules are taken out of it, without ever listing the atoms inside.

use std::collections::HashMap;
use std::rc::Rc;

use crate::access::matches::ALL;

/// Positions of values on one axis, ascending.
pub(super) type Set = Rc<[u32]>;

/// A box of atoms: on each axis, a set of the measured rule's values; every
/// combination is in the box.
pub(super) type Cell<const D: usize> = [Set; D];

/// The values of one dimension of the measured rule, sorted and without
/// repeats: a value is known by its position.
pub(super) struct Axis<'a> {
    pub(super) values: Vec<&'a str>,
}

impl<'a> Axis<'a> {
    pub(super) fn new(values: impl IntoIterator<Item = &'a str>) -> Axis<'a> {
        let mut values: Vec<&str> = values.into_iter().collect();
        values.sort_unstable();
        values.dedup();
        Axis { values }
    }

    pub(super) fn find(&self, value: &str) -> Option<u32> {
        self.values.binary_search(&value).ok().map(|i| i as u32)
    }

    pub(super) fn all(&self) -> Set {
        (0..self.values.len() as u32).collect()
    }

    /// The positions of `wanted` on this axis, or every position if `wanted`
    /// holds `*`.
    pub(super) fn select(&self, wanted: &[String]) -> Sel {
        if wanted.iter().any(|w| w == ALL) {
            return Sel::All;
        }
        Sel::of(wanted.iter().filter_map(|w| self.find(w)).collect())
    }
}

/// What an owner rule covers on one axis of the measured rule.
#[derive(Debug, Clone)]
pub(super) enum Sel {
    All,
    /// Ascending positions.
    Only(Vec<u32>),
}

impl Sel {
    pub(super) fn of(mut positions: Vec<u32>) -> Sel {
        positions.sort_unstable();
        positions.dedup();
        Sel::Only(positions)
    }

    pub(super) fn is_empty(&self) -> bool {
        matches!(self, Sel::Only(v) if v.is_empty())
    }
}

/// Does `set` share a position with `sel`?
pub(super) fn meets(set: &[u32], sel: &Sel) -> bool {
    match sel {
        Sel::All => !set.is_empty(),
        Sel::Only(v) if v.len() < set.len() => v.iter().any(|p| set.binary_search(p).is_ok()),
        Sel::Only(v) => set.iter().any(|p| v.binary_search(p).is_ok()),
    }
}

/// `set` split into what `sel` covers and what it does not.
pub(super) fn part(set: &Set, sel: &Sel) -> (Set, Set) {
    match sel {
        Sel::All => (set.clone(), Rc::from([])),
        Sel::Only(v) => {
            let (inside, outside): (Vec<u32>, Vec<u32>) = set.iter().partition(|p| v.binary_search(p).is_ok());
            (inside.into(), outside.into())
        }
    }
}

/// What of `cell` the owner `sel` leaves uncovered, as disjoint boxes (none
/// when it covers the whole cell), or `None` when they do not meet at all.
pub(super) fn subtract<const D: usize>(cell: &Cell<D>, sel: &[Sel; D]) -> Option<Vec<Cell<D>>> {
    if !cell.iter().zip(sel).all(|(set, s)| meets(set, s)) {
        return None;
    }
    let mut rest = Vec::new();
    let mut current = cell.clone();
    for d in 0..D {
        let (inside, outside) = part(&current[d], &sel[d]);
        if !outside.is_empty() {
            let mut piece = current.clone();
            piece[d] = outside;
            rest.push(piece);
        }
        current[d] = inside;
    }
    Some(rest)
}

/// The parts of `whole` that no owner covers, as disjoint boxes. Each owner
/// is subtracted from what the owners before it left; with `first_only`, the
/// search stops at the first uncovered box.
pub(super) fn uncovered_cells<const D: usize>(whole: Cell<D>, owners: &[[Sel; D]], first_only: bool) -> Vec<Cell<D>> {
    let mut out = Vec::new();
    if whole.iter().any(|set| set.is_empty()) {
        return out;
    }
    // Explicit stack: a hostile rule set would make recursion as deep as it is long.
    let mut stack = vec![(whole, 0usize)];
    while let Some((cell, from)) = stack.pop() {
        let next = owners.iter().enumerate().skip(from).find_map(|(k, o)| subtract(&cell, o).map(|rest| (k, rest)));
        match next {
            Some((k, rest)) => stack.extend(rest.into_iter().map(|piece| (piece, k + 1))),
            None => {
                out.push(cell);
                if first_only {
                    break;
                }
            }
        }
    }
    out
}

/// Disjoint boxes merged where they differ on one axis only, axis by axis in
/// `order`, so that what is reported reads as few rules.
pub(super) fn merge<const D: usize>(mut cells: Vec<Cell<D>>, order: &[usize]) -> Vec<Cell<D>> {
    for _ in 0..2 {
        for &d in order {
            let mut at: HashMap<Cell<D>, usize> = HashMap::new();
            let mut merged: Vec<(Cell<D>, Vec<u32>)> = Vec::new();
            for cell in cells {
                let mut key = cell.clone();
                key[d] = Rc::from([]);
                match at.get(&key) {
                    Some(&i) => merged[i].1.extend(cell[d].iter()),
                    None => {
                        at.insert(key, merged.len());
                        merged.push((cell.clone(), cell[d].to_vec()));
                    }
                }
            }
            cells = merged
                .into_iter()
                .map(|(mut cell, mut values)| {
                    values.sort_unstable();
                    cell[d] = values.into();
                    cell
                })
                .collect();
        }
    }
    cells.sort();
    cells
}
