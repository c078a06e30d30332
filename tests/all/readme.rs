//! The documentation's examples, run: every `$ ` line inside a fenced block of README.md,
//! and of every page in docs/ that shows a `$ retro` example, is run with `sh` (page by
//! page, in the page's order, each page in a scratch directory of its own holding a copy of
//! `tables/`, with `retro` on the PATH), and its stdout and stderr together must match the
//! lines under it. In the expected text a line `...` stands for any number of lines and
//! `[..]` for any part of a line (times, free disk, memory), so the pages show real output
//! and stay true. A block whose fence names a language (```text, ```sh) is shown, not run,
//! unless that language is `console`: that is how a page shows a command too slow to run
//! on every test.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One example: the command and the output shown under it.
struct Example {
    line: usize,
    command: String,
    expected: Vec<String>,
}

fn examples(page: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    // Inside a fenced block: whether its examples run.
    let mut block: Option<bool> = None;
    let mut current: Option<Example> = None;
    for (i, line) in page.lines().enumerate() {
        if let Some(fence) = line.trim_start().strip_prefix("```") {
            block = match block {
                Some(_) => None,
                None => Some(matches!(fence.trim(), "" | "console")),
            };
            out.extend(current.take());
            continue;
        }
        if block != Some(true) {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            out.extend(current.take());
            current = Some(Example {
                line: i + 1,
                command: command.to_string(),
                expected: Vec::new(),
            });
        } else if let Some(ex) = current.as_mut() {
            ex.expected.push(line.to_string());
        }
    }
    out.extend(current);
    out
}

/// Whether `actual` matches `pattern`, where `[..]` matches any text.
fn line_matches(pattern: &str, actual: &str) -> bool {
    let parts: Vec<&str> = pattern.split("[..]").collect();
    if parts.len() == 1 {
        return pattern == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || actual.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &actual[first.len()..];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Whether the lines match, with `...` lines matching any run of lines.
fn lines_match(pattern: &[String], actual: &[&str]) -> bool {
    match pattern.split_first() {
        None => actual.is_empty(),
        Some((p, rest)) if p == "..." => {
            (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..]))
        }
        Some((p, rest)) => {
            !actual.is_empty() && line_matches(p, actual[0]) && lines_match(rest, &actual[1..])
        }
    }
}

fn copy_tables(to: &Path) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tables");
    std::fs::create_dir(to.join("tables")).expect("mkdir tables");
    for entry in std::fs::read_dir(&from).expect("tables/") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "txt") {
            let name = path.file_name().expect("name");
            std::fs::copy(&path, to.join("tables").join(name)).expect("copy");
        }
    }
}

/// The pages whose examples run: README.md, then every page of docs/ (in name order) with
/// a `$ retro` example, each with its examples.
fn pages() -> Vec<(PathBuf, Vec<Example>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    let mut out = Vec::new();
    for path in std::iter::once(root.join("README.md")).chain(docs) {
        let text = std::fs::read_to_string(&path).expect("read page");
        let examples = examples(&text);
        if examples.iter().any(|ex| ex.command.starts_with("retro ")) {
            let name = path.strip_prefix(root).expect("in the repository");
            out.push((name.to_path_buf(), examples));
        }
    }
    out
}

#[test]
fn every_example_prints_what_its_page_shows() {
    let pages = pages();
    let count = |name: &str| {
        pages
            .iter()
            .find(|(path, _)| path == Path::new(name))
            .map_or(0, |(_, examples)| examples.len())
    };
    // The pages that must keep their examples: a fence or prompt typed wrong would
    // otherwise drop them from the test without a word.
    for (name, least) in [("README.md", 6), ("docs/commands.md", 25)] {
        assert!(
            count(name) >= least,
            "{name}: only {} examples found",
            count(name)
        );
    }
    let bin = Path::new(env!("CARGO_BIN_EXE_retro"))
        .parent()
        .expect("bin dir")
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = Vec::new();
    for (page, examples) in &pages {
        let dir = tempfile::tempdir().expect("tempdir");
        copy_tables(dir.path());
        for ex in examples {
            let out = Command::new("sh")
                .arg("-c")
                .arg(format!("{} 2>&1", ex.command))
                .current_dir(dir.path())
                .env("PATH", &path)
                .output()
                .expect("run sh");
            let text = String::from_utf8_lossy(&out.stdout);
            let actual: Vec<&str> = text.lines().collect();
            if !lines_match(&ex.expected, &actual) {
                failures.push(format!(
                    "{} line {}: $ {}\n--- shown:\n{}\n--- printed:\n{}",
                    page.display(),
                    ex.line,
                    ex.command,
                    ex.expected.join("\n"),
                    text
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn only_plain_and_console_blocks_run() {
    let page = "text\n```\n$ retro a\nA\n```\n```text\n$ retro b\nB\n```\n```sh\n$ retro c\n```\n\
                ```console\n$ retro d\nD\n...\n```\n$ retro e\n";
    let found: Vec<(usize, String, Vec<String>)> = examples(page)
        .into_iter()
        .map(|ex| (ex.line, ex.command, ex.expected))
        .collect();
    let shown = |lines: &[&str]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert_eq!(
        found,
        vec![
            (3, "retro a".to_string(), shown(&["A"])),
            (14, "retro d".to_string(), shown(&["D", "..."])),
        ]
    );
}

#[test]
fn the_matcher_elides_only_where_told() {
    let p = |s: &[&str]| s.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert!(lines_match(&p(&["a", "...", "d"]), &["a", "b", "c", "d"]));
    assert!(lines_match(&p(&["a", "...", "d"]), &["a", "d"]));
    assert!(!lines_match(&p(&["a", "...", "d"]), &["a", "b"]));
    assert!(lines_match(
        &p(&["took [..] s, peak [..]"]),
        &["took 0.01 s, peak 3 MiB"]
    ));
    assert!(!lines_match(&p(&["took [..] s"]), &["took 0.01 ms"]));
    assert!(!lines_match(&p(&["x"]), &["x", "y"]));
}
