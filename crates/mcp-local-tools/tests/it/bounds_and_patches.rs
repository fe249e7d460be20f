//! Bounds and patch semantics: size and line limits, patch sections,
//! creation and deletion diffs, device files, the toolbox's time bound, a
//! failed replace that restores what it wrote. Each asserts the exact
//! outcome.

use std::time::Duration;

use crate::common::{Sandbox, call, fs};
use mcp_local_tools::{CallFuture, LocalTool, ToolContext, Toolbox};
use serde_json::{Map, Value, json};

fn ok(text: &str) -> (bool, String) {
    (false, text.to_owned())
}

fn err(text: &str) -> (bool, String) {
    (true, text.to_owned())
}

#[tokio::test]
async fn patch_sections_for_one_file_apply_in_sequence() {
    let s = Sandbox::new();
    s.write("a.txt", "one\ntwo\nthree\nfour\n");
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n--- a/a.txt\n+++ b/a.txt\n@@ -3,2 +3,2 @@\n three\n-four\n+FOUR\n";
    let r = fs(&s.roots, json!({"action": "patch", "diff": diff})).await;
    assert_eq!(r, ok("patched a.txt (+1 -1)\npatched a.txt (+1 -1)\n"));
    assert_eq!(s.read("a.txt"), "ONE\ntwo\nthree\nFOUR\n");
}

#[tokio::test]
async fn patch_creation_diff_on_an_existing_file_is_refused() {
    let s = Sandbox::new();
    s.write("a.txt", "keep\n");
    let diff = "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+new\n";
    let r = fs(&s.roots, json!({"action": "patch", "diff": diff})).await;
    assert_eq!(
        r,
        err(
            "patch: a.txt: already exists; a diff from /dev/null only creates new files (no file changed)"
        )
    );
    assert_eq!(s.read("a.txt"), "keep\n");
}

#[tokio::test]
async fn patch_with_headers_but_no_hunk_is_refused() {
    let s = Sandbox::new();
    s.write("a.txt", "keep\n");
    let diff = "--- a/a.txt\n+++ b/a.txt\n";
    let r = fs(&s.roots, json!({"action": "patch", "diff": diff})).await;
    assert_eq!(
        r,
        err("patch: a.txt: the diff has file headers but no hunk ('@@ ... @@'); no file changed")
    );
    assert_eq!(s.read("a.txt"), "keep\n");
}

#[tokio::test]
async fn patch_deletion_diff_removes_the_file() {
    let s = Sandbox::new();
    s.write("a.txt", "one\ntwo\n");
    let diff = "--- a/a.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two\n";
    let r = fs(&s.roots, json!({"action": "patch", "diff": diff})).await;
    assert_eq!(r, ok("deleted a.txt (-2)\n"));
    assert!(!s.root.join("a.txt").exists());
}

#[tokio::test]
async fn patch_deletion_diff_that_leaves_text_is_refused() {
    let s = Sandbox::new();
    s.write("a.txt", "one\ntwo\n");
    let diff = "--- a/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-one\n";
    let r = fs(&s.roots, json!({"action": "patch", "diff": diff})).await;
    assert_eq!(
        r,
        err("patch: a.txt: the deletion diff leaves 4 bytes in the file; no file changed")
    );
    assert_eq!(s.read("a.txt"), "one\ntwo\n");
}

#[tokio::test]
async fn patch_hunk_with_stale_line_numbers_lands_on_the_nearest_match() {
    let s = Sandbox::new();
    s.write("a.txt", "x\ny\nz\nx\ny\nz\nq\n");
    // Says line 1, but the nearest `y`,`z` pair after it is at line 2.
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -6,2 +6,2 @@\n y\n-z\n+Z\n";
    let r = fs(&s.roots, json!({"action": "patch", "diff": diff})).await;
    assert_eq!(r, ok("patched a.txt (+1 -1)\n"));
    assert_eq!(s.read("a.txt"), "x\ny\nz\nx\ny\nZ\nq\n");
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n y\n-z\n+ZZ\n";
    let r = fs(&s.roots, json!({"action": "patch", "diff": diff})).await;
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
    let s = Sandbox::new();
    s.write("a.txt", "a\n");
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
    let s = Sandbox::new();
    let r = fs(
        &s.roots,
        json!({"action": "write", "path": "newf/", "content": "x"}),
    )
    .await;
    assert_eq!(
        r,
        err("write: path 'newf/' ends with '/'; a file path cannot name a directory")
    );
    assert!(!s.root.join("newf").exists());
}

#[tokio::test]
async fn edit_replace_all_over_the_size_limit_is_refused_and_writes_nothing() {
    let s = Sandbox::new();
    s.write("a.txt", &"a".repeat(20_000));
    let r = fs(
        &s.roots,
        json!({"action": "edit", "path": "a.txt", "old_text": "a", "new_text": "b".repeat(1000), "replace_all": true}),
    )
    .await;
    assert_eq!(
        r,
        err(
            "edit a.txt: the result would be 20000000 bytes, more than the 16777216-byte limit; file unchanged"
        )
    );
    assert_eq!(s.read("a.txt"), "a".repeat(20_000));
}

#[tokio::test]
async fn multi_edit_doubling_stops_at_the_size_limit() {
    let s = Sandbox::new();
    s.write("a.txt", &"x".repeat(1_000_000));
    let step = json!({"old_text": "x", "new_text": "xx", "replace_all": true});
    let r = fs(
        &s.roots,
        json!({"action": "multi_edit", "path": "a.txt", "edits": [step, step, step, step, step]}),
    )
    .await;
    assert_eq!(
        r,
        err(
            "edit 5 of 5 on a.txt: the result would be 32000000 bytes, more than the 16777216-byte limit; file unchanged"
        )
    );
    assert_eq!(s.read("a.txt").len(), 1_000_000);
}

#[tokio::test]
async fn grep_replace_dry_run_over_the_size_limit_is_refused() {
    let s = Sandbox::new();
    s.write("big.txt", &"a".repeat(2_000_000));
    let r = call(
        "code",
        &s.roots,
        json!({"action": "grep_replace", "pattern": "a", "replacement": "b".repeat(20), "literal": true, "dry_run": true}),
    )
    .await;
    assert_eq!(
        r,
        err(
            "grep_replace: the old and new text of the changed files would pass 33554432 bytes (at big.txt); pass a narrower path or glob (nothing written)"
        )
    );
    let r = call(
        "code",
        &s.roots,
        json!({"action": "grep_replace", "pattern": "a", "replacement": "b".repeat(20), "literal": true}),
    )
    .await;
    assert!(r.0, "{}", r.1);
    assert_eq!(s.read("big.txt"), "a".repeat(2_000_000));
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
    let r = call(
        "code",
        &s.roots,
        json!({"action": "outline", "path": "pipe.rs"}),
    )
    .await;
    assert_eq!(r, err("path 'pipe.rs': not a regular file"));
}

#[tokio::test]
async fn a_file_name_near_the_255_byte_limit_can_still_be_rewritten() {
    let s = Sandbox::new();
    let name = format!("{}.txt", "n".repeat(245));
    s.write(&name, "old text\n");
    let r = call(
        "code",
        &s.roots,
        json!({"action": "grep_replace", "pattern": "old", "replacement": "new", "literal": true}),
    )
    .await;
    assert!(!r.0, "{}", r.1);
    assert!(r.1.starts_with("1 replacement in 1 file\n"), "{}", r.1);
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
    let s = Sandbox::new();
    s.write("a.txt", "alpha one\n");
    s.write("m/locked.txt", "alpha two\n");
    s.write("z.txt", "alpha three\n");
    let locked = s.root.join("m");
    if !lock_dir(&locked) {
        unlock_dir(&locked);
        eprintln!("skipped: this file system lets every user write into any directory");
        return;
    }
    let r = call(
        "code",
        &s.roots,
        json!({"action": "grep_replace", "pattern": "alpha", "replacement": "beta", "literal": true}),
    )
    .await;
    unlock_dir(&locked);
    assert!(r.0, "{}", r.1);
    assert!(
        r.1.starts_with("grep_replace: writing m/locked.txt failed: "),
        "{}",
        r.1
    );
    // The walk is in name order, so a.txt was written before m/locked.txt failed.
    assert!(
        r.1.ends_with("; the 1 file(s) already written were restored; nothing changed"),
        "{}",
        r.1
    );
    assert_eq!(s.read("a.txt"), "alpha one\n");
    assert_eq!(s.read("m/locked.txt"), "alpha two\n");
    assert_eq!(s.read("z.txt"), "alpha three\n");
}
