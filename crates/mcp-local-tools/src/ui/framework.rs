//! The workspace's UI framework, remembered per workspace, and the CLI
//! line that adds items with it (`add_command`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use mcp_proto::CallToolResult;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{FRAMEWORKS, UiTool, item_names, registry_name};
use crate::action::arguments;
use crate::context::ToolContext;
use crate::util::ToolResult;

arguments! {
    /// Arguments of `ui add_command`: `name` or `names`.
    pub(crate) struct AddCommandArgs {
        ..item_names,
        ..registry_name,
    }
}

/// Arguments of `ui set_framework`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SetFrameworkArgs {
    /// react, vue, svelte, solid or react-native.
    pub framework: String,
}

impl UiTool {
    pub(super) fn add_command(&self, args: &AddCommandArgs, ctx: &ToolContext) -> ToolResult {
        let names = Self::names(&args.name, &args.names, "add_command")?;
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

    /// The frameworks of every workspace (workspace folder to name). The
    /// file is not read through a symlink the agent could have made
    /// ([`crate::state::refuse_links_in_roots`]), nor when it is a symlink.
    fn load_frameworks(&self, ctx: &ToolContext) -> BTreeMap<String, String> {
        let mut map: BTreeMap<String, String> = self
            .frameworks_file()
            .filter(|f| {
                crate::state::refuse_links_in_roots("ui frameworks file", f, &ctx.roots).is_ok()
            })
            .and_then(|f| crate::state::read_no_follow(&f))
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
        self.load_frameworks(ctx)
            .remove(&workspace)
            .unwrap_or_else(|| "react".to_owned())
    }

    pub(super) async fn set_framework(
        &self,
        args: &SetFrameworkArgs,
        ctx: &ToolContext,
    ) -> ToolResult {
        let framework = args.framework.trim().to_ascii_lowercase();
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
            // No file changes between the check and the write.
            let _changes = crate::action::FILE_CHANGES.write().await;
            let mut map = self.load_frameworks(ctx);
            map.insert(workspace.clone(), framework.clone());
            let stored =
                crate::state::refuse_links_in_roots("ui frameworks file", &file, &ctx.roots)
                    .and_then(|()| store(&file, &map).map_err(|e| e.to_string()));
            if let Err(e) = stored {
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

    pub(super) fn get_framework(&self, ctx: &ToolContext) -> CallToolResult {
        let framework = self.framework(ctx);
        let mut result = CallToolResult::text(format!("{framework}\n"));
        result.structured_content = Some(json!({"framework": framework}));
        result
    }
}

/// Writes `map` as JSON to `file`: a new temporary file in its folder
/// (created exclusively, never through a symlink), then renamed over it,
/// both through the folder's handle.
fn store(file: &std::path::Path, map: &BTreeMap<String, String>) -> std::io::Result<()> {
    use rustix::fs::{Mode, OFlags};
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else {
        return Err(std::io::Error::other("no folder"));
    };
    std::fs::create_dir_all(dir)?;
    let folder = rustix::fs::open(
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let temp = format!(
        "frameworks.json.tmp-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let fd = rustix::fs::openat(
        &folder,
        temp.as_str(),
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )?;
    let written = std::io::Write::write_all(
        &mut std::fs::File::from(fd),
        &serde_json::to_vec_pretty(map)?,
    );
    let renamed = written.and_then(|()| {
        rustix::fs::renameat(&folder, temp.as_str(), &folder, name).map_err(std::io::Error::from)
    });
    if renamed.is_err() {
        let _ = rustix::fs::unlinkat(&folder, temp.as_str(), rustix::fs::AtFlags::empty());
    }
    renamed
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
