//! The state database of `memory`, `plan` and `tasks`: one SQLite file,
//! `state.db` in the state folder ([`crate::state::state_dir`]).
//!
//! - Opened lazily, on the first call of a tool that needs it; start-up and
//!   `tools/list` never touch it.
//! - WAL journal, `synchronous = NORMAL` (a commit survives the server
//!   being killed at any instant; a power loss may lose the last commits),
//!   a 30 s busy timeout (a loaded machine can hold a commit for seconds),
//!   writes in `BEGIN IMMEDIATE` transactions: two
//!   servers on one database wait for each other and lose nothing. A write
//!   is committed before its call is answered.
//! - A schema version (`PRAGMA user_version`) with ordered migrations.
//! - A file that cannot be opened or read (not a database, corrupt, newer
//!   schema) is never replaced, emptied or migrated: every call answers an
//!   error naming the file and what to do, and the next call tries again.
//!
//! Records are scoped: `global`, or a workspace (the canonical path of the
//! first root).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use crate::context::ToolContext;
use crate::roots::Roots;

/// How long a write waits for another connection's transaction.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The database file name inside the state folder.
pub const DB_FILE: &str = "state.db";

/// Each migration takes the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    // 1: memories (keyed, full-text), the knowledge graph, plans, tasks.
    "CREATE TABLE memories (
        id INTEGER PRIMARY KEY,
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        content TEXT NOT NULL,
        tags TEXT NOT NULL DEFAULT '[]',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (scope, key)
    );
    CREATE VIRTUAL TABLE memories_fts USING fts5(
        key, content, tags, content='memories', content_rowid='id'
    );
    CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts(rowid, key, content, tags)
        VALUES (new.id, new.key, new.content, new.tags);
    END;
    CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts(memories_fts, rowid, key, content, tags)
        VALUES ('delete', old.id, old.key, old.content, old.tags);
    END;
    CREATE TRIGGER memories_au AFTER UPDATE ON memories BEGIN
        INSERT INTO memories_fts(memories_fts, rowid, key, content, tags)
        VALUES ('delete', old.id, old.key, old.content, old.tags);
        INSERT INTO memories_fts(rowid, key, content, tags)
        VALUES (new.id, new.key, new.content, new.tags);
    END;
    CREATE TABLE entities (
        scope TEXT NOT NULL,
        name TEXT NOT NULL,
        entity_type TEXT NOT NULL,
        PRIMARY KEY (scope, name)
    );
    CREATE TABLE observations (
        id INTEGER PRIMARY KEY,
        scope TEXT NOT NULL,
        entity TEXT NOT NULL,
        text TEXT NOT NULL,
        UNIQUE (scope, entity, text),
        FOREIGN KEY (scope, entity) REFERENCES entities (scope, name) ON DELETE CASCADE
    );
    CREATE TABLE relations (
        id INTEGER PRIMARY KEY,
        scope TEXT NOT NULL,
        from_entity TEXT NOT NULL,
        to_entity TEXT NOT NULL,
        relation_type TEXT NOT NULL,
        UNIQUE (scope, from_entity, to_entity, relation_type)
    );
    CREATE TABLE plans (
        scope TEXT PRIMARY KEY,
        explanation TEXT,
        steps TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE tasks (
        id INTEGER PRIMARY KEY,
        scope TEXT NOT NULL,
        title TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL,
        priority TEXT NOT NULL,
        tags TEXT NOT NULL DEFAULT '[]',
        parent INTEGER,
        blocked_by TEXT NOT NULL DEFAULT '[]',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE INDEX tasks_scope ON tasks (scope, status);",
    // 2: memory search matches word forms ("commit" finds "committing"):
    // the full-text index rebuilt with the Porter stemmer, from the
    // memories themselves (nothing is lost).
    "DROP TABLE memories_fts;
    CREATE VIRTUAL TABLE memories_fts USING fts5(
        key, content, tags, content='memories', content_rowid='id',
        tokenize='porter unicode61'
    );
    INSERT INTO memories_fts(memories_fts) VALUES ('rebuild');",
];

/// The shared, lazily opened state database. Cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct Store {
    /// `None`: the state folder's `state.db`, found at first use.
    path: Option<PathBuf>,
    conn: Mutex<Option<(PathBuf, Connection)>>,
    /// The roots of the last call that used the store ([`Store::ready`]):
    /// every open checks the path against them.
    roots: Mutex<Option<Roots>>,
}

impl Store {
    /// A store at `state.db` in the state folder, opened on first use.
    pub fn new() -> Store {
        Store {
            path: None,
            conn: Mutex::new(None),
            roots: Mutex::new(None),
        }
    }

    /// A store at `path`, opened on first use.
    pub fn at(path: PathBuf) -> Store {
        Store {
            path: Some(path),
            conn: Mutex::new(None),
            roots: Mutex::new(None),
        }
    }

    /// Opens the database as the tools would (creating it and its folder
    /// when missing) and runs SQLite's `PRAGMA quick_check`: the file's
    /// path when it answers `ok`, else the problem in one line naming the
    /// file and what to do. Call from the blocking pool (`hanzo-mcp
    /// doctor` does).
    ///
    /// # Errors
    /// The folder or file cannot be created or opened, is not a database,
    /// or the check reports damage.
    pub fn check(&self) -> Result<PathBuf, String> {
        let verdict = self
            .with(|conn| conn.query_row("PRAGMA quick_check", [], |row| row.get::<_, String>(0)))?;
        let path = self
            .conn
            .lock()
            .ok()
            .and_then(|slot| slot.as_ref().map(|(path, _)| path.clone()))
            .unwrap_or_default();
        if verdict == "ok" {
            Ok(path)
        } else {
            Err(format!(
                "state database {} fails SQLite's check ({verdict}); move it aside (or set HANZO_MCP_STATE to another folder)",
                path.display()
            ))
        }
    }

    /// Opens the database for a call whose roots are `roots` (a no-op
    /// when it is open), and remembers them: this and every later open
    /// refuses a path through a symlink the agent could have made
    /// ([`crate::state::refuse_links_in_roots`]).
    ///
    /// # Errors
    /// As [`Store::with`], and the refusal.
    pub(crate) fn ready(&self, roots: &Roots) -> Result<(), String> {
        *self
            .roots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(roots.clone());
        if self.conn.lock().is_ok_and(|slot| slot.is_some()) {
            return Ok(());
        }
        // The file-changes lock before the connection's: no file changes
        // between the check and the open.
        let _changes = crate::action::FILE_CHANGES.blocking_write();
        let mut slot = self
            .conn
            .lock()
            .map_err(|_| "the state database lock is poisoned".to_owned())?;
        if slot.is_none() {
            *slot = Some(self.open_now(Some(roots))?);
        }
        Ok(())
    }

    /// Opens the database, first refusing a path through a symlink
    /// inside `roots` when given.
    fn open_now(&self, roots: Option<&Roots>) -> Result<(PathBuf, Connection), String> {
        let path = match &self.path {
            Some(path) => path.clone(),
            None => crate::state::state_dir()?.join(DB_FILE),
        };
        if let Some(roots) = roots {
            crate::state::refuse_links_in_roots("state database", &path, roots)?;
        }
        let conn = open(&path).map_err(|e| unusable(&path, &e))?;
        Ok((path, conn))
    }

    /// Runs `work` on the open connection (opening it first if needed).
    /// Call from the blocking pool. An open or read failure is one line
    /// naming the file and what to do.
    pub(crate) fn with<T>(
        &self,
        work: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
    ) -> Result<T, String> {
        let mut slot = self
            .conn
            .lock()
            .map_err(|_| "the state database lock is poisoned".to_owned())?;
        if slot.is_none() {
            let roots = self
                .roots
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone();
            *slot = Some(match roots {
                // Opened again within a call (the file went bad): the
                // check cannot wait for the file-changes lock here, which
                // this call may hold shared.
                Some(roots) => match crate::action::FILE_CHANGES.try_write() {
                    Ok(_changes) => self.open_now(Some(&roots))?,
                    Err(_) => {
                        return Err(
                            "the state database is being reopened while files change; call again"
                                .to_owned(),
                        );
                    }
                },
                None => self.open_now(None)?,
            });
        }
        let (path, conn) = slot.as_mut().expect("opened above");
        let path = path.clone();
        work(conn).map_err(|e| {
            let message = unusable(&path, &e);
            // A file that went bad under us is opened afresh next time.
            if matches!(
                e.sqlite_error_code(),
                Some(rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt)
            ) {
                *slot = None;
            }
            message
        })
    }

    /// Runs `work` in a `BEGIN IMMEDIATE` transaction, committed before
    /// this returns.
    pub(crate) fn write<T>(
        &self,
        work: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, WriteError>,
    ) -> Result<T, String> {
        let mut refused = None;
        let result = self.with(|conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            match work(&tx) {
                Ok(value) => {
                    tx.commit()?;
                    Ok(Some(value))
                }
                Err(WriteError::Refused(message)) => {
                    refused = Some(message);
                    Ok(None)
                }
                Err(WriteError::Sqlite(e)) => Err(e),
            }
        })?;
        match (result, refused) {
            (Some(value), _) => Ok(value),
            (None, Some(message)) => Err(message),
            (None, None) => Err("internal error: write without result".to_owned()),
        }
    }
}

impl Default for Store {
    fn default() -> Store {
        Store::new()
    }
}

/// Why a write did not happen: the caller's mistake (rolled back, answered
/// as is) or the database's.
#[derive(Debug)]
pub(crate) enum WriteError {
    /// The request cannot be done (no such record, a rule broken).
    Refused(String),
    /// The database failed.
    Sqlite(rusqlite::Error),
}

impl From<rusqlite::Error> for WriteError {
    fn from(e: rusqlite::Error) -> WriteError {
        WriteError::Sqlite(e)
    }
}

fn unusable(path: &Path, error: &dyn std::fmt::Display) -> String {
    format!(
        "state database {} cannot be used: {error}. It was left unchanged; move it aside (or set HANZO_MCP_STATE to another folder) and call again",
        path.display()
    )
}

/// Opens (creating when missing) and migrates the database at `path`.
fn open(path: &Path) -> rusqlite::Result<Connection> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| {
            rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CANTOPEN),
                Some(format!("cannot create {}: {e}", dir.display())),
            )
        })?;
    }
    let mut conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // Reads the header: a file that is not a database fails here, before
    // anything is written to it.
    let version: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    let known = MIGRATIONS.len() as i64;
    if version > known {
        return Err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_MISMATCH),
            Some(format!(
                "its schema version {version} is newer than this server's {known}; upgrade hanzo-mcp"
            )),
        ));
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    // Read again inside the lock: another server may have migrated it.
    let version: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    for (i, migration) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        tx.execute_batch(migration)?;
        tx.pragma_update(None, "user_version", i as i64 + 1)?;
    }
    tx.commit()?;
    Ok(conn)
}

/// The scope a call's records live in: `global`, or the workspace (the
/// canonical first root). `asked` is the `scope` argument.
#[cfg(feature = "memory")]
pub(crate) fn scope(asked: Option<&str>, ctx: &ToolContext) -> Result<String, String> {
    match asked {
        None | Some("workspace") => Ok(workspace_scope(ctx)),
        Some("global") => Ok("global".to_owned()),
        Some(other) => Err(format!(
            "scope: '{}' is not a scope (accepted: workspace, global)",
            other.escape_debug()
        )),
    }
}

/// The workspace scope of a call: the canonical path of the first root.
pub(crate) fn workspace_scope(ctx: &ToolContext) -> String {
    ctx.roots.primary().to_string_lossy().into_owned()
}

/// Now, as RFC 3339 UTC with seconds (`2026-12-01T15:00:00Z`).
pub(crate) fn now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    crate::util::utc_timestamp(secs)
}
