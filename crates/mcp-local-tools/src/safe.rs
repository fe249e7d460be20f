//! Opening resolved paths without following a symlink swapped in after the
//! check.
//!
//! On Linux every open re-walks the path from the root's directory handle
//! with `openat2(2)` and `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`: the path
//! was already canonical, so any symlink met now, or any step out of the
//! root, means it changed between check and use, and the kernel refuses it
//! ([`PathErrorKind::Changed`]). Directory creation, renames and removals go
//! through `mkdirat`/`renameat`/`unlinkat` on a parent handle opened the same
//! way. On kernels older than 5.6 (no `openat2`) opens fall back to
//! `open(O_NOFOLLOW)`, refusing a swapped last component only; on other
//! systems they are plain path opens. There a directory swapped for a
//! symlink in the window between resolve and open is the residual race.

// Which helpers a build uses depends on the tool features it enables.
#![cfg_attr(not(all(feature = "fs", feature = "code")), allow(dead_code))]

use std::fs::File;
use std::path::Path;

use crate::error::{PathError, PathErrorKind, kind_of_io};
use crate::roots::Resolved;

/// How to open a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpenMode {
    /// Read only.
    Read,
    /// Write, creating the file if missing and truncating it.
    WriteTruncate,
    /// Open a directory for reading its handle (parents of `*at` calls).
    Directory,
}

fn changed_or(path: &Path, e: &std::io::Error) -> PathError {
    let kind = match kind_of_io(e) {
        // A symlink under RESOLVE_NO_SYMLINKS, or a walk out of the root
        // under RESOLVE_BENEATH (EXDEV), means the path changed.
        PathErrorKind::SymlinkLoop => PathErrorKind::Changed,
        PathErrorKind::Io(_) if e.raw_os_error() == Some(18) => PathErrorKind::Changed,
        kind => kind,
    };
    PathError::new(path.to_string_lossy(), kind)
}

#[cfg(target_os = "linux")]
mod imp {
    use super::*;
    use rustix::fs::{Mode, OFlags, ResolveFlags};

    pub(crate) fn root_handle(root: &Path) -> std::io::Result<rustix::fd::OwnedFd> {
        rustix::fs::open(
            root,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(std::io::Error::from)
    }

    /// Opens `rel` (relative to `root`) beneath it, with no symlink anywhere.
    pub(crate) fn open_beneath(
        root: &Path,
        rel: &Path,
        mode: OpenMode,
    ) -> std::io::Result<rustix::fd::OwnedFd> {
        let dir = root_handle(root)?;
        open_beneath_fd(&dir, root, rel, mode)
    }

    /// Like [`open_beneath`] with the root's handle already open.
    pub(crate) fn open_beneath_fd(
        dir: &rustix::fd::OwnedFd,
        root: &Path,
        rel: &Path,
        mode: OpenMode,
    ) -> std::io::Result<rustix::fd::OwnedFd> {
        let rel = if rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            rel
        };
        let flags = OFlags::CLOEXEC
            | OFlags::NOFOLLOW
            | match mode {
                // NONBLOCK: opening a FIFO must not hang the tool.
                OpenMode::Read => OFlags::RDONLY | OFlags::NONBLOCK,
                OpenMode::WriteTruncate => OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC,
                OpenMode::Directory => OFlags::RDONLY | OFlags::DIRECTORY,
            };
        let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS;
        // openat2 refuses a mode without O_CREAT.
        let perm = if mode == OpenMode::WriteTruncate {
            Mode::from_raw_mode(0o644)
        } else {
            Mode::empty()
        };
        match rustix::fs::openat2(dir, rel, flags, perm, resolve) {
            Err(rustix::io::Errno::NOSYS) => rustix::fs::open(root.join(rel), flags, perm),
            other => other,
        }
        .map_err(std::io::Error::from)
    }
}

/// Refuses a change at `path` (inside `root`) when a component below the
/// root is named `.git` (in any case: some file systems fold it).
pub(crate) fn refuse_git_internals(root: &Path, path: &Path) -> Result<(), PathError> {
    let below = path.strip_prefix(root).unwrap_or(path);
    if below
        .components()
        .any(|c| c.as_os_str().eq_ignore_ascii_case(".git"))
    {
        return Err(PathError::new(
            path.to_string_lossy(),
            PathErrorKind::GitInternals,
        ));
    }
    Ok(())
}

/// Opens the resolved path (see the module docs for the race guarantees).
pub(crate) fn open(resolved: &Resolved, mode: OpenMode) -> Result<File, PathError> {
    open_at(&resolved.root, &resolved.path, mode)
}

/// Opens `path` (canonical, inside `root`).
pub(crate) fn open_at(root: &Path, path: &Path, mode: OpenMode) -> Result<File, PathError> {
    if mode == OpenMode::WriteTruncate {
        refuse_git_internals(root, path)?;
    }
    let rel = path
        .strip_prefix(root)
        .map_err(|_| PathError::new(path.to_string_lossy(), PathErrorKind::Changed))?;
    #[cfg(target_os = "linux")]
    {
        imp::open_beneath(root, rel, mode)
            .map(File::from)
            .map_err(|e| {
                let err = changed_or(path, &e);
                // Directories handed here were resolved as directories; one
                // that is no longer a directory (O_NOFOLLOW on a symlink
                // gives ENOTDIR) changed in between.
                if mode == OpenMode::Directory && err.kind == PathErrorKind::NotADirectory {
                    PathError::new(err.path, PathErrorKind::Changed)
                } else {
                    err
                }
            })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = rel;
        let mut options = std::fs::OpenOptions::new();
        match mode {
            OpenMode::Read | OpenMode::Directory => options.read(true),
            OpenMode::WriteTruncate => options.write(true).create(true).truncate(true),
        };
        options.open(path).map_err(|e| changed_or(path, &e))
    }
}

/// Creates one directory `name` inside the (resolved, existing) `parent`.
pub(crate) fn mkdir_in(
    root: &Path,
    parent: &Path,
    name: &std::ffi::OsStr,
) -> Result<(), PathError> {
    let target = parent.join(name);
    refuse_git_internals(root, &target)?;
    #[cfg(target_os = "linux")]
    {
        let dir = open_at(root, parent, OpenMode::Directory)?;
        rustix::fs::mkdirat(&dir, name, rustix::fs::Mode::from_raw_mode(0o755))
            .map_err(|e| changed_or(&target, &std::io::Error::from(e)))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = root;
        std::fs::create_dir(&target).map_err(|e| changed_or(&target, &e))
    }
}

/// Renames `from` to `to` (both canonical paths whose parents exist inside
/// `from_root` / `to_root`). Refuses to replace an existing `to` unless
/// `overwrite` (on Linux atomically, with `RENAME_NOREPLACE`).
pub(crate) fn rename(
    from_root: &Path,
    from: &Path,
    to_root: &Path,
    to: &Path,
    overwrite: bool,
) -> Result<(), PathError> {
    let (Some(from_parent), Some(from_name), Some(to_parent), Some(to_name)) =
        (from.parent(), from.file_name(), to.parent(), to.file_name())
    else {
        return Err(PathError::new(
            from.to_string_lossy(),
            PathErrorKind::Io("cannot move a root".to_owned()),
        ));
    };
    refuse_git_internals(from_root, from)?;
    refuse_git_internals(to_root, to)?;
    #[cfg(target_os = "linux")]
    {
        let from_dir = open_at(from_root, from_parent, OpenMode::Directory)?;
        let to_dir = open_at(to_root, to_parent, OpenMode::Directory)?;
        let flags = if overwrite {
            rustix::fs::RenameFlags::empty()
        } else {
            rustix::fs::RenameFlags::NOREPLACE
        };
        rustix::fs::renameat_with(&from_dir, from_name, &to_dir, to_name, flags)
            .map_err(|e| changed_or(to, &std::io::Error::from(e)))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (
            from_root,
            to_root,
            from_parent,
            from_name,
            to_parent,
            to_name,
        );
        if !overwrite && std::fs::symlink_metadata(to).is_ok() {
            return Err(PathError::new(
                to.to_string_lossy(),
                PathErrorKind::AlreadyExists,
            ));
        }
        std::fs::rename(from, to).map_err(|e| changed_or(to, &e))
    }
}

/// The parent and name of `path` (inside `root`) for a removal: refused
/// for a root (no parent) and inside a `.git` folder.
fn removable<'p>(
    root: &Path,
    path: &'p Path,
) -> Result<(&'p Path, &'p std::ffi::OsStr), PathError> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(PathError::new(
            path.to_string_lossy(),
            PathErrorKind::Io("cannot remove a root".to_owned()),
        ));
    };
    refuse_git_internals(root, path)?;
    Ok((parent, name))
}

/// Removes the file or symlink `path` (canonical parent, inside `root`)
/// from its parent's handle, never following a symlink.
pub(crate) fn remove_file(root: &Path, path: &Path) -> Result<(), PathError> {
    let (parent, name) = removable(root, path)?;
    #[cfg(target_os = "linux")]
    {
        let dir = open_at(root, parent, OpenMode::Directory)?;
        rustix::fs::unlinkat(&dir, name, rustix::fs::AtFlags::empty())
            .map_err(|e| changed_or(path, &std::io::Error::from(e)))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (root, parent, name);
        std::fs::remove_file(path).map_err(|e| changed_or(path, &e))
    }
}

/// Removes the directory `path` (canonical parent, inside `root`) and
/// everything in it. On Linux every step goes through directory handles:
/// the parent is opened beneath the root with no symlink on the way, each
/// directory is opened from its parent's handle with `O_NOFOLLOW`, and each
/// entry is removed with `unlinkat` on the handle of the directory it was
/// read from. A folder swapped for a symlink mid-way is never followed, so
/// nothing outside the root is removed. On other systems the standard
/// library's `remove_dir_all` (which resolves the parents by path).
pub(crate) fn remove_tree(root: &Path, path: &Path) -> Result<(), PathError> {
    let (parent, name) = removable(root, path)?;
    #[cfg(target_os = "linux")]
    {
        let changed = |e: rustix::io::Errno| changed_or(path, &std::io::Error::from(e));
        let parent_dir = open_at(root, parent, OpenMode::Directory)?;
        let dir = open_child_dir(&parent_dir, name).map_err(changed)?;
        empty_dir(&dir, 0).map_err(changed)?;
        rustix::fs::unlinkat(&parent_dir, name, rustix::fs::AtFlags::REMOVEDIR).map_err(changed)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (root, parent, name);
        std::fs::remove_dir_all(path).map_err(|e| changed_or(path, &e))
    }
}

/// The most nested folders [`remove_tree`] descends (one open handle each).
#[cfg(target_os = "linux")]
const MAX_REMOVE_DEPTH: usize = 256;

/// Opens the folder `name` of `parent` (a handle), never through a symlink.
#[cfg(target_os = "linux")]
fn open_child_dir<P: rustix::fd::AsFd, N: rustix::path::Arg>(
    parent: P,
    name: N,
) -> rustix::io::Result<rustix::fd::OwnedFd> {
    use rustix::fs::{Mode, OFlags};
    rustix::fs::openat(
        parent,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

/// Removes everything in the folder `dir` (a handle), depth first.
#[cfg(target_os = "linux")]
fn empty_dir(dir: &rustix::fd::OwnedFd, depth: usize) -> rustix::io::Result<()> {
    use rustix::fs::{AtFlags, FileType};
    if depth > MAX_REMOVE_DEPTH {
        return Err(rustix::io::Errno::NAMETOOLONG);
    }
    // Read the names first: removing while reading may skip entries.
    let mut entries: Vec<(std::ffi::CString, FileType)> = Vec::new();
    for entry in rustix::fs::Dir::read_from(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        if name.to_bytes() == b"." || name.to_bytes() == b".." {
            continue;
        }
        let kind = match entry.file_type() {
            FileType::Unknown => rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
                .map(|stat| FileType::from_raw_mode(stat.st_mode))?,
            kind => kind,
        };
        entries.push((name.to_owned(), kind));
    }
    for (name, kind) in entries {
        if kind == FileType::Directory {
            let child = open_child_dir(dir, name.as_c_str())?;
            empty_dir(&child, depth + 1)?;
            rustix::fs::unlinkat(dir, name.as_c_str(), AtFlags::REMOVEDIR)?;
        } else {
            rustix::fs::unlinkat(dir, name.as_c_str(), AtFlags::empty())?;
        }
    }
    Ok(())
}

/// A root's directory handle, opened once for many opens beneath it (the
/// search walk opens every file through one).
#[derive(Debug)]
pub(crate) struct RootHandle {
    root: std::path::PathBuf,
    #[cfg(target_os = "linux")]
    fd: rustix::fd::OwnedFd,
}

impl RootHandle {
    /// Opens the handle of `root` (canonical).
    pub(crate) fn open(root: &Path) -> Result<RootHandle, PathError> {
        #[cfg(target_os = "linux")]
        {
            let fd = imp::root_handle(root).map_err(|e| changed_or(root, &e))?;
            Ok(RootHandle {
                root: root.to_path_buf(),
                fd,
            })
        }
        #[cfg(not(target_os = "linux"))]
        Ok(RootHandle {
            root: root.to_path_buf(),
        })
    }

    /// Opens `path` (canonical, beneath the root) for reading, refusing any
    /// symlink on the way.
    pub(crate) fn open_read(&self, path: &Path) -> Result<File, PathError> {
        let rel = path
            .strip_prefix(&self.root)
            .map_err(|_| PathError::new(path.to_string_lossy(), PathErrorKind::Changed))?;
        #[cfg(target_os = "linux")]
        {
            imp::open_beneath_fd(&self.fd, &self.root, rel, OpenMode::Read)
                .map(File::from)
                .map_err(|e| changed_or(path, &e))
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = rel;
            open_at(&self.root, path, OpenMode::Read)
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    //! The check-then-use swap: a path is resolved (checked), then swapped
    //! for a symlink to outside the root before it is used. Each open must
    //! refuse with `Changed` and touch nothing outside.

    use super::*;
    use crate::roots::Roots;
    use std::os::unix::fs::symlink;

    struct Setup {
        _dir: tempfile::TempDir,
        base: std::path::PathBuf,
        roots: Roots,
    }

    fn setup() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(base.join("root/sub")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::fs::write(base.join("root/sub/a.txt"), "inside\n").unwrap();
        std::fs::write(base.join("outside/a.txt"), "SECRET\n").unwrap();
        let roots = Roots::new(vec![base.join("root")]).unwrap();
        Setup {
            _dir: dir,
            base,
            roots,
        }
    }

    /// Replaces `root/sub/a.txt` by a symlink to `outside/a.txt`.
    fn swap_file(s: &Setup) {
        std::fs::remove_file(s.base.join("root/sub/a.txt")).unwrap();
        symlink(s.base.join("outside/a.txt"), s.base.join("root/sub/a.txt")).unwrap();
    }

    /// Replaces the directory `root/sub` by a symlink to `outside`.
    fn swap_parent(s: &Setup) {
        std::fs::rename(s.base.join("root/sub"), s.base.join("root/sub_old")).unwrap();
        symlink(s.base.join("outside"), s.base.join("root/sub")).unwrap();
    }

    /// Resolves `path`, swaps with `swap`, then opens the resolved path
    /// with `mode`: refused as changed. Whether the path existed.
    fn swapped_open_refused(s: &Setup, path: &str, swap: fn(&Setup), mode: OpenMode) -> bool {
        let resolved = s.roots.resolve(path).unwrap();
        swap(s);
        let err = open(&resolved, mode).unwrap_err();
        assert_eq!(err.kind, PathErrorKind::Changed);
        resolved.exists
    }

    #[test]
    fn swap_race_read_file_swapped() {
        swapped_open_refused(&setup(), "sub/a.txt", swap_file, OpenMode::Read);
    }

    #[test]
    fn swap_race_read_parent_swapped() {
        swapped_open_refused(&setup(), "sub/a.txt", swap_parent, OpenMode::Read);
    }

    #[test]
    fn swap_race_write_file_swapped() {
        let s = setup();
        swapped_open_refused(&s, "sub/a.txt", swap_file, OpenMode::WriteTruncate);
        assert_eq!(
            std::fs::read_to_string(s.base.join("outside/a.txt")).unwrap(),
            "SECRET\n"
        );
    }

    #[test]
    fn swap_race_write_new_file_parent_swapped() {
        let s = setup();
        let existed = swapped_open_refused(&s, "sub/new.txt", swap_parent, OpenMode::WriteTruncate);
        assert!(!existed);
        assert!(!s.base.join("outside/new.txt").exists());
    }

    #[test]
    fn swap_race_search_walk_open() {
        let s = setup();
        let resolved = s.roots.resolve("sub/a.txt").unwrap();
        let handle = RootHandle::open(&resolved.root).unwrap();
        swap_parent(&s);
        let err = handle.open_read(&resolved.path).unwrap_err();
        assert_eq!(err.kind, PathErrorKind::Changed);
    }

    #[test]
    fn swap_race_rename_and_remove_refused() {
        let s = setup();
        let from = s.roots.resolve("sub/a.txt").unwrap();
        let to = s.roots.resolve("sub/b.txt").unwrap();
        swap_parent(&s);
        let err = rename(&from.root, &from.path, &to.root, &to.path, false).unwrap_err();
        assert_eq!(err.kind, PathErrorKind::Changed);
        let err = remove_file(&from.root, &from.path).unwrap_err();
        assert_eq!(err.kind, PathErrorKind::Changed);
        assert!(s.base.join("outside/a.txt").exists());
    }

    /// A folder removed with its contents: a parent swapped for a symlink
    /// after the check is refused, and a symlink inside the tree is
    /// removed, never followed. (The standard library's `remove_dir_all`
    /// resolves the parents by path: with `sub` swapped it removed
    /// `outside/tree`.)
    #[test]
    fn swap_race_remove_tree_refused_and_symlinks_not_followed() {
        let s = setup();
        let tree = s.base.join("root/sub/tree");
        std::fs::create_dir_all(tree.join("deep/er")).unwrap();
        std::fs::write(tree.join("deep/er/f"), "x").unwrap();
        symlink(s.base.join("outside"), tree.join("deep/link")).unwrap();
        std::fs::create_dir_all(s.base.join("outside/tree")).unwrap();
        let resolved = s.roots.resolve("sub/tree").unwrap();
        swap_parent(&s);
        let err = remove_tree(&resolved.root, &resolved.path).unwrap_err();
        assert_eq!(err.kind, PathErrorKind::Changed);
        assert!(s.base.join("outside/tree").is_dir());

        std::fs::remove_file(s.base.join("root/sub")).unwrap();
        std::fs::rename(s.base.join("root/sub_old"), s.base.join("root/sub")).unwrap();
        remove_tree(&resolved.root, &resolved.path).unwrap();
        assert!(!tree.exists());
        assert!(s.base.join("outside/a.txt").exists());
        assert!(s.base.join("outside/tree").is_dir());
    }
}
