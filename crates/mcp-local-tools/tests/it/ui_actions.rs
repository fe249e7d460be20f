//! The `ui` tool against a loopback registry serving a small registry
//! written for the tests.
#![cfg(feature = "ui")]

use crate::common::{Sandbox, assert_outside_roots, tool_failed, tool_succeeded};
use crate::http_fixture::{Server, assert_no_credential_sent, not_found, ok, private_allowed};
use mcp_local_tools::ToolContext;
use mcp_local_tools::ui::{Registry, UiConfig, UiTool};
use serde_json::{Value, json};

/// The items the test registry serves, by name.
fn item(name: &str) -> Option<Value> {
    Some(match name {
        "button" => json!({
            "$schema": "https://ui.shadcn.com/schema/registry-item.json",
            "name": "button",
            "type": "registry:ui",
            "title": "Button",
            "description": "Displays a button or a component that looks like a button.",
            "dependencies": ["@radix-ui/react-slot", "class-variance-authority"],
            "registryDependencies": ["utils"],
            "files": [{
                "path": "registry/new-york/ui/button.tsx",
                "type": "registry:ui",
                "content": "export function Button() { return <button /> }\n"
            }],
            "cssVars": {"light": {"brand": "20 14.3% 4.1%"}},
            "meta": {"unknown": "fields are fine"}
        }),
        "utils" => json!({
            "name": "utils",
            "type": "registry:lib",
            "dependencies": ["clsx", "tailwind-merge"],
            "files": [{
                "path": "registry/lib/utils.ts",
                "type": "registry:lib",
                "content": "export function cn() {}\n"
            }]
        }),
        "card" => json!({
            "name": "card",
            "type": "registry:ui",
            "title": "Card",
            "description": "A container with header, content and footer.",
            "files": [{"path": "ui/card.tsx", "type": "registry:ui", "content": "export const Card = 1\n"}]
        }),
        "legacy" => json!({
            "name": "legacy",
            "type": "registry:ui",
            "description": "Hanzo's older item shape.",
            "files": [{"name": "legacy.tsx", "content": "export const Legacy = 1\n"}]
        }),
        "evil" => json!({
            "name": "evil",
            "type": "registry:block",
            "description": "Tries to write outside the workspace.",
            "files": [
                {"path": "ok.tsx", "type": "registry:component", "content": "fine\n"},
                {"path": "x.txt", "type": "registry:file", "target": "../../outside.txt", "content": "owned\n"}
            ]
        }),
        "page" => json!({
            "name": "page",
            "type": "registry:block",
            "description": "A login page.",
            "registryDependencies": ["card", "button"],
            "files": [{"path": "login/page.tsx", "type": "registry:page", "target": "~/app/login/page.tsx", "content": "export default function Page() {}\n"}]
        }),
        "huge" => json!({
            "name": "huge",
            "type": "registry:ui",
            "files": [{"path": "huge.tsx", "type": "registry:ui", "content": "x".repeat(300_000)}]
        }),
        _ => return None,
    })
}

fn index() -> Value {
    let items: Vec<Value> = ["button", "utils", "card", "legacy", "evil", "page"]
        .iter()
        .map(|n| {
            let mut i = item(n).unwrap();
            // An index lists files without their content.
            for f in i["files"].as_array_mut().unwrap() {
                f.as_object_mut().unwrap().remove("content");
            }
            i
        })
        .collect();
    json!({"$schema": "https://ui.shadcn.com/schema/registry.json", "name": "test", "homepage": "http://test", "items": items})
}

async fn registry_server() -> Server {
    Server::start("127.0.0.1", |req| {
        let Some(file) = req.path.strip_prefix("/r/") else {
            return not_found();
        };
        if file == "registry.json" {
            return ok("application/json", index().to_string());
        }
        match file.strip_suffix(".json").and_then(item) {
            Some(value) => ok("application/json", value.to_string()),
            None => not_found(),
        }
    })
    .await
}

fn tool(server: &Server, s: &Sandbox) -> UiTool {
    UiTool::with_config(UiConfig {
        policy: private_allowed(),
        registries: vec![
            Registry::from_base("test", &server.url("/r")),
            Registry::from_base("other", &server.url("/elsewhere")),
        ],
        state_dir: Some(s.base.join("state")),
        ..UiConfig::default()
    })
}

async fn ui(tool: &UiTool, s: &Sandbox, args: Value) -> (bool, String, Value) {
    crate::common::call_tool(tool, ToolContext::new(s.roots.clone()), args).await
}

/// A sandbox, the test registry's server, and a tool reading it.
struct Registered {
    s: Sandbox,
    server: Server,
    tool: UiTool,
}

impl Registered {
    async fn new() -> Registered {
        let s = Sandbox::new();
        let server = registry_server().await;
        let tool = tool(&server, &s);
        Registered { s, server, tool }
    }

    async fn call(&self, args: Value) -> (bool, String, Value) {
        ui(&self.tool, &self.s, args).await
    }
}

#[tokio::test]
async fn list_search_and_view() {
    let r = Registered::new().await;
    let (text, meta) = tool_succeeded(r.call(json!({"action": "list_components"})).await);
    assert_eq!(meta["total"], 6);
    assert!(
        text.starts_with("6 items in test\nbutton · registry:ui · Displays a button"),
        "{text}"
    );
    let (_, text, meta) = r
        .call(json!({"action": "list", "type": "ui", "limit": 2}))
        .await;
    assert_eq!(meta["total"], 3);
    assert_eq!(
        text,
        "3 items in test of type registry:ui\n\
         button · registry:ui · Displays a button or a component that looks like a button.\n\
         card · registry:ui · A container with header, content and footer.\n\
         [items 1-2 of 3; continue with offset=2]\n"
    );

    let args = json!({"action": "search", "query": "FOOTER", "registry": "test"});
    let (_, meta) = tool_succeeded(r.call(args).await);
    assert_eq!(meta["total"], 1);
    assert_eq!(meta["matches"][0]["name"], "card");
    // Across every registry: the unreachable one is named, not fatal.
    let (text, _) = tool_succeeded(r.call(json!({"action": "search", "query": "button"})).await);
    assert!(
        text.starts_with("1 match for 'button'\ntest/button"),
        "{text}"
    );
    assert!(text.contains("[not searched: other: HTTP 404"), "{text}");

    let args = json!({"action": "get_component", "name": "button"});
    let (text, meta) = tool_succeeded(r.call(args).await);
    assert!(text.contains("export function Button()"), "{text}");
    assert_eq!(meta["item"]["registryDependencies"], json!(["utils"]));
    assert_eq!(meta["item"]["meta"]["unknown"], "fields are fine");
    // A view is capped: the text is cut with a marker, no structured copy.
    let (text, meta) = tool_succeeded(r.call(json!({"action": "view", "name": "huge"})).await);
    assert!(text.len() < 270_000, "{}", text.len());
    assert!(
        text.contains("[result cut at 69632 bytes"),
        "{}",
        &text[text.len() - 200..]
    );
    assert_eq!(meta["item"], Value::Null);
    let text = tool_failed(r.call(json!({"action": "view", "name": "nope"})).await);
    assert!(text.starts_with("HTTP 404"), "{text}");

    let (text, _) = tool_succeeded(r.call(json!({"action": "registries"})).await);
    let index = r.server.url("/r/registry.json");
    assert!(
        text.starts_with(&format!("test (default): index {index}")),
        "{text}"
    );
}

#[tokio::test]
async fn install_writes_the_item_and_its_registry_dependencies() {
    let r = Registered::new().await;
    let s = &r.s;
    let (text, meta) = tool_succeeded(r.call(json!({"action": "install", "name": "button"})).await);
    assert_eq!(
        s.read("components/ui/button.tsx"),
        "export function Button() { return <button /> }\n"
    );
    assert_eq!(s.read("lib/utils.ts"), "export function cn() {}\n");
    assert_eq!(meta["items"], json!(["button", "utils"]));
    assert_eq!(
        meta["files"],
        json!(["components/ui/button.tsx", "lib/utils.ts"])
    );
    assert_eq!(
        meta["dependencies"],
        json!([
            "@radix-ui/react-slot",
            "class-variance-authority",
            "clsx",
            "tailwind-merge"
        ])
    );
    for note in [
        "npm install @radix-ui/react-slot class-variance-authority clsx tailwind-merge\n",
        "cssVars to add to your global CSS by hand (see view): button",
    ] {
        assert!(text.contains(note), "{text}");
    }

    // A second install refuses to overwrite and writes nothing.
    std::fs::write(s.root.join("lib/utils.ts"), "mine\n").unwrap();
    let again = json!({"action": "install", "names": ["card", "button"]});
    let text = tool_failed(r.call(again).await);
    assert_eq!(
        text,
        "refused: components/ui/button.tsx, lib/utils.ts already exist (pass overwrite: true to replace); nothing was written"
    );
    assert!(!s.root.join("components/ui/card.tsx").exists());
    assert_eq!(s.read("lib/utils.ts"), "mine\n");
    let overwrite = json!({"action": "install", "names": ["card", "button"], "overwrite": true});
    let (_, _) = tool_succeeded(r.call(overwrite).await);
    assert_eq!(s.read("lib/utils.ts"), "export function cn() {}\n");
    assert_eq!(s.read("components/ui/card.tsx"), "export const Card = 1\n");

    // A target with ~/, dependencies shared with an earlier install, a
    // base path, Hanzo's older file shape.
    let args = json!({"action": "install", "names": ["page", "legacy"], "path": "web"});
    let (_, meta) = tool_succeeded(r.call(args).await);
    assert_eq!(
        s.read("web/app/login/page.tsx"),
        "export default function Page() {}\n"
    );
    assert_eq!(
        s.read("web/components/ui/legacy.tsx"),
        "export const Legacy = 1\n"
    );
    assert_eq!(
        meta["items"],
        json!(["page", "legacy", "card", "button", "utils"])
    );
}

#[tokio::test]
async fn targets_outside_the_workspace_and_bad_names_are_refused() {
    let r = Registered::new().await;
    let (s, server) = (&r.s, &r.server);
    let text = tool_failed(r.call(json!({"action": "install", "name": "evil"})).await);
    assert_eq!(
        text,
        "item 'evil': target '../../outside.txt' would leave the workspace (only relative paths without '..' are written); nothing was written"
    );
    assert!(!s.base.join("outside.txt").exists());
    assert!(!s.root.join("components/ok.tsx").exists());
    let outside = json!({"action": "install", "name": "card", "path": "../outside"});
    let (err, text, _) = r.call(outside).await;
    assert_outside_roots(&(err, text));
    assert!(!s.base.join("outside/components").exists());

    let requests = server.log().len();
    for action in ["add_command", "install", "view"] {
        for name in [
            "button; touch owned",
            "../button",
            "$(id)",
            "-rf",
            "@test/../x",
        ] {
            let (err, text, _) = r.call(json!({"action": action, "name": name})).await;
            assert!(err, "{action} {name}");
            assert!(
                text.contains("is not an item name"),
                "{action} {name}: {text}"
            );
        }
    }
    assert_eq!(server.log().len(), requests, "no request for a bad name");
    assert!(!s.root.join("owned").exists());

    let args = json!({"action": "add_command", "names": ["button", "@test/card"]});
    let (_, meta) = tool_succeeded(r.call(args).await);
    let expected = format!(
        "npx shadcn@latest add {} {}",
        server.url("/r/button.json"),
        server.url("/r/card.json")
    );
    assert_eq!(meta["command"], expected);
}

#[tokio::test]
async fn the_framework_is_remembered_per_workspace() {
    let r = Registered::new().await;
    let (_, text, _) = r.call(json!({"action": "get_framework"})).await;
    assert_eq!(text, "react\n");
    let set = |framework: &str| json!({"action": "set_framework", "framework": framework});
    let (_, _) = tool_succeeded(r.call(set("Svelte")).await);
    // A fresh tool reads it back from the state folder.
    let again = tool(&r.server, &r.s);
    let (_, text, _) = ui(&again, &r.s, json!({"action": "get_framework"})).await;
    assert_eq!(text, "svelte\n");
    let command = json!({"action": "add_command", "name": "button", "registry": "test"});
    let (_, _, meta) = ui(&again, &r.s, command).await;
    assert!(
        meta["command"]
            .as_str()
            .unwrap()
            .starts_with("npx shadcn-svelte@latest add ")
    );
    let stored = std::fs::read_to_string(r.s.base.join("state/ui/frameworks.json")).unwrap();
    let stored: Value = serde_json::from_str(&stored).unwrap();
    assert_eq!(stored[r.s.root.to_string_lossy().as_ref()], "svelte");
    let text = tool_failed(r.call(set("cobol")).await);
    assert_eq!(
        text,
        "framework 'cobol' is not known (react, vue, svelte, solid, react-native)"
    );
}

/// With the state folder inside a root, the frameworks file is neither
/// read nor written through a symlink there (one the agent could make):
/// an outside file it points to is not copied in, nor overwritten, and a
/// temporary file name taken by a symlink is never written through.
#[tokio::test]
async fn the_frameworks_file_never_follows_a_symlink_inside_the_roots() {
    let s = Sandbox::new();
    let state = s.root.join("home/state");
    let ui_dir = state.join("ui");
    std::fs::create_dir_all(&ui_dir).unwrap();
    let outside = s.base.join("outside/cfg.json");
    std::fs::write(&outside, r#"{"api_token": "SECRET-JSON-TOKEN"}"#).unwrap();
    std::os::unix::fs::symlink(&outside, ui_dir.join("frameworks.json")).unwrap();
    let tool = UiTool::with_config(UiConfig {
        state_dir: Some(state.clone()),
        ..UiConfig::default()
    });
    let set_vue = || {
        ui(
            &tool,
            &s,
            json!({"action": "set_framework", "framework": "vue"}),
        )
    };
    let (text, _) = tool_succeeded(set_vue().await);
    assert!(text.contains("is a symlink inside the roots"), "{text}");
    assert_eq!(
        std::fs::read_to_string(&outside).unwrap(),
        r#"{"api_token": "SECRET-JSON-TOKEN"}"#
    );
    // Not replaced by a file holding the outside file's entries.
    let left = std::fs::symlink_metadata(ui_dir.join("frameworks.json")).unwrap();
    assert!(left.file_type().is_symlink());

    // The folder itself a symlink to an outside folder: nothing is made there.
    std::fs::remove_dir_all(&ui_dir).unwrap();
    std::os::unix::fs::symlink(s.base.join("outside"), &ui_dir).unwrap();
    let (text, _) = tool_succeeded(set_vue().await);
    assert!(text.contains("is a symlink inside the roots"), "{text}");
    let made: Vec<_> = std::fs::read_dir(s.base.join("outside"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().starts_with("frameworks"))
        .collect();
    assert!(made.is_empty(), "{made:?}");

    // A plain folder: the file is written, and read back.
    std::fs::remove_file(&ui_dir).unwrap();
    let (err, text, _) = set_vue().await;
    assert!(!err && !text.contains("cannot write"), "{text}");
    let (_, text, _) = ui(&tool, &s, json!({"action": "get_framework"})).await;
    assert_eq!(text, "vue\n");
    let stored = std::fs::read_to_string(ui_dir.join("frameworks.json")).unwrap();
    assert!(stored.contains("\"vue\""), "{stored}");
}

#[tokio::test]
async fn the_guard_applies_and_no_credential_is_sent() {
    const CANARY: &str = "hk-canary-ui-77f0";
    #[allow(unsafe_code)]
    // SAFETY: no other test of this binary reads or writes HANZO_API_KEY.
    unsafe {
        std::env::set_var("HANZO_API_KEY", CANARY);
    }
    let s = Sandbox::new();
    let server = registry_server().await;
    // The default policy: the loopback registry is refused, unreached.
    let guarded = UiTool::with_config(UiConfig {
        registries: vec![Registry::from_base("test", &server.url("/r"))],
        state_dir: Some(s.base.join("state")),
        ..UiConfig::default()
    });
    let text = tool_failed(ui(&guarded, &s, json!({"action": "list"})).await);
    assert!(
        text.starts_with("refused: 127.0.0.1 is a loopback address"),
        "{text}"
    );
    assert_eq!(server.connections(), 0);

    // The tool as the default toolbox builds it, from the environment.
    #[allow(unsafe_code)]
    // SAFETY: no other test of this binary reads or writes these variables.
    unsafe {
        std::env::set_var("HANZO_MCP_FETCH_ALLOW_PRIVATE", "1");
        std::env::set_var(
            "HANZO_MCP_UI_REGISTRIES",
            format!("test={}", server.url("/r/")),
        );
    }
    let tool = UiTool::new();
    let (_, text, _) = ui(&tool, &s, json!({"action": "registries"})).await;
    assert!(
        text.starts_with("test (default): index http://127.0.0.1:"),
        "{text}"
    );
    for args in [
        json!({"action": "list"}),
        json!({"action": "search", "query": "card", "registry": "test"}),
        json!({"action": "view", "name": "card"}),
        json!({"action": "install", "name": "page"}),
    ] {
        let (_, _) = tool_succeeded(ui(&tool, &s, args).await);
    }
    let log = server.log();
    assert_no_credential_sent(&log, CANARY);
    // Answers are cached: the index was fetched once for list and search.
    let index_fetches = log.iter().filter(|r| r.path == "/r/registry.json").count();
    assert_eq!(index_fetches, 1);
}
