//! The workspace's UI framework, remembered per workspace, and the CLI
//! line that adds items with it (`add_command`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use mcp_proto::CallToolResult;
use serde_json::json;

use super::{FRAMEWORKS, UiArgs, UiTool};
use crate::context::ToolContext;
use crate::util::ToolResult;

impl UiTool {
    pub(super) fn add_command(&self, args: &UiArgs, ctx: &ToolContext) -> ToolResult {
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

    pub(super) fn set_framework(&self, args: &UiArgs, ctx: &ToolContext) -> ToolResult {
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

    pub(super) fn get_framework(&self, ctx: &ToolContext) -> CallToolResult {
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
