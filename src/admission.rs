//! Admission, offline: what the API server's ValidatingAdmissionPolicy
//! plugin would do with a request, from the policies and bindings in the
//! input. Any policy is read, not only olm-rbac's: its match constraints and
//! its binding's, its match conditions, variables and validations, its
//! `failurePolicy` and the binding's `validationActions`. The CEL is
//! evaluated by [`cel`]; what it cannot evaluate, and what the check cannot
//! see (parameters, namespace objects), is [`Answer::CannotTell`], never a
//! yes. No YAML here: the policies come typed, the objects as JSON.

use std::collections::BTreeMap;

use k8s_openapi::api::admissionregistration::v1::{
    MatchResources, NamedRuleWithOperations, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding,
};
use serde_json::{json, Value as Json};

use crate::access::selects;

mod cel;

use self::cel::{as_cel, evaluate, Activation, Eval};

/// The operations a policy can match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// `CREATE`: the object is new; there is no old object.
    Create,
    /// `UPDATE`: both the object and the old one are seen.
    Update,
    /// `DELETE`: only the old object is seen.
    Delete,
}

impl Operation {
    /// The operation as a policy's rules and CEL's `request.operation` name it (`CREATE`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
        }
    }
}

/// A request on a cluster-scoped object, as the admission chain sees it.
#[derive(Debug, Clone)]
pub struct AdmissionRequest<'a> {
    /// What is done to the object.
    pub operation: Operation,
    /// The object's API group (`olm.operatorframework.io`).
    pub group: &'a str,
    /// The object's API version (`v1`).
    pub version: &'a str,
    /// The resource's plural (`clusterextensions`), which the policies' rules match.
    pub resource: &'a str,
    /// The object's kind (`ClusterExtension`).
    pub kind: &'a str,
    /// The object's name, which rules with `resourceNames` match.
    pub name: &'a str,
    /// `None` on DELETE.
    pub object: Option<&'a Json>,
    /// `None` on CREATE.
    pub old_object: Option<&'a Json>,
    /// The username making the request, CEL's `request.userInfo.username`.
    pub user: &'a str,
    /// Every group of the user, the implied ones included.
    pub groups: Vec<String>,
}

/// The admission policies and bindings of an input.
#[derive(Debug, Clone, Default)]
pub struct Policies {
    /// The ValidatingAdmissionPolicies; each applies only through a binding that names it.
    pub policies: Vec<ValidatingAdmissionPolicy>,
    /// The ValidatingAdmissionPolicyBindings, each evaluated in turn.
    pub bindings: Vec<ValidatingAdmissionPolicyBinding>,
    /// Admission the check cannot evaluate: webhook configurations and
    /// mutating policies, each as `(kind, name, the rules it matches by)`.
    pub others: Vec<(String, String, Vec<Json>)>,
}

/// What one binding of one policy made of the request.
#[derive(Debug, Clone, PartialEq)]
pub struct Considered {
    /// The policy's name; for a webhook or mutating policy, its kind and name.
    pub policy: String,
    /// The binding's name; empty where none is involved (a webhook, a mutating policy, the engine's failure).
    pub binding: String,
    /// What it decided.
    pub outcome: Outcome,
}

/// What a policy decided, through one binding.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// It does not apply: the reason.
    Skipped(String),
    /// Every validation held (how many).
    Admitted(usize),
    /// Validations that failed, or errors under `failurePolicy: Fail`, each
    /// message; `deny` when the binding's actions include `Deny` (else they
    /// are warnings or audit only).
    Failed {
        /// Each failed validation's message, or the error.
        messages: Vec<String>,
        /// The binding's `validationActions` include `Deny`: the request is refused.
        deny: bool,
        /// They include `Warn`: the client is warned.
        warn: bool,
    },
    /// It could not be evaluated offline: why.
    CannotTell(String),
}

/// The answer: admitted, refused (with each message), or cannot tell.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// No policy that applies refused it, and each could be evaluated.
    Admitted,
    /// A policy refused it through a binding whose actions include `Deny`.
    Refused,
    /// None refused it, but one could not be evaluated offline: never read as a yes.
    CannotTell,
}

/// The stack the engine runs on: its parser and evaluator recurse.
const ENGINE_STACK: usize = 64 << 20;

/// Every policy's decision on `request`, on a stack deep enough for the
/// engine; should it fail anyway, the answer is that it cannot tell.
pub fn admit(policies: &Policies, request: &AdmissionRequest<'_>) -> (Answer, Vec<Considered>) {
    let answered = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(ENGINE_STACK)
            .spawn_scoped(scope, || admit_here(policies, request))
            .map(|handle| handle.join())
    });
    match answered {
        Ok(Ok(answer)) => answer,
        _ => {
            let why = "the offline engine failed on one of the input's admission policies".to_string();
            (
                Answer::CannotTell,
                vec![Considered { policy: "(all)".into(), binding: String::new(), outcome: Outcome::CannotTell(why) }],
            )
        }
    }
}

fn admit_here(policies: &Policies, request: &AdmissionRequest<'_>) -> (Answer, Vec<Considered>) {
    let mut considered = Vec::new();
    for binding in &policies.bindings {
        let binding_name = binding.metadata.name.clone().unwrap_or_default();
        let Some(spec) = &binding.spec else { continue };
        let Some(policy) =
            policies.policies.iter().find(|p| p.metadata.name.is_some() && p.metadata.name == spec.policy_name)
        else {
            continue;
        };
        let outcome = decide(policy, binding, request);
        considered.push(Considered {
            policy: policy.metadata.name.clone().unwrap_or_default(),
            binding: binding_name,
            outcome,
        });
    }
    for (kind, name, rules) in &policies.others {
        if rules.iter().any(|rule| json_rule_matches(rule, request)) {
            considered.push(Considered {
                policy: format!("{kind} {name}"),
                binding: String::new(),
                outcome: Outcome::CannotTell(format!(
                    "{kind} {name} matches the request, and the offline check can neither call a webhook nor apply a mutation"
                )),
            });
        }
    }
    let refused = considered.iter().any(|c| matches!(c.outcome, Outcome::Failed { deny: true, .. }));
    let unknown = considered.iter().any(|c| matches!(c.outcome, Outcome::CannotTell(_)));
    let answer = if refused {
        Answer::Refused
    } else if unknown {
        Answer::CannotTell
    } else {
        Answer::Admitted
    };
    (answer, considered)
}

/// The request as CEL's `request` sees it.
fn request_json(r: &AdmissionRequest<'_>) -> Json {
    json!({
        "operation": r.operation.as_str(),
        "name": r.name,
        "namespace": "",
        "kind": {"group": r.group, "version": r.version, "kind": r.kind},
        "resource": {"group": r.group, "version": r.version, "resource": r.resource},
        "requestKind": {"group": r.group, "version": r.version, "kind": r.kind},
        "requestResource": {"group": r.group, "version": r.version, "resource": r.resource},
        "subResource": "",
        "userInfo": {"username": r.user, "groups": r.groups},
        "dryRun": false,
    })
}

fn decide(
    policy: &ValidatingAdmissionPolicy,
    binding: &ValidatingAdmissionPolicyBinding,
    r: &AdmissionRequest<'_>,
) -> Outcome {
    let Some(spec) = &policy.spec else { return Outcome::Skipped("it has no spec".into()) };
    let Some(constraints) = &spec.match_constraints else {
        return Outcome::Skipped("it has no matchConstraints, which the API server requires".into());
    };
    if let Some(why) = unmatched(constraints, r) {
        return Outcome::Skipped(format!("its matchConstraints {why}"));
    }
    let binding_spec = binding.spec.as_ref();
    if let Some(resources) = binding_spec.and_then(|b| b.match_resources.as_ref()) {
        if let Some(why) = unmatched(resources, r) {
            return Outcome::Skipped(format!("its binding's matchResources {why}"));
        }
    }
    if spec.param_kind.is_some() {
        return Outcome::CannotTell("it takes parameters (paramKind), which the offline check does not read".into());
    }
    let fail_closed = spec.failure_policy.as_deref() != Some("Ignore");
    let actions = binding_spec.and_then(|b| b.validation_actions.clone()).unwrap_or_default();
    let (deny, warn) = (actions.iter().any(|a| a == "Deny"), actions.iter().any(|a| a == "Warn"));
    // Converted once for every expression of the policy.
    let null = Json::Null;
    let object = as_cel(r.object.unwrap_or(&null));
    let old_object = as_cel(r.old_object.unwrap_or(&null));
    let request = as_cel(&request_json(r));
    let mut variables: BTreeMap<String, Eval> = BTreeMap::new();
    // Match conditions: any false skips the policy; else an error fails it
    // (under failurePolicy: Fail).
    let mut condition_error = None;
    for c in spec.match_conditions.iter().flatten() {
        match evaluate(&c.expression, &bind(&object, &old_object, &request, &variables)) {
            Eval::Value(::cel::objects::Value::Bool(true)) => {}
            Eval::Value(::cel::objects::Value::Bool(false)) => {
                return Outcome::Skipped(format!("its match condition {:?} is false", c.name));
            }
            Eval::Value(v) => condition_error = Some(format!("match condition {:?} gave {v:?}, not a bool", c.name)),
            Eval::Error(e) => condition_error = Some(format!("match condition {:?}: {e}", c.name)),
            Eval::CannotTell(e) => return Outcome::CannotTell(format!("match condition {:?}: {e}", c.name)),
        }
    }
    if let Some(e) = condition_error {
        return match fail_closed {
            true => Outcome::Failed { messages: vec![e], deny, warn },
            false => Outcome::Skipped(format!("{e} (failurePolicy: Ignore)")),
        };
    }
    for v in spec.variables.iter().flatten() {
        let value = evaluate(&v.expression, &bind(&object, &old_object, &request, &variables));
        variables.insert(v.name.clone(), value);
    }
    let mut messages = Vec::new();
    let mut unknown = None;
    let validations = spec.validations.as_deref().unwrap_or_default();
    for v in validations {
        let failed = match evaluate(&v.expression, &bind(&object, &old_object, &request, &variables)) {
            Eval::Value(::cel::objects::Value::Bool(true)) => continue,
            Eval::Value(::cel::objects::Value::Bool(false)) => {
                message(v, &bind(&object, &old_object, &request, &variables))
            }
            Eval::Value(other) => format!("expression gave {other:?}, not a bool: {}", v.expression),
            Eval::Error(e) if fail_closed => format!("expression failed ({e}): {}", v.expression),
            Eval::Error(_) => continue,
            Eval::CannotTell(e) => {
                unknown.get_or_insert(format!("{e}: {}", v.expression));
                continue;
            }
        };
        messages.push(failed);
    }
    if !messages.is_empty() {
        return Outcome::Failed { messages, deny, warn };
    }
    match unknown {
        Some(why) => Outcome::CannotTell(why),
        None => Outcome::Admitted(validations.len()),
    }
}

/// What the expressions see: the request's objects (null where it has
/// none), the request, the variables so far.
fn bind<'a>(
    object: &'a ::cel::objects::Value,
    old_object: &'a ::cel::objects::Value,
    request: &'a ::cel::objects::Value,
    variables: &'a BTreeMap<String, Eval>,
) -> Activation<'a> {
    Activation { object, old_object, request, variables }
}

/// A failed validation's message: its `messageExpression` when that gives a
/// string, else its `message`, else the API server's default.
fn message(v: &k8s_openapi::api::admissionregistration::v1::Validation, a: &Activation<'_>) -> String {
    if let Some(e) = &v.message_expression {
        if let Eval::Value(::cel::objects::Value::String(s)) = evaluate(e, a) {
            if !s.trim().is_empty() {
                return s.to_string();
            }
        }
    }
    match &v.message {
        Some(m) if !m.is_empty() => m.clone(),
        _ => format!("failed expression: {}", v.expression),
    }
}

/// Why `resources` does not match the request; `None` when it does.
fn unmatched(resources: &MatchResources, r: &AdmissionRequest<'_>) -> Option<String> {
    // No rules is no constraint, as the API server reads it.
    if let Some(rules) = resources.resource_rules.as_ref().filter(|rules| !rules.is_empty()) {
        if !rules.iter().any(|rule| rule_matches(rule, r)) {
            return Some(format!("name no {} of {}", r.operation.as_str(), resource_text(r)));
        }
    }
    if resources.exclude_resource_rules.iter().flatten().any(|rule| rule_matches(rule, r)) {
        return Some(format!("exclude {} of {}", r.operation.as_str(), resource_text(r)));
    }
    if let Some(selector) = &resources.object_selector {
        let labels = |o: Option<&Json>| -> BTreeMap<String, String> {
            o.and_then(|o| o.pointer("/metadata/labels"))
                .and_then(Json::as_object)
                .map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect())
                .unwrap_or_default()
        };
        if !selects(selector, &labels(r.object)) && !selects(selector, &labels(r.old_object)) {
            return Some("objectSelector matches neither the object nor the old one".into());
        }
    }
    // namespaceSelector does not apply to cluster-scoped objects.
    None
}

fn resource_text(r: &AdmissionRequest<'_>) -> String {
    format!("{}.{}", r.resource, r.group)
}

/// A rule of a webhook or a mutating policy, read as JSON: the same fields
/// as [`rule_matches`] reads (an absent list matches nothing, `*` anything).
fn json_rule_matches(rule: &Json, r: &AdmissionRequest<'_>) -> bool {
    let list = |field: &str| -> Option<Vec<String>> {
        rule.get(field)?.as_array().map(|l| l.iter().filter_map(|v| v.as_str().map(String::from)).collect())
    };
    let typed = NamedRuleWithOperations {
        api_groups: list("apiGroups"),
        api_versions: list("apiVersions"),
        operations: list("operations"),
        resources: list("resources"),
        resource_names: list("resourceNames"),
        scope: rule.get("scope").and_then(Json::as_str).map(String::from),
    };
    rule_matches(&typed, r)
}

fn rule_matches(rule: &NamedRuleWithOperations, r: &AdmissionRequest<'_>) -> bool {
    let any = |list: &Option<Vec<String>>, value: &str| {
        list.as_ref().is_some_and(|l| l.iter().any(|x| x == "*" || x == value))
    };
    let scope_ok = matches!(rule.scope.as_deref(), None | Some("*") | Some("Cluster"));
    let names_ok = rule.resource_names.as_ref().is_none_or(|n| n.is_empty() || n.iter().any(|x| x == r.name));
    let resource_ok =
        rule.resources.as_ref().is_some_and(|l| l.iter().any(|x| x == "*" || x == r.resource || x == "*/*"));
    any(&rule.api_groups, r.group)
        && any(&rule.api_versions, r.version)
        && any(&rule.operations, r.operation.as_str())
        && resource_ok
        && scope_ok
        && names_ok
}
