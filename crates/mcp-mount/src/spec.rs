//! What to mount: a command to start (stdio) or an address to POST to
//! (streamable HTTP), and the bounds every wait of the client keeps.

use std::path::PathBuf;
use std::time::Duration;

/// One server to mount: its name (its key in an `allowedTools`
/// configuration) and how to reach it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountSpec {
    /// The server's name: `[A-Za-z0-9_-]`, 1 to 64 characters
    /// ([`validate_name`]).
    pub name: String,
    /// How the server is reached.
    pub transport: Transport,
}

/// How a mounted server is reached (MCP 2025-11-25 basic/transports).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process that reads messages on its stdin and writes them on
    /// its stdout, one per line.
    Stdio(StdioServer),
    /// A streamable HTTP endpoint.
    Http(HttpServer),
}

/// A server started as a child process.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StdioServer {
    /// The program: a path, or a name looked up on `PATH`.
    pub command: String,
    /// Its arguments, passed as they are (never through a shell).
    pub args: Vec<String>,
    /// Variables set for the child, on top of the parent's environment.
    pub env: Vec<(String, String)>,
    /// Variables removed from the parent's environment before `env` is
    /// applied (the parent's credentials: a mounted server gets only what
    /// is named for it in `env`).
    pub env_remove: Vec<String>,
    /// The working directory; the parent's when `None`.
    pub cwd: Option<PathBuf>,
    /// Folders whose programs are never started (a server puts here the
    /// folders its tools may write, so that a program planted there is
    /// not run as this server). When not empty, at every start: a bare
    /// `command` is looked up on the absolute `PATH` entries outside them
    /// (relative entries such as `.` are never searched), and the child's
    /// `PATH` holds only those (an interpreter a `#!/usr/bin/env` line
    /// names is not found in them either); a `cwd` inside them, or
    /// holding one of them, is refused, and without `cwd` the child works
    /// in ours when it neither lies in nor holds one of them, else in
    /// [`home`] when that lies outside them (the folders above it would be
    /// the tools' otherwise, and programs look upward for settings), else
    /// in `/` unless one of them is a folder of `/`, else it is not started
    /// (programs load code from their working directory and below:
    /// `python -m`, `npx`); a command with a `/` is taken from that
    /// folder; and the program found is refused when it lies inside them,
    /// as is a script an argument names (`server.py`, or the value of
    /// `--flag=FILE`, relative to the child's working directory): a file
    /// that is executable, starts with `#!` or is named like code (`.py`,
    /// `.js`, `.ts`, `.sh`, `package.json`, `Cargo.toml`, ...), and a
    /// project folder a flag names (`--directory`, `--prefix`, `-C`,
    /// `--manifest-path`'s folder) or an interpreter's script's folder
    /// that lies in or holds one of them. Data files (a database, a log)
    /// and folders (the one a server of files serves) are passed, so a
    /// command that runs a folder (`node DIR`, `python3 DIR`) or a file
    /// named otherwise must not name one inside them. The child is started
    /// by the canonical path of its program with `command` as its name
    /// (`argv[0]`), as a shell starts it.
    ///
    /// [`home`]: StdioServer::home
    pub untrusted_dirs: Vec<PathBuf>,
    /// The child's `HOME` when ours, or one of its hidden folders (`~/.local`,
    /// `~/.config`), lies inside [`untrusted_dirs`] (ours: `HOME`, or the
    /// account's home when `HOME` is not set); created, mode 0700, when
    /// missing. A folder the tools cannot write, as per-user caches and
    /// settings there run code (`~/.npm/_npx`, `~/.local/lib/python*`,
    /// `~/.config/git`). With ours exposed and none given (nor `HOME` in
    /// [`env`]), or one of [`untrusted_dirs`] at or below the folder that
    /// holds it, the child is not started. Every
    /// other variable passed on that names a folder of
    /// [`untrusted_dirs`] (as given, canonical or through a link:
    /// `PYTHONPATH`, `NODE_OPTIONS`), or a folder that holds one
    /// (`XDG_CONFIG_HOME` with `git` below it a root), is removed, unless
    /// [`env`] sets it; when the child's home is moved, so is every one
    /// naming a folder of ours (`XDG_DATA_HOME=~/.local/share`). The
    /// hidden folders of ours are looked through for links into
    /// [`untrusted_dirs`] four levels deep (`~/.config/git/config`), 4,096
    /// entries in each and below each of their folders at most, and the
    /// settings files there (`~/.gitconfig`, `~/.config/git/config`,
    /// `~/.ssh/config`, the user site's `.pth` files, and the files they
    /// name) for a word naming one of them (`[include] path`, `Include`):
    /// either gives the child this home, and its git's `ssh` no settings
    /// (`GIT_SSH_COMMAND=ssh -F /dev/null`: OpenSSH reads the account's
    /// home). `XDG_CONFIG_HOME` is not passed on when the folder it names
    /// links into them or its `git/config` names one, nor
    /// `GIT_CONFIG_GLOBAL` when its file names one; a variable's `~/`
    /// counts as our home. Also the
    /// child's working directory when ours cannot be (see
    /// [`untrusted_dirs`]).
    ///
    /// [`untrusted_dirs`]: StdioServer::untrusted_dirs
    /// [`env`]: StdioServer::env
    pub home: Option<PathBuf>,
}

/// A server reached over streamable HTTP.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpServer {
    /// The endpoint (`http://` or `https://`).
    pub url: String,
    /// Headers sent with every request, besides the transport's own.
    pub headers: Vec<(String, String)>,
    /// The bearer sent as `Authorization: Bearer …`, when there is one.
    /// Never logged and never shown by `Debug` of [`MountedServer`](crate::MountedServer).
    pub bearer: Option<String>,
}

/// How long the client waits for what, and how it restarts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The longest wait for the answer to `initialize` (and for the first
    /// page of `tools/list`); a server slower than this is stopped and
    /// started again later. Default 30 s.
    pub initialize: Duration,
    /// The longest wait for a `tools/list` page. Default 30 s.
    pub list: Duration,
    /// The longest wait for a `tools/call` result. Default 10 min.
    pub call: Duration,
    /// The first wait before a restart; doubled after each failure up to
    /// [`Limits::backoff_max`], back to this after a run of a minute.
    /// Default 500 ms.
    pub backoff_min: Duration,
    /// The longest wait before a restart. Default 30 s.
    pub backoff_max: Duration,
    /// The longest line (one message) read from a child, in bytes; a
    /// longer one ends the connection. Default 16 MiB.
    pub max_message_bytes: usize,
    /// The most `tools/list` pages read. Default 64.
    pub max_pages: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            initialize: Duration::from_secs(30),
            list: Duration::from_secs(30),
            call: Duration::from_secs(600),
            backoff_min: Duration::from_millis(500),
            backoff_max: Duration::from_secs(30),
            max_message_bytes: 16 << 20,
            max_pages: 64,
        }
    }
}

/// Checks a mounted server's name: 1 to 64 characters of `A-Z a-z 0-9 _ -`,
/// so it can be an `allowedTools` key, a flag value and a log prefix.
///
/// # Errors
/// A sentence saying what is wrong with `name`.
pub fn validate_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 64 {
        return Err(format!(
            "a server name has 1 to 64 characters, {name:?} has {}",
            name.chars().count()
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(format!(
            "a server name uses only letters, digits, '_' and '-'; {name:?} has {bad:?}"
        ));
    }
    Ok(())
}
