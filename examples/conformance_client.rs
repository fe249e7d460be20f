//! The client the official MCP conformance suite (`@modelcontextprotocol/
//! conformance`, `scripts/conformance.sh`) runs for each client scenario:
//! `mcp-door-client`'s [`DoorClient`] pointed at the suite's test server, listing
//! the tools and calling them the way the scenario asks.
//!
//! The suite starts a test server per scenario and runs
//! `conformance_client <server-url>` with `MCP_CONFORMANCE_SCENARIO` (the
//! scenario name) and, for some scenarios, `MCP_CONFORMANCE_CONTEXT` (JSON:
//! the calls to make) in the environment. The door client speaks revision
//! 2026-07-28 only (stateless, no `initialize`), so only the scenarios of
//! that revision that list and call tools apply (conformance/README.md).
//!
//! Run by hand: `MCP_CONFORMANCE_SCENARIO=tools_call cargo run -p mcp-examples
//! --example conformance_client -- http://localhost:PORT/mcp`
//!
//! Exit status: 0 when the list was read and every call was answered (a
//! result, `isError` included, or a JSON-RPC error the scenario provoked),
//! 1 otherwise; one line per step on stdout.

use std::process::ExitCode;
use std::time::Duration;

use mcp_door_client::{DoorClient, DoorClientConfig, DoorStatus, Timeouts};
use mcp_proto::Tool;
use serde_json::{Map, Value, json};

/// One `tools/call` to make: the tool's name and its arguments.
struct Call {
    name: String,
    arguments: Map<String, Value>,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: conformance_client <server-url>");
        return ExitCode::FAILURE;
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .unwrap_or(Value::Null);

    // The door address is set in code: the suite's server, no bearer, short
    // limits (every scenario server is on loopback).
    let mut config = DoorClientConfig::new(url);
    config.timeouts = Timeouts {
        connect: Duration::from_secs(2),
        list: Duration::from_secs(10),
        call: Duration::from_secs(10),
    };
    // The client's own failure results start with the door's name.
    let failure_prefix = format!("{} ", config.wording.name);
    let door = match DoorClient::new(config) {
        Ok(door) => door,
        Err(error) => {
            eprintln!("conformance_client: {error}");
            return ExitCode::FAILURE;
        }
    };

    let snapshot = door.fetch_now().await;
    let tools: Vec<Tool> = match (&snapshot.status, &snapshot.list) {
        (DoorStatus::Ready, Some(list)) => list.tools.clone(),
        (status, _) => {
            println!("tools/list failed: {status:?}");
            return ExitCode::FAILURE;
        }
    };
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    println!("tools/list: {names:?}");

    let mut ok = true;
    for call in calls(&scenario, &context, &tools) {
        let mut params = Map::new();
        params.insert("name".into(), json!(call.name));
        params.insert("arguments".into(), Value::Object(call.arguments));
        match door.call_tool(params, None).await {
            Ok(result) => {
                let failed_to_reach = result["isError"] == json!(true)
                    && result["content"][0]["text"]
                        .as_str()
                        .is_some_and(|text| text.starts_with(&failure_prefix));
                ok &= !failed_to_reach;
                println!("tools/call {}: {result}", call.name);
            }
            Err(error) => println!(
                "tools/call {}: JSON-RPC error {} {}",
                call.name, error.code, error.message
            ),
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The calls a scenario asks for, after `tools/list` returned `tools`:
/// the context's `toolCalls` when the suite gives them; the focal tool's
/// schema echoed back for `json-schema-2020-12-preservation`; two numbers
/// for `add_numbers`; otherwise one call of every listed tool with
/// arguments made from its schema.
fn calls(scenario: &str, context: &Value, tools: &[Tool]) -> Vec<Call> {
    if let Some(listed) = context.get("toolCalls").and_then(Value::as_array) {
        return listed
            .iter()
            .filter_map(|call| {
                Some(Call {
                    name: call.get("name")?.as_str()?.to_owned(),
                    arguments: call
                        .get("arguments")
                        .and_then(Value::as_object)
                        .cloned()
                        .unwrap_or_default(),
                })
            })
            .collect();
    }
    if scenario == "json-schema-2020-12-preservation" {
        let Some(focal) = tools.iter().find(|t| t.name != "json_schema_echo") else {
            return Vec::new();
        };
        let mut arguments = Map::new();
        arguments.insert(
            "schema".into(),
            Value::Object(focal.input_schema.to_object()),
        );
        return vec![Call {
            name: "json_schema_echo".into(),
            arguments,
        }];
    }
    tools
        .iter()
        .map(|tool| Call {
            name: tool.name.clone(),
            arguments: if tool.name == "add_numbers" {
                json!({"a": 5, "b": 3})
                    .as_object()
                    .cloned()
                    .unwrap_or_default()
            } else {
                arguments_for(&tool.input_schema)
            },
        })
        .collect()
}

/// A value for each required property of an object schema, by its `type`.
fn arguments_for(schema: &Map<String, Value>) -> Map<String, Value> {
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let properties = schema.get("properties").and_then(Value::as_object);
    required
        .iter()
        .filter_map(Value::as_str)
        .map(|name| {
            let kind = properties
                .and_then(|p| p.get(name))
                .and_then(|p| p.get("type"))
                .and_then(Value::as_str)
                .unwrap_or("string");
            let value = match kind {
                "integer" | "number" => json!(1),
                "boolean" => json!(true),
                "object" => json!({}),
                "array" => json!([]),
                "null" => Value::Null,
                _ => json!("us-west1"),
            };
            (name.to_owned(), value)
        })
        .collect()
}
