//! The router, the handlers and the embedded explorer page of `retro serve`.
//!
//! Handlers read the raw request path and decode it themselves, so that every way a path
//! can be wrong (bad percent-encoding, bytes that are not UTF-8, a table that is not
//! served) gets the same one-line message the command line would print, in a JSON body.

use std::convert::Infallible;
use std::io::Write;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;

use super::{Served, State as Tables};
use crate::cli::lines::MAX_LINE;
use crate::error::{Error, Result, excerpt};

/// Largest batch body: far more positions than anyone pastes, and small enough that 64
/// clients at once cost well under 100 MB.
pub(crate) const MAX_BODY: usize = 1 << 20;

/// A streamed batch answers in chunks of about this size, so its output is never held
/// whole in memory however many lines the body has.
const CHUNK: usize = 1 << 16;

/// The access log shows at most this much of a request's path.
const LOGGED_PATH: usize = 200;

const INDEX: &str = include_str!("assets/index.html");
const EXPLORER: &str = include_str!("assets/explorer.html");
const SCRIPT: &str = include_str!("assets/explorer.js");
const STYLE: &str = include_str!("assets/explorer.css");

type Shared = Arc<Tables>;

pub(super) struct Options {
    pub open: bool,
    pub quiet: bool,
    /// Connections open at once, at most.
    pub max_connections: usize,
    /// Time a connection has to send a request's head (idle keep-alives included); a
    /// batch's body has as long again (`State::body_timeout`).
    pub timeout: std::time::Duration,
}

/// Listen on `addr` and answer until Ctrl-C. The first line on stderr names the bound
/// address, which tests and scripts read when they ask for port 0.
pub(super) async fn serve(tables: Tables, addr: SocketAddr, options: Options) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Error::io(format!("listening on {addr}"), e))?;
    let bound = listener
        .local_addr()
        .map_err(|e| Error::io(format!("listening on {addr}"), e))?;
    let names: Vec<&str> = tables.tables.keys().map(String::as_str).collect();
    log(&format!(
        "listening on http://{bound}/ with {} table{} ({}); Ctrl-C stops",
        names.len(),
        if names.len() == 1 { "" } else { "s" },
        names.join(", ")
    ));
    if !bound.ip().is_loopback() {
        log("warning: not a loopback address: anyone who reaches it can read the tables");
    }
    if options.open {
        let url = format!("http://{bound}/");
        crate::cli::outln!("{url}")?;
        open_browser(&url);
    }
    let app = router(Arc::new(tables), options.quiet);
    let stop = async {
        // Without a handler for Ctrl-C the server runs until it is killed.
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    super::conn::accept(
        listener,
        app,
        options.max_connections,
        options.timeout,
        stop,
    )
    .await
    .map_err(|e| Error::io("serving", e))?;
    log("stopped");
    Ok(())
}

pub(super) fn router(tables: Shared, quiet: bool) -> Router {
    let app = Router::new()
        .route("/", get(|| async { page(StatusCode::OK, INDEX) }))
        .route(
            "/assets/explorer.js",
            get(|| async { asset(SCRIPT, "text/javascript") }),
        )
        .route(
            "/assets/explorer.css",
            get(|| async { asset(STYLE, "text/css") }),
        )
        .route("/api/tables", get(list))
        .route("/api/{table}/batch", post(batch))
        .route("/api/{table}/{*position}", get(position))
        // No position: where the table opens (`Served::opening`).
        .route("/api/{table}", get(position))
        .route("/{table}", get(explorer))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(tables);
    if quiet {
        app
    } else {
        app.layer(middleware::from_fn(access_log))
    }
}

/// An error as the API returns it: a status and `{"error": "..."}`.
struct ApiError {
    status: StatusCode,
    message: String,
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        // A bad position is the client's fault; anything else (a damaged table) is ours.
        let status = if e.is_input() {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::INTERNAL_SERVER_ERROR
        };
        ApiError {
            status,
            message: e.to_string(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        json_response(self.status, json!({"error": self.message}).to_string())
    }
}

/// An error answer after which the connection is closed (the request's body is left
/// unread), with a `retry-after` when the refusal is only for now (503).
fn refusal(status: StatusCode, message: String) -> Response {
    let mut response = ApiError { status, message }.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONNECTION,
        header::HeaderValue::from_static("close"),
    );
    if status == StatusCode::SERVICE_UNAVAILABLE {
        headers.insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
    }
    response
}

fn json_response(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn page(status: StatusCode, html: &'static str) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            // Everything the page needs comes from this server.
            (header::CONTENT_SECURITY_POLICY, "default-src 'self'"),
        ],
        html,
    )
        .into_response()
}

fn asset(text: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], text).into_response()
}

/// Percent-decode one piece of a path. Browsers and curl encode correctly, so a `%` not
/// followed by two hex digits is refused rather than guessed at.
fn decode(raw: &str) -> std::result::Result<String, Error> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            let Some(byte) = hex else {
                return Err(Error::input(format!(
                    "bad percent-encoding at byte {} of {}: % must be followed by two hex digits",
                    i + 1,
                    excerpt(raw)
                )));
            };
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|e| {
        Error::input(format!(
            "byte {} is not UTF-8 text",
            e.utf8_error().valid_up_to() + 1
        ))
    })
}

/// The served table a (still encoded) path segment names.
fn lookup<'a>(tables: &'a Tables, raw: &str) -> std::result::Result<&'a Served, ApiError> {
    let name = decode(raw)?;
    tables.tables.get(&name).ok_or_else(|| ApiError {
        status: StatusCode::NOT_FOUND,
        message: format!(
            "no table named {} here; this server has {}",
            excerpt(&name),
            tables
                .tables
                .keys()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })
}

/// `GET /api/tables`.
async fn list(State(tables): State<Shared>) -> Response {
    let all: Vec<_> = tables.tables.values().map(|t| &t.summary).collect();
    json_response(StatusCode::OK, json!(all).to_string())
}

/// `GET /api/{table}/{position}`: `query --json --pv`.
async fn position(
    State(tables): State<Shared>,
    uri: Uri,
) -> std::result::Result<Response, ApiError> {
    let rest = uri.path().strip_prefix("/api/").unwrap_or_default();
    let (table, position) = rest.split_once('/').unwrap_or((rest, ""));
    let name = lookup(&tables, table)?.name.clone();
    // No position: where the table opens (the start, where the game has one).
    let position = decode(position)?;
    // Reading the table may wait on the disk: off the async workers, so one slow read
    // (or a batch) never holds up the connections they serve.
    let answer = tokio::task::spawn_blocking(move || {
        let served = &tables.tables[&name];
        let answer = match position.is_empty() {
            true => served.opening(true),
            false => served.query(&position, true),
        };
        unchanged(served)?;
        Ok::<_, ApiError>(answer?)
    })
    .await
    .map_err(|e| ApiError {
        status: StatusCode::INTERNAL_SERVER_ERROR,
        message: format!("the answer failed: {e}"),
    })??;
    Ok(json_response(StatusCode::OK, answer.to_string()))
}

/// A 503 naming the table if its file was written over since it was opened: whatever was
/// read from it may be the new file's bytes, or zeros.
fn unchanged(served: &Served) -> std::result::Result<(), ApiError> {
    served.table.check_unchanged().map_err(|e| ApiError {
        status: StatusCode::SERVICE_UNAVAILABLE,
        message: changed_message(served, &e),
    })
}

fn changed_message(served: &Served, e: &Error) -> String {
    format!(
        "{}: {e}; restart the server to serve the new file",
        served.name
    )
}

/// A batch body the connection could not deliver (a chunk size that is no number, a chunk
/// cut short): a 400 with hyper's cause. None for the one other failure, the size limit,
/// which is a 413.
fn unreadable(e: &axum::Error) -> Option<ApiError> {
    let mut chain = std::iter::successors(Some(e as &(dyn std::error::Error + 'static)), |e| {
        e.source()
    });
    let broken = chain.find(|e| e.is::<hyper::Error>())?;
    let mut cause = broken.to_string();
    for e in std::iter::successors(broken.source(), |e| e.source()) {
        cause.push_str(&format!(": {e}"));
    }
    Some(ApiError {
        status: StatusCode::BAD_REQUEST,
        message: format!("the batch's body could not be read: {cause}"),
    })
}

/// `POST /api/{table}/batch`: `query --batch --json` over the body's lines.
async fn batch(
    State(tables): State<Shared>,
    request: Request,
) -> std::result::Result<Response, ApiError> {
    let raw = request
        .uri()
        .path()
        .strip_prefix("/api/")
        .and_then(|r| r.strip_suffix("/batch"))
        .unwrap_or_default();
    let name = lookup(&tables, raw)?.name.clone();
    let too_large = || ApiError {
        status: StatusCode::PAYLOAD_TOO_LARGE,
        message: format!("a batch is at most {MAX_BODY} bytes of positions; split it"),
    };
    // A declared length over the limit is refused before any of the body is read, so a
    // client cannot hold a connection open by promising gigabytes.
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        return Err(too_large());
    }
    // The body arrives while this holds one of half the connection cap's places: clients
    // that send their bodies slowly, or never, cannot take every connection from the
    // others. Past that, a batch is refused at once, as a connection past the cap is.
    let Ok(receiving) = Arc::clone(&tables.uploads).try_acquire_owned() else {
        return Ok(refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "{} batch bodies are being received, the most at once; try again shortly",
                tables.max_uploads
            ),
        ));
    };
    // The whole body has `--timeout` from when its head arrived: a client that declares
    // 1000 bytes and sends six does not hold its connection for ever.
    let body = match tokio::time::timeout(
        tables.body_timeout,
        axum::body::to_bytes(request.into_body(), MAX_BODY),
    )
    .await
    {
        Ok(read) => read.map_err(|e| unreadable(&e).unwrap_or_else(too_large))?,
        Err(_) => {
            return Ok(refusal(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the batch's body did not arrive within {} s of its head (the server's --timeout); send it whole",
                    tables.body_timeout.as_secs_f64()
                ),
            ));
        }
    };
    drop(receiving);
    unchanged(&tables.tables[&name])?;
    // At most one batch per worker thread runs at once; the rest wait their turn here,
    // holding only their body.
    let permit = Arc::clone(&tables.batches)
        .acquire_owned()
        .await
        .map_err(|_| ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: "the server is stopping".into(),
        })?;
    let mut lines = BatchLines {
        tables,
        name,
        body,
        at: 0,
        number: 0,
        bad: 0,
        done: false,
    };
    // The answers are computed on the blocking pool a chunk ahead of the client: a client
    // that stops reading stops the work, and one that goes away ends it.
    let (sender, receiver) = tokio::sync::mpsc::channel::<Bytes>(1);
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        while !lines.done {
            let out = lines.chunk();
            if !out.is_empty() && sender.blocking_send(Bytes::from(out)).is_err() {
                break;
            }
        }
    });
    Ok((
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(Chunks(receiver)),
    )
        .into_response())
}

/// A batch's answers as they arrive from the blocking pool.
struct Chunks(tokio::sync::mpsc::Receiver<Bytes>);

impl futures_core::Stream for Chunks {
    type Item = std::result::Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.get_mut().0.poll_recv(cx).map(|chunk| chunk.map(Ok))
    }
}

/// A batch stops after this many lines that are not positions: such a body is not a list
/// of positions, and answering each would send back far more than it holds.
const MAX_BAD_LINES: u64 = 1000;

/// A batch's answers, computed a chunk at a time as the client reads them.
struct BatchLines {
    tables: Shared,
    name: String,
    body: Bytes,
    at: usize,
    number: u64,
    /// Lines that were not positions so far.
    bad: u64,
    done: bool,
}

impl BatchLines {
    /// The next line of the body without its line ending, as `query --batch` splits stdin.
    fn next_line(&mut self) -> Option<Bytes> {
        if self.at >= self.body.len() {
            return None;
        }
        let start = self.at;
        let end = match self.body[start..].iter().position(|&b| b == b'\n') {
            Some(i) => {
                self.at = start + i + 1;
                start + i
            }
            None => {
                self.at = self.body.len();
                self.body.len()
            }
        };
        let end = if end > start && self.body[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        Some(self.body.slice(start..end))
    }

    fn chunk(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        let tables = Arc::clone(&self.tables);
        let Some(served) = tables.tables.get(&self.name) else {
            self.done = true;
            return out;
        };
        while out.len() < CHUNK {
            let Some(line) = self.next_line() else {
                self.done = true;
                break;
            };
            let text = if line.len() > MAX_LINE {
                Err(Error::input(format!(
                    "longer than {MAX_LINE} bytes, not a position"
                )))
            } else {
                std::str::from_utf8(&line).map_err(|e| {
                    Error::input(format!("byte {} is not UTF-8 text", e.valid_up_to() + 1))
                })
            };
            self.number += 1;
            // Blank lines are skipped; every answer carries its line's number.
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let value = match text.and_then(|t| served.query(t, false)) {
                Ok(mut answer) => {
                    answer["line"] = json!(self.number);
                    answer
                }
                Err(e) => {
                    // A damaged table stops the batch, as it stops `query --batch`.
                    self.done = !e.is_input();
                    self.bad += u64::from(e.is_input());
                    json!({"line": self.number, "error": e.to_string()})
                }
            };
            out.extend_from_slice(value.to_string().as_bytes());
            out.push(b'\n');
            if self.bad == MAX_BAD_LINES && self.at < self.body.len() {
                let stop = json!({
                    "line": self.number,
                    "error": format!("{MAX_BAD_LINES} lines are not positions: the rest of the batch is not read"),
                });
                out.extend_from_slice(stop.to_string().as_bytes());
                out.push(b'\n');
                self.done = true;
            }
            if self.done {
                break;
            }
        }
        // Nothing read from a file written over in place is sent: the chunk becomes the
        // error, and the batch ends.
        if let Err(e) = served.table.check_unchanged() {
            self.done = true;
            let line = json!({"line": self.number, "error": changed_message(served, &e)});
            return format!("{line}\n").into_bytes();
        }
        out
    }
}

/// `GET /{table}`: the explorer; the page reads the table and position from its URL.
async fn explorer(State(tables): State<Shared>, uri: Uri) -> Response {
    let raw = uri.path().strip_prefix('/').unwrap_or_default();
    match lookup(&tables, raw) {
        Ok(_) => page(StatusCode::OK, EXPLORER),
        Err(_) => not_found(uri).await,
    }
}

async fn not_found(uri: Uri) -> Response {
    ApiError {
        status: StatusCode::NOT_FOUND,
        message: format!(
            "no such page: {}; see / for the tables",
            excerpt(uri.path())
        ),
    }
    .into_response()
}

async fn method_not_allowed(method: axum::http::Method, uri: Uri) -> Response {
    let allowed = if uri.path().ends_with("/batch") {
        "POST"
    } else {
        "GET"
    };
    ApiError {
        status: StatusCode::METHOD_NOT_ALLOWED,
        message: format!(
            "{} is not a method {} answers: use {allowed}",
            excerpt(method.as_str()),
            excerpt(uri.path())
        ),
    }
    .into_response()
}

/// One line per request: client, method, path, status, time to the response's head.
async fn access_log(
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    let start = Instant::now();
    let method = request.method().clone();
    let mut path = request
        .uri()
        .path_and_query()
        .map_or("", |p| p.as_str())
        .to_string();
    if path.len() > LOGGED_PATH {
        let cut = (0..=LOGGED_PATH)
            .rev()
            .find(|&i| path.is_char_boundary(i))
            .unwrap_or(0);
        path.truncate(cut);
        path.push_str("...");
    }
    let response = next.run(request).await;
    log(&format!(
        "{peer} {method} {path} {} {:.2} ms",
        response.status().as_u16(),
        start.elapsed().as_secs_f64() * 1e3
    ));
    response
}

/// A line on stderr; a closed stderr must not take the server down, so errors are dropped.
fn log(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(format!("{line}\n").as_bytes());
}

/// Start the user's browser on `url`: `$BROWSER` if set, else the desktop's opener
/// (`xdg-open`, `open` on macOS). The URL is on stdout already, so a machine with no
/// browser only gets a note on stderr.
fn open_browser(url: &str) {
    let opener = std::env::var_os("BROWSER")
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| {
            if cfg!(target_os = "macos") {
                "open".into()
            } else {
                "xdg-open".into()
            }
        });
    let started = std::process::Command::new(&opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match started {
        // Reaped on a thread of its own, so it leaves no zombie while the server runs.
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
        }
        Err(e) => eprintln!(
            "note: could not start a browser ({}: {e}); open {url} yourself",
            std::path::Path::new(&opener).display()
        ),
    }
}
