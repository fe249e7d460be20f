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
    assert_eq!(tool_of(&p, "get_health"), "health");
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
            "list_alpha_things",
            "get_thing",
            "replace_thing",
            "list_beta_things"
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
        json!(["get_m", "delete_m"])
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
    let notes = p.describe("create_note").unwrap();
    assert_eq!(
        notes["inputSchema"]["properties"]["body"],
        json!({"type": "string"})
    );
    assert_eq!(notes["inputSchema"]["required"], json!(["slug"]));
}

#[test]
fn a_verb_phrase_operation_id_is_kept_and_x_mcp_name_overrides() {
    let p = project(&[(
        "petstore.yaml",
        r#"
openapi: 3.0.3
paths:
  /store/order: {post: {operationId: placeOrder, tags: [store], summary: Place an order for a pet}}
  /store/order/{orderId}: {get: {operationId: getOrderById, tags: [store]}}
  /pet/findByStatus: {get: {operationId: findPetsByStatus, tags: [pet]}}
  /pet/{petId}/uploadImage: {post: {operationId: uploadFile, tags: [pet], x-mcp-name: uploadPetImage}}
"#,
    )]);
    let names: Vec<String> = p.ops().map(|o| o.name).collect();
    assert_eq!(
        names,
        [
            "find_pets_by_status",
            "upload_pet_image",
            "place_order",
            "get_order_by_id"
        ]
    );
}

#[test]
fn names_differ_by_what_differs_and_carry_no_number() {
    // Stripe's shape: no tags, operationIds made of the method and the path.
    let p = project(&[(
        "stripe.yaml",
        r#"
openapi: 3.0.0
paths:
  /v1/accounts/{account}/bank_accounts: {post: {operationId: PostAccountsAccountBankAccounts}}
  /v1/accounts/{account}/bank_accounts/{id}:
    get: {operationId: GetAccountsAccountBankAccountsId}
    post: {operationId: PostAccountsAccountBankAccountsId}
  /v1/customers/{customer}/bank_accounts/{id}: {get: {operationId: GetCustomersCustomerBankAccountsId}}
  /v1/charges/{charge}/capture: {post: {operationId: PostChargesChargeCapture}}
  /orgs/{org}/repos: {get: {tags: [repos]}}
  /users/{username}/repos: {get: {tags: [repos]}}
"#,
    )]);
    let names: Vec<(String, String)> = p.ops().map(|o| (o.tool, o.name)).collect();
    let want = [
        ("accounts", "create_bank_account"),
        ("accounts", "get_bank_account"),
        ("accounts", "update_bank_account"),
        ("charges", "capture_charge"),
        ("customers", "get_customer_bank_account"),
        ("repos", "list_org_repos"),
        ("repos", "list_user_repos"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(t, n)| ((*t).to_owned(), (*n).to_owned()))
        .collect();
    assert_eq!(names, want);
}

#[test]
fn api_versions_fold_into_one_tool_and_the_preferred_version_is_offered() {
    let p = project(&[(
        "k8s.yaml",
        r#"
openapi: 3.0.0
paths:
  /apis/apps/: {get: {operationId: getAppsAPIGroup, tags: [apps], description: get information of a group}}
  /apis/apps/v1/namespaces/{namespace}/deployments:
    get: {operationId: listAppsV1NamespacedDeployment, tags: [apps_v1]}
  /apis/apps/v1beta2/namespaces/{namespace}/deployments:
    get: {operationId: listAppsV1beta2NamespacedDeployment, tags: [apps_v1beta2]}
  /apis/flowcontrol.apiserver.k8s.io/v1beta3/prioritylevelconfigurations/{name}/status:
    get:
      operationId: readFlowcontrolApiserverV1beta3PriorityLevelConfigurationStatus
      tags: [flowcontrolApiserver_v1beta3]
      description: read status of the specified PriorityLevelConfiguration
"#,
    )]);
    let tools: Vec<&str> = p.tools().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(tools, ["describe", "apps", "flowcontrol_apiserver"]);
    let names: Vec<String> = p.ops().map(|o| o.name).collect();
    assert_eq!(
        names,
        [
            "get_api_group",
            "list_namespaced_deployments",
            "read_priority_level_configuration_status"
        ]
    );
    assert_eq!(
        p.op("list_namespaced_deployments").unwrap().path,
        "/apis/apps/v1/namespaces/{namespace}/deployments"
    );
    assert_eq!(
        p.superseded(),
        ["GET /apis/apps/v1beta2/namespaces/{namespace}/deployments"]
    );
    // The ops whose summary says more than the name, each with it; the
    // others only in the `op` enum.
    let apps = p.tools()[1].description.as_deref().unwrap();
    assert_eq!(
        apps,
        "Every op is in the `op` enum; describe one for its input.\nget_api_group: get information of a group"
    );
    let flow = p.tools()[2].description.as_deref().unwrap();
    assert!(
        !flow.contains("read_priority_level_configuration_status"),
        "{flow}"
    );
}

#[test]
fn names_do_not_depend_on_the_order_of_documents() {
    let a = r#"{"openapi": "3.0.3", "paths": {
        "/v1/accounts/{account}/bank_accounts/{id}": {"get": {}},
        "/v1/things/{id}": {"get": {"operationId": "getThing"}, "put": {"operationId": "getThing"}}}}"#;
    let b = r#"{"openapi": "3.0.3", "paths": {
        "/v1/customers/{customer}/bank_accounts/{id}": {"get": {}},
        "/v2/things": {"get": {"operationId": "listThings", "tags": ["things"]}}}}"#;
    let by_op = |p: &Projection| {
        let mut v: Vec<(String, String, String)> =
            p.ops().map(|o| (o.method, o.path, o.name)).collect();
        v.sort();
        v
    };
    let ab = by_op(&project(&[("a.json", a), ("b.json", b)]));
    let ba = by_op(&project(&[("b.json", b), ("a.json", a)]));
    assert_eq!(ab, ba);
    let names: Vec<&str> = ab.iter().map(|(_, _, n)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "get_bank_account",
            "get_customer_bank_account",
            "get_thing",
            "list_things",
            "replace_thing"
        ]
    );
}
