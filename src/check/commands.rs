//! `can-i`, `who-can` and `report`: the access checks as commands, returning
//! what to print and the exit code.

use super::load::{load_from, Loaded};
pub use super::load::{Installed, Manifests};
use super::shapes::{encode, DeputyOut, HeldAccessOut, PermissionOut, ThroughOut, WhoCanOut};
use super::{graph, matrix};
use crate::access::allowed::{resource_text, Place, Target};
use crate::access::builtin::{BuiltinRoles, KUBERNETES_VERSION};
use crate::access::{Asked, Grantee, HeldAccess, Identity, Policy, Request, UrlRequest};
use crate::outcome::Outcome;

pub use super::shapes::Format;

/// Exit code for a broken input or a usage error, apart from can-i's "no" (1).
pub const INPUT_ERROR: crate::outcome::Exit = crate::outcome::Exit::Input;

fn input_error(message: String) -> Outcome {
    Outcome { stdout: String::new(), stderr: format!("error: {message}\n"), code: INPUT_ERROR }
}

/// What every access command takes besides its question.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Common {
    /// The built-in roles and bindings added to the input's (`--builtin-roles`).
    pub builtin_roles: BuiltinRoles,
    /// `-q`: no warnings; `can-i` prints nothing at all, its exit code answers.
    pub quiet: bool,
}

/// Without `-f` the manifests come on stdin; from a terminal they would not
/// come at all, so the command refuses at once instead of waiting.
pub fn refuse_terminal(command: &str, files_given: bool, stdin_is_terminal: bool) -> Option<Outcome> {
    crate::input::refuse_terminal(
        &format!("{command} reads rendered manifests"),
        &format!("pass them with -f FILE, or pipe them in (olm-rbac render ... | olm-rbac {command} ...)"),
        files_given,
        stdin_is_terminal,
    )
    .map(input_error)
}

/// Runs a command on the policy read from the inputs. Warnings (about the
/// input, then the command's own) go first on stderr, unless `quiet`; errors
/// always do.
pub(super) fn with_policy(
    inputs: Manifests<'_>,
    common: Common,
    command: impl FnOnce(&Policy, &mut Vec<String>) -> Outcome,
) -> Outcome {
    with_loaded(inputs, common, |loaded, warnings| command(&loaded.policy, warnings))
}

/// [`with_policy`], with all that was read: the admission policies and
/// ClusterExtensions too.
pub(super) fn with_loaded(
    inputs: Manifests<'_>,
    common: Common,
    command: impl FnOnce(&Loaded, &mut Vec<String>) -> Outcome,
) -> Outcome {
    let loaded = match load_from(inputs, common.builtin_roles) {
        Ok(loaded) => loaded,
        Err(errors) => {
            let stderr = errors.iter().map(|e| format!("{e}\n")).collect();
            return Outcome { stdout: String::new(), stderr, code: INPUT_ERROR };
        }
    };
    let mut warnings: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
    let mut out = if loaded.objects == 0 {
        input_error(
            "the input holds no Kubernetes objects: pass the rendered manifests with -f or on stdin".to_string(),
        )
    } else {
        command(&loaded, &mut warnings)
    };
    if !common.quiet {
        out.stderr.insert_str(0, &warnings.iter().map(|w| format!("{w}\n")).collect::<String>());
    }
    out
}

/// What a command asks about: a resource request or a non-resource URL.
enum Question {
    Resource(Request),
    Url(UrlRequest),
}

impl Question {
    fn asked(&self) -> Asked<'_> {
        match self {
            Question::Resource(r) => Asked::Resource(r),
            Question::Url(u) => Asked::Url(u),
        }
    }

    /// The resource as `can-i` takes it, or the URL.
    fn target(&self) -> String {
        match self {
            Question::Resource(req) => {
                let mut r = resource_text(&req.group, &req.resource);
                if let Some(sub) = &req.subresource {
                    r.push('/');
                    r.push_str(sub);
                }
                r
            }
            Question::Url(u) => u.path.clone(),
        }
    }
}

/// Builds the question as kubectl does: `RESOURCE` starting with `/` is a
/// non-resource URL; otherwise a resource (plural, singular, kind or short
/// name, with `.group` and `/subresource`). A namespace is ignored, with a
/// warning, for a URL and for a cluster-scoped resource.
fn question(
    policy: &Policy,
    verb: &str,
    resource: &str,
    name: Option<&str>,
    subresource: Option<&str>,
    namespace: Option<&str>,
    warnings: &mut Vec<String>,
) -> Result<Question, Outcome> {
    if resource.starts_with('/') {
        if subresource.is_some() {
            return Err(input_error(format!("{resource} is a non-resource URL, which has no subresource")));
        }
        if let Some(name) = name {
            return Err(input_error(format!("{resource} is a non-resource URL, which takes no NAME (given {name:?})")));
        }
        if let Some(ns) = namespace {
            warnings
                .push(format!("warning: {resource} is a non-resource URL, which has no namespace: -n {ns} is ignored"));
        }
        return Ok(Question::Url(UrlRequest { verb: verb.to_string(), path: resource.to_string() }));
    }
    let (resource, name) = type_and_name(resource, name, subresource)?;
    let resolved = policy.resources.resolve(resource).map_err(input_error)?;
    if let Some(unknown) = &resolved.unknown {
        warnings.push(format!("warning: {unknown}"));
    }
    if let Some(sub) = subresource.filter(|s| !crate::access::subresources::is_subresource(s)) {
        warnings.push(format!(
            "warning: {sub:?} is no subresource the API server serves or authorizes: no request names it, so only a rule for \"*\" or \"*/{sub}\" allows it"
        ));
    }
    let (group, plural) = (resolved.group, resolved.plural);
    let subresource = subresource.map(String::from);
    let cluster = policy.resources.request_is_cluster_scoped(&group, &plural, name, namespace);
    if let (true, Some(ns)) = (cluster, namespace) {
        let text = resource_text(&group, &plural);
        warnings.push(format!("warning: {text} is cluster-scoped: -n {ns} is ignored"));
    }
    Ok(Question::Resource(Request {
        verb: verb.to_string(),
        group,
        resource: plural,
        subresource,
        name: name.map(String::from),
        namespace: if cluster { None } else { namespace.map(String::from) },
    }))
}

/// `TYPE` or `TYPE/NAME`, as kubectl reads its argument (`pods/log` is the pod
/// named `log`; a subresource is `--subresource`). Where the part after `/` is
/// a subresource's name, what was meant cannot be told, and it is refused
/// with both ways to say it; a name given twice is refused.
fn type_and_name<'a>(
    resource: &'a str,
    name: Option<&'a str>,
    subresource: Option<&str>,
) -> Result<(&'a str, Option<&'a str>), Outcome> {
    let Some((kind, object)) = resource.split_once('/') else { return Ok((resource, name)) };
    if let Some(name) = name {
        return Err(input_error(format!(
            "{resource}: TYPE/NAME names the object already, and NAME {name:?} is given too; give the name once"
        )));
    }
    if subresource.is_none() && crate::access::subresources::is_subresource(object) {
        return Err(input_error(format!(
            "{resource}: kubectl reads TYPE/NAME, the {kind} named {object:?}; for the subresource write `{kind} --subresource {object}`, for an object named {object:?} write `{kind} {object}`"
        )));
    }
    if object.is_empty() || object.contains('/') {
        return Err(input_error(format!("{resource}: not TYPE or TYPE/NAME")));
    }
    Ok((kind, Some(object)))
}

/// One `can-i` question: may this user, with these groups, make this request?
pub struct CanI<'a> {
    /// The verb asked (`get`, `create`, … or `*`).
    pub verb: &'a str,
    /// The resource as kubectl takes it (plural, singular, kind or short name, with `.group`; `TYPE/NAME` as kubectl reads it),
    /// or a non-resource URL starting with `/`.
    pub resource: &'a str,
    /// One object's name, which rules with `resourceNames` may allow.
    pub name: Option<&'a str>,
    /// `--subresource`: the subresource asked about (`log`, `scale`).
    pub subresource: Option<&'a str>,
    /// `-n`: the namespace asked in; without it, cluster-wide (ignored for a cluster-scoped resource or a URL).
    pub namespace: Option<&'a str>,
    /// `-A`: in every namespace at once, as `kubectl auth can-i -A` asks,
    /// which only cluster-wide grants answer.
    pub all_namespaces: bool,
    /// `--as`: the user asking (`system:serviceaccount:NS:NAME` for a ServiceAccount).
    pub user: &'a str,
    /// `--as-group`: its groups besides those every such user is in.
    pub groups: &'a [String],
    /// `--explain`: with `yes`, the chain that grants it; with `no`, what was asked and searched.
    pub explain: bool,
    /// The built-in roles to add, and `-q`.
    pub common: Common,
}

/// `yes` (exit 0) or `no` (exit 1); with `explain`, the granting chain; with
/// `quiet`, nothing but the exit code.
pub fn can_i<'a>(inputs: impl Into<Manifests<'a>>, q: &CanI<'_>) -> Outcome {
    with_policy(inputs.into(), q.common, |policy, warnings| {
        // `-A` asks with no namespace, as kubectl sends it: RoleBindings do not answer.
        let namespace = if q.all_namespaces { None } else { q.namespace };
        let asked = match question(policy, q.verb, q.resource, q.name, q.subresource, namespace, warnings) {
            Ok(r) => r,
            Err(o) => return o,
        };
        let who = Identity::new(q.user, q.groups);
        let (mut stdout, code) = match policy.can_asked(&who, asked.asked()) {
            Some(grant) if q.explain => (format!("yes\n  {grant}\n"), crate::outcome::Exit::Ok),
            Some(_) => ("yes\n".to_string(), crate::outcome::Exit::Ok),
            None if q.explain => {
                (format!("no\n  {}\n", refusal(&asked, q, &who, policy)), crate::outcome::Exit::Refused)
            }
            None => ("no\n".to_string(), crate::outcome::Exit::Refused),
        };
        if q.common.quiet {
            stdout.clear();
        }
        Outcome { stdout, stderr: String::new(), code }
    })
}

/// Where an answer was looked for, in a refusal: the input, and Kubernetes'
/// bootstrap policy when it was added.
pub(super) fn searched(policy: &Policy) -> String {
    if policy.bindings.iter().any(|b| b.builtin) {
        format!("the input or Kubernetes {KUBERNETES_VERSION}'s bootstrap policy")
    } else {
        "the input".to_string()
    }
}

/// Why `no`: what was asked, where, of whom, and what was searched.
fn refusal(asked: &Question, q: &CanI<'_>, who: &Identity, policy: &Policy) -> String {
    let groups: Vec<&str> = who.groups.iter().map(String::as_str).collect();
    let place = match (asked, q.all_namespaces) {
        (Question::Url(_), _) => "cluster-wide (a non-resource URL: only ClusterRoleBindings grant it)".to_string(),
        (Question::Resource(_), true) => "in all namespaces at once (only cluster-wide grants answer that)".to_string(),
        (Question::Resource(req), false) => match &req.namespace {
            Some(ns) => format!("in namespace {ns}"),
            None => "cluster-wide".to_string(),
        },
    };
    let name = match asked {
        Question::Resource(Request { name: Some(name), .. }) => format!(" {name:?}"),
        _ => String::new(),
    };
    let searched = searched(policy);
    format!(
        "no binding in {searched} grants {} on {}{name} {place} to user {:?} (groups: {})",
        q.verb,
        asked.target(),
        who.user,
        groups.join(", ")
    )
}

/// A `can-i --list` question: everything this user, with these groups, may do.
pub struct CanIList<'a> {
    /// `-n`: what it may do in the namespace; without it, cluster-wide.
    pub namespace: Option<&'a str>,
    /// `-A`: every binding, with a Namespace column.
    pub all_namespaces: bool,
    /// `--as`: the user asking (`system:serviceaccount:NS:NAME` for a ServiceAccount).
    pub user: &'a str,
    /// `--as-group`: its groups besides those every such user is in.
    pub groups: &'a [String],
}

/// `can-i --list`: a table of what the identity may do, with kubectl's
/// columns; with `-A`, a Namespace column first (`*`: cluster-wide).
pub fn can_i_list<'a>(inputs: impl Into<Manifests<'a>>, q: &CanIList<'_>) -> Outcome {
    can_i_list_with(inputs, q, Format::Table, Common::default())
}

/// [`can_i_list`] as a table, or in the JSON or YAML shape of
/// [`PermissionOut`]: one entry per line of the table.
pub fn can_i_list_with<'a>(
    inputs: impl Into<Manifests<'a>>,
    q: &CanIList<'_>,
    output: Format,
    common: Common,
) -> Outcome {
    with_policy(inputs.into(), common, |policy, _| {
        let place = match (q.all_namespaces, q.namespace) {
            (true, _) => Place::Each,
            (false, Some(ns)) => Place::Namespace(ns),
            (false, None) => Place::ClusterWide,
        };
        let who = Identity::new(q.user, q.groups);
        let permissions = policy.permissions(&who, place);
        if matches!(output, Format::Json | Format::Yaml) {
            let shaped: Vec<PermissionOut> = permissions.iter().map(PermissionOut::of).collect();
            return encoded(&shaped, output);
        }
        let bracket = |items: &[String]| format!("[{}]", items.join(" "));
        let mut rows: Vec<Vec<String>> = Vec::new();
        for p in permissions {
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
        let stdout = super::table::columns(&header, &rows, 3);
        Outcome { stdout, stderr: String::new(), code: crate::outcome::Exit::Ok }
    })
}

/// `value` in the format asked, exit 0; should it not encode, an error.
pub(super) fn encoded<T: serde::Serialize>(value: &T, format: Format) -> Outcome {
    match encode(value, format) {
        Ok(stdout) => Outcome { stdout, stderr: String::new(), code: crate::outcome::Exit::Ok },
        Err(e) => input_error(format!("could not write the output: {e}")),
    }
}

/// A `who-can` question: which subjects may make this request?
pub struct WhoCan<'a> {
    /// The verb asked (`get`, `create`, … or `*`).
    pub verb: &'a str,
    /// The resource as kubectl takes it (plural, singular, kind or short name, with `.group`; `TYPE/NAME` as kubectl reads it),
    /// or a non-resource URL starting with `/`.
    pub resource: &'a str,
    /// `-n`: grants that apply in this namespace; without it (and without
    /// `-A`), cluster-wide grants only, as `can-i` without `-n` asks.
    pub namespace: Option<&'a str>,
    /// `-A`: grants in any namespace or cluster-wide, each saying where.
    pub all_namespaces: bool,
    /// `--subresource`: the subresource asked about (`log`, `scale`).
    pub subresource: Option<&'a str>,
}

/// Every subject that may make the request in the namespace (cluster-wide
/// without one), as a table, with Kubernetes' bootstrap roles.
pub fn who_can<'a>(inputs: impl Into<Manifests<'a>>, verb: &str, resource: &str, namespace: Option<&str>) -> Outcome {
    let q = WhoCan { verb, resource, namespace, all_namespaces: false, subresource: None };
    who_can_with(inputs, &q, Format::Table, Common::default())
}

/// Every subject that may make the request, where, and through what. Those
/// reached through Kubernetes' bootstrap bindings follow the input's, under a
/// line that says so.
pub fn who_can_with<'a>(inputs: impl Into<Manifests<'a>>, q: &WhoCan<'_>, output: Format, common: Common) -> Outcome {
    with_policy(inputs.into(), common, |policy, warnings| {
        let namespace = if q.all_namespaces { None } else { q.namespace };
        let asked = match question(policy, q.verb, q.resource, None, q.subresource, namespace, warnings) {
            Ok(r) => r,
            Err(o) => return o,
        };
        let place = match (q.all_namespaces, q.namespace) {
            (true, _) => Place::Each,
            (false, Some(ns)) => Place::Namespace(ns),
            (false, None) => Place::ClusterWide,
        };
        let holders = policy.who_can(asked.asked(), place);
        let through = policy.who_can_through_accounts(&holders);
        // A deputy acts with rights the input does not show, so it may make
        // any request on a resource; a URL is the API server's own.
        let deputies = match &asked {
            Question::Resource(_) => policy.who_can_through_deputies(&holders),
            Question::Url(_) => Vec::new(),
        };
        if matches!(output, Format::Json | Format::Yaml) {
            let (resource, non_resource_url) = match &asked {
                Question::Resource(_) => (Some(asked.target()), None),
                Question::Url(_) => (None, Some(asked.target())),
            };
            let scope = match place {
                Place::ClusterWide => "*".to_string(),
                Place::Namespace(ns) => ns.to_string(),
                Place::Each => "each".to_string(),
            };
            let holders = holders.iter().map(HeldAccessOut::of).collect();
            let through = through.iter().map(ThroughOut::of).collect();
            let deputies = deputies.iter().map(DeputyOut::of).collect();
            let shaped =
                WhoCanOut { verb: q.verb.to_string(), resource, non_resource_url, scope, holders, through, deputies };
            return encoded(&shaped, output);
        }
        let row = |a: &HeldAccess| {
            let place = match (&a.grantee, &a.namespace) {
                (_, Some(ns)) => ns.clone(),
                (Grantee::AnyoneBoundTo { cluster_binding_only: false, .. }, None) => "where bound".to_string(),
                (_, None) => "cluster-wide".to_string(),
            };
            vec![a.grantee.to_string(), place, a.chain.to_string()]
        };
        let (builtin, input): (Vec<_>, Vec<_>) = holders.iter().partition(|a| a.chain.via.builtin());
        let header = ["SUBJECT".to_string(), "WHERE".into(), "GRANTED BY".into()];
        let mut rows: Vec<Vec<String>> = input.iter().map(|a| row(a)).collect();
        if !builtin.is_empty() {
            let note = format!(
                "# Kubernetes {KUBERNETES_VERSION}'s bootstrap bindings (--builtin-roles=none leaves them out):"
            );
            rows.push(vec![note]);
            rows.extend(builtin.iter().map(|a| row(a)));
        }
        if !through.is_empty() {
            rows.push(vec![
                "# Through a ServiceAccount above: whoever may run a pod as it, exec into its pods or request its tokens holds what it holds:".into(),
            ]);
            for t in &through {
                let mut r = row(&t.held);
                r[0] = t.becomer.grantee.to_string();
                r[2] = format!("{} → {}", t.becomer.steps_to(&t.account.0, &t.account.1), t.held.chain);
                rows.push(r);
            }
        }
        if !deputies.is_empty() {
            rows.push(vec![DEPUTIES_NOTE.into()]);
            for d in &deputies {
                let mut r = row(&d.held);
                r[2] = format!("{} → {} acts for it ({}), granted by {}", d.writes, d.deputy, d.what, d.held.chain);
                rows.push(r);
            }
        }
        let stdout = super::table::columns(&header, &rows, 2);
        Outcome { stdout, stderr: String::new(), code: crate::outcome::Exit::Ok }
    })
}

/// The line before `who-can`'s answers through a deputy.
const DEPUTIES_NOTE: &str = "# Through a deputy: a controller acts with its own rights, which the input does not show (OLM v1's are cluster-admin's), on what these subjects may write; an admission policy may narrow what it accepts:";

/// The access matrix per extension, with Kubernetes' bootstrap roles.
pub fn report<'a>(inputs: impl Into<Manifests<'a>>, format: Format) -> Outcome {
    report_with(inputs, format, Common::default())
}

/// The access matrix per extension: a table that fits 120 columns, Markdown
/// (with a Mermaid graph per extension), JSON, YAML, or a Graphviz graph.
pub fn report_with<'a>(inputs: impl Into<Manifests<'a>>, format: Format, common: Common) -> Outcome {
    with_policy(inputs.into(), common, |policy, _| {
        let r = matrix::build(policy);
        match format {
            Format::Table => {
                Outcome { stdout: matrix::table(&r), stderr: String::new(), code: crate::outcome::Exit::Ok }
            }
            Format::Markdown => {
                let picture = |extension: &Option<String>| {
                    let picture = graph::cluster(&r, extension);
                    (!picture.nodes.is_empty()).then(|| graph::mermaid(&picture))
                };
                Outcome { stdout: matrix::markdown(&r, picture), stderr: String::new(), code: crate::outcome::Exit::Ok }
            }
            Format::Json | Format::Yaml => encoded(&r, format),
            Format::Dot => Outcome {
                stdout: graph::dot(&graph::clusters(&r)),
                stderr: String::new(),
                code: crate::outcome::Exit::Ok,
            },
            // The command line offers SARIF for diff only.
            Format::Sarif => input_error("report writes no SARIF: use diff -o sarif".into()),
        }
    })
}
