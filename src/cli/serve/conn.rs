//! Connections of `retro serve`: the accept loop, its cap on open connections, the time a
//! client has to send a request's head, and JSON bodies for the errors hyper answers
//! itself (a request line or headers it cannot parse). The time a batch's body has, and
//! the share of the cap bodies may hold, are the batch handler's (`http::batch`).
//!
//! `axum::serve` has none of these: with no timer, an idle connection stays open for ever,
//! and a thousand of them used up the descriptors every real client needed.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::json;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

/// The most bytes a request's head (its request line and headers) may take: the one
/// limit on it. Hyper has two of its own, 100 headers and a read buffer of about 400 KB,
/// which refused 10 KB of small headers and let one header of 420 KB through.
const HEAD_LIMIT: usize = 16 * 1024;

/// Accept connections on `listener` and serve `app` on each until `stop` completes.
/// At most `max` connections are open at once; one more is answered 503 and closed. A
/// connection that has not sent a whole request head `timeout` after it opened or after
/// its last answer (an idle keep-alive) is closed, and so is one whose client takes none
/// of an answer's bytes for `timeout`.
pub(super) async fn accept(
    listener: TcpListener,
    app: Router,
    max: usize,
    timeout: Duration,
    stop: impl std::future::Future<Output = ()>,
) -> io::Result<()> {
    let open = Arc::new(Semaphore::new(max));
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                // Out of descriptors, or a connection reset before it was accepted: the
                // listener is still good, so wait a moment rather than spin or stop.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            () = &mut stop => return Ok(()),
        };
        let Ok(permit) = Arc::clone(&open).try_acquire_owned() else {
            tokio::spawn(refuse(stream, max));
            continue;
        };
        let app = app.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |mut request| {
                request.extensions_mut().insert(ConnectInfo(peer));
                let mut app = app.clone();
                async move { tower_service::Service::call(&mut app, request).await }
            });
            let io = TokioIo::new(JsonErrors::new(stream, timeout));
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(timeout)
                .max_header_size(HEAD_LIMIT)
                // As many headers as the shortest lines (`a:` and a line break, 3 bytes)
                // fit in the limit: the count never refuses a head the bytes allow.
                .max_headers(HEAD_LIMIT / 3 + 1)
                .serve_connection(io, service)
                .await;
            drop(permit);
        });
    }
}

/// Answer a connection past the cap with a 503 and close it, spending at most a second.
async fn refuse(mut stream: TcpStream, max: usize) {
    let body = json!({
        "error": format!("the server has {max} connections open, its most; try again shortly")
    })
    .to_string();
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(response.as_bytes()).await?;
        stream.shutdown().await
    })
    .await;
}

/// The most connections to allow: what the descriptor limit leaves after files, logs and
/// the tables (64), at most 16384. The soft limit is raised to the hard one first, since
/// the usual soft limit of 1024 is easy to fill with idle connections.
pub(super) fn connection_limit() -> usize {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct we pass.
    let soft = unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 960;
        }
        let raised = libc::rlimit {
            rlim_cur: limit.rlim_max,
            rlim_max: limit.rlim_max,
        };
        if limit.rlim_cur < limit.rlim_max && libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
            limit.rlim_max
        } else {
            limit.rlim_cur
        }
    };
    (soft.min(16384 + 64) as usize).saturating_sub(64).max(1)
}

/// A connection whose writes are passed through, except hyper's own answers to requests
/// it could not parse (400, 431 with an empty body), which become the same
/// `{"error": ...}` answers as every other error. Those are the only responses written
/// with `content-length: 0` and one of those statuses: every handler's error has a body.
///
/// A write the client takes no bytes of for `write_timeout` fails, which ends the
/// connection: a client that asks for a large batch and never reads the answer would
/// otherwise hold its connection, and the batch's turn to compute, for ever.
struct JsonErrors {
    inner: TcpStream,
    /// A replacement being written, how much of it is written, and the length of the
    /// write it stands for.
    pending: Option<(Vec<u8>, usize, usize)>,
    write_timeout: Duration,
    /// Running from when a write first had to wait, until one makes progress.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl JsonErrors {
    fn new(inner: TcpStream, write_timeout: Duration) -> Self {
        JsonErrors {
            inner,
            pending: None,
            write_timeout,
            stalled: None,
        }
    }

    /// Write to the socket; an error once writes have waited `write_timeout` in all
    /// without progress.
    fn poll_write_inner(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write(cx, buf) {
            Poll::Ready(written) => {
                self.stalled = None;
                Poll::Ready(written)
            }
            Poll::Pending => {
                let timeout = self.write_timeout;
                let stalled = self
                    .stalled
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
                match stalled.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the client took no bytes of the answer within the timeout",
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

/// The 431's message, naming `HEAD_LIMIT`.
const HEAD_TOO_LARGE: &str = "the request's head is too large: its request line and headers take at most 16384 bytes (16 KiB) in all";

/// The JSON answer for hyper's empty-bodied `head`, if it is one.
fn replacement(head: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(head).ok()?;
    let status = text.strip_prefix("HTTP/1.1 ")?.get(..3)?;
    let lower = text.to_ascii_lowercase();
    if !lower.ends_with("\r\n\r\n") || !lower.contains("\r\ncontent-length: 0\r\n") {
        return None;
    }
    let (line, message) = match status {
        "400" => (
            "400 Bad Request",
            "not an HTTP/1.1 request this server can read (a bad request line, path or header)",
        ),
        "431" => ("431 Request Header Fields Too Large", HEAD_TOO_LARGE),
        _ => return None,
    };
    let body = json!({ "error": message }).to_string();
    Some(
        format!(
            "HTTP/1.1 {line}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

impl AsyncRead for JsonErrors {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for JsonErrors {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.pending.is_none() {
            match replacement(buf) {
                Some(bytes) => this.pending = Some((bytes, 0, buf.len())),
                None => return this.poll_write_inner(cx, buf),
            }
        }
        // Hyper calls again with the same bytes while this returns Pending.
        while let Some((bytes, at, stands_for)) = this.pending.take() {
            if at == bytes.len() {
                return Poll::Ready(Ok(stands_for));
            }
            match this.poll_write_inner(cx, &bytes[at..]) {
                Poll::Pending => {
                    this.pending = Some((bytes, at, stands_for));
                    return Poll::Pending;
                }
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => this.pending = Some((bytes, at + n, stands_for)),
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
            }
        }
        Poll::Ready(Ok(0))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    // Not vectored: hyper then writes a response head in one buffer, which is how
    // `replacement` recognises its own error answers.
    fn is_write_vectored(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::replacement;

    #[test]
    fn only_hyper_s_empty_errors_are_replaced() {
        let hyper_s =
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let text = String::from_utf8(replacement(hyper_s).expect("replaced")).expect("text");
        assert!(text.starts_with("HTTP/1.1 431 "), "{text}");
        assert!(text.ends_with("\"}"), "{text}");
        let ours = b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 17\r\n\r\n";
        assert!(replacement(ours).is_none());
        let ok = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
        assert!(replacement(ok).is_none());
    }

    #[test]
    fn the_431_names_the_limit() {
        assert!(super::HEAD_TOO_LARGE.contains(&format!("{} bytes", super::HEAD_LIMIT)));
    }
}
