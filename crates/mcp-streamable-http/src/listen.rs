//! [`serve_app`]: an HTTP/1.1 listener that a client cannot exhaust by
//! being slow or many: each connection's request headers must arrive
//! within a time limit, and at most so many connections are served at
//! once; and [`read_body`], the same bound on a request's body. The door
//! (`mcp-door`) uses both, and so does `hanzo-mcp serve --http`
//! (`mcp-local-server`).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use mcp_proto::ErrorObject;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// The bounds [`serve_app`] puts on clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListenLimits {
    /// How long a connection may take to send a request's headers (the
    /// first, and each next one on a kept-alive connection) before it is
    /// closed. Default 10 s.
    pub header_read_timeout: Duration,
    /// The most connections served at once; at the cap nothing more is
    /// accepted until one closes, so further clients wait in the listen
    /// backlog. Default 512.
    pub max_connections: usize,
    /// How long connections in progress may take to finish once shutdown
    /// is asked for (an open event stream, a long call); past it they are
    /// dropped. Default 10 s.
    pub shutdown_grace: Duration,
}

impl Default for ListenLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(10),
            max_connections: 512,
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

impl ListenLimits {
    /// Limits with the given header timeout and connection cap (a cap of 0
    /// counts as 1), and the default shutdown grace.
    pub fn new(header_read_timeout: Duration, max_connections: usize) -> Self {
        Self {
            header_read_timeout,
            max_connections,
            ..Self::default()
        }
    }
}

/// Serves `app` over HTTP/1.1 on `listener` (each connection with
/// `TCP_NODELAY`) within `limits` until `shutdown` completes; then stops
/// accepting and returns once the
/// connections in progress have finished, or after
/// [`ListenLimits::shutdown_grace`] (the ones still open are dropped). An
/// accept that fails (out of file descriptors, say) is logged and retried
/// after 50 ms.
pub async fn serve_app<S>(listener: TcpListener, app: Router, limits: ListenLimits, shutdown: S)
where
    S: Future<Output = ()>,
{
    let mut http1 = hyper::server::conn::http1::Builder::new();
    http1
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    let slots = Arc::new(Semaphore::new(
        limits.max_connections.clamp(1, Semaphore::MAX_PERMITS),
    ));
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        // A slot first: at the cap nothing is accepted until a connection
        // closes.
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
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Answers go out as soon as they are written (no Nagle wait for an
        // acknowledgement of the previous segment).
        let _ = stream.set_nodelay(true);
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
    if tokio::time::timeout(limits.shutdown_grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            grace_s = limits.shutdown_grace.as_secs_f64(),
            "connections still open at the end of the shutdown grace are dropped"
        );
    }
}

/// The body of `request`, read within `timeout`. `Err` is the answer, a
/// JSON-RPC error without id (the body that would name one was not read):
/// 408 with `Connection: close` for a body that did not arrive in time
/// (the rest of it must not be read as the next request), 413 naming
/// `max_bytes` for one larger than the router's
/// [`DefaultBodyLimit`](axum::extract::DefaultBodyLimit) (set it to
/// `max_bytes`), the extractor's status and text for other failures.
pub async fn read_body(
    request: Request,
    timeout: Duration,
    max_bytes: usize,
) -> Result<Bytes, Response> {
    let refused = |status: StatusCode, message: String| {
        let body = mcp_proto::Response::error(None, ErrorObject::invalid_request(message));
        (status, axum::Json(body)).into_response()
    };
    match tokio::time::timeout(timeout, Bytes::from_request(request, &())).await {
        Ok(Ok(body)) => Ok(body),
        Ok(Err(rejection)) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => Err(refused(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("request body larger than {max_bytes} bytes"),
        )),
        Ok(Err(rejection)) => Err(refused(rejection.status(), rejection.body_text())),
        Err(_) => {
            let mut response = refused(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {} s",
                    timeout.as_secs_f64()
                ),
            );
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            Err(response)
        }
    }
}
