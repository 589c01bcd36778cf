//! The olm-rbac binary: the command line parsed, run, and what it gave
//! written, stderr first; the exit status follows from both
//! (`Outcome::exit_status`).

use std::process::ExitCode;

use clap::Parser as _;
use olm_rbac::cli::Cli;

fn main() -> ExitCode {
    let outcome = Cli::parse().run();
    let written = outcome.emit();
    ExitCode::from(outcome.exit_status(written))
}
