//! `spec.installer`: the ServiceAccount OLM installs the bundle as (an OLM v0
//! OperatorGroup's `serviceAccountName`, an OLM v1 ClusterExtension's
//! `spec.serviceAccount`), and whether olm-rbac writes its RBAC or checks an
//! existing account's.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::model::{InputObject, ServiceAccountRef};
use crate::names::{is_dns1123_label, is_dns1123_subdomain};

/// The installer account, as written.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct InstallerDoc {
    /// The ServiceAccount OLM installs the bundle as. Its namespace is the install namespace.
    pub service_account: AccountDoc,
    /// Which OLM installs with it: `OLMv0` (an OperatorGroup's `serviceAccountName`) or `OLMv1`
    /// (a ClusterExtension's `spec.serviceAccount`, in releases that still honour it).
    #[serde(rename = "for")]
    pub olm: Olm,
    /// `Generate` (default): write the ServiceAccount, its Roles, ClusterRole and bindings, holding
    /// exactly what installing and upgrading the bundle needs. `Check`: the account's RBAC is in the
    /// input; report every permission it lacks.
    #[serde(default)]
    pub mode: InstallerMode,
    /// The ClusterServiceVersion (`metadata.name`) of the version installed now, when the input is an
    /// upgrade from it: its bundle folder is read beside the new one (`render old-bundle/ new-bundle/`),
    /// only to add what updating and deleting its objects takes. See docs/installer-account.md, "During
    /// an upgrade".
    #[serde(default)]
    pub upgrade_from: Option<String>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AccountDoc {
    pub name: String,
    pub namespace: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum Olm {
    #[serde(rename = "OLMv0")]
    V0,
    #[serde(rename = "OLMv1")]
    V1,
}

impl Olm {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Olm::V0 => "OLMv0",
            Olm::V1 => "OLMv1",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub(crate) enum InstallerMode {
    #[default]
    Generate,
    Check,
}

/// `spec.installer`, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Installer {
    /// The ServiceAccount; its namespace is the install namespace.
    pub account: ServiceAccountRef,
    pub olm: Olm,
    pub mode: InstallerMode,
    /// `upgradeFrom`: the previous version's CSV name.
    pub upgrade_from: Option<String>,
    /// The previous version's objects, which the runner takes out of the
    /// input (they are not installed, and nothing else is planned from them).
    pub previous: Previous,
}

/// The objects of the version an upgrade replaces, in input order: read only
/// for what updating and deleting them takes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Previous(pub Vec<InputObject>);

/// Two readings of one config hold the same previous objects when they name
/// the same objects.
impl PartialEq for Previous {
    fn eq(&self, other: &Previous) -> bool {
        self.0.len() == other.0.len() && self.0.iter().zip(&other.0).all(|(a, b)| a.object_ref() == b.object_ref())
    }
}

impl Eq for Previous {}

impl Installer {
    /// The account as messages name it: `installer ServiceAccount NS/NAME`.
    pub(crate) fn describe(&self) -> String {
        format!("installer {}", self.account)
    }

    /// Hands over the previous version's objects (see [`Previous`]).
    pub(crate) fn set_previous(&mut self, objects: Vec<InputObject>) {
        self.previous = Previous(objects);
    }
}

/// Checks `spec.installer`; its namespace must be the operator's install
/// namespace when both are given (OLM runs the installer where it installs).
pub(super) fn check_installer(
    doc: Option<InstallerDoc>,
    install_namespace: Option<&str>,
    err: &mut impl FnMut(&str, String),
) -> Option<Installer> {
    let doc = doc?;
    let account = &doc.service_account;
    let mut ok = true;
    if !is_dns1123_subdomain(&account.name) {
        err("spec.installer.serviceAccount.name", format!("{:?} is not a valid ServiceAccount name", account.name));
        ok = false;
    }
    if !is_dns1123_label(&account.namespace) {
        err(
            "spec.installer.serviceAccount.namespace",
            format!("{:?} is not a valid namespace name (a DNS-1123 label)", account.namespace),
        );
        ok = false;
    }
    if let Some(from) = doc.upgrade_from.as_ref().filter(|n| !is_dns1123_subdomain(n)) {
        err("spec.installer.upgradeFrom", format!("{from:?} is not a valid ClusterServiceVersion name"));
        ok = false;
    }
    if let Some(ns) = install_namespace.filter(|ns| *ns != account.namespace) {
        err(
            "spec.installer.serviceAccount.namespace",
            format!(
                "is {:?}, but spec.operator.installNamespace is {ns:?}: OLM runs the installer in the namespace it installs into",
                account.namespace
            ),
        );
        ok = false;
    }
    ok.then(|| Installer {
        account: ServiceAccountRef::new(&account.namespace, &account.name),
        olm: doc.olm,
        mode: doc.mode,
        upgrade_from: doc.upgrade_from.clone(),
        previous: Previous::default(),
    })
}
