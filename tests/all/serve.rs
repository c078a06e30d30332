//! `retro serve`: the JSON API against `retro query`, every error status, hostile requests,
//! start-up errors, Ctrl-C, and the explorer page in a real headless Chromium.

use crate::common;
use crate::support::browser as browser_support;
use crate::support::server;

use std::path::{Path, PathBuf};

use retro::game::AnyBoard;
use serde_json::Value;
use server::{Server, get, raw, request, sample_tables};

use common::retro;

fn spec_of(table: &Path) -> AnyBoard {
    retro::table::Table::open(table).unwrap().header.game
}

/// Percent-encode everything but letters, digits, `,` and `.`, as a careful client does.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b',' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn name_of(table: &Path) -> String {
    table.file_stem().unwrap().to_str().unwrap().to_string()
}

/// `retro query TABLE --batch --json [--pv]` on `input`, one parsed value per line.
fn cli_batch(table: &Path, input: &[u8], pv: bool) -> Vec<Value> {
    let mut args = vec!["query", table.to_str().unwrap(), "--batch", "--json"];
    if pv {
        args.push("--pv");
    }
    // stdin is written from a thread: the answers fill the stdout pipe before the input
    // is all read.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(&args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(&input).unwrap();
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The message `retro query TABLE POSITION` prints after `error: `.
fn cli_error(table: &Path, position: &str) -> String {
    let out = retro(&["query", table.to_str().unwrap(), position, "--json"], "");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    err.trim_end().strip_prefix("error: ").unwrap().to_string()
}

#[test]
fn every_position_answers_as_query_json_pv() {
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    let server = Server::start(&tables, &["--quiet"]);
    for table in &tables {
        let name = name_of(table);
        let positions = common::all_positions(&spec_of(table));
        let expected = cli_batch(table, (positions.join("\n") + "\n").as_bytes(), true);
        assert_eq!(expected.len(), positions.len());
        for (position, mut want) in positions.iter().zip(expected) {
            want.as_object_mut().unwrap().remove("line");
            let reply = get(&server.addr, &format!("/api/{name}/{}", encode(position)));
            assert_eq!(reply.status, 200, "{position}");
            assert_eq!(reply.header("content-type"), Some("application/json"));
            assert_eq!(reply.json(), want, "{name} {position}");
        }
    }
    // The single-position command agrees too, and twins' slashes may go unencoded.
    let twins = &tables[1];
    let out = retro(
        &[
            "query",
            twins.to_str().unwrap(),
            "ox./.o./x..",
            "--json",
            "--pv",
        ],
        "",
    );
    let want: Value = serde_json::from_slice(&out.stdout).unwrap();
    let reply = get(&server.addr, "/api/twins-sample1/ox./.o./x..");
    assert_eq!(reply.json(), want);
    assert_eq!(want["value"], 10);
}

/// `/api/tables` names a table's board and root with `info --json`'s keys, each in its
/// meaning: `board` as `info --json` writes it, and for a game with results the root's
/// code as `root_code` (with its result and remoteness), never as `root_value`; a table
/// without a start gives those of the position it opens on, as `info --json` does.
#[test]
fn tables_name_the_board_and_root_as_info_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut tables = Vec::new();
    for (game, board, name) in [
        ("quixo", "3x3", "q3"),
        ("mnk", "3x3", "ttt"),
        ("morris", "six stones=3 moving", "m"),
    ] {
        let path = dir.path().join(format!("{name}.retro"));
        common::ok(&retro(
            &["build", game, board, "-q", "-o", path.to_str().unwrap()],
            "",
        ));
        tables.push(path);
    }
    tables.extend(sample_tables(dir.path()));
    let server = Server::start(&tables, &["--quiet"]);
    let list = get(&server.addr, "/api/tables").json();
    for path in &tables {
        let name = name_of(path);
        let listed = list
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name.as_str())
            .unwrap();
        let info: Value = serde_json::from_str(&common::ok(&retro(
            &["info", path.to_str().unwrap(), "--json"],
            "",
        )))
        .unwrap();
        for key in [
            "game",
            "board",
            "root_value",
            "root_code",
            "root_result",
            "root_remoteness",
            "root_position",
        ] {
            assert_eq!(listed.get(key), info.get(key), "{name} {key}: {listed}");
        }
        assert!(listed.get("label").is_none(), "{listed}");
    }
    let q3 = list
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "q3")
        .unwrap();
    assert_eq!(q3["root_code"], 8, "{q3}");
    assert_eq!(q3["root_result"], "win", "{q3}");
    assert_eq!(q3["root_remoteness"], 7, "{q3}");
    assert!(q3.get("root_value").is_none(), "{q3}");
    assert_eq!(q3["board_words"], "3 x 3", "{q3}");
}

#[test]
fn tables_lists_every_table() {
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    let server = Server::start(&tables, &["--quiet"]);
    let reply = get(&server.addr, "/api/tables");
    assert_eq!(reply.status, 200);
    let list = reply.json();
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 2);
    let by_name = |n: &str| list.iter().find(|t| t["name"] == n).unwrap().clone();
    let young = by_name("young-sample");
    assert_eq!(young["game"], "young");
    assert_eq!(young["board"], "2x3");
    assert_eq!(young["board_words"], "2 x 3");
    assert_eq!(young["positions"], 10);
    assert_eq!(young["value_type"], "i8");
    assert_eq!(young["root_value"], 2);
    let twins = by_name("twins-sample1");
    assert_eq!(twins["game"], "twins");
    assert_eq!(twins["board"], "3x3");
    assert_eq!(twins["board_words"], "3 x 3");
    assert_eq!(twins["root_value"], 15);
    // The board's own fields, as the table header stores them.
    assert_eq!(
        twins["spec"]["vert"],
        serde_json::json!([0, 15, 0, 0, 0, 25])
    );
    assert_eq!(
        twins["spec"]["horiz"],
        serde_json::json!([20, 10, 0, 0, 25, 0])
    );
    assert_eq!(young["spec"]["a"], serde_json::json!([2, 7, 3, 9, 1, 2]));
}

#[test]
fn batch_answers_as_query_batch_json() {
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    let server = Server::start(&tables, &["--quiet"]);
    for table in &tables {
        let name = name_of(table);
        let mut positions = common::all_positions(&spec_of(table));
        // Bad lines answer in place, and the lines after them still answer.
        positions.extend([
            "zz".to_string(),
            String::new(),
            "o../.../...".to_string(),
            "1,0".to_string(),
            "x".repeat(70_000),
            "empty\r".to_string(),
        ]);
        let body = positions.join("\n");
        // The API skips blank lines, where `query --batch` answers each with an error.
        let want: Vec<Value> = cli_batch(table, body.as_bytes(), false)
            .into_iter()
            .zip(&positions)
            .filter(|(_, p)| !p.trim().is_empty())
            .map(|(w, _)| w)
            .collect();
        let reply = request(
            &server.addr,
            "POST",
            &format!("/api/{name}/batch"),
            body.as_bytes(),
        );
        assert_eq!(reply.status, 200);
        assert_eq!(reply.header("content-type"), Some("application/x-ndjson"));
        let got: Vec<Value> = reply
            .text()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(got.len(), positions.len() - 1);
        assert_eq!(got, want, "{name}");
    }
    // A line that is not UTF-8 gets the batch command's message.
    let reply = request(
        &server.addr,
        "POST",
        "/api/young-sample/batch",
        b"1,0\n\xff\n",
    );
    let lines: Vec<Value> = reply
        .text()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[1]["error"], "byte 1 is not UTF-8 text");
    assert_eq!(lines[1]["line"], 2);
    // An empty body is an empty answer.
    let reply = request(&server.addr, "POST", "/api/young-sample/batch", b"");
    assert_eq!((reply.status, reply.body.len()), (200, 0));
}

fn assert_error(reply: &server::Reply, status: u16, message: &str) {
    assert_eq!(
        reply.status,
        status,
        "{:?}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let error = reply.json()["error"].as_str().unwrap().to_string();
    assert!(error.contains(message), "{error:?} lacks {message:?}");
}

#[test]
fn errors_have_their_status_and_the_cli_message() {
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    let (young, twins) = (&tables[0], &tables[1]);
    let server = Server::start(&tables, &["--quiet"]);
    let a = server.addr.as_str();
    assert_error(&get(a, "/api/nope/empty"), 404, "no table named \"nope\"");
    assert_error(
        &request(a, "POST", "/api/nope/batch", b"0,0\n"),
        404,
        "no table named",
    );
    assert_error(&get(a, "/api/%FF/empty"), 400, "not UTF-8");
    // Bad positions, including the other game's: exactly the command line's message.
    for (table, name, position) in [
        (young, "young-sample", "1,7"),
        (young, "young-sample", "o../.../..."),
        (twins, "twins-sample1", "oo./.../..."),
    ] {
        let reply = get(a, &format!("/api/{name}/{}", encode(position)));
        assert_error(&reply, 400, &cli_error(table, position));
    }
    // A twins cell given for a position: the command line points to its own commands for
    // moves; the server says what the text is not.
    let reply = get(a, "/api/twins-sample1/1,0");
    assert_error(
        &reply,
        400,
        "this is a twins table; \"1,0\" looks like a young position",
    );
    assert!(cli_error(twins, "1,0").contains("looks like a move"));
    assert_error(
        &get(a, "/api/young-sample/%zz"),
        400,
        "bad percent-encoding",
    );
    assert_error(
        &get(a, "/api/young-sample/1%2"),
        400,
        "bad percent-encoding",
    );
    assert_error(
        &get(a, "/api/young-sample/%FF%FE"),
        400,
        "byte 1 is not UTF-8 text",
    );
    let long = "1,".repeat(2000);
    assert_error(
        &get(a, &format!("/api/young-sample/{long}")),
        400,
        "bad young position",
    );
    assert_error(&get(a, "/api/"), 404, "no such page");
    // A table's name alone answers its empty board; an unknown name is still a 404.
    assert_eq!(get(a, "/api/young-sample").json()["position"], "0,0");
    assert_error(&get(a, "/api/nope"), 404, "no table named \"nope\"");
    let big = vec![b'0'; server_body_limit() + 1];
    assert_error(
        &request(a, "POST", "/api/young-sample/batch", &big),
        413,
        "at most",
    );
    assert_eq!(request(a, "POST", "/api/tables", b"").status, 405);
    assert_eq!(
        request(a, "DELETE", "/api/young-sample/empty", b"").status,
        405
    );
    // The server still answers.
    assert_eq!(get(a, "/api/young-sample/1,0").json()["value"], 0);
}

/// The batch body limit the server documents: 1 MiB.
fn server_body_limit() -> usize {
    1 << 20
}

#[test]
fn hostile_requests_get_4xx_and_the_server_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    let server = Server::start(&tables, &["--quiet"]);
    let a = server.addr.as_str();
    let huge_path = format!("/api/young-sample/{}", "1".repeat(200_000));
    let hostile: Vec<Vec<u8>> = vec![
        b"GET /api/young-sample/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        format!("GET {huge_path} HTTP/1.1\r\nHost: x\r\n\r\n").into_bytes(),
        b"NOT HTTP AT ALL\r\n\r\n".to_vec(),
        b"GET /api/young-sample/empty HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n".to_vec(),
        format!("GET / HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n", "a".repeat(1 << 20)).into_bytes(),
        // A body that says it is 10 GB: refused from the header, not read.
        b"POST /api/young-sample/batch HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000000\r\n\r\n0,0\n"
            .to_vec(),
        // A chunked body that grows past the limit.
        {
            let mut r = b"POST /api/young-sample/batch HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
            for _ in 0..20 {
                r.extend_from_slice(format!("10000\r\n{}\r\n", "0".repeat(0x10000)).as_bytes());
            }
            r.extend_from_slice(b"0\r\n\r\n");
            r
        },
    ];
    for req in &hostile {
        let reply = raw(a, req);
        assert!(
            (400..500).contains(&reply.status),
            "{} for {:?}",
            reply.status,
            String::from_utf8_lossy(&req[..req.len().min(60)])
        );
        assert_eq!(get(a, "/api/young-sample/empty").json()["value"], 2);
    }
}

#[test]
fn pages_and_assets() {
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    let server = Server::start(&tables, &["--quiet"]);
    let a = server.addr.as_str();
    for path in ["/", "/young-sample", "/twins-sample1?position=ox./.o./x.."] {
        let reply = get(a, path);
        assert_eq!(reply.status, 200, "{path}");
        assert_eq!(
            reply.header("content-type"),
            Some("text/html; charset=utf-8")
        );
        assert!(reply.text().contains("/assets/explorer.js"));
    }
    let js = get(a, "/assets/explorer.js");
    assert_eq!(
        (js.status, js.header("content-type")),
        (200, Some("text/javascript"))
    );
    let css = get(a, "/assets/explorer.css");
    assert_eq!(
        (css.status, css.header("content-type")),
        (200, Some("text/css"))
    );
    assert_eq!(get(a, "/nope").status, 404);
    assert_eq!(get(a, "/assets/nope.js").status, 404);
}

/// A copy of the young sample's table in `dir/other`, a table of the same file stem.
fn copy_of_young_sample(dir: &Path, table: &Path) -> PathBuf {
    let other = dir.join("other");
    std::fs::create_dir(&other).unwrap();
    let copy = other.join("young-sample.retro");
    std::fs::copy(table, &copy).unwrap();
    copy
}

#[test]
fn start_up_errors() {
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    let copy = copy_of_young_sample(dir.path(), &tables[0]);
    let out = retro(
        &[
            "serve",
            tables[0].to_str().unwrap(),
            copy.to_str().unwrap(),
            "--addr",
            "127.0.0.1:0",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: ") && err.contains("would both be served as \"young-sample\""),
        "{err}"
    );
    // It says how to serve both: under a name of one's own.
    assert!(err.contains("NAME=PATH"), "{err}");
    assert_eq!(err.lines().count(), 1);

    let missing = dir.path().join("missing.retro");
    let out = retro(
        &["serve", missing.to_str().unwrap(), "--addr", "127.0.0.1:0"],
        "",
    );
    assert_eq!(out.status.code(), Some(1));

    // A table whose values were changed is refused, as `info` refuses it.
    let bad = dir.path().join("bad.retro");
    let mut bytes = std::fs::read(&tables[1]).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    std::fs::write(&bad, bytes).unwrap();
    let out = retro(
        &["serve", bad.to_str().unwrap(), "--addr", "127.0.0.1:0"],
        "",
    );
    assert_ne!(out.status.code(), Some(0));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .starts_with("error: ")
    );
}

#[test]
fn open_prints_the_url_log_lines_and_ctrl_c_stops() {
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    // The browser --open starts is $BROWSER: here a script that writes down its URL.
    let opened = dir.path().join("opened");
    let browser = dir.path().join("browser.sh");
    std::fs::write(
        &browser,
        format!("#!/bin/sh\necho \"$1\" > {}\n", opened.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut server = Server::start_with(
        &tables,
        &["--open"],
        &[("BROWSER", browser.to_str().unwrap())],
    );
    let mut url = String::new();
    use std::io::BufRead;
    std::io::BufReader::new(server.child.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    assert_eq!(url.trim_end(), server.url("/"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::fs::read_to_string(&opened).unwrap_or_default() != url {
        assert!(
            std::time::Instant::now() < deadline,
            "the browser was not started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Without a position the API answers the empty board.
    let empty = get(&server.addr, "/api/young-sample");
    assert_eq!(empty.status, 200);
    assert_eq!(empty.json()["position"], "0,0");
    assert_eq!(get(&server.addr, "/api/young-sample/1,0").status, 200);
    assert_eq!(get(&server.addr, "/api/nope/1,0").status, 404);
    let (status, log) = server.interrupt();
    assert!(status.success(), "{status:?}");
    assert!(log.contains(" GET /api/young-sample/1,0 200 "), "{log}");
    assert!(log.contains(" GET /api/nope/1,0 404 "), "{log}");
    assert!(log.ends_with("stopped\n"), "{log}");
}

/// Build young 10 x 10 (184,756 positions, 744 KB: many pages) into `dir`.
fn young_10x10(dir: &Path) -> PathBuf {
    let table = dir.join("young-10x10.retro");
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("tables/young-10x10.txt");
    let out = retro(
        &[
            "build",
            "young",
            input.to_str().unwrap(),
            "-o",
            table.to_str().unwrap(),
            "--quiet",
        ],
        "",
    );
    assert!(out.status.success(), "{out:?}");
    table
}

fn lines_of(reply: &server::Reply) -> Vec<Value> {
    reply
        .text()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_batch_answer_stays_proportionate_to_its_body() {
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    let server = Server::start(&tables, &["--quiet"]);
    let a = server.addr.as_str();
    // Blank lines are skipped; the answers keep the input's line numbers.
    let reply = request(a, "POST", "/api/young-sample/batch", b"1,0\n\n\r\n1,1\n\n");
    let lines = lines_of(&reply);
    assert_eq!(lines.len(), 2, "{}", reply.text());
    assert_eq!(
        (lines[0]["line"].clone(), lines[1]["line"].clone()),
        (1.into(), 4.into())
    );
    assert_eq!(lines[1]["value"], 5);
    // A whole body of blank lines: nothing to answer.
    let blank = vec![b'\n'; server_body_limit()];
    let reply = request(a, "POST", "/api/young-sample/batch", &blank);
    assert_eq!((reply.status, reply.body.len()), (200, 0));
    // A body of lines that are not positions: the batch stops after 1,000 of them, with
    // a last line that says so; the answer is smaller than the body.
    let bad = b"x\n".repeat(server_body_limit() / 2);
    let reply = request(a, "POST", "/api/young-sample/batch", &bad);
    assert_eq!(reply.status, 200);
    assert!(reply.body.len() < bad.len(), "{} bytes", reply.body.len());
    let lines = lines_of(&reply);
    assert_eq!(lines.len(), 1001);
    assert_eq!(lines[999]["line"], 1000);
    assert!(
        lines[999]["error"]
            .as_str()
            .unwrap()
            .contains("bad young position")
    );
    let last = lines[1000]["error"].as_str().unwrap();
    assert!(
        last.contains("1000 lines") && last.contains("not positions"),
        "{last}"
    );
    // Positions among a few bad lines all answer.
    let mut body = b"x\n".repeat(999);
    body.extend_from_slice(b"1,0\n");
    let lines = lines_of(&request(a, "POST", "/api/young-sample/batch", &body));
    assert_eq!(lines.len(), 1000);
    assert_eq!(
        (lines[999]["line"].clone(), lines[999]["value"].clone()),
        (1000.into(), 0.into())
    );
}

#[test]
fn every_error_answer_is_json() {
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    let server = Server::start(&tables, &["--quiet"]);
    let a = server.addr.as_str();
    let huge_path = format!("/api/young-sample/{}", "1".repeat(200_000));
    let cases: Vec<(Vec<u8>, u16, &str)> = vec![
        (
            b"POST /api/tables HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".to_vec(),
            405,
            "POST",
        ),
        (
            b"DELETE /api/young-sample/empty HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec(),
            405,
            "DELETE",
        ),
        (
            b"GET /api/young-sample/batch HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec(),
            405,
            "GET",
        ),
        (
            b"PUT / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".to_vec(),
            405,
            "PUT",
        ),
        (b"NOT HTTP AT ALL\r\n\r\n".to_vec(), 400, "HTTP"),
        (
            b"GET /api/young-sample/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
            400,
            "HTTP",
        ),
        (
            b"GET /api/young-sample/empty HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n"
                .to_vec(),
            400,
            "HTTP",
        ),
        (
            format!("GET {huge_path} HTTP/1.1\r\nHost: x\r\n\r\n").into_bytes(),
            431,
            "too large",
        ),
        (
            format!(
                "GET / HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
                "a".repeat(1 << 20)
            )
            .into_bytes(),
            431,
            "too large",
        ),
        (
            b"GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec(),
            404,
            "no such page",
        ),
        (
            b"GET /nope-table HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec(),
            404,
            "no such page",
        ),
        (
            b"GET /assets/nope.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec(),
            404,
            "no such page",
        ),
    ];
    for (req, status, message) in &cases {
        let reply = raw(a, req);
        let what = String::from_utf8_lossy(&req[..req.len().min(40)]).to_string();
        assert_eq!(reply.status, *status, "{what}");
        assert_eq!(
            reply.header("content-type"),
            Some("application/json"),
            "{what}"
        );
        let error = reply.json()["error"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            error.contains(message),
            "{what}: {error:?} lacks {message:?}"
        );
        assert_eq!(get(a, "/api/young-sample/empty").json()["value"], 2);
    }
}

/// A request's head has one limit, in bytes, and the 431 names it: many small headers
/// within it are read (hyper's own limit of 100 headers refused 10 KB of them), one
/// large header past it is refused (hyper's own buffer let 420 KB through).
#[test]
fn a_request_head_has_one_limit_and_the_431_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    let server = Server::start(&tables, &["--quiet"]);
    let a = server.addr.as_str();
    let head = |headers: &str| {
        format!(
            "GET /api/young-sample/empty HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{headers}\r\n"
        )
        .into_bytes()
    };
    // 400 headers of 30 bytes: 12 KB.
    let many: String = (0..400)
        .map(|i| format!("X-Small-{i:04}: {:>12}\r\n", i))
        .collect();
    assert!(many.len() > 10_000 && many.len() < 16_000);
    let reply = raw(a, &head(&many));
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_eq!(reply.json()["value"], 2);
    for big in [20_000, 420_000] {
        let one = format!("X-Big: {}\r\n", "a".repeat(big));
        let reply = raw(a, &head(&one));
        assert_eq!(reply.status, 431, "{big}");
        let error = reply.json()["error"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(error.contains("at most 16384 bytes"), "{error}");
    }
    assert_eq!(get(a, "/api/young-sample/empty").json()["value"], 2);
}

/// A table whose name is a path of the API's own (`tables.retro` would be `/api/tables`,
/// the list) is refused at start, naming the clash.
#[test]
fn a_table_named_like_the_list_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    let clash = dir.path().join("tables.retro");
    std::fs::copy(&tables[0], &clash).unwrap();
    // An address no interface has (TEST-NET-1): a server that took the table would stop
    // at binding it rather than serve, so the test ends either way.
    let out = retro(
        &["serve", clash.to_str().unwrap(), "--addr", "192.0.2.1:9"],
        "",
    );
    let err = common::fails(&out, 2, "/api/tables");
    assert!(err.contains("NAME=PATH"), "{err}");
}

/// `NAME=PATH` serves a table under NAME: two tables of one file stem both serve, each
/// under its own name, and a name that cannot be one is refused in one line.
#[test]
fn name_equals_path_serves_a_table_under_that_name() {
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    let copy = copy_of_young_sample(dir.path(), &tables[0]);
    let named = |name: &str, path: &Path| PathBuf::from(format!("{name}={}", path.display()));
    let server = Server::start(
        &[
            tables[0].clone(),
            named("copy", &copy),
            named("tables2", &tables[1]),
        ],
        &["--quiet"],
    );
    let list = get(&server.addr, "/api/tables").json();
    let mut names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["copy", "tables2", "young-sample"]);
    let (first, copied) = (
        get(&server.addr, "/api/young-sample/1,0"),
        get(&server.addr, "/api/copy/1,0"),
    );
    assert_eq!((first.status, copied.status), (200, 200));
    assert_eq!(first.json(), copied.json());
    assert_eq!(get(&server.addr, "/copy").status, 200);
    drop(server);
    // The list's own name is refused given as NAME too; an empty NAME or one with a `/`
    // names no table.
    let t = tables[0].to_str().unwrap();
    for (arg, needle) in [
        (format!("tables={t}"), "/api/tables"),
        (format!("={t}"), "NAME=PATH"),
        (format!("a/b={t}"), "NAME=PATH"),
    ] {
        let out = retro(&["serve", &arg, "--addr", "192.0.2.1:9"], "");
        common::fails(&out, 2, needle);
    }
}

/// Write `from`'s bytes over `to` in place, as `cp from to` does: the same file, cut to
/// nothing, then written.
fn write_over(from: &Path, to: &Path) {
    use std::io::Write;
    let bytes = std::fs::read(from).unwrap();
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(to)
        .unwrap();
    file.write_all(&bytes).unwrap();
    file.sync_all().unwrap();
}

#[test]
fn a_table_written_over_in_place_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    let big = young_10x10(dir.path());
    let replaced = dir.path().join("replaced.retro");
    std::fs::copy(&big, &replaced).unwrap();
    let renamed = dir.path().join("renamed.retro");
    std::fs::copy(&tables[0], &renamed).unwrap();
    let served = [replaced.clone(), renamed.clone(), tables[1].clone()];
    let server = Server::start(&served, &["--quiet"]);
    let a = server.addr.as_str();
    // A position deep in the table: its page is past the end of the smaller file.
    let deep = "10,10,10,10,10,10,10,10,9";
    let want = cli_batch(&big, format!("{deep}\n1,0\n").as_bytes(), false);
    let before = get(a, &format!("/api/replaced/{deep}"));
    assert_eq!(before.json()["value"], want[0]["value"]);

    // Replaced by a rename: serve keeps the old file and its answers.
    let fresh = dir.path().join("fresh.retro");
    std::fs::copy(&tables[1], &fresh).unwrap();
    std::fs::rename(&fresh, &renamed).unwrap();

    // Written over in place: that table's answers are errors from now on.
    write_over(&tables[0], &replaced);
    for path in [
        format!("/api/replaced/{deep}"),
        "/api/replaced/1,0".to_string(),
    ] {
        let reply = get(a, &path);
        assert!(
            !(200..300).contains(&reply.status),
            "{path}: {}",
            reply.status
        );
        assert_eq!(reply.header("content-type"), Some("application/json"));
        let error = reply.json()["error"].as_str().unwrap().to_string();
        assert!(
            error.starts_with("replaced: ")
                && error.contains("changed on disk")
                && error.contains("restart"),
            "{error}"
        );
    }
    let reply = request(
        a,
        "POST",
        "/api/replaced/batch",
        format!("{deep}\n1,0\n").as_bytes(),
    );
    let error = if (200..300).contains(&reply.status) {
        // A batch that started may end with an error line instead of its answers.
        let lines = lines_of(&reply);
        assert!(
            lines.iter().all(|l| l.get("value").is_none()),
            "{}",
            reply.text()
        );
        lines.last().unwrap()["error"].as_str().unwrap().to_string()
    } else {
        assert_eq!(reply.header("content-type"), Some("application/json"));
        reply.json()["error"].as_str().unwrap().to_string()
    };
    assert!(error.contains("changed on disk"), "{error}");

    // The other tables answer as before, the renamed one from its old file.
    let reply = get(a, "/api/renamed/1,0");
    assert_eq!(reply.json()["value"], 0, "{}", reply.text());
    assert_eq!(get(a, "/api/twins-sample1/ox./.o./x..").json()["value"], 10);
    let lines = lines_of(&request(a, "POST", "/api/renamed/batch", b"1,0\n1,1\n"));
    assert_eq!(
        (lines[0]["value"].clone(), lines[1]["value"].clone()),
        (0.into(), 5.into())
    );
    let mut server = server;
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "the server died"
    );
}

/// A change of a served table's metadata alone (`chmod`, a hard link made and removed, as
/// backup tools do) is no rewrite: the table answers as before. Bytes written over in place
/// with the size and modification time put back (`cp -p`) are still a change.
#[test]
fn a_table_whose_metadata_changes_answers_as_before() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    let server = Server::start(&tables, &["--quiet"]);
    let a = server.addr.as_str();
    assert_eq!(get(a, "/api/young-sample/1,0").json()["value"], 0);
    std::fs::set_permissions(&tables[0], std::fs::Permissions::from_mode(0o600)).unwrap();
    let reply = get(a, "/api/young-sample/1,0");
    assert_eq!(reply.status, 200, "after chmod: {}", reply.text());
    let snap = dir.path().join("snap");
    std::fs::hard_link(&tables[0], &snap).unwrap();
    std::fs::remove_file(&snap).unwrap();
    let reply = get(a, "/api/young-sample/1,0");
    assert_eq!(reply.status, 200, "after a link: {}", reply.text());
    let lines = lines_of(&request(
        a,
        "POST",
        "/api/young-sample/batch",
        b"1,0\n1,1\n",
    ));
    assert_eq!(
        (lines[0]["value"].clone(), lines[1]["value"].clone()),
        (0.into(), 5.into())
    );

    // Other bytes of the same size, the modification time put back: a change.
    let mtime = std::fs::metadata(&tables[0]).unwrap().modified().unwrap();
    let mut bytes = std::fs::read(&tables[0]).unwrap();
    bytes[16] ^= 1;
    let scratch = dir.path().join("other");
    std::fs::write(&scratch, &bytes).unwrap();
    write_over(&scratch, &tables[0]);
    let file = std::fs::File::options()
        .write(true)
        .open(&tables[0])
        .unwrap();
    file.set_modified(mtime).unwrap();
    drop(file);
    assert_eq!(
        std::fs::metadata(&tables[0]).unwrap().modified().unwrap(),
        mtime
    );
    let reply = get(a, "/api/young-sample/1,0");
    let error = reply.json()["error"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        error.contains("changed on disk"),
        "{}: {}",
        reply.status,
        reply.text()
    );
}

/// A batch body the server cannot read (a chunk size that is no number, a chunk extension
/// with a bare line end in its quotes) is a 400 that says why, not a 413 about its size.
#[test]
fn a_batch_body_that_cannot_be_read_is_a_400_with_its_cause() {
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    let server = Server::start(&tables, &["--quiet"]);
    let a = server.addr.as_str();
    let head = "POST /api/young-sample/batch HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n";
    for body in [
        "zz\r\n1,0\r\n0\r\n\r\n",
        "4;a=\"x\r\ny\"\r\n1,0\n\r\n0\r\n\r\n",
    ] {
        let reply = raw(a, format!("{head}{body}").as_bytes());
        assert_error(&reply, 400, "the batch's body could not be read: ");
        assert!(
            !reply.text().contains("at most"),
            "{body:?}: {}",
            reply.text()
        );
    }
    // A well-formed chunked body is answered.
    let reply = raw(a, format!("{head}4\r\n1,0\n\r\n0\r\n\r\n").as_bytes());
    assert_eq!(lines_of(&reply)[0]["value"], 0, "{}", reply.text());
}

mod browser {
    //! The explorer in headless Chromium through chromedriver (WebDriver).

    use super::browser_support::{self as browser_support, connect, screenshot, start_driver};
    use super::*;
    use fantoccini::{Client, Locator};
    use std::time::{Duration, Instant};

    async fn text(c: &Client, id: &str) -> String {
        match c.find(Locator::Id(id)).await {
            Ok(e) => e.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        }
    }

    /// Wait until element `id` shows `want` (the page fetches asynchronously).
    async fn wait_text(c: &Client, id: &str, want: &str) {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let got = text(c, id).await;
            if got == want {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "#{id} shows {got:?}, not {want:?}"
            );
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }

    async fn wait_url(c: &Client, want: &str) {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let got = c.current_url().await.unwrap().to_string();
            if got == want {
                return;
            }
            assert!(Instant::now() < deadline, "URL {got:?}, not {want:?}");
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }

    /// Click the element once the page's script has drawn it (on a loaded machine that
    /// can take a while after the page itself has loaded).
    async fn click(c: &Client, css: &str) {
        c.wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css(css))
            .await
            .expect(css)
            .click()
            .await
            .expect(css);
    }

    #[test]
    fn explorer_in_chromium() {
        if !browser_support::available() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let mut tables = sample_tables(dir.path());
        let morris = dir.path().join("morris-six3.retro");
        let built = crate::common::retro(
            &[
                "build",
                "morris",
                "six stones=3",
                "-o",
                morris.to_str().unwrap(),
                "-q",
            ],
            "",
        );
        assert!(built.status.success(), "{built:?}");
        tables.push(morris);
        let moving = dir.path().join("morris-six3-moving.retro");
        crate::common::ok(&crate::common::retro(
            &[
                "build",
                "morris",
                "six stones=3 moving",
                "-o",
                moving.to_str().unwrap(),
                "-q",
            ],
            "",
        ));
        tables.push(moving);
        let nine = dir.path().join("morris-nine3.retro");
        crate::common::ok(&crate::common::retro(
            &[
                "build",
                "morris",
                "nine stones=3",
                "-o",
                nine.to_str().unwrap(),
                "-q",
            ],
            "",
        ));
        tables.push(nine);
        let server = Server::start(&tables, &["--quiet"]);
        let (_driver, port) = start_driver();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let c = connect(port, &dir.path().join("profile")).await;
            let result = explore(&c, &server).await;
            let _ = c.close().await;
            result
        });
    }

    async fn explore(c: &Client, server: &Server) {
        // The list of tables links to each explorer.
        c.goto(&server.url("/")).await.unwrap();
        click(c, "a[href='/young-sample']").await;
        wait_url(c, &server.url("/young-sample")).await;

        // Young: the empty board, then a line of moves by list and by board.
        wait_text(c, "value", "first leads by 2").await;
        wait_text(c, "to-move", "first to move").await;
        click(c, "#moves button[data-cell='1,1']").await;
        wait_url(c, &server.url("/young-sample?position=1,0")).await;
        wait_text(c, "value", "level: neither leads").await;
        wait_text(c, "to-move", "second to move").await;
        let best = c.find(Locator::Css("#moves li.best button")).await.unwrap();
        assert_eq!(
            best.attr("data-cell").await.unwrap().as_deref(),
            Some("1,2")
        );
        let moves = c.find_all(Locator::Css("#moves button")).await.unwrap();
        assert_eq!(moves.len(), 2);
        screenshot(c, "explorer-young.png").await;
        click(c, "rect[data-cell='2,1']").await;
        wait_url(c, &server.url("/young-sample?position=1,1")).await;
        wait_text(c, "value", "first leads by 5").await;

        // Back returns to the position before, with its values.
        c.back().await.unwrap();
        wait_url(c, &server.url("/young-sample?position=1,0")).await;
        wait_text(c, "value", "level: neither leads").await;

        // The best line plays to the full board, one move at a time.
        click(c, "#play-pv").await;
        wait_url(c, &server.url("/young-sample?position=3,3")).await;
        wait_text(c, "to-move", "game over: the board is full").await;
        c.back().await.unwrap();
        wait_url(c, &server.url("/young-sample?position=3,2")).await;

        // Twins, opened at a shared position.
        c.goto(&server.url("/twins-sample1?position=ox./.o./x.."))
            .await
            .unwrap();
        wait_text(c, "value", "first finishes with 10 of 95").await;
        wait_text(c, "to-move", "first to move (o)").await;
        screenshot(c, "explorer-twins.png").await;
        click(c, "rect[data-cell='2,1']").await;
        wait_url(c, &server.url("/twins-sample1?position=ox./oo./x..")).await;
        wait_text(c, "to-move", "second to move (x)").await;
        wait_text(c, "value", "first finishes with 10 of 95").await;
        click(c, "#play-pv").await;
        wait_url(c, &server.url("/twins-sample1?position=oxx/ooo/xox")).await;
        wait_text(c, "to-move", "game over: the board is full").await;
        wait_text(c, "value", "first finishes with 10 of 95").await;

        // Morris: the board's points and lines; a placement that closes a mill is two
        // clicks (where the stone goes, then the stone it removes), a slide that closes one
        // three (the stone, where it goes, the stone removed).
        c.goto(&server.url("/morris-six3?position=xx./o.o/..../.../...%201%201%20x"))
            .await
            .unwrap();
        wait_text(c, "to-move", "first to move (x); in hand x 1, o 1").await;
        let points = c.find_all(Locator::Css("circle.point")).await.unwrap();
        assert_eq!(points.len(), 16);
        let links = c.find_all(Locator::Css("line.link")).await.unwrap();
        assert_eq!(links.len(), 20);
        screenshot(c, "explorer-morris.png").await;
        let legend = text(c, "legend").await;
        assert_eq!(
            legend,
            "A move that closes a mill takes one of the other side's stones: click the point it goes to, then the stone it takes."
        );
        click(c, "circle[data-point='e5']").await;
        // The page says the move closes a mill and which stones it may take.
        let deadline = Instant::now() + Duration::from_secs(15);
        let want = "first to move (x); in hand x 1, o 1: to e5 closes a mill, so it takes one of the other side's stones: click one of ";
        loop {
            let said = text(c, "to-move").await;
            if let Some(takes) = said.strip_prefix(want) {
                let mut takes: Vec<&str> = takes.split(", ").collect();
                takes.sort_unstable();
                assert_eq!(takes, ["b4", "d4"], "{said}");
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{said:?} does not name the takes"
            );
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        click(c, "circle[data-point='b4']").await;
        wait_url(
            c,
            &server.url("/morris-six3?position=xxx/..o/..../.../...%200%201%20o"),
        )
        .await;
        c.goto(&server.url("/morris-six3?position=x.x/.x./..o./.../oo.%200%200%20x"))
            .await
            .unwrap();
        wait_text(c, "to-move", "first to move (x); in hand x 0, o 0").await;
        click(c, "circle[data-point='c4']").await;
        wait_text(
            c,
            "to-move",
            "first to move (x); in hand x 0, o 0: from c4, click where it goes",
        )
        .await;
        click(c, "circle[data-point='c5']").await;
        click(c, "circle[data-point='d3']").await;
        wait_url(
            c,
            &server.url("/morris-six3?position=xxx/.../..../.../oo.%200%200%20o"),
        )
        .await;

        // A drawn line goes round: played out, the page says where it came back.
        c.goto(&server.url("/morris-six3?position=start"))
            .await
            .unwrap();
        wait_text(c, "to-move", "first to move (x); in hand x 3, o 3").await;
        let line = get_eventually(&server.addr, "/api/morris-six3/start");
        let note = line["pv"].as_array().unwrap().last().unwrap()["note"]
            .as_str()
            .expect("the start's best line goes round")
            .to_string();
        click(c, "#play-pv").await;
        let want = format!("The best line goes round: {note}.");
        let deadline = Instant::now() + Duration::from_secs(60);
        while text(c, "line-note").await != want {
            assert!(Instant::now() < deadline, "no note on the line: {want}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }

        // A table of the moving phase alone has no start: it opens on a position of its
        // own, says so, and its button goes back there.
        let opening = get_eventually(&server.addr, "/api/morris-six3-moving");
        let position = opening["position"].as_str().unwrap().to_string();
        c.goto(&server.url("/morris-six3-moving")).await.unwrap();
        wait_text(c, "position", &position).await;
        let note = text(c, "opening-note").await;
        assert!(
            note.starts_with("Opening position: the moving phase alone has no start"),
            "{note}"
        );
        assert_eq!(text(c, "error").await, "");
        assert_eq!(text(c, "start").await, "Opening position");
        click(c, "#moves button").await;
        let deadline = Instant::now() + Duration::from_secs(15);
        while text(c, "position").await == position {
            assert!(Instant::now() < deadline, "the move was not played");
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        assert_eq!(text(c, "opening-note").await, "");
        click(c, "#start").await;
        wait_text(c, "position", &position).await;

        // The 24-point board's labels lie inside the drawing, g's descender included.
        c.goto(&server.url("/morris-nine3")).await.unwrap();
        // It opens on the start: 24 empty points, three stones in each hand, x to move.
        wait_text(c, "position", ".../.../.../....../.../.../... 3 3 x").await;
        let deadline = Instant::now() + Duration::from_secs(15);
        let inside = loop {
            let found = c
                .execute(
                    "const svg = document.getElementById('board');
                     const labels = [...svg.querySelectorAll('text')].filter((t) => /^[a-g1-7]$/.test(t.textContent));
                     if (labels.length < 14) return null;
                     const h = svg.height.baseVal.value, w = svg.width.baseVal.value;
                     return labels.every((t) => { const b = t.getBBox();
                       return b.x >= 0 && b.y >= 0 && b.x + b.width <= w && b.y + b.height <= h; });",
                    vec![],
                )
                .await
                .unwrap();
            if let Some(inside) = found.as_bool() {
                break inside;
            }
            assert!(Instant::now() < deadline, "the board was not drawn");
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert!(inside, "a label of the 24-point board is clipped");

        // An unknown position shows the server's message.
        c.goto(&server.url("/twins-sample1?position=zz"))
            .await
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(15);
        while !text(c, "error").await.contains("bad twins position") {
            assert!(Instant::now() < deadline, "no error shown");
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }
}

/// A connection that sends nothing is closed after `--timeout`, kept-alive ones too, and
/// past `--max-connections` a client is told 503 at once instead of waiting for ever.
#[test]
fn idle_connections_are_closed_and_capped() {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    let server = Server::start(
        &tables,
        &["--quiet", "--timeout", "1", "--max-connections", "8"],
    );
    let a = server.addr.as_str();
    let connect = || {
        let s = TcpStream::connect(a).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s
    };
    let mut idle: Vec<TcpStream> = (0..7).map(|_| connect()).collect();
    // One kept alive after an answer.
    let mut kept = connect();
    kept.write_all(b"GET /api/young-sample/1,0 HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut head = [0u8; 12];
    kept.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    // The ninth is refused with a JSON 503.
    let refused = raw(a, b"GET /api/tables HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_eq!(refused.status, 503);
    assert!(
        refused.json()["error"]
            .as_str()
            .unwrap()
            .contains("8 connections open"),
        "{}",
        refused.text()
    );
    // Every idle one is closed by the server (EOF, not the 20 s read timeout).
    for s in idle.iter_mut() {
        let mut rest = Vec::new();
        s.read_to_end(&mut rest).unwrap();
        assert!(rest.is_empty());
    }
    let mut rest = Vec::new();
    kept.read_to_end(&mut rest).unwrap();
    // Then a real client is served again.
    assert_eq!(get(a, "/api/young-sample/1,0").json()["value"], 0);
}

/// Ten batch uploads that declare 1000 bytes and send six: bodies being received hold at
/// most half of `--max-connections`, so a GET still gets through while they stall, and
/// those past that half are refused at once with a JSON 503.
#[test]
fn stalled_uploads_leave_room_for_other_requests() {
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    // A deadline far beyond the test: the room must come from the cap, not from the time.
    let server = Server::start(
        &tables,
        &["--quiet", "--timeout", "60", "--max-connections", "10"],
    );
    let a = server.addr.as_str();
    let stalled = stall_uploads(a, 10);
    assert_eq!(get_eventually(a, "/api/young-sample/1,0")["value"], 0);
    // Five are refused at once; the other five stall until their clients give up. Each
    // is polled briefly in turn, for at most 20 s in all.
    let mut replies: Vec<Option<Vec<u8>>> = vec![None; stalled.len()];
    let start = std::time::Instant::now();
    while replies.iter().flatten().count() < 5 && start.elapsed().as_secs() < 20 {
        for (s, reply) in stalled.iter().zip(replies.iter_mut()) {
            if reply.is_none() {
                *reply = read_whole(s, std::time::Duration::from_millis(100));
            }
        }
    }
    for (s, reply) in stalled.iter().zip(replies.iter_mut()) {
        if reply.is_none() {
            *reply = read_whole(s, std::time::Duration::from_millis(100));
        }
    }
    let refused: Vec<server::Reply> = replies
        .iter()
        .flatten()
        .map(|b| server::parse_reply(b))
        .collect();
    for reply in &refused {
        assert_eq!(reply.status, 503, "{}", reply.text());
        assert!(
            reply.json()["error"]
                .as_str()
                .unwrap()
                .contains("5 batch bodies are being received"),
            "{}",
            reply.text()
        );
    }
    assert_eq!(refused.len(), 5);
}

/// A batch whose body is not whole `--timeout` after its head is answered 408 (JSON) and
/// its connection closed, chunked or not; then a GET is served.
#[test]
fn a_batch_body_that_never_arrives_is_answered_408() {
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    let server = Server::start(
        &tables,
        &["--quiet", "--timeout", "1", "--max-connections", "8"],
    );
    let a = server.addr.as_str();
    let mut stalled = stall_uploads(a, 2);
    let mut chunked = std::net::TcpStream::connect(a).unwrap();
    std::io::Write::write_all(
        &mut chunked,
        b"POST /api/young-sample/batch HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n0,0\n\r\n",
    )
    .unwrap();
    stalled.push(chunked);
    for mut s in stalled {
        // Far longer than the deadline: a connection still open then is a failure.
        s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
            .unwrap();
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut s, &mut bytes).expect("closed by the server");
        let reply = server::parse_reply(&bytes);
        assert_eq!(reply.status, 408, "{}", reply.text());
        assert!(
            reply.json()["error"]
                .as_str()
                .unwrap()
                .contains("did not arrive within 1 s"),
            "{}",
            reply.text()
        );
    }
    assert_eq!(get(a, "/api/young-sample/1,0").json()["value"], 0);
}

/// `n` connections, each with a batch's head declaring 1000 bytes and six of them sent.
fn stall_uploads(addr: &str, n: usize) -> Vec<std::net::TcpStream> {
    (0..n)
        .map(|_| {
            let mut s = std::net::TcpStream::connect(addr).unwrap();
            std::io::Write::write_all(
                &mut s,
                b"POST /api/young-sample/batch HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n0,0\n1,",
            )
            .unwrap();
            s
        })
        .collect()
}

/// Everything the server sent on `s` up to its close, or None if it is still open after
/// `wait` without closing.
fn read_whole(mut s: &std::net::TcpStream, wait: std::time::Duration) -> Option<Vec<u8>> {
    s.set_read_timeout(Some(wait)).unwrap();
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut s, &mut bytes)
        .ok()
        .map(|_| bytes)
}

/// A GET's JSON once it is answered 200; a 503 (a connection past the cap, about to be
/// closed) is retried a bounded number of times.
fn get_eventually(addr: &str, path: &str) -> Value {
    for _ in 0..100 {
        let reply = get(addr, path);
        match reply.status {
            200 => return reply.json(),
            503 => std::thread::sleep(std::time::Duration::from_millis(50)),
            other => panic!("{other}: {}", reply.text()),
        }
    }
    panic!("{path}: 503 after 100 tries");
}

/// A client that posts a large batch and never reads the answer is disconnected once it
/// has taken no bytes for `--timeout`, which ends its batch: with one batch computing at
/// a time (`--threads 1`), the next batch is answered.
#[test]
fn a_batch_answer_nobody_reads_does_not_hold_the_next_batch() {
    let dir = tempfile::tempdir().unwrap();
    let tables = sample_tables(dir.path());
    let server = Server::start(&tables, &["--quiet", "--timeout", "1", "--threads", "1"]);
    let a = server.addr.as_str();
    // About 40 MB of answers: far more than the socket buffers hold.
    let body = "1,0\n".repeat(1 << 18);
    let mut unread = std::net::TcpStream::connect(a).unwrap();
    std::io::Write::write_all(
        &mut unread,
        format!(
            "POST /api/young-sample/batch HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    )
    .unwrap();
    // The first answer's head says that batch is computing before the second is sent.
    let mut head = [0u8; 12];
    std::io::Read::read_exact(&mut unread, &mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    let reply = request(a, "POST", "/api/young-sample/batch", b"1,0\n");
    assert_eq!(reply.status, 200);
    assert_eq!(lines_of(&reply)[0]["value"], 0, "{}", reply.text());
    drop(unread);
}

/// A folded table has entries and the positions they stand for: the table list, `verify
/// --json` and `plan` each say which they count, by name.
#[test]
fn entries_and_positions_are_each_called_by_their_name() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("six3.retro");
    let t = table.to_str().unwrap();
    common::ok(&retro(
        &["build", "morris", "six stones=3", "-q", "-o", t],
        "",
    ));
    let server = Server::start(std::slice::from_ref(&table), &["--quiet"]);
    let list = get(&server.addr, "/api/tables").json();
    // Every position lost for want of stones counted (the lost layer's one entry).
    assert_eq!(list[0]["positions"], 471_497, "{list}");
    assert_eq!(list[0]["entries"], 13_766, "{list}");
    let verify: Value =
        serde_json::from_str(&common::ok(&retro(&["verify", t, "--json"], ""))).unwrap();
    assert_eq!(verify["positions"], 471_497);
    assert_eq!(verify["entries"], 13_766);
    let plan = common::ok(&retro(&["plan", "morris", "six stones=3", "--total"], ""));
    assert!(plan.contains("13766 entries per rank"), "{plan}");
}

/// A table of part of a game without a start (Morris's moving phase alone) opens on a
/// position of its own that play can reach and that is not over, and says so: in
/// `/api/tables` and in the answer `GET /api/TABLE` gives; a table with a start opens on it.
#[test]
fn a_table_without_a_start_opens_on_a_position_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let (moving, whole) = (dir.path().join("m.retro"), dir.path().join("w.retro"));
    for (board, path) in [("six stones=3 moving", &moving), ("six stones=3", &whole)] {
        common::ok(&retro(
            &["build", "morris", board, "-q", "-o", path.to_str().unwrap()],
            "",
        ));
    }
    let server = Server::start(&[moving.clone(), whole.clone()], &["--quiet"]);
    let list = get(&server.addr, "/api/tables").json();
    let (m, w) = (&list[0], &list[1]);
    assert_eq!(m["name"], "m", "{list}");
    let note = m["opening_note"]
        .as_str()
        .expect("a note for the moving table");
    assert!(note.contains("no start"), "{note}");
    assert!(w["opening_note"].is_null(), "{list}");
    let opening = get(&server.addr, "/api/m");
    assert_eq!(
        opening.status,
        200,
        "{:?}",
        String::from_utf8_lossy(&opening.body)
    );
    let answer = opening.json();
    assert_eq!(answer["position"], m["opening"], "{answer}");
    assert_eq!(answer["note"], note, "{answer}");
    assert!(!answer["moves"].as_array().unwrap().is_empty(), "{answer}");
    // The CLI accepts it, and says play reaches it (Morris's check of what a position
    // shows of its history).
    let text = m["opening"].as_str().unwrap();
    let query = common::ok(&retro(&["query", moving.to_str().unwrap(), text], ""));
    assert!(!query.contains("cannot arise"), "{query}");
    let start = get(&server.addr, "/api/w").json();
    assert_eq!(start["position"], w["opening"], "{start}");
    assert!(start.get("note").is_none(), "{start}");
    assert_eq!(start["in_hand"]["x"], 3, "{start}");
}
