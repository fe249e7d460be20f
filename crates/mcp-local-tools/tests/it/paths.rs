//! Path safety: every way out of the root (`../`, an absolute path, a
//! symlink to a file or a folder outside, a sibling whose name starts like
//! the root's, the other Unicode spelling of the root's name) is refused
//! by read, write, search and tree; the walks skip what they may not
//! follow; names no file can have are answered with their reason.

use crate::common::{Sandbox, Tool, assert_outside_roots, cases, err, fs, ok};
use serde_json::json;

/// The content of `outside/secret.txt`, which no refused call may change.
const SECRET: &str = "SECRET outside\n";

fn outside_secret(s: &Sandbox) -> String {
    std::fs::read_to_string(s.base.join("outside/secret.txt")).unwrap()
}

#[tokio::test]
async fn a_link_out_of_the_roots_reads_the_same_whether_its_target_exists() {
    // The answers must not tell an agent which paths outside exist.
    let s = Sandbox::new();
    s.link("outside/secret.txt", "there");
    s.link("outside/no-such-file", "not_there");
    s.link("no-such-folder/x", "not_there_deeper");
    for link in ["there", "not_there", "not_there_deeper", "not_there/child"] {
        for args in [
            json!({"action": "read", "path": link}),
            json!({"action": "write", "path": link, "content": "x"}),
            json!({"action": "mkdir", "path": format!("{link}/sub")}),
        ] {
            assert_outside_roots(&fs(&s.roots, args).await);
        }
    }
    assert_eq!(outside_secret(&s), SECRET);
    assert!(!s.base.join("outside/no-such-file").exists());
    // A link inside the roots to nothing is still said to dangle.
    std::os::unix::fs::symlink(s.root.join("gone"), s.root.join("inside")).unwrap();
    let (is_error, text) = fs(&s.roots, json!({"action": "read", "path": "inside"})).await;
    assert!(is_error && text.contains("dangling symlink"), "{text}");
}

#[tokio::test]
async fn every_way_out_of_the_root_is_refused_and_changes_nothing() {
    let s = Sandbox::new();
    s.link("outside/secret.txt", "link_file");
    s.link("outside", "link_dir");
    let (outside, evil) = (s.abs("outside"), s.abs("root_evil"));
    // By action: `../`, an absolute path outside, a symlink to a file or a
    // folder outside, and the sibling `root_evil`, whose name starts with
    // the root's.
    for args in [
        json!({"action": "read", "path": "../outside/secret.txt"}),
        json!({"action": "read", "path": format!("{outside}/secret.txt")}),
        json!({"action": "read", "path": "link_file"}),
        json!({"action": "read", "path": "link_dir/secret.txt"}),
        json!({"action": "read", "path": format!("{evil}/secret.txt")}),
        json!({"action": "read", "path": "../root_evil/secret.txt"}),
        json!({"action": "write", "path": "../outside/new.txt", "content": "x"}),
        json!({"action": "write", "path": format!("{outside}/secret.txt"), "content": "x"}),
        json!({"action": "write", "path": "link_file", "content": "pwned"}),
        json!({"action": "write", "path": "link_dir/new.txt", "content": "x"}),
        json!({"action": "write", "path": format!("{evil}/new.txt"), "content": "x"}),
        json!({"action": "search", "path": "../outside", "pattern": "SECRET"}),
        json!({"action": "search", "path": &outside, "pattern": "SECRET"}),
        json!({"action": "search", "path": "link_dir", "pattern": "SECRET"}),
        json!({"action": "search", "path": &evil, "pattern": "SECRET"}),
        json!({"action": "tree", "path": ".."}),
        json!({"action": "tree", "path": "/"}),
        json!({"action": "tree", "path": "link_dir"}),
        json!({"action": "tree", "path": &evil}),
    ] {
        assert_outside_roots(&fs(&s.roots, args.clone()).await);
        assert_eq!(outside_secret(&s), SECRET, "{args}");
        for made in ["outside/new.txt", "root_evil/new.txt"] {
            assert!(!s.base.join(made).exists(), "{args} made {made}");
        }
    }
    // Up through a folder that does not exist, and out.
    let (is_error, text) = fs(
        &s.roots,
        json!({"action": "write", "path": "sub/../../outside/secret.txt", "content": "x"}),
    )
    .await;
    assert!(is_error, "{text}");
    assert_eq!(outside_secret(&s), SECRET);
}

#[tokio::test]
async fn walks_from_the_root_list_a_symlink_out_of_it_and_never_follow_it() {
    for (target, link) in [("outside/secret.txt", "link_file"), ("outside", "link_dir")] {
        let s = Sandbox::new();
        s.link(target, link);
        let tree = format!("./\n  {link} -> {}\n", s.abs(target));
        let cases = cases![
            {"action": "search", "pattern": "SECRET"} => ok("[no match for SECRET]\n"),
            {"action": "tree"} => ok(&tree),
        ];
        s.tool("fs").answers(cases).await;
    }
}

#[tokio::test]
async fn a_symlink_loop_is_listed_by_tree_named_by_the_others_and_skipped_by_search() {
    let s = Sandbox::new();
    std::os::unix::fs::symlink("loop_b", s.root.join("loop_a")).unwrap();
    std::os::unix::fs::symlink("loop_a", s.root.join("loop_b")).unwrap();
    let cases = cases![
        {"action": "tree"} => ok("./\n  loop_a -> loop_b\n  loop_b -> loop_a\n"),
        {"action": "tree", "path": "loop_a"} => err("path 'loop_a': symlink loop"),
        {"action": "read", "path": "loop_a"} => err("path 'loop_a': symlink loop"),
        {"action": "write", "path": "loop_a/x.txt", "content": "x"} => err("path 'loop_a/x.txt': symlink loop"),
    ];
    s.tool("fs").answers(cases).await;
    s.write("a.txt", "needle\n");
    assert_eq!(
        fs(&s.roots, json!({"action": "search", "pattern": "needle"})).await,
        ok("a.txt:1:needle\n")
    );
}

#[tokio::test]
async fn a_nul_byte_in_a_path_is_refused_by_every_action() {
    let s = Sandbox::new();
    let cases = cases![
        {"action": "read", "path": "a\u{0}b"} => err("path 'a\u{0}b': contains a NUL byte"),
        {"action": "write", "path": "a.txt\u{0}.sh", "content": "x"} => err("path 'a.txt\u{0}.sh': contains a NUL byte"),
        {"action": "search", "path": "\u{0}", "pattern": "x"} => err("path '\u{0}': contains a NUL byte"),
        {"action": "tree", "path": "sub\u{0}"} => err("path 'sub\u{0}': contains a NUL byte"),
    ];
    s.tool("fs").answers(cases).await;
    assert!(!s.root.join("a.txt").exists());
}

/// A name that is not UTF-8 is shown with U+FFFD; the name shown is not
/// the file's, so reading it finds nothing and writing it makes a new file.
#[tokio::test]
async fn a_name_that_is_not_utf8_is_shown_but_never_taken_for_the_shown_name() {
    use std::os::unix::ffi::OsStrExt as _;
    let s = Sandbox::new();
    let original = s.root.join(std::ffi::OsStr::from_bytes(b"bad\xff.txt"));
    std::fs::write(&original, "needle in a badly named file\n").unwrap();
    let cases = cases![
        {"action": "read", "path": "bad\u{fffd}.txt"} => err("path 'bad\u{fffd}.txt': no such file or directory"),
        {"action": "search", "pattern": "needle"} => ok("bad\u{fffd}.txt:1:needle in a badly named file\n"),
        {"action": "tree"} => ok("./\n  bad\u{fffd}.txt\n"),
        {"action": "write", "path": "bad\u{fffd}.txt", "content": "new"} => ok("wrote bad\u{fffd}.txt (3 bytes, a new file)"),
    ];
    s.tool("fs").answers(cases).await;
    assert_eq!(
        std::fs::read_to_string(original).unwrap(),
        "needle in a badly named file\n"
    );
}

const NFC: &str = "caf\u{e9}";
const NFD: &str = "cafe\u{301}";

/// Roots = [base/café (NFC)]; base/café (NFD) is a different directory on
/// Linux, holding a secret. Every action refuses the NFD folder, and the
/// NFD spelling of a name inside the root is another (missing) file.
#[tokio::test]
async fn the_nfd_spelling_of_the_roots_name_is_outside_it() {
    let s = Sandbox::new();
    std::fs::create_dir(s.base.join(NFC)).unwrap();
    std::fs::create_dir(s.base.join(NFD)).unwrap();
    std::fs::write(s.base.join(NFD).join("secret.txt"), "SECRET nfd\n").unwrap();
    std::fs::write(s.base.join(NFC).join("n\u{e9}.txt"), "nfc file\n").unwrap();
    let roots = mcp_local_tools::Roots::new(vec![s.base.join(NFC)]).unwrap();
    let (folder, secret) = (s.abs(NFD), s.abs(&format!("{NFD}/secret.txt")));
    for args in [
        json!({"action": "read", "path": &secret}),
        json!({"action": "write", "path": &secret, "content": "x"}),
        json!({"action": "search", "path": &folder, "pattern": "SECRET"}),
        json!({"action": "tree", "path": &folder}),
    ] {
        assert_outside_roots(&fs(&roots, args).await);
    }
    assert_eq!(
        std::fs::read_to_string(s.base.join(NFD).join("secret.txt")).unwrap(),
        "SECRET nfd\n"
    );
    let fs = Tool {
        name: "fs",
        roots: &roots,
    };
    let cases = cases![
        {"action": "read", "path": "ne\u{301}.txt"} => err("path 'ne\u{301}.txt': no such file or directory"),
        {"action": "read", "path": "n\u{e9}.txt"} => ok("nfc file\n"),
        {"action": "search", "pattern": "SECRET"} => ok("[no match for SECRET]\n"),
        {"action": "tree"} => ok("./\n  n\u{e9}.txt\n"),
    ];
    fs.answers(cases).await;
}
