//! What kind of result a finding is: one code per kind, not per message. The
//! code is what stays stable while a message's wording improves: SARIF files
//! each result under its code's rule, the KRM function tags each result with
//! it (`olm-rbac.io/code`), and tests assert on it where the wording is not
//! itself what they check. docs/runners.md lists every code, checked by a
//! test below so that it cannot drift.

/// Declares [`Code`] and, from the same list, [`Code::ALL`], [`Code::id`]
/// and [`Code::describe`]: a code cannot be left out of any of them.
macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident = $id:literal, $describe:literal;)*) => {
        /// The kind of a result; see the module's documentation.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub(crate) enum Code {
            $($(#[$doc])* $variant,)*
        }

        impl Code {
            /// Every code, in the order docs/runners.md and SARIF's rule table list them.
            pub(crate) const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The stable kebab-case id: SARIF's `ruleId`, the KRM result's tag.
            pub(crate) const fn id(self) -> &'static str {
                match self {
                    $(Code::$variant => $id,)*
                }
            }

            /// One line on what results of this code report: SARIF's rule description.
            pub(crate) const fn describe(self) -> &'static str {
                match self {
                    $(Code::$variant => $describe,)*
                }
            }
        }
    };
}

codes! {
    // Reading the input.
    InputUnreadable = "input-unreadable",
        "a file given as input, or a bundle's metadata/annotations.yaml, cannot be read";
    YamlInvalid = "yaml-invalid",
        "a document is not YAML olm-rbac can read";
    YamlMergeAmbiguous = "yaml-merge-ambiguous",
        "a YAML merge key that readers apply differently, in a part of an object olm-rbac does not read";
    ResourceListInvalid = "resource-list-invalid",
        "the KRM function's input is not one ResourceList it can read";
    NotAnObject = "not-an-object",
        "a document is not one Kubernetes object: it lacks apiVersion or kind, or holds a list of objects";
    ObjectInvalid = "object-invalid",
        "a field of an object holds a value olm-rbac cannot read, or the object's name is not valid";
    ApiVersionInvalid = "api-version-invalid",
        "an object's apiVersion is not one the API server (or OLM) serves its kind as";
    BundleKindUnsupported = "bundle-kind-unsupported",
        "the bundle holds an object of a kind registry+v1 bundles may not hold: OLM refuses the bundle";
    BundlePlacement = "bundle-placement",
        "with bundleObjects: Keep, a bundle object would land in another namespace than the one OLM places it in";
    Uninstallable = "uninstallable",
        "OLM v1 refuses to install the bundle (operator-controller v1.11.0's rules, or a CRD no API server creates since Kubernetes 1.22): no verdict on its RBAC makes it installable";
    InputDuplicate = "input-duplicate",
        "the input holds the same object twice";
    BuiltinReconciled = "builtin-reconciled",
        "a role or binding named like one of Kubernetes' own is read as the cluster holds it, not as written";
    InputRead = "input-read",
        "how the input was read: a bundle's layout, a previous version's bundle, a name taken from the bundle";
    RoleUnheld = "role-unheld",
        "an access check's rendered input binds a role it does not hold (a bundle's role OLM installs, left out under bundleObjects: Drop): the cluster's answer may differ";
    GrantUnheld = "grant-unheld",
        "an access check's input holds a ClusterServiceVersion whose permissions OLM grants its ServiceAccounts at install, and no binding of them: the cluster's answer may differ";

    // The admin's configuration.
    ConfigMissing = "config-missing",
        "no RBACConfig was given";
    ConfigInvalid = "config-invalid",
        "the RBACConfig (or the function's ConfigMap) holds a value olm-rbac refuses";
    ConfigMisplaced = "config-misplaced",
        "an RBACConfig comes from where olm-rbac takes no configuration: among the inputs with --config, or a bundle's folder";
    ConfigsOverlap = "configs-overlap",
        "two configs claim the same extension, API, object or labels";

    // The bundle's ClusterServiceVersion and APIs.
    CsvMissing = "csv-missing",
        "what the config asks for needs a ClusterServiceVersion the input does not hold";
    CsvAmbiguous = "csv-ambiguous",
        "the input holds several ClusterServiceVersions where olm-rbac must judge exactly one";
    CsvInvalid = "csv-invalid",
        "a ClusterServiceVersion's field is missing or not valid: an owned API, a ServiceAccount name, a rule";
    CrdInvalid = "crd-invalid",
        "a CustomResourceDefinition's field is missing or not valid";
    NamingVersion = "naming-version",
        "naming: OLMv0 names roles by an API's version, and it has no valid one";
    NoApis = "no-apis",
        "the input holds no API to grant access to";
    SelectorUnmatched = "selector-unmatched",
        "an API pattern or a namespace selector of the config matches nothing in the input";
    ApiUndefined = "api-undefined",
        "an API the bundle owns has no definition in the input that olm-rbac can vouch for";
    ApiGroupReserved = "api-group-reserved",
        "an API or APIService of a group that is Kubernetes', OpenShift's or OLM's, not the bundle's";
    ReservedRoleName = "reserved-role-name",
        "a role or binding of the bundle uses the name of one of Kubernetes' built-in ones";
    ClaimIgnored = "claim-ignored",
        "an object claims to be olm-rbac's output, and the claim is not believed";
    OriginUnknown = "origin-unknown",
        "the input does not say which file objects came from, so the bundle's cannot be told apart";
    OriginUntrusted = "origin-untrusted",
        "an object the admin must supply is not known to come from the admin's own files";
    NamespacePlatform = "namespace-platform",
        "a selector selects one of the platform's namespaces: default, or one whose name starts with kube- or openshift-";

    // What olm-rbac writes.
    Summary = "summary",
        "what olm-rbac generated or decided for an extension, or why it generated nothing";
    Removed = "removed",
        "objects left out of the output: olm-rbac's earlier output it no longer writes, or the bundle's dropped ones";
    OutputConflict = "output-conflict",
        "an object olm-rbac would generate is already in the input";
    OutputFailed = "output-failed",
        "the output could not be written";
    Reserialised = "reserialised",
        "an item was written anew, so its comments and layout are lost";

    // The bundle's own roles and their labels.
    BundleRoles = "bundle-roles",
        "which of the bundle's own roles olm-rbac uses for an API, and which not";
    LabelsChanged = "labels-changed",
        "olm-rbac removed, or put back, the aggregation labels of a bundle role";
    LabelRecordIgnored = "label-record-ignored",
        "the record of olm-rbac's label changes on a bundle role holds entries it cannot honour";
    BundleAggregation = "bundle-aggregation",
        "a bundle ClusterRole's aggregation labels grant the bundle's APIs through the built-in roles, beyond what the mode grants";
    AggregationBeyond = "aggregation-beyond",
        "a bundle ClusterRole that a role aggregates gives whoever holds that role more than its level on the bundle's own APIs";
    BundleUnchangeable = "bundle-unchangeable",
        "a setting cannot change the bundle's objects, which OLM installs as the bundle has them";

    // Who is granted the APIs.
    BindingPartial = "binding-partial",
        "bound subjects get less than the config seems to ask: no bindings, no view-crdview, a cluster-scoped API in a namespace";
    BindingEveryone = "binding-everyone",
        "a binding's group subject means every user or every ServiceAccount";
    OlmApisInstall = "olm-apis-install",
        "olmAPIs: Edit lets its subjects install operators from the cluster's catalogs";

    // The operator's own permissions.
    InstallModeUnsupported = "install-mode-unsupported",
        "the operator's chosen permissions need an install mode its ClusterServiceVersion does not support";
    WatchNamespace = "watch-namespace",
        "which namespaces the operator must watch, and how to tell it";
    DefaultAccount = "default-account",
        "the operator's permissions go to its namespace's default ServiceAccount, and so to every pod there";

    // The install gate: what the install grants, measured.
    PolicyNotAllowed = "policy-not-allowed",
        "the install grants what spec.operator.policy.allow does not cover";
    PolicyDenied = "policy-denied",
        "the install grants what an entry of spec.operator.policy.deny forbids";
    OperatorReachable = "operator-reachable",
        "subjects the input binds in the install namespace may run pods as the operator's ServiceAccount, and so hold its dangerous grants";
    PolicyEntryUnknown = "policy-entry-unknown",
        "an entry of spec.operator.policy names a verb, API group or resource the cluster does not have, so that part of it matches nothing";
    PodSecurity = "pod-security",
        "a pod the install creates fails a check of the Pod Security Standards level it is held to";
    Interception = "interception",
        "a Service of the install takes traffic meant for others: externalIPs, or an ExternalName inside the cluster";
    BeyondNamespaces = "beyond-namespaces",
        "a bundle binding grants the operator's account beyond the namespaces spec.operator chose";
    AccountUnjudged = "account-unjudged",
        "pods may act as a ServiceAccount that no permission of the ClusterServiceVersion names";
    SubjectForeign = "subject-foreign",
        "a bundle binding grants a subject other than the operator's own ServiceAccounts";
    BundleRoleForeign = "bundle-role-foreign",
        "a bundle binding refers to a role the bundle does not ship";
    Unmeasurable = "unmeasurable",
        "what a bundle object grants or takes depends on the cluster, so olm-rbac cannot measure it";
    CeilingInvalid = "ceiling-invalid",
        "spec.operator.policy.allowClusterRole names a ClusterRole that cannot serve as a ceiling";

    // Dangerous grants: one code per entry of the catalogue of dangerous
    // permissions (`access::danger`, its `id` after `danger-`), so that SARIF
    // files each kind under its own rule and a user can accept one kind alone.
    DangerWildcard = "danger-wildcard",
        "the install grants what the catalogue of dangerous permissions calls \"wildcard verbs or resources\"";
    DangerReadSecrets = "danger-read-secrets",
        "the install grants what the catalogue of dangerous permissions calls \"read secrets cluster-wide\"";
    DangerWriteSecrets = "danger-write-secrets",
        "the install grants what the catalogue of dangerous permissions calls \"write secrets cluster-wide\"";
    DangerCreateWorkloads = "danger-create-workloads",
        "the install grants what the catalogue of dangerous permissions calls \"create workloads cluster-wide\"";
    DangerExecPods = "danger-exec-pods",
        "the install grants what the catalogue of dangerous permissions calls \"exec, attach or port-forward into pods\"";
    DangerEphemeralContainers = "danger-ephemeral-containers",
        "the install grants what the catalogue of dangerous permissions calls \"add ephemeral containers to pods\"";
    DangerPersistentVolumes = "danger-persistent-volumes",
        "the install grants what the catalogue of dangerous permissions calls \"create persistent volumes\"";
    DangerNodesProxy = "danger-nodes-proxy",
        "the install grants what the catalogue of dangerous permissions calls \"nodes/proxy\"";
    DangerEscalate = "danger-escalate",
        "the install grants what the catalogue of dangerous permissions calls \"escalate on roles\"";
    DangerBind = "danger-bind",
        "the install grants what the catalogue of dangerous permissions calls \"bind roles\"";
    DangerWriteClusterRbac = "danger-write-cluster-rbac",
        "the install grants what the catalogue of dangerous permissions calls \"write cluster roles or their bindings\"";
    DangerImpersonate = "danger-impersonate",
        "the install grants what the catalogue of dangerous permissions calls \"impersonate\"";
    DangerServiceAccountTokens = "danger-service-account-tokens",
        "the install grants what the catalogue of dangerous permissions calls \"request service account tokens\"";
    DangerCertificates = "danger-certificates",
        "the install grants what the catalogue of dangerous permissions calls \"approve or sign certificates\"";
    DangerAdmissionWebhooks = "danger-admission-webhooks",
        "the install grants what the catalogue of dangerous permissions calls \"write admission webhooks\"";
    DangerMutatingPolicies = "danger-mutating-policies",
        "the install grants what the catalogue of dangerous permissions calls \"write mutating admission policies\"";
    DangerValidatingPolicies = "danger-validating-policies",
        "the install grants what the catalogue of dangerous permissions calls \"write validating admission policies\"";
    DangerApiServices = "danger-api-services",
        "the install grants what the catalogue of dangerous permissions calls \"write API services\"";
    DangerCrds = "danger-crds",
        "the install grants what the catalogue of dangerous permissions calls \"write custom resource definitions\"";
    DangerInstallOperators = "danger-install-operators",
        "the install grants what the catalogue of dangerous permissions calls \"install operators\"";
    DangerOperatorCatalogs = "danger-operator-catalogs",
        "the install grants what the catalogue of dangerous permissions calls \"write operator catalogs or groups\"";
    DangerGitopsDeploy = "danger-gitops-deploy",
        "the install grants what the catalogue of dangerous permissions calls \"deploy through a GitOps controller\"";
    DangerPolicyEngines = "danger-policy-engines",
        "the install grants what the catalogue of dangerous permissions calls \"write policy-engine policies\"";
    DangerGitopsSources = "danger-gitops-sources",
        "the install grants what the catalogue of dangerous permissions calls \"change GitOps sources\"";
    DangerInterceptTraffic = "danger-intercept-traffic",
        "the install grants what the catalogue of dangerous permissions calls \"intercept service traffic\"";
    DangerModifyNamespaces = "danger-modify-namespaces",
        "the install grants what the catalogue of dangerous permissions calls \"modify namespaces\"";

    // The installer account.
    InstallerLacks = "installer-lacks",
        "the installer account lacks what installing the bundle takes";
    InstallerDangerous = "installer-dangerous",
        "installing the bundle takes a permission the catalogue of dangerous permissions marks";
    InstallerNeedsForeignRole = "installer-needs-foreign-role",
        "the bundle binds a role it does not ship, so the installer would have to hold whatever that grants";

    // Whether the cluster installs what was judged (OLM v1).
    AdmissionPolicyBlocked = "admission-policy-blocked",
        "the admission policy that pins the extension cannot be written";
    PinPackage = "pin-package",
        "the ClusterExtension's package is missing, or not the package judged here";
    PinVersion = "pin-version",
        "the ClusterExtension's version is not pinned to the one judged here";
    PinCatalog = "pin-catalog",
        "the ClusterExtension does not take the bundle from one named catalog whose content cannot change";
    PinUpgrades = "pin-upgrades",
        "the ClusterExtension lets upgrades pass the catalog's upgrade edges or the CRD safety checks";
    PinInstall = "pin-install",
        "the ClusterExtension installs the bundle otherwise than judged: in another namespace, or with a configuration of its own";
    ServiceAccountIgnored = "service-account-ignored",
        "the ClusterExtension names a ServiceAccount, which OLM v1 no longer reads";

    // Delegated installs.
    DelegationUnjudged = "delegation-unjudged",
        "a delegation lets a team install versions of a package that were not judged";
    DelegationContradictsPin = "delegation-contradicts-pin",
        "a delegation lets a team install what the pin's admission policy refuses: another namespace, version, catalog or watch namespace of the pinned package";

    // olm-rbac catalog filter: why a bundle is left out of the judged catalog.
    CatalogBundleFails = "catalog-bundle-fails",
        "a catalog's bundle fails the install policy, and the judged catalog leaves it out";
    CatalogBundleUninstallable = "catalog-bundle-uninstallable",
        "OLM v1 refuses a catalog's bundle whatever its RBAC, and the judged catalog leaves it out";
    CatalogBundleUnjudged = "catalog-bundle-unjudged",
        "a catalog's bundle cannot be judged (no manifests, or not the bundle's), and the judged catalog leaves it out";
    CatalogBundleTagImage = "catalog-bundle-tag-image",
        "a catalog's bundle image is named by tag, so no verdict binds it, and the judged catalog leaves it out";
    CatalogEdgeRewired = "catalog-edge-rewired",
        "an upgrade edge that ran through left-out bundles now joins the bundles kept";
    CatalogPackageLeftOut = "catalog-package-left-out",
        "a package cannot be served as opm and OLM v1 expect with only its passing bundles (its default channel keeps none, or a channel opm would refuse), and the judged catalog leaves it out whole";

    // olm-rbac diff.
    AccessGained = "access-gained",
        "a subject gains access between two renders (olm-rbac diff)";
}

impl Code {
    /// The code of a grant the catalogue of dangerous permissions marks: the
    /// one its entry's id names (`danger-<id>`). Every entry has one
    /// (`tests::every_danger_has_its_code`).
    pub(crate) fn of_danger(danger: &crate::access::danger::Danger) -> Code {
        let id = danger.id;
        Code::ALL.iter().copied().find(|c| c.id().strip_prefix("danger-") == Some(id)).unwrap_or(Code::DangerWildcard)
    }

    /// Whether a result of this code says OLM refuses the bundle, whatever
    /// its RBAC: the verdict is then `uninstallable`, never `fail`.
    pub(crate) fn refuses_install(self) -> bool {
        matches!(self, Code::Uninstallable | Code::BundleKindUnsupported)
    }

    /// Whether the code is one of the catalogue's dangerous grants.
    #[cfg(test)]
    pub(crate) fn is_danger(self) -> bool {
        self.id().starts_with("danger-")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn ids_are_unique_kebab_case_and_every_code_is_listed_once() {
        let mut seen = BTreeSet::new();
        for (i, code) in Code::ALL.iter().enumerate() {
            // In declaration order, each once: ALL holds every variant.
            assert_eq!(*code as usize, i, "{code:?} is out of place in Code::ALL");
            let id = code.id();
            assert!(seen.insert(id), "{id} is the id of two codes");
            let kebab =
                !id.is_empty() && id.split('-').all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase()));
            assert!(kebab, "{id:?} is not kebab-case");
            let text = code.describe();
            assert!(!text.is_empty() && !text.contains('\n') && !text.ends_with('.'), "{id}: {text:?}");
        }
    }

    #[test]
    fn every_danger_has_its_code_and_every_danger_code_its_entry() {
        let catalogue = crate::access::danger::catalogue();
        for danger in catalogue {
            let code = Code::of_danger(danger);
            assert_eq!(code.id(), format!("danger-{}", danger.id), "{}", danger.what);
            assert!(code.describe().contains(&format!("{:?}", danger.what)), "{}", code.describe());
        }
        let danger_codes = Code::ALL.iter().filter(|c| c.is_danger()).count();
        assert_eq!(danger_codes, catalogue.len(), "one code per entry, no more");
    }

    /// The table of codes in docs/runners.md, as the doc must hold it.
    fn table() -> String {
        let mut out = String::from("| Code | What it reports |\n| --- | --- |\n");
        for code in Code::ALL {
            out.push_str(&format!("| `{}` | {} |\n", code.id(), code.describe()));
        }
        out
    }

    #[test]
    fn the_doc_lists_every_code() {
        let doc = include_str!("../../docs/runners.md");
        let (begin, end) = ("<!-- codes: begin -->\n", "<!-- codes: end -->");
        let listed = doc
            .split_once(begin)
            .and_then(|(_, rest)| rest.split_once(end))
            .map(|(table, _)| table.trim_matches('\n').to_string() + "\n");
        assert_eq!(
            listed.as_deref(),
            Some(table().as_str()),
            "docs/runners.md must list the codes between {begin:?} and {end:?} as:\n\n{}",
            table()
        );
    }
}
