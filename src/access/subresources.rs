//! The subresources a request can name: the API server's, the kubelet's
//! (which authorizes its own API as subresources of `nodes`), and those
//! Kubernetes' admission checks. A rule's `pods/execs` matches no request,
//! so a policy written with it forbids nothing.

/// The subresources Kubernetes' API server serves, on the resources that
/// have them (`pods/exec`, `deployments/scale`, `serviceaccounts/token`, ...):
/// what a webhook's `resource/*` matches besides the resource.
pub const SUBRESOURCES: &[&str] = &[
    "approval",
    "attach",
    "binding",
    "ephemeralcontainers",
    "eviction",
    "exec",
    "finalize",
    "log",
    "portforward",
    "proxy",
    "resize",
    "scale",
    "status",
    "token",
];

/// Those only authorization sees: the kubelet's API, checked as
/// subresources of `nodes` (`nodes/metrics`, `nodes/stats`, ...), and
/// `finalizers`, which the owner-references admission checks on any
/// resource (setting `blockOwnerDeletion`).
const AUTHORIZED_ONLY: &[&str] =
    &["checkpoint", "configz", "finalizers", "healthz", "metrics", "pods", "spec", "stats"];

/// Whether a request can name `sub` as a subresource. A resource that takes
/// any key (`userextras/<key>`, impersonated extra fields) is not asked.
pub(crate) fn is_subresource(sub: &str) -> bool {
    SUBRESOURCES.contains(&sub) || AUTHORIZED_ONLY.contains(&sub)
}

/// Every subresource a request can name.
pub(crate) fn all() -> impl Iterator<Item = &'static str> {
    SUBRESOURCES.iter().chain(AUTHORIZED_ONLY).copied()
}
