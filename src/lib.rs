//! olm-rbac renders RBAC for OLM operator bundles: user-facing roles for the
//! APIs a bundle installs, and, when asked, the operator's own permissions and
//! an installer account, with everything the install grants held to a policy;
//! and it checks rendered manifests' access offline.
//!
//! Three steps, kept apart: [`yaml`] reads bytes into items without losing any,
//! [`plan`] decides what to remove, patch and generate (a pure function over
//! typed values), and [`run`] writes the result back around the untouched
//! items. Beside them, [`access`] answers `can-i`, `who-can` and the access
//! report on rendered manifests, with Kubernetes' RBAC semantics.
pub mod access;
pub mod config;
pub mod input;
mod kinds;
pub mod model;
pub mod names;
pub mod plan;
pub mod report;
pub mod reserved;
pub mod run;
pub mod yaml;
