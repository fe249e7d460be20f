//! The capability table: every action declares what it can do; `help`
//! shows it; the `review` mode is made from it.

use std::collections::BTreeSet;

use mcp_local_tools::{Capability, Roots, ToolContext, Toolbox};
use serde_json::json;

use crate::common::{Sandbox, call_in};

/// The capabilities of `tool action` in the default toolbox.
fn of(toolbox: &Toolbox, tool: &str, action: &str) -> Vec<Capability> {
    toolbox
        .capabilities()
        .into_iter()
        .find(|row| row.tool == tool && row.action == action)
        .unwrap_or_else(|| panic!("no row {tool} {action}"))
        .capabilities
}

async fn help(toolbox: &Toolbox, roots: &Roots, tool: &str) -> String {
    let ctx = ToolContext::new(roots.clone());
    call_in(toolbox, tool, ctx, json!({"action": "help"}))
        .await
        .1
}

#[test]
fn every_action_of_every_tool_has_a_row_in_schema_order() {
    let toolbox = Toolbox::with_default_tools();
    let rows = toolbox.capabilities();
    for definition in toolbox.tools() {
        let schema = serde_json::to_value(&definition.input_schema).unwrap();
        let listed: Vec<String> =
            serde_json::from_value(schema["properties"]["action"]["enum"].clone())
                .unwrap_or_else(|_| panic!("{}: no action enum in {schema}", definition.name));
        let table: Vec<&str> = rows
            .iter()
            .filter(|r| r.tool == definition.name)
            .map(|r| r.action)
            .collect();
        assert_eq!(table, listed, "{}", definition.name);
    }
    let tools: BTreeSet<&str> = rows.iter().map(|r| r.tool).collect();
    assert_eq!(tools.len(), toolbox.names().len());
    for row in rows.iter().filter(|r| r.action == "help") {
        assert!(row.capabilities.is_empty(), "{row:?}");
    }
}

#[test]
fn the_table_is_honest_about_what_writes_and_what_runs() {
    use Capability::*;
    let toolbox = Toolbox::with_default_tools();
    assert_eq!(of(&toolbox, "exec", "run"), [RunPrograms]);
    // Reading a job's output moves its read position.
    assert_eq!(of(&toolbox, "exec", "output"), [State]);
    assert_eq!(of(&toolbox, "exec", "list"), []);
    assert_eq!(of(&toolbox, "git", "commit"), [ReadFiles, WriteFiles]);
    assert_eq!(of(&toolbox, "git", "status"), [ReadFiles]);
    assert_eq!(
        of(&toolbox, "git", "push"),
        [ReadFiles, WriteFiles, Network]
    );
    assert_eq!(of(&toolbox, "memory", "export"), [WriteFiles]);
    assert_eq!(of(&toolbox, "memory", "import"), [ReadFiles, State]);
    assert_eq!(of(&toolbox, "fetch", "download"), [WriteFiles, Network]);
    assert_eq!(
        of(&toolbox, "code", "grep_replace"),
        [ReadFiles, WriteFiles]
    );
    assert_eq!(of(&toolbox, "fs", "read"), [ReadFiles]);
    // git runs git alone (see `ToolContext::run_programs`); only exec
    // starts other programs.
    let running: BTreeSet<&str> = toolbox
        .capabilities()
        .into_iter()
        .filter(|r| r.capabilities.contains(&RunPrograms))
        .map(|r| r.tool)
        .collect();
    assert_eq!(running, BTreeSet::from(["exec"]));
    let switch = toolbox
        .capabilities()
        .into_iter()
        .find(|r| r.tool == "git" && r.action == "switch")
        .unwrap();
    assert_eq!(switch.aliases, ["checkout"]);
    assert_eq!(
        Capability::ALL.map(Capability::name),
        [
            "read files",
            "write files",
            "run programs",
            "network",
            "state"
        ]
    );
    assert_eq!(
        serde_json::to_value(&switch).unwrap(),
        json!({"tool": "git", "action": "switch", "aliases": ["checkout"], "capabilities": ["read_files", "write_files"]})
    );
}

#[tokio::test]
async fn help_shows_each_actions_capabilities_and_what_the_tool_gives() {
    let s = Sandbox::new();
    let toolbox = Toolbox::with_default_tools();
    let text = help(&toolbox, &s.roots, "memory").await;
    assert!(
        text.contains("export {path, [overwrite], [scope]}: write the graph as JSONL (inside the roots); refuses to replace a file unless overwrite. [can: write files]\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "A grant of the whole tool (memory) gives: read files, write files, state.\n"
        ),
        "{text}"
    );
    let text = help(&toolbox, &s.roots, "think").await;
    assert!(
        text.contains("A grant of the whole tool (think) gives: none.\n"),
        "{text}"
    );
}

#[cfg(feature = "mode")]
#[test]
fn the_review_mode_is_made_from_the_table() {
    let mut toolbox = Toolbox::with_default_tools();
    toolbox.with_mode_file(None);
    let modes = toolbox.modes().unwrap();
    let review = modes
        .presets()
        .iter()
        .find(|p| p.name == "review")
        .unwrap()
        .allowed
        .clone()
        .unwrap();
    let rows = toolbox.capabilities();
    let runs_programs = |tool: &str| {
        rows.iter()
            .any(|r| r.tool == tool && r.capabilities.contains(&Capability::RunPrograms))
    };
    let mut expected = vec!["mode".to_owned()];
    for row in rows.iter() {
        // A program runner's reading actions show what programs printed.
        if row.tool == "mode" || runs_programs(row.tool) {
            continue;
        }
        let changes = row.capabilities.iter().any(|c| {
            matches!(
                c,
                Capability::WriteFiles | Capability::RunPrograms | Capability::State
            )
        });
        // The table's only rows that change nothing of ours yet are not
        // reads: an HTTP request (POST, DELETE ...) and forgetting this
        // connection's thoughts.
        let not_a_read = matches!(
            (row.tool, row.action),
            ("fetch", "request") | ("think", "clear")
        );
        if !changes && !not_a_read {
            expected.push(format!("{}:{}", row.tool, row.action));
        }
    }
    assert_eq!(review, expected);
    for gone in [
        "exec:run",
        "exec:list",
        "memory:export",
        "git:commit",
        "fetch:request",
        "ui:install",
    ] {
        assert!(!review.iter().any(|e| e == gone), "{gone}");
    }
    for kept in ["fs:read", "git:diff", "fetch:get", "memory:recall"] {
        assert!(review.iter().any(|e| e == kept), "{kept}");
    }
}
