//! What docs/ARCHITECTURE.md, "Gating", asks of `resolve_allowed_tools`, on
//! the tools an agent runtime holds: `null` keeps everything, a named server
//! is narrowed and an unnamed one is not, a worker limited to the trap
//! endpoint sees it alone, `[]` denies, and nothing is mutated.

use mcp_gating::{AllowedTools, ToolName, resolve_allowed_tools};

use crate::common::config;

/// A tool as an agent runtime holds it: more than a name.
#[derive(Clone, Debug, PartialEq)]
struct Tool {
    name: String,
    description: String,
}

impl ToolName for Tool {
    fn tool_name(&self) -> &str {
        &self.name
    }
}

fn tool(name: &str) -> Tool {
    Tool {
        name: name.to_owned(),
        description: format!("{name} (github-workflow)"),
    }
}

/// The github-workflow server's surface, which a worker must not see whole.
fn github_workflow() -> Vec<Tool> {
    [
        "create_issue",
        "update_issue",
        "signal_state_transition",
        "merge_pull_request",
        "list_pull_requests",
    ]
    .into_iter()
    .map(tool)
    .collect()
}

fn names<T: ToolName>(tools: &[T]) -> Vec<&str> {
    tools.iter().map(ToolName::tool_name).collect()
}

#[test]
fn null_keeps_every_tool_of_every_server() {
    let tools = github_workflow();
    let allowed = config("null");
    assert!(allowed.is_unrestricted());
    assert_eq!(allowed, AllowedTools::default());
    for server in ["github-workflow", "knowledge-base", ""] {
        let kept = resolve_allowed_tools(&tools, &allowed, server);
        assert_eq!(
            names(&kept),
            [
                "create_issue",
                "update_issue",
                "signal_state_transition",
                "merge_pull_request",
                "list_pull_requests"
            ]
        );
    }
}

#[test]
fn only_the_named_server_is_constrained() {
    let tools = github_workflow();
    let allowed = config(r#"{"github-workflow": ["list_pull_requests", "create_issue"]}"#);
    // Named: exactly the listed tools, in the order the tools came.
    assert_eq!(
        names(&resolve_allowed_tools(&tools, &allowed, "github-workflow")),
        ["create_issue", "list_pull_requests"]
    );
    // Not named: fail-open, the whole surface.
    let knowledge = vec![tool("search"), tool("read_document")];
    assert_eq!(
        names(&resolve_allowed_tools(
            &knowledge,
            &allowed,
            "knowledge-base"
        )),
        ["search", "read_document"]
    );
}

#[test]
fn a_worker_limited_to_the_trap_endpoint_sees_it_alone() {
    let tools = github_workflow();
    let allowed = config(r#"{"github-workflow": ["signal_state_transition"]}"#);
    let kept = resolve_allowed_tools(&tools, &allowed, "github-workflow");
    assert_eq!(kept, [&tool("signal_state_transition")]);
}

#[test]
fn an_empty_list_denies_every_tool_of_that_server_only() {
    let tools = github_workflow();
    let allowed = config(r#"{"github-workflow": [], "knowledge-base": ["search"]}"#);
    assert!(resolve_allowed_tools(&tools, &allowed, "github-workflow").is_empty());
    assert_eq!(
        names(&resolve_allowed_tools(&tools, &allowed, "other")),
        names(&tools)
    );
}

#[test]
fn names_that_match_no_tool_are_ignored() {
    let tools = github_workflow();
    let allowed =
        config(r#"{"github-workflow": ["no_such_tool", "create_issue", "Create_Issue"]}"#);
    assert_eq!(
        names(&resolve_allowed_tools(&tools, &allowed, "github-workflow")),
        ["create_issue"]
    );
}

#[test]
fn neither_the_tools_nor_the_configuration_are_changed() {
    let tools = github_workflow();
    let tools_before = tools.clone();
    let allowed = config(r#"{"github-workflow": ["signal_state_transition"]}"#);
    let allowed_before = allowed.clone();

    let borrowed = resolve_allowed_tools(&tools, &allowed, "github-workflow");
    assert_eq!(borrowed.len(), 1);
    assert_eq!(tools, tools_before);
    assert_eq!(allowed, allowed_before);

    // Owned items are moved through untouched: same values, nothing rewritten.
    let owned = resolve_allowed_tools(tools.clone(), &allowed, "github-workflow");
    assert_eq!(owned, [tools_before[2].clone()]);
    assert_eq!(
        owned[0].description,
        "signal_state_transition (github-workflow)"
    );
}

#[test]
fn plain_strings_work_as_tools() {
    let allowed = config(r#"{"local": ["fs", "git"]}"#);
    let strs = ["fs", "exec", "git"];
    assert_eq!(
        resolve_allowed_tools(strs, &allowed, "local"),
        ["fs", "git"]
    );
    let strings: Vec<String> = strs.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        resolve_allowed_tools(strings, &allowed, "local"),
        ["fs".to_owned(), "git".to_owned()]
    );
}
