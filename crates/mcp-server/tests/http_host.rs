//! The `Host` check of the streamable HTTP transport against DNS rebinding
//! (MCP 2025-11-25 basic/transports, security warning): without a bearer
//! the server is loopback-only, so a `Host` that is not a loopback name or
//! one configured through `allowed_origins` gets 403, even with no
//! `Origin`. reqwest against the server on an ephemeral loopback port.

mod http_support;

use std::sync::Arc;

use mcp_local_server::http::HttpConfig;
use mcp_local_server::test_tools::TestTools;
use mcp_local_server::{Composition, Server, ServerConfig, ToolSource};
use mcp_proto::Implementation;
use reqwest::StatusCode;
use serde_json::{Value, json};

struct Running {
    url: String,
    port: u16,
    client: reqwest::Client,
    _server: http_support::Listening,
}

async fn start(config: HttpConfig) -> Running {
    let info: Implementation =
        serde_json::from_value(json!({ "name": "http-host-test", "version": "0.0.1" }))
            .expect("valid Implementation");
    let sources: Vec<Arc<dyn ToolSource>> = vec![Arc::new(TestTools)];
    let server = Arc::new(Server::new(
        Composition::new(sources),
        ServerConfig::new(info),
    ));
    let listening = http_support::listen(server, config).await;
    let bound = listening.addr;
    Running {
        url: format!("http://{bound}/mcp"),
        port: bound.port(),
        client: reqwest::Client::new(),
        _server: listening,
    }
}

/// A 2026-07-28 `tools/list` body.
fn tools_list() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "t", "version": "1" },
        "io.modelcontextprotocol/clientCapabilities": {}
    }}})
}

impl Running {
    /// POSTs `tools/list` with `Host: host` and the extra headers.
    async fn list_with_host(&self, host: &str, extra: &[(&str, &str)]) -> reqwest::Response {
        let mut request = self
            .client
            .post(&self.url)
            .header("host", host)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/list")
            .body(tools_list().to_string());
        for (name, value) in extra {
            request = request.header(*name, *value);
        }
        request.send().await.expect("POST answered")
    }
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
    let running = start(HttpConfig::default()).await;
    let port = running.port;
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("LocalHost:{port}"),
        format!("[::1]:{port}"),
        "127.0.0.2".to_owned(),
        "localhost".to_owned(),
    ] {
        assert_listed(running.list_with_host(&host, &[]).await).await;
    }
}

#[tokio::test]
async fn a_rebound_host_without_origin_gets_403() {
    let running = start(HttpConfig::default()).await;
    let port = running.port;
    for host in [
        format!("evil.example:{port}"),
        "evil.example".to_owned(),
        format!("localhost.evil.example:{port}"),
        format!("127.0.0.1.evil.example:{port}"),
        format!("10.0.0.5:{port}"),
        format!("evil@localhost:{port}"),
        format!("[::1:{port}"),
    ] {
        assert_refused(running.list_with_host(&host, &[]).await).await;
    }
}

#[tokio::test]
async fn a_rebound_host_is_refused_on_get_and_delete_too() {
    let running = start(HttpConfig::default()).await;
    let get = running
        .client
        .get(&running.url)
        .header("host", "evil.example")
        .header("accept", "text/event-stream")
        .send()
        .await
        .expect("GET answered");
    assert_refused(get).await;
    let delete = running
        .client
        .delete(&running.url)
        .header("host", "evil.example")
        .header("mcp-session-id", "whatever")
        .send()
        .await
        .expect("DELETE answered");
    assert_refused(delete).await;
}

#[tokio::test]
async fn a_host_named_in_allowed_origins_is_accepted() {
    let running = start(HttpConfig {
        allowed_origins: vec!["http://mcp.internal:3000".into()],
        ..HttpConfig::default()
    })
    .await;
    let port = running.port;
    assert_listed(
        running
            .list_with_host(&format!("MCP.internal:{port}"), &[])
            .await,
    )
    .await;
    assert_refused(
        running
            .list_with_host(&format!("evil.example:{port}"), &[])
            .await,
    )
    .await;
}

#[tokio::test]
async fn with_a_bearer_any_host_is_served() {
    let running = start(HttpConfig {
        bearer: Some("host-test-bearer".into()),
        ..HttpConfig::default()
    })
    .await;
    let response = running
        .list_with_host(
            "mcp.example.com",
            &[("authorization", "Bearer host-test-bearer")],
        )
        .await;
    assert_listed(response).await;
}
