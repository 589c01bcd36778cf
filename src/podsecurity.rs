//! Kubernetes' Pod Security Standards, version "latest", as the PodSecurity
//! admission plugin (`k8s.io/pod-security-admission`, `policy/`) checks a
//! pod: which of the baseline and restricted checks a pod spec fails, and so
//! the lowest level a namespace may enforce and still admit the pod.
//!
//! "Latest" is the newest policy version upstream defines, v1.37 at the
//! commit `tests/fixtures/podsecurity/SOURCES.md` names. The checks are those
//! of its check registry at that version: baseline runs the baseline checks;
//! restricted runs the restricted checks and every baseline check no
//! restricted one overrides (`capabilities_restricted` replaces
//! `capabilities_baseline`, `seccompProfile_restricted` replaces
//! `seccompProfile_baseline`, `restrictedVolumes` replaces `hostPathVolumes`,
//! `procMount_restricted` replaces `procMount`). Each check reads the spec as
//! the API server holds it, after its defaulting; the one default a check
//! depends on, a volume with no source being an `emptyDir`, is read so here.
//!
//! Containers are visited as upstream visits them: init containers, then
//! containers, then ephemeral containers. The module is a leaf: it reads
//! `k8s-openapi`'s types and nothing else of the crate.

#![allow(dead_code)]

mod checks;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use k8s_openapi::api::core::v1::{ContainerPort, Lifecycle, PodSecurityContext, PodSpec, Probe, SecurityContext};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// A Pod Security Standards level, from the most permissive to the most
/// restrictive: a pod admitted under a level is admitted under every level
/// before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Level {
    /// No checks: everything is admitted.
    Privileged,
    /// Prevents known privilege escalations; admits the default pod.
    Baseline,
    /// Current pod hardening practice, on top of baseline.
    Restricted,
}

impl Level {
    /// The level's name, as namespaces' `pod-security.kubernetes.io/*` labels spell it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Level::Privileged => "privileged",
            Level::Baseline => "baseline",
            Level::Restricted => "restricted",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Level {
    type Err = String;

    /// The level a label names, spelt exactly (Kubernetes' `ParseLevel` is
    /// case-sensitive too).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "privileged" => Ok(Level::Privileged),
            "baseline" => Ok(Level::Baseline),
            "restricted" => Ok(Level::Restricted),
            _ => Err(format!("unknown Pod Security level {s:?}: want privileged, baseline or restricted")),
        }
    }
}

/// One field of a pod that a check forbids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Violation {
    /// Kubernetes' id of the check, e.g. `privileged` or `runAsNonRoot`.
    pub check: &'static str,
    /// The lowest level the check belongs to: `Baseline` or `Restricted`.
    pub level: Level,
    /// Where, relative to the pod spec (`containers[0].securityContext.privileged`);
    /// an annotation is `metadata.annotations["<key>"]`, the one place outside it.
    pub field: String,
    /// Why, in a few words: `privileged container "manager"`.
    pub reason: String,
}

/// The checks `spec` fails under `level`, in upstream's order (baseline checks
/// by id, then restricted ones by id), each field once. `meta` carries the
/// annotations the AppArmor check reads; `None` reads as no annotations.
/// Under `Privileged` nothing is checked.
pub(crate) fn check(meta: Option<&ObjectMeta>, spec: &PodSpec, level: Level) -> Vec<Violation> {
    let pod = Pod::new(meta, spec);
    let runs = |c: &&Check| c.level <= level;
    let overridden: Vec<&str> = CHECKS.iter().filter(runs).filter_map(|c| c.overrides).collect();
    CHECKS
        .iter()
        .filter(runs)
        .filter(|c| !overridden.contains(&c.id))
        .flat_map(|c| {
            (c.run)(&pod).into_iter().map(|found| Violation {
                check: c.id,
                level: c.level,
                field: found.field,
                reason: found.reason,
            })
        })
        .collect()
}

/// The lowest level under which the pod is admitted: `Privileged` if any
/// baseline check fails, `Baseline` if only restricted ones do, else
/// `Restricted`.
pub(crate) fn level_needed(meta: Option<&ObjectMeta>, spec: &PodSpec) -> Level {
    if !check(meta, spec, Level::Baseline).is_empty() {
        Level::Privileged
    } else if !check(meta, spec, Level::Restricted).is_empty() {
        Level::Baseline
    } else {
        Level::Restricted
    }
}

/// One of upstream's checks at the latest version.
struct Check {
    id: &'static str,
    level: Level,
    /// The baseline check this restricted one replaces under restricted.
    overrides: Option<&'static str>,
    run: fn(&Pod<'_>) -> Vec<Found>,
}

/// The registry, in upstream's order: baseline ids sorted, then restricted
/// ids sorted (byte order, so `seLinuxOptions` before `seccompProfile_*`).
const CHECKS: [Check; 19] = [
    baseline("appArmorProfile", checks::app_armor_profile),
    baseline("capabilities_baseline", checks::capabilities_baseline),
    baseline("hostNamespaces", checks::host_namespaces),
    baseline("hostPathVolumes", checks::host_path_volumes),
    baseline("hostPorts", checks::host_ports),
    baseline("hostProbesAndHostLifecycle", checks::host_probes_and_host_lifecycle),
    baseline("privileged", checks::privileged),
    baseline("procMount", checks::proc_mount_baseline),
    baseline("seLinuxOptions", checks::se_linux_options),
    baseline("seccompProfile_baseline", checks::seccomp_profile_baseline),
    baseline("sysctls", checks::sysctls),
    baseline("windowsHostProcess", checks::windows_host_process),
    restricted("allowPrivilegeEscalation", None, checks::allow_privilege_escalation),
    restricted("capabilities_restricted", Some("capabilities_baseline"), checks::capabilities_restricted),
    restricted("procMount_restricted", Some("procMount"), checks::proc_mount_restricted),
    restricted("restrictedVolumes", Some("hostPathVolumes"), checks::restricted_volumes),
    restricted("runAsNonRoot", None, checks::run_as_non_root),
    restricted("runAsUser", None, checks::run_as_user),
    restricted("seccompProfile_restricted", Some("seccompProfile_baseline"), checks::seccomp_profile_restricted),
];

const fn baseline(id: &'static str, run: fn(&Pod<'_>) -> Vec<Found>) -> Check {
    Check { id, level: Level::Baseline, overrides: None, run }
}

const fn restricted(id: &'static str, overrides: Option<&'static str>, run: fn(&Pod<'_>) -> Vec<Found>) -> Check {
    Check { id, level: Level::Restricted, overrides, run }
}

/// A forbidden field a check found; the registry adds the check's id and level.
struct Found {
    field: String,
    reason: String,
}

impl Found {
    fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Found { field: field.into(), reason: reason.into() }
    }
}

/// What the checks read of a pod: its annotations, its spec, and its
/// containers of every kind in the order Kubernetes visits them.
struct Pod<'a> {
    annotations: Option<&'a BTreeMap<String, String>>,
    spec: &'a PodSpec,
    containers: Vec<Container<'a>>,
}

/// The fields of a container, an init container or an ephemeral container
/// that the checks read (ephemeral containers are a type of their own in the
/// API, with the same fields).
struct Container<'a> {
    /// `containers[0]`, `initContainers[1]`, `ephemeralContainers[2]`.
    path: String,
    name: &'a str,
    security: Option<&'a SecurityContext>,
    ports: &'a [ContainerPort],
    /// `livenessProbe`, `readinessProbe` and `startupProbe`, by field name.
    probes: [(&'static str, Option<&'a Probe>); 3],
    lifecycle: Option<&'a Lifecycle>,
}

impl<'a> Pod<'a> {
    fn new(meta: Option<&'a ObjectMeta>, spec: &'a PodSpec) -> Self {
        let mut containers = Vec::new();
        for (field, list) in [
            ("initContainers", spec.init_containers.as_deref().unwrap_or_default()),
            ("containers", spec.containers.as_slice()),
        ] {
            containers.extend(list.iter().enumerate().map(|(i, c)| Container {
                path: format!("{field}[{i}]"),
                name: &c.name,
                security: c.security_context.as_ref(),
                ports: c.ports.as_deref().unwrap_or_default(),
                probes: [
                    ("livenessProbe", c.liveness_probe.as_ref()),
                    ("readinessProbe", c.readiness_probe.as_ref()),
                    ("startupProbe", c.startup_probe.as_ref()),
                ],
                lifecycle: c.lifecycle.as_ref(),
            }));
        }
        let ephemeral = spec.ephemeral_containers.as_deref().unwrap_or_default();
        containers.extend(ephemeral.iter().enumerate().map(|(i, c)| Container {
            path: format!("ephemeralContainers[{i}]"),
            name: &c.name,
            security: c.security_context.as_ref(),
            ports: c.ports.as_deref().unwrap_or_default(),
            probes: [
                ("livenessProbe", c.liveness_probe.as_ref()),
                ("readinessProbe", c.readiness_probe.as_ref()),
                ("startupProbe", c.startup_probe.as_ref()),
            ],
            lifecycle: c.lifecycle.as_ref(),
        }));
        Pod { annotations: meta.and_then(|m| m.annotations.as_ref()), spec, containers }
    }

    fn security(&self) -> Option<&'a PodSecurityContext> {
        self.spec.security_context.as_ref()
    }

    /// `spec.os.name: windows`: the API server rejects the Linux-only fields
    /// some restricted checks require, so those checks admit such a pod.
    fn is_windows(&self) -> bool {
        self.spec.os.as_ref().is_some_and(|os| os.name == "windows")
    }

    /// `hostUsers: false`: the pod runs in its own user namespace, where root
    /// and an unmasked /proc are not the host's, so the checks on those relax.
    fn in_user_namespace(&self) -> bool {
        self.spec.host_users == Some(false)
    }
}
