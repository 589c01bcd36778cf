//! The checks, one function each, as upstream's `policy/check_*.go` decide
//! them at the latest version. Each returns every forbidden field it finds;
//! none means the check admits the pod.

use k8s_openapi::api::core::v1::{SELinuxOptions, Volume};

use super::{Container, Found, Pod};

/// The capabilities a baseline container may add: the container runtime's
/// default set, less NET_RAW.
const DEFAULT_CAPABILITIES: [&str; 13] = [
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
];

/// The sysctls baseline allows: namespaced to the pod and isolated from other
/// pods on the node. v1.0's five, then v1.27's, v1.29's, v1.32's and v1.37's
/// additions.
pub(super) const SAFE_SYSCTLS: [&str; 14] = [
    "kernel.shm_rmid_forced",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range",
    "net.ipv4.ip_unprivileged_port_start",
    "net.ipv4.ip_local_reserved_ports",
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
    "net.ipv4.tcp_rmem",
    "net.ipv4.tcp_wmem",
    "net.ipv4.tcp_slow_start_after_idle",
    "net.ipv4.tcp_notsent_lowat",
];

/// The SELinux types baseline allows (v1.31 added `container_engine_t`); an
/// unset type is allowed too.
const SELINUX_TYPES: [&str; 4] = ["container_t", "container_init_t", "container_kvm_t", "container_engine_t"];

/// The prefix of the deprecated per-container AppArmor annotations.
const APPARMOR_ANNOTATION: &str = "container.apparmor.security.beta.kubernetes.io/";

fn quoted(name: &str) -> String {
    format!("{name:?}")
}

/// Where a container's security context field is.
fn at(c: &Container<'_>, field: &str) -> String {
    format!("{}.securityContext.{field}", c.path)
}

/// `windowsHostProcess`: neither the pod nor a container may set
/// `windowsOptions.hostProcess: true`, which runs it as a process on the
/// Windows host.
pub(super) fn windows_host_process(pod: &Pod<'_>) -> Vec<Found> {
    let mut found = Vec::new();
    if pod.security().and_then(|s| s.windows_options.as_ref()).and_then(|w| w.host_process) == Some(true) {
        found.push(Found::new("securityContext.windowsOptions.hostProcess", "pod sets hostProcess=true"));
    }
    for c in &pod.containers {
        if c.security.and_then(|s| s.windows_options.as_ref()).and_then(|w| w.host_process) == Some(true) {
            let reason = format!("container {} sets hostProcess=true", quoted(c.name));
            found.push(Found::new(at(c, "windowsOptions.hostProcess"), reason));
        }
    }
    found
}

/// `hostNamespaces`: the pod may not share the host's network, PID or IPC
/// namespace.
pub(super) fn host_namespaces(pod: &Pod<'_>) -> Vec<Found> {
    let spec = pod.spec;
    [("hostNetwork", spec.host_network), ("hostPID", spec.host_pid), ("hostIPC", spec.host_ipc)]
        .into_iter()
        .filter(|(_, on)| *on == Some(true))
        .map(|(field, _)| Found::new(field, format!("host namespace {field}=true")))
        .collect()
}

/// `privileged`: no container may run privileged, which disables most of its
/// isolation.
pub(super) fn privileged(pod: &Pod<'_>) -> Vec<Found> {
    pod.containers
        .iter()
        .filter(|c| c.security.and_then(|s| s.privileged) == Some(true))
        .map(|c| Found::new(at(c, "privileged"), format!("privileged container {}", quoted(c.name))))
        .collect()
}

/// `capabilities_baseline`: a container may add only capabilities of the
/// runtime's default set (no NET_RAW, nothing beyond).
pub(super) fn capabilities_baseline(pod: &Pod<'_>) -> Vec<Found> {
    let mut found = Vec::new();
    for c in &pod.containers {
        let added = c.security.and_then(|s| s.capabilities.as_ref()).and_then(|caps| caps.add.as_deref());
        for (i, cap) in added.unwrap_or_default().iter().enumerate() {
            if !DEFAULT_CAPABILITIES.contains(&cap.as_str()) {
                let reason = format!("container {} adds non-default capability {}", quoted(c.name), quoted(cap));
                found.push(Found::new(at(c, &format!("capabilities.add[{i}]")), reason));
            }
        }
    }
    found
}

/// `hostPathVolumes`: no volume may mount a path of the host.
pub(super) fn host_path_volumes(pod: &Pod<'_>) -> Vec<Found> {
    volumes(pod)
        .iter()
        .enumerate()
        .filter(|(_, v)| v.host_path.is_some())
        .map(|(i, v)| Found::new(format!("volumes[{i}].hostPath"), format!("hostPath volume {}", quoted(&v.name))))
        .collect()
}

fn volumes<'a>(pod: &Pod<'a>) -> &'a [Volume] {
    pod.spec.volumes.as_deref().unwrap_or_default()
}

/// `hostPorts`: no container port may bind a port of the host (0, or
/// unset, binds none).
pub(super) fn host_ports(pod: &Pod<'_>) -> Vec<Found> {
    let mut found = Vec::new();
    for c in &pod.containers {
        for (i, port) in c.ports.iter().enumerate() {
            if let Some(host) = port.host_port.filter(|p| *p != 0) {
                let reason = format!("container {} uses hostPort {host}", quoted(c.name));
                found.push(Found::new(format!("{}.ports[{i}].hostPort", c.path), reason));
            }
        }
    }
    found
}

/// `hostProbesAndHostLifecycle` (v1.34): a probe's or lifecycle handler's
/// `httpGet` or `tcpSocket` may not name a `host`, which would let the kubelet
/// reach any address on the pod's behalf.
pub(super) fn host_probes_and_host_lifecycle(pod: &Pod<'_>) -> Vec<Found> {
    let mut found = Vec::new();
    for c in &pod.containers {
        let mut hosts: Vec<(String, Option<&String>)> = Vec::new();
        for (name, probe) in c.probes {
            if let Some(p) = probe {
                hosts.push((format!("{name}.httpGet.host"), p.http_get.as_ref().and_then(|h| h.host.as_ref())));
                hosts.push((format!("{name}.tcpSocket.host"), p.tcp_socket.as_ref().and_then(|t| t.host.as_ref())));
            }
        }
        let handlers = c.lifecycle.map(|l| [("postStart", l.post_start.as_ref()), ("preStop", l.pre_stop.as_ref())]);
        for (name, handler) in handlers.into_iter().flatten() {
            if let Some(h) = handler {
                let field = format!("lifecycle.{name}");
                hosts.push((format!("{field}.httpGet.host"), h.http_get.as_ref().and_then(|g| g.host.as_ref())));
                hosts.push((format!("{field}.tcpSocket.host"), h.tcp_socket.as_ref().and_then(|t| t.host.as_ref())));
            }
        }
        for (field, host) in hosts {
            if let Some(host) = host.filter(|h| !h.is_empty()) {
                let reason = format!("container {} uses probe or lifecycle host {}", quoted(c.name), quoted(host));
                found.push(Found::new(format!("{}.{field}", c.path), reason));
            }
        }
    }
    found
}

/// `appArmorProfile`: the pod and its containers may not leave the default
/// AppArmor profile except for a localhost one: the `appArmorProfile.type`
/// fields may be `RuntimeDefault` or `Localhost`, and the deprecated
/// `container.apparmor.security.beta.kubernetes.io/*` annotations empty,
/// `runtime/default` or `localhost/*`, whatever container they name.
pub(super) fn app_armor_profile(pod: &Pod<'_>) -> Vec<Found> {
    let allowed = |t: &str| t == "RuntimeDefault" || t == "Localhost";
    let mut found = Vec::new();
    if let Some(profile) = pod.security().and_then(|s| s.app_armor_profile.as_ref()) {
        if !allowed(&profile.type_) {
            let reason = format!("pod sets forbidden AppArmor profile {}", quoted(&profile.type_));
            found.push(Found::new("securityContext.appArmorProfile.type", reason));
        }
    }
    for c in &pod.containers {
        if let Some(profile) = c.security.and_then(|s| s.app_armor_profile.as_ref()) {
            if !allowed(&profile.type_) {
                let reason =
                    format!("container {} sets forbidden AppArmor profile {}", quoted(c.name), quoted(&profile.type_));
                found.push(Found::new(at(c, "appArmorProfile.type"), reason));
            }
        }
    }
    for (key, value) in pod.annotations.into_iter().flatten() {
        let allowed = value.is_empty() || value == "runtime/default" || value.starts_with("localhost/");
        if key.starts_with(APPARMOR_ANNOTATION) && !allowed {
            let reason = format!("annotation sets forbidden AppArmor profile {}", quoted(value));
            found.push(Found::new(format!("metadata.annotations[{}]", quoted(key)), reason));
        }
    }
    found
}

/// `seLinuxOptions`: the pod and its containers may set an SELinux type only
/// to one of the container types, and may set no SELinux user or role.
pub(super) fn se_linux_options(pod: &Pod<'_>) -> Vec<Found> {
    let mut found = Vec::new();
    let mut judge = |options: Option<&SELinuxOptions>, field: String, who: String| {
        let Some(options) = options else { return };
        let kind = options.type_.as_deref().unwrap_or_default();
        if !kind.is_empty() && !SELINUX_TYPES.contains(&kind) {
            found.push(Found::new(
                format!("{field}.type"),
                format!("{who} sets forbidden SELinux type {}", quoted(kind)),
            ));
        }
        for (name, value) in [("user", &options.user), ("role", &options.role)] {
            if value.as_deref().is_some_and(|v| !v.is_empty()) {
                found.push(Found::new(format!("{field}.{name}"), format!("{who} sets an SELinux {name}")));
            }
        }
    };
    let options = pod.security().and_then(|s| s.se_linux_options.as_ref());
    judge(options, "securityContext.seLinuxOptions".into(), "pod".into());
    for c in &pod.containers {
        let options = c.security.and_then(|s| s.se_linux_options.as_ref());
        judge(options, at(c, "seLinuxOptions"), format!("container {}", quoted(c.name)));
    }
    found
}

/// `procMount` (baseline): a container may not unmask /proc (any `procMount`
/// but `Default`), unless the pod runs in its own user namespace
/// (`hostUsers: false`, v1.35).
pub(super) fn proc_mount_baseline(pod: &Pod<'_>) -> Vec<Found> {
    if pod.in_user_namespace() {
        return Vec::new();
    }
    proc_mount_restricted(pod)
}

/// `procMount_restricted` (v1.35): a container may not unmask /proc, user
/// namespace or not.
pub(super) fn proc_mount_restricted(pod: &Pod<'_>) -> Vec<Found> {
    let mut found = Vec::new();
    for c in &pod.containers {
        if let Some(mount) = c.security.and_then(|s| s.proc_mount.as_deref()).filter(|m| *m != "Default") {
            let reason = format!("container {} sets procMount {}", quoted(c.name), quoted(mount));
            found.push(Found::new(at(c, "procMount"), reason));
        }
    }
    found
}

fn seccomp_allowed(kind: &str) -> bool {
    kind == "RuntimeDefault" || kind == "Localhost"
}

/// `seccompProfile_baseline`: where the pod or a container sets a seccomp
/// profile, it is `RuntimeDefault` or `Localhost` (never `Unconfined`). The
/// alpha seccomp annotations are checked only by policy versions before
/// v1.19, so not here.
pub(super) fn seccomp_profile_baseline(pod: &Pod<'_>) -> Vec<Found> {
    let mut found = Vec::new();
    if let Some(profile) = pod.security().and_then(|s| s.seccomp_profile.as_ref()) {
        if !seccomp_allowed(&profile.type_) {
            let reason = format!("pod sets forbidden seccomp profile {}", quoted(&profile.type_));
            found.push(Found::new("securityContext.seccompProfile.type", reason));
        }
    }
    for c in &pod.containers {
        if let Some(profile) = c.security.and_then(|s| s.seccomp_profile.as_ref()) {
            if !seccomp_allowed(&profile.type_) {
                let reason =
                    format!("container {} sets forbidden seccomp profile {}", quoted(c.name), quoted(&profile.type_));
                found.push(Found::new(at(c, "seccompProfile.type"), reason));
            }
        }
    }
    found
}

/// `sysctls`: the pod may set only the safe sysctls.
pub(super) fn sysctls(pod: &Pod<'_>) -> Vec<Found> {
    let set = pod.security().and_then(|s| s.sysctls.as_deref()).unwrap_or_default();
    set.iter()
        .enumerate()
        .filter(|(_, s)| !SAFE_SYSCTLS.contains(&s.name.as_str()))
        .map(|(i, s)| {
            Found::new(format!("securityContext.sysctls[{i}].name"), format!("forbidden sysctl {}", quoted(&s.name)))
        })
        .collect()
}

/// `restrictedVolumes`: every volume is of a kind that exposes nothing of
/// the node or of storage outside the cluster's control: configMap, csi,
/// downwardAPI, emptyDir, ephemeral, image, persistentVolumeClaim, projected
/// or secret. Any other, hostPath included, is forbidden. A volume with no
/// source at all is an `emptyDir`: the API server defaults it to one before
/// admission sees the pod (upstream's fixtures pass it as such).
pub(super) fn restricted_volumes(pod: &Pod<'_>) -> Vec<Found> {
    let mut found = Vec::new();
    for (i, v) in volumes(pod).iter().enumerate() {
        let allowed = v.config_map.is_some()
            || v.csi.is_some()
            || v.downward_api.is_some()
            || v.empty_dir.is_some()
            || v.ephemeral.is_some()
            || v.image.is_some()
            || v.persistent_volume_claim.is_some()
            || v.projected.is_some()
            || v.secret.is_some();
        if let Some(kind) = restricted_kind(v).filter(|_| !allowed) {
            let reason = format!("volume {} uses restricted volume type {kind}", quoted(&v.name));
            found.push(Found::new(format!("volumes[{i}].{kind}"), reason));
        }
    }
    found
}

/// The field of a volume's forbidden source, in upstream's order.
fn restricted_kind(v: &Volume) -> Option<&'static str> {
    [
        ("hostPath", v.host_path.is_some()),
        ("gcePersistentDisk", v.gce_persistent_disk.is_some()),
        ("awsElasticBlockStore", v.aws_elastic_block_store.is_some()),
        ("gitRepo", v.git_repo.is_some()),
        ("nfs", v.nfs.is_some()),
        ("iscsi", v.iscsi.is_some()),
        ("glusterfs", v.glusterfs.is_some()),
        ("rbd", v.rbd.is_some()),
        ("flexVolume", v.flex_volume.is_some()),
        ("cinder", v.cinder.is_some()),
        ("cephfs", v.cephfs.is_some()),
        ("flocker", v.flocker.is_some()),
        ("fc", v.fc.is_some()),
        ("azureFile", v.azure_file.is_some()),
        ("vsphereVolume", v.vsphere_volume.is_some()),
        ("quobyte", v.quobyte.is_some()),
        ("azureDisk", v.azure_disk.is_some()),
        ("photonPersistentDisk", v.photon_persistent_disk.is_some()),
        ("portworxVolume", v.portworx_volume.is_some()),
        ("scaleIO", v.scale_io.is_some()),
        ("storageos", v.storageos.is_some()),
    ]
    .into_iter()
    .find_map(|(kind, set)| set.then_some(kind))
}

/// `allowPrivilegeEscalation`: every container sets
/// `allowPrivilegeEscalation: false` (unset allows it), so no setuid binary
/// gains privileges. Windows pods are exempt (v1.25).
pub(super) fn allow_privilege_escalation(pod: &Pod<'_>) -> Vec<Found> {
    if pod.is_windows() {
        return Vec::new();
    }
    pod.containers
        .iter()
        .filter(|c| c.security.and_then(|s| s.allow_privilege_escalation) != Some(false))
        .map(|c| {
            let reason = format!("container {} must set allowPrivilegeEscalation=false", quoted(c.name));
            Found::new(at(c, "allowPrivilegeEscalation"), reason)
        })
        .collect()
}

/// `runAsNonRoot`: every container runs as non-root, by its own
/// `runAsNonRoot: true` or, where it sets none, the pod's; `false` anywhere
/// is forbidden. A pod in its own user namespace (`hostUsers: false`) is
/// exempt (v1.35).
pub(super) fn run_as_non_root(pod: &Pod<'_>) -> Vec<Found> {
    if pod.in_user_namespace() {
        return Vec::new();
    }
    let mut found = Vec::new();
    let pod_says = pod.security().and_then(|s| s.run_as_non_root);
    if pod_says == Some(false) {
        found.push(Found::new("securityContext.runAsNonRoot", "pod sets runAsNonRoot=false"));
    }
    for c in &pod.containers {
        let reason = match c.security.and_then(|s| s.run_as_non_root) {
            Some(false) => format!("container {} sets runAsNonRoot=false", quoted(c.name)),
            None if pod_says != Some(true) => {
                format!("pod or container {} must set runAsNonRoot=true", quoted(c.name))
            }
            _ => continue,
        };
        found.push(Found::new(at(c, "runAsNonRoot"), reason));
    }
    found
}

/// `runAsUser`: neither the pod nor a container sets `runAsUser: 0` (root);
/// unset is allowed, `runAsNonRoot` covers it. A pod in its own user
/// namespace is exempt (v1.35).
pub(super) fn run_as_user(pod: &Pod<'_>) -> Vec<Found> {
    if pod.in_user_namespace() {
        return Vec::new();
    }
    let mut found = Vec::new();
    if pod.security().and_then(|s| s.run_as_user) == Some(0) {
        found.push(Found::new("securityContext.runAsUser", "pod sets runAsUser=0"));
    }
    for c in &pod.containers {
        if c.security.and_then(|s| s.run_as_user) == Some(0) {
            found.push(Found::new(at(c, "runAsUser"), format!("container {} sets runAsUser=0", quoted(c.name))));
        }
    }
    found
}

/// `seccompProfile_restricted`: every container runs under the
/// `RuntimeDefault` or a `Localhost` seccomp profile, set on it or, where it
/// sets none, on the pod; any other value anywhere is forbidden. Windows pods
/// are exempt (v1.25).
pub(super) fn seccomp_profile_restricted(pod: &Pod<'_>) -> Vec<Found> {
    if pod.is_windows() {
        return Vec::new();
    }
    let mut found = seccomp_profile_baseline(pod);
    let pod_set = pod.security().and_then(|s| s.seccomp_profile.as_ref()).is_some_and(|p| seccomp_allowed(&p.type_));
    if !pod_set {
        for c in pod.containers.iter().filter(|c| c.security.and_then(|s| s.seccomp_profile.as_ref()).is_none()) {
            let reason =
                format!("pod or container {} must set a RuntimeDefault or Localhost seccomp profile", quoted(c.name));
            found.push(Found::new(at(c, "seccompProfile.type"), reason));
        }
    }
    found
}

/// `capabilities_restricted`: every container drops `ALL` capabilities and
/// adds back none but NET_BIND_SERVICE. Windows pods are exempt (v1.25).
pub(super) fn capabilities_restricted(pod: &Pod<'_>) -> Vec<Found> {
    if pod.is_windows() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for c in &pod.containers {
        let caps = c.security.and_then(|s| s.capabilities.as_ref());
        let dropped = caps.and_then(|caps| caps.drop.as_deref()).unwrap_or_default();
        if !dropped.iter().any(|d| d == "ALL") {
            let reason = format!("container {} must drop ALL capabilities", quoted(c.name));
            found.push(Found::new(at(c, "capabilities.drop"), reason));
        }
        let added = caps.and_then(|caps| caps.add.as_deref()).unwrap_or_default();
        for (i, cap) in added.iter().enumerate().filter(|(_, cap)| *cap != "NET_BIND_SERVICE") {
            let reason = format!("container {} adds capability {}", quoted(c.name), quoted(cap));
            found.push(Found::new(at(c, &format!("capabilities.add[{i}]")), reason));
        }
    }
    found
}
