//! What child processes may do: with `run_programs` off, `git` starts no
//! program whatever config the agent wrote first (each vector is tried
//! both ways: off, the canary stays silent; on, it runs, which shows the
//! vector is real); and no child sees the server's credentials.
//!
//! The git child's `HOME` and `XDG_CONFIG_HOME` point inside the root
//! through [`Toolbox::set_child_env`], never through the test process's
//! own environment (tests run in parallel).

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use crate::common::{Sandbox, call_in, failed, identity, run_git, succeeded};
use mcp_local_tools::{ToolContext, Toolbox};
use serde_json::{Value, json};

/// A root holding `home/` (the git child's `HOME`) and `proj/` (a
/// repository with one commit of `f.txt`, and no identity of its own),
/// and, outside the roots, a canary script that records each start.
struct Case {
    s: Sandbox,
    home: PathBuf,
    proj: PathBuf,
    canary: String,
    log: PathBuf,
}

/// Runs the test's own git in `dir`, with no user config.
fn git(dir: &Path, args: &[&str]) -> String {
    run_git(dir, &identity("Setup", "setup@example.com"), args)
}

/// Makes `path` executable.
fn executable(path: &Path) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `git add proj/f.txt`.
fn add_f_txt() -> Value {
    json!({"action": "add", "paths": ["proj/f.txt"]})
}

/// `git commit --all` with `message`.
fn commit_all(message: &str) -> Value {
    json!({"action": "commit", "message": message, "all": true})
}

impl Case {
    fn new() -> Case {
        let s = Sandbox::new();
        let home = s.root.join("home");
        let proj = s.root.join("proj");
        std::fs::create_dir_all(home.join(".config/git")).unwrap();
        std::fs::create_dir_all(&proj).unwrap();
        let log = s.base.join("outside/canary.log");
        let script = s.base.join("outside/canary.sh");
        std::fs::write(
            &script,
            // A filter gets its input back; anything else ends at once.
            format!(
                "#!/bin/sh\necho \"$*\" >> '{}'\ncase \"$1\" in clean) cat ;; esac\nexit 0\n",
                log.display()
            ),
        )
        .unwrap();
        executable(&script);
        git(&proj, &["init", "-q", "-b", "main"]);
        std::fs::write(proj.join("f.txt"), "one\n").unwrap();
        git(&proj, &["add", "f.txt"]);
        git(&proj, &["commit", "-q", "-m", "first"]);
        Case {
            canary: script.display().to_string(),
            s,
            home,
            proj,
            log,
        }
    }

    /// Writes `text` at `rel` under the home folder, as `fs write` would.
    fn home_file(&self, rel: &str, text: &str) {
        let path = self.home.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Writes `text` at `rel` in the repository's work tree.
    fn proj_file(&self, rel: &str, text: &str) {
        std::fs::write(self.proj.join(rel), text).unwrap();
    }

    /// Config naming the filter `x`, whose clean command is the canary.
    fn filter_x(&self) -> String {
        format!("[filter \"x\"]\n\tclean = {} clean\n", self.canary)
    }

    /// The canary's starts so far (one line each), and forgets them.
    fn starts(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let _ = std::fs::remove_file(&self.log);
        text
    }

    /// Asserts the canary started (since the last look) with `word` on
    /// its line: the vector is real.
    fn assert_ran(&self, word: &str) {
        let starts = self.starts();
        assert!(starts.contains(word), "the vector is real: {starts:?}");
    }

    fn toolbox(&self) -> Toolbox {
        let mut toolbox = Toolbox::with_default_tools();
        toolbox.set_child_env([
            ("HOME".to_owned(), self.home.display().to_string()),
            (
                "XDG_CONFIG_HOME".to_owned(),
                self.home.join(".config").display().to_string(),
            ),
        ]);
        toolbox
    }

    /// Calls `git` with `args` (on `proj` unless they name a `path`);
    /// returns (isError, text).
    async fn git(&self, run_programs: bool, mut args: Value) -> (bool, String) {
        if args.get("path").is_none() {
            args["path"] = json!("proj");
        }
        let mut ctx = ToolContext::new(self.s.roots.clone());
        ctx.run_programs = run_programs;
        call_in(&self.toolbox(), "git", ctx, args).await
    }

    /// `git` with programs off: asserts it succeeded and the canary never
    /// started; returns the text.
    async fn silent(&self, args: Value) -> String {
        let text = succeeded(self.git(false, args.clone()).await);
        assert_eq!(self.starts(), "", "{args}");
        text
    }

    /// `git` with programs off: asserts it was refused and the canary
    /// never started; returns the text.
    async fn refused(&self, args: Value) -> String {
        let text = failed(self.git(false, args.clone()).await);
        assert_eq!(self.starts(), "", "{args}");
        text
    }

    /// `git` with programs allowed: asserts it succeeded; returns the text.
    async fn allowed(&self, args: Value) -> String {
        succeeded(self.git(true, args).await)
    }
}

/// A filter named by the XDG config file (with `core.attributesFile`
/// there), or by `~/.gitconfig` (with the repository's
/// `.gitattributes`), runs on `git diff`, `status` and `add` only when
/// programs may run.
#[tokio::test]
async fn a_filter_from_the_xdg_or_the_global_config_runs_only_when_programs_may() {
    for config in [".config/git/config", ".gitconfig"] {
        let c = Case::new();
        if config == ".gitconfig" {
            c.home_file(config, &c.filter_x());
            c.proj_file(".gitattributes", "f.txt filter=x\n");
        } else {
            let attrs = c.home.join("attrs").display().to_string();
            let named = format!("[core]\n\tattributesFile = {attrs}\n");
            c.home_file(config, &(c.filter_x() + &named));
            c.home_file("attrs", "* filter=x\n");
        }
        c.proj_file("f.txt", "two\n");
        for args in [
            json!({"action": "diff"}),
            json!({"action": "status"}),
            add_f_txt(),
        ] {
            c.silent(args).await;
        }
        c.proj_file("f.txt", "three\n");
        c.allowed(add_f_txt()).await;
        c.assert_ran("clean");
    }
}

/// A global `core.hooksPath` and the repository's own hooks: none runs
/// on commit when programs may not, and the commit still carries the
/// user's name and email from the global config; both run when programs
/// may.
#[tokio::test]
async fn hooks_run_on_commit_only_when_programs_may_and_the_identity_holds() {
    let c = Case::new();
    let hooks = c.home.join("hooks");
    c.home_file(
        ".gitconfig",
        &format!(
            "[user]\n\tname = Grace Global\n\temail = grace@example.com\n[core]\n\thooksPath = {}\n",
            hooks.display()
        ),
    );
    c.home_file(
        "hooks/pre-commit",
        &format!("#!/bin/sh\n{} global-hook\n", c.canary),
    );
    executable(&hooks.join("pre-commit"));
    c.proj_file("f.txt", "two\n");
    c.silent(commit_all("locked")).await;
    assert_eq!(
        git(&c.proj, &["log", "-1", "--format=%an <%ae> %cn <%ce>"]),
        "Grace Global <grace@example.com> Grace Global <grace@example.com>\n"
    );
    c.proj_file("f.txt", "three\n");
    c.allowed(commit_all("free")).await;
    c.assert_ran("global-hook");

    // The repository's own hook: not with programs off, yes with them on.
    let own = c.proj.join(".git/hooks/pre-commit");
    std::fs::write(&own, format!("#!/bin/sh\n{} own-hook\n", c.canary)).unwrap();
    executable(&own);
    c.home_file(
        ".gitconfig",
        "[user]\n\tname = Grace Global\n\temail = grace@example.com\n",
    );
    c.proj_file("f.txt", "four\n");
    c.silent(commit_all("locked 2")).await;
    c.proj_file("f.txt", "five\n");
    c.allowed(commit_all("free 2")).await;
    c.assert_ran("own-hook");
}

/// `core.fsmonitor` and a pager in the global config never run.
#[tokio::test]
async fn fsmonitor_and_pager_from_the_global_config_never_run() {
    let c = Case::new();
    c.home_file(
        ".gitconfig",
        &format!(
            "[core]\n\tfsmonitor = {0} fsmonitor\n\tpager = {0} pager\n[pager]\n\tlog = {0} pager-log\n",
            c.canary
        ),
    );
    c.proj_file("f.txt", "two\n");
    for args in [json!({"action": "status"}), json!({"action": "log"})] {
        c.silent(args).await;
    }
}

/// A merge driver from the global config, used by `stash pop`: runs only
/// when programs may.
#[tokio::test]
async fn a_merge_driver_runs_only_when_programs_may() {
    for run_programs in [false, true] {
        let c = Case::new();
        c.home_file(
            ".gitconfig",
            &format!(
                "[user]\n\tname = A\n\temail = a@example.com\n[merge \"m\"]\n\tdriver = {} merge %A\n",
                c.canary
            ),
        );
        c.proj_file(".gitattributes", "f.txt merge=m\n");
        c.proj_file("f.txt", "stashed\n");
        let git = |args| c.git(run_programs, args);
        succeeded(git(json!({"action": "stash", "subcommand": "push"})).await);
        c.proj_file("f.txt", "committed\n");
        succeeded(git(commit_all("c")).await);
        let _ = git(json!({"action": "stash", "subcommand": "pop"})).await;
        let starts = c.starts();
        if run_programs {
            assert!(starts.contains("merge"), "the driver is real");
        } else {
            assert_eq!(starts, "");
        }
    }
}

/// The repository's config includes a file inside the roots: refused with
/// programs off (the agent could change the file at any time), followed
/// with them on. A global include into the roots is not read at all.
#[tokio::test]
async fn an_include_into_the_roots_is_refused_when_programs_may_not_run() {
    let c = Case::new();
    c.home_file("inc", &c.filter_x());
    let inc = c.home.join("inc").display().to_string();
    git(&c.proj, &["config", "include.path", &inc]);
    c.proj_file(".gitattributes", "f.txt filter=x\n");
    c.proj_file("f.txt", "two\n");
    let text = c.refused(add_f_txt()).await;
    assert!(
        text.contains("config includes") && text.contains("inside the roots"),
        "{text}"
    );
    c.allowed(add_f_txt()).await;
    c.assert_ran("clean");

    let c = Case::new();
    c.home_file("inc", &c.filter_x());
    c.home_file(".gitconfig", "[include]\n\tpath = inc\n");
    c.proj_file(".gitattributes", "f.txt filter=x\n");
    c.proj_file("f.txt", "two\n");
    c.silent(add_f_txt()).await;
}

/// A repository config that includes a file outside the roots (another
/// repository's config, holding a remote URL with its token): refused
/// while no program may run, since `remote` would show what no tool may
/// read; read as usual when programs may run.
#[tokio::test]
async fn an_include_outside_the_roots_is_refused_when_programs_may_not_run() {
    let c = Case::new();
    let other = c.s.base.join("outside/other");
    std::fs::create_dir_all(&other).unwrap();
    git(&other, &["init", "-q"]);
    let url = "https://user:TOKEN-OUTSIDE@example.com/x.git";
    git(&other, &["remote", "add", "origin", url]);
    let included = other.join(".git/config").display().to_string();
    git(&c.proj, &["config", "include.path", &included]);
    let text = c.refused(json!({"action": "remote"})).await;
    assert!(!text.contains("TOKEN-OUTSIDE"), "{text}");
    assert!(text.contains("a file outside the roots"), "{text}");
    let text = c.allowed(json!({"action": "remote"})).await;
    assert!(
        text.contains("TOKEN-OUTSIDE"),
        "the include is real: {text}"
    );
}

/// A remote whose transport runs a command (`ext::`, allowed by the
/// repository): refused with programs off, run with them on.
#[tokio::test]
async fn an_ext_remote_runs_only_when_programs_may() {
    let c = Case::new();
    git(&c.proj, &["config", "protocol.ext.allow", "always"]);
    let ext = format!("ext::{} ext", c.canary);
    git(&c.proj, &["remote", "add", "evil", &ext]);
    let fetch = json!({"action": "fetch", "remote": "evil"});
    c.refused(fetch.clone()).await;
    let _ = c.git(true, fetch).await;
    c.assert_ran("ext");
}

/// The repository's `core.gitProxy`, which git reads before any value the
/// server puts on the command scope (the first one wins), and its
/// `core.alternateRefsCommand`, which git runs even when empty: with
/// programs off every git action in that repository is refused and the
/// canary never starts; with them on, a `git://` fetch runs the proxy
/// (the vector is real) even though its host does not exist.
#[tokio::test]
async fn a_repository_git_proxy_or_alternate_refs_command_runs_only_when_programs_may() {
    let c = Case::new();
    let remote = "git://nohost.invalid/x.git";
    git(&c.proj, &["remote", "add", "origin", remote]);
    git(&c.proj, &["config", "core.gitProxy", &c.canary]);
    let fetch = json!({"action": "fetch", "remote": "origin", "timeout_ms": 5000});
    for args in [
        fetch.clone(),
        json!({"action": "pull", "remote": "origin", "timeout_ms": 5000}),
        json!({"action": "push", "remote": "origin", "name": "main", "timeout_ms": 5000}),
        json!({"action": "status"}),
    ] {
        let text = c.refused(args.clone()).await;
        assert!(text.contains("core.gitproxy"), "{args}: {text}");
    }
    let (_, text) = c.git(true, fetch.clone()).await;
    assert!(
        c.starts().contains("nohost.invalid 9418"),
        "the proxy is real: {text}"
    );

    git(&c.proj, &["config", "--unset", "core.gitProxy"]);
    git(&c.proj, &["config", "core.alternateRefsCommand", &c.canary]);
    let text = c.refused(fetch).await;
    assert!(text.contains("core.alternaterefscommand"), "{text}");
}

/// A submodule whose own config names a filter, with a work-tree
/// `.gitmodules` saying `ignore = none` (which beats any config) and a
/// changed file: git would run itself inside it to tell whether it is
/// modified, with that config. With programs off the reading actions never
/// enter it (the canary stays silent, and what its git directory holds is
/// never shown) and the writing ones are refused naming it; with them on,
/// `status` runs the filter (the vector is real).
#[tokio::test]
async fn a_submodule_is_never_entered_while_no_program_may_run() {
    let c = Case::new();
    let sm = c.proj.join("sm");
    std::fs::create_dir_all(&sm).unwrap();
    git(&sm, &["init", "-q", "-b", "main"]);
    std::fs::write(sm.join("g.txt"), "two\n").unwrap();
    git(&sm, &["add", "g.txt"]);
    git(&sm, &["commit", "-q", "-m", "sub"]);
    std::fs::write(sm.join(".git/info/attributes"), "g.txt filter=x\n").unwrap();
    let clean = format!("{} clean", c.canary);
    git(&sm, &["config", "filter.x.clean", &clean]);
    c.proj_file(
        ".gitmodules",
        "[submodule \"sm\"]\n\tpath = sm\n\turl = ./sm\n\tignore = none\n",
    );
    git(&c.proj, &["add", ".gitmodules", "sm"]);
    git(&c.proj, &["commit", "-q", "-m", "with a submodule"]);
    git(&c.proj, &["config", "diff.submodule", "diff"]);
    // The same size: git must read the file (through the filter) to tell.
    std::fs::write(sm.join("g.txt"), "owt\n").unwrap();

    for args in [
        json!({"action": "status"}),
        json!({"action": "diff"}),
        json!({"action": "show"}),
        json!({"action": "log", "paths": ["proj/sm"]}),
    ] {
        let text = c.silent(args.clone()).await;
        assert!(!text.contains("+owt"), "{args}: {text}");
    }
    for args in [
        commit_all("m"),
        json!({"action": "add", "all": true}),
        json!({"action": "stash"}),
        json!({"action": "reset"}),
    ] {
        let text = c.refused(args.clone()).await;
        assert!(
            text.contains("this repository has submodules (\"sm\")"),
            "{args}: {text}"
        );
    }
    // The vector is real: the same status, as plain git runs it, starts
    // the submodule's filter.
    git(&c.proj, &["status", "--porcelain"]);
    c.assert_ran("clean");
}

/// A push to a repository on a local path runs a second git in that
/// repository, which reads its own config and hooks: refused when
/// programs may not run, and the real thing when they may.
#[tokio::test]
async fn a_push_to_a_local_repository_runs_its_config_only_when_programs_may() {
    let c = Case::new();
    let server = c.s.root.join("server.git");
    git(&c.s.root, &["init", "-q", "--bare", "server.git"]);
    // What an agent can write with fs alone: the bare repository is not
    // under a `.git` folder.
    let config = std::fs::read_to_string(server.join("config")).unwrap();
    std::fs::write(
        server.join("config"),
        format!(
            "{config}[core]\n\talternateRefsCommand = {} alternate\n",
            c.canary
        ),
    )
    .unwrap();
    std::fs::create_dir_all(server.join("objects/info")).unwrap();
    std::fs::write(
        server.join("objects/info/alternates"),
        format!("{}\n", c.proj.join(".git/objects").display()),
    )
    .unwrap();
    let hook = server.join("hooks/pre-receive");
    std::fs::write(&hook, format!("#!/bin/sh\n{} pre-receive\n", c.canary)).unwrap();
    executable(&hook);
    let url = server.display().to_string();
    git(&c.proj, &["remote", "add", "origin", &url]);
    let push = json!({"action": "push", "remote": "origin", "name": "main"});
    let text = c.refused(push.clone()).await;
    assert!(text.contains("transport 'file' not allowed"), "{text}");
    c.allowed(push).await;
    c.assert_ran("pre-receive");
}

/// `exec` children lose the server's credentials and the configured
/// secret names; a call's own `env` still reaches them; `help` names what
/// is removed.
#[tokio::test]
async fn children_never_see_the_servers_credentials() {
    let s = Sandbox::new();
    let mut toolbox = Toolbox::with_default_tools();
    toolbox
        .set_child_env([
            ("HANZO_API_KEY".to_owned(), "sk-door".to_owned()),
            ("HANZO_MCP_HTTP_BEARER".to_owned(), "http-bearer".to_owned()),
            ("MY_TOKEN".to_owned(), "mine".to_owned()),
            ("PLAIN".to_owned(), "plain".to_owned()),
        ])
        .set_secret_env(["MY_TOKEN".to_owned()]);
    assert_eq!(
        toolbox.secret_env(),
        ["HANZO_API_KEY", "HANZO_MCP_HTTP_BEARER", "MY_TOKEN"]
    );
    let run = async |args: Value| {
        let ctx = ToolContext::new(s.roots.clone());
        call_in(&toolbox, "exec", ctx, args).await.1
    };
    let text = run(json!({
        "action": "run",
        "command": "echo \"[$HANZO_API_KEY|$HANZO_MCP_HTTP_BEARER|$MY_TOKEN|$PLAIN]\""
    }))
    .await;
    assert!(text.contains("[|||plain]"), "{text}");
    let text = run(json!({"action": "run", "command": ["printenv", "HANZO_API_KEY"]})).await;
    assert!(!text.contains("sk-door"), "{text}");
    let text = run(json!({
        "action": "run",
        "command": "echo \"[$HANZO_API_KEY]\"",
        "env": {"HANZO_API_KEY": "the caller's own"}
    }))
    .await;
    assert!(text.contains("[the caller's own]"), "{text}");
    let help = run(json!({"action": "help"})).await;
    assert!(
        help.contains(
            "Removed from every child process's environment: HANZO_API_KEY, HANZO_MCP_HTTP_BEARER, MY_TOKEN.\n"
        ),
        "{help}"
    );
}

/// A path inside a `.git` folder is refused, whether programs may run or
/// not: `init` there would make `.git/.git`, after which the old git
/// directory is a work tree whose `config` and `HEAD` `apply` writes. A
/// subfolder of the work tree is fine, with an include inside the git
/// directory too (git names config files relative to the top folder).
#[tokio::test]
async fn a_path_inside_a_git_folder_is_refused() {
    let c = Case::new();
    for run_programs in [false, true] {
        for args in [
            json!({"action": "init", "path": "proj/.git"}),
            json!({"action": "apply", "path": "proj/.git/refs", "patch": "x"}),
        ] {
            let text = failed(c.git(run_programs, args).await);
            assert!(text.contains("inside a .git folder"), "{text}");
            assert!(!c.proj.join(".git/.git").exists());
        }
    }
    // The vector is real: plain git makes the nested git directory.
    git(&c.proj.join(".git"), &["init", "-q"]);
    assert!(c.proj.join(".git/.git/HEAD").exists());
    std::fs::remove_dir_all(c.proj.join(".git/.git")).unwrap();

    // A new repository inside the work tree of another: git init reads no
    // repository's config, so the one around it is not checked.
    let init = json!({"action": "init", "path": "proj/nested"});
    succeeded(c.git(false, init).await);
    assert!(c.proj.join("nested/.git/HEAD").exists());

    std::fs::create_dir(c.proj.join("sub")).unwrap();
    std::fs::write(c.proj.join(".git/extra"), "[user]\n\tname = Included\n").unwrap();
    git(&c.proj, &["config", "include.path", "extra"]);
    let status = json!({"action": "status", "path": "proj/sub"});
    let text = succeeded(c.git(false, status).await);
    assert!(text.contains("On branch main"), "{text}");
}

/// A conditional include in the repository's config is refused while no
/// program may run: it was not in force when the config was checked, and
/// a switched branch brings it in. With programs allowed it works (its
/// filter runs after the switch), which shows the vector is real.
#[tokio::test]
async fn a_conditional_include_is_refused_while_no_program_may_run() {
    let c = Case::new();
    std::fs::write(c.proj.join(".git/evil.inc"), c.filter_x()).unwrap();
    let include_if = ["config", "includeIf.onbranch:evil.path", "evil.inc"];
    git(&c.proj, &include_if);
    git(&c.proj, &["branch", "evil"]);
    c.proj_file(".gitattributes", "f.txt filter=x\n");
    let switch = json!({"action": "switch", "branch": "evil"});
    for args in [switch.clone(), json!({"action": "status"})] {
        let text = c.refused(args).await;
        assert!(text.contains("conditional include"), "{text}");
    }
    c.proj_file("f.txt", "two\n");
    c.refused(add_f_txt()).await;

    c.allowed(switch).await;
    c.allowed(add_f_txt()).await;
    c.assert_ran("clean");
}

/// A symlink inside the git directory (here `packed-refs`, naming a file
/// outside the roots) is refused while no program may run; one under
/// `hooks/` is not (no hook runs then). With programs allowed git follows
/// it, which shows the vector is real.
#[tokio::test]
async fn a_symlink_in_the_git_directory_is_refused_while_no_program_may_run() {
    let c = Case::new();
    let head = git(&c.proj, &["rev-parse", "HEAD"]);
    let outside = c.s.base.join("outside/packed");
    std::fs::write(
        &outside,
        format!("{} refs/heads/SECRET-NAME\n", head.trim()),
    )
    .unwrap();
    std::os::unix::fs::symlink(c.canary.as_str(), c.proj.join(".git/hooks/pre-commit")).unwrap();
    let branch = json!({"action": "branch"});
    let (is_error, text) = c.git(false, branch.clone()).await;
    assert!(!is_error, "a hook symlink is fine: {text}");
    std::os::unix::fs::symlink(&outside, c.proj.join(".git/packed-refs")).unwrap();
    let text = failed(c.git(false, branch.clone()).await);
    assert!(
        text.contains("holds a symlink") && text.contains("packed-refs"),
        "{text}"
    );
    assert!(!text.contains("SECRET-NAME"), "{text}");
    let text = c.allowed(branch).await;
    assert!(text.contains("SECRET-NAME"), "the vector is real: {text}");
}

/// A repository `fetch.bundleURI` naming a bundle outside the roots is
/// not fetched while no program may run (git imports it before it even
/// reaches the remote); with programs allowed it is.
#[tokio::test]
async fn a_bundle_uri_is_not_fetched_while_no_program_may_run() {
    let c = Case::new();
    let other = c.s.base.join("outside/other");
    std::fs::create_dir_all(&other).unwrap();
    git(&other, &["init", "-q", "-b", "main"]);
    std::fs::write(other.join("s"), "SECRET\n").unwrap();
    git(&other, &["add", "s"]);
    git(&other, &["commit", "-q", "-m", "secret"]);
    let bundle = c.s.base.join("outside/other.bundle").display().to_string();
    git(&other, &["bundle", "create", "-q", &bundle, "--all"]);
    // Nothing listens on port 1: the fetch itself fails either way.
    let remote = "https://127.0.0.1:1/x.git";
    git(&c.proj, &["remote", "add", "origin", remote]);
    git(&c.proj, &["config", "fetch.bundleURI", &bundle]);
    let bundled = || git(&c.proj, &["for-each-ref", "refs/bundles/"]);
    let fetch = json!({"action": "fetch", "remote": "origin"});
    failed(c.git(false, fetch.clone()).await);
    assert_eq!(bundled(), "");
    failed(c.git(true, fetch).await);
    assert!(
        bundled().contains("refs/bundles/main"),
        "the vector is real"
    );
}

/// A repository `core.excludesFile` outside the roots is not read while
/// no program may run (`status` would tell which names it lists); one
/// inside the roots is. The same when a global config file inside the
/// roots names it.
#[tokio::test]
async fn an_excludes_file_outside_the_roots_is_not_read_while_no_program_may_run() {
    let c = Case::new();
    std::fs::write(c.s.base.join("outside/excludes"), "probe-*\n").unwrap();
    c.proj_file("probe-1", "x");
    let outside = c.s.base.join("outside/excludes").display().to_string();
    let status = json!({"action": "status"});
    for named_by in ["the repository", "a global config file"] {
        if named_by == "the repository" {
            git(&c.proj, &["config", "core.excludesFile", &outside]);
        } else {
            git(&c.proj, &["config", "--unset", "core.excludesFile"]);
            let global = format!("[core]\n\texcludesFile = {outside}\n");
            c.home_file(".gitconfig", &global);
        }
        let text = succeeded(c.git(false, status.clone()).await);
        assert!(text.contains("probe-1"), "{named_by}: not read: {text}");
        let text = c.allowed(status.clone()).await;
        assert!(
            !text.contains("probe-1"),
            "{named_by}: the vector is real: {text}"
        );
    }

    c.proj_file("excludes", "probe-*\n");
    git(&c.proj, &["config", "core.excludesFile", "excludes"]);
    let text = succeeded(c.git(false, status).await);
    assert!(
        !text.contains("probe-1"),
        "inside the roots it is read: {text}"
    );
}

/// Writes `n` loose blobs into `proj`, none of them reachable, and
/// returns how many loose objects the repository holds.
fn loose_blobs(c: &Case, n: usize) -> usize {
    let dir = c.s.base.join("outside/blobs");
    std::fs::create_dir_all(&dir).unwrap();
    let paths: Vec<String> = (0..n)
        .map(|i| {
            let path = dir.join(i.to_string());
            std::fs::write(&path, format!("blob {i}\n")).unwrap();
            path.display().to_string()
        })
        .collect();
    let mut args = vec!["hash-object", "-w"];
    args.extend(paths.iter().map(String::as_str));
    git(&c.proj, &args);
    loose_count(&c.proj)
}

/// The loose objects of the repository at `proj`.
fn loose_count(proj: &Path) -> usize {
    std::fs::read_dir(proj.join(".git/objects"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().len() == 2)
        .map(|e| std::fs::read_dir(e.path()).unwrap().count())
        .sum()
}

/// `commit` starts `git maintenance run --auto`, whose gc runs every
/// `gc.recentObjectsHook` through the shell (a list: no value on the
/// command line takes one back): while no program may run, no maintenance
/// starts, and a repository setting the hook is refused. With programs
/// allowed the hook runs, which shows the vector is real.
#[tokio::test]
async fn automatic_maintenance_never_runs_while_no_program_may_run() {
    let c = Case::new();
    for (key, value) in [
        ("user.name", "Ada"),
        ("user.email", "ada@example.com"),
        ("gc.auto", "1"),
        ("gc.autoDetach", "false"),
        ("maintenance.autoDetach", "false"),
        ("gc.pruneExpire", "now"),
    ] {
        git(&c.proj, &["config", key, value]);
    }
    let before = loose_blobs(&c, 4000);
    c.proj_file("f.txt", "two\n");
    succeeded(c.git(false, commit_all("locked")).await);
    assert!(loose_count(&c.proj) >= before, "gc ran while locked");

    let hook = format!("{} recent-objects-hook", c.canary);
    git(&c.proj, &["config", "gc.recentObjectsHook", &hook]);
    c.proj_file("f.txt", "three\n");
    let text = c.refused(commit_all("refused")).await;
    assert!(text.contains("gc.recentobjectshook"), "{text}");

    c.allowed(commit_all("free")).await;
    c.assert_ran("recent-objects-hook");
    assert!(
        loose_count(&c.proj) < before,
        "gc ran with programs allowed"
    );
}

/// A repository whose git directory is not inside a `.git` folder (made
/// with `--separate-git-dir`, reached through a `.git` file) is refused
/// while no program may run: the file tools, which never write inside a
/// `.git` folder, may write there (its config, its hooks). It works when
/// programs may run.
#[tokio::test]
async fn a_git_directory_outside_a_dot_git_folder_is_refused_while_no_program_may_run() {
    let c = Case::new();
    let separate = c.s.root.join("sepgd");
    let gitdir = separate.display().to_string();
    git(
        &c.s.root,
        &["init", "-q", "--separate-git-dir", &gitdir, "w"],
    );
    let status = json!({"action": "status", "path": "w"});
    let text = failed(c.git(false, status.clone()).await);
    assert!(text.contains("not inside a .git folder"), "{text}");
    c.allowed(status).await;

    // The vector is real: `fs` writes into that git directory.
    let mut ctx = ToolContext::new(c.s.roots.clone());
    ctx.run_programs = false;
    let write = json!({"action": "write", "path": "sepgd/probe", "content": "x"});
    succeeded(call_in(&c.toolbox(), "fs", ctx, write).await);
    assert!(separate.join("probe").exists());
}

/// A global config file inside the roots (which the agent may write) that
/// includes a file outside them: while no program may run, nothing of the
/// included file is read, neither passed on (the commit's author) nor
/// quoted in an error; with programs allowed git reads it, which shows the
/// vector is real.
#[tokio::test]
async fn a_global_include_outside_the_roots_is_not_read_while_no_program_may_run() {
    let c = Case::new();
    let other = c.s.base.join("outside/other.gitconfig");
    std::fs::write(&other, "[user]\n\tname = OUTSIDE-NAME\n").unwrap();
    c.home_file(
        ".gitconfig",
        &format!(
            "[user]\n\temail = h@example.com\n[include]\n\tpath = {}\n",
            other.display()
        ),
    );
    c.proj_file("f.txt", "two\n");
    let (_, text) = c.git(false, commit_all("locked")).await;
    assert!(!text.contains("OUTSIDE-NAME"), "{text}");
    assert!(!git(&c.proj, &["log", "-1", "--format=%an"]).contains("OUTSIDE-NAME"));

    std::fs::write(&other, "[core]\n\tabbrev = OUTSIDE-VALUE\n").unwrap();
    let status = json!({"action": "status"});
    let text = succeeded(c.git(false, status.clone()).await);
    assert!(!text.contains("OUTSIDE-VALUE"), "{text}");
    let text = failed(c.git(true, status).await);
    assert!(text.contains("OUTSIDE-VALUE"), "the vector is real: {text}");
}

/// `GIT_TRACE` and `GIT_EXEC_PATH` in the server's environment reach git
/// only when programs may run: a trace file is created wherever it names
/// (outside the roots here), and an exec path names the folder git takes
/// its own programs from.
#[tokio::test]
async fn git_trace_and_exec_path_from_the_environment_apply_only_when_programs_may() {
    let case = Case::new();
    let trace = case.s.base.join("outside/trace.log");
    let mut toolbox = case.toolbox();
    toolbox.set_child_env([
        ("HOME".to_owned(), case.home.display().to_string()),
        ("GIT_TRACE".to_owned(), trace.display().to_string()),
        (
            "GIT_EXEC_PATH".to_owned(),
            case.s.base.join("outside").display().to_string(),
        ),
    ]);
    let call = async |run_programs: bool| {
        let mut ctx = ToolContext::new(case.s.roots.clone());
        ctx.run_programs = run_programs;
        call_in(
            &toolbox,
            "git",
            ctx,
            json!({"action": "status", "path": "proj"}),
        )
        .await
    };
    succeeded(call(false).await);
    assert!(!trace.exists(), "git wrote the trace file");
    // The vector is real: with programs allowed the variables pass.
    call(true).await;
    assert!(trace.exists(), "no trace with programs allowed");
}
