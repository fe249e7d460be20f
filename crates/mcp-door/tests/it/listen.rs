//! The listener's bounds (`serve_app`): a client that sends its request
//! headers too slowly is closed, and at the connection cap a new client
//! waits for a slot instead of being served beside the others.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_door::{Door, DoorConfig, ListenLimits, router, serve_app};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common::{list, post};

const HEADER_TIMEOUT: Duration = Duration::from_millis(300);
/// How long a test waits for what must happen well within it.
const PATIENCE: Duration = Duration::from_secs(10);

/// A door with no documents behind a listener of one connection and a
/// short header timeout.
async fn bounded_door() -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let door = Door::new(Vec::new(), DoorConfig::default()).unwrap();
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
