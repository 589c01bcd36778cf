//! Whoever can become the operator: a pod in the install namespace may run
//! as the operator's ServiceAccount, so whoever may create pods (or what
//! makes pods) there, exec into its pods, or request a token for the account
//! holds every right the account holds. Where the operator holds a
//! dangerous grant, each subject of the input's bindings that may do one of
//! those there is named (and, beside them, the built-in roles that may).

use std::collections::BTreeSet;

use crate::access::{self, danger, Asked, Grantee, Request, SubjectKind};
use crate::findings::{Code, Finding};
use crate::model::Body;

use crate::plan::gate::holdings::{Holder, Holding, Reach};
use crate::plan::gate::Gate;

/// What makes its holder the operator's account in the namespace, as a request.
fn becoming(namespace: &str, account: &str) -> Vec<(&'static str, Request)> {
    let ns = Some(namespace);
    let mut token = Request::on("create", "", "serviceaccounts", ns);
    token.subresource = Some("token".into());
    token.name = Some(account.to_string());
    let mut exec = Request::on("create", "", "pods", ns);
    exec.subresource = Some("exec".into());
    vec![
        ("create pods", Request::on("create", "", "pods", ns)),
        ("create deployments", Request::on("create", "apps", "deployments", ns)),
        ("create jobs", Request::on("create", "batch", "jobs", ns)),
        ("exec into pods", exec),
        ("request its tokens", token),
    ]
}

impl Gate<'_> {
    /// Names who can act as each operator account that holds a dangerous
    /// grant, through the input's bindings in the install namespace.
    pub(super) fn warn_who_can_become(&self, holdings: &[Holding], results: &mut Vec<Finding>) {
        let Some(install) = self.install_named() else { return };
        let p = self.planning;
        let worst = worst_by_account(holdings);
        // Only the admin's bindings name anyone: without one, nobody is named
        // (and the built-in roles are said only beside a named subject).
        let admin_binding = |i: usize| p.origins().is_admin(i) && p.claims[i].is_none();
        let binds = p.objects().iter().enumerate().any(|(i, o)| admin_binding(i) && matches!(o.body, Body::Binding(_)));
        if worst.is_empty() || !binds {
            return;
        }
        // The admin's bindings; olm-rbac's own earlier output (the installer
        // account, which must write the operator's Deployment) is this run's.
        let admins = p
            .objects()
            .iter()
            .enumerate()
            .filter(|&(i, _)| p.origins().is_admin(i) && p.claims[i].is_none())
            .map(|(_, o)| o);
        let cluster = access::from_objects(admins);
        let own = |s: &k8s_openapi::api::rbac::v1::Subject| {
            SubjectKind::of(s) == Some(SubjectKind::ServiceAccount)
                && s.namespace.as_deref() == Some(install)
                && self.accounts.contains(&s.name)
        };
        for (account, level) in worst {
            // Who, and by which of the ways; anyone bound to a built-in role is
            // the cluster's to know, and said only beside a subject the input names.
            let mut who: Vec<(String, Vec<&str>)> = Vec::new();
            let mut builtin_roles: BTreeSet<String> = BTreeSet::new();
            for (what, request) in becoming(install, &account) {
                let place = access::allowed::Place::Namespace(install);
                for held in cluster.who_can(Asked::Resource(&request), place) {
                    let subject = match &held.grantee {
                        Grantee::AnyoneBoundTo { role, .. } => {
                            builtin_roles.insert(role.name().to_string());
                            continue;
                        }
                        Grantee::Subject(s) => s,
                    };
                    // Kubernetes' own controllers, and the operator itself.
                    if matches!(&held.chain.via, access::Via::Binding { builtin: true, .. }) || own(subject) {
                        continue;
                    }
                    let name = held.grantee.to_string();
                    match who.iter_mut().find(|(n, _)| *n == name) {
                        Some((_, ways)) if !ways.contains(&what) => ways.push(what),
                        Some(_) => {}
                        None => who.push((name, vec![what])),
                    }
                }
            }
            if who.is_empty() {
                continue;
            }
            let named: Vec<String> = who.iter().map(|(n, ways)| format!("{n} ({})", ways.join(", "))).collect();
            let also = match builtin_roles.len() {
                0 => String::new(),
                _ => format!(
                    ", and anyone bound to {} there",
                    builtin_roles.into_iter().collect::<Vec<_>>().join(" or ")
                ),
            };
            let message = format!(
                "whoever may run a pod as ServiceAccount {install}/{account} holds what it holds ({level} grants): {}{also}; bind no one else in namespace {install}, or only to roles that create no pods there",
                named.join(", ")
            );
            results.push(
                Finding::warning(Code::OperatorReachable, message)
                    .on(&p.config.object_ref())
                    .at("spec.operator.installNamespace"),
            );
        }
    }
}

/// Each operator account that holds a dangerous grant, with the worst level.
fn worst_by_account(holdings: &[Holding]) -> Vec<(String, danger::Severity)> {
    let mut worst: Vec<(String, danger::Severity)> = Vec::new();
    for h in holdings {
        let Holder::Operator { name, .. } = &h.who else { continue };
        let wide = h.reach == Reach::Cluster;
        if let Some(level) = danger::dangers(&h.rule, wide).iter().map(|d| d.severity).max() {
            match worst.iter_mut().find(|(n, _)| n == name) {
                Some((_, l)) => *l = (*l).max(level),
                None => worst.push((name.clone(), level)),
            }
        }
    }
    worst
}
