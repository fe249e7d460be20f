//! `summarize` of a unified diff: its files, their hunks, and the lines
//! each adds and removes, with totals.

use serde::Serialize;

/// One file of a unified diff.
#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub(crate) struct FileSummary {
    /// The path (the new one; the old one for a deleted file), without the
    /// `a/` or `b/` prefix.
    pub(crate) path: String,
    /// For a rename: the old path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) from: Option<String>,
    /// `modified`, `added`, `deleted`, `renamed` or `binary`.
    pub(crate) status: &'static str,
    /// Hunks (`@@` sections).
    pub(crate) hunks: u64,
    /// Lines added.
    pub(crate) added: u64,
    /// Lines removed.
    pub(crate) removed: u64,
}

/// A whole diff: its files and the totals.
#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub(crate) struct DiffSummary {
    pub(crate) files: Vec<FileSummary>,
    pub(crate) hunks: u64,
    pub(crate) added: u64,
    pub(crate) removed: u64,
}

/// Reads `text` as a unified diff (git's, or plain `---`/`+++` files).
/// Hunk bodies are counted by their header's line counts, so a removed
/// line that reads `--- x` is never taken for a file header.
pub(crate) fn summarize(text: &str) -> Result<DiffSummary, String> {
    let mut reader = DiffReader::default();
    for line in text.lines() {
        if reader.in_hunk() {
            reader.hunk_line(line)?;
        } else {
            reader.header_line(line)?;
        }
    }
    reader.finish()
}

/// A unified diff being read line by line.
#[derive(Default)]
struct DiffReader {
    files: Vec<FileSummary>,
    /// Lines still expected in the current hunk (old side, new side).
    old_left: u64,
    new_left: u64,
    /// A `diff --git` header opened the current file and no `---` was seen.
    git_header: bool,
}

impl DiffReader {
    fn in_hunk(&self) -> bool {
        self.old_left > 0 || self.new_left > 0
    }

    /// Counts one line of the current hunk.
    fn hunk_line(&mut self, line: &str) -> Result<(), String> {
        let file = self
            .files
            .last_mut()
            .ok_or("summarize: a hunk before any file header")?;
        match line.as_bytes().first() {
            Some(b'+') => {
                file.added += 1;
                self.new_left = self.new_left.saturating_sub(1);
            }
            Some(b'-') => {
                file.removed += 1;
                self.old_left = self.old_left.saturating_sub(1);
            }
            Some(b'\\') => {}
            // A context line (an empty line is a context line whose
            // leading space was lost).
            _ => {
                self.old_left = self.old_left.saturating_sub(1);
                self.new_left = self.new_left.saturating_sub(1);
            }
        }
        Ok(())
    }

    /// One line between hunks: a file header, a line saying what became of
    /// the file, or a hunk header; anything else is ignored.
    fn header_line(&mut self, line: &str) -> Result<(), String> {
        if let Some(rest) = line.strip_prefix("diff --git ") {
            self.git_file(rest);
        } else if let Some(rest) = line.strip_prefix("--- ") {
            self.old_header(rest)?;
        } else if let Some(rest) = line.strip_prefix("+++ ") {
            self.new_header(rest);
        } else if line.starts_with("new file mode") {
            self.mark("added");
        } else if line.starts_with("deleted file mode") {
            self.mark("deleted");
        } else if line.starts_with("Binary files ") || line == "GIT binary patch" {
            self.mark("binary");
        } else if let Some(rest) = line.strip_prefix("@@ ") {
            let file = self
                .files
                .last_mut()
                .ok_or("summarize: a hunk (@@) before any file header")?;
            let (old, new) =
                hunk_counts(rest).ok_or_else(|| format!("summarize: bad hunk header '{line}'"))?;
            file.hunks += 1;
            self.old_left = old;
            self.new_left = new;
        }
        Ok(())
    }

    /// `diff --git a/x b/y` opens a file, renamed when the paths differ.
    fn git_file(&mut self, rest: &str) {
        let (from, to) = git_paths(rest);
        let renamed = from != to;
        self.files.push(FileSummary {
            path: to,
            from: renamed.then_some(from),
            status: if renamed { "renamed" } else { "modified" },
            ..FileSummary::default()
        });
        self.git_header = true;
    }

    /// `--- old`: opens a file unless a `diff --git` line just did;
    /// `/dev/null` means the file is added.
    fn old_header(&mut self, rest: &str) -> Result<(), String> {
        if !self.git_header {
            self.files.push(FileSummary {
                status: "modified",
                ..FileSummary::default()
            });
        }
        self.git_header = false;
        let file = self.files.last_mut().ok_or("summarize: no file")?;
        let old = header_path(rest);
        if old == "/dev/null" {
            file.status = "added";
        } else if file.path.is_empty() {
            file.path = old;
        }
        Ok(())
    }

    /// `+++ new`: the file's path; `/dev/null` means it is deleted.
    fn new_header(&mut self, rest: &str) {
        let Some(file) = self.files.last_mut() else {
            return;
        };
        let new = header_path(rest);
        if new == "/dev/null" {
            file.status = "deleted";
        } else {
            file.path = new;
        }
    }

    /// Sets the current file's status, if there is a file.
    fn mark(&mut self, status: &'static str) {
        if let Some(file) = self.files.last_mut() {
            file.status = status;
        }
    }

    /// The summary with its totals; a text with no file header is refused.
    fn finish(self) -> Result<DiffSummary, String> {
        if self.files.is_empty() {
            return Err(
                "summarize: no file headers found in text (expected a unified diff: diff --git, or --- and +++ lines)"
                    .to_owned(),
            );
        }
        let mut summary = DiffSummary::default();
        for file in &self.files {
            summary.hunks += file.hunks;
            summary.added += file.added;
            summary.removed += file.removed;
        }
        summary.files = self.files;
        Ok(summary)
    }
}

/// The text of a summary: totals, then one line per file.
pub(crate) fn render(summary: &DiffSummary) -> String {
    let plural = |n: u64, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut text = format!(
        "{} changed, {}, +{} -{}\n",
        plural(summary.files.len() as u64, "file"),
        plural(summary.hunks, "hunk"),
        summary.added,
        summary.removed
    );
    for file in &summary.files {
        let name = match &file.from {
            Some(from) => format!("{from} -> {}", file.path),
            None => file.path.clone(),
        };
        text.push_str(&format!(
            "{name} ({}): {}, +{} -{}\n",
            file.status,
            plural(file.hunks, "hunk"),
            file.added,
            file.removed
        ));
    }
    text
}

/// `a/x b/y` of a `diff --git` line as (`x`, `y`), split at the first
/// ` b/`.
fn git_paths(rest: &str) -> (String, String) {
    let rest = rest.trim_end();
    if let Some(i) = rest.find(" b/") {
        let from = rest[..i].strip_prefix("a/").unwrap_or(&rest[..i]);
        let to = &rest[i + 3..];
        return (from.to_owned(), to.to_owned());
    }
    (rest.to_owned(), rest.to_owned())
}

/// The path of a `---` or `+++` header: up to a tab (a timestamp may
/// follow), without the `a/` or `b/` prefix.
fn header_path(rest: &str) -> String {
    let path = rest.split('\t').next().unwrap_or(rest).trim_end();
    path.strip_prefix("a/")
        .or_else(|| path.strip_prefix("b/"))
        .unwrap_or(path)
        .to_owned()
}

/// The old and new line counts of `-a,b +c,d @@` (a missing count is 1).
fn hunk_counts(rest: &str) -> Option<(u64, u64)> {
    let mut parts = rest.split(' ');
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    let count = |range: &str| -> Option<u64> {
        match range.split_once(',') {
            Some((_, n)) => n.parse().ok(),
            None => range.parse::<u64>().ok().map(|_| 1),
        }
    };
    Some((count(old)?, count(new)?))
}
