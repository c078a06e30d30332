#![allow(dead_code)]
//! Helpers shared by the integration tests.

pub mod brute;

use std::io::Write;
use std::process::{Command, Output, Stdio};

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
