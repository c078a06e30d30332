//! The game abstraction: everything the sweep, the table and the query tool need to know
//! about a placement game, and nothing more.
//!
//! Positions with k stones form layer k; a layer is numbered densely 0..layer_size(k) by a
//! combinatorial number system. The sweep asks a game for the children of a stretch of a
//! layer (`visit_runs`) and never sees a concrete board. By default that walks the stretch
//! in rank order (`unrank` once, then `advance`) and reports each position's children
//! (`for_each_child`) one by one; a game whose consecutive positions share moves with
//! consecutive children (young) reports those once per run, so the sweep's loop over them
//! is a straight vectorisable pass instead of one data-dependent loop per position.

pub mod twins;
pub mod young;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
pub use twins::{Twins, TwinsSpec};
pub use young::{Young, YoungSpec};

/// One legal move of a position, for humans (query, play); the sweep uses
/// `for_each_child` instead.
#[derive(Debug, Clone)]
pub struct Move<P> {
    /// 0-based row and column of the cell the stone goes on.
    pub row: usize,
    pub col: usize,
    /// What the move adds to the value (young: +a or -b; twins: 0).
    pub reward: i64,
    pub child: P,
}

pub trait Game: Send + Sync + Sized {
    /// A decoded position; it also serves as the cursor that walks a layer in rank order,
    /// so it may carry whatever the game needs to rank children cheaply.
    type Position: Clone + Send;

    /// What a table header records about the board.
    fn spec(&self) -> GameSpec;
    /// Number of cells; the layers are 0..=cells.
    fn cells(&self) -> usize;
    fn layer_size(&self, k: usize) -> u64;
    /// Every value of every position, every reward, and every reward plus the value of its
    /// move's child lies in this range (from the weights).
    fn value_range(&self) -> (i64, i64);
    /// Called by the sweep before it computes layer `k`, from the thread driving it, inside
    /// its pool. A game that caches per-layer data builds it here, where every worker can
    /// help, rather than on first use in one chunk while the other workers wait for it.
    fn prepare_layer(&self, _k: usize) {}

    /// The position of rank `rank` in layer `k` (`rank < layer_size(k)`).
    fn unrank(&self, k: usize, rank: u64) -> Self::Position;
    fn rank(&self, pos: &Self::Position) -> u64;
    fn stones(&self, pos: &Self::Position) -> usize;
    /// Step to the next position in rank order; never called on a layer's last position.
    fn advance(&self, pos: &mut Self::Position);
    /// Value of a position of the full layer.
    fn terminal_value(&self, pos: &Self::Position) -> i64;
    /// Calls `f(child_rank, reward)` for every move; the ranks are in layer `stones + 1`.
    /// Must cost O(cells) for the whole position, not per child.
    fn for_each_child(&self, pos: &Self::Position, f: impl FnMut(u64, i64));

    /// Report the children of positions `start..start + len` of layer `k` (`k < cells`,
    /// `len > 0`) to `sink`, in runs of consecutive positions covering the range in order.
    /// Every move of every position must be reported exactly once, in a `range`, in a
    /// `chain` or as a `single` move.
    fn visit_runs(&self, k: usize, start: u64, len: usize, sink: &mut impl RunSink) {
        let mut pos = self.unrank(k, start);
        for i in 0..len {
            if i > 0 {
                self.advance(&mut pos);
            }
            sink.run(start + i as u64, 1);
            self.for_each_child(&pos, |child, reward| sink.single(0, child, reward));
        }
    }

    /// Moves with their child positions, in a fixed order (for query and play).
    fn moves(&self, pos: &Self::Position) -> Vec<Move<Self::Position>>;
    fn parse_position(&self, text: &str) -> Result<Self::Position>;
    fn format_position(&self, pos: &Self::Position) -> String;
    /// A drawing of the board, one line per row.
    fn draw(&self, pos: &Self::Position) -> String;

    /// Total number of positions over all layers.
    fn total_positions(&self) -> u64 {
        (0..=self.cells()).map(|k| self.layer_size(k)).sum()
    }
}

/// Receives the children of consecutive positions of one layer (`Game::visit_runs`); the
/// sweep's kernel implements it.
pub trait RunSink {
    /// Start a run: positions `rank..rank + len` of the layer.
    fn run(&mut self, rank: u64, len: usize);
    /// Start a run whose positions all have a move with consecutive children: the same
    /// as `run(rank, len)` then `range(0, len, child, reward)`.
    fn run_with_range(&mut self, rank: u64, len: usize, child: u64, reward: i64) {
        self.run(rank, len);
        self.range(0, len, child, reward);
    }
    /// A move of the run's positions `i..i + len`, with consecutive children: position
    /// `i + t` leads to rank `child + t` of the next layer.
    fn range(&mut self, i: usize, len: usize, child: u64, reward: i64);
    /// One move each of the run's positions `i..i + rewards.len()`, with consecutive
    /// children: position `i + t` leads to rank `child + t`, with reward `rewards[t]`.
    fn chain(&mut self, i: usize, child: u64, rewards: &[i64]);
    /// A move of the run's `i`th position (0-based) alone.
    fn single(&mut self, i: usize, child: u64, reward: i64);
}

/// The board a table was built for: the game and all its weights.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum GameSpec {
    Young(YoungSpec),
    Twins(TwinsSpec),
}

impl GameSpec {
    pub fn name(&self) -> &'static str {
        match self {
            GameSpec::Young(_) => "young",
            GameSpec::Twins(_) => "twins",
        }
    }

    /// Parse a board from contest input. Young boards carry their size; twins boards take
    /// it from `rows`/`cols` where given, else from the input's layout or count.
    pub fn parse(game: &str, text: &str, rows: Option<usize>, cols: Option<usize>) -> Result<Self> {
        match game {
            "young" => {
                if rows.is_some() || cols.is_some() {
                    return Err(Error::input(
                        "--rows/--cols are for twins; a young board gives its size in the input",
                    ));
                }
                Ok(GameSpec::Young(YoungSpec::parse(text)?))
            }
            "twins" => Ok(GameSpec::Twins(TwinsSpec::parse_inferred(
                text, rows, cols,
            )?)),
            other => Err(Error::input(format!(
                "unknown game {other:?}: expected young or twins"
            ))),
        }
    }

    /// Positions per layer, 0..=cells; fails for a board too large to count.
    pub fn layer_sizes(&self) -> Result<Vec<u64>> {
        crate::with_game!(self, g => Ok((0..=g.cells()).map(|k| g.layer_size(k)).collect()))
    }

    /// The contest input for this board.
    pub fn to_input(&self) -> String {
        match self {
            GameSpec::Young(s) => s.to_input(),
            GameSpec::Twins(s) => s.to_input(),
        }
    }

    pub fn dims(&self) -> (usize, usize) {
        match self {
            GameSpec::Young(s) => (s.rows, s.cols),
            GameSpec::Twins(s) => (s.rows, s.cols),
        }
    }
}

/// Run `$body` with `$g` bound to the concrete game built from `$spec` (a `&GameSpec`),
/// so generic code is monomorphised per game. Evaluates to `Result<_>`.
#[macro_export]
macro_rules! with_game {
    ($spec:expr, $g:ident => $body:expr) => {
        match $spec {
            $crate::game::GameSpec::Young(s) => {
                let $g = $crate::game::Young::new(s.clone())?;
                $body
            }
            $crate::game::GameSpec::Twins(s) => {
                let $g = $crate::game::Twins::new(s.clone())?;
                $body
            }
        }
    };
}

/// Split whitespace-separated contest input into integers, naming the first bad token.
pub(crate) fn parse_integers(text: &str) -> Result<Vec<i64>> {
    text.split_whitespace()
        .enumerate()
        .map(|(i, tok)| {
            tok.parse::<i64>().map_err(|_| {
                Error::input(format!(
                    "token {} ({}) is not an integer",
                    i + 1,
                    crate::error::excerpt(tok)
                ))
            })
        })
        .collect()
}

/// Check a list of weights: all non-negative, and their sum fits comfortably in 64 bits.
pub(crate) fn check_weights(what: &str, weights: &[i64]) -> Result<i64> {
    let mut sum: i128 = 0;
    for (i, &w) in weights.iter().enumerate() {
        if w < 0 {
            return Err(Error::input(format!(
                "{what} weight {} is negative ({w})",
                i + 1
            )));
        }
        sum += w as i128;
    }
    i64::try_from(sum).map_err(|_| {
        Error::input(format!(
            "the {what} weights sum to {sum}, which overflows 64-bit values"
        ))
    })
}
