//! Whoever can act as a ServiceAccount. A pod in the account's namespace may
//! run as it, so whoever may create pods there, create or change what makes
//! pods, exec or attach into its pods, or request a token for it holds every
//! right the account holds (the escalation paths rbac-police and KubiScan
//! report). Decided here once, for the render gate, `who-can` and `report`.

use super::allowed::Place;
use super::{Asked, Grantee, HeldAccess, Policy, Request, SubjectKind};

/// The workloads whose controllers make pods: who may create or change one
/// chooses the ServiceAccount its pods run as, or runs code in pods that
/// already do.
const WORKLOADS: [(&str, &str); 7] = [
    ("apps", "deployments"),
    ("apps", "daemonsets"),
    ("apps", "statefulsets"),
    ("apps", "replicasets"),
    ("batch", "jobs"),
    ("batch", "cronjobs"),
    ("", "replicationcontrollers"),
];

/// A way to act as a ServiceAccount, said as a path step says it, with the
/// requests any one of which opens it.
struct Way {
    what: &'static str,
    requests: Vec<Request>,
}

fn ways(namespace: &str, account: &str) -> [Way; 5] {
    let ns = Some(namespace);
    let on_pods =
        |subresource: &str| Request { subresource: Some(subresource.into()), ..Request::on("create", "", "pods", ns) };
    let workloads = WORKLOADS
        .iter()
        .flat_map(|(group, resource)| ["create", "update", "patch"].map(|verb| Request::on(verb, group, resource, ns)))
        .collect();
    let token = Request {
        subresource: Some("token".into()),
        name: Some(account.to_string()),
        ..Request::on("create", "", "serviceaccounts", ns)
    };
    [
        Way { what: "create pods", requests: vec![Request::on("create", "", "pods", ns)] },
        Way { what: "create or change workloads", requests: workloads },
        Way { what: "exec into pods", requests: vec![on_pods("exec")] },
        Way { what: "attach to pods", requests: vec![on_pods("attach")] },
        Way { what: "request its tokens", requests: vec![token] },
    ]
}

/// One grantee that may act as a ServiceAccount, and by which ways.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Becomer {
    pub grantee: Grantee,
    /// The ways it holds, in the order [`ways`] lists them.
    pub ways: Vec<&'static str>,
}

impl Becomer {
    /// `Group team-a → create pods in ops → ServiceAccount ops/x`: the first
    /// steps of a path, which its caller ends with what the account may do.
    pub(crate) fn path_to(&self, namespace: &str, account: &str) -> String {
        format!("{} → {}", self.grantee, self.steps_to(namespace, account))
    }

    /// `create pods in ops → ServiceAccount ops/x`: the steps after the
    /// grantee, by its first way.
    pub(crate) fn steps_to(&self, namespace: &str, account: &str) -> String {
        let way = self.ways.first().copied().unwrap_or_default();
        format!("{way} in {namespace} → ServiceAccount {namespace}/{account}")
    }
}

impl Policy {
    /// Who may act as ServiceAccount `namespace/account` through this
    /// policy's bindings: the account itself and Kubernetes' bootstrap
    /// bindings (its own controllers, which make pods everywhere) aside.
    /// Whoever is bound to a built-in aggregating role there is one
    /// [`Grantee::AnyoneBoundTo`] answer.
    pub(crate) fn who_can_become(&self, namespace: &str, account: &str) -> Vec<Becomer> {
        let itself = |g: &Grantee| match g {
            Grantee::Subject(s) => {
                SubjectKind::of(s) == Some(SubjectKind::ServiceAccount)
                    && s.name == account
                    && s.namespace.as_deref() == Some(namespace)
            }
            Grantee::AnyoneBoundTo { .. } => false,
        };
        let mut out: Vec<Becomer> = Vec::new();
        for way in ways(namespace, account) {
            let held = way
                .requests
                .iter()
                .flat_map(|r| self.who_can(Asked::Resource(r), Place::Namespace(namespace)))
                .filter(|h: &HeldAccess| !h.chain.via.builtin() && !itself(&h.grantee));
            for h in held {
                match out.iter_mut().find(|b| b.grantee == h.grantee) {
                    Some(b) if !b.ways.contains(&way.what) => b.ways.push(way.what),
                    Some(_) => {}
                    None => out.push(Becomer { grantee: h.grantee, ways: vec![way.what] }),
                }
            }
        }
        out
    }
}

/// A request answered through a ServiceAccount: who may act as it, and the
/// account's own access.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Through {
    pub becomer: Becomer,
    /// The account's namespace and name.
    pub account: (String, String),
    /// What the account holds of the request, where, and by which chain.
    pub held: HeldAccess,
}

impl Through {
    /// `Group team-a → create pods in ops → ServiceAccount ops/x`.
    pub(crate) fn path(&self) -> String {
        self.becomer.path_to(&self.account.0, &self.account.1)
    }
}

impl Policy {
    /// Who may make the request by acting as a ServiceAccount that may: for
    /// each account the input's own bindings let make it (Kubernetes'
    /// bootstrap accounts aside), whoever may act as that account
    /// ([`Policy::who_can_become`]). One step deep: an account reached
    /// through another account is not followed.
    pub(crate) fn who_can_through_accounts(&self, holders: &[HeldAccess]) -> Vec<Through> {
        let mut out = Vec::new();
        for held in holders.iter().filter(|h| !h.chain.via.builtin()) {
            let Grantee::Subject(s) = &held.grantee else { continue };
            let (Some(SubjectKind::ServiceAccount), Some(ns)) = (SubjectKind::of(s), s.namespace.as_deref()) else {
                continue;
            };
            for becomer in self.who_can_become(ns, &s.name) {
                let account = (ns.to_string(), s.name.clone());
                out.push(Through { becomer, account, held: held.clone() });
            }
        }
        out
    }
}
