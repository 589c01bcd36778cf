//! The roles for the users of the bundle's APIs: the roles olm-rbac generates, the bundle's own
//! roles it adopts or relabels, Bind mode's bindings, and the roles on OLM's own APIs.

pub(crate) mod bind;
pub(crate) mod bundle;
pub(crate) mod olm_apis;
pub(crate) mod roles;
