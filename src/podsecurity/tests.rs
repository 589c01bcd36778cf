use std::path::Path;

use k8s_openapi::api::core::v1::Pod as K8sPod;
use serde_json::{json, Value};

use super::*;

/// Upstream's restricted base pod (its fixtures' `base.yaml`): every check
/// admits it at every level.
fn base() -> Value {
    let hardened = json!({"allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}});
    json!({
        "containers": [{"name": "container1", "image": "registry.k8s.io/pause", "securityContext": hardened}],
        "initContainers": [{"name": "initcontainer1", "image": "registry.k8s.io/pause", "securityContext": hardened}],
        "securityContext": {"runAsNonRoot": true, "seccompProfile": {"type": "RuntimeDefault"}},
    })
}

/// `v` with `value` at the `/`-separated `path`, objects made on the way.
fn set(mut v: Value, path: &str, value: Value) -> Value {
    let mut at = &mut v;
    for key in path.split('/') {
        at = match at {
            Value::Array(items) => &mut items[key.parse::<usize>().unwrap()],
            other => {
                if !other.is_object() {
                    *other = json!({});
                }
                other.as_object_mut().unwrap().entry(key).or_insert(Value::Null)
            }
        };
    }
    *at = value;
    v
}

fn spec(v: &Value) -> PodSpec {
    serde_json::from_value(v.clone()).unwrap()
}

/// The ids of the checks `v` fails at `level`, each once, in order.
fn fails(v: &Value, level: Level) -> Vec<&'static str> {
    let mut ids: Vec<&'static str> = check(None, &spec(v), level).iter().map(|x| x.check).collect();
    ids.dedup();
    ids
}

/// The fields `v` is refused for at `level`.
fn fields(v: &Value, level: Level) -> Vec<String> {
    check(None, &spec(v), level).into_iter().map(|x| x.field).collect()
}

#[test]
fn levels_parse_print_and_order() {
    for level in [Level::Privileged, Level::Baseline, Level::Restricted] {
        assert_eq!(level.as_str().parse::<Level>(), Ok(level));
        assert_eq!(level.to_string(), level.as_str());
    }
    assert!(Level::Privileged < Level::Baseline && Level::Baseline < Level::Restricted);
    assert!("Baseline".parse::<Level>().is_err());
    assert!("".parse::<Level>().is_err());
}

#[test]
fn the_base_pod_passes_everything_and_a_bare_one_only_baseline() {
    assert_eq!(fails(&base(), Level::Restricted), Vec::<&str>::new());
    assert_eq!(level_needed(None, &spec(&base())), Level::Restricted);
    let bare = json!({"containers": [{"name": "c"}]});
    assert_eq!(fails(&bare, Level::Baseline), Vec::<&str>::new());
    assert_eq!(
        fails(&bare, Level::Restricted),
        ["allowPrivilegeEscalation", "capabilities_restricted", "runAsNonRoot", "seccompProfile_restricted"]
    );
    assert_eq!(level_needed(None, &spec(&bare)), Level::Baseline);
    let privileged = set(bare, "containers/0/securityContext/privileged", json!(true));
    assert_eq!(level_needed(None, &spec(&privileged)), Level::Privileged);
    assert!(check(None, &spec(&privileged), Level::Privileged).is_empty());
}

#[test]
fn a_violation_names_its_check_level_field_and_reason() {
    let v = set(base(), "containers/0/securityContext/privileged", json!(true));
    let found = check(None, &spec(&v), Level::Restricted);
    assert_eq!(
        found,
        [Violation {
            check: "privileged",
            level: Level::Baseline,
            field: "containers[0].securityContext.privileged".into(),
            reason: "privileged container \"container1\"".into(),
        }]
    );
}

#[test]
fn windows_host_process_is_forbidden_on_pod_and_containers() {
    let pod = set(base(), "securityContext/windowsOptions/hostProcess", json!(true));
    assert_eq!(fields(&pod, Level::Baseline), ["securityContext.windowsOptions.hostProcess"]);
    let c = set(base(), "initContainers/0/securityContext/windowsOptions/hostProcess", json!(true));
    assert_eq!(fails(&c, Level::Baseline), ["windowsHostProcess"]);
    let off = set(base(), "containers/0/securityContext/windowsOptions/hostProcess", json!(false));
    assert!(fails(&off, Level::Restricted).is_empty());
}

#[test]
fn host_namespaces_are_forbidden() {
    for field in ["hostNetwork", "hostPID", "hostIPC"] {
        assert_eq!(fields(&set(base(), field, json!(true)), Level::Baseline), [field]);
        assert!(fails(&set(base(), field, json!(false)), Level::Restricted).is_empty());
    }
}

#[test]
fn privileged_containers_are_forbidden_ephemeral_ones_too() {
    assert!(fails(&set(base(), "containers/0/securityContext/privileged", json!(false)), Level::Restricted).is_empty());
    let debug = json!([{"name": "debug", "securityContext": {"privileged": true}}]);
    let v = set(base(), "ephemeralContainers", debug);
    assert_eq!(fields(&v, Level::Baseline), ["ephemeralContainers[0].securityContext.privileged"]);
}

#[test]
fn baseline_capabilities_are_the_default_set() {
    let add = |caps: Value| set(base(), "containers/0/securityContext/capabilities/add", caps);
    assert!(fails(&add(json!(["CHOWN", "SYS_CHROOT", "NET_BIND_SERVICE"])), Level::Baseline).is_empty());
    let raw = add(json!(["CHOWN", "NET_RAW"]));
    assert_eq!(fields(&raw, Level::Baseline), ["containers[0].securityContext.capabilities.add[1]"]);
    // Names are matched exactly, as the runtime spells them.
    assert_eq!(fails(&add(json!(["chown"])), Level::Baseline), ["capabilities_baseline"]);
    // Restricted replaces the baseline check with its own.
    assert_eq!(fails(&raw, Level::Restricted), ["capabilities_restricted"]);
}

#[test]
fn restricted_capabilities_drop_all_and_add_only_net_bind_service() {
    let caps = |c: Value| set(base(), "containers/0/securityContext/capabilities", c);
    assert!(fails(&caps(json!({"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]})), Level::Restricted).is_empty());
    let chown = caps(json!({"drop": ["ALL"], "add": ["CHOWN"]}));
    assert!(fails(&chown, Level::Baseline).is_empty());
    assert_eq!(fails(&chown, Level::Restricted), ["capabilities_restricted"]);
    for drop in [json!({"drop": ["NET_RAW"]}), json!({"drop": ["all"]}), json!({})] {
        assert_eq!(fields(&caps(drop), Level::Restricted), ["containers[0].securityContext.capabilities.drop"]);
    }
    let windows = set(caps(json!({})), "os", json!({"name": "windows"}));
    assert!(fails(&windows, Level::Restricted).is_empty());
}

#[test]
fn host_path_volumes_are_forbidden_and_restricted_volumes_replace_the_check() {
    let v = set(base(), "volumes", json!([{"name": "v", "emptyDir": {}}, {"name": "h", "hostPath": {"path": "/"}}]));
    assert_eq!(fields(&v, Level::Baseline), ["volumes[1].hostPath"]);
    assert_eq!(fails(&v, Level::Restricted), ["restrictedVolumes"]);
    assert_eq!(fields(&v, Level::Restricted), ["volumes[1].hostPath"]);
}

#[test]
fn restricted_volumes_are_the_cluster_managed_kinds() {
    for kind in [
        "configMap",
        "csi",
        "downwardAPI",
        "emptyDir",
        "ephemeral",
        "image",
        "persistentVolumeClaim",
        "projected",
        "secret",
    ] {
        let source = match kind {
            "csi" => json!({"driver": "d"}),
            "persistentVolumeClaim" => json!({"claimName": "c"}),
            _ => json!({}),
        };
        let v = set(base(), "volumes", json!([{"name": "v", kind: source}]));
        assert!(fails(&v, Level::Restricted).is_empty(), "{kind}");
    }
    let nfs = set(base(), "volumes", json!([{"name": "n", "nfs": {"server": "s", "path": "/"}}]));
    assert!(fails(&nfs, Level::Baseline).is_empty());
    assert_eq!(fields(&nfs, Level::Restricted), ["volumes[0].nfs"]);
    // No source at all: the API server defaults it to an emptyDir.
    let bare = set(base(), "volumes", json!([{"name": "b"}]));
    assert!(fails(&bare, Level::Restricted).is_empty());
}

#[test]
fn host_ports_are_forbidden_zero_is_none() {
    let ports = |p: Value| set(base(), "containers/0/ports", p);
    assert!(
        fails(&ports(json!([{"containerPort": 80}, {"containerPort": 81, "hostPort": 0}])), Level::Baseline).is_empty()
    );
    let bound = ports(json!([{"containerPort": 80}, {"containerPort": 81, "hostPort": 8081}]));
    assert_eq!(fields(&bound, Level::Baseline), ["containers[0].ports[1].hostPort"]);
}

#[test]
fn probe_and_lifecycle_hosts_are_forbidden() {
    let http = json!({"httpGet": {"port": 80, "host": ""}, "tcpSocket": {"port": 80}});
    let empty = set(base(), "containers/0/livenessProbe", http.clone());
    assert!(fails(&empty, Level::Restricted).is_empty());
    let probe = set(base(), "containers/0/startupProbe", set(http, "httpGet/host", json!("10.0.0.1")));
    assert_eq!(fields(&probe, Level::Baseline), ["containers[0].startupProbe.httpGet.host"]);
    let hook = set(base(), "initContainers/0/lifecycle/preStop/tcpSocket", json!({"port": 80, "host": "example.com"}));
    assert_eq!(fields(&hook, Level::Baseline), ["initContainers[0].lifecycle.preStop.tcpSocket.host"]);
}

#[test]
fn apparmor_profiles_stay_default_or_localhost() {
    for allowed in ["RuntimeDefault", "Localhost"] {
        let v = set(base(), "securityContext/appArmorProfile", json!({"type": allowed, "localhostProfile": "p"}));
        assert!(fails(&v, Level::Restricted).is_empty(), "{allowed}");
    }
    let pod = set(base(), "securityContext/appArmorProfile/type", json!("Unconfined"));
    assert_eq!(fields(&pod, Level::Baseline), ["securityContext.appArmorProfile.type"]);
    let c = set(base(), "containers/0/securityContext/appArmorProfile/type", json!("Unconfined"));
    assert_eq!(fields(&c, Level::Baseline), ["containers[0].securityContext.appArmorProfile.type"]);
}

#[test]
fn apparmor_annotations_stay_default_or_localhost_for_any_container_name() {
    let judge = |key: &str, value: &str| {
        let meta: ObjectMeta = serde_json::from_value(json!({"annotations": {key: value}})).unwrap();
        check(Some(&meta), &spec(&base()), Level::Baseline)
    };
    let key = "container.apparmor.security.beta.kubernetes.io/container1";
    for allowed in ["", "runtime/default", "localhost/custom"] {
        assert!(judge(key, allowed).is_empty(), "{allowed}");
    }
    let found = judge("container.apparmor.security.beta.kubernetes.io/nobody", "unconfined");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].field, "metadata.annotations[\"container.apparmor.security.beta.kubernetes.io/nobody\"]");
    assert!(judge("other.example.com/x", "unconfined").is_empty());
}

#[test]
fn selinux_options_keep_container_types_and_no_user_or_role() {
    let opts = |o: Value| set(base(), "containers/0/securityContext/seLinuxOptions", o);
    for ok in ["", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"] {
        assert!(fails(&opts(json!({"type": ok, "level": "s0:c1,c2"})), Level::Restricted).is_empty(), "{ok}");
    }
    assert_eq!(
        fields(&opts(json!({"type": "spc_t"})), Level::Baseline),
        ["containers[0].securityContext.seLinuxOptions.type"]
    );
    let both = set(base(), "securityContext/seLinuxOptions", json!({"user": "u", "role": "r"}));
    assert_eq!(
        fields(&both, Level::Baseline),
        ["securityContext.seLinuxOptions.user", "securityContext.seLinuxOptions.role"]
    );
    assert!(fails(&opts(json!({"user": "", "role": ""})), Level::Baseline).is_empty());
}

#[test]
fn proc_mount_is_default_unless_baseline_and_a_user_namespace() {
    let mount = |m: &str| set(base(), "containers/0/securityContext/procMount", json!(m));
    assert!(fails(&mount("Default"), Level::Restricted).is_empty());
    assert_eq!(fails(&mount("Unmasked"), Level::Baseline), ["procMount"]);
    assert_eq!(fails(&mount("Unmasked"), Level::Restricted), ["procMount_restricted"]);
    let userns = set(mount("Unmasked"), "hostUsers", json!(false));
    assert!(fails(&userns, Level::Baseline).is_empty());
    assert_eq!(fails(&userns, Level::Restricted), ["procMount_restricted"]);
    assert_eq!(fails(&set(mount("Unmasked"), "hostUsers", json!(true)), Level::Baseline), ["procMount"]);
}

#[test]
fn baseline_seccomp_forbids_unconfined_and_ignores_the_alpha_annotations() {
    let none = set(base(), "securityContext", json!({"runAsNonRoot": true}));
    assert!(fails(&none, Level::Baseline).is_empty());
    let unconfined = set(none.clone(), "containers/0/securityContext/seccompProfile/type", json!("Unconfined"));
    assert_eq!(fields(&unconfined, Level::Baseline), ["containers[0].securityContext.seccompProfile.type"]);
    let meta: ObjectMeta =
        serde_json::from_value(json!({"annotations": {"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}}))
            .unwrap();
    assert!(check(Some(&meta), &spec(&none), Level::Baseline).is_empty());
}

#[test]
fn restricted_seccomp_needs_a_profile_for_every_container() {
    let none = set(base(), "securityContext", json!({"runAsNonRoot": true}));
    assert_eq!(
        fields(&none, Level::Restricted),
        ["initContainers[0].securityContext.seccompProfile.type", "containers[0].securityContext.seccompProfile.type"]
    );
    let each = set(
        set(none.clone(), "containers/0/securityContext/seccompProfile/type", json!("RuntimeDefault")),
        "initContainers/0/securityContext/seccompProfile",
        json!({"type": "Localhost", "localhostProfile": "p.json"}),
    );
    assert!(fails(&each, Level::Restricted).is_empty());
    let pod_unconfined = set(each.clone(), "securityContext/seccompProfile/type", json!("Unconfined"));
    assert_eq!(fields(&pod_unconfined, Level::Restricted), ["securityContext.seccompProfile.type"]);
    let overridden = set(base(), "containers/0/securityContext/seccompProfile/type", json!("Unconfined"));
    assert_eq!(fails(&overridden, Level::Restricted), ["seccompProfile_restricted"]);
    assert!(fails(&set(none, "os", json!({"name": "windows"})), Level::Restricted).is_empty());
}

#[test]
fn sysctls_are_the_safe_set() {
    for name in checks::SAFE_SYSCTLS {
        let v = set(base(), "securityContext/sysctls", json!([{"name": name, "value": "1"}]));
        assert!(fails(&v, Level::Restricted).is_empty(), "{name}");
    }
    let v = set(
        base(),
        "securityContext/sysctls",
        json!([{"name": "net.ipv4.tcp_rmem", "value": "1"}, {"name": "kernel.msgmax", "value": "1"}]),
    );
    assert_eq!(fields(&v, Level::Baseline), ["securityContext.sysctls[1].name"]);
}

#[test]
fn privilege_escalation_is_off_in_every_container_but_on_windows() {
    for value in [json!(null), json!(true)] {
        let v = set(base(), "initContainers/0/securityContext/allowPrivilegeEscalation", value);
        assert_eq!(fields(&v, Level::Restricted), ["initContainers[0].securityContext.allowPrivilegeEscalation"]);
        assert!(fails(&v, Level::Baseline).is_empty());
        assert!(fails(&set(v, "os", json!({"name": "windows"})), Level::Restricted).is_empty());
    }
}

#[test]
fn run_as_non_root_holds_for_every_container_unless_in_a_user_namespace() {
    let c = "containers/0/securityContext/runAsNonRoot";
    assert_eq!(
        fields(&set(base(), c, json!(false)), Level::Restricted),
        ["containers[0].securityContext.runAsNonRoot"]
    );
    let unset = set(base(), "securityContext/runAsNonRoot", json!(null));
    assert_eq!(fails(&unset, Level::Restricted), ["runAsNonRoot"]);
    let each = set(set(unset.clone(), c, json!(true)), "initContainers/0/securityContext/runAsNonRoot", json!(true));
    assert!(fails(&each, Level::Restricted).is_empty());
    let pod_false = set(each, "securityContext/runAsNonRoot", json!(false));
    assert_eq!(fields(&pod_false, Level::Restricted), ["securityContext.runAsNonRoot"]);
    assert!(fails(&set(pod_false.clone(), "hostUsers", json!(false)), Level::Restricted).is_empty());
    // Windows pods are not exempt from this one.
    assert_eq!(fails(&set(pod_false, "os", json!({"name": "windows"})), Level::Restricted), ["runAsNonRoot"]);
}

#[test]
fn run_as_user_is_never_root_unless_in_a_user_namespace() {
    assert!(fails(&set(base(), "securityContext/runAsUser", json!(1000)), Level::Restricted).is_empty());
    let root = set(base(), "securityContext/runAsUser", json!(0));
    assert_eq!(fields(&root, Level::Restricted), ["securityContext.runAsUser"]);
    assert!(fails(&root, Level::Baseline).is_empty());
    assert!(fails(&set(root, "hostUsers", json!(false)), Level::Restricted).is_empty());
    let c = set(base(), "ephemeralContainers", json!([{"name": "e", "securityContext": {"runAsUser": 0}}]));
    assert!(fields(&c, Level::Restricted).contains(&"ephemeralContainers[0].securityContext.runAsUser".to_string()));
}

#[test]
fn checks_report_in_upstream_order() {
    let ids: Vec<&str> = CHECKS.iter().map(|c| c.id).collect();
    let baseline: Vec<&str> = CHECKS.iter().filter(|c| c.level == Level::Baseline).map(|c| c.id).collect();
    let mut sorted = baseline.clone();
    sorted.sort_unstable();
    assert_eq!(baseline, sorted);
    assert_eq!(&ids[..baseline.len()], baseline.as_slice());
    let restricted = &ids[baseline.len()..];
    assert!(restricted.windows(2).all(|w| w[0] < w[1]));
    // Every override names a baseline check.
    for id in CHECKS.iter().filter_map(|c| c.overrides) {
        assert!(CHECKS.iter().any(|c| c.id == id && c.level == Level::Baseline), "{id}");
    }
}

/// The check a fixture's file name is for (`capabilities_restricted1.yaml`),
/// as it runs at `level`: under restricted, an overridden baseline check's
/// fixture fails the restricted check that replaces it. `None` for the base
/// pods; unknown names fail the test.
fn fixture_check(file: &str, level: Level) -> Option<&'static str> {
    let stem = file.strip_suffix(".yaml").unwrap().trim_end_matches(|c: char| c.is_ascii_digit());
    if stem.starts_with("base") {
        return None;
    }
    let named = CHECKS.iter().find(|c| c.id.eq_ignore_ascii_case(stem)).unwrap_or_else(|| panic!("{file}: no check"));
    let replacing = CHECKS.iter().find(|c| c.level <= level && c.overrides == Some(named.id));
    Some(replacing.map_or(named.id, |c| c.id))
}

#[test]
fn kubernetes_fixtures_pass_and_fail_as_upstream_has_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/podsecurity");
    let mut counts = Vec::new();
    for level in [Level::Baseline, Level::Restricted] {
        for outcome in ["pass", "fail"] {
            let dir = root.join(level.as_str()).join(outcome);
            let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
            files.sort();
            let mut named = 0;
            for path in &files {
                let file = path.file_name().unwrap().to_str().unwrap();
                let value: Value = serde_saphyr::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
                let pod: K8sPod = serde_json::from_value(value).unwrap();
                let found = check(Some(&pod.metadata), pod.spec.as_ref().unwrap(), level);
                let ids: Vec<&str> = found.iter().map(|v| v.check).collect();
                if outcome == "pass" {
                    assert!(found.is_empty(), "{level}/{outcome}/{file}: {found:?}");
                } else {
                    assert!(!found.is_empty(), "{level}/{outcome}/{file}: admitted");
                    if let Some(id) = fixture_check(file, level) {
                        assert!(ids.contains(&id), "{level}/{outcome}/{file}: wants {id}, got {ids:?}");
                        named += 1;
                    }
                }
            }
            assert!(!files.is_empty(), "{}", dir.display());
            counts.push(format!("{level}/{outcome}: {} fixtures ({named} by their check)", files.len()));
        }
    }
    println!("{}", counts.join("\n"));
}
