//! The gains column: what each bundle's install adds to the cluster's RBAC
//! over its package's next lower version that rendered, measured on two
//! values by the access kernel (`access::diff::upgrades`).

use std::collections::BTreeMap;

use serde_json::Value;

use super::Row;
use crate::check::diff::ChangeOut;

/// Fills each row's gains over its package's next lower version that
/// passed: what the cluster's RBAC gains when the newer bundle's is applied
/// over the older's (`access::diff::upgrades`, on the two values), then drops
/// the values.
pub(in crate::catalog) fn add_gains(rows: &mut [Row]) {
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| {
        (&rows[a].package, &rows[a].parsed_version).cmp(&(&rows[b].package, &rows[b].parsed_version))
    });
    // (old, new): each rendered row and the package's next lower version that rendered.
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let mut previous: Option<usize> = None;
    for i in order {
        if rows[i].rbac.is_none() {
            continue;
        }
        if let Some(p) = previous.filter(|&p| rows[p].package == rows[i].package) {
            pairs.push((p, i));
        }
        previous = Some(i);
    }
    for ((_, new), gained) in pairs.iter().zip(gains_of(rows, &pairs)) {
        rows[*new].gained = gained;
    }
    for row in rows.iter_mut() {
        row.rbac = None;
    }
}

/// What the new row of each (old, new) pair gains, in the pairs' order. Each
/// pair is an upgrade diff of its own (`access::diff::upgrades`, which
/// measures a version once for the two upgrades it is a side of), taken
/// [`CHUNK`] pairs at a time, whose rows' RBAC is built and then dropped:
/// the peak holds a few bundles' RBAC, not the catalog's. Half of the pairs
/// are taken on a second thread.
fn gains_of(rows: &[Row], pairs: &[(usize, usize)]) -> Vec<Vec<Value>> {
    let gains = |pairs: &[(usize, usize)]| -> Vec<Vec<Value>> {
        pairs.chunks(CHUNK).flat_map(|chunk| chunk_gains(rows, chunk)).collect()
    };
    let (first, second) = pairs.split_at(pairs.len() / 2);
    std::thread::scope(|scope| {
        let other = scope.spawn(|| gains(second));
        let mut out: Vec<Vec<Value>> = gains(first);
        out.extend(other.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        out
    })
}

/// How many upgrades [`gains_of`] diffs on one set of built policies: a
/// package's versions are consecutive pairs, so each chunk builds one
/// policy more than it has pairs.
const CHUNK: usize = 8;

/// [`gains_of`] for one chunk of pairs: each row's RBAC built once.
fn chunk_gains(rows: &[Row], pairs: &[(usize, usize)]) -> Vec<Vec<Value>> {
    // Each row's RBAC once, by its place among the policies diffed.
    let mut placed: BTreeMap<usize, usize> = BTreeMap::new();
    let mut policies = Vec::new();
    let mut place = |row: usize| {
        let objects = rows[row].rbac.as_ref()?;
        Some(*placed.entry(row).or_insert_with(|| {
            policies.push(crate::check::load::policy_of(objects));
            policies.len() - 1
        }))
    };
    let paired: Vec<Option<(usize, usize)>> = pairs.iter().map(|&(old, new)| place(old).zip(place(new))).collect();
    let diffed: Vec<(usize, usize)> = paired.iter().flatten().copied().collect();
    let policies: Vec<&crate::access::Policy> = policies.iter().collect();
    let mut changes = crate::access::diff::upgrades(&policies, &diffed).into_iter();
    let gained = |c: crate::access::diff::Changes| {
        c.gained.iter().map(|c| serde_json::to_value(ChangeOut::of(c)).unwrap_or_default()).collect()
    };
    paired.iter().map(|p| p.and_then(|_| changes.next()).map(gained).unwrap_or_default()).collect()
}
