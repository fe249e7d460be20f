//! The one way the HTTP tests start a server: [`serve_http`] on an
//! ephemeral loopback port, stopped when the returned value is dropped.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::Arc;

use mcp_local_server::Server;
use mcp_local_server::http::{HttpConfig, serve_http};

/// A server listening on `127.0.0.1:<ephemeral>`; dropping it stops it.
pub struct Listening {
    /// The bound address.
    pub addr: SocketAddr,
    /// `http://<addr>/mcp`.
    pub url: String,
    stop: tokio::sync::oneshot::Sender<()>,
}

/// Serves `server` over streamable HTTP with `config` until the result is
/// dropped; returns once the port is bound.
pub async fn listen(server: Arc<Server>, config: HttpConfig) -> Listening {
    let (bound_tx, bound_rx) = tokio::sync::oneshot::channel::<SocketAddr>();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve_http(
        server,
        "127.0.0.1:0".parse().expect("address"),
        config,
        move |bound| {
            let _ = bound_tx.send(bound);
        },
        async move {
            let _ = stopped.await;
        },
    ));
    let addr = bound_rx.await.expect("server bound");
    Listening {
        addr,
        url: format!("http://{addr}/mcp"),
        stop,
    }
}
