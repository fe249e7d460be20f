//! The projection on small documents: where subsystems come from, names
//! across several documents, annotations, and `describe`'s merged schema.

use mcp_door::{OpenApiSource, Projection, ProjectionConfig};
use serde_json::json;

fn project(docs: &[(&str, &str)]) -> Projection {
    let sources: Vec<OpenApiSource> = docs
        .iter()
        .map(|(label, text)| {
            OpenApiSource::from_bytes(*label, text.as_bytes(), Some("http://127.0.0.1:9"))
        })
        .collect();
    Projection::build(&sources, &ProjectionConfig::default())
}

fn tool_of(p: &Projection, op: &str) -> String {
    p.op(op).unwrap_or_else(|| panic!("{op} offered")).tool
}

#[test]
fn subsystem_is_x_tool_then_first_tag_then_path_after_version() {
    let p = project(&[(
        "a.yaml",
        r#"
openapi: 3.1.0
paths:
  /v2/billing/invoices: {get: {operationId: listInvoices, tags: [Money Stuff], x-tool: billing}}
  /v2/agents: {get: {operationId: listAgents, tags: [Security Advisories, other]}}
  /v2/git-refs/{id}: {get: {}}
  /health: {get: {}}
"#,
    )]);
    assert_eq!(tool_of(&p, "list_invoices"), "billing");
    assert_eq!(tool_of(&p, "list_agents"), "security_advisories");
    assert_eq!(tool_of(&p, "get_git_ref"), "git_refs");
    assert_eq!(tool_of(&p, "list_health"), "health");
}

#[test]
fn names_are_unique_across_documents_deterministically() {
    let a = r#"{"openapi": "3.0.3", "paths": {
        "/things": {"get": {"operationId": "listThings", "tags": ["alpha"]}},
        "/things/{id}": {"get": {"operationId": "getThing", "tags": ["alpha"]},
                         "put": {"operationId": "getThing", "tags": ["alpha"]}}}}"#;
    let b =
        "openapi: 3.1.0\npaths:\n  /v1/things: {get: {operationId: listThings, tags: [beta]}}\n";
    let p = project(&[("a.json", a), ("b.yaml", b)]);
    let names: Vec<String> = p.ops().map(|o| o.name).collect();
    assert_eq!(
        names,
        [
            "list_things_in_alpha",
            "get_thing",
            "get_thing_2",
            "list_things_in_beta"
        ]
    );
    let again: Vec<String> = project(&[("a.json", a), ("b.yaml", b)])
        .ops()
        .map(|o| o.name)
        .collect();
    assert_eq!(names, again);
}

#[test]
fn read_only_only_when_every_op_reads() {
    let p = project(&[(
        "a.yaml",
        r#"
openapi: 3.0.0
paths:
  /r: {get: {tags: [reads]}, head: {tags: [reads]}}
  /m: {get: {tags: [mixed]}, delete: {tags: [mixed]}}
"#,
    )]);
    let hint = |name: &str| {
        let tool = p.tools().iter().find(|t| t.name == name).unwrap();
        tool.annotations.as_ref().and_then(|a| a.read_only_hint)
    };
    assert_eq!(hint("describe"), Some(true));
    assert_eq!(hint("reads"), Some(true));
    assert_eq!(hint("mixed"), None);
    let mixed = p.tools().iter().find(|t| t.name == "mixed").unwrap();
    assert_eq!(
        mixed.input_schema["properties"]["op"]["enum"],
        json!(["list_m", "delete_m"])
    );
    assert_eq!(mixed.input_schema["required"], json!(["op"]));
}

#[test]
fn describe_merges_every_input_with_required_right() {
    let p = project(&[(
        "a.yaml",
        r##"
openapi: 3.1.0
paths:
  /v1/projects/{slug}/deploy:
    parameters: [{$ref: "#/components/parameters/Slug"}]
    post:
      summary: Deploy a project
      parameters:
        - {name: dry_run, in: query, required: true, schema: {type: boolean}}
        - {name: X-Request-Id, in: header, schema: {type: string}}
        - {name: session, in: cookie, schema: {type: string}}
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: "#/components/schemas/Deploy"}}}
  /v1/projects/{slug}/notes:
    post:
      parameters: [{$ref: "#/components/parameters/Slug"}]
      requestBody:
        content: {text/plain: {schema: {type: string}}}
components:
  parameters:
    Slug: {name: slug, in: path, required: true, description: The project, schema: {type: string}}
  schemas:
    Deploy:
      type: object
      required: [region]
      properties: {region: {type: string}, replicas: {type: integer}}
"##,
    )]);
    assert_eq!(
        p.describe("deploy_project").unwrap(),
        json!({
            "op": "deploy_project",
            "tool": "projects",
            "method": "POST",
            "path": "/v1/projects/{slug}/deploy",
            "summary": "Deploy a project",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "slug": {"type": "string", "description": "The project (in path)"},
                    "dry_run": {"type": "boolean", "description": "(in query)"},
                    "X-Request-Id": {"type": "string", "description": "(in header)"},
                    "region": {"type": "string"},
                    "replicas": {"type": "integer"}
                },
                "required": ["slug", "dry_run", "region"]
            }
        })
    );
    let notes = p.describe("create_note_for_project").unwrap();
    assert_eq!(
        notes["inputSchema"]["properties"]["body"],
        json!({"type": "string"})
    );
    assert_eq!(notes["inputSchema"]["required"], json!(["slug"]));
}
