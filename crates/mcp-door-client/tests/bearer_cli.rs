//! The `hanzo auth token` fallback with a fake `hanzo` on PATH: used when
//! nothing else gives a bearer, run once per process, output trimmed.
//! (Its own test binary: "once per process" is process-wide state.)

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use mcp_door_client::{BearerDiscovery, BearerSource, Door, DoorConfig};
use mcp_fake_door::{Behaviour, FakeDoor};
use serde_json::json;

fn write_script(dir: &Path, body: &str) {
    let path = dir.join("hanzo");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[tokio::test]
async fn hanzo_auth_token_runs_once_and_its_token_is_sent() {
    let bin = tempfile::tempdir().expect("bin dir");
    let home = tempfile::tempdir().expect("home dir");
    let count = bin.path().join("count");
    write_script(
        bin.path(),
        &format!(
            "echo \"$@\" >> '{}'\necho '  tok-from-cli  '",
            count.display()
        ),
    );
    let path = bin.path().to_string_lossy().into_owned();
    let home_dir = home.path().to_string_lossy().into_owned();
    let lookup = |key: &str| match key {
        "PATH" => Some(path.clone()),
        "HOME" => Some(home_dir.clone()),
        _ => None,
    };
    let discovery = BearerDiscovery::from_lookup(lookup);
    assert_eq!(discovery.api_key, None);
    let first = discovery.resolve().expect("a bearer");
    assert_eq!(first.expose_secret(), "tok-from-cli");
    let second = discovery.resolve().expect("a bearer");
    assert_eq!(second.expose_secret(), "tok-from-cli");

    // Through a door: the discovered bearer is sent, and the CLI is not run again.
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let mut config = DoorConfig::from_lookup(|key| match key {
        "HANZO_MCP_DOOR" => Some(fake.url()),
        other => lookup(other),
    });
    assert_eq!(config.address, fake.url());
    assert!(matches!(config.bearer, BearerSource::Discover(_)));
    config.timeouts.list = std::time::Duration::from_secs(5);
    let door = Door::new(config).expect("door");
    let mut params = serde_json::Map::new();
    params.insert("name".into(), json!("agents"));
    let result = door.call_tool(params, None).await.expect("result");
    assert_eq!(result["isError"], false);
    assert_eq!(
        fake.requests_for("tools/call")[0].header("authorization"),
        Some("Bearer tok-from-cli")
    );
    let runs = std::fs::read_to_string(&count).expect("count file");
    assert_eq!(runs, "auth token\n");
}
