//! Whoever can act as a ServiceAccount. A pod in the account's namespace may
//! run as it, so whoever may create pods there, create or change what makes
//! pods, change a running pod or add an ephemeral container to it, exec or
//! attach into its pods, request a token for it (or have the token
//! controller fill a Secret with one, and read it), or impersonate it holds
//! every right the account holds (the escalation paths rbac-police and
//! KubiScan report). Decided here once, for the render gate, `who-can` and
//! `report`.

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

/// A way to act as a ServiceAccount, said as a path step says it: any one
/// of `any` opens it, together with `also` when there is one.
struct Way {
    what: &'static str,
    any: Vec<Request>,
    also: Option<Request>,
}

/// A request in `namespace` on a core resource.
fn core(namespace: &str, verb: &str, resource: &str, subresource: Option<&str>, name: Option<&str>) -> Request {
    Request {
        subresource: subresource.map(String::from),
        name: name.map(String::from),
        ..Request::on(verb, "", resource, Some(namespace))
    }
}

/// The ways to act as any ServiceAccount of `namespace`.
fn namespace_ways(namespace: &str) -> Vec<Way> {
    let on = |verb: &str, resource: &str, subresource: Option<&str>| core(namespace, verb, resource, subresource, None);
    let workloads = WORKLOADS
        .iter()
        .flat_map(|(group, resource)| {
            ["create", "update", "patch"].map(|verb| Request::on(verb, group, resource, Some(namespace)))
        })
        .collect();
    let way = |what, any, also| Way { what, any, also };
    vec![
        way("create pods", vec![on("create", "pods", None)], None),
        way("create or change workloads", workloads, None),
        // A running pod's image may be changed, and an ephemeral container
        // added: either runs new code as the pod's account.
        way("change pods", ["update", "patch"].map(|v| on(v, "pods", None)).to_vec(), None),
        way(
            "add ephemeral containers",
            ["update", "patch"].map(|v| on(v, "pods", Some("ephemeralcontainers"))).to_vec(),
            None,
        ),
        // `get` too: exec and attach over WebSockets are authorised as `get`.
        way(
            "exec into or attach to pods",
            ["exec", "attach"].into_iter().flat_map(|s| ["create", "get"].map(|v| on(v, "pods", Some(s)))).collect(),
            None,
        ),
        // A Secret of type kubernetes.io/service-account-token annotated for
        // the account is filled with a token by the token controller.
        way(
            "create a token Secret for it and read it",
            vec![on("create", "secrets", None)],
            Some(on("get", "secrets", None)),
        ),
    ]
}

/// The ways to act as the one ServiceAccount `namespace/account`.
fn account_ways(namespace: &str, account: &str) -> Vec<Way> {
    vec![
        Way {
            what: "request its tokens",
            any: vec![core(namespace, "create", "serviceaccounts", Some("token"), Some(account))],
            also: None,
        },
        Way {
            what: "impersonate it",
            any: vec![core(namespace, "impersonate", "serviceaccounts", None, Some(account))],
            also: None,
        },
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
        self.becoming(namespace, account, &self.through_ways(namespace, namespace_ways(namespace)))
    }

    /// [`Policy::who_can_become`], the answers for the namespace's ways
    /// (`in_namespace`, the same for every account there) given.
    fn becoming(&self, namespace: &str, account: &str, in_namespace: &[Becomer]) -> Vec<Becomer> {
        let mut out: Vec<Becomer> = in_namespace.to_vec();
        for b in self.through_ways(namespace, account_ways(namespace, account)) {
            match out.iter_mut().find(|o| o.grantee == b.grantee) {
                Some(o) => o.ways.extend(b.ways),
                None => out.push(b),
            }
        }
        let itself = |g: &Grantee| match g {
            Grantee::Subject(s) => {
                SubjectKind::of(s) == Some(SubjectKind::ServiceAccount)
                    && s.name == account
                    && s.namespace.as_deref() == Some(namespace)
            }
            Grantee::AnyoneBoundTo { .. } => false,
        };
        out.retain(|b| !itself(&b.grantee));
        out
    }

    /// Who holds each of `ways` in `namespace`, Kubernetes' bootstrap
    /// bindings aside, with the ways each holds in their order.
    fn through_ways(&self, namespace: &str, ways: Vec<Way>) -> Vec<Becomer> {
        let holders = |r: &Request| -> Vec<HeldAccess> {
            let held = self.who_can(Asked::Resource(r), Place::Namespace(namespace));
            held.into_iter().filter(|h| !h.chain.via.kubernetes_own()).collect()
        };
        let mut out: Vec<Becomer> = Vec::new();
        for way in ways {
            let also: Option<Vec<HeldAccess>> = way.also.as_ref().map(holders);
            let held = way
                .any
                .iter()
                .flat_map(holders)
                .filter(|h| also.as_ref().is_none_or(|also| also.iter().any(|a| a.grantee == h.grantee)));
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
        // What a namespace's ways answer is the same for each account there.
        let mut by_namespace: std::collections::BTreeMap<String, Vec<Becomer>> = Default::default();
        for held in holders.iter().filter(|h| !h.chain.via.kubernetes_own()) {
            let Grantee::Subject(s) = &held.grantee else { continue };
            let (Some(SubjectKind::ServiceAccount), Some(ns)) = (SubjectKind::of(s), s.namespace.as_deref()) else {
                continue;
            };
            let in_namespace =
                by_namespace.entry(ns.to_string()).or_insert_with(|| self.through_ways(ns, namespace_ways(ns)));
            for becomer in self.becoming(ns, &s.name, in_namespace) {
                let account = (ns.to_string(), s.name.clone());
                out.push(Through { becomer, account, held: held.clone() });
            }
        }
        out
    }
}

/// Whoever may write what a deputy acts on: a controller (OLM, a GitOps
/// controller, a policy engine) that acts with its own rights, which the
/// input does not show (OLM v1 installs as cluster-admin), on what they
/// write. Said by `who-can` beside the direct holders, for any request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ByDeputy {
    /// The writer's right to write the deputy's object, where, by which chain.
    pub held: HeldAccess,
    /// The controllers that act for the writer (the catalogue's `deputy`).
    pub deputy: &'static str,
    /// The catalogue's name for the power: `install operators`.
    pub what: &'static str,
    /// What the writer may write: `create clusterextensions.olm.operatorframework.io`.
    pub writes: String,
}

impl Policy {
    /// Who may have a deputy act for them, wherever the question is asked:
    /// the input's subjects (Kubernetes' bootstrap bindings aside) that may
    /// write (create, update or patch) an object a deputy of the danger
    /// catalogue acts on, in any namespace, less those already among
    /// `holders`. One answer per subject and deputy.
    pub(crate) fn who_can_through_deputies(&self, holders: &[HeldAccess]) -> Vec<ByDeputy> {
        let mut out: Vec<ByDeputy> = Vec::new();
        for danger in crate::access::danger::catalogue() {
            let Some(deputy) = danger.deputy else { continue };
            for request in danger.requests(None) {
                // A deputy acts with its own rights, cluster-wide: its object
                // written in any namespace will do, whatever place is asked.
                for held in self.who_can(Asked::Resource(&request), Place::Each) {
                    let known = |g: &Grantee| {
                        holders.iter().any(|h| &h.grantee == g)
                            || out.iter().any(|b| &b.held.grantee == g && b.what == danger.what)
                    };
                    if held.chain.via.kubernetes_own() || known(&held.grantee) {
                        continue;
                    }
                    let resource = if request.group.is_empty() {
                        request.resource.clone()
                    } else {
                        format!("{}.{}", request.resource, request.group)
                    };
                    let writes = format!("{} {resource}", request.verb);
                    out.push(ByDeputy { held, deputy, what: danger.what, writes });
                }
            }
        }
        out
    }
}
