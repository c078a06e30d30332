//! The game abstraction, in three traits: `Game` (what the sweep needs: ranking, moves,
//! values), `Gameplay` (what people see: notation, drawing, words) and `Registered` (a
//! name and a `Board`, which give a game tables and every command; `registry.rs`). Each
//! game lives in its own folder: `mod.rs` (the rules and the ranking, `impl Game`),
//! `board.rs` (its input format, `impl Board`) and `gameplay.rs` (`impl Gameplay` and
//! `impl Registered`).
//!
//! Positions with k stones form layer k; a layer is numbered densely 0..layer_size(k) by a
//! combinatorial number system. The sweep asks a game for the children of a stretch of a
//! layer (`visit_runs`) and never sees a concrete board. By default that walks the stretch
//! in rank order (`unrank` once, then `advance`) and reports each position's children
//! (`for_each_child`) one by one; a game whose consecutive positions share moves with
//! consecutive children (young) reports those once per run, so the sweep's loop over them
//! is a straight vectorisable pass instead of one data-dependent loop per position.

mod connect;
pub mod grid;
mod lines;
mod mnk;
mod morris;
mod quixo;
pub mod rank;
mod registry;
pub mod symmetry;
mod teeko;
mod twins;
pub mod two_colour;
pub mod values;
mod within;
mod young;

use crate::error::{Error, Result};
pub use connect::{Connect, ConnectBoard, ConnectPosition};
pub use mnk::{Mnk, MnkBoard};
pub use morris::{Morris, MorrisBoard, MorrisPosition};
pub use quixo::{Quixo, QuixoBoard};
pub use registry::{AnyBoard, Board, Builtin, Notation, Points, Registered, Registry, Visitor};
pub use teeko::{Teeko, TeekoBoard, TeekoPosition};
pub use twins::{Twins, TwinsBoard};
pub use values::{Values, Wdl, WinLoss};
pub use young::{Young, YoungBoard};

/// Both players' scores: along a line of play, or on a board (see `Game::board_scores`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scores {
    /// The first player's score.
    pub first: i64,
    /// The second player's score.
    pub second: i64,
}

/// A win, a loss or a tie, for the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The side to move wins.
    Win,
    /// The side to move loses.
    Loss,
    /// Neither side wins: the board filled without a result.
    Tie,
    /// Neither side can force a win: play goes on for ever (a game whose stones move).
    Draw,
}

impl Outcome {
    /// "win in 5", "loss in 2", "tie", "draw": the result and remoteness as a move list
    /// says them.
    pub fn words(self) -> String {
        match self.result {
            Verdict::Tie | Verdict::Draw => self.result.as_str().to_string(),
            _ => format!("{} in {}", self.result.as_str(), self.remoteness),
        }
    }
}

impl Verdict {
    /// "win", "loss", "tie" or "draw", as JSON says it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Win => "win",
            Verdict::Loss => "loss",
            Verdict::Tie => "tie",
            Verdict::Draw => "draw",
        }
    }
}

/// How a game that ends in a win, a loss or a tie goes with best play (`Game::outcome`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// For the side to move.
    pub result: Verdict,
    /// Moves (plies) until the game ends: 0 when it has.
    pub remoteness: usize,
}

/// What a layer holds (`Gameplay::layer_words`): in a line (`x 9 o 8`), and the phase
/// of play its positions are in (`placing`, `moving`; Quixo: `22 cubes taken`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerWords {
    /// What its positions have in common, in a few words.
    pub holds: String,
    /// The phase of play, for a line per phase.
    pub phase: String,
}

/// What a position holds, in its game's words (`Gameplay::holds`).
#[derive(Debug, Clone, PartialEq)]
pub struct Holds {
    /// What the pieces are called, as `query`'s line starts: `stones`, `cubes`.
    pub label: &'static str,
    /// The rest of the line: `4 of 9`; `6 on the board; in hand x 0, o 0`; `4 taken of 9:
    /// x 2, o 2`.
    pub words: String,
    /// Fields `query --json` adds beside `stones`: Morris's `in_hand`, Quixo's `cubes`.
    pub json: Vec<(&'static str, serde_json::Value)>,
}

/// How moves are written for humans (query, play, pv): a cell, or, where a move only
/// chooses a column (connect), the column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveNotation {
    /// `row col`, both 1-based, row 1 at the top.
    Cell,
    /// `col`, 1-based from the left; the stone lands where the game puts it.
    Column,
    /// `row,col` for a stone put on the board, `row,col-row,col` for one taken from the
    /// first cell to the second (a Teeko slide; a Quixo push: the cube taken, and the end
    /// it goes back in at). Written the same way everywhere.
    FromTo,
    /// Written by the game itself (`Gameplay::name_move`), as its players write moves
    /// (morris: `d2`, `d2-d3`, `d2-d3xa4`), and read back by matching those names.
    Named,
}

/// One legal move of a position, for humans (query, play); the sweep uses
/// `for_each_child` instead.
#[derive(Debug, Clone)]
pub struct Move<P> {
    /// Where the stone or cube is taken from, 0-based (row, col): a Teeko slide, a Quixo
    /// push; None for a stone put on the board.
    pub from: Option<(usize, usize)>,
    /// 0-based row and column of the cell the stone goes on (Quixo: the end of the row or
    /// column the cube is pushed back in at).
    pub row: usize,
    /// 0-based column of the cell.
    pub col: usize,
    /// The stone the move takes off the board (0-based row, col): morris, where a closed
    /// mill removes one of the opponent's; None elsewhere.
    pub take: Option<(usize, usize)>,
    /// What the move adds to the value (young: +a or -b; twins: 0).
    pub reward: i64,
    /// The position after the move.
    pub child: P,
}

/// How a layer is solved, from what its moves do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerKind {
    /// No move stays inside the layer: every position's value follows from its children in
    /// finished layers, in one parallel pass.
    OnePass,
    /// Moves stay inside the layer (stones slide, positions repeat): solved to a fixpoint by
    /// retrograde analysis; positions never resolved are draws.
    Fixpoint,
}

/// A move's child: the layer it is in, its rank there, and what the move scores (`reward`:
/// games of scores; 0 elsewhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// The child's layer.
    pub layer: usize,
    /// The child's rank within its layer.
    pub rank: u64,
    /// What the move adds to the value (see `Values::through`).
    pub reward: i64,
}

/// A two-player game as the solvers see it: its layers, the ranking of each, and its moves.
/// What people see is `Gameplay`; what it takes to write its tables and get every command is
/// `Registered`.
///
/// The positions fall into layers `0..=last_layer()`, each numbered densely
/// `0..layer_size(k)`. A layer has a kind (`layer_kind`: no move stays inside it, or moves
/// do) and the layers its moves lead to (`child_layers`); the solver orders the layers so
/// that every layer a move leads to is finished first, and solves each with the worker its
/// kind needs. A placement game (every move adds a stone) is the common case: layer k holds
/// the positions with k stones, every layer is a `Pass`, and its moves lead to layer k + 1,
/// the defaults. What a stored value means, and so how it passes through a move and which is
/// better, is the game's value model (`values`). `docs/adding-a-game.md` says what each
/// method must guarantee, and `testing::check_game` checks it.
pub trait Game: Send + Sync + Sized {
    /// A decoded position; it also serves as the cursor that walks a layer in rank order,
    /// so it may carry whatever the game needs to rank children cheaply.
    type Position: Clone + Send;

    /// The last layer; the layers are `0..=last_layer()` (a placement game's: its cells).
    fn last_layer(&self) -> usize;
    /// Positions in layer `k`.
    fn layer_size(&self, k: usize) -> u64;
    /// How layer `k` is solved (default: `Pass`, no move stays inside it).
    fn layer_kind(&self, _k: usize) -> LayerKind {
        LayerKind::OnePass
    }
    /// The layers other than `k` itself that moves from layer `k` lead to (default: k + 1,
    /// none from the last layer). They may be fuller or emptier layers, as long as the
    /// layers form no cycle.
    fn child_layers(&self, k: usize) -> Vec<usize> {
        if k < self.last_layer() {
            vec![k + 1]
        } else {
            Vec::new()
        }
    }
    /// What a stored value means (`values::Values`).
    fn values(&self) -> Values;
    /// Whether a build stores this game's values as halved one-byte codes from its first
    /// layer on (`ValueType::Halved`), rather than in the type the solve computes in,
    /// narrowed once every value is known. Say so for values for the side to move where
    /// play only ends in a loss for the side to move (so every win is in an odd number of
    /// plies and every loss in an even one) and the longest lines may pass the 127 plies
    /// an `i8` holds: later layers then read finished layers at a byte a position, half
    /// the memory and cache lines. A value without a code (a line past 253 plies) stops
    /// the build with an error. Default: no.
    fn halved_values(&self) -> bool {
        false
    }
    /// Called by the solver before it computes layer `k`, from the thread driving it, inside
    /// its pool. A game that caches per-layer data builds it here, where every worker can
    /// help, rather than on first use in one chunk while the other workers wait for it.
    fn prepare_layer(&self, _k: usize) {}
    /// Bytes of the tables the game keeps to rank its positions once every layer is
    /// prepared (those built with the game and those `prepare_layer` builds), at most: a
    /// build holds them to its end, beside its layers, so what a build needs in memory
    /// counts them (`build::footprint`). Default: none worth counting.
    fn table_bytes(&self) -> u64 {
        0
    }
    /// Bytes of tables `prepare_layer(k)` (or a first use of layer `k`) would build now, at
    /// most: 0 where they are built. A planner that walks a few of a layer's positions
    /// skips a layer whose tables would cost far more than the walk. Default: none.
    fn unbuilt_table_bytes(&self, _k: usize) -> u64 {
        0
    }

    /// The position of rank `rank` in layer `k` (`rank < layer_size(k)`).
    fn unrank(&self, k: usize, rank: u64) -> Self::Position;
    /// The rank of a position within its layer (the inverse of `unrank`).
    fn rank(&self, pos: &Self::Position) -> u64;
    /// The layer a position is in (a placement game's: the stones on the board).
    fn layer_of(&self, pos: &Self::Position) -> usize;
    /// Step to the next position in rank order; never called on a layer's last position.
    fn advance(&self, pos: &mut Self::Position);
    /// The value of a position where play has ended (a full board, a line, a pattern), None
    /// where play goes on. Such a position has no moves: `moves` lists none, `visit_runs`
    /// reports it with `RunSink::terminal`, and the solvers never ask for its children. Every
    /// position of a layer without child layers has ended.
    fn ended(&self, pos: &Self::Position) -> Option<i64>;
    /// Calls `f` with every move's child of a position where play goes on (`ended` is None).
    /// A child in the position's own layer (a `Fixpoint` layer) is reported once however many
    /// moves lead to it; children in other layers once per move; a position with no move
    /// reports none (in the side-to-move model it is lost). Must cost O(cells) for the whole
    /// position, not per child.
    fn for_each_child(&self, pos: &Self::Position, f: impl FnMut(Edge));

    /// Report the children of positions `start..start + len` of a `Pass` layer `k` whose
    /// moves all lead to layer k + 1 (`len > 0`) to `sink`, in runs of consecutive
    /// positions covering the range in order: the placement sweep's fast path. Every move of
    /// every position must be reported exactly once, in a `range`, in a `chain` or as a
    /// `single` move, and every position where play has ended by `terminal`, with no moves.
    /// The default walks the stretch in rank order (`unrank` once, then `advance`); a game
    /// whose consecutive positions share moves with consecutive children (young) reports
    /// those once per run, so the sweep's loop over them is a straight vectorisable pass.
    fn visit_runs(&self, k: usize, start: u64, len: usize, sink: &mut impl RunSink) {
        let mut pos = self.unrank(k, start);
        for i in 0..len {
            if i > 0 {
                self.advance(&mut pos);
            }
            sink.run(start + i as u64, 1);
            match self.ended(&pos) {
                Some(value) => sink.terminal(0, value),
                None => self.for_each_child(&pos, |e| sink.single(0, e.rank, e.reward)),
            }
        }
    }

    /// In a `Fixpoint` layer: every position of the layer where play goes on and that has
    /// this one among its children, with its weight: how many of the children its
    /// `children_within` counts lie in this position's entry. Where a game counts distinct
    /// children's entries that is 1; where it counts moves, the parent's moves into this
    /// entry (`within::each_weighted` works it out from the moves undone, folded or not).
    /// A parent may be reported more than once, in any order, so long as its weights add
    /// up to that count: the solver subtracts each, and a child's loss makes the parent a
    /// win however often it is told. Required of a game with such layers; the default
    /// reports none.
    fn for_each_parent_within(&self, _pos: &Self::Position, _f: impl FnMut(u64, u32)) {}
    /// In a `Fixpoint` layer: the rank of each child within the position's own layer, one
    /// per move (a child reached by two moves may come twice), until `f` breaks: what the
    /// fixpoint without counters (`solve/checks.rs`) reads to check whether every move
    /// leads to a win, stopping at the first that does not. The default walks
    /// `for_each_child` and cannot stop early; a game whose layers have moves inside them
    /// overrides it to generate and rank one child at a time.
    fn for_each_child_within(
        &self,
        pos: &Self::Position,
        mut f: impl FnMut(u64) -> std::ops::ControlFlow<()>,
    ) {
        let (k, mut done) = (self.layer_of(pos), false);
        self.for_each_child(pos, |e| {
            if e.layer == k && !done {
                done = f(e.rank).is_break();
            }
        });
    }
    /// The children outside the position's own layer alone; a game overrides it where that
    /// saves ranking the children within the layer.
    fn for_each_child_outside(&self, pos: &Self::Position, mut f: impl FnMut(Edge)) {
        let k = self.layer_of(pos);
        self.for_each_child(pos, |e| {
            if e.layer != k {
                f(e)
            }
        });
    }
    /// The children outside the position's own layer to `f` (`for_each_child_outside`), and
    /// its count of children within it (`children_within`): what the fixpoint
    /// counts of each position first. A game overrides it where the two share work (morris
    /// finds the moves that close a mill once for both).
    fn count_children(&self, pos: &Self::Position, f: impl FnMut(Edge)) -> usize {
        self.for_each_child_outside(pos, f);
        self.children_within(pos)
    }
    /// How many children within the position's own layer the fixpoint waits on before the
    /// position loses: the distinct children's entries (the default, which ranks them), or
    /// its moves that stay in the layer, counted without ranking a child, where the game's
    /// `for_each_parent_within` weighs each parent by its moves (Quixo and Teeko: a
    /// folded layer's children then need no ranking to be told apart). Either way, a
    /// position's count is the sum of the weights its children tell it. At most 255.
    fn children_within(&self, pos: &Self::Position) -> usize {
        let (k, mut n) = (self.layer_of(pos), 0);
        self.for_each_child(pos, |e| {
            if e.layer == k {
                n += 1;
            }
        });
        n
    }

    /// How many positions the board's symmetries fold onto one entry at most, where the game
    /// folds them (`game::symmetry`): its ranking then gives every position of an orbit the
    /// same rank, `unrank` gives the orbit's canonical position, and the parents a solver
    /// asks for (`for_each_parent_within`) are orbits. 1 (the default)
    /// where it folds nothing, which costs the solvers nothing: they see only ranks.
    fn symmetries(&self) -> usize {
        1
    }

    /// How many positions layer k's entries stand for: `layer_size(k)` unless the game folds
    /// (then the positions of all its orbits), or the layer is lumped (`lumped`: then all
    /// its positions).
    fn layer_positions(&self, k: usize) -> u64 {
        self.layer_size(k)
    }

    /// How many positions share `pos`'s entry (its orbit under the symmetries folded; a
    /// lumped layer's one entry: all the layer's positions); 1 where the game folds nothing.
    fn orbit_size(&self, _pos: &Self::Position) -> u64 {
        1
    }

    /// Whether layer `k` is lumped: one entry stands for every position of the layer,
    /// folded or not, since they all have one value known without looking at a board
    /// (Morris: the side to move is down to 2 stones, and has lost). The table and the
    /// solvers see the one entry (rank 0, `unrank` gives a position of the layer, `images`
    /// that position alone); the layer's positions are counted (`layer_positions`,
    /// `orbit_size`), given (`lumped_positions`) and numbered (`lumped_index`), so that
    /// counts, reachability and `export --all` are of positions. Such a layer has no
    /// child layers. Default: none is.
    fn lumped(&self, _k: usize) -> bool {
        false
    }

    /// A lumped layer's positions (`lumped`) from the `from`-th on, in the order
    /// `lumped_index` numbers them: lazily, since there may be far more of them than fit
    /// in memory. None elsewhere.
    fn lumped_positions(&self, _k: usize, _from: u64) -> impl Iterator<Item = Self::Position> {
        std::iter::empty()
    }

    /// A position's place among its lumped layer's positions (`lumped_positions`):
    /// `0..layer_positions(k)`; None for a position of another layer, or one the layer's
    /// count leaves out (one no play leads to that the game still answers as lost).
    fn lumped_index(&self, _pos: &Self::Position) -> Option<u64> {
        None
    }

    /// The distinct positions that share `pos`'s entry, `pos` among them (`export --all`).
    fn images(&self, pos: &Self::Position) -> Vec<Self::Position> {
        vec![pos.clone()]
    }

    /// `pos`, made by another instance of this game on the same board (folded otherwise:
    /// `diff` of a folded and an unfolded table), as this one ranks it. The default is
    /// `pos` itself, for a game whose `rank` reads the board; a game whose positions carry
    /// their entry's rank parts (connect: its mirror image's, where folded) makes them anew.
    fn adopt(&self, pos: &Self::Position) -> Self::Position {
        pos.clone()
    }

    /// The positions that share `pos`'s entry as a few of them, each standing for as many
    /// as its weight, for counts by each side's stones and the side to move (`stats
    /// --split`): each given position must stand for positions with its own stones and side
    /// to move. The default gives every image once; a game whose symmetries keep each side's
    /// stones (the board's) gives one position per class instead, so that a split costs
    /// what a plain count does.
    fn images_by_class(&self, pos: &Self::Position) -> Vec<(Self::Position, u64)> {
        self.images(pos).into_iter().map(|p| (p, 1)).collect()
    }

    /// Moves with their child positions, in a fixed order (for query and play).
    fn moves(&self, pos: &Self::Position) -> Vec<Move<Self::Position>>;
    /// Calls `f(child, reward)` for every move in `moves` order, until `f` breaks.
    /// Tables that store best moves (`--moves`) keep each move's index in this order, and
    /// find a stored move's child through it, so it must agree with `moves` exactly. The
    /// default builds the children `moves` lists; a game overrides it with something
    /// cheaper where `for_each_child` already knows the ranks.
    fn for_each_move_in_order(
        &self,
        pos: &Self::Position,
        mut f: impl FnMut(u64, i64) -> std::ops::ControlFlow<()>,
    ) {
        for mv in self.moves(pos) {
            if f(self.rank(&mv.child), mv.reward).is_break() {
                return;
            }
        }
    }
    /// The child rank and reward of move `index` (in `moves` order) of position `rank` of
    /// layer `k` (`k < last_layer()`, `rank < layer_size(k)`), or None past its last move:
    /// one step of a value lookup in a table of best moves, which takes one per layer
    /// without values, so it is worth a game's while to do it without building a cursor.
    /// The default unranks and walks `for_each_move_in_order`.
    fn move_in_order(&self, k: usize, rank: u64, index: u64) -> Option<(u64, i64)> {
        let pos = self.unrank(k, rank);
        let (mut seen, mut found) = (0u64, None);
        self.for_each_move_in_order(&pos, |child, reward| {
            if seen == index {
                found = Some((child, reward));
                return std::ops::ControlFlow::Break(());
            }
            seen += 1;
            std::ops::ControlFlow::Continue(())
        });
        found
    }
    /// Total number of positions over all layers.
    fn total_positions(&self) -> u64 {
        (0..=self.last_layer()).map(|k| self.layer_size(k)).sum()
    }
}

/// What people see of a game: how positions and moves are written and drawn, values in
/// words, scores, the contest's answer. The sweep never asks for any of it; `query`,
/// `play`, `export` and `serve` do. Only `parse_position` and `format_position` are
/// required; the rest have defaults that fit a game of scores.
pub trait Gameplay: Game {
    /// How moves are written (`MoveNotation::Cell` unless a move only picks a column).
    fn move_notation(&self) -> MoveNotation {
        MoveNotation::Cell
    }
    /// Stones on the board at `pos`: its layer, for a game whose layers count them (the
    /// default); a game whose layers say more (morris: placements made, each side's stones)
    /// counts them.
    fn stones(&self, pos: &Self::Position) -> usize {
        self.layer_of(pos)
    }
    /// Each side's stones (or cubes) on the board at `pos`, x's then o's: the classes
    /// `stats --split` counts by. The default is a game where the sides take turns putting
    /// stones down, x first, and none leaves the board; a game where the first player
    /// plays o (twins), or stones come and go (morris, quixo), says its own.
    fn side_stones(&self, pos: &Self::Position) -> [usize; 2] {
        let stones = self.stones(pos);
        [stones.div_ceil(2), stones / 2]
    }
    /// What layer `k` holds, in the game's words, and the phase of play it belongs to, for
    /// `stats` (morris: each side's stones and what is in hand); None (the default) where
    /// the layer's number says it (the stones on the board).
    fn layer_words(&self, _k: usize) -> Option<LayerWords> {
        None
    }
    /// Stones each side still has in hand (x's, o's), for a game where they are part of the
    /// position (morris); None (the default) elsewhere. `query` shows them, `export` writes
    /// them as columns.
    fn hands(&self, _pos: &Self::Position) -> Option<[u32; 2]> {
        None
    }
    /// What `pos` holds, in the game's words, for `query`'s line under the board and the
    /// fields `query --json` adds beside `stones`. The default says the stones on the board
    /// out of the last layer's (the board's cells, where layers count stones) and, where
    /// the game has hands, the stones in hand (`in_hand`). A game whose pieces are
    /// something else, or whose layers do not count them, says its own (Quixo: the cubes
    /// taken and each side's).
    fn holds(&self, pos: &Self::Position) -> Holds {
        let stones = self.stones(pos);
        match self.hands(pos) {
            Some([x, o]) => Holds {
                label: "stones",
                words: format!("{stones} on the board; in hand x {x}, o {o}"),
                json: vec![("in_hand", serde_json::json!({ "x": x, "o": o }))],
            },
            None => Holds {
                label: "stones",
                words: format!("{stones} of {}", self.last_layer()),
                json: Vec::new(),
            },
        }
    }
    /// Why the move a player typed at `pos` is not legal (`from`: where a stone is taken,
    /// None for one put down; `to`: where it goes; 0-based cells), in words `play` prints
    /// before the legal moves ("all your stones are down: move one"); None (the default)
    /// where the list says enough.
    fn why_illegal(
        &self,
        _pos: &Self::Position,
        _from: Option<(usize, usize)>,
        _to: (usize, usize),
    ) -> Option<String> {
        None
    }
    /// A move as the game's players write it, from its cells (0-based row, col: where the
    /// stone comes from, where it goes, the stone it takes), for a game whose moves are
    /// `Named`; None (the default) for the others, which are written from their cells.
    fn name_move(
        &self,
        _from: Option<(usize, usize)>,
        _to: (usize, usize),
        _take: Option<(usize, usize)>,
    ) -> Option<String> {
        None
    }
    /// What to try where this board is too large for the machine (a part of it that fits, a
    /// plan over MPI ranks), as a command to type; `build` and `solve` say it after the
    /// refusal. None (the default) adds nothing.
    fn when_too_large(&self) -> Option<String> {
        None
    }
    /// Parse a position in the game's notation (`docs/games.md`): any position the
    /// ranking counts, whether or not play can reach it (so every rank's position reads
    /// back); bad text is an input error that shows the expected form.
    fn parse_position(&self, text: &str) -> Result<Self::Position>;
    /// The moves of `text`, in order from the start, where it is a line of play in a short
    /// form of the game's own (connect: `4455`, the columns played, one digit a move);
    /// None (the default) where it is not one, or the game has no such form. An illegal
    /// move in the line is an input error that names it. A position given as moves from
    /// the start (`probe::played_from_start`) takes such a line as its moves, so `query
    /// --line` shows it ply by ply.
    fn line_of_play(&self, _text: &str) -> Option<Result<Vec<Move<Self::Position>>>> {
        None
    }
    /// Refuse (`Error::input`, one line saying why) a position the ranking counts but
    /// play cannot reach (mnk: both players have a line). `query` and `play` ask it; the
    /// table still holds a defined value for such a position.
    fn check_reachable(&self, _pos: &Self::Position) -> Result<()> {
        Ok(())
    }
    /// Whether `check_reachable` accepts exactly the positions play reaches (true, the
    /// default), or refuses only what a position shows of its history and may accept some
    /// that no play reaches (false: Morris, where stones come and go). Where it is not
    /// exact, `export`'s `reachable` column comes from a forward pass from the start
    /// (`reach::Reachable`), and `query` says that it did not check.
    fn check_reachable_is_exact(&self) -> bool {
        true
    }
    /// The position before the first move, where play starts: the first position of
    /// layer 0 (the default). None for a table of part of a game that has no start of its
    /// own (Morris's moving phase alone).
    fn start_position(&self) -> Option<Self::Position> {
        Some(self.unrank(0, 0))
    }
    /// Where a table opens when no position is asked for (the explorer, `GET /api/TABLE`):
    /// the start, or for a table of part of a game without one, a position of its own
    /// with a note that says what it is (the default: the table's first position).
    fn opening(&self) -> (Self::Position, Option<String>) {
        if let Some(start) = self.start_position() {
            return (start, None);
        }
        // The first position, in layer and rank order, that the game lets arise and where
        // play goes on: opening on a finished game, or on one `query` refuses, shows
        // nothing. A few thousand of each layer are enough to meet one.
        for k in 0..=self.last_layer() {
            let size = self.layer_size(k);
            if size == 0 {
                continue;
            }
            let mut pos = self.unrank(k, 0);
            for r in 0..size.min(1 << 12) {
                if r > 0 {
                    self.advance(&mut pos);
                }
                if self.ended(&pos).is_none() && self.check_reachable(&pos).is_ok() {
                    return (
                        pos,
                        Some("this table has no start: this is its first position that can arise and is not over".into()),
                    );
                }
            }
        }
        (
            self.unrank(0, 0),
            Some("this table has no start: this is its first position".into()),
        )
    }
    /// The position in the game's notation, as `parse_position` reads it back.
    fn format_position(&self, pos: &Self::Position) -> String;
    /// A drawing of the board, one line per row, cells one space apart.
    fn draw(&self, pos: &Self::Position) -> String {
        self.format_position(pos)
    }
    /// The cells (0-based row, col) of every winning line or pattern on the board, for the
    /// explorer to show how a finished game was won; empty where there is none (and for
    /// games not won by a line).
    fn winning_cells(&self, _pos: &Self::Position) -> Vec<(usize, usize)> {
        Vec::new()
    }
    /// The board's weights drawn for a player choosing a move (`play` shows them at the
    /// start and on `weights`), with a line saying which number is whose; None for a game
    /// without weights.
    fn draw_weights(&self) -> Option<String> {
        None
    }

    /// A value in words, for `query`; by default the value model's words
    /// (`Values::describe`).
    fn describe_value(&self, value: i64) -> String {
        self.values().describe(value)
    }
    /// What a stored value means, in one line for `play`'s help (`Values::meaning`).
    fn value_meaning(&self) -> &'static str {
        self.values().meaning()
    }
    /// A value in words for the side to move at `pos` ("x to move wins in 5 (remoteness
    /// 5)"); by default the value model's (`Values::describe_at`), and for a game of scores
    /// its own `describe_value`.
    fn describe_value_at(&self, value: i64, pos: &Self::Position) -> String {
        match self.values() {
            Values::Scores { .. } => self.describe_value(value),
            values => values.describe_at(value, self.layer_of(pos), self.first_to_move(pos)),
        }
    }
    /// Whether the first player (x) is to move at `pos`: where the stone count is even,
    /// unless the position says otherwise (a layer with moves inside it).
    fn first_to_move(&self, pos: &Self::Position) -> bool {
        self.layer_of(pos).is_multiple_of(2)
    }
    /// What `value` means for the side to move at a position of layer `layer`: a result
    /// and a remoteness, from the value model; None for a game of scores.
    fn outcome(&self, value: i64, layer: usize) -> Option<Outcome> {
        self.values().outcome(value, layer)
    }
    /// Both players' final scores with best play from a position of this value, where the
    /// game defines them (twins); None where a value is only a difference (young).
    fn final_scores(&self, _value: i64) -> Option<Scores> {
        None
    }
    /// Both players' scores on the board as it stands, for a game that scores the board
    /// (twins: the pairs already decided). None for a game whose moves score (young):
    /// a line's running scores then add up its moves' rewards.
    fn board_scores(&self, _pos: &Self::Position) -> Option<Scores> {
        None
    }
    /// The number a line's final scores come to, to compare with the value it started
    /// from: first minus second, unless the value is something else (twins: first's score).
    fn line_result(&self, scores: Scores) -> i64 {
        scores.first - scores.second
    }
    /// `retro solve`'s output for a board whose empty position has value `root`: the
    /// contest's answer where the game comes from one (young, twins: the number alone, as
    /// a judge reads it), else the value in words.
    fn contest_answer(&self, root: i64) -> String {
        let words = self.values().describe_root(root);
        match self.start_position() {
            Some(_) => words,
            // The solve's last layer in memory is layer 0: its first position's value,
            // named, since it is no start.
            None => format!(
                "{words} (this board has no start: this is the value of its first position, {})",
                self.format_position(&self.unrank(0, 0))
            ),
        }
    }
    /// A build's root value for its summary line: in words for a game that ends in a win,
    /// a loss, a tie or a draw ("o completes a line at ply 24, o's 12th stone", "x to move
    /// wins in 7 (remoteness 7)"), whose stored number is a code; the number for a game of
    /// scores. A table without a start (`start_position`) has no root value, and says so
    /// (`answers::info::root_words` names where it opens, with that position's value).
    fn root_text(&self, value: i64) -> String {
        if self.start_position().is_none() {
            return "none (this table has no start)".into();
        }
        if self.values().for_side_to_move() {
            // Values for the side to move: x moves on the empty board.
            return self.contest_answer(value);
        }
        match self.outcome(value, 0) {
            Some(_) => self.describe_value(value),
            None => value.to_string(),
        }
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
    /// The run's `i`th position is one where play has ended, with this value; it has no
    /// moves. The sweep's kernel stores the value; a sink that only records which
    /// children are read (a distributed plan) has nothing to do.
    fn terminal(&mut self, _i: usize, _value: i64) {}
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
