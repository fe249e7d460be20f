//! A door in front of a tiny REST service: the notes API below is described
//! by a short OpenAPI document, and `mcp-door` turns it into one MCP tool
//! (`notes`) plus `describe`, served at `POST /v1/mcp` (HIP-0300 §1).
//!
//! The example starts both on loopback, then plays the MCP client: it lists
//! the tools without a credential, asks `describe` for an op's input, calls
//! the op without a bearer (HTTP 401 with the `WWW-Authenticate` challenge)
//! and with one (forwarded to the REST service, whose JSON answer becomes
//! the tool result). Then it exits.
//!
//! Run: `cargo run -p mcp-examples --example door_in_front_of_rest`.

use std::sync::{Arc, Mutex};

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::routing::get;
use mcp_door::{Door, DoorConfig, OpenApiSource};
use serde_json::{Value, json};

const NOTES_API: &str = r#"
openapi: 3.1.0
info: {title: Notes, version: "1"}
paths:
  /v1/notes:
    get: {operationId: listNotes, tags: [notes], summary: List every note}
    post:
      operationId: createNote
      tags: [notes]
      summary: Write a note
      requestBody:
        required: true
        content:
          application/json:
            schema: {type: object, required: [text], properties: {text: {type: string}}}
  /v1/notes/{id}:
    get:
      operationId: getNote
      tags: [notes]
      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
  /v1/tokens:
    post: {operationId: createToken, tags: [auth], summary: Mint an API token}
"#;

type Notes = Arc<Mutex<Vec<String>>>;

/// The REST service: notes in memory; it wants a bearer on every write.
fn rest_service() -> axum::Router {
    async fn list(State(notes): State<Notes>) -> String {
        json!({"notes": *notes.lock().unwrap()}).to_string()
    }
    async fn create(State(notes): State<Notes>, headers: HeaderMap, body: String) -> String {
        let who = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("nobody");
        let text = serde_json::from_str::<Value>(&body).unwrap_or_default()["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let mut notes = notes.lock().unwrap();
        notes.push(text.clone());
        json!({"id": notes.len() - 1, "text": text, "by": who}).to_string()
    }
    async fn one(State(notes): State<Notes>, Path(id): Path<usize>) -> String {
        json!({"id": id, "text": notes.lock().unwrap().get(id)}).to_string()
    }
    axum::Router::new()
        .route("/v1/notes", get(list).post(create))
        .route("/v1/notes/{id}", get(one))
        .with_state(Notes::default())
}

async fn rpc(
    url: &str,
    bearer: Option<&str>,
    id: i64,
    method: &str,
    params: Value,
) -> (u16, Value) {
    let client = reqwest::Client::new();
    let mut request = client
        .post(url)
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .body(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
    if let Some(b) = bearer {
        request = request.header("authorization", format!("Bearer {b}"));
    }
    let response = request.send().await.expect("the door answers");
    let status = response.status().as_u16();
    if let Some(challenge) = response.headers().get("www-authenticate") {
        println!("  WWW-Authenticate: {}", challenge.to_str().unwrap_or("?"));
    }
    let body = serde_json::from_str(&response.text().await.expect("a body")).expect("JSON");
    (status, body)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let rest = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let rest_url = format!("http://{}", rest.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(rest, rest_service()).await });

    let source = OpenApiSource::from_bytes("notes.yaml", NOTES_API.as_bytes(), Some(&rest_url));
    let config = DoorConfig {
        issuer: Some("https://hanzo.id".into()),
        ..DoorConfig::default()
    };
    let door = Door::new(vec![source], config).expect("a door");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let door_url = format!("http://{}/v1/mcp", listener.local_addr().unwrap());
    tokio::spawn(mcp_door::serve(listener, Arc::new(door)));
    println!("REST service at {rest_url}, door at {door_url}\n");

    let (_, list) = rpc(
        &door_url,
        None,
        1,
        mcp_proto::methods::ListTools::NAME,
        json!({}),
    )
    .await;
    println!("tools/list (no credential needed):");
    for tool in list["result"]["tools"].as_array().unwrap() {
        println!("  {}: {}", tool["name"], tool["description"]);
    }
    println!("  _meta: {}\n", list["result"]["_meta"]);

    let (_, described) = rpc(
        &door_url,
        None,
        2,
        mcp_proto::methods::CallTool::NAME,
        json!({"name": "describe", "arguments": {"op": "create_note"}}),
    )
    .await;
    println!(
        "describe create_note: {}\n",
        described["result"]["structuredContent"]["inputSchema"]
    );

    let call =
        json!({"name": "notes", "arguments": {"op": "create_note", "input": {"text": "hello"}}});
    let (status, _) = rpc(
        &door_url,
        None,
        3,
        mcp_proto::methods::CallTool::NAME,
        call.clone(),
    )
    .await;
    println!("tools/call without a bearer: HTTP {status}\n");

    let (_, created) = rpc(
        &door_url,
        Some("demo-token"),
        4,
        mcp_proto::methods::CallTool::NAME,
        call,
    )
    .await;
    println!(
        "tools/call with a bearer: {}",
        created["result"]["structuredContent"]
    );

    let (_, listed) = rpc(
        &door_url,
        Some("demo-token"),
        5,
        mcp_proto::methods::CallTool::NAME,
        json!({"name": "notes", "arguments": {"op": "list_notes"}}),
    )
    .await;
    println!("list_notes: {}", listed["result"]["content"][0]["text"]);
}
