//! The `hanzo-mcp` command line (clap): `serve`, `tools`, `--version`.
//! It turns arguments into [`Options`] and settings; building the
//! composition is [`crate::assembly`]'s.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use tracing_subscriber::EnvFilter;

use mcp_gating::AllowedTools;

use crate::assembly::{Assembly, Options, assemble, server_info};
use crate::error::ServerError;
use crate::gated::GatedSource;
use crate::server::{Server, ServerConfig};
use crate::source::ToolSource;

/// `hanzo-mcp`: the local MCP server (HIP-0300 §2).
#[derive(Debug, Parser)]
#[command(
    name = "hanzo-mcp",
    version,
    about = "Local MCP server: the machine's tools over stdio, everything else forwarded to the Hanzo door"
)]
pub struct Cli {
    /// The configuration file (TOML). Default: `config.toml` in the
    /// platform's config folder under `hanzo-mcp/`, which is not read when
    /// it lies inside a root. Flags and variables win over it.
    #[arg(long, global = true, value_name = "FILE", env = "HANZO_MCP_CONFIG")]
    pub config: Option<PathBuf>,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands. Each one's flags are built only when it runs
/// (clap's deferred initialization): a start pays for `serve`'s flags, not
/// for every subcommand's. A variant's comment is its line in
/// `hanzo-mcp --help`; the comment of its flags' struct, applied when the
/// subcommand is built, is what `hanzo-mcp <subcommand> --help` says.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Serve MCP over stdin/stdout, or over streamable HTTP with --http.
    Serve(ServeArgs),
    /// Print the assembled tool list as JSON on stdout and exit.
    Tools(ToolsArgs),
    /// The configuration file and the effective settings.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Check what a start with these flags would use, one line each (ok,
    /// note or FAIL, with the fix).
    Doctor(DoctorArgs),
    /// Add the `hanzo` server entry to an MCP client's configuration
    /// file.
    Install(InstallArgs),
    /// Remove the `hanzo` entry from an MCP client's configuration file.
    Uninstall(UninstallArgs),
    /// Print a shell completion script on stdout (`hanzo-mcp completions
    /// bash > ~/.local/share/bash-completion/completions/hanzo-mcp`).
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) on stdout (`hanzo-mcp man >
    /// ~/.local/share/man/man1/hanzo-mcp.1`), or with `--dir` write it and
    /// one page per subcommand (`hanzo-mcp-serve.1`, ...) into a folder.
    Man {
        /// Write every page into this folder (`~/.local/share/man/man1`)
        /// instead of printing the top-level one; the files written are
        /// printed, one a line.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// `serve`'s flags, as `doctor` and `config show` take them: kept as
/// given and read with `serve`'s own parser ([`ServeFlags::parse`]) when
/// those run, so every flag is defined once, in [`ServeArgs`].
#[derive(Debug, Clone, Args)]
pub struct ServeFlags {
    /// Any of `serve`'s flags (`hanzo-mcp serve --help`).
    #[arg(
        value_name = "SERVE FLAGS",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub flags: Vec<std::ffi::OsString>,
}

impl ServeFlags {
    /// The flags read as `serve` reads them (and `--config`, when it
    /// comes among them), with their matches.
    ///
    /// # Errors
    /// clap's, as for `serve`.
    pub fn parse(
        &self,
    ) -> Result<(ServeArgs, Option<PathBuf>, crate::config::GivenArgs), clap::Error> {
        use clap::FromArgMatches as _;
        let command = ServeArgs::augment_args(clap::Command::new("hanzo-mcp serve")).arg(
            clap::Arg::new("config")
                .long("config")
                .value_name("FILE")
                .value_parser(clap::value_parser!(PathBuf)),
        );
        let mut matches = command.try_get_matches_from(
            std::iter::once(std::ffi::OsString::from("serve")).chain(self.flags.iter().cloned()),
        )?;
        let given = crate::config::GivenArgs::of(&matches);
        let config = matches.remove_one::<PathBuf>("config");
        let args = ServeArgs::from_arg_matches_mut(&mut matches)?;
        Ok((args, config, given))
    }
}

/// Add the `hanzo` server entry (this binary, `serve`) to an MCP client's
/// configuration file, in its format, keeping every other entry, comment
/// and the file's layout; the previous file is kept as
/// `<file>.hanzo-mcp.bak`. Installing twice changes nothing.
#[derive(Debug, Clone, Args)]
pub struct InstallArgs {
    /// The client whose configuration file to change.
    #[arg(long, value_enum)]
    pub client: crate::install::Client,
    /// The user's file or the working directory's project file (default:
    /// user, for VS Code project).
    #[arg(long, value_enum)]
    pub scope: Option<crate::install::Scope>,
    /// Print the file as it would be, without writing anything
    /// (`install` only).
    #[arg(long)]
    pub print: bool,
}

/// Remove the `hanzo` entry from an MCP client's configuration file (the
/// file as it was before `install`, when nothing else changed).
#[derive(Debug, Clone, Args)]
pub struct UninstallArgs {
    /// The same options as `install`'s.
    #[command(flatten)]
    pub args: InstallArgs,
}

/// Check what a start with these flags would use, one line each (ok, note
/// or FAIL, with the fix): the config file, the roots, the door (address,
/// name, TLS, `tools/list`), the bearer's source (never its value), the
/// `hanzo` CLI, git, the state folder and its database, and which clients
/// name hanzo-mcp. Exit status 1 when a line says FAIL.
#[derive(Debug, Clone, Args)]
pub struct DoctorArgs {
    /// `serve`'s flags, as `serve` reads them.
    #[command(flatten)]
    pub flags: ServeFlags,
}

/// `hanzo-mcp config ...`.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print every setting `serve` would use with these flags, with where
    /// it came from (flag, environment, config file, default); credentials
    /// masked.
    Show(ServeFlags),
}

/// Print the assembled tool list as JSON on stdout and exit.
#[derive(Debug, Clone, Args)]
pub struct ToolsArgs {
    /// Which tools exist.
    #[command(flatten)]
    pub sources: SourceArgs,

    /// Print, instead of the tool list, what each action of each local
    /// tool can do (read files, write files, run programs, network,
    /// state), and the door's, as a Markdown table: what a grant in
    /// `--allowed-tools` or a mode gives.
    #[arg(long)]
    pub capabilities: bool,
}

/// Options that decide which tools exist.
#[derive(Debug, Clone, Args)]
pub struct SourceArgs {
    /// A directory the local tools may read and write (repeatable).
    /// Default: over stdio, the client's MCP roots when it offers them, else
    /// the working directory; over --http, the working directory.
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,

    /// Per-source tool allowlist (`allowedTools`): JSON `null` or
    /// `{"local": ["fs"], "door": ["billing:get_invoice"]}`, or `@FILE` to
    /// read that JSON from a file. Sources absent from the map keep all
    /// their tools.
    #[arg(
        long,
        value_name = "JSON|@FILE",
        env = "HANZO_MCP_ALLOWED_TOOLS",
        hide_env_values = true
    )]
    pub allowed_tools: Option<String>,

    /// Do not forward to the door: local tools only.
    #[arg(long)]
    pub no_door: bool,

    /// Let `fetch` and `ui` reach loopback, private and link-local
    /// addresses (refused by default, so a page cannot turn the tools
    /// against the network they run in). Also HANZO_MCP_FETCH_ALLOW_PRIVATE=1.
    #[arg(long)]
    pub fetch_allow_private: bool,

    /// How long `tools/list` waits for the door's first list before it
    /// answers with the local tools alone, in seconds.
    #[arg(long, value_name = "SECONDS", default_value = "2", value_parser = parse_seconds)]
    pub door_wait: Duration,

    /// A JSON file of `mode` presets (`{"<name>": ["fs:read", "code"]}`),
    /// besides the built-in `full` and `review`. Also HANZO_MCP_MODES.
    #[arg(long, value_name = "FILE")]
    pub modes: Option<PathBuf>,

    /// Let the door's address be plain `http://` on a host that is not
    /// loopback, which sends the bearer over the network in clear text
    /// (refused at start by default). Also
    /// HANZO_MCP_DOOR_ALLOW_CLEARTEXT_BEARER=1.
    #[arg(long, env = "HANZO_MCP_DOOR_ALLOW_CLEARTEXT_BEARER", value_parser = clap::builder::BoolishValueParser::new(), default_value_t = false)]
    pub door_allow_cleartext_bearer: bool,

    /// An environment variable that holds a secret: removed from the
    /// environment of every program the tools start, besides
    /// HANZO_API_KEY and HANZO_MCP_HTTP_BEARER, which always are
    /// (repeatable; also HANZO_MCP_SECRET_ENV, names separated by commas).
    #[arg(
        long = "secret-env",
        value_name = "NAME",
        env = "HANZO_MCP_SECRET_ENV",
        value_delimiter = ',',
        value_parser = parse_variable_name
    )]
    pub secret_env: Vec<String>,

    /// Another MCP server to mount as a source, after the local tools and
    /// before the door (repeatable, in order): `NAME=COMMAND [ARG...]` for
    /// a child process over stdio, `NAME=URL` for streamable HTTP. NAME is
    /// its key in --allowed-tools. Replaces the configuration file's
    /// `[[servers]]`.
    #[arg(long = "server", value_name = "NAME=COMMAND|URL")]
    pub servers: Vec<String>,

    /// How long `tools/list` waits for a mounted server's first list, in
    /// seconds (default: as --door-wait).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub server_wait: Option<Duration>,

    /// Adds the test-only `test_sleep` tool (built with the `test-tools`
    /// feature only).
    #[cfg(feature = "test-tools")]
    #[arg(long, hide = true)]
    pub test_tools: bool,

    /// The settings of the configuration file that are not flags (the
    /// door's address, the `ui` registries), filled by [`run`].
    #[arg(skip)]
    pub file: crate::config::Extra,
}

impl SourceArgs {
    /// The mounted servers: `--server` flags, else the file's `[[servers]]`.
    ///
    /// # Errors
    /// [`ServerError::Config`] naming the flag at fault.
    pub fn mounts(&self) -> Result<Vec<crate::mounted::Mount>, ServerError> {
        if self.servers.is_empty() {
            return Ok(self.file.servers.clone());
        }
        let mounts = self
            .servers
            .iter()
            .map(|text| crate::mounted::parse_server_flag(text))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| ServerError::Config(format!("--server: {e}")))?;
        crate::mounted::check_distinct(&mounts)
            .map_err(|e| ServerError::Config(format!("--server: {e}")))?;
        Ok(mounts)
    }

    /// The names of the mounted servers (`--server NAME=…`, else the
    /// file's `[[servers]]`), as `--allowed-tools` may name them.
    pub fn mount_names(&self) -> Vec<String> {
        if self.servers.is_empty() {
            return self
                .file
                .servers
                .iter()
                .map(|m| m.spec.name.clone())
                .collect();
        }
        self.servers
            .iter()
            .map(|s| {
                crate::mounted::split_server_flag(s)
                    .map_or(s.trim(), |(name, _)| name)
                    .to_owned()
            })
            .collect()
    }

    /// The assembly options these arguments describe.
    ///
    /// # Errors
    /// [`ServerError::Config`] when `--allowed-tools` cannot be read.
    pub fn options(&self) -> Result<Options, ServerError> {
        let mounts = self.mounts()?;
        // A mounted server's bearer variable is a secret of the server's
        // like those --secret-env names: no other child sees it.
        let mut secret_env = self.secret_env.clone();
        for name in mounts.iter().flat_map(|m| &m.secret_env) {
            if !secret_env.contains(name) {
                secret_env.push(name.clone());
            }
        }
        // So is a door address that may carry a user name or password
        // (any `@`: one that does not parse as a URL is no exception).
        for var in ["HANZO_MCP_DOOR", "HANZO_API_BASE"] {
            let with_userinfo =
                std::env::var_os(var).is_some_and(|value| value.as_encoded_bytes().contains(&b'@'));
            if with_userinfo && !secret_env.iter().any(|name| name == var) {
                secret_env.push(var.to_owned());
            }
        }
        Ok(Options {
            roots: self.roots.clone(),
            allowed: parse_allowed_tools(self.allowed_tools.as_deref(), &self.mount_names())?,
            door: !self.no_door,
            door_wait: self.door_wait,
            fetch_allow_private: self.fetch_allow_private,
            modes_file: self.modes.clone(),
            door_allow_cleartext_bearer: self.door_allow_cleartext_bearer,
            secret_env,
            door_address: self.file.door_address.clone(),
            ui_registries: self.file.ui_registries.clone(),
            mounts,
            mount_wait: self.server_wait.unwrap_or(self.door_wait),
            #[cfg(feature = "test-tools")]
            test_tools: self.test_tools,
        })
    }
}

/// `--max-in-flight`: an integer from 1 to [`MAX_HTTP_COUNT`].
pub(crate) fn parse_in_flight(text: &str) -> Result<usize, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if (1..=MAX_HTTP_COUNT).contains(&n) => Ok(n as usize),
        _ => Err(format!(
            "{text:?} is not a whole number from 1 to {MAX_HTTP_COUNT}"
        )),
    }
}

fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    Duration::try_from_secs_f64(seconds).map_err(|_| format!("{text:?} is not a duration"))
}

/// Checks `--log-level`: a directive `EnvFilter` accepts (`info`,
/// `mcp_local_server=debug,warn`, ...), else the parser's reason. A part
/// without `=` must be a level: `EnvFilter` would read a mistyped level
/// (`loud`, `warning`) as a target name and silence every other line.
pub(crate) fn parse_log_level(text: &str) -> Result<String, String> {
    const LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bare = !part.contains(['=', '[', '{']);
        let level = LEVELS.iter().any(|l| l.eq_ignore_ascii_case(part))
            || part.parse::<u8>().is_ok_and(|n| n <= 5);
        if bare && !level {
            let hint = match part.to_ascii_lowercase().as_str() {
                "warning" => " (did you mean warn?)",
                "err" => " (did you mean error?)",
                "none" | "quiet" => " (did you mean off?)",
                _ => "",
            };
            return Err(format!(
                "{part:?} is not a level{hint}: give off, error, warn, info, debug or trace, \
                 or TARGET=LEVEL"
            ));
        }
    }
    EnvFilter::builder()
        .parse(text)
        .map(|_| text.to_owned())
        .map_err(|e| e.to_string())
}

/// Reads `--allowed-tools` / `HANZO_MCP_ALLOWED_TOOLS`: inline JSON, or
/// `@FILE`. Errors name the flag, the file and what is wrong, including a
/// server key that is not one of [`GATED_SOURCES`].
pub fn parse_allowed_tools(
    value: Option<&str>,
    mounted: &[String],
) -> Result<AllowedTools, ServerError> {
    let (allowed, origin) = read_allowed_tools(value)?;
    match unknown_servers(&allowed, mounted) {
        Some(problem) => Err(ServerError::Config(format!("{origin}: {problem}"))),
        None => Ok(allowed),
    }
}

/// [`parse_allowed_tools`] without the server-key check, with the origin
/// its messages start with (`--allowed-tools` or `--allowed-tools @FILE`).
fn read_allowed_tools(value: Option<&str>) -> Result<(AllowedTools, String), ServerError> {
    let Some(value) = value else {
        return Ok((AllowedTools::unrestricted(), "--allowed-tools".to_owned()));
    };
    let (text, origin) = match value.strip_prefix('@') {
        Some(path) => (
            read_config_file(path)
                .map_err(|e| ServerError::Config(format!("--allowed-tools: {e}")))?,
            format!("--allowed-tools @{path}"),
        ),
        None => (value.to_owned(), "--allowed-tools".to_owned()),
    };
    let allowed: AllowedTools =
        serde_json::from_str(&text).map_err(|e| ServerError::Config(format!("{origin}: {e}")))?;
    Ok((allowed, origin))
}

/// The sources `--allowed-tools` can name: the composed server's `local`
/// and `door` (the hidden test source is never gated).
pub const GATED_SOURCES: [&str; 2] = ["local", "door"];

/// What is wrong with `allowed`'s server keys when one names no source of
/// [`GATED_SOURCES`] or `mounted` (a misspelled key would otherwise leave
/// its source ungated): `unknown server "Local" (the servers here are
/// "local" and "door")`. `None` when every key names a source.
pub fn unknown_servers(allowed: &AllowedTools, mounted: &[String]) -> Option<String> {
    let mut unknown: Vec<String> = allowed
        .servers()
        .map(|(name, _)| name)
        .filter(|name| !GATED_SOURCES.contains(name) && !mounted.iter().any(|m| m == name))
        .map(|name| format!("{name:?}"))
        .collect();
    if unknown.is_empty() {
        return None;
    }
    unknown.sort();
    let noun = if unknown.len() == 1 {
        "server"
    } else {
        "servers"
    };
    let mut known: Vec<String> = vec![format!("{:?}", GATED_SOURCES[0])];
    known.extend(mounted.iter().map(|m| format!("{m:?}")));
    let last = format!("{:?}", GATED_SOURCES[1]);
    Some(format!(
        "unknown {noun} {} (the servers here are {} and {last})",
        unknown.join(", "),
        known.join(", "),
    ))
}

/// Exit status 2 (a usage error, as clap's) with the message when the
/// `--allowed-tools` of `args` names a server that does not exist; other
/// problems of the value are left to [`SourceArgs::options`] (exit status 1).
fn refuse_unknown_servers(args: &SourceArgs) -> Option<ExitCode> {
    let (allowed, origin) = read_allowed_tools(args.allowed_tools.as_deref()).ok()?;
    let problem = unknown_servers(&allowed, &args.mount_names())?;
    report(&format!("hanzo-mcp: configuration: {origin}: {problem}"));
    Some(ExitCode::from(2))
}

/// An environment variable's name as POSIX spells one (a letter or `_`,
/// then letters, digits and `_`), surrounding spaces trimmed.
///
/// # Errors
/// Any other text: it names no variable, so nothing would be removed.
pub fn parse_variable_name(text: &str) -> Result<String, String> {
    let name = text.trim();
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if first_ok && chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        Ok(name.to_owned())
    } else {
        Err(format!(
            "{name:?} is not a variable name (letters, digits and _, not starting with a digit)"
        ))
    }
}

/// Writes `line` to stderr, ignoring a failure: a closed or full stderr
/// must never stop the server (`eprintln!` panics on one).
fn report(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// The largest `--allowed-tools @FILE` accepted, in bytes.
const MAX_CONFIG_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// Reads a configuration file of at most [`MAX_CONFIG_FILE_BYTES`] as UTF-8.
/// Reading stops at the bound, so `/dev/zero` or a FIFO that never ends is an
/// error rather than a hang that grows memory.
fn read_config_file(path: &str) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {path}: {e}"))?;
    if bytes.len() as u64 > MAX_CONFIG_FILE_BYTES {
        return Err(format!(
            "{path} is larger than {MAX_CONFIG_FILE_BYTES} bytes"
        ));
    }
    String::from_utf8(bytes).map_err(|e| format!("{path} is not UTF-8: {e}"))
}

/// Serve MCP over stdin/stdout, or over streamable HTTP with --http (logs
/// go to stderr).
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Which tools exist.
    #[command(flatten)]
    pub sources: SourceArgs,

    /// Log filter for stderr (`error`, `warn`, `info`, `debug`, `trace`, or
    /// a `RUST_LOG`-style directive). Default: `RUST_LOG`, else `info`.
    #[arg(long, value_name = "LEVEL", value_parser = parse_log_level)]
    pub log_level: Option<String>,

    /// Serve streamable HTTP at `/mcp` on ADDR (`IP:PORT`, an IP address
    /// and a port, or a port alone for 127.0.0.1; no host names) instead of
    /// stdio. A non-loopback address needs a bearer
    /// in `HANZO_MCP_HTTP_BEARER`.
    #[arg(long, value_name = "ADDR", value_parser = parse_addr)]
    pub http: Option<std::net::SocketAddr>,

    /// How many requests one connection (an HTTP session) may have in
    /// flight; at the bound no more input is read until one finishes.
    #[arg(long, value_name = "N", default_value_t = crate::server::DEFAULT_MAX_IN_FLIGHT,
          value_parser = parse_in_flight)]
    pub max_in_flight: usize,

    /// Serve `--http` on a loopback address without a bearer. By default
    /// a loopback server without HANZO_MCP_HTTP_BEARER makes a random
    /// bearer at start and writes it to a file only the user can read
    /// (its path is printed on stderr), so other local users and programs
    /// cannot call the tools.
    #[arg(long)]
    pub http_no_auth: bool,

    /// Bind every session to this `mode` preset: sessions start in it, and
    /// `mode set` narrows within it but never widens past it. The way for
    /// a host to hold an agent to a preset. Also HANZO_MCP_MODE.
    #[arg(long, value_name = "NAME", env = "HANZO_MCP_MODE")]
    pub mode: Option<String>,

    /// Limits of `--http` (ignored over stdio).
    #[command(flatten)]
    pub http_limits: HttpLimitArgs,
}

/// The most `--http-max-sessions` and `--http-max-connections` accepted.
pub const MAX_HTTP_COUNT: u64 = 65_536;

/// The longest `--http-session-idle` accepted, in seconds (7 days).
pub const MAX_HTTP_SESSION_IDLE_SECS: u64 = 7 * 24 * 60 * 60;

/// The longest `--http-header-timeout` accepted, in seconds.
pub const MAX_HTTP_HEADER_TIMEOUT_SECS: u64 = 600;

/// The longest `--http-body-timeout` accepted, in seconds.
pub const MAX_HTTP_BODY_TIMEOUT_SECS: u64 = 600;

/// The limits of `serve --http`, each a field of
/// [`HttpConfig`](crate::http::HttpConfig) with its default. A value of 0
/// or above the bound is refused by the parser, naming the flag and the
/// accepted range.
#[derive(Debug, Clone, Args)]
pub struct HttpLimitArgs {
    /// Most 2025-11-25 sessions alive at once over --http; an `initialize`
    /// beyond it gets HTTP 503 (1 to 65536).
    #[arg(
        long = "http-max-sessions",
        value_name = "N",
        env = "HANZO_MCP_HTTP_MAX_SESSIONS",
        default_value_t = 256,
        value_parser = clap::value_parser!(u64).range(1..=MAX_HTTP_COUNT)
    )]
    pub max_sessions: u64,

    /// Seconds a --http session may stay without a request or an open
    /// stream before it is ended (1 to 604800, 7 days).
    #[arg(
        long = "http-session-idle",
        value_name = "SECS",
        env = "HANZO_MCP_HTTP_SESSION_IDLE",
        default_value_t = 1800,
        value_parser = clap::value_parser!(u64).range(1..=MAX_HTTP_SESSION_IDLE_SECS)
    )]
    pub session_idle_secs: u64,

    /// Seconds a --http connection has to send a complete request header
    /// before it is closed (1 to 600).
    #[arg(
        long = "http-header-timeout",
        value_name = "SECS",
        env = "HANZO_MCP_HTTP_HEADER_TIMEOUT",
        default_value_t = 10,
        value_parser = clap::value_parser!(u64).range(1..=MAX_HTTP_HEADER_TIMEOUT_SECS)
    )]
    pub header_timeout_secs: u64,

    /// Seconds a --http request has, once its header is read, to send its
    /// whole body; a late one gets 408 and the connection is closed
    /// (1 to 600).
    #[arg(
        long = "http-body-timeout",
        value_name = "SECS",
        env = "HANZO_MCP_HTTP_BODY_TIMEOUT",
        default_value_t = 30,
        value_parser = clap::value_parser!(u64).range(1..=MAX_HTTP_BODY_TIMEOUT_SECS)
    )]
    pub body_timeout_secs: u64,

    /// Most --http connections served at once; further clients wait in the
    /// listen backlog (1 to 65536).
    #[arg(
        long = "http-max-connections",
        value_name = "N",
        env = "HANZO_MCP_HTTP_MAX_CONNECTIONS",
        default_value_t = 512,
        value_parser = clap::value_parser!(u64).range(1..=MAX_HTTP_COUNT)
    )]
    pub max_connections: u64,
}

impl ServeArgs {
    /// The [`HttpConfig`](crate::http::HttpConfig) of `serve --http`:
    /// [`crate::http::config_from_env`] (the bearer) with the limits of
    /// [`HttpLimitArgs`].
    #[cfg(feature = "http")]
    pub fn http_config(&self) -> crate::http::HttpConfig {
        let limits = &self.http_limits;
        let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        crate::http::HttpConfig {
            max_sessions: count(limits.max_sessions),
            session_idle: Duration::from_secs(limits.session_idle_secs),
            header_read_timeout: Duration::from_secs(limits.header_timeout_secs),
            body_read_timeout: Duration::from_secs(limits.body_timeout_secs),
            max_connections: count(limits.max_connections),
            ..crate::http::config_from_env()
        }
    }
}

/// Runs the parsed command line; the process's exit status. `given`
/// says how each of the subcommand's arguments got its value (read from
/// the matches `cli` was parsed from): it tells a flag from a default, so
/// the configuration file fills only what flags and variables left unset.
pub fn run(mut cli: Cli, given: &crate::config::GivenArgs) -> ExitCode {
    let config = cli.config.clone();
    let effective = match &mut cli.command {
        Command::Serve(args) => {
            crate::config::Effective::apply_serve(config.as_deref(), args, given)
        }
        Command::Tools(args) => {
            crate::config::Effective::apply_sources(config.as_deref(), &mut args.sources, given)
        }
        _ => Ok(crate::config::Effective::default()),
    };
    let effective = match effective {
        Ok(effective) => effective,
        Err(error) => {
            report(&format!("hanzo-mcp: {error}"));
            return ExitCode::from(2);
        }
    };
    match &cli.command {
        Command::Install(args) => return install(args, config.as_deref(), false),
        Command::Uninstall(args) => return install(&args.args, config.as_deref(), true),
        _ => {}
    }
    if let Command::Doctor(DoctorArgs { flags }) | Command::Config(ConfigCommand::Show(flags)) =
        &cli.command
    {
        let is_doctor = matches!(cli.command, Command::Doctor(_));
        let (mut args, named, m) = match flags.parse() {
            Ok(parsed) => parsed,
            Err(error) => error.exit(),
        };
        let config = named.or(config);
        let effective =
            match crate::config::Effective::apply_serve(config.as_deref(), &mut args, &m) {
                Ok(effective) => effective,
                // doctor reports it among its checks, and checks the rest.
                Err(error) if is_doctor => crate::config::Effective::failed(error.to_string()),
                Err(error) => {
                    report(&format!("hanzo-mcp: {error}"));
                    return ExitCode::from(2);
                }
            };
        if is_doctor {
            args.sources.file.take_env_settings(&effective.extra);
            return doctor(&args, &effective);
        }
        // What `serve` would refuse, `config show` refuses too.
        if let Some(name) = &args.mode
            && let Err(error) =
                check_mode(name, &mode_names(&args), &mode_spelling(&args, &effective))
        {
            report(&format!("hanzo-mcp: {error}"));
            return ExitCode::from(2);
        }
        use std::io::Write;
        return match write!(std::io::stdout().lock(), "{}", effective.show()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::FAILURE,
        };
    }
    let sources = match &mut cli.command {
        Command::Serve(args) => &mut args.sources,
        Command::Tools(args) => &mut args.sources,
        // The binary writes these from its whole command (`door` included).
        Command::Config(_)
        | Command::Doctor(_)
        | Command::Install(_)
        | Command::Uninstall(_)
        | Command::Completions { .. }
        | Command::Man { .. } => {
            return ExitCode::SUCCESS;
        }
    };
    sources.file.take_env_settings(&effective.extra);
    if let Some(refused) = refuse_unknown_servers(sources) {
        return refused;
    }
    // A `--server` that cannot be read is a usage error, as clap's are.
    if let Err(error) = sources.mounts() {
        report(&format!("hanzo-mcp: {error}"));
        return ExitCode::from(2);
    }
    let log_level = match &cli.command {
        Command::Serve(args) => args.log_level.clone(),
        _ => None,
    };
    let default_level = match &cli.command {
        Command::Serve(_) => "info",
        _ => "warn",
    };
    init_tracing(log_level.as_deref(), default_level);
    if matches!(cli.command, Command::Serve(_)) {
        protect_environment();
    }
    if let Some(why) = &effective.loaded.skipped {
        tracing::warn!("config file: {why}");
    }
    let config_used = effective.loaded.path.clone();

    // stdio serves one client: one thread runs the connection and every
    // request's async part (requests still run concurrently as tasks; file
    // work goes to the blocking pool), which saves the cross-thread wake-ups
    // and the memory of worker threads. HTTP serves many clients: a worker
    // per core.
    let http = matches!(&cli.command, Command::Serve(args) if args.http.is_some());
    let mut builder = if http {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder.worker_threads(2);
        builder
    } else {
        tokio::runtime::Builder::new_current_thread()
    };
    let runtime = match builder.enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            report(&format!(
                "hanzo-mcp: cannot start the async runtime: {error}"
            ));
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        match cli.command {
            Command::Serve(args) => {
                let mode = mode_spelling(&args, &effective);
                serve(args, config_used, mode).await
            }
            Command::Tools(args) => print_tools(args).await,
            Command::Config(_)
            | Command::Doctor(_)
            | Command::Install(_)
            | Command::Uninstall(_)
            | Command::Completions { .. }
            | Command::Man { .. } => Ok(()),
        }
    });
    // stdin is read on a blocking thread that may still wait for input after
    // a signal; do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(100));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        // A setting to change: a usage error, as a value that does not
        // parse is.
        Err(error @ ServerError::Config(_)) => {
            report(&format!("hanzo-mcp: {error}"));
            ExitCode::from(2)
        }
        Err(error) => {
            report(&format!("hanzo-mcp: {error}"));
            ExitCode::FAILURE
        }
    }
}

/// How the `mode` setting of a start was written, for an error about it:
/// `--mode NAME`, `HANZO_MCP_MODE=NAME`, or `FILE: key mode: "NAME"`.
pub(crate) fn mode_spelling(args: &ServeArgs, effective: &crate::config::Effective) -> String {
    use crate::config::Origin;
    let name = args.mode.as_deref().unwrap_or_default();
    let origin = effective
        .settings
        .iter()
        .find(|s| s.key == "mode")
        .map(|s| s.origin.clone());
    match (origin, &effective.loaded.path) {
        (Some(Origin::Env(var)), _) => format!("{var}={name}"),
        (Some(Origin::File), Some(path)) => format!("{}: key mode: {name:?}", path.display()),
        _ => format!("--mode {name}"),
    }
}

/// Whether `name` is one of `known` presets; the refusal names the
/// setting as `spelling` wrote it, and the presets there are.
pub(crate) fn check_mode(name: &str, known: &[String], spelling: &str) -> Result<(), ServerError> {
    if known.iter().any(|k| k == name) {
        return Ok(());
    }
    Err(ServerError::Config(if known.is_empty() {
        format!("{spelling}: this hanzo-mcp is built without the `mode` tool")
    } else {
        format!("{spelling}: no such mode (known: {})", known.join(", "))
    }))
}

/// The names of the `mode` presets a start with `args` has (built in,
/// and from `--modes` or `HANZO_MCP_MODES`); empty without the `mode`
/// tool. Reads the presets file.
pub fn mode_names(args: &ServeArgs) -> Vec<String> {
    #[cfg(feature = "mode")]
    {
        let mut toolbox = mcp_local_tools::Toolbox::with_default_tools();
        toolbox.with_mode_file(args.sources.modes.as_deref());
        toolbox
            .modes()
            .map(|modes| modes.presets().iter().map(|p| p.name.clone()).collect())
            .unwrap_or_default()
    }
    #[cfg(not(feature = "mode"))]
    {
        let _ = args;
        Vec::new()
    }
}

/// `hanzo-mcp install` (or, with `remove`, `uninstall`): one line on
/// stdout (the file with `--print`); exit status 1 with the reason on
/// stderr when it cannot. A `--config FILE` given goes into the entry as
/// its absolute path.
fn install(args: &InstallArgs, config: Option<&std::path::Path>, remove: bool) -> ExitCode {
    use std::io::Write;
    let command = match std::env::current_exe().and_then(std::fs::canonicalize) {
        Ok(path) => path.display().to_string(),
        Err(error) => {
            report(&format!(
                "hanzo-mcp: cannot find this binary's path: {error}"
            ));
            return ExitCode::FAILURE;
        }
    };
    let mut entry = vec!["serve".to_owned()];
    if let Some(config) = config {
        match std::fs::canonicalize(config) {
            Ok(path) if !remove => {
                // A file the server would refuse would stop the client's
                // server at every start: refused here instead.
                let named = crate::config::ConfigPath::Named(path.clone());
                if let Err(error) = crate::config::load(&named, &[]) {
                    report(&format!(
                        "hanzo-mcp: {error}; fix it first: the client's server would stop at every start"
                    ));
                    return ExitCode::FAILURE;
                }
                entry.extend(["--config".to_owned(), path.display().to_string()]);
            }
            Ok(path) => entry.extend(["--config".to_owned(), path.display().to_string()]),
            Err(error) => {
                report(&format!(
                    "hanzo-mcp: --config {}: {error}",
                    config.display()
                ));
                return ExitCode::FAILURE;
            }
        }
    }
    let scope = args
        .scope
        .unwrap_or_else(|| crate::install::default_scope(args.client));
    let outcome = if remove {
        crate::install::uninstall(args.client, scope, &command, &entry)
    } else {
        crate::install::install(args.client, scope, &command, &entry, args.print)
    };
    match outcome {
        Ok(crate::install::Outcome::Printed(file, text)) => {
            // The file's name on stderr, so stdout is the file alone.
            report(&format!(
                "hanzo-mcp: {} as install would write it:",
                file.display()
            ));
            let _ = write!(std::io::stdout().lock(), "{text}");
            ExitCode::SUCCESS
        }
        Ok(outcome) => {
            let _ = writeln!(std::io::stdout().lock(), "{outcome}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            report(&format!("hanzo-mcp: {error}"));
            ExitCode::FAILURE
        }
    }
}

/// `hanzo-mcp doctor`: the findings on stdout, exit status 1 when one
/// failed.
fn doctor(args: &ServeArgs, effective: &crate::config::Effective) -> ExitCode {
    use std::io::Write;
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            report(&format!(
                "hanzo-mcp: cannot start the async runtime: {error}"
            ));
            return ExitCode::FAILURE;
        }
    };
    let findings = runtime.block_on(crate::doctor::run(args, effective));
    let mut out = std::io::stdout().lock();
    for finding in &findings {
        let _ = writeln!(out, "{finding}");
    }
    if findings
        .iter()
        .any(|f| f.verdict == crate::doctor::Verdict::Fail)
    {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Makes the server non-dumpable (Linux `PR_SET_DUMPABLE`): its `/proc`
/// files that hold secrets (`environ`, `mem`) are then readable by root
/// only, so a program the tools start, which runs as the same user, cannot
/// read the bearer from the server's environment. Programs it starts are
/// dumpable again (the flag resets on `execve`); core dumps of the server
/// itself are off.
fn protect_environment() {
    #[cfg(target_os = "linux")]
    if let Err(error) =
        rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
    {
        tracing::warn!(%error, "cannot make the process non-dumpable");
    }
}

fn init_tracing(flag: Option<&str>, default_level: &str) {
    let filter = match flag {
        Some(level) => EnvFilter::try_new(level),
        None => EnvFilter::try_from_default_env().or_else(|_| EnvFilter::try_new(default_level)),
    }
    .unwrap_or_else(|_| EnvFilter::new(default_level));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        // A full or closed stderr drops the line: without this the
        // subscriber reports the failure with `eprintln!`, which panics.
        .log_internal_errors(false)
        .try_init();
}

/// At `serve` start only the local list is known: warn about its entries.
fn warn_unmatched_local(gated: &[Arc<GatedSource>]) {
    let local: Vec<Arc<GatedSource>> = gated
        .iter()
        .filter(|g| g.name() == "local")
        .cloned()
        .collect();
    warn_unmatched(&local);
}

/// Writes one stderr warning per allowlist entry that matches nothing in
/// its source's current list.
fn warn_unmatched(gated: &[Arc<GatedSource>]) {
    for source in gated {
        for entry in source.surface().unmatched_entries() {
            report(&format!(
                "hanzo-mcp: warning: allowedTools[{:?}]: {entry}",
                source.name()
            ));
        }
    }
}

/// Whether `serve` lets the client's MCP roots move the local tools: only
/// over stdio and only without `--root` (docs/ARCHITECTURE.md, "Local tools").
///
/// Client roots are followed over stdio only: one stdio client is the
/// whole audience, while an HTTP server has many sessions, and one
/// session's roots must never widen or narrow what another may touch.
/// Over HTTP, without `--root`, the local tools keep the working directory.
pub fn follows_client_roots(args: &ServeArgs) -> bool {
    args.http.is_none() && args.sources.roots.is_empty()
}

/// The server `serve` runs over `assembly` (from [`assemble`] of
/// `args.sources`): `list_changed` when the door is on, each session's
/// `mode` applied, and the client roots listener only when
/// [`follows_client_roots`].
///
/// # Errors
/// [`ServerError::Config`] when `--mode` names no preset (or `mode` is not
/// built in).
pub fn serve_server(args: &ServeArgs, assembly: Assembly) -> Result<Server, ServerError> {
    let mut config = ServerConfig::new(server_info());
    config.list_changed = assembly.list_changed;
    config.max_in_flight = args.max_in_flight;
    let mut server = Server::new(assembly.composition, config).with_program_gate(assembly.programs);
    if let Some(modes) = assembly.modes {
        server = server.with_modes(modes);
    }
    if let Some(name) = &args.mode {
        server = server.with_mode_floor(name)?;
    }
    Ok(match assembly.client_roots {
        Some(listener) if follows_client_roots(args) => server.with_roots_listener(listener),
        Some(listener) => {
            // No client will name roots: the working directory is all.
            crate::features::RootsListener::roots_settled(&*listener);
            server
        }
        None => server,
    })
}

/// How long the start-up line waits for the connect to the door.
const START_LINE_DOOR_WAIT: Duration = Duration::from_secs(1);

/// How long `serve` over stdio holds the door's connect and the start-up
/// line back while no answer has been written: both come after the
/// first answer, so neither delays it.
const FIRST_ANSWER_WAIT: Duration = Duration::from_millis(50);

/// How long after the first answer the door's connect and the start-up
/// line still wait: the client, woken by the answer, often on the CPU
/// this process runs on, reads it first (a connect right after the
/// answer measured some 60 µs later at the client, in a start of 2.3 ms).
/// A request for the door starts the connect at once.
const AFTER_FIRST_ANSWER: Duration = Duration::from_millis(2);

/// The start-up line of `serve` (one line on stderr, at `info`): version,
/// transport, roots, how many local tools the allowlist leaves, the
/// mounted servers' names, and the
/// door's address and state; with `door_first_report`, an unreachable
/// door is said in the words of the outage line (HIP-0300 §2.2), which
/// this line then stands for.
pub fn start_up_line(
    args: &ServeArgs,
    local_tools: usize,
    door: Option<(&str, &crate::assembly::DoorReach)>,
    door_first_report: bool,
) -> String {
    use crate::assembly::DoorReach;
    let transport = match args.http {
        Some(addr) => format!("streamable HTTP at http://{addr}/mcp"),
        None => "stdio".to_owned(),
    };
    let here = || {
        std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|_| "the working directory".to_owned())
    };
    let roots = if !args.sources.roots.is_empty() {
        let roots: Vec<String> = args
            .sources
            .roots
            .iter()
            .map(|r| r.display().to_string())
            .collect();
        format!("roots {}", roots.join(", "))
    } else if follows_client_roots(args) {
        format!("roots: the client's, else {}", here())
    } else {
        format!("root {}", here())
    };
    let mode = args
        .mode
        .as_deref()
        .map_or_else(String::new, |m| format!(", mode {m}"));
    let without_door = if args.sources.servers.is_empty() && args.sources.file.servers.is_empty() {
        "local tools"
    } else {
        "local tools and mounted servers"
    };
    let door = match door {
        None => "door off".to_owned(),
        Some((address, DoorReach::Reachable)) => format!("door {address} reachable"),
        Some((address, DoorReach::Unreachable(why))) if door_first_report => format!(
            "door {address}: door unavailable ({why}); serving {without_door} only until it answers"
        ),
        Some((address, DoorReach::Unreachable(why))) => {
            format!("door {address} unreachable ({why})")
        }
        Some((address, DoorReach::NotKnown(why))) => format!("door {address} ({why})"),
    };
    let tools = if local_tools == 1 { "tool" } else { "tools" };
    let mounted = args.sources.mount_names();
    let servers = match mounted.len() {
        0 => String::new(),
        1 => format!(", server {}", mounted[0]),
        _ => format!(", servers {}", mounted.join(", ")),
    };
    format!(
        "hanzo-mcp {} on {transport}: {local_tools} local {tools}{mode}, {roots}{servers}, {door}",
        env!("CARGO_PKG_VERSION")
    )
}

async fn serve(
    args: ServeArgs,
    config_used: Option<PathBuf>,
    mode: String,
) -> Result<(), ServerError> {
    // Listening for SIGTERM and SIGINT from here on, before anything is
    // written that ending must clean up.
    let (shutdown, at_once) = shutdown_signals();
    let assembly = assemble(&args.sources.options()?).await?;
    warn_unmatched_local(&assembly.gated);
    // Everything that refuses the start does so before the start-up line.
    if let Some(name) = &args.mode {
        let known: Vec<String> = assembly
            .modes
            .as_ref()
            .map(|modes| modes.presets().iter().map(|p| p.name.clone()).collect())
            .unwrap_or_default();
        check_mode(name, &known, &mode)?;
    }
    let door = assembly.door.clone();
    let local_tools = assembly.local_tools;
    let server = Arc::new(serve_server(&args, assembly)?);
    let http = match args.http {
        Some(addr) => Some(prepare_http(&args, addr)?),
        None => None,
    };
    // Over stdio nothing else happens before the first answer is out and
    // the client has had AFTER_FIRST_ANSWER to read it (or
    // FIRST_ANSWER_WAIT has passed without one, or serving has ended):
    // then the door's connect starts, and the start-up line waits for it
    // at most START_LINE_DOOR_WAIT, and no longer than AFTER_FIRST_ANSWER
    // once serving has ended: input that ends at once still gets its line,
    // the door's state then perhaps not known.
    let serving_ended = tokio_util::sync::CancellationToken::new();
    let (first_answer, answered) = tokio::sync::oneshot::channel::<()>();
    let line = {
        let args = args.clone();
        let serving_ended = serving_ended.clone();
        tokio::spawn(async move {
            tokio::select! {
                biased;
                () = async {
                    if answered.await.is_ok() {
                        tokio::time::sleep(AFTER_FIRST_ANSWER).await;
                    }
                } => {}
                () = serving_ended.cancelled() => {}
                () = tokio::time::sleep(FIRST_ANSWER_WAIT) => {}
            }
            let reach = match &door {
                Some(probe) => Some(tokio::select! {
                    biased;
                    reach = probe.reach_within(START_LINE_DOOR_WAIT) => reach,
                    () = async {
                        serving_ended.cancelled().await;
                        tokio::time::sleep(AFTER_FIRST_ANSWER).await;
                    } => {
                        crate::assembly::DoorReach::NotKnown("still connecting".to_owned())
                    }
                }),
                None => None,
            };
            let first = match (&door, &reach) {
                (Some(probe), Some(crate::assembly::DoorReach::Unreachable(_))) => {
                    probe.take_outage_report()
                }
                _ => false,
            };
            let door = door.as_ref().zip(reach.as_ref());
            let door = door.map(|(probe, reach)| (probe.address(), reach));
            let mut line = start_up_line(&args, local_tools, door, first);
            if let Some(path) = &config_used {
                line.push_str(&format!(", config {}", path.display()));
            }
            // The outage line is a warning, whatever it is part of.
            if first {
                tracing::warn!("{line}");
            } else {
                tracing::info!("{line}");
            }
        })
    };
    let serving = async {
        match http {
            Some(http) => {
                drop(first_answer);
                http.serve(server, shutdown).await
            }
            None => {
                let (input, output) = crate::stdio::pipes();
                let output = Box::new(crate::stdio::FirstWrite::new(output, first_answer));
                server.serve(input, output, shutdown).await
            }
        }
    };
    let served = tokio::select! {
        served = serving => served,
        () = at_once => {
            tracing::warn!("a second signal: ending now, without waiting for calls in flight");
            Ok(())
        }
    };
    serving_ended.cancel();
    let _ = line.await;
    served
}

/// `serve --http ADDR`, checked and ready: the settings, and the bearer
/// file made for it (removed when this is dropped, so when serving ends).
struct HttpStart {
    addr: std::net::SocketAddr,
    #[cfg(feature = "http")]
    config: crate::http::HttpConfig,
    #[cfg(feature = "http")]
    _bearer_file: Option<crate::http::bearer::BearerFile>,
}

impl HttpStart {
    /// Serves `server` until `shutdown` completes.
    #[cfg(feature = "http")]
    async fn serve(
        self,
        server: Arc<Server>,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServerError> {
        crate::http::serve_http(server, self.addr, self.config, |_| {}, shutdown).await
    }

    #[cfg(not(feature = "http"))]
    async fn serve(
        self,
        _: Arc<Server>,
        _: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServerError> {
        unreachable!(
            "prepare_http refuses --http without the feature ({})",
            self.addr
        )
    }
}

/// The streamable HTTP settings of `serve --http ADDR`, refused as
/// [`crate::http::serve_http`] would refuse them (an empty bearer, a
/// non-loopback address without one), and a bearer generated (and written
/// to its file) for loopback unless one is set or `--http-no-auth` is
/// given.
#[cfg(feature = "http")]
fn prepare_http(args: &ServeArgs, addr: std::net::SocketAddr) -> Result<HttpStart, ServerError> {
    let mut http = args.http_config();
    crate::http::check_config(addr, &http)?;
    let mut bearer_file = None;
    // Only loopback gets a bearer made for it: every other address must be
    // given one (`HANZO_MCP_HTTP_BEARER`), and is refused without.
    if http.bearer.is_none() && !args.http_no_auth && addr.ip().is_loopback() {
        // Over HTTP the roots are `--root`, else the working directory.
        let roots = if args.sources.roots.is_empty() {
            std::env::current_dir().into_iter().collect()
        } else {
            args.sources.roots.clone()
        };
        let (bearer, file) = crate::http::bearer::generate_and_write(addr, &roots)?;
        http.bearer = Some(bearer);
        bearer_file = Some(file);
    }
    Ok(HttpStart {
        addr,
        config: http,
        _bearer_file: bearer_file,
    })
}

/// `serve --http` in a build without the `http` feature: refused, saying so.
#[cfg(not(feature = "http"))]
fn prepare_http(_: &ServeArgs, addr: std::net::SocketAddr) -> Result<HttpStart, ServerError> {
    let _ = HttpStart { addr };
    Err(ServerError::Config(
        "--http: this hanzo-mcp is built without the `http` feature (streamable HTTP); \
         build it with that feature, or serve over stdio"
            .to_owned(),
    ))
}

/// The capability table of `toolbox` (`hanzo-mcp tools --capabilities`):
/// a Markdown table with one row per action (its aliases, and what it can
/// do), then one row for the door's tools, whose every op is forwarded,
/// and one for the tools of mounted servers, likewise forwarded.
pub fn capability_table(toolbox: &mcp_local_tools::Toolbox) -> String {
    let mut table = String::from("| tool | action | also accepted | can |\n|---|---|---|---|\n");
    for row in toolbox.capabilities() {
        let aliases: Vec<String> = row.aliases.iter().map(|a| format!("`{a}`")).collect();
        let can: Vec<&str> = row.capabilities.iter().map(|c| c.name()).collect();
        let can = if can.is_empty() {
            "nothing beyond answering".to_owned()
        } else {
            can.join(", ")
        };
        table.push_str(&format!(
            "| `{}` | `{}` | {} | {can} |\n",
            row.tool,
            row.action,
            aliases.join(", ")
        ));
    }
    table.push_str(
        "| door tools | every `op`, and `describe` | | forwarded: the door's owner decides what it does |\n",
    );
    table.push_str(
        "| mounted servers' tools | every tool, every value of its discriminator | | forwarded: the mounted server decides what it does (a stdio server is a program the configuration starts, whatever the allowlist) |\n",
    );
    table
}

async fn print_tools(args: ToolsArgs) -> Result<(), ServerError> {
    use std::io::Write;
    if args.capabilities {
        #[cfg_attr(not(feature = "mode"), allow(unused_mut))]
        let mut toolbox = mcp_local_tools::Toolbox::with_default_tools();
        #[cfg(feature = "mode")]
        toolbox.with_mode();
        return write!(std::io::stdout().lock(), "{}", capability_table(&toolbox))
            .map_err(ServerError::Write);
    }
    let args = args.sources;
    let assembly = assemble(&args.options()?).await?;
    if let Some(roots) = &assembly.client_roots {
        // No client: the working directory is all the roots there are.
        crate::features::RootsListener::roots_settled(&**roots);
    }
    let list = assembly.composition.list_tools().await;
    warn_unmatched(&assembly.gated);
    let mut out = serde_json::json!({ "tools": list.tools });
    if let Some(meta) = list.meta {
        out["_meta"] = serde_json::Value::Object(meta);
    }
    let text = serde_json::to_string_pretty(&out)
        .map_err(|e| ServerError::Config(format!("cannot serialize the tool list: {e}")))?;
    writeln!(std::io::stdout().lock(), "{text}").map_err(ServerError::Write)
}

/// SIGTERM and Ctrl-C (SIGINT): the first completes on the first of them,
/// the second on the next one. The handlers are installed when this is
/// called, not when a future is first awaited: a signal that comes while
/// the server is still starting (after the HTTP bearer file is written,
/// say) ends it as cleanly as one that comes later. The first asks for
/// the graceful end (calls in flight get their grace); the second, sent
/// by a user who will not wait, ends serving at once.
fn shutdown_signals() -> (
    tokio_util::sync::WaitForCancellationFutureOwned,
    tokio_util::sync::WaitForCancellationFutureOwned,
) {
    let first = tokio_util::sync::CancellationToken::new();
    let second = tokio_util::sync::CancellationToken::new();
    let futures = (
        first.clone().cancelled_owned(),
        second.clone().cancelled_owned(),
    );
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let term = signal(SignalKind::terminate());
        let interrupt = signal(SignalKind::interrupt());
        tokio::spawn(async move {
            match (term, interrupt) {
                (Ok(mut term), Ok(mut interrupt)) => {
                    for token in [first, second] {
                        tokio::select! {
                            _ = term.recv() => {}
                            _ = interrupt.recv() => {}
                        }
                        token.cancel();
                    }
                }
                (Ok(mut one), Err(error)) | (Err(error), Ok(mut one)) => {
                    tracing::warn!(%error, "cannot listen for SIGTERM or SIGINT");
                    for token in [first, second] {
                        one.recv().await;
                        token.cancel();
                    }
                }
                (Err(error), Err(_)) => {
                    tracing::warn!(%error, "cannot listen for SIGTERM or SIGINT");
                }
            }
        });
    }
    #[cfg(not(unix))]
    {
        tokio::spawn(async move {
            for token in [first, second] {
                let _ = tokio::signal::ctrl_c().await;
                token.cancel();
            }
        });
    }
    futures
}

/// Parses `--http ADDR`: `IP:PORT` (an IP address and a port, `[::1]:8080`
/// for IPv6), or a bare `PORT` meaning `127.0.0.1:PORT` (the default bind is
/// loopback). Host names are refused: nothing is resolved.
pub fn parse_addr(text: &str) -> Result<std::net::SocketAddr, String> {
    if let Ok(port) = text.parse::<u16>() {
        return Ok(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse().map_err(|_| {
        format!(
            "{text:?} is neither IP:PORT (an IP address and a port) nor a port number \
             (for 127.0.0.1)"
        )
    })
}
