//! The listener's bounds (`serve_app`): a client that sends its request
//! headers too slowly is closed, and at the connection cap a new client
//! waits for a slot instead of being served beside the others; and the
//! door's own: a body that stalls is answered 408, one too large 413.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_door::{Door, DoorConfig, router};
use mcp_streamable_http::{ListenLimits, serve_app};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common::{list, post};

const HEADER_TIMEOUT: Duration = Duration::from_millis(300);
/// How long a test waits for what must happen well within it.
const PATIENCE: Duration = Duration::from_secs(10);

/// A door with no documents behind a listener of one connection and a
/// short header timeout; bodies may take [`HEADER_TIMEOUT`] too, and hold
/// at most 1 KiB.
async fn bounded_door() -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = DoorConfig {
        body_read_timeout: HEADER_TIMEOUT,
        max_request_bytes: 1024,
        ..DoorConfig::default()
    };
    let door = Door::new(Vec::new(), config).unwrap();
    let limits = ListenLimits::new(HEADER_TIMEOUT, 1);
    tokio::spawn(serve_app(
        listener,
        router(Arc::new(door)),
        limits,
        std::future::pending(),
    ));
    addr
}

#[tokio::test]
async fn a_slow_client_is_closed_and_holds_the_only_slot_until_then() {
    let addr = bounded_door().await;
    let mut slow = tokio::net::TcpStream::connect(addr).await.unwrap();
    slow.write_all(b"POST /v1/m").await.unwrap();
    // Give the server time to accept the slow client into the one slot.
    tokio::time::sleep(Duration::from_millis(50)).await;

    let started = Instant::now();
    let url = format!("http://{addr}/v1/mcp");
    let waiting = tokio::spawn(async move { post(&url, &list(1), &[]).await });

    let mut got = Vec::new();
    let read = tokio::time::timeout(PATIENCE, slow.read_to_end(&mut got))
        .await
        .expect("the slow client is closed within the patience bound");
    if read.is_ok() {
        let text = String::from_utf8_lossy(&got);
        assert!(
            got.is_empty() || text.starts_with("HTTP/1.1 408"),
            "unexpected bytes: {text:?}"
        );
    }

    let reply = tokio::time::timeout(PATIENCE, waiting)
        .await
        .expect("the waiting client is served once the slot is free")
        .unwrap();
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["id"], 1);
    assert_eq!(reply.body["result"]["tools"][0]["name"], "describe");
    // It was served only after the slow client's header timeout freed the
    // slot, not beside it.
    assert!(
        started.elapsed() >= HEADER_TIMEOUT - Duration::from_millis(100),
        "served after {:?}",
        started.elapsed()
    );
}

/// What a raw HTTP/1.1 exchange on a fresh connection got back, read until
/// the server closes it.
async fn raw_exchange(addr: std::net::SocketAddr, request: &[u8]) -> String {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut got = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut got))
        .await
        .expect("the server answers and closes within the patience bound")
        .unwrap();
    String::from_utf8_lossy(&got).into_owned()
}

#[tokio::test]
async fn a_stalled_body_gets_408_and_a_large_one_413() {
    let addr = bounded_door().await;
    // Headers promise 1,000 bytes; ten come.
    let stalled = raw_exchange(
        addr,
        b"POST /v1/mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 1000\r\n\r\n{\"jsonrpc\"",
    )
    .await;
    assert!(stalled.starts_with("HTTP/1.1 408"), "{stalled}");
    assert!(
        stalled.contains(
            r#""error":{"code":-32600,"message":"the request body did not arrive within 0.3 s"}"#
        ),
        "{stalled}"
    );

    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "a".repeat(2000)
    );
    let large = raw_exchange(
        addr,
        format!(
            "POST /v1/mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    )
    .await;
    assert!(large.starts_with("HTTP/1.1 413"), "{large}");
    assert!(
        large.contains(r#""message":"request body larger than 1024 bytes""#),
        "{large}"
    );
}

#[tokio::test]
async fn shutdown_waits_for_open_connections_only_as_long_as_the_grace() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new().route(
        "/hang",
        axum::routing::get(std::future::pending::<&'static str>),
    );
    let mut limits = ListenLimits::default();
    limits.shutdown_grace = Duration::from_millis(300);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve_app(listener, app, limits, async {
        let _ = stopped.await;
    }));
    let mut hanging = tokio::net::TcpStream::connect(addr).await.unwrap();
    hanging
        .write_all(b"GET /hang HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;

    let asked = Instant::now();
    stop.send(()).unwrap();
    tokio::time::timeout(PATIENCE, server)
        .await
        .expect("serve_app returns after the grace")
        .unwrap();
    let took = asked.elapsed();
    assert!(
        took >= Duration::from_millis(250) && took < Duration::from_secs(5),
        "returned after {took:?}"
    );
}
