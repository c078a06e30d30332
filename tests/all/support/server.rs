//! A `retro serve` child process on a free loopback port, and a small HTTP/1.1 client for
//! it (shared by tests/all/serve.rs and benches/serve_load.rs).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Build the sample tables (young-sample, twins-sample1) into `dir`.
pub fn sample_tables(dir: &Path) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    [("young", "young-sample"), ("twins", "twins-sample1")]
        .iter()
        .map(|(game, name)| {
            let input = root.join(format!("tables/{name}.txt"));
            let table = dir.join(format!("{name}.retro"));
            let out = Command::new(env!("CARGO_BIN_EXE_retro"))
                .args(["build", game])
                .arg(&input)
                .arg("-o")
                .arg(&table)
                .arg("--quiet")
                .output()
                .expect("run retro build");
            assert!(out.status.success(), "{out:?}");
            table
        })
        .collect()
}

pub struct Server {
    pub child: Child,
    /// `127.0.0.1:PORT`
    pub addr: String,
    /// Everything the server wrote to stderr after its first line, once it has ended.
    log: Option<std::thread::JoinHandle<String>>,
}

impl Server {
    /// `retro serve TABLES --addr 127.0.0.1:0 EXTRA...`, once it listens.
    pub fn start(tables: &[PathBuf], extra: &[&str]) -> Server {
        Server::start_with(tables, extra, &[])
    }

    /// `start` with these environment variables set for the server.
    pub fn start_with(tables: &[PathBuf], extra: &[&str], env: &[(&str, &str)]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
            .arg("serve")
            .args(tables)
            .args(["--addr", "127.0.0.1:0"])
            .args(extra)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run retro serve");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let mut first = String::new();
        stderr.read_line(&mut first).expect("read stderr");
        let addr = first
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("no address in the first line: {first:?}"))
            .to_string();
        // Drain stderr so the access log never fills the pipe and blocks the server.
        let log = std::thread::spawn(move || {
            let mut rest = String::new();
            let _ = stderr.read_to_string(&mut rest);
            rest
        });
        Server {
            child,
            addr,
            log: Some(log),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Stop with SIGINT (Ctrl-C) and return the exit status and the rest of stderr.
    pub fn interrupt(mut self) -> (std::process::ExitStatus, String) {
        let pid = self.child.id().to_string();
        let ok = Command::new("kill").args(["-INT", &pid]).status();
        assert!(ok.map(|s| s.success()).unwrap_or(false), "kill -INT {pid}");
        let status = self.child.wait().expect("wait for retro serve");
        let log = self.log.take().map(|h| h.join().unwrap_or_default());
        (status, log.unwrap_or_default())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Reply {
    pub status: u16,
    pub headers: String,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.body).expect("UTF-8 body")
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", String::from_utf8_lossy(&self.body)))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

/// Send raw bytes as a request on a new connection and read the whole reply.
pub fn raw(addr: &str, request: &[u8]) -> Reply {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).ok();
    // The server may answer and close before reading a large request to its end.
    let _ = s.write_all(request);
    let mut bytes = Vec::new();
    let _ = s.read_to_end(&mut bytes);
    parse_reply(&bytes)
}

pub fn request(addr: &str, method: &str, path: &str, body: &[u8]) -> Reply {
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body);
    raw(addr, &req)
}

pub fn get(addr: &str, path: &str) -> Reply {
    request(addr, "GET", path, b"")
}

pub fn parse_reply(bytes: &[u8]) -> Reply {
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no reply head in {:?}", String::from_utf8_lossy(bytes)));
    let head = String::from_utf8_lossy(&bytes[..end]).to_string();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status");
    let (_, headers) = head.split_once("\r\n").unwrap_or((&head, ""));
    let mut reply = Reply {
        status,
        headers: headers.to_string(),
        body: bytes[end + 4..].to_vec(),
    };
    if reply.header("transfer-encoding") == Some("chunked") {
        reply.body = dechunk(&reply.body);
    }
    reply
}

fn dechunk(mut bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = bytes
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("chunk size");
        let size = std::str::from_utf8(&bytes[..line_end])
            .ok()
            .and_then(|s| usize::from_str_radix(s.trim(), 16).ok())
            .expect("chunk size");
        if size == 0 {
            return out;
        }
        let start = line_end + 2;
        out.extend_from_slice(&bytes[start..start + size]);
        bytes = &bytes[start + size + 2..];
    }
}
