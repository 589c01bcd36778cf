//! A package's upgrade graph, as opm checks it and OLM v1 walks it, and the
//! graph left when some of its bundles are removed (`catalog filter`).
//!
//! OLM v1 upgrades an installed bundle `K` to a bundle `J` of the channels a
//! `ClusterExtension` admits when `J`'s entry in one of them names `K`:
//! `replaces: K`, `K` among its `skips`, or `K`'s version inside its
//! `skipRange` (read with blang, [`crate::semver::blang`]). One edge per
//! upgrade; longer paths are walked an upgrade at a time.
//!
//! Removing bundles keeps every upgrade between the bundles kept, in as
//! many steps as it takes: where a kept `K` reached a kept `J` only through
//! removed bundles, `J`'s entry gets `K` (as `replaces` when the removed
//! bundles were a `replaces` chain from `J` down to `K`, else among its
//! `skips`) unless `K` still reaches `J` through kept bundles of that
//! channel; an edge that named a removed bundle is dropped; `skipRange`
//! stays as written; a channel left empty is dropped. An edge is added in
//! the channel of its path's last step, so an extension that admits every
//! channel (the default) reaches exactly what it reached before, and one
//! that admits some may gain an upgrade to a kept bundle, never one to a
//! removed bundle. Names the catalog does not hold (an older release pruned
//! from it) stay where the catalog wrote them on a kept entry.
//! Pure: no reading, no writing.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::semver::blang::SkipRange;
use crate::semver::Version;

/// One entry of a channel: a bundle and the edges into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The bundle's name.
    pub name: String,
    /// `replaces`: the bundle it upgrades from.
    pub replaces: Option<String>,
    /// `skips`: more bundles it upgrades from.
    pub skips: Vec<String>,
    /// `skipRange`: the versions it upgrades from, as written.
    pub skip_range: Option<String>,
}

/// A channel: its name and entries, in the catalog's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Channel {
    /// The channel's name.
    pub name: String,
    /// Its entries.
    pub links: Vec<Link>,
}

/// A package's upgrade graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    /// The package's name.
    pub name: String,
    /// Its `olm.package`'s `defaultChannel`.
    pub default_channel: Option<String>,
    /// Its channels, in the catalog's order.
    pub channels: Vec<Channel>,
    /// Every bundle of the package and its version (as opm and OLM read it;
    /// `None` where they cannot).
    pub bundles: BTreeMap<String, Option<Version>>,
}

/// Why opm refuses the channel, in its words, if it does: no entries, an
/// empty skip, a `skipRange` it cannot read, other than one head (an entry
/// no other replaces or skips), a cycle in the `replaces` chain from the
/// head, or an entry neither on that chain nor skipped (stranded).
pub fn opm_refuses(channel: &Channel) -> Option<String> {
    if channel.links.is_empty() {
        return Some("channel must contain at least one bundle".into());
    }
    for link in &channel.links {
        if link.skips.iter().any(String::is_empty) {
            return Some(format!("bundle {:?}: a skip is empty", link.name));
        }
        if let Some(range) = link.skip_range.as_deref().filter(|r| !r.is_empty() && SkipRange::parse(r).is_none()) {
            return Some(format!("bundle {:?}: invalid skipRange {range:?}", link.name));
        }
    }
    let incoming: BTreeSet<&str> =
        channel.links.iter().flat_map(|l| l.replaces.iter().chain(&l.skips)).map(String::as_str).collect();
    let heads: BTreeSet<&str> =
        channel.links.iter().map(|l| l.name.as_str()).filter(|n| !incoming.contains(n)).collect();
    let head = match heads.len() {
        0 => return Some("no channel head found in graph".into()),
        1 => heads.into_iter().next()?,
        _ => return Some(format!("multiple channel heads found in graph: {}", join(heads))),
    };
    let skipped: BTreeSet<&str> = channel.links.iter().flat_map(|l| &l.skips).map(String::as_str).collect();
    let by_name: BTreeMap<&str, &Link> = channel.links.iter().map(|l| (l.name.as_str(), l)).collect();
    // The chain in order (for the message), and as a set (to look it up).
    let (mut chain, mut on_chain) = (vec![head], BTreeSet::from([head]));
    let mut current = by_name.get(head);
    while let Some(link) = current {
        let Some(next) = link.replaces.as_deref() else { break };
        if skipped.contains(next) {
            break;
        }
        chain.push(next);
        if !on_chain.insert(next) {
            return Some(format!("detected cycle in replaces chain of upgrade graph: {}", chain.join(" -> ")));
        }
        current = by_name.get(next);
    }
    let stranded: BTreeSet<&str> =
        by_name.keys().copied().filter(|n| !on_chain.contains(n) && !skipped.contains(n)).collect();
    (!stranded.is_empty()).then(|| format!("channel contains one or more stranded bundles: {}", join(stranded)))
}

fn join<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    names.into_iter().collect::<Vec<_>>().join(", ")
}

/// A kept entry whose edges changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewired {
    /// The channel.
    pub channel: String,
    /// The kept bundle whose entry changed.
    pub bundle: String,
    /// Its `replaces` before and after.
    pub replaces: (Option<String>, Option<String>),
    /// Removed bundles its edges no longer name.
    pub dropped: Vec<String>,
    /// Kept bundles added to its `skips`: each reached it only through removed bundles.
    pub added: Vec<String>,
}

/// The package's graph once only `kept` bundles remain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filtered {
    /// The channels that keep a bundle, rewired.
    pub channels: Vec<Channel>,
    /// The channels left empty, dropped.
    pub dropped: Vec<String>,
    /// Each entry whose edges changed.
    pub rewired: Vec<Rewired>,
}

/// Removes every bundle but `kept` from the package's channels and rewires
/// the edges between those kept (see the module's docs). An error when the
/// default channel would be left empty (OLM v1 installs from it where an
/// extension names no channel, and choosing another is not the filter's to
/// do) or a channel would be one opm refuses (two heads where only a removed
/// bundle upgraded both, say).
pub fn filter(package: &Package, kept: &BTreeSet<&str>) -> Result<Filtered, String> {
    if kept.is_empty() {
        let dropped = package.channels.iter().map(|c| c.name.clone()).collect();
        return Ok(Filtered { channels: Vec::new(), dropped, rewired: Vec::new() });
    }
    let edges = edges(package);
    let reach = reach::through_removed(package, &edges, kept);
    let mut out = Filtered { channels: Vec::new(), dropped: Vec::new(), rewired: Vec::new() };
    for channel in &package.channels {
        let (links, rewired) = filter_channel(package, channel, kept, &edges, &reach);
        if links.is_empty() {
            out.dropped.push(channel.name.clone());
            continue;
        }
        let filtered = Channel { name: channel.name.clone(), links };
        if let Some(why) = opm_refuses(&filtered) {
            return Err(format!(
                "channel {:?} of package {:?}: with the failing bundles removed, opm would refuse it: {why}; the upgrade edges between the bundles that pass cannot be kept as the catalog wrote them",
                channel.name, package.name
            ));
        }
        out.channels.push(filtered);
        out.rewired.extend(rewired);
    }
    if let Some(default) = package.default_channel.as_deref().filter(|d| out.dropped.iter().any(|c| c == d)) {
        if !out.channels.is_empty() {
            return Err(format!(
                "package {:?}: its default channel {default:?} keeps no bundle that passes, while channel(s) {} do; OLM v1 installs from the default channel where a ClusterExtension names none, and the filter does not choose another: change the policy, or the catalog's defaultChannel",
                package.name,
                join(out.channels.iter().map(|c| c.name.as_str()))
            ));
        }
    }
    Ok(out)
}

/// One channel's kept entries, rewired, and what changed of each. First
/// the edges kept as written, a removed `replaces` bridged down its chain
/// ([`first_kept_replaced`]); then each kept bundle that reached an entry
/// only through removed ones, closest version first, is added to its
/// `skips` unless it already reaches it in this channel: an upgrade is kept,
/// not the number of its steps, each step one the catalog declares (a skip
/// added for a bundle on the `replaces` chain would also cut the chain opm
/// walks).
fn filter_channel(
    package: &Package,
    channel: &Channel,
    kept: &BTreeSet<&str>,
    edges: &Edges<'_>,
    reach: &BTreeMap<(&str, &str), BTreeSet<&str>>,
) -> (Vec<Link>, Vec<Rewired>) {
    let removed = |name: &str| package.bundles.contains_key(name) && !kept.contains(name);
    let originals: Vec<&Link> = channel.links.iter().filter(|l| kept.contains(l.name.as_str())).collect();
    let mut links: Vec<Link> = originals
        .iter()
        .map(|link| Link {
            name: link.name.clone(),
            replaces: match link.replaces.as_deref() {
                Some(r) if removed(r) => first_kept_replaced(channel, r, kept),
                other => other.map(String::from),
            },
            skips: link.skips.iter().filter(|s| !removed(s)).cloned().collect(),
            skip_range: link.skip_range.clone(),
        })
        .collect();
    // This channel's upgrades between kept bundles, as far as written, by
    // the package's own names (a name it does not hold leads nowhere kept).
    let name = |n: &str| package.bundles.get_key_value(n).map(|(k, _)| k.as_str());
    let mut graph: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (before, link) in originals.iter().zip(&links) {
        for from in link.replaces.iter().chain(&link.skips).filter_map(|f| name(f)) {
            graph.entry(from).or_default().insert(before.name.as_str());
        }
    }
    for (from, to) in edges.iter().filter(|(f, _)| kept.contains(*f)) {
        for (_, j) in to.iter().filter(|(c, j)| *c == channel.name && kept.contains(j)) {
            graph.entry(from).or_default().insert(j);
        }
    }
    let mut added: Vec<Vec<String>> = vec![Vec::new(); links.len()];
    for (i, (before, link)) in originals.iter().zip(links.iter_mut()).enumerate() {
        let to = before.name.as_str();
        let mut from: Vec<&str> = reach.get(&(channel.name.as_str(), to)).into_iter().flatten().copied().collect();
        from.sort_by(|a, b| package.bundles.get(*b).cmp(&package.bundles.get(*a)).then_with(|| a.cmp(b)));
        for k in from {
            if !reaches(&graph, k, to) {
                graph.entry(k).or_default().insert(to);
                link.skips.push(k.to_string());
                added[i].push(k.to_string());
            }
        }
    }
    let rewired = originals
        .iter()
        .zip(&links)
        .zip(added)
        .filter_map(|((before, after), added)| {
            let dropped: Vec<String> =
                before.replaces.iter().chain(&before.skips).filter(|n| removed(n)).cloned().collect();
            (!dropped.is_empty() || !added.is_empty()).then(|| Rewired {
                channel: channel.name.clone(),
                bundle: before.name.clone(),
                replaces: (before.replaces.clone(), after.replaces.clone()),
                dropped,
                added,
            })
        })
        .collect();
    (links, rewired)
}

/// Whether `from` reaches `to` in `graph`, in any number of steps (an edge
/// of its own, the common case, looked up first).
fn reaches<'g>(graph: &BTreeMap<&'g str, BTreeSet<&'g str>>, from: &'g str, to: &str) -> bool {
    if graph.get(from).is_some_and(|next| next.contains(to)) {
        return true;
    }
    let (mut seen, mut queue) = (BTreeSet::new(), VecDeque::from([from]));
    while let Some(at) = queue.pop_front() {
        for &next in graph.get(at).into_iter().flatten() {
            if next == to {
                return true;
            }
            if seen.insert(next) {
                queue.push_back(next);
            }
        }
    }
    false
}

/// Following `channel`'s `replaces` chain down from the removed `from`, the
/// first kept bundle, if only removed ones come before it.
fn first_kept_replaced(channel: &Channel, from: &str, kept: &BTreeSet<&str>) -> Option<String> {
    let by_name: BTreeMap<&str, &Link> = channel.links.iter().map(|l| (l.name.as_str(), l)).collect();
    let mut seen = BTreeSet::new();
    let mut at = from;
    while seen.insert(at) {
        let next = by_name.get(at)?.replaces.as_deref()?;
        if kept.contains(next) {
            return Some(next.to_string());
        }
        at = next;
    }
    None
}

/// Every edge between the package's bundles: from each bundle, the
/// (channel, bundle) it upgrades to. Each `skipRange` is read once.
pub(super) type Edges<'p> = BTreeMap<&'p str, BTreeSet<(&'p str, &'p str)>>;

fn edges(package: &Package) -> Edges<'_> {
    let mut out: Edges<'_> = BTreeMap::new();
    for channel in &package.channels {
        for link in &channel.links {
            let range = link.skip_range.as_deref().and_then(SkipRange::parse);
            for (from, version) in &package.bundles {
                let ranged = range.as_ref().zip(version.as_ref()).is_some_and(|(r, v)| r.admits(v));
                let named = link.replaces.as_deref() == Some(from.as_str()) || link.skips.contains(from);
                if from != &link.name && (named || ranged) {
                    out.entry(from.as_str()).or_default().insert((channel.name.as_str(), link.name.as_str()));
                }
            }
        }
    }
    out
}

mod reach;

#[cfg(test)]
mod tests;
