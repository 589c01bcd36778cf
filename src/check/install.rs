//! `can-install`: whether a ClusterExtension, created, updated or deleted by
//! a user, would be allowed by the RBAC and admitted by the admission
//! policies of rendered manifests; and why not. The manifests are the
//! cluster: a ClusterExtension of the same name in them makes the request an
//! UPDATE of it. RBAC is the kernel's answer ([`Policy::can`]), admission
//! the offline plugin's ([`admit`]).

use serde_json::Value as Json;

use super::commands::{searched, Common, INPUT_ERROR};
use super::load::{read, Loaded};
use crate::access::{GrantChain, Identity, Policy, Request};
use crate::admission::{admit, AdmissionRequest, Answer, Considered, Operation, Outcome as Decided};
use crate::input::Source;
use crate::model::OLM_V1_GROUP;
use crate::outcome::Outcome;
use crate::yaml;

/// Exit code when the answer cannot be told offline.
pub const CANNOT_TELL: crate::outcome::Exit = crate::outcome::Exit::CannotTell;

/// What `can-install` asks.
pub struct CanInstall<'a> {
    /// The ClusterExtension's file(s): exactly one ClusterExtension.
    pub extension: &'a [Source],
    /// `--as`: the user making the request.
    pub user: &'a str,
    /// `--as-group`: its groups besides those every such user is in.
    pub groups: &'a [String],
    /// `None`: UPDATE when the manifests hold one of that name, else CREATE.
    pub operation: Option<Operation>,
    /// `--explain`: the RBAC grant and every policy's part in the answer, not only the refusals.
    pub explain: bool,
    /// The built-in roles to add, and `-q`.
    pub common: Common,
}

fn input_error(message: String) -> Outcome {
    Outcome { stdout: String::new(), stderr: format!("error: {message}\n"), code: INPUT_ERROR }
}

/// The one ClusterExtension of the given file(s).
fn the_extension(sources: &[Source]) -> Result<(String, Json), Outcome> {
    let mut found = Vec::new();
    for source in sources {
        let docs = yaml::split_documents(&source.text)
            .map_err(|e| input_error(format!("{}: {} (line {})", source.name, e.message, e.pos.line)))?;
        for doc in &docs {
            let h = &doc.header;
            let extension =
                crate::model::is_extension(h).map_err(|why| input_error(format!("{}: {why}", source.name)))?;
            if extension {
                let value: Json =
                    yaml::parse_item(doc).map_err(|e| input_error(format!("{}: {}", source.name, e.message)))?;
                found.push((h.name.clone().unwrap_or_default(), value));
            } else if h.kind.is_some() {
                return Err(input_error(format!(
                    "{}: holds a {}, not a ClusterExtension (olm.operatorframework.io/v1): can-install asks about one ClusterExtension",
                    source.name,
                    h.kind.as_deref().unwrap_or_default()
                )));
            }
        }
    }
    match found.len() {
        1 => {
            let (name, value) = found.remove(0);
            if name.is_empty() {
                return Err(input_error("the ClusterExtension has no metadata.name".into()));
            }
            Ok((name, value))
        }
        0 => Err(input_error("no ClusterExtension (olm.operatorframework.io/v1) given to ask about".into())),
        n => Err(input_error(format!("{n} ClusterExtensions given: can-install asks about one"))),
    }
}

/// `yes` (exit 0), `no` (exit 1, with every reason), or `cannot tell`
/// (exit 3, with what could not be evaluated); 2 on unreadable input.
pub fn can_install(manifests: &[Source], q: &CanInstall<'_>) -> Outcome {
    let (name, object) = match the_extension(q.extension) {
        Ok(e) => e,
        Err(o) => return o,
    };
    let loaded = match read(manifests, q.common.builtin_roles) {
        Ok(l) => l,
        Err(errors) => {
            let stderr = errors.iter().map(|e| format!("{e}\n")).collect();
            return Outcome { stdout: String::new(), stderr, code: INPUT_ERROR };
        }
    };
    let existing = loaded.extensions.iter().find(|(n, _)| *n == name).map(|(_, v)| v);
    let operation = q.operation.unwrap_or(if existing.is_some() { Operation::Update } else { Operation::Create });
    if operation != Operation::Create && existing.is_none() {
        return input_error(format!(
            "the manifests hold no ClusterExtension {name}, so there is nothing to {}",
            operation.as_str().to_lowercase()
        ));
    }
    let who = Identity::new(q.user, q.groups);
    let verb = operation.as_str().to_lowercase();
    let old = if operation == Operation::Create { None } else { existing };
    let object = (operation != Operation::Delete).then_some(&object);
    let (rbac, (answer, considered)) = ask(&loaded, &who, operation, &name, object, old);
    let what = format!("{} of ClusterExtension {name}", operation.as_str());
    let mut lines = Vec::new();
    match &rbac {
        Some(grant) if q.explain => lines.push(format!("RBAC: {grant}")),
        Some(_) => {}
        None => lines.push(format!("RBAC: {}", rbac_refusal(&loaded.policy, &verb, &name, &who))),
    }
    for c in &considered {
        if let Some(line) = said(c, q.explain) {
            lines.push(line);
        }
    }
    if q.explain && considered.is_empty() {
        lines.push("admission: no ValidatingAdmissionPolicy in the input is bound".to_string());
    }
    let (word, code) = match (rbac.is_some(), answer) {
        (false, _) | (_, Answer::Refused) => ("no", crate::outcome::Exit::Refused),
        (true, Answer::CannotTell) => ("cannot tell", CANNOT_TELL),
        (true, Answer::Admitted) => ("yes", crate::outcome::Exit::Ok),
    };
    let mut stdout = format!("{word}\n");
    if q.explain || code != 0 {
        stdout.push_str(&format!("  {what} by user {:?}\n", who.user));
        for line in &lines {
            stdout.push_str(&format!("  {line}\n"));
        }
    }
    let stderr: String = considered
        .iter()
        .filter_map(|c| match &c.outcome {
            Decided::Failed { messages, deny: false, warn: true } => Some(
                messages
                    .iter()
                    .map(|m| format!("warning: ValidatingAdmissionPolicy {}: {m}\n", c.policy))
                    .collect::<String>(),
            ),
            _ => None,
        })
        .collect();
    if q.common.quiet {
        return Outcome { stdout: String::new(), stderr: String::new(), code };
    }
    Outcome { stdout, stderr, code }
}

/// What the cluster does with `who`'s request on the ClusterExtension
/// `name`: the RBAC grant, if any, and the admission policies' answer. The
/// one way `can-install` and `diff` ask.
pub(crate) fn ask(
    loaded: &Loaded,
    who: &Identity,
    operation: Operation,
    name: &str,
    object: Option<&Json>,
    old_object: Option<&Json>,
) -> (Option<GrantChain>, (Answer, Vec<Considered>)) {
    let verb = operation.as_str().to_lowercase();
    let request =
        Request { name: Some(name.to_string()), ..Request::on(&verb, OLM_V1_GROUP, "clusterextensions", None) };
    let admission = AdmissionRequest {
        operation,
        group: OLM_V1_GROUP,
        version: "v1",
        resource: "clusterextensions",
        kind: "ClusterExtension",
        name,
        object,
        old_object,
        user: &who.user,
        groups: who.groups.iter().cloned().collect(),
    };
    (loaded.policy.can(who, &request), admit(&loaded.admission, &admission))
}

/// One policy's part in the answer: its refusals always, the rest with
/// `--explain`.
fn said(c: &Considered, explain: bool) -> Option<String> {
    let at = if c.binding.is_empty() {
        c.policy.clone()
    } else if c.binding == c.policy {
        format!("ValidatingAdmissionPolicy {}", c.policy)
    } else {
        format!("ValidatingAdmissionPolicy {} (binding {})", c.policy, c.binding)
    };
    match &c.outcome {
        Decided::Failed { messages, deny: true, .. } => Some(format!("{at}: {}", messages.join("; "))),
        Decided::CannotTell(why) => Some(format!("{at}: cannot tell: {why}")),
        Decided::Admitted(n) if explain => Some(format!("{at}: admits it ({n} validation(s) hold)")),
        Decided::Skipped(why) if explain => Some(format!("{at}: does not apply: {why}")),
        Decided::Failed { messages, .. } if explain => {
            Some(format!("{at}: fails, without Deny: {}", messages.join("; ")))
        }
        _ => None,
    }
}

fn rbac_refusal(policy: &Policy, verb: &str, name: &str, who: &Identity) -> String {
    let groups: Vec<&str> = who.groups.iter().map(String::as_str).collect();
    let searched = searched(policy);
    format!(
        "no binding in {searched} grants {verb} on clusterextensions.{OLM_V1_GROUP} {name:?} to user {:?} (groups: {})",
        who.user,
        groups.join(", ")
    )
}
