//! What each runner reads, as the command line names it: the KRM function's
//! `ResourceList` on stdin; `render`'s config file (`--config`) and its paths
//! (`-f` and PATHs alike), stdin when there are none. Each refuses a terminal
//! on stdin at once rather than wait there for input that never comes.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};

use super::{function, RenderOptions};
use crate::input::{read_input, read_path, read_stdin, refuse_terminal};
use crate::outcome::{Exit, Outcome, USAGE_ERROR};

/// `olm-rbac` without a command: the KRM function on the `ResourceList`
/// stdin holds.
pub fn function_on_stdin() -> Outcome {
    if let Some(refusal) = refuse_terminal(
        "olm-rbac without a command is a KRM function and reads a ResourceList from stdin",
        "run it through kpt or kustomize, or render plain manifests with olm-rbac render (see olm-rbac --help)",
        false,
        std::io::stdin().is_terminal(),
    ) {
        return Outcome::failure(&refusal, USAGE_ERROR);
    }
    match read_stdin() {
        Ok(text) => function(&text),
        Err(e) => Outcome::failure(format!("reading stdin: {e}"), Exit::Input),
    }
}

/// `render`: reads the config file and the paths (stdin when there are
/// none), then renders as `options` say. The config file may sit among the
/// paths (`render --config rbac.yaml .`): it is read once, as the config.
pub fn render_paths(config: Option<&Path>, paths: &[PathBuf], options: RenderOptions) -> Outcome {
    render_paths_judging(config, paths, options, |_, _| Ok(None))
}

/// [`render_paths`], the inputs also held against the judged catalog that
/// `judged` reads (`render --judged-catalog`): given the inputs and configs
/// read, every bundle the ClusterExtension's range admits there, judged;
/// `None` without a judged catalog; an error when it cannot be read.
pub(crate) fn render_paths_judging(
    config: Option<&Path>,
    paths: &[PathBuf],
    mut options: RenderOptions,
    judged: impl FnOnce(
        &[crate::input::Source],
        &[crate::input::Source],
    ) -> Result<Option<crate::judge::JudgedRange>, String>,
) -> Outcome {
    if let Some(refusal) = refuse_terminal(
        "render without a path reads manifests from stdin",
        "pass files or directories (olm-rbac render --config rbac.yaml bundle/manifests/), or pipe them in (helm template my-release chart/ | olm-rbac render --config rbac.yaml -)",
        !paths.is_empty(),
        std::io::stdin().is_terminal(),
    ) {
        return Outcome::failure(&refusal, USAGE_ERROR);
    }
    // A file that cannot be read is an error like any other: in the SARIF
    // log too, when one is asked for, so that CI never uploads an older one.
    let unreadable = |e: &str| {
        if let Some(path) = &options.sarif {
            let result = crate::sarif::Result {
                rule: crate::findings::Code::InputUnreadable,
                level: crate::sarif::Level::Error,
                message: e.to_string(),
                uri: None,
                line: None,
            };
            if let Err(w) = std::fs::write(path, crate::sarif::log(env!("CARGO_PKG_VERSION"), &[result])) {
                return Outcome::failure(format!("{e}; and --sarif {}: {w}", path.display()), Exit::Input);
            }
        }
        Outcome::failure(e, Exit::Input)
    };
    let configs = match config.map(read_path).transpose() {
        Ok(c) => c.unwrap_or_default(),
        Err(e) => return unreadable(&e.to_string()),
    };
    let config_file = config.and_then(|c| std::fs::canonicalize(c).ok());
    let is_config_file = |name: &str| config_file.is_some() && std::fs::canonicalize(name).ok() == config_file;
    let stdin = [PathBuf::from("-")];
    let mut inputs = Vec::new();
    for p in if paths.is_empty() { &stdin[..] } else { paths } {
        match read_input(p) {
            Ok(read) => {
                inputs.extend(read.sources.into_iter().filter(|s| !is_config_file(&s.name)));
                options.bundle_roots.extend(read.bundle_roots);
            }
            Err(e) => return unreadable(&e.to_string()),
        }
    }
    match judged(&inputs, &configs) {
        Ok(range) => super::render::render_judged(&inputs, &configs, &options, range.as_ref()),
        Err(e) => unreadable(&e),
    }
}
