//! The `code` tool on real files in a temporary folder, exact outputs.

use crate::common::{Sandbox, assert_outside_roots, call_result, cases, err, ok};
use serde_json::{Value, json};

const RUST: &str = "pub struct Point {\n    x: i32,\n}\n\nimpl Point {\n    pub fn new(x: i32) -> Point {\n        Point { x }\n    }\n}\n\ntrait Shape {\n    fn area(&self) -> f64;\n}\n\nimpl Shape for Point {\n    fn area(&self) -> f64 {\n        // Point is not a shape\n        0.0\n    }\n}\n\nfn main() {\n    let p = Point::new(1);\n    println!(\"Point {}\", p.area());\n}\n";

const PYTHON: &str = "class Greeter:\n    def __init__(self, name):\n        self.name = name\n\n    def greet(self):\n        return 'hi ' + self.name\n\n\ndef main():\n    Greeter('x').greet()\n";

const TS: &str = "export interface Shape {\n  area(): number;\n}\n\nexport class Square implements Shape {\n  constructor(private side: number) {}\n  area(): number {\n    return this.side * this.side;\n  }\n}\n\ntype Id = string;\n\nexport const makeSquare = (side: number): Square => new Square(side);\n\nfunction main() {\n  console.log(makeSquare(2).area());\n}\n";

const JS: &str = "class Counter {\n  increment() {\n    this.n += 1;\n  }\n}\n\nfunction start() {\n  return new Counter();\n}\n\nconst stop = function () {};\n";

const GO: &str = "package main\n\ntype Server struct {\n\tAddr string\n}\n\nfunc (s *Server) Start() error {\n\treturn nil\n}\n\nfunc main() {\n\ts := &Server{Addr: \":80\"}\n\ts.Start()\n}\n";

fn sandbox() -> Sandbox {
    let s = Sandbox::new();
    s.write("src/point.rs", RUST);
    s.write("py/greeter.py", PYTHON);
    s.write("web/square.ts", TS);
    s.write("web/counter.js", JS);
    s.write("go/main.go", GO);
    s
}

/// Calls `code` with `args`; returns (isError, all text).
async fn code(s: &Sandbox, args: Value) -> (bool, String) {
    s.tool("code").call(args).await
}

#[tokio::test]
async fn outline_lists_each_languages_items_nested_with_their_lines() {
    let s = sandbox();
    for (path, expected) in [
        (
            "src/point.rs",
            "1: struct Point\n5: impl Point\n  6: fn new\n11: trait Shape\n  12: fn area\n15: impl Shape for Point\n  16: fn area\n22: fn main\n",
        ),
        (
            "py/greeter.py",
            "1: class Greeter\n  2: def __init__\n  5: def greet\n9: def main\n",
        ),
        (
            "web/square.ts",
            "1: interface Shape\n  2: method area\n5: class Square\n  6: method constructor\n  7: method area\n12: type Id\n14: function makeSquare\n16: function main\n",
        ),
        (
            "web/counter.js",
            "1: class Counter\n  2: method increment\n7: function start\n11: function stop\n",
        ),
        (
            "go/main.go",
            "3: type Server\n7: method Start\n11: func main\n",
        ),
    ] {
        let answer = code(&s, json!({"action": "outline", "path": path})).await;
        assert_eq!(answer, ok(expected), "{path}");
    }
}

#[tokio::test]
async fn outline_unsupported_and_outside() {
    let s = sandbox();
    s.write("notes.txt", "hi");
    assert_eq!(
        code(&s, json!({"action": "outline", "path": "notes.txt"})).await,
        err(
            "outline: unsupported file type 'notes.txt' (supported: .rs, .py, .pyi, .ts, .mts, .cts, .tsx, .js, .jsx, .mjs, .cjs, .go)"
        )
    );
    let outside = json!({"action": "outline", "path": "../outside/secret.txt"});
    assert_outside_roots(&code(&s, outside).await);
}

#[tokio::test]
async fn grep_replace_dry_run_then_apply() {
    let s = sandbox();
    let replace = json!({"action": "grep_replace", "pattern": "fn (\\w+)\\(&self\\)", "replacement": "fn ${1}_of(&self)", "glob": "*.rs"});
    let mut dry_run = replace.clone();
    dry_run["dry_run"] = json!(true);
    let diff = "2 replacements in 1 file (dry run: nothing written)\n--- a/src/point.rs\n+++ b/src/point.rs\n@@ -9,11 +9,11 @@\n }\n \n trait Shape {\n-    fn area(&self) -> f64;\n+    fn area_of(&self) -> f64;\n }\n \n impl Shape for Point {\n-    fn area(&self) -> f64 {\n+    fn area_of(&self) -> f64 {\n         // Point is not a shape\n         0.0\n     }\n";
    assert_eq!(code(&s, dry_run).await, ok(diff));
    assert_eq!(s.read("src/point.rs"), RUST);
    assert_eq!(
        code(&s, replace).await,
        ok(&diff.replace(" (dry run: nothing written)", ""))
    );
    assert_eq!(
        s.read("src/point.rs"),
        RUST.replace("fn area(&self)", "fn area_of(&self)")
    );
}

#[tokio::test]
async fn grep_replace_literal_and_no_match() {
    let s = sandbox();
    let r = code(
        &s,
        json!({"action": "grep_replace", "pattern": "$1", "replacement": "$2", "literal": true, "dry_run": true}),
    )
    .await;
    assert_eq!(r, ok("[no match for $1]\n"));
    let (is_error, text) = code(
        &s,
        json!({"action": "grep_replace", "pattern": "Addr", "replacement": "$Address", "literal": true, "path": "go"}),
    )
    .await;
    assert!(!is_error, "{text}");
    assert!(text.starts_with("2 replacements in 1 file\n"), "{text}");
    assert_eq!(s.read("go/main.go"), GO.replace("Addr", "$Address"));
}

#[tokio::test]
async fn help_lists_actions() {
    let s = sandbox();
    let text = s.tool("code").help().await;
    assert!(
        text.starts_with("code actions (fields in brackets are optional):\noutline {path}"),
        "{text}"
    );
}

#[tokio::test]
async fn code_walks_stay_inside_the_roots() {
    let s = sandbox();
    let evil = "fn Point() {}\nstruct Point;\n";
    std::fs::write(s.base.join("outside/evil.rs"), evil).unwrap();
    s.link("outside", "link_dir");
    s.link("outside/evil.rs", "link.rs");
    assert_eq!(
        code(&s, json!({"action": "definition", "name": "Point"})).await,
        ok("src/point.rs:1: struct Point\n")
    );
    for args in [
        json!({"action": "outline", "path": "link.rs"}),
        json!({"action": "symbols", "query": "Point", "path": "link_dir"}),
        json!({"action": "grep_replace", "pattern": "Point", "replacement": "X", "path": "../outside"}),
    ] {
        assert_outside_roots(&code(&s, args).await);
    }
    let left = std::fs::read_to_string(s.base.join("outside/evil.rs")).unwrap();
    assert_eq!(left, evil);
}

#[tokio::test]
async fn symbols_definitions_and_references_answer_exactly() {
    let s = sandbox();
    s.write("empty.rs", "// nothing\n");
    let cases = cases![
        // Symbols across languages, by a part of the name, a kind, a page.
        {"action": "symbols", "query": "main"} => ok("go/main.go:11: func main\npy/greeter.py:9: def main\nsrc/point.rs:22: fn main\nweb/square.ts:16: function main\n"),
        {"action": "symbols", "query": "AREA", "kind": "fn"} => ok("src/point.rs:12: fn area\nsrc/point.rs:16: fn area\n"),
        {"action": "symbols", "query": "main", "limit": 1, "offset": 1} => ok("py/greeter.py:9: def main\n[results 2-2 of 4; continue with offset=2]\n"),
        {"action": "symbols", "query": "nothing_like_this"} => ok("[no symbol matching nothing_like_this]\n"),
        // Symbols with only a path: every symbol in it.
        {"action": "symbols", "path": "src/point.rs"} => ok("src/point.rs:1: struct Point\nsrc/point.rs:5: impl Point\nsrc/point.rs:6: fn new\nsrc/point.rs:11: trait Shape\nsrc/point.rs:12: fn area\nsrc/point.rs:15: impl Shape for Point\nsrc/point.rs:16: fn area\nsrc/point.rs:22: fn main\n"),
        {"action": "symbols", "path": "py", "kind": "def"} => ok("py/greeter.py:2: def __init__\npy/greeter.py:5: def greet\npy/greeter.py:9: def main\n"),
        {"action": "symbols", "path": "empty.rs"} => ok("[no symbols in empty.rs]\n"),
        {"action": "symbols"} => err("symbols: give query (a part of the name), or path to list every symbol in it"),
        // A definition: the exact name only.
        {"action": "definition", "name": "Point"} => ok("src/point.rs:1: struct Point\n"),
        {"action": "definition", "name": "Square", "path": "web"} => ok("web/square.ts:5: class Square\n"),
        {"action": "definition", "name": "Poin"} => ok("[no definition of Poin found]\n"),
        // References skip comments and strings.
        {"action": "references", "name": "Point", "path": "src"} => ok("src/point.rs:1:12: pub struct Point {\nsrc/point.rs:5:6: impl Point {\nsrc/point.rs:6:27: pub fn new(x: i32) -> Point {\nsrc/point.rs:7:9: Point { x }\nsrc/point.rs:15:16: impl Shape for Point {\nsrc/point.rs:23:13: let p = Point::new(1);\n"),
        {"action": "references", "name": "Start"} => ok("go/main.go:7:18: func (s *Server) Start() error {\ngo/main.go:13:4: s.Start()\n"),
    ];
    s.tool("code").answers(cases).await;
}

const DIFF: &str = "diff --git a/src/lib.rs b/src/lib.rs
index 1111111..2222222 100644
--- a/src/lib.rs
+++ b/src/lib.rs
@@ -1,3 +1,4 @@
 fn a() {}
-fn b() {}
+fn b() -> u8 { 1 }
+fn c() {}
 fn d() {}
@@ -10,3 +11,2 @@ fn e() {
 let x = 1;
--- this removed line looks like a header
 let y = 2;
diff --git a/new.txt b/new.txt
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/new.txt
@@ -0,0 +1,2 @@
+one
+two
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
index 4444444..0000000
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/old name.txt b/new name.txt
similarity index 100%
rename from old name.txt
rename to new name.txt
diff --git a/logo.png b/logo.png
index 5555555..6666666 100644
Binary files a/logo.png and b/logo.png differ
";

#[tokio::test]
async fn summarize_a_unified_diff() {
    let s = sandbox();
    let result = call_result(
        "code",
        &s.roots,
        json!({"action": "summarize", "text": DIFF}),
    )
    .await;
    assert_eq!(result.is_error, None);
    assert_eq!(
        result.content[0].as_text(),
        Some(
            "5 files changed, 4 hunks, +4 -3\nsrc/lib.rs (modified): 2 hunks, +2 -2\nnew.txt (added): 1 hunk, +2 -0\ngone.txt (deleted): 1 hunk, +0 -1\nold name.txt -> new name.txt (renamed): 0 hunks, +0 -0\nlogo.png (binary): 0 hunks, +0 -0\n"
        )
    );
    let structured = result.structured_content.unwrap();
    assert_eq!(
        structured["files"][0],
        json!({"path": "src/lib.rs", "status": "modified", "hunks": 2, "added": 2, "removed": 2})
    );
    assert_eq!(structured["files"][3]["from"], "old name.txt");
    assert_eq!(
        (
            &structured["hunks"],
            &structured["added"],
            &structured["removed"]
        ),
        (&json!(4), &json!(4), &json!(3))
    );
}

#[tokio::test]
async fn summarize_a_plain_diff_a_path_and_bad_input() {
    let s = sandbox();
    // A path gets its outline, the same as `outline`.
    let outline = code(&s, json!({"action": "outline", "path": "go/main.go"})).await;
    let plain = "--- notes.txt\t2024-01-01 00:00:00\n+++ notes.txt\t2024-01-02 00:00:00\n@@ -1 +1,2 @@\n-old\n+new\n+more\n";
    let cases = cases![
        {"action": "summarize", "text": plain} => ok("1 file changed, 1 hunk, +2 -1\nnotes.txt (modified): 1 hunk, +2 -1\n"),
        {"action": "summarize", "path": "go/main.go"} => outline,
        {"action": "summarize", "text": "just words\n"} => err("summarize: no file headers found in text (expected a unified diff: diff --git, or --- and +++ lines)"),
        {"action": "summarize", "text": "--- a\n+++ b\n@@ nonsense @@\n"} => err("summarize: bad hunk header '@@ nonsense @@'"),
    ];
    s.tool("code").answers(cases).await;
    let (is_error, text) = code(&s, json!({"action": "summarize"})).await;
    assert!(
        is_error && text.contains("give text (a unified diff) or path"),
        "{text}"
    );
}
