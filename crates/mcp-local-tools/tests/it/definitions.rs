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

/// A definition's schema is the compiled-in text, written as it is and
/// on one line (a stdio frame ends at a line feed), until something reads
/// it; reading it leaves what is written alone.
#[test]
fn schemas_stay_compiled_in_text_until_read() {
    let mut toolbox = Toolbox::with_default_tools();
    toolbox.with_mode();
    for tool in toolbox.tools() {
        let text = tool
            .input_schema
            .as_static_json()
            .unwrap_or_else(|| panic!("{}: schema kept as text", tool.name));
        assert!(!text.contains('\n'), "{}", tool.name);
        let written = serde_json::to_string(&tool).expect("serialises");
        assert!(written.contains(&format!("\"inputSchema\":{text}")));
        assert!(tool.input_schema.contains_key("properties"));
        assert_eq!(serde_json::to_string(&tool).expect("serialises"), written);
    }
}

/// The required fields of each action as `help` lists them: `(action,
/// fields)` for every line `name {a, b, [c]}: …` (the bracketed ones are
/// optional and left out).
fn required_fields(help: &str) -> Vec<(String, Vec<String>)> {
    help.lines()
        .filter_map(|line| {
            let (name, rest) = line.split_once(" {")?;
            let (fields, _) = rest.split_once("}: ")?;
            let required = fields
                .split(", ")
                .filter(|f| !f.starts_with('['))
                .map(str::to_owned)
                .collect();
            Some((name.to_owned(), required))
        })
        .collect()
}

/// Calls `tool` of `toolbox` with only `{"action": action}`.
async fn call_action(
    toolbox: &Toolbox,
    roots: &mcp_local_tools::Roots,
    tool: &str,
    action: &str,
) -> mcp_proto::CallToolResult {
    let args = serde_json::Map::from_iter([("action".to_owned(), action.into())]);
    let ctx = mcp_local_tools::ToolContext::new(roots.clone());
    toolbox.call(tool, args, ctx).await.expect("a listed tool")
}

/// Every action that requires a field, called without any: one error
/// result naming the action and its first required field, from the
/// framework (no tool checks for a missing field itself); and the fields
/// agents most often leave out are among those `help` calls required.
#[tokio::test]
async fn a_call_missing_a_required_field_names_the_action_and_the_field() {
    let sandbox = crate::common::Sandbox::new();
    let mut toolbox = Toolbox::with_default_tools();
    toolbox.with_mode();
    let mut checked = Vec::new();
    for tool in toolbox.tools() {
        let help = call_action(&toolbox, &sandbox.roots, &tool.name, "help").await;
        let help = help.content[0].as_text().expect("help is text").to_owned();
        for (action, required) in required_fields(&help) {
            let Some(first) = required.first() else {
                continue;
            };
            let result = call_action(&toolbox, &sandbox.roots, &tool.name, &action).await;
            let what = format!("{} {action}", tool.name);
            assert_eq!(result.is_error, Some(true), "{what}");
            assert_eq!(result.content.len(), 1, "{what}");
            let expected = format!("{action}: missing field '{first}'");
            assert_eq!(
                result.content[0].as_text(),
                Some(expected.as_str()),
                "{what}"
            );
            checked.push(format!("{what} {}", required.join(",")));
        }
    }
    for expected in [
        "fs write path,content",
        "fs edit path,old_text,new_text",
        "fs mv path,to",
        "exec run command",
        "git commit message",
        "git apply patch",
        "code definition name",
        "fetch get url",
        "ui search query",
        "think think thought",
        "tasks add title",
        "mode set name",
    ] {
        assert!(
            checked.iter().any(|c| c == expected),
            "{expected} not among {checked:#?}"
        );
    }
}
