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

use serde::Deserialize;

use crate::action::{ActionFuture, ActionTool, NoArgs, actions, field_groups, local_tool};
use crate::context::ToolContext;
use crate::net::{Http, NetPolicy};
use crate::util::{About, Hints};

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
    pub(crate) enum UiAction for UiCall {
        Registries(NoArgs) = "registries" { reads: true, can: [], pool: false, usage: "the configured registries (the first is the default)." },
        List(catalog::ListArgs) = "list" ["list_components"] { reads: true, can: [Network], pool: false, usage: "the registry's items: name, type, description (type: ui, block, hook, lib, ... or registry:ui; limit default 100)." },
        Search(catalog::SearchArgs) = "search" { reads: true, can: [Network], pool: false, usage: "items whose name, title or description contains query (any case), in one registry or all." },
        View(catalog::ViewArgs) = "view" ["get_component"] { reads: true, can: [Network], pool: false, usage: "the whole item as the registry sends it, files included (cut at 68 KiB)." },
        Install(install::InstallArgs) = "install" { reads: false, can: [WriteFiles, Network], pool: false, usage: "write the items' files (name or names) and those of their registryDependencies into the workspace (under path, default the first root); refuses existing files unless overwrite and targets outside the workspace; reports the npm dependencies to add. Runs no command." },
        AddCommand(framework::AddCommandArgs) = "add_command" { reads: true, can: [], pool: false, usage: "the CLI line that adds the items (name or names: npx shadcn@latest add ..., or the framework's port), for you to run." },
        SetFramework(framework::SetFrameworkArgs) = "set_framework" { reads: false, can: [State], pool: false, usage: "remember the workspace's framework (react, vue, svelte, solid, react-native)." },
        GetFramework(NoArgs) = "get_framework" { reads: true, can: [], pool: false, usage: "the workspace's framework (react unless set)." },
    }
}

field_groups! {
    /// The items `install` and `add_command` take: `name` or `names`.
    item_names {
        /// An item name (`item` or `@registry/item`; also accepted: component).
        #[serde(alias = "component")]
        pub name: Option<String>,
        /// Item names (also accepted: components).
        #[serde(alias = "components")]
        pub names: Option<Vec<String>>,
    }

    /// The one registry an action reads.
    registry_name {
        /// The registry's name (default: the first configured).
        pub registry: Option<String>,
    }

    /// The type `list` and `search` keep to.
    item_type {
        /// Only items of this type (ui, block, hook, lib, ... or registry:ui).
        #[serde(rename = "type")]
        pub kind: Option<String>,
    }
}
// The groups the submodules' argument structs splice in.
use item_names;
use item_type;
use registry_name;

const DESCRIPTION: &str = "UI components from registries in the shadcn format (Hanzo's and shadcn's built in): list, search, view an item with its files, install an item and its registry dependencies into the workspace (no shell; existing files kept unless overwrite; reports npm dependencies to add), the CLI add command, and the workspace's framework. Call with {\"action\":\"help\"} for every action's fields.";

impl ActionTool for UiTool {
    type Args = UiCall;
    const ABOUT: About = About::new("ui", "UI components", Hints::NETWORK, DESCRIPTION);
    const HELP_NOTES: &'static str = "Registries: HANZO_MCP_UI_REGISTRIES=name=URL,... (URL: the folder holding registry.json and <name>.json, or an item URL with {name}), else ui.json in the state folder, else Hanzo's (https://hanzo.ai/registry) and shadcn's. Answers are cached for 5 minutes. Requests to loopback, private and link-local addresses are refused unless the server runs with --fetch-allow-private (HANZO_MCP_FETCH_ALLOW_PRIVATE=1).";

    fn time_limit(&self) -> Option<Duration> {
        Some(CALL_TIMEOUT)
    }

    fn run_async<'a>(&'a self, call: UiCall, ctx: ToolContext) -> ActionFuture<'a> {
        Box::pin(async move {
            let work = async {
                match call {
                    UiCall::Registries(NoArgs {}) => Ok(self.registries()),
                    UiCall::List(args) => self.list(&args).await,
                    UiCall::Search(args) => self.search(&args).await,
                    UiCall::View(args) => self.view(&args).await,
                    UiCall::Install(args) => self.install(&args, &ctx).await,
                    UiCall::AddCommand(args) => self.add_command(&args, &ctx),
                    UiCall::SetFramework(args) => self.set_framework(&args, &ctx).await,
                    UiCall::GetFramework(NoArgs {}) => Ok(self.get_framework(&ctx)),
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

    /// The names a call asks for (`name` and `names`, at least one), each
    /// checked.
    fn names(
        name: &Option<String>,
        names: &Option<Vec<String>>,
        action: &str,
    ) -> Result<Vec<String>, String> {
        let mut all: Vec<String> = name.iter().cloned().collect();
        all.extend(names.iter().flatten().cloned());
        if all.is_empty() {
            return Err(format!("{action}: missing field 'name' (or 'names')"));
        }
        for name in &all {
            check_name(name, action)?;
        }
        Ok(all)
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

/// Refuses `name` unless it is an item name (`item` or `@registry/item`,
/// each part of letters, digits, `.`, `_`, `-`): it goes into URLs and
/// command lines.
fn check_name(name: &str, action: &str) -> Result<(), String> {
    let plain = name.rsplit_once('/').map_or(name, |(ns, n)| {
        if ns.strip_prefix('@').is_some_and(valid_name) {
            n
        } else {
            ""
        }
    });
    if valid_name(plain) {
        Ok(())
    } else {
        Err(format!(
            "{action}: '{}' is not an item name (letters, digits, '.', '_', '-'; optionally @registry/name)",
            name.escape_debug()
        ))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{Registry, UiConfig, UiTool};
    use crate::util::call_for_test;

    /// A root and a state folder, and the tool keeping its frameworks
    /// there (shadcn's registry the default).
    struct Setup {
        root: tempfile::TempDir,
        _state: tempfile::TempDir,
        tool: UiTool,
    }

    fn setup() -> Setup {
        let (root, state) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let tool = UiTool::with_config(UiConfig {
            registries: vec![Registry::shadcn(), Registry::hanzo()],
            state_dir: Some(state.path().to_path_buf()),
            ..UiConfig::default()
        });
        Setup {
            root,
            _state: state,
            tool,
        }
    }

    /// Calls `ui` with `args`: whether it failed, and its text. Every call
    /// here is answered without a request.
    async fn call(setup: &Setup, args: Value) -> (bool, String) {
        call_for_test(&setup.tool, setup.root.path(), args).await
    }

    #[tokio::test]
    async fn the_actions_own_checks_are_named_with_the_action() {
        let s = setup();
        for (args, text) in [
            (
                json!({"action": "search", "query": " "}),
                "search: 'query' is empty",
            ),
            (
                json!({"action": "install"}),
                "install: missing field 'name' (or 'names')",
            ),
            (
                json!({"action": "add_command", "names": []}),
                "add_command: missing field 'name' (or 'names')",
            ),
        ] {
            assert_eq!(call(&s, args).await, (true, text.to_owned()));
        }
    }

    #[tokio::test]
    async fn a_field_of_another_action_is_refused() {
        let s = setup();
        for (args, field) in [
            (json!({"action": "view", "names": ["button"]}), "names"),
            (
                json!({"action": "registries", "registry": "shadcn"}),
                "registry",
            ),
            (
                json!({"action": "search", "query": "x", "offset": 1}),
                "offset",
            ),
            (
                json!({"action": "get_framework", "framework": "vue"}),
                "framework",
            ),
        ] {
            let (err, text) = call(&s, args.clone()).await;
            assert!(
                err && text.contains(&format!("unknown field `{field}`")),
                "{args}: {text}"
            );
        }
    }

    #[tokio::test]
    async fn names_are_checked_before_any_request() {
        let s = setup();
        for args in [
            json!({"action": "view", "name": "$(id)"}),
            json!({"action": "get_component", "component": "../x"}),
            json!({"action": "install", "names": ["button", "-rf"]}),
            json!({"action": "add_command", "components": ["@shadcn/../x"]}),
        ] {
            let (err, text) = call(&s, args.clone()).await;
            assert!(
                err && text.contains("is not an item name"),
                "{args}: {text}"
            );
        }
    }

    #[tokio::test]
    async fn the_framework_is_kept_and_names_the_cli() {
        let s = setup();
        assert_eq!(
            call(
                &s,
                json!({"action": "add_command", "name": "button", "names": ["card"]})
            )
            .await,
            (false, "npx shadcn@latest add button card\n".to_owned())
        );
        let (err, text) = call(&s, json!({"action": "set_framework", "framework": " Vue "})).await;
        assert!(!err && text.ends_with(": vue\n"), "{text}");
        assert_eq!(
            call(&s, json!({"action": "get_framework"})).await,
            (false, "vue\n".to_owned())
        );
        assert_eq!(
            call(&s, json!({"action": "add_command", "component": "button"})).await,
            (false, "npx shadcn-vue@latest add button\n".to_owned())
        );
    }

    #[tokio::test]
    async fn help_lists_each_actions_fields() {
        let (err, text) = call(&setup(), json!({"action": "help"})).await;
        assert!(!err);
        assert!(text.contains("\nregistries: "), "{text}");
        assert!(text.contains("\nview {name, [registry]}: "), "{text}");
        assert!(
            text.contains("\ninstall {[name], [names], [overwrite], [path], [registry]}: "),
            "{text}"
        );
    }
}
