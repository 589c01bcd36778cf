//! The access report as a picture: per extension, subjects → bindings →
//! roles → APIs, drawn from the same [`AccessMatrix`] as the table, the
//! Markdown and the JSON (`report -o dot`, and the Mermaid graph of
//! `report -o markdown`).
//!
//! To stay readable for many APIs and bindings, the picture groups: the
//! bindings that give the same subjects the same access through the same
//! kind of role are one node (olm-rbac's Bind mode writes one per API and
//! namespace); the roles that the same nodes bind are one node; and the APIs
//! (or, for an operator's or installer's ServiceAccount, the resources of its
//! rules) of one API group that the same role nodes reach with the same access
//! are one node. An edge from a role node carries that access (`admin`,
//! `edit, view`, or verbs) and, when the catalogue marks it, the worst
//! severity of its dangerous permissions. Every binding through which a
//! holder reaches an API is drawn, not only the first. A node stands for its
//! members, not for its label: two groups that read the same are two nodes.
//! Node ids are made here, never taken from the input; every label is escaped
//! by the writer of each format.

mod dot;
mod mermaid;

use std::collections::BTreeSet;

use super::matrix::{access_text, extension_title, AccessMatrix, Route};
use k8s_openapi::api::rbac::v1::PolicyRule;

use crate::access::danger::{dangers, Severity};
use crate::access::{BindingKind, RoleRefKind};

pub(crate) use dot::dot;
pub(crate) use mermaid::mermaid;

/// The columns of the picture, left to right.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Column {
    Subject,
    Binding,
    Role,
    Target,
}

/// A node: its column and its label's lines, as plain text (each writer escapes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Node {
    pub column: Column,
    pub lines: Vec<String>,
}

/// An edge between two nodes of one cluster, by index; from a role node, the
/// access it gives and how dangerous it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edge {
    pub from: usize,
    pub to: usize,
    pub label: Option<String>,
    pub severity: Option<Severity>,
}

/// One extension's picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cluster {
    pub title: String,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

/// What a step reaches: a resource (with its resource names) of an API group, or a URL.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Group {
    Api(String),
    Urls,
}

/// One holder's way, through a route, to one API or resource, with the access it gives.
struct Step<'a> {
    holder: String,
    route: &'a Route,
    group: Group,
    item: String,
    access: String,
    severity: Option<Severity>,
}

/// Every extension's picture: those of the report's API sections, then those
/// only ServiceAccounts of the report belong to.
pub(crate) fn clusters(m: &AccessMatrix) -> Vec<Cluster> {
    let mut keys: Vec<Option<String>> = m.extensions.iter().map(|e| e.extension.clone()).collect();
    for a in &m.accounts {
        let key = Some(a.extension.clone());
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys.iter().map(|k| cluster(m, k)).collect()
}

/// The picture of one extension (`None`: the APIs without olm-rbac's RBAC).
pub(crate) fn cluster(m: &AccessMatrix, extension: &Option<String>) -> Cluster {
    let steps = steps(m, extension);
    let mut c = Cluster { title: extension_title(extension), nodes: Vec::new(), edges: Vec::new() };
    let subject = subject_nodes(&mut c, &steps);
    let binder = binding_nodes(&mut c, &steps, &subject);
    let role = role_nodes(&mut c, &steps, &binder);
    let target = target_nodes(&mut c, &steps, &role);
    for (i, s) in steps.iter().enumerate() {
        if binder[i] != subject[i] {
            c.edge(subject[i], binder[i], None, None);
        }
        c.edge(binder[i], role[i], None, None);
        c.edge(role[i], target[i], Some(s.access.clone()), s.severity);
    }
    c
}

/// The steps of one extension: each holder's routes to its APIs, but for
/// the report's ServiceAccounts, every rule they hold instead.
fn steps<'a>(m: &'a AccessMatrix, extension: &Option<String>) -> Vec<Step<'a>> {
    let accounts: Vec<String> = m.accounts.iter().map(|a| format!("ServiceAccount {}", a.account)).collect();
    let mut steps = Vec::new();
    for e in m.extensions.iter().filter(|e| &e.extension == extension) {
        for a in &e.apis {
            let (plural, group) = a.api.split_once('.').unwrap_or((a.api.as_str(), ""));
            for r in a.routes.iter().filter(|r| !accounts.contains(&r.holder)) {
                steps.push(Step {
                    holder: r.holder.clone(),
                    route: &r.route,
                    group: Group::Api(group.to_string()),
                    item: plural.to_string(),
                    access: r.access.clone(),
                    severity: None,
                });
            }
        }
    }
    for a in m.accounts.iter().filter(|a| extension.as_deref() == Some(a.extension.as_str())) {
        for w in &a.routes {
            let rule = &w.rule;
            // Each resource's own danger, asked of the rule narrowed to it: a
            // rule's secrets do not make its events dangerous.
            let step = |group: Group, item: String, part: PolicyRule| Step {
                holder: format!("ServiceAccount {}", a.account),
                route: &w.route,
                group,
                item,
                access: access_text(&rule.verbs),
                severity: dangers(&part, w.route.binding.as_ref().is_some_and(|(ns, _)| ns.is_none()))
                    .iter()
                    .map(|d| d.severity)
                    .max(),
            };
            let names = match rule.resource_names.as_deref() {
                Some(names) if !names.is_empty() => format!(" [{}]", names.join(", ")),
                _ => String::new(),
            };
            for g in rule.api_groups.iter().flatten() {
                for r in rule.resources.iter().flatten() {
                    let part = PolicyRule {
                        api_groups: Some(vec![g.clone()]),
                        resources: Some(vec![r.clone()]),
                        resource_names: rule.resource_names.clone(),
                        verbs: rule.verbs.clone(),
                        non_resource_urls: None,
                    };
                    steps.push(step(Group::Api(g.clone()), format!("{r}{names}"), part));
                }
            }
            for u in rule.non_resource_urls.iter().flatten() {
                let part = PolicyRule {
                    non_resource_urls: Some(vec![u.clone()]),
                    verbs: rule.verbs.clone(),
                    ..Default::default()
                };
                steps.push(step(Group::Urls, u.clone(), part));
            }
        }
    }
    steps
}

impl Cluster {
    /// A new node. Each caller adds one node per thing (a holder, a group of
    /// bindings, roles or targets), never looking one up by its label: two
    /// groups may read the same (`2 ClusterRoleBindings`, `x-…-y`) and still
    /// be two nodes.
    fn add(&mut self, column: Column, lines: Vec<String>) -> usize {
        self.nodes.push(Node { column, lines });
        self.nodes.len() - 1
    }

    fn edge(&mut self, from: usize, to: usize, label: Option<String>, severity: Option<Severity>) {
        let edge = Edge { from, to, label, severity };
        if !self.edges.contains(&edge) {
            self.edges.push(edge);
        }
    }
}

/// Members gathered under equal keys, in the order keys were first seen.
fn gather<K: PartialEq, M: PartialEq>(pairs: impl IntoIterator<Item = (K, M)>) -> Vec<(K, Vec<M>)> {
    let mut groups: Vec<(K, Vec<M>)> = Vec::new();
    for (k, m) in pairs {
        match groups.iter_mut().find(|(key, _)| *key == k) {
            Some((_, members)) if members.contains(&m) => {}
            Some((_, members)) => members.push(m),
            None => groups.push((k, vec![m])),
        }
    }
    groups
}

/// Each step's subject node: one per holder.
fn subject_nodes(c: &mut Cluster, steps: &[Step<'_>]) -> Vec<usize> {
    let holders: Vec<(&str, usize)> = gather(steps.iter().map(|s| (s.holder.as_str(), ())))
        .into_iter()
        .map(|(holder, _)| (holder, c.add(Column::Subject, vec![holder.to_string()])))
        .collect();
    steps.iter().map(|s| holders.iter().find(|(h, _)| *h == s.holder).map_or(0, |(_, n)| *n)).collect()
}

/// Each step's binding node; a step without a binding (whoever is bound to a
/// built-in role) goes from its subject straight to the role.
fn binding_nodes(c: &mut Cluster, steps: &[Step<'_>], subject: &[usize]) -> Vec<usize> {
    type Binding = (Option<String>, String);
    let bindings: Vec<&Binding> = gather(steps.iter().filter_map(|s| s.route.binding.as_ref()).map(|b| (b, ())))
        .into_iter()
        .map(|(b, _)| b)
        .collect();
    // What a binding gives: to whom, how much, through which kind of role.
    let key = |b: &Binding| {
        let through = steps.iter().enumerate().filter(|(_, s)| s.route.binding.as_ref() == Some(b));
        let subjects: BTreeSet<usize> = through.clone().map(|(i, _)| subject[i]).collect();
        let access: BTreeSet<&str> = through.clone().map(|(_, s)| s.access.as_str()).collect();
        let kinds: BTreeSet<&str> = through.map(|(_, s)| s.route.role_kind.as_str()).collect();
        (BindingKind::in_namespace(b.0.as_deref()), subjects, access, kinds)
    };
    let mut node_of: Vec<(&Binding, usize)> = Vec::new();
    for ((kind, ..), members) in gather(bindings.iter().map(|b| (key(b), *b))) {
        let names: Vec<&str> = members.iter().map(|(_, n)| n.as_str()).collect();
        let namespaces: Vec<&str> = members.iter().filter_map(|(ns, _)| ns.as_deref()).collect();
        let lines = named(kind.as_str(), &names, &namespaces);
        let node = c.add(Column::Binding, lines);
        node_of.extend(members.into_iter().map(|b| (b, node)));
    }
    steps
        .iter()
        .enumerate()
        .map(|(i, s)| match &s.route.binding {
            Some(b) => node_of.iter().find(|(m, _)| *m == b).map_or(subject[i], |(_, n)| *n),
            None => subject[i],
        })
        .collect()
}

/// Each step's role node: the roles the same nodes bind are one node.
fn role_nodes(c: &mut Cluster, steps: &[Step<'_>], binder: &[usize]) -> Vec<usize> {
    // A role: its kind, its namespace (a Role's is its binding's) and name.
    let role_of = |s: &Step<'_>| {
        let namespace = match s.route.role_kind {
            RoleRefKind::Role => s.route.binding.as_ref().and_then(|(ns, _)| ns.clone()),
            RoleRefKind::ClusterRole => None,
        };
        (s.route.role_kind, namespace, s.route.role.clone())
    };
    let binders = |role: &(RoleRefKind, Option<String>, String)| -> BTreeSet<usize> {
        steps.iter().enumerate().filter(|(_, s)| role_of(s) == *role).map(|(i, _)| binder[i]).collect()
    };
    let roles: Vec<_> = gather(steps.iter().map(|s| (role_of(s), ()))).into_iter().map(|(r, _)| r).collect();
    let mut node_of = Vec::new();
    for ((kind, _), members) in gather(roles.iter().map(|r| ((r.0, binders(r)), r))) {
        let names: Vec<&str> = members.iter().map(|r| r.2.as_str()).collect();
        let namespaces: Vec<&str> = members.iter().filter_map(|r| r.1.as_deref()).collect();
        let node = c.add(Column::Role, named(kind.as_str(), &names, &namespaces));
        node_of.extend(members.into_iter().map(|r| (r, node)));
    }
    steps.iter().map(|s| node_of.iter().find(|(r, _)| **r == role_of(s)).map_or(0, |(_, n)| *n)).collect()
}

/// Each step's target node: the APIs (or resources, or URLs) of one group
/// that the same role nodes reach with the same access are one node.
fn target_nodes(c: &mut Cluster, steps: &[Step<'_>], role: &[usize]) -> Vec<usize> {
    let reached_by = |group: &Group, item: &str| -> BTreeSet<(usize, &str, Option<Severity>)> {
        let same = |s: &&Step<'_>| &s.group == group && s.item == item;
        steps
            .iter()
            .enumerate()
            .filter(|(_, s)| same(s))
            .map(|(i, s)| (role[i], s.access.as_str(), s.severity))
            .collect()
    };
    let targets: Vec<(&Group, &str)> =
        gather(steps.iter().map(|s| ((&s.group, s.item.as_str()), ()))).into_iter().map(|(t, _)| t).collect();
    let mut node_of = Vec::new();
    for ((group, _), members) in gather(targets.iter().map(|(g, item)| ((*g, reached_by(g, item)), *item))) {
        let title = match group {
            Group::Api(g) if g.is_empty() => "core API".to_string(),
            Group::Api(g) => format!("API group {g}"),
            Group::Urls => "non-resource URLs".to_string(),
        };
        let mut lines = vec![title];
        lines.extend(wrap(&members, 48));
        let node = c.add(Column::Target, lines);
        node_of.extend(members.into_iter().map(|m| ((group, m), node)));
    }
    let find = |s: &Step<'_>| node_of.iter().find(|((g, m), _)| *g == &s.group && *m == s.item).map_or(0, |(_, n)| *n);
    steps.iter().map(find).collect()
}

/// A node's lines for objects of a kind: `Kind name`, or for several, how
/// many, what their names share (or the first name), and their namespaces.
fn named(kind: &str, names: &[&str], namespaces: &[&str]) -> Vec<String> {
    let mut distinct: Vec<&str> = names.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let mut lines = match (names, distinct.as_slice()) {
        ([one], _) => vec![format!("{kind} {one}")],
        (_, [one]) => vec![format!("{} {kind}s", names.len()), (*one).to_string()],
        (_, [first, ..]) => {
            vec![format!("{} {kind}s", names.len()), shared(&distinct).unwrap_or(format!("{first}, …"))]
        }
        (_, []) => vec![kind.to_string()],
    };
    let mut spaces: Vec<&str> = namespaces.to_vec();
    spaces.sort_unstable();
    spaces.dedup();
    if !spaces.is_empty() {
        lines
            .extend(wrap(&spaces, 48).into_iter().enumerate().map(|(i, l)| if i == 0 { format!("in {l}") } else { l }));
    }
    lines
}

/// What names share, as `prefix…suffix`, cut at a `-`, `.` or `/`; `None`
/// when they share nothing up to one.
fn shared(names: &[&str]) -> Option<String> {
    let chars: Vec<Vec<char>> = names.iter().map(|n| n.chars().collect()).collect();
    let shortest = chars.iter().map(Vec::len).min()?;
    let same_at = |f: &dyn Fn(&Vec<char>) -> char| chars.iter().all(|c| f(c) == f(&chars[0]));
    let mut prefix = (0..shortest).take_while(|&i| same_at(&|c| c[i])).count();
    let mut suffix = (0..shortest - prefix).take_while(|&i| same_at(&|c| c[c.len() - 1 - i])).count();
    let separator = |c: char| matches!(c, '-' | '.' | '/');
    let first = &chars[0];
    prefix = (0..prefix).rev().find(|&i| separator(first[i])).map_or(0, |i| i + 1);
    suffix = (0..suffix).rev().find(|&i| separator(first[first.len() - 1 - i])).map_or(0, |i| i + 1);
    if prefix == 0 && suffix == 0 {
        return None;
    }
    let head: String = first[..prefix].iter().collect();
    let tail: String = first[first.len() - suffix..].iter().collect();
    Some(format!("{head}…{tail}"))
}

/// Items joined by `, `, in lines of about `width` characters.
fn wrap(items: &[&str], width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for item in items {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 2 + item.chars().count() <= width => {
                line.push_str(", ");
                line.push_str(item);
            }
            Some(line) => {
                line.push(',');
                lines.push((*item).to_string());
            }
            None => lines.push((*item).to_string()),
        }
    }
    lines
}

/// How an edge is labelled: its access, and the severity when dangerous.
pub(crate) fn edge_text(e: &Edge) -> Option<String> {
    match (&e.label, e.severity) {
        (Some(l), Some(s)) => Some(format!("{l} ({s})")),
        (Some(l), None) => Some(l.clone()),
        (None, Some(s)) => Some(s.to_string()),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests;
