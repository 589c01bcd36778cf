//! The offline access checks as commands: `can-i`, `who-can`, `report` and
//! `diff` on rendered manifests.
//!
//! This module reads and writes; the RBAC kernel ([`crate::access`]) decides.
//! [`load`] reads manifests (with the same YAML splitter as the function)
//! into an [`access::Policy`](crate::access::Policy), [`commands`] asks it
//! the user's question and shapes the answer: a text table ([`table`]), the
//! access report ([`matrix`]), or the JSON and YAML shapes ([`shapes`]).
//! [`diff`] compares two renders: what each subject gains and loses.
//! Dependencies point one way: this module uses the kernel, the kernel never
//! uses this module.

pub mod commands;
pub mod diff;
mod graph;
pub mod install;
pub(crate) mod load;
pub(crate) mod markdown;
mod matrix;
mod shapes;
pub(crate) mod table;

pub use load::load;

#[cfg(test)]
mod list_tests;
#[cfg(test)]
mod tests;
