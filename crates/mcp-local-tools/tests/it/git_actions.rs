//! The `git` tool on real repositories made in temporary folders: every
//! action, exact outputs where git's output is stable, the injection
//! attempts, and fetch, pull and push against a local bare repository.
//!
//! The test's own git commands run with no global or system config and a
//! fixed author, committer and date, so hashes are the same on every run;
//! each repository sets `user.name` and `user.email` in its local config
//! for the commits the tool makes.

use std::path::Path;
use std::process::Command;

use crate::common::{
    Sandbox, call_in, call_result, cases, err, failed, identity, ok, run_git, succeeded,
};
use mcp_local_tools::{ToolContext, Toolbox};
use serde_json::{Value, json};

/// Runs `git args` in `dir` with a fixed identity and date; returns stdout.
fn git(dir: &Path, args: &[&str]) -> String {
    let mut env = identity("Ada", "ada@example.com").to_vec();
    env.extend([
        ("GIT_AUTHOR_DATE", "2024-01-02T03:04:05Z"),
        ("GIT_COMMITTER_DATE", "2024-01-02T03:04:05Z"),
        ("LC_ALL", "C"),
    ]);
    run_git(dir, &env, args)
}

/// Makes `dir` a repository on `main` with the local identity set.
fn init(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    for (key, value) in [
        ("user.name", "Ada"),
        ("user.email", "ada@example.com"),
        ("commit.gpgsign", "false"),
        ("tag.gpgsign", "false"),
    ] {
        git(dir, &["config", key, value]);
    }
}

/// A sandbox whose root is a repository with one commit ("first") of
/// `a.txt` = "one\ntwo\nthree\n".
fn repo() -> Sandbox {
    let s = Sandbox::new();
    init(&s.root);
    s.write("a.txt", "one\ntwo\nthree\n");
    git(&s.root, &["add", "a.txt"]);
    git(&s.root, &["commit", "-q", "-m", "first"]);
    s
}

/// `repo()` plus a second commit ("second") changing `two` to `TWO` and
/// adding `b.txt` = "bee\n".
fn repo2() -> Sandbox {
    let s = repo();
    s.write("a.txt", "one\nTWO\nthree\n");
    s.write("b.txt", "bee\n");
    git(&s.root, &["add", "a.txt", "b.txt"]);
    git(&s.root, &["commit", "-q", "-m", "second"]);
    s
}

async fn g(s: &Sandbox, args: Value) -> (bool, String) {
    s.tool("git").call(args).await
}

/// Calls `git` with `args`; asserts it failed with `needle` in its text.
async fn refused(s: &Sandbox, args: Value, needle: &str) {
    let text = failed(g(s, args).await);
    assert!(text.contains(needle), "{text}");
}

/// Asserts `blame` of lines 2 and 3 of `a.txt` in `repo2()`: `TWO` from
/// the second commit, `three` from the first (a boundary commit).
async fn assert_blame_of_lines_2_and_3(s: &Sandbox) {
    let (first, second) = (full(s, "HEAD~1"), full(s, "HEAD"));
    assert_eq!(
        g(
            s,
            json!({"action": "blame", "path": "a.txt", "start_line": 2, "end_line": 3})
        )
        .await,
        ok(&format!(
            "{} (Ada 2024-01-02 2) TWO\n^{} (Ada 2024-01-02 3) three\n",
            &second[..8],
            &first[..7]
        ))
    );
}

/// A clone of `bare` outside the roots ("other") commits `file` and
/// pushes it, as someone else would; returns that commit's hash and a
/// newline.
fn someone_else_pushes(s: &Sandbox, bare: &Path, file: &str, text: &str, message: &str) -> String {
    let other = s.base.join("other");
    let (from, to) = (bare.to_str().unwrap(), other.to_str().unwrap());
    git(&s.base, &["clone", "-q", from, to]);
    std::fs::write(other.join(file), text).unwrap();
    git(&other, &["add", file]);
    git(&other, &["commit", "-q", "-m", message]);
    git(&other, &["push", "-q", "origin", "main"]);
    git(&other, &["rev-parse", "HEAD"])
}

fn short(s: &Sandbox, rev: &str) -> String {
    git(&s.root, &["rev-parse", "--short", rev])
        .trim()
        .to_owned()
}

fn full(s: &Sandbox, rev: &str) -> String {
    git(&s.root, &["rev-parse", rev]).trim().to_owned()
}

/// The abbreviated blob name git shows on `index` lines.
fn blob(s: &Sandbox, content: &str) -> String {
    let path = s.base.join("blob.tmp");
    std::fs::write(&path, content).unwrap();
    let name = git(&s.base, &["hash-object", path.to_str().unwrap()]);
    name[..7].to_owned()
}

/// Fails when a file named `owned` or `owned.txt` exists in the sandbox
/// (at any depth) or in the test's working directory.
fn assert_not_owned(s: &Sandbox) {
    fn walk(dir: &Path) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let name = entry.file_name();
            assert!(
                name != "owned" && name != "owned.txt",
                "{} was created",
                entry.path().display()
            );
            if entry.file_type().unwrap().is_dir() {
                walk(&entry.path());
            }
        }
    }
    walk(&s.base);
    assert!(!Path::new("owned").exists());
    assert!(!Path::new("owned.txt").exists());
}

// ---- status ----

#[tokio::test]
async fn a_read_in_a_partial_clone_never_fetches_a_missing_object() {
    // A repository that says it is a partial clone of a remote (its
    // promisor) and lacks one of its trees: git would fetch the tree from
    // the remote while reading it, but reading actions reach no network.
    let s = Sandbox::new();
    init(&s.root);
    s.write("d/g.txt", "gee\n");
    git(&s.root, &["add", "d/g.txt"]);
    git(&s.root, &["commit", "-q", "-m", "first"]);
    let tree = git(&s.root, &["rev-parse", "HEAD:d"]).trim().to_owned();
    let remote = std::net::TcpListener::bind("127.0.0.1:0").expect("a listener");
    remote.set_nonblocking(true).expect("non-blocking");
    let url = format!("http://{}/r.git", remote.local_addr().expect("its address"));
    for (key, value) in [
        ("core.repositoryformatversion", "1"),
        ("extensions.partialClone", "origin"),
        ("remote.origin.url", url.as_str()),
        ("remote.origin.promisor", "true"),
    ] {
        git(&s.root, &["config", key, value]);
    }
    let objects = s.root.join(".git/objects");
    std::fs::remove_file(objects.join(&tree[..2]).join(&tree[2..])).expect("the tree's file");
    // A fetch would hang on the silent listener until the time limit.
    let answer = g(
        &s,
        json!({"action": "log", "paths": ["d/g.txt"], "timeout_ms": 10000}),
    )
    .await;
    let text = failed(answer);
    assert!(text.contains(&tree), "{text}");
    assert!(
        remote.accept().is_err(),
        "the read connected to the promisor remote: {text}"
    );
    // Nothing was written to the object store either.
    let packs = std::fs::read_dir(objects.join("pack")).map_or(0, |d| d.count());
    assert_eq!(packs, 0);
}

#[tokio::test]
async fn status_clean() {
    let s = repo();
    assert_eq!(
        g(&s, json!({"action": "status"})).await,
        ok("On branch main\nnothing to commit, working tree clean\n")
    );
}

#[tokio::test]
async fn status_text_and_structured() {
    let s = repo();
    s.write("a.txt", "one\nTWO\nthree\n");
    s.write("b.txt", "bee\n");
    s.write("c.txt", "sea\n");
    git(&s.root, &["add", "b.txt"]);
    let result = call_result("git", &s.roots, json!({"action": "status"})).await;
    assert_eq!(result.is_error, None);
    assert_eq!(
        result.content[0].as_text(),
        Some(
            "On branch main\nStaged:\n  added: b.txt\nNot staged:\n  modified: a.txt\nUntracked:\n  c.txt\n"
        )
    );
    assert_eq!(
        result.structured_content,
        Some(json!({
            "branch": {
                "oid": full(&s, "HEAD"),
                "head": "main",
                "upstream": null,
                "ahead": null,
                "behind": null,
            },
            "entries": [
                {"kind": "changed", "path": "a.txt", "index": ".", "worktree": "M"},
                {"kind": "changed", "path": "b.txt", "index": "A", "worktree": "."},
                {"kind": "untracked", "path": "c.txt", "index": "?", "worktree": "?"},
            ],
            "clean": false,
        }))
    );
}

#[tokio::test]
async fn status_rename_in_a_new_repository() {
    let s = Sandbox::new();
    init(&s.root);
    assert_eq!(
        g(&s, json!({"action": "status"})).await,
        ok("On branch main (no commits yet)\nnothing to commit, working tree clean\n")
    );
    let s = repo();
    git(&s.root, &["mv", "a.txt", "moved.txt"]);
    assert_eq!(
        g(&s, json!({"action": "status", "path": "."})).await,
        ok("On branch main\nStaged:\n  renamed: a.txt -> moved.txt\n")
    );
}

#[tokio::test]
async fn status_text_quotes_a_name_with_a_newline() {
    let s = repo();
    s.write("new\nline.txt", "x\n");
    let result = call_result("git", &s.roots, json!({"action": "status"})).await;
    assert_eq!(
        result.content[0].as_text(),
        Some("On branch main\nUntracked:\n  \"new\\nline.txt\"\n")
    );
    assert_eq!(
        result.structured_content.unwrap()["entries"][0]["path"],
        "new\nline.txt"
    );
}

// ---- diff ----

#[tokio::test]
async fn diff_unstaged_exact() {
    let s = repo();
    s.write("a.txt", "one\nTWO\nthree\n");
    let expected = format!(
        "1 file changed, +1 -1\n+1 -1 a.txt\n\ndiff --git a/a.txt b/a.txt\nindex {}..{} 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n",
        blob(&s, "one\ntwo\nthree\n"),
        blob(&s, "one\nTWO\nthree\n")
    );
    assert_eq!(g(&s, json!({"action": "diff"})).await, ok(&expected));
    // Nothing staged yet.
    assert_eq!(
        g(&s, json!({"action": "diff", "staged": true})).await,
        ok("no changes\n")
    );
}

#[tokio::test]
async fn diff_staged_context_and_stat() {
    let s = repo();
    s.write("a.txt", "one\nTWO\nthree\n");
    git(&s.root, &["add", "a.txt"]);
    assert_eq!(g(&s, json!({"action": "diff"})).await, ok("no changes\n"));
    let expected = format!(
        "1 file changed, +1 -1\n+1 -1 a.txt\n\ndiff --git a/a.txt b/a.txt\nindex {}..{} 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -2 +2 @@ one\n-two\n+TWO\n",
        blob(&s, "one\ntwo\nthree\n"),
        blob(&s, "one\nTWO\nthree\n")
    );
    assert_eq!(
        g(
            &s,
            json!({"action": "diff", "staged": true, "context_lines": 0})
        )
        .await,
        ok(&expected)
    );
    assert_eq!(
        g(&s, json!({"action": "diff", "staged": true, "stat": true})).await,
        ok(" a.txt | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n")
    );
}

#[tokio::test]
async fn diff_between_refs_and_for_paths() {
    let s = repo2();
    let text = succeeded(g(&s, json!({"action": "diff", "ref": "HEAD~1", "to": "HEAD"})).await);
    assert!(
        text.starts_with(
            "2 files changed, +2 -1\n+1 -1 a.txt\n+1 -0 b.txt\n\ndiff --git a/a.txt b/a.txt\n"
        ),
        "{text}"
    );
    let expected = format!(
        "1 file changed, +1 -0\n+1 -0 b.txt\n\ndiff --git a/b.txt b/b.txt\nnew file mode 100644\nindex 0000000..{}\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+bee\n",
        blob(&s, "bee\n")
    );
    assert_eq!(
        g(
            &s,
            json!({"action": "diff", "ref": "HEAD~1", "to": "HEAD", "paths": ["b.txt"]})
        )
        .await,
        ok(&expected)
    );
    // `to` alone is refused; an unknown revision is named.
    refused(
        &s,
        json!({"action": "diff", "to": "HEAD"}),
        "`to` needs `ref`",
    )
    .await;
    assert_eq!(
        g(&s, json!({"action": "diff", "ref": "nope"})).await,
        (true, "git: ref 'nope' is not a known revision".to_owned())
    );
}

#[tokio::test]
async fn diff_is_capped_per_file_with_the_numstat_header() {
    let s = repo();
    let big: String = (0..3000).map(|i| format!("line {i}\n")).collect();
    s.write("big.txt", &big);
    s.write("a.txt", "one\nTWO\nthree\n");
    git(&s.root, &["add", "big.txt", "a.txt"]);
    let text = succeeded(g(&s, json!({"action": "diff", "staged": true})).await);
    let header: Vec<&str> = text.lines().take(3).collect();
    assert_eq!(header[0], "2 files changed, +3001 -1");
    assert_eq!(header[1], "+1 -1 a.txt");
    assert!(
        header[2].starts_with("+3000 -0 big.txt (patch cut, ")
            && header[2].ends_with(" bytes not shown)"),
        "{}",
        header[2]
    );
    assert!(text.contains("\n+TWO\n"), "{text}");
    assert!(text.contains("\n+line 0\n"), "{text}");
    assert!(!text.contains("\n+line 2999\n"), "{text}");
    assert!(text.contains("more bytes of this file's patch not shown"));
    assert!(text.len() < 30_000, "{}", text.len());
}

// ---- log, show, blame, rev_parse ----

#[tokio::test]
async fn log_lists_commits_with_limits_and_filters() {
    let s = repo2();
    let (first, second) = (short(&s, "HEAD~1"), short(&s, "HEAD"));
    let only_second = ok(&format!("{second} 2024-01-02 Ada: second (HEAD -> main)\n"));
    let only_first = ok(&format!("{first} 2024-01-02 Ada: first\n"));
    let both = ok(&format!(
        "{second} 2024-01-02 Ada: second (HEAD -> main)\n{first} 2024-01-02 Ada: first\n"
    ));
    let cases = cases![
        {"action": "log"} => both,
        {"action": "log", "limit": 1} => only_second.clone(),
        {"action": "log", "count": 1} => only_second.clone(),
        {"action": "log", "grep": "fir"} => only_first.clone(),
        {"action": "log", "ref": "HEAD~1"} => only_first.clone(),
        {"action": "log", "grep": "^first", "author": "Ada", "since": "2023-12-31", "until": "2024-01-03"} => only_first,
        {"action": "log", "since": "2025-01-01"} => ok("no commits\n"),
        {"action": "log", "author": "Bob"} => ok("no commits\n"),
        {"action": "log", "paths": ["b.txt"]} => only_second,
    ];
    s.tool("git").answers(cases).await;
}

#[tokio::test]
async fn show_stat_and_patch() {
    let s = repo2();
    let expected = format!(
        "commit {}\nAuthor: Ada <ada@example.com>\nDate:   Tue Jan 2 03:04:05 2024 +0000\n\n    second\n\n a.txt | 2 +-\n b.txt | 1 +\n 2 files changed, 2 insertions(+), 1 deletion(-)\n",
        full(&s, "HEAD")
    );
    assert_eq!(
        g(&s, json!({"action": "show", "stat": true})).await,
        ok(&expected)
    );
    let text = succeeded(g(&s, json!({"action": "show", "ref": "HEAD~1"})).await);
    assert!(text.starts_with(&format!("commit {}\n", full(&s, "HEAD~1"))));
    assert!(
        text.ends_with("@@ -0,0 +1,3 @@\n+one\n+two\n+three\n"),
        "{text}"
    );
    assert_eq!(
        g(&s, json!({"action": "show", "ref": "HEAD~1:a.txt"})).await,
        ok("one\ntwo\nthree\n")
    );
}

#[tokio::test]
async fn blame_a_line_range() {
    let s = repo2();
    assert_blame_of_lines_2_and_3(&s).await;
    let first = full(&s, "HEAD~1");
    assert_eq!(
        g(&s, json!({"action": "blame", "path": "a.txt", "ref": "HEAD~1", "start_line": 2, "end_line": 2})).await,
        ok(&format!("^{} (Ada 2024-01-02 2) two\n", &first[..7]))
    );
    let backwards = json!({"action": "blame", "path": "a.txt", "start_line": 3, "end_line": 1});
    refused(&s, backwards, "before start_line").await;
}

#[tokio::test]
async fn rev_parse() {
    let s = repo2();
    let cases = cases![
        {"action": "rev_parse"} => ok(&format!("{}\n", full(&s, "HEAD"))),
        {"action": "rev_parse", "ref": "main~1"} => ok(&format!("{}\n", full(&s, "HEAD~1"))),
    ];
    s.tool("git").answers(cases).await;
}

// ---- branches, switch, tags ----

#[tokio::test]
async fn branch_list_create_delete() {
    let s = repo2();
    let (head, first) = (short(&s, "HEAD"), short(&s, "HEAD~1"));
    let cases = cases![
        {"action": "branch"} => ok(&format!("* main {head} second\n")),
        {"action": "branch", "name": "old", "start": "HEAD~1"} => ok("Created branch 'old'.\n"),
        {"action": "branch", "subcommand": "list"} => ok(&format!("* main {head} second\n  old  {first} first\n")),
        {"action": "branch", "subcommand": "delete", "name": "old"} => ok(&format!("Deleted branch old (was {first}).\n")),
    ];
    s.tool("git").answers(cases).await;
    for (args, needle) in [
        (
            json!({"action": "branch", "subcommand": "rename", "name": "x"}),
            "accepted: list, create, delete",
        ),
        (
            json!({"action": "branch", "name": "a..b"}),
            "is not a valid branch name",
        ),
    ] {
        refused(&s, args, needle).await;
    }
}

#[tokio::test]
async fn switch_and_checkout_with_create() {
    let s = repo2();
    let current = || git(&s.root, &["branch", "--show-current"]);
    let feature = json!({"action": "switch", "name": "feature", "create": true});
    assert_eq!(
        g(&s, feature).await,
        ok("Switched to a new branch 'feature'\n")
    );
    assert_eq!(current(), "feature\n");
    let cases = cases![
        {"action": "checkout", "branch": "main"} => ok("Switched to branch 'main'\n"),
        {"action": "checkout", "branch": "old", "create": true, "start": "HEAD~1"} => ok("Switched to a new branch 'old'\n"),
    ];
    s.tool("git").answers(cases).await;
    assert_eq!(full(&s, "HEAD"), full(&s, "main~1"));
    let detach = json!({"action": "switch", "name": "main~1", "detach": true});
    succeeded(g(&s, detach).await);
    assert_eq!(current(), "");
    let text = failed(g(&s, json!({"action": "switch", "name": "missing"})).await);
    assert!(
        text.starts_with("git switch failed (exit code 128):\nfatal: invalid reference: missing"),
        "{text}"
    );
}

#[tokio::test]
async fn tag_list_and_create() {
    let s = repo2();
    let cases = cases![
        {"action": "tag"} => ok("no tags\n"),
        {"action": "tag", "name": "v1", "start": "HEAD~1"} => ok("Created tag 'v1'.\n"),
        {"action": "tag", "name": "v2", "message": "-release two"} => ok("Created tag 'v2'.\n"),
        {"action": "tag", "subcommand": "list"} => ok("v1\nv2\n"),
    ];
    s.tool("git").answers(cases).await;
    assert_eq!(full(&s, "v1"), full(&s, "HEAD~1"));
    assert_eq!(git(&s.root, &["cat-file", "-t", "v2"]), "tag\n");
    assert_eq!(
        git(&s.root, &["tag", "-l", "--format=%(contents)", "v2"]),
        "-release two\n\n"
    );
}

// ---- the work tree: add, commit, reset, stash, apply, clean ----

#[tokio::test]
async fn add_and_commit_paths_or_all() {
    let s = repo();
    s.write("a.txt", "one\nTWO\nthree\n");
    s.write("b.txt", "bee\n");
    let status = || git(&s.root, &["status", "--short"]);
    refused(&s, json!({"action": "add"}), "give paths, or all").await;
    assert_eq!(
        g(&s, json!({"action": "add", "paths": ["b.txt"]})).await,
        ok("staged\n")
    );
    assert_eq!(
        git(&s.root, &["diff", "--cached", "--name-only"]),
        "b.txt\n"
    );
    let commit_b = json!({"action": "commit", "message": "add b", "paths": ["b.txt"]});
    let text = succeeded(g(&s, commit_b).await);
    assert_eq!(
        text,
        format!(
            "[main {}] add b\n 1 file changed, 1 insertion(+)\n create mode 100644 b.txt\n",
            short(&s, "HEAD")
        )
    );
    // a.txt was left out.
    assert_eq!(status(), " M a.txt\n");
    let commit_all = json!({"action": "commit", "message": "--all tracked\n\nbody", "all": true});
    succeeded(g(&s, commit_all).await);
    assert_eq!(status(), "");
    assert_eq!(
        git(&s.root, &["log", "-1", "--format=%B"]),
        "--all tracked\n\nbody\n\n"
    );
    assert_eq!(
        g(&s, json!({"action": "commit", "message": "  "})).await,
        err("git commit: message is empty")
    );
    s.write("c.txt", "sea\n");
    assert_eq!(
        g(&s, json!({"action": "add", "all": true})).await,
        ok("staged\n")
    );
    assert_eq!(status(), "A  c.txt\n");
}

#[tokio::test]
async fn reset_soft_mixed_and_hard_only_with_confirm() {
    let s = repo2();
    let first = full(&s, "HEAD~1");
    let unstaged = "Unstaged changes after reset:\nM\ta.txt\n";
    // Each reset, its answer, and `git status --short` after it.
    for (args, answer, status) in [
        (
            json!({"action": "reset", "ref": "HEAD~1", "mode": "soft"}),
            ok("reset done\n"),
            "M  a.txt\nA  b.txt\n",
        ),
        (
            json!({"action": "reset", "paths": ["a.txt"]}),
            ok(unstaged),
            " M a.txt\nA  b.txt\n",
        ),
        (
            json!({"action": "reset"}),
            ok(unstaged),
            " M a.txt\n?? b.txt\n",
        ),
    ] {
        assert_eq!(g(&s, args.clone()).await, answer, "{args}");
        assert_eq!(git(&s.root, &["status", "--short"]), status, "{args}");
        assert_eq!(full(&s, "HEAD"), first, "{args}");
    }
    assert_eq!(
        g(&s, json!({"action": "reset", "mode": "hard"})).await,
        err("git reset: mode hard discards uncommitted changes; pass confirm: true to do it")
    );
    assert_eq!(s.read("a.txt"), "one\nTWO\nthree\n");
    let hard = json!({"action": "reset", "mode": "hard", "confirm": true});
    assert_eq!(
        g(&s, hard).await,
        ok(&format!("HEAD is now at {} first\n", &first[..7]))
    );
    assert_eq!(s.read("a.txt"), "one\ntwo\nthree\n");
    let keep = json!({"action": "reset", "mode": "keep"});
    refused(&s, keep, "accepted: soft, mixed, hard").await;
}

#[tokio::test]
async fn stash_push_list_pop_drop() {
    let s = repo();
    let head = short(&s, "HEAD");
    let list = json!({"action": "stash", "subcommand": "list"});
    assert_eq!(g(&s, list.clone()).await, ok("no stashes\n"));
    s.write("a.txt", "one\nTWO\nthree\n");
    assert_eq!(
        g(&s, json!({"action": "stash", "message": "wip one"})).await,
        ok("Saved working directory and index state On main: wip one\n")
    );
    assert_eq!(s.read("a.txt"), "one\ntwo\nthree\n");
    s.write("a.txt", "one\ntwo\nTHREE\n");
    let cases = [
        (
            json!({"action": "stash", "subcommand": "push", "paths": ["a.txt"]}),
            ok(&format!(
                "Saved working directory and index state WIP on main: {head} first\n"
            )),
        ),
        (
            list.clone(),
            ok(&format!(
                "stash@{{0}}: WIP on main: {head} first\nstash@{{1}}: On main: wip one\n"
            )),
        ),
    ];
    s.tool("git").answers(cases).await;
    let drop = json!({"action": "stash", "subcommand": "drop", "index": 0});
    let text = succeeded(g(&s, drop).await);
    assert!(text.starts_with("Dropped stash@{0} ("), "{text}");
    let pop = json!({"action": "stash", "subcommand": "pop"});
    let text = succeeded(g(&s, pop).await);
    assert!(text.contains("Dropped stash@{0} ("), "{text}");
    assert_eq!(s.read("a.txt"), "one\nTWO\nthree\n");
    assert_eq!(g(&s, list).await, ok("no stashes\n"));
    let clear = json!({"action": "stash", "subcommand": "clear"});
    refused(&s, clear, "accepted: push, list, pop, drop").await;
}

const PATCH: &str = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n";

#[tokio::test]
async fn apply_with_check() {
    let s = repo();
    let check = json!({"action": "apply", "patch": PATCH, "check": true});
    assert_eq!(g(&s, check.clone()).await, ok("the patch applies\n"));
    assert_eq!(s.read("a.txt"), "one\ntwo\nthree\n");
    let staged = json!({"action": "apply", "patch": PATCH, "staged": true});
    assert_eq!(g(&s, staged).await, ok("patch applied\n"));
    assert_eq!(s.read("a.txt"), "one\n2\nthree\n");
    assert_eq!(git(&s.root, &["status", "--short"]), "M  a.txt\n");
    let text = failed(g(&s, check).await);
    assert!(
        text.starts_with("git apply failed (exit code 1):\nerror: patch failed: a.txt:1\n"),
        "{text}"
    );
    refused(
        &s,
        json!({"action": "apply"}),
        "apply: missing field 'patch'",
    )
    .await;
}

#[tokio::test]
async fn clean_is_a_dry_run_unless_confirmed() {
    let s = repo();
    let clean = json!({"action": "clean"});
    assert_eq!(g(&s, clean.clone()).await, ok("nothing to clean\n"));
    s.write("junk.txt", "x\n");
    s.write("tmp/more.txt", "y\n");
    assert_eq!(
        g(&s, clean).await,
        ok(
            "Would remove junk.txt\nWould remove tmp/\n(dry run: nothing removed; pass confirm: true to remove these)\n"
        )
    );
    assert!(s.root.join("junk.txt").exists());
    let confirmed = json!({"action": "clean", "paths": ["tmp"], "confirm": true});
    assert_eq!(g(&s, confirmed).await, ok("Removing tmp/\n"));
    assert!(!s.root.join("tmp").exists());
    assert!(s.root.join("junk.txt").exists());
}

// ---- remote, worktree, init, help ----

#[tokio::test]
async fn remote_and_worktree_lists() {
    let s = repo();
    assert_eq!(g(&s, json!({"action": "remote"})).await, ok("no remotes\n"));
    git(&s.root, &["remote", "add", "origin", "/nowhere/remote.git"]);
    assert_eq!(
        g(&s, json!({"action": "remote"})).await,
        ok("origin\t/nowhere/remote.git (fetch)\norigin\t/nowhere/remote.git (push)\n")
    );
    let head = short(&s, "HEAD");
    assert_eq!(
        g(&s, json!({"action": "worktree"})).await,
        ok(&format!("{}  {head} [main]\n", s.root.display()))
    );
}

#[tokio::test]
async fn init_a_new_repository() {
    let s = Sandbox::new();
    let trunk = json!({"action": "init", "path": "fresh", "name": "trunk"});
    let text = succeeded(g(&s, trunk).await);
    assert_eq!(
        text,
        format!(
            "Initialized empty Git repository in {}/\n",
            s.root.join("fresh/.git").display()
        )
    );
    assert_eq!(
        git(&s.root.join("fresh"), &["symbolic-ref", "HEAD"]),
        "refs/heads/trunk\n"
    );
    refused(
        &s,
        json!({"action": "init", "path": "../outside/new"}),
        "outside the roots",
    )
    .await;
    assert!(!s.base.join("outside/new").exists());

    // A folder whose .git file names a repository outside the roots: git
    // init would reinitialise that one (and write its missing files back).
    let outside_git = s.base.join("outside/.git");
    init(&s.base.join("outside"));
    std::fs::remove_file(outside_git.join("description")).unwrap();
    s.write("n/.git", &format!("gitdir: {}\n", outside_git.display()));
    assert_eq!(
        g(&s, json!({"action": "init", "path": "n"})).await,
        (
            true,
            format!(
                "git: the git directory of n is {}, outside the roots",
                outside_git.display()
            )
        )
    );
    assert!(!outside_git.join("description").exists());
    // Reinitialising a repository inside the roots still works.
    let (err, text) = g(&s, json!({"action": "init", "path": "fresh"})).await;
    assert_eq!(
        (err, text),
        (
            false,
            format!(
                "Reinitialized existing Git repository in {}/\n",
                s.root.join("fresh/.git").display()
            )
        )
    );
}

#[tokio::test]
async fn help_lists_actions_aliases_and_readers() {
    let s = repo();
    let text = s.tool("git").help().await;
    assert!(text.starts_with(
        "git actions (fields in brackets are optional):\nstatus {[path], [timeout_ms]}: "
    ));
    assert!(text.contains("\nswitch {name, [create], [detach], [path], [start], [timeout_ms]}: "));
    assert!(text.contains(" (also called: checkout) [can: read files, write files]\n"));
    assert!(text.contains("\ncommit {message, [all], [path], [paths], [timeout_ms]}: commit what is staged, or only paths, or every tracked change (all); runs the repository's hooks when programs may run. [can: read files, write files]\n"), "{text}");
    assert!(
        text.ends_with(
            "A grant of the whole tool (git) gives: read files, write files, network.\n\
         Actions that only read: status, diff, log, show, blame, remote, worktree, rev_parse.\n\
         Removed from every child process's environment: HANZO_API_KEY, HANZO_MCP_HTTP_BEARER.\n"
        ),
        "{text}"
    );
}

#[tokio::test]
async fn bad_arguments_are_clear_errors() {
    let s = repo();
    let text = failed(g(&s, json!({"action": "frobnicate"})).await);
    assert!(
        text.starts_with("invalid arguments: unknown variant `frobnicate`"),
        "{text}"
    );
    refused(
        &s,
        json!({"action": "log", "limit": 1, "count": 2}),
        "duplicate field",
    )
    .await;
    refused(
        &s,
        json!({"action": "fetch", "timeout_ms": 700000}),
        "timeout_ms 700000 is out of range",
    )
    .await;
    refused(
        &s,
        json!({"action": "commit"}),
        "commit: missing field 'message'",
    )
    .await;
}

// ---- fetch, pull, push against a local bare repository ----

/// `repo2()` with `origin` = a bare repository next to the root, and a
/// second clone of it ("other") outside the roots.
fn with_remote() -> (Sandbox, std::path::PathBuf) {
    let s = repo2();
    let bare = s.base.join("remote.git");
    git(
        &s.base,
        &["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()],
    );
    git(
        &s.root,
        &["remote", "add", "origin", bare.to_str().unwrap()],
    );
    (s, bare)
}

/// Asserts `main` of the remote `bare` is our `HEAD`.
fn assert_pushed(s: &Sandbox, bare: &Path) {
    assert_eq!(
        git(bare, &["rev-parse", "main"]),
        format!("{}\n", full(s, "HEAD"))
    );
}

#[tokio::test]
async fn push_fetch_pull_with_a_bare_remote() {
    let (s, bare) = with_remote();
    let push =
        json!({"action": "push", "remote": "origin", "branch": "main", "set_upstream": true});
    let text = succeeded(g(&s, push).await);
    assert!(
        text.contains(" * [new branch]      main -> main\n"),
        "{text}"
    );
    assert!(
        text.starts_with("branch 'main' set up to track 'origin/main'.\n"),
        "{text}"
    );
    assert_pushed(&s, &bare);

    let third = someone_else_pushes(&s, &bare, "c.txt", "sea\n", "third");
    let fetch = json!({"action": "fetch", "remote": "origin"});
    let text = succeeded(g(&s, fetch).await);
    assert!(text.contains("main       -> origin/main\n"), "{text}");
    assert_eq!(
        g(&s, json!({"action": "status"})).await,
        ok(
            "On branch main\nUpstream origin/main: ahead 0, behind 1\nnothing to commit, working tree clean\n"
        )
    );
    let pull = json!({"action": "pull", "remote": "origin", "name": "main"});
    let text = succeeded(g(&s, pull).await);
    assert!(text.contains("Fast-forward\n c.txt | 1 +\n"), "{text}");
    assert_eq!(format!("{}\n", full(&s, "HEAD")), third);
    assert_eq!(s.read("c.txt"), "sea\n");
    // Pull and fetch with git's defaults (the upstream).
    let text = succeeded(g(&s, json!({"action": "pull"})).await);
    assert_eq!(text, "Already up to date.\n");
    succeeded(g(&s, json!({"action": "fetch", "timeout_ms": 60000})).await);
}

#[tokio::test]
async fn push_force_is_with_lease() {
    let (s, bare) = with_remote();
    git(&s.root, &["push", "-q", "-u", "origin", "main"]);
    // Rewrite history: drop the last commit and make another.
    git(&s.root, &["reset", "-q", "--hard", "HEAD~1"]);
    s.write("d.txt", "dee\n");
    git(&s.root, &["add", "d.txt"]);
    git(&s.root, &["commit", "-q", "-m", "rewritten"]);
    let push = json!({"action": "push", "remote": "origin", "name": "main"});
    let text = failed(g(&s, push).await);
    assert!(
        text.starts_with("git push failed (exit code 1):\n"),
        "{text}"
    );
    assert!(
        text.contains("! [rejected]        main -> main (non-fast-forward)"),
        "{text}"
    );
    let force = json!({"action": "push", "remote": "origin", "name": "main", "force": true});
    let text = succeeded(g(&s, force.clone()).await);
    assert!(text.contains(" + "), "{text}");
    assert!(text.contains("main -> main (forced update)\n"), "{text}");
    assert_pushed(&s, &bare);

    // The lease: someone else moved the remote since our last fetch.
    someone_else_pushes(&s, &bare, "e.txt", "e\n", "theirs");
    s.write("f.txt", "f\n");
    git(&s.root, &["add", "f.txt"]);
    git(&s.root, &["commit", "-q", "--amend", "-m", "ours"]);
    refused(&s, force, "! [rejected]        main -> main (stale info)").await;
    let plus = json!({"action": "push", "remote": "origin", "name": "+main"});
    refused(&s, plus, "begins with '+'").await;
    let no_remote = json!({"action": "push", "name": "main"});
    refused(&s, no_remote, "a branch (name) needs a remote").await;
}

// ---- injection attempts, hostile repositories, confinement ----

#[tokio::test]
async fn an_option_as_a_ref_is_refused() {
    let s = repo2();
    for action in ["diff", "log", "show", "blame", "reset", "rev_parse"] {
        let mut args = json!({"action": action, "ref": "--output=owned.txt"});
        if action == "blame" {
            args["path"] = json!("a.txt");
        }
        let (err, text) = g(&s, args).await;
        assert!(err, "{action}: {text}");
        assert_eq!(
            text,
            "git: ref '--output=owned.txt' begins with '-' and is refused (it would be read as an option)",
            "{action}"
        );
    }
    refused(
        &s,
        json!({"action": "diff", "ref": "HEAD", "to": "--output=owned.txt"}),
        "begins with '-'",
    )
    .await;
    assert_not_owned(&s);
}

#[tokio::test]
async fn an_option_as_a_branch_is_refused() {
    let s = repo2();
    let name = "-c core.pager=touch owned";
    for args in [
        json!({"action": "branch", "name": name}),
        json!({"action": "branch", "subcommand": "delete", "name": name}),
        json!({"action": "switch", "name": name}),
        json!({"action": "switch", "name": name, "create": true}),
        json!({"action": "checkout", "branch": name, "detach": true}),
        json!({"action": "tag", "name": name}),
        json!({"action": "branch", "name": "ok", "start": name}),
        json!({"action": "init", "path": "x", "name": name}),
    ] {
        let (err, text) = g(&s, args.clone()).await;
        assert!(err, "{args}: {text}");
        assert!(
            text.contains("begins with '-' and is refused"),
            "{args}: {text}"
        );
    }
    assert!(!s.root.join("x").exists());
    assert_not_owned(&s);
}

#[tokio::test]
async fn an_option_as_a_remote_is_refused() {
    let (s, _bare) = with_remote();
    let remote = "--upload-pack=touch owned";
    for action in ["fetch", "pull", "push"] {
        let (err, text) = g(&s, json!({"action": action, "remote": remote})).await;
        assert!(err, "{action}: {text}");
        assert_eq!(
            text,
            "git: remote '--upload-pack=touch owned' begins with '-' and is refused (it would be read as an option)"
        );
    }
    // A URL or path is not a configured remote.
    let ext = json!({"action": "fetch", "remote": "ext::sh -c touch% owned"});
    let text = failed(g(&s, ext).await);
    assert_eq!(
        text,
        "git: remote 'ext::sh -c touch% owned' is not configured (configured: origin)"
    );
    assert_not_owned(&s);
}

#[tokio::test]
async fn an_option_as_a_path_is_inert() {
    let s = repo2();
    let path = "--exec=touch owned";
    for action in ["diff", "log", "show", "add", "commit", "reset", "clean"] {
        // Each action gets only the fields it takes (any other is refused
        // before git runs): commit its message, clean and reset confirm.
        let mut args = json!({"action": action, "paths": [path]});
        match action {
            "commit" => args["message"] = json!("m"),
            "reset" | "clean" => args["confirm"] = json!(true),
            _ => {}
        }
        let (_, text) = g(&s, args).await;
        assert!(!text.starts_with("invalid arguments"), "{action}: {text}");
        assert!(!text.contains("owned\n"), "{action}: {text}");
    }
    let (err, _) = g(&s, json!({"action": "status", "path": path})).await;
    assert!(err);
    let (err, _) = g(&s, json!({"action": "blame", "path": path})).await;
    assert!(err);
    let (err, _) = g(&s, json!({"action": "stash", "paths": [path]})).await;
    assert!(err);
    assert_eq!(git(&s.root, &["status", "--short"]), "");
    assert_not_owned(&s);
}

#[tokio::test]
async fn a_hostile_repository_config_runs_nothing() {
    let s = repo2();
    for (key, value) in [
        ("core.fsmonitor", "touch owned"),
        ("core.pager", "touch owned"),
        ("diff.external", "touch owned"),
        ("log.showSignature", "true"),
        ("gpg.program", "touch owned"),
        ("core.editor", "touch owned"),
    ] {
        git(&s.root, &["config", key, value]);
    }
    s.write("a.txt", "one\nchanged\nthree\n");
    s.write("new.txt", "new\n");
    for args in [
        json!({"action": "status"}),
        json!({"action": "diff"}),
        json!({"action": "diff", "stat": true}),
        json!({"action": "log"}),
        json!({"action": "show"}),
        json!({"action": "blame", "path": "a.txt"}),
        json!({"action": "add", "paths": ["new.txt"]}),
        json!({"action": "commit", "message": "m", "all": true}),
        json!({"action": "stash", "subcommand": "list"}),
    ] {
        let (err, text) = g(&s, args.clone()).await;
        assert!(!err, "{args}: {text}");
    }
    assert_eq!(git(&s.root, &["log", "-1", "--format=%s"]), "m\n");
    assert_not_owned(&s);
}

#[tokio::test]
async fn a_repository_filter_is_off_for_reading_actions() {
    let s = repo2();
    s.write(".gitattributes", "*.txt filter=evil\n");
    git(
        &s.root,
        &["config", "filter.evil.clean", "touch owned; cat"],
    );
    git(&s.root, &["config", "filter.evil.required", "true"]);
    // A driver name holding '=' cannot escape the override either.
    git(&s.root, &["config", "filter.a=b.clean", "touch owned; cat"]);
    s.write(".gitattributes", "*.txt filter=evil\n*.md filter=a=b\n");
    s.write("a.txt", "one\nchanged\nthree\n");
    s.write("notes.md", "hi\n");
    for args in [
        json!({"action": "status"}),
        json!({"action": "diff"}),
        json!({"action": "diff", "paths": ["a.txt"], "stat": true}),
        json!({"action": "blame", "path": "a.txt"}),
    ] {
        let (err, text) = g(&s, args.clone()).await;
        assert!(!err, "{args}: {text}");
    }
    assert_not_owned(&s);
}

/// A git directory the caller could have written with `fs` (any name but
/// `.git`), found as a bare repository whose `core.worktree` points back
/// at files beside it: its filter would run on `add`. It is not used.
#[tokio::test]
async fn a_bare_repository_written_beside_the_files_is_not_used() {
    let s = Sandbox::new();
    let marker = s.base.join("owned-by-filter");
    s.write("proj/gd/HEAD", "ref: refs/heads/main\n");
    s.write(
        "proj/gd/config",
        &format!(
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\
             [filter \"x\"]\n\tclean = \"touch {}; cat\"\n",
            marker.display()
        ),
    );
    std::fs::create_dir_all(s.root.join("proj/gd/objects")).unwrap();
    std::fs::create_dir_all(s.root.join("proj/gd/refs/heads")).unwrap();
    s.write("proj/a.txt", "a\n");
    s.write("proj/.gitattributes", "*.txt filter=x\n");
    for args in [
        json!({"action": "add", "path": "proj/gd", "paths": ["proj/a.txt"]}),
        json!({"action": "status", "path": "proj/gd"}),
    ] {
        let (err, text) = g(&s, args.clone()).await;
        assert!(err, "{args}: {text}");
    }
    assert!(!marker.exists(), "the repository's filter ran");
}

#[tokio::test]
async fn repositories_outside_the_roots_are_refused() {
    let s = Sandbox::new();
    init(&s.base.join("outside"));
    refused(
        &s,
        json!({"action": "status", "path": "../outside"}),
        "outside the roots",
    )
    .await;
    refused(
        &s,
        json!({"action": "status", "path": s.abs("outside")}),
        "outside the roots",
    )
    .await;

    // The root lies inside a repository: discovery stops at the root.
    init(&s.base);
    let text = failed(g(&s, json!({"action": "status"})).await);
    assert!(
        text.starts_with(
            "git: . is not in a git work tree inside the roots: fatal: not a git repository"
        ),
        "{text}"
    );

    // A repository whose core.worktree points outside the roots.
    let t = repo();
    git(
        &t.root,
        &[
            "config",
            "core.worktree",
            t.base.join("outside").to_str().unwrap(),
        ],
    );
    let text = failed(g(&t, json!({"action": "status"})).await);
    assert_eq!(
        text,
        format!(
            "git: the work tree of . is {}, outside the roots",
            t.base.join("outside").display()
        )
    );
}

/// A repository in `outside/` holding `secret.txt` in one commit; its
/// HEAD.
fn outside_repo(s: &Sandbox) -> String {
    let outside = s.base.join("outside");
    init(&outside);
    git(&outside, &["add", "secret.txt"]);
    git(&outside, &["commit", "-q", "-m", "secret"]);
    full_in(&outside, "HEAD")
}

fn full_in(dir: &Path, rev: &str) -> String {
    git(dir, &["rev-parse", rev]).trim().to_owned()
}

/// Every action, reading and writing, on the repository at `path` is
/// refused with `expected`.
async fn all_refused(s: &Sandbox, path: &str, expected: &str) {
    for args in [
        json!({"action": "show", "path": path, "ref": "HEAD:secret.txt"}),
        json!({"action": "status", "path": path}),
        json!({"action": "log", "path": path}),
        json!({"action": "add", "path": path, "all": true}),
        json!({"action": "commit", "path": path, "message": "m", "all": true}),
        json!({"action": "reset", "path": path, "mode": "hard", "confirm": true}),
    ] {
        assert_eq!(
            g(s, args.clone()).await,
            (true, expected.to_owned()),
            "{args}"
        );
    }
}

#[cfg(unix)]
#[tokio::test]
async fn a_git_dir_outside_the_roots_is_refused() {
    let s = Sandbox::new();
    let head = outside_repo(&s);
    let outside = s.base.join("outside");
    let outside_git = outside.join(".git");
    // Something for add, commit and reset to act on, were they to run.
    std::fs::write(outside.join("secret.txt"), "changed\n").unwrap();
    std::fs::write(outside.join("new.txt"), "new\n").unwrap();

    // A .git file naming the outside repository.
    s.write("w/.git", &format!("gitdir: {}\n", outside_git.display()));
    s.write("w/secret.txt", "mine\n");
    let expected = format!(
        "git: the git directory of w is {}, outside the roots",
        outside_git.display()
    );
    all_refused(&s, "w", &expected).await;

    // A .git symlink to it.
    std::fs::create_dir(s.root.join("l")).unwrap();
    std::os::unix::fs::symlink(&outside_git, s.root.join("l/.git")).unwrap();
    all_refused(
        &s,
        "l",
        &format!(
            "git: the git directory of l is {}, outside the roots",
            outside_git.display()
        ),
    )
    .await;

    // A worktree of the outside repository, placed in the root.
    git(
        &outside,
        &["worktree", "add", "-q", s.root.join("wt").to_str().unwrap()],
    );
    all_refused(
        &s,
        "wt",
        &format!(
            "git: the git directory of wt is {}, outside the roots",
            outside_git.join("worktrees/wt").display()
        ),
    )
    .await;

    // A git directory in the root whose commondir is the outside one.
    s.write("fake/HEAD", "ref: refs/heads/main\n");
    s.write("fake/commondir", &format!("{}\n", outside_git.display()));
    s.write(
        "c/.git",
        &format!("gitdir: {}\n", s.root.join("fake").display()),
    );
    all_refused(
        &s,
        "c",
        &format!(
            "git: the common git directory of c is {}, outside the roots",
            outside_git.display()
        ),
    )
    .await;

    // Nothing happened to the outside repository.
    assert_eq!(full_in(&outside, "HEAD"), head);
    assert_eq!(
        git(&outside, &["status", "--porcelain"]),
        " M secret.txt\n?? new.txt\n"
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("secret.txt")).unwrap(),
        "changed\n"
    );
}

/// While no program may run, a worktree entry of a repository inside the
/// roots (`.git/worktrees/<id>/`) whose `commondir` names a repository
/// outside them refuses every action: `worktree` and `branch` would read
/// that repository's refs and show its branches and hashes. An entry whose
/// work tree (`gitdir`) lies outside the roots is the user's and fine.
#[tokio::test]
async fn a_worktree_entry_naming_a_common_dir_outside_the_roots_is_refused_while_no_program_may_run()
 {
    let s = repo();
    let outside = s.base.join("outside");
    let head = outside_repo(&s);
    git(&outside, &["branch", "hidden-branch"]);
    let outside_git = outside.join(".git");
    let entry = s.root.join(".git/worktrees/x");
    std::fs::create_dir_all(&entry).unwrap();
    std::fs::write(entry.join("HEAD"), "ref: refs/heads/hidden-branch\n").unwrap();
    let elsewhere = s.base.join("elsewhere");
    std::fs::write(
        entry.join("gitdir"),
        format!("{}\n", elsewhere.join(".git").display()),
    )
    .unwrap();
    std::fs::write(
        entry.join("commondir"),
        format!("{}\n", outside_git.display()),
    )
    .unwrap();
    let mut toolbox = Toolbox::with_default_tools();
    toolbox.set_child_env([("HOME".to_owned(), s.abs("home"))]);
    let locked = async |args: Value| {
        let mut ctx = ToolContext::new(s.roots.clone());
        ctx.run_programs = false;
        call_in(&toolbox, "git", ctx, args).await
    };
    let refusal = (
        true,
        format!(
            "git: the common git directory of the worktree entry {} of . is {}, outside the \
             roots",
            entry.display(),
            outside_git.display()
        ),
    );
    for args in [
        json!({"action": "worktree"}),
        json!({"action": "branch"}),
        json!({"action": "status"}),
    ] {
        assert_eq!(locked(args.clone()).await, refusal, "{args}");
    }
    // The vector is real: git follows the entry's commondir.
    let text = succeeded(g(&s, json!({"action": "worktree"})).await);
    assert!(text.contains(&head[..7]), "{text}");

    // A relative commondir is read from the entry's folder, as git does.
    std::fs::write(entry.join("commondir"), "../../../../outside/.git\n").unwrap();
    assert_eq!(locked(json!({"action": "worktree"})).await, refusal);

    // What git itself writes there, `../..`: the repository's own refs.
    // The entry's work tree lies outside the roots, so git's `prunable`
    // mark (its path does not exist) is left out: an entry can name any
    // path, and the mark would tell whether it exists.
    std::fs::write(entry.join("commondir"), "../..\n").unwrap();
    let text = succeeded(locked(json!({"action": "worktree"})).await);
    assert_eq!(
        text,
        format!(
            "{}       {} [main]\n{}  0000000 [hidden-branch]\n",
            s.root.display(),
            &full(&s, "HEAD")[..7],
            elsewhere.display()
        )
    );
    assert!(!text.contains(&head[..7]), "{text}");
    // The mark is real: with programs allowed, git's own listing shows it.
    let text = succeeded(g(&s, json!({"action": "worktree"})).await);
    assert!(text.contains("[hidden-branch] prunable"), "{text}");
    // An entry naming a file that exists outside: listed the same way.
    let existing = outside_git.join("config");
    std::fs::write(entry.join("gitdir"), format!("{}\n", existing.display())).unwrap();
    let text = succeeded(locked(json!({"action": "worktree"})).await);
    assert!(
        text.ends_with(" 0000000 [hidden-branch]\n") && !text.contains("prunable"),
        "{text}"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn an_object_store_outside_the_roots_is_refused() {
    let s = Sandbox::new();
    outside_repo(&s);
    let objects = s.base.join("outside/.git/objects");

    // objects/info/alternates naming the outside store, absolute.
    let a = s.root.join("a");
    std::fs::create_dir(&a).unwrap();
    init(&a);
    let alternates = a.join(".git/objects/info/alternates");
    std::fs::write(&alternates, format!("{}\n", objects.display())).unwrap();
    let expected = format!(
        "git: the alternate object store of a is {}, outside the roots",
        objects.display()
    );
    all_refused(&s, "a", &expected).await;
    // Relative to the object store.
    std::fs::write(
        &alternates,
        "# a comment\n\n../../../../outside/.git/objects\n",
    )
    .unwrap();
    all_refused(&s, "a", &expected).await;
    // Through an alternate inside the roots, which has its own.
    let b = s.root.join("b");
    std::fs::create_dir(&b).unwrap();
    init(&b);
    std::fs::write(
        b.join(".git/objects/info/alternates"),
        format!("{}\n", a.join(".git/objects").display()),
    )
    .unwrap();
    all_refused(
        &s,
        "b",
        &format!(
            "git: the alternate object store of b is {}, outside the roots",
            objects.display()
        ),
    )
    .await;
    // An alternate inside the roots is fine.
    std::fs::remove_file(&alternates).unwrap();
    git(&a, &["commit", "-q", "--allow-empty", "-m", "in a"]);
    assert_eq!(
        g(
            &s,
            json!({"action": "log", "path": "b", "ref": full_in(&a, "HEAD")})
        )
        .await
        .1,
        format!("{} 2024-01-02 Ada: in a\n", &full_in(&a, "HEAD")[..7])
    );

    // An objects folder that is a symlink to the outside store.
    let o = s.root.join("o");
    std::fs::create_dir(&o).unwrap();
    init(&o);
    std::fs::remove_dir_all(o.join(".git/objects")).unwrap();
    std::os::unix::fs::symlink(&objects, o.join(".git/objects")).unwrap();
    all_refused(
        &s,
        "o",
        &format!(
            "git: the object store of o is {}, outside the roots",
            objects.display()
        ),
    )
    .await;
}

#[tokio::test]
async fn a_worktree_of_a_repository_in_the_roots_works() {
    let s = repo();
    let wt = s.base.join("root/wt");
    git(&s.root, &["worktree", "add", "-q", wt.to_str().unwrap()]);
    std::fs::write(wt.join("a.txt"), "one\n").unwrap();
    assert_eq!(
        g(&s, json!({"action": "status", "path": "wt"})).await,
        ok("On branch wt\nNot staged:\n  modified: a.txt\n")
    );
    let commit = json!({"action": "commit", "path": "wt", "message": "short", "all": true});
    let text = succeeded(g(&s, commit).await);
    assert!(text.contains("] short\n"), "{text}");
    assert_eq!(
        git(&s.root, &["log", "-1", "--format=%s", "wt", "--"]),
        "short\n"
    );
}

#[tokio::test]
async fn reading_actions_ignore_files_the_repository_config_names() {
    let s = repo2();
    let mailmap = s.base.join("outside/mailmap");
    std::fs::write(&mailmap, "SECRET Name <ada@example.com>\n").unwrap();
    git(
        &s.root,
        &[
            "config",
            "blame.ignoreRevsFile",
            &s.abs("outside/secret.txt"),
        ],
    );
    git(
        &s.root,
        &["config", "mailmap.file", mailmap.to_str().unwrap()],
    );
    git(&s.root, &["config", "mailmap.blob", "HEAD:a.txt"]);
    assert_blame_of_lines_2_and_3(&s).await;
    let text = succeeded(g(&s, json!({"action": "show", "stat": true})).await);
    assert!(text.contains("\nAuthor: Ada <ada@example.com>\n"), "{text}");
    assert!(!text.contains("SECRET"), "{text}");
}

#[tokio::test]
async fn a_repository_in_a_subfolder_and_paths_in_it() {
    let s = Sandbox::new();
    let sub = s.root.join("proj");
    std::fs::create_dir(&sub).unwrap();
    init(&sub);
    s.write("proj/x.txt", "x\n");
    assert_eq!(
        g(&s, json!({"action": "status", "path": "proj"})).await,
        ok("On branch main (no commits yet)\nUntracked:\n  x.txt\n")
    );
    assert_eq!(
        g(
            &s,
            json!({"action": "add", "path": "proj", "paths": ["proj/x.txt"]})
        )
        .await,
        ok("staged\n")
    );
    let commit = json!({"action": "commit", "path": "proj/x.txt", "message": "x"});
    let text = succeeded(g(&s, commit).await);
    assert!(text.contains("] x\n"), "{text}");
    refused(&s, json!({"action": "log"}), "not a git repository").await;
}

#[tokio::test]
async fn diff_header_quotes_a_name_with_a_newline() {
    let s = repo();
    s.write("new\nline.txt", "x\n");
    s.write("tab\there.txt", "y\n");
    git(&s.root, &["add", "."]);
    let text = succeeded(g(&s, json!({"action": "diff", "staged": true})).await);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        &lines[..5],
        [
            "2 files changed, +2 -0",
            r#"+1 -0 "new\nline.txt""#,
            r#"+1 -0 "tab\there.txt""#,
            "",
            r#"diff --git "a/new\nline.txt" "b/new\nline.txt""#,
        ]
    );
    git(&s.root, &["commit", "-q", "-m", "odd names"]);
    git(&s.root, &["mv", "new\nline.txt", "plain.txt"]);
    let text = succeeded(g(&s, json!({"action": "diff", "staged": true})).await);
    assert!(
        text.starts_with("1 file changed, +0 -0\n+0 -0 \"new\\nline.txt\" -> plain.txt\n\n"),
        "{text}"
    );
}

#[tokio::test]
async fn diff_total_cap_names_the_files_not_shown() {
    let s = repo();
    // Five new files of about 8,100 bytes of patch each.
    let body: String = (0..800).map(|i| format!("row {i:04}\n")).collect();
    for n in 1..=5 {
        s.write(&format!("f{n}.txt"), &body);
    }
    git(&s.root, &["add", "."]);
    let text = succeeded(g(&s, json!({"action": "diff", "staged": true})).await);
    let header: Vec<&str> = text.lines().take(8).collect();
    assert_eq!(header[0], "5 files changed, +4000 -0");
    assert_eq!(
        &header[1..4],
        ["+800 -0 f1.txt", "+800 -0 f2.txt", "+800 -0 f3.txt"]
    );
    assert!(
        header[4].starts_with("+800 -0 f4.txt (patch cut, "),
        "{}",
        header[4]
    );
    assert_eq!(
        header[5],
        "+800 -0 f5.txt (patch not shown: output cap reached)"
    );
    assert_eq!(
        header[6],
        "[patches of 1 file not shown; pass paths to see them]"
    );
    assert_eq!(header[7], "");
    assert!(!text.contains("diff --git a/f5.txt"));
    assert!(text.len() <= 30_000, "{}", text.len());
}

#[cfg(unix)]
fn hook(s: &Sandbox, name: &str, script: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    let path = s.root.join(".git/hooks").join(name);
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[cfg(unix)]
#[tokio::test]
async fn write_actions_keep_the_hooks_and_the_timeout_kills_them() {
    let s = repo();
    hook(&s, "pre-commit", "#!/bin/sh\necho ran > hook-ran.txt\n");
    s.write("b.txt", "bee\n");
    git(&s.root, &["add", "b.txt"]);
    let commit_b = json!({"action": "commit", "message": "b", "paths": ["b.txt"]});
    succeeded(g(&s, commit_b).await);
    assert_eq!(s.read("hook-ran.txt"), "ran\n");

    let before = full(&s, "HEAD");
    hook(&s, "pre-commit", "#!/bin/sh\nsleep 60\n");
    s.write("c.txt", "sea\n");
    git(&s.root, &["add", "c.txt"]);
    let commit_c =
        json!({"action": "commit", "message": "c", "paths": ["c.txt"], "timeout_ms": 300});
    let text = failed(g(&s, commit_c).await);
    assert!(
        text.starts_with("git commit failed (timed out after 300 ms (process group killed)):\n"),
        "{text}"
    );
    assert_eq!(full(&s, "HEAD"), before);
}

#[cfg(unix)]
#[tokio::test]
async fn a_timeout_while_finding_the_repository_says_so() {
    let s = repo();
    // Reading a FIFO blocks until something writes to it: git waits for
    // its config forever.
    let config = s.root.join(".git/config");
    std::fs::remove_file(&config).unwrap();
    let status = Command::new("mkfifo").arg(&config).status().unwrap();
    assert!(status.success());
    assert_eq!(
        g(&s, json!({"action": "status", "timeout_ms": 300})).await,
        (
            true,
            "git: finding the repository of . did not finish: timed out after 300 ms (process group killed)"
                .to_owned()
        )
    );
}

#[tokio::test]
async fn output_is_capped_head_and_tail() {
    let s = repo();
    let big: String = (0..10_000).map(|i| format!("line {i:05}\n")).collect();
    s.write("big.txt", &big);
    git(&s.root, &["add", "big.txt"]);
    git(&s.root, &["commit", "-q", "-m", "big"]);
    let text = succeeded(g(&s, json!({"action": "show", "ref": "HEAD:big.txt"})).await);
    assert!(text.starts_with("line 00000\nline 00001\n"), "{text}");
    assert!(text.ends_with("line 09998\nline 09999\n"), "{text}");
    assert!(text.len() <= 30_200, "{}", text.len());
    let marker = text
        .lines()
        .find(|l| l.starts_with("[... "))
        .expect("a marker line");
    assert!(
        marker.ends_with(
            " of 110000 bytes not shown; narrow it with paths, limit or a revision range ...]"
        ),
        "{marker}"
    );
}
