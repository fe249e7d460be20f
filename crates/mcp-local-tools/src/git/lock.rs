//! The configuration `git` runs with when the call may start no other
//! program ([`crate::ToolContext::run_programs`] is `false`).
//!
//! git reads config from the system file, the user's global file (or the
//! XDG one), files those include, the repository and its worktree; many
//! keys there name a program git starts (a filter, a diff or merge driver,
//! a hook, an editor, a credential helper, an ssh command ...). With
//! programs forbidden:
//!
//! - the system and global files are not read by any run of the call
//!   (`GIT_CONFIG_NOSYSTEM=1`, `GIT_CONFIG_GLOBAL=/dev/null`), the checks
//!   that find the repository included; the user's identity and a short
//!   list of ordinary settings ([`PASSED_ON`]) are read from the files
//!   themselves beforehand (their includes not followed) and given back on
//!   the command scope, unless the repository sets them itself;
//! - `pull` merges with a built-in strategy only (`pull.twohead=ort`,
//!   `branch.<name>.mergeOptions` emptied);
//! - every key of any scope that names a program ([`neutral_value`]) is
//!   overridden on the command scope (`GIT_CONFIG_COUNT`, which wins over
//!   every file);
//! - hooks never run (`core.hooksPath=/dev/null`), signing is off, the
//!   editor is `:` (which git never starts), submodules are not recursed
//!   into (their own config is not inspected), and only the `file`, `git`,
//!   `http` and `https` transports are allowed (ssh starts `ssh`, and a
//!   remote helper is a program);
//! - a repository whose config includes a file outside its own git
//!   directory is refused: inside the roots the agent could change that
//!   file between the listing and the run; outside them it is a file no
//!   tool may read, whose values `remote` or `branch` would show;
//! - a repository with a worktree entry (`<common>/worktrees/<id>/`)
//!   whose `commondir` names a folder outside the roots is refused
//!   (checked by `Repo::open` in `run.rs`): `worktree list` and `branch`
//!   read the refs of the repository it names and would show its branches
//!   and hashes; where the entry's work tree lies (`gitdir`) is not
//!   checked, but `worktree list` leaves out git's `prunable` mark for one
//!   outside the roots (it would tell whether that path exists);
//! - a repository whose config has a conditional include (`includeIf`)
//!   is refused: whether it applies can change within the call (a
//!   branch switched), after the listing;
//! - no automatic maintenance runs (`maintenance.auto`, `gc.auto`);
//! - bundle URIs are off (`fetch.bundleURI`, `transfer.bundleURI`): a
//!   fetch would import the bundle a path names, wherever it lies;
//! - files outside the repository that git would read or write are not
//!   used: cookie files (read, sent to the remote, overwritten), the diff
//!   order file;
//! - a repository whose config names an fsck skip list outside the roots
//!   (`fsck.skipList`, `fetch.fsck.skipList`, `receive.fsck.skipList`) is
//!   refused: git reads every list it is given, so no override takes one
//!   back, and a line that is not an object name is echoed in an error;
//! - a pull of more than two heads fails instead of running the octopus
//!   script (`pull.octopus=ort`);
//! - a `core.excludesFile` outside the roots is not read when the
//!   repository's config, or a global file inside the roots, names it (it
//!   would tell, through `status`, which lines a file no tool may read
//!   holds), nor is git's default one (`git/ignore` of the user's
//!   settings folder), nor its default attributes file
//!   (`git/attributes`), when it lies inside the roots and links out of
//!   them; nothing of a global settings file that does is passed on;
//! - a `mailmap.file` outside the roots that the repository's config
//!   names is not read by any run (`/dev/null` on the command scope;
//!   reading runs empty it anyway): the names shown through it would tell
//!   what it holds;
//! - a repository whose config names a TLS file outside the roots
//!   (`http.sslCert`, `http.sslKey`, `http.sslCAInfo`, `http.sslCAPath`,
//!   `http.proxySSLCert`, `http.proxySSLKey`, `http.proxySSLCAInfo`, each
//!   also as `http.<url>.<key>`) is refused: git would read it and use it
//!   (a client key, say) for a connection to a remote the agent can
//!   choose; a global file inside the roots that names a CA file or
//!   folder outside them does not pass it on;
//! - a repository whose config sets a key no override can neutralise
//!   ([`UNLOCKABLE`]) is refused.

use std::path::{Path, PathBuf};

use crate::roots::Roots;

/// Keys read from the system and global files and passed on (lower case,
/// as `git config --list` prints them): who the user is and settings that
/// change no program.
const PASSED_ON: &[&str] = &[
    "user.name",
    "user.email",
    "author.name",
    "author.email",
    "committer.name",
    "committer.email",
    "init.defaultbranch",
    "core.autocrlf",
    "core.eol",
    "core.safecrlf",
    "core.quotepath",
    "core.excludesfile",
    "core.abbrev",
    "core.precomposeunicode",
    "diff.renames",
    "diff.algorithm",
    "merge.conflictstyle",
    "pull.rebase",
    "pull.ff",
    "push.default",
    "push.autosetupremote",
    "fetch.prune",
    "branch.autosetupmerge",
    "branch.autosetuprebase",
    "safe.directory",
    "http.proxy",
    "http.sslcainfo",
    "http.sslcapath",
    "http.sslverify",
];

/// Keys every locked run gets, whatever the config says.
const FIXED: &[(&str, &str)] = &[
    ("core.hooksPath", "/dev/null"),
    ("core.fsmonitor", "false"),
    ("core.editor", ":"),
    ("sequence.editor", ":"),
    ("core.pager", "cat"),
    ("core.askPass", ""),
    ("core.sshCommand", ""),
    ("core.gitProxy", ""),
    ("credential.helper", ""),
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("tag.forceSignAnnotated", "false"),
    ("push.gpgSign", "false"),
    ("merge.verifySignatures", "false"),
    ("log.showSignature", "false"),
    ("submodule.recurse", "false"),
    ("fetch.recurseSubmodules", "false"),
    ("push.recurseSubmodules", "no"),
    ("diff.ignoreSubmodules", "all"),
    ("diff.submodule", "short"),
    ("status.submoduleSummary", "false"),
    // No automatic maintenance: `commit`, `fetch` and `pull` would start
    // `git maintenance run --auto` (gc, prune, repack), which reads keys
    // such as `gc.recentObjectsHook` (a shell command) and
    // `gc.repackFilterTo` (a pack written anywhere), and may outlive the
    // call detached.
    ("maintenance.auto", "false"),
    // The merge strategies `pull` uses: only built-in ones. A strategy
    // name is a program (`git-merge-<name>`), and `resolve` and `octopus`
    // are shell scripts.
    ("pull.twohead", "ort"),
    // More than one head to merge (two `branch.<name>.merge` values) would
    // take `pull.octopus`, by default `octopus`, a shell script that runs
    // `sed` and `tr` from `PATH`: `ort` takes no more than two heads, so
    // such a pull fails, running nothing.
    ("pull.octopus", "ort"),
    ("gc.auto", "0"),
    ("gc.autoDetach", "false"),
    ("fetch.bundleURI", ""),
    ("transfer.bundleURI", "false"),
    ("protocol.allow", "never"),
    ("protocol.ssh.allow", "never"),
    ("protocol.ext.allow", "never"),
    ("protocol.file.allow", "never"),
];

/// Keys that name a program and that no value on the command scope can
/// take back (lower case): git keeps the *first* `core.gitProxy` it
/// reads, which is the repository's, not the last; it runs any
/// `core.alternateRefsCommand` through a shell, an empty one too; and
/// `gc.recentObjectsHook` is a list, every value of which `gc` runs (a
/// value added on the command line adds a command). A repository that
/// sets one is refused while no program may run.
const UNLOCKABLE: [&str; 3] = [
    "core.gitproxy",
    "core.alternaterefscommand",
    "gc.recentobjectshook",
];

/// The names (lower case) of the `http.<name>` and `http.<url>.<name>`
/// keys that name a file or folder git reads for a TLS connection: client
/// certificates and keys, CA bundles and folders, the proxy's too.
const TLS_FILE_KEYS: [&str; 7] = [
    "sslcert",
    "sslkey",
    "sslcainfo",
    "sslcapath",
    "proxysslcert",
    "proxysslkey",
    "proxysslcainfo",
];

/// Whether `key` (as `git config --list` prints it) is one of the
/// [`TLS_FILE_KEYS`], in its plain or URL-specific form.
fn is_tls_file_key(key: &str) -> bool {
    let Some((section, rest)) = key.split_once('.') else {
        return false;
    };
    let name = rest.rsplit_once('.').map_or(rest, |(_url, name)| name);
    section.eq_ignore_ascii_case("http")
        && TLS_FILE_KEYS
            .iter()
            .any(|known| known.eq_ignore_ascii_case(name))
}

/// Whether `key` (as `git config --list` prints it) names an fsck skip
/// list: `fsck.skipList`, `fetch.fsck.skipList`, `receive.fsck.skipList`.
/// git reads every one it is given (each value adds a list, so a value on
/// the command scope cannot take the repository's back) and stops at the
/// first line that is not an object name, echoing it in its error
/// ("invalid object name: ...").
fn is_skip_list_key(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "fsck.skiplist" | "fetch.fsck.skiplist" | "receive.fsck.skiplist"
    )
}

/// The transports allowed (each runs inside git), unless the repository
/// is stricter. Not `file`: a local path or `file://` remote is served by
/// a second git process (`git-receive-pack`, `git-upload-pack`) that
/// reads the *remote* repository's own config and hooks without the
/// overrides given here, so a repository the tools can write would run
/// what its config names (`core.alternateRefsCommand`, a `pre-receive`
/// hook).
const TRANSPORTS: [&str; 3] = ["git", "http", "https"];

/// One entry of `git config --list --show-scope --show-origin -z`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// `system`, `global`, `local`, `worktree`, `command`.
    pub(crate) scope: String,
    /// The file it came from (`file:` stripped), when it came from one.
    pub(crate) file: Option<String>,
    /// The key, section and name in lower case.
    pub(crate) key: String,
    /// Its value (`None` for a bare boolean key).
    pub(crate) value: Option<String>,
}

/// Parses the `-z` listing: `scope NUL origin NUL key [LF value] NUL`.
pub(crate) fn parse(listing: &str) -> Vec<Entry> {
    let mut fields = listing.split('\0');
    let mut entries = Vec::new();
    while let (Some(scope), Some(origin), Some(pair)) =
        (fields.next(), fields.next(), fields.next())
    {
        let (key, value) = match pair.split_once('\n') {
            Some((key, value)) => (key, Some(value.to_owned())),
            None => (pair, None),
        };
        entries.push(Entry {
            scope: scope.to_owned(),
            file: origin.strip_prefix("file:").map(str::to_owned),
            key: key.to_owned(),
            value,
        });
    }
    entries
}

/// The value that makes `key` (as `git config --list` prints it) name no
/// program, when it can name one; `None` for every other key.
pub(crate) fn neutral_value(key: &str) -> Option<&'static str> {
    let (section, rest) = key.split_once('.')?;
    let (sub, name) = match rest.rsplit_once('.') {
        Some((sub, name)) => (Some(sub), name),
        None => (None, rest),
    };
    let section = section.to_ascii_lowercase();
    let name = name.to_ascii_lowercase();
    match (section.as_str(), sub, name.as_str()) {
        ("filter", Some(_), "clean" | "smudge" | "process") => Some(""),
        ("filter", Some(_), "required") => Some("false"),
        ("diff", Some(_), "command" | "textconv") => Some(""),
        ("diff", None, "external") => Some(""),
        ("merge", Some(_), "driver") => Some(""),
        ("core", None, "fsmonitor") => Some("false"),
        ("core", None, "editor") => Some(":"),
        ("core", None, "pager") => Some("cat"),
        ("core", None, "hookspath") => Some("/dev/null"),
        ("core", None, "askpass" | "sshcommand" | "gitproxy") => Some(""),
        ("core", None, "attributesfile") => Some("/dev/null"),
        ("sequence", None, "editor") => Some(":"),
        ("pager", _, _) => Some("false"),
        ("alias", _, _) => Some(""),
        ("credential", _, "helper") => Some(""),
        ("gpg", _, "program") => Some(""),
        ("interactive", None, "difffilter") => Some(""),
        ("remote", Some(_), "uploadpack") => Some("git-upload-pack"),
        // Options for `merge` when on that branch: `-s <strategy>` names
        // a program.
        ("branch", Some(_), "mergeoptions") => Some(""),
        ("remote", Some(_), "receivepack") => Some("git-receive-pack"),
        ("uploadpack", None, "packobjectshook") => Some(""),
        ("hook", Some(_), "command") => Some(""),
        ("ssh", None, "variant") => Some("simple"),
        // Files git reads or writes wherever they are: a cookie file is
        // read, sent to the remote and, with `saveCookies`, overwritten.
        // (fsck skip lists cannot be overridden: see `is_skip_list_key`.)
        // The order of a diff's files tells which lines of an order file
        // name them, and a missing one is named in the error.
        ("diff", None, "orderfile") => Some("/dev/null"),
        ("http", _, "cookiefile") => Some(""),
        ("http", _, "savecookies") => Some("false"),
        ("protocol", Some(p), "allow") if !TRANSPORTS.contains(&p) => Some("never"),
        _ => None,
    }
}

/// What a locked run is given: the config entries (in order; later ones
/// win) and the remotes that name a helper program (`remote.<name>.vcs`).
#[derive(Debug, Default)]
pub(crate) struct Locked {
    /// `(key, value)` pairs for `GIT_CONFIG_COUNT`.
    pub(crate) config: Vec<(String, String)>,
    /// Remotes whose transport is a helper program: fetch, pull and push
    /// refuse them.
    pub(crate) helper_remotes: Vec<String>,
}

/// Builds the locked config from `entries` (every scope, includes
/// followed). `top` is the folder git names the repository's config files
/// relative to (the work tree's top). `git_dirs` are the repository's git
/// and common directories: a config file there is the repository's own.
/// An error names an included config file outside them, a conditional
/// include, a key no override neutralises, or a TLS file outside the
/// roots.
pub(crate) fn lock(
    entries: &[Entry],
    top: &Path,
    roots: &Roots,
    git_dirs: &[PathBuf],
) -> Result<Locked, String> {
    let mut locked = Locked::default();
    let repository = |e: &Entry| matches!(e.scope.as_str(), "local" | "worktree");
    if let Some(entry) = entries
        .iter()
        .find(|e| repository(e) && e.key.to_ascii_lowercase().starts_with("includeif."))
    {
        return Err(format!(
            "git: the repository's config has a conditional include ({}); refused while no \
             program may run (whether it applies can change during the call, after the \
             config was checked)",
            entry.key
        ));
    }
    for entry in entries.iter().filter(|&e| repository(e)) {
        let Some(file) = &entry.file else { continue };
        let path = top.join(file);
        let real = std::fs::canonicalize(&path).unwrap_or(path);
        if git_dirs.iter().any(|dir| real.starts_with(dir)) {
            continue;
        }
        if roots.root_of(&real).is_some() {
            return Err(format!(
                "git: the repository's config includes {}, a file inside the roots; \
                 refused while no program may run (an included file could name one)",
                real.display()
            ));
        }
        // Outside the roots: the tools would show what it holds (a
        // remote's URL with its token, say), which no tool may read.
        return Err(format!(
            "git: the repository's config includes {}, a file outside the roots and outside \
             its git directory; refused while no program may run (its values would be read \
             and shown)",
            real.display()
        ));
    }
    if let Some(entry) = entries
        .iter()
        .find(|e| repository(e) && UNLOCKABLE.contains(&e.key.to_ascii_lowercase().as_str()))
    {
        return Err(format!(
            "git: the repository's config sets {}, which names a program git would run \
             whatever this server sets; refused while no program may run (remove the key, \
             or allow an action that runs programs)",
            entry.key
        ));
    }
    // Files git would read wherever the repository's config points.
    let read_files = [
        (
            is_tls_file_key as fn(&str) -> bool,
            "git would read it and use it for a connection to a remote the agent can choose",
        ),
        (
            is_skip_list_key,
            "git would read that file and show its first line that is not an object name in \
             an error",
        ),
    ];
    for (names_file, why) in read_files {
        if let Some(entry) = entries.iter().find(|e| {
            repository(e) && names_file(&e.key) && !inside_roots(e.value.as_deref(), top, roots)
        }) {
            return Err(format!(
                "git: the repository's config sets {} to {}, outside the roots; refused while \
                 no program may run ({why})",
                entry.key,
                entry.value.as_deref().unwrap_or_default()
            ));
        }
    }
    // The user's ordinary settings first (system, then global: the later
    // wins), unless the repository sets the key itself.
    for scope in ["system", "global"] {
        for entry in entries.iter().filter(|e| e.scope == scope) {
            let key = entry.key.to_ascii_lowercase();
            let multi = key == "safe.directory";
            if !PASSED_ON.contains(&key.as_str())
                || (!multi
                    && entries
                        .iter()
                        .any(|e| repository(e) && e.key.eq_ignore_ascii_case(&key)))
            {
                continue;
            }
            // A global file inside the roots is one the agent may have
            // written: an excludes file it names outside the roots would
            // be read (`status` tells which of its lines match), and a CA
            // file or folder used for a connection the agent chose.
            // A settings file in the roots that links out of them is one
            // the agent made (`~/.config/git/config` to a file no tool may
            // read): nothing of it is passed on.
            if entry
                .file
                .as_deref()
                .is_some_and(|file| linked_out(Path::new(file), roots))
            {
                continue;
            }
            let writable = entry.file.as_deref().is_some_and(|file| {
                let path = Path::new(file);
                let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
                roots.root_of(&real).is_some()
            });
            if (key == "core.excludesfile" || is_tls_file_key(&key))
                && writable
                && !inside_roots(entry.value.as_deref(), top, roots)
            {
                continue;
            }
            if let Some(value) = &entry.value {
                locked.config.push((entry.key.clone(), value.clone()));
            }
        }
    }
    for (key, value) in FIXED {
        locked.config.push(((*key).to_owned(), (*value).to_owned()));
    }
    for transport in TRANSPORTS {
        let key = format!("protocol.{transport}.allow");
        if !entries.iter().any(|e| repository(e) && e.key == key) {
            locked.config.push((key, "always".to_owned()));
        }
    }
    for entry in entries {
        if let Some(value) = neutral_value(&entry.key)
            && !locked
                .config
                .iter()
                .any(|(k, v)| *k == entry.key && v == value)
        {
            locked.config.push((entry.key.clone(), value.to_owned()));
        }
        if let Some(remote) = entry
            .key
            .strip_prefix("remote.")
            .and_then(|rest| rest.strip_suffix(".vcs"))
            && !locked.helper_remotes.iter().any(|r| r == remote)
        {
            locked.helper_remotes.push(remote.to_owned());
        }
    }
    // With none named, git reads `git/ignore` and `git/attributes` of the
    // user's settings folder: inside the roots (HOME a root), the agent
    // may have made them links to files no tool may read (whose lines
    // `status` would confirm, or git's warnings print) or to `/dev/zero`.
    let settings = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".config")));
    for (key, name) in [
        ("core.excludesFile", "ignore"),
        ("core.attributesFile", "attributes"),
    ] {
        let named = locked
            .config
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case(key));
        if !named
            && settings
                .as_deref()
                .is_some_and(|dir| linked_out(&dir.join("git").join(name), roots))
        {
            locked.config.push((key.to_owned(), "/dev/null".to_owned()));
        }
    }
    // The last value the repository sets is the one git reads.
    for key in ["core.excludesFile", "mailmap.file"] {
        if let Some(entry) = entries
            .iter()
            .rev()
            .find(|e| repository(e) && e.key.eq_ignore_ascii_case(key))
            && !inside_roots(entry.value.as_deref(), top, roots)
        {
            locked.config.push((key.to_owned(), "/dev/null".to_owned()));
        }
    }
    Ok(locked)
}

/// Whether `file` lies in the roots as written (its folder resolved) and
/// resolves out of them, through a link: to a file no tool may read, or
/// to `/dev/zero`.
fn linked_out(file: &Path, roots: &Roots) -> bool {
    let written = file
        .parent()
        .and_then(|dir| std::fs::canonicalize(dir).ok())
        .zip(file.file_name())
        .map(|(dir, name)| dir.join(name));
    let real = std::fs::canonicalize(file).ok();
    written.is_some_and(|p| roots.root_of(&p).is_some())
        && real.is_some_and(|p| roots.root_of(&p).is_none())
}

/// Whether a config value naming a file or folder (`core.excludesFile`,
/// `mailmap.file`, a TLS file) names one inside the roots: a plain path
/// (relative ones from `top`), resolved. `~` and `%(prefix)` forms are not
/// expanded here, so they count as outside. No value, or an empty one,
/// names nothing.
fn inside_roots(value: Option<&str>, top: &Path, roots: &Roots) -> bool {
    let Some(value) = value.filter(|v| !v.is_empty()) else {
        return true;
    };
    if value.starts_with('~') || value.starts_with("%(") {
        return false;
    }
    let path = top.join(value);
    // A file not there yet is judged by its folder.
    let real = std::fs::canonicalize(&path).or_else(|_| {
        let parent = path.parent().unwrap_or(&path);
        std::fs::canonicalize(parent)
    });
    real.is_ok_and(|real| roots.root_of(&real).is_some())
}

#[cfg(test)]
mod tests {
    use super::{Locked, neutral_value, parse};

    /// The last value of `key` on the command scope of `locked`: the one
    /// git uses.
    fn last<'a>(locked: &'a Locked, key: &str) -> Option<&'a str> {
        locked
            .config
            .iter()
            .rev()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }

    #[test]
    fn the_listing_is_parsed_with_bare_keys() {
        let entries = parse(
            "global\0file:/h/.gitconfig\0user.name\nAda\0local\0file:.git/config\0core.bare\0command\0command line:\0a.b\nc\0",
        );
        assert_eq!(entries.len(), 3);
        assert_eq!(entries[0].file.as_deref(), Some("/h/.gitconfig"));
        assert_eq!(entries[0].value.as_deref(), Some("Ada"));
        assert_eq!(entries[1].key, "core.bare");
        assert_eq!(entries[1].value, None);
        assert_eq!(entries[2].file, None);
    }

    #[test]
    fn a_repository_s_octopus_and_file_keys_are_overridden_on_the_command_scope() {
        let top = std::env::temp_dir();
        let roots = crate::roots::Roots::new(vec![top.clone()]).expect("a root");
        let entries = parse(
            "local\0file:.git/config\0pull.octopus\npwn\0\
             local\0file:.git/config\0http.http://127.0.0.1:1/.cookiefile\n/tmp/jar\0\
             local\0file:.git/config\0http.savecookies\ntrue\0",
        );
        let locked = super::lock(&entries, &top, &roots, &[top.join(".git")]).expect("locked");
        // The last value of a key on the command scope is the one git uses.
        let last = |key: &str| {
            locked
                .config
                .iter()
                .rev()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(last("pull.octopus"), Some("ort"));
        assert_eq!(last("pull.twohead"), Some("ort"));
        assert_eq!(last("http.http://127.0.0.1:1/.cookiefile"), Some(""));
        assert_eq!(last("http.savecookies"), Some("false"));
    }

    /// A sandbox for the file keys: a root holding `certs/client.pem` and a
    /// folder outside it holding `key.pem`.
    struct Files {
        _dir: tempfile::TempDir,
        root: std::path::PathBuf,
        outside: std::path::PathBuf,
        roots: crate::roots::Roots,
    }

    impl Files {
        fn new() -> Files {
            let dir = tempfile::tempdir().expect("a folder");
            let base = std::fs::canonicalize(dir.path()).expect("canonical");
            let root = base.join("root");
            let outside = base.join("outside");
            std::fs::create_dir_all(root.join("certs")).expect("root");
            std::fs::create_dir_all(&outside).expect("outside");
            std::fs::write(root.join("certs/client.pem"), "cert").expect("cert");
            std::fs::write(outside.join("key.pem"), "key").expect("key");
            let roots = crate::roots::Roots::new(vec![root.clone()]).expect("a root");
            Files {
                _dir: dir,
                root,
                outside,
                roots,
            }
        }

        /// `lock` of one `scope` entry from `file` setting `key` to `value`.
        fn lock_one(
            &self,
            scope: &str,
            file: &str,
            key: &str,
            value: &str,
        ) -> Result<Locked, String> {
            let entries = parse(&format!("{scope}\0file:{file}\0{key}\n{value}\0"));
            super::lock(&entries, &self.root, &self.roots, &[self.root.join(".git")])
        }
    }

    #[test]
    fn a_repository_s_skip_list_outside_the_roots_refuses_the_call() {
        let f = Files::new();
        let list = f.outside.join("secret.txt").display().to_string();
        for key in [
            "fsck.skiplist",
            "fetch.fsck.skiplist",
            "receive.fsck.skipList",
        ] {
            for scope in ["local", "worktree"] {
                for value in [list.as_str(), "../outside/secret.txt", "~/secret.txt"] {
                    assert_eq!(
                        f.lock_one(scope, ".git/config", key, value).err(),
                        Some(format!(
                            "git: the repository's config sets {key} to {value}, outside the \
                             roots; refused while no program may run (git would read that file \
                             and show its first line that is not an object name in an error)"
                        )),
                        "{scope} {key} {value}"
                    );
                }
            }
            // Inside the roots the agent may read the list anyway.
            let locked = f
                .lock_one("local", ".git/config", key, "certs/client.pem")
                .expect("a list inside the roots");
            assert!(
                !locked
                    .config
                    .iter()
                    .any(|(k, _)| k.eq_ignore_ascii_case(key)),
                "{key}"
            );
        }
    }

    #[test]
    fn a_repository_s_tls_file_outside_the_roots_refuses_the_call() {
        let f = Files::new();
        let key_file = f.outside.join("key.pem").display().to_string();
        for key in [
            "http.sslcert",
            "http.sslkey",
            "http.sslcainfo",
            "http.sslcapath",
            "http.proxysslcert",
            "http.proxysslkey",
            "http.proxysslcainfo",
            "http.https://example.com/.sslkey",
            "http.http://127.0.0.1:1/.proxySSLCert",
        ] {
            for scope in ["local", "worktree"] {
                for value in [
                    key_file.as_str(),
                    "../outside/key.pem",
                    "~/.ssh/id.pem",
                    "%(prefix)/etc/ca.pem",
                ] {
                    assert_eq!(
                        f.lock_one(scope, ".git/config", key, value).err(),
                        Some(format!(
                            "git: the repository's config sets {key} to {value}, outside the \
                             roots; refused while no program may run (git would read it and \
                             use it for a connection to a remote the agent can choose)"
                        )),
                        "{scope} {key} {value}"
                    );
                }
            }
            // Inside the roots, absolute or relative to the top: kept as
            // the repository sets it (nothing on the command scope).
            let inside = f.root.join("certs/client.pem").display().to_string();
            for value in [inside.as_str(), "certs/client.pem", "certs"] {
                let locked = f
                    .lock_one("local", ".git/config", key, value)
                    .unwrap_or_else(|e| panic!("{key} {value}: {e}"));
                assert_eq!(last(&locked, key), None, "{key} {value}");
            }
        }
        // The user's own global file outside the roots: passed on.
        let global = f.outside.join(".gitconfig").display().to_string();
        let locked = f
            .lock_one("global", &global, "http.sslcainfo", &key_file)
            .expect("locked");
        assert_eq!(last(&locked, "http.sslcainfo"), Some(key_file.as_str()));
        // A global file inside the roots, which the agent may have written:
        // not passed on when it names a file outside them, passed on when
        // inside.
        let writable = f.root.join(".gitconfig").display().to_string();
        let locked = f
            .lock_one("global", &writable, "http.sslcainfo", &key_file)
            .expect("locked");
        assert_eq!(last(&locked, "http.sslcainfo"), None);
        let locked = f
            .lock_one("global", &writable, "http.sslcapath", "certs")
            .expect("locked");
        assert_eq!(last(&locked, "http.sslcapath"), Some("certs"));
    }

    #[test]
    fn a_repository_s_mailmap_file_outside_the_roots_is_not_read() {
        let f = Files::new();
        let outside = f.outside.join("key.pem").display().to_string();
        for value in [outside.as_str(), "../outside/key.pem", "~/.mailmap"] {
            for scope in ["local", "worktree"] {
                let locked = f
                    .lock_one(scope, ".git/config", "mailmap.file", value)
                    .expect("locked");
                assert_eq!(
                    last(&locked, "mailmap.file"),
                    Some("/dev/null"),
                    "{scope} {value}"
                );
            }
        }
        for value in ["certs/client.pem", ""] {
            let locked = f
                .lock_one("local", ".git/config", "mailmap.file", value)
                .expect("locked");
            assert_eq!(last(&locked, "mailmap.file"), None, "{value}");
        }
    }

    #[test]
    fn program_keys_are_neutralised_and_others_kept() {
        for (key, value) in [
            ("filter.lfs.clean", ""),
            ("filter.a.b.process", ""),
            ("filter.x.required", "false"),
            ("diff.pdf.textconv", ""),
            ("diff.external", ""),
            ("merge.ours.driver", ""),
            ("core.fsmonitor", "false"),
            ("core.sshcommand", ""),
            ("pager.log", "false"),
            ("alias.st", ""),
            ("credential.https://example.com.helper", ""),
            ("gpg.ssh.program", ""),
            ("remote.origin.uploadpack", "git-upload-pack"),
            ("branch.main.mergeOptions", ""),
            ("protocol.foo.allow", "never"),
            ("http.cookieFile", ""),
            ("http.https://example.com/.cookiefile", ""),
            ("http.saveCookies", "false"),
            ("diff.orderFile", "/dev/null"),
            ("http.http://127.0.0.1:1/.savecookies", "false"),
        ] {
            assert_eq!(neutral_value(key), Some(value), "{key}");
        }
        for key in [
            "user.name",
            "diff.renames",
            "filter.x",
            "remote.origin.url",
            "protocol.https.allow",
            "core.autocrlf",
            "fetch.fsckObjects",
            "fetch.fsck.badDate",
            "http.extraHeader",
        ] {
            assert_eq!(neutral_value(key), None, "{key}");
        }
    }
}
