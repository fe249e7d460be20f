//! `fs` `list`, `info`, `mkdir`, `mv`, `rm`.

use std::time::UNIX_EPOCH;

use mcp_proto::CallToolResult;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{EntryPage, directory, entry_page, existing_dir, or_root, page_marker};
use crate::action::arguments;
use crate::context::ToolContext;
use crate::error::{PathError, PathErrorKind};
use crate::files::create_dirs;
use crate::roots::Resolved;
use crate::safe;
use crate::util::{Bounded, MAX_RESULT_BYTES, ToolResult};

arguments! {
    /// Arguments of `fs list`.
    pub(crate) struct ListArgs {
        ..directory,
        ..entry_page,
    }
}

/// Arguments of `fs info` and `fs mkdir`: one path.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PathArgs {
    /// File or directory, absolute or relative to the first root (also accepted: file_path).
    #[serde(alias = "file_path")]
    pub path: String,
}

/// Arguments of `fs mv`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MvArgs {
    /// What to move, absolute or relative to the first root (also accepted: file_path).
    #[serde(alias = "file_path")]
    pub path: String,
    /// The destination path.
    pub to: String,
    /// Replace an existing destination (default false).
    #[serde(default)]
    pub overwrite: bool,
}

/// Arguments of `fs rm`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RmArgs {
    /// What to remove, absolute or relative to the first root (also accepted: file_path).
    #[serde(alias = "file_path")]
    pub path: String,
    /// Remove a directory and everything in it (default false).
    #[serde(default)]
    pub recursive: bool,
}

pub(super) fn list(args: &ListArgs, ctx: &ToolContext) -> ToolResult {
    let input = or_root(&args.path);
    let resolved = existing_dir(input, ctx)?;
    let mut entries: Vec<(Vec<u8>, String)> = Vec::new();
    let reader =
        std::fs::read_dir(&resolved.path).map_err(|e| PathError::from_io(input, &e).to_string())?;
    for entry in reader {
        let entry = entry.map_err(|e| PathError::from_io(input, &e).to_string())?;
        let name = entry.file_name();
        let mut shown = name.to_string_lossy().into_owned();
        match entry.file_type() {
            Ok(t) if t.is_dir() => shown.push('/'),
            Ok(t) if t.is_symlink() => {
                let target = std::fs::read_link(entry.path())
                    .map(|t| t.to_string_lossy().into_owned())
                    .unwrap_or_default();
                shown.push_str(" -> ");
                shown.push_str(&target);
            }
            _ => {}
        }
        entries.push((name.as_encoded_bytes().to_vec(), shown));
    }
    entries.sort();
    let total = entries.len() as u64;
    let EntryPage { offset, limit, .. } = EntryPage::new(args.offset, args.limit);
    let mut out = Bounded::new(MAX_RESULT_BYTES);
    let mut last = offset;
    for (_, shown) in entries.iter().skip(offset as usize).take(limit as usize) {
        if !out.push_line(shown) {
            break;
        }
        last += 1;
    }
    let marker = if total == 0 {
        Some("[empty directory]".to_owned())
    } else if last < total {
        Some(page_marker("entries", offset, last, Some(total)))
    } else {
        None
    };
    Ok(CallToolResult::text(out.finish(marker)))
}

pub(super) fn info(input: &str, ctx: &ToolContext) -> ToolResult {
    let entry = ctx.roots.resolve_entry(input).map_err(|e| e.to_string())?;
    let meta = std::fs::symlink_metadata(&entry.path)
        .map_err(|e| PathError::from_io(input, &e).to_string())?;
    let kind = if meta.is_symlink() {
        let target = std::fs::read_link(&entry.path)
            .map(|t| t.to_string_lossy().into_owned())
            .unwrap_or_default();
        format!("symlink -> {target}")
    } else if meta.is_dir() {
        "directory".to_owned()
    } else if meta.is_file() {
        "file".to_owned()
    } else {
        "other".to_owned()
    };
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| crate::util::utc_timestamp(d.as_secs()))
        .unwrap_or_else(|| "unknown".to_owned());
    let mut text = format!(
        "path: {}\ntype: {kind}\nsize: {} bytes\nmodified: {modified}\n",
        ctx.roots.display(&entry.path),
        meta.len()
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        text.push_str(&format!(
            "permissions: {:o}\n",
            meta.permissions().mode() & 0o7777
        ));
    }
    #[cfg(not(unix))]
    text.push_str(&format!("readonly: {}\n", meta.permissions().readonly()));
    Ok(CallToolResult::text(text))
}

pub(super) fn mkdir(input: &str, ctx: &ToolContext) -> ToolResult {
    let resolved = ctx.roots.resolve(input).map_err(|e| e.to_string())?;
    let shown = ctx.roots.display(&resolved.path);
    if resolved.exists {
        return if resolved.path.is_dir() {
            Ok(CallToolResult::text(format!(
                "directory {shown} already exists"
            )))
        } else {
            Err(PathError::new(input, PathErrorKind::AlreadyExists).to_string())
        };
    }
    create_dirs(&resolved).map_err(|e| e.to_string())?;
    Ok(CallToolResult::text(format!("created directory {shown}")))
}

pub(super) fn mv(args: &MvArgs, ctx: &ToolContext) -> ToolResult {
    let (input, to_input) = (args.path.as_str(), args.to.as_str());
    let from = ctx.roots.resolve_entry(input).map_err(|e| e.to_string())?;
    if !from.exists {
        return Err(PathError::new(input, PathErrorKind::NotFound).to_string());
    }
    let to = ctx
        .roots
        .resolve_entry(to_input)
        .map_err(|e| e.to_string())?;
    if is_root(&from) || is_root(&to) {
        return Err(format!(
            "mv: cannot move a root ('{input}' -> '{to_input}')"
        ));
    }
    // Neither out of its place nor into it: a folder that holds the
    // server's own folders, or will.
    for (entry, named) in [(&from, input), (&to, to_input)] {
        if crate::state::holds_own(&entry.root, &entry.path) {
            return Err(PathError::new(named, PathErrorKind::HoldsStateFolder).to_string());
        }
    }
    let overwrite = args.overwrite;
    if to.exists && !overwrite {
        return Err(format!(
            "path '{to_input}': already exists (pass overwrite: true to replace it)"
        ));
    }
    if let Some(parent) = to.path.parent() {
        let parent = Resolved {
            path: parent.to_path_buf(),
            root: to.root.clone(),
            exists: parent.exists(),
        };
        create_dirs(&parent).map_err(|e| e.to_string())?;
    }
    safe::rename(&from.root, &from.path, &to.root, &to.path, overwrite).map_err(|e| {
        match e.kind {
            PathErrorKind::AlreadyExists => {
                format!("path '{to_input}': already exists (pass overwrite: true to replace it)")
            }
            _ => e.to_string(),
        }
    })?;
    Ok(CallToolResult::text(format!(
        "moved {} to {}",
        ctx.roots.display(&from.path),
        ctx.roots.display(&to.path)
    )))
}

pub(super) fn rm(args: &RmArgs, ctx: &ToolContext) -> ToolResult {
    let input = args.path.as_str();
    let entry = ctx.roots.resolve_entry(input).map_err(|e| e.to_string())?;
    if !entry.exists {
        return Err(PathError::new(input, PathErrorKind::NotFound).to_string());
    }
    if is_root(&entry) {
        return Err(format!(
            "path '{input}': is a root; roots cannot be removed"
        ));
    }
    if crate::state::holds_own(&entry.root, &entry.path) {
        return Err(PathError::new(input, PathErrorKind::HoldsStateFolder).to_string());
    }
    crate::safe::refuse_git_internals(&entry.root, &entry.path).map_err(|e| e.to_string())?;
    let shown = ctx.roots.display(&entry.path);
    let meta = std::fs::symlink_metadata(&entry.path)
        .map_err(|e| PathError::from_io(input, &e).to_string())?;
    if meta.is_dir() {
        if args.recursive {
            safe::remove_tree(&entry.root, &entry.path).map_err(|e| e.to_string())?;
            Ok(CallToolResult::text(format!(
                "removed directory {shown} and its contents"
            )))
        } else {
            Err(format!(
                "path '{input}': is a directory (pass recursive: true to remove it and its contents)"
            ))
        }
    } else {
        safe::remove_file(&entry.root, &entry.path).map_err(|e| e.to_string())?;
        Ok(CallToolResult::text(format!("removed {shown}")))
    }
}

fn is_root(resolved: &Resolved) -> bool {
    resolved.path == resolved.root
}
