//! The state folder: where the tools keep what outlives one call (job
//! output spools, the state database).
//!
//! `HANZO_MCP_STATE` when set, else the platform's data folder under
//! `hanzo-mcp/` (`$XDG_DATA_HOME/hanzo-mcp`, else
//! `~/.local/share/hanzo-mcp` on Linux; `~/Library/Application
//! Support/hanzo-mcp` on macOS), made absolute with its `..` components
//! applied ([`state_dir`]).

use std::path::{Component, Path, PathBuf};

use crate::roots::Roots;

/// The variable that names the state folder.
pub const STATE_VAR: &str = "HANZO_MCP_STATE";

/// The state folder (not created), as `applied_dot_dots` gives it: the
/// checks against the roots see the folder the system would use, not a
/// `root/new/../` that no path check can resolve. Errors when neither
/// `HANZO_MCP_STATE` nor a home folder is known.
pub fn state_dir() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os(STATE_VAR).filter(|d| !d.is_empty()) {
        return Ok(applied_dot_dots(Path::new(&dir)));
    }
    directories::BaseDirs::new()
        .map(|dirs| applied_dot_dots(&dirs.data_dir().join("hanzo-mcp")))
        .ok_or_else(|| format!("no state folder: set {STATE_VAR} (no home folder is known)"))
}

/// A folder of the server's own, as the system resolves it: canonical
/// once it exists, else where it will be through the folders that exist.
struct Own {
    dir: Option<PathBuf>,
    canonical: std::sync::OnceLock<PathBuf>,
}

impl Own {
    fn new(dir: Option<PathBuf>) -> Own {
        Own {
            dir,
            canonical: std::sync::OnceLock::new(),
        }
    }

    fn resolved(&self) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        if let Some(canonical) = self.canonical.get() {
            return Some(canonical.clone());
        }
        match std::fs::canonicalize(dir) {
            Ok(canonical) => Some(self.canonical.get_or_init(|| canonical).clone()),
            Err(_) => Some(crate::roots::resolve_missing(dir).unwrap_or_else(|_| dir.clone())),
        }
    }
}

/// The server's own folders, read once (at first use): the state folder
/// (`HANZO_MCP_STATE`, else the platform's), and `~/.hanzo`, where the
/// door's key may be (`config.json`). File tools never reach inside them
/// from a root that holds them ([`crate::PathErrorKind::StateFolder`]).
pub(crate) fn folders() -> Vec<PathBuf> {
    static OWN: std::sync::OnceLock<[Own; 2]> = std::sync::OnceLock::new();
    let own = OWN.get_or_init(|| {
        let hanzo = directories::BaseDirs::new().map(|dirs| dirs.home_dir().join(".hanzo"));
        [Own::new(state_dir().ok()), Own::new(hanzo)]
    });
    own.iter().filter_map(Own::resolved).collect()
}

/// Whether `path`, inside `root`, lies in one of the server's own
/// [`folders`] while that folder lies below `root` (a root that is such a
/// folder, or inside it, was chosen to work there).
pub(crate) fn shields(root: &Path, path: &Path) -> bool {
    folders()
        .iter()
        .any(|own| own != root && own.starts_with(root) && path.starts_with(own))
}

/// Whether `path`, inside `root`, is one of the server's own [`folders`]
/// below `root` or a folder that holds one, existing or not: what moving,
/// removing or replacing `path` would take away or plant.
#[cfg_attr(not(feature = "fs"), allow(dead_code))]
pub(crate) fn holds_own(root: &Path, path: &Path) -> bool {
    folders()
        .iter()
        .any(|own| own != root && own.starts_with(root) && own.starts_with(path))
}

/// `dir` made absolute (from the current folder) with its `..`
/// components applied as the system applies them: of the part up to the
/// last `..`, the longest prefix that exists is resolved (links
/// followed, so `link/..` is the folder above the link's target), and
/// what follows it, which does not exist yet and would be created as
/// plain folders, is applied by name (`new/..` is nothing). The part after
/// the last `..` is kept as written, so that a symlink there stays visible
/// to [`refuse_links_in_roots`].
fn applied_dot_dots(dir: &Path) -> PathBuf {
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let components: Vec<Component<'_>> = dir.components().collect();
    let Some(last) = components
        .iter()
        .rposition(|c| matches!(c, Component::ParentDir))
    else {
        return dir;
    };
    let (head, tail) = components.split_at(last + 1);
    let mut path = (0..=head.len())
        .rev()
        .find_map(|split| {
            let prefix: PathBuf = head[..split].iter().collect();
            let base = std::fs::canonicalize(&prefix).ok()?;
            Some(by_name(base, &head[split..]))
        })
        .unwrap_or_else(|| by_name(PathBuf::new(), head));
    path.extend(tail);
    path
}

/// `base` with `components` applied by name: `..` drops the last one.
fn by_name(mut base: PathBuf, components: &[Component<'_>]) -> PathBuf {
    for component in components {
        match component {
            Component::ParentDir => {
                base.pop();
            }
            Component::CurDir => {}
            other => base.push(other),
        }
    }
    base
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
/// leads to it (`refuse_links_in_roots`). A server does not read such a
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::applied_dot_dots;

    #[cfg(unix)]
    #[test]
    fn dot_dots_are_applied_as_the_system_applies_them() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(base.join("a/b")).unwrap();
        std::os::unix::fs::symlink(base.join("a/b"), base.join("link")).unwrap();
        std::os::unix::fs::symlink(base.join("a"), base.join("a/tail-link")).unwrap();
        let applied = |rel: &str| applied_dot_dots(&base.join(rel));
        // No `..`: as written.
        assert_eq!(applied("x/./y"), base.join("x/y"));
        // A missing folder and its `..`: nothing (it would be made plain).
        assert_eq!(applied("new/../"), base);
        assert_eq!(applied("new/../state"), base.join("state"));
        assert_eq!(applied("new/deeper/../../state"), base.join("state"));
        // Through a link: the folder above its target.
        assert_eq!(applied("link/../state"), base.join("a/state"));
        // Both: the existing prefix resolved, the missing rest by name.
        assert_eq!(applied("link/../new/../state"), base.join("a/state"));
        // After the last `..` nothing is resolved: the link stays.
        assert_eq!(
            applied("x/../a/tail-link/state"),
            base.join("a/tail-link/state")
        );
        // `..` above the top stays at the top.
        assert_eq!(
            applied_dot_dots(Path::new("/../..")),
            Path::new("/").to_path_buf()
        );
        // Relative: from the current folder.
        let here = std::fs::canonicalize(std::env::current_dir().unwrap()).unwrap();
        assert_eq!(
            applied_dot_dots(Path::new("no-such-folder/../state")),
            here.join("state")
        );
    }
}
