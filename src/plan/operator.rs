//! The operator's own permissions (`spec.operator`), and the objects written for either
//! ServiceAccount, the operator's or the installer's.

pub(crate) mod accounts;
pub(crate) mod permissions;
