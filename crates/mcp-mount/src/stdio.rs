//! A mounted server as a child process: newline-delimited JSON-RPC on its
//! stdin and stdout (MCP 2025-11-25 basic/transports, stdio), its stderr
//! copied to ours one line at a time, prefixed with its name and bounded.
//!
//! The child runs in a process group of its own, which is killed when the
//! connection is dropped; on Linux it also gets `PR_SET_PDEATHSIG(SIGKILL)`,
//! so it dies with its parent even when the parent is killed outright.

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mcp_proto::framing::{AsyncFrameReader, FrameError};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::sync::CancellationToken;

use crate::link::{Deliver, Link, Outbound};
use crate::spec::{Limits, StdioServer};
use crate::wire;

/// The most stderr lines copied per [`STDERR_WINDOW`]; the rest are counted
/// and the count reported.
const STDERR_LINES: u32 = 100;
/// See [`STDERR_LINES`].
const STDERR_WINDOW: Duration = Duration::from_secs(10);
/// The longest stderr line copied, in bytes; the rest of it is cut.
const STDERR_LINE_BYTES: usize = 1024;

/// How a child of [`StdioServer`] is started when it names
/// [`StdioServer::untrusted_dirs`]: nothing the tools may write is run,
/// searched or worked in.
#[derive(Debug, PartialEq, Eq)]
struct Launch {
    /// The program, canonical.
    program: std::path::PathBuf,
    /// The child's `PATH`: the absolute entries outside the untrusted
    /// folders (so `#!/usr/bin/env node` finds no planted `node`).
    path: std::ffi::OsString,
    /// Variables removed from the child's environment: those that name a
    /// folder of the roots.
    unset: Vec<std::ffi::OsString>,
    /// The child's `HOME` ([`StdioServer::home`]) when ours lies inside
    /// the roots.
    home: Option<std::path::PathBuf>,
    /// Variables set for it (git's command-scope configuration).
    set: Vec<(String, String)>,
    /// The working directory: the configured one, else ours, else (when
    /// ours lies in, or holds, an untrusted folder) [`StdioServer::home`]
    /// when that lies outside them, else `/` when no untrusted folder is
    /// one of its entries (never the temporary folder, which anyone may
    /// write): a program loads code from there and from the folders below
    /// it (`python -m`, `npx`'s `./node_modules/.bin`), and looks for
    /// settings in the folders above it.
    cwd: std::path::PathBuf,
}

/// The [`Launch`] of `spec`; `None` when it names no untrusted folder (the
/// command is started as it is).
///
/// # Errors
/// A sentence naming the program and why it is not started.
fn launch(spec: &StdioServer) -> Result<Option<Launch>, String> {
    use std::path::{Path, PathBuf};
    if spec.untrusted_dirs.is_empty() {
        return Ok(None);
    }
    let canonical = |dir: &Path| std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let untrusted: Vec<PathBuf> = spec.untrusted_dirs.iter().map(|d| canonical(d)).collect();
    // Its own folder ([`StdioServer::home`]) is one the tools cannot
    // write, wherever it lies (a state folder inside a root is out of
    // their reach).
    let own = spec.home.as_deref().map(canonical);
    let inside = |path: &Path| {
        untrusted.iter().any(|dir| path.starts_with(dir))
            && !own.as_deref().is_some_and(|own| path.starts_with(own))
    };
    // A folder a program works in, or finds its project or script in,
    // must neither lie in an untrusted folder nor hold one: it loads code
    // from below it too (`python -m x` imports `./x`, a script imports
    // from its own folder, `cargo` builds `./src`).
    let holds = |path: &Path| untrusted.iter().find(|dir| dir.starts_with(path));
    let refuse = |what: &str, path: &Path| {
        format!(
            "not starting {:?}: {what} {} lies inside the folders the tools may write, so the \
             agent could have changed it; put it elsewhere",
            spec.command,
            path.display()
        )
    };
    let refuse_holding = |what: &str, path: &Path, held: &Path| {
        format!(
            "not starting {:?}: {what} {} holds {}, a folder the tools may write, so the agent \
             could have changed what it loads from there; put it elsewhere",
            spec.command,
            path.display(),
            held.display()
        )
    };
    let cwd = match &spec.cwd {
        Some(cwd) if inside(&canonical(cwd)) => return Err(refuse("its working directory", cwd)),
        Some(cwd) => match holds(&canonical(cwd)) {
            Some(held) => return Err(refuse_holding("its working directory", cwd, held)),
            None => cwd.clone(),
        },
        None => match std::env::current_dir().map(|dir| canonical(&dir)) {
            Ok(ours) if !inside(&ours) && holds(&ours).is_none() => ours,
            // Its own folder, which nobody else writes, unless a folder
            // above it is the tools' (a state folder inside a root is out
            // of their reach, the folders above it are not, and programs
            // look upward for settings: `.cargo/config.toml`,
            // `node_modules`); never the temporary folder.
            _ if own
                .as_deref()
                .is_some_and(|own| !untrusted.iter().any(|dir| own.starts_with(dir))) =>
            {
                own_folder(spec, &untrusted, "working directory")?
            }
            // Else `/`: nothing above it, and nothing loaded from below it
            // unless a root is one of its entries (`python -m x` imports
            // `/x`).
            _ => match untrusted
                .iter()
                .find(|dir| dir.parent() == Some(Path::new("/")))
            {
                None => PathBuf::from("/"),
                Some(root) => {
                    return Err(format!(
                        "not starting {:?}: our working directory lies in, or holds, a folder \
                         the tools may write, and so do its own folder and `/` (which holds \
                         {}); give it a `cwd` outside the roots",
                        spec.command,
                        root.display()
                    ));
                }
            },
        },
    };
    let search = spec
        .env
        .iter()
        .rev()
        .find(|(variable, _)| variable == "PATH")
        .map(|(_, value)| std::ffi::OsString::from(value))
        .or_else(|| std::env::var_os("PATH"))
        .unwrap_or_default();
    let trusted: Vec<PathBuf> = std::env::split_paths(&search)
        .filter(|dir| dir.is_absolute() && !inside(&canonical(dir)))
        .collect();
    let named = Path::new(&spec.command);
    let found = if spec.command.contains('/') {
        cwd.join(named)
    } else {
        trusted
            .iter()
            .map(|dir| dir.join(named))
            .find(|candidate| executable(candidate))
            .ok_or_else(|| {
                format!(
                    "could not start {:?}: no such program on PATH outside the folders the tools \
                     may write (relative PATH entries are not searched)",
                    spec.command
                )
            })?
    };
    let program = std::fs::canonicalize(&found)
        .map_err(|e| format!("could not start {:?}: {e}", spec.command))?;
    if inside(&program) {
        return Err(refuse("its program", &program));
    }
    if let Some(held) = program.parent().and_then(holds) {
        return Err(refuse_holding("the folder of its program", &program, held));
    }
    // A folder a flag makes the program work or find its project in
    // (`uv --directory DIR run x.py`, `npm --prefix DIR start`) is its
    // working directory, which must lie outside as `cwd` must.
    for (at, arg) in spec.args.iter().enumerate() {
        let (flag, value) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with('-') => (flag, Some(value)),
            // `-CDIR`, the short flag with its value attached.
            _ if arg.len() > 2 && arg.starts_with("-C") && !arg.starts_with("--") => {
                ("-C", Some(&arg[2..]))
            }
            _ => (arg.as_str(), spec.args.get(at + 1).map(String::as_str)),
        };
        let folder = match (flag, value) {
            (_, None) => continue,
            // The project's folder is the manifest's.
            ("--manifest-path", Some(file)) => {
                let file = canonical(&cwd.join(file));
                file.parent().map_or(file.clone(), Path::to_path_buf)
            }
            (flag, Some(folder)) if WORKING_FOLDER_FLAGS.contains(&flag) => {
                canonical(&cwd.join(folder))
            }
            _ => continue,
        };
        if inside(&folder) {
            return Err(refuse(&format!("the folder its {flag} names,"), &folder));
        }
        if let Some(held) = holds(&folder) {
            return Err(refuse_holding(
                &format!("the folder its {flag} names,"),
                &folder,
                held,
            ));
        }
    }
    // An interpreter (or `env`, or a shell's `-c` line) runs a script
    // whatever the file is named: its first argument that is no option,
    // whatever it is (`python3 tool.zip`), and any file without an
    // extension one of its arguments names (`python3 -W ignore evil`,
    // `sh -c 'exec node ./server'`), word by word.
    if is_interpreter(&program) {
        if let Some(first) = spec.args.iter().find(|arg| !arg.starts_with('-')) {
            let file = canonical(&cwd.join(first));
            if std::fs::metadata(&file).is_ok_and(|m| m.is_file()) {
                if inside(&file) {
                    return Err(refuse("its script", &file));
                }
                // The script's folder is where it imports from.
                if let Some(held) = file.parent().and_then(holds) {
                    return Err(refuse_holding("the folder of its script", &file, held));
                }
            }
        }
        let words = spec.args.iter().flat_map(|arg| {
            arg.split(|c: char| c.is_whitespace() || matches!(c, '=' | ':' | '\'' | '"' | ';'))
        });
        for word in words.filter(|word| !word.is_empty() && !word.starts_with('-')) {
            let file = canonical(&cwd.join(word));
            if inside(&file) && (is_code(&file) || extensionless_file(&file)) {
                return Err(refuse("its script", &file));
            }
        }
    }
    // A script the program runs (`python3 server.py`, `node ./dist/x.js`,
    // `--require=hook.js`) is a program too: one named by an argument, or
    // by the value of a `--flag=value` one, must lie outside. Data files
    // (a database, a log) and folders (the one a server of files serves)
    // are let through.
    for arg in &spec.args {
        let value = arg
            .strip_prefix('-')
            .and_then(|flag| flag.split_once('=').map(|(_, value)| value));
        for named in std::iter::once(arg.as_str()).chain(value) {
            if named.is_empty() {
                continue;
            }
            let file = canonical(&cwd.join(named));
            if inside(&file) && is_code(&file) {
                return Err(refuse("its script", &file));
            }
        }
    }
    let path = std::env::join_paths(&trusted).unwrap_or_default();
    // The child's home is its own when the tools may write what per-user
    // programs load from ours (`~/.npm/_npx`, `~/.local/lib/python*`,
    // `~/.config/git`, `~/.cache/uv`): ours, or one of its hidden folders,
    // lies in the roots. Ours is `HOME`, or the account's when that is
    // not set (where programs look then).
    let our_home = std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
        .or_else(std::env::home_dir)
        .map(|home| canonical(&home));
    let exposed = our_home.as_deref().is_some_and(|home| {
        inside(home)
            || untrusted.iter().any(|dir| {
                dir.strip_prefix(home)
                    .ok()
                    .and_then(|rest| rest.components().next())
                    .is_some_and(|first| first.as_os_str().as_encoded_bytes().starts_with(b"."))
            })
            || hidden_entries_reach(home, &untrusted)
            || settings_reach(
                &[
                    home.join(".gitconfig"),
                    home.join(".config/git/config"),
                    home.join(".ssh/config"),
                ]
                .into_iter()
                .chain(user_site_pth(home))
                .collect::<Vec<_>>(),
                home,
                &untrusted,
            )
    });
    let given = |name: &str| spec.env.iter().any(|(variable, _)| variable == name);
    // Settings found through `XDG_CONFIG_HOME` (git's `git/config` among
    // them) that reach into the roots: the variable is not passed on, so
    // the child reads its home's.
    let xdg_reaches = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|xdg| xdg.is_absolute() && !given("XDG_CONFIG_HOME"))
        .is_some_and(|xdg| {
            links_reach(&xdg, HIDDEN_DEPTH - 1, &untrusted)
                || settings_reach(
                    &[xdg.join("git/config")],
                    our_home.as_deref().unwrap_or(Path::new("/")),
                    &untrusted,
                )
        });
    // Likewise the file `GIT_CONFIG_GLOBAL` names in place of git's
    // per-user settings.
    let git_global_reaches = std::env::var_os("GIT_CONFIG_GLOBAL")
        .map(PathBuf::from)
        .filter(|file| !given("GIT_CONFIG_GLOBAL") && !file.as_os_str().is_empty())
        .is_some_and(|file| {
            settings_reach(
                &[file],
                our_home.as_deref().unwrap_or(Path::new("/")),
                &untrusted,
            )
        });
    let home = if exposed && !given("HOME") {
        if spec.home.is_none() {
            return Err(format!(
                "not starting {:?}: the tools may write in its home {} (whose caches and \
                 settings run code), and no home of its own was given for it",
                spec.command,
                our_home.as_deref().unwrap_or(Path::new("")).display()
            ));
        }
        Some(own_folder(spec, &untrusted, "home")?)
    } else {
        None
    };
    // Every variable we pass on that names a folder of the roots (spelled
    // as given, canonical, or through a link), or a folder holding one, is
    // removed: programs load code from where their variables point and
    // below (`PYTHONPATH`, `NODE_OPTIONS`, `_JAVA_OPTIONS`,
    // `XDG_CONFIG_HOME` with `git/config` a root, `npm_config_cache`,
    // ...); and with the child's home moved, so is every one naming a
    // folder of ours (`XDG_DATA_HOME=~/.local/share`). `HOME` has its own
    // rule above.
    let as_given: Vec<String> = spec
        .untrusted_dirs
        .iter()
        .chain(&untrusted)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.to_string_lossy().into_owned())
        .collect();
    let names_a_root = |value: &std::ffi::OsStr| {
        let value = value.to_string_lossy();
        as_given.iter().any(|dir| value.contains(dir.as_str()))
            || value
                .split(|c: char| c == ':' || c == '=' || c == ',' || c == ';' || c.is_whitespace())
                // `~/x`, which programs expand themselves, too.
                .filter_map(|piece| match piece.strip_prefix("~/") {
                    Some(rest) => our_home.as_deref().map(|ours| ours.join(rest)),
                    None => piece.starts_with('/').then(|| PathBuf::from(piece)),
                })
                .any(|piece| {
                    let folder = canonical(&piece);
                    inside(&folder)
                        || holds(&folder).is_some()
                        || home.is_some()
                            && our_home
                                .as_deref()
                                .is_some_and(|ours| folder.starts_with(ours))
                })
    };
    let unset: Vec<std::ffi::OsString> = std::env::vars_os()
        .filter(|(name, value)| {
            let name = name.to_string_lossy();
            name != "PATH"
                && name != "HOME"
                && !given(&name)
                && (names_a_root(value)
                    || name == "XDG_CONFIG_HOME" && xdg_reaches
                    || name == "GIT_CONFIG_GLOBAL" && git_global_reaches)
        })
        .map(|(name, _)| name)
        .collect();
    // A `git` the child runs never takes a repository it merely stands in
    // (a folder shaped like a git directory, written with file tools, whose
    // config names programs) for one: `safe.bareRepository=explicit`, on
    // the command scope (`GIT_CONFIG_COUNT`), after any the child is given.
    let mut set = Vec::new();
    if !given("GIT_CONFIG_COUNT") {
        let count: usize = std::env::var("GIT_CONFIG_COUNT")
            .ok()
            .and_then(|count| count.parse().ok())
            .unwrap_or(0);
        set.push((
            format!("GIT_CONFIG_KEY_{count}"),
            "safe.bareRepository".to_owned(),
        ));
        set.push((format!("GIT_CONFIG_VALUE_{count}"), "explicit".to_owned()));
        set.push(("GIT_CONFIG_COUNT".to_owned(), (count + 1).to_string()));
    }
    // OpenSSH reads the account's `~/.ssh/config` whatever `HOME` says:
    // with the child's home moved because ours is the tools' (or its
    // settings name files of theirs), the `ssh` its git runs reads none.
    if home.is_some() && !given("GIT_SSH_COMMAND") && std::env::var_os("GIT_SSH_COMMAND").is_none()
    {
        set.push(("GIT_SSH_COMMAND".to_owned(), "ssh -F /dev/null".to_owned()));
    }
    Ok(Some(Launch {
        program,
        path,
        unset,
        home,
        set,
        cwd,
    }))
}

/// [`StdioServer::home`], created (mode 0700) when missing, as the
/// child's `what` (its home, or its working directory): a folder nobody
/// else writes.
///
/// # Errors
/// None was given, it cannot be made, or one of `untrusted` (canonical)
/// lies at or below the folder that holds it (a root inside the state
/// folder).
fn own_folder(
    spec: &StdioServer,
    untrusted: &[std::path::PathBuf],
    what: &str,
) -> Result<std::path::PathBuf, String> {
    let Some(own) = &spec.home else {
        return Err(format!(
            "not starting {:?}: no folder of its own was given for it as its {what}",
            spec.command
        ));
    };
    let mut folder = std::fs::DirBuilder::new();
    folder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut folder, 0o700);
    folder.create(own).map_err(|e| {
        format!(
            "could not start {:?}: its {what} {}: {e}",
            spec.command,
            own.display()
        )
    })?;
    let canonical = std::fs::canonicalize(own).unwrap_or_else(|_| own.clone());
    if let Some(holder) = canonical.parent()
        && untrusted.iter().any(|dir| dir.starts_with(holder))
    {
        return Err(format!(
            "not starting {:?}: its own {what} {} lies where the tools may write; put the \
             state folder outside the roots",
            spec.command,
            canonical.display()
        ));
    }
    Ok(own.clone())
}

/// How deep below `HOME` [`hidden_entries_reach`] looks for links
/// (`~/.config/git/config` is 3).
const HIDDEN_DEPTH: usize = 4;

/// How many entries [`hidden_entries_reach`] reads in each hidden folder
/// of `HOME` (`~/.config`), and below each folder of one
/// (`~/.config/git`), at most: a cache folder holds many more, the
/// settings folders that link into dotfiles repositories far fewer, and a
/// large one (`~/.config/Code`) does not use up another's share.
const HIDDEN_ENTRIES: usize = 4096;

/// Whether an entry of `home` whose name starts with `.` (`~/.local`,
/// `~/.npmrc`), or an entry below such a folder down to [`HIDDEN_DEPTH`]
/// (`~/.config/git`, `~/.config/git/config` as GNU Stow links it), is,
/// through a symbolic link, a file or folder inside `untrusted`
/// (canonical), or holds one of them (a dotfiles repository linked in).
/// At most [`HIDDEN_ENTRIES`] entries are read in each hidden folder and
/// below each of its folders.
fn hidden_entries_reach(home: &std::path::Path, untrusted: &[std::path::PathBuf]) -> bool {
    let Ok(entries) = std::fs::read_dir(home) else {
        return false;
    };
    entries.flatten().any(|entry| {
        entry.file_name().as_encoded_bytes().starts_with(b".")
            && links_reach(&entry.path(), HIDDEN_DEPTH, untrusted)
    })
}

/// Whether `path`, or an entry below it down to `depth` levels (`path`
/// is 1), is a symbolic link to a file or folder inside `untrusted`
/// (canonical), or to one holding one of them. Each folder of `path` is
/// looked through breadth first, [`HIDDEN_ENTRIES`] entries at most, as
/// is `path` itself.
fn links_reach(path: &std::path::Path, depth: usize, untrusted: &[std::path::PathBuf]) -> bool {
    let reaches = |link: &std::path::Path| {
        std::fs::canonicalize(link).is_ok_and(|target| {
            untrusted
                .iter()
                .any(|dir| target.starts_with(dir) || dir.starts_with(&target))
        })
    };
    // The links among `folders`' entries, breadth first down to `levels`
    // more levels, `budget` entries at most; the folders met on the first
    // level when `collect` is set, instead of looking below them.
    let walk = |folders: Vec<std::path::PathBuf>, levels: usize, collect: bool| {
        let mut budget = HIDDEN_ENTRIES;
        let mut level = folders;
        let mut met = Vec::new();
        for _ in 0..levels {
            let mut next = Vec::new();
            for folder in &level {
                let Ok(inner) = std::fs::read_dir(folder) else {
                    continue;
                };
                for entry in inner.flatten() {
                    if budget == 0 {
                        return (false, met);
                    }
                    budget -= 1;
                    match entry.file_type() {
                        Ok(kind) if kind.is_symlink() && reaches(&entry.path()) => {
                            return (true, met);
                        }
                        Ok(kind) if kind.is_dir() && collect => met.push(entry.path()),
                        Ok(kind) if kind.is_dir() => next.push(entry.path()),
                        _ => {}
                    }
                }
            }
            level = next;
        }
        (false, met)
    };
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => reaches(path),
        Ok(meta) if meta.is_dir() && depth > 1 => {
            let (found, folders) = walk(vec![path.to_path_buf()], 1, true);
            found
                || folders
                    .into_iter()
                    .any(|folder| walk(vec![folder], depth - 2, false).0)
        }
        _ => false,
    }
}

/// How many settings files [`settings_reach`] reads at most, following
/// the files they name (git's `[include]`, ssh's `Include`).
const SETTINGS_FILES: usize = 32;

/// Whether one of the per-user settings `files` (git's `~/.gitconfig`,
/// ssh's `~/.ssh/config`, a `.pth` file of Python's user site), or a file
/// one of them names, is a link into `untrusted` (canonical) or names a
/// path inside one of them or a folder holding one, in any word of any
/// line (lines ending in `\` continued): `[include] path =
/// ~/dotfiles/git.local`, `Include ~/dotfiles/ssh/*.conf` (up to its
/// first wildcard), an editable install's source folder. Relative words
/// are taken from the file's folder, `~/` and `~user/` from `home`; a
/// named file outside them is read in turn, [`SETTINGS_FILES`] files at
/// most, 1 MiB each. The programs that read those files run or load what
/// they name.
fn settings_reach(
    files: &[std::path::PathBuf],
    home: &std::path::Path,
    untrusted: &[std::path::PathBuf],
) -> bool {
    use std::io::Read as _;
    let reaches = |path: &std::path::Path| {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        untrusted
            .iter()
            .any(|dir| path.starts_with(dir) || dir.starts_with(&path))
    };
    let mut queue: Vec<std::path::PathBuf> = files.to_vec();
    let mut read = std::collections::HashSet::new();
    while let Some(file) = queue.pop() {
        if read.len() >= SETTINGS_FILES || !read.insert(file.clone()) {
            continue;
        }
        if !std::fs::metadata(&file).is_ok_and(|m| m.is_file()) {
            continue;
        }
        if reaches(&file) {
            return true;
        }
        let mut text = String::new();
        if std::fs::File::open(&file)
            .and_then(|f| f.take(1 << 20).read_to_string(&mut text))
            .is_err()
        {
            continue;
        }
        let folder = file.parent().unwrap_or(home).to_path_buf();
        let text = text.replace("\\\r\n", "").replace("\\\n", "");
        let words =
            text.split(|c: char| c.is_whitespace() || matches!(c, '=' | '"' | '\'' | ',' | ';'));
        for word in words.filter(|word| !word.is_empty() && !word.starts_with('#')) {
            // Up to a wildcard: the folder it picks files from.
            let word = word.split(['*', '?', '[']).next().unwrap_or_default();
            let path = match word.strip_prefix('~') {
                Some(rest) => match rest.split_once('/') {
                    Some((_, rest)) => home.join(rest),
                    None => continue,
                },
                None if word.is_empty() => continue,
                None => folder.join(word),
            };
            if reaches(&path) {
                return true;
            }
            if path != file && std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
                queue.push(path);
            }
        }
    }
    false
}

/// The `.pth` files of Python's user site in `home`
/// (`~/.local/lib/python3.*/site-packages/*.pth`): each line that is a
/// folder goes on `sys.path`, each `import` line runs.
fn user_site_pth(home: &std::path::Path) -> Vec<std::path::PathBuf> {
    let lib = home.join(".local/lib");
    let Ok(versions) = std::fs::read_dir(&lib) else {
        return Vec::new();
    };
    versions
        .flatten()
        .filter(|entry| entry.file_name().as_encoded_bytes().starts_with(b"python"))
        .filter_map(|entry| std::fs::read_dir(entry.path().join("site-packages")).ok())
        .flat_map(|files| files.flatten().take(HIDDEN_ENTRIES))
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "pth"))
        .collect()
}

/// Flags by which programs take the folder they work in or find their
/// project in (`uv --directory`, `npm --prefix`, `make -C`); `cargo
/// --manifest-path FILE` names its project's folder by a file in it.
const WORKING_FOLDER_FLAGS: [&str; 7] = [
    "--directory",
    "--project",
    "--prefix",
    "--cwd",
    "--dir",
    "--chdir",
    "-C",
];

/// Programs that run a script file named by their first argument that is
/// no option, by name without a version (`python3.11` is `python`).
const INTERPRETERS: [&str; 43] = [
    "python", "pypy", "node", "nodejs", "deno", "bun", "tsx", "ts-node", "sh", "bash", "dash",
    "zsh", "ksh", "fish", "ruby", "perl", "php", "lua", "luajit", "julia", "Rscript", "tclsh",
    "pwsh", "elixir", "env", "make", "busybox", "java", "jshell", "groovy", "kotlin", "scala",
    "dotnet", "mvn", "gradle", "rake", "just", "task", "awk", "gawk", "mawk", "nawk", "sed",
];

/// Whether `program`'s file name, without a trailing version, is one of
/// [`INTERPRETERS`].
fn is_interpreter(program: &std::path::Path) -> bool {
    let name = program
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let bare = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    INTERPRETERS.contains(&bare)
}

/// File name endings of scripts and code that interpreters and runtimes
/// load when a command line names them.
const CODE_EXTENSIONS: [&str; 57] = [
    "py", "pyc", "pyw", "pyz", "zip", "whl", "egg", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts",
    "tsx", "sh", "bash", "zsh", "fish", "ksh", "rb", "pl", "pm", "php", "lua", "jar", "class",
    "wasm", "so", "r", "jl", "go", "rs", "swift", "kts", "groovy", "exs", "ps1", "tcl", "mk",
    // Packages and libraries a runner installs or loads (`npx ./x.tgz`,
    // `uvx --from ./x.tar.gz`), and build files.
    "tgz", "gz", "tar", "node", "dylib", "dll", "exe", "gradle", "toml", "nix",
    // Source files runners take as they are (`java Server.java`).
    "java", "kt", "scala", "cs", "fsx", "awk", "sed",
];

/// File names of build and task files programs run (`make -f Makefile`,
/// `npm --prefix`'s `package.json` scripts, `docker compose -f`), and of
/// environment files that set code-loading variables (`node
/// --env-file=.env`), matched in any letter case (`.env*` by its start).
const CODE_NAMES: [&str; 20] = [
    "makefile",
    "gnumakefile",
    "justfile",
    "rakefile",
    ".env",
    "package.json",
    "deno.json",
    "deno.jsonc",
    "dockerfile",
    "containerfile",
    "compose.yaml",
    "compose.yml",
    "docker-compose.yaml",
    "docker-compose.yml",
    "gemfile",
    "taskfile.yml",
    "taskfile.yaml",
    "pom.xml",
    "build.xml",
    "setup.cfg",
];

/// Whether `path` is a regular file whose name has no extension
/// (`evil`, `server`).
fn extensionless_file(path: &std::path::Path) -> bool {
    path.extension().is_none() && std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// Whether `path` is a file a program would run: executable, starting
/// with `#!`, or named like code ([`CODE_EXTENSIONS`], [`CODE_NAMES`], any
/// letter case).
fn is_code(path: &std::path::Path) -> bool {
    use std::io::Read as _;
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let named_like_code = path.extension().is_some_and(|ext| {
        let ext = ext.to_string_lossy().to_ascii_lowercase();
        CODE_EXTENSIONS.contains(&ext.as_str())
    }) || CODE_NAMES.contains(&name.as_str())
        || name.starts_with(".env");
    let mut start = [0_u8; 2];
    let shebang = std::fs::File::open(path)
        .and_then(|mut file| file.read_exact(&mut start))
        .is_ok_and(|()| start == *b"#!");
    named_like_code || shebang || executable(path)
}

/// Whether `path` is a file anyone may execute.
fn executable(path: &std::path::Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// Whether a child of `spec` started now, with `added` among its untrusted
/// folders as well, would be started differently (another program,
/// `PATH`, working directory, home or variables), or not at all.
pub(crate) fn started_otherwise(spec: &StdioServer, added: &[std::path::PathBuf]) -> bool {
    let mut wider = spec.clone();
    wider.untrusted_dirs.extend(added.iter().cloned());
    launch(spec) != launch(&wider)
}

/// Starts the child of `spec` for the server `name`.
///
/// # Errors
/// A sentence naming the program and why it could not start.
pub(crate) fn connect(
    name: &str,
    spec: &StdioServer,
    limits: &Limits,
    deliver: Deliver,
) -> Result<Link, String> {
    let launch = launch(spec)?;
    let program = launch
        .as_ref()
        .map_or_else(|| spec.command.clone().into(), |l| l.program.clone());
    let mut command = tokio::process::Command::new(program);
    // The name it was asked by, as a shell gives it: a program found
    // through a link is often several in one (`cargo` is `rustup`).
    #[cfg(unix)]
    command.arg0(&spec.command);
    command
        .args(&spec.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    for variable in &spec.env_remove {
        command.env_remove(variable);
    }
    for (variable, value) in &spec.env {
        command.env(variable, value);
    }
    if let Some(dir) = &spec.cwd {
        command.current_dir(dir);
    }
    if let Some(launch) = &launch {
        command.env("PATH", &launch.path).current_dir(&launch.cwd);
        for variable in &launch.unset {
            command.env_remove(variable);
        }
        if let Some(home) = &launch.home {
            command.env("HOME", home);
        }
        command.envs(launch.set.iter().map(|(name, value)| (name, value)));
    }
    die_with_parent(&mut command);
    let mut child = command
        .spawn()
        .map_err(|e| format!("could not start {:?}: {e}", spec.command))?;
    let pid = child.id();
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err("the child's pipes were not made".to_owned());
    };
    let closed = CancellationToken::new();
    let exited = Arc::new(AtomicBool::new(false));
    let reader = {
        let closed = closed.clone();
        let name = name.to_owned();
        let max = limits.max_message_bytes;
        tokio::spawn(async move {
            let bounded = LineBound {
                inner: stdout,
                max,
                run: 0,
            };
            let mut lines =
                AsyncFrameReader::with_max_line_len(tokio::io::BufReader::new(bounded), max);
            loop {
                match lines.read_line().await {
                    Ok(Some(line)) => match wire::parse(&line) {
                        Some(message) => deliver(message),
                        None => {
                            tracing::debug!(server = %name, "a line that is no JSON-RPC message was skipped")
                        }
                    },
                    Ok(None) => break,
                    Err(FrameError::LineTooLong { .. }) => {
                        tracing::warn!(server = %name, max, "the server wrote a message longer than the limit; its connection is closed");
                        break;
                    }
                    Err(FrameError::Io(error)) if error.kind() == std::io::ErrorKind::Other => {
                        tracing::warn!(server = %name, max, "the server wrote a message longer than the limit; its connection is closed");
                        break;
                    }
                    Err(error) => {
                        tracing::debug!(server = %name, %error, "reading the server's stdout failed");
                        break;
                    }
                }
            }
            closed.cancel();
        })
    };
    let stderr_copy = tokio::spawn(copy_stderr(name.to_owned(), stderr));
    let waiter = {
        let closed = closed.clone();
        let exited = exited.clone();
        let name = name.to_owned();
        tokio::spawn(async move {
            let status = child.wait().await;
            exited.store(true, Ordering::SeqCst);
            match status {
                Ok(status) => {
                    tracing::debug!(server = %name, %status, "the server's process ended")
                }
                Err(error) => {
                    tracing::debug!(server = %name, %error, "waiting for the server's process failed")
                }
            }
            closed.cancel();
        })
    };
    let guard = ChildGuard {
        pid,
        exited,
        tasks: vec![reader, stderr_copy, waiter],
    };
    Ok(Link {
        out: Outbound::Pipe(Arc::new(tokio::sync::Mutex::new(stdin))),
        closed,
        guard: Box::new(guard),
        negotiated: Box::new(|_| {}),
    })
}

/// Kills the child's process group and stops the tasks of one connection
/// when dropped.
struct ChildGuard {
    pid: Option<u32>,
    exited: Arc<AtomicBool>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(pid) = self.pid
            && !self.exited.load(Ordering::SeqCst)
            && let Some(group) = i32::try_from(pid)
                .ok()
                .and_then(rustix::process::Pid::from_raw)
        {
            // The group is the child's own (process_group(0)); a group
            // that is gone already is no error.
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// A bound on what a server writes to our stderr (its own stderr, its log
/// notifications): each line prefixed with its name, cut at
/// [`STDERR_LINE_BYTES`], at most [`STDERR_LINES`] per [`STDERR_WINDOW`];
/// the lines dropped are counted and the count said once the window ends.
#[derive(Debug)]
pub(crate) struct OutputLimit {
    state: std::sync::Mutex<(Instant, u32, u64)>,
}

impl Default for OutputLimit {
    fn default() -> Self {
        Self {
            state: std::sync::Mutex::new((Instant::now(), 0, 0)),
        }
    }
}

impl OutputLimit {
    /// Writes `text` (one line) for server `name`, if the bound lets it.
    pub(crate) fn line(&self, name: &str, text: &str) {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (window, copied, dropped) = &mut *state;
        if window.elapsed() >= STDERR_WINDOW {
            if *dropped > 0 {
                tracing::warn!(server = %name, dropped = *dropped, "output lines of the server were not copied (too many)");
            }
            *window = Instant::now();
            *copied = 0;
            *dropped = 0;
        }
        if *copied >= STDERR_LINES {
            *dropped += 1;
            return;
        }
        *copied += 1;
        let mut end = text.len().min(STDERR_LINE_BYTES);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        tracing::info!(target: "mcp_mount::stderr", "[{name}] {}", text[..end].trim_end());
    }
}

/// Copies the child's stderr to ours, one line at a time, through an
/// [`OutputLimit`].
async fn copy_stderr(name: String, mut stderr: impl AsyncRead + Unpin) {
    let limit = OutputLimit::default();
    let mut buffer = Vec::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    loop {
        let n = match stderr.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        buffer.extend_from_slice(&chunk[..n]);
        let mut start = 0;
        while let Some(at) = buffer[start..].iter().position(|b| *b == b'\n') {
            limit.line(&name, &String::from_utf8_lossy(&buffer[start..start + at]));
            start += at + 1;
        }
        buffer.drain(..start);
        // A line longer than the cap is cut now, not kept growing.
        if buffer.len() > STDERR_LINE_BYTES {
            buffer.truncate(STDERR_LINE_BYTES);
        }
    }
}

/// The child's stdout, failing a read once more than `max` bytes have come
/// without a line end: a message longer than the limit ends the connection
/// as it streams, not when (if ever) its newline arrives.
struct LineBound<R> {
    inner: R,
    max: usize,
    run: usize,
}

impl<R: AsyncRead + Unpin> AsyncRead for LineBound<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        let polled = std::pin::Pin::new(&mut this.inner).poll_read(cx, buf);
        if let std::task::Poll::Ready(Ok(())) = &polled {
            let fresh = &buf.filled()[before..];
            this.run = match fresh.iter().rposition(|b| *b == b'\n') {
                Some(at) => fresh.len() - at - 1,
                None => this.run + fresh.len(),
            };
            if this.run > this.max {
                return std::task::Poll::Ready(Err(std::io::Error::other(format!(
                    "a message longer than {} bytes",
                    this.max
                ))));
            }
        }
        polled
    }
}

/// Linux: the child gets SIGKILL when the thread that spawned it ends (the
/// runtime's threads live as long as the process).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn die_with_parent(command: &mut tokio::process::Command) {
    let parent = rustix::process::getpid();
    // SAFETY: the closure runs in the forked child before exec and calls
    // only prctl and getppid (async-signal-safe system calls); it allocates
    // nothing and touches no lock.
    unsafe {
        command.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
            // The parent may have died before prctl took effect.
            if rustix::process::getppid() != Some(parent) {
                return Err(std::io::Error::other("the parent is gone"));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_: &mut tokio::process::Command) {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// A spec of `command` with `args` whose untrusted folder is `root`,
    /// working in `cwd`.
    fn spec(command: &str, args: &[String], root: &Path, cwd: &Path) -> StdioServer {
        StdioServer {
            command: command.to_owned(),
            args: args.to_vec(),
            cwd: Some(cwd.to_path_buf()),
            untrusted_dirs: vec![root.to_path_buf()],
            ..StdioServer::default()
        }
    }

    fn refused(spec: &StdioServer) -> String {
        match launch(spec) {
            Err(why) => why,
            Ok(launch) => panic!("started: {launch:?}"),
        }
    }

    #[test]
    fn a_folder_that_holds_a_root_is_no_place_to_work_or_load_code_from() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().canonicalize().unwrap();
        let (root, project) = (dir.join("project/src"), dir.join("project"));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(project.join("Cargo.toml"), "[package]\n").unwrap();
        std::fs::write(project.join("server.py"), "import src\n").unwrap();
        std::fs::write(root.join("Cargo.toml"), "[package]\n").unwrap();
        std::fs::write(root.join("pkg.tgz"), "").unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let elsewhere = elsewhere.path().canonicalize().unwrap();
        let holds = format!("holds {}, a folder the tools may write", root.display());
        let s = |args: &[&str]| args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>();
        let cases = [
            // `python3 -m x` imports `./x`, the root.
            (
                spec("python3", &s(&["-m", "src"]), &root, &project),
                format!("its working directory {} {holds}", project.display()),
            ),
            // A script imports from its own folder.
            (
                spec(
                    "python3",
                    &s(&[project.join("server.py").to_str().unwrap()]),
                    &root,
                    &elsewhere,
                ),
                format!(
                    "the folder of its script {} {holds}",
                    project.join("server.py").display()
                ),
            ),
            // `cargo` builds the manifest's folder, `src` included.
            (
                spec(
                    "cargo",
                    &s(&[
                        "run",
                        "--manifest-path",
                        project.join("Cargo.toml").to_str().unwrap(),
                    ]),
                    &root,
                    &elsewhere,
                ),
                format!(
                    "the folder its --manifest-path names, {} {holds}",
                    project.display()
                ),
            ),
            (
                spec(
                    "cargo",
                    &s(&[
                        "run",
                        &format!("--manifest-path={}", root.join("Cargo.toml").display()),
                    ]),
                    &root,
                    &elsewhere,
                ),
                format!(
                    "the folder its --manifest-path names, {} lies inside",
                    root.display()
                ),
            ),
            (
                spec(
                    "env",
                    &s(&[&format!("--chdir={}", project.display()), "true"]),
                    &root,
                    &elsewhere,
                ),
                format!(
                    "the folder its --chdir names, {} {holds}",
                    project.display()
                ),
            ),
            // A package a runner installs is code.
            (
                spec(
                    "env",
                    &s(&["true", root.join("pkg.tgz").to_str().unwrap()]),
                    &root,
                    &elsewhere,
                ),
                format!("its script {} lies inside", root.join("pkg.tgz").display()),
            ),
        ];
        for (spec, expected) in cases {
            let why = refused(&spec);
            assert!(
                why.contains(&expected),
                "{:?} {:?}: {why}",
                spec.command,
                spec.args
            );
        }
        // Elsewhere, the same commands start.
        let fine = spec("python3", &s(&["-m", "src"]), &root, &elsewhere);
        let launch = launch(&fine).unwrap().expect("a launch");
        assert_eq!(launch.cwd, elsewhere);
    }

    #[test]
    fn without_a_working_directory_of_its_own_a_child_works_in_its_own_folder() {
        // Ours (the crate's folder) holds the root: the child works in the
        // folder given as its home, never in `/`, which holds every root.
        let ours = std::env::current_dir().unwrap().canonicalize().unwrap();
        let own = tempfile::tempdir().unwrap();
        let mut spec = spec(
            "python3",
            &["-c".to_owned(), "pass".to_owned()],
            &ours.join("src"),
            &ours,
        );
        spec.cwd = None;
        spec.home = Some(own.path().join("kb"));
        let launched = launch(&spec).unwrap().expect("a launch");
        assert_eq!(launched.cwd, own.path().join("kb"));
        assert!(own.path().join("kb").is_dir());
        // Without one, or with one inside a root (a state folder there: the
        // folders above it are the tools'), `/`.
        for home in [None, Some(ours.join("src/state/servers/kb"))] {
            spec.home = home;
            let launched = launch(&spec).unwrap().expect("a launch");
            assert_eq!(launched.cwd, Path::new("/"));
        }
    }

    #[test]
    fn settings_that_reach_into_a_root_are_seen() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().canonicalize().unwrap();
        let (home, dotfiles) = (dir.join("home"), dir.join("dotfiles"));
        std::fs::create_dir_all(home.join(".config/git")).unwrap();
        std::fs::create_dir_all(&dotfiles).unwrap();
        std::fs::write(dotfiles.join("gitconfig"), "").unwrap();
        let roots = std::slice::from_ref(&dotfiles);
        // A large settings folder read first does not use up the share of
        // the one with the link.
        let big = home.join(".config/aaa");
        std::fs::create_dir(&big).unwrap();
        for n in 0..HIDDEN_ENTRIES + 100 {
            std::fs::write(big.join(n.to_string()), "").unwrap();
        }
        assert!(!hidden_entries_reach(&home, roots));
        std::os::unix::fs::symlink(dotfiles.join("gitconfig"), home.join(".config/git/config"))
            .unwrap();
        assert!(hidden_entries_reach(&home, roots));
        // Settings naming a file of the roots, with no link at all: git's
        // include, written in every way git reads it, through another
        // file, ssh's, and an editable install's `.pth` line.
        let plain = dir.join("plain");
        std::fs::create_dir_all(plain.join(".gitconfig.d")).unwrap();
        let settings = [plain.join(".gitconfig")];
        std::fs::write(&settings[0], "[user]\n\tname = Someone\n").unwrap();
        assert!(!settings_reach(&settings, &plain, roots));
        let through = plain.join(".gitconfig.d/main");
        for text in [
            format!("[include]\n\tpath = \"{}/gitconfig\"\n", dotfiles.display()),
            "[include]\n\tpath = ../dotfiles/gitconfig\n".to_owned(),
            format!(
                "[include]\n\tpath = {}/dot\\\nfiles/gitconfig\n",
                dir.display()
            ),
            "[include]\n\tpath = ~someone/../dotfiles/gitconfig\n".to_owned(),
            format!("[include]\n\tpath = {}\n", through.display()),
            "Host *\n  Include ~/../dotfiles/*.conf\n".to_owned(),
            format!("{}\n", dotfiles.display()),
        ] {
            std::fs::write(
                &through,
                format!("[core]\n\tpath = {}/gitconfig\n", dotfiles.display()),
            )
            .unwrap();
            std::fs::write(&settings[0], &text).unwrap();
            assert!(settings_reach(&settings, &plain, roots), "{text}");
        }
    }

    #[test]
    fn source_files_that_runners_take_are_scripts() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path().canonicalize().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let mut checked = 0;
        for (command, file) in [
            ("java", "Server.java"),
            ("awk", "x.awk"),
            ("mvn", "pom.xml"),
        ] {
            std::fs::write(root.join(file), "").unwrap();
            let args = vec!["-f".to_owned(), root.join(file).display().to_string()];
            let spec = spec(command, &args, &root, elsewhere.path());
            // A machine without the program says so; one with it refuses.
            let why = refused(&spec);
            let script = format!("its script {} lies inside", root.join(file).display());
            assert!(
                why.contains(&script) || why.contains("no such program on PATH"),
                "{command}: {why}"
            );
            checked += usize::from(why.contains(&script));
        }
        // `awk` is on every machine that runs these tests.
        assert!(checked >= 1);
    }
}
