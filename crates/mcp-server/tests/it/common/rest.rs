//! A loopback REST service for the door's tests (`hanzo-mcp door` forwards
//! to it), recording what it was sent.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

/// How long the service takes to answer a path ending in `/slow`.
pub const SLOW: Duration = Duration::from_millis(1500);

/// (method, path, authorization, body) of each request the REST service saw.
pub type Log = Arc<Mutex<Vec<(String, String, Option<String>, String)>>>;

/// A loopback REST service answering every request with a JSON echo
/// (`{"deployed": <path>, "body": <body>}`); a path ending in `/slow` is
/// answered after [`SLOW`].
pub fn spawn_rest() -> (String, Log) {
    let log: Log = Arc::default();
    let seen = Arc::clone(&log);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let app = axum::Router::new().fallback(move |req: axum::extract::Request| {
                let seen = Arc::clone(&seen);
                async move {
                    let (parts, body) = req.into_parts();
                    let body = axum::body::to_bytes(body, 1 << 20)
                        .await
                        .unwrap_or_default();
                    let auth = parts
                        .headers
                        .get("authorization")
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned);
                    let body = String::from_utf8_lossy(&body).into_owned();
                    seen.lock().unwrap().push((
                        parts.method.to_string(),
                        parts.uri.path().to_owned(),
                        auth,
                        body.clone(),
                    ));
                    if parts.uri.path().ends_with("/slow") {
                        tokio::time::sleep(SLOW).await;
                    }
                    let echo = json!({"deployed": parts.uri.path(), "body": body});
                    ([("content-type", "application/json")], echo.to_string())
                }
            });
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind");
            tx.send(listener.local_addr().expect("addr")).expect("send");
            axum::serve(listener, app).await.expect("serve");
        });
    });
    let addr = rx.recv().expect("REST address");
    (format!("http://{addr}"), log)
}
