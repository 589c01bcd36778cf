//! `can-i`, `who-can` and `report`: the access checks as commands, returning
//! what to print and the exit code.

use super::allowed::{Place, Target};
use super::{matrix, read, Identity, Policy, Request};
use crate::input::{Outcome, Source};

/// Exit code for a broken input or a usage error, apart from can-i's "no" (1).
pub const INPUT_ERROR: i32 = 2;

fn fail(message: String) -> Outcome {
    Outcome { stdout: String::new(), stderr: format!("error: {message}\n"), code: INPUT_ERROR }
}

/// Without `-f` the manifests come on stdin; from a terminal they would not
/// come at all, so the command refuses at once instead of waiting.
pub fn refuse_terminal(command: &str, files_given: bool, stdin_is_terminal: bool) -> Option<Outcome> {
    (!files_given && stdin_is_terminal).then(|| {
        fail(format!(
            "{command} reads rendered manifests, and stdin is a terminal: pass them with -f FILE, \
             or pipe them in (olm-rbac render ... | olm-rbac {command} ...)"
        ))
    })
}

/// The policy, and the warnings to print first (one per skipped item).
fn policy(inputs: &[Source]) -> Result<(Policy, String), Outcome> {
    let loaded = read(inputs).map_err(|errors| fail(errors.join("\nerror: ")))?;
    let warnings: String = loaded.warnings.iter().map(|w| format!("warning: {w}\n")).collect();
    if loaded.objects == 0 {
        let mut out =
            fail("the input holds no Kubernetes objects: pass the rendered manifests with -f or on stdin".to_string());
        out.stderr.insert_str(0, &warnings);
        return Err(out);
    }
    Ok((loaded.policy, warnings))
}

/// Builds a request as kubectl does: `RESOURCE` is `plural`, `plural.group`
/// or either with `/subresource`; a namespace is ignored for cluster-scoped
/// resources.
fn request(
    policy: &Policy,
    verb: &str,
    resource: &str,
    name: Option<&str>,
    namespace: Option<&str>,
) -> Result<Request, Outcome> {
    let (group, plural, subresource) = policy.resources.resolve(resource).map_err(fail)?;
    let own_namespace = group.is_empty() && plural == "namespaces" && name.is_some() && name == namespace;
    let cluster = !own_namespace && policy.resources.cluster_scoped(&group, &plural).unwrap_or(false);
    Ok(Request {
        verb: verb.to_string(),
        group,
        resource: plural,
        subresource,
        name: name.map(String::from),
        namespace: if cluster { None } else { namespace.map(String::from) },
    })
}

/// Runs a command on the policy read from the inputs, warnings first on stderr.
fn with_policy(inputs: &[Source], command: impl FnOnce(&Policy) -> Outcome) -> Outcome {
    match policy(inputs) {
        Ok((policy, warnings)) => {
            let mut out = command(&policy);
            out.stderr.insert_str(0, &warnings);
            out
        }
        Err(out) => out,
    }
}

pub struct CanI<'a> {
    pub verb: &'a str,
    pub resource: &'a str,
    pub name: Option<&'a str>,
    pub namespace: Option<&'a str>,
    /// `-A`: in every namespace at once, as `kubectl auth can-i -A` asks,
    /// which only cluster-wide grants answer.
    pub all_namespaces: bool,
    pub user: &'a str,
    pub groups: &'a [String],
    pub explain: bool,
}

/// `yes` (exit 0) or `no` (exit 1); with `explain`, the granting chain.
pub fn can_i(inputs: &[Source], q: &CanI<'_>) -> Outcome {
    with_policy(inputs, |policy| {
        // `-A` asks with no namespace, as kubectl sends it: RoleBindings do not answer.
        let namespace = if q.all_namespaces { None } else { q.namespace };
        let req = match request(policy, q.verb, q.resource, q.name, namespace) {
            Ok(r) => r,
            Err(o) => return o,
        };
        let who = Identity::new(q.user, q.groups);
        let answer = policy.can(&who, &req);
        match answer {
            Some(grant) => {
                let mut stdout = String::from("yes\n");
                if q.explain {
                    stdout.push_str(&format!("  {grant}\n"));
                    let first = grant.roles.first().map(String::as_str).unwrap_or_default();
                    if policy.cluster_roles.get(first).is_some_and(|r| r.builtin) {
                        stdout.push_str(&format!(
                            "  (ClusterRole {first} is built in: Kubernetes {}'s bootstrap policy)\n",
                            super::builtin::KUBERNETES_VERSION
                        ));
                    }
                }
                Outcome { stdout, stderr: String::new(), code: 0 }
            }
            None => {
                let mut stdout = String::from("no\n");
                if q.explain {
                    let groups: Vec<&str> = who.groups.iter().map(String::as_str).collect();
                    let place = match (q.all_namespaces, req.namespace.as_deref()) {
                        (true, _) => "in all namespaces at once (only cluster-wide grants answer that)".to_string(),
                        (false, Some(ns)) => format!("in namespace {ns}"),
                        (false, None) => "cluster-wide".to_string(),
                    };
                    stdout.push_str(&format!(
                        "  no binding in the input grants {} on {} {place} to user {:?} (groups: {})\n",
                        req.verb,
                        describe_resource(&req),
                        who.user,
                        groups.join(", ")
                    ));
                }
                Outcome { stdout, stderr: String::new(), code: 1 }
            }
        }
    })
}

pub struct CanIList<'a> {
    pub namespace: Option<&'a str>,
    /// `-A`: every binding, with a Namespace column.
    pub all_namespaces: bool,
    pub user: &'a str,
    pub groups: &'a [String],
}

/// `can-i --list`: a table of what the identity may do, with kubectl's
/// columns; with `-A`, a Namespace column first (`*`: cluster-wide).
pub fn can_i_list(inputs: &[Source], q: &CanIList<'_>) -> Outcome {
    with_policy(inputs, |policy| {
        let place = match (q.all_namespaces, q.namespace) {
            (true, _) => Place::Each,
            (false, Some(ns)) => Place::Namespace(ns),
            (false, None) => Place::ClusterWide,
        };
        let who = Identity::new(q.user, q.groups);
        let bracket = |items: &[String]| format!("[{}]", items.join(" "));
        let mut rows: Vec<Vec<String>> = Vec::new();
        for p in policy.permissions(&who, place) {
            let (urls, names) = match &p.target {
                Target::Resources { names, .. } => (bracket(&[]), bracket(names)),
                Target::Urls(urls) => (bracket(urls), bracket(&[])),
            };
            let mut row = vec![p.target.resources_text(), urls, names, bracket(&p.verbs)];
            if q.all_namespaces {
                row.insert(0, p.namespace.clone().unwrap_or_else(|| "*".into()));
            }
            rows.push(row);
        }
        let mut header: Vec<String> =
            ["Resources", "Non-Resource URLs", "Resource Names", "Verbs"].map(String::from).to_vec();
        if q.all_namespaces {
            header.insert(0, "Namespace".into());
        }
        let stdout = columns(&header, &rows, 3);
        Outcome { stdout, stderr: String::new(), code: 0 }
    })
}

/// The widest a cell may make its column: a longer cell (a rule listing
/// hundreds of resources) overflows its own line instead of padding every
/// other line to its width.
const MAX_COLUMN: usize = 80;

/// Left-aligned columns, `gap` spaces apart; the last column is not padded,
/// and cells wider than [`MAX_COLUMN`] do not widen theirs.
fn columns(header: &[String], rows: &[Vec<String>], gap: usize) -> String {
    let last = header.len().saturating_sub(1);
    let widths: Vec<usize> = (0..last)
        .map(|i| {
            let cells = rows.iter().filter_map(|r| r.get(i)).map(|c| c.chars().count()).filter(|&w| w <= MAX_COLUMN);
            cells.chain([header[i].len()]).max().unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in std::iter::once(header).chain(rows.iter().map(Vec::as_slice)) {
        let start = out.len();
        for (i, cell) in row.iter().enumerate() {
            out.push_str(cell);
            if let Some(w) = widths.get(i) {
                let pad = w.saturating_sub(cell.chars().count()) + gap;
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        let end = out[start..].trim_end().len() + start;
        out.truncate(end);
        out.push('\n');
    }
    out
}

fn describe_resource(req: &Request) -> String {
    let mut r = if req.group.is_empty() { req.resource.clone() } else { format!("{}.{}", req.resource, req.group) };
    if let Some(sub) = &req.subresource {
        r.push('/');
        r.push_str(sub);
    }
    if let Some(name) = &req.name {
        r.push_str(&format!(" {name:?}"));
    }
    r
}

/// Every subject that may make the request, where, and through what.
pub fn who_can(inputs: &[Source], verb: &str, resource: &str, namespace: Option<&str>) -> Outcome {
    with_policy(inputs, |policy| {
        let req = match request(policy, verb, resource, None, namespace) {
            Ok(r) => r,
            Err(o) => return o,
        };
        let rows: Vec<[String; 3]> = policy
            .who_can(&req)
            .into_iter()
            .map(|a| {
                let place = match (&a.holder, &a.namespace) {
                    (super::Holder::RoleHolders { cluster_only: false, .. }, _) => "where bound".to_string(),
                    (super::Holder::RoleHolders { cluster_only: true, .. }, _) => "cluster-wide".to_string(),
                    (_, None) => "cluster-wide".to_string(),
                    (_, Some(ns)) => ns.clone(),
                };
                [a.holder.to_string(), place, a.grant.to_string()]
            })
            .collect();
        let header = ["SUBJECT".to_string(), "WHERE".into(), "GRANTED BY".into()];
        let widths: Vec<usize> =
            (0..2).map(|i| rows.iter().map(|r| r[i].len()).chain([header[i].len()]).max().unwrap_or(0)).collect();
        let mut stdout = String::new();
        for row in std::iter::once(&header).chain(&rows) {
            stdout.push_str(&format!("{:<w0$}  {:<w1$}  {}\n", row[0], row[1], row[2], w0 = widths[0], w1 = widths[1]));
        }
        Outcome { stdout, stderr: String::new(), code: 0 }
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Markdown,
    Json,
}

/// The access matrix per extension.
pub fn report(inputs: &[Source], format: Format) -> Outcome {
    with_policy(inputs, |policy| {
        let r = matrix::build(policy);
        let stdout = match format {
            Format::Table => matrix::table(&r),
            Format::Markdown => matrix::markdown(&r),
            Format::Json => serde_json::to_string_pretty(&r)
                .map(|mut s| {
                    s.push('\n');
                    s
                })
                .unwrap_or_default(),
        };
        Outcome { stdout, stderr: String::new(), code: 0 }
    })
}
