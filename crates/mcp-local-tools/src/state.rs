//! The state folder: where the tools keep what outlives one call (job
//! output spools, the state database).
//!
//! `HANZO_MCP_STATE` when set, else the platform's data folder under
//! `hanzo-mcp/` (`$XDG_DATA_HOME/hanzo-mcp`, else
//! `~/.local/share/hanzo-mcp` on Linux; `~/Library/Application
//! Support/hanzo-mcp` on macOS).

use std::path::{Path, PathBuf};

use crate::roots::Roots;

/// The variable that names the state folder.
pub const STATE_VAR: &str = "HANZO_MCP_STATE";

/// The state folder (not created). Errors when neither `HANZO_MCP_STATE`
/// nor a home folder is known.
pub fn state_dir() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os(STATE_VAR).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    directories::BaseDirs::new()
        .map(|dirs| dirs.data_dir().join("hanzo-mcp"))
        .ok_or_else(|| format!("no state folder: set {STATE_VAR} (no home folder is known)"))
}

/// Refuses `file` (a file of the state folder, `what` naming it) when it,
/// its folder, a folder above it, or its `-wal`, `-shm` or `-journal`
/// sibling is a symlink whose folder lies inside `roots`: with the state
/// folder inside a root (a home folder given as a root), the agent could
/// make one (with `git apply`, say) to have the server read, write or
/// create a file anywhere. Symlinks outside the roots (a home folder
/// reached through one) are the user's and followed.
///
/// # Errors
/// The refusal, naming the symlink and the way out.
#[cfg_attr(
    not(any(
        feature = "memory",
        feature = "plan",
        feature = "tasks",
        feature = "ui"
    )),
    allow(dead_code)
)]
pub(crate) fn refuse_links_in_roots(what: &str, file: &Path, roots: &Roots) -> Result<(), String> {
    let file = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    let mut candidates: Vec<PathBuf> = file.ancestors().map(Path::to_path_buf).collect();
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut name = file.as_os_str().to_owned();
        name.push(suffix);
        candidates.push(PathBuf::from(name));
    }
    for path in candidates {
        let is_link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
        let Some(folder) = path.parent().filter(|_| is_link) else {
            continue;
        };
        let folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
        if roots.root_of(&folder).is_some() {
            return Err(format!(
                "{what} {}: {} is a symlink inside the roots, which the agent could have \
                 pointed anywhere; refused (remove it, or set {STATE_VAR} to a folder outside \
                 the roots)",
                file.display(),
                path.display()
            ));
        }
    }
    Ok(())
}

/// Whether `file` (a file of the state folder) is one the agent may have
/// written or redirected: it lies inside `roots`, or a symlink inside them
/// leads to it ([`refuse_links_in_roots`]). A server does not read such a
/// file as its own settings unless told to.
pub fn reachable_by_agent(file: &Path, roots: &Roots) -> bool {
    if refuse_links_in_roots("file", file, roots).is_err() {
        return true;
    }
    let folder = file.parent().unwrap_or(file);
    let folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    roots.root_of(&folder).is_some()
}

/// The text of `file`, read without following a symlink at its last
/// component and without waiting on a FIFO; `None` when it is not a
/// regular file or cannot be read.
#[cfg_attr(not(feature = "ui"), allow(dead_code))]
pub(crate) fn read_no_follow(file: &Path) -> Option<String> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(
        file,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .ok()?;
    let mut file = std::fs::File::from(fd);
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    std::io::Read::read_to_string(&mut file, &mut text).ok()?;
    Some(text)
}
