//! The bearer: where it comes from, and a type that never shows it.
//!
//! Order (HIP-0300 §2.2, first found wins): `HANZO_API_KEY`; `apiKey` in
//! `~/.hanzo/config.json`; the trimmed output of `hanzo auth token`, run at
//! most once per process with a 3 s limit (a missing `hanzo` means no bearer).

use std::ffi::OsString;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Default limit for `hanzo auth token` (HIP-0300 §2.2: "short timeout").
pub const DEFAULT_CLI_TIMEOUT: Duration = Duration::from_secs(3);

/// Largest `~/.hanzo/config.json` read, in bytes; a bigger file is ignored.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// A bearer token for the door's `Authorization` header.
///
/// `Debug` prints `Bearer(<redacted>)`; there is no `Display`; the only way
/// to the text is [`Bearer::expose_secret`], which this crate calls in one
/// place (building the header, which is marked sensitive).
#[derive(Clone, PartialEq, Eq)]
pub struct Bearer(String);

impl Bearer {
    /// A bearer from `token`, trimmed. `None` when the trimmed token is empty
    /// or holds a character that cannot go in an HTTP header (control
    /// characters, non-ASCII, spaces).
    pub fn new(token: &str) -> Option<Bearer> {
        let token = token.trim();
        let printable = token.bytes().all(|b| b.is_ascii_graphic());
        (!token.is_empty() && printable).then(|| Bearer(token.to_owned()))
    }

    /// The token itself. Never log or display what this returns.
    pub fn expose_secret(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Bearer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Bearer(<redacted>)")
    }
}

/// Where to look for a bearer, in order; [`BearerDiscovery::resolve`] walks it.
///
/// Built from the process environment with [`BearerDiscovery::from_env`], or
/// from any lookup function with [`BearerDiscovery::from_lookup`] (runtimes
/// that embed the crate, and tests). Every field can be set by hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BearerDiscovery {
    /// The value of `HANZO_API_KEY`, when set and usable.
    pub api_key: Option<Bearer>,
    /// The config file whose top-level `apiKey` is the second choice,
    /// normally `$HOME/.hanzo/config.json`; `None` skips this step.
    pub config_file: Option<PathBuf>,
    /// The directories searched for a `hanzo` executable (the `PATH` value);
    /// `None` skips the `hanzo auth token` step.
    pub search_path: Option<OsString>,
    /// How long `hanzo auth token` may run before it is killed
    /// (default [`DEFAULT_CLI_TIMEOUT`]).
    pub cli_timeout: Duration,
    /// Directories whose programs are never run as `hanzo`: a server puts
    /// the folders its tools may write here (its roots), so that a
    /// program planted there is not run with the server's environment.
    /// Relative `PATH` entries are never searched either.
    pub untrusted_dirs: Vec<PathBuf>,
    /// Folders known only once the server runs (the MCP roots its client
    /// names, for a server that follows them), added to `untrusted_dirs`
    /// when the `hanzo auth token` step runs. A door client whose
    /// discovery has them runs that step at its first `tools/call`, never
    /// for a `tools/list` (which the door answers without a credential,
    /// HIP-0300 §1.3; the first two sources still serve it), so that the
    /// client's roots are known by then.
    pub later_untrusted_dirs: Option<LaterDirs>,
    /// Variables removed from the environment of `hanzo auth token` (the
    /// server's other secrets: it needs none of them).
    pub env_remove: Vec<String>,
}

/// A function giving folders known only after start (see
/// [`BearerDiscovery::later_untrusted_dirs`]); called on a blocking
/// thread. Two are equal when they are the same function.
#[derive(Clone)]
pub struct LaterDirs(
    std::sync::Arc<dyn Fn() -> Vec<PathBuf> + Send + Sync>,
    Option<ReadyFn>,
);

/// Gives a future that completes once [`LaterDirs`] knows its folders.
pub type ReadyFn = std::sync::Arc<
    dyn Fn() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> + Send + Sync,
>;

/// The longest the `hanzo auth token` step waits for [`LaterDirs::ready`];
/// past it the bearer is what the first two sources give.
pub const LATER_DIRS_WAIT: Duration = Duration::from_secs(60);

impl LaterDirs {
    /// Wraps `dirs`, which gives the folders when asked.
    pub fn new(dirs: impl Fn() -> Vec<PathBuf> + Send + Sync + 'static) -> Self {
        LaterDirs(std::sync::Arc::new(dirs), None)
    }

    /// These folders, known once the future `ready` gives completes (the
    /// client has named its roots): the `hanzo auth token` step waits for
    /// it, at most [`LATER_DIRS_WAIT`].
    pub fn with_ready(mut self, ready: ReadyFn) -> Self {
        self.1 = Some(ready);
        self
    }

    /// The folders, now.
    pub fn dirs(&self) -> Vec<PathBuf> {
        (self.0)()
    }

    /// Completes once the folders are known (at once without
    /// [`LaterDirs::with_ready`]).
    pub async fn ready(&self) {
        if let Some(ready) = &self.1 {
            ready().await;
        }
    }
}

impl fmt::Debug for LaterDirs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LaterDirs(..)")
    }
}

impl PartialEq for LaterDirs {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for LaterDirs {}

impl BearerDiscovery {
    /// Discovery from the process environment (`HANZO_API_KEY`, `HOME`, `PATH`).
    pub fn from_env() -> BearerDiscovery {
        BearerDiscovery::from_lookup(|key| std::env::var(key).ok())
    }

    /// Discovery from a lookup of environment variables by name
    /// (`HANZO_API_KEY`, `HOME`, `PATH`).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> BearerDiscovery {
        BearerDiscovery {
            api_key: lookup("HANZO_API_KEY").and_then(|key| Bearer::new(&key)),
            config_file: lookup("HOME")
                .filter(|home| !home.is_empty())
                .map(|home| Path::new(&home).join(".hanzo").join("config.json")),
            search_path: lookup("PATH").map(OsString::from),
            cli_timeout: DEFAULT_CLI_TIMEOUT,
            untrusted_dirs: Vec::new(),
            later_untrusted_dirs: None,
            env_remove: Vec::new(),
        }
    }

    /// Walks the sources in order and returns the first bearer found, or
    /// `None`. Blocking: the last step may run `hanzo auth token` for up to
    /// [`BearerDiscovery::cli_timeout`]. That step runs at most once per
    /// process, whatever the discovery: its outcome (a bearer or none) is
    /// kept and reused by every later call.
    pub fn resolve(&self) -> Option<Bearer> {
        if let Some(key) = self.resolve_without_cli() {
            return Some(key);
        }
        let search_path = self.search_path.as_ref()?;
        static CLI_BEARER: OnceLock<Option<Bearer>> = OnceLock::new();
        CLI_BEARER
            .get_or_init(|| {
                let mut untrusted = self.untrusted_dirs.clone();
                untrusted.extend(self.later_untrusted_dirs.iter().flat_map(LaterDirs::dirs));
                let program = find_program("hanzo", search_path, &untrusted)?;
                let child = Child {
                    path: trusted_path(search_path, &untrusted),
                    env_remove: &self.env_remove,
                    loaders: loaders_naming(&untrusted),
                    cwd: outside(&untrusted),
                };
                run_auth_token(&program, self.cli_timeout, &child)
            })
            .clone()
    }

    /// [`BearerDiscovery::resolve`] without its last step: `HANZO_API_KEY`,
    /// then the config file's `apiKey`. Runs no program.
    pub fn resolve_without_cli(&self) -> Option<Bearer> {
        if let Some(key) = &self.api_key {
            return Some(key.clone());
        }
        self.config_file.as_deref().and_then(read_config_api_key)
    }
}

/// The top-level `apiKey` string of a JSON config file, if any.
fn read_config_api_key(path: &Path) -> Option<Bearer> {
    let file = std::fs::File::open(path).ok()?;
    let mut text = String::new();
    file.take(MAX_CONFIG_BYTES).read_to_string(&mut text).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    Bearer::new(value.get("apiKey")?.as_str()?)
}

/// How `hanzo auth token` is started: nothing the tools may write is
/// searched or worked in (a `#!/usr/bin/env node` line would otherwise
/// find a planted `node`), and the server's other secrets are not passed.
struct Child<'a> {
    /// `PATH`: its absolute entries outside the untrusted folders.
    path: OsString,
    env_remove: &'a [String],
    /// Variables that name an untrusted folder (removed; `HOME` is kept,
    /// the CLI's sign-in is there), and, with `HOME` in one, Python's user
    /// site-packages and npm's user config turned off (set).
    loaders: (Vec<OsString>, Vec<(&'static str, &'static str)>),
    /// A working directory outside them, when ours is not.
    cwd: Option<PathBuf>,
}

/// The absolute entries of `search_path` outside `untrusted` (canonical
/// folders), joined again.
fn trusted_path(search_path: &OsString, untrusted: &[PathBuf]) -> OsString {
    let untrusted: Vec<PathBuf> = untrusted
        .iter()
        .map(|dir| std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone()))
        .collect();
    let kept: Vec<PathBuf> = std::env::split_paths(search_path)
        .filter(|dir| dir.is_absolute())
        .filter(|dir| {
            let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
            !untrusted.iter().any(|bad| dir.starts_with(bad))
        })
        .collect();
    std::env::join_paths(kept).unwrap_or_default()
}

/// What [`Child::loaders`] holds for `untrusted` (canonical or not).
fn loaders_naming(untrusted: &[PathBuf]) -> (Vec<OsString>, Vec<(&'static str, &'static str)>) {
    let canonical: Vec<PathBuf> = untrusted
        .iter()
        .map(|dir| std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone()))
        .collect();
    let inside = |path: &Path| canonical.iter().any(|dir| path.starts_with(dir));
    let spelled: Vec<String> = untrusted
        .iter()
        .chain(&canonical)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.to_string_lossy().into_owned())
        .collect();
    // As for a mounted server's child (`mcp-mount`): every variable that
    // names one of them, as given, canonical or through a link
    // (`PYTHONPATH`, `NODE_OPTIONS`, `npm_config_cache`), or a folder
    // holding one, but `HOME`,
    // where the CLI keeps its sign-in, and `PATH`, filtered apart.
    let names_one = |value: &std::ffi::OsStr| {
        let value = value.to_string_lossy();
        spelled.iter().any(|dir| value.contains(dir.as_str()))
            || value
                .split(|c: char| c == ':' || c == '=' || c == ',' || c == ';' || c.is_whitespace())
                .filter(|piece| piece.starts_with('/'))
                .any(|piece| {
                    let piece = Path::new(piece);
                    let folder =
                        std::fs::canonicalize(piece).unwrap_or_else(|_| piece.to_path_buf());
                    // Or a folder holding one (`XDG_CONFIG_HOME` with its
                    // `git` among them).
                    inside(&folder) || canonical.iter().any(|dir| dir.starts_with(&folder))
                })
    };
    let unset = std::env::vars_os()
        .filter(|(name, value)| name != "HOME" && name != "PATH" && names_one(value))
        .map(|(name, _)| name)
        .collect();
    // Ours, or one of its hidden folders (`~/.local`), among them: what
    // per-user programs load from there is the agent's.
    let exposed = std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
        .or_else(std::env::home_dir)
        .map(|home| std::fs::canonicalize(&home).unwrap_or(home))
        .is_some_and(|home| {
            inside(&home)
                || canonical.iter().any(|dir| {
                    dir.strip_prefix(&home)
                        .ok()
                        .and_then(|rest| rest.components().next())
                        .is_some_and(|first| first.as_os_str().as_encoded_bytes().starts_with(b"."))
                })
                || hidden_links_reach(&home, &canonical)
        });
    let set = if exposed {
        vec![
            ("PYTHONNOUSERSITE", "1"),
            ("NPM_CONFIG_USERCONFIG", "/dev/null"),
        ]
    } else {
        Vec::new()
    };
    (unset, set)
}

/// How deep below `HOME` [`hidden_links_reach`] looks for links
/// (`~/.config/git/config` is 3).
const HIDDEN_DEPTH: usize = 4;

/// How many entries [`hidden_links_reach`] reads in each hidden folder
/// of `HOME` (`~/.config`), and below each folder of one
/// (`~/.config/git`), at most: a cache folder holds many more, the
/// settings folders that link into dotfiles repositories far fewer, and a
/// large one (`~/.config/Code`) does not use up another's share.
const HIDDEN_ENTRIES: usize = 4096;

/// Whether an entry of `home` whose name starts with `.` (`~/.local`,
/// `~/.npmrc`), or an entry below such a folder down to [`HIDDEN_DEPTH`]
/// (`~/.config/git`, `~/.config/git/config` as GNU Stow links it), is,
/// through a symbolic link, a file or folder inside `untrusted`
/// (canonical), or holds one of them (a dotfiles repository linked in).
/// At most [`HIDDEN_ENTRIES`] entries are read in each hidden folder and
/// below each of its folders (the same check `mcp-mount` makes for a
/// mounted server's child).
fn hidden_links_reach(home: &Path, untrusted: &[PathBuf]) -> bool {
    let Ok(entries) = std::fs::read_dir(home) else {
        return false;
    };
    entries.flatten().any(|entry| {
        entry.file_name().as_encoded_bytes().starts_with(b".")
            && links_reach(&entry.path(), HIDDEN_DEPTH, untrusted)
    })
}

/// Whether `path`, or an entry below it down to `depth` levels (`path`
/// is 1), is a symbolic link to a file or folder inside `untrusted`
/// (canonical), or to one holding one of them. Each folder of `path` is
/// looked through breadth first, [`HIDDEN_ENTRIES`] entries at most, as
/// is `path` itself.
fn links_reach(path: &Path, depth: usize, untrusted: &[PathBuf]) -> bool {
    let reaches = |link: &Path| {
        std::fs::canonicalize(link).is_ok_and(|target| {
            untrusted
                .iter()
                .any(|dir| target.starts_with(dir) || dir.starts_with(&target))
        })
    };
    // The links among `folders`' entries, breadth first down to `levels`
    // more levels, `budget` entries at most; the folders met on the first
    // level when `collect` is set, instead of looking below them.
    let walk = |folders: Vec<PathBuf>, levels: usize, collect: bool| {
        let mut budget = HIDDEN_ENTRIES;
        let mut level = folders;
        let mut met = Vec::new();
        for _ in 0..levels {
            let mut next = Vec::new();
            for folder in &level {
                let Ok(inner) = std::fs::read_dir(folder) else {
                    continue;
                };
                for entry in inner.flatten() {
                    if budget == 0 {
                        return (false, met);
                    }
                    budget -= 1;
                    match entry.file_type() {
                        Ok(kind) if kind.is_symlink() && reaches(&entry.path()) => {
                            return (true, met);
                        }
                        Ok(kind) if kind.is_dir() && collect => met.push(entry.path()),
                        Ok(kind) if kind.is_dir() => next.push(entry.path()),
                        _ => {}
                    }
                }
            }
            level = next;
        }
        (false, met)
    };
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => reaches(path),
        Ok(meta) if meta.is_dir() && depth > 1 => {
            let (found, folders) = walk(vec![path.to_path_buf()], 1, true);
            found
                || folders
                    .into_iter()
                    .any(|folder| walk(vec![folder], depth - 2, false).0)
        }
        _ => false,
    }
}

/// `None` when our working directory is outside `untrusted`; else `/`
/// when it is outside.
fn outside(untrusted: &[PathBuf]) -> Option<PathBuf> {
    let untrusted: Vec<PathBuf> = untrusted
        .iter()
        .map(|dir| std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone()))
        .collect();
    let inside = |dir: &Path| untrusted.iter().any(|bad| dir.starts_with(bad));
    let ours = std::env::current_dir()
        .ok()
        .and_then(|d| std::fs::canonicalize(d).ok());
    if ours.as_deref().is_some_and(|d| !inside(d)) {
        return None;
    }
    // Not the temporary folder: anyone may write there.
    Some(PathBuf::from("/")).filter(|dir| !inside(dir))
}

/// The first executable file named `name` in the `PATH`-style
/// `search_path`, searching absolute entries only and skipping a file that
/// is, or resolves to, one inside `untrusted` (symbolic links followed).
fn find_program(name: &str, search_path: &OsString, untrusted: &[PathBuf]) -> Option<PathBuf> {
    let untrusted: Vec<PathBuf> = untrusted
        .iter()
        .map(|dir| std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone()))
        .collect();
    std::env::split_paths(search_path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .filter(|candidate| is_executable(candidate))
        .find(|candidate| {
            let dir = candidate.parent().unwrap_or(candidate);
            let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
            let file = std::fs::canonicalize(candidate).unwrap_or_else(|_| candidate.clone());
            !untrusted
                .iter()
                .any(|bad| dir.starts_with(bad) || file.starts_with(bad))
        })
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// Runs `<program> auth token` with stdin closed and stderr discarded; the
/// trimmed stdout is the bearer when the exit status is success. A process
/// still running after `timeout` is killed and counts as no bearer.
fn run_auth_token(program: &Path, timeout: Duration, how: &Child<'_>) -> Option<Bearer> {
    let deadline = Instant::now() + timeout;
    let mut command = Command::new(program);
    command
        .args(["auth", "token"])
        .env("PATH", &how.path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for variable in how
        .env_remove
        .iter()
        .map(OsString::from)
        .chain(how.loaders.0.iter().cloned())
    {
        command.env_remove(variable);
    }
    command.envs(how.loaders.1.iter().copied());
    if let Some(cwd) = &how.cwd {
        command.current_dir(cwd);
    }
    let mut child = command.spawn().ok()?;
    // Read stdout on a thread: a grandchild may keep the pipe open after the
    // child exits, and that must not block us past the deadline.
    let mut stdout = child.stdout.take()?;
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = (&mut stdout).take(64 * 1024).read_to_end(&mut out);
        let _ = sender.send(out);
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                tracing::warn!(
                    "`hanzo auth token` did not finish within {} s; continuing without a bearer",
                    timeout.as_secs_f64()
                );
                return None;
            }
        }
    };
    if !status.success() {
        return None;
    }
    let remaining = deadline.saturating_duration_since(Instant::now());
    let out = receiver.recv_timeout(remaining).ok()?;
    Bearer::new(std::str::from_utf8(&out).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_token() {
        let bearer = Bearer::new("  sk-canary-123  ").expect("valid");
        assert_eq!(format!("{bearer:?}"), "Bearer(<redacted>)");
        assert_eq!(bearer.expose_secret(), "sk-canary-123");
    }

    #[test]
    fn unusable_tokens_are_no_bearer() {
        assert_eq!(Bearer::new("   "), None);
        assert_eq!(Bearer::new("two words"), None);
        assert_eq!(Bearer::new("line\nbreak"), None);
    }

    #[test]
    fn api_key_wins_over_config_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join(".hanzo")).expect("mkdir");
        std::fs::write(
            dir.path().join(".hanzo/config.json"),
            r#"{"apiKey":"from-file"}"#,
        )
        .expect("write");
        let home = dir.path().to_string_lossy().into_owned();
        let with_key = BearerDiscovery::from_lookup(|k| match k {
            "HANZO_API_KEY" => Some("from-env".into()),
            "HOME" => Some(home.clone()),
            _ => None,
        });
        assert_eq!(
            with_key.resolve().map(|b| b.expose_secret().to_owned()),
            Some("from-env".to_owned())
        );
        let without_key = BearerDiscovery::from_lookup(|k| match k {
            "HOME" => Some(home.clone()),
            _ => None,
        });
        assert_eq!(
            without_key.resolve().map(|b| b.expose_secret().to_owned()),
            Some("from-file".to_owned())
        );
    }

    #[test]
    fn config_file_without_api_key_and_no_path_is_no_bearer() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join(".hanzo")).expect("mkdir");
        std::fs::write(dir.path().join(".hanzo/config.json"), r#"{"other":1}"#).expect("write");
        let home = dir.path().to_string_lossy().into_owned();
        let discovery = BearerDiscovery::from_lookup(|k| (k == "HOME").then(|| home.clone()));
        assert_eq!(discovery.search_path, None);
        assert_eq!(discovery.resolve(), None);
    }

    #[test]
    fn a_variable_naming_a_folder_that_holds_a_root_is_not_passed_on() {
        // Cargo runs tests with `CARGO_MANIFEST_DIR` set: a root below it
        // (`XDG_CONFIG_HOME` and its `git`, say) takes it away.
        let crate_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo"));
        let (unset, _) = loaders_naming(&[crate_dir.join("src")]);
        assert!(
            unset.iter().any(|name| name == "CARGO_MANIFEST_DIR"),
            "{unset:?}"
        );
        let elsewhere = tempfile::tempdir().expect("tempdir");
        let (unset, _) = loaders_naming(&[elsewhere.path().join("x")]);
        assert!(
            !unset.iter().any(|name| name == "CARGO_MANIFEST_DIR"),
            "{unset:?}"
        );
    }

    #[test]
    fn a_link_deep_among_the_hidden_folders_of_home_is_seen() {
        // `~/.config/git/config` linked alone into a dotfiles repository,
        // as GNU Stow links it when `~/.config/git` is a folder.
        let dir = tempfile::tempdir().expect("tempdir");
        let dir = dir.path().canonicalize().expect("canonical");
        let (home, dotfiles) = (dir.join("home"), dir.join("dotfiles"));
        std::fs::create_dir_all(home.join(".config/git")).expect("mkdir");
        std::fs::create_dir_all(&dotfiles).expect("mkdir");
        std::fs::write(dotfiles.join("gitconfig"), "").expect("write");
        assert!(!hidden_links_reach(&home, std::slice::from_ref(&dotfiles)));
        std::os::unix::fs::symlink(dotfiles.join("gitconfig"), home.join(".config/git/config"))
            .expect("link");
        assert!(hidden_links_reach(&home, std::slice::from_ref(&dotfiles)));
        assert!(!hidden_links_reach(&home, &[dir.join("elsewhere")]));
    }
}
