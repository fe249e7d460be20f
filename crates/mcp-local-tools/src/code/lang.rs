//! Languages the `code` tool parses (tree-sitter grammars) and what counts
//! as a symbol in each.

use std::path::Path;

use tree_sitter::{Language, Node, Parser};

/// A language with a grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    Rust,
    Python,
    TypeScript,
    Tsx,
    JavaScript,
    Go,
}

/// The file extensions recognised, for messages.
pub(crate) const EXTENSIONS: &str =
    ".rs, .py, .pyi, .ts, .mts, .cts, .tsx, .js, .jsx, .mjs, .cjs, .go";

impl Lang {
    /// The language of `path`, from its extension.
    pub(crate) fn of(path: &Path) -> Option<Lang> {
        Some(match path.extension()?.to_str()? {
            "rs" => Lang::Rust,
            "py" | "pyi" => Lang::Python,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "js" | "jsx" | "mjs" | "cjs" => Lang::JavaScript,
            "go" => Lang::Go,
            _ => return None,
        })
    }

    fn grammar(self) -> Language {
        match self {
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
        }
    }
}

/// One definition in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Symbol {
    /// `fn`, `struct`, `class`, `def`, `function`, `method`, `type`, …
    pub(crate) kind: &'static str,
    pub(crate) name: String,
    /// 1-based.
    pub(crate) line: usize,
    /// How many symbols enclose it.
    pub(crate) depth: usize,
}

/// One identifier occurrence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Occurrence {
    /// 1-based.
    pub(crate) line: usize,
    /// 1-based, in bytes.
    pub(crate) column: usize,
}

/// Parses `source`; `None` when the parser gives up.
fn parse(lang: Lang, source: &[u8]) -> Option<tree_sitter::Tree> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    parser.parse(source, None)
}

/// The definitions in `source`, in document order.
///
/// The tree is walked with a cursor and an explicit stack, so deeply nested
/// source (thousands of brackets) cannot overflow the thread's stack.
pub(crate) fn symbols(lang: Lang, source: &[u8]) -> Vec<Symbol> {
    let mut out = Vec::new();
    let Some(tree) = parse(lang, source) else {
        return out;
    };
    let mut cursor = tree.walk();
    if !cursor.goto_first_child() {
        return out;
    }
    // `depths[i]`: the symbol depth of the nodes at cursor level `i + 1`.
    let mut depths: Vec<usize> = vec![0];
    loop {
        let node = cursor.node();
        let depth = depths.last().copied().unwrap_or(0);
        let mut inner = depth;
        if node.is_named()
            && let Some((kind, name)) = classify(lang, node, source)
        {
            out.push(Symbol {
                kind,
                name,
                line: node.start_position().row + 1,
                depth,
            });
            inner = depth + 1;
        }
        if cursor.goto_first_child() {
            depths.push(inner);
            continue;
        }
        while !cursor.goto_next_sibling() {
            depths.pop();
            if depths.is_empty() || !cursor.goto_parent() {
                return out;
            }
        }
    }
}

fn text(node: Node<'_>, source: &[u8]) -> String {
    node.utf8_text(source).unwrap_or_default().to_owned()
}

fn field(node: Node<'_>, name: &str, source: &[u8]) -> Option<String> {
    node.child_by_field_name(name).map(|n| text(n, source))
}

/// The symbol a node defines, if any: (kind, name).
fn classify(lang: Lang, node: Node<'_>, source: &[u8]) -> Option<(&'static str, String)> {
    let kind = node.kind();
    let named = |k: &'static str| field(node, "name", source).map(|n| (k, n));
    match lang {
        Lang::Rust => match kind {
            "function_item" | "function_signature_item" => named("fn"),
            "struct_item" => named("struct"),
            "enum_item" => named("enum"),
            "union_item" => named("union"),
            "trait_item" => named("trait"),
            "mod_item" => named("mod"),
            "const_item" => named("const"),
            "static_item" => named("static"),
            "type_item" => named("type"),
            "macro_definition" => named("macro"),
            "impl_item" => {
                let ty = field(node, "type", source)?;
                Some(match field(node, "trait", source) {
                    Some(tr) => ("impl", format!("{tr} for {ty}")),
                    None => ("impl", ty),
                })
            }
            _ => None,
        },
        Lang::Python => match kind {
            "function_definition" => named("def"),
            "class_definition" => named("class"),
            _ => None,
        },
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => match kind {
            "function_declaration" | "generator_function_declaration" => named("function"),
            "class_declaration" | "abstract_class_declaration" => named("class"),
            "method_definition" | "method_signature" | "abstract_method_signature" => {
                named("method")
            }
            "interface_declaration" => named("interface"),
            "type_alias_declaration" => named("type"),
            "enum_declaration" => named("enum"),
            "internal_module" => named("namespace"),
            "variable_declarator" => {
                let value = node.child_by_field_name("value")?;
                matches!(
                    value.kind(),
                    "arrow_function" | "function_expression" | "function"
                )
                .then(|| named("function"))
                .flatten()
            }
            _ => None,
        },
        Lang::Go => match kind {
            "function_declaration" => named("func"),
            "method_declaration" => named("method"),
            "type_spec" | "type_alias" => named("type"),
            _ => None,
        },
    }
}

/// Every identifier in `source` spelled exactly `name` (comments and
/// strings are not identifiers, so they are skipped).
pub(crate) fn occurrences(lang: Lang, source: &[u8], name: &str) -> Vec<Occurrence> {
    let mut out = Vec::new();
    let Some(tree) = parse(lang, source) else {
        return out;
    };
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        if node.kind().ends_with("identifier") && node.utf8_text(source) == Ok(name) {
            let at = node.start_position();
            out.push(Occurrence {
                line: at.row + 1,
                column: at.column + 1,
            });
        }
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` on a thread with a small (256 KiB) stack, like a worker
    /// thread under load, so unbounded recursion shows as a crash here.
    fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(f)
            .expect("spawn")
            .join()
            .expect("no stack overflow")
    }

    #[test]
    fn deeply_nested_python_list_does_not_overflow() {
        let source = format!(
            "x = {}{}\ndef after():\n    pass\n",
            "[".repeat(50_000),
            "]".repeat(50_000)
        );
        let symbols = on_small_stack(move || symbols(Lang::Python, source.as_bytes()));
        assert_eq!(
            symbols,
            vec![Symbol {
                kind: "def",
                name: "after".to_owned(),
                line: 2,
                depth: 0
            }]
        );
    }

    #[test]
    fn deeply_nested_rust_modules_keep_their_depths() {
        let n = 50_000;
        let source = format!("{}{}", "mod a { ".repeat(n), "}".repeat(n));
        let symbols = on_small_stack(move || symbols(Lang::Rust, source.as_bytes()));
        assert_eq!(symbols.len(), n);
        assert_eq!(
            symbols[0],
            Symbol {
                kind: "mod",
                name: "a".to_owned(),
                line: 1,
                depth: 0
            }
        );
        assert_eq!(symbols[n - 1].depth, n - 1);
    }

    #[test]
    fn deeply_nested_rust_parens_and_js_arrays_do_not_overflow() {
        let rust = format!(
            "fn f() {{ let x = {}1{}; }}\n",
            "(".repeat(50_000),
            ")".repeat(50_000)
        );
        let js = format!(
            "const x = {}{};\nfunction g() {{}}\n",
            "[".repeat(50_000),
            "]".repeat(50_000)
        );
        let (r, j) = on_small_stack(move || {
            (
                symbols(Lang::Rust, rust.as_bytes()),
                symbols(Lang::JavaScript, js.as_bytes()),
            )
        });
        assert_eq!(
            r,
            vec![Symbol {
                kind: "fn",
                name: "f".to_owned(),
                line: 1,
                depth: 0
            }]
        );
        assert_eq!(
            j,
            vec![Symbol {
                kind: "function",
                name: "g".to_owned(),
                line: 2,
                depth: 0
            }]
        );
    }

    #[test]
    fn nested_definitions_keep_document_order_and_depth() {
        let source =
            "mod m {\n    struct S;\n    impl S {\n        fn f() {}\n    }\n}\nfn top() {}\n";
        let got: Vec<(usize, &str, usize)> = symbols(Lang::Rust, source.as_bytes())
            .iter()
            .map(|s| (s.line, s.kind, s.depth))
            .collect();
        assert_eq!(
            got,
            vec![
                (1, "mod", 0),
                (2, "struct", 1),
                (3, "impl", 1),
                (4, "fn", 2),
                (7, "fn", 0)
            ]
        );
    }
}
