//! Where an item's files land in the workspace, and writing them there.

use std::collections::BTreeMap;
use std::path::{Component, Path};

use crate::error::PathErrorKind;
use crate::roots::{Resolved, Roots};
use crate::ui::registry::Item;

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
