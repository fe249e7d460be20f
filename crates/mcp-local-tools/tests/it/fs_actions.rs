//! Every `fs` action on real files in a temporary folder, asserting the
//! exact output.

use crate::common::{Sandbox, assert_outside_roots, call_result, cases, changes, err, fs, ok};
use serde_json::json;

#[tokio::test]
async fn read_whole_file() {
    let s = Sandbox::with_files(&[("a.txt", "one\ntwo\nthree\n")]);
    assert_eq!(
        fs(&s.roots, json!({"action": "read", "path": "a.txt"})).await,
        ok("one\ntwo\nthree\n")
    );
}

/// A page of lines, numbered or not; what is not a text file is named.
#[tokio::test]
async fn read_pages_by_line_and_refuses_what_is_not_text() {
    let s = Sandbox::with_files(&[("a.txt", "one\ntwo\nthree\nfour\n")]);
    std::fs::write(s.root.join("b.bin"), b"\x00\x01\x02rest").unwrap();
    std::fs::create_dir(s.root.join("d")).unwrap();
    let cases = cases![
        {"action": "read", "path": "a.txt", "offset": 1, "limit": 2, "line_numbers": true} => ok("     2\ttwo\n     3\tthree\n[lines 2-3 of 4; continue with offset=3]\n"),
        {"action": "read", "path": "a.txt", "offset": 3} => ok("four\n"),
        {"action": "read", "path": "a.txt", "offset": 9} => ok("[offset 9 is past the end: the file has 4 lines]\n"),
        {"action": "read", "path": "b.bin"} => err("path 'b.bin': binary file (7 bytes), not shown as text"),
        {"action": "read", "path": "d"} => err("path 'd': is a directory (use action list)"),
        {"action": "read", "path": "missing.txt"} => err("path 'missing.txt': no such file or directory"),
        {"action": "read"} => err("read: missing field 'path'"),
    ];
    s.tool("fs").answers(cases).await;
}

#[tokio::test]
async fn read_image_as_image_content() {
    let s = Sandbox::new();
    let png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR";
    std::fs::write(s.root.join("p.png"), png).unwrap();
    let result = call_result("fs", &s.roots, json!({"action": "read", "path": "p.png"})).await;
    let value = serde_json::to_value(&result).unwrap();
    assert_eq!(
        value,
        json!({"content": [{"type": "image", "data": "iVBORw0KGgoAAAANSUhEUg==", "mimeType": "image/png"}]})
    );
}

#[tokio::test]
async fn write_creates_parents_and_replaces() {
    let s = Sandbox::new();
    let fs = s.tool("fs");
    let write =
        |content: &str| json!({"action": "write", "path": "new/dir/a.txt", "content": content});
    assert_eq!(
        fs.call(write("hello\n")).await,
        ok("wrote new/dir/a.txt (6 bytes, a new file)")
    );
    assert_eq!(s.read("new/dir/a.txt"), "hello\n");
    assert_eq!(
        fs.call(write("bye")).await,
        ok("wrote new/dir/a.txt (3 bytes, replaced the file)")
    );
    assert_eq!(s.read("new/dir/a.txt"), "bye");
    assert_eq!(
        fs.call(json!({"action": "write", "path": "new", "content": "x"}))
            .await,
        err("path 'new': is a directory")
    );
}

/// An edit or a multi_edit changes the file only when every edit applies
/// once (or `replace_all`); its answer is the diff, or says why the file
/// is unchanged.
#[tokio::test]
async fn edits_change_the_file_only_when_every_edit_applies() {
    let cases = [
        (
            "a.rs",
            Some("fn main() {\n    println!(\"hi\");\n}\n"),
            json!({"action": "edit", "path": "a.rs", "old_text": "\"hi\"", "new_text": "\"hello\""}),
            ok(
                "edited a.rs: 1 replacement\n--- a/a.rs\n+++ b/a.rs\n@@ -1,3 +1,3 @@\n fn main() {\n-    println!(\"hi\");\n+    println!(\"hello\");\n }\n",
            ),
            Some("fn main() {\n    println!(\"hello\");\n}\n"),
        ),
        (
            "a.txt",
            Some("x = 1\nx = 1\n"),
            json!({"action": "edit", "path": "a.txt", "old_text": "x = 1", "new_text": "x = 2"}),
            err(
                "edit a.txt: old_text occurs 2 times; add context to make it unique or pass replace_all: true; file unchanged",
            ),
            Some("x = 1\nx = 1\n"),
        ),
        (
            "a.txt",
            Some("x = 1\nx = 1\n"),
            json!({"action": "edit", "path": "a.txt", "old_text": "x = 1", "new_text": "x = 2", "replace_all": true}),
            ok(
                "edited a.txt: 2 replacements\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-x = 1\n-x = 1\n+x = 2\n+x = 2\n",
            ),
            Some("x = 2\nx = 2\n"),
        ),
        (
            "a.txt",
            Some("abc\n"),
            json!({"action": "edit", "path": "a.txt", "old_text": "zzz", "new_text": "y"}),
            err("edit a.txt: old_text not found; file unchanged"),
            Some("abc\n"),
        ),
        (
            "a.txt",
            Some("alpha\nbeta\ngamma\n"),
            json!({"action": "multi_edit", "path": "a.txt", "edits": [
                {"old_text": "alpha", "new_text": "ALPHA"},
                {"old_text": "gamma", "new_text": "GAMMA"}
            ]}),
            ok(
                "edited a.txt: 2 replacements\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n-alpha\n+ALPHA\n beta\n-gamma\n+GAMMA\n",
            ),
            Some("ALPHA\nbeta\nGAMMA\n"),
        ),
        (
            "a.txt",
            Some("alpha\nbeta\ngamma\n"),
            json!({"action": "multi_edit", "path": "a.txt", "edits": [
                {"old_text": "alpha", "new_text": "ALPHA"},
                {"old_text": "delta", "new_text": "DELTA"},
                {"old_text": "gamma", "new_text": "GAMMA"}
            ]}),
            err("edit 2 of 3 on a.txt: old_text not found; file unchanged"),
            Some("alpha\nbeta\ngamma\n"),
        ),
    ];
    changes("fs", cases).await;
}

#[cfg(unix)]
#[tokio::test]
async fn edit_keeps_permissions() {
    use std::os::unix::fs::PermissionsExt as _;
    let s = Sandbox::with_files(&[("run.sh", "echo a\n")]);
    let run = s.root.join("run.sh");
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
    let edit = json!({"action": "edit", "path": "run.sh", "old_text": "a", "new_text": "b"});
    s.tool("fs").succeeds(edit).await;
    let mode = std::fs::metadata(&run).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o755);
}

#[tokio::test]
async fn patch_applies_unified_diff_to_two_files() {
    let s = Sandbox::with_files(&[("a.txt", "one\ntwo\nthree\n"), ("sub/b.txt", "x\ny\n")]);
    let diff = "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n--- a/sub/b.txt\n+++ b/sub/b.txt\n@@ -1,2 +1,3 @@\n x\n y\n+z\n";
    let r = fs(&s.roots, json!({"action": "patch", "diff": diff})).await;
    assert_eq!(r, ok("patched a.txt (+1 -1)\npatched sub/b.txt (+1 -0)\n"));
    assert_eq!(s.read("a.txt"), "one\nTWO\nthree\n");
    assert_eq!(s.read("sub/b.txt"), "x\ny\nz\n");
}

#[tokio::test]
async fn patch_with_a_bad_hunk_changes_nothing() {
    let s = Sandbox::with_files(&[("a.txt", "one\ntwo\nthree\n"), ("b.txt", "x\ny\n")]);
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n x\n-not there\n+z\n";
    let text = s
        .tool("fs")
        .fails(json!({"action": "patch", "diff": diff}))
        .await;
    assert!(text.starts_with("patch: b.txt: "), "{text}");
    assert!(text.ends_with("; no file changed"), "{text}");
    assert_eq!(s.read("a.txt"), "one\ntwo\nthree\n");
    assert_eq!(s.read("b.txt"), "x\ny\n");
}

#[tokio::test]
async fn list_directory() {
    let s = Sandbox::with_files(&[("b.txt", ""), ("a/inner.txt", "")]);
    std::os::unix::fs::symlink("b.txt", s.root.join("c")).unwrap();
    let fs = s.tool("fs");
    let cases = cases![
        {"action": "list"} => ok("a/\nb.txt\nc -> b.txt\n"),
        {"action": "list", "offset": 1, "limit": 1} => ok("b.txt\n[entries 2-2 of 3; continue with offset=2]\n"),
        {"action": "list", "path": "a"} => ok("inner.txt\n"),
    ];
    fs.answers(cases).await;
    std::fs::create_dir(s.root.join("empty")).unwrap();
    let cases = cases![
        {"action": "list", "path": "empty"} => ok("[empty directory]\n"),
        {"action": "list", "path": "b.txt"} => err("path 'b.txt': not a directory"),
    ];
    fs.answers(cases).await;
}

#[tokio::test]
async fn tree_honours_gitignore_and_depth() {
    let s = Sandbox::with_files(&[
        (".gitignore", "target/\n*.log\n"),
        ("src/lib.rs", ""),
        ("src/deep/er/x.rs", ""),
        ("target/debug/out", ""),
        ("run.log", ""),
        ("README.md", ""),
        (".git/HEAD", "ref: refs/heads/main\n"),
    ]);
    let cases = cases![
        {"action": "tree", "depth": 2} => ok("./\n  README.md\n  src/\n    deep/\n    lib.rs\n"),
        {"action": "tree", "hidden": true, "depth": 1} => ok("./\n  .gitignore\n  README.md\n  src/\n"),
        {"action": "tree", "limit": 2} => ok("./\n  README.md\n  src/\n[entries 1-2 shown, more exist; continue with offset=2]\n"),
    ];
    s.tool("fs").answers(cases).await;
}

#[tokio::test]
async fn ignore_files_are_read_beneath_the_root_and_through_no_link() {
    // A nested `.gitignore` that takes back a parent's rule, an `.ignore`,
    // and a `.git/info/exclude` are honoured; a `.gitignore` linked to a
    // file outside the roots (whose lines would hide files and so be
    // guessed) or to `/dev/zero` (a walk without end) is not read, nor is
    // one above the root.
    let s = Sandbox::with_files(&[
        (".gitignore", "*.log\n"),
        ("keep/.gitignore", "!wanted.log\n"),
        ("keep/wanted.log", ""),
        ("keep/other.log", ""),
        (".ignore", "scratch/\n"),
        ("scratch/x", ""),
        (".git/info/exclude", "local.txt\n"),
        ("local.txt", ""),
        ("linked/secretname", ""),
        ("linked/guess", ""),
        ("zero/file", ""),
        ("abovename", ""),
    ]);
    std::fs::write(s.base.join("outside/ignore.txt"), "secretname\n").unwrap();
    s.link("outside/ignore.txt", "linked/.gitignore");
    std::os::unix::fs::symlink("/dev/zero", s.root.join("zero/.gitignore")).unwrap();
    std::fs::write(s.base.join(".gitignore"), "abovename\n").unwrap();
    let cases = cases![
        {"action": "find", "pattern": "**/*"} => ok("abovename\nkeep/\nkeep/wanted.log\nlinked/\nlinked/guess\nlinked/secretname\nzero/\nzero/file\n"),
    ];
    s.tool("fs").answers(cases).await;
}

#[tokio::test]
async fn find_by_glob() {
    let s = Sandbox::with_files(&[("src/lib.rs", ""), ("src/fs/mod.rs", ""), ("docs/a.md", "")]);
    let cases = cases![
        {"action": "find", "pattern": "*.rs"} => ok("src/fs/mod.rs\nsrc/lib.rs\n"),
        {"action": "find", "pattern": "src/*.rs"} => ok("src/lib.rs\n"),
        {"action": "find", "pattern": "**/*.rs", "path": "src", "limit": 1} => ok("src/fs/mod.rs\n[paths 1-1 shown, more exist; continue with offset=1]\n"),
        {"action": "find", "pattern": "*.py"} => ok("[no match for *.py]\n"),
    ];
    s.tool("fs").answers(cases).await;
}

#[tokio::test]
async fn search_regex_literal_context_and_pages_across_and_within_files() {
    let s = Sandbox::with_files(&[
        ("a.txt", "zero\nfoo one\ntwo\nthree\nfoo four\n"),
        ("b/c.rs", "let foo = 1;\n"),
        (".gitignore", "ignored.txt\n"),
        ("ignored.txt", "foo hidden by gitignore\n"),
        ("many.txt", "hit 1\nhit 2\nhit 3\nhit 4\nhit 5\n"),
    ]);
    let cases = cases![
        {"action": "search", "pattern": "fo+ \\w+"} => ok("a.txt:2:foo one\na.txt:5:foo four\n"),
        {"action": "search", "pattern": "foo", "context": 1} => ok("a.txt-1-zero\na.txt:2:foo one\na.txt-3-two\na.txt-4-three\na.txt:5:foo four\n--\nb/c.rs:1:let foo = 1;\n"),
        {"action": "search", "pattern": "FOO", "ignore_case": true, "glob": "*.rs"} => ok("b/c.rs:1:let foo = 1;\n"),
        {"action": "search", "pattern": "foo (", "literal": true} => ok("[no match for foo (]\n"),
        {"action": "search", "pattern": "foo", "limit": 2} => ok("a.txt:2:foo one\na.txt:5:foo four\n[matches 1-2 of 3; continue with offset=2]\n"),
        {"action": "search", "pattern": "foo", "offset": 2} => ok("b/c.rs:1:let foo = 1;\n"),
        {"action": "search", "pattern": "foo", "limit": 1, "offset": 1, "context": 1} => ok("a.txt-4-three\na.txt:5:foo four\n[matches 2-2 of 3; continue with offset=2]\n"),
        {"action": "search", "pattern": "foo", "path": "b/c.rs"} => ok("b/c.rs:1:let foo = 1;\n"),
        // Pages within one file.
        {"action": "search", "pattern": "hit", "limit": 2} => ok("many.txt:1:hit 1\nmany.txt:2:hit 2\n[matches 1-2 of 5; continue with offset=2]\n"),
        {"action": "search", "pattern": "hit", "limit": 2, "offset": 2} => ok("many.txt:3:hit 3\nmany.txt:4:hit 4\n[matches 3-4 of 5; continue with offset=4]\n"),
        {"action": "search", "pattern": "hit", "offset": 4} => ok("many.txt:5:hit 5\n"),
    ];
    let fs = s.tool("fs");
    fs.answers(cases).await;
    let text = fs.fails(json!({"action": "search", "pattern": "("})).await;
    assert!(text.starts_with("search: bad pattern: "), "{text}");
}

#[tokio::test]
async fn info_file_dir_symlink() {
    use std::os::unix::fs::PermissionsExt as _;
    let s = Sandbox::with_files(&[("a.txt", "12345")]);
    std::fs::create_dir(s.root.join("d")).unwrap();
    std::os::unix::fs::symlink("a.txt", s.root.join("l")).unwrap();
    let file = std::fs::File::options()
        .write(true)
        .open(s.root.join("a.txt"))
        .unwrap();
    file.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_764_460_800))
        .unwrap();
    std::fs::set_permissions(s.root.join("a.txt"), std::fs::Permissions::from_mode(0o640)).unwrap();
    let fs = s.tool("fs");
    assert_eq!(
        fs.call(json!({"action": "info", "path": "a.txt"})).await,
        ok(
            "path: a.txt\ntype: file\nsize: 5 bytes\nmodified: 2025-11-30T00:00:00Z\npermissions: 640\n"
        )
    );
    for (path, start) in [
        ("d", "path: d\ntype: directory\n"),
        ("l", "path: l\ntype: symlink -> a.txt\n"),
    ] {
        let text = fs.succeeds(json!({"action": "info", "path": path})).await;
        assert!(text.starts_with(start), "{text}");
    }
}

#[tokio::test]
async fn mkdir_creates_parents() {
    let s = Sandbox::with_files(&[("f", "")]);
    let cases = cases![
        {"action": "mkdir", "path": "x/y/z"} => ok("created directory x/y/z"),
        {"action": "mkdir", "path": "x/y"} => ok("directory x/y already exists"),
        {"action": "mkdir", "path": "f"} => err("path 'f': already exists"),
    ];
    s.tool("fs").answers(cases).await;
    assert!(s.root.join("x/y/z").is_dir());
}

#[tokio::test]
async fn mv_refuses_overwrite_unless_asked() {
    let s = Sandbox::with_files(&[("a.txt", "A"), ("b.txt", "B")]);
    let fs = s.tool("fs");
    assert_eq!(
        fs.call(json!({"action": "mv", "path": "a.txt", "to": "b.txt"}))
            .await,
        err("path 'b.txt': already exists (pass overwrite: true to replace it)")
    );
    assert_eq!(s.read("b.txt"), "B");
    let overwrite = json!({"action": "mv", "path": "a.txt", "to": "b.txt", "overwrite": true});
    assert_eq!(fs.call(overwrite).await, ok("moved a.txt to b.txt"));
    assert_eq!(s.read("b.txt"), "A");
    assert!(!s.root.join("a.txt").exists());
    let into_new = json!({"action": "mv", "path": "b.txt", "to": "new/dir/c.txt"});
    assert_eq!(fs.call(into_new).await, ok("moved b.txt to new/dir/c.txt"));
    assert_eq!(s.read("new/dir/c.txt"), "A");
    let out = json!({"action": "mv", "path": "new/dir/c.txt", "to": "../outside/c.txt"});
    assert_outside_roots(&fs.call(out).await);
}

#[tokio::test]
async fn rm_file_link_and_directory() {
    let s = Sandbox::with_files(&[("a.txt", "A"), ("d/inner.txt", "")]);
    s.link("outside/secret.txt", "link");
    let fs = s.tool("fs");
    // Each removal, its answer, and a path (under the base) that is then
    // there or gone.
    for (args, answer, (path, there)) in [
        (
            json!({"action": "rm", "path": "a.txt"}),
            ok("removed a.txt"),
            ("root/a.txt", false),
        ),
        (
            json!({"action": "rm", "path": "d"}),
            err("path 'd': is a directory (pass recursive: true to remove it and its contents)"),
            ("root/d/inner.txt", true),
        ),
        (
            json!({"action": "rm", "path": "d", "recursive": true}),
            ok("removed directory d and its contents"),
            ("root/d", false),
        ),
        // Removing a link removes the link, never its target outside.
        (
            json!({"action": "rm", "path": "link"}),
            ok("removed link"),
            ("outside/secret.txt", true),
        ),
    ] {
        assert_eq!(fs.call(args.clone()).await, answer, "{args}");
        assert_eq!(s.base.join(path).exists(), there, "{args}: {path}");
    }
    assert_eq!(
        fs.call(json!({"action": "rm", "path": ".", "recursive": true}))
            .await,
        err("path '.': is a root; roots cannot be removed")
    );
}

#[tokio::test]
async fn help_and_bad_arguments() {
    let s = Sandbox::new();
    let fs = s.tool("fs");
    let help = fs.help().await;
    assert!(help.starts_with("fs actions (fields in brackets are optional):\nread {path, [limit], [line_numbers], [offset], [tail]}"), "{help}");
    for (args, start) in [
        (
            json!({"action": "explode"}),
            "invalid arguments: unknown variant `explode`",
        ),
        (
            json!({"action": "read", "path": "a", "bogus": 1}),
            "read: unknown field `bogus`, expected one of `file_path`, `path`, `offset`, `head`, `limit`, `tail`, `line_numbers`",
        ),
    ] {
        let text = fs.fails(args).await;
        assert!(text.starts_with(start), "{text}");
    }
}

#[tokio::test]
async fn read_cuts_a_very_long_line() {
    let s = Sandbox::new();
    let long = "x".repeat(10_000);
    s.write("long.txt", &format!("{long}\nshort\n"));
    let r = fs(&s.roots, json!({"action": "read", "path": "long.txt"})).await;
    assert_eq!(
        r,
        ok(&format!(
            "{} [line cut: 10000 bytes in all]\nshort\n",
            "x".repeat(4000)
        ))
    );
}

/// `help` of every tool is answered on the caller's task, not on the
/// blocking pool: with the pool's only thread held by other work, it still
/// answers (and a file action waits for the pool).
#[test]
fn help_does_not_wait_for_the_blocking_pool() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .max_blocking_threads(1)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let s = Sandbox::new();
        let (release, held) = std::sync::mpsc::channel::<()>();
        let blocker = tokio::task::spawn_blocking(move || held.recv());
        for tool in ["fs", "code", "workspace", "git"] {
            let answer = tokio::time::timeout(
                std::time::Duration::from_secs(30),
                crate::common::call(tool, &s.roots, json!({"action": "help"})),
            )
            .await;
            let (is_error, text) = answer.unwrap_or_else(|_| panic!("{tool} help waited"));
            assert!(!is_error, "{tool}: {text}");
            assert!(
                text.starts_with(&format!("{tool} actions")),
                "{tool}: {text}"
            );
        }
        release.send(()).unwrap();
        blocker.await.unwrap().unwrap();
    });
}

/// Hanzo's action names are aliases: `stat` is `info`, `search_text` is
/// `search`; `help` lists both names, and which actions only read.
#[tokio::test]
async fn hanzo_aliases_answer_like_our_actions() {
    let s = Sandbox::with_files(&[("a.txt", "needle one\nhay\nneedle two\n")]);
    for (alias, ours, extra) in [
        ("stat", "info", json!({"path": "a.txt"})),
        ("search_text", "search", json!({"pattern": "needle"})),
    ] {
        let with = |action: &str| {
            let mut args = extra.clone();
            args["action"] = json!(action);
            args
        };
        let by_alias = fs(&s.roots, with(alias)).await;
        let by_name = fs(&s.roots, with(ours)).await;
        assert!(!by_alias.0, "{alias}: {}", by_alias.1);
        assert_eq!(by_alias, by_name, "{alias} = {ours}");
    }
    let (_, text) = fs(
        &s.roots,
        json!({"action": "search_text", "pattern": "needle"}),
    )
    .await;
    assert_eq!(text, "a.txt:1:needle one\na.txt:3:needle two\n");
    let help = s.tool("fs").help().await;
    assert!(
        help.contains(
            "\ninfo {path}: type, size, modified time, permissions. (also called: stat) [can: read files]\n"
        ),
        "{help}"
    );
    assert!(
        help.contains("(also called: search_text) [can: read files]\n"),
        "{help}"
    );
    assert!(
        help.ends_with("Actions that only read: read, list, tree, find, search, info.\n"),
        "{help}"
    );
}

/// A field of the wrong type is named in the error.
#[tokio::test]
async fn a_bad_field_is_named() {
    let s = Sandbox::new();
    assert_eq!(
        fs(
            &s.roots,
            json!({"action": "read", "path": "a", "offset": "x"})
        )
        .await,
        err("invalid arguments: invalid type: string \"x\", expected u64 (field 'offset')")
    );
}

/// 50 `edit` calls on one file at once, each replacing `END` with a marker
/// line and `END`: every acknowledged edit is in the file (none overwrote
/// another's). Five rounds.
#[test]
fn concurrent_edits_of_one_file_lose_nothing() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(8)
        .enable_all()
        .build()
        .unwrap();
    for round in 0..5 {
        let s = Sandbox::with_files(&[("shared.txt", "START\nEND\n")]);
        let roots = s.roots.clone();
        let edits: Vec<_> = (0..50)
            .map(|i| {
                let roots = roots.clone();
                runtime.spawn(async move {
                    fs(
                        &roots,
                        json!({"action": "edit", "path": "shared.txt", "old_text": "END",
                               "new_text": format!("m{round}-{i}\nEND")}),
                    )
                    .await
                })
            })
            .collect();
        runtime.block_on(async {
            for edit in edits {
                let (is_error, text) = edit.await.unwrap();
                assert!(!is_error, "{text}");
            }
        });
        let text = s.read("shared.txt");
        for i in 0..50 {
            assert!(
                text.contains(&format!("m{round}-{i}\n")),
                "round {round}: m{i} lost"
            );
        }
        assert_eq!(text.lines().count(), 52);
    }
}

/// Nothing inside a `.git` folder is written, moved or removed by `fs`: a
/// repository's config and hooks name programs git runs, so an agent
/// without `exec` could otherwise run commands through the `git` tool.
#[tokio::test]
async fn git_internals_are_not_written() {
    let s = Sandbox::with_files(&[("repo/.git/config", "[core]\n"), ("repo/a.txt", "a\n")]);
    for args in [
        json!({"action": "write", "path": "repo/.git/hooks/pre-commit", "content": "#!/bin/sh\ntouch owned\n"}),
        json!({"action": "edit", "path": "repo/.git/config", "old_text": "[core]", "new_text": "[core]\n\tfsmonitor = touch owned"}),
        json!({"action": "write", "path": "repo/.GIT/config", "content": "x"}),
        json!({"action": "mkdir", "path": "repo/.git/hooks"}),
        json!({"action": "mkdir", "path": "fresh/.git/hooks"}),
        json!({"action": "mv", "path": "repo/a.txt", "to": "repo/.git/hooks/post-checkout"}),
        json!({"action": "rm", "path": "repo/.git/config"}),
        json!({"action": "patch", "diff": "--- a/repo/.git/config\n+++ b/repo/.git/config\n@@ -1 +1,2 @@\n [core]\n+\tpager = touch owned\n"}),
    ] {
        let (is_error, text) = fs(&s.roots, args.clone()).await;
        assert!(is_error, "{args}");
        assert!(
            text.contains("': inside a .git folder (a repository's config and hooks run programs); use the git tool"),
            "{args}: {text}"
        );
        // The refusal names the path asked for, never a temporary file.
        assert!(!text.contains("mcp-tmp"), "{args}: {text}");
    }
    assert_eq!(s.read("repo/.git/config"), "[core]\n");
    assert!(!s.root.join("repo/.git/hooks").exists());
    // Refused before any folder of the path is made.
    assert!(!s.root.join("fresh").exists());
    // Outside .git, and names that only start like it, are fine.
    let gitignore = json!({"action": "write", "path": "repo/.gitignore", "content": "target\n"});
    s.tool("fs").succeeds(gitignore).await;
}

#[tokio::test]
async fn calls_written_in_claude_codes_vocabulary_succeed() {
    let s = Sandbox::new();
    let file = s.root.join("notes.txt");
    let file_path = file.to_str().unwrap();
    let fs = s.tool("fs");
    // Write: file_path, content.
    let text = fs
        .succeeds(
            json!({"action": "write", "file_path": file_path, "content": "one\ntwo\ntwo\nthree\n"}),
        )
        .await;
    assert_eq!(text, "wrote notes.txt (18 bytes, a new file)");
    // Edit: file_path, old_string, new_string, replace_all.
    let text = fs
        .succeeds(json!({"action": "edit", "file_path": file_path, "old_string": "two", "new_string": "2", "replace_all": true}))
        .await;
    assert!(
        text.starts_with("edited notes.txt: 2 replacements\n"),
        "{text}"
    );
    assert_eq!(s.read("notes.txt"), "one\n2\n2\nthree\n");
    // Read: file_path, offset, limit.
    let text = fs
        .succeeds(json!({"action": "read", "file_path": file_path, "offset": 1, "limit": 2}))
        .await;
    assert!(text.starts_with("2\n2\n"), "{text}");
    // Write over it: the verb is still the one asked for.
    let (_, text) = fs
        .call(json!({"action": "write", "file_path": file_path, "content": "a\n"}))
        .await;
    assert_eq!(text, "wrote notes.txt (2 bytes, replaced the file)");
}

#[tokio::test]
async fn calls_written_in_the_reference_filesystem_servers_vocabulary_succeed() {
    let s = Sandbox::with_files(&[("f.txt", "l1\nl2\nl3\nl4\nl5")]);
    let fs = s.tool("fs");
    // edit_file with edits [{oldText, newText}] and dryRun: the diff, nothing written.
    let text = fs
        .succeeds(json!({"action": "edit_file", "path": "f.txt", "edits": [{"oldText": "l2", "newText": "two"}], "dryRun": true}))
        .await;
    assert!(
        text.starts_with("would edit (dry run, nothing written) f.txt: 1 replacement\n"),
        "{text}"
    );
    assert!(text.contains("-l2\n+two\n"), "{text}");
    assert_eq!(s.read("f.txt"), "l1\nl2\nl3\nl4\nl5");
    fs.succeeds(json!({"action": "edit_file", "path": "f.txt", "edits": [{"oldText": "l2", "newText": "two"}, {"old_string": "l4", "new_string": "four"}]}))
        .await;
    assert_eq!(s.read("f.txt"), "l1\ntwo\nl3\nfour\nl5");
    // read_text_file with head and tail.
    let head = json!({"action": "read_text_file", "path": "f.txt", "head": 2});
    let text = fs.succeeds(head).await;
    assert!(text.starts_with("l1\ntwo\n[lines 1-2 of"), "{text}");
    let tail = json!({"action": "read_text_file", "path": "f.txt", "tail": 2});
    assert_eq!(fs.succeeds(tail).await, "four\nl5\n");
    assert_eq!(
        fs.call(json!({"action": "read", "path": "f.txt", "tail": 2, "head": 1}))
            .await,
        err("read: give tail alone, or offset and limit (head), not both")
    );
}
