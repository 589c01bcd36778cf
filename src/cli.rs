//! The command line: what each command takes (clap's definitions, with their
//! help and examples) and the one call each makes. What render and the
//! function read, the runners decide (`run::function_on_stdin`,
//! `run::render_paths`: stdin, the config file among the paths); the access
//! checks' `-f` is read here, and `check::commands` answers the questions. Its values are the library's own types (`run::OutputFormat`,
//! `check::commands::Format`, `access::builtin::BuiltinRoles`), so nothing
//! maps one enum onto another. The binary is [`Cli::run`] on what clap parsed.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::outcome::Outcome;
use crate::run::{self, OutputFormat, RenderOptions};

mod check;
mod help;

/// Renders user-facing RBAC (per-API admin/edit/view ClusterRoles) for the
/// APIs an OLM operator bundle installs.
///
/// With no subcommand it runs as a KRM function: it reads a ResourceList on
/// stdin and writes one on stdout, as kpt and kustomize expect.
#[derive(Parser)]
#[command(name = "olm-rbac", version, about, long_about, after_help = help::EXAMPLES)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Read manifests (files, directories, or - for stdin), print them with the
    /// generated RBAC appended; results go to stderr.
    #[command(after_help = help::EXAMPLES, override_usage = help::RENDER_USAGE)]
    Render(RenderArgs),
    /// Print the JSON Schema of RBACConfig, for editor validation, e.g. with
    /// `# yaml-language-server: $schema=rbacconfig.schema.json` in the config;
    /// or, with diff-output, of `diff -o json`'s output.
    #[command(override_usage = help::SCHEMA_USAGE)]
    Schema(SchemaArgs),
    /// Answer `kubectl auth can-i` from rendered manifests, without a cluster:
    /// prints yes (exit 0) or no (exit 1), or with --list what the user may do;
    /// exit 2 on unreadable input or a usage error.
    #[command(name = "can-i", override_usage = help::CAN_I_USAGE, after_help = help::CAN_I_EXAMPLES)]
    CanI(check::CanIArgs),
    /// Whether a ClusterExtension, created, updated or deleted by a user,
    /// would be allowed by the RBAC and admitted by the admission policies of
    /// rendered manifests: yes (exit 0), no (exit 1, with every reason),
    /// cannot tell (exit 3); exit 2 on unreadable input.
    #[command(name = "can-install", override_usage = help::CAN_INSTALL_USAGE, after_help = help::CAN_INSTALL_EXAMPLES)]
    CanInstall(check::CanInstallArgs),
    /// List every subject that may make a request, where, and through what.
    #[command(name = "who-can", override_usage = help::WHO_CAN_USAGE, after_help = help::WHO_CAN_EXAMPLES)]
    WhoCan(check::WhoCanArgs),
    /// Per extension, who holds admin, edit and view on each API, and where;
    /// and which APIs only cluster-admins can use.
    #[command(override_usage = help::REPORT_USAGE)]
    Report(check::ReportArgs),
    /// What each subject may do with NEW's RBAC that it may not with OLD's,
    /// and the reverse: exit 0 when nothing is gained, 1 when something is
    /// (see --fail-on), 2 on unreadable input or a usage error.
    #[command(override_usage = help::DIFF_USAGE, after_help = help::DIFF_EXAMPLES)]
    Diff(check::DiffArgs),
    /// Judge an OLM file-based catalog's bundles.
    #[command(subcommand)]
    Catalog(CatalogCommand),
}

/// `catalog`'s subcommands.
#[derive(Subcommand)]
enum CatalogCommand {
    /// Judge every bundle a ClusterExtension admits from a file-based catalog,
    /// each as render judges a bundle's folder: exit 0 when all pass, 1 when
    /// any fails or cannot be judged, 2 on unreadable input.
    #[command(after_help = help::CATALOG_JUDGE_EXAMPLES)]
    Judge(JudgeArgs),
    /// Judge every bundle of every package in a file-based catalog, ranked by
    /// the worst dangerous permission each install grants (with -c, each also
    /// gets the config's policy verdict): exit 1 when any bundle fails or
    /// cannot be judged, 2 on unreadable input.
    #[command(after_help = help::CATALOG_AUDIT_EXAMPLES)]
    Audit(AuditArgs),
    /// Write the judged catalog: the file-based catalog with only the bundles
    /// that pass catalog judge's rules under the config, its upgrade edges
    /// rewired between them, as OUT/catalog.json; the report on standard
    /// output says what was left out and why. Exit 0 when written, 1 when the
    /// catalog cannot be filtered (no bundle passes, a default channel left
    /// empty), 2 on unreadable input.
    #[command(after_help = help::CATALOG_FILTER_EXAMPLES)]
    Filter(FilterArgs),
}

/// Where the catalog commands read a catalog from.
#[derive(Args)]
struct CatalogSource {
    /// The catalog: a file or folder of olm.package, olm.channel and
    /// olm.bundle documents (YAML or JSON), as opm render writes it.
    #[arg(long, value_name = "PATH")]
    catalog: PathBuf,
    #[command(flatten)]
    bundles: BundleSource,
}

/// Where bundles are read from besides the catalog: the catalog commands' and
/// `render --judged-catalog`'s.
#[derive(Args)]
struct BundleSource {
    /// Bundle images and folders (repeatable): OCI image layouts (as `skopeo
    /// copy docker://REF oci:DIR` writes them; a bundle named by digest is
    /// judged from the image of that digest), and folders holding layouts or
    /// bundle folders (<package>/<version>/manifests/ or
    /// <bundle>/manifests/), which stand in for an image not given.
    #[arg(long, value_name = "PATH")]
    bundles: Vec<PathBuf>,
    /// The platform whose instance of a multi-platform bundle image is read,
    /// as the cluster's nodes pull it: OS/ARCH[/VARIANT] (default linux/amd64).
    #[arg(long, value_name = "OS/ARCH")]
    platform: Option<String>,
    /// Pull each bundle image named by digest that --bundles does not hold
    /// from its registry, into the image cache (credentials where skopeo and
    /// podman read them); a bundle is judged from what was pulled only once
    /// every blob matches its digest.
    #[arg(long)]
    pull: bool,
    /// The OCI image layout --pull keeps images in (default:
    /// $XDG_CACHE_HOME/olm-rbac/images, or ~/.cache/olm-rbac/images); a second
    /// run reads them from it without asking the registry.
    #[arg(long, value_name = "DIR", requires = "pull")]
    image_cache: Option<PathBuf>,
    /// Verify registries' TLS certificates (--tls-verify=false to not; a
    /// registry on this machine is never verified).
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    tls_verify: bool,
    /// Say on stderr how far the run has got, and each image pulled: on by
    /// default when stderr is a terminal (--progress=false to not; -q never).
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true", require_equals = true, action = clap::ArgAction::Set)]
    progress: Option<bool>,
}

impl BundleSource {
    /// What the library takes; `quiet`: no progress lines.
    fn args(&self, quiet: bool) -> crate::catalog::BundleArgs<'_> {
        use std::io::IsTerminal as _;
        let pull = self
            .pull
            .then_some(crate::catalog::PullArgs { cache: self.image_cache.as_deref(), tls_verify: self.tls_verify });
        let progress = !quiet && self.progress.unwrap_or_else(|| std::io::stderr().is_terminal());
        crate::catalog::BundleArgs { paths: &self.bundles, platform: self.platform.as_deref(), pull, progress }
    }
}

/// `catalog filter`'s arguments.
#[derive(Args)]
struct FilterArgs {
    #[command(flatten)]
    source: CatalogSource,
    /// The RBACConfig to judge every bundle with (repeatable: a config naming
    /// a package in spec.package judges that package, the one naming none
    /// every other).
    #[arg(long, short = 'c', value_name = "FILE", required = true)]
    config: Vec<PathBuf>,
    /// The folder to write the judged catalog to (as catalog.json); it must
    /// hold nothing else.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: PathBuf,
    /// Keep bundles whose image is named by tag (what OLM pulls under a tag
    /// can change after the judgement).
    #[arg(long)]
    allow_tag_images: bool,
    /// Also write the judged catalog as a catalog image (the label catalogd
    /// reads, the catalog under /configs), reproducibly, into this OCI image
    /// layout; its digest is printed, to pin in the ClusterCatalog.
    #[arg(long, value_name = "DIR")]
    image_layout: Option<PathBuf>,
    /// Also push that image to REF (REGISTRY/REPOSITORY:TAG), with the
    /// credentials skopeo and podman use; pin the ClusterCatalog to
    /// REGISTRY/REPOSITORY@DIGEST.
    #[arg(long, value_name = "REF", requires = "image_layout")]
    push: Option<String>,
    /// text (default), markdown, json or sarif.
    #[arg(long, value_enum, default_value_t = crate::catalog::Report::Text)]
    report: crate::catalog::Report,
    /// Only errors on stderr: no warnings, progress or summary line.
    #[arg(short = 'q', long)]
    quiet: bool,
}

impl FilterArgs {
    fn run(self) -> Outcome {
        let configs = match read_configs(&self.config) {
            Ok(configs) => configs,
            Err(refused) => return refused.quieted(self.quiet),
        };
        crate::catalog::filter(&crate::catalog::FilterArgs {
            catalog: &self.source.catalog,
            bundles: self.source.bundles.args(self.quiet),
            configs: &configs,
            output: &self.output,
            allow_tag_images: self.allow_tag_images,
            image_layout: self.image_layout.as_deref(),
            push: self.push.as_deref(),
            report: self.report,
        })
        .quieted(self.quiet)
    }
}

/// `catalog audit`'s arguments.
#[derive(Args)]
struct AuditArgs {
    #[command(flatten)]
    source: CatalogSource,
    /// An RBACConfig to judge every bundle with (repeatable: a config naming
    /// a package in spec.package judges that package, the one naming none
    /// every other); without one, each operator's permissions are measured,
    /// granted cluster-wide, against the catalogue of dangerous permissions.
    #[arg(long, short = 'c', value_name = "FILE")]
    config: Vec<PathBuf>,
    /// text (default), markdown or json.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = crate::catalog::Format::Text)]
    output: crate::catalog::Format,
    /// Only errors on stderr: no warnings, progress or summary line.
    #[arg(short = 'q', long)]
    quiet: bool,
}

impl AuditArgs {
    fn run(self) -> Outcome {
        let configs = match (!self.config.is_empty()).then(|| read_configs(&self.config)).transpose() {
            Ok(configs) => configs,
            Err(refused) => return refused.quieted(self.quiet),
        };
        crate::catalog::audit(&crate::catalog::AuditArgs {
            catalog: &self.source.catalog,
            bundles: self.source.bundles.args(self.quiet),
            configs: configs.as_ref(),
            format: self.output,
        })
        .quieted(self.quiet)
    }
}

/// `catalog judge`'s arguments.
#[derive(Args)]
struct JudgeArgs {
    #[command(flatten)]
    source: CatalogSource,
    /// The RBACConfig to judge each bundle with (repeatable: the one naming
    /// the ClusterExtension's package in spec.package, else the one naming none).
    #[arg(long, short = 'c', value_name = "FILE", required = true)]
    config: Vec<PathBuf>,
    /// The ClusterExtension whose admitted bundles are judged.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    extension: PathBuf,
    /// Accept bundle images named by tag: each is still judged and marked
    /// `tag`, but does not fail the command (what OLM pulls under a tag can
    /// change after the judgement).
    #[arg(long)]
    allow_tag_images: bool,
    /// text (default), markdown or json.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = crate::catalog::Format::Text)]
    output: crate::catalog::Format,
    /// Only errors on stderr: no warnings, progress or summary line.
    #[arg(short = 'q', long)]
    quiet: bool,
}

impl JudgeArgs {
    fn run(self) -> Outcome {
        let read = |p: &std::path::Path| {
            crate::input::read_path(p).map_err(|e| Outcome::failure(&e, crate::catalog::INPUT_ERROR))
        };
        let (configs, extension) = match (read_configs(&self.config), read(&self.extension)) {
            (Ok(c), Ok(e)) => (c, e),
            (Err(refused), _) | (_, Err(refused)) => return refused.quieted(self.quiet),
        };
        crate::catalog::judge(&crate::catalog::JudgeArgs {
            catalog: &self.source.catalog,
            bundles: self.source.bundles.args(self.quiet),
            configs: &configs,
            extension: &extension,
            allow_tag_images: self.allow_tag_images,
            format: self.output,
        })
        .quieted(self.quiet)
    }
}

/// The catalog commands' `-c` files, each read and its RBACConfigs checked,
/// sorted by the package each judges.
fn read_configs(paths: &[PathBuf]) -> Result<crate::catalog::Configs, Outcome> {
    let refused = |e: String| Outcome::failure(e, crate::catalog::INPUT_ERROR);
    let mut files = Vec::new();
    for path in paths {
        files.push((path.display().to_string(), crate::input::read_path(path).map_err(|e| refused(e.to_string()))?));
    }
    crate::catalog::Configs::read(files).map_err(refused)
}

impl Cli {
    /// What the command prints and its exit code; every failure is an
    /// outcome too.
    pub fn run(self) -> Outcome {
        match self.command {
            None => run::function_on_stdin(),
            Some(Command::Render(render)) => render.run(),
            Some(Command::Schema(schema)) => schema.run(),
            Some(Command::CanI(can_i)) => can_i.run(),
            Some(Command::CanInstall(args)) => args.run(),
            Some(Command::WhoCan(who_can)) => who_can.run(),
            Some(Command::Report(report)) => report.run(),
            Some(Command::Diff(diff)) => diff.run(),
            Some(Command::Catalog(CatalogCommand::Judge(judge))) => judge.run(),
            Some(Command::Catalog(CatalogCommand::Audit(audit))) => audit.run(),
            Some(Command::Catalog(CatalogCommand::Filter(filter))) => filter.run(),
        }
    }
}

/// `schema`'s argument: which document's schema.
#[derive(Args)]
struct SchemaArgs {
    /// rbacconfig (the default): RBACConfig; diff-output: `diff -o json`;
    /// catalog: `catalog judge -o json`; catalog-filter: `catalog filter --report json`.
    #[arg(value_enum, value_name = "OF", default_value_t = SchemaOf::Rbacconfig)]
    of: SchemaOf,
    /// Only errors on stderr (schema writes none; taken as every command takes it).
    #[arg(short = 'q', long)]
    quiet: bool,
}

/// The documents `schema` describes.
#[derive(Clone, Copy, clap::ValueEnum)]
enum SchemaOf {
    Rbacconfig,
    DiffOutput,
    Catalog,
    CatalogFilter,
}

impl SchemaArgs {
    fn run(self) -> Outcome {
        let stdout = match self.of {
            SchemaOf::Rbacconfig => crate::config::json_schema(),
            SchemaOf::DiffOutput => crate::check::diff::json_schema(),
            SchemaOf::Catalog => crate::catalog::json_schema(),
            SchemaOf::CatalogFilter => crate::catalog::filter_json_schema(),
        };
        Outcome { stdout, stderr: String::new(), code: crate::outcome::Exit::Ok }.quieted(self.quiet)
    }
}

/// `render`'s arguments.
#[derive(Args)]
struct RenderArgs {
    /// An RBACConfig file. Without it, the config is taken from the inputs.
    #[arg(long, short = 'c', value_name = "FILE")]
    config: Option<PathBuf>,
    /// A file or directory to read, as kubectl takes it (repeatable; read
    /// before the PATHs).
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    files: Vec<PathBuf>,
    /// yaml: the documents, the input's as they came (the default); json:
    /// one v1 List, as kubectl get -o json prints several objects.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = OutputFormat::Yaml)]
    output: OutputFormat,
    /// Only errors on stderr: no infos, warnings or summary line.
    #[arg(short = 'q', long)]
    quiet: bool,
    /// Also write the errors and warnings to FILE as a SARIF 2.1.0 log, for
    /// code scanning (written whether or not the render succeeds).
    #[arg(long, value_name = "FILE")]
    sarif: Option<PathBuf>,
    /// The judged catalog (catalog filter's output) the ClusterExtension's
    /// ClusterCatalog serves, pinned by digest: every bundle its version range
    /// admits there is judged with the config, and a range that admits only
    /// bundles that pass is accepted (the admission policy then holds the
    /// extension to that range and that catalog's image).
    #[arg(long, value_name = "PATH")]
    judged_catalog: Option<PathBuf>,
    /// With --judged-catalog: where the bundles it names are read from when it
    /// carries no manifests (as the catalog commands read them).
    #[command(flatten)]
    bundles: BundleSource,
    /// With --judged-catalog: accept its bundle images named by tag (each is
    /// still judged; what OLM pulls under a tag can change after the judgement).
    #[arg(long)]
    allow_tag_images: bool,
    /// Files and directories to read (*.yaml, *.yml, *.json, recursively;
    /// a bundle's root as a bundle); - or nothing reads stdin.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
}

impl RenderArgs {
    /// A flag given that only `--judged-catalog` reads.
    fn judging_flag(&self) -> Option<&'static str> {
        if !self.bundles.bundles.is_empty() {
            Some("--bundles")
        } else if self.bundles.pull {
            Some("--pull")
        } else if self.allow_tag_images {
            Some("--allow-tag-images")
        } else if self.bundles.platform.is_some() {
            Some("--platform")
        } else if self.bundles.progress.is_some() {
            Some("--progress")
        } else {
            None
        }
    }

    /// `-f` and the PATHs are read alike, `-f` first.
    fn run(self) -> Outcome {
        let judging_flag = self.judging_flag();
        let options =
            RenderOptions { output: self.output, quiet: self.quiet, bundle_roots: Vec::new(), sarif: self.sarif };
        let paths = [self.files, self.paths].concat();
        let Some(catalog) = self.judged_catalog else {
            if let Some(flag) = judging_flag {
                return Outcome::failure(
                    format!("{flag} reads the bundles of --judged-catalog, and none is given"),
                    crate::outcome::Exit::Input,
                );
            }
            return run::render_paths(self.config.as_deref(), &paths, options);
        };
        let (bundles, tags) = (self.bundles.args(self.quiet), self.allow_tag_images);
        run::render_paths_judging(self.config.as_deref(), &paths, options, |inputs, configs| {
            crate::catalog::judged_range(&catalog, &bundles, tags, inputs, configs).map(Some)
        })
    }
}
