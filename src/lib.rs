#![warn(missing_docs)]
//! `retro`: exact retrograde tables for two-player games: placement games and games whose
//! stones move.
//!
//! In a placement game every move puts one stone on an empty cell, so the positions with k
//! stones form layer k and every move leads from layer k to layer k + 1. `retro` numbers the
//! positions of each layer densely (a combinatorial number system per game), sweeps the
//! layers from the full board back to the empty one in parallel, and writes every
//! position's minimax value to a table file that is read back one entry at a time. Where
//! stones move once placed, moves stay inside a layer and positions repeat: such a layer is
//! solved to a fixpoint by retrograde analysis, and a position never resolved is a draw.
//!
//! Where things are (public modules, then the items re-exported at the root):
//!
//! - [`game`]: the [`Game`], [`Gameplay`] and [`Registered`] traits, the open registry
//!   ([`Registry`], [`Visitor`], [`Builtin`]), the built-in games, and what a game of one's
//!   own can share: the value model ([`game::values`]), the two-colour ranking
//!   ([`game::two_colour`]), grid notation ([`game::grid`]), grid symmetries
//!   ([`game::symmetry`]);
//!   [`game::rank`] holds the binomial tables and the colex combinatorial number system;
//! - [`solve`]: the one solve driver ([`Driver`]: serial or parallel): layers in order, each
//!   by the worker its kind needs (the placement sweep's kernel, or the retrograde workers
//!   for values of the side to move, one pass or to a fixpoint);
//! - [`table`]: the file format ([`table::header`], the writer, the reader over
//!   [`ReadAt`](table::ReadAt));
//! - [`answers`]: what is asked of a table: a position's value, its moves' values and the
//!   principal variation as data ([`answers::probe`]), statistics ([`answers::stats`]),
//!   reachability ([`answers::reach`]), and the text, export, info and verify behind the
//!   commands;
//! - [`build`]: solve a board, build a table (what the commands call);
//! - [`testing`]: the conformance checks every game must pass;
//! - [`stored`]: the integer types values are stored in;
//! - [`error`]: one error enum, whose variant decides the exit code;
//! - at the root: [`Progress`] and [`Silent`] (how long work reports and is stopped),
//!   [`SplitMix`] (random boards), [`best_move`], [`info_json`], [`verify_all`] and
//!   [`verify_sample`] (for table users), [`peak_rss`] and [`available_memory`], and `main`,
//!   the command line (feature `cli`), one file per subcommand and a thin layer over the
//!   rest.
//!
//! Build a table and query it:
//!
//! ```
//! use retro::game::{Young, YoungBoard};
//! use retro::prelude::*;
//! use retro::answers::probe;
//!
//! # fn main() -> retro::Result<()> {
//! // The contest sample of the young game (docs/games.md): 2 rows, 3 columns.
//! let board = YoungBoard::parse("2 3\n2 7 3\n9 1 2\n3 7 2\n2 3 1\n")?;
//! let game = Young::new(board)?;
//! let dir = std::env::temp_dir().join(format!("retro-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).map_err(|e| retro::Error::io("mkdir", e))?;
//! let path = dir.join("sample.retro");
//! let report = retro::build::build(&game, &path, &Default::default(), Driver::Parallel, &Silent)?;
//! assert_eq!(report.root_value, 2);
//!
//! let table = Table::open(&path)?;
//! let answer = probe::answer_text(&game, &table, "1,0")?;
//! assert_eq!(answer.value, 0);
//! let best = answer.first_best().map(|i| (answer.moves[i].0.row, answer.moves[i].0.col));
//! assert_eq!(best, Some((0, 1)));
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok(())
//! # }
//! ```
//!
//! A game of your own: implement [`Game`] and the solver solves it;
//! [`Gameplay`] says how people write its positions, and
//! [`Registered`] (a name and a board) gives it tables and every command
//! (`docs/adding-a-game.md`). Two strips
//! of `n` cells each, filled from the left; a stone on cell i of either strip is worth
//! `i + 1` to whoever places it. A position is (a, b), the stones on each strip; layer k
//! holds the positions with a + b = k, ranked by a.
//!
//! ```
//! use retro::game::{Edge, Game, Gameplay, Move, Values};
//!
//! struct Strips { n: usize }
//!
//! impl Strips {
//!     fn lowest_a(&self, k: usize) -> usize { k.saturating_sub(self.n) }
//! }
//!
//! impl Game for Strips {
//!     type Position = (usize, usize);
//!     fn last_layer(&self) -> usize { 2 * self.n }
//!     fn layer_size(&self, k: usize) -> u64 {
//!         (k.min(self.n) - self.lowest_a(k) + 1) as u64
//!     }
//!     fn values(&self) -> Values {
//!         let all = (self.n * (self.n + 1)) as i64;
//!         Values::Scores { lo: -all, hi: all }
//!     }
//!     fn unrank(&self, k: usize, rank: u64) -> (usize, usize) {
//!         let a = self.lowest_a(k) + rank as usize;
//!         (a, k - a)
//!     }
//!     fn rank(&self, &(a, b): &(usize, usize)) -> u64 { (a - self.lowest_a(a + b)) as u64 }
//!     fn layer_of(&self, &(a, b): &(usize, usize)) -> usize { a + b }
//!     fn advance(&self, pos: &mut (usize, usize)) { pos.0 += 1; pos.1 -= 1; }
//!     fn ended(&self, &(a, b): &(usize, usize)) -> Option<i64> {
//!         (a + b == 2 * self.n).then_some(0)
//!     }
//!     fn for_each_child(&self, pos: &(usize, usize), mut f: impl FnMut(Edge)) {
//!         for mv in self.moves(pos) {
//!             f(Edge { layer: pos.0 + pos.1 + 1, rank: self.rank(&mv.child), reward: mv.reward });
//!         }
//!     }
//!     fn moves(&self, &(a, b): &(usize, usize)) -> Vec<Move<(usize, usize)>> {
//!         // The first player's gains count up, the second's down.
//!         let sign = if (a + b) % 2 == 0 { 1 } else { -1 };
//!         let mut moves = Vec::new();
//!         if a < self.n {
//!             moves.push(Move { from: None, row: 0, col: a, take: None, reward: sign * (a as i64 + 1), child: (a + 1, b) });
//!         }
//!         if b < self.n {
//!             moves.push(Move { from: None, row: 1, col: b, take: None, reward: sign * (b as i64 + 1), child: (a, b + 1) });
//!         }
//!         moves
//!     }
//! }
//!
//! // How positions are written, for `testing::check_game` (and `query`, `play`).
//! impl Gameplay for Strips {
//!     fn parse_position(&self, text: &str) -> retro::Result<(usize, usize)> {
//!         let bad = || retro::Error::input(format!("not a position: {text}"));
//!         let (a, b) = text.split_once(',').ok_or_else(bad)?;
//!         Ok((a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?))
//!     }
//!     fn format_position(&self, &(a, b): &(usize, usize)) -> String { format!("{a},{b}") }
//! }
//!
//! let game = Strips { n: 3 };
//! retro::testing::check_game(&game);
//! let value = retro::solve::solve::<_, i64>(&game, retro::Driver::Serial, &retro::Silent)?;
//!
//! // Against a plain minimax over the same rules: what the mover gains minus what the
//! // other player gains from here on.
//! fn minimax(n: usize, a: usize, b: usize) -> i64 {
//!     let mut best = None::<i64>;
//!     if a < n { best = Some(a as i64 + 1 - minimax(n, a + 1, b)); }
//!     if b < n { best = best.max(Some(b as i64 + 1 - minimax(n, a, b + 1))); }
//!     best.unwrap_or(0)
//! }
//! assert_eq!(value, minimax(3, 0, 0));
//! # Ok::<(), retro::Error>(())
//! ```

// The public modules, from the bottom up: the games and their rules (`game`), the table
// files (`table`), the solver (`solve`), what is asked of a table (`answers`), and building a
// board's table (`build`); a game author's checks (`testing`); the stored integer types
// (`stored`); errors.
pub mod answers;
pub mod build;
pub mod error;
pub mod game;
pub mod solve;
pub mod stored;
pub mod table;
pub mod testing;

// The rest is the library's own: the command line (with `retro bench`), the MPI front end,
// memory, progress and random boards. What outside code needs of them is re-exported below.
#[cfg(feature = "cli")]
mod cli;
#[cfg(feature = "cli")]
mod distributed;
mod memory;
mod progress;
mod random;

// For game authors: the traits a game implements, the registry that gives it tables and
// every command, and what solving it takes (a driver, progress, random boards).
pub use game::{
    AnyBoard, Board, Builtin, Edge, Game, Gameplay, Move, Registered, Registry, RunSink, Values,
    Visitor,
};
pub use progress::{Progress, Silent, is_interrupted};
pub use random::SplitMix;
pub use solve::Driver;

// For table users: open a table, read a position's best move (and its numbers, as `export`
// writes them), say what it holds, check it.
pub use answers::export::{BestMove, best_move, move_numbers, number_columns};
pub use answers::info::info_json;
pub use answers::verify::{verify_all, verify_sample};
pub use table::Table;

// For programs that build tables and report what it took: memory before, memory after.
pub use memory::{available_memory, peak_rss};

// For everyone: one error type.
pub use error::{Error, Result};

// For commands: retro's command line over a list of games (`retro::main::<Builtin>()`, or
// a crate's own games beside retro's, as examples/hex does).
#[cfg(feature = "cli")]
pub use cli::main;

/// The traits and types a game or a program over tables needs, to `use retro::prelude::*`.
pub mod prelude {
    pub use crate::game::{
        AnyBoard, Board, Builtin, Edge, Game, Gameplay, LayerKind, Move, MoveNotation, Notation,
        Registered, Registry, RunSink, Scores, Values, Visitor, Wdl,
    };
    pub use crate::table::Table;
    pub use crate::{Driver, Error, Progress, Result, Silent, SplitMix};
}
