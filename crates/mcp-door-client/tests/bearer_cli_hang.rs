//! A `hanzo` that hangs costs at most the CLI limit, once: it is killed,
//! there is no bearer, and it is never run again in this process.

use std::os::unix::fs::PermissionsExt;

use mcp_door_client::BearerDiscovery;

#[test]
fn hanging_hanzo_is_run_once_and_gives_no_bearer() {
    let bin = tempfile::tempdir().expect("bin dir");
    let count = bin.path().join("count");
    let script = bin.path().join("hanzo");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho run >> '{}'\nexec sleep 60\n",
            count.display()
        ),
    )
    .expect("write script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = bin.path().to_string_lossy().into_owned();
    let discovery = BearerDiscovery::from_lookup(|key| (key == "PATH").then(|| path.clone()));
    assert_eq!(discovery.cli_timeout, std::time::Duration::from_secs(3));
    assert_eq!(discovery.resolve(), None);
    assert_eq!(discovery.resolve(), None);
    assert_eq!(std::fs::read_to_string(&count).expect("count"), "run\n");
}
