//! Bounds and patch semantics: size and line limits, patch sections,
//! creation and deletion diffs, device files, the toolbox's time bound, a
//! failed replace that restores what it wrote. Each asserts the exact
//! outcome.

use std::time::Duration;

use crate::common::{Sandbox, changes, err, failed, fs, ok};
use mcp_local_tools::{CallFuture, LocalTool, ToolContext, Toolbox};
use serde_json::{Map, Value, json};

/// A patch of one file, each in a fresh sandbox: sections for one file
/// apply in sequence, a creation diff makes a new file and refuses an
/// existing one, headers without a hunk are refused, a deletion diff
/// removes the file only when it leaves nothing; a refused patch changes
/// nothing.
#[tokio::test]
async fn a_patch_of_one_file_applies_whole_or_changes_nothing() {
    let cases = [
        (
            "a.txt",
            Some("one\ntwo\nthree\nfour\n"),
            "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n--- a/a.txt\n+++ b/a.txt\n@@ -3,2 +3,2 @@\n three\n-four\n+FOUR\n",
            ok("patched a.txt (+1 -1)\npatched a.txt (+1 -1)\n"),
            Some("ONE\ntwo\nthree\nFOUR\n"),
        ),
        (
            "new.txt",
            None,
            "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n",
            ok("patched new.txt (+2 -0)\n"),
            Some("hello\nworld\n"),
        ),
        (
            "a.txt",
            Some("keep\n"),
            "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+new\n",
            err(
                "patch: a.txt: already exists; a diff from /dev/null only creates new files (no file changed)",
            ),
            Some("keep\n"),
        ),
        (
            "a.txt",
            Some("keep\n"),
            "--- a/a.txt\n+++ b/a.txt\n",
            err(
                "patch: a.txt: the diff has file headers but no hunk ('@@ ... @@'); no file changed",
            ),
            Some("keep\n"),
        ),
        (
            "a.txt",
            Some("one\ntwo\n"),
            "--- a/a.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two\n",
            ok("deleted a.txt (-2)\n"),
            None,
        ),
        (
            "a.txt",
            Some("one\ntwo\n"),
            "--- a/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-one\n",
            err("patch: a.txt: the deletion diff leaves 4 bytes in the file; no file changed"),
            Some("one\ntwo\n"),
        ),
    ];
    changes(
        "fs",
        cases.map(|(file, before, diff, answer, after)| {
            let args = json!({"action": "patch", "diff": diff});
            (file, before, args, answer, after)
        }),
    )
    .await;
}

#[tokio::test]
async fn patch_hunk_with_stale_line_numbers_lands_on_the_nearest_match() {
    let s = Sandbox::with_files(&[("a.txt", "x\ny\nz\nx\ny\nz\nq\n")]);
    let fs = s.tool("fs");
    // Says line 1, but the nearest `y`,`z` pair after it is at line 2.
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -6,2 +6,2 @@\n y\n-z\n+Z\n";
    let r = fs.call(json!({"action": "patch", "diff": diff})).await;
    assert_eq!(r, ok("patched a.txt (+1 -1)\n"));
    assert_eq!(s.read("a.txt"), "x\ny\nz\nx\ny\nZ\nq\n");
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n y\n-z\n+ZZ\n";
    let r = fs.call(json!({"action": "patch", "diff": diff})).await;
    assert_eq!(r, ok("patched a.txt (+1 -1)\n"));
    assert_eq!(s.read("a.txt"), "x\ny\nZZ\nx\ny\nZ\nq\n");
}

/// QA's case scaled up: 300,000 identical lines and a 4,000-line hunk whose
/// only match is at the very end. The old position search compared the
/// whole hunk at every line (hours); a linear scan finishes.
#[tokio::test]
async fn patch_long_hunk_on_a_long_uniform_file_finishes_with_the_right_text() {
    let s = Sandbox::new();
    let mut text = "a\n".repeat(300_000);
    text.push_str("end\n");
    s.write("a.txt", &text);
    let mut diff = String::from("--- a/a.txt\n+++ b/a.txt\n@@ -1,4001 +1,4001 @@\n");
    diff.push_str(&" a\n".repeat(4000));
    diff.push_str("-end\n+END\n");
    let r = fs(&s.roots, json!({"action": "patch", "diff": diff})).await;
    assert_eq!(r, ok("patched a.txt (+1 -1)\n"));
    let mut want = "a\n".repeat(300_000);
    want.push_str("END\n");
    assert_eq!(s.read("a.txt"), want);
}

#[tokio::test]
async fn patch_over_the_line_limit_is_refused() {
    let s = Sandbox::with_files(&[("a.txt", "a\n")]);
    let mut diff = String::from("--- a/a.txt\n+++ b/a.txt\n@@ -1,100001 +1,100001 @@\n");
    diff.push_str(&" a\n".repeat(100_001));
    let r = fs(&s.roots, json!({"action": "patch", "diff": diff})).await;
    assert_eq!(
        r,
        err(
            "patch: the diff has 100004 lines, more than the 100000-line limit; split it (no file changed)"
        )
    );
}

/// A tool that never finishes on its own and records whether its
/// cancellation token fired.
struct Stuck(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl LocalTool for Stuck {
    fn name(&self) -> &'static str {
        "stuck"
    }
    fn definition(&self) -> mcp_proto::Tool {
        serde_json::from_value(json!({"name": "stuck", "inputSchema": {"type": "object"}}))
            .expect("tool")
    }
    fn call<'a>(&'a self, _: Map<String, Value>, ctx: ToolContext) -> CallFuture<'a> {
        let flag = self.0.clone();
        let token = ctx.cancel.clone();
        tokio::spawn(async move {
            token.cancelled().await;
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        Box::pin(std::future::pending())
    }
}

#[tokio::test]
async fn toolbox_call_over_its_time_bound_is_an_error_and_cancels_the_work() {
    let s = Sandbox::new();
    let fired = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut toolbox = Toolbox::new();
    toolbox.add(Stuck(fired.clone()));
    assert_eq!(toolbox.call_timeout(), Some(Duration::from_secs(120)));
    toolbox.set_call_timeout(Some(Duration::from_millis(20)));
    let ctx = ToolContext::new(s.roots.clone());
    let caller = ctx.cancel.clone();
    let result = toolbox.call("stuck", Map::new(), ctx).await.expect("tool");
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        result.content[0].as_text(),
        Some("stuck: timed out after 20 ms (no result)")
    );
    // Wait (without a deadline) for the watcher task to see the cancel.
    while !fired.load(std::sync::atomic::Ordering::SeqCst) {
        tokio::task::yield_now().await;
    }
    assert!(
        !caller.is_cancelled(),
        "the caller's own token is untouched"
    );
}

#[tokio::test]
async fn fs_write_to_a_path_with_a_trailing_slash_is_refused() {
    let write = json!({"action": "write", "path": "newf/", "content": "x"});
    let answer = err("write: path 'newf/' ends with '/'; a file path cannot name a directory");
    changes("fs", [("newf", None, write, answer, None)]).await;
}

/// An edit whose result would pass the 16 MiB limit is refused before
/// anything is written: `replace_all` at once, or `multi_edit` doubling the
/// file step by step.
#[tokio::test]
async fn edits_past_the_size_limit_are_refused_and_write_nothing() {
    let (a, x) = ("a".repeat(20_000), "x".repeat(1_000_000));
    let step = json!({"old_text": "x", "new_text": "xx", "replace_all": true});
    let cases = [
        (
            "a.txt",
            Some(a.as_str()),
            json!({"action": "edit", "path": "a.txt", "old_text": "a", "new_text": "b".repeat(1000), "replace_all": true}),
            err(
                "edit a.txt: the result would be 20000000 bytes, more than the 16777216-byte limit; file unchanged",
            ),
            Some(a.as_str()),
        ),
        (
            "a.txt",
            Some(x.as_str()),
            json!({"action": "multi_edit", "path": "a.txt", "edits": [step, step, step, step, step]}),
            err(
                "edit 5 of 5 on a.txt: the result would be 32000000 bytes, more than the 16777216-byte limit; file unchanged",
            ),
            Some(x.as_str()),
        ),
    ];
    changes("fs", cases).await;
}

#[tokio::test]
async fn grep_replace_dry_run_over_the_size_limit_is_refused() {
    let big = "a".repeat(2_000_000);
    let s = Sandbox::with_files(&[("big.txt", &big)]);
    let code = s.tool("code");
    let replace = json!({"action": "grep_replace", "pattern": "a", "replacement": "b".repeat(20), "literal": true});
    let mut dry_run = replace.clone();
    dry_run["dry_run"] = json!(true);
    assert_eq!(
        code.call(dry_run).await,
        err(
            "grep_replace: the old and new text of the changed files would pass 33554432 bytes (at big.txt); pass a narrower path or glob (nothing written)"
        )
    );
    code.fails(replace).await;
    assert_eq!(s.read("big.txt"), big);
}

#[tokio::test]
async fn search_skips_a_file_whose_line_passes_the_buffer_limit() {
    let s = Sandbox::new();
    let mut long = "x".repeat(5 * 1024 * 1024);
    long.push_str("needle");
    s.write("long.txt", &long);
    s.write("short.txt", "a needle here\n");
    let r = fs(&s.roots, json!({"action": "search", "pattern": "needle"})).await;
    assert_eq!(
        r,
        ok(
            "short.txt:1:a needle here\n[skipped 1 file with a line longer than the 4194304-byte search buffer: long.txt]\n"
        )
    );
}

#[tokio::test]
async fn code_outline_refuses_a_fifo() {
    let s = Sandbox::new();
    let status = std::process::Command::new("mkfifo")
        .arg(s.root.join("pipe.rs"))
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    assert_eq!(
        s.tool("code")
            .call(json!({"action": "outline", "path": "pipe.rs"}))
            .await,
        err("path 'pipe.rs': not a regular file")
    );
}

#[tokio::test]
async fn a_file_name_near_the_255_byte_limit_can_still_be_rewritten() {
    let name = format!("{}.txt", "n".repeat(245));
    let s = Sandbox::with_files(&[(&name, "old text\n")]);
    let replace =
        json!({"action": "grep_replace", "pattern": "old", "replacement": "new", "literal": true});
    let text = s.tool("code").succeeds(replace).await;
    assert!(text.starts_with("1 replacement in 1 file\n"), "{text}");
    assert_eq!(s.read(&name), "new text\n");
}

/// Makes `dir` refuse new entries: `chmod 555` for a normal user, the
/// immutable attribute for root (who ignores modes). `false` when neither
/// holds on this file system.
fn lock_dir(dir: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let probe = dir.join(".probe");
    let refuses = || {
        let created = std::fs::write(&probe, "").is_ok();
        let _ = std::fs::remove_file(&probe);
        !created
    };
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    if refuses() {
        return true;
    }
    let chattr = std::process::Command::new("chattr")
        .arg("+i")
        .arg(dir)
        .status();
    matches!(chattr, Ok(status) if status.success()) && refuses()
}

fn unlock_dir(dir: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::process::Command::new("chattr")
        .arg("-i")
        .arg(dir)
        .status();
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755));
}

#[tokio::test]
async fn grep_replace_that_fails_midway_restores_the_files_it_wrote() {
    let s = Sandbox::with_files(&[
        ("a.txt", "alpha one\n"),
        ("m/locked.txt", "alpha two\n"),
        ("z.txt", "alpha three\n"),
    ]);
    let locked = s.root.join("m");
    if !lock_dir(&locked) {
        unlock_dir(&locked);
        eprintln!("skipped: this file system lets every user write into any directory");
        return;
    }
    let replace = json!({"action": "grep_replace", "pattern": "alpha", "replacement": "beta", "literal": true});
    let answer = s.tool("code").call(replace).await;
    unlock_dir(&locked);
    let text = failed(answer);
    assert!(
        text.starts_with("grep_replace: writing m/locked.txt failed: "),
        "{text}"
    );
    // The walk is in name order, so a.txt was written before m/locked.txt failed.
    assert!(
        text.ends_with("; the 1 file(s) already written were restored; nothing changed"),
        "{text}"
    );
    assert_eq!(s.read("a.txt"), "alpha one\n");
    assert_eq!(s.read("m/locked.txt"), "alpha two\n");
    assert_eq!(s.read("z.txt"), "alpha three\n");
}
