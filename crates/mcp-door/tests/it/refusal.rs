//! The refusal rule (HIP-0300 §1.4) on names, and its `_meta` count.

use mcp_door::{DoorConfig, Projection, ProjectionConfig, Refusal, RefusalRule};
use serde_json::json;

#[test]
fn withholds_secrets_and_identity_mutations() {
    let rule = RefusalRule::default();
    let cases = [
        ("get_api_key", Some(Refusal::Secret)),
        ("rotate_secret", Some(Refusal::Secret)),
        ("create_or_update_repo_secret", Some(Refusal::Secret)),
        ("list_org_secrets", Some(Refusal::Secret)),
        ("reset_password", Some(Refusal::Secret)),
        ("update_user_role", Some(Refusal::Identity)),
        ("delete_member", Some(Refusal::Identity)),
        ("set_membership_for_user", Some(Refusal::Identity)),
        ("create_or_update_policies", Some(Refusal::Identity)),
        ("get_role", None),
        ("get_token_usage", None),
        ("list_members", None),
        ("get_secret_scanning_alert", None),
        ("create_repo_for_authenticated_user", None),
        ("list_public_keys_for_user", None),
        ("deploy_project", None),
    ];
    for (name, want) in cases {
        assert_eq!(rule.check(name), want, "{name}");
    }
}

#[test]
fn the_rule_is_configurable() {
    let mut rule = RefusalRule::default();
    rule.identity_nouns.retain(|n| n != "member");
    assert_eq!(rule.check("delete_member"), None);
    rule.secret_nouns.push("invoice".into());
    assert_eq!(rule.check("get_invoice"), Some(Refusal::Secret));
    assert_eq!(RefusalRule::disabled().check("get_api_key"), None);
}

const DOC: &str = r#"
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /keys/{id}: {get: {operationId: getApiKey, tags: [keys]}}
  /secrets/{id}/rotate: {post: {operationId: rotateSecret, tags: [secrets]}}
  /repos/{r}/secrets/{n}: {put: {operationId: createOrUpdateRepoSecret, tags: [repos]}}
  /users/{u}/role: {patch: {operationId: updateUserRole, tags: [users]}}
  /members/{m}: {delete: {operationId: deleteMember, tags: [members]}, get: {operationId: getMember, tags: [members]}}
  /users/{u}/membership: {put: {operationId: setMembershipForUser, tags: [users]}}
  /roles/{r}: {get: {operationId: getRole, tags: [roles]}}
  /usage/tokens: {get: {operationId: getTokenUsage, tags: [usage]}}
  /members: {get: {operationId: listMembers, tags: [members]}}
  /admin/stats: {get: {operationId: getStats, tags: [admin]}}
  /hidden: {get: {operationId: getHidden, tags: [usage], x-public: false}}
  /internal/x: {get: {operationId: getInternal, tags: [internal]}}
"#;

#[test]
fn withheld_ops_are_counted_and_absent() {
    let config = ProjectionConfig {
        excluded_prefixes: vec!["/admin".into()],
        excluded_tags: vec!["Internal".into()],
        ..ProjectionConfig::default()
    };
    let p = Projection::from_document(DOC.as_bytes(), None, &config).unwrap();
    assert_eq!(
        p.refused(),
        [
            "create_or_update_secret",
            "delete_member",
            "get_api_key",
            "rotate_secret",
            "set_membership_for_user",
            "update_role"
        ]
    );
    let names: Vec<String> = p.ops().map(|o| o.name).collect();
    assert_eq!(
        names,
        ["list_members", "get_member", "get_role", "get_token_usage"]
    );
    let tools: Vec<&str> = p.tools().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(tools, ["describe", "members", "roles", "usage"]);
    let meta = p.list_meta();
    assert_eq!(meta["hanzo.ai/refused"]["count"], json!(6));
    assert!(
        meta["hanzo.ai/refused"]["rule"]
            .as_str()
            .unwrap()
            .starts_with("withheld: an op whose object names a bearer secret")
    );
    assert!(p.describe("get_api_key").is_none());
    let _ = DoorConfig::default();
}
