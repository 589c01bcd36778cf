//! What is decided about the input once, whatever step asks, and then only read: whose each object
//! is, whether OLM v1 installs the bundle, where the bundle's RBAC lands, the earlier output it claims to be, the checks on the input as a whole, the admin's Namespaces,
//! the APIs, how roles fit them, what the CSV grants; and the planning input that holds them all.
//! Each takes plain values, never the planning input it builds.

pub(crate) mod discover;
pub(crate) mod fit;
pub(crate) mod grants;
pub(crate) mod input;
pub(crate) mod installable;
pub(crate) mod keep;
pub(crate) mod namespaces;
pub(crate) mod origin;
pub(crate) mod placement;
pub(crate) mod previous;
pub(crate) mod provenance;
pub(crate) mod trust;
