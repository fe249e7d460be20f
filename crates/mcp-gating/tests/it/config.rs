//! The configuration type: JSON and TOML shapes, errors that name the
//! server and the entry, and the round trip.

use mcp_gating::{AllowedTools, ConfigError, Entry, Policy, ToolGrant};
use serde::Deserialize;

fn json(text: &str) -> Result<AllowedTools, String> {
    serde_json::from_str(text).map_err(|error| error.to_string())
}

#[test]
fn json_null_and_maps() {
    assert_eq!(json("null"), Ok(AllowedTools::unrestricted()));
    let allowed = json(r#"{"local": ["fs", "fs:read"], "door": []}"#).unwrap();
    assert!(!allowed.is_unrestricted());
    let servers: Vec<&str> = allowed.servers().map(|(name, _)| name).collect();
    assert_eq!(servers, ["door", "local"]);
    let local = allowed.server("local").unwrap();
    assert_eq!(local.grant("fs"), Some(&ToolGrant::Whole));
    assert!(allowed.server("door").unwrap().is_empty());
    assert_eq!(allowed.server("other"), None);
    assert_eq!(json("{}").unwrap().servers().count(), 0);
}

#[test]
fn op_entries_collect_per_tool_and_whole_wins() {
    let allowed =
        json(r#"{"door": ["billing:get_invoice", "git:create_repo", "billing:list_invoices", "billing:get_invoice", "git"]}"#)
            .unwrap();
    let door = allowed.server("door").unwrap();
    assert_eq!(
        door.grant("billing"),
        Some(&ToolGrant::Ops(vec![
            "get_invoice".to_owned(),
            "list_invoices".to_owned()
        ]))
    );
    assert_eq!(door.grant("git"), Some(&ToolGrant::Whole));
    assert_eq!(door.entries().len(), 5);
    assert_eq!(door.entries()[0].tool(), "billing");
    assert_eq!(door.entries()[0].op(), Some("get_invoice"));
    assert_eq!(door.entries()[4].op(), None);
}

#[test]
fn malformed_entries_name_server_and_entry() {
    assert_eq!(
        json(r#"{"door": ["billing:"]}"#),
        Err(
            r#"server "door": entry "billing:" has an empty op after ':' at line 1 column 22"#
                .to_owned()
        )
    );
    assert_eq!(
        json(r#"{"local": [":read"]}"#),
        Err(r#"server "local": entry ":read" has an empty tool name before ':' at line 1 column 20"#.to_owned())
    );
    assert_eq!(
        json(r#"{"local": ["fs", ""]}"#),
        Err(r#"server "local": an entry is empty; write "<tool>" or "<tool>:<op>" at line 1 column 21"#.to_owned())
    );
    assert_eq!(
        json(r#"{"door": ["billing:get:invoice"]}"#),
        Err(r#"server "door": entry "billing:get:invoice" has more than one ':'; write "<tool>" or "<tool>:<op>" at line 1 column 33"#.to_owned())
    );
    assert_eq!(
        json(r#"{"door": [], "door": ["git"]}"#),
        Err(r#"server "door" is configured twice at line 1 column 29"#.to_owned())
    );
}

#[test]
fn wrong_shapes_say_what_was_expected() {
    assert_eq!(
        json("[]"),
        Err("invalid type: sequence, expected null or an object mapping each server name to a list of tool names at line 1 column 0".to_owned())
    );
    assert_eq!(
        json(r#"{"local": "fs"}"#),
        Err(r#"invalid type: string "fs", expected a list of tool names ("<tool>" or "<tool>:<op>") at line 1 column 14"#.to_owned())
    );
    assert_eq!(
        json(r#"{"local": [3]}"#),
        Err("invalid type: integer `3`, expected a string at line 1 column 12".to_owned())
    );
    assert_eq!(
        json(r#"{"local": null}"#),
        Err(r#"invalid type: null, expected a list of tool names ("<tool>" or "<tool>:<op>") at line 1 column 14"#.to_owned())
    );
    assert!(json("").is_err());
    assert!(json(r#"{"local": ["fs"]"#).is_err());
}

#[test]
fn round_trip_through_json() {
    for text in [
        "null",
        "{}",
        r#"{"door":["billing:get_invoice","describe"],"local":[]}"#,
    ] {
        let allowed = json(text).unwrap();
        assert_eq!(serde_json::to_string(&allowed).unwrap(), text);
    }
}

#[test]
fn toml_tables_read_the_same() {
    let from_toml: AllowedTools = toml::from_str(
        r#"
local = ["fs", "git:status"]
door = []
"#,
    )
    .unwrap();
    assert_eq!(
        from_toml,
        json(r#"{"local": ["fs", "git:status"], "door": []}"#).unwrap()
    );
    let bad = toml::from_str::<AllowedTools>(r#"door = ["billing:"]"#).unwrap_err();
    assert!(
        bad.to_string()
            .contains(r#"server "door": entry "billing:" has an empty op after ':'"#),
        "{bad}"
    );
}

#[test]
fn a_missing_toml_field_is_null() {
    #[derive(Deserialize)]
    struct AgentProfile {
        name: String,
        #[serde(default)]
        allowed_tools: AllowedTools,
    }
    let plain: AgentProfile = toml::from_str(r#"name = "librarian""#).unwrap();
    assert_eq!(plain.name, "librarian");
    assert!(plain.allowed_tools.is_unrestricted());

    let gated: AgentProfile = toml::from_str(
        r#"
name = "worker"
[allowed_tools]
github-workflow = ["signal_state_transition"]
"#,
    )
    .unwrap();
    assert_eq!(
        gated.allowed_tools,
        AllowedTools::from_servers([("github-workflow", ["signal_state_transition"])]).unwrap()
    );
}

#[test]
fn programmatic_construction_checks_like_parsing() {
    assert_eq!(
        AllowedTools::from_servers([("door", ["a:b:c"])]),
        Err(ConfigError::ExtraColon {
            server: "door".to_owned(),
            entry: "a:b:c".to_owned()
        })
    );
    assert_eq!(
        AllowedTools::from_servers([("door", vec!["git"]), ("door", vec![])]),
        Err(ConfigError::DuplicateServer {
            server: "door".to_owned()
        })
    );
    let entry = Entry::parse("door", "billing:get_invoice").unwrap();
    assert_eq!(entry.to_string(), "billing:get_invoice");
}

#[test]
fn policies_parse_by_name() {
    assert_eq!("fail-open".parse(), Ok(Policy::FailOpen));
    assert_eq!("deny-by-default".parse(), Ok(Policy::DenyByDefault));
    assert_eq!(Policy::default(), Policy::FailOpen);
    let error = "deny".parse::<Policy>().unwrap_err();
    assert_eq!(
        error.to_string(),
        r#"unknown gating policy "deny"; expected "fail-open" or "deny-by-default""#
    );
}

#[test]
fn any_deserializer_reads_the_configuration() {
    let value = serde_json::json!({"door": ["billing:get_invoice"]});
    let from_value = AllowedTools::from_deserializer(value).unwrap();
    assert_eq!(
        from_value,
        AllowedTools::from_servers([("door", ["billing:get_invoice"])]).unwrap()
    );
    assert!(
        AllowedTools::from_deserializer(serde_json::Value::Null)
            .unwrap()
            .is_unrestricted()
    );
    let error = AllowedTools::from_deserializer(serde_json::json!({"door": ["a:b:c"]}))
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        r#"server "door": entry "a:b:c" has more than one ':'; write "<tool>" or "<tool>:<op>""#
    );
}

#[test]
fn grants_per_policy() {
    use mcp_gating::Grant;
    let allowed = json(r#"{"local": ["fs"], "door": []}"#).unwrap();
    let local = allowed.server("local").unwrap();
    assert_eq!(
        Policy::FailOpen.grant(&allowed, "local"),
        Grant::Only(local)
    );
    assert_eq!(Policy::FailOpen.grant(&allowed, "other"), Grant::All);
    assert_eq!(
        Policy::DenyByDefault.grant(&allowed, "other"),
        Grant::Nothing
    );
    assert_eq!(
        Policy::DenyByDefault.grant(&AllowedTools::unrestricted(), "local"),
        Grant::Nothing
    );
    assert!(Grant::Only(local).allows_tool("fs"));
    assert!(!Grant::Only(local).allows_tool("git"));
    assert!(!Policy::FailOpen.grant(&allowed, "door").allows_tool("git"));
    assert!(Grant::All.allows_tool("git"));
    assert!(!Grant::Nothing.allows_tool("fs"));
}
