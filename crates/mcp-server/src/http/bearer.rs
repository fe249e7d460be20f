//! The bearer of a loopback `serve --http` that was given none: made at
//! start and written where only the user can read it, so that other local
//! users and the programs of other users (every process can reach
//! loopback) cannot call the tools.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use crate::error::ServerError;

/// A fresh bearer (two version-4 UUIDs, 244 random bits, as 64 hex
/// characters), written to `http-bearer-<port>` in the state folder
/// (`HANZO_MCP_STATE`, else the platform data folder under `hanzo-mcp/`;
/// `-pid<pid>` in place of the port for port 0), created or replaced with
/// mode 0600 in a folder of mode 0700. The path, never the bearer, is
/// written to stderr. The bearer is never logged. The file is removed
/// when the returned [`BearerFile`] is dropped, at the server's end.
///
/// The file is never written inside one of `roots` (the folders the tools
/// may read): an agent could read the bearer there. That is checked on
/// the path before anything is made, and on its folder, resolved, once it
/// exists (`write_outside_roots`).
///
/// # Errors
/// [`ServerError::Config`] naming the file when it cannot be written, or
/// when it would lie inside one of `roots` (`--http-no-auth` or
/// `HANZO_MCP_HTTP_BEARER` avoid the file; `HANZO_MCP_STATE` moves it).
pub fn generate_and_write(
    addr: SocketAddr,
    roots: &[PathBuf],
) -> Result<(String, BearerFile), ServerError> {
    let bearer = format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    );
    let path = bearer_path(addr)?;
    write_outside_roots(addr, &path, roots, &bearer)?;
    let _ = writeln!(
        std::io::stderr().lock(),
        "hanzo-mcp: --http {addr}: clients must send `Authorization: Bearer <token>`, the token being the contents of {} (readable only by you; --http-no-auth turns this off)",
        path.display()
    );
    Ok((bearer, BearerFile(path)))
}

/// Writes `bearer` to `path` (see [`write_private`]) unless the tools could
/// read it there: first `path` as the tools resolve paths (links followed,
/// a missing tail under its nearest existing folder: `Ok` means they could
/// read it), before anything is made; then, once the folder is made, that
/// folder resolved by the system (a `..` after a missing folder, which
/// the first check cannot resolve, or a folder swapped for a link in
/// between), before the file is written.
fn write_outside_roots(
    addr: SocketAddr,
    path: &Path,
    roots: &[PathBuf],
    bearer: &str,
) -> Result<(), ServerError> {
    let roots = mcp_local_tools::Roots::new(roots.to_vec()).ok();
    let inside = |file: &Path, root: &Path| {
        ServerError::Config(format!(
            "--http {addr}: the bearer file {} would lie inside the root {}, where the tools \
             could read it; set HANZO_MCP_HTTP_BEARER, or HANZO_MCP_STATE to a folder outside \
             the roots",
            file.display(),
            root.display()
        ))
    };
    if let Some(roots) = &roots {
        match roots.resolve(&path.to_string_lossy()) {
            Ok(resolved) => return Err(inside(path, &resolved.root)),
            // In a root's state folder: the file tools are kept out of it,
            // but the file would still lie inside the root.
            Err(e) if e.kind == mcp_local_tools::PathErrorKind::StateFolder => {
                let root = roots
                    .dirs()
                    .iter()
                    .find(|root| path.starts_with(root))
                    .map_or_else(|| roots.primary(), PathBuf::as_path);
                return Err(inside(path, root));
            }
            Err(_) => {}
        }
    }
    let cannot = |e: std::io::Error| {
        ServerError::Config(format!(
            "--http {addr}: cannot write the bearer file {}: {e} (set HANZO_MCP_HTTP_BEARER, or pass --http-no-auth)",
            path.display()
        ))
    };
    let folder = path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    make_private_folder(folder).map_err(cannot)?;
    let real = std::fs::canonicalize(folder).map_err(cannot)?;
    if let Some(root) = roots.as_ref().and_then(|roots| roots.root_of(&real)) {
        let file = path
            .file_name()
            .map_or_else(|| real.clone(), |name| real.join(name));
        return Err(inside(&file, root));
    }
    write_private(path, bearer).map_err(cannot)
}

/// The bearer file of a running server, removed when this is dropped (the
/// server's orderly end): a bearer that no server checks any more is not
/// left on disk.
#[derive(Debug)]
pub struct BearerFile(PathBuf);

impl BearerFile {
    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for BearerFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Where the bearer of a server on `addr` is written.
fn bearer_path(addr: SocketAddr) -> Result<PathBuf, ServerError> {
    let folder = mcp_local_tools::state::state_dir()
        .map_err(|e| ServerError::Config(format!("--http {addr}: {e}")))?;
    let name = match addr.port() {
        0 => format!("http-bearer-pid{}", std::process::id()),
        port => format!("http-bearer-{port}"),
    };
    Ok(folder.join(name))
}

/// Makes `folder` and the folders above it that are missing, each with
/// mode 0700.
fn make_private_folder(folder: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    use std::os::unix::fs::DirBuilderExt as _;
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    builder.mode(0o700);
    builder.create(folder)
}

/// Writes `text` to `path` (its folder made already) readable and
/// writable by the user alone.
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    #[cfg(unix)]
    use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
    // A file left by an earlier run may have looser bits: remove it, then
    // create it anew with 0600 (never follow a link planted there).
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    options.mode(0o600);
    let mut file = options.open(path)?;
    #[cfg(unix)]
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    file.write_all(text.as_bytes())?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::write_outside_roots;

    /// A `..` after a missing folder, which the tools' path check cannot
    /// resolve, still leads nowhere inside a root: the folder is judged
    /// once made, before the file is written. Outside the roots the file
    /// is written, readable by the user alone.
    #[cfg(unix)]
    #[test]
    fn a_bearer_path_whose_dot_dots_lead_into_a_root_is_refused_before_the_file_is_written() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("root");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        let addr = "127.0.0.1:1".parse().expect("address");
        let path = root.join("new/../http-bearer-1");
        let error = write_outside_roots(addr, &path, std::slice::from_ref(&root), "token")
            .expect_err("refused")
            .to_string();
        assert_eq!(
            error,
            format!(
                "configuration: --http 127.0.0.1:1: the bearer file {} would lie inside the \
                 root {}, where the tools could read it; set HANZO_MCP_HTTP_BEARER, or \
                 HANZO_MCP_STATE to a folder outside the roots",
                root.join("http-bearer-1").display(),
                root.display()
            )
        );
        assert!(!root.join("http-bearer-1").exists(), "no file written");

        let state = tempfile::tempdir().expect("state");
        let path = state.path().join("made/http-bearer-1");
        write_outside_roots(addr, &path, &[root], "token").expect("written");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "token");
        let mode = |p: &std::path::Path| {
            std::fs::metadata(p).expect("metadata").permissions().mode() & 0o777
        };
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&state.path().join("made")), 0o700);
    }
}
