//! Load test of `retro serve` on loopback: a bounded number of position requests over 64
//! keep-alive connections; prints requests per second, p50/p99 latency, errors and the
//! server's peak memory (VmHWM).
//!
//!     cargo bench --profile ci --bench serve_load
//!     RETRO_LOAD_REQUESTS=100000 RETRO_LOAD_CONNECTIONS=64 cargo bench --profile ci --bench serve_load
//!
//! RETRO_LOAD_TABLE=young-sample (or twins-sample1) asks for one table's positions only.
//!
//! RETRO_LOAD_MODE=batches measures instead how long small GETs wait while big batches run:
//! 16 clients (RETRO_LOAD_BATCHES) each post 1 MiB batches of young 10x10 positions, one
//! after another, while one more client sends 100 (RETRO_LOAD_GETS) GET position requests
//! with pv one at a time; it prints the GETs' p50 and max latency and the batches' rate.
//!
//!     RETRO_LOAD_MODE=batches cargo bench --profile ci --bench serve_load

#[path = "../tests/all/support/server.rs"]
mod server;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use retro::game::AnyBoard;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Every position of a board's game, in its notation.
struct Positions;

impl retro::Visitor for Positions {
    type Output = Vec<String>;
    fn visit<G: retro::Registered>(self, game: G) -> retro::Result<Vec<String>> {
        let mut out = Vec::new();
        for k in 0..=game.last_layer() {
            for r in 0..game.layer_size(k) {
                out.push(game.format_position(&game.unrank(k, r)));
            }
        }
        Ok(out)
    }
}

fn positions(spec: &AnyBoard) -> retro::Result<Vec<String>> {
    use retro::Registry;
    retro::Builtin::visit(spec, Positions)
}

/// One GET on a kept-alive connection; the status, or None when the connection failed.
fn get(
    stream: &mut TcpStream,
    reader: &mut BufReader<TcpStream>,
    path: &str,
    body: &mut Vec<u8>,
) -> Option<u16> {
    let req = format!("GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n");
    stream.write_all(req.as_bytes()).ok()?;
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let status = line.split_whitespace().nth(1)?.parse().ok()?;
    let mut length = 0;
    loop {
        line.clear();
        reader.read_line(&mut line).ok()?;
        if line == "\r\n" || line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().ok()?;
        }
    }
    body.resize(length, 0);
    reader.read_exact(body).ok()?;
    Some(status)
}

fn peak_memory(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l["VmHWM:".len()..].trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument is a filter this bench ignores.
    if std::env::var("RETRO_LOAD_MODE").as_deref() == Ok("batches") {
        return batches();
    }
    let total = env_or("RETRO_LOAD_REQUESTS", 40_000);
    let connections = env_or("RETRO_LOAD_CONNECTIONS", 64);
    let limit = Duration::from_secs(env_or("RETRO_LOAD_SECONDS", 60) as u64);

    let dir = tempfile::tempdir().expect("temp dir");
    let tables = server::sample_tables(dir.path());
    let only = std::env::var("RETRO_LOAD_TABLE").ok();
    let mut paths = Vec::new();
    for table in &tables {
        let name = table
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        if only.as_ref().is_some_and(|o| *o != name) {
            continue;
        }
        let spec = retro::table::Table::open(table)
            .expect("open table")
            .header
            .game;
        for p in positions(&spec).expect("positions") {
            paths.push(format!("/api/{name}/{}", p.replace('/', "%2F")));
        }
    }
    let server = server::Server::start(&tables, &["--quiet"]);
    let pid = server.child.id();
    let before = peak_memory(pid);
    let paths = Arc::new(paths);
    let next = Arc::new(AtomicUsize::new(0));
    let errors = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let workers: Vec<_> = (0..connections)
        .map(|_| {
            let (paths, next, errors) = (paths.clone(), next.clone(), errors.clone());
            let addr = server.addr.clone();
            std::thread::spawn(move || {
                let mut latencies = Vec::new();
                let mut stream = TcpStream::connect(&addr).expect("connect");
                stream.set_nodelay(true).ok();
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut body = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= total || start.elapsed() > limit {
                        break;
                    }
                    let path = &paths[(i * 7919) % paths.len()];
                    let t = Instant::now();
                    match get(&mut stream, &mut reader, path, &mut body) {
                        Some(200) => latencies.push(t.elapsed()),
                        Some(_) => {
                            errors.fetch_add(1, Ordering::Relaxed);
                        }
                        None => {
                            errors.fetch_add(1, Ordering::Relaxed);
                            break;
                        }
                    }
                }
                latencies
            })
        })
        .collect();
    let mut latencies: Vec<Duration> = workers
        .into_iter()
        .flat_map(|w| w.join().unwrap_or_default())
        .collect();
    let elapsed = start.elapsed();
    latencies.sort();
    let pct = |p: f64| {
        latencies
            .get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1e3)
    };
    let done = latencies.len();
    println!(
        "retro serve load test: GET /api/TABLE/POSITION (with pv) over all positions of the samples"
    );
    println!(
        "requests      {done} ok, {} errors",
        errors.load(Ordering::Relaxed)
    );
    println!("connections   {connections}");
    println!("time          {:.2} s", elapsed.as_secs_f64());
    println!(
        "throughput    {:.0} requests/s",
        done as f64 / elapsed.as_secs_f64()
    );
    println!(
        "latency       p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        pct(0.50),
        pct(0.99),
        pct(1.0)
    );
    println!(
        "server memory VmHWM {} (at start: {before})",
        peak_memory(pid)
    );
    if errors.load(Ordering::Relaxed) > 0 {
        std::process::exit(1);
    }
}

/// Post `body` as a batch on a new connection and read the answer as it streams, without
/// keeping it: the number of answer lines, or None when the request failed.
fn post_batch(addr: &str, path: &str, body: &[u8]) -> Option<usize> {
    let mut stream = TcpStream::connect(addr).ok()?;
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).ok()?;
    stream.write_all(body).ok()?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    if line.split_whitespace().nth(1) != Some("200") {
        return None;
    }
    let mut chunked = false;
    loop {
        line.clear();
        reader.read_line(&mut line).ok()?;
        if line == "\r\n" || line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("transfer-encoding")
        {
            chunked = v.trim().eq_ignore_ascii_case("chunked");
        }
    }
    if !chunked {
        return None;
    }
    // Each chunk's size, then its bytes; answer lines end in newlines inside the chunks.
    let mut lines = 0;
    let mut chunk = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line).ok()?;
        let size = usize::from_str_radix(line.trim(), 16).ok()?;
        if size == 0 {
            return Some(lines);
        }
        chunk.resize(size + 2, 0);
        reader.read_exact(&mut chunk).ok()?;
        lines += chunk[..size].iter().filter(|&&b| b == b'\n').count();
    }
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// RETRO_LOAD_MODE=batches: small GETs' latency while 16 clients post 1 MiB batches.
fn batches() {
    let clients = env_or("RETRO_LOAD_BATCHES", 16);
    let gets = env_or("RETRO_LOAD_GETS", 100);
    let dir = tempfile::tempdir().expect("temp dir");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let table = dir.path().join("young-10x10.retro");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["build", "young"])
        .arg(root.join("tables/young-10x10.txt"))
        .arg("-o")
        .arg(&table)
        .arg("--quiet")
        .output()
        .expect("run retro build");
    assert!(out.status.success(), "{out:?}");
    let spec = retro::table::Table::open(&table)
        .expect("open table")
        .header
        .game;
    let all = positions(&spec).expect("positions");
    // Positions from every layer, scattered, up to the server's 1 MiB limit.
    let mut body = Vec::new();
    let mut lines = 0;
    for i in 0..all.len() {
        let p = &all[(i * 7919) % all.len()];
        if body.len() + p.len() + 1 > 1 << 20 {
            break;
        }
        body.extend_from_slice(p.as_bytes());
        body.push(b'\n');
        lines += 1;
    }
    let server = server::Server::start(std::slice::from_ref(&table), &["--quiet"]);
    let addr = server.addr.clone();
    let body = Arc::new(body);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let start = Instant::now();
    let posters: Vec<_> = (0..clients)
        .map(|_| {
            let (addr, body, stop) = (addr.clone(), body.clone(), stop.clone());
            std::thread::spawn(move || {
                // (answer lines, seconds) of each batch, and failures.
                let mut done = Vec::new();
                let mut failed = 0;
                while !stop.load(Ordering::Relaxed) {
                    let t = Instant::now();
                    match post_batch(&addr, "/api/young-10x10/batch", &body) {
                        Some(n) if n == lines => done.push(t.elapsed()),
                        _ => failed += 1,
                    }
                }
                (done, failed)
            })
        })
        .collect();
    // Let every batch get going before the GETs start.
    std::thread::sleep(Duration::from_millis(500));
    let mut stream = TcpStream::connect(&addr).expect("connect");
    stream.set_nodelay(true).ok();
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut answer = Vec::new();
    let mut latencies = Vec::new();
    let mut get_errors = 0;
    for i in 0..gets {
        let p = &all[(i * 104_729) % all.len()];
        let t = Instant::now();
        match get(
            &mut stream,
            &mut reader,
            &format!("/api/young-10x10/{p}"),
            &mut answer,
        ) {
            Some(200) => latencies.push(t.elapsed()),
            _ => get_errors += 1,
        }
    }
    stop.store(true, Ordering::Relaxed);
    let mut batch_times = Vec::new();
    let mut batch_errors = 0;
    for p in posters {
        let (done, failed) = p.join().unwrap_or_default();
        batch_times.extend(done);
        batch_errors += failed;
    }
    let elapsed = start.elapsed();
    latencies.sort();
    batch_times.sort();
    let at = |v: &[Duration], p: f64| {
        v.get(((v.len() as f64 * p) as usize).min(v.len().saturating_sub(1)))
            .map_or(0.0, |d| millis(*d))
    };
    println!(
        "retro serve batch load: {clients} clients posting 1 MiB batches of young 10x10 positions ({lines} lines, {} bytes each) while one client sends GET position requests with pv",
        body.len()
    );
    println!(
        "small GETs    {} ok, {get_errors} errors: p50 {:.1} ms, p90 {:.1} ms, max {:.1} ms",
        latencies.len(),
        at(&latencies, 0.5),
        at(&latencies, 0.9),
        at(&latencies, 1.0)
    );
    println!(
        "batches       {} answered, {batch_errors} failed, in {:.1} s ({:.0} lines/s): each p50 {:.0} ms, max {:.0} ms",
        batch_times.len(),
        elapsed.as_secs_f64(),
        (batch_times.len() * lines) as f64 / elapsed.as_secs_f64(),
        at(&batch_times, 0.5),
        at(&batch_times, 1.0)
    );
    println!("server memory VmHWM {}", peak_memory(server.child.id()));
    if get_errors > 0 || batch_errors > 0 {
        std::process::exit(1);
    }
}
