//! insta snapshots of the tools' definitions, as `tools/list` shows
//! them (the wire JSON of each `Tool`).

use mcp_local_tools::Toolbox;

/// The default toolbox's tools, in order.
const DEFAULT_TOOLS: [&str; 11] = [
    "fs",
    "code",
    "workspace",
    "exec",
    "git",
    "fetch",
    "ui",
    "think",
    "memory",
    "plan",
    "tasks",
];

fn definition(name: &str) -> serde_json::Value {
    let tool = Toolbox::with_default_tools()
        .get(name)
        .expect("tool in the default toolbox")
        .definition();
    serde_json::to_value(tool).expect("a tool serialises")
}

#[test]
fn default_toolbox_order() {
    let names: Vec<String> = Toolbox::with_default_tools()
        .tools()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, DEFAULT_TOOLS);
}

/// Each tool's definition, and `mode`'s (added on request), against its
/// snapshot (named after the tool).
#[test]
fn every_tool_definition_matches_its_snapshot() {
    for name in DEFAULT_TOOLS {
        insta::assert_json_snapshot!(name, definition(name));
    }
    let mut toolbox = Toolbox::with_default_tools();
    toolbox.with_mode();
    let mode = toolbox.get("mode").expect("mode").definition();
    insta::assert_json_snapshot!("mode", serde_json::to_value(mode).expect("serialises"));
}

#[test]
fn schemas_are_objects_with_an_action_enum_and_valid_names() {
    for tool in Toolbox::with_default_tools().tools() {
        mcp_proto::validate_tool_name(&tool.name).expect("valid tool name");
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        // `think` may be called with only a `thought`.
        let required = if tool.name == "think" {
            serde_json::json!([])
        } else {
            serde_json::json!(["action"])
        };
        assert_eq!(tool.input_schema["required"], required, "{}", tool.name);
        let actions = tool.input_schema["properties"]["action"]["enum"]
            .as_array()
            .expect("action is a plain enum");
        assert!(
            actions.contains(&serde_json::json!("help")),
            "{}",
            tool.name
        );
    }
}
