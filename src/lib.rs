//! olm-rbac renders user-facing RBAC for the APIs that OLM operators install.
//!
//! Three steps, kept apart: [`yaml`] reads bytes into items without losing any,
//! [`plan`] decides what to generate (a pure function over typed values), and
//! [`run`] writes the result back around the untouched items.
pub mod access;
pub mod cli;
pub mod config;
pub mod input;
mod kinds;
pub mod model;
pub mod names;
pub mod outcome;
pub mod plan;
pub mod report;
pub mod reserved;
pub mod run;
pub mod yaml;
