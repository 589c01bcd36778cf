//! What the cluster will admit: the admission policy that pins it to the judged bundle
//! (`spec.admissionPolicy`), the delegations' roles and policy (`spec.delegations`), and how
//! olm-rbac writes an admission policy.

pub(crate) mod cel;
pub(crate) mod contradiction;
pub(crate) mod delegation;
pub(crate) mod pinning;
pub(crate) mod policy;
