//! The door in its own API document (HIP-0300 §1.2): `GET /openapi.json`
//! validates against the OpenAPI Initiative's JSON Schema for OpenAPI 3.1
//! (`tests/data/openapi-3.1-schema.json`, through the `jsonschema` crate),
//! holds `POST /v1/mcp` with the JSON-RPC envelope as its bodies, and
//! exactly the offered operations: not the withheld, not the excluded.

use std::sync::OnceLock;

use mcp_door::{Door, DoorConfig, OpenApiSource, ProjectionConfig};
use serde_json::{Value, json};

use crate::common::{get, github, spawn_door};

fn validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/openapi-3.1-schema.json"
        );
        let schema: Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("schema")).expect("JSON");
        jsonschema::validator_for(&schema).expect("the OpenAPI 3.1 schema compiles")
    })
}

/// Asserts `document` is a valid OpenAPI 3.1 document, listing the errors.
fn assert_valid(document: &Value) {
    let errors: Vec<String> = validator()
        .iter_errors(document)
        .take(10)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "not OpenAPI 3.1: {errors:#?}");
}

/// Every `(METHOD, path, operationId)` of a document but `POST /v1/mcp`.
fn operations(document: &Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            if path == "/v1/mcp" || !op.is_object() || method == "parameters" {
                continue;
            }
            let id = op["operationId"].as_str().expect("operationId").to_owned();
            out.push((method.to_ascii_uppercase(), path.clone(), id));
        }
    }
    out.sort();
    out
}

#[test]
fn the_validator_refuses_what_is_not_openapi_3_1() {
    let bad = [
        json!({"openapi": "3.1.0", "paths": {}}),
        json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {}}),
        json!({"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
               "paths": {"/x": {"get": {"responses": {"200": {}}}}}}),
    ];
    for document in bad {
        assert!(!validator().is_valid(&document), "{document}");
    }
}

#[test]
fn githubs_projection_as_a_document_is_openapi_3_1_with_the_door_in_it() {
    let projection = github();
    let document = projection.openapi_document(Some("https://api.example.com"));
    assert_valid(&document);
    assert_eq!(
        document["servers"],
        json!([{"url": "https://api.example.com"}])
    );

    let mcp = &document["paths"]["/v1/mcp"]["post"];
    assert_eq!(mcp["operationId"], "mcp");
    let request = mcp["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        .as_str()
        .expect("request body ref");
    let name = request.rsplit('/').next().expect("name");
    let schema = &document["components"]["schemas"][name];
    assert_eq!(schema["properties"]["jsonrpc"], json!({"const": "2.0"}));
    assert_eq!(schema["required"], json!(["jsonrpc", "method"]));
    assert!(mcp["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].is_string());

    // Exactly the offered operations, each named as its op.
    let mut offered: Vec<(String, String, String)> = projection
        .ops()
        .map(|op| (op.method, op.path, op.name))
        .collect();
    offered.sort();
    assert_eq!(operations(&document), offered);
    assert_eq!(offered.len(), 1_131);
    let text = document.to_string();
    for withheld in projection.refused() {
        assert!(
            !text.contains(&format!("\"operationId\":\"{withheld}\"")),
            "{withheld}"
        );
    }
    // Every component reference resolves inside the document.
    for reference in refs(&document) {
        let pointer = reference.strip_prefix('#').expect("local");
        assert!(document.pointer(pointer).is_some(), "{reference} dangles");
    }
}

/// Every `$ref` string in `value`.
fn refs(value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref") {
                    out.push(r.clone());
                }
                stack.extend(m.values());
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    out
}

const SHOP: &str = r##"
openapi: 3.0.3
info: {title: Shop, version: "1"}
security: [{apiKey: []}]
paths:
  /v1/orders/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: string}}]
    get:
      operationId: getOrder
      tags: [orders]
      responses:
        "200":
          description: the order
          content: {application/json: {schema: {$ref: "#/components/schemas/Order"}}}
  /v1/internal/reindex:
    post: {operationId: reindexOrders, tags: [orders], responses: {"204": {description: done}}}
  /v1/keys/{id}:
    get: {operationId: getApiKey, tags: [keys], responses: {"200": {description: key}}}
components:
  securitySchemes:
    apiKey: {type: apiKey, in: header, name: X-Key}
  schemas:
    Order: {type: object, properties: {line: {$ref: "#/components/schemas/Line"}}}
    Line: {type: object}
    Private: {type: object}
"##;

const BILLING: &str = r##"
openapi: 3.1.0
info: {title: Billing, version: "1"}
paths:
  /v1/invoices:
    get:
      operationId: listInvoices
      tags: [billing]
      responses:
        "200":
          description: invoices
          content: {application/json: {schema: {$ref: "#/components/schemas/Order"}}}
components:
  schemas:
    Order: {type: array}
"##;

#[tokio::test]
async fn two_documents_served_at_openapi_json_and_yaml() {
    let sources = vec![
        OpenApiSource::from_bytes("shop.yaml", SHOP.as_bytes(), Some("http://127.0.0.1:7001")),
        OpenApiSource::from_bytes(
            "billing.yaml",
            BILLING.as_bytes(),
            Some("http://127.0.0.1:7002"),
        ),
    ];
    let config = DoorConfig {
        projection: ProjectionConfig {
            excluded_prefixes: vec!["/v1/internal".into()],
            ..ProjectionConfig::default()
        },
        ..DoorConfig::default()
    };
    let addr = spawn_door(Door::new(sources, config).unwrap()).await;
    let reply = get(&format!("http://{addr}/openapi.json")).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.headers["content-type"], "application/json");
    let document = reply.body;
    assert_valid(&document);
    // Relative to wherever the document was fetched from.
    assert_eq!(document["servers"], json!([{"url": "/"}]));
    assert_eq!(
        operations(&document),
        [
            ("GET".into(), "/v1/invoices".into(), "list_invoices".into()),
            ("GET".into(), "/v1/orders/{id}".into(), "get_order".into()),
        ]
    );
    let order = &document["paths"]["/v1/orders/{id}"]["get"];
    assert_eq!(order["servers"], json!([{"url": "http://127.0.0.1:7001"}]));
    assert_eq!(order["parameters"][0]["name"], "id");
    assert_eq!(order["security"], json!([{"Shop.apiKey": []}]));
    assert_eq!(
        order["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/Shop.Order"
    );
    let schemas = document["components"]["schemas"].as_object().unwrap();
    // Reached components only, renamed per document; `Private` stays out.
    for name in ["Shop.Order", "Shop.Line", "Billing.Order"] {
        assert!(schemas.contains_key(name), "{name}: {schemas:?}");
    }
    assert!(!schemas.contains_key("Shop.Private"));
    assert_eq!(
        document["components"]["securitySchemes"]["Shop.apiKey"]["name"],
        "X-Key"
    );

    let client = reqwest::Client::new();
    let yaml = client
        .get(format!("http://{addr}/openapi.yaml"))
        .send()
        .await
        .unwrap();
    assert_eq!(yaml.headers()["content-type"], "application/yaml");
    let parsed: Value = serde_norway::from_str(&yaml.text().await.unwrap()).unwrap();
    assert_eq!(parsed, document);
}
