//! The least an HTTP proxy can do on the door's runtime: each `POST
//! /v1/mcp` is answered with the body of one `GET` to a fixed upstream
//! URL. No JSON is read or written, no header checked, nothing counted.
//!
//! Two floors, one process each:
//!
//! - `axum` (the default): served by axum on a two-worker Tokio runtime,
//!   forwarded through one kept-alive `reqwest::Client`, the libraries
//!   `hanzo-mcp door` is made of;
//! - `hyper`: hyper alone on a current-thread runtime, the way an event-loop
//!   proxy such as HAProxy works: each client connection gets one upstream
//!   connection of its own (HTTP/1, kept alive) and both are driven on the
//!   one thread, so a request crosses no thread and no connection pool.
//!
//! `scripts/door-bench.sh` runs both beside HAProxy and the door: the
//! first is the floor of any door made of axum and reqwest on this
//! machine, the second what Rust's HTTP stack costs without them.
//!
//! ```sh
//! cargo run --release -p mcp-examples --example relay_floor -- 127.0.0.1:8081 http://127.0.0.1:8080/items/one
//! cargo run --release -p mcp-examples --example relay_floor -- --hyper 127.0.0.1:8082 http://127.0.0.1:8080/items/one
//! ```

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use http_body_util::{BodyExt as _, Full};
use hyper::body::{Bytes, Incoming};
use hyper_util::rt::TokioIo;

/// The upstream URL and the client that reaches it.
#[derive(Clone)]
struct Upstream {
    client: reqwest::Client,
    url: String,
}

/// Forwards one request: the upstream's body, or 502 with the reason.
async fn forward(
    State(upstream): State<Upstream>,
    _body: axum::body::Bytes,
) -> (StatusCode, Vec<u8>) {
    let answer = match upstream.client.get(&upstream.url).send().await {
        Ok(response) => response.bytes().await,
        Err(error) => Err(error),
    };
    match answer {
        Ok(body) => (StatusCode::OK, body.to_vec()),
        Err(error) => (StatusCode::BAD_GATEWAY, error.to_string().into_bytes()),
    }
}

/// The axum and reqwest floor.
async fn axum_floor(listener: tokio::net::TcpListener, url: String) {
    let upstream = Upstream {
        client: reqwest::Client::new(),
        url,
    };
    let app = Router::new()
        .route("/v1/mcp", post(forward))
        .with_state(upstream);
    axum::serve(listener, app).await.expect("serve");
}

/// The hyper floor: per client connection, one upstream connection.
async fn hyper_floor(listener: tokio::net::TcpListener, url: hyper::Uri) {
    let authority = url
        .authority()
        .expect("an upstream URL with a host")
        .clone();
    let path = url.path().to_owned();
    loop {
        let Ok((client, _)) = listener.accept().await else {
            continue;
        };
        let _ = client.set_nodelay(true);
        let (authority, path) = (authority.clone(), path.clone());
        tokio::spawn(async move {
            let Ok(upstream) = tokio::net::TcpStream::connect(authority.as_str()).await else {
                return;
            };
            let _ = upstream.set_nodelay(true);
            let Ok((sender, connection)) =
                hyper::client::conn::http1::handshake(TokioIo::new(upstream)).await
            else {
                return;
            };
            tokio::spawn(connection);
            // HTTP/1 serves one request of a connection at a time, so the
            // lock is never contended.
            let sender = Arc::new(tokio::sync::Mutex::new(sender));
            let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
                let (sender, authority, path) = (sender.clone(), authority.clone(), path.clone());
                async move {
                    let _ = request.into_body().collect().await;
                    let get = hyper::Request::get(path)
                        .header(hyper::header::HOST, authority.as_str())
                        .body(Full::new(Bytes::new()))
                        .expect("a GET request");
                    let answer = sender.lock().await.send_request(get).await;
                    let (status, body) = match answer {
                        Ok(response) => match response.into_body().collect().await {
                            Ok(body) => (StatusCode::OK, body.to_bytes()),
                            Err(error) => (StatusCode::BAD_GATEWAY, Bytes::from(error.to_string())),
                        },
                        Err(error) => (StatusCode::BAD_GATEWAY, Bytes::from(error.to_string())),
                    };
                    let mut response = hyper::Response::new(Full::new(body));
                    *response.status_mut() = status;
                    Ok::<_, std::convert::Infallible>(response)
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(client), service)
                .await;
        });
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let hyper_only = args.first().is_some_and(|a| a == "--hyper");
    if hyper_only {
        args.remove(0);
    }
    let [listen, url] = <[String; 2]>::try_from(args).unwrap_or_else(|_| {
        eprintln!("usage: relay_floor [--hyper] LISTEN_ADDR UPSTREAM_URL");
        std::process::exit(2);
    });
    let runtime = if hyper_only {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
    }
    .expect("a Tokio runtime");
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&listen)
            .await
            .unwrap_or_else(|e| panic!("bind {listen}: {e}"));
        eprintln!("relay_floor listening on {listen}");
        if hyper_only {
            hyper_floor(listener, url.parse().expect("an upstream URL")).await;
        } else {
            axum_floor(listener, url).await;
        }
    });
}
