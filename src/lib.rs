//! olm-rbac reads an OLM operator bundle's manifests and writes them back with
//! RBAC added: per-API admin, edit and view roles (aggregated into the
//! built-in ones, or bound to the config's subjects), the operator's own
//! permissions where OLM would grant them, and the account OLM installs the
//! bundle as, each checked against the admin's install policy. Offline
//! access checks (`can-i`, `who-can`, `report`) answer who may do what with
//! the result.
//!
//! The steps, kept apart: [`input`] and [`yaml`] read bytes into items
//! without losing any; [`config`] checks the admin's `RBACConfig`; `plan`
//! decides what to generate (a pure function over typed values, no YAML);
//! `judge` reads the inputs and plans, writing nothing, for render and the
//! catalog commands alike; [`run`] writes the result back around the untouched items; [`access`] is
//! the RBAC kernel and [`check`] the offline checks on it; [`cli`] is the
//! command line, and [`outcome`] what every command gives back. ARCHITECTURE.md is the map.
//!
//! # Not an API
//!
//! olm-rbac is a program. What it keeps stable for its users is the command
//! line, the KRM function's `ResourceList`, `RBACConfig` and its JSON Schema,
//! and the output shapes of docs/access-checks.md. This library is the
//! program's implementation and is not published: a module is public only
//! where the binary (`cli`, `outcome`), the integration tests in
//! `tests/suite` or the bench reach it, and what is public there promises
//! nothing to anyone else. The rest of the crate (`model`, `plan`, `findings`,
//! `names`, `kinds`) is private to it, so the compiler holds that line.

// Public items are documented: the suite, the bench and the next engineer read them (ARCHITECTURE.md, "The
// library's boundary").
#![warn(missing_docs)]

pub mod access;
pub mod admission;
pub mod catalog;
pub mod check;
pub mod cli;
pub mod config;
pub(crate) mod findings;
mod gojson;
pub mod image;
pub mod input;
pub(crate) mod judge;
mod kinds;
pub(crate) mod model;
pub(crate) mod names;
pub mod outcome;
pub(crate) mod plan;
pub(crate) mod podsecurity;
pub mod reserved;
pub mod run;
pub mod sarif;
mod schema;
pub mod semver;
pub mod yaml;
