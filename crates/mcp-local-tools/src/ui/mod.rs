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

mod install;
pub mod registry;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_proto::CallToolResult;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::action::{ActionFuture, ActionTool, action_args, actions, local_tool};
use crate::context::ToolContext;
use crate::net::{Http, NetPolicy};
use crate::util::{Hints, ToolResult, page_marker};

pub use registry::Registry;
use registry::{Item, RegistryClient, valid_name};

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
    pub fn from_env() -> UiConfig {
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
        } else if let Ok(dir) = crate::state::state_dir() {
            let file = dir.join("ui.json");
            if let Ok(text) = std::fs::read_to_string(&file) {
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
        }
        config
    }
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
        Registries = "registries" { reads: true, pool: false, usage: ": the configured registries (the first is the default)." },
        List = "list" ["list_components"] { reads: true, pool: false, usage: "{[registry], [type], [offset], [limit]}: the registry's items: name, type, description (type: ui, block, hook, lib, ... or registry:ui; limit default 100)." },
        Search = "search" { reads: true, pool: false, usage: "{query, [registry], [type], [limit]}: items whose name, title or description contains query (any case), in one registry or all." },
        View = "view" ["get_component"] { reads: true, pool: false, usage: "{name, [registry]}: the whole item as the registry sends it, files included (cut at 256 KiB)." },
        Install = "install" { reads: false, pool: false, usage: "{name | names, [registry], [path], [overwrite]}: write the items' files and those of their registryDependencies into the workspace (under path, default the first root); refuses existing files unless overwrite and targets outside the workspace; reports the npm dependencies to add. Runs no command." },
        AddCommand = "add_command" { reads: true, pool: false, usage: "{name | names, [registry]}: the CLI line that adds the items (npx shadcn@latest add ..., or the framework's port), for you to run." },
        SetFramework = "set_framework" { reads: false, pool: false, usage: "{framework}: remember the workspace's framework (react, vue, svelte, solid, react-native)." },
        GetFramework = "get_framework" { reads: true, pool: false, usage: ": the workspace's framework (react unless set)." },
        Help = "help" { reads: true, pool: false, usage: ": this text." },
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
                    UiAction::SetFramework => self.set_framework(&args, &ctx),
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

/// `registry:ui` for `ui`, the name itself when it has a `:`.
fn full_kind(kind: &str) -> String {
    if kind.contains(':') {
        kind.to_owned()
    } else {
        format!("registry:{kind}")
    }
}

/// `name · type · description` (the parts present).
fn item_line(registry: Option<&str>, item: &Item) -> String {
    let mut line = match registry {
        Some(r) => format!("{r}/{}", item.name),
        None => item.name.clone(),
    };
    if let Some(kind) = &item.kind {
        line.push_str(&format!(" · {kind}"));
    }
    if let Some(text) = item.description.as_ref().or(item.title.as_ref()) {
        line.push_str(&format!(" · {}", text.replace('\n', " ")));
    }
    line
}

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

    fn registries(&self) -> CallToolResult {
        let mut text = String::new();
        for (i, r) in self.config.registries.iter().enumerate() {
            text.push_str(&format!(
                "{}{}: index {} · items {}\n",
                r.name,
                if i == 0 { " (default)" } else { "" },
                r.index_url,
                r.item_url
            ));
        }
        let mut result = CallToolResult::text(text);
        result.structured_content = Some(json!({ "registries": self.config.registries }));
        result
    }

    async fn list(&self, args: &UiArgs) -> ToolResult {
        let registry = self.registry(args.registry.as_deref())?;
        let kind = args.kind.as_deref().map(full_kind);
        let items: Vec<Item> = self
            .client
            .index(registry)
            .await?
            .into_iter()
            .filter(|i| kind.is_none() || i.kind == kind)
            .collect();
        let offset = args.offset.unwrap_or(0) as usize;
        let limit = args.limit.unwrap_or(100).clamp(1, 1000) as usize;
        let shown: Vec<&Item> = items.iter().skip(offset).take(limit).collect();
        let mut text = format!(
            "{} item{} in {}{}\n",
            items.len(),
            if items.len() == 1 { "" } else { "s" },
            registry.name,
            kind.as_deref()
                .map(|k| format!(" of type {k}"))
                .unwrap_or_default()
        );
        for item in &shown {
            text.push_str(&item_line(None, item));
            text.push('\n');
        }
        let end = offset + shown.len();
        if end < items.len() {
            text.push_str(&page_marker(
                "items",
                offset as u64,
                end as u64,
                Some(items.len() as u64),
            ));
            text.push('\n');
        }
        let mut result = CallToolResult::text(text);
        result.structured_content = Some(json!({
            "registry": registry.name,
            "total": items.len(),
            "items": shown.iter().map(|i| json!({"name": i.name, "type": i.kind, "title": i.title, "description": i.description})).collect::<Vec<_>>(),
        }));
        Ok(result)
    }

    async fn search(&self, args: &UiArgs) -> ToolResult {
        let query = args
            .query
            .as_deref()
            .map(str::trim)
            .filter(|q| !q.is_empty())
            .ok_or("search: missing field 'query'")?
            .to_lowercase();
        let kind = args.kind.as_deref().map(full_kind);
        let limit = args.limit.unwrap_or(100).clamp(1, 1000) as usize;
        let registries: Vec<&Registry> = match args.registry.as_deref() {
            Some(name) => vec![self.registry(Some(name))?],
            None => self.config.registries.iter().collect(),
        };
        let mut found = Vec::new();
        let mut failed = Vec::new();
        for registry in &registries {
            match self.client.index(registry).await {
                Ok(items) => {
                    for item in items {
                        let hit = [
                            Some(&item.name),
                            item.title.as_ref(),
                            item.description.as_ref(),
                        ]
                        .into_iter()
                        .flatten()
                        .any(|t| t.to_lowercase().contains(&query));
                        if hit && (kind.is_none() || item.kind == kind) {
                            found.push((registry.name.clone(), item));
                        }
                    }
                }
                Err(e) if registries.len() > 1 => failed.push(format!("{}: {e}", registry.name)),
                Err(e) => return Err(e),
            }
        }
        if found.is_empty() && failed.len() == registries.len() {
            return Err(format!("no registry answered: {}", failed.join("; ")));
        }
        let mut text = format!(
            "{} match{} for '{query}'\n",
            found.len(),
            if found.len() == 1 { "" } else { "es" }
        );
        for (registry, item) in found.iter().take(limit) {
            text.push_str(&item_line(Some(registry), item));
            text.push('\n');
        }
        if found.len() > limit {
            text.push_str(&format!(
                "[{limit} of {} shown; narrow the query or raise limit]\n",
                found.len()
            ));
        }
        for failure in &failed {
            text.push_str(&format!("[not searched: {failure}]\n"));
        }
        let mut result = CallToolResult::text(text);
        result.structured_content = Some(json!({
            "matches": found.iter().take(limit).map(|(r, i)| json!({"registry": r, "name": i.name, "type": i.kind, "title": i.title, "description": i.description})).collect::<Vec<_>>(),
            "total": found.len(),
        }));
        Ok(result)
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

    async fn view(&self, args: &UiArgs) -> ToolResult {
        let names = Self::names(args, "view")?;
        let [name] = names.as_slice() else {
            return Err("view: one item at a time".to_owned());
        };
        let default = self.registry(args.registry.as_deref())?;
        let (registry, plain) = self.locate(name, default)?;
        let url = registry.item(plain);
        let (item, raw) = self.client.item(&url).await?;
        let mut text = format!(
            "{} from {} ({url})\n",
            item_line(None, &item),
            registry.name
        );
        let pretty = serde_json::to_string_pretty(&*raw).map_err(|e| e.to_string())?;
        // The structured copy is kept only when the text holds it whole
        // (the text itself is cut at the tool's result cap).
        let whole = pretty.len() + text.len() < <UiTool as ActionTool>::RESULT_CAP;
        text.push_str(&pretty);
        text.push('\n');
        let mut result = CallToolResult::text(text);
        result.structured_content = Some(json!({
            "registry": registry.name,
            "url": url,
            "item": if whole { (*raw).clone() } else { serde_json::Value::Null },
        }));
        Ok(result)
    }

    async fn install(&self, args: &UiArgs, ctx: &ToolContext) -> ToolResult {
        let names = Self::names(args, "install")?;
        let default = self.registry(args.registry.as_deref())?;
        let overwrite = args.overwrite == Some(true);
        let base = args.path.clone().unwrap_or_else(|| ".".to_owned());
        // Breadth-first over the items and their registryDependencies.
        let mut queue: std::collections::VecDeque<(String, &Registry)> = Default::default();
        for name in &names {
            let (registry, plain) = self.locate(name, default)?;
            queue.push_back((registry.item(plain), registry));
        }
        let mut seen = BTreeSet::new();
        let mut items: Vec<Item> = Vec::new();
        while let Some((url, registry)) = queue.pop_front() {
            if !seen.insert(url.clone()) {
                continue;
            }
            if items.len() == MAX_INSTALL_ITEMS {
                return Err(format!(
                    "install: more than {MAX_INSTALL_ITEMS} items with dependencies; nothing was written"
                ));
            }
            let (item, _) = self.client.item(&url).await?;
            for dependency in &item.registry_dependencies {
                queue.push_back(self.dependency(&item.name, dependency, registry)?);
            }
            items.push(item);
        }
        let mut files = BTreeMap::new();
        for item in &items {
            for entry in &item.files {
                let file = entry.file();
                let path = file.path.clone().unwrap_or_default();
                let place =
                    install::place(item, &path, file.kind.as_deref(), file.target.as_deref())?;
                let content = file.content.ok_or_else(|| {
                    format!(
                        "item '{}': file '{path}' comes without content; nothing was written",
                        item.name
                    )
                })?;
                files.insert(place, content);
            }
        }
        let planned = install::plan(&ctx.roots, &base, files, overwrite)?;
        let to_write = planned;
        let written = tokio::task::spawn_blocking(move || {
            install::write(&to_write, overwrite).map(|()| to_write)
        })
        .await
        .map_err(|e| format!("internal error: the install task failed ({e})"))??;
        Ok(install_result(&items, &written))
    }

    /// The item URL a `registryDependencies` entry names, and the registry
    /// its own plain-name dependencies are read from: a plain name in the
    /// item's own registry, `@registry/name`, or an http(s) URL.
    fn dependency<'a>(
        &'a self,
        item: &str,
        dependency: &str,
        registry: &'a Registry,
    ) -> Result<(String, &'a Registry), String> {
        if dependency.starts_with("http://") || dependency.starts_with("https://") {
            crate::net::parse_url(dependency)?;
            return Ok((dependency.to_owned(), registry));
        }
        if let Some((ns, name)) = dependency.strip_prefix('@').and_then(|d| d.split_once('/'))
            && valid_name(ns)
            && valid_name(name)
        {
            let named = self.registry(Some(ns))?;
            return Ok((named.item(name), named));
        }
        if valid_name(dependency) {
            return Ok((registry.item(dependency), registry));
        }
        Err(format!(
            "item '{item}': registry dependency '{}' is neither a name nor an http(s) URL; nothing was written",
            dependency.escape_debug()
        ))
    }

    fn add_command(&self, args: &UiArgs, ctx: &ToolContext) -> ToolResult {
        let names = Self::names(args, "add_command")?;
        let default = self.registry(args.registry.as_deref())?;
        let cli = match self.framework(ctx).as_str() {
            "vue" => "shadcn-vue",
            "svelte" => "shadcn-svelte",
            _ => "shadcn",
        };
        let mut line = format!("npx {cli}@latest add");
        for name in &names {
            let (registry, plain) = self.locate(name, default)?;
            line.push(' ');
            if registry.name == "shadcn" {
                line.push_str(plain);
            } else {
                line.push_str(&shell_word(&registry.item(plain)));
            }
        }
        let mut result = CallToolResult::text(format!("{line}\n"));
        result.structured_content = Some(json!({"command": line}));
        Ok(result)
    }

    /// Where the frameworks are kept: `ui/frameworks.json` in the state
    /// folder, if there is one.
    fn frameworks_file(&self) -> Option<PathBuf> {
        let dir = match &self.config.state_dir {
            Some(dir) => dir.clone(),
            None => crate::state::state_dir().ok()?,
        };
        Some(dir.join("ui").join("frameworks.json"))
    }

    /// The frameworks of every workspace (workspace folder to name).
    fn load_frameworks(&self) -> BTreeMap<String, String> {
        let mut map: BTreeMap<String, String> = self
            .frameworks_file()
            .and_then(|f| std::fs::read_to_string(f).ok())
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        if let Ok(memory) = self.frameworks.lock() {
            for (k, v) in memory.iter() {
                map.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        map
    }

    fn framework(&self, ctx: &ToolContext) -> String {
        let workspace = ctx.roots.primary().to_string_lossy().into_owned();
        self.load_frameworks()
            .remove(&workspace)
            .unwrap_or_else(|| "react".to_owned())
    }

    fn set_framework(&self, args: &UiArgs, ctx: &ToolContext) -> ToolResult {
        let framework = args
            .framework
            .as_deref()
            .ok_or("set_framework: missing field 'framework'")?
            .trim()
            .to_ascii_lowercase();
        if !FRAMEWORKS.contains(&framework.as_str()) {
            return Err(format!(
                "framework '{framework}' is not known ({})",
                FRAMEWORKS.join(", ")
            ));
        }
        let workspace = ctx.roots.primary().to_string_lossy().into_owned();
        if let Ok(mut memory) = self.frameworks.lock() {
            memory.insert(workspace.clone(), framework.clone());
        }
        let mut note = String::new();
        if let Some(file) = self.frameworks_file() {
            let mut map = self.load_frameworks();
            map.insert(workspace.clone(), framework.clone());
            if let Err(e) = store(&file, &map) {
                note = format!(
                    " (kept for this server only: cannot write {}: {e})",
                    file.display()
                );
            }
        }
        Ok(CallToolResult::text(format!(
            "framework for {workspace}: {framework}{note}\n"
        )))
    }

    fn get_framework(&self, ctx: &ToolContext) -> CallToolResult {
        let framework = self.framework(ctx);
        let mut result = CallToolResult::text(format!("{framework}\n"));
        result.structured_content = Some(json!({"framework": framework}));
        result
    }
}

/// Writes `map` as JSON to `file` (temporary sibling, then rename).
fn store(file: &std::path::Path, map: &BTreeMap<String, String>) -> std::io::Result<()> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let temp = file.with_extension(format!("json.tmp-{}", std::process::id()));
    std::fs::write(&temp, serde_json::to_vec_pretty(map)?)?;
    std::fs::rename(&temp, file)
}

/// `text` as one shell word: as is when plain, else single-quoted.
fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./:=,+@%-".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// True for an npm dependency as registries write them (`name`,
/// `@scope/name`, either with `@version`): safe to show in a command.
fn npm_spec(spec: &str) -> bool {
    !spec.is_empty()
        && !spec.starts_with('-')
        && spec.len() <= 214
        && spec
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "@/._~^-+<>=*".contains(c))
}

fn install_result(items: &[Item], written: &[install::Planned]) -> CallToolResult {
    let mut text = format!(
        "installed {}\n",
        items
            .iter()
            .map(|i| match &i.kind {
                Some(kind) => format!("{} ({kind})", i.name),
                None => i.name.clone(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    for file in written {
        text.push_str(&format!("  wrote {}\n", file.shown));
    }
    let collect = |pick: fn(&Item) -> &Vec<String>| {
        items
            .iter()
            .flat_map(|i| pick(i).iter().cloned())
            .collect::<BTreeSet<String>>()
    };
    let dependencies = collect(|i| &i.dependencies);
    let dev = collect(|i| &i.dev_dependencies);
    for (label, flag, set) in [
        ("dependencies", "", &dependencies),
        ("devDependencies", " -D", &dev),
    ] {
        if set.is_empty() {
            continue;
        }
        let (plain, odd): (Vec<&String>, Vec<&String>) = set.iter().partition(|s| npm_spec(s));
        if !plain.is_empty() {
            text.push_str(&format!(
                "npm {label} to add (not installed): npm install{flag} {}\n",
                plain
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
        if !odd.is_empty() {
            text.push_str(&format!(
                "unusual {label} named by the registry (check them by hand): {}\n",
                odd.iter()
                    .map(|s| format!("{s:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    let with_css: Vec<&str> = items
        .iter()
        .filter(|i| i.css_vars.as_ref().is_some_and(|v| !v.is_null()))
        .map(|i| i.name.as_str())
        .collect();
    if !with_css.is_empty() {
        text.push_str(&format!(
            "cssVars to add to your global CSS by hand (see view): {}\n",
            with_css.join(", ")
        ));
    }
    let mut result = CallToolResult::text(text);
    result.structured_content = Some(json!({
        "items": items.iter().map(|i| i.name.clone()).collect::<Vec<_>>(),
        "files": written.iter().map(|f| f.shown.clone()).collect::<Vec<_>>(),
        "dependencies": dependencies,
        "devDependencies": dev,
    }));
    result
}
