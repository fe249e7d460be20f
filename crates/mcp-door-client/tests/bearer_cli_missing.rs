//! No `hanzo` on PATH means no bearer (and no error).

use mcp_door_client::BearerDiscovery;

#[test]
fn missing_hanzo_means_no_bearer() {
    let empty = tempfile::tempdir().expect("empty dir");
    let not_executable = empty.path().join("hanzo");
    std::fs::write(&not_executable, "#!/bin/sh\necho tok\n").expect("write");
    let path = format!("{}:/nonexistent-dir", empty.path().display());
    let discovery = BearerDiscovery::from_lookup(|key| (key == "PATH").then(|| path.clone()));
    assert_eq!(discovery.resolve(), None);
}
