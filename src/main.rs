use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use olm_rbac::run::{self, Outcome, Source};

const EXAMPLES: &str = "\
Examples:
  # As a KRM function (kpt, kustomize): a ResourceList on stdin, one on stdout
  kpt fn eval bundle/ --exec olm-rbac --fn-config rbac.yaml

  # Standalone: render RBAC for a bundle directory and a config
  olm-rbac render --config rbac.yaml bundle/manifests/

  # As a Helm post-renderer step
  helm template my-release chart/ | olm-rbac render --config rbac.yaml -
";

/// Renders user-facing RBAC (per-API admin/edit/view ClusterRoles) for the
/// APIs an OLM operator bundle installs.
///
/// With no subcommand it runs as a KRM function: it reads a ResourceList on
/// stdin and writes one on stdout, as kpt and kustomize expect.
#[derive(Parser)]
#[command(name = "olm-rbac", version, about, long_about, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Read manifests (files, directories, or - for stdin), print them with the
    /// generated RBAC appended; results go to stderr.
    #[command(after_help = EXAMPLES)]
    Render {
        /// An RBACConfig file. Without it, the config is taken from the inputs.
        #[arg(long, short = 'c', value_name = "FILE")]
        config: Option<PathBuf>,
        /// Files and directories to read (*.yaml, *.yml, *.json, recursively);
        /// - or nothing reads stdin.
        #[arg(value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Print the JSON Schema of RBACConfig, for editor validation, e.g. with
    /// `# yaml-language-server: $schema=rbacconfig.schema.json` in the config.
    Schema,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        None => {
            if std::io::stdin().is_terminal() {
                eprintln!("olm-rbac: expecting a ResourceList on stdin (see olm-rbac --help)");
                return ExitCode::from(2);
            }
            match read_stdin() {
                Ok(text) => run::function(&text),
                Err(e) => return fail(&format!("reading stdin: {e}")),
            }
        }
        Some(Command::Render { config, paths }) => {
            let configs = match config.as_deref().map(read_path).transpose() {
                Ok(c) => c.unwrap_or_default(),
                Err(e) => return fail(&e),
            };
            // The config file may sit among the inputs (`render --config rbac.yaml .`): read it once.
            let config_file = config.as_deref().and_then(|c| std::fs::canonicalize(c).ok());
            let mut inputs = Vec::new();
            let paths = if paths.is_empty() { vec![PathBuf::from("-")] } else { paths };
            for p in &paths {
                match read_path(p) {
                    Ok(sources) => inputs.extend(
                        sources
                            .into_iter()
                            .filter(|s| config_file.is_none() || std::fs::canonicalize(&s.name).ok() != config_file),
                    ),
                    Err(e) => return fail(&e),
                }
            }
            run::render(&inputs, &configs)
        }
        Some(Command::Schema) => Outcome { stdout: olm_rbac::config::json_schema(), stderr: String::new(), code: 0 },
    };
    emit(&outcome)
}

fn emit(outcome: &Outcome) -> ExitCode {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(outcome.stderr.as_bytes());
    let mut out = std::io::stdout().lock();
    if out.write_all(outcome.stdout.as_bytes()).and_then(|()| out.flush()).is_err() {
        return ExitCode::from(1);
    }
    ExitCode::from(u8::try_from(outcome.code).unwrap_or(1))
}

fn fail(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(1)
}

fn read_stdin() -> std::io::Result<String> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text)?;
    Ok(text)
}

/// A file, stdin (`-`), or every manifest under a directory in name order.
fn read_path(path: &Path) -> Result<Vec<Source>, String> {
    if path == Path::new("-") {
        let text = read_stdin().map_err(|e| format!("reading stdin: {e}"))?;
        return Ok(vec![Source { name: "-".into(), text }]);
    }
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if meta.is_dir() {
        let mut files = Vec::new();
        collect(path, &mut files)?;
        files.sort();
        return files.iter().map(|f| read_file(f)).collect();
    }
    Ok(vec![read_file(path)?])
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            collect(&path, files)?;
        } else if matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml" | "json")) {
            files.push(path);
        }
    }
    Ok(())
}

fn read_file(path: &Path) -> Result<Source, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Source { name: path.display().to_string(), text })
}
