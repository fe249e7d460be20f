//! The least an HTTP proxy built on the door's own libraries can do: each
//! `POST /v1/mcp` is answered with the body of one `GET` to a fixed
//! upstream URL, sent through one kept-alive `reqwest::Client`, served by
//! axum on a two-worker Tokio runtime (as `hanzo-mcp door` is). No JSON is
//! read or written, no header checked, nothing counted.
//!
//! `scripts/door-bench.sh` runs it beside HAProxy and the door: its added
//! latency is the floor of any door made of axum and reqwest on this
//! machine, so the door's own work is its figure minus this one.
//!
//! ```sh
//! cargo run --release -p mcp-examples --example relay_floor -- 127.0.0.1:8081 http://127.0.0.1:8080/items/one
//! ```

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;

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

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(listen), Some(url)) = (args.next(), args.next()) else {
        eprintln!("usage: relay_floor LISTEN_ADDR UPSTREAM_URL");
        std::process::exit(2);
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    runtime.block_on(async move {
        let upstream = Upstream {
            client: reqwest::Client::new(),
            url,
        };
        let app = Router::new()
            .route("/v1/mcp", post(forward))
            .with_state(upstream);
        let listener = tokio::net::TcpListener::bind(&listen)
            .await
            .unwrap_or_else(|e| panic!("bind {listen}: {e}"));
        eprintln!("relay_floor listening on {listen}");
        axum::serve(listener, app).await.expect("serve");
    });
}
