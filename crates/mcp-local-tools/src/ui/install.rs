//! The `install` action: the items and their registry dependencies, where
//! their files land in the workspace, writing them there, and the report.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Component, Path};

use mcp_proto::CallToolResult;
use serde_json::json;

use super::registry::{Registry, valid_name};
use super::{MAX_INSTALL_ITEMS, UiTool, item_names, registry_name};
use crate::action::arguments;
use crate::context::ToolContext;
use crate::error::PathErrorKind;
use crate::roots::{Resolved, Roots};
use crate::ui::registry::Item;
use crate::util::ToolResult;

arguments! {
    /// Arguments of `ui install`: `name` or `names`.
    pub(crate) struct InstallArgs {
        ..item_names,
        ..registry_name,
        /// The folder to install under, inside the roots (default: the first root).
        pub path: Option<String>,
        /// Replace existing files (default false).
        #[serde(default)]
        pub overwrite: bool,
    }
}

impl UiTool {
    /// Writes the items named and their dependencies: every file is placed
    /// and checked before any is written.
    pub(super) async fn install(&self, args: &InstallArgs, ctx: &ToolContext) -> ToolResult {
        let names = Self::names(&args.name, &args.names, "install")?;
        let default = self.registry(args.registry.as_deref())?;
        let overwrite = args.overwrite;
        let base = args.path.clone().unwrap_or_else(|| ".".to_owned());
        let items = self.with_dependencies(&names, default).await?;
        let planned = plan(&ctx.roots, &base, files_of(&items)?, overwrite)?;
        let written =
            tokio::task::spawn_blocking(move || write(&planned, overwrite).map(|()| planned))
                .await
                .map_err(|e| format!("internal error: the install task failed ({e})"))??;
        Ok(install_result(&items, &written))
    }

    /// The items `names` and their `registryDependencies`, recursively,
    /// breadth first, each URL once; more than [`MAX_INSTALL_ITEMS`] is
    /// refused.
    async fn with_dependencies(
        &self,
        names: &[String],
        default: &Registry,
    ) -> Result<Vec<Item>, String> {
        let mut queue: VecDeque<(String, &Registry)> = VecDeque::new();
        for name in names {
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
        Ok(items)
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
}

/// The files of `items` by their place in the workspace (a later file at the
/// same place replaces an earlier one); a file sent without content refuses
/// the install.
fn files_of(items: &[Item]) -> Result<BTreeMap<String, String>, String> {
    let mut files = BTreeMap::new();
    for item in items {
        for entry in &item.files {
            let file = entry.file();
            let path = file.path.clone().unwrap_or_default();
            let place = place(item, &path, file.kind.as_deref(), file.target.as_deref())?;
            let content = file.content.ok_or_else(|| {
                format!(
                    "item '{}': file '{path}' comes without content; nothing was written",
                    item.name
                )
            })?;
            files.insert(place, content);
        }
    }
    Ok(files)
}

/// What `install` did: the items and files written, the npm packages to
/// add by hand, and the items whose CSS variables need adding.
fn install_result(items: &[Item], written: &[Planned]) -> CallToolResult {
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
    text.push_str(&npm_lines("dependencies", "", &dependencies));
    text.push_str(&npm_lines("devDependencies", " -D", &dev));
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

/// The lines about npm packages `set` (of kind `label`, added with `flag`):
/// the `npm install` line for the plain ones, and the odd names apart, to be
/// checked by hand rather than pasted into a shell.
fn npm_lines(label: &str, flag: &str, set: &BTreeSet<String>) -> String {
    let mut text = String::new();
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
    text
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

/// One file to write: where (as the caller will see it), resolved, and what.
#[derive(Debug)]
pub(crate) struct Planned {
    pub(crate) shown: String,
    pub(crate) target: Resolved,
    pub(crate) content: String,
}

/// The workspace-relative place of an item file: its `target` when given
/// (a leading `~/` is the project root, as the shadcn CLI reads it), else
/// by its type: `registry:ui` in `components/ui/`, `registry:hook` in
/// `hooks/`, `registry:lib` in `lib/`, other types in `components/`, each
/// under the file's own name. `registry:page` and `registry:file` need a
/// target.
pub(crate) fn place(
    item: &Item,
    path: &str,
    kind: Option<&str>,
    target: Option<&str>,
) -> Result<String, String> {
    if let Some(target) = target {
        let target = target.strip_prefix("~/").unwrap_or(target);
        checked_relative(&item.name, target)?;
        return Ok(target.to_owned());
    }
    let file_name = path
        .rsplit(['/', '\\'])
        .next()
        .filter(|n| !n.is_empty())
        .ok_or_else(|| format!("item '{}': a file has an empty path", item.name))?;
    let kind = kind.or(item.kind.as_deref()).unwrap_or("registry:ui");
    let folder = match kind {
        "registry:ui" => "components/ui",
        "registry:hook" => "hooks",
        "registry:lib" => "lib",
        "registry:page" | "registry:file" => {
            return Err(format!(
                "item '{}': file '{path}' of type {kind} has no target",
                item.name
            ));
        }
        _ => "components",
    };
    let place = format!("{folder}/{file_name}");
    checked_relative(&item.name, &place)?;
    Ok(place)
}

/// Refuses a place that could leave the workspace folder: absolute,
/// holding `..`, a NUL byte, a drive prefix or a backslash.
fn checked_relative(item: &str, place: &str) -> Result<(), String> {
    let leaves = place.is_empty()
        || place.contains(['\0', '\\'])
        || Path::new(place)
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
    if leaves {
        return Err(format!(
            "item '{item}': target '{}' would leave the workspace (only relative paths without '..' are written); nothing was written",
            place.escape_debug()
        ));
    }
    Ok(())
}

/// Resolves every planned place under `base` inside the roots, refusing
/// all of them if one exists and `overwrite` is off. `files` maps the
/// place to its content.
pub(crate) fn plan(
    roots: &Roots,
    base: &str,
    files: BTreeMap<String, String>,
    overwrite: bool,
) -> Result<Vec<Planned>, String> {
    let mut planned = Vec::new();
    let mut existing = Vec::new();
    for (place, content) in files {
        let joined = Path::new(base).join(&place);
        let joined = joined.to_string_lossy();
        let target = roots.resolve(&joined).map_err(|e| match e.kind {
            PathErrorKind::OutsideRoots(_) => format!("{e}; nothing was written"),
            _ => e.to_string(),
        })?;
        if target.path.is_dir() {
            return Err(format!(
                "path '{joined}': is a directory; nothing was written"
            ));
        }
        let shown = roots.display(&target.path);
        if target.exists {
            existing.push(shown.clone());
        }
        planned.push(Planned {
            shown,
            target,
            content,
        });
    }
    if !existing.is_empty() && !overwrite {
        return Err(format!(
            "refused: {} already exist{} (pass overwrite: true to replace); nothing was written",
            existing.join(", "),
            if existing.len() == 1 { "s" } else { "" }
        ));
    }
    Ok(planned)
}

/// Writes the planned files (each atomically, through the no-follow
/// opener); an existing file is replaced only when `overwrite`.
pub(crate) fn write(planned: &[Planned], overwrite: bool) -> Result<(), String> {
    for file in planned {
        crate::files::write_file(&file.target, file.content.as_bytes(), overwrite).map_err(
            |e| match e.kind {
                PathErrorKind::AlreadyExists => format!(
                    "{}: appeared while installing (pass overwrite: true to replace)",
                    file.shown
                ),
                _ => e.to_string(),
            },
        )?;
    }
    Ok(())
}
