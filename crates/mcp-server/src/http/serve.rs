//! [`serve_http`]: the listener of `hanzo-mcp serve --http`, with its
//! connection cap and header timeout.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use mcp_streamable_http::{ListenLimits, serve_app};

use super::{HttpConfig, router};
use crate::error::ServerError;
use crate::server::Server;

/// Refuses settings [`serve_http`] cannot serve with: a configured bearer
/// that is empty or only whitespace, and a non-loopback `addr` without a
/// bearer.
///
/// # Errors
/// [`ServerError::Config`] naming `--http ADDR` and the problem.
pub fn check_config(addr: SocketAddr, config: &HttpConfig) -> Result<(), ServerError> {
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
    Ok(())
}

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
    check_config(addr, &config)?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| ServerError::Config(format!("--http {addr}: cannot bind: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| ServerError::Config(format!("--http {addr}: {e}")))?;
    tracing::info!(%bound, path = config.path, "serving MCP over streamable HTTP");
    on_bound(bound);
    let limits = ListenLimits::new(config.header_read_timeout, config.max_connections);
    serve_app(listener, router(server, config), limits, shutdown).await;
    Ok(())
}
