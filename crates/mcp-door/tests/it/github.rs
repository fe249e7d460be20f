//! The GitHub REST API description (tests/data, 1,223 operations under 47
//! tags) through the projection: counts, names, snapshots.

use std::collections::HashSet;

use mcp_door::{DESCRIBE, VERBS};
use serde_json::{Value, json};

use crate::common::github;

fn op_enum(tool: &mcp_proto::Tool) -> Vec<String> {
    tool.input_schema["properties"]["op"]["enum"]
        .as_array()
        .map(|a| a.iter().map(|v| v.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

#[test]
fn one_tool_per_subsystem_under_the_cap() {
    let p = github();
    let tools = p.tools();
    assert_eq!(tools[0].name, DESCRIBE);
    // 47 tags; the `credentials` tag's one op (revoke_credential) is withheld.
    assert_eq!(tools.len(), 47);
    assert!(tools.len() < 128);
    let offered: usize = tools.iter().map(|t| op_enum(t).len()).sum();
    assert_eq!(offered, p.ops().count());
    assert_eq!(offered + p.refused().len(), 1223);
    assert_eq!(p.refused().len(), 92);
}

#[test]
fn op_names_are_unique_verb_phrases() {
    let mut seen = HashSet::new();
    for op in github().ops() {
        let name = &op.name;
        assert!(seen.insert(name.clone()), "{name} twice");
        assert!(
            name.starts_with(|c: char| c.is_ascii_lowercase())
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "{name} breaks ^[a-z][a-z0-9_]*$"
        );
        let verb = name.split('_').next().unwrap();
        assert!(VERBS.contains(&verb), "{name} does not start with a verb");
        assert!(name.contains('_'), "{name} is a bare verb");
        assert!(mcp_proto::validate_tool_name(name).is_ok());
    }
    for want in [
        "list_issues_for_repo",
        "get_repo",
        "create_issue",
        "search_code",
        "get_emojis",
    ] {
        assert!(seen.contains(want), "{want} missing");
    }
}

#[test]
fn every_tool_has_a_description_and_honest_annotations() {
    let p = github();
    for tool in p.tools() {
        let d = tool.description.as_deref().unwrap_or("");
        assert!(!d.trim().is_empty(), "{} has no description", tool.name);
        assert!(mcp_proto::validate_tool_name(&tool.name).is_ok());
        if tool.name == DESCRIBE {
            assert_eq!(
                tool.annotations.as_ref().unwrap().read_only_hint,
                Some(true)
            );
            continue;
        }
        let all_reads = p
            .ops()
            .filter(|o| o.tool == tool.name)
            .all(|o| o.method == "GET" || o.method == "HEAD");
        let hint = tool.annotations.as_ref().and_then(|a| a.read_only_hint);
        assert_eq!(hint, all_reads.then_some(true), "{}", tool.name);
        // Each line after the first gives an op of the enum its summary.
        let ops = op_enum(tool);
        for line in d.lines().skip(1) {
            let (op, summary) = line.split_once(": ").expect("op: summary");
            assert!(
                ops.iter().any(|o| o == op),
                "{}: {op} is not its op",
                tool.name
            );
            assert!(!summary.is_empty(), "{line}");
        }
    }
}

#[test]
fn the_list_is_a_fraction_of_one_tool_per_operation() {
    let p = github();
    let list = serde_json::to_vec(&json!({"tools": p.tools()})).unwrap();
    let flat = serde_json::to_vec(&json!({"tools": p.per_operation_tools()})).unwrap();
    // The figures in the crate README: `cargo test -p mcp-door --test it fraction -- --nocapture`.
    eprintln!(
        "door: {} tools, {} bytes; one tool per operation: {} tools, {} bytes; withheld: {}",
        p.tools().len(),
        list.len(),
        p.per_operation_tools().len(),
        flat.len(),
        p.refused().len()
    );
    assert_eq!(p.per_operation_tools().len(), 1131);
    assert!(list.len() < 100_000, "{} bytes", list.len());
    assert!(
        flat.len() > 10 * list.len(),
        "{} vs {}",
        flat.len(),
        list.len()
    );
}

#[test]
fn tool_list_snapshot() {
    let tools: Vec<Value> = github()
        .tools()
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "ops": op_enum(t),
                "annotations": t.annotations,
            })
        })
        .collect();
    insta::with_settings!({sort_maps => true}, {
        insta::assert_json_snapshot!("github_tools", tools);
    });
}

#[test]
fn describe_snapshots() {
    for op in [
        "get_repo",
        "list_issues_for_repo",
        "create_issue",
        "add_labels",
    ] {
        let described = github()
            .describe(op)
            .unwrap_or_else(|| panic!("{op} offered"));
        insta::with_settings!({sort_maps => true}, {
            insta::assert_json_snapshot!(format!("describe_{op}"), described);
        });
    }
}

#[test]
fn describe_merges_parameters_and_body_with_required_right() {
    let d = github().describe("create_issue").unwrap();
    let schema = &d["inputSchema"];
    assert_eq!(d["method"], "POST");
    assert_eq!(d["path"], "/repos/{owner}/{repo}/issues");
    assert_eq!(schema["type"], "object");
    for key in ["owner", "repo", "title", "body", "labels"] {
        assert!(schema["properties"].get(key).is_some(), "{key}");
    }
    assert_eq!(schema["required"], json!(["owner", "repo", "title"]));
}

#[test]
fn every_github_op_describes_within_the_byte_bound() {
    let p = github();
    let mut largest = (0, String::new());
    for op in p.ops() {
        let text = p.describe(&op.name).unwrap().to_string();
        assert!(!text.contains("(schema not shown"), "{}", op.name);
        largest = largest.max((text.len(), op.name));
    }
    println!(
        "largest describe answer: {} bytes ({})",
        largest.0, largest.1
    );
    assert!(largest.0 < 1 << 20, "{largest:?}");
}
