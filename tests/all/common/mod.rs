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
    let mut command = Command::new(env!("CARGO_BIN_EXE_retro"));
    command.args(args);
    feed(command, stdin)
}

/// Run `command` (the binary under a wrapper, say), feeding `stdin`; its whole output.
#[allow(dead_code)]
pub fn feed(mut command: Command, stdin: &str) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run retro");
    // Written from a thread of its own: a long input whose answers fill the output pipe
    // would otherwise block both sides.
    let mut input = child.stdin.take().expect("stdin");
    let stdin = stdin.to_owned();
    let writer = std::thread::spawn(move || input.write_all(stdin.as_bytes()));
    let output = child.wait_with_output().expect("wait for retro");
    // A command that exits without reading all of its input closes the pipe first.
    match writer.join().expect("the writer") {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => panic!("write stdin: {e}"),
        _ => {}
    }
    output
}

/// A board of one of retro's own games from its input text.
pub fn parse_board(game: &str, text: &str) -> retro::AnyBoard {
    use retro::Registry;
    retro::Builtin::parse(game, text).expect("a board")
}

/// A random board of one of retro's own games, as `retro gen` makes it.
pub fn random_board(game: &str, rows: usize, cols: usize, seed: u64, max: u64) -> retro::AnyBoard {
    use retro::Registry;
    retro::Builtin::random(game, (rows, cols), seed, max, "--max").expect("a board")
}

/// Lists a game's positions (`all_positions`).
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

/// Every position of a board, layer by layer in rank order, in its game's notation.
pub fn all_positions(board: &retro::AnyBoard) -> Vec<String> {
    use retro::Registry;
    retro::Builtin::visit(board, Positions).expect("the board's game")
}

/// What building a board's table will take (`build::Estimate::of` on its game).
pub fn estimate(
    board: &retro::AnyBoard,
    path: &std::path::Path,
    options: &retro::build::BuildOptions,
) -> retro::build::Estimate {
    struct Estimate<'a>(&'a std::path::Path, &'a retro::build::BuildOptions);
    impl retro::Visitor for Estimate<'_> {
        type Output = retro::build::Estimate;
        fn visit<G: retro::Registered>(self, game: G) -> retro::Result<Self::Output> {
            retro::build::Estimate::of(&game, self.0, self.1)
        }
    }
    use retro::Registry;
    retro::Builtin::visit(board, Estimate(path, options)).expect("an estimate")
}
