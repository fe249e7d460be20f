//! Op names on large public descriptions (tests/data: GitHub, Stripe,
//! Kubernetes, DigitalOcean): verb phrases a model reads at once
//! (HIP-0300 §1.3), and the size of the tool list they make.

use std::collections::HashSet;

use serde_json::json;

use crate::common::public_documents;

/// The words of an op name.
fn words(name: &str) -> Vec<&str> {
    name.split('_').collect()
}

/// What the crate README's table of names shows for one document.
struct Figures {
    tools: usize,
    ops: usize,
    list_bytes: usize,
    median_words: usize,
    max_words: usize,
    /// Lines `op: summary` in the subsystem tools' descriptions.
    summaries: usize,
}

fn figures(p: &mcp_door::Projection) -> Figures {
    let mut counts: Vec<usize> = p.ops().map(|o| words(&o.name).len()).collect();
    counts.sort_unstable();
    Figures {
        tools: p.tools().len(),
        ops: counts.len(),
        list_bytes: serde_json::to_vec(&json!({"tools": p.tools()}))
            .unwrap()
            .len(),
        median_words: counts[counts.len() / 2],
        max_words: counts.last().copied().unwrap_or(0),
        summaries: p
            .tools()
            .iter()
            .skip(1)
            .filter_map(|t| t.description.as_deref())
            .flat_map(|d| d.lines().skip(1))
            .filter(|line| line.contains(": "))
            .count(),
    }
}

#[test]
fn every_summary_that_says_more_than_its_name_is_shown_within_the_old_size() {
    // Per document: the ops whose summary says more than the op name (all
    // of them are shown), and the bytes of `tools/list` when descriptions
    // named the ops alone, which the list may not pass.
    let expected = [
        ("api.github.com.json.gz", 642, 86_454),
        ("stripe.com.json.gz", 396, 50_240),
        ("kubernetes.io.json.gz", 407, 95_088),
        ("digitalocean.com.json.gz", 132, 30_476),
    ];
    for (file, p) in public_documents() {
        let (_, summaries, before) = expected
            .iter()
            .find(|(name, _, _)| name == file)
            .unwrap_or_else(|| panic!("no figures for {file}"));
        let f = figures(p);
        assert_eq!(f.summaries, *summaries, "{file}");
        assert!(f.list_bytes <= *before, "{file}: {} bytes", f.list_bytes);
        for tool in p.tools().iter().skip(1) {
            let description = tool.description.as_deref().unwrap_or("");
            for line in description.lines().skip(1) {
                let (op, summary) = line.split_once(": ").expect("op: summary");
                assert!(p.ops().any(|o| o.name == op), "{file}: {op} is not an op");
                assert!(summary.chars().count() <= 72, "{file}: {line}");
            }
        }
    }
}

#[test]
fn every_name_is_short_with_no_suffix_and_no_repeated_word() {
    for (file, p) in public_documents() {
        let mut seen = HashSet::new();
        for op in p.ops() {
            let name = &op.name;
            assert!(seen.insert(name.clone()), "{file}: {name} twice");
            let w = words(name);
            assert!(
                !w.last().unwrap().chars().all(|c| c.is_ascii_digit()),
                "{file}: {name} has a numeric suffix ({} {})",
                op.method,
                op.path
            );
            let distinct: HashSet<&&str> = w.iter().collect();
            assert_eq!(
                distinct.len(),
                w.len(),
                "{file}: {name} repeats a word ({} {})",
                op.method,
                op.path
            );
            assert!(
                w.len() <= 6,
                "{file}: {name} has {} words ({} {})",
                w.len(),
                op.method,
                op.path
            );
            assert!(
                !w.iter().any(|x| x.len() > 1
                    && x.starts_with('v')
                    && x[1..].starts_with(|c: char| c.is_ascii_digit())),
                "{file}: {name} holds a version"
            );
        }
        let f = figures(p);
        assert!(f.median_words <= 4, "{file}: median {}", f.median_words);
    }
}

#[test]
fn name_figures() {
    // The figures in the crate README: `cargo test -p mcp-door --test it name_figures -- --nocapture`.
    for (file, p) in public_documents() {
        if let Ok(dir) = std::env::var("DOOR_NAMES_DUMP") {
            let lines: Vec<String> = p
                .ops()
                .map(|o| format!("{}\t{}\t{} {}", o.tool, o.name, o.method, o.path))
                .collect();
            std::fs::write(format!("{dir}/{file}.names"), lines.join("\n")).unwrap();
            let list = serde_json::to_string_pretty(&json!({"tools": p.tools()})).unwrap();
            std::fs::write(format!("{dir}/{file}.list"), list).unwrap();
            std::fs::write(format!("{dir}/{file}.refused"), p.refused().join("\n")).unwrap();
        }
        let f = figures(p);
        eprintln!(
            "{file}: {} tools, {} ops, {} bytes of tools/list, {} summaries, median {} words, max {} words, withheld {}",
            f.tools,
            f.ops,
            f.list_bytes,
            f.summaries,
            f.median_words,
            f.max_words,
            p.refused().len()
        );
    }
}
