//! The offline access checks' arguments (`can-i`, `who-can`, `report`): each
//! reads its manifests from `-f`, or stdin when there is none (`diff` reads
//! its two, OLD and NEW, from its arguments), and asks
//! `check::commands` its question. The output formats and built-in role sets
//! are the checks' and the kernel's own types, taken by clap as [`ValueEnum`]s.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};

use clap::builder::{EnumValueParser, PossibleValue, TypedValueParser};
use clap::{Args, ValueEnum};

use crate::access::builtin::BuiltinRoles;
use crate::admission::Operation;
use crate::check::commands::{self, CanI, CanIList, Common, Format, Installed, Manifests, WhoCan};
use crate::check::diff::{diff, DiffOptions, FailOn};
use crate::check::install::{can_install, CanInstall};
use crate::input::{read_path, Source};
use crate::outcome::Outcome;

/// Who asks, as kubectl impersonates: `--as` and `--as-group`.
#[derive(Args)]
struct AsUser {
    /// The user, e.g. alice or system:serviceaccount:ci:deployer.
    #[arg(long = "as", value_name = "USER")]
    user: String,
    /// A group of the user (repeatable); system:authenticated is implied.
    #[arg(long = "as-group", value_name = "GROUP")]
    groups: Vec<String>,
}

/// `can-i`'s arguments: one question (VERB RESOURCE [NAME]), or `--list`.
#[derive(Args)]
pub(super) struct CanIArgs {
    /// get, list, watch, create, update, patch, delete, deletecollection, or *
    /// (not with --list).
    #[arg(value_name = "VERB", required_unless_present = "list", conflicts_with = "list")]
    verb: Option<String>,
    /// A resource by plural, singular, kind or short name (pods, pod, Pod,
    /// po), with .group (deployments.apps); * for any; TYPE/NAME as kubectl
    /// reads it (pods/web-0); or a non-resource URL starting with / (/healthz).
    /// Not with --list.
    #[arg(value_name = "RESOURCE", required_unless_present = "list", conflicts_with = "list")]
    resource: Option<String>,
    /// An object name, for rules with resourceNames (not with --list).
    #[arg(value_name = "NAME", conflicts_with = "list")]
    name: Option<String>,
    /// The subresource asked about (log, exec, scale, status), as kubectl's
    /// --subresource (not with --list).
    #[arg(long, value_name = "SUBRESOURCE", conflicts_with = "list")]
    subresource: Option<String>,
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
    #[command(flatten)]
    who: AsUser,
    /// Manifests: files, directories, - for stdin (repeatable; default stdin).
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    files: Vec<PathBuf>,
    /// An RBACConfig: the -f paths are then read as render reads them (such
    /// as the bundle's folder), judged with it as render judges them, and the
    /// question is answered over the cluster's RBAC after the install: what
    /// render writes, the bundle's roles and bindings as OLM installs them,
    /// and the operator's as OLM v1 grants them.
    #[arg(long, short = 'c', value_name = "FILE")]
    config: Option<PathBuf>,
    /// Print the chain that grants it: binding, role, aggregated roles, rule
    /// (not with --list).
    #[arg(long, conflicts_with = "list")]
    explain: bool,
    /// With --list: table (default), json or yaml.
    #[arg(short = 'o', long = "output", value_enum, value_parser = list_format(), value_name = "FORMAT")]
    output: Option<Format>,
    /// Print nothing: the exit code answers (with --list: no warnings).
    #[arg(short = 'q', long)]
    quiet: bool,
    /// Kubernetes' built-in roles and bindings to add to the input's:
    /// kubernetes-1.33 (its bootstrap policy) or none.
    #[arg(long, value_enum, value_name = "SET", default_value_t = BuiltinRoles::Kubernetes1_33)]
    builtin_roles: BuiltinRoles,
}

impl CanIArgs {
    pub(super) fn run(self) -> Outcome {
        if self.output.is_some() && !self.list {
            return Outcome::failure(
                "-o/--output goes with --list: can-i VERB RESOURCE answers yes or no",
                commands::INPUT_ERROR,
            );
        }
        let inputs = match Given::read("can-i", &self.files, self.config.as_deref()) {
            Ok(inputs) => inputs,
            Err(outcome) => return outcome,
        };
        let common = Common { builtin_roles: self.builtin_roles, quiet: self.quiet };
        let namespace = self.namespace.as_deref();
        let (all_namespaces, user, groups) = (self.all_namespaces, &self.who.user, &self.who.groups[..]);
        if self.list {
            let query = CanIList { namespace, all_namespaces, user, groups };
            return commands::can_i_list_with(inputs.manifests(), &query, self.output.unwrap_or(Format::Table), common);
        }
        let (Some(verb), Some(resource)) = (&self.verb, &self.resource) else {
            // clap requires both without --list; say so anyway rather than guess.
            return Outcome::failure("can-i needs <VERB> and <RESOURCE>, or --list", commands::INPUT_ERROR);
        };
        let (name, subresource) = (self.name.as_deref(), self.subresource.as_deref());
        let explain = self.explain;
        let query =
            CanI { verb, resource, name, subresource, namespace, all_namespaces, user, groups, explain, common };
        commands::can_i(inputs.manifests(), &query)
    }
}

/// `can-install`'s arguments.
#[derive(Args)]
pub(super) struct CanInstallArgs {
    /// The ClusterExtension to ask about: a file (or - for stdin) holding one.
    #[arg(value_name = "EXTENSION")]
    extension: PathBuf,
    #[command(flatten)]
    who: AsUser,
    /// Rendered manifests: files, directories, - for stdin (repeatable; default stdin).
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    files: Vec<PathBuf>,
    /// The request: create, update or delete. Default: update when the
    /// manifests hold a ClusterExtension of that name, else create.
    #[arg(long, value_enum, value_name = "OPERATION")]
    operation: Option<Operation>,
    /// Print every policy that took part, and the RBAC grant.
    #[arg(long)]
    explain: bool,
    /// Print nothing: the exit code answers.
    #[arg(short = 'q', long)]
    quiet: bool,
    /// Kubernetes' built-in roles and bindings to add to the input's:
    /// kubernetes-1.33 (its bootstrap policy) or none.
    #[arg(long, value_enum, value_name = "SET", default_value_t = BuiltinRoles::Kubernetes1_33)]
    builtin_roles: BuiltinRoles,
}

impl CanInstallArgs {
    pub(super) fn run(self) -> Outcome {
        if self.extension.as_os_str() == "-" && self.files.is_empty() {
            return Outcome::failure(
                "can-install reads the ClusterExtension from stdin, so the manifests need -f",
                commands::INPUT_ERROR,
            );
        }
        let extension = match read_path(&self.extension) {
            Ok(sources) => sources,
            Err(e) => return Outcome::failure(&e, commands::INPUT_ERROR),
        };
        let manifests = match read_all("can-install", &self.files) {
            Ok(inputs) => inputs,
            Err(outcome) => return outcome,
        };
        let common = Common { builtin_roles: self.builtin_roles, quiet: self.quiet };
        let q = CanInstall {
            extension: &extension,
            user: &self.who.user,
            groups: &self.who.groups,
            operation: self.operation,
            explain: self.explain,
            common,
        };
        can_install(&manifests, &q)
    }
}

/// The operations by the names the command line takes. `Operation` is the
/// admission kernel's, which knows nothing of a command line.
impl ValueEnum for Operation {
    fn value_variants<'a>() -> &'a [Self] {
        &[Operation::Create, Operation::Update, Operation::Delete]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(match self {
            Operation::Create => "create",
            Operation::Update => "update",
            Operation::Delete => "delete",
        }))
    }
}

/// `who-can`'s arguments.
#[derive(Args)]
pub(super) struct WhoCanArgs {
    /// get, list, watch, create, update, patch, delete, deletecollection, or *
    #[arg(value_name = "VERB")]
    verb: String,
    /// A resource by plural, singular, kind or short name, with .group; * for
    /// any; TYPE/NAME as kubectl reads it; or a non-resource URL starting with
    /// / (/metrics).
    #[arg(value_name = "RESOURCE")]
    resource: String,
    /// The subresource asked about (log, exec, scale, status).
    #[arg(long, value_name = "SUBRESOURCE")]
    subresource: Option<String>,
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
    /// An RBACConfig: the -f paths are then read as render reads them (such
    /// as the bundle's folder), judged with it as render judges them, and the
    /// question is answered over the cluster's RBAC after the install: what
    /// render writes, the bundle's roles and bindings as OLM installs them,
    /// and the operator's as OLM v1 grants them.
    #[arg(long, short = 'c', value_name = "FILE")]
    config: Option<PathBuf>,
    /// table (default), json or yaml.
    #[arg(short = 'o', long = "output", value_enum, value_parser = list_format(), value_name = "FORMAT", default_value_t = Format::Table)]
    output: Format,
    /// No warnings on stderr; the answer only.
    #[arg(short = 'q', long)]
    quiet: bool,
    /// Kubernetes' built-in roles and bindings to add to the input's:
    /// kubernetes-1.33 (its bootstrap policy) or none.
    #[arg(long, value_enum, value_name = "SET", default_value_t = BuiltinRoles::Kubernetes1_33)]
    builtin_roles: BuiltinRoles,
}

impl WhoCanArgs {
    pub(super) fn run(self) -> Outcome {
        let query = WhoCan {
            verb: &self.verb,
            resource: &self.resource,
            namespace: self.namespace.as_deref(),
            all_namespaces: self.all_namespaces,
            subresource: self.subresource.as_deref(),
        };
        let common = Common { builtin_roles: self.builtin_roles, quiet: self.quiet };
        Given::read("who-can", &self.files, self.config.as_deref())
            .map(|inputs| commands::who_can_with(inputs.manifests(), &query, self.output, common))
            .unwrap_or_else(|refused| refused)
    }
}

/// `report`'s arguments.
#[derive(Args)]
pub(super) struct ReportArgs {
    /// Manifests: files, directories, - for stdin (repeatable; default stdin).
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    files: Vec<PathBuf>,
    /// An RBACConfig: the -f paths are then read as render reads them (such
    /// as the bundle's folder), judged with it as render judges them, and the
    /// question is answered over the cluster's RBAC after the install: what
    /// render writes, the bundle's roles and bindings as OLM installs them,
    /// and the operator's as OLM v1 grants them.
    #[arg(long, short = 'c', value_name = "FILE")]
    config: Option<PathBuf>,
    /// table for a terminal (120 columns), markdown for a pull-request
    /// comment (with a Mermaid graph), json or yaml for scripts, dot for
    /// Graphviz.
    #[arg(short = 'o', long = "output", visible_alias = "format", value_enum, value_parser = report_format(), value_name = "FORMAT", default_value_t = Format::Table)]
    format: Format,
    /// No warnings on stderr; the report only.
    #[arg(short = 'q', long)]
    quiet: bool,
    /// Kubernetes' built-in roles and bindings to add to the input's:
    /// kubernetes-1.33 (its bootstrap policy) or none.
    #[arg(long, value_enum, value_name = "SET", default_value_t = BuiltinRoles::Kubernetes1_33)]
    builtin_roles: BuiltinRoles,
}

impl ReportArgs {
    pub(super) fn run(self) -> Outcome {
        let common = Common { builtin_roles: self.builtin_roles, quiet: self.quiet };
        Given::read("report", &self.files, self.config.as_deref())
            .map(|inputs| commands::report_with(inputs.manifests(), self.format, common))
            .unwrap_or_else(|refused| refused)
    }
}

/// `diff`'s arguments: two renders, each read as `can-i -f` reads its input.
#[derive(Args)]
pub(super) struct DiffArgs {
    /// The rendered manifests before: a file, a directory, or - for stdin
    /// (with -c: what render reads, such as the old bundle's folder).
    #[arg(value_name = "OLD")]
    old: PathBuf,
    /// The rendered manifests after: a file, a directory, or - for stdin
    /// (with -c: what render reads, such as the new bundle's folder).
    #[arg(value_name = "NEW")]
    new: PathBuf,
    /// An RBACConfig: OLD and NEW are then judged with it as render judges
    /// them, and the clusters' RBAC after each install are compared, the
    /// operator's as OLM v1 grants it included whatever
    /// spec.operator.permissions says.
    #[arg(long, short = 'c', value_name = "FILE")]
    config: Option<PathBuf>,
    /// table for a terminal (120 columns), markdown for a pull-request
    /// comment, json or yaml for scripts, sarif for code scanning.
    #[arg(short = 'o', long = "output", value_enum, value_parser = diff_format(), value_name = "FORMAT", default_value_t = Format::Table)]
    output: Format,
    /// Exit 1 on any gain (gain, the default), only on a gain the
    /// dangerous-permissions catalogue marks (dangerous), or never (none).
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = FailOn::Gain)]
    fail_on: FailOn,
    /// Print nothing: the exit code answers.
    #[arg(short = 'q', long)]
    quiet: bool,
    /// Kubernetes' built-in roles and bindings to add to each side's:
    /// kubernetes-1.33 (its bootstrap policy) or none.
    #[arg(long, value_enum, value_name = "SET", default_value_t = BuiltinRoles::Kubernetes1_33)]
    builtin_roles: BuiltinRoles,
}

impl DiffArgs {
    pub(super) fn run(self) -> Outcome {
        let stdin = Path::new("-");
        if self.old == stdin && self.new == stdin {
            return Outcome::failure("diff reads stdin for one of OLD and NEW, not both", commands::INPUT_ERROR);
        }
        let piped = self.old == stdin || self.new == stdin;
        if let Some(refusal) = crate::input::refuse_terminal(
            "diff reads one side from stdin (-)",
            "pipe the rendered manifests in (olm-rbac render ... | olm-rbac diff old.yaml -)",
            !piped,
            std::io::stdin().is_terminal(),
        ) {
            return Outcome::failure(&refusal, commands::INPUT_ERROR);
        }
        let common = Common { builtin_roles: self.builtin_roles, quiet: self.quiet };
        let options = DiffOptions { format: self.output, fail_on: self.fail_on, common };
        if let Some(config) = &self.config {
            return crate::run::diff_judged(config, &self.old, &self.new, options);
        }
        let read = |path: &Path| read_path(path).map_err(|e| Outcome::failure(&e, commands::INPUT_ERROR));
        let (old, new) = match (read(&self.old), read(&self.new)) {
            (Ok(old), Ok(new)) => (old, new),
            (Err(refused), _) | (_, Err(refused)) => return refused,
        };
        diff(&old, &new, options)
    }
}

/// Reads `-f` arguments (stdin when there are none, unless stdin is a
/// terminal: then nothing would come, and the command fails at once).
fn read_all(command: &str, files: &[PathBuf]) -> Result<Vec<Source>, Outcome> {
    if let Some(refusal) = commands::refuse_terminal(command, !files.is_empty(), std::io::stdin().is_terminal()) {
        return Err(refusal);
    }
    let stdin = [PathBuf::from("-")];
    let mut sources = Vec::new();
    for f in if files.is_empty() { &stdin[..] } else { files } {
        sources.extend(read_path(f).map_err(|e| Outcome::failure(&e, commands::INPUT_ERROR))?);
    }
    Ok(sources)
}

/// What an access check answers over: the `-f` manifests as written, or,
/// with `-c`, the cluster after the install as render judges them.
enum Given {
    Rendered(Vec<Source>),
    Installed(Installed),
}

impl Given {
    /// The `-f` paths (stdin when none, unless a terminal), read as written
    /// or, with a config, judged with it (`run::installed`).
    fn read(command: &str, files: &[PathBuf], config: Option<&Path>) -> Result<Given, Outcome> {
        match config {
            None => read_all(command, files).map(Given::Rendered),
            Some(config) => {
                if let Some(refusal) =
                    commands::refuse_terminal(command, !files.is_empty(), std::io::stdin().is_terminal())
                {
                    return Err(refusal);
                }
                crate::run::installed(config, files).map(Given::Installed)
            }
        }
    }

    fn manifests(&self) -> Manifests<'_> {
        match self {
            Given::Rendered(sources) => Manifests::Rendered(sources),
            Given::Installed(installed) => Manifests::Installed(installed),
        }
    }
}

/// The built-in role sets by the names the command line takes. `BuiltinRoles`
/// is the RBAC kernel's, which knows nothing of a command line: the command
/// line names it here, and nowhere else.
impl ValueEnum for BuiltinRoles {
    fn value_variants<'a>() -> &'a [Self] {
        &[BuiltinRoles::Kubernetes1_33, BuiltinRoles::None]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(match self {
            BuiltinRoles::Kubernetes1_33 => "kubernetes-1.33",
            BuiltinRoles::None => "none",
        }))
    }
}

/// A command's `-o`: some of [`Format`]'s values, under `Format`'s names;
/// clap parses it and reports a bad value as for any value enum.
macro_rules! formats {
    ($(#[$doc:meta])* $parser:ident, $name:ident: $($format:ident),+) => {
        #[derive(Clone, Copy)]
        struct $name(Format);

        impl ValueEnum for $name {
            fn value_variants<'a>() -> &'a [Self] {
                &[$($name(Format::$format)),+]
            }

            fn to_possible_value(&self) -> Option<PossibleValue> {
                self.0.to_possible_value()
            }
        }

        $(#[$doc])*
        fn $parser() -> impl TypedValueParser<Value = Format> {
            EnumValueParser::<$name>::new().map(|$name(format)| format)
        }
    };
}

formats!(
    /// `-o` of `can-i --list` and `who-can`: a list, so no markdown or graph.
    list_format, ListFormat: Table, Json, Yaml
);
formats!(
    /// `-o` of `diff`: changes, so no graph; SARIF for code scanning.
    diff_format, DiffFormat: Table, Markdown, Json, Yaml, Sarif
);
formats!(
    /// `-o` of `report`: every format but SARIF, which is `diff`'s.
    report_format, ReportFormat: Table, Markdown, Json, Yaml, Dot
);
