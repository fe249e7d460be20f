//! Path safety: one test per escape case, for read, write, and the search
//! and tree walks.

use crate::common::{Sandbox, fs};
use serde_json::json;

const OUTSIDE: &str = "outside the roots";

fn assert_refused((is_error, text): (bool, String), needle: &str) {
    assert!(is_error, "expected an error, got: {text}");
    assert!(text.contains(needle), "expected '{needle}' in: {text}");
}

// ---- `../` escape ----

#[tokio::test]
async fn dotdot_escape_read() {
    let s = Sandbox::new();
    let r = fs(
        &s.roots,
        json!({"action": "read", "path": "../outside/secret.txt"}),
    )
    .await;
    assert_refused(r, OUTSIDE);
}

#[tokio::test]
async fn dotdot_escape_write() {
    let s = Sandbox::new();
    let r = fs(
        &s.roots,
        json!({"action": "write", "path": "../outside/new.txt", "content": "x"}),
    )
    .await;
    assert_refused(r, OUTSIDE);
    assert!(!s.base.join("outside/new.txt").exists());
    let r = fs(
        &s.roots,
        json!({"action": "write", "path": "sub/../../outside/secret.txt", "content": "x"}),
    )
    .await;
    assert!(r.0, "{}", r.1);
    assert_eq!(
        std::fs::read_to_string(s.base.join("outside/secret.txt")).unwrap(),
        "SECRET outside\n"
    );
}

#[tokio::test]
async fn dotdot_escape_search() {
    let s = Sandbox::new();
    let r = fs(
        &s.roots,
        json!({"action": "search", "path": "../outside", "pattern": "SECRET"}),
    )
    .await;
    assert_refused(r, OUTSIDE);
}

#[tokio::test]
async fn dotdot_escape_tree() {
    let s = Sandbox::new();
    let r = fs(&s.roots, json!({"action": "tree", "path": ".."})).await;
    assert_refused(r, OUTSIDE);
}

// ---- absolute path outside ----

#[tokio::test]
async fn absolute_outside_read() {
    let s = Sandbox::new();
    let r = fs(
        &s.roots,
        json!({"action": "read", "path": s.abs("outside/secret.txt")}),
    )
    .await;
    assert_refused(r, OUTSIDE);
}

#[tokio::test]
async fn absolute_outside_write() {
    let s = Sandbox::new();
    let r = fs(
        &s.roots,
        json!({"action": "write", "path": s.abs("outside/secret.txt"), "content": "x"}),
    )
    .await;
    assert_refused(r, OUTSIDE);
    assert_eq!(
        std::fs::read_to_string(s.base.join("outside/secret.txt")).unwrap(),
        "SECRET outside\n"
    );
}

#[tokio::test]
async fn absolute_outside_search() {
    let s = Sandbox::new();
    let r = fs(
        &s.roots,
        json!({"action": "search", "path": s.abs("outside"), "pattern": "SECRET"}),
    )
    .await;
    assert_refused(r, OUTSIDE);
}

#[tokio::test]
async fn absolute_outside_tree() {
    let s = Sandbox::new();
    let r = fs(&s.roots, json!({"action": "tree", "path": "/"})).await;
    assert_refused(r, OUTSIDE);
}

// ---- symlink to a file outside ----

fn link_file(s: &Sandbox) {
    std::os::unix::fs::symlink(s.base.join("outside/secret.txt"), s.root.join("link_file"))
        .unwrap();
}

#[tokio::test]
async fn symlink_file_outside_read() {
    let s = Sandbox::new();
    link_file(&s);
    let r = fs(&s.roots, json!({"action": "read", "path": "link_file"})).await;
    assert_refused(r, OUTSIDE);
}

#[tokio::test]
async fn symlink_file_outside_write() {
    let s = Sandbox::new();
    link_file(&s);
    let r = fs(
        &s.roots,
        json!({"action": "write", "path": "link_file", "content": "pwned"}),
    )
    .await;
    assert_refused(r, OUTSIDE);
    assert_eq!(
        std::fs::read_to_string(s.base.join("outside/secret.txt")).unwrap(),
        "SECRET outside\n"
    );
}

#[tokio::test]
async fn symlink_file_outside_search() {
    let s = Sandbox::new();
    link_file(&s);
    let r = fs(&s.roots, json!({"action": "search", "pattern": "SECRET"})).await;
    assert_eq!(r, (false, "[no match for SECRET]\n".to_owned()));
}

#[tokio::test]
async fn symlink_file_outside_tree() {
    let s = Sandbox::new();
    link_file(&s);
    let r = fs(&s.roots, json!({"action": "tree"})).await;
    let target = s.abs("outside/secret.txt");
    assert_eq!(r, (false, format!("./\n  link_file -> {target}\n")));
}

// ---- symlink to a directory outside ----

fn link_dir(s: &Sandbox) {
    std::os::unix::fs::symlink(s.base.join("outside"), s.root.join("link_dir")).unwrap();
}

#[tokio::test]
async fn symlink_dir_outside_read() {
    let s = Sandbox::new();
    link_dir(&s);
    let r = fs(
        &s.roots,
        json!({"action": "read", "path": "link_dir/secret.txt"}),
    )
    .await;
    assert_refused(r, OUTSIDE);
}

#[tokio::test]
async fn symlink_dir_outside_write() {
    let s = Sandbox::new();
    link_dir(&s);
    let r = fs(
        &s.roots,
        json!({"action": "write", "path": "link_dir/new.txt", "content": "x"}),
    )
    .await;
    assert_refused(r, OUTSIDE);
    assert!(!s.base.join("outside/new.txt").exists());
}

#[tokio::test]
async fn symlink_dir_outside_search() {
    let s = Sandbox::new();
    link_dir(&s);
    let r = fs(&s.roots, json!({"action": "search", "pattern": "SECRET"})).await;
    assert_eq!(r, (false, "[no match for SECRET]\n".to_owned()));
    let r = fs(
        &s.roots,
        json!({"action": "search", "path": "link_dir", "pattern": "SECRET"}),
    )
    .await;
    assert_refused(r, OUTSIDE);
}

#[tokio::test]
async fn symlink_dir_outside_tree() {
    let s = Sandbox::new();
    link_dir(&s);
    let r = fs(&s.roots, json!({"action": "tree"})).await;
    assert_eq!(
        r,
        (false, format!("./\n  link_dir -> {}\n", s.abs("outside")))
    );
    let r = fs(&s.roots, json!({"action": "tree", "path": "link_dir"})).await;
    assert_refused(r, OUTSIDE);
}

// ---- symlink loop ----

fn make_loop(s: &Sandbox) {
    std::os::unix::fs::symlink("loop_b", s.root.join("loop_a")).unwrap();
    std::os::unix::fs::symlink("loop_a", s.root.join("loop_b")).unwrap();
}

#[tokio::test]
async fn symlink_loop_read() {
    let s = Sandbox::new();
    make_loop(&s);
    let r = fs(&s.roots, json!({"action": "read", "path": "loop_a"})).await;
    assert_eq!(r, (true, "path 'loop_a': symlink loop".to_owned()));
}

#[tokio::test]
async fn symlink_loop_write() {
    let s = Sandbox::new();
    make_loop(&s);
    let r = fs(
        &s.roots,
        json!({"action": "write", "path": "loop_a/x.txt", "content": "x"}),
    )
    .await;
    assert_eq!(r, (true, "path 'loop_a/x.txt': symlink loop".to_owned()));
}

#[tokio::test]
async fn symlink_loop_search() {
    let s = Sandbox::new();
    make_loop(&s);
    s.write("a.txt", "needle\n");
    let r = fs(&s.roots, json!({"action": "search", "pattern": "needle"})).await;
    assert_eq!(r, (false, "a.txt:1:needle\n".to_owned()));
}

#[tokio::test]
async fn symlink_loop_tree() {
    let s = Sandbox::new();
    make_loop(&s);
    let r = fs(&s.roots, json!({"action": "tree"})).await;
    assert_eq!(
        r,
        (
            false,
            "./\n  loop_a -> loop_b\n  loop_b -> loop_a\n".to_owned()
        )
    );
    let r = fs(&s.roots, json!({"action": "tree", "path": "loop_a"})).await;
    assert_eq!(r, (true, "path 'loop_a': symlink loop".to_owned()));
}

// ---- sibling prefix: root vs root_evil ----

#[tokio::test]
async fn sibling_prefix_read() {
    let s = Sandbox::new();
    let r = fs(
        &s.roots,
        json!({"action": "read", "path": s.abs("root_evil/secret.txt")}),
    )
    .await;
    assert_refused(r, OUTSIDE);
    let r = fs(
        &s.roots,
        json!({"action": "read", "path": "../root_evil/secret.txt"}),
    )
    .await;
    assert_refused(r, OUTSIDE);
}

#[tokio::test]
async fn sibling_prefix_write() {
    let s = Sandbox::new();
    let r = fs(
        &s.roots,
        json!({"action": "write", "path": s.abs("root_evil/new.txt"), "content": "x"}),
    )
    .await;
    assert_refused(r, OUTSIDE);
    assert!(!s.base.join("root_evil/new.txt").exists());
}

#[tokio::test]
async fn sibling_prefix_search() {
    let s = Sandbox::new();
    let r = fs(
        &s.roots,
        json!({"action": "search", "path": s.abs("root_evil"), "pattern": "SECRET"}),
    )
    .await;
    assert_refused(r, OUTSIDE);
}

#[tokio::test]
async fn sibling_prefix_tree() {
    let s = Sandbox::new();
    let r = fs(
        &s.roots,
        json!({"action": "tree", "path": s.abs("root_evil")}),
    )
    .await;
    assert_refused(r, OUTSIDE);
}

// ---- NUL byte ----

#[tokio::test]
async fn nul_byte_read() {
    let s = Sandbox::new();
    let r = fs(&s.roots, json!({"action": "read", "path": "a\u{0}b"})).await;
    assert_eq!(r, (true, "path 'a\u{0}b': contains a NUL byte".to_owned()));
}

#[tokio::test]
async fn nul_byte_write() {
    let s = Sandbox::new();
    let r = fs(
        &s.roots,
        json!({"action": "write", "path": "a.txt\u{0}.sh", "content": "x"}),
    )
    .await;
    assert_eq!(
        r,
        (true, "path 'a.txt\u{0}.sh': contains a NUL byte".to_owned())
    );
    assert!(!s.root.join("a.txt").exists());
}

#[tokio::test]
async fn nul_byte_search() {
    let s = Sandbox::new();
    let r = fs(
        &s.roots,
        json!({"action": "search", "path": "\u{0}", "pattern": "x"}),
    )
    .await;
    assert_eq!(r, (true, "path '\u{0}': contains a NUL byte".to_owned()));
}

#[tokio::test]
async fn nul_byte_tree() {
    let s = Sandbox::new();
    let r = fs(&s.roots, json!({"action": "tree", "path": "sub\u{0}"})).await;
    assert_eq!(r, (true, "path 'sub\u{0}': contains a NUL byte".to_owned()));
}

// ---- non-UTF-8 file name ----

fn bad_name(s: &Sandbox) -> std::path::PathBuf {
    use std::os::unix::ffi::OsStrExt as _;
    let path = s.root.join(std::ffi::OsStr::from_bytes(b"bad\xff.txt"));
    std::fs::write(&path, "needle in a badly named file\n").unwrap();
    path
}

#[tokio::test]
async fn non_utf8_name_read() {
    let s = Sandbox::new();
    bad_name(&s);
    // The name shown (with U+FFFD) is not the file's name: nothing is read.
    let r = fs(
        &s.roots,
        json!({"action": "read", "path": "bad\u{fffd}.txt"}),
    )
    .await;
    assert_eq!(
        r,
        (
            true,
            "path 'bad\u{fffd}.txt': no such file or directory".to_owned()
        )
    );
}

#[tokio::test]
async fn non_utf8_name_write() {
    let s = Sandbox::new();
    let original = bad_name(&s);
    let r = fs(
        &s.roots,
        json!({"action": "write", "path": "bad\u{fffd}.txt", "content": "new"}),
    )
    .await;
    assert_eq!(
        r,
        (
            false,
            "wrote bad\u{fffd}.txt (3 bytes, a new file)".to_owned()
        )
    );
    assert_eq!(
        std::fs::read_to_string(original).unwrap(),
        "needle in a badly named file\n"
    );
}

#[tokio::test]
async fn non_utf8_name_search() {
    let s = Sandbox::new();
    bad_name(&s);
    let r = fs(&s.roots, json!({"action": "search", "pattern": "needle"})).await;
    assert_eq!(
        r,
        (
            false,
            "bad\u{fffd}.txt:1:needle in a badly named file\n".to_owned()
        )
    );
}

#[tokio::test]
async fn non_utf8_name_tree() {
    let s = Sandbox::new();
    bad_name(&s);
    let r = fs(&s.roots, json!({"action": "tree"})).await;
    assert_eq!(r, (false, "./\n  bad\u{fffd}.txt\n".to_owned()));
}

// ---- NFC and NFD forms of the same name ----

const NFC: &str = "caf\u{e9}";
const NFD: &str = "cafe\u{301}";

/// Roots = [base/café (NFC)]; base/café (NFD) is a different directory on
/// Linux holding a secret.
fn unicode_sandbox() -> (Sandbox, mcp_local_tools::Roots) {
    let s = Sandbox::new();
    std::fs::create_dir(s.base.join(NFC)).unwrap();
    std::fs::create_dir(s.base.join(NFD)).unwrap();
    std::fs::write(s.base.join(NFD).join("secret.txt"), "SECRET nfd\n").unwrap();
    std::fs::write(s.base.join(NFC).join("n\u{e9}.txt"), "nfc file\n").unwrap();
    let roots = mcp_local_tools::Roots::new(vec![s.base.join(NFC)]).unwrap();
    (s, roots)
}

#[tokio::test]
async fn nfc_nfd_read() {
    let (s, roots) = unicode_sandbox();
    let r = fs(
        &roots,
        json!({"action": "read", "path": s.abs(&format!("{NFD}/secret.txt"))}),
    )
    .await;
    assert_refused(r, OUTSIDE);
    // The NFD spelling of a name inside the root is another (missing) file.
    let r = fs(&roots, json!({"action": "read", "path": "ne\u{301}.txt"})).await;
    assert_eq!(
        r,
        (
            true,
            "path 'ne\u{301}.txt': no such file or directory".to_owned()
        )
    );
    let r = fs(&roots, json!({"action": "read", "path": "n\u{e9}.txt"})).await;
    assert_eq!(r, (false, "nfc file\n".to_owned()));
}

#[tokio::test]
async fn nfc_nfd_write() {
    let (s, roots) = unicode_sandbox();
    let r = fs(
        &roots,
        json!({"action": "write", "path": s.abs(&format!("{NFD}/secret.txt")), "content": "x"}),
    )
    .await;
    assert_refused(r, OUTSIDE);
    assert_eq!(
        std::fs::read_to_string(s.base.join(NFD).join("secret.txt")).unwrap(),
        "SECRET nfd\n"
    );
}

#[tokio::test]
async fn nfc_nfd_search() {
    let (s, roots) = unicode_sandbox();
    let r = fs(
        &roots,
        json!({"action": "search", "path": s.abs(NFD), "pattern": "SECRET"}),
    )
    .await;
    assert_refused(r, OUTSIDE);
    let r = fs(&roots, json!({"action": "search", "pattern": "SECRET"})).await;
    assert_eq!(r, (false, "[no match for SECRET]\n".to_owned()));
}

#[tokio::test]
async fn nfc_nfd_tree() {
    let (s, roots) = unicode_sandbox();
    let r = fs(&roots, json!({"action": "tree", "path": s.abs(NFD)})).await;
    assert_refused(r, OUTSIDE);
    let r = fs(&roots, json!({"action": "tree"})).await;
    assert_eq!(r, (false, "./\n  n\u{e9}.txt\n".to_owned()));
}
