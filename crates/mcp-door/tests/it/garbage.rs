//! Bad documents are errors, never panics or hangs: the fuzz target's
//! function (`Projection::from_document`) on hostile and random input.

use mcp_door::{DoorError, Projection, ProjectionConfig};

fn project(bytes: &[u8]) -> Result<Projection, DoorError> {
    let p = Projection::from_document(
        bytes,
        Some("http://127.0.0.1:9"),
        &ProjectionConfig::default(),
    )?;
    let names: Vec<String> = p.ops().map(|o| o.name).collect();
    for name in names {
        assert!(p.describe(&name).is_some());
    }
    Ok(p)
}

#[test]
fn malformed_documents_are_errors_naming_the_fault() {
    let cases: [(&[u8], &str); 6] = [
        (
            b"",
            "is not an OpenAPI 3.0 or 3.1 description: the top level is not an object",
        ),
        (b"{", "is not JSON or YAML"),
        (b"[1,2]", "the top level is not an object"),
        (
            br#"{"openapi": "2.0", "paths": {}}"#,
            "\"openapi\" is \"2.0\"",
        ),
        (
            br#"{"openapi": "3.1.0", "paths": []}"#,
            "\"paths\" is not an object",
        ),
        (b"openapi: 3.0.0\npaths: {a: [}\n", "is not JSON or YAML"),
    ];
    for (bytes, want) in cases {
        let err = project(bytes)
            .err()
            .unwrap_or_else(|| panic!("{bytes:?} projected"));
        assert!(err.to_string().contains(want), "{bytes:?}: {err}");
    }
    let err = Projection::from_document(
        br#"{"openapi": "3.1.0", "paths": {}}"#,
        Some("ftp://x"),
        &ProjectionConfig::default(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "upstream \"ftp://x\" of document \"document\" is not an absolute http(s) URL"
    );
}

#[test]
fn hostile_references_are_bounded() {
    // A reference cycle, a self reference and an exponential fan-out.
    let mut doc = String::from(
        r##"{"openapi": "3.1.0", "paths": {"/a/{id}": {"$ref": "#/paths/~1a~1{id}"},
        "/b": {"post": {"operationId": "createB", "parameters": [{"$ref": "#/components/parameters/P"}],
          "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/L0"}}}}}}},
        "components": {"parameters": {"P": {"$ref": "#/components/parameters/P"}}, "schemas": {"##,
    );
    for i in 0..40 {
        doc.push_str(&format!(
            r##""L{i}": {{"type": "object", "properties": {{"a": {{"$ref": "#/components/schemas/L{n}"}}, "b": {{"$ref": "#/components/schemas/L{n}"}}}}}},"##,
            n = i + 1
        ));
    }
    doc.push_str(r#""L40": {"type": "string"}}}}"#);
    let p = project(doc.as_bytes()).unwrap();
    let d = p.describe("create_b").unwrap();
    assert!(d.to_string().contains("schema cut: too large to inline"));
}

#[test]
fn random_bytes_never_panic() {
    // A fixed xorshift stream: the same inputs every run.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let seeds: [&[u8]; 4] = [
        br#"{"openapi":"3.0.0","paths":{"/x/{a}":{"get":{"parameters":[{"name":"a","in":"path"}]}}}}"#,
        b"openapi: 3.1.0\npaths:\n  /v1/x:\n    post: {tags: [t], requestBody: {content: {a/b: {}}}}\n",
        b"{\"openapi\":\"3.1.0\",\"paths\":{\"/\":{\"get\":{\"operationId\":\"\"}}}}",
        b"&a [*a, *a]",
    ];
    for seed in seeds {
        let _ = project(seed);
        for _ in 0..300 {
            let mut bytes = seed.to_vec();
            for _ in 0..(next() % 6 + 1) {
                let r = next();
                let i = (r as usize) % (bytes.len() + 1);
                match r % 3 {
                    0 if i < bytes.len() => bytes[i] = (r >> 16) as u8,
                    1 => bytes.insert(i, b"{}[]:,\"/$"[(r >> 8) as usize % 9]),
                    _ if i < bytes.len() => {
                        bytes.remove(i);
                    }
                    _ => {}
                }
            }
            let _ = project(&bytes);
        }
    }
}

#[test]
fn a_long_chain_of_distinct_references_is_cut_by_depth() {
    // 2,000 schemas each referring to the next, each two levels deep: the
    // inlined schema would nest 4,000 levels; it is cut at 64.
    let mut doc = String::from(
        r##"{"openapi": "3.0.0", "paths": {"/c": {"post": {"operationId": "createC",
        "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/S0"}}}}}}},
        "components": {"schemas": {"##,
    );
    for i in 0..2000 {
        doc.push_str(&format!(
            r##""S{i}": {{"type": "object", "properties": {{"next": {{"$ref": "#/components/schemas/S{n}"}}}}}},"##,
            n = i + 1
        ));
    }
    doc.push_str(r#""S2000": {"type": "string"}}}}"#);
    let p = project(doc.as_bytes()).unwrap();
    let d = p.describe("create_c").unwrap().to_string();
    assert!(d.contains("schema cut: nested too deep"));
}

/// A document file without end (`/dev/zero`) is read no further than the
/// cap, and the source is listed as unavailable with the reason.
#[cfg(unix)]
#[tokio::test]
async fn an_endless_document_file_is_refused_at_the_cap() {
    use mcp_door::{Door, DoorConfig, OpenApiSource};

    use crate::common::{list, post, spawn_door};

    let source = OpenApiSource::from_file("/dev/zero", Some("http://127.0.0.1:9"));
    let door = Door::new(vec![source], DoorConfig::default()).unwrap();
    let addr = spawn_door(door).await;
    let r = post(&format!("http://{addr}/v1/mcp"), &list(1), &[]).await;
    let unavailable = &r.body["result"]["_meta"]["hanzo.ai/unavailable"][0];
    assert_eq!(unavailable["source"], "/dev/zero");
    assert_eq!(
        unavailable["reason"],
        "cannot read document \"/dev/zero\": larger than 64 MiB; not read"
    );
}
