//! End to end: `hanzo-mcp serve` with `HANZO_MCP_DOOR` pointing at
//! `hanzo-mcp door`, which stands in front of a loopback REST service
//! (HIP-0300 §1 and §2 together).

use serde_json::json;

use crate::common::rest::{Log, spawn_rest};
use crate::common::{Proc, hanzo_mcp, listed_tool, local_names, names};

const DOC: &str = r#"
openapi: 3.1.0
info: {title: e2e, version: "1"}
paths:
  /v1/projects/{slug}/deploy:
    post:
      tags: [projects]
      parameters: [{name: slug, in: path, required: true, schema: {type: string}}]
      requestBody:
        content: {application/json: {schema: {type: object, properties: {region: {type: string}}}}}
  /v1/projects: {get: {operationId: listProjects, tags: [projects]}}
  /v1/fs/files: {get: {operationId: listFiles, tags: [fs]}}
"#;

/// `hanzo-mcp door` on an ephemeral loopback port, and its base URL.
fn spawn_door(doc: &std::path::Path, upstream: &str) -> (Proc, String) {
    let mut command = hanzo_mcp();
    command
        .args([
            "door",
            "--listen",
            "127.0.0.1:0",
            "--issuer",
            "https://hanzo.id",
            "--openapi",
        ])
        .arg(format!("{}={upstream}", doc.display()));
    let mut door = Proc::start(command);
    let url = loop {
        let line = door.stderr_line();
        if let Some(rest) = line.strip_prefix("hanzo-mcp door: listening on ") {
            break rest.split(' ').next().expect("url").to_owned();
        }
    };
    (door, url)
}

/// `hanzo-mcp serve` past the handshake, in a fresh root, with
/// `HANZO_MCP_DOOR` at a `hanzo-mcp door` in front of the loopback REST
/// service; dropped in this order.
struct EndToEnd {
    server: Proc,
    /// The door's URL.
    door_url: String,
    /// What the REST service received.
    log: Log,
    _door: Proc,
    _dir: tempfile::TempDir,
}

/// [`EndToEnd`], the server given `env` besides `HANZO_MCP_DOOR`.
fn setup(env: &[(&str, &str)]) -> EndToEnd {
    let (rest, log) = spawn_rest();
    let dir = tempfile::tempdir().expect("tempdir");
    let doc = dir.path().join("api.yaml");
    std::fs::write(&doc, DOC).expect("write doc");
    let (door, door_url) = spawn_door(&doc, &rest);
    let mut all = vec![("HANZO_MCP_DOOR", door_url.as_str())];
    all.extend_from_slice(env);
    let root = dir.path().to_str().expect("utf-8");
    let mut server = Proc::spawn_with_env(&["serve", "--root", root], &all);
    server.initialize("2025-11-25");
    EndToEnd {
        server,
        door_url,
        log,
        _door: door,
        _dir: dir,
    }
}

#[test]
fn serve_merges_the_door_and_forwards_with_the_bearer() {
    let mut e2e = setup(&[("HANZO_API_KEY", "e2e-key")]);
    let server = &mut e2e.server;
    let list = server.call(1, "tools/list", json!({}));
    let local = local_names();
    let mut expected = local.clone();
    // The door also has an `fs` subsystem; the local `fs` wins.
    assert!(local.iter().any(|l| l == "fs"));
    expected.extend(["describe".to_owned(), "projects".to_owned()]);
    assert_eq!(names(&list), expected);
    let fs = listed_tool(&list, "fs");
    assert!(fs["inputSchema"]["properties"].get("op").is_none(), "{fs}");

    let arguments = json!({"op": "deploy_project", "input": {"slug": "my app", "region": "eu"}});
    let called = server.call_tool(2, "projects", arguments);
    let result = &called["result"];
    assert!(result.get("isError").is_none_or(|e| e == false), "{result}");
    assert_eq!(
        result["structuredContent"]["deployed"],
        "/v1/projects/my%20app/deploy"
    );
    let seen = e2e.log.lock().unwrap().clone();
    assert_eq!(
        seen,
        [(
            "POST".to_owned(),
            "/v1/projects/my%20app/deploy".to_owned(),
            Some("Bearer e2e-key".to_owned()),
            r#"{"region":"eu"}"#.to_owned()
        )]
    );
    server.close_stdin();
    assert_eq!(server.wait().code(), Some(0));
}

#[test]
fn without_a_bearer_the_call_says_sign_in_and_names_the_metadata() {
    let mut e2e = setup(&[("HANZO_API_KEY", ""), ("HOME", ""), ("PATH", "")]);
    let server = &mut e2e.server;
    let list = server.call(1, "tools/list", json!({}));
    assert!(names(&list).iter().any(|n| n == "projects"), "{list}");
    let arguments = json!({"op": "list_projects"});
    let called = server.call_tool(2, "projects", arguments);
    let result = &called["result"];
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().expect("text");
    let origin = e2e.door_url.trim_end_matches("/v1/mcp");
    assert!(text.contains("hanzo auth login"), "{text}");
    assert!(
        text.contains(&format!("{origin}/.well-known/oauth-protected-resource")),
        "{text}"
    );
    assert!(e2e.log.lock().unwrap().is_empty());
    server.close_stdin();
    assert_eq!(server.wait().code(), Some(0));
}
