//! The `ui` tool: UI components from registries in the shadcn registry
//! format (HIP-0300 §2.1), installed into the workspace without a shell.
//!
//! - `registries`: the configured registries.
//! - `list {[registry], [type], [offset], [limit]}` (alias
//!   `list_components`) and `search {query, [registry], [type]}`: items of
//!   the registries' indexes (`registry.json` with `items`).
//! - `view {name, [registry]}` (alias `get_component`): the whole item,
//!   files included (shadcn `registry-item.json`; Hanzo's older
//!   `files[{name, content}]` is read too).
//! - `install {name | names, [registry], [path], [overwrite]}`: writes the
//!   items' files, and those of their `registryDependencies`, recursively,
//!   under `path` (default: the first root), each through the roots'
//!   checks; a `target` that would leave the workspace is refused, and so
//!   is an existing file unless `overwrite` (all files are checked before
//!   any is written). Reports the npm `dependencies` to add; runs nothing.
//! - `add_command {name | names, [registry]}`: the `npx shadcn@latest add`
//!   line (or the framework's port of the CLI) for the items.
//! - `set_framework {framework}` / `get_framework`: the workspace's UI
//!   framework, remembered per workspace (the first root).
//!
//! Names are checked (letters, digits, `.`, `_`, `-`) before they are put
//! in a URL or a command line. Registry answers are cached in memory for
//! [`registry::CACHE_TTL`]; every request goes through the address guard of
//! [`crate::net`] with the byte cap of [`UiConfig::max_bytes`].

mod catalog;
mod framework;
mod install;
pub mod registry;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::action::{ActionFuture, ActionTool, action_args, actions, local_tool};
use crate::context::ToolContext;
use crate::net::{Http, NetPolicy};
use crate::util::Hints;

pub use registry::Registry;
use registry::{RegistryClient, valid_name};

/// The variable listing the registries: `name=URL` pairs, comma-separated.
pub const REGISTRIES_VAR: &str = "HANZO_MCP_UI_REGISTRIES";
/// Items one `install` writes at most (dependencies included): 64.
pub const MAX_INSTALL_ITEMS: usize = 64;
/// Bytes one registry answer may have by default: 4 MiB.
pub const DEFAULT_MAX_BYTES: usize = 4 * 1024 * 1024;
/// How long one call may take: 60 seconds.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// The frameworks `set_framework` accepts.
pub const FRAMEWORKS: &[&str] = &["react", "vue", "svelte", "solid", "react-native"];

/// How the `ui` tool is set up.
#[derive(Debug, Clone)]
pub struct UiConfig {
    /// Which addresses requests may reach (default: public ones only).
    pub policy: NetPolicy,
    /// The registries, the first one the default (default: Hanzo's, then
    /// shadcn's).
    pub registries: Vec<Registry>,
    /// Cap on the bytes of one registry answer (default
    /// [`DEFAULT_MAX_BYTES`]).
    pub max_bytes: usize,
    /// Where the per-workspace framework is kept (`ui/frameworks.json` in
    /// it); default the state folder ([`crate::state::state_dir`]), and in
    /// memory only when there is none.
    pub state_dir: Option<PathBuf>,
}

impl Default for UiConfig {
    fn default() -> UiConfig {
        UiConfig {
            policy: NetPolicy::default(),
            registries: vec![Registry::hanzo(), Registry::shadcn()],
            max_bytes: DEFAULT_MAX_BYTES,
            state_dir: None,
        }
    }
}

impl UiConfig {
    /// The defaults, then: the policy from the environment
    /// ([`NetPolicy::from_env`]); the registries from
    /// [`REGISTRIES_VAR`] when set, else from `ui.json` in the state folder
    /// (`{"registries": [{"name", "index_url", "item_url"}]}`) when present.
    /// A bad list is reported on stderr and the built-in registries kept.
    /// `ui.json` is read only when it is a regular file (never through a
    /// symlink at its name, never a FIFO).
    pub fn from_env() -> UiConfig {
        UiConfig::from_env_with(true)
    }

    /// As [`UiConfig::from_env`], without reading `ui.json` when
    /// `read_file` is false (a server whose roots hold the state folder:
    /// [`crate::state::reachable_by_agent`]).
    pub fn from_env_with(read_file: bool) -> UiConfig {
        let mut config = UiConfig {
            policy: NetPolicy::from_env(),
            ..UiConfig::default()
        };
        if let Some(list) = std::env::var(REGISTRIES_VAR)
            .ok()
            .filter(|v| !v.trim().is_empty())
        {
            match Registry::parse_list(&list) {
                Ok(registries) => config.registries = registries,
                Err(e) => {
                    eprintln!("hanzo-mcp: {REGISTRIES_VAR}: {e}; using the built-in registries")
                }
            }
        } else if let Some(file) = registries_file().filter(|_| read_file)
            && let Some(text) = crate::state::read_no_follow(&file)
        {
            #[derive(Deserialize)]
            struct File {
                registries: Vec<Registry>,
            }
            match serde_json::from_str::<File>(&text) {
                Ok(f) if !f.registries.is_empty() => config.registries = f.registries,
                Ok(_) => {}
                Err(e) => eprintln!(
                    "hanzo-mcp: {}: {e}; using the built-in registries",
                    file.display()
                ),
            }
        }
        config
    }
}

/// The registries file, `ui.json` in the state folder (`None` without a
/// state folder).
pub fn registries_file() -> Option<PathBuf> {
    crate::state::state_dir()
        .ok()
        .map(|dir| dir.join("ui.json"))
}

/// The `ui` local tool. Cheap to clone; clones share the cache.
#[derive(Debug, Clone)]
pub struct UiTool {
    config: Arc<UiConfig>,
    client: RegistryClient,
    frameworks: Arc<Mutex<BTreeMap<String, String>>>,
}

impl Default for UiTool {
    fn default() -> UiTool {
        UiTool::new()
    }
}

impl UiTool {
    /// The tool with [`UiConfig::from_env`].
    pub fn new() -> UiTool {
        UiTool::with_config(UiConfig::from_env())
    }

    /// The tool with `config`.
    pub fn with_config(config: UiConfig) -> UiTool {
        UiTool {
            client: RegistryClient::new(Http::new(config.policy.clone()), config.max_bytes),
            config: Arc::new(config),
            frameworks: Arc::default(),
        }
    }
}

actions! {
    /// Which `ui` action to run.
    pub(crate) enum UiAction {
        Registries = "registries" { reads: true, can: [], pool: false, usage: ": the configured registries (the first is the default)." },
        List = "list" ["list_components"] { reads: true, can: [Network], pool: false, usage: "{[registry], [type], [offset], [limit]}: the registry's items: name, type, description (type: ui, block, hook, lib, ... or registry:ui; limit default 100)." },
        Search = "search" { reads: true, can: [Network], pool: false, usage: "{query, [registry], [type], [limit]}: items whose name, title or description contains query (any case), in one registry or all." },
        View = "view" ["get_component"] { reads: true, can: [Network], pool: false, usage: "{name, [registry]}: the whole item as the registry sends it, files included (cut at 256 KiB)." },
        Install = "install" { reads: false, can: [WriteFiles, Network], pool: false, usage: "{name | names, [registry], [path], [overwrite]}: write the items' files and those of their registryDependencies into the workspace (under path, default the first root); refuses existing files unless overwrite and targets outside the workspace; reports the npm dependencies to add. Runs no command." },
        AddCommand = "add_command" { reads: true, can: [], pool: false, usage: "{name | names, [registry]}: the CLI line that adds the items (npx shadcn@latest add ..., or the framework's port), for you to run." },
        SetFramework = "set_framework" { reads: false, can: [State], pool: false, usage: "{framework}: remember the workspace's framework (react, vue, svelte, solid, react-native)." },
        GetFramework = "get_framework" { reads: true, can: [], pool: false, usage: ": the workspace's framework (react unless set)." },
        Help = "help" { reads: true, can: [], pool: false, usage: ": this text." },
    }
}

/// Arguments of the `ui` tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct UiArgs {
    /// registries | list | search | view | install | add_command | set_framework | get_framework | help (also accepted: list_components = list, get_component = view).
    action: UiAction,
    /// The registry's name (default: the first configured).
    registry: Option<String>,
    /// view, install, add_command: an item name.
    #[serde(alias = "component")]
    name: Option<String>,
    /// install, add_command: item names.
    #[serde(alias = "components")]
    names: Option<Vec<String>>,
    /// search: text to look for in names, titles and descriptions.
    query: Option<String>,
    /// list, search: only items of this type (ui, block, hook, lib, ... or registry:ui).
    #[serde(rename = "type")]
    kind: Option<String>,
    /// list: items to skip (default 0).
    offset: Option<u64>,
    /// list, search: most items to show (default 100, at most 1000).
    limit: Option<u64>,
    /// install: the folder to install under, inside the roots (default: the first root).
    path: Option<String>,
    /// install: replace existing files (default false).
    overwrite: Option<bool>,
    /// set_framework: react, vue, svelte, solid or react-native.
    framework: Option<String>,
}

action_args!(UiArgs => UiAction);

const DESCRIPTION: &str = "UI components from registries in the shadcn format (Hanzo's and shadcn's built in): list, search, view an item with its files, install an item and its registry dependencies into the workspace (no shell; existing files kept unless overwrite; reports npm dependencies to add), the CLI add command, and the workspace's framework. Call with {\"action\":\"help\"} for every action's fields.";

impl ActionTool for UiTool {
    type Args = UiArgs;
    const NAME: &'static str = "ui";
    const TITLE: &'static str = "UI components";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const HINTS: Hints = Hints {
        read_only: false,
        destructive: false,
        idempotent: false,
        open_world: true,
    };
    const HELP_NOTES: &'static str = "Registries: HANZO_MCP_UI_REGISTRIES=name=URL,... (URL: the folder holding registry.json and <name>.json, or an item URL with {name}), else ui.json in the state folder, else Hanzo's (https://hanzo.ai/registry) and shadcn's. Answers are cached for 5 minutes. Requests to loopback, private and link-local addresses are refused unless the server runs with --fetch-allow-private (HANZO_MCP_FETCH_ALLOW_PRIVATE=1).";

    fn time_limit(&self) -> Option<Duration> {
        Some(CALL_TIMEOUT)
    }

    fn run_async<'a>(&'a self, args: UiArgs, ctx: ToolContext) -> ActionFuture<'a> {
        Box::pin(async move {
            let work = async {
                match args.action {
                    UiAction::Registries => Ok(self.registries()),
                    UiAction::List => self.list(&args).await,
                    UiAction::Search => self.search(&args).await,
                    UiAction::View => self.view(&args).await,
                    UiAction::Install => self.install(&args, &ctx).await,
                    UiAction::AddCommand => self.add_command(&args, &ctx),
                    UiAction::SetFramework => self.set_framework(&args, &ctx).await,
                    UiAction::GetFramework => Ok(self.get_framework(&ctx)),
                    UiAction::Help => unreachable!("the framework answers help"),
                }
            };
            tokio::select! {
                biased;
                () = ctx.cancel.cancelled() => Err("cancelled".to_owned()),
                done = tokio::time::timeout(CALL_TIMEOUT, work) => done.unwrap_or_else(|_| {
                    Err(format!("timed out after {} ms", CALL_TIMEOUT.as_millis()))
                }),
            }
        })
    }
}

local_tool!(UiTool);

impl UiTool {
    fn registry(&self, name: Option<&str>) -> Result<&Registry, String> {
        match name {
            None => self
                .config
                .registries
                .first()
                .ok_or_else(|| "no registry is configured".to_owned()),
            Some(name) => self
                .config
                .registries
                .iter()
                .find(|r| r.name == name)
                .ok_or_else(|| {
                    format!(
                        "no registry named '{name}' (configured: {})",
                        self.config
                            .registries
                            .iter()
                            .map(|r| r.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }),
        }
    }

    /// The names a call asks for (`name` and `names`), each checked.
    fn names(args: &UiArgs, action: &str) -> Result<Vec<String>, String> {
        let mut names: Vec<String> = args.name.iter().cloned().collect();
        names.extend(args.names.iter().flatten().cloned());
        if names.is_empty() {
            return Err(format!("{action}: missing field 'name' (or 'names')"));
        }
        for name in &names {
            let plain = name.rsplit_once('/').map_or(name.as_str(), |(ns, n)| {
                if ns.strip_prefix('@').is_some_and(valid_name) {
                    n
                } else {
                    ""
                }
            });
            if !valid_name(plain) {
                return Err(format!(
                    "{action}: '{}' is not an item name (letters, digits, '.', '_', '-'; optionally @registry/name)",
                    name.escape_debug()
                ));
            }
        }
        Ok(names)
    }

    /// The registry and plain name of `name` (`@registry/item` or `item`).
    fn locate<'a>(
        &'a self,
        name: &'a str,
        default: &'a Registry,
    ) -> Result<(&'a Registry, &'a str), String> {
        match name.strip_prefix('@').and_then(|n| n.split_once('/')) {
            Some((registry, item)) => Ok((self.registry(Some(registry))?, item)),
            None => Ok((default, name)),
        }
    }
}
