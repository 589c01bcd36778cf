//! The cluster's RBAC after an install, as render judges it: what `diff -c`
//! compares and what `can-i`, `who-can` and `report` answer over with `-c`.
//! One reading for all of them: what render reads at the paths (a bundle's
//! folder, the admin's files beside it), judged with the admin's config, and
//! the roles and bindings the cluster then holds (`Judged::rbac`: what render
//! writes, the bundle's objects as OLM installs them, the bundle roles Bind
//! binds, OLM v1's grant of the operator's permissions).

use std::path::{Path, PathBuf};

use crate::check::load::Installed;
use crate::findings::Severity;
use crate::input::{read_input, read_path, Inputs, Source};
use crate::judge::judge;
use crate::model::{Body, InputObject};
use crate::outcome::{Exit, Outcome};

/// What the cluster holds after the install of what was read: its roles and
/// bindings, and the CustomResourceDefinitions that name its resources.
pub(super) struct AfterInstall {
    /// The roles and bindings (`Judged::rbac`).
    pub rbac: Vec<InputObject>,
    /// The CRDs read, which the cluster serves after the install.
    pub definitions: Vec<InputObject>,
    /// How many objects were read.
    pub read: usize,
}

/// The admin's config file (`-c`), read: exit 2 naming it when it cannot be.
pub(super) fn read_config(config: &Path) -> Result<Vec<Source>, Outcome> {
    read_path(config).map_err(|e| Outcome::failure(&e, Exit::Input))
}

/// What render reads at `paths` (`-` for stdin), judged with `configs` (the
/// file `config`) as render judges it, and what the cluster holds after the
/// install. Where render refuses it: render's errors and why nothing is
/// answered (`so`), exit 1; a path that cannot be read, exit 2.
pub(super) fn after_install(
    config: &Path,
    configs: &[Source],
    paths: &[&Path],
    so: &str,
) -> Result<AfterInstall, Outcome> {
    let mut read = Inputs::default();
    for path in paths {
        let one = read_input(path).map_err(|e| Outcome::failure(&e, Exit::Input))?;
        read.sources.extend(one.sources);
        read.bundle_roots.extend(one.bundle_roots);
    }
    let judged = judge(&read.sources, configs, &read.bundle_roots);
    let errors: String =
        judged.plan.results().iter().filter(|f| f.severity == Severity::Error).map(|f| format!("{f}\n")).collect();
    if !errors.is_empty() {
        let named: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        let why = format!("{}: render refuses it with {}, so {so}\n", named.join(", "), config.display());
        return Err(Outcome { stdout: String::new(), stderr: errors + &why, code: Exit::Refused });
    }
    let definitions = judged.objects.iter().filter(|o| matches!(o.body, Body::Crd(_))).cloned().collect();
    Ok(AfterInstall { rbac: judged.rbac(), definitions, read: judged.objects.len() })
}

/// `-c` of `can-i`, `who-can` and `report`: the `-f` paths (stdin when
/// none) read as render reads them and judged with the RBACConfig at
/// `config`, for the question to be answered over what the cluster holds
/// after the install. Refused as render refuses (exit 1); a config or path
/// that cannot be read, exit 2.
pub fn installed(config: &Path, paths: &[PathBuf]) -> Result<Installed, Outcome> {
    let configs = read_config(config)?;
    let stdin = [PathBuf::from("-")];
    let paths: Vec<&Path> = if paths.is_empty() { &stdin[..] } else { paths }.iter().map(PathBuf::as_path).collect();
    let after = after_install(config, &configs, &paths, "there is no install to answer for")?;
    let mut objects = after.definitions;
    objects.extend(after.rbac);
    Ok(Installed::new(objects, after.read))
}
