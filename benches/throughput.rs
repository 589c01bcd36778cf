//! `cargo bench`: olm-rbac on the argocd bundle (4.1 MB, CRD files up to
//! 2.1 MB) against the floor any YAML tool pays, a bare event scan of the same
//! bytes, measured in the same run so machine speed cancels out.
//!
//! Prints the median of several runs for each, MB/s, and the ratio.
//!
//! Then the worst shapes a hostile bundle can write for the access checks
//! (issue 17, bounded cost), each against the bare event scan of its own
//! input: one rule of many groups × resources × verbs × names measured
//! against an install-policy ceiling (KRM mode), the installer derived from
//! it, and `can-i --list` of a role holding it. A ratio that grows with the
//! shape's size is a cost that grows faster than the input.
//!
//! Then memory (issue 20): the peak resident set of the built binary, run as
//! a child, in KRM mode on the argocd ResourceList and as `render` on the
//! bundle's folder, each over the same mode's empty run, as a multiple of the
//! input's bytes. Over 3× prints `MEMORY OVER BUDGET` and fails the bench.
//!
//! Then `catalog audit` on a file-based catalog and on four times as much
//! (see [`catalog`]): bundles per second, the ratio to libyaml reading the
//! same catalog (PyYAML's C loader, when python3 has it), and whether its
//! peak memory stays flat as the catalog grows.
//!
//! Last, hostile catalogs of about 100 KB (see [`hostile_catalogs`]), each
//! through `catalog audit` and `catalog judge` against the bare event scan of
//! its bytes: over 1 s prints `OVER ONE SECOND` and fails the bench.

use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use granit_parser::Parser;
use olm_rbac::check::commands::{can_i_list, CanIList};
use olm_rbac::input::Source;

fn resource_list() -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bundles/argocd-operator-0.19.0/manifests");
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(&dir).expect("fixtures").map(|e| e.expect("entry").path()).collect();
    files.sort();
    let mut out = String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read");
        for (i, line) in text.strip_prefix("---\n").unwrap_or(&text).lines().enumerate() {
            if !line.is_empty() {
                out.push_str(if i == 0 { "- " } else { "  " });
                out.push_str(line);
            }
            out.push('\n');
        }
    }
    out.push_str("functionConfig:\n  apiVersion: olm-rbac.io/v1alpha1\n  kind: RBACConfig\n  metadata:\n    name: argocd\n  spec:\n    mode: Aggregate\n");
    out
}

const VERBS: &str = "get, list, watch, create, update, patch, delete, deletecollection";

/// `n` values `prefix0` … as a flow list's items.
fn values(prefix: &str, n: usize) -> String {
    (0..n).map(|i| format!("{prefix}{i}")).collect::<Vec<_>>().join(", ")
}

/// One rule of `n` API groups, `n` resources, 8 verbs and `n` names.
fn huge_rule(n: usize) -> String {
    format!(
        "{{apiGroups: [{}], resources: [{}], resourceNames: [{}], verbs: [{VERBS}]}}",
        values("g", n).replace(", ", ".io, ") + ".io",
        values("r", n),
        values("n", n)
    )
}

/// The memcached bundle as a ResourceList, its CSV granting `rule` too,
/// with `spec` as the config's spec.
fn bundle_with(rule: &str, spec: &str) -> String {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bundles/memcached-operator-0.0.1/manifests");
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(&dir).expect("fixtures").map(|e| e.expect("entry").path()).collect();
    files.sort();
    let mut out = String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
    let anchor = "      clusterPermissions:\n      - rules:\n";
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read").replace(anchor, &format!("{anchor}        - {rule}\n"));
        for doc in text.split("\n---\n") {
            for (i, line) in doc.strip_prefix("---\n").unwrap_or(doc).lines().filter(|l| !l.is_empty()).enumerate() {
                out.push_str(if i == 0 { "- " } else { "  " });
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out.push_str("functionConfig:\n  apiVersion: olm-rbac.io/v1alpha1\n  kind: RBACConfig\n  metadata:\n    name: memcached\n  spec:\n");
    out.push_str(spec);
    out
}

/// Allows half the rule's groups, everything, and what the bundle's other
/// rules need.
fn ceiling(n: usize) -> String {
    format!(
        "    operator:\n      permissions: Cluster\n      installNamespace: memcached-system\n      policy:\n        allow:\n        - {{apiGroups: [{}], resources: ['*'], verbs: ['*']}}\n        - {{apiGroups: ['', apps, cache.example.com, coordination.k8s.io, authentication.k8s.io, authorization.k8s.io], resources: ['*'], verbs: ['*']}}\n        - {{nonResourceURLs: [/metrics], verbs: [get]}}\n",
        values("g", n / 2).replace(", ", ".io, ") + ".io"
    )
}

/// `n / 2` allow rules, each one group, resource and name of the rule's:
/// what they leave of it is a checkerboard.
fn checkerboard(n: usize) -> String {
    let mut out = ceiling(0).replace("apiGroups: [.io]", "apiGroups: [none.io]");
    for i in 0..n / 2 {
        out.push_str(&format!(
            "        - {{apiGroups: [g{}.io], resources: [r{}], resourceNames: [n{}], verbs: [get, list]}}\n",
            i % n,
            (i * 7) % n,
            (i * 3) % n
        ));
    }
    out
}

const INSTALLER: &str = "    operator:\n      permissions: Cluster\n      installNamespace: memcached-system\n    installer:\n      serviceAccount: {name: inst, namespace: memcached-system}\n      for: OLMv1\n";

/// A ClusterRole holding `rule`, bound to bob cluster-wide and in team-a.
fn role_with(rule: &str) -> String {
    format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: big}}\nrules:\n- {rule}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {{name: big}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: big}}\nsubjects: [{{kind: User, name: bob}}]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: big, namespace: team-a}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: big}}\nsubjects: [{{kind: User, name: bob}}]\n"
    )
}

/// `n` CRDs of one group as a ResourceList, Aggregate: every object's kind
/// is looked up among `n` resources of its group.
fn many_crds(n: usize) -> String {
    let mut out = String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
    for i in 0..n {
        out.push_str(&format!(
            "- apiVersion: apiextensions.k8s.io/v1\n  kind: CustomResourceDefinition\n  metadata: {{name: w{i}s.example.com}}\n  spec:\n    group: example.com\n    names: {{plural: w{i}s, kind: W{i}}}\n    scope: Namespaced\n    versions: [{{name: v1, served: true, storage: true}}]\n"
        ));
    }
    out.push_str("functionConfig:\n  apiVersion: olm-rbac.io/v1alpha1\n  kind: RBACConfig\n  metadata:\n    name: widgets\n  spec:\n    mode: Aggregate\n");
    out
}

fn scan(input: &str) {
    let mut events = 0usize;
    for e in Parser::new_from_str(black_box(input)) {
        let _ = black_box(e.expect("valid YAML"));
        events += 1;
    }
    black_box(events);
}

/// A shape: what it is, its input, and the run to measure.
type Case<'a> = (&'a str, &'a str, Box<dyn Fn() + 'a>);

/// A KRM run of `input`, which must end with `code` (`why` says why).
fn krm<'a>(input: &'a str, code: i32, why: &'a str) -> Box<dyn Fn() + 'a> {
    Box::new(move || {
        let out = olm_rbac::run::function(black_box(input));
        assert_eq!(out.code, code, "{why}");
        black_box(out);
    })
}

/// Each worst shape, small and large, as a ratio to scanning its input.
fn worst_shapes(iterations: usize) {
    println!("\nworst shapes (issue 17): each against a bare event scan of its own input, median of {iterations} runs");
    println!("{:<34} {:>9} {:>11} {:>11} {:>8}", "shape", "input KB", "scan ms", "olm-rbac ms", "ratio");
    for n in [16, 256, 2500] {
        let rule = huge_rule(n);
        let policy = bundle_with(&rule, &ceiling(n));
        let checkered = bundle_with(&rule, &checkerboard(n));
        let installer = bundle_with(&rule, INSTALLER);
        let role = role_with(&rule);
        let crds = many_crds(n);
        let cases: [Case; 5] = [
            ("KRM, policy ceiling", &policy, krm(&policy, 1, "the ceiling refuses half the rule")),
            ("KRM, n/2 allow rules", &checkered, krm(&checkered, 1, "the ceiling refuses most of the rule")),
            ("KRM, installer Generate", &installer, krm(&installer, 0, "the installer is generated")),
            ("KRM, n CRDs of one group", &crds, krm(&crds, 0, "the CRDs render")),
            (
                "can-i --list -A",
                &role,
                Box::new(|| {
                    let sources = [Source { name: "role.yaml".into(), text: role.clone() }];
                    let q = CanIList { namespace: None, all_namespaces: true, user: "bob", groups: &[] };
                    let out = can_i_list(black_box(&sources), &q);
                    let own = out.stdout.lines().filter(|l| !l.contains("selfsubject") && !l.contains("/healthz"));
                    assert_eq!(own.count(), 3, "a header and the rule, cluster-wide and in team-a");
                    black_box(out);
                }),
            ),
        ];
        for (what, input, run) in cases {
            let base = time(iterations, || scan(input));
            let cost = time(iterations, &*run);
            println!(
                "{:<34} {:>9.1} {:>11.2} {:>11.2} {:>7.1}x",
                format!("{what}, n={n}"),
                input.len() as f64 / 1e3,
                base.as_secs_f64() * 1e3,
                cost.as_secs_f64() * 1e3,
                cost.as_secs_f64() / base.as_secs_f64()
            );
        }
    }
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn time(iterations: usize, mut f: impl FnMut()) -> Duration {
    f(); // warm up
    median(
        (0..iterations)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect(),
    )
}

#[path = "throughput/images.rs"]
mod images;

fn main() {
    if std::env::var_os(PEAK_HELPER).is_some() {
        return peak_helper();
    }
    let input = resource_list();
    let mb = input.len() as f64 / 1e6;
    let iterations = std::env::var("BENCH_ITERATIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(15);

    let scan = time(iterations, || {
        let mut events = 0usize;
        for e in Parser::new_from_str(black_box(&input)) {
            let _ = black_box(e.expect("valid YAML"));
            events += 1;
        }
        black_box(events);
    });
    let function = time(iterations, || {
        let out = olm_rbac::run::function(black_box(&input));
        assert_eq!(out.code, 0);
        black_box(out);
    });

    let rate = |d: Duration| mb / d.as_secs_f64();
    println!("input: argocd-operator-0.19.0 as a ResourceList, {mb:.2} MB, median of {iterations} runs");
    println!("baseline  bare event scan      {:>8.1} ms  {:>7.1} MB/s", scan.as_secs_f64() * 1e3, rate(scan));
    println!(
        "olm-rbac  KRM function, Aggregate {:>8.1} ms  {:>7.1} MB/s",
        function.as_secs_f64() * 1e3,
        rate(function)
    );
    println!("ratio     olm-rbac / scan      {:>8.2}x", function.as_secs_f64() / scan.as_secs_f64());

    worst_shapes(iterations);
    let memory_ok = memory(&input);
    let catalog_ok = catalog(iterations);
    let hostile_ok = hostile_catalogs(iterations);
    let filter_ok = catalog_filter(iterations);
    let images_ok = catalog_images(iterations);
    if !memory_ok || !catalog_ok || !hostile_ok || !filter_ok || !images_ok {
        std::process::exit(1);
    }
}

/// `catalog audit` on the largest fixture catalog (trident-operator: 12
/// bundles with their manifests in the catalog), and on the same catalog four
/// times over (four packages, 48 bundles): bundles per second, the ratio to a
/// bare event scan of the same bytes and to libyaml's reading of the catalog
/// ([`LIBYAML`]), and the peak resident set of each. The
/// catalog is streamed a bundle at a time, so the peak must not grow with
/// the catalog: over 1.5x the single catalog's prints `CATALOG MEMORY GROWS`
/// and fails the bench.
fn catalog(iterations: usize) -> bool {
    let (one, four) = trident_catalogs();
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let runs = [("trident-operator", one, 12), ("trident-operator x4", four, 48)];
    println!("catalog audit: median of {iterations} runs; peak RSS of the binary");
    let mut peaks = Vec::new();
    for (name, text, bundles) in runs {
        let path = scratch.path().join(format!("{}.yaml", peaks.len()));
        std::fs::write(&path, &text).expect("write the catalog");
        let mb = text.len() as f64 / 1e6;
        let scan = time(iterations, || {
            for e in Parser::new_from_str(black_box(&text)) {
                let _ = black_box(e.expect("valid YAML"));
            }
        });
        let audit = time(iterations, || {
            let out = olm_rbac::catalog::audit(&olm_rbac::catalog::AuditArgs {
                catalog: &path,
                bundles: Default::default(),
                configs: None,
                format: olm_rbac::catalog::Format::Json,
            });
            assert_eq!(out.code, 0, "{}", out.stderr);
            black_box(out);
        });
        let peak = peak_rss(&["catalog", "audit", "--catalog", path.to_str().expect("utf-8")], "");
        let libyaml = match libyaml_ms(&path, iterations) {
            Some(ms) => format!("libyaml {ms:>6.1} ms  ratio {:>5.2}x", audit.as_secs_f64() * 1e3 / ms),
            None => "libyaml skipped (python3 with PyYAML's C loader not found)".to_string(),
        };
        println!(
            "  {name:<20} {mb:>5.2} MB  {bundles:>3} bundles  {:>7.1} ms  {:>6.1} bundles/s  scan {:>6.1} ms  ratio {:>6.1}x  {libyaml}  peak {:>6.1} MB",
            audit.as_secs_f64() * 1e3,
            bundles as f64 / audit.as_secs_f64(),
            scan.as_secs_f64() * 1e3,
            audit.as_secs_f64() / scan.as_secs_f64(),
            peak as f64 / 1e6
        );
        peaks.push(peak);
    }
    peaks_stay_flat(&peaks, "CATALOG MEMORY GROWS")
}

/// What `catalog audit` is held to: libyaml (PyYAML's C loader) loading
/// every document of the catalog, then, for each manifest its bundles carry
/// (`olm.bundle.object`), decoding it and walking its events. Run by python3
/// with the catalog's path and a number of runs; prints the median run's
/// milliseconds, timed in the process as the audit is.
const LIBYAML: &str = r#"
import base64, statistics, sys, time
import yaml

def work(path):
    events = 0
    with open(path) as f:
        for doc in yaml.load_all(f, Loader=yaml.CLoader):
            if not isinstance(doc, dict) or doc.get("schema") != "olm.bundle":
                continue
            for p in doc.get("properties") or []:
                if p.get("type") == "olm.bundle.object":
                    data = base64.b64decode(p["value"]["data"])
                    events += sum(1 for _ in yaml.parse(data, Loader=yaml.CLoader))
    return events

runs = []
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    work(sys.argv[1])
    runs.append(time.perf_counter() - start)
print(statistics.median(runs) * 1000)
"#;

/// [`LIBYAML`]'s median on the catalog at `path`, in ms; `None` without
/// python3 or PyYAML's C loader.
fn libyaml_ms(path: &Path, iterations: usize) -> Option<f64> {
    let out = Command::new("python3").arg("-c").arg(LIBYAML).arg(path).arg(iterations.to_string()).output().ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8(out.stdout).ok()?.trim().parse().ok()
}

/// The trident catalog, and the same four times over: four packages of the
/// same bundles, the package renamed, the bundles (whose CSVs are named as
/// they are) kept.
fn trident_catalogs() -> (String, String) {
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/catalogs/with-bundle-objects/trident-operator.yaml");
    let one = std::fs::read_to_string(&source).expect("the trident catalog");
    let four: String = (0..4)
        .map(|k| {
            let package = format!("trident-operator-{k}");
            one.replace("\nname: trident-operator\n", &format!("\nname: {package}\n"))
                .replace("\npackage: trident-operator\n", &format!("\npackage: {package}\n"))
                .replace("packageName: trident-operator\n", &format!("packageName: {package}\n"))
        })
        .collect();
    (one, four)
}

/// Whether the peak resident set of four times the catalog (`peaks[1]`)
/// stays within 1.5x that of the catalog (`peaks[0]`); `alarm` is printed
/// when it does not.
fn peaks_stay_flat(peaks: &[u64], alarm: &str) -> bool {
    let growth = peaks[1] as f64 / peaks[0] as f64;
    let ok = growth <= 1.5;
    println!("  peak x4 / peak x1 {growth:>5.2}x (catalog 4.0x)  {}", if ok { "ok" } else { alarm });
    ok
}

/// What the peak resident set may grow by, as a multiple of the input's bytes.
const MEMORY_BUDGET: f64 = 3.0;

/// `getrusage`'s record, as Linux lays it out on 64-bit targets: two
/// timevals, then `ru_maxrss` (KiB) and thirteen more counters.
#[repr(C)]
#[derive(Default)]
struct RUsage {
    times: [i64; 4],
    max_rss_kib: i64,
    rest: [i64; 13],
}

extern "C" {
    fn wait4(pid: i32, status: *mut i32, options: i32, usage: *mut RUsage) -> i32;
}

/// `catalog audit` of 12 and of 48 bundles named by digest, each read from
/// its image in an OCI layout, against the same bundles as folders (the
/// ratio is what reading images costs); the peak resident set of the binary
/// doing so, and, with a registry on this machine, pulling them all into an
/// empty cache with `--pull`. Neither peak may grow with the catalog.
fn catalog_images(iterations: usize) -> bool {
    let registry = images::Registry::start();
    let repository = registry.as_ref().map_or_else(|| "example.com".to_string(), |r| r.host.clone());
    println!("bundle images: catalog audit from OCI layouts against folders, median of {iterations} runs; peak RSS of the binary");
    let (mut layout_peaks, mut pull_peaks) = (Vec::new(), Vec::new());
    for (name, packages) in [("12 bundles", 1), ("48 bundles", 4)] {
        let scratch = tempfile::tempdir().expect("a scratch folder");
        let (layout, catalog, images) =
            images::images_and_catalog(scratch.path(), packages, 12, &repository, |p, i| csv_of(p, i, ""));
        let folders = scratch.path().join("folders");
        let audit = |paths: &[PathBuf]| {
            time(iterations, || {
                let out = olm_rbac::catalog::audit(&olm_rbac::catalog::AuditArgs {
                    catalog: &catalog,
                    bundles: olm_rbac::catalog::BundleArgs { paths, ..Default::default() },
                    configs: None,
                    format: olm_rbac::catalog::Format::Json,
                });
                assert_eq!(out.code, 0, "{}", out.stderr);
                black_box(out);
            })
        };
        let (from_images, from_folders) = (audit(std::slice::from_ref(&layout)), audit(&[folders]));
        let (catalog, layout_s) = (catalog.to_str().expect("utf-8"), layout.to_str().expect("utf-8"));
        let layout_peak = peak_rss(&["catalog", "audit", "--catalog", catalog, "--bundles", layout_s], "");
        let pull_peak = registry.as_ref().map(|r| {
            r.push_all(&layout, &images);
            let cache = scratch.path().join("cache");
            peak_rss(
                &["catalog", "audit", "--catalog", catalog, "--pull", "--image-cache", cache.to_str().expect("utf-8")],
                "",
            )
        });
        println!(
            "  {name:<12} images {:>7.1} ms  folders {:>7.1} ms  ratio {:>5.2}x  peak {:>6.1} MB  --pull peak {}",
            from_images.as_secs_f64() * 1e3,
            from_folders.as_secs_f64() * 1e3,
            from_images.as_secs_f64() / from_folders.as_secs_f64(),
            layout_peak as f64 / 1e6,
            pull_peak
                .map_or("(no docker-registry: not measured)".to_string(), |p| format!("{:>6.1} MB", p as f64 / 1e6)),
        );
        layout_peaks.push(layout_peak);
        pull_peaks.extend(pull_peak);
    }
    let layouts_ok = peaks_stay_flat(&layout_peaks, "IMAGE MEMORY GROWS");
    layouts_ok && (pull_peaks.len() < 2 || peaks_stay_flat(&pull_peaks, "IMAGE MEMORY GROWS (--pull)"))
}

/// Set in the helper's environment (see [`peak_rss`]).
const PEAK_HELPER: &str = "OLM_RBAC_BENCH_PEAK_HELPER";

/// Runs the binary with `args` and `stdin`, and returns its peak resident
/// set in bytes. Linux starts a child's `ru_maxrss` at its parent's resident
/// set, which the bench has grown, so a fresh copy of this bench (small) runs
/// the binary and reports `wait4`'s usage of it (see [`peak_helper`]).
fn peak_rss(args: &[&str], stdin: &str) -> u64 {
    let mut helper = Command::new(std::env::current_exe().expect("the bench's path"))
        .args(args)
        .env(PEAK_HELPER, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the helper runs");
    helper.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("write stdin");
    let out = helper.wait_with_output().expect("the helper's report");
    String::from_utf8_lossy(&out.stdout).trim().parse().expect("the helper prints a size")
}

/// The helper: runs the binary with this process's arguments and stdin,
/// and prints its peak resident set in bytes.
// The child is reaped by `wait4`, which clippy does not see.
#[allow(clippy::zombie_processes)]
fn peak_helper() {
    let child = Command::new(env!("CARGO_BIN_EXE_olm-rbac"))
        .args(std::env::args().skip(1))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    let (mut status, mut usage) = (0i32, RUsage::default());
    let pid = i32::try_from(child.id()).expect("a pid");
    // SAFETY: `wait4` writes only the two out-parameters, which live here;
    // the child is reaped here and never waited on through `child`.
    let reaped = unsafe { wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid, "wait4 reaped the child");
    println!("{}", u64::try_from(usage.max_rss_kib).expect("a size") * 1024);
}

/// The bytes of the files under `dir`.
fn bytes_under(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .expect("a folder")
        .map(|e| e.expect("entry").path())
        .map(|p| if p.is_dir() { bytes_under(&p) } else { std::fs::metadata(&p).expect("metadata").len() })
        .sum()
}

/// Peak RSS over the empty run, per input byte, for the KRM function and for
/// `render`; whether both stay within [`MEMORY_BUDGET`].
fn memory(list: &str) -> bool {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let config = scratch.path().join("rbac.yaml");
    let spec = "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: argocd\nspec:\n  mode: Aggregate\n  allowNoAPIs: true\n";
    std::fs::write(&config, spec).expect("write the config");
    let empty = scratch.path().join("empty");
    std::fs::create_dir(&empty).expect("an empty folder");
    let bundle = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bundles/argocd-operator-0.19.0");
    let (config, empty, bundle_dir) =
        (config.to_str().expect("utf-8"), empty.to_str().expect("utf-8"), bundle.to_str().expect("utf-8"));
    let empty_list = format!(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n{}",
        spec.lines().map(|l| format!("  {l}\n")).collect::<String>()
    );
    let runs = [
        ("KRM function", list.len() as u64, peak_rss(&[], &empty_list), peak_rss(&[], list)),
        (
            "render",
            bytes_under(&bundle.join("manifests")),
            peak_rss(&["render", "--config", config, empty], ""),
            peak_rss(&["render", "--config", config, bundle_dir], ""),
        ),
    ];
    println!("memory: peak RSS of the binary over its empty run, per input byte (budget {MEMORY_BUDGET}x)");
    let mut ok = true;
    for (what, input, empty, full) in runs {
        let ratio = full.saturating_sub(empty) as f64 / input as f64;
        let verdict = if ratio <= MEMORY_BUDGET { "ok" } else { "MEMORY OVER BUDGET" };
        ok &= ratio <= MEMORY_BUDGET;
        println!(
            "  {what:<13} input {:>6.2} MB  empty {:>6.1} MB  peak {:>6.1} MB  ratio {ratio:>5.2}x  {verdict}",
            input as f64 / 1e6,
            empty as f64 / 1e6,
            full as f64 / 1e6
        );
    }
    ok
}

/// A catalog of one package: an `olm.channel` listing `bundles` and no
/// manifests (they are read from `--bundles`), each bundle named `<package>.v0.0.<i>`.
fn catalog_of(package: &str, bundles: usize) -> String {
    let mut docs = vec![format!("schema: olm.package\nname: {package}\n")];
    let entries: String = (0..bundles).map(|i| format!("- name: {package}.v0.0.{i}\n")).collect();
    docs.push(format!("schema: olm.channel\npackage: {package}\nname: a\nentries:\n{entries}"));
    for i in 0..bundles {
        docs.push(format!(
            "schema: olm.bundle\nname: {package}.v0.0.{i}\npackage: {package}\nimage: example.com/{package}@sha256:{}\nproperties:\n- {{type: olm.package, value: {{packageName: {package}, version: 0.0.{i}}}}}\n",
            "0".repeat(64)
        ));
    }
    docs.join("---\n")
}

/// A CSV named for bundle `i` of `package`, granting one rule, with `extra`
/// YAML lines under `metadata.annotations`.
fn csv_of(package: &str, i: usize, extra: &str) -> String {
    format!(
        "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: {package}.v0.0.{i}\n  annotations:\n    a: b\n{extra}spec:\n  version: 0.0.{i}\n  installModes: [{{type: AllNamespaces, supported: true}}]\n  install:\n    strategy: deployment\n    spec:\n      clusterPermissions:\n      - serviceAccountName: {package}\n        rules: [{{apiGroups: [''], resources: [configmaps], verbs: [get]}}]\n      deployments: []\n"
    )
}

/// The inputs a hostile publisher can write that cost the most per byte, each
/// of about 100 KB: alias trees spread over 100 small documents (the
/// committed fixture, 27 s on f0fe51d, which budgeted aliases per document);
/// 140 small bundles, each rendered and diffed against the one before; one
/// bundle whose CSV holds 255 quoted scalars continued at their key's column
/// (each read as go-yaml reads it, through a padded copy, at the cost of a
/// parse each). Each through `catalog audit` and `catalog judge` (a range
/// admitting every version), with the bare event scan of the same bytes.
fn hostile_catalogs(iterations: usize) -> bool {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let case = |name: &str, package: &str, catalog: String, bundles: Vec<(String, String)>| {
        let dir = scratch.path().join(name);
        std::fs::create_dir_all(dir.join("catalog")).expect("a folder");
        std::fs::write(dir.join("catalog/catalog.yaml"), &catalog).expect("write the catalog");
        for (folder, csv) in &bundles {
            let manifests = dir.join("bundles").join(folder).join("manifests");
            std::fs::create_dir_all(&manifests).expect("a folder");
            std::fs::write(manifests.join("csv.yaml"), csv).expect("write a CSV");
        }
        let bytes = catalog.len() + bundles.iter().map(|b| b.1.len()).sum::<usize>();
        (name.to_string(), package.to_string(), dir, bytes)
    };
    let aliases = std::fs::read_to_string(root.join("tests/fixtures/catalogs/hostile-alias-trees/catalog.yaml"))
        .expect("the alias-tree fixture");
    let small: Vec<(String, String)> = (0..140).map(|i| (format!("small.v0.0.{i}"), csv_of("small", i, ""))).collect();
    let scalars: String = (0..255)
        .map(|i| {
            format!(
                "    k{i}: 'a description of thing {i} {}\n    continued at its key column {}'\n",
                "x".repeat(90),
                "y".repeat(90)
            )
        })
        .collect();
    let cases = [
        case("alias trees", "widgets", aliases, Vec::new()),
        case("140 small bundles", "small", catalog_of("small", 140), small),
        case(
            "255 quoted scalars",
            "quoted",
            catalog_of("quoted", 1),
            vec![("quoted.v0.0.0".into(), csv_of("quoted", 0, &scalars))],
        ),
    ];
    println!("hostile catalogs: median of {iterations} runs, each against a bare event scan of its bytes");
    let mut ok = true;
    for (name, package, dir, bytes) in cases {
        let text: String = [dir.join("catalog/catalog.yaml")]
            .iter()
            .chain(
                std::fs::read_dir(dir.join("bundles"))
                    .into_iter()
                    .flatten()
                    .map(|e| e.expect("entry").path().join("manifests/csv.yaml"))
                    .collect::<Vec<_>>()
                    .iter(),
            )
            .map(|p| std::fs::read_to_string(p).expect("read"))
            .collect::<Vec<_>>()
            .join("---\n");
        // The quoted scalars' lines indented as the YAML specification asks:
        // the bare scan stops at the first one otherwise.
        let text = text.replace("\n    continued", "\n                continued");
        let scan = time(iterations, || {
            for e in Parser::new_from_str(black_box(&text)) {
                let _ = black_box(e.expect("valid YAML"));
            }
        });
        let catalog = dir.join("catalog");
        let bundles = dir.join("bundles");
        let folders: Vec<PathBuf> = bundles.is_dir().then(|| bundles.clone()).into_iter().collect();
        let bundles = olm_rbac::catalog::BundleArgs { paths: &folders, ..Default::default() };
        let audit = time(iterations, || {
            black_box(olm_rbac::catalog::audit(&olm_rbac::catalog::AuditArgs {
                catalog: &catalog,
                bundles: bundles.clone(),
                configs: None,
                format: olm_rbac::catalog::Format::Json,
            }));
        });
        let extension = [Source {
            name: "ce.yaml".into(),
            text: format!("apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: x\nspec:\n  namespace: x\n  source:\n    sourceType: Catalog\n    catalog:\n      packageName: {package}\n"),
        }];
        let config = vec![Source {
            name: "rbac.yaml".into(),
            text:
                "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: x\nspec:\n  mode: Unmanaged\n"
                    .into(),
        }];
        let config = olm_rbac::catalog::Configs::read(vec![("rbac.yaml".into(), config)]).expect("the config");
        let judge = time(iterations, || {
            black_box(olm_rbac::catalog::judge(&olm_rbac::catalog::JudgeArgs {
                catalog: &catalog,
                bundles: bundles.clone(),
                configs: &config,
                extension: &extension,
                allow_tag_images: false,
                format: olm_rbac::catalog::Format::Json,
            }));
        });
        let worst = audit.max(judge);
        let over = worst > Duration::from_secs(1);
        ok &= !over;
        println!(
            "  {name:<20} {:>6.1} KB  audit {:>7.1} ms  judge {:>7.1} ms  scan {:>6.2} ms  ratio {:>6.1}x  {}",
            bytes as f64 / 1e3,
            audit.as_secs_f64() * 1e3,
            judge.as_secs_f64() * 1e3,
            scan.as_secs_f64() * 1e3,
            worst.as_secs_f64() / scan.as_secs_f64(),
            if over { "OVER ONE SECOND" } else { "ok" }
        );
    }
    ok
}

/// `catalog filter` against `catalog audit` on the same catalog, with the
/// same config, in the same run: the filter judges every bundle as audit
/// does, then reads the catalog again to write what it keeps. On trident
/// (a policy that leaves 25.6.0 and later out, tags accepted) and on it four
/// times over; its peak resident set must not grow with the catalog (over
/// 1.5x prints `FILTER MEMORY GROWS` and fails the bench). Also audit with
/// `--progress` on and no terminal, against audit without it.
fn catalog_filter(iterations: usize) -> bool {
    let (one, four) = trident_catalogs();
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let config_path = scratch.path().join("rbac.yaml");
    std::fs::write(&config_path, "apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: trident\nspec:\n  mode: Unmanaged\n  operator:\n    permissions: Cluster\n    installNamespace: trident\n    policy:\n      deny:\n      - {apiGroups: [trident.netapp.io], resources: [tridentgroupsnapshots], verbs: [create]}\n").expect("write the config");
    let config = vec![olm_rbac::input::Source {
        name: "rbac.yaml".into(),
        text: std::fs::read_to_string(&config_path).expect("the config"),
    }];
    let config = olm_rbac::catalog::Configs::read(vec![("rbac.yaml".into(), config)]).expect("the config");
    println!("catalog filter: median of {iterations} runs, against catalog audit with the same config");
    let mut peaks = Vec::new();
    for (name, text) in [("trident-operator", one), ("trident-operator x4", four)] {
        let path = scratch.path().join(format!("{}.yaml", peaks.len()));
        std::fs::write(&path, &text).expect("write the catalog");
        let out_dir = scratch.path().join(format!("judged-{}", peaks.len()));
        let audit = time(iterations, || {
            let out = olm_rbac::catalog::audit(&olm_rbac::catalog::AuditArgs {
                catalog: &path,
                bundles: Default::default(),
                configs: Some(&config),
                format: olm_rbac::catalog::Format::Json,
            });
            black_box(out);
        });
        // --progress forced on without a terminal: a line when the run starts, then one every five seconds.
        let progress = time(iterations, || {
            let out = olm_rbac::catalog::audit(&olm_rbac::catalog::AuditArgs {
                catalog: &path,
                bundles: olm_rbac::catalog::BundleArgs { progress: true, ..Default::default() },
                configs: Some(&config),
                format: olm_rbac::catalog::Format::Json,
            });
            black_box(out);
        });
        let filter = time(iterations, || {
            let out = olm_rbac::catalog::filter(&olm_rbac::catalog::FilterArgs {
                image_layout: None,
                push: None,
                catalog: &path,
                bundles: Default::default(),
                configs: &config,
                output: &out_dir,
                allow_tag_images: true,
                report: olm_rbac::catalog::Report::Json,
            });
            assert_eq!(out.code, 0, "{}", out.stderr);
            black_box(out);
        });
        let (path, out_dir, config_path) =
            (path.to_str().expect("utf-8"), out_dir.to_str().expect("utf-8"), config_path.to_str().expect("utf-8"));
        let args = ["catalog", "filter", "--catalog", path, "-c", config_path, "-o", out_dir, "--allow-tag-images"];
        let peak = peak_rss(&args, "");
        let ratio = filter.as_secs_f64() / audit.as_secs_f64();
        println!(
            "  {name:<20} filter {:>7.1} ms  audit {:>7.1} ms  ratio {ratio:>5.2}x{}  audit --progress {:>5.2}x  peak {:>6.1} MB",
            filter.as_secs_f64() * 1e3,
            audit.as_secs_f64() * 1e3,
            if ratio > 1.2 { " (OVER 1.2x)" } else { "" },
            progress.as_secs_f64() / audit.as_secs_f64(),
            peak as f64 / 1e6
        );
        peaks.push(peak);
    }
    peaks_stay_flat(&peaks, "FILTER MEMORY GROWS")
}
