//! The server side of MCP's streamable HTTP transport (MCP 2025-11-25 and
//! 2026-07-28, basic/transports) that every server shares, whatever it
//! serves:
//!
//! - [`serve_app`]: an HTTP/1.1 listener for an axum [`Router`](axum::Router)
//!   that slow or many clients cannot exhaust (request headers within a
//!   time limit, a cap on connections served at once, a graceful stop);
//! - [`read_body`]: a request body read within a time limit and a size
//!   bound, refused with the status a client can act on (408, 413);
//! - [`checks`]: what a `POST` must carry before its message is read:
//!   an `Origin` the server accepts, a `Host` that is not a rebinding,
//!   `Content-Type: application/json`, an `Accept` the transport
//!   requires, and an `MCP-Protocol-Version` that agrees with the body.
//!
//! Both servers of this workspace use them (`hanzo-mcp serve --http` in
//! `mcp-local-server`, the HIP-0300 door in `mcp-door`), so a check made
//! for one is made for the other; an embedder serving its own MCP router
//! over HTTP gets the same without either server's code.
//!
//! ```no_run
//! use mcp_streamable_http::{ListenLimits, checks, serve_app};
//!
//! # async fn run() -> std::io::Result<()> {
//! let app = axum::Router::new().route(
//!     "/mcp",
//!     axum::routing::post(|headers: axum::http::HeaderMap| async move {
//!         if !checks::json_content_type(&headers) {
//!             return axum::http::StatusCode::UNSUPPORTED_MEDIA_TYPE;
//!         }
//!         axum::http::StatusCode::ACCEPTED
//!     }),
//! );
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let limits = ListenLimits::new(std::time::Duration::from_secs(10), 256);
//! serve_app(listener, app, limits, std::future::pending::<()>()).await;
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

pub mod checks;
mod listen;

pub use listen::{ListenLimits, read_body, serve_app};
