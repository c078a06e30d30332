//! Headless Chromium through chromedriver, for the explorer's browser tests (`serve.rs`,
//! connect's column clicks, Teeko's and Quixo's moves between cells). A test skips itself, saying so,
//! where Chromium is not installed.

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::Value;

pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

pub struct Driver(std::process::Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn start_driver() -> (Driver, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(CHROMEDRIVER)
        .arg(format!("--port={port}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start chromedriver");
    let driver = Driver(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    (driver, port)
}

pub async fn connect(port: u16, profile: &Path) -> Client {
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=900,640",
        &format!("--user-data-dir={}", profile.display()),
    ];
    let caps = serde_json::json!({
        "goog:chromeOptions": {"binary": CHROMIUM, "args": args}
    });
    let Value::Object(caps) = caps else {
        unreachable!()
    };
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("connect to chromedriver")
}

/// Wait until `check` holds (the page fetches asynchronously).
pub async fn wait_for<F: std::future::Future<Output = bool>>(what: &str, check: impl Fn() -> F) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !check().await {
        assert!(Instant::now() < deadline, "waited in vain for {what}");
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}

pub async fn text(c: &Client, css: &str) -> String {
    match c.find(Locator::Css(css)).await {
        Ok(e) => e.text().await.unwrap_or_default(),
        Err(_) => String::new(),
    }
}

/// Whether Chromium and its driver are installed; if not, say that the test is skipped.
/// The note goes straight to the process's standard error: the test harness captures
/// what `println!` prints and shows it only for a test that fails, so a skipped test
/// would otherwise read as a pass.
pub fn available() -> bool {
    let there = Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists();
    if !there {
        use std::io::Write;
        let test = std::thread::current()
            .name()
            .unwrap_or("a browser test")
            .to_string();
        let _ = writeln!(
            std::io::stderr(),
            "note: {test}: skipped, its browser checks need {CHROMIUM} and {CHROMEDRIVER} (Debian: apt-get install chromium chromium-driver)"
        );
    }
    there
}

/// Save a screenshot where RETRO_SCREENSHOTS points (the README's pictures); nothing
/// otherwise.
pub async fn screenshot(c: &Client, name: &str) {
    if let Some(dir) = std::env::var_os("RETRO_SCREENSHOTS") {
        let png = c.screenshot().await.expect("screenshot");
        std::fs::write(std::path::PathBuf::from(dir).join(name), png).expect("write screenshot");
    }
}
