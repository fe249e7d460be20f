//! The crate's error type.

use std::path::PathBuf;

/// What went wrong when setting up roots or resolving a path.
///
/// A tool turns these into a `CallToolResult` with `isError: true` whose text
/// is this error's `Display` (one line). Source: docs/ARCHITECTURE.md, "Local tools".
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `Roots::new` was given no directory at all.
    #[error("no roots: at least one root directory is needed")]
    NoRoots,
    /// A root could not be resolved (missing, unreadable) or is not a directory.
    #[error("root '{}' is not a usable directory: {reason}", root.display())]
    BadRoot {
        /// The root as given.
        root: PathBuf,
        /// Why it was refused.
        reason: String,
    },
    /// A path given to a tool was refused or could not be resolved.
    #[error("{0}")]
    Path(#[from] PathError),
}

/// A path a tool was asked to use, and why it was refused.
///
/// `Display` names the path as the caller wrote it:
/// `path '../x': outside the roots (/work/root)`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("path '{path}': {kind}")]
pub struct PathError {
    /// The path as the caller gave it (lossy for display only).
    pub path: String,
    /// What was wrong with it.
    pub kind: PathErrorKind,
}

/// Why a path was refused (see [`PathError`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathErrorKind {
    /// The path string was empty.
    #[error("empty path")]
    Empty,
    /// The path contains a NUL byte, which no file name can hold.
    #[error("contains a NUL byte")]
    NulByte,
    /// After resolving `..` and every symlink, the path lies in no root.
    /// The string lists the roots.
    #[error("outside the roots ({0})")]
    OutsideRoots(String),
    /// Nothing exists at the path (and the action needs something there).
    #[error("no such file or directory")]
    NotFound,
    /// Resolving the path met a symlink loop (ELOOP).
    #[error("symlink loop")]
    SymlinkLoop,
    /// The path, or the missing part of it, is a symlink whose target does
    /// not exist; writing through it could land anywhere, so it is refused.
    #[error("dangling symlink")]
    DanglingSymlink,
    /// A `..` follows a component that does not exist yet, so where it leads
    /// cannot be known.
    #[error("'..' after a missing directory")]
    DotDotAfterMissing,
    /// Between resolving and opening, a component became a symlink or moved
    /// out of the root (check-then-use race); the open was refused.
    #[error("changed while in use (a component became a symlink or left the root)")]
    Changed,
    /// Expected a directory, found something else.
    #[error("not a directory")]
    NotADirectory,
    /// Expected a file, found a directory.
    #[error("is a directory")]
    IsADirectory,
    /// Something already exists at the path.
    #[error("already exists")]
    AlreadyExists,
    /// The path lies inside a `.git` folder. A repository's config and
    /// hooks name programs that git runs, so writing there would let an
    /// agent run commands without `exec`; the `git` tool changes a
    /// repository.
    #[error(
        "inside a .git folder (a repository's config and hooks run programs); use the git tool"
    )]
    GitInternals,
    /// The path lies inside a folder of the server's own, below a root:
    /// the state folder ([`crate::state::state_dir`]: memories, plans and
    /// tasks of every project, background jobs' output, the bearer files
    /// of `serve --http`, of every `hanzo-mcp` of this user) or `~/.hanzo`
    /// (where the door's key may be). The tools that own them reach them;
    /// file tools never do, whatever the roots.
    #[error(
        "inside one of the server's own folders (its state folder: memories, tasks, job output and bearer files; ~/.hanzo: the door's key); use the memory, plan, tasks and exec tools"
    )]
    StateFolder,
    /// The path is a folder that holds one of the server's own folders
    /// ([`PathErrorKind::StateFolder`]), below a root: moving, removing or
    /// replacing it would move, remove or plant them.
    #[error(
        "holds one of the server's own folders (its state folder or ~/.hanzo); moving, removing or replacing it would reach them"
    )]
    HoldsStateFolder,
    /// Any other operating-system error, as its message.
    #[error("{0}")]
    Io(String),
}

impl PathError {
    /// A `PathError` for `path` with `kind`.
    pub fn new(path: impl Into<String>, kind: PathErrorKind) -> Self {
        PathError {
            path: path.into(),
            kind,
        }
    }

    /// A `PathError` from an `io::Error`, mapping the common kinds
    /// (not found, loop, not a directory, exists) to their own variants.
    pub fn from_io(path: impl Into<String>, error: &std::io::Error) -> Self {
        PathError::new(path, kind_of_io(error))
    }
}

/// The [`PathErrorKind`] matching an `io::Error`.
pub(crate) fn kind_of_io(error: &std::io::Error) -> PathErrorKind {
    use std::io::ErrorKind as K;
    const ELOOP: i32 = 40;
    const ENOTDIR: i32 = 20;
    const EISDIR: i32 = 21;
    if cfg!(target_os = "linux") {
        match error.raw_os_error() {
            Some(ELOOP) => return PathErrorKind::SymlinkLoop,
            Some(ENOTDIR) => return PathErrorKind::NotADirectory,
            Some(EISDIR) => return PathErrorKind::IsADirectory,
            _ => {}
        }
    }
    match error.kind() {
        K::NotFound => PathErrorKind::NotFound,
        K::AlreadyExists => PathErrorKind::AlreadyExists,
        _ => PathErrorKind::Io(error.to_string()),
    }
}
