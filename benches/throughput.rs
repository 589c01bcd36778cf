//! `cargo bench`: olm-rbac on the argocd bundle (4.1 MB, CRD files up to
//! 2.1 MB) against the floor any YAML tool pays, a bare event scan of the same
//! bytes, measured in the same run so machine speed cancels out.
//!
//! Prints the median of several runs for each, MB/s, and the ratio.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use granit_parser::Parser;

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

fn main() {
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
}
