//! The help texts clap cannot derive: the examples after each command's help,
//! and the usage lines that show every form of a command at once.

pub(super) const EXAMPLES: &str = "\
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

pub(super) const SCHEMA_USAGE: &str = "olm-rbac schema [-q] [rbacconfig|diff-output|catalog|catalog-filter]";

pub(super) const RENDER_USAGE: &str =
    "olm-rbac render [-c <FILE>] [-o yaml|json] [-q] [--sarif <FILE>] [--judged-catalog <PATH> [--bundles <PATH>]... [--platform <OS/ARCH>] [--pull [--image-cache <DIR>] [--tls-verify <BOOL>]] [--progress[=<BOOL>]] [--allow-tag-images]] [-f <PATH>]... [PATH]...";

pub(super) const CAN_I_EXAMPLES: &str = "\
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

  # As the cluster will answer after OLM v1 installs the bundle: the bundle judged with
  # the config, its roles and the operator's grant as OLM installs them
  olm-rbac can-i create guestbooks -n team-a --as bob --as-group team-a-devs -c rbac.yaml -f bundle/
";

pub(super) const WHO_CAN_EXAMPLES: &str = "\
Examples:
  # Who may delete guestbooks in team-a (RoleBindings there, and ClusterRoleBindings)
  olm-rbac who-can delete guestbooks -n team-a -f rendered.yaml

  # ... in any namespace, each answer saying where; as YAML
  olm-rbac who-can delete guestbooks -A -f rendered.yaml -o yaml

  # After OLM v1 installs the bundle judged with the config: the operator's ServiceAccount too
  olm-rbac who-can patch deployments.apps -A -c rbac.yaml -f bundle/
";

/// Both forms of can-i, every optional flag in brackets.
pub(super) const CAN_I_USAGE: &str = "\
olm-rbac can-i <VERB> <RESOURCE> [NAME] [--subresource <SUBRESOURCE>] --as <USER> [--as-group <GROUP>]... [-n <NAMESPACE> | -A] [-f <PATH>]... [-c <FILE>] [--explain] [-q] [--builtin-roles <SET>]
       olm-rbac can-i --list --as <USER> [--as-group <GROUP>]... [-n <NAMESPACE> | -A] [-f <PATH>]... [-c <FILE>] [-o <FORMAT>] [-q] [--builtin-roles <SET>]";

pub(super) const WHO_CAN_USAGE: &str = "\
olm-rbac who-can <VERB> <RESOURCE> [--subresource <SUBRESOURCE>] [-n <NAMESPACE> | -A] [-f <PATH>]... [-c <FILE>] [-o <FORMAT>] [-q] [--builtin-roles <SET>]";

pub(super) const REPORT_USAGE: &str =
    "olm-rbac report [-o <FORMAT>] [-f <PATH>]... [-c <FILE>] [-q] [--builtin-roles <SET>]";

pub(super) const DIFF_USAGE: &str =
    "olm-rbac diff [-c <FILE>] <OLD> <NEW> [-o <FORMAT>] [--fail-on <WHEN>] [-q] [--builtin-roles <SET>]";

pub(super) const DIFF_EXAMPLES: &str = "\
Examples:
  # What an upgrade changes: render both versions with the same config, then compare
  olm-rbac render -c rbac.yaml -q old-bundle/ > old.yaml
  olm-rbac render -c rbac.yaml -q new-bundle/ > new.yaml
  olm-rbac diff old.yaml new.yaml

  # As a pull-request comment; fail the job only on a dangerous gain
  olm-rbac diff old.yaml new.yaml -o markdown --fail-on dangerous > access.md

  # One side on stdin
  olm-rbac render -c rbac.yaml -q new-bundle/ | olm-rbac diff old.yaml -

  # As OLM v1 will grant it: both bundles judged with the config, the operator's
  # permissions counted as OLM grants them even under permissions: Unmanaged
  olm-rbac diff -c rbac.yaml old-bundle/ new-bundle/
";

pub(super) const CAN_INSTALL_USAGE: &str =
    "olm-rbac can-install <EXTENSION> --as <USER> [--as-group <GROUP>]... [--operation create|update|delete] [--explain] [-q] [-f <PATH>]...";

pub(super) const CAN_INSTALL_EXAMPLES: &str = "\
Examples:
  # May a member of team-monitoring install the ClusterExtension in prometheus.yaml?
  olm-rbac render -c examples/delegation/rbac.yaml tests/fixtures/bundles/prometheus-0.56.3 > rendered.yaml
  olm-rbac can-install examples/delegation/prometheus.yaml --as alice --as-group team-monitoring -f rendered.yaml

  # Every policy and binding that took part, and the RBAC grant
  olm-rbac can-install examples/delegation/prometheus.yaml --as alice --as-group team-monitoring -f rendered.yaml --explain
";

pub(super) const CATALOG_JUDGE_EXAMPLES: &str = "\
Examples:
  # Every bundle a ClusterExtension's range admits, judged with the admin's RBACConfig
  olm-rbac catalog judge --catalog examples/catalog/kube-green-catalog.yaml -c examples/catalog/rbac.yaml -f examples/catalog/clusterextension.yaml

  # A catalog without olm.bundle.object, its manifests in bundle folders; as JSON
  olm-rbac catalog judge --catalog tests/fixtures/catalogs/csv-metadata-only/catalog --bundles tests/fixtures/catalogs/csv-metadata-only/bundles -c examples/catalog/rbac.yaml -f examples/catalog/clusterextension.yaml -o json

  # Accept bundle images named by tag (each is still judged and marked tag)
  olm-rbac catalog judge --catalog examples/catalog/kube-green-catalog.yaml -c examples/catalog/rbac.yaml -f examples/catalog/clusterextension.yaml --allow-tag-images
";

pub(super) const CATALOG_AUDIT_EXAMPLES: &str = "\
Examples:
  # Every bundle of every package, worst first, after one line per package
  olm-rbac catalog audit --catalog examples/catalog/kube-green-catalog.yaml

  # Each bundle also judged by a policy, as a Markdown table for a pull request
  olm-rbac catalog audit --catalog examples/catalog/kube-green-catalog.yaml -c examples/catalog/rbac.yaml -o markdown
";

pub(super) const CATALOG_FILTER_EXAMPLES: &str = "\
Examples:
  # The judged catalog: kube-green without the bundle the policy refuses
  olm-rbac catalog filter --catalog examples/catalog/kube-green-catalog.yaml -c examples/catalog/rbac.yaml -o judged-catalog

  # The same, its report for code scanning
  olm-rbac catalog filter --catalog examples/catalog/kube-green-catalog.yaml -c examples/catalog/rbac.yaml -o judged-catalog --report sarif
";
