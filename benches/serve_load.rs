//! Load test of `retro serve` on loopback: a bounded number of position requests over 64
//! keep-alive connections; prints requests per second, p50/p99 latency, errors and the
//! server's peak memory (VmHWM).
//!
//!     cargo bench --profile ci --bench serve_load
//!     RETRO_LOAD_REQUESTS=100000 RETRO_LOAD_CONNECTIONS=64 cargo bench --profile ci --bench serve_load
//!
//! RETRO_LOAD_TABLE=young-sample (or twins-sample1) asks for one table's positions only.

#[path = "../tests/support/server.rs"]
mod server;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use retro::game::{Game, GameSpec};

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn positions(spec: &GameSpec) -> retro::Result<Vec<String>> {
    retro::with_game!(spec, game => {
        let mut out = Vec::new();
        for k in 0..=game.cells() {
            for r in 0..game.layer_size(k) {
                out.push(game.format_position(&game.unrank(k, r)));
            }
        }
        Ok(out)
    })
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
