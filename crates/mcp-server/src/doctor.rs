//! `hanzo-mcp doctor`: what a start would use and whether it works, one
//! line each, with the fix where something is wrong.
//!
//! Each line is `ok`, `note` (works, but worth knowing) or `FAIL` (a
//! tool, or the door, will not work), then what was checked and what was
//! found. The exit status is 1 when a line says `FAIL`, else 0. Nothing a
//! check finds is a secret: the bearer's source is named, never its value.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::ServeArgs;
use crate::config::Effective;

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// It works.
    Ok,
    /// It works, but is worth knowing (no bearer yet, no client set up).
    Note,
    /// It does not work; the line says how to fix it.
    Fail,
}

/// One checked thing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// How it came out.
    pub verdict: Verdict,
    /// What was checked (`door`, `git`, `state`, ...).
    pub what: &'static str,
    /// What was found, and the fix when it failed.
    pub detail: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verdict = match self.verdict {
            Verdict::Ok => "ok  ",
            Verdict::Note => "note",
            Verdict::Fail => "FAIL",
        };
        write!(f, "{verdict} {}: {}", self.what, self.detail)
    }
}

fn finding(verdict: Verdict, what: &'static str, detail: impl Into<String>) -> Finding {
    Finding {
        verdict,
        what,
        detail: detail.into(),
    }
}

/// The local tools this binary was built with, as its toolbox has them.
fn features() -> Vec<&'static str> {
    #[cfg_attr(not(feature = "mode"), allow(unused_mut))]
    let mut toolbox = mcp_local_tools::Toolbox::with_default_tools();
    #[cfg(feature = "mode")]
    toolbox.with_mode();
    toolbox.names()
}

/// Every check for a start with `args` and the settings of `effective`.
pub async fn run(args: &ServeArgs, effective: &Effective) -> Vec<Finding> {
    let mut out = vec![finding(
        Verdict::Ok,
        "version",
        format!(
            "hanzo-mcp {} with {}",
            env!("CARGO_PKG_VERSION"),
            features().join(", ")
        ),
    )];
    out.push(match (&effective.loaded.path, &effective.loaded.skipped) {
        _ if effective.loaded.error.is_some() => finding(
            Verdict::Fail,
            "config",
            format!(
                "{}; fix it (the checks below use flags, environment and defaults)",
                effective.loaded.error.as_deref().unwrap_or_default()
            ),
        ),
        (Some(path), _) => finding(Verdict::Ok, "config", format!("{}", path.display())),
        (None, Some(why)) => finding(Verdict::Note, "config", why.clone()),
        (None, None) => finding(
            Verdict::Ok,
            "config",
            "no file (flags, environment and defaults only)",
        ),
    });
    out.extend(roots(args));
    out.extend(mode(args, effective));
    out.extend(allowed_local(args));
    out.extend(mounted(args).await);
    out.extend(door(args).await);
    out.push(bearer());
    out.push(on_path("hanzo", "hanzo CLI", "needed only for `hanzo auth token` and `hanzo auth login`; install it from https://hanzo.ai, or set HANZO_API_KEY"));
    out.push(git().await);
    out.push(state().await);
    out.push(clients());
    out
}

/// The `mode` every session is bound to, when one is set: a preset that
/// exists, or `FAIL` naming the setting and the presets there are.
fn mode(args: &ServeArgs, effective: &Effective) -> Option<Finding> {
    let name = args.mode.as_deref()?;
    let spelling = crate::cli::mode_spelling(args, effective);
    Some(
        match crate::cli::check_mode(name, &crate::cli::mode_names(args), &spelling) {
            Ok(()) => finding(Verdict::Ok, "mode", format!("{name}, for every session")),
            Err(error) => finding(
                Verdict::Fail,
                "mode",
                error
                    .to_string()
                    .trim_start_matches("configuration: ")
                    .to_owned(),
            ),
        },
    )
}

/// The entries of the allowlist's `local` list that match none of the
/// local tools or actions (a typo leaves that tool out, and a list of
/// typos leaves no local tool): a note naming them and what is left.
fn allowed_local(args: &ServeArgs) -> Option<Finding> {
    use crate::source::ToolSource as _;
    let allowed = crate::cli::parse_allowed_tools(
        args.sources.allowed_tools.as_deref(),
        &args.sources.mount_names(),
    )
    .ok()?;
    allowed.server("local")?;
    let here = std::env::current_dir().ok()?;
    let local = crate::local::LocalSource::new(vec![here]).ok()?;
    let surface = mcp_gating::GatedSurface::new(
        "local",
        local.definitions(),
        &allowed,
        mcp_gating::Policy::FailOpen,
        local.surface_rules(),
    );
    let unmatched: Vec<String> = surface
        .unmatched_entries()
        .iter()
        .map(ToString::to_string)
        .collect();
    if unmatched.is_empty() {
        return None;
    }
    let left: Vec<&str> = surface.tools().iter().map(|t| t.name.as_str()).collect();
    Some(finding(
        Verdict::Note,
        "allowed_tools",
        format!(
            "local: {}; the local tools left: {}",
            unmatched.join("; "),
            if left.is_empty() {
                "none".to_owned()
            } else {
                left.join(", ")
            }
        ),
    ))
}

fn roots(args: &ServeArgs) -> Vec<Finding> {
    if args.sources.roots.is_empty() {
        let here = std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|_| "the working directory".to_owned());
        return vec![finding(
            Verdict::Ok,
            "roots",
            format!("the client's roots, else {here}"),
        )];
    }
    args.sources
        .roots
        .iter()
        .map(|root| {
            if root.is_dir() {
                finding(Verdict::Ok, "roots", root.display().to_string())
            } else {
                finding(
                    Verdict::Fail,
                    "roots",
                    format!(
                        "{} is not a directory: give --root an existing directory",
                        root.display()
                    ),
                )
            }
        })
        .collect()
}

/// The door: its address, the name resolved, then a real `tools/list`
/// (TLS included).
/// How long `doctor` gives a mounted server to answer `initialize` and
/// list its tools.
const SERVER_CHECK_WAIT: std::time::Duration = std::time::Duration::from_secs(20);

/// Each mounted server started as `serve` would start it (without our
/// credentials), initialized and listed, then stopped: one line each.
async fn mounted(args: &ServeArgs) -> Vec<Finding> {
    let mounts = match args.sources.mounts() {
        Ok(mounts) => mounts,
        Err(error) => return vec![finding(Verdict::Fail, "server", error.to_string())],
    };
    let mut out = Vec::new();
    for mount in mounts {
        let mut spec = mount.spec.clone();
        if let mcp_mount::Transport::Stdio(stdio) = &mut spec.transport {
            stdio
                .env_remove
                .extend(["HANZO_API_KEY", "HANZO_MCP_HTTP_BEARER"].map(String::from));
            stdio
                .env_remove
                .extend(args.sources.secret_env.iter().cloned());
        }
        let limits = mcp_mount::Limits {
            initialize: SERVER_CHECK_WAIT,
            list: SERVER_CHECK_WAIT,
            ..mcp_mount::Limits::default()
        };
        let server = mcp_mount::MountedServer::start(
            spec,
            limits,
            mcp_proto::Implementation::new("hanzo-mcp doctor", env!("CARGO_PKG_VERSION")),
            std::sync::Arc::new(mcp_mount::NoClient),
        );
        let tools = server.tools_within(SERVER_CHECK_WAIT).await;
        let name = &mount.spec.name;
        let described = mount.describe();
        out.push(match server.status() {
            mcp_mount::Status::Ready => finding(
                Verdict::Ok,
                "server",
                format!("{described}: {} tools", tools.len()),
            ),
            mcp_mount::Status::Down(why) => finding(
                Verdict::Fail,
                "server",
                format!("{described}: {why}; check its command or address (`serve` would start it again and again)"),
            ),
            _ => finding(
                Verdict::Fail,
                "server",
                format!("{name}: no answer to initialize within {} s", SERVER_CHECK_WAIT.as_secs()),
            ),
        });
        for note in &mount.notes {
            out.push(finding(Verdict::Note, "server", format!("{name}: {note}")));
        }
    }
    out
}

async fn door(args: &ServeArgs) -> Vec<Finding> {
    if args.sources.no_door {
        let what = if args.sources.mount_names().is_empty() {
            "off (local tools only)"
        } else {
            "off (local tools and mounted servers only)"
        };
        return vec![finding(Verdict::Ok, "door", what)];
    }
    let options = match args.sources.options() {
        Ok(options) => options,
        Err(error) => return vec![finding(Verdict::Fail, "door", error.to_string())],
    };
    let mut config = mcp_door_client::DoorClientConfig::from_env();
    if let Some(address) = &options.door_address {
        config.address.clone_from(address);
    }
    let address = config.address.clone();
    let mut out = Vec::new();
    if config.sends_bearer_in_clear() && !options.door_allow_cleartext_bearer {
        out.push(finding(
            Verdict::Fail,
            "door",
            format!("{address} is plain http:// on a host that is not loopback: use https://, or pass --door-allow-cleartext-bearer"),
        ));
        return out;
    }
    // Only the door's list is fetched: no bearer is needed for it
    // (HIP-0300 §1.3), and none is looked for or sent.
    config.bearer = mcp_door_client::BearerSource::None;
    config.timeouts.list = Duration::from_secs(5);
    let door =
        match tokio::task::spawn_blocking(move || mcp_door_client::DoorClient::new(config)).await {
            Ok(Ok(door)) => door,
            Ok(Err(error)) => {
                out.push(finding(
                    Verdict::Fail,
                    "door",
                    format!("{address}: {error}"),
                ));
                return out;
            }
            Err(error) => {
                out.push(finding(
                    Verdict::Fail,
                    "door",
                    format!("{address}: {error}"),
                ));
                return out;
            }
        };
    let snapshot = door.fetch_now().await;
    out.push(match snapshot.status {
        mcp_door_client::DoorStatus::Ready => {
            let tools = snapshot.list.map_or(0, |list| list.tools.len());
            finding(
                Verdict::Ok,
                "door",
                format!("{address} answers tools/list ({tools} tools)"),
            )
        }
        mcp_door_client::DoorStatus::SignInRequired { resource_metadata } => finding(
            Verdict::Fail,
            "door",
            format!(
                "{address} answered 401 to tools/list, which needs no sign-in: a proxy or a wrong address? (resource metadata {resource_metadata}); check HANZO_MCP_DOOR or HANZO_API_BASE"
            ),
        ),
        mcp_door_client::DoorStatus::Unavailable { reason } => finding(
            Verdict::Fail,
            "door",
            format!(
                "{address} does not answer tools/list ({reason}); the server still starts with the local tools. Check the network, or HANZO_MCP_DOOR / HANZO_API_BASE, or pass --no-door"
            ),
        ),
        _ => finding(
            Verdict::Fail,
            "door",
            format!("{address} gave no answer; check the network or pass --no-door"),
        ),
    });
    out
}

/// Where the door's bearer would come from (never its value).
fn bearer() -> Finding {
    if std::env::var_os("HANZO_API_KEY").is_some_and(|v| !v.is_empty()) {
        return finding(Verdict::Ok, "bearer", "from HANZO_API_KEY");
    }
    let config = home().map(|h| h.join(".hanzo/config.json"));
    if let Some(file) = config.filter(|f| has_api_key(f)) {
        return finding(
            Verdict::Ok,
            "bearer",
            format!("from apiKey in {}", file.display()),
        );
    }
    if find_on_path("hanzo").is_some() {
        return finding(
            Verdict::Ok,
            "bearer",
            "from `hanzo auth token`, run when the door is first called",
        );
    }
    finding(
        Verdict::Note,
        "bearer",
        "none: calls that need a sign-in will say so; set HANZO_API_KEY or run `hanzo auth login`",
    )
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

fn has_api_key(file: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(file) else {
        return false;
    };
    serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| {
            v.get("apiKey")
                .and_then(|k| k.as_str())
                .map(|k| !k.is_empty())
        })
        .unwrap_or(false)
}

/// The first `name` on `PATH`.
fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

fn on_path(name: &str, what: &'static str, fix: &str) -> Finding {
    match find_on_path(name) {
        Some(found) => finding(Verdict::Ok, what, found.display().to_string()),
        None => finding(Verdict::Note, what, format!("not found on PATH: {fix}")),
    }
}

/// `git --version`, bounded.
async fn git() -> Finding {
    let Some(program) = find_on_path("git") else {
        return finding(
            Verdict::Fail,
            "git",
            "not found on PATH: install git (the git tool runs it)",
        );
    };
    let run = tokio::process::Command::new(&program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    match tokio::time::timeout(Duration::from_secs(5), run).await {
        Ok(Ok(out)) if out.status.success() => finding(
            Verdict::Ok,
            "git",
            String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        ),
        Ok(Ok(out)) => finding(
            Verdict::Fail,
            "git",
            format!(
                "{} --version failed ({}): reinstall git",
                program.display(),
                out.status
            ),
        ),
        Ok(Err(error)) => finding(
            Verdict::Fail,
            "git",
            format!("{} cannot run ({error}): reinstall git", program.display()),
        ),
        Err(_) => finding(
            Verdict::Fail,
            "git",
            format!("{} --version did not finish in 5 s", program.display()),
        ),
    }
}

/// The state folder: writable, and its database healthy.
async fn state() -> Finding {
    let dir = match mcp_local_tools::state::state_dir() {
        Ok(dir) => dir,
        Err(why) => return finding(Verdict::Fail, "state", why),
    };
    let probe = dir.join(format!(".doctor-{}", std::process::id()));
    let writable = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&probe, b"ok"))
        .and_then(|()| std::fs::remove_file(&probe));
    if let Err(error) = writable {
        return finding(
            Verdict::Fail,
            "state",
            format!(
                "{} is not writable ({error}): fix its permissions, or set HANZO_MCP_STATE to a writable folder",
                dir.display()
            ),
        );
    }
    #[cfg(any(feature = "memory", feature = "plan", feature = "tasks"))]
    {
        let store = mcp_local_tools::store::Store::at(dir.join("state.db"));
        match tokio::task::spawn_blocking(move || store.check()).await {
            Ok(Ok(path)) => finding(
                Verdict::Ok,
                "state",
                format!("{} writable; {} healthy", dir.display(), path.display()),
            ),
            Ok(Err(why)) => finding(Verdict::Fail, "state", why),
            Err(error) => finding(Verdict::Fail, "state", error.to_string()),
        }
    }
    #[cfg(not(any(feature = "memory", feature = "plan", feature = "tasks")))]
    finding(Verdict::Ok, "state", format!("{} writable", dir.display()))
}

/// The clients' configuration files that name `hanzo-mcp`.
fn clients() -> Finding {
    let mut places: Vec<(&str, PathBuf)> = Vec::new();
    if let Some(home) = home() {
        places.push(("Claude Code", home.join(".claude.json")));
        places.push(("Cursor", home.join(".cursor/mcp.json")));
        places.push(("Codex", home.join(".codex/config.toml")));
        places.push((
            "Claude Desktop",
            if cfg!(target_os = "macos") {
                home.join("Library/Application Support/Claude/claude_desktop_config.json")
            } else {
                home.join(".config/Claude/claude_desktop_config.json")
            },
        ));
    }
    if let Ok(here) = std::env::current_dir() {
        places.push(("Claude Code (project)", here.join(".mcp.json")));
        places.push(("Cursor (project)", here.join(".cursor/mcp.json")));
        places.push(("VS Code (project)", here.join(".vscode/mcp.json")));
    }
    let found: Vec<String> = places
        .iter()
        .filter(|(_, file)| {
            std::fs::read_to_string(file).is_ok_and(|text| text.contains("hanzo-mcp"))
        })
        .map(|(client, file)| format!("{client} ({})", file.display()))
        .collect();
    if found.is_empty() {
        finding(
            Verdict::Note,
            "clients",
            "no client's configuration names hanzo-mcp yet: see the README, \"Client configuration\"",
        )
    } else {
        finding(Verdict::Ok, "clients", found.join(", "))
    }
}
