//! The door's costs, in one run (criterion):
//!
//! - `projection/github`: projecting GitHub's REST description (13 MB of
//!   JSON, 1,223 operations) from bytes, parse included;
//! - `list/http`: one `tools/list` of that projection from the door over
//!   loopback HTTP (a kept-alive connection);
//! - `call/direct` and `call/door`: one GET on a loopback REST service,
//!   straight and as a `tools/call` forwarded by the door; the difference is
//!   what the door adds.
//!
//! Run: `cargo bench -p mcp-door --bench door`.

use std::hint::black_box;
use std::io::Read;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_door::{Door, DoorConfig, OpenApiSource, Projection, ProjectionConfig};
use mcp_proto::Request;
use mcp_proto::methods::{CallTool, ListTools};
use serde_json::json;

fn github_bytes() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/api.github.com.json.gz"
    );
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).expect("test data"))
        .read_to_end(&mut out)
        .expect("gzip");
    out
}

/// The REST API behind the door in the HTTP benchmark.
const REST_DOC: &[u8] = include_bytes!("../tests/data/items.yaml");

fn projection(c: &mut Criterion) {
    let bytes = github_bytes();
    let config = ProjectionConfig::default();
    c.bench_function("projection/github", |b| {
        b.iter(|| Projection::from_document(black_box(&bytes), None, &config).expect("projects"))
    });
}

fn http(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let (door_url, rest_url) = runtime.block_on(async {
        let rest = axum::Router::new().route(
            "/items/{name}",
            axum::routing::get(
                |axum::extract::Path(name): axum::extract::Path<String>| async move {
                    (
                        [("content-type", "application/json")],
                        json!({"name": name}).to_string(),
                    )
                },
            ),
        );
        let rest_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let rest_url = format!("http://{}", rest_listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(rest_listener, rest).await });
        let sources = vec![
            OpenApiSource::from_bytes("github", &github_bytes(), Some("http://127.0.0.1:9")),
            OpenApiSource::from_bytes("rest", REST_DOC, Some(&rest_url)),
        ];
        let door = Door::new(sources, DoorConfig::default()).expect("door");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let door_url = format!("http://{}/v1/mcp", listener.local_addr().unwrap());
        tokio::spawn(mcp_door::serve(listener, Arc::new(door)));
        (door_url, rest_url)
    });
    let client = reqwest::Client::new();
    let post = |body: String| {
        let request = client
            .post(&door_url)
            .header("content-type", "application/json")
            .header("authorization", "Bearer bench")
            .body(body);
        async move {
            let response = request.send().await.expect("door answers");
            assert_eq!(response.status(), 200);
            response.bytes().await.expect("body")
        }
    };
    let list = serde_json::to_string(&Request::typed::<ListTools>(1, &Default::default()).unwrap())
        .expect("a request");
    let bytes = runtime.block_on(post(list.clone()));
    eprintln!("tools/list answer: {} bytes", bytes.len());
    c.bench_function("list/http", |b| {
        b.iter(|| runtime.block_on(post(list.clone())))
    });
    let params =
        json!({"name": "items", "arguments": {"op": "get_item", "input": {"name": "a b"}}});
    let call =
        serde_json::to_string(&Request::new(2, CallTool::NAME, Some(params))).expect("a request");
    let answer = runtime.block_on(post(call.clone()));
    assert!(
        std::str::from_utf8(&answer)
            .unwrap()
            .contains("structuredContent")
    );
    let direct = format!("{rest_url}/items/a%20b");
    let mut group = c.benchmark_group("call");
    group.bench_function("direct", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let r = client
                    .get(&direct)
                    .header("authorization", "Bearer bench")
                    .send()
                    .await
                    .expect("REST answers");
                r.bytes().await.expect("body")
            })
        })
    });
    group.bench_function("door", |b| b.iter(|| runtime.block_on(post(call.clone()))));
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = projection, http
}
criterion_main!(benches);
