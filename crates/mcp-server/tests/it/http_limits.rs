//! The streamable HTTP transport's limits and edge cases (MCP 2025-11-25
//! and 2026-07-28 basic/transports): reqwest (or a raw TCP
//! stream) against the router on an ephemeral loopback port, asserting
//! status, headers and body. Sessions bounded in number and idle time; a
//! cancelled request's POST; a duplicate id in flight; a server request
//! that cannot reach the client; header and body revisions; the bearer;
//! body size; a malformed client response; slow request headers; the
//! connection cap; the POST `Content-Type`; `initialize` inside a live
//! session.

use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

use mcp_local_server::ServerError;
use mcp_local_server::http::{HttpConfig, serve_http};
use mcp_proto::ErrorObject;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::Notify;

use crate::common::http::{
    BOTH, Http, JSON_ONLY, LEGACY, PATIENCE, Running, STATELESS, Session, assert_sse, header,
    initialize_request, parts, sse_messages, start,
};
use crate::common::tools::{Tools, text};
use crate::common::{roots_list_request, within};

/// `wait` signals `started`, then runs until cancelled or until `release`
/// is notified; `ask` asks the client for its roots and says how many.
fn qa_tools(started: Arc<Notify>, release: Arc<Notify>) -> Tools {
    Tools::new("qa", &["wait", "ask"], move |params, cx| {
        let (started, release) = (started.clone(), release.clone());
        async move {
            if params.name == "ask" {
                let client = cx
                    .client()
                    .ok_or_else(|| ErrorObject::internal_error("no client handle"))?;
                let roots = client.list_roots().await?;
                return text(format!("{} roots", roots.roots.len()));
            }
            started.notify_one();
            tokio::select! {
                () = cx.cancel.cancelled() => {}
                () = release.notified() => {}
            }
            text("released")
        }
    })
}

/// The `qa` tools served with `config`, and their signals.
struct Qa {
    running: Running,
    started: Arc<Notify>,
    release: Arc<Notify>,
}

impl Deref for Qa {
    type Target = Running;

    fn deref(&self) -> &Running {
        &self.running
    }
}

async fn qa(config: HttpConfig) -> Qa {
    let started = Arc::new(Notify::new());
    let release = Arc::new(Notify::new());
    let running = start(
        qa_tools(started.clone(), release.clone()).serve("qa"),
        config,
    )
    .await;
    Qa {
        running,
        started,
        release,
    }
}

/// `initialize` of a client that declares `roots`.
fn initialize_body() -> Value {
    initialize_request(0, json!({ "roots": {} }))
}

/// `initialize` alone: the raw answer.
async fn initialize(http: &Http) -> reqwest::Response {
    http.post(&[], &initialize_body()).await
}

/// `initialize` until it is admitted, while the session cap refuses it
/// (503) until an idle session expires; the admitting answer. A refused
/// `initialize` does not touch the other sessions.
async fn initialize_once_a_session_expires(http: &Http) -> reqwest::Response {
    tokio::time::timeout(PATIENCE, async {
        loop {
            let response = initialize(http).await;
            if response.status() == StatusCode::OK {
                return response;
            }
            assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("an idle session expired")
}

/// A session of a client that declares `roots`.
async fn roots_session(http: &Http) -> Session {
    http.open_session(json!({ "roots": {} })).await
}

/// POSTs `call` (a `wait` call) in `session` accepting `accept`, on a
/// task, and returns once the tool runs; the task ends with the POST's
/// answer.
async fn waiting_call(
    running: &Qa,
    session: &Session,
    accept: &'static str,
    call: Value,
) -> tokio::task::JoinHandle<reqwest::Response> {
    let started = running.started.notified();
    let session = session.clone();
    let task = tokio::spawn(async move { session.post_accept(accept, &call).await });
    within("the call started", started).await;
    task
}

/// POSTs `body` with this `Content-Type` (none when `None`).
async fn post_typed(http: &Http, content_type: Option<&str>, body: &Value) -> reqwest::Response {
    let mut headers = vec![("accept", BOTH)];
    if let Some(content_type) = content_type {
        headers.push(("content-type", content_type));
    }
    http.send(Method::POST, &headers, Some(body.to_string().into_bytes()))
        .await
}

// 1. Sessions are bounded in number and in idle time.

#[tokio::test]
async fn an_initialize_beyond_the_session_cap_is_503_until_one_ends() {
    let running = qa(HttpConfig {
        max_sessions: 2,
        ..HttpConfig::default()
    })
    .await;
    let first = roots_session(&running).await;
    let _second = roots_session(&running).await;
    let (status, kind, body) = parts(initialize(&running).await).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(kind, "application/json");
    assert_eq!(
        body,
        json!({ "jsonrpc": "2.0", "id": 0, "error": { "code": -32603,
            "message": "too many sessions: 2 are live; end one (DELETE) or retry later" } })
    );
    let deleted = running
        .send(Method::DELETE, &[("mcp-session-id", &first.id)], None)
        .await;
    assert_eq!(deleted.status(), StatusCode::OK);
    let again = initialize(&running).await;
    assert_eq!(again.status(), StatusCode::OK);
    assert!(again.headers().get("mcp-session-id").is_some());
}

#[tokio::test]
async fn an_idle_session_expires_and_then_gets_404() {
    let running = qa(HttpConfig {
        max_sessions: 1,
        session_idle: Duration::from_millis(100),
        ..HttpConfig::default()
    })
    .await;
    let idle = roots_session(&running).await;
    // The cap of one refuses a second session until the first expires; a
    // refused initialize does not touch the idle session.
    let admitted = initialize_once_a_session_expires(&running).await;
    assert!(admitted.headers().get("mcp-session-id").is_some());
    let (status, kind, body) = parts(
        idle.post_accept(
            JSON_ONLY,
            &json!({ "jsonrpc": "2.0", "id": 3, "method": "ping" }),
        )
        .await,
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(kind, "application/json");
    // Refused, and still answered to its own id.
    assert_eq!(body["id"], json!(3));
    assert_eq!(body["error"]["code"], json!(-32600));
    assert_eq!(
        body["error"]["message"],
        json!(format!("session {:?} not found or ended", idle.id))
    );
}

#[tokio::test]
async fn a_session_with_an_open_stream_does_not_expire() {
    let running = qa(HttpConfig {
        max_sessions: 2,
        session_idle: Duration::from_millis(100),
        ..HttpConfig::default()
    })
    .await;
    let streaming = roots_session(&running).await;
    let idle = roots_session(&running).await;
    let stream = streaming.get().await;
    assert_sse(&stream);
    let admitted = initialize_once_a_session_expires(&running).await;
    assert!(admitted.headers().get("mcp-session-id").is_some());
    let ping = json!({ "jsonrpc": "2.0", "id": 3, "method": "ping" });
    let (status, _, body) = parts(streaming.post_accept(JSON_ONLY, &ping).await).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, json!({ "jsonrpc": "2.0", "id": 3, "result": {} }));
    let gone = idle.post_accept(JSON_ONLY, &ping).await;
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
    drop(stream);
}

// 2. A cancelled request's POST ends without a response.

async fn cancel_while_waiting(accept: &'static str) -> reqwest::Response {
    let running = qa(HttpConfig::default()).await;
    let session = roots_session(&running).await;
    let call = json!({ "jsonrpc": "2.0", "id": "c1", "method": "tools/call",
        "params": { "name": "wait", "arguments": {} } });
    let call = waiting_call(&running, &session, accept, call).await;
    let cancelled = session
        .post(
            &json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": { "requestId": "c1" } }),
        )
        .await;
    assert_eq!(cancelled.status(), StatusCode::ACCEPTED);
    within("the cancelled POST ended", call)
        .await
        .expect("task")
}

#[tokio::test]
async fn a_cancelled_json_post_is_answered_204_without_a_body() {
    let response = cancel_while_waiting(JSON_ONLY).await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_eq!(header(response.headers(), "content-type"), "");
    assert_eq!(response.text().await.expect("body"), "");
}

#[tokio::test]
async fn a_cancelled_sse_post_gets_a_stream_that_ends_without_events() {
    let response = cancel_while_waiting(BOTH).await;
    assert_sse(&response);
    let body = within("the stream ended", response.text())
        .await
        .expect("body");
    assert!(
        !body.contains("data:"),
        "events on a cancelled stream: {body:?}"
    );
}

// 3. A duplicate id in flight is refused without harming the first request.

#[tokio::test]
async fn a_duplicate_id_in_flight_is_refused_and_the_first_keeps_its_answer() {
    let running = qa(HttpConfig::default()).await;
    let session = roots_session(&running).await;
    let call = json!({ "jsonrpc": "2.0", "id": 42, "method": "tools/call",
        "params": { "name": "wait", "arguments": {} } });
    let first = waiting_call(&running, &session, JSON_ONLY, call).await;
    let (status, kind, body) = parts(
        session
            .post_accept(
                JSON_ONLY,
                &json!({ "jsonrpc": "2.0", "id": 42, "method": "tools/list" }),
            )
            .await,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(kind, "application/json");
    assert_eq!(
        body,
        json!({ "jsonrpc": "2.0", "id": 42, "error": { "code": -32600,
            "message": "request id 42 is already in flight" } })
    );
    running.release.notify_one();
    let (status, kind, body) = parts(within("first answered", first).await.expect("task")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(kind, "application/json");
    assert_eq!(
        body,
        json!({ "jsonrpc": "2.0", "id": 42, "result": { "content": [
            { "type": "text", "text": "released" } ] } })
    );
}

// 4. A server request that cannot reach the client fails at once.

#[tokio::test]
async fn a_server_request_on_a_json_only_post_fails_at_once() {
    let running = qa(HttpConfig::default()).await;
    let session = roots_session(&running).await;
    let ask = json!({ "jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": { "name": "ask", "arguments": {} } });
    let call = session.post_accept(JSON_ONLY, &ask);
    let (status, kind, body) =
        parts(within("answered without waiting for the client", call).await).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(kind, "application/json");
    let why = "cannot reach the client: the client's POST does not accept text/event-stream";
    assert_eq!(
        body,
        json!({ "jsonrpc": "2.0", "id": 5, "error": {
            "code": -32603,
            "message": format!("the client answered roots/list with error -32603: {why}"),
            "data": { "clientError": { "code": -32603, "message": why } } } })
    );
}

// 5. Header and body revisions must agree, in a session or not.

fn mismatched() -> Value {
    json!({ "jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": { "_meta": {
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientInfo": { "name": "qa", "version": "1" },
        "io.modelcontextprotocol/clientCapabilities": {} } } })
}

fn mismatch_error() -> Value {
    json!({ "jsonrpc": "2.0", "id": 9, "error": { "code": -32020,
        "message": "header mismatch: MCP-Protocol-Version is \"2025-11-25\" but params._meta names \"2026-07-28\"" } })
}

#[tokio::test]
async fn a_legacy_header_with_a_2026_body_is_400_in_a_session() {
    let running = qa(HttpConfig::default()).await;
    let session = roots_session(&running).await;
    let (status, kind, body) = parts(session.post_accept(BOTH, &mismatched()).await).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(kind, "application/json");
    assert_eq!(body, mismatch_error());
}

#[tokio::test]
async fn a_legacy_header_with_a_2026_body_is_400_without_a_session() {
    let running = qa(HttpConfig::default()).await;
    let (status, kind, body) = parts(
        running
            .post_accept(&[("mcp-protocol-version", LEGACY)], BOTH, &mismatched())
            .await,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(kind, "application/json");
    assert_eq!(body, mismatch_error());
}

// 6. The Mcp-Name mismatch message is plain text.

#[tokio::test]
async fn the_mcp_name_mismatch_names_the_body_field_plainly() {
    let running = qa(HttpConfig::default()).await;
    let call = |name: Option<&str>| {
        let mut params = json!({ "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": STATELESS,
            "io.modelcontextprotocol/clientInfo": { "name": "qa", "version": "1" },
            "io.modelcontextprotocol/clientCapabilities": {} } });
        if let Some(name) = name {
            params["name"] = json!(name);
        }
        json!({ "jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": params })
    };
    let headers = [
        ("mcp-protocol-version", STATELESS),
        ("mcp-method", "tools/call"),
        ("mcp-name", "wait"),
    ];
    for (name, said) in [
        (Some("ask"), "params.name is \"ask\""),
        (None, "params.name is missing"),
    ] {
        let (status, kind, body) =
            parts(running.post_accept(&headers, BOTH, &call(name)).await).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(kind, "application/json");
        assert_eq!(
            body,
            json!({ "jsonrpc": "2.0", "id": 4, "error": { "code": -32020,
                "message": format!("header mismatch: Mcp-Name is \"wait\" but {said}") } })
        );
    }
}

// 7. The bearer scheme is case-insensitive; a blank bearer is refused.

#[tokio::test]
async fn the_bearer_scheme_is_case_insensitive() {
    let running = qa(HttpConfig {
        bearer: Some("tok".into()),
        ..HttpConfig::default()
    })
    .await;
    for scheme in ["BEARER", "bearer", "Bearer", "bEaReR"] {
        let authorization = format!("{scheme} tok");
        let response = running
            .post_accept(
                &[("authorization", &authorization)],
                BOTH,
                &initialize_body(),
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK, "{scheme}");
        let body = response.json::<Value>().await.expect("JSON");
        assert_eq!(body["result"]["protocolVersion"], json!(LEGACY));
    }
    let (status, _, body) = parts(
        running
            .post_accept(&[("authorization", "Basic tok")], BOTH, &initialize_body())
            .await,
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["error"]["code"], json!(-32600));
}

#[tokio::test]
async fn a_blank_bearer_is_a_configuration_error() {
    let served = serve_http(
        Arc::new(qa_tools(Arc::default(), Arc::default()).serve("qa")),
        "127.0.0.1:0".parse().expect("address"),
        HttpConfig {
            bearer: Some(" ".into()),
            ..HttpConfig::default()
        },
        |_| {},
        std::future::pending(),
    );
    let result = within("refused at once", served).await;
    match result {
        Err(ServerError::Config(message)) => assert_eq!(
            message,
            "--http 127.0.0.1:0: the bearer (HANZO_MCP_HTTP_BEARER) is empty or only whitespace"
        ),
        other => panic!("expected a configuration error, got {other:?}"),
    }
}

// 8. An oversized body gets 413 with a JSON-RPC error.

#[tokio::test]
async fn an_oversized_body_is_413_with_a_json_rpc_error() {
    let running = qa(HttpConfig {
        max_body_bytes: 64,
        ..HttpConfig::default()
    })
    .await;
    let (status, kind, body) =
        parts(running.post_accept(&[], BOTH, &initialize_body()).await).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(kind, "application/json");
    assert_eq!(
        body,
        json!({ "jsonrpc": "2.0", "error": { "code": -32600,
            "message": "request body larger than 64 bytes" } })
    );
}

// The second pass.

/// A malformed client response is a response, never answered with an
/// id-carrying error (JSON-RPC 2.0 §5); it gets 202 and fails the server
/// request it answers at once, as over stdio.
#[tokio::test]
async fn a_malformed_client_response_is_202_and_fails_the_waiting_call_at_once() {
    let running = qa(HttpConfig::default()).await;
    let session = roots_session(&running).await;
    let call = session
        .post(&json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/call",
                "params": { "name": "ask", "arguments": {} } }))
        .await;
    assert_sse(&call);
    let reading = tokio::spawn(sse_messages(call));
    // The server request is s-1 (the first of this connection); answer it
    // with both result and error.
    let bad = session
        .post(&json!({ "jsonrpc": "2.0", "id": "s-1", "result": {},
                "error": { "code": 1, "message": "x" } }))
        .await;
    assert_eq!(bad.status(), StatusCode::ACCEPTED);
    assert_eq!(bad.text().await.expect("body"), "");
    let messages = reading.await.expect("reader");
    assert_eq!(
        messages,
        vec![
            roots_list_request(1),
            json!({ "jsonrpc": "2.0", "id": 7, "error": { "code": -32603,
                "message": "the client's response to roots/list was malformed: a response must have result or error, not both" } }),
        ]
    );
}

/// Without a session to take it, a malformed response gets 400 whose
/// error carries no id.
#[tokio::test]
async fn a_malformed_response_without_a_session_gets_a_null_id_error() {
    let running = qa(HttpConfig::default()).await;
    let bad = running
        .post(
            &[],
            &json!({ "jsonrpc": "2.0", "id": "s-1", "result": {},
                "error": { "code": 1, "message": "x" } }),
        )
        .await;
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    let body: Value = bad.json().await.expect("JSON body");
    assert_eq!(body.get("id"), None, "{body}");
    assert_eq!(body["error"]["code"], json!(-32600));
    assert_eq!(
        body["error"]["message"],
        json!("Mcp-Session-Id is required: send initialize first to open a session")
    );
}

/// A connection that sends half a request line is closed once the
/// header read timeout passes; a full request is still served.
#[tokio::test]
async fn a_half_sent_request_header_is_closed_after_the_header_timeout() {
    let running = qa(HttpConfig {
        header_read_timeout: Duration::from_millis(200),
        ..HttpConfig::default()
    })
    .await;
    let mut slow = tokio::net::TcpStream::connect(running.listening.addr)
        .await
        .expect("connect");
    slow.write_all(b"POST /mc")
        .await
        .expect("half a request line");
    let mut got = Vec::new();
    let read = within(
        "the server closes the connection",
        slow.read_to_end(&mut got),
    )
    .await;
    // Closed: end of stream (hyper may say 408 first) or a reset.
    if read.is_ok() {
        let text = String::from_utf8_lossy(&got);
        assert!(
            got.is_empty() || text.starts_with("HTTP/1.1 408"),
            "unexpected bytes: {text:?}"
        );
    }
    let fine = running
        .post(&[], &initialize_request(1, json!({ "roots": {} })))
        .await;
    assert_eq!(fine.status(), StatusCode::OK);
}

/// At the connection cap nothing more is served until a connection
/// closes (the next client waits in the backlog, then is served).
#[tokio::test]
async fn beyond_the_connection_cap_a_client_waits_until_one_closes() {
    let running = qa(HttpConfig {
        max_connections: 1,
        ..HttpConfig::default()
    })
    .await;
    let holder = tokio::net::TcpStream::connect(running.listening.addr)
        .await
        .expect("connect");
    // Give the accept loop the holder first (it has no way to say when).
    tokio::time::sleep(Duration::from_millis(100)).await;
    let waiting = tokio::spawn({
        let url = running.url.clone();
        async move {
            reqwest::Client::new()
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", BOTH)
                .body(initialize_request(2, json!({ "roots": {} })).to_string())
                .send()
                .await
                .expect("POST answered")
        }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiting.is_finished(), "served past the cap");
    drop(holder);
    let answered = within("served once a slot frees", waiting)
        .await
        .expect("task");
    assert_eq!(answered.status(), StatusCode::OK);
    let body: Value = answered.json().await.expect("JSON body");
    assert_eq!(body["id"], json!(2));
    assert_eq!(body["result"]["protocolVersion"], json!("2025-11-25"));
}

/// A POST body is JSON; another or no `Content-Type` is 415 with a
/// -32600 error (no id: the body is not read), parameters such as charset
/// are fine.
#[tokio::test]
async fn a_post_that_is_not_application_json_is_415() {
    let running = qa(HttpConfig::default()).await;
    for content_type in [Some("text/plain"), None, Some("application/jsonx")] {
        let refused = post_typed(
            &running,
            content_type,
            &initialize_request(3, json!({ "roots": {} })),
        )
        .await;
        assert_eq!(
            refused.status(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "{content_type:?}"
        );
        assert_eq!(
            refused
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok()),
            Some("application/json")
        );
        assert_eq!(
            refused.json::<Value>().await.expect("JSON body"),
            json!({ "jsonrpc": "2.0", "error": { "code": -32600,
                "message": "Content-Type must be application/json" } })
        );
    }
    let fine = post_typed(
        &running,
        Some("Application/JSON; charset=utf-8"),
        &initialize_request(4, json!({ "roots": {} })),
    )
    .await;
    assert_eq!(fine.status(), StatusCode::OK);
    assert_eq!(
        fine.json::<Value>().await.expect("JSON body")["id"],
        json!(4)
    );
}

/// QA 4: `initialize` naming a live session is answered in that session,
/// which refuses it as stdio does; no second session is opened.
#[tokio::test]
async fn initialize_in_a_live_session_is_refused_there() {
    let running = qa(HttpConfig::default()).await;
    let session = roots_session(&running).await;
    let again = session
        .post(&initialize_request(9, json!({ "roots": {} })))
        .await;
    assert_eq!(again.status(), StatusCode::OK);
    assert!(again.headers().get("mcp-session-id").is_none());
    assert_eq!(
        again.json::<Value>().await.expect("JSON body"),
        json!({ "jsonrpc": "2.0", "id": 9, "error": { "code": -32600,
            "message": "initialize was already answered on this connection (revision 2025-11-25)" } })
    );
    // The session still works.
    let ping = session
        .post(&json!({ "jsonrpc": "2.0", "id": 10, "method": "ping" }))
        .await;
    assert_eq!(
        ping.json::<Value>().await.expect("JSON body"),
        json!({ "jsonrpc": "2.0", "id": 10, "result": {} })
    );
}

// Left by an earlier QA pass ("breaker"): each failed on the code of its
// day. After `notifications/cancelled`, the POST that carried the request
// must end; a second POST reusing the id of a request in flight must not
// make the first fail.

/// A JSON-only session of a client with no capabilities.
async fn plain_session(http: &Http) -> Session {
    http.open_session(json!({})).await
}

#[tokio::test]
async fn http_cancelled_request_post_is_closed() {
    let running = qa(HttpConfig::default()).await;
    let session = plain_session(&running).await;
    let call = json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": { "name": "wait" } });
    let call = waiting_call(&running, &session, JSON_ONLY, call).await;
    let cancelled = session
        .post_accept(
            JSON_ONLY,
            &json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": { "requestId": 7 } }),
        )
        .await;
    assert_eq!(cancelled.status(), StatusCode::ACCEPTED);
    // Any ending will do (an empty body, an error); hanging forever will not.
    let ended = tokio::time::timeout(PATIENCE, async {
        call.await.expect("task").text().await.unwrap_or_default()
    })
    .await;
    assert!(ended.is_ok(), "the cancelled request's POST never ended");
}

#[tokio::test]
async fn http_duplicate_id_keeps_the_original_answer() {
    let running = qa(HttpConfig::default()).await;
    let session = plain_session(&running).await;
    let call = json!({ "jsonrpc": "2.0", "id": 42, "method": "tools/call",
        "params": { "name": "wait" } });
    let first = waiting_call(&running, &session, JSON_ONLY, call).await;
    let second = session
        .post_accept(
            JSON_ONLY,
            &json!({ "jsonrpc": "2.0", "id": 42, "method": "tools/list" }),
        )
        .await;
    let second: Value = second.json().await.expect("json");
    assert_eq!(second["error"]["code"], json!(-32600));
    running.release.notify_one();
    let first = within("first answered", first).await.expect("task");
    let status = first.status();
    let body = first.text().await.unwrap_or_default();
    assert_eq!(status, StatusCode::OK, "first POST: {body}");
    let body: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(body["result"]["content"][0]["text"], json!("released"));
}
