//! The configuration file of `hanzo-mcp` (TOML): every setting the flags
//! and environment variables make, in one place.
//!
//! Precedence, for each setting on its own: a flag, then its environment
//! variable, then the file, then the default. The file is the one named
//! by `--config FILE`, else by `HANZO_MCP_CONFIG`, else
//! `config.toml` in the platform's config folder under `hanzo-mcp/`
//! (`~/.config/hanzo-mcp/config.toml` on Linux). That last one is not read
//! when it lies inside a root the local tools may write, nor by `serve`
//! over stdio without `--root` (the client names the roots then, and they
//! may hold it): an agent must not be able to widen what it may do at the
//! next start. A file named explicitly is always read.
//!
//! An unknown key, or a value that does not parse, stops the start with
//! the file, the key's path and the form expected.
//!
//! ```toml
//! roots = ["/home/me/src/project"]
//! mode = "review"
//! secret_env = ["GITHUB_TOKEN"]
//!
//! [allowed_tools]            # as --allowed-tools
//! local = ["fs", "git:status", "code"]
//!
//! [door]
//! address = "https://api.hanzo.ai/v1/mcp"
//! wait = 2.0                 # seconds
//!
//! [http]
//! listen = "127.0.0.1:3000"  # as --http
//! max_sessions = 256
//!
//! [ui]
//! registries = "acme=https://ui.acme.dev/r"
//!
//! [[servers]]                # as --server, in routing order
//! name = "kb"
//! command = "npx"
//! args = ["-y", "@acme/kb-mcp"]
//! env = { KB_INDEX = "/srv/kb" }
//!
//! [[servers]]
//! name = "github"
//! url = "https://api.githubcopilot.com/mcp/"
//! bearer_env = "GITHUB_TOKEN" # the bearer is read from this variable
//! ```

use std::path::{Path, PathBuf};

use clap::ArgMatches;
use clap::parser::ValueSource;
use serde::Deserialize;

use crate::cli::{
    HttpLimitArgs, MAX_HTTP_BODY_TIMEOUT_SECS, MAX_HTTP_COUNT, MAX_HTTP_HEADER_TIMEOUT_SECS,
    MAX_HTTP_SESSION_IDLE_SECS, ServeArgs, SourceArgs,
};
use crate::error::ServerError;

/// The variable naming the configuration file.
pub const CONFIG_VAR: &str = "HANZO_MCP_CONFIG";

/// The largest configuration file read, in bytes.
const MAX_BYTES: u64 = 1024 * 1024;

/// The file's keys. Every key is optional; see the module docs.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// `--root`: directories the local tools may use.
    pub roots: Option<Vec<PathBuf>>,
    /// `--allowed-tools`, as a table: `local = ["fs"]`.
    pub allowed_tools: Option<serde_json::Map<String, serde_json::Value>>,
    /// `--mode`: the preset every session is bound to.
    pub mode: Option<String>,
    /// `--modes`: a JSON file of `mode` presets.
    pub modes: Option<PathBuf>,
    /// `--secret-env`: variables removed from every program's environment.
    pub secret_env: Option<Vec<String>>,
    /// `--fetch-allow-private`.
    pub fetch_allow_private: Option<bool>,
    /// `--max-in-flight`.
    pub max_in_flight: Option<u64>,
    /// `--log-level`.
    pub log_level: Option<String>,
    /// The door (HIP-0300 §2.2).
    pub door: Option<DoorSection>,
    /// `serve --http`.
    pub http: Option<HttpSection>,
    /// The `ui` tool.
    pub ui: Option<UiSection>,
    /// `[[servers]]`: other MCP servers mounted as sources, in order.
    pub servers: Option<Vec<ServerSection>>,
    /// `--server-wait`, in seconds.
    pub server_wait: Option<f64>,
}

/// `[door]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DoorSection {
    /// `false` is `--no-door`.
    pub enabled: Option<bool>,
    /// The door's URL (below `HANZO_MCP_DOOR` and `HANZO_API_BASE`).
    pub address: Option<String>,
    /// `--door-wait`, in seconds.
    pub wait: Option<f64>,
    /// `--door-allow-cleartext-bearer`.
    pub allow_cleartext_bearer: Option<bool>,
}

/// `[http]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpSection {
    /// `--http`: `IP:PORT`, or a port for 127.0.0.1.
    pub listen: Option<String>,
    /// `--http-no-auth`.
    pub no_auth: Option<bool>,
    /// `--http-max-sessions`.
    pub max_sessions: Option<u64>,
    /// `--http-session-idle`, in seconds.
    pub session_idle: Option<u64>,
    /// `--http-header-timeout`, in seconds.
    pub header_timeout: Option<u64>,
    /// `--http-body-timeout`, in seconds.
    pub body_timeout: Option<u64>,
    /// `--http-max-connections`.
    pub max_connections: Option<u64>,
}

/// One `[[servers]]` entry: a mounted MCP server (as `--server`): a
/// `command` (with `args`, `env`, `cwd`) started as a child over stdio, or
/// a streamable HTTP `url` (with `headers`, and the bearer read from the
/// variable `bearer_env`).
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSection {
    /// The source's name, as `allowed_tools` and modes name it.
    pub name: String,
    /// The program to start.
    pub command: Option<String>,
    /// Its arguments.
    pub args: Option<Vec<String>>,
    /// Variables set for it.
    pub env: Option<std::collections::BTreeMap<String, String>>,
    /// Its working directory.
    pub cwd: Option<PathBuf>,
    /// The streamable HTTP endpoint.
    pub url: Option<String>,
    /// Headers sent with every request.
    pub headers: Option<std::collections::BTreeMap<String, String>>,
    /// The variable holding the bearer sent as `Authorization`.
    pub bearer_env: Option<String>,
    /// The argument `"<tool>:<value>"` allowlist entries name (default
    /// `action`).
    pub discriminator: Option<String>,
}

impl ServerSection {
    /// The mount this entry describes.
    ///
    /// # Errors
    /// A message naming the key at fault (`servers[1].url: ...`).
    pub fn mount(&self, at: usize) -> Result<crate::mounted::Mount, String> {
        let key = format!("servers[{at}]");
        crate::mounted::check_name(&self.name).map_err(|e| format!("key {key}.name: {e}"))?;
        let (transport, notes) = match (&self.command, &self.url) {
            (Some(command), None) => {
                if self.headers.is_some() || self.bearer_env.is_some() {
                    return Err(format!(
                        "key {key}: headers and bearer_env belong to a server with a url"
                    ));
                }
                if command.trim().is_empty() {
                    return Err(format!("key {key}.command: the command is empty"));
                }
                (
                    mcp_mount::Transport::Stdio(mcp_mount::StdioServer {
                        command: command.clone(),
                        args: self.args.clone().unwrap_or_default(),
                        env: self.env.clone().unwrap_or_default().into_iter().collect(),
                        env_remove: Vec::new(),
                        cwd: self.cwd.clone(),
                        untrusted_dirs: Vec::new(),
                        home: None,
                    }),
                    Vec::new(),
                )
            }
            (None, Some(url)) => {
                if self.args.is_some() || self.env.is_some() || self.cwd.is_some() {
                    return Err(format!(
                        "key {key}: args, env and cwd belong to a server with a command"
                    ));
                }
                let parsed = url::Url::parse(url)
                    .ok()
                    .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
                    .ok_or_else(|| {
                        format!("key {key}.url: {url:?} is not an http:// or https:// address")
                    })?;
                let loopback = match parsed.host() {
                    Some(url::Host::Domain(domain)) => domain.eq_ignore_ascii_case("localhost"),
                    Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
                    Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
                    None => false,
                };
                if let Some(var) = &self.bearer_env
                    && parsed.scheme() == "http"
                    && !loopback
                {
                    return Err(format!(
                        "key {key}.url: the bearer from {var} would cross the network in clear text (plain http:// to a host that is not loopback); use https://"
                    ));
                }
                let mut notes = Vec::new();
                let bearer = self.bearer_env.as_ref().and_then(|var| {
                    let value = std::env::var(var).ok().filter(|v| !v.trim().is_empty());
                    if value.is_none() {
                        notes.push(format!(
                            "the variable {var} (bearer_env) is not set; the server is asked without a bearer"
                        ));
                    }
                    value.map(|v| v.trim().to_owned())
                });
                (
                    mcp_mount::Transport::Http(mcp_mount::HttpServer {
                        url: url.clone(),
                        headers: self
                            .headers
                            .clone()
                            .unwrap_or_default()
                            .into_iter()
                            .collect(),
                        bearer,
                    }),
                    notes,
                )
            }
            _ => return Err(format!("key {key}: give either command or url")),
        };
        Ok(crate::mounted::Mount {
            spec: mcp_mount::MountSpec {
                name: self.name.clone(),
                transport,
            },
            discriminator: self
                .discriminator
                .clone()
                .unwrap_or_else(|| "action".to_owned()),
            notes,
            secret_env: self.bearer_env.iter().cloned().collect(),
        })
    }
}

/// `[ui]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UiSection {
    /// The registries, as `HANZO_MCP_UI_REGISTRIES` spells them:
    /// `name=URL` pairs separated by commas.
    pub registries: Option<String>,
}

/// The file a start reads, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigPath {
    /// Named by `--config` or `HANZO_MCP_CONFIG`: read, and a missing
    /// file is an error.
    Named(PathBuf),
    /// The platform's default place: read when it exists and lies outside
    /// every root.
    Default(PathBuf),
    /// No file: no config folder is known.
    None,
}

/// Where the configuration file is: `flag` (`--config`, which clap also
/// fills from `HANZO_MCP_CONFIG`), else `config.toml` in the platform's
/// config folder under `hanzo-mcp/`.
pub fn config_path(flag: Option<&Path>) -> ConfigPath {
    if let Some(path) = flag.filter(|p| !p.as_os_str().is_empty()) {
        return ConfigPath::Named(path.to_path_buf());
    }
    match directories::BaseDirs::new() {
        Some(dirs) => ConfigPath::Default(dirs.config_dir().join("hanzo-mcp").join("config.toml")),
        None => ConfigPath::None,
    }
}

/// The configuration file the start uses, and its keys (empty when no
/// file is read).
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// The file read, if one was.
    pub path: Option<PathBuf>,
    /// Why a file in the default place was not read, when it was not.
    pub skipped: Option<String>,
    /// Why the file (or a setting) cannot be used, for `doctor`: the
    /// settings are then the flags, the environment and the defaults.
    pub error: Option<String>,
    /// Its keys.
    pub file: ConfigFile,
}

/// Reads the file at `path` unless it is the default one and lies inside
/// one of `roots` (already resolved, as the local tools will use them).
///
/// # Errors
/// [`ServerError::Config`] naming the file: it cannot be read (a named file
/// that is missing included), is not TOML, has an unknown key or a value
/// of the wrong type (with the key's path).
pub fn load(path: &ConfigPath, roots: &[PathBuf]) -> Result<Loaded, ServerError> {
    let (path, named) = match path {
        ConfigPath::Named(path) => (path, true),
        ConfigPath::Default(path) => (path, false),
        ConfigPath::None => return Ok(Loaded::default()),
    };
    if !named {
        if !path.is_file() {
            return Ok(Loaded::default());
        }
        let resolved = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        if let Some(root) = roots.iter().find(|root| {
            let root = std::fs::canonicalize(root).unwrap_or_else(|_| (*root).clone());
            resolved.starts_with(&root)
        }) {
            return Ok(Loaded {
                error: None,
                path: None,
                skipped: Some(format!(
                    "{} is inside the root {}, which the tools may write, so it is not read; name it with --config or {CONFIG_VAR} to use it",
                    path.display(),
                    root.display()
                )),
                file: ConfigFile::default(),
            });
        }
    }
    let text = read(path)?;
    let file = parse(&text).map_err(|e| ServerError::Config(format!("{}: {e}", path.display())))?;
    Ok(Loaded {
        error: None,
        path: Some(path.clone()),
        skipped: None,
        file,
    })
}

/// Reads at most [`MAX_BYTES`] of `path` as UTF-8.
fn read(path: &Path) -> Result<String, ServerError> {
    use std::io::Read;
    let fail = |why: String| ServerError::Config(format!("config file {}: {why}", path.display()));
    let file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(e.to_string()))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(fail(format!("larger than {MAX_BYTES} bytes")));
    }
    String::from_utf8(bytes).map_err(|_| fail("not UTF-8".to_owned()))
}

/// Parses a configuration file's text; an error names the key's path.
///
/// # Errors
/// Not TOML, an unknown key, or a value of the wrong type: `key
/// door.wait: invalid type: string "2", expected f64`.
pub fn parse(text: &str) -> Result<ConfigFile, String> {
    let deserializer = toml::Deserializer::parse(text).map_err(|e| one_line(&e.to_string()))?;
    serde_path_to_error::deserialize(deserializer).map_err(|e| {
        let key = e.path().to_string();
        let error = e.into_inner();
        let line = error
            .span()
            .and_then(|span| text.get(..span.start))
            .map_or_else(String::new, |head| {
                format!(" (line {})", head.matches('\n').count() + 1)
            });
        format!("key {key}{line}: {}", one_line(error.message()))
    })
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Where a setting's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A command-line flag.
    Flag(&'static str),
    /// An environment variable.
    Env(&'static str),
    /// The configuration file.
    File,
    /// The default.
    Default,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Flag(flag) => write!(f, "flag {flag}"),
            Origin::Env(var) => write!(f, "environment {var}"),
            Origin::File => f.write_str("config file"),
            Origin::Default => f.write_str("default"),
        }
    }
}

/// One effective setting: its key in the file, its value as shown (a
/// credential masked), and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// The key, as the file spells it (`door.wait`).
    pub key: &'static str,
    /// The value shown.
    pub value: String,
    /// Where it came from.
    pub origin: Origin,
}

/// The settings of a start that are not flags: read from the environment,
/// else the file (see [`Effective::apply_serve`]).
#[derive(Debug, Clone, Default)]
pub struct Extra {
    /// The door's address from the file, used when neither
    /// `HANZO_MCP_DOOR` nor `HANZO_API_BASE` is set.
    pub door_address: Option<String>,
    /// `ui.registries` from the file, used when `HANZO_MCP_UI_REGISTRIES`
    /// is not set.
    pub ui_registries: Option<String>,
    /// `[[servers]]` from the file, used when no `--server` is given.
    pub servers: Vec<crate::mounted::Mount>,
}

impl Extra {
    /// Takes the settings [`Effective`] works out after the flags (the
    /// door's address, the `ui` registries) from `effective`, keeping the
    /// `servers` read with the flags.
    pub fn take_env_settings(&mut self, effective: &Extra) {
        self.door_address.clone_from(&effective.door_address);
        self.ui_registries.clone_from(&effective.ui_registries);
    }
}

/// What [`Effective::apply_serve`] made of flags, environment and file.
#[derive(Debug, Clone, Default)]
pub struct Effective {
    /// The file read.
    pub loaded: Loaded,
    /// Every setting with its origin, in the file's key order.
    pub settings: Vec<Setting>,
    /// The settings that are not flags.
    pub extra: Extra,
}

/// How each argument of one subcommand got its value (clap's
/// [`ValueSource`] by argument id): read from the subcommand's
/// [`ArgMatches`] before they are turned into its flags' struct, which
/// takes the values out of them. It tells a flag from a default, so the
/// configuration file fills only what flags and variables left unset.
#[derive(Debug, Clone, Default)]
pub struct GivenArgs {
    sources: Vec<(clap::Id, ValueSource)>,
}

impl GivenArgs {
    /// The value sources of every argument in `matches`.
    pub fn of(matches: &ArgMatches) -> Self {
        let sources = matches
            .ids()
            .filter_map(|id| Some((id.clone(), matches.value_source(id.as_str())?)))
            .collect();
        Self { sources }
    }

    /// Where the argument `id` got its value; `None` when it has none.
    pub fn value_source(&self, id: &str) -> Option<ValueSource> {
        self.sources
            .iter()
            .find(|(known, _)| known.as_str() == id)
            .map(|(_, source)| *source)
    }
}

/// How one clap argument was given: flag, its variable, or neither.
fn origin_of(
    args: &GivenArgs,
    id: &str,
    flag: &'static str,
    env: Option<&'static str>,
) -> Option<Origin> {
    match args.value_source(id) {
        Some(ValueSource::CommandLine) => Some(Origin::Flag(flag)),
        Some(ValueSource::EnvVariable) => Some(Origin::Env(env.unwrap_or(flag))),
        _ => None,
    }
}

/// The origin of one setting: the flag or its variable when `given` says
/// so (clap has set it already); else the file's value, which `apply`
/// checks and stores; else the default.
fn layered<T>(
    given: Option<Origin>,
    from_file: Option<T>,
    apply: impl FnOnce(T) -> Result<(), String>,
) -> Result<Origin, String> {
    match (given, from_file) {
        (Some(origin), _) => Ok(origin),
        (None, Some(value)) => apply(value).map(|()| Origin::File),
        (None, None) => Ok(Origin::Default),
    }
}

/// Whether `var` is set to something not blank.
fn env_set(var: &str) -> bool {
    std::env::var_os(var).is_some_and(|v| !v.is_empty())
}

/// Fills the settings of `sources` that neither a flag nor a variable gave
/// from `file`, checking each file value as its flag would be checked.
/// `given` says how the subcommand's arguments were given. The settings
/// list gets one entry per setting of `sources`.
///
/// # Errors
/// A file value its flag would refuse: `key door.wait: ...`.
pub fn apply_sources(
    sources: &mut SourceArgs,
    given: &GivenArgs,
    file: &ConfigFile,
    settings: &mut Vec<Setting>,
) -> Result<(), String> {
    let door = file.door.clone().unwrap_or_default();
    // roots
    let origin = layered(
        origin_of(given, "roots", "--root", None),
        file.roots.as_ref(),
        |roots| {
            // Checked here, so the refusal names the key, not the flag.
            if let Some(root) = roots.iter().find(|root| !root.is_dir()) {
                return Err(format!(
                    "key roots: {:?} is not a directory",
                    root.display().to_string()
                ));
            }
            sources.roots.clone_from(roots);
            Ok(())
        },
    )?;
    let roots: Vec<String> = sources
        .roots
        .iter()
        .map(|r| r.display().to_string())
        .collect();
    settings.push(Setting {
        key: "roots",
        value: if roots.is_empty() {
            "(the client's roots, else the working directory)".to_owned()
        } else {
            roots.join(", ")
        },
        origin,
    });
    // servers
    let origin = layered(
        origin_of(given, "servers", "--server", None),
        file.servers.as_ref(),
        |entries| {
            let mounts = entries
                .iter()
                .enumerate()
                .map(|(at, entry)| entry.mount(at))
                .collect::<Result<Vec<_>, _>>()?;
            crate::mounted::check_distinct(&mounts).map_err(|e| format!("key servers: {e}"))?;
            sources.file.servers = mounts;
            Ok(())
        },
    )?;
    let shown: Vec<String> = match sources.mounts() {
        Ok(mounts) => mounts.iter().map(crate::mounted::Mount::describe).collect(),
        Err(_) => sources.mount_names(),
    };
    settings.push(Setting {
        key: "servers",
        value: if shown.is_empty() {
            "(none)".to_owned()
        } else {
            shown.join("; ")
        },
        origin,
    });
    // server_wait
    let origin = layered(
        origin_of(given, "server_wait", "--server-wait", None),
        file.server_wait,
        |seconds| {
            sources.server_wait = Some(
                std::time::Duration::try_from_secs_f64(seconds).map_err(|_| {
                    format!("key server_wait: {seconds} is not a number of seconds")
                })?,
            );
            Ok(())
        },
    )?;
    settings.push(Setting {
        key: "server_wait",
        value: match sources.server_wait {
            Some(wait) => format!("{} s", wait.as_secs_f64()),
            None => "(as door.wait)".to_owned(),
        },
        origin,
    });
    // allowed_tools
    let origin = layered(
        origin_of(
            given,
            "allowed_tools",
            "--allowed-tools",
            Some("HANZO_MCP_ALLOWED_TOOLS"),
        ),
        file.allowed_tools.as_ref(),
        |table| {
            let json = serde_json::Value::Object(table.clone()).to_string();
            crate::cli::parse_allowed_tools(Some(&json), &sources.mount_names())
                .map_err(|e| format!("key allowed_tools: {}", strip_flag(&e.to_string())))?;
            sources.allowed_tools = Some(json);
            Ok(())
        },
    )?;
    settings.push(Setting {
        key: "allowed_tools",
        value: sources
            .allowed_tools
            .clone()
            .unwrap_or_else(|| "null (every tool)".to_owned()),
        origin,
    });
    // modes
    let modes_var = mcp_local_tools_modes_var();
    let by_env = env_set(modes_var).then_some(Origin::Env(modes_var));
    let origin = layered(
        origin_of(given, "modes", "--modes", None).or(by_env),
        file.modes.as_ref(),
        |path| {
            // Read as `serve` reads it, so the refusal names the key.
            if let Err(error) = std::fs::metadata(path) {
                return Err(format!(
                    "key modes: {:?}: {error}",
                    path.display().to_string()
                ));
            }
            sources.modes = Some(path.clone());
            Ok(())
        },
    )?;
    settings.push(Setting {
        key: "modes",
        value: match (&sources.modes, &origin) {
            (Some(path), _) => path.display().to_string(),
            (None, Origin::Env(var)) => std::env::var(var).unwrap_or_default(),
            (None, _) => "(the built-in presets)".to_owned(),
        },
        origin,
    });
    // secret_env
    let origin = layered(
        origin_of(
            given,
            "secret_env",
            "--secret-env",
            Some("HANZO_MCP_SECRET_ENV"),
        ),
        file.secret_env.as_ref(),
        |names| {
            for name in names {
                crate::cli::parse_variable_name(name)
                    .map_err(|e| format!("key secret_env: {e}"))?;
            }
            sources.secret_env.clone_from(names);
            Ok(())
        },
    )?;
    settings.push(Setting {
        key: "secret_env",
        value: format!(
            "HANZO_API_KEY, HANZO_MCP_HTTP_BEARER{}",
            sources
                .secret_env
                .iter()
                .map(|n| format!(", {n}"))
                .collect::<String>()
        ),
        origin,
    });
    // fetch_allow_private
    let private_var = "HANZO_MCP_FETCH_ALLOW_PRIVATE";
    let by_env = env_set(private_var).then_some(Origin::Env(private_var));
    let origin = layered(
        origin_of(given, "fetch_allow_private", "--fetch-allow-private", None).or(by_env),
        file.fetch_allow_private,
        |allow| {
            sources.fetch_allow_private = allow;
            Ok(())
        },
    )?;
    settings.push(Setting {
        key: "fetch_allow_private",
        value: match origin {
            Origin::Env(var) => std::env::var(var).unwrap_or_default(),
            _ => sources.fetch_allow_private.to_string(),
        },
        origin,
    });
    // door.enabled
    let origin = layered(
        origin_of(given, "no_door", "--no-door", None),
        door.enabled,
        |enabled| {
            sources.no_door = !enabled;
            Ok(())
        },
    )?;
    settings.push(Setting {
        key: "door.enabled",
        value: (!sources.no_door).to_string(),
        origin,
    });
    // door.wait
    let origin = layered(
        origin_of(given, "door_wait", "--door-wait", None),
        door.wait,
        |seconds| {
            sources.door_wait = std::time::Duration::try_from_secs_f64(seconds)
                .map_err(|_| format!("key door.wait: {seconds} is not a number of seconds"))?;
            Ok(())
        },
    )?;
    settings.push(Setting {
        key: "door.wait",
        value: format!("{} s", sources.door_wait.as_secs_f64()),
        origin,
    });
    // door.allow_cleartext_bearer
    let origin = layered(
        origin_of(
            given,
            "door_allow_cleartext_bearer",
            "--door-allow-cleartext-bearer",
            Some("HANZO_MCP_DOOR_ALLOW_CLEARTEXT_BEARER"),
        ),
        door.allow_cleartext_bearer,
        |allow| {
            sources.door_allow_cleartext_bearer = allow;
            Ok(())
        },
    )?;
    settings.push(Setting {
        key: "door.allow_cleartext_bearer",
        value: sources.door_allow_cleartext_bearer.to_string(),
        origin,
    });
    Ok(())
}

/// The `mode` presets variable (`HANZO_MCP_MODES`).
fn mcp_local_tools_modes_var() -> &'static str {
    "HANZO_MCP_MODES"
}

/// `--allowed-tools: ...` without the flag's name, for a file key's message.
fn strip_flag(message: &str) -> &str {
    let message = message.strip_prefix("configuration: ").unwrap_or(message);
    message.strip_prefix("--allowed-tools: ").unwrap_or(message)
}

/// As [`apply_sources`], for the settings `serve` adds: the log level,
/// `--max-in-flight`, `--mode` and `[http]`.
///
/// # Errors
/// A file value its flag would refuse.
pub fn apply_serve(
    args: &mut ServeArgs,
    given: &GivenArgs,
    file: &ConfigFile,
    settings: &mut Vec<Setting>,
) -> Result<(), String> {
    apply_sources(&mut args.sources, given, file, settings)?;
    // mode
    let origin = layered(
        origin_of(given, "mode", "--mode", Some("HANZO_MCP_MODE")),
        file.mode.as_ref(),
        |mode| {
            args.mode = Some(mode.clone());
            Ok(())
        },
    )?;
    settings.push(Setting {
        key: "mode",
        value: args
            .mode
            .clone()
            .unwrap_or_else(|| "(none: every session may choose)".to_owned()),
        origin,
    });
    // max_in_flight
    let origin = layered(
        origin_of(given, "max_in_flight", "--max-in-flight", None),
        file.max_in_flight,
        |n| {
            args.max_in_flight = crate::cli::parse_in_flight(&n.to_string())
                .map_err(|e| format!("key max_in_flight: {e}"))?;
            Ok(())
        },
    )?;
    settings.push(Setting {
        key: "max_in_flight",
        value: args.max_in_flight.to_string(),
        origin,
    });
    // log_level
    let by_env = env_set("RUST_LOG").then_some(Origin::Env("RUST_LOG"));
    let origin = layered(
        origin_of(given, "log_level", "--log-level", None).or(by_env),
        file.log_level.as_ref(),
        |level| {
            let level =
                crate::cli::parse_log_level(level).map_err(|e| format!("key log_level: {e}"))?;
            args.log_level = Some(level);
            Ok(())
        },
    )?;
    settings.push(Setting {
        key: "log_level",
        value: match (&args.log_level, &origin) {
            (Some(level), _) => level.clone(),
            (None, Origin::Env(var)) => std::env::var(var).unwrap_or_default(),
            (None, _) => "info".to_owned(),
        },
        origin,
    });
    let http = file.http.clone().unwrap_or_default();
    // http.listen
    let origin = layered(
        origin_of(given, "http", "--http", None),
        http.listen.as_ref(),
        |addr| {
            args.http =
                Some(crate::cli::parse_addr(addr).map_err(|e| format!("key http.listen: {e}"))?);
            Ok(())
        },
    )?;
    settings.push(Setting {
        key: "http.listen",
        value: args
            .http
            .map_or_else(|| "(off: stdio)".to_owned(), |a| a.to_string()),
        origin,
    });
    // http.no_auth
    let origin = layered(
        origin_of(given, "http_no_auth", "--http-no-auth", None),
        http.no_auth,
        |no_auth| {
            args.http_no_auth = no_auth;
            Ok(())
        },
    )?;
    settings.push(Setting {
        key: "http.no_auth",
        value: args.http_no_auth.to_string(),
        origin,
    });
    apply_http_limits(&mut args.http_limits, given, &http, settings)
}

/// One `[http]` limit: its key, its clap argument, flag and variable, its
/// bound, and where its value is in the file and in the arguments.
struct LimitRow {
    key: &'static str,
    id: &'static str,
    flag: &'static str,
    env: &'static str,
    max: u64,
    in_file: fn(&HttpSection) -> Option<u64>,
    in_args: fn(&mut HttpLimitArgs) -> &mut u64,
}

/// The `[http]` limits, each bounded as its flag is.
const LIMITS: [LimitRow; 5] = [
    LimitRow {
        key: "http.max_sessions",
        id: "max_sessions",
        flag: "--http-max-sessions",
        env: "HANZO_MCP_HTTP_MAX_SESSIONS",
        max: MAX_HTTP_COUNT,
        in_file: |h| h.max_sessions,
        in_args: |l| &mut l.max_sessions,
    },
    LimitRow {
        key: "http.session_idle",
        id: "session_idle_secs",
        flag: "--http-session-idle",
        env: "HANZO_MCP_HTTP_SESSION_IDLE",
        max: MAX_HTTP_SESSION_IDLE_SECS,
        in_file: |h| h.session_idle,
        in_args: |l| &mut l.session_idle_secs,
    },
    LimitRow {
        key: "http.header_timeout",
        id: "header_timeout_secs",
        flag: "--http-header-timeout",
        env: "HANZO_MCP_HTTP_HEADER_TIMEOUT",
        max: MAX_HTTP_HEADER_TIMEOUT_SECS,
        in_file: |h| h.header_timeout,
        in_args: |l| &mut l.header_timeout_secs,
    },
    LimitRow {
        key: "http.body_timeout",
        id: "body_timeout_secs",
        flag: "--http-body-timeout",
        env: "HANZO_MCP_HTTP_BODY_TIMEOUT",
        max: MAX_HTTP_BODY_TIMEOUT_SECS,
        in_file: |h| h.body_timeout,
        in_args: |l| &mut l.body_timeout_secs,
    },
    LimitRow {
        key: "http.max_connections",
        id: "max_connections",
        flag: "--http-max-connections",
        env: "HANZO_MCP_HTTP_MAX_CONNECTIONS",
        max: MAX_HTTP_COUNT,
        in_file: |h| h.max_connections,
        in_args: |l| &mut l.max_connections,
    },
];

/// The file's value of `row`, checked against its bound.
fn limit_in_file(row: &LimitRow, http: &HttpSection) -> Result<Option<u64>, String> {
    match (row.in_file)(http) {
        Some(n) if !(1..=row.max).contains(&n) => {
            Err(format!("key {}: {n} is not from 1 to {}", row.key, row.max))
        }
        value => Ok(value),
    }
}

/// Fills the `[http]` limits flags and variables left unset.
fn apply_http_limits(
    limits: &mut HttpLimitArgs,
    given: &GivenArgs,
    http: &HttpSection,
    settings: &mut Vec<Setting>,
) -> Result<(), String> {
    for row in &LIMITS {
        let origin = layered(
            origin_of(given, row.id, row.flag, Some(row.env)),
            limit_in_file(row, http)?,
            |n| {
                *(row.in_args)(limits) = n;
                Ok(())
            },
        )?;
        settings.push(Setting {
            key: row.key,
            value: (row.in_args)(limits).to_string(),
            origin,
        });
    }
    Ok(())
}

impl Effective {
    /// The settings when the configuration cannot be used (`doctor` says
    /// `error` and checks the rest).
    pub fn failed(error: String) -> Effective {
        Effective {
            loaded: Loaded {
                error: Some(error),
                ..Loaded::default()
            },
            ..Effective::default()
        }
    }

    /// Reads the configuration file of `config_flag` and fills what flags
    /// and variables left unset (`given`: how the `serve` subcommand's
    /// arguments were given).
    /// Over a default file inside a root, `roots` are the ones the flags
    /// give, else the working directory.
    ///
    /// # Errors
    /// [`ServerError::Config`] naming the file and the key.
    pub fn apply_serve(
        config_flag: Option<&Path>,
        args: &mut ServeArgs,
        given: &GivenArgs,
    ) -> Result<Effective, ServerError> {
        // As `cli::follows_client_roots`, from the flags alone.
        let client_roots = args.http.is_none() && args.sources.roots.is_empty();
        let loaded = load_for(config_flag, &args.sources, client_roots)?;
        let mut settings = Vec::new();
        apply_serve(args, given, &loaded.file, &mut settings).map_err(|e| in_file(&loaded, &e))?;
        Self::finish(loaded, settings)
    }

    /// As [`Effective::apply_serve`], for the settings of `tools`, which
    /// lists what `serve` over stdio would: without `--root` the default
    /// file is not read, as there.
    ///
    /// # Errors
    /// As [`Effective::apply_serve`].
    pub fn apply_sources(
        config_flag: Option<&Path>,
        sources: &mut SourceArgs,
        given: &GivenArgs,
    ) -> Result<Effective, ServerError> {
        let client_roots = sources.roots.is_empty();
        let loaded = load_for(config_flag, sources, client_roots)?;
        check_serve_values(&loaded.file).map_err(|e| in_file(&loaded, &e))?;
        let mut settings = Vec::new();
        apply_sources(sources, given, &loaded.file, &mut settings)
            .map_err(|e| in_file(&loaded, &e))?;
        Self::finish(loaded, settings)
    }

    /// Adds the settings that are neither flags nor clap variables: the
    /// door's address, its bearer (masked) and the `ui` registries, each
    /// checked.
    fn finish(loaded: Loaded, mut settings: Vec<Setting>) -> Result<Effective, ServerError> {
        let door = loaded.file.door.clone().unwrap_or_default();
        let mut extra = Extra::default();
        let (address, origin) = if env_set("HANZO_MCP_DOOR") {
            (
                std::env::var("HANZO_MCP_DOOR").unwrap_or_default(),
                Origin::Env("HANZO_MCP_DOOR"),
            )
        } else if env_set("HANZO_API_BASE") {
            (
                mcp_door_client::door_address(|k| std::env::var(k).ok()),
                Origin::Env("HANZO_API_BASE"),
            )
        } else if let Some(address) = door.address {
            if !(address.starts_with("https://") || address.starts_with("http://")) {
                return Err(in_file(
                    &loaded,
                    &format!("key door.address: {address:?} is not an http(s) URL"),
                ));
            }
            extra.door_address = Some(address.clone());
            (address, Origin::File)
        } else {
            (mcp_door_client::door_address(|_| None), Origin::Default)
        };
        settings.push(Setting {
            key: "door.address",
            value: address,
            origin,
        });
        let bearer = if env_set("HANZO_API_KEY") {
            ("set (masked)".to_owned(), Origin::Env("HANZO_API_KEY"))
        } else {
            (
                "~/.hanzo/config.json apiKey, else `hanzo auth token`, when the door is first used"
                    .to_owned(),
                Origin::Default,
            )
        };
        settings.push(Setting {
            key: "door.bearer",
            value: bearer.0,
            origin: bearer.1,
        });
        let registries_var = "HANZO_MCP_UI_REGISTRIES";
        let ui = loaded.file.ui.clone().unwrap_or_default();
        let (value, origin) = if env_set(registries_var) {
            let value = std::env::var(registries_var).unwrap_or_default();
            check_registries(&value).map_err(|e| {
                ServerError::Config(format!(
                    "{registries_var}: {e} (the form: name=URL pairs separated by commas)"
                ))
            })?;
            (value, Origin::Env("HANZO_MCP_UI_REGISTRIES"))
        } else if let Some(value) = ui.registries {
            check_registries(&value).map_err(|e| {
                in_file(
                    &loaded,
                    &format!(
                        "key ui.registries: {e} (the form: name=URL pairs separated by commas)"
                    ),
                )
            })?;
            extra.ui_registries = Some(value.clone());
            (value, Origin::File)
        } else {
            ("(hanzo, shadcn)".to_owned(), Origin::Default)
        };
        settings.push(Setting {
            key: "ui.registries",
            value,
            origin,
        });
        Ok(Effective {
            loaded,
            settings,
            extra,
        })
    }

    /// `hanzo-mcp config show`: the file, then one line per setting,
    /// `key = value  (origin)`.
    pub fn show(&self) -> String {
        let mut out = match (&self.loaded.path, &self.loaded.skipped) {
            (Some(path), _) => format!("# config file: {}\n", path.display()),
            (None, Some(why)) => format!("# config file: none ({why})\n"),
            (None, None) => "# config file: none\n".to_owned(),
        };
        let width = self.settings.iter().map(|s| s.key.len()).max().unwrap_or(0);
        for setting in &self.settings {
            out.push_str(&format!(
                "{:width$} = {}  ({})\n",
                setting.key, setting.value, setting.origin
            ));
        }
        out
    }
}

/// Checks the values only `serve` uses, for a command that does not use
/// them (a bad value stops every start, not only `serve`'s).
fn check_serve_values(file: &ConfigFile) -> Result<(), String> {
    if let Some(n) = file.max_in_flight {
        crate::cli::parse_in_flight(&n.to_string())
            .map_err(|e| format!("key max_in_flight: {e}"))?;
    }
    if let Some(level) = &file.log_level {
        crate::cli::parse_log_level(level).map_err(|e| format!("key log_level: {e}"))?;
    }
    let http = file.http.clone().unwrap_or_default();
    if let Some(addr) = &http.listen {
        crate::cli::parse_addr(addr).map_err(|e| format!("key http.listen: {e}"))?;
    }
    for row in &LIMITS {
        limit_in_file(row, &http)?;
    }
    Ok(())
}

/// Checks a registries list as the `ui` tool reads it.
fn check_registries(value: &str) -> Result<(), String> {
    #[cfg(feature = "ui")]
    {
        mcp_local_tools::ui::Registry::parse_list(value).map(|_| ())
    }
    #[cfg(not(feature = "ui"))]
    {
        let _ = value;
        Ok(())
    }
}

/// The file of a start: a named one, else the default one unless it lies
/// inside the roots the flags give (else the working directory). With
/// `client_roots` (`serve` over stdio without `--root`, whose roots come
/// from the client and may hold the config folder) the default file is
/// not read at all: only a named one is.
fn load_for(
    config_flag: Option<&Path>,
    sources: &SourceArgs,
    client_roots: bool,
) -> Result<Loaded, ServerError> {
    let path = config_path(config_flag);
    if let ConfigPath::Default(default) = &path
        && client_roots
        && default.is_file()
    {
        return Ok(Loaded {
            skipped: Some(format!(
                "{} is not read without --root: the client names the roots, which may hold it, and the tools may write there; name it with --config or {CONFIG_VAR}, or give --root",
                default.display()
            )),
            ..Loaded::default()
        });
    }
    let roots = if sources.roots.is_empty() {
        std::env::current_dir().map(|d| vec![d]).unwrap_or_default()
    } else {
        sources.roots.clone()
    };
    let loaded = load(&path, &roots)?;
    // A file whose roots name other directories than the flags': the
    // default file is checked against those too.
    if let (ConfigPath::Default(_), Some(file_roots)) = (&path, &loaded.file.roots)
        && sources.roots.is_empty()
    {
        let again = load(&path, file_roots)?;
        if again.skipped.is_some() {
            return Ok(again);
        }
    }
    Ok(loaded)
}

/// `message` about the file of `loaded`.
fn in_file(loaded: &Loaded, message: &str) -> ServerError {
    let path = loaded
        .path
        .as_ref()
        .map_or_else(|| "config file".to_owned(), |p| p.display().to_string());
    ServerError::Config(format!("{path}: {message}"))
}
