//! The `hanzo auth token` fallback with a fake `hanzo` on PATH: used when
//! nothing else gives a bearer, run at most once per process, output
//! trimmed; a `hanzo` that hangs is killed at the CLI limit; none on PATH
//! means no bearer.
//!
//! "Once per process" is process-wide state, and each test here expects a
//! different outcome of that one run, so each runs its body alone in a new
//! process of this binary ([`in_fresh_process`]). That also keeps the
//! scripts safe to run: no other test's thread can fork while a script is
//! still open for writing (which would make running it fail with "text file
//! busy").

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use mcp_door_client::{BearerDiscovery, BearerSource, DoorClient, DoorClientConfig};
use mcp_fake_door::{Behaviour, FakeDoor};

use crate::common::{call_agents, in_fresh_process};

/// Discovery with only `PATH` set, to `path`.
fn path_only(path: String) -> BearerDiscovery {
    BearerDiscovery::from_lookup(|key| (key == "PATH").then(|| path.clone()))
}

/// Writes an executable `hanzo` shell script with `body` into `dir`.
fn write_script(dir: &Path, body: &str) {
    let path = dir.join("hanzo");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[tokio::test]
async fn hanzo_auth_token_runs_once_and_its_token_is_sent() {
    if !in_fresh_process("bearer_cli::hanzo_auth_token_runs_once_and_its_token_is_sent") {
        return;
    }
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
    let mut config = DoorClientConfig::from_lookup(|key| match key {
        "HANZO_MCP_DOOR" => Some(fake.url()),
        other => lookup(other),
    });
    assert_eq!(config.address, fake.url());
    assert!(matches!(config.bearer, BearerSource::Discover(_)));
    config.timeouts.list = std::time::Duration::from_secs(5);
    let door = DoorClient::new(config).expect("door");
    let result = call_agents(&door).await;
    assert_eq!(result["isError"], false);
    assert_eq!(
        fake.requests_for("tools/call")[0].header("authorization"),
        Some("Bearer tok-from-cli")
    );
    let runs = std::fs::read_to_string(&count).expect("count file");
    assert_eq!(runs, "auth token\n");
}

/// A `hanzo` that hangs costs at most the CLI limit, once: it is killed,
/// there is no bearer, and it is never run again in this process.
#[test]
fn hanging_hanzo_is_run_once_and_gives_no_bearer() {
    if !in_fresh_process("bearer_cli::hanging_hanzo_is_run_once_and_gives_no_bearer") {
        return;
    }
    let bin = tempfile::tempdir().expect("bin dir");
    let count = bin.path().join("count");
    write_script(
        bin.path(),
        &format!("echo run >> '{}'\nexec sleep 60", count.display()),
    );
    let path = bin.path().to_string_lossy().into_owned();
    let discovery = path_only(path);
    assert_eq!(discovery.cli_timeout, std::time::Duration::from_secs(3));
    assert_eq!(discovery.resolve(), None);
    assert_eq!(discovery.resolve(), None);
    assert_eq!(std::fs::read_to_string(&count).expect("count"), "run\n");
}

/// No `hanzo` on PATH (only a file of that name that is not executable)
/// means no bearer, and no error.
#[test]
fn missing_hanzo_means_no_bearer() {
    if !in_fresh_process("bearer_cli::missing_hanzo_means_no_bearer") {
        return;
    }
    let empty = tempfile::tempdir().expect("empty dir");
    let not_executable = empty.path().join("hanzo");
    std::fs::write(&not_executable, "#!/bin/sh\necho tok\n").expect("write");
    let path = format!("{}:/nonexistent-dir", empty.path().display());
    let discovery = path_only(path);
    assert_eq!(discovery.resolve(), None);
}

#[tokio::test]
async fn a_hanzo_in_an_untrusted_folder_or_a_relative_path_entry_is_never_run() {
    if !in_fresh_process(
        "bearer_cli::a_hanzo_in_an_untrusted_folder_or_a_relative_path_entry_is_never_run",
    ) {
        return;
    }
    let roots = tempfile::tempdir().expect("roots");
    let planted = roots.path().join("bin");
    std::fs::create_dir_all(&planted).expect("bin in the roots");
    let ran = roots.path().join("ran");
    write_script(
        &planted,
        &format!("touch '{}'\necho planted", ran.display()),
    );
    let trusted = tempfile::tempdir().expect("trusted bin");
    write_script(trusted.path(), "echo tok-trusted");
    // A relative entry (resolved against the working directory, which the
    // tools may write), the planted one, then a trusted one.
    let path = format!("bin:{}:{}", planted.display(), trusted.path().display());
    let mut discovery = path_only(path);
    discovery.untrusted_dirs = vec![roots.path().to_path_buf()];
    let bearer = discovery.resolve().expect("the trusted one");
    assert_eq!(bearer.expose_secret(), "tok-trusted");
    assert!(!ran.exists(), "the planted hanzo ran");
}
