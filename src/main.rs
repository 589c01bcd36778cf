use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use olm_rbac::access::builtin;
use olm_rbac::check::commands::{self, CanI, CanIList, Common, Format, WhoCan};
use olm_rbac::input::{read_input, read_path, read_stdin, refuse_terminal, Source};
use olm_rbac::run::{self, Outcome, OutputFormat, RenderOptions};

const EXAMPLES: &str = "\
Examples:
  # As a KRM function (kpt, kustomize): a ResourceList on stdin, one on stdout
  kpt fn eval bundle/ --exec olm-rbac --fn-config rbac.yaml

  # Standalone: render RBAC for a bundle directory and a config
  olm-rbac render --config rbac.yaml bundle/manifests/

  # As a Helm post-renderer step
  helm template my-release chart/ | olm-rbac render --config rbac.yaml -

  # Before anything reaches a cluster: who may do what with the rendered RBAC
  olm-rbac render examples/bind/ examples/guestbook/manifests > rendered.yaml
  olm-rbac can-i create guestbooks -n team-a --as alice --as-group team-a-devs -f rendered.yaml
  olm-rbac can-i --list -A --as alice --as-group team-a-devs -f rendered.yaml
  olm-rbac who-can delete guestbooks.webapp.example.com -A -f rendered.yaml
  olm-rbac report --format markdown -f rendered.yaml
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
    #[command(
        after_help = EXAMPLES,
        override_usage = "olm-rbac render [-c <FILE>] [-o yaml|json] [-q] [-f <PATH>]... [PATH]..."
    )]
    Render {
        /// An RBACConfig file. Without it, the config is taken from the inputs.
        #[arg(long, short = 'c', value_name = "FILE")]
        config: Option<PathBuf>,
        /// A file or directory to read, as kubectl takes it (repeatable; read
        /// before the PATHs).
        #[arg(short = 'f', long = "filename", value_name = "PATH")]
        files: Vec<PathBuf>,
        /// yaml: the documents, the input's as they came (the default); json:
        /// one v1 List, as kubectl get -o json prints several objects.
        #[arg(short = 'o', long = "output", value_enum, default_value_t = RenderOutput::Yaml)]
        output: RenderOutput,
        /// Only errors on stderr: no infos, warnings or summary line.
        #[arg(short = 'q', long)]
        quiet: bool,
        /// Files and directories to read (*.yaml, *.yml, *.json, recursively;
        /// a bundle's root as a bundle); - or nothing reads stdin.
        #[arg(value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Print the JSON Schema of RBACConfig, for editor validation, e.g. with
    /// `# yaml-language-server: $schema=rbacconfig.schema.json` in the config.
    Schema,
    /// Answer `kubectl auth can-i` from rendered manifests, without a cluster:
    /// prints yes (exit 0) or no (exit 1), or with --list what the user may do;
    /// exit 2 on unreadable input or a usage error.
    #[command(name = "can-i", override_usage = CAN_I_USAGE, after_help = CAN_I_EXAMPLES)]
    CanI {
        /// get, list, watch, create, update, patch, delete, deletecollection, or *
        /// (not with --list).
        #[arg(value_name = "VERB", required_unless_present = "list", conflicts_with = "list")]
        verb: Option<String>,
        /// A resource by plural, singular, kind or short name (pods, pod, Pod,
        /// po), with .group and /subresource (deployments.apps/scale); * for any;
        /// or a non-resource URL starting with / (/healthz). Not with --list.
        #[arg(value_name = "RESOURCE", required_unless_present = "list", conflicts_with = "list")]
        resource: Option<String>,
        /// An object name, for rules with resourceNames (not with --list).
        #[arg(value_name = "NAME", conflicts_with = "list")]
        name: Option<String>,
        /// The namespace to ask about; without it (and without -A), cluster-wide.
        #[arg(short = 'n', long, value_name = "NAMESPACE")]
        namespace: Option<String>,
        /// In every namespace at once, as kubectl asks it (only cluster-wide
        /// grants answer); with --list, what the user may do in each namespace.
        #[arg(short = 'A', long, conflicts_with = "namespace")]
        all_namespaces: bool,
        /// List what the user may do (Resources, Non-Resource URLs, Resource
        /// Names, Verbs) instead of asking about one VERB and RESOURCE.
        #[arg(long)]
        list: bool,
        /// The user, e.g. alice or system:serviceaccount:ci:deployer.
        #[arg(long = "as", value_name = "USER")]
        user: String,
        /// A group of the user (repeatable); system:authenticated is implied.
        #[arg(long = "as-group", value_name = "GROUP")]
        groups: Vec<String>,
        /// Manifests: files, directories, - for stdin (repeatable; default stdin).
        #[arg(short = 'f', long = "filename", value_name = "PATH")]
        files: Vec<PathBuf>,
        /// Print the chain that grants it: binding, role, aggregated roles, rule
        /// (not with --list).
        #[arg(long, conflicts_with = "list")]
        explain: bool,
        /// With --list: table (default), json or yaml.
        #[arg(short = 'o', long = "output", value_enum, value_name = "FORMAT")]
        output: Option<ListOutput>,
        /// Print nothing: the exit code answers (with --list: no warnings).
        #[arg(short = 'q', long)]
        quiet: bool,
        /// Kubernetes' built-in roles and bindings to add to the input's:
        /// kubernetes-1.33 (its bootstrap policy) or none.
        #[arg(long, value_enum, value_name = "SET", default_value_t = BuiltinRoles::Kubernetes133)]
        builtin_roles: BuiltinRoles,
    },
    /// List every subject that may make a request, where, and through what.
    #[command(name = "who-can", override_usage = WHO_CAN_USAGE, after_help = WHO_CAN_EXAMPLES)]
    WhoCan {
        /// get, list, watch, create, update, patch, delete, deletecollection, or *
        #[arg(value_name = "VERB")]
        verb: String,
        /// A resource by plural, singular, kind or short name, with .group and
        /// /subresource; * for any; or a non-resource URL starting with / (/metrics).
        #[arg(value_name = "RESOURCE")]
        resource: String,
        /// Only grants that apply in this namespace; without it (and without
        /// -A), only cluster-wide grants.
        #[arg(short = 'n', long, value_name = "NAMESPACE")]
        namespace: Option<String>,
        /// Grants in any namespace or cluster-wide, each saying where.
        #[arg(short = 'A', long, conflicts_with = "namespace")]
        all_namespaces: bool,
        /// Manifests: files, directories, - for stdin (repeatable; default stdin).
        #[arg(short = 'f', long = "filename", value_name = "PATH")]
        files: Vec<PathBuf>,
        /// table (default), json or yaml.
        #[arg(short = 'o', long = "output", value_enum, value_name = "FORMAT", default_value_t = ListOutput::Table)]
        output: ListOutput,
        /// No warnings on stderr; the answer only.
        #[arg(short = 'q', long)]
        quiet: bool,
        /// Kubernetes' built-in roles and bindings to add to the input's:
        /// kubernetes-1.33 (its bootstrap policy) or none.
        #[arg(long, value_enum, value_name = "SET", default_value_t = BuiltinRoles::Kubernetes133)]
        builtin_roles: BuiltinRoles,
    },
    /// Per extension, who holds admin, edit and view on each API, and where;
    /// and which APIs only cluster-admins can use.
    #[command(override_usage = REPORT_USAGE)]
    Report {
        /// Manifests: files, directories, - for stdin (repeatable; default stdin).
        #[arg(short = 'f', long = "filename", value_name = "PATH")]
        files: Vec<PathBuf>,
        /// table for a terminal (120 columns), markdown for a pull-request
        /// comment, json or yaml for scripts.
        #[arg(short = 'o', long = "output", visible_alias = "format", value_enum, value_name = "FORMAT", default_value_t = ReportFormat::Table)]
        format: ReportFormat,
        /// No warnings on stderr; the report only.
        #[arg(short = 'q', long)]
        quiet: bool,
        /// Kubernetes' built-in roles and bindings to add to the input's:
        /// kubernetes-1.33 (its bootstrap policy) or none.
        #[arg(long, value_enum, value_name = "SET", default_value_t = BuiltinRoles::Kubernetes133)]
        builtin_roles: BuiltinRoles,
    },
}

const CAN_I_EXAMPLES: &str = "\
Examples:
  # May bob, in the group team-a-devs, create guestbooks in team-a? (yes: exit 0, no: exit 1)
  olm-rbac can-i create guestbooks -n team-a --as bob --as-group team-a-devs -f rendered.yaml

  # ... and through which binding and roles?
  olm-rbac can-i create guestbooks -n team-a --as bob --as-group team-a-devs -f rendered.yaml --explain

  # In every namespace at once (only ClusterRoleBindings answer that), for a script: no output
  olm-rbac can-i create guestbooks -A --as bob -f rendered.yaml -q && echo everywhere

  # Everything bob may do, per namespace, as JSON
  olm-rbac can-i --list -A --as bob --as-group team-a-devs -f rendered.yaml -o json

  # A non-resource URL; the input's bindings alone, without Kubernetes' built-in ones
  olm-rbac can-i get /metrics --as bob -f rendered.yaml --builtin-roles=none
";

const WHO_CAN_EXAMPLES: &str = "\
Examples:
  # Who may delete guestbooks in team-a (RoleBindings there, and ClusterRoleBindings)
  olm-rbac who-can delete guestbooks -n team-a -f rendered.yaml

  # ... in any namespace, each answer saying where; as YAML
  olm-rbac who-can delete guestbooks -A -f rendered.yaml -o yaml
";

/// Both forms of can-i, every optional flag in brackets.
const CAN_I_USAGE: &str = "\
olm-rbac can-i <VERB> <RESOURCE> [NAME] --as <USER> [--as-group <GROUP>]... [-n <NAMESPACE> | -A] [-f <PATH>]... [--explain] [-q] [--builtin-roles <SET>]
       olm-rbac can-i --list --as <USER> [--as-group <GROUP>]... [-n <NAMESPACE> | -A] [-f <PATH>]... [-o <FORMAT>] [-q] [--builtin-roles <SET>]";

const WHO_CAN_USAGE: &str = "\
olm-rbac who-can <VERB> <RESOURCE> [-n <NAMESPACE> | -A] [-f <PATH>]... [-o <FORMAT>] [-q] [--builtin-roles <SET>]";

const REPORT_USAGE: &str = "olm-rbac report [-o <FORMAT>] [-f <PATH>]... [-q] [--builtin-roles <SET>]";

/// `render -o`.
#[derive(Clone, Copy, ValueEnum)]
enum RenderOutput {
    Yaml,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum ReportFormat {
    Table,
    Markdown,
    Json,
    Yaml,
}

impl ReportFormat {
    fn format(self) -> Format {
        match self {
            ReportFormat::Table => Format::Table,
            ReportFormat::Markdown => Format::Markdown,
            ReportFormat::Json => Format::Json,
            ReportFormat::Yaml => Format::Yaml,
        }
    }
}

/// How a list prints: a table, or the JSON or YAML shape of docs/access-checks.md.
#[derive(Clone, Copy, ValueEnum)]
enum ListOutput {
    Table,
    Json,
    Yaml,
}

impl ListOutput {
    fn format(self) -> Format {
        match self {
            ListOutput::Table => Format::Table,
            ListOutput::Json => Format::Json,
            ListOutput::Yaml => Format::Yaml,
        }
    }
}

/// `--builtin-roles`: which bootstrap policy the checks add, if any.
#[derive(Clone, Copy, ValueEnum)]
enum BuiltinRoles {
    #[value(name = "kubernetes-1.33")]
    Kubernetes133,
    None,
}

impl BuiltinRoles {
    fn common(self, quiet: bool) -> Common {
        let builtin_roles = match self {
            BuiltinRoles::Kubernetes133 => builtin::BuiltinRoles::Kubernetes1_33,
            BuiltinRoles::None => builtin::BuiltinRoles::None,
        };
        Common { builtin_roles, quiet }
    }
}

/// Reads `-f` arguments (stdin when there are none, unless stdin is a
/// terminal: then nothing would come, and the command fails at once).
fn read_all(command: &str, files: &[PathBuf]) -> Result<Vec<Source>, Outcome> {
    if let Some(refusal) = commands::refuse_terminal(command, !files.is_empty(), std::io::stdin().is_terminal()) {
        return Err(refusal);
    }
    let files = if files.is_empty() { vec![PathBuf::from("-")] } else { files.to_vec() };
    let mut sources = Vec::new();
    for f in &files {
        sources.extend(read_path(f).map_err(|e| failure(&e, commands::INPUT_ERROR))?);
    }
    Ok(sources)
}

fn main() -> ExitCode {
    let outcome = run(Cli::parse());
    ExitCode::from(outcome.exit_status(emit(&outcome)))
}

/// What the command prints and its exit code; every failure is an outcome too.
fn run(cli: Cli) -> Outcome {
    match cli.command {
        None => {
            if let Some(refusal) = refuse_terminal(
                "olm-rbac without a command is a KRM function and reads a ResourceList from stdin",
                "run it through kpt or kustomize, or render plain manifests with olm-rbac render (see olm-rbac --help)",
                false,
                std::io::stdin().is_terminal(),
            ) {
                return failure(&refusal, USAGE_ERROR);
            }
            match read_stdin() {
                Ok(text) => run::function(&text),
                Err(e) => failure(&format!("reading stdin: {e}"), 1),
            }
        }
        Some(Command::Render { config, files, output, quiet, paths }) => {
            render(config, [files, paths].concat(), render_options(output, quiet))
        }
        Some(Command::Schema) => Outcome { stdout: olm_rbac::config::json_schema(), stderr: String::new(), code: 0 },
        Some(Command::CanI {
            verb,
            resource,
            name,
            namespace,
            all_namespaces,
            list,
            user,
            groups,
            files,
            explain,
            output,
            quiet,
            builtin_roles,
        }) => {
            if output.is_some() && !list {
                return failure(
                    "-o/--output goes with --list: can-i VERB RESOURCE answers yes or no",
                    commands::INPUT_ERROR,
                );
            }
            let inputs = match read_all("can-i", &files) {
                Ok(inputs) => inputs,
                Err(outcome) => return outcome,
            };
            let common = builtin_roles.common(quiet);
            if list {
                let output = output.map_or(Format::Table, ListOutput::format);
                let query = CanIList { namespace: namespace.as_deref(), all_namespaces, user: &user, groups: &groups };
                commands::can_i_list_with(&inputs, &query, output, common)
            } else if let (Some(verb), Some(resource)) = (verb, resource) {
                commands::can_i(
                    &inputs,
                    &CanI {
                        verb: &verb,
                        resource: &resource,
                        name: name.as_deref(),
                        namespace: namespace.as_deref(),
                        all_namespaces,
                        user: &user,
                        groups: &groups,
                        explain,
                        common,
                    },
                )
            } else {
                // clap requires both without --list; say so anyway rather than guess.
                failure("can-i needs <VERB> and <RESOURCE>, or --list", commands::INPUT_ERROR)
            }
        }
        Some(Command::WhoCan { verb, resource, namespace, all_namespaces, files, output, quiet, builtin_roles }) => {
            let query = WhoCan { verb: &verb, resource: &resource, namespace: namespace.as_deref(), all_namespaces };
            read_all("who-can", &files)
                .map(|inputs| commands::who_can_with(&inputs, &query, output.format(), builtin_roles.common(quiet)))
                .unwrap_or_else(|refused| refused)
        }
        Some(Command::Report { files, format, quiet, builtin_roles }) => read_all("report", &files)
            .map(|inputs| commands::report_with(&inputs, format.format(), builtin_roles.common(quiet)))
            .unwrap_or_else(|refused| refused),
    }
}

/// What `render -o` and `-q` ask for.
fn render_options(output: RenderOutput, quiet: bool) -> RenderOptions {
    let output = match output {
        RenderOutput::Yaml => OutputFormat::Yaml,
        RenderOutput::Json => OutputFormat::Json,
    };
    RenderOptions { output, quiet, bundle_roots: Vec::new() }
}

/// `render`: reads the config file and the inputs (`-f` and PATHs alike),
/// then renders.
fn render(config: Option<PathBuf>, paths: Vec<PathBuf>, mut options: RenderOptions) -> Outcome {
    if let Some(refusal) = refuse_terminal(
        "render without a path reads manifests from stdin",
        "pass files or directories (olm-rbac render --config rbac.yaml bundle/manifests/), or pipe them in (helm template my-release chart/ | olm-rbac render --config rbac.yaml -)",
        !paths.is_empty(),
        std::io::stdin().is_terminal(),
    ) {
        return failure(&refusal, USAGE_ERROR);
    }
    let configs = match config.as_deref().map(read_path).transpose() {
        Ok(c) => c.unwrap_or_default(),
        Err(e) => return failure(&e, 1),
    };
    // The config file may sit among the inputs (`render --config rbac.yaml .`): read it once.
    let config_file = config.as_deref().and_then(|c| std::fs::canonicalize(c).ok());
    let mut inputs = Vec::new();
    let paths = if paths.is_empty() { vec![PathBuf::from("-")] } else { paths };
    for p in &paths {
        match read_input(p) {
            Ok(read) => {
                inputs.extend(
                    read.sources
                        .into_iter()
                        .filter(|s| config_file.is_none() || std::fs::canonicalize(&s.name).ok() != config_file),
                );
                options.bundle_roots.extend(read.bundle_roots);
            }
            Err(e) => return failure(&e, 1),
        }
    }
    run::render_with(&inputs, &configs, &options)
}

/// Exit code when a command is run so that it cannot work (nothing to read), as for clap's usage errors.
const USAGE_ERROR: i32 = 2;

/// Writes the outcome, stderr first; the result of writing stdout, which
/// [`Outcome::exit_status`] turns into the exit status.
fn emit(outcome: &Outcome) -> std::io::Result<()> {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(outcome.stderr.as_bytes());
    let mut out = std::io::stdout().lock();
    out.write_all(outcome.stdout.as_bytes()).and_then(|()| out.flush())
}

fn failure(message: &str, code: i32) -> Outcome {
    Outcome { stdout: String::new(), stderr: format!("error: {message}\n"), code }
}
