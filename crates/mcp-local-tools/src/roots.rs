//! Roots and path resolution: the security core.
//!
//! Every path a tool touches goes through [`Roots::resolve`]: relative paths
//! are joined to the first root, `..` and every symlink are resolved by the
//! operating system (`realpath`), and the result must lie inside a root by
//! path components (`/x/root_evil` is not inside `/x/root`). For a path that
//! does not exist yet, its nearest existing ancestor is resolved and the
//! missing tail may hold neither `..` nor a dangling symlink. Names are
//! compared as bytes, never Unicode-normalised: on Linux the NFC and NFD
//! spellings of a name are two different files, and a root spelled one way
//! does not contain a sibling spelled the other way.
//!
//! Opening (the crate's `safe` module) then re-walks the resolved path from the
//! root's directory handle with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`
//! on Linux, so a component swapped for a symlink between the check and the
//! use is refused by the kernel. Source: docs/ARCHITECTURE.md, "Local tools".

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, PathError, PathErrorKind, kind_of_io};

/// The directories tools may touch. Cheap to clone (`Arc`).
///
/// Built from `--root DIR` flags, the client's MCP roots (`roots/list`,
/// MCP 2025-11-25 client/roots) or the working directory; each root is
/// canonicalised once, here.
#[derive(Clone, Debug)]
pub struct Roots {
    dirs: Arc<[PathBuf]>,
}

/// A path that passed [`Roots::resolve`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The canonical absolute path (symlinks resolved; for a missing path,
    /// its canonical existing ancestor plus the missing tail).
    pub path: PathBuf,
    /// The canonical root that contains it.
    pub root: PathBuf,
    /// Whether something existed at the path when it was resolved.
    pub exists: bool,
}

impl Resolved {
    /// The path relative to its root (empty for the root itself).
    pub fn relative(&self) -> &Path {
        self.path.strip_prefix(&self.root).unwrap_or(Path::new(""))
    }
}

impl Roots {
    /// Canonicalises each directory and keeps those distinct, in order.
    ///
    /// Errors: [`Error::NoRoots`] for an empty list, [`Error::BadRoot`] for a
    /// root that does not resolve or is not a directory.
    pub fn new(dirs: Vec<PathBuf>) -> Result<Roots, Error> {
        if dirs.is_empty() {
            return Err(Error::NoRoots);
        }
        let mut out: Vec<PathBuf> = Vec::with_capacity(dirs.len());
        for dir in dirs {
            let canonical = std::fs::canonicalize(&dir).map_err(|e| Error::BadRoot {
                root: dir.clone(),
                reason: e.to_string(),
            })?;
            if !canonical.is_dir() {
                return Err(Error::BadRoot {
                    root: dir,
                    reason: "not a directory".to_owned(),
                });
            }
            if !out.contains(&canonical) {
                out.push(canonical);
            }
        }
        Ok(Roots { dirs: out.into() })
    }

    /// Roots from MCP client roots (`roots/list`, MCP 2025-11-25
    /// client/roots): `file://` URIs, percent-decoded. A URI that is not
    /// `file://` (or names a host other than `localhost`) is refused with
    /// [`Error::BadRoot`]; then as [`Roots::new`].
    pub fn from_file_uris<S: AsRef<str>>(uris: &[S]) -> Result<Roots, Error> {
        let mut dirs = Vec::with_capacity(uris.len());
        for uri in uris {
            let uri = uri.as_ref();
            let bad = |reason: &str| Error::BadRoot {
                root: PathBuf::from(uri),
                reason: reason.to_owned(),
            };
            let rest = uri
                .strip_prefix("file://")
                .ok_or_else(|| bad("not a file:// URI"))?;
            let path = rest.strip_prefix("localhost").unwrap_or(rest);
            if !path.starts_with('/') {
                return Err(bad("a file:// URI must name a local absolute path"));
            }
            let bytes = percent_decode(path).ok_or_else(|| bad("bad percent-encoding"))?;
            dirs.push(path_from_bytes(bytes).ok_or_else(|| bad("not a valid path"))?);
        }
        Roots::new(dirs)
    }

    /// The canonical roots, in order. Never empty.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The first root: relative paths are resolved against it.
    pub fn primary(&self) -> &Path {
        &self.dirs[0]
    }

    /// The root containing canonical `path` by components, if any.
    pub fn root_of(&self, path: &Path) -> Option<&Path> {
        self.dirs
            .iter()
            .find(|root| path.starts_with(root))
            .map(PathBuf::as_path)
    }

    /// How tools show a path: relative to the primary root when inside it
    /// (`.` for the root itself), else absolute. Non-UTF-8 bytes are shown
    /// as U+FFFD.
    pub fn display(&self, path: &Path) -> String {
        match path.strip_prefix(self.primary()) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
            Ok(rel) => rel.to_string_lossy().into_owned(),
            Err(_) => path.to_string_lossy().into_owned(),
        }
    }

    /// Resolves `input` (absolute, or relative to the primary root) to a
    /// canonical path inside a root; it need not exist.
    ///
    /// Errors ([`PathErrorKind`]): `Empty`, `NulByte`, `SymlinkLoop`,
    /// `DanglingSymlink`, `DotDotAfterMissing`, `OutsideRoots`, `Io`.
    pub fn resolve(&self, input: &str) -> Result<Resolved, PathError> {
        let full = self.full_path(input)?;
        self.resolve_full(&full)
            .map_err(|kind| PathError::new(input, kind))
    }

    /// Like [`Roots::resolve`], but a last component that is a symlink is
    /// not followed: the result names the link itself, in its resolved
    /// parent directory. For actions that act on a directory entry (`rm`,
    /// `mv`, `info`). `exists` says whether the entry (even a dangling
    /// link) exists. The root itself resolves to itself.
    pub fn resolve_entry(&self, input: &str) -> Result<Resolved, PathError> {
        let err = |kind| PathError::new(input, kind);
        let full = self.full_path(input)?;
        let Some(Component::Normal(name)) = Path::new(input).components().next_back() else {
            return self.resolve_full(&full).map_err(err);
        };
        let parent = full.parent().unwrap_or(Path::new("/"));
        let parent = match self.resolve_full(parent) {
            Ok(parent) => parent,
            // `/x/root` itself: its parent is outside, the entry is a root.
            Err(PathErrorKind::OutsideRoots(list)) => {
                return match self.resolve_full(&full) {
                    Ok(root) if root.path == root.root => Ok(root),
                    _ => Err(err(PathErrorKind::OutsideRoots(list))),
                };
            }
            Err(kind) => return Err(err(kind)),
        };
        let path = parent.path.join(name);
        // The entry itself may be one of the server's own folders: its
        // parent is an ordinary one.
        if crate::state::shields(&parent.root, &path) {
            return Err(err(PathErrorKind::StateFolder));
        }
        let exists = parent.exists && std::fs::symlink_metadata(&path).is_ok();
        Ok(Resolved {
            path,
            root: parent.root,
            exists,
        })
    }

    /// `input` checked (not empty, no NUL) and joined to the primary root.
    fn full_path(&self, input: &str) -> Result<PathBuf, PathError> {
        if input.is_empty() {
            return Err(PathError::new(input, PathErrorKind::Empty));
        }
        if input.contains('\0') {
            return Err(PathError::new(input, PathErrorKind::NulByte));
        }
        Ok(self.primary().join(input))
    }

    fn resolve_full(&self, full: &Path) -> Result<Resolved, PathErrorKind> {
        let (path, exists) = match std::fs::canonicalize(full) {
            Ok(path) => (path, true),
            // Whether, or as what, a path outside exists must not show: a
            // path through a link out of the roots is outside, whether its
            // target is missing, a file or a folder.
            Err(_) if self.links_outside(full) => {
                return Err(PathErrorKind::OutsideRoots(self.list()));
            }
            Err(e) => match kind_of_io(&e) {
                PathErrorKind::NotFound => (resolve_missing(full)?, false),
                kind => return Err(kind),
            },
        };
        match self.root_of(&path) {
            Some(root) if crate::state::shields(root, &path) => Err(PathErrorKind::StateFolder),
            Some(root) => Ok(Resolved {
                root: root.to_path_buf(),
                path,
                exists,
            }),
            None => Err(PathErrorKind::OutsideRoots(self.list())),
        }
    }

    /// Whether a symbolic link along `full` points outside the roots (and
    /// not to a folder above one):
    /// its target resolved, or, when it leads nowhere, its target's
    /// existing folder resolved and the rest taken as written.
    fn links_outside(&self, full: &Path) -> bool {
        let mut walked = PathBuf::new();
        for component in full.components() {
            walked.push(component);
            let is_link =
                std::fs::symlink_metadata(&walked).is_ok_and(|meta| meta.file_type().is_symlink());
            if !is_link {
                continue;
            }
            let target = match std::fs::canonicalize(&walked) {
                Ok(target) => target,
                Err(_) => {
                    let Ok(target) = std::fs::read_link(&walked) else {
                        return false;
                    };
                    let target = walked.parent().unwrap_or(Path::new("/")).join(target);
                    let folder = target
                        .parent()
                        .and_then(|dir| std::fs::canonicalize(dir).ok());
                    match (folder, target.file_name()) {
                        (Some(folder), Some(name)) => folder.join(name),
                        _ => target,
                    }
                }
            };
            // A link to a folder above a root (`/var/run` to `/run`) is
            // a way in, not out.
            if self.root_of(&target).is_none()
                && !self.dirs().iter().any(|root| root.starts_with(&target))
            {
                return true;
            }
        }
        false
    }

    /// Like [`Roots::resolve`], but something must exist at the path
    /// (else `NotFound`).
    pub fn resolve_existing(&self, input: &str) -> Result<Resolved, PathError> {
        let resolved = self.resolve(input)?;
        if resolved.exists {
            Ok(resolved)
        } else {
            Err(PathError::new(input, PathErrorKind::NotFound))
        }
    }

    /// The roots as one string, `, `-separated.
    fn list(&self) -> String {
        self.dirs
            .iter()
            .map(|d| d.to_string_lossy())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Canonical path of a missing `full`: its longest existing prefix,
/// canonicalised, plus the missing tail, which may hold no `..` and whose
/// first component must not be a (dangling) symlink.
pub(crate) fn resolve_missing(full: &Path) -> Result<PathBuf, PathErrorKind> {
    let components: Vec<Component<'_>> = full.components().collect();
    for split in (0..components.len()).rev() {
        let prefix: PathBuf = components[..split].iter().collect();
        let base = match std::fs::canonicalize(&prefix) {
            Ok(base) => base,
            Err(e) => match kind_of_io(&e) {
                PathErrorKind::NotFound => continue,
                kind => return Err(kind),
            },
        };
        let mut path = base;
        for (i, component) in components[split..].iter().enumerate() {
            match component {
                Component::Normal(name) => {
                    path.push(name);
                    if i == 0 && std::fs::symlink_metadata(&path).is_ok() {
                        return Err(PathErrorKind::DanglingSymlink);
                    }
                }
                Component::CurDir => {}
                Component::ParentDir => return Err(PathErrorKind::DotDotAfterMissing),
                Component::RootDir | Component::Prefix(_) => {
                    return Err(PathErrorKind::Io("malformed path".to_owned()));
                }
            }
        }
        return Ok(path);
    }
    Err(PathErrorKind::NotFound)
}

/// `%XX` escapes decoded to bytes; `None` for a malformed escape.
fn percent_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(unix)]
fn path_from_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt as _;
    if bytes.contains(&0) {
        return None;
    }
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
    String::from_utf8(bytes).ok().map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_roots() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(base.join("a b")).unwrap();
        let uri = format!("file://{}/a%20b", base.to_string_lossy());
        let roots = Roots::from_file_uris(&[uri]).unwrap();
        assert_eq!(roots.dirs(), [base.join("a b")]);
        let err = Roots::from_file_uris(&["https://example.test/x"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "root 'https://example.test/x' is not a usable directory: not a file:// URI"
        );
        let err = Roots::from_file_uris(&["file:///tmp/%zz"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "root 'file:///tmp/%zz' is not a usable directory: bad percent-encoding"
        );
        let err = Roots::from_file_uris(&["file:///tmp/%00"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "root 'file:///tmp/%00' is not a usable directory: not a valid path"
        );
        assert!(matches!(
            Roots::from_file_uris::<&str>(&[]),
            Err(Error::NoRoots)
        ));
    }
}
