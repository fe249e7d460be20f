//! The bearer of a loopback `serve --http` that was given none: made at
//! start and written where only the user can read it, so that other local
//! users and the programs of other users (every process can reach
//! loopback) cannot call the tools.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;

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
/// may read): an agent could read the bearer there.
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
    // Resolved as the tools resolve paths (links followed, a missing tail
    // under its nearest existing folder): `Ok` means they could read it.
    let readable = mcp_local_tools::Roots::new(roots.to_vec())
        .ok()
        .and_then(|roots| roots.resolve(&path.to_string_lossy()).ok());
    if let Some(resolved) = readable {
        let root = resolved.root;
        return Err(ServerError::Config(format!(
            "--http {addr}: the bearer file {} would lie inside the root {}, where the tools \
             could read it; set HANZO_MCP_HTTP_BEARER, or HANZO_MCP_STATE to a folder outside \
             the roots",
            path.display(),
            root.display()
        )));
    }
    write_private(&path, &bearer).map_err(|e| {
        ServerError::Config(format!(
            "--http {addr}: cannot write the bearer file {}: {e} (set HANZO_MCP_HTTP_BEARER, or pass --http-no-auth)",
            path.display()
        ))
    })?;
    let _ = writeln!(
        std::io::stderr().lock(),
        "hanzo-mcp: --http {addr}: clients must send `Authorization: Bearer <token>`, the token being the contents of {} (readable only by you; --http-no-auth turns this off)",
        path.display()
    );
    Ok((bearer, BearerFile(path)))
}

/// The bearer file of a running server, removed when this is dropped (the
/// server's orderly end): a bearer that no server checks any more is not
/// left on disk.
#[derive(Debug)]
pub struct BearerFile(PathBuf);

impl BearerFile {
    /// Where the file is.
    pub fn path(&self) -> &std::path::Path {
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

/// Writes `text` to `path` readable and writable by the user alone.
fn write_private(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    #[cfg(unix)]
    use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
    if let Some(folder) = path.parent() {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        builder.mode(0o700);
        builder.create(folder)?;
    }
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
