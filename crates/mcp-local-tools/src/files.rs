//! File helpers shared by the tools: reading text, atomic writes, creating
//! directories and unified diffs, all through the no-follow opener.

// Which helpers a build uses depends on the tool features it enables.
#![cfg_attr(
    not(all(
        feature = "fs",
        feature = "code",
        feature = "fetch",
        feature = "ui",
        feature = "memory"
    )),
    allow(dead_code)
)]

use std::collections::HashSet;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};

use crate::error::{PathError, PathErrorKind};
use crate::roots::Resolved;
use crate::safe::{self, OpenMode};
use crate::util::MAX_RESULT_BYTES;

/// The unified diff `before` → `after` with `a/` and `b/` headers, capped.
pub(crate) fn unified_diff(before: &str, after: &str, shown: &str) -> String {
    let diff = similar::TextDiff::from_lines(before, after);
    let mut text = diff
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{shown}"), &format!("b/{shown}"))
        .to_string();
    if text.len() > MAX_RESULT_BYTES {
        let mut cut = MAX_RESULT_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str("\n[diff cut at 64 KiB; read the file to see the rest]\n");
    }
    text
}

/// Opens the resolved path for reading through the no-follow opener and
/// checks it is a regular file: a directory, device, FIFO or socket is
/// refused (`path '<input>': is a directory` / `not a regular file`), so no
/// tool reads `/dev/zero`-like files. Returns the file and its length.
pub(crate) fn open_regular(
    resolved: &Resolved,
    input: &str,
) -> Result<(std::fs::File, u64), String> {
    let file = safe::open(resolved, OpenMode::Read).map_err(|e| e.to_string())?;
    let meta = file
        .metadata()
        .map_err(|e| format!("path '{input}': {e}"))?;
    if meta.is_dir() {
        return Err(format!("path '{input}': is a directory"));
    }
    if !meta.is_file() {
        return Err(format!("path '{input}': not a regular file"));
    }
    Ok((file, meta.len()))
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to the resolved path atomically: parents created, a
/// temporary sibling written through the no-follow opener, its permissions
/// copied from the old file, then renamed over the target.
pub(crate) fn write_atomic(target: &Resolved, bytes: &[u8]) -> Result<(), PathError> {
    write_file(target, bytes, true)
}

/// Like [`write_atomic`], but an existing target is replaced only when
/// `overwrite` (else `AlreadyExists`, atomically on Linux).
pub(crate) fn write_file(
    target: &Resolved,
    bytes: &[u8],
    overwrite: bool,
) -> Result<(), PathError> {
    let shown = || target.path.to_string_lossy().into_owned();
    // Checked on the target itself, before any parent folder is made: the
    // refusal names the path asked for, not the temporary sibling.
    safe::refuse_git_internals(&target.root, &target.path)?;
    let temp = temp_sibling(target)?;
    let old_permissions = std::fs::metadata(&target.path)
        .ok()
        .map(|m| m.permissions());
    let result = (|| {
        let mut file = safe::open_at(&target.root, &temp, OpenMode::WriteTruncate)?;
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| PathError::from_io(shown(), &e))?;
        if let Some(permissions) = old_permissions {
            file.set_permissions(permissions)
                .map_err(|e| PathError::from_io(shown(), &e))?;
        }
        drop(file);
        safe::rename(&target.root, &temp, &target.root, &target.path, overwrite)
    })();
    if result.is_err() {
        let _ = safe::remove_file(&target.root, &temp);
    }
    result
}

/// A fresh temporary name next to `target`, its parents created: where a
/// write goes before it is renamed into place.
pub(crate) fn temp_sibling(target: &Resolved) -> Result<std::path::PathBuf, PathError> {
    let shown = || target.path.to_string_lossy().into_owned();
    let (Some(parent), Some(name)) = (target.path.parent(), target.path.file_name()) else {
        return Err(PathError::new(shown(), PathErrorKind::IsADirectory));
    };
    create_dirs(&Resolved {
        path: parent.to_path_buf(),
        root: target.root.clone(),
        exists: parent.exists(),
    })?;
    // The temp name keeps at most 128 bytes of the file's name, so a name
    // near the file system's 255-byte limit still has room for the suffix.
    let shown_name = name.to_string_lossy();
    let mut keep = shown_name.len().min(128);
    while !shown_name.is_char_boundary(keep) {
        keep -= 1;
    }
    let temp_name = format!(
        ".{}.mcp-tmp-{}-{}",
        &shown_name[..keep],
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    Ok(parent.join(temp_name))
}

/// Creates every missing directory from the root down to `target`.
pub(crate) fn create_dirs(target: &Resolved) -> Result<(), PathError> {
    // Refused before anything is made: `x/.git` leaves no `x` behind.
    safe::refuse_git_internals(&target.root, &target.path)?;
    let rel = target.relative().to_path_buf();
    let mut current = target.root.clone();
    for component in rel.components() {
        let next = current.join(component);
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(PathError::new(
                    next.to_string_lossy(),
                    PathErrorKind::NotADirectory,
                ));
            }
            Err(_) => safe::mkdir_in(&target.root, &current, component.as_os_str())?,
        }
        current = next;
    }
    Ok(())
}

/// How long a writer waits for another to finish with a root.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(30);

/// Exclusive advisory locks (`flock`) on root directories, held while a
/// read-modify-write of files inside them runs; released on drop.
///
/// Within one server, writers of a root first queue on an in-process gate
/// (so only one of them at a time waits for the `flock`); across servers
/// the `flock` excludes them. Every acknowledged edit of a file is in it,
/// none overwritten by a concurrent one.
#[derive(Debug)]
pub(crate) struct RootLock {
    roots: Vec<std::path::PathBuf>,
    _held: Vec<std::fs::File>,
}

/// The roots some writer of this process holds, and a signal for waiters.
fn gate() -> &'static (Mutex<HashSet<std::path::PathBuf>>, Condvar) {
    static GATE: OnceLock<(Mutex<HashSet<std::path::PathBuf>>, Condvar)> = OnceLock::new();
    GATE.get_or_init(|| (Mutex::new(HashSet::new()), Condvar::new()))
}

impl Drop for RootLock {
    fn drop(&mut self) {
        let (held, freed) = gate();
        let mut held = held.lock().unwrap_or_else(|e| e.into_inner());
        for root in &self.roots {
            held.remove(root);
        }
        freed.notify_all();
    }
}

/// Locks every root in `roots` (sorted, so writers never deadlock), waiting
/// up to 30 s for another server's writer.
pub(crate) fn lock_roots(roots: &[&std::path::Path]) -> Result<RootLock, String> {
    let mut roots: Vec<std::path::PathBuf> = roots.iter().map(|r| r.to_path_buf()).collect();
    roots.sort();
    roots.dedup();
    {
        let (held, freed) = gate();
        let mut held = held.lock().unwrap_or_else(|e| e.into_inner());
        while roots.iter().any(|r| held.contains(r)) {
            held = freed.wait(held).unwrap_or_else(|e| e.into_inner());
        }
        held.extend(roots.iter().cloned());
    }
    // From here on, dropping `lock` opens the gate again, whatever happens.
    let mut lock = RootLock {
        roots,
        _held: Vec::new(),
    };
    for root in lock.roots.clone() {
        let dir = std::fs::File::open(&root)
            .map_err(|e| format!("cannot lock {} for writing: {e}", root.display()))?;
        let started = std::time::Instant::now();
        loop {
            match dir.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < LOCK_PATIENCE => {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(format!(
                        "another writer has held {} for {} s; nothing was written, try again",
                        root.display(),
                        LOCK_PATIENCE.as_secs()
                    ));
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(format!("cannot lock {} for writing: {e}", root.display()));
                }
            }
        }
        lock._held.push(dir);
    }
    Ok(lock)
}
