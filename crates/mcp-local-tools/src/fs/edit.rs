//! `fs` `write`, `edit`, `multi_edit`, `patch`.
//!
//! Changes are computed in memory first and written atomically (a temporary
//! file next to the target, then `rename`), so a failed edit or a failed
//! hunk leaves every file as it was.

use std::io::Read;

use mcp_proto::CallToolResult;

use super::{EditSpec, FsArgs};
use crate::context::ToolContext;
use crate::error::{PathError, PathErrorKind};
use crate::files::{unified_diff, write_atomic};
use crate::roots::Resolved;
use crate::safe::{self, OpenMode};
use crate::util::ToolResult;

/// Largest file the editing actions load (bytes).
const MAX_EDIT_BYTES: u64 = 16 * 1024 * 1024;

pub(super) fn write(args: &FsArgs, ctx: &ToolContext) -> ToolResult {
    let input = args.path()?;
    let content = args
        .content
        .as_deref()
        .ok_or("write: missing field 'content'")?;
    let resolved = ctx.roots.resolve(input).map_err(|e| e.to_string())?;
    if resolved.exists && resolved.path.is_dir() {
        return Err(PathError::new(input, PathErrorKind::IsADirectory).to_string());
    }
    write_atomic(&resolved, content.as_bytes()).map_err(|e| e.to_string())?;
    let verb = if resolved.exists {
        "replaced"
    } else {
        "created"
    };
    Ok(CallToolResult::text(format!(
        "{verb} {} ({} bytes)",
        ctx.roots.display(&resolved.path),
        content.len()
    )))
}

pub(super) fn edit(args: &FsArgs, ctx: &ToolContext) -> ToolResult {
    let spec = EditSpec {
        old_text: args
            .old_text
            .clone()
            .ok_or("edit: missing field 'old_text'")?,
        new_text: args
            .new_text
            .clone()
            .ok_or("edit: missing field 'new_text'")?,
        replace_all: args.replace_all.unwrap_or(false),
    };
    edit_file(args, ctx, std::slice::from_ref(&spec))
}

pub(super) fn multi_edit(args: &FsArgs, ctx: &ToolContext) -> ToolResult {
    let edits = args
        .edits
        .as_deref()
        .ok_or("multi_edit: missing field 'edits'")?;
    if edits.is_empty() {
        return Err("multi_edit: 'edits' is empty".to_owned());
    }
    edit_file(args, ctx, edits)
}

fn edit_file(args: &FsArgs, ctx: &ToolContext, edits: &[EditSpec]) -> ToolResult {
    let input = args.path()?;
    let resolved = ctx
        .roots
        .resolve_existing(input)
        .map_err(|e| e.to_string())?;
    let shown = ctx.roots.display(&resolved.path);
    let before = read_text(&resolved, input)?;
    let mut after = before.clone();
    let mut replacements = 0;
    for (i, spec) in edits.iter().enumerate() {
        let (next, count) = apply_edit(&after, spec).map_err(|e| {
            if edits.len() == 1 {
                format!("edit {shown}: {e}; file unchanged")
            } else {
                format!(
                    "edit {} of {} on {shown}: {e}; file unchanged",
                    i + 1,
                    edits.len()
                )
            }
        })?;
        after = next;
        replacements += count;
    }
    write_atomic(&resolved, after.as_bytes()).map_err(|e| e.to_string())?;
    let plural = if replacements == 1 { "" } else { "s" };
    let mut text = format!("edited {shown}: {replacements} replacement{plural}\n");
    text.push_str(&unified_diff(&before, &after, &shown));
    Ok(CallToolResult::text(text))
}

/// One edit on `content`: the new text and how many replacements.
fn apply_edit(content: &str, spec: &EditSpec) -> Result<(String, usize), String> {
    if spec.old_text.is_empty() {
        return Err("old_text is empty".to_owned());
    }
    if spec.old_text == spec.new_text {
        return Err("old_text and new_text are the same".to_owned());
    }
    let count = content.matches(spec.old_text.as_str()).count();
    match count {
        0 => Err("old_text not found".to_owned()),
        1 => Ok((content.replacen(&spec.old_text, &spec.new_text, 1), 1)),
        n if spec.replace_all => Ok((content.replace(&spec.old_text, &spec.new_text), n)),
        n => Err(format!(
            "old_text occurs {n} times; add context to make it unique or pass replace_all: true"
        )),
    }
}

/// One file's part of a unified diff.
struct FilePatch {
    target: String,
    text: String,
    added: usize,
    removed: usize,
    creates: bool,
}

pub(super) fn patch(args: &FsArgs, ctx: &ToolContext) -> ToolResult {
    let diff = args.diff.as_deref().ok_or("patch: missing field 'diff'")?;
    let files = split_diff(diff)?;
    if args.path.is_some() && files.len() > 1 {
        return Err(format!(
            "patch: the diff touches {} files; omit 'path' to use the paths in its headers",
            files.len()
        ));
    }
    let mut planned: Vec<(Resolved, String, &FilePatch)> = Vec::new();
    for file in &files {
        let input = args.path.as_deref().unwrap_or(&file.target);
        let resolved = ctx.roots.resolve(input).map_err(|e| e.to_string())?;
        let before = if file.creates && !resolved.exists {
            String::new()
        } else {
            read_text(&resolved, input)?
        };
        let parsed = diffy::Patch::from_str(&file.text)
            .map_err(|e| format!("patch: {input}: not a valid unified diff: {e}"))?;
        let after = diffy::apply(&before, &parsed)
            .map_err(|e| format!("patch: {input}: {e}; no file changed"))?;
        planned.push((resolved, after, file));
    }
    let mut text = String::new();
    for (resolved, after, file) in &planned {
        write_atomic(resolved, after.as_bytes()).map_err(|e| e.to_string())?;
        text.push_str(&format!(
            "patched {} (+{} -{})\n",
            ctx.roots.display(&resolved.path),
            file.added,
            file.removed
        ));
    }
    Ok(CallToolResult::text(text))
}

/// Splits a unified diff into one part per file (`--- ` then `+++ `),
/// dropping git's extended header lines.
fn split_diff(diff: &str) -> Result<Vec<FilePatch>, String> {
    let lines: Vec<&str> = diff.split_inclusive('\n').collect();
    let mut files: Vec<FilePatch> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let next = lines.get(i + 1).copied().unwrap_or("");
        if line.starts_with("--- ") && next.starts_with("+++ ") {
            let old = header_path(line);
            let new = header_path(next);
            let creates = old.is_none();
            let target = new
                .or(old)
                .ok_or("patch: a file header names /dev/null twice")?;
            files.push(FilePatch {
                target,
                text: format!("{line}{next}"),
                added: 0,
                removed: 0,
                creates,
            });
            i += 2;
            continue;
        }
        if let Some(file) = files.last_mut() {
            let git_header = [
                "diff ",
                "index ",
                "new file mode",
                "deleted file mode",
                "similarity ",
                "rename ",
                "old mode",
                "new mode",
            ]
            .iter()
            .any(|p| line.starts_with(p));
            if !git_header {
                if line.starts_with('+') {
                    file.added += 1;
                } else if line.starts_with('-') {
                    file.removed += 1;
                }
                file.text.push_str(line);
            }
        }
        i += 1;
    }
    if files.is_empty() {
        return Err("patch: no file header ('--- a/x' then '+++ b/x') in the diff".to_owned());
    }
    Ok(files)
}

/// The path in a `--- ` / `+++ ` header, without `a/` or `b/` and any
/// tab-separated timestamp; `None` for `/dev/null`.
fn header_path(line: &str) -> Option<String> {
    let rest = line[4..].trim_end_matches(['\n', '\r']);
    let rest = rest.split('\t').next().unwrap_or(rest).trim();
    if rest == "/dev/null" {
        return None;
    }
    let path = rest
        .strip_prefix("a/")
        .or_else(|| rest.strip_prefix("b/"))
        .unwrap_or(rest);
    Some(path.to_owned())
}

/// The file's content as UTF-8 text (refusing binary or huge files).
fn read_text(resolved: &Resolved, input: &str) -> Result<String, String> {
    let file = safe::open(resolved, OpenMode::Read).map_err(|e| e.to_string())?;
    let meta = file
        .metadata()
        .map_err(|e| format!("path '{input}': {e}"))?;
    if !meta.is_file() {
        return Err(format!("path '{input}': not a regular file"));
    }
    if meta.len() > MAX_EDIT_BYTES {
        return Err(format!(
            "path '{input}': {} bytes is larger than the {MAX_EDIT_BYTES}-byte edit limit",
            meta.len()
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_EDIT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("path '{input}': {e}"))?;
    if bytes.contains(&0) {
        return Err(format!("path '{input}': binary file, not edited"));
    }
    String::from_utf8(bytes).map_err(|_| format!("path '{input}': not UTF-8 text, not edited"))
}
