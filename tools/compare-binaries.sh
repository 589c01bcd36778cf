#!/usr/bin/env bash
# Runs two olm-rbac binaries over every fixture bundle and a set of configs that
# between them use every feature, and reports every case where their stdout,
# stderr or exit code differ. For refactors that must change no behaviour:
#
#   git worktree add /tmp/old <base> && (cd /tmp/old && cargo build --release)
#   cargo build --release
#   tools/compare-binaries.sh /tmp/old/target/release/olm-rbac target/release/olm-rbac
set -uo pipefail
old=$(realpath "${1:?usage: compare-binaries.sh OLD NEW}")
new=$(realpath "${2:?usage: compare-binaries.sh OLD NEW}")
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

config() { # name spec
  printf 'apiVersion: olm-rbac.io/v1alpha1\nkind: RBACConfig\nmetadata:\n  name: %s\nspec:\n%s\n' "$1" "$2"
}
mkdir -p "$work/configs"
specs=(
  "unmanaged|  mode: Unmanaged\n"
  "aggregate|  mode: Aggregate\n"
  "aggregate-olmv0|  mode: Aggregate\n  naming: OLMv0\n  roles: [admin, view]\n"
  "bundleroles-ignore|  mode: Aggregate\n  bundleRoles: Ignore\n"
  "bind|  mode: Bind\n  stripBundleAggregation: true\n  bindings:\n  - role: edit\n    subjects: [{kind: Group, name: devs}, {kind: ServiceAccount, name: ci, namespace: ci}]\n    namespaces: [team-a, team-b]\n  - role: view\n    subjects: [{kind: User, name: alice}]\n  - role: admin\n    subjects: [{kind: Group, name: leads}]\n    namespaceSelector: {matchLabels: {tenant: a}}\n"
  "operator-cluster|  mode: Aggregate\n  operator:\n    permissions: Cluster\n    installNamespace: ops\n"
  "operator-namespaces|  operator:\n    permissions: Namespaces\n    installNamespace: ops\n    targetNamespaces: [team-a]\n    targetNamespaceSelector: {matchLabels: {tenant: a}}\n"
  "policy|  operator:\n    policy:\n      allow:\n      - {apiGroups: [\"\"], resources: [configmaps, events, services], verbs: [\"*\"]}\n      - {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [\"*\"], scope: Namespaces}\n      deny:\n      - {apiGroups: [\"\"], resources: [secrets], verbs: [get, list, watch]}\n"
  "policy-empty|  operator:\n    policy: {}\n"
  "installer-v0|  mode: Aggregate\n  installer:\n    serviceAccount: {name: installer, namespace: ops}\n    for: OLMv0\n"
  "installer-v1|  mode: Bind\n  bindings:\n  - role: view\n    subjects: [{kind: Group, name: all}]\n  installer:\n    serviceAccount: {name: installer, namespace: ops}\n    for: OLMv1\n"
  "installer-check|  installer:\n    serviceAccount: {name: installer, namespace: ops}\n    for: OLMv1\n    mode: Check\n"
  "drop|  mode: Aggregate\n  bundleObjects: Drop\n  apis:\n    exclude: [\"*.io\"]\n"
)
namespaces='apiVersion: v1
kind: Namespace
metadata: {name: team-a, labels: {tenant: a}}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b, labels: {tenant: b}}
'
printf '%s' "$namespaces" > "$work/namespaces.yaml"
cases=0 diffs=0
run_both() { # label, then the command's arguments; stdin from $work/stdin
  local label=$1; shift
  cases=$((cases + 1))
  for side in old new; do
    local bin=$old; [ $side = new ] && bin=$new
    (cd "$work" && "$bin" "$@" < "$work/stdin" > "$work/$side.out" 2> "$work/$side.err"; echo $? > "$work/$side.code")
  done
  if ! cmp -s "$work/old.out" "$work/new.out" || ! cmp -s "$work/old.err" "$work/new.err" || ! cmp -s "$work/old.code" "$work/new.code"; then
    diffs=$((diffs + 1))
    echo "DIFFERS: $label"
    diff <(cat "$work/old.code" "$work/old.err") <(cat "$work/new.code" "$work/new.err") | head -5
  fi
}
: > "$work/stdin"
for bundle in "$repo"/tests/fixtures/bundles/*/; do
  b=$(basename "$bundle")
  for entry in "${specs[@]}"; do
    name=${entry%%|*}
    config "$b" "$(printf "${entry#*|}")" > "$work/configs/$name.yaml"
    run_both "$b/$name render" render --config "configs/$name.yaml" "$bundle" namespaces.yaml
    # The same input as a ResourceList, as kpt sends it.
    "$new" render --config "configs/$name.yaml" "$bundle" namespaces.yaml 2>/dev/null > "$work/rendered.yaml" || true
    { printf 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n'
      sed 's/^/  /' "$work/configs/$name.yaml"
      printf 'items:\n'
      for f in $(find "$bundle/manifests" -name '*.yaml' | sort) "$work/namespaces.yaml"; do
        awk 'BEGIN{first=1} /^---/{first=1; next} { if (first) { print "- " $0; first=0 } else print "  " $0 }' "$f"
      done
    } > "$work/stdin"
    run_both "$b/$name krm"
    [ -n "${VERBOSE:-}" ] && echo "$b/$name: krm exit $(cat "$work/new.code")"
    : > "$work/stdin"
    if [ -s "$work/rendered.yaml" ]; then
      run_both "$b/$name report" report -f rendered.yaml
      run_both "$b/$name report json" report --format json -f rendered.yaml
      run_both "$b/$name can-i list" can-i --list -A --as alice --as-group devs -f rendered.yaml
      run_both "$b/$name who-can" who-can '*' '*' -f rendered.yaml
      run_both "$b/$name can-i" can-i create '*' -n team-a --as system:serviceaccount:ci:ci --explain -f rendered.yaml
    fi
  done
done
echo "$cases cases, $diffs differ"
[ "$diffs" -eq 0 ]
