#![allow(dead_code)]
//! Helpers shared by the integration tests.

pub mod brute;

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The path of a file shipped in `tables/` (boards and samples).
pub fn shipped(name: &str) -> String {
    format!("{}/tables/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Bytes of output as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A command's stdout as text, whatever its exit.
pub fn stdout(out: &Output) -> String {
    text(&out.stdout)
}

/// The command succeeded; its stdout. A failure shows the exit code and stderr.
pub fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// `ok`, and nothing was printed on stderr.
pub fn ok_silent(out: &Output) -> String {
    let stdout = ok(out);
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    stdout
}

/// The command failed with `code` and exactly one stderr line `error: ...` containing
/// `needle` (and no panic); that line.
pub fn fails(out: &Output, code: i32, needle: &str) -> String {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
    assert_eq!(err.lines().count(), 1, "not one line: {err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains(needle), "{err:?} lacks {needle:?}");
    err
}

/// Run the `retro` binary with `args`, feeding `stdin`.
pub fn retro(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run retro");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("wait for retro")
}
