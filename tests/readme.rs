//! The README's examples, run: every `$ ` line inside a fenced block of README.md is run
//! with `sh` (in README order, in one scratch directory holding a copy of `tables/`, with
//! `retro` on the PATH), and its stdout and stderr together must match the lines under it.
//! In the expected text a line `...` stands for any number of lines and `[..]` for any part
//! of a line (times, free disk, memory), so the README shows real output and stays true.

use std::path::Path;
use std::process::Command;

/// One example: the command and the output shown under it.
struct Example {
    line: usize,
    command: String,
    expected: Vec<String>,
}

fn examples(readme: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_block = false;
    let mut current: Option<Example> = None;
    for (i, line) in readme.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            out.extend(current.take());
            continue;
        }
        if !in_block {
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

#[test]
fn every_readme_example_prints_what_the_readme_shows() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let examples = examples(&readme);
    assert!(
        examples.len() >= 10,
        "only {} examples found",
        examples.len()
    );
    let dir = tempfile::tempdir().expect("tempdir");
    copy_tables(dir.path());
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
    for ex in &examples {
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
                "README.md line {}: $ {}\n--- shown:\n{}\n--- printed:\n{}",
                ex.line,
                ex.command,
                ex.expected.join("\n"),
                text
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
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
