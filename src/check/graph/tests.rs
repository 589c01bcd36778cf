use super::{dot, mermaid, shared, wrap};
use crate::check::matrix::access_text;

#[test]
fn mermaid_labels_keep_only_plain_characters() {
    let hostile = "a\"]\n--> x%%`<script>click";
    let escaped = mermaid::escape(hostile);
    assert_eq!(escaped, "a#34;#93;#10;--#62; x#37;#37;#96;#60;script#62;click");
}

#[test]
fn dot_strings_escape_quotes_backslashes_and_entities() {
    assert_eq!(dot::escape("a\"b\\N&c\nd…"), "a\\\"b\\\\N&amp;c&#10;d&#8230;");
}

#[test]
fn shared_names_are_cut_at_a_separator() {
    let names = ["argocd-applications.argoproj.io-edit", "argocd-appprojects.argoproj.io-edit"];
    assert_eq!(shared(&names).as_deref(), Some("argocd-….argoproj.io-edit"));
    assert_eq!(shared(&["abc", "abd"]), None);
}

#[test]
fn items_wrap_at_about_the_width() {
    assert_eq!(wrap(&["aaaa", "bbbb", "cccc"], 10), vec!["aaaa, bbbb,".to_string(), "cccc".to_string()]);
}

#[test]
fn access_is_written_as_whole_levels_and_other_verbs() {
    assert_eq!(
        access_text(&["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"]),
        "admin"
    );
    assert_eq!(access_text(&["get", "list", "watch", "create", "update", "patch", "delete"]), "edit, view");
    assert_eq!(access_text(&["get", "list", "watch", "escalate"]), "view, escalate");
    assert_eq!(access_text(&["*"]), "*");
    assert_eq!(access_text(&["get", "update"]), "get, update");
}
