//! The streamable HTTP transport, rule by rule (MCP 2025-11-25 and
//! 2026-07-28 basic/transports): reqwest against the router served on an
//! ephemeral loopback port, asserting status, headers and body; the `Host`
//! check against DNS rebinding; a POST whose body stops arriving.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use mcp_local_server::http::{HttpConfig, serve_http};
use mcp_local_server::test_tools::TestTools;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::http::{
    Http, LEGACY, Running, STATELESS, assert_sse, exchange, header, json_body, raw_post,
    sse_messages, start, stateless_meta,
};
use crate::common::tool_names;
use crate::common::tools::{self, Tools, text};

/// The hidden `test_sleep` source served as `name`.
async fn serve_test_tools(name: &str, config: HttpConfig) -> Running {
    start(tools::server(name, vec![Arc::new(TestTools)]), config).await
}

async fn test_tools(config: HttpConfig) -> Running {
    serve_test_tools("http-test", config).await
}

/// A 2025-11-25 session with no client capabilities; its id.
async fn session(http: &Http) -> String {
    http.open_session(json!({})).await.id
}

#[tokio::test]
async fn legacy_initialize_mints_a_session_and_requests_answer_json() {
    let server = test_tools(HttpConfig::default()).await;
    let response = server
        .post(
            &[],
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": LEGACY, "capabilities": {},
                "clientInfo": { "name": "t", "version": "1" } }}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let session = header(response.headers(), "mcp-session-id");
    assert_eq!(session.len(), 32);
    assert!(session.bytes().all(|b| b.is_ascii_hexdigit()));
    let body = json_body(response).await;
    assert_eq!(body["id"], 1);
    assert_eq!(body["result"]["protocolVersion"], LEGACY);
    assert_eq!(body["result"]["serverInfo"]["name"], "http-test");

    let notified = server
        .post(
            &[
                ("mcp-session-id", &session),
                ("mcp-protocol-version", LEGACY),
            ],
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await;
    assert_eq!(notified.status(), StatusCode::ACCEPTED);
    assert_eq!(notified.text().await.expect("body"), "");

    let listed = server
        .post(
            &[
                ("mcp-session-id", &session),
                ("mcp-protocol-version", LEGACY),
            ],
            &json!({"jsonrpc": "2.0", "id": "list", "method": "tools/list"}),
        )
        .await;
    assert_eq!(listed.status(), StatusCode::OK);
    let body = json_body(listed).await;
    assert_eq!(body["id"], "list");
    assert_eq!(tool_names(&body["result"]), ["test_sleep"]);
}

#[tokio::test]
async fn legacy_response_from_the_client_gets_202() {
    let server = test_tools(HttpConfig::default()).await;
    let session = session(&server).await;
    let response = server
        .post(
            &[("mcp-session-id", &session)],
            &json!({"jsonrpc": "2.0", "id": 7, "result": {}}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert_eq!(response.text().await.expect("body"), "");
}

#[tokio::test]
async fn legacy_request_without_session_is_400_and_unknown_session_is_404() {
    let server = test_tools(HttpConfig::default()).await;
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let missing = server.post(&[], &ping).await;
    assert_eq!(missing.status(), StatusCode::BAD_REQUEST);
    let body = json_body(missing).await;
    assert_eq!(body["error"]["code"], -32600);
    // Refused, and still answered to its own id.
    assert_eq!(body["id"], 2);
    assert_eq!(
        body["error"]["message"],
        "Mcp-Session-Id is required: send initialize first to open a session"
    );

    let unknown = server
        .post(&[("mcp-session-id", "0123456789abcdef")], &ping)
        .await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    assert_eq!(json_body(unknown).await["id"], 2);
}

#[tokio::test]
async fn delete_ends_a_session_and_later_requests_get_404() {
    let server = test_tools(HttpConfig::default()).await;
    let session = session(&server).await;
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    let alive = server.post(&[("mcp-session-id", &session)], &ping).await;
    assert_eq!(alive.status(), StatusCode::OK);
    assert_eq!(json_body(alive).await["result"], json!({}));

    let deleted = server
        .send(Method::DELETE, &[("mcp-session-id", &session)], None)
        .await;
    assert_eq!(deleted.status(), StatusCode::OK);

    let after = server.post(&[("mcp-session-id", &session)], &ping).await;
    assert_eq!(after.status(), StatusCode::NOT_FOUND);
    let again = server
        .send(Method::DELETE, &[("mcp-session-id", &session)], None)
        .await;
    assert_eq!(again.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn invalid_protocol_version_header_is_400_with_32022() {
    let server = test_tools(HttpConfig::default()).await;
    let session = session(&server).await;
    let response = server
        .post(
            &[
                ("mcp-session-id", &session),
                ("mcp-protocol-version", "2099-01-01"),
            ],
            &json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body = json_body(response).await;
    assert_eq!(body["error"]["code"], -32022);
    assert_eq!(body["id"], 4);
    assert_eq!(body["error"]["data"]["requested"], "2099-01-01");
    assert_eq!(body["error"]["data"]["supported"], json!([STATELESS]));

    let other = server
        .post(
            &[
                ("mcp-session-id", &session),
                ("mcp-protocol-version", "2025-06-18"),
            ],
            &json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}),
        )
        .await;
    assert_eq!(other.status(), StatusCode::BAD_REQUEST);
    assert_eq!(json_body(other).await["error"]["code"], -32600);
}

#[tokio::test]
async fn disallowed_origin_is_403_and_loopback_origin_is_served() {
    let server = test_tools(HttpConfig {
        allowed_origins: vec!["https://app.example.com".into()],
        ..HttpConfig::default()
    })
    .await;
    // 2026-07-28 has no ping; server/discover is its cheapest request.
    let ping = json!({"jsonrpc": "2.0", "id": 6, "method": "server/discover", "params": {"_meta": stateless_meta()}});
    for (origin, status) in [
        ("https://evil.example", StatusCode::FORBIDDEN),
        ("http://localhost.evil.example", StatusCode::FORBIDDEN),
        ("http://localhost:5173", StatusCode::OK),
        ("http://127.0.0.1:8080", StatusCode::OK),
        ("http://[::1]:3000", StatusCode::OK),
        ("https://app.example.com", StatusCode::OK),
    ] {
        let response = server
            .post(
                &[
                    ("origin", origin),
                    ("mcp-protocol-version", STATELESS),
                    ("mcp-method", "server/discover"),
                ],
                &ping,
            )
            .await;
        assert_eq!(response.status(), status, "origin {origin}");
    }
}

#[tokio::test]
async fn get_opens_the_session_stream_or_gets_405() {
    let server = test_tools(HttpConfig::default()).await;
    let no_session = server
        .send(Method::GET, &[("accept", "text/event-stream")], None)
        .await;
    assert_eq!(no_session.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(header(no_session.headers(), "allow"), "POST");

    let session = session(&server).await;
    let stateless = server
        .send(
            Method::GET,
            &[
                ("accept", "text/event-stream"),
                ("mcp-protocol-version", STATELESS),
                ("mcp-session-id", &session),
            ],
            None,
        )
        .await;
    assert_eq!(stateless.status(), StatusCode::METHOD_NOT_ALLOWED);

    let stream = server
        .send(
            Method::GET,
            &[
                ("accept", "text/event-stream"),
                ("mcp-session-id", &session),
            ],
            None,
        )
        .await;
    assert_sse(&stream);
    assert_eq!(header(stream.headers(), "x-accel-buffering"), "no");

    let second = server
        .send(
            Method::GET,
            &[
                ("accept", "text/event-stream"),
                ("mcp-session-id", &session),
            ],
            None,
        )
        .await;
    assert_eq!(second.status(), StatusCode::CONFLICT);
}

#[tokio::test]
async fn call_with_progress_token_streams_progress_then_the_response() {
    let server = test_tools(HttpConfig::default()).await;
    let session = session(&server).await;
    let call = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
        "name": "test_sleep", "arguments": { "ms": 20, "steps": 2 },
        "_meta": { "progressToken": "p1" } }});
    let response = server
        .post(
            &[
                ("mcp-session-id", &session),
                ("mcp-protocol-version", LEGACY),
            ],
            &call,
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let messages = sse_messages(response).await;
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert_eq!(messages[0]["method"], "notifications/progress");
    assert_eq!(messages[0]["params"]["progressToken"], "p1");
    assert_eq!(messages[0]["params"]["progress"], 1.0);
    assert_eq!(messages[1]["params"]["progress"], 2.0);
    assert_eq!(messages[1]["params"]["total"], 2.0);
    assert_eq!(messages[2]["id"], 8);
    assert_eq!(messages[2]["result"]["content"][0]["text"], "slept 20 ms");
}

#[tokio::test]
async fn stateless_call_with_matching_headers_answers_json() {
    let server = test_tools(HttpConfig::default()).await;
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "test_sleep", "arguments": { "ms": 0 }, "_meta": stateless_meta() }});
    let response = server.post_stateless(&call).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(header(response.headers(), "mcp-session-id"), "");
    let body = json_body(response).await;
    assert_eq!(body["id"], 9);
    assert_eq!(body["result"]["resultType"], "complete");
    assert_eq!(body["result"]["content"][0]["text"], "slept 0 ms");
}

#[tokio::test]
async fn stateless_header_mismatches_are_400_with_32020() {
    let server = test_tools(HttpConfig::default()).await;
    let call = json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {
        "name": "test_sleep", "arguments": { "ms": 0 }, "_meta": stateless_meta() }});
    let cases: [(&[(&str, &str)], &str); 5] = [
        (
            &[
                ("mcp-protocol-version", STATELESS),
                ("mcp-method", "tools/call"),
                ("mcp-name", "other_tool"),
            ],
            "Mcp-Name",
        ),
        (
            &[
                ("mcp-protocol-version", STATELESS),
                ("mcp-method", "tools/list"),
                ("mcp-name", "test_sleep"),
            ],
            "Mcp-Method",
        ),
        (
            &[
                ("mcp-protocol-version", STATELESS),
                ("mcp-name", "test_sleep"),
            ],
            "Mcp-Method is missing",
        ),
        (
            &[
                ("mcp-protocol-version", STATELESS),
                ("mcp-method", "tools/call"),
            ],
            "Mcp-Name is missing",
        ),
        (
            &[("mcp-method", "tools/call"), ("mcp-name", "test_sleep")],
            "MCP-Protocol-Version is missing",
        ),
    ];
    for (headers, says) in cases {
        let response = server.post(headers, &call).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{says}");
        let body = json_body(response).await;
        assert_eq!(body["id"], 10);
        assert_eq!(body["error"]["code"], -32020, "{says}");
        let message = body["error"]["message"].as_str().unwrap_or("");
        assert!(message.contains(says), "{message:?} should say {says:?}");
    }

    let mut older = call.clone();
    older["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!(LEGACY);
    let response = server.post_stateless(&older).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_eq!(json_body(response).await["error"]["code"], -32020);
}

#[tokio::test]
async fn stateless_unsupported_revision_is_400_with_32022() {
    let server = test_tools(HttpConfig::default()).await;
    let mut meta = stateless_meta();
    meta["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let response = server
        .post(
            &[
                ("mcp-protocol-version", "2099-01-01"),
                ("mcp-method", "tools/list"),
            ],
            &json!({"jsonrpc": "2.0", "id": 11, "method": "tools/list", "params": {"_meta": meta}}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body = json_body(response).await;
    assert_eq!(body["id"], 11);
    assert_eq!(body["error"]["code"], -32022);
    assert_eq!(body["error"]["data"]["requested"], "2099-01-01");
    assert_eq!(body["error"]["data"]["supported"], json!([STATELESS]));
}

#[tokio::test]
async fn stateless_unknown_method_is_404_with_32601() {
    let server = test_tools(HttpConfig::default()).await;
    let response = server
        .post_stateless(&json!({"jsonrpc": "2.0", "id": 12, "method": "no/such",
            "params": {"_meta": stateless_meta()}}))
        .await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let body = json_body(response).await;
    assert_eq!(body["id"], 12);
    assert_eq!(body["error"]["code"], -32601);
}

#[tokio::test]
async fn stateless_notification_is_202_and_get_delete_are_405() {
    let server = test_tools(HttpConfig::default()).await;
    let response = server
        .post_stateless(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 1, "_meta": stateless_meta()}}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert_eq!(response.text().await.expect("body"), "");

    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let response = server
            .send(
                method.clone(),
                &[
                    ("accept", "text/event-stream"),
                    ("mcp-protocol-version", STATELESS),
                ],
                None,
            )
            .await;
        assert_eq!(
            response.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{method}"
        );
    }
}

#[tokio::test]
async fn stateless_progress_streams_over_sse() {
    let server = test_tools(HttpConfig::default()).await;
    let mut meta = stateless_meta();
    meta["progressToken"] = json!(5);
    let call = json!({"jsonrpc": "2.0", "id": 13, "method": "tools/call", "params": {
        "name": "test_sleep", "arguments": { "ms": 10, "steps": 1 }, "_meta": meta }});
    let response = server.post_stateless(&call).await;
    assert_eq!(response.status(), StatusCode::OK);
    let messages = sse_messages(response).await;
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[0]["params"]["progressToken"], 5);
    assert_eq!(messages[1]["id"], 13);
    assert_eq!(messages[1]["result"]["resultType"], "complete");
}

#[tokio::test]
async fn malformed_body_is_400_with_32700() {
    let server = test_tools(HttpConfig::default()).await;
    let response = server
        .send(
            Method::POST,
            &[("content-type", "application/json")],
            Some(b"{not json".to_vec()),
        )
        .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body = json_body(response).await;
    assert_eq!(body["error"]["code"], -32700);
    assert_eq!(body["id"], Value::Null);
}

#[tokio::test]
async fn bearer_is_required_when_configured() {
    let server = test_tools(HttpConfig {
        bearer: Some("s3cret".into()),
        ..HttpConfig::default()
    })
    .await;
    let ping = json!({"jsonrpc": "2.0", "id": 14, "method": "server/discover", "params": {"_meta": stateless_meta()}});
    let stateless = [
        ("mcp-protocol-version", STATELESS),
        ("mcp-method", "server/discover"),
    ];
    let missing = server.post(&stateless, &ping).await;
    assert_eq!(missing.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(header(missing.headers(), "www-authenticate"), "Bearer");
    let refused = json_body(missing).await;
    let text = refused["error"]["message"].as_str().expect("a message");
    assert!(
        text.starts_with("missing or wrong bearer token: send `Authorization: Bearer <token>`")
            && text.contains("HANZO_MCP_HTTP_BEARER"),
        "{text}"
    );
    let wrong = server
        .post(
            &[
                stateless[0],
                stateless[1],
                ("authorization", "Bearer s3cre"),
            ],
            &ping,
        )
        .await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    let right = server
        .post(
            &[
                stateless[0],
                stateless[1],
                ("authorization", "Bearer s3cret"),
            ],
            &ping,
        )
        .await;
    assert_eq!(right.status(), StatusCode::OK);
    assert_eq!(json_body(right).await["result"]["resultType"], "complete");
}

/// Through the binary too: no bearer is made up for a non-loopback
/// address, with or without `--http-no-auth`.
#[test]
fn the_binary_refuses_a_non_loopback_bind_without_a_bearer() {
    for extra in [&[][..], &["--http-no-auth"][..]] {
        let mut args = vec!["serve", "--no-door", "--http", "0.0.0.0:0"];
        args.extend_from_slice(extra);
        let out = crate::common::run(&args, &[]);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(
                "--http 0.0.0.0:0: a non-loopback address needs a bearer (HANZO_MCP_HTTP_BEARER)"
            ),
            "{extra:?}: {stderr}"
        );
        assert!(!stderr.contains("http-bearer-"), "{extra:?}: {stderr}");
        // Refused before anything else is said: no start-up line.
        assert_eq!(stderr.lines().count(), 1, "{extra:?}: {stderr}");
    }
}

/// The bearer the server makes is never written where the tools can read
/// it: a state folder inside the root (a server started in the home
/// folder, say) stops the start, naming the file, the root and the fix,
/// and writes nothing.
#[test]
fn the_bearer_file_is_never_written_inside_a_root() {
    let root = tempfile::tempdir().expect("root");
    let state = root.path().join("state");
    let out = crate::common::run(
        &["serve", "--no-door", "--http", "127.0.0.1:0", "--root"]
            .into_iter()
            .chain([root.path().to_str().expect("utf-8")])
            .collect::<Vec<_>>(),
        &[("HANZO_MCP_STATE", state.to_str().expect("utf-8"))],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("would lie inside the root")
            && stderr.contains("set HANZO_MCP_HTTP_BEARER, or HANZO_MCP_STATE to a folder outside"),
        "{stderr}"
    );
    assert!(!state.exists(), "nothing written");
}

/// A state folder named with a `..` after a folder that does not exist
/// (`<root>/new/../`) is the root itself: the start stops as for any state
/// folder inside the root, and nothing is made there, neither the file
/// nor the missing folder.
#[test]
fn a_state_folder_leading_into_a_root_through_dot_dots_gets_no_bearer_file() {
    let root = tempfile::tempdir().expect("root");
    let root_arg = root.path().to_str().expect("utf-8");
    let state = format!("{root_arg}/new/../");
    let mut server = crate::common::Proc::spawn_with_env(
        &[
            "serve",
            "--no-door",
            "--http",
            "127.0.0.1:0",
            "--root",
            root_arg,
        ],
        &[("HANZO_MCP_STATE", state.as_str())],
    );
    let line = server.stderr_line();
    assert!(
        line.contains("would lie inside the root")
            && line.contains("set HANZO_MCP_HTTP_BEARER, or HANZO_MCP_STATE to a folder outside"),
        "{line}"
    );
    assert_eq!(server.wait().code(), Some(2));
    let left: Vec<String> = std::fs::read_dir(root.path())
        .expect("read the root")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(left, Vec::<String>::new());
}

/// The bearer file a loopback server makes is gone once the server has
/// ended on its own terms (SIGTERM): a bearer nobody checks is not left
/// on disk.
#[test]
fn the_bearer_file_is_removed_when_the_server_ends() {
    let root = tempfile::tempdir().expect("root");
    let state = tempfile::tempdir().expect("state");
    let server = crate::common::Proc::spawn_with_env(
        &[
            "serve",
            "--no-door",
            "--http",
            "127.0.0.1:0",
            "--root",
            root.path().to_str().unwrap(),
        ],
        &[("HANZO_MCP_STATE", state.path().to_str().unwrap())],
    );
    let file = || {
        std::fs::read_dir(state.path())
            .into_iter()
            .flatten()
            .flatten()
            .find(|entry| {
                entry
                    .file_name()
                    .to_string_lossy()
                    .starts_with("http-bearer-")
            })
    };
    let start = std::time::Instant::now();
    while file().is_none() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(file().is_some(), "the bearer file is written");
    let status = std::process::Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let start = std::time::Instant::now();
    while file().is_some() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(file().is_none(), "the bearer file is removed");
}

#[tokio::test]
async fn non_loopback_bind_without_bearer_is_refused() {
    let server = Arc::new(tools::server("t", Vec::new()));
    let addr: SocketAddr = "0.0.0.0:0".parse().expect("address");
    let outcome = serve_http(server, addr, HttpConfig::default(), |_| {}, async {}).await;
    let error = outcome.expect_err("refused").to_string();
    assert_eq!(
        error,
        "configuration: --http 0.0.0.0:0: a non-loopback address needs a bearer (HANZO_MCP_HTTP_BEARER)"
    );
}

#[tokio::test]
async fn stateless_requests_without_their_required_meta_are_400_with_32602() {
    let server = test_tools(HttpConfig::default()).await;
    let headers = [
        ("mcp-protocol-version", STATELESS),
        ("mcp-method", "server/discover"),
    ];
    let mut no_capabilities = stateless_meta();
    no_capabilities
        .as_object_mut()
        .expect("meta object")
        .remove("io.modelcontextprotocol/clientCapabilities");
    let mut no_revision = stateless_meta();
    no_revision
        .as_object_mut()
        .expect("meta object")
        .remove("io.modelcontextprotocol/protocolVersion");
    let cases = [
        (
            json!({}),
            "io.modelcontextprotocol/protocolVersion\"] is required",
        ),
        (
            json!({ "_meta": no_revision }),
            "io.modelcontextprotocol/protocolVersion\"] is required",
        ),
        (
            json!({ "_meta": no_capabilities }),
            "io.modelcontextprotocol/clientCapabilities\"] is required",
        ),
    ];
    for (id, (params, says)) in cases.into_iter().enumerate() {
        let body =
            json!({"jsonrpc": "2.0", "id": id, "method": "server/discover", "params": params});
        let response = server.post(&headers, &body).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{says}");
        let body = json_body(response).await;
        assert_eq!(body["id"], json!(id));
        assert_eq!(body["error"]["code"], -32602, "{body}");
        let message = body["error"]["message"].as_str().unwrap_or("");
        assert!(message.contains(says), "{message:?} should say {says:?}");
    }
}

/// A source with one tool whose `region` argument is mirrored into
/// `Mcp-Param-Region` (`x-mcp-header`); a `region` of `panic` panics.
fn regional() -> Tools {
    let tool = json!({ "name": "regional", "inputSchema": {
        "type": "object",
        "properties": { "region": { "type": "string", "x-mcp-header": "Region" } } } });
    Tools::from_json("regional", vec![tool], |params, _cx| async move {
        let region = params.arguments.as_ref().and_then(|a| a.get("region"));
        if region.is_some_and(|r| r == "panic") {
            panic!("a tool that panics");
        }
        text(format!("{region:?}"))
    })
}

#[tokio::test]
async fn mcp_param_headers_must_match_the_annotated_arguments() {
    let running = start(regional().serve("http-test"), HttpConfig::default()).await;
    let call = |region: Option<&str>| {
        let mut arguments = json!({});
        if let Some(region) = region {
            arguments["region"] = json!(region);
        }
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": { "name": "regional", "arguments": arguments, "_meta": stateless_meta() }})
    };
    let base = [
        ("mcp-protocol-version", STATELESS),
        ("mcp-method", "tools/call"),
        ("mcp-name", "regional"),
    ];
    // (body region, Mcp-Param-Region, accepted)
    let cases = [
        (Some("Hello"), Some("=?base64?SGVsbG8=?="), true),
        (Some("Hello"), Some("Hello"), true),
        (Some("SGVsbG8="), Some("SGVsbG8="), true),
        (Some("=?base64?SGVsbG8="), Some("=?base64?SGVsbG8="), true),
        (None, None, true),
        (Some("Hello"), Some("=?base64?SGVsbG8?="), false),
        (Some("Hello"), Some("=?base64?SGVs!!!bG8=?="), false),
        (Some("Hello"), Some("Bye"), false),
        (Some("Hello"), None, false),
        (None, Some("Hello"), false),
    ];
    for (region, sent, accepted) in cases {
        let mut headers = base.to_vec();
        if let Some(sent) = sent {
            headers.push(("mcp-param-region", sent));
        }
        let response = running.post(&headers, &call(region)).await;
        let status = response.status();
        let body = json_body(response).await;
        if accepted {
            assert_eq!(status, StatusCode::OK, "{region:?} {sent:?}: {body}");
            assert_eq!(body["result"]["resultType"], "complete", "{body}");
        } else {
            assert_eq!(status, StatusCode::BAD_REQUEST, "{region:?} {sent:?}");
            assert_eq!(body["id"], 5);
            assert_eq!(body["error"]["code"], -32020, "{body}");
            let message = body["error"]["message"].as_str().unwrap_or("");
            assert!(message.contains("Mcp-Param-Region"), "{message}");
        }
    }
    // A tool that panics still gets its request answered: -32603.
    let mut headers = base.to_vec();
    headers.push(("mcp-param-region", "panic"));
    let response = running.post(&headers, &call(Some("panic"))).await;
    let body = json_body(response).await;
    assert_eq!(body["id"], 5);
    assert_eq!(body["error"]["code"], -32603, "{body}");
}

// The `Host` check against DNS rebinding (MCP 2025-11-25 basic/transports,
// security warning): without a bearer the server is loopback-only, so a
// `Host` that is not a loopback name or one configured through
// `allowed_origins` gets 403, even with no `Origin`.

/// A 2026-07-28 `tools/list` body.
fn tools_list() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": stateless_meta()}})
}

/// POSTs `tools/list` with `Host: host` and the extra headers.
async fn list_with_host(http: &Http, host: &str, extra: &[(&str, &str)]) -> reqwest::Response {
    let mut headers = vec![
        ("host", host),
        ("mcp-protocol-version", STATELESS),
        ("mcp-method", "tools/list"),
    ];
    headers.extend_from_slice(extra);
    http.post(&headers, &tools_list()).await
}

async fn host_test(config: HttpConfig) -> Running {
    serve_test_tools("http-host-test", config).await
}

async fn assert_refused(response: reqwest::Response) {
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("application/json")
    );
    let body: Value = response.json().await.expect("JSON body");
    assert_eq!(
        body,
        json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Host not allowed"}})
    );
}

async fn assert_listed(response: reqwest::Response) {
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.expect("JSON body");
    assert_eq!(body["id"], json!(1));
    assert!(
        body["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "a tool list: {body}"
    );
}

#[tokio::test]
async fn loopback_hosts_are_accepted_with_any_port() {
    let running = host_test(HttpConfig::default()).await;
    let port = running.listening.addr.port();
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("LocalHost:{port}"),
        format!("[::1]:{port}"),
        "127.0.0.2".to_owned(),
        "localhost".to_owned(),
    ] {
        assert_listed(list_with_host(&running, &host, &[]).await).await;
    }
}

#[tokio::test]
async fn a_rebound_host_without_origin_gets_403() {
    let running = host_test(HttpConfig::default()).await;
    let port = running.listening.addr.port();
    for host in [
        format!("evil.example:{port}"),
        "evil.example".to_owned(),
        format!("localhost.evil.example:{port}"),
        format!("127.0.0.1.evil.example:{port}"),
        format!("10.0.0.5:{port}"),
        format!("evil@localhost:{port}"),
        format!("[::1:{port}"),
    ] {
        assert_refused(list_with_host(&running, &host, &[]).await).await;
    }
}

#[tokio::test]
async fn a_rebound_host_is_refused_on_get_and_delete_too() {
    let running = host_test(HttpConfig::default()).await;
    let get = running
        .send(
            Method::GET,
            &[("host", "evil.example"), ("accept", "text/event-stream")],
            None,
        )
        .await;
    assert_refused(get).await;
    let delete = running
        .send(
            Method::DELETE,
            &[("host", "evil.example"), ("mcp-session-id", "whatever")],
            None,
        )
        .await;
    assert_refused(delete).await;
}

#[tokio::test]
async fn a_host_named_in_allowed_origins_is_accepted() {
    let running = host_test(HttpConfig {
        allowed_origins: vec!["http://mcp.internal:3000".into()],
        ..HttpConfig::default()
    })
    .await;
    let port = running.listening.addr.port();
    assert_listed(list_with_host(&running, &format!("MCP.internal:{port}"), &[]).await).await;
    assert_refused(list_with_host(&running, &format!("evil.example:{port}"), &[]).await).await;
}

#[tokio::test]
async fn with_a_bearer_any_host_is_served() {
    let running = host_test(HttpConfig {
        bearer: Some("host-test-bearer".into()),
        ..HttpConfig::default()
    })
    .await;
    let response = list_with_host(
        &running,
        "mcp.example.com",
        &[("authorization", "Bearer host-test-bearer")],
    )
    .await;
    assert_listed(response).await;
}

// A POST whose body stops arriving (`Content-Length: 100`, one byte sent)
// gets 408 with a -32600 error body once `HttpConfig::body_read_timeout`
// passes, and its connection is closed, so it no longer holds one of
// `max_connections`: the next client is served.

#[tokio::test]
async fn a_body_that_stops_arriving_gets_408_and_frees_the_connection() {
    let running = start(
        tools::server("body-timeout", Vec::new()),
        HttpConfig {
            body_read_timeout: Duration::from_secs(1),
            max_connections: 1,
            ..HttpConfig::default()
        },
    )
    .await;
    let addr = running.listening.addr;

    let slow = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{{"
    );
    let (status, headers, body) = exchange(addr, slow.as_bytes()).await;
    assert_eq!(status, "HTTP/1.1 408 Request Timeout");
    assert!(
        headers.iter().any(|h| h == "connection: close"),
        "{headers:?}"
    );
    // The request id is unknown: the error response carries none, as every
    // transport-level refusal here (mcp-proto leaves out a null `id`).
    assert_eq!(
        body,
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"the request body did not arrive within 1 s"}}"#
    );

    // The only connection slot is free again: a whole request is answered.
    let initialize = json!({ "jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "second", "version": "1" } } })
    .to_string();
    let (status, _, body) = exchange(addr, raw_post(addr, &initialize).as_bytes()).await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    let reply: Value = serde_json::from_str(&body).expect("a JSON body");
    assert_eq!(reply["id"], json!(7));
    assert_eq!(reply["result"]["protocolVersion"], json!("2025-11-25"));
    assert_eq!(reply["result"]["serverInfo"]["name"], json!("body-timeout"));
}
