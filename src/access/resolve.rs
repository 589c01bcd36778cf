//! The one resolver of who holds what where, as Kubernetes' `VisitRulesFor`:
//! the bindings that reach a subject in a place, the role each binds, and
//! that role's rules through aggregation, handed to a visitor one by one.
//! Every question the kernel answers (`can-i`, `who-can`, `can-i --list`, an
//! escalation check, the report's accounts, the install gate's holdings) is
//! a visitor of it; none walks bindings and roles on its own.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use k8s_openapi::api::rbac::v1::PolicyRule;

use super::allowed::Place;
use super::{selects, BindingDef, Identity, Policy, RoleDef, RoleRefKind};

/// One rule a binding's subjects hold, and how: the binding, the chain of
/// roles from the one it binds down to the one that writes the rule (through
/// aggregation), that role, and the rule's index there.
pub(crate) struct Held<'p, 'c> {
    /// The binding.
    pub binding: &'p BindingDef,
    /// The role the binding names, then each aggregated role down to the writer.
    pub roles: &'c [String],
    /// The role that writes the rule.
    pub writer: &'p RoleDef,
    /// The rule's index in the writer's `rules`.
    pub index: usize,
    /// The rule.
    pub rule: &'p PolicyRule,
}

/// What a visitor of [`Policy::visit_rules_for`] is: called with each rule,
/// it breaks to stop the walk.
pub(crate) type Visitor<'p, 'f> = dyn FnMut(Held<'p, '_>) -> ControlFlow<()> + 'f;

/// What [`Policy::visit_rules`] calls with each rule of a role: the chain of
/// roles, the role that writes the rule, its index there, and the rule.
type RuleVisitor<'p, 'f> = dyn FnMut(&[String], &'p RoleDef, usize, &'p PolicyRule) -> ControlFlow<()> + 'f;

/// One rule a role holds ([`Policy::sourced_rules`]): the chain of roles it
/// comes through, and where it is written.
#[derive(Debug, Clone)]
pub struct SourcedRule {
    /// The role asked about, then each aggregated role down to the one that writes the rule.
    pub roles: Vec<String>,
    /// The rule.
    pub rule: PolicyRule,
    /// The [`RoleDef::source`] of the role that writes it.
    pub source: Option<usize>,
    /// Its index in that role's `rules`.
    pub index: usize,
}

impl Policy {
    /// Every rule `who` holds in `place`: the bindings that name it and
    /// apply there, in the order read, each with the rules of the role it
    /// binds (a binding to a role the policy lacks grants nothing). Stops
    /// where the visitor breaks.
    pub(crate) fn visit_rules_for<'p>(
        &'p self,
        who: &'p Identity,
        place: Place<'p>,
        visit: &mut Visitor<'p, '_>,
    ) -> ControlFlow<()> {
        for b in self.bindings_for(who, place) {
            if let Some(ControlFlow::Break(())) = self.visit_binding(b, visit) {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }

    /// The rules one binding grants its subjects, whoever they are: those of
    /// the role it binds, through aggregation. `None` when the policy has no
    /// such role (the binding grants nothing); otherwise whether the visitor
    /// broke.
    pub(crate) fn visit_binding<'p>(
        &'p self,
        b: &'p BindingDef,
        visit: &mut Visitor<'p, '_>,
    ) -> Option<ControlFlow<()>> {
        let role = self.bound_role(b)?;
        let mut path = vec![role.name.clone()];
        Some(self.visit_rules(role, &mut path, &mut BTreeSet::new(), &mut |roles, writer, index, rule| {
            visit(Held { binding: b, roles, writer, index, rule })
        }))
    }

    /// Whether the binding binds a role the policy holds.
    pub(crate) fn binds_a_role(&self, b: &BindingDef) -> bool {
        self.bound_role(b).is_some()
    }

    /// The rules one binding grants, each with where it is written: what
    /// the install gate names as granting it. `None` as for
    /// [`Policy::visit_binding`].
    pub(crate) fn binding_rules(&self, b: &BindingDef) -> Option<Vec<SourcedRule>> {
        let mut out = Vec::new();
        let _walked_whole = self.visit_binding(b, &mut |held| {
            let (roles, rule, source) = (held.roles.to_vec(), held.rule.clone(), held.writer.source);
            out.push(SourcedRule { roles, rule, source, index: held.index });
            ControlFlow::Continue(())
        })?;
        Some(out)
    }

    /// A role's rules with the chain of roles each comes from, following
    /// aggregation rules by label (transitively, cycles cut).
    pub fn effective_rules(&self, role: &RoleDef) -> Vec<(Vec<String>, PolicyRule)> {
        let mut out = Vec::new();
        self.each_effective_rule_in_chain(role, |roles, rule| out.push((roles.to_vec(), rule.clone())));
        out
    }

    /// Each rule of [`Policy::effective_rules`], borrowed: for those who read
    /// the rules and keep neither them nor their chains.
    pub(crate) fn each_effective_rule<'p>(&'p self, role: &'p RoleDef, mut each: impl FnMut(&'p PolicyRule)) {
        self.each_effective_rule_in_chain(role, |_, rule| each(rule));
    }

    fn each_effective_rule_in_chain<'p>(&'p self, role: &'p RoleDef, mut each: impl FnMut(&[String], &'p PolicyRule)) {
        let _ = self.visit_rules(role, &mut vec![role.name.clone()], &mut BTreeSet::new(), &mut |path, _, _, rule| {
            each(path, rule);
            ControlFlow::Continue(())
        });
    }

    /// Calls `each` with every rule the role holds: the chain of roles to the
    /// one that writes it (`path`), that role, the rule's index and the rule.
    fn visit_rules<'p>(
        &'p self,
        role: &'p RoleDef,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
        each: &mut RuleVisitor<'p, '_>,
    ) -> ControlFlow<()> {
        let written = |path: &[String], role: &'p RoleDef, each: &mut RuleVisitor<'p, '_>| {
            for (index, rule) in role.rules.iter().enumerate() {
                each(path, role, index, rule)?;
            }
            ControlFlow::Continue(())
        };
        if !seen.insert(format!("{}/{}", role.namespace.as_deref().unwrap_or_default(), role.name)) {
            // Aggregating roles that select each other: the controller copies
            // rules around the cycle, so what is written on any role in it can
            // stay on all of them, whatever order it syncs them in. Count it.
            let before = &path[..path.len().saturating_sub(1)];
            if let Some(start) = before.iter().position(|n| *n == role.name) {
                for name in &before[start..] {
                    if let Some(member) = self.cluster_roles.get(name) {
                        written(path, member, each)?;
                    }
                }
            }
            return ControlFlow::Continue(());
        }
        if role.aggregation.is_empty() || role.namespace.is_some() {
            return written(path, role, each);
        }
        // The aggregation controller replaces an aggregating role's rules with
        // those of the roles it selects; its own `rules` are not kept.
        for member in self.cluster_roles.values() {
            if member.name != role.name && role.aggregation.iter().any(|s| selects(s, &member.labels)) {
                path.push(member.name.clone());
                let flow = self.visit_rules(member, path, seen, each);
                path.pop();
                flow?;
            }
        }
        ControlFlow::Continue(())
    }

    /// The role a binding refers to: a ClusterRole, or a Role in a
    /// RoleBinding's own namespace. `None` when the policy has no such role.
    pub(super) fn bound_role(&self, b: &BindingDef) -> Option<&RoleDef> {
        match (b.role_ref_kind()?, &b.namespace) {
            (RoleRefKind::ClusterRole, _) => self.cluster_roles.get(&b.role_name),
            (RoleRefKind::Role, Some(ns)) => self.roles.get(&(ns.clone(), b.role_name.clone())),
            (RoleRefKind::Role, None) => None,
        }
    }

    /// The bindings that reach the identity and apply in the place.
    pub(super) fn bindings_for<'a>(
        &'a self,
        who: &'a Identity,
        place: Place<'a>,
    ) -> impl Iterator<Item = &'a BindingDef> + 'a {
        self.bindings.iter().filter(move |b| {
            b.applies_in(place) && b.subjects.iter().any(|s| who.is_subject(s, b.namespace.as_deref()))
        })
    }
}
