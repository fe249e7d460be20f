//! [`serve_http`]: the listener of `hanzo-mcp serve --http`, with its
//! connection cap and header timeout.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::sync::Semaphore;

use super::{HttpConfig, router};
use crate::error::ServerError;
use crate::server::Server;

/// Serves `server` over streamable HTTP on `addr` until `shutdown`
/// completes. Refuses (`ServerError::Config`) a configured bearer that is
/// empty or only whitespace, a non-loopback `addr` without a bearer, and an
/// address that cannot be bound. `on_bound` gets the bound
/// address (useful with port 0).
pub async fn serve_http<S>(
    server: Arc<Server>,
    addr: SocketAddr,
    config: HttpConfig,
    on_bound: impl FnOnce(SocketAddr),
    shutdown: S,
) -> Result<(), ServerError>
where
    S: Future<Output = ()> + Send + 'static,
{
    if config
        .bearer
        .as_deref()
        .is_some_and(|b| b.trim().is_empty())
    {
        return Err(ServerError::Config(format!(
            "--http {addr}: the bearer (HANZO_MCP_HTTP_BEARER) is empty or only whitespace"
        )));
    }
    if !addr.ip().is_loopback() && config.bearer.as_deref().is_none_or(str::is_empty) {
        return Err(ServerError::Config(format!(
            "--http {addr}: a non-loopback address needs a bearer (HANZO_MCP_HTTP_BEARER)"
        )));
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| ServerError::Config(format!("--http {addr}: cannot bind: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| ServerError::Config(format!("--http {addr}: {e}")))?;
    tracing::info!(%bound, path = config.path, "serving MCP over streamable HTTP");
    on_bound(bound);
    let mut http1 = hyper::server::conn::http1::Builder::new();
    http1
        .timer(TokioTimer::new())
        .header_read_timeout(config.header_read_timeout);
    let slots = Arc::new(Semaphore::new(
        config.max_connections.clamp(1, Semaphore::MAX_PERMITS),
    ));
    let app = router(server, config);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        // A slot first: at the cap nothing is accepted until a connection
        // closes, so further clients wait in the listen backlog.
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // Out of descriptors and the like: wait, then go on.
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let connection =
            http1.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "HTTP connection ended with an error");
            }
            drop(slot);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}
