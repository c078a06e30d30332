//! Every retro command on a Hex table, through this crate's own binary (`retro-hex`): build,
//! info, query (text, JSON, --pv, --batch), play, export, verify, serve, gen, bench, and
//! the built-in games beside Hex.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Output, Stdio};

fn retro_hex(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro-hex"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("retro-hex runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("retro-hex ends")
}

/// stdout of a run that must succeed.
fn ok(args: &[&str], stdin: &str) -> String {
    let out = retro_hex(args, stdin);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[test]
fn every_command_works_on_a_hex_table() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("hex.retro");
    let t = table.to_str().unwrap();

    let built = ok(&["build", "hex", "3x3", "-o", t, "--quiet"], "");
    assert!(built.contains("6046 positions"), "{built}");
    assert!(
        built.contains("root value 5 (x joins top and bottom at ply 5)"),
        "{built}"
    );

    let info = ok(&["info", t, "--json"], "");
    let info: serde_json::Value = serde_json::from_str(&info).unwrap();
    assert_eq!(info["game"], "hex");

    // The empty board: x wins in 5, by the centre alone.
    let query = ok(&["query", t, "empty", "--json"], "");
    let query: serde_json::Value = serde_json::from_str(&query).unwrap();
    assert_eq!(query["game"], "hex");
    assert_eq!(
        (&query["result"], &query["remoteness"]),
        (&"win".into(), &5.into())
    );
    assert_eq!(query["code"], 5);
    // `best` lists the best moves' texts, as every game's do, and each move has its text.
    assert_eq!(query["best"], serde_json::json!(["2,2"]));
    let moves = query["moves"].as_array().unwrap();
    assert!(moves.iter().all(|m| m["move"].is_string()), "{query}");
    // The position the best move leads to, given as the move from the start.
    let after = ok(&["query", t, "start 2,2", "--json"], "");
    let after: serde_json::Value = serde_json::from_str(&after).unwrap();
    assert_eq!(
        (&after["result"], &after["remoteness"]),
        (&"loss".into(), &4.into())
    );
    let text = ok(&["query", t, "empty", "--pv"], "");
    assert!(text.contains("x to move wins in 5"), "{text}");

    // --batch: one line per position, a bad one in its place.
    let batch = retro_hex(&["query", t, "--batch"], "empty\n.../.x./...\nnonsense\n");
    assert_eq!(batch.status.code(), Some(2), "a bad line exits 2");
    let batch = String::from_utf8_lossy(&batch.stdout);
    let lines: Vec<&str> = batch.lines().collect();
    assert_eq!(lines, ["win in 5", "loss in 4", "error"]);

    // A game against the table: the player (o) resigns after one move.
    let played = retro_hex(&["play", t, "--as", "second"], "1 1\nquit\n");
    let shown = String::from_utf8_lossy(&played.stdout);
    assert!(shown.contains("you play"), "{shown}");

    let csv = dir.path().join("hex.csv");
    ok(
        &["export", t, "--csv", "-o", csv.to_str().unwrap(), "--quiet"],
        "",
    );
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(
        rows.lines().count(),
        6046 + 1,
        "a header and every position"
    );

    let verified = ok(&["verify", t], "");
    assert!(
        verified.contains("6046 positions checked, checksum ok"),
        "{verified}"
    );

    assert_eq!(
        ok(&["solve", "hex", "2x2"], "").trim(),
        "x completes a line at ply 3, x's 2nd stone",
        "x joins at ply 3 of 4 cells: a game won by a line says its root in words"
    );
    assert_eq!(ok(&["gen", "hex", "4x5"], "").trim(), "4x5");
    let bench = ok(
        &[
            "bench",
            "hex",
            "2x2",
            "--threads",
            "1",
            "--repeat",
            "1",
            "--warmup",
            "0",
            "--json",
        ],
        "",
    );
    let bench: serde_json::Value = serde_json::from_str(&bench).unwrap();
    assert_eq!(bench["game"], "hex");

    // The built-in games are still there, and `help games` has Hex's rules.
    assert_eq!(
        ok(&["solve", "mnk", "3x3"], "").trim(),
        "tie with best play"
    );
    // (As terminal text: each page's title underlined.)
    let help = ok(&["help", "games"], "");
    assert!(
        help.contains("\nhex\n===\n") && help.starts_with("The games\n========="),
        "{help}"
    );
}

#[test]
fn serve_answers_hex_positions() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("hex.retro");
    ok(
        &[
            "build",
            "hex",
            "2x3",
            "-o",
            table.to_str().unwrap(),
            "--quiet",
        ],
        "",
    );
    let mut server = Command::new(env!("CARGO_BIN_EXE_retro-hex"))
        .args([
            "serve",
            table.to_str().unwrap(),
            "--addr",
            "127.0.0.1:0",
            "--open",
            "--quiet",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("retro-hex serve");
    let mut url = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    let addr = url
        .trim()
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let get = |path: &str| {
        let mut stream = std::net::TcpStream::connect(&addr).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    };
    let tables = get("/api/tables");
    assert!(
        tables.starts_with("HTTP/1.1 200") && tables.contains("\"game\":\"hex\""),
        "{tables}"
    );
    let position = get("/api/hex/x../...");
    assert!(
        position.starts_with("HTTP/1.1 200") && position.contains("\"stones\":1"),
        "{position}"
    );
    let bad = get("/api/hex/nonsense");
    assert!(
        bad.starts_with("HTTP/1.1 400") && bad.contains("bad hex position"),
        "{bad}"
    );
    server.kill().unwrap();
    server.wait().unwrap();
}

#[test]
fn a_table_of_a_game_the_binary_lacks_is_refused_by_name() {
    // A binary refuses a table of a game it lacks in one line naming it (retro's own
    // binary refuses a Hex table so); here a table of a made-up game, "hez".
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("hex.retro");
    ok(
        &[
            "build",
            "hex",
            "2x2",
            "-o",
            table.to_str().unwrap(),
            "--quiet",
        ],
        "",
    );
    let mut bytes = std::fs::read(&table).unwrap();
    // The header stores the game's name as a length and its bytes; "hex" becomes "hez",
    // and the header checksum (the 8 bytes after the prefix's length) is fixed up so only
    // the name is wrong; the prefix keeps the file's version.
    use retro::table::header::{HEADER_LEN_AT, PREFIX_LEN, VERSION_AT, prefix};
    let start = PREFIX_LEN as usize;
    let version = u32::from_le_bytes(bytes[VERSION_AT..VERSION_AT + 4].try_into().unwrap());
    let len = u32::from_le_bytes(bytes[HEADER_LEN_AT..HEADER_LEN_AT + 4].try_into().unwrap());
    let header = &mut bytes[start..start + len as usize];
    let at = header.windows(3).position(|w| w == b"hex").unwrap();
    header[at + 2] = b'z';
    let fixed = prefix(header, version);
    bytes[..start].copy_from_slice(&fixed);
    std::fs::write(&table, &bytes).unwrap();
    let out = retro_hex(&["info", table.to_str().unwrap()], "");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "\"hez\", which this retro does not have (it has {}, hex)",
            <retro::Builtin as retro::Registry>::names().join(", ")
        )),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}
