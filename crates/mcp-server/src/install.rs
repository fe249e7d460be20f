//! `hanzo-mcp install` and `uninstall`: the `hanzo` server entry (HIP-0300
//! §3) written into an MCP client's own configuration file, in its own
//! format.
//!
//! The file is edited in place: JSON (with comments, as Cursor and VS Code
//! allow) through a concrete syntax tree, TOML through `toml_edit`, so every
//! other entry, comment and the file's layout stay as they were. Before a
//! file is changed its previous bytes are kept beside it
//! (`<file>.hanzo-mcp.bak`). Installing twice changes nothing the second
//! time. `uninstall` removes only the `hanzo` entry; when the file is still
//! exactly what `install` made of the backup, the backup's bytes are put
//! back (and a file `install` created is removed).

use std::path::{Path, PathBuf};

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstRootNode};

/// The entry's name in every client (HIP-0300 §3).
pub const ENTRY: &str = "hanzo";

/// The clients `install` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Client {
    /// Claude Code: `~/.claude.json` (user), `.mcp.json` (project).
    ClaudeCode,
    /// Claude Desktop: `claude_desktop_config.json` in its config folder.
    ClaudeDesktop,
    /// Cursor: `~/.cursor/mcp.json` (user), `.cursor/mcp.json` (project).
    Cursor,
    /// Codex: `~/.codex/config.toml` (`$CODEX_HOME/config.toml`).
    Codex,
    /// VS Code: `.vscode/mcp.json` (project).
    Vscode,
}

/// Whose configuration: the user's, or the project's (the working
/// directory's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    /// The user's configuration, for every project.
    User,
    /// The working directory's project configuration.
    Project,
}

/// The file format of a client's configuration and where the servers go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    /// JSON, the servers under this key.
    Json(&'static str),
    /// Codex's TOML: `[mcp_servers.hanzo]`.
    Toml,
}

fn home() -> Result<PathBuf, String> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| "HOME is not set".to_owned())
}

/// The file and format of `client` at `scope`.
///
/// # Errors
/// A scope the client has no file for, or no home folder.
fn target(client: Client, scope: Scope) -> Result<(PathBuf, Format), String> {
    let here = || std::env::current_dir().map_err(|e| format!("the working directory: {e}"));
    Ok(match (client, scope) {
        (Client::ClaudeCode, Scope::User) => {
            (home()?.join(".claude.json"), Format::Json("mcpServers"))
        }
        (Client::ClaudeCode, Scope::Project) => {
            (here()?.join(".mcp.json"), Format::Json("mcpServers"))
        }
        (Client::ClaudeDesktop, Scope::User) => {
            let folder = if cfg!(target_os = "macos") {
                home()?.join("Library/Application Support/Claude")
            } else {
                match std::env::var_os("XDG_CONFIG_HOME").filter(|x| !x.is_empty()) {
                    Some(config) => PathBuf::from(config).join("Claude"),
                    None => home()?.join(".config/Claude"),
                }
            };
            (
                folder.join("claude_desktop_config.json"),
                Format::Json("mcpServers"),
            )
        }
        (Client::Cursor, Scope::User) => {
            (home()?.join(".cursor/mcp.json"), Format::Json("mcpServers"))
        }
        (Client::Cursor, Scope::Project) => {
            (here()?.join(".cursor/mcp.json"), Format::Json("mcpServers"))
        }
        (Client::Codex, Scope::User) => {
            let folder = match std::env::var_os("CODEX_HOME").filter(|x| !x.is_empty()) {
                Some(folder) => PathBuf::from(folder),
                None => home()?.join(".codex"),
            };
            (folder.join("config.toml"), Format::Toml)
        }
        (Client::Vscode, Scope::Project) => {
            (here()?.join(".vscode/mcp.json"), Format::Json("servers"))
        }
        (Client::ClaudeDesktop | Client::Codex, Scope::Project) => {
            return Err("this client has no project configuration: use --scope user".to_owned());
        }
        (Client::Vscode, Scope::User) => {
            return Err("VS Code's user configuration is edited from VS Code (\"MCP: Open User Configuration\"): use --scope project".to_owned());
        }
    })
}

/// The scope used when none is given: the project's for VS Code, else the
/// user's.
pub fn default_scope(client: Client) -> Scope {
    match client {
        Client::Vscode => Scope::Project,
        _ => Scope::User,
    }
}

/// The entry for `command` in `client`'s format: `command` with `args`
/// (`serve`, and `--config FILE` when one was named).
fn json_entry(client: Client, command: &str, args: &[String]) -> CstInputValue {
    let mut fields = Vec::new();
    if client == Client::Vscode {
        fields.push(("type".to_owned(), CstInputValue::String("stdio".to_owned())));
    }
    fields.push((
        "command".to_owned(),
        CstInputValue::String(command.to_owned()),
    ));
    fields.push((
        "args".to_owned(),
        CstInputValue::Array(args.iter().cloned().map(CstInputValue::String).collect()),
    ));
    CstInputValue::Object(fields)
}

/// The same entry as a JSON value, to compare with what a file holds.
fn json_entry_value(client: Client, command: &str, args: &[String]) -> serde_json::Value {
    let mut entry = serde_json::Map::new();
    if client == Client::Vscode {
        entry.insert("type".to_owned(), "stdio".into());
    }
    entry.insert("command".to_owned(), command.into());
    entry.insert("args".to_owned(), serde_json::json!(args));
    serde_json::Value::Object(entry)
}

/// `text` (a client's file, empty when there is none) with the entry for
/// `command` and `args` set, or `None` when it is there already.
fn with_entry(
    client: Client,
    format: Format,
    text: &str,
    command: &str,
    args: &[String],
) -> Result<Option<String>, String> {
    match format {
        Format::Json(key) => {
            let parsed = jsonc_parser::parse_to_serde_value(text, &ParseOptions::default())
                .map_err(|e| format!("not JSON: {e}"))?;
            let wanted = json_entry_value(client, command, args);
            if parsed
                .as_ref()
                .and_then(|v| v.get(key))
                .and_then(|s| s.get(ENTRY))
                == Some(&wanted)
            {
                return Ok(None);
            }
            let source = if text.trim().is_empty() { "{}\n" } else { text };
            let root = CstRootNode::parse(source, &ParseOptions::default())
                .map_err(|e| format!("not JSON: {e}"))?;
            let servers = root.object_value_or_set().object_value_or_set(key);
            match servers.get(ENTRY) {
                Some(prop) => prop.set_value(json_entry(client, command, args)),
                None => {
                    servers.append(ENTRY, json_entry(client, command, args));
                }
            }
            Ok(Some(root.to_string()))
        }
        Format::Toml => {
            let mut doc: toml_edit::DocumentMut =
                text.parse().map_err(|e| format!("not TOML: {e}"))?;
            let existing = doc
                .get("mcp_servers")
                .and_then(|s| s.get(ENTRY))
                .and_then(|e| e.as_table_like())
                .map(|t| {
                    (
                        t.get("command").and_then(|c| c.as_str()).map(str::to_owned),
                        t.get("args").and_then(|a| a.as_array()).map(|a| {
                            a.iter()
                                .filter_map(|v| v.as_str())
                                .map(str::to_owned)
                                .collect::<Vec<_>>()
                        }),
                    )
                });
            if existing == Some((Some(command.to_owned()), Some(args.to_vec()))) {
                return Ok(None);
            }
            let servers = doc.entry("mcp_servers").or_insert_with(|| {
                let mut table = toml_edit::Table::new();
                table.set_implicit(true);
                toml_edit::Item::Table(table)
            });
            let Some(servers) = servers.as_table_mut() else {
                return Err("mcp_servers is not a table".to_owned());
            };
            let mut entry = toml_edit::Table::new();
            entry.insert("command", toml_edit::value(command));
            let args: toml_edit::Array = args.iter().map(String::as_str).collect();
            entry.insert("args", toml_edit::value(args));
            servers.insert(ENTRY, toml_edit::Item::Table(entry));
            Ok(Some(doc.to_string()))
        }
    }
}

/// `text` without the `hanzo` entry, or `None` when it has none.
fn without_entry(format: Format, text: &str) -> Result<Option<String>, String> {
    match format {
        Format::Json(key) => {
            let root = CstRootNode::parse(text, &ParseOptions::default())
                .map_err(|e| format!("not JSON: {e}"))?;
            let Some(prop) = root
                .object_value()
                .and_then(|o| o.object_value(key))
                .and_then(|s| s.get(ENTRY))
            else {
                return Ok(None);
            };
            prop.remove();
            Ok(Some(root.to_string()))
        }
        Format::Toml => {
            let mut doc: toml_edit::DocumentMut =
                text.parse().map_err(|e| format!("not TOML: {e}"))?;
            let removed = doc
                .get_mut("mcp_servers")
                .and_then(|s| s.as_table_like_mut())
                .and_then(|s| s.remove(ENTRY));
            Ok(removed.map(|_| doc.to_string()))
        }
    }
}

/// The backup kept beside `file`.
fn backup_of(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".hanzo-mcp.bak");
    PathBuf::from(name)
}

/// Reads `file`, `None` when it does not exist.
fn read(file: &Path) -> Result<Option<String>, String> {
    match std::fs::read_to_string(file) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", file.display())),
    }
}

/// Removes the folders above `file` that are empty now (the ones `install`
/// made for a file it created, such as `.cursor` or `.codex`), from the
/// nearest up, stopping at the first that is not empty and never touching
/// the home folder, the working directory or anything above them.
fn remove_empty_folders(file: &Path) {
    let stops: Vec<PathBuf> = [home().ok(), std::env::current_dir().ok()]
        .into_iter()
        .flatten()
        .collect();
    let Some(base) = stops.iter().find(|stop| file.starts_with(stop)) else {
        return;
    };
    for folder in file.ancestors().skip(1) {
        if folder == base || !folder.starts_with(base) {
            return;
        }
        // Fails, and so stops the walk, when the folder holds anything.
        if std::fs::remove_dir(folder).is_err() {
            return;
        }
    }
}

/// Writes `text` to `file` through a temporary file beside it.
fn write(file: &Path, text: &str) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("{}: {e}", file.display());
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent).map_err(fail)?;
    }
    let mut temporary = file.as_os_str().to_owned();
    temporary.push(".hanzo-mcp.tmp");
    std::fs::write(&temporary, text).map_err(fail)?;
    std::fs::rename(&temporary, file).map_err(fail)
}

/// What `install` or `uninstall` did, for its one line of output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The entry was written (the backup's path, when a file was there).
    Installed(PathBuf, Option<PathBuf>),
    /// The entry was there already; nothing was written.
    AlreadyInstalled(PathBuf),
    /// The entry was removed (the file restored from its backup, or edited).
    Removed(PathBuf),
    /// The entry was removed with the file, which `install` had created.
    RemovedFile(PathBuf),
    /// There was no entry to remove.
    NotInstalled(PathBuf),
    /// `--print`: the file (its path) as it would be written.
    Printed(PathBuf, String),
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Installed(file, Some(backup)) => write!(
                f,
                "installed `{ENTRY}` in {} (the previous file is {})",
                file.display(),
                backup.display()
            ),
            Outcome::Installed(file, None) => {
                write!(f, "installed `{ENTRY}` in {} (a new file)", file.display())
            }
            Outcome::AlreadyInstalled(file) => {
                write!(
                    f,
                    "`{ENTRY}` is installed in {} already; nothing changed",
                    file.display()
                )
            }
            Outcome::Removed(file) => write!(f, "removed `{ENTRY}` from {}", file.display()),
            Outcome::RemovedFile(file) => write!(
                f,
                "removed `{ENTRY}` and {}, which install had created",
                file.display()
            ),
            Outcome::NotInstalled(file) => write!(
                f,
                "{} has no `{ENTRY}` entry; nothing changed",
                file.display()
            ),
            Outcome::Printed(_, text) => f.write_str(text),
        }
    }
}

/// Installs the entry for `command` (the running binary's absolute path)
/// with `args` (`serve`, then `--config FILE` when one was named: a
/// client's server never reads the default config file, whose folder its
/// roots may hold) into `client`'s file at `scope`; with `print`, only
/// returns the file as it would be.
///
/// # Errors
/// No file for that scope, a file that does not parse, or one that cannot
/// be written.
pub fn install(
    client: Client,
    scope: Scope,
    command: &str,
    args: &[String],
    print: bool,
) -> Result<Outcome, String> {
    let (file, format) = target(client, scope)?;
    let before = read(&file)?;
    let text = before.clone().unwrap_or_default();
    let after = with_entry(client, format, &text, command, args)
        .map_err(|e| format!("{}: {e}", file.display()))?;
    let Some(after) = after else {
        return Ok(if print {
            Outcome::Printed(file, text)
        } else {
            Outcome::AlreadyInstalled(file)
        });
    };
    if print {
        return Ok(Outcome::Printed(file, after));
    }
    let backup = match &before {
        Some(previous) => {
            let backup = backup_of(&file);
            write(&backup, previous)?;
            Some(backup)
        }
        None => None,
    };
    write(&file, &after)?;
    Ok(Outcome::Installed(file, backup))
}

/// Removes the entry from `client`'s file at `scope` (see the module docs).
///
/// # Errors
/// As [`install`].
pub fn uninstall(
    client: Client,
    scope: Scope,
    command: &str,
    args: &[String],
) -> Result<Outcome, String> {
    let (file, format) = target(client, scope)?;
    let Some(text) = read(&file)? else {
        return Ok(Outcome::NotInstalled(file));
    };
    let backup = backup_of(&file);
    let previous = read(&backup)?;
    // Untouched since install: give back the bytes that were there.
    let made = with_entry(
        client,
        format,
        previous.as_deref().unwrap_or_default(),
        command,
        args,
    )
    .ok()
    .flatten();
    if made.as_deref() == Some(text.as_str()) {
        match previous {
            Some(previous) => {
                write(&file, &previous)?;
                let _ = std::fs::remove_file(&backup);
            }
            None => {
                std::fs::remove_file(&file).map_err(|e| format!("{}: {e}", file.display()))?;
                remove_empty_folders(&file);
                return Ok(Outcome::RemovedFile(file));
            }
        }
        return Ok(Outcome::Removed(file));
    }
    match without_entry(format, &text).map_err(|e| format!("{}: {e}", file.display()))? {
        Some(after) => {
            write(&file, &after)?;
            Ok(Outcome::Removed(file))
        }
        None => Ok(Outcome::NotInstalled(file)),
    }
}
