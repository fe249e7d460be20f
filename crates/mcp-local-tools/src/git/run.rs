//! Running the machine's `git` for one call: the repository check, the
//! argv and environment every run gets, the checks on caller-given refs,
//! names, remotes and paths, and the text of a result.
//!
//! The repository check ([`Repo::open`]): the work tree, the git
//! directory, the common git directory and every object store
//! (alternates followed) lie inside the roots. While no program may run,
//! also: the git directory lies inside a `.git` folder, the git
//! directories hold no symlink (`hooks/` aside), no worktree entry
//! (`<common>/worktrees/<id>/commondir`) names a common git directory
//! outside the roots, and the config passes the `lock` module.

use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_proto::CallToolResult;

use super::lock::{self, Locked};
use crate::context::ToolContext;
use crate::process::{End, Outcome, Spec};
use crate::util::ToolResult;

/// The most bytes of a command's stdout (and of its stderr) a result
/// keeps, head and tail.
pub(crate) const OUTPUT_CAP: usize = 30_000;
/// What the marker in a cut output suggests.
const SEE_ALL: &str = "narrow it with paths, limit or a revision range";
/// The most bytes of config listing read when the config is locked.
const LISTING_CAP: usize = 1024 * 1024;
/// The most object stores (the repository's and its alternates) checked.
const MAX_ALTERNATES: usize = 16;

/// Whether a run may change the repository. A read run takes no optional
/// lock (`GIT_OPTIONAL_LOCKS=0`), never fetches a missing object of a
/// partial clone (`GIT_NO_LAZY_FETCH=1`), never shows signatures (a repository's
/// `gpg.program` is not run) and gets the filter overrides of
/// [`Repo::without_repository_filters`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    Read,
    Write,
}

/// One checked repository for one call (its work tree lies inside the
/// roots): where git runs, where discovery stops, the time bound, the
/// config reading runs get, and the call's context.
pub(crate) struct Repo<'a> {
    ctx: &'a ToolContext,
    /// The folder git runs in (the `path` given, or its parent for a file).
    cwd: PathBuf,
    /// The folder above the root holding `cwd`: repository discovery stops
    /// there, so no repository above a root is ever found.
    ceiling: Option<PathBuf>,
    /// How long one git command may run.
    pub(crate) timeout: Duration,
    /// Config given to reading runs through `GIT_CONFIG_COUNT` (keys and
    /// values apart, so no name can smuggle an `=`).
    read_config: Vec<(String, String)>,
    /// When the call may start no program: the config every run gets
    /// (see the `lock` module); `None` while programs are allowed, and
    /// during the listing that builds it.
    locked: Option<Locked>,
    /// When the call may start no program: the system and global config
    /// files' own entries (their includes not followed), read once before
    /// any other run ([`Repo::user_config`]).
    user_entries: Option<Vec<lock::Entry>>,
    /// The `git` program run, by absolute path ([`git_program`]).
    program: PathBuf,
}

/// The machine's `git`, found once on the server's `PATH` (relative and
/// empty entries skipped: they would be read from the folder git runs in,
/// which the caller picks). Found at the first git call of the process,
/// so a `git` the agent places later in a `PATH` folder is never run.
/// Refused when it lies inside the roots: a program there is one the
/// agent may have put or changed (with `git apply` a file can be made
/// executable), and running it would run the agent's program.
fn git_program(ctx: &ToolContext) -> Result<PathBuf, String> {
    static GIT: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    let found = GIT.get_or_init(|| {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .filter(|dir| dir.is_absolute())
            .map(|dir| dir.join("git"))
            .find(|candidate| is_executable(candidate))
            .map(|git| std::fs::canonicalize(&git).unwrap_or(git))
    });
    let git = found
        .clone()
        .ok_or_else(|| "git: no `git` program on the server's PATH".to_owned())?;
    if ctx.roots.root_of(&git).is_some() {
        return Err(format!(
            "git: the `git` on the server's PATH is {}, inside the roots, where the agent can change it; put the machine's git first on PATH",
            git.display()
        ));
    }
    Ok(git)
}

/// Whether `path` is a file with an execute bit.
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

impl<'a> Repo<'a> {
    /// The repository at `path` (default: the first root). The path must
    /// exist inside the roots, and the work tree git finds from there must
    /// lie inside the roots too (a `core.worktree` pointing elsewhere is
    /// refused), and so must its git directories and object stores
    /// ([`Repo::check_git_dirs`]) and, while no program may run, the
    /// common git directories its worktree entries name
    /// ([`Repo::check_worktree_entries`]).
    pub(crate) async fn open(
        ctx: &'a ToolContext,
        path: Option<&str>,
        timeout: Duration,
    ) -> Result<Repo<'a>, String> {
        let input = path.unwrap_or(".");
        let resolved = ctx
            .roots
            .resolve_existing(input)
            .map_err(|e| e.to_string())?;
        refuse_git_folder(input, &resolved.root, &resolved.path)?;
        let cwd = if resolved.path.is_dir() {
            resolved.path.clone()
        } else {
            resolved
                .path
                .parent()
                .map_or_else(|| resolved.root.clone(), Path::to_path_buf)
        };
        let mut repo = Repo::in_folder(ctx, cwd, &resolved.root, timeout)?;
        if !ctx.run_programs {
            repo.user_entries = Some(repo.user_config().await?);
        }
        let top = repo
            .run(Access::Read, &["rev-parse", "--show-toplevel"], None)
            .await?;
        if !matches!(top.end, End::Exited(_)) {
            // Timed out, cancelled or killed: say so, not "no repository".
            return Err(format!(
                "git: finding the repository of {input} did not finish: {}",
                top.end.describe(timeout)
            ));
        }
        if !top.end.success() {
            return Err(format!(
                "git: {input} is not in a git work tree inside the roots: {}",
                top.stderr.text(SEE_ALL).trim()
            ));
        }
        let top = top.stdout.text(SEE_ALL);
        let top = std::fs::canonicalize(top.trim_end_matches('\n'))
            .map_err(|e| format!("git: the work tree {}: {e}", top.trim()))?;
        let Some(root) = ctx.roots.root_of(&top) else {
            return Err(format!(
                "git: the work tree of {input} is {}, outside the roots",
                top.to_string_lossy()
            ));
        };
        refuse_git_folder(input, root, &top)?;
        // `add`, `diff`, `show` would read a folder of the server's own
        // that the file tools are kept out of, and `apply`, `checkout` or
        // `stash` write it, or create it when it is not there yet.
        refuse_holding_own(root, &top)?;
        let git_dirs = repo.check_git_dirs(input).await?;
        if !ctx.run_programs {
            for dir in &git_dirs {
                repo.inside_dot_git(input, dir)?;
            }
            refuse_symlinks(input, &git_dirs)?;
            if let Some(common) = git_dirs.get(1) {
                repo.check_worktree_entries(input, common)?;
            }
            repo.lock(&top, &git_dirs).await?;
        }
        Ok(repo)
    }

    /// Lists the config of every scope (includes followed) and keeps what
    /// every later run of this call gets, so that git can start no program
    /// (see the `lock` module). The listing itself starts none: `git
    /// config` runs no filter, hook or helper. `top` is the work tree's
    /// top folder (git names the repository's config files relative to
    /// it), `git_dirs` its git and common directories (none for `init`).
    pub(crate) async fn lock(&mut self, top: &Path, git_dirs: &[PathBuf]) -> Result<(), String> {
        self.locked = None;
        let outcome = self
            .run_capped(
                Access::Read,
                &[
                    "config",
                    "--list",
                    "--show-scope",
                    "--show-origin",
                    "--includes",
                    "-z",
                ],
                None,
                LISTING_CAP,
            )
            .await?;
        self.result("config", &outcome)?;
        if outcome.stdout.dropped() > 0 {
            return Err("git: the configuration is too large to check".to_owned());
        }
        let mut entries = match &self.user_entries {
            Some(entries) => entries.clone(),
            None => self.user_config().await?,
        };
        entries.extend(lock::parse(&outcome.stdout.text("")));
        if git_dirs.is_empty() {
            // `init`: git reads no repository's config there (it does not
            // look for one), so a repository around the folder is not ours
            // to check.
            entries.retain(|e| !matches!(e.scope.as_str(), "local" | "worktree"));
        }
        self.locked = Some(lock::lock(&entries, top, &self.ctx.roots, git_dirs)?);
        Ok(())
    }

    /// The entries of the system and global config files themselves
    /// (`--no-includes`: an include in a global file inside the roots,
    /// which the agent may have written, could name any file, whose values
    /// would be passed on and shown), listed from `/` so that no
    /// repository's config is read. Every other run of a call that may
    /// start no program reads neither file.
    async fn user_config(&self) -> Result<Vec<lock::Entry>, String> {
        let args = [
            "config",
            "--list",
            "--show-scope",
            "--show-origin",
            "--no-includes",
            "-z",
        ];
        let mut spec = self.spec(Access::Read, &args, None);
        spec.cwd = PathBuf::from("/");
        spec.env
            .retain(|(name, _)| name != "GIT_CONFIG_NOSYSTEM" && name != "GIT_CONFIG_GLOBAL");
        let outcome =
            crate::process::run(&spec, self.timeout, &self.ctx.cancel, LISTING_CAP, None).await?;
        self.result("config", &outcome)?;
        if outcome.stdout.dropped() > 0 {
            return Err("git: the global configuration is too large to check".to_owned());
        }
        let mut entries = lock::parse(&outcome.stdout.text(""));
        entries.retain(|e| matches!(e.scope.as_str(), "system" | "global"));
        Ok(entries)
    }

    /// Refuses `remote` (or, for `None`, any remote) when it names a
    /// remote helper program (`remote.<name>.vcs`) while no program may
    /// run.
    pub(crate) fn no_helper_remote(&self, remote: Option<&str>) -> Result<(), String> {
        let Some(locked) = &self.locked else {
            return Ok(());
        };
        match locked
            .helper_remotes
            .iter()
            .find(|r| remote.is_none_or(|name| name == r.as_str()))
        {
            Some(r) => Err(format!(
                "git: remote '{r}' uses a remote helper program (remote.{r}.vcs); refused while no program may run"
            )),
            None => Ok(()),
        }
    }

    /// Refuses a repository whose git directory, common directory (a
    /// linked worktree's main `.git`) or object store lies outside the
    /// roots: a `.git` file (`gitdir: ...`) or a `.git` symlink can name
    /// any folder. A worktree's git directory in its main repository's
    /// `.git/worktrees/` passes when that repository is inside the roots.
    /// Then checks the alternate object stores. Returns the git directory
    /// and the common directory, resolved.
    async fn check_git_dirs(&self, input: &str) -> Result<Vec<PathBuf>, String> {
        let outcome = self
            .run(
                Access::Read,
                &[
                    "rev-parse",
                    "--path-format=absolute",
                    "--git-dir",
                    "--git-common-dir",
                    "--git-path",
                    "objects",
                ],
                None,
            )
            .await?;
        self.result("rev-parse", &outcome)?;
        let listing = outcome.stdout.text(SEE_ALL);
        let dirs: Vec<&str> = listing.lines().collect();
        let [git_dir, common_dir, objects] = dirs[..] else {
            return Err(format!(
                "git: unexpected answer locating the git directory of {input}: {listing}"
            ));
        };
        let mut resolved = Vec::new();
        for (what, dir) in [
            ("git directory", git_dir),
            ("common git directory", common_dir),
            ("object store", objects),
        ] {
            resolved.push(self.inside_roots(input, what, Path::new(dir))?);
        }
        self.check_alternates(input, Path::new(objects))?;
        resolved.truncate(2);
        Ok(resolved)
    }

    /// Refuses, while no program may run, a repository with a worktree
    /// entry (`<common>/worktrees/<id>/`) whose `commondir` file names a
    /// common git directory outside the roots: `worktree list` and
    /// `branch` read, for every entry, the refs of the repository it names
    /// (`packed-refs`, `refs/`), and would show its branches and hashes. A
    /// relative value is read from the entry's folder, as git reads it.
    /// Where the entry's work tree lies (its `gitdir` file) is not
    /// checked: a worktree beside the checkout is the user's. Runs after
    /// [`refuse_symlinks`], so no file read here leads outside `common`.
    fn check_worktree_entries(&self, input: &str, common: &Path) -> Result<(), String> {
        let Ok(entries) = std::fs::read_dir(common.join("worktrees")) else {
            return Ok(());
        };
        for entry in entries {
            let entry = entry.map_err(|e| format!("git: reading {}: {e}", common.display()))?;
            let folder = entry.path();
            let file = folder.join("commondir");
            if !std::fs::symlink_metadata(&file).is_ok_and(|m| m.is_file()) {
                continue;
            }
            let text = std::fs::read(&file)
                .map_err(|e| format!("git: reading {}: {e}", file.display()))?;
            // git drops every line ending at its end.
            let end = text
                .iter()
                .rposition(|&b| b != b'\n' && b != b'\r')
                .map_or(0, |at| at + 1);
            let value = &text[..end];
            if value.is_empty() {
                continue;
            }
            let named = folder.join(Path::new(std::ffi::OsStr::from_bytes(value)));
            // As git resolves it: links followed, a missing last component
            // under its folder. A value that does not resolve names no
            // folder git could read.
            let Some(real) = std::fs::canonicalize(&named).ok().or_else(|| {
                let parent = std::fs::canonicalize(named.parent()?).ok()?;
                Some(parent.join(named.file_name()?))
            }) else {
                continue;
            };
            if self.ctx.roots.root_of(&real).is_none() {
                return Err(format!(
                    "git: the common git directory of the worktree entry {} of {input} is {}, \
                     outside the roots",
                    folder.display(),
                    real.display()
                ));
            }
        }
        Ok(())
    }

    /// Refuses, while no program may run, a git directory (`dir`,
    /// canonical, inside the roots) that does not lie inside a folder
    /// named `.git`: one made with `--separate-git-dir` is reached through
    /// a `.git` file, and the file tools, which never write inside a
    /// `.git` folder, could rewrite its config between calls.
    fn inside_dot_git(&self, input: &str, dir: &Path) -> Result<(), String> {
        let root = self.ctx.roots.root_of(dir).unwrap_or(dir);
        let below = dir.strip_prefix(root).unwrap_or(dir);
        if below
            .components()
            .any(|c| c.as_os_str().eq_ignore_ascii_case(".git"))
        {
            return Ok(());
        }
        Err(format!(
            "git: the git directory of {input} is {}, which is not inside a .git folder; refused \
             while no program may run (the file tools may change it, config and hooks included)",
            dir.display()
        ))
    }

    /// `path` canonicalised, when it lies inside the roots; an error
    /// naming `what` of the repository at `input` otherwise.
    fn inside_roots(&self, input: &str, what: &str, path: &Path) -> Result<PathBuf, String> {
        let real = std::fs::canonicalize(path).map_err(|e| {
            format!(
                "git: the {what} of {input}, {}, does not resolve: {e}",
                path.display()
            )
        })?;
        if self.ctx.roots.root_of(&real).is_none() {
            return Err(format!(
                "git: the {what} of {input} is {}, outside the roots",
                real.display()
            ));
        }
        Ok(real)
    }

    /// Refuses a repository whose `objects/info/alternates` (or that of an
    /// alternate, which git follows too) names an object store outside the
    /// roots: git would read objects from it. A quoted entry is refused
    /// too, unread.
    fn check_alternates(&self, input: &str, objects: &Path) -> Result<(), String> {
        let mut pending = vec![self.inside_roots(input, "object store", objects)?];
        let mut seen: Vec<PathBuf> = Vec::new();
        while let Some(store) = pending.pop() {
            if seen.contains(&store) {
                continue;
            }
            seen.push(store.clone());
            if seen.len() > MAX_ALTERNATES {
                return Err(format!(
                    "git: the repository of {input} chains more than {MAX_ALTERNATES} alternate object stores"
                ));
            }
            let file = store.join("info").join("alternates");
            if std::fs::symlink_metadata(&file).is_err() {
                continue;
            }
            let file = self.inside_roots(input, "alternates file", &file)?;
            let text = std::fs::read(&file).map_err(|e| {
                format!(
                    "git: the alternates file {} of {input}: {e}",
                    file.display()
                )
            })?;
            for line in text.split(|&b| b == b'\n') {
                if line.is_empty() || line.starts_with(b"#") {
                    continue;
                }
                if line.starts_with(b"\"") {
                    return Err(format!(
                        "git: {} of {input} holds a quoted entry, which is refused",
                        file.display()
                    ));
                }
                let entry = Path::new(std::ffi::OsStr::from_bytes(line));
                // A relative entry is relative to the object store.
                let entry = store.join(entry);
                pending.push(self.inside_roots(input, "alternate object store", &entry)?);
            }
        }
        Ok(())
    }

    /// Turns off, for the reading runs that follow, every clean, smudge
    /// and process filter the repository's own config names (local and
    /// worktree scope, includes followed): `git status` and `git diff` run
    /// a changed file through its filter, and a repository the user did not
    /// write could name any program there. Filters from the user's global
    /// and system config (Git LFS, for one) stay on.
    pub(crate) async fn without_repository_filters(&mut self) -> Result<(), String> {
        let outcome = self
            .run(
                Access::Read,
                &[
                    "config",
                    "--show-scope",
                    "-z",
                    "--name-only",
                    "--get-regexp",
                    r"^filter\.",
                ],
                None,
            )
            .await?;
        // Exit code 1: no filter configured.
        if outcome.end != End::Exited(1) {
            self.result("config", &outcome)?;
        }
        if outcome.stdout.dropped() > 0 {
            return Err("git: the repository configures too many filters".to_owned());
        }
        let listing = outcome.stdout.text("");
        let mut fields = listing.split('\0');
        let mut drivers: Vec<String> = Vec::new();
        while let (Some(scope), Some(name)) = (fields.next(), fields.next()) {
            if matches!(scope, "global" | "system") {
                continue;
            }
            let driver = name
                .strip_prefix("filter.")
                .and_then(|rest| rest.rsplit_once('.'))
                .map(|(driver, _key)| driver.to_owned());
            if let Some(driver) = driver
                && !drivers.contains(&driver)
            {
                drivers.push(driver);
            }
        }
        for driver in drivers {
            for (key, value) in [
                ("clean", ""),
                ("smudge", ""),
                ("process", ""),
                ("required", "false"),
            ] {
                self.read_config
                    .push((format!("filter.{driver}.{key}"), value.to_owned()));
            }
        }
        Ok(())
    }

    /// A place to run `git init` for a folder that may not exist yet: the
    /// nearest existing folder of the resolved `path`, inside the roots.
    pub(crate) fn for_init(
        ctx: &'a ToolContext,
        path: Option<&str>,
        timeout: Duration,
    ) -> Result<(Repo<'a>, PathBuf), String> {
        let resolved = ctx
            .roots
            .resolve(path.unwrap_or("."))
            .map_err(|e| e.to_string())?;
        refuse_git_folder(path.unwrap_or("."), &resolved.root, &resolved.path)?;
        // A repository there would be found by every later call in a
        // folder below it, its work tree holding the server's own folder.
        refuse_holding_own(&resolved.root, &resolved.path)?;
        let mut cwd = resolved.path.clone();
        while !cwd.is_dir() {
            cwd = cwd
                .parent()
                .map_or_else(|| resolved.root.clone(), Path::to_path_buf);
        }
        let repo = Repo::in_folder(ctx, cwd, &resolved.root, timeout)?;
        Ok((repo, resolved.path))
    }

    /// Git run in `cwd`, inside the root `root`, where repository
    /// discovery stops; no config read or locked yet.
    fn in_folder(
        ctx: &'a ToolContext,
        cwd: PathBuf,
        root: &Path,
        timeout: Duration,
    ) -> Result<Repo<'a>, String> {
        Ok(Repo {
            ctx,
            cwd,
            ceiling: root.parent().map(Path::to_path_buf),
            timeout,
            read_config: Vec::new(),
            locked: None,
            user_entries: None,
            program: git_program(ctx)?,
        })
    }

    /// The folder git runs in.
    pub(crate) fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The roots this call's paths must lie inside.
    pub(crate) fn roots(&self) -> &crate::roots::Roots {
        &self.ctx.roots
    }

    /// Whether this call may start no program (its config is locked).
    pub(crate) fn is_locked(&self) -> bool {
        self.locked.is_some()
    }

    /// The flags that keep a reading command out of submodules while no
    /// program may run: `--ignore-submodules=all` (which beats a work-tree
    /// `.gitmodules` entry `ignore = none`, as no config does) and
    /// `--submodule=short`. Entering one, git would run itself there with
    /// the submodule's own config (filters, drivers) and git directory,
    /// which may lie outside the roots. Empty when programs may run.
    pub(crate) fn submodule_flags(&self) -> &'static [&'static str] {
        if self.is_locked() {
            &["--ignore-submodules=all", "--submodule=short"]
        } else {
            &[]
        }
    }

    /// Refuses a writing action (`action`) in a repository whose index
    /// records submodules. git tells whether a submodule is modified by
    /// running itself inside it, with the submodule's own config (filters,
    /// drivers) and git directory, none of which is checked here; a
    /// work-tree `.gitmodules` entry `ignore = none` makes it do so
    /// whatever the configuration says, and only the reading commands take
    /// `--ignore-submodules` (which they get).
    ///
    /// # Errors
    /// The refusal naming the submodules' paths, or why the index could
    /// not be read.
    pub(crate) async fn refuse_submodules(&self, action: &str) -> Result<(), String> {
        const CAP: usize = 64 * 1024 * 1024;
        let outcome = self
            .run_capped(Access::Read, &["ls-files", "--stage", "-z"], None, CAP)
            .await?;
        self.result("ls-files", &outcome)?;
        if outcome.stdout.dropped() > 0 {
            return Err(format!(
                "git {action}: the index lists more than 64 MiB of entries; not checked for submodules, so refused while no program may run"
            ));
        }
        let listing = outcome.stdout.text("");
        // `mode SP object SP stage TAB path`; a submodule is mode 160000.
        let submodules: Vec<&str> = listing
            .split('\0')
            .filter_map(|entry| entry.strip_prefix("160000 "))
            .map(|rest| rest.split_once('\t').map_or(rest, |(_, path)| path))
            .collect();
        if submodules.is_empty() {
            return Ok(());
        }
        let shown: Vec<String> = submodules
            .iter()
            .take(5)
            .map(|p| format!("{p:?}"))
            .collect();
        Err(format!(
            "git {action}: this repository has submodules ({}{}); while no program may run, \
             git would run itself inside each with the submodule's own configuration, which \
             is not checked, so writing actions are refused here (status, diff, log and show \
             work, without entering submodules)",
            shown.join(", "),
            if submodules.len() > shown.len() {
                ", ..."
            } else {
                ""
            }
        ))
    }

    /// Runs `git <args>` with the safe options and environment, `stdin`
    /// written to it; stdout kept up to [`OUTPUT_CAP`] bytes.
    pub(crate) async fn run(
        &self,
        access: Access,
        args: &[&str],
        stdin: Option<String>,
    ) -> Result<Outcome, String> {
        self.run_capped(access, args, stdin, OUTPUT_CAP).await
    }

    /// [`Repo::run`] keeping up to `cap` bytes of stdout and of stderr.
    pub(crate) async fn run_capped(
        &self,
        access: Access,
        args: &[&str],
        stdin: Option<String>,
        cap: usize,
    ) -> Result<Outcome, String> {
        let spec = self.spec(access, args, stdin);
        crate::process::run(&spec, self.timeout, &self.ctx.cancel, cap, None).await
    }

    /// The argv and environment of one run.
    fn spec(&self, access: Access, args: &[&str], stdin: Option<String>) -> Spec {
        let editor = if self.locked.is_some() { ":" } else { "true" };
        let mut argv: Vec<String> = [
            self.program.to_string_lossy().as_ref(),
            "--no-pager",
            // Caller paths are names, never pathspec magic or globs.
            "--literal-pathspecs",
            // A repository's fsmonitor hook is a program it names: never run.
            "-c",
            "core.fsmonitor=false",
            // Only a repository whose git directory is a `.git` (which `fs`
            // never writes) is used: a bare repository found by walking up
            // from the path could be one the caller wrote with `fs`, config,
            // filters, hooks and all, whose programs writing actions run.
            "-c",
            "safe.bareRepository=explicit",
            "-c",
            "color.ui=false",
        ]
        .map(str::to_owned)
        .to_vec();
        let mut env = vec![
            ("GIT_PAGER".to_owned(), "cat".to_owned()),
            ("PAGER".to_owned(), "cat".to_owned()),
            ("GIT_TERMINAL_PROMPT".to_owned(), "0".to_owned()),
            // `:` is an editor git never starts; `true` would be a program.
            ("GIT_EDITOR".to_owned(), editor.to_owned()),
            ("GIT_SEQUENCE_EDITOR".to_owned(), editor.to_owned()),
            // Messages in English, the same on every machine.
            ("LC_ALL".to_owned(), "C".to_owned()),
        ];
        if access == Access::Read {
            argv.extend(
                [
                    "-c",
                    "log.showSignature=false",
                    // A mailmap file the repository's config names may lie
                    // anywhere on the machine, and it rewrites the names
                    // shown (blame's ignore list: see `history::blame`).
                    "-c",
                    "mailmap.file=",
                    "-c",
                    "mailmap.blob=",
                ]
                .map(str::to_owned),
            );
            env.push(("GIT_OPTIONAL_LOCKS".to_owned(), "0".to_owned()));
            // In a partial clone git fetches a missing object from the
            // promisor remote when it needs one: a read would reach the
            // network and write a pack. A missing object is an error
            // instead (git 2.44 and later).
            env.push(("GIT_NO_LAZY_FETCH".to_owned(), "1".to_owned()));
        }
        let mut config: Vec<&(String, String)> = Vec::new();
        // Before the lock too: the checks that find the repository would
        // otherwise read the global config and what it includes (and
        // quote its values in their errors).
        let mut safe_dirs: Vec<(String, String)> = Vec::new();
        if !self.ctx.run_programs {
            env.push(("GIT_CONFIG_NOSYSTEM".to_owned(), "1".to_owned()));
            env.push(("GIT_CONFIG_GLOBAL".to_owned(), "/dev/null".to_owned()));
            match &self.locked {
                Some(locked) => config.extend(&locked.config),
                // Until then only the user's `safe.directory` entries,
                // which finding the repository needs.
                None => safe_dirs.extend(
                    self.user_entries
                        .iter()
                        .flatten()
                        .filter(|e| e.key.eq_ignore_ascii_case("safe.directory"))
                        .filter_map(|e| Some((e.key.clone(), e.value.clone()?))),
                ),
            }
        }
        config.extend(&safe_dirs);
        if access == Access::Read {
            config.extend(&self.read_config);
        }
        if !config.is_empty() {
            env.push(("GIT_CONFIG_COUNT".to_owned(), config.len().to_string()));
            for (i, (key, value)) in config.into_iter().enumerate() {
                env.push((format!("GIT_CONFIG_KEY_{i}"), key.clone()));
                env.push((format!("GIT_CONFIG_VALUE_{i}"), value.clone()));
            }
        }
        if let Some(ceiling) = &self.ceiling {
            env.push((
                "GIT_CEILING_DIRECTORIES".to_owned(),
                ceiling.to_string_lossy().into_owned(),
            ));
        }
        argv.extend(args.iter().map(|a| (*a).to_owned()));
        let mut env_remove: Vec<String> = Vec::new();
        if !self.ctx.run_programs {
            // Every run, the discovery and the config listing before the
            // lock included: trace2 targets come from the global and
            // system config, and would let that config create and append
            // to any file (the environment overrides the config).
            for target in ["GIT_TRACE2", "GIT_TRACE2_EVENT", "GIT_TRACE2_PERF"] {
                env.push((target.to_owned(), "0".to_owned()));
            }
            // Programs the server's environment names, and config it adds.
            env_remove.extend(
                [
                    "GIT_SSH",
                    "GIT_SSH_COMMAND",
                    "GIT_PROXY_COMMAND",
                    "GIT_CONFIG_PARAMETERS",
                    "GIT_CONFIG_COUNT",
                    "GIT_CONFIG",
                    // Where git finds its own programs (`git-remote-http`,
                    // the merge scripts): a folder the server's
                    // environment names could hold any program.
                    "GIT_EXEC_PATH",
                    // Programs that win over the config's neutral values.
                    "GIT_EDITOR",
                    "GIT_SEQUENCE_EDITOR",
                    "GIT_PAGER",
                    // Trace files: git would create and append to them
                    // wherever they are.
                    "GIT_TRACE",
                    "GIT_TRACE_CURL",
                    "GIT_TRACE_FSMONITOR",
                    "GIT_TRACE_PACK_ACCESS",
                    "GIT_TRACE_PACKET",
                    "GIT_TRACE_PACKFILE",
                    "GIT_TRACE_PERFORMANCE",
                    "GIT_TRACE_REFS",
                    "GIT_TRACE_SETUP",
                    "GIT_TRACE_SHALLOW",
                ]
                .map(str::to_owned),
            );
        }
        Spec {
            argv,
            cwd: self.cwd.clone(),
            env,
            env_remove: [
                "GIT_ASKPASS",
                "SSH_ASKPASS",
                "GIT_DIR",
                "GIT_WORK_TREE",
                "GIT_INDEX_FILE",
                "GIT_COMMON_DIR",
                "GIT_OBJECT_DIRECTORY",
                "GIT_ALTERNATE_OBJECT_DIRECTORIES",
                "GIT_NAMESPACE",
                "GIT_EXTERNAL_DIFF",
            ]
            .map(str::to_owned)
            .into_iter()
            .chain(env_remove)
            .collect(),
            stdin,
        }
    }

    /// Runs `git <args>` and turns the outcome into the call's result:
    /// stdout then stderr on success, `isError` with git's stderr and exit
    /// status on failure.
    pub(crate) async fn call(
        &self,
        access: Access,
        args: &[&str],
        stdin: Option<String>,
    ) -> ToolResult {
        let outcome = self.run(access, args, stdin).await?;
        self.result(args.first().copied().unwrap_or("git"), &outcome)
            .map(CallToolResult::text)
    }

    /// The text of a finished command: stdout then stderr when it succeeded
    /// (`git <name>: done` when both are empty), an error naming how it
    /// ended, git's stderr and stdout otherwise.
    pub(crate) fn result(&self, name: &str, outcome: &Outcome) -> Result<String, String> {
        let out = outcome.stdout.text(SEE_ALL);
        let err = outcome.stderr.text(SEE_ALL);
        match outcome.end {
            End::Cancelled => Err("cancelled".to_owned()),
            end if end.success() => Ok(if out.is_empty() && err.is_empty() {
                format!("git {name}: done\n")
            } else {
                format!("{out}{err}")
            }),
            end => Err(format!(
                "git {name} failed ({}):\n{err}{out}",
                end.describe(self.timeout)
            )),
        }
    }

    /// The full object name of the revision `rev` (a branch, tag, hash,
    /// `HEAD~2`, `HEAD:file`, ...). Refused when it begins with `-`; checked
    /// by `git rev-parse --verify --end-of-options`.
    pub(crate) async fn revision(&self, field: &str, rev: &str) -> Result<String, String> {
        not_an_option(field, rev)?;
        let outcome = self
            .run(
                Access::Read,
                &["rev-parse", "--verify", "--quiet", "--end-of-options", rev],
                None,
            )
            .await?;
        let name = outcome.stdout.text(SEE_ALL);
        let name = name.trim();
        if !outcome.end.success() || name.is_empty() {
            return Err(format!("git: {field} '{rev}' is not a known revision"));
        }
        Ok(name.to_owned())
    }

    /// Checks `name` as a new branch name (`git check-ref-format --branch`,
    /// which must give the name back unchanged: `@{-1}` and the like, which
    /// it expands, are refused).
    pub(crate) async fn branch_name(&self, field: &str, name: &str) -> Result<(), String> {
        not_an_option(field, name)?;
        let outcome = self
            .run(Access::Read, &["check-ref-format", "--branch", name], None)
            .await?;
        if outcome.end.success() && outcome.stdout.text(SEE_ALL).trim_end_matches('\n') == name {
            Ok(())
        } else {
            Err(format!("git: {field} '{name}' is not a valid branch name"))
        }
    }

    /// Checks `name` as a tag name (`git check-ref-format refs/tags/<name>`).
    pub(crate) async fn tag_name(&self, field: &str, name: &str) -> Result<(), String> {
        not_an_option(field, name)?;
        let full = format!("refs/tags/{name}");
        let outcome = self
            .run(Access::Read, &["check-ref-format", &full], None)
            .await?;
        if outcome.end.success() {
            Ok(())
        } else {
            Err(format!("git: {field} '{name}' is not a valid tag name"))
        }
    }

    /// Checks that `remote` is one of the repository's configured remotes
    /// (a URL or a path is refused: only what the user configured is used).
    pub(crate) async fn remote(&self, remote: &str) -> Result<(), String> {
        not_an_option("remote", remote)?;
        let outcome = self.run(Access::Read, &["remote"], None).await?;
        self.result("remote", &outcome)?;
        let names = outcome.stdout.text(SEE_ALL);
        if names.lines().any(|line| line == remote) {
            Ok(())
        } else {
            let known: Vec<&str> = names.lines().collect();
            Err(format!(
                "git: remote '{remote}' is not configured (configured: {})",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            ))
        }
    }

    /// The caller's paths as absolute paths inside the roots, for after
    /// `--` (they need not exist: a deleted file is still a path).
    pub(crate) fn paths(&self, paths: &[String]) -> Result<Vec<String>, String> {
        paths
            .iter()
            .map(|p| {
                self.ctx
                    .roots
                    .resolve(p)
                    .map(|r| r.path.to_string_lossy().into_owned())
                    .map_err(|e| e.to_string())
            })
            .collect()
    }
}

/// Refuses `path` (canonical, inside `root`) when a folder below the root
/// is named `.git` (in any case: some file systems fold it). There git
/// would take the files of a git directory for a work tree (`init` makes
/// `.git/.git`, after which `apply` writes `.git/config`), and the agent
/// could build the configuration every other check relies on.
fn refuse_git_folder(input: &str, root: &Path, path: &Path) -> Result<(), String> {
    let below = path.strip_prefix(root).unwrap_or(path);
    if below
        .components()
        .any(|c| c.as_os_str().eq_ignore_ascii_case(".git"))
    {
        return Err(format!(
            "git: {input} resolves to {}, inside a .git folder; the git tool works in work trees, never inside a git directory",
            path.display()
        ));
    }
    Ok(())
}

/// The most entries of the git directories [`refuse_symlinks`] looks at.
const MAX_GIT_DIR_ENTRIES: usize = 1_000_000;

/// Refuses, while no program may run, a repository whose git directory
/// or common directory holds a symlink anywhere (the `hooks` folder
/// aside: no hook runs then). git follows them: a `shallow`, `packed-refs`
/// or pack file linked to a file outside the roots would be read, and
/// shown by `log` or `branch`.
fn refuse_symlinks(input: &str, git_dirs: &[PathBuf]) -> Result<(), String> {
    let mut tops: Vec<&PathBuf> = Vec::new();
    for dir in git_dirs {
        if !git_dirs
            .iter()
            .any(|other| other != dir && dir.starts_with(other))
            && !tops.contains(&dir)
        {
            tops.push(dir);
        }
    }
    let mut seen = 0usize;
    for top in tops {
        let mut pending = vec![top.clone()];
        while let Some(dir) = pending.pop() {
            let entries = std::fs::read_dir(&dir)
                .map_err(|e| format!("git: reading {}: {e}", dir.display()))?;
            for entry in entries {
                let entry = entry.map_err(|e| format!("git: reading {}: {e}", dir.display()))?;
                seen += 1;
                if seen > MAX_GIT_DIR_ENTRIES {
                    return Err(format!(
                        "git: the git directory of {input} holds more than {MAX_GIT_DIR_ENTRIES} entries; not checked for symlinks, so refused while no program may run"
                    ));
                }
                let kind = entry
                    .file_type()
                    .map_err(|e| format!("git: reading {}: {e}", entry.path().display()))?;
                if kind.is_symlink() {
                    return Err(format!(
                        "git: the git directory of {input} holds a symlink, {}; refused while no program may run (git would read what it points to)",
                        entry.path().display()
                    ));
                }
                if kind.is_dir() && !(dir == *top && entry.file_name() == "hooks") {
                    pending.push(entry.path());
                }
            }
        }
    }
    Ok(())
}

/// `&str`s of an argv.
pub(crate) fn as_refs(argv: &[String]) -> Vec<&str> {
    argv.iter().map(String::as_str).collect()
}

/// Refuses caller text that git could read as an option.
pub(crate) fn not_an_option(field: &str, value: &str) -> Result<(), String> {
    if value.is_empty() {
        return Err(format!("git: {field} is empty"));
    }
    if value.starts_with('-') {
        return Err(format!(
            "git: {field} '{value}' begins with '-' and is refused (it would be read as an option)"
        ));
    }
    if value.contains('\0') {
        return Err(format!("git: {field} contains a NUL byte"));
    }
    Ok(())
}

/// Refuses a work tree `top` (inside `root`) that holds one of the
/// server's own folders, existing or not, which the tools never reach.
fn refuse_holding_own(root: &Path, top: &Path) -> Result<(), String> {
    match crate::state::folders()
        .into_iter()
        .find(|own| own.starts_with(top) && crate::state::shields(root, own))
    {
        Some(own) => Err(format!(
            "git: the work tree {} holds the server's own folder {} (its state: memories, job \
             output, bearer files; or ~/.hanzo: the door's key), which the tools never reach; \
             use a repository that does not hold it",
            top.to_string_lossy(),
            own.to_string_lossy()
        )),
        None => Ok(()),
    }
}

/// A path as a line of text shows it: as it is, or, when it holds a
/// control character (a newline would split the line), a `"` or a `\`,
/// quoted the way git quotes paths (`"new\nline.txt"`; `\a \b \t \n \v \f
/// \r \" \\`, other control characters as octal escapes of their bytes).
pub(crate) fn quoted_path(path: &str) -> String {
    if !path
        .chars()
        .any(|c| c.is_control() || c == '"' || c == '\\')
    {
        return path.to_owned();
    }
    let mut out = String::with_capacity(path.len() + 2);
    out.push('"');
    for c in path.chars() {
        match c {
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{b}' => out.push_str("\\v"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let mut bytes = [0u8; 4];
                for b in c.encode_utf8(&mut bytes).bytes() {
                    out.push_str(&format!("\\{b:03o}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::quoted_path;

    #[test]
    fn paths_with_special_characters_are_quoted() {
        assert_eq!(quoted_path("plain name.txt"), "plain name.txt");
        assert_eq!(quoted_path("é.txt"), "é.txt");
        assert_eq!(quoted_path("new\nline.txt"), r#""new\nline.txt""#);
        assert_eq!(quoted_path("a\tb\r"), r#""a\tb\r""#);
        assert_eq!(quoted_path(r#"say "hi"\x"#), r#""say \"hi\"\\x""#);
        assert_eq!(quoted_path("esc\u{1b}[0m"), r#""esc\033[0m""#);
        assert_eq!(quoted_path("c1\u{85}"), r#""c1\302\205""#);
    }
}
