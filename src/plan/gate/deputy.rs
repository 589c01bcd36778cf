//! Whoever can become the operator: a pod in the install namespace may run
//! as the operator's ServiceAccount, so whoever may create pods (or what
//! makes pods) there, exec into its pods, or request a token for the account
//! holds every right the account holds. Where the operator holds a
//! dangerous grant, each subject of the input's bindings that may do one of
//! those there is named (and, beside them, the built-in roles that may).

use std::collections::BTreeSet;

use crate::access::{self, danger, Grantee, SubjectKind};
use crate::findings::{Code, Finding};
use crate::model::Body;

use crate::plan::gate::holdings::{Holder, Holding, Reach};
use crate::plan::gate::Gate;

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
        let admins = p.objects().iter().enumerate().filter(|&(i, _)| admin_binding(i)).map(|(_, o)| o);
        let cluster = access::from_objects(admins);
        // The operator's own accounts may make its pods.
        let own = |g: &Grantee| match g {
            Grantee::Subject(s) => {
                SubjectKind::of(s) == Some(SubjectKind::ServiceAccount)
                    && s.namespace.as_deref() == Some(install)
                    && self.accounts.contains(&s.name)
            }
            Grantee::AnyoneBoundTo { .. } => false,
        };
        for (account, level, what) in worst {
            // Anyone bound to a built-in role is the cluster's to know, and
            // said only beside a subject the input names.
            let mut becomers = cluster.who_can_become(install, &account);
            becomers.retain(|b| !own(&b.grantee));
            let (roles, who): (Vec<_>, Vec<_>) =
                becomers.iter().partition(|b| matches!(b.grantee, Grantee::AnyoneBoundTo { .. }));
            if who.is_empty() {
                continue;
            }
            let named: Vec<String> = who.iter().map(|b| format!("{} ({})", b.grantee, b.ways.join(", "))).collect();
            let builtin_roles: BTreeSet<&str> = roles
                .iter()
                .filter_map(|b| match &b.grantee {
                    Grantee::AnyoneBoundTo { role, .. } => Some(role.name()),
                    Grantee::Subject(_) => None,
                })
                .collect();
            let also = match builtin_roles.len() {
                0 => String::new(),
                _ => format!(
                    ", and anyone bound to {} there",
                    builtin_roles.into_iter().collect::<Vec<_>>().join(" or ")
                ),
            };
            let path = who[0].path_to(install, &account);
            let message = format!(
                "whoever may run a pod as ServiceAccount {install}/{account} holds what it holds: {}{also}; for one, {path} → {what} ({level}); bind no one else in namespace {install}, or only to roles that create no pods there",
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

/// Each operator account that holds a dangerous grant, with its worst one:
/// the level, and what it permits and where (`get secrets cluster-wide`).
fn worst_by_account(holdings: &[Holding]) -> Vec<(String, danger::Severity, String)> {
    let mut worst: Vec<(String, danger::Severity, String)> = Vec::new();
    for h in holdings {
        let Holder::Operator { name, .. } = &h.who else { continue };
        let wide = h.reach == Reach::Cluster;
        let Some(d) = danger::dangers(&h.rule, wide).into_iter().max_by_key(|d| d.severity) else { continue };
        let what = if wide { danger::said_where(d.what, None) } else { d.what.to_string() };
        match worst.iter_mut().find(|(n, ..)| n == name) {
            Some(w) if d.severity > w.1 => *w = (name.clone(), d.severity, what),
            Some(_) => {}
            None => worst.push((name.clone(), d.severity, what)),
        }
    }
    worst
}
