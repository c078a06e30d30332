//! The open registry: which games a program knows, and how a board of one of them gets
//! back to its concrete game type.
//!
//! A game that implements [`Registered`] (a name, a board type, a constructor) is a
//! [`Registry`] of one game; a tuple of registries is the registry of all their games, so a
//! program lists its games as a type: [`Builtin`] for `retro`'s own, `(Builtin, Hex)` for a
//! crate that adds Hex. Generic code runs on the concrete game through a [`Visitor`]: the
//! registry finds the game a board belongs to, builds it, and calls the visitor's generic
//! method with it, so every command is compiled once per game and nothing here lists one.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Connect, Gameplay, Mnk, Morris, Quixo, Teeko, Twins, Young};
use crate::error::{Error, Result};
use crate::random::SplitMix;

/// A game's board: everything its input holds (sizes, weights), what a table's header
/// records, and from which `Registered::new` builds the game.
pub trait Board:
    Clone + PartialEq + fmt::Debug + Serialize + DeserializeOwned + Send + Sync + 'static
{
    /// Parse the game's input format.
    fn parse(text: &str) -> Result<Self>;
    /// Parse the input with its size, or one side of it, given apart (`--rows/--cols`), for
    /// a game whose input may leave its size out (twins); None (the default) for a game
    /// whose input carries its size, which the registry then refuses to size apart.
    fn parse_sized(
        _text: &str,
        _rows: Option<usize>,
        _cols: Option<usize>,
    ) -> Option<Result<Self>> {
        None
    }
    /// A board of the given size with weights uniform in `0..=max` (`retro gen`); a game
    /// without weights ignores `rng` and `max`.
    fn random(rows: usize, cols: usize, rng: &mut SplitMix, max: u64) -> Result<Self>;
    /// The input text that `parse` reads back to this board.
    fn to_input(&self) -> String;
    /// Rows and columns.
    fn dims(&self) -> (usize, usize);
    /// The size as commands print it: `RxC` unless the board says more (mnk and connect
    /// add K; connect gives width first, as Connect Four's 7x6).
    fn label(&self) -> String {
        let (r, c) = self.dims();
        format!("{r}x{c}")
    }
    /// The size in words, for `info` and the explorer: `R x C` unless the board says more.
    fn size_words(&self) -> String {
        let (r, c) = self.dims();
        format!("{r} x {c}")
    }
    /// What the `layers` layers of a table of this board are, for `info`: `7 (0..=6
    /// stones)` where layer k holds the positions with k stones on the board (the default).
    fn layer_words(&self, layers: usize) -> String {
        format!("{layers} (0..={} stones)", layers.saturating_sub(1))
    }
    /// For a board of points joined by lines rather than a grid of cells (morris): each
    /// point's cell on the grid (1-based row from the top, column) in the order a
    /// position's text lists them, and the lines between neighbouring points as pairs of
    /// indices into that list. The explorer draws them. None (the default): a grid.
    fn points(&self) -> Option<Points> {
        None
    }
    /// A board as an earlier retro wrote it in a table's header, for a board type that has
    /// gained a field since (its bincode bytes are then shorter): the board and the bytes
    /// read. None (the default): every table holds the board as it is.
    fn decode_earlier(_bytes: &[u8]) -> Option<(Self, usize)> {
        None
    }
    /// Refuse a board whose numbers are out of range, as `parse` refuses its input: a
    /// board read from a table's header comes through here before any arithmetic on it,
    /// since anyone can write a header with a valid checksum. The default accepts every
    /// board, for a game whose constructor checks them all.
    fn check(&self) -> Result<()> {
        Ok(())
    }
}

/// A board of points joined by lines rather than a grid of cells (`Board::points`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Points {
    /// Each point's grid cell (1-based row from the top, column), in the order a position's
    /// text lists the points.
    pub cells: Vec<[usize; 2]>,
    /// The lines between neighbouring points, as pairs of indices into `cells`.
    pub links: Vec<[usize; 2]>,
}

/// A game with a name and a board: what it takes to write its tables and to get every
/// command. Its name goes in table headers, so it must never change once tables exist.
pub trait Registered: Gameplay + 'static {
    /// The name on the command line and in a table's header (`young`, `hex`, ...).
    const NAME: &'static str;
    /// Its board (input, header record).
    type Board: Board;
    /// The game on a board; fails for a board too large to rank. A game with symmetries
    /// folds them here (`Game::symmetries`) where that pays.
    fn new(board: Self::Board) -> Result<Self>;
    /// The game on a board with every position its own entry (`build --no-fold`, and tables
    /// written before a game folded); `new` for a game that folds nothing.
    fn unfolded(board: Self::Board) -> Result<Self> {
        Self::new(board)
    }
    /// The game folded as a table of format version `format` ranks its orbits, for a game
    /// whose folded order has changed since (Teeko keyed its orbits on the occupied cells
    /// before version 4): a table of an older version keeps answering. The default, `new`,
    /// for a game whose folded order never changed.
    fn folded_as(board: Self::Board, format: u32) -> Result<Self> {
        let _ = format;
        Self::new(board)
    }
    /// The board it was built from.
    fn board(&self) -> &Self::Board;
    /// Its rules, input format and notation, for `retro help games` (Markdown). The built-in
    /// games have their page there (`docs/games.md`) and leave this empty.
    fn rules() -> &'static str {
        ""
    }
    /// What it is and how its boards, positions and moves are written, a line each, for
    /// `--help` and the manual pages, which list every game of the registry from these.
    fn notation() -> Notation {
        Notation::default()
    }
}

/// A game in a line each, as `--help` and the manual list it (`Registered::notation`);
/// an empty field is left out there, and `retro help games` has the rest.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Notation {
    /// What the game is, in a few words.
    pub summary: &'static str,
    /// How a board is given to `build` and `solve`: what its input file holds, or the
    /// words that stand in its place (`4x4k3`, `5x5 advanced`).
    pub board: &'static str,
    /// How a position is written (`query`, `play --from`), with an example.
    pub position: &'static str,
    /// How a move is written, as `query` lists moves and `play` reads them.
    pub moves: &'static str,
    /// The marks of the first and the second player in its positions (`play --as x`);
    /// None for a game whose stones are not told apart (young).
    pub marks: Option<(char, char)>,
}

/// Code to run on a concrete game: `Registry::visit` calls `visit` with the game a board
/// belongs to. The generic method is where the monomorphised work goes.
pub trait Visitor {
    /// What the visit gives back.
    type Output;
    /// Run on the game.
    fn visit<G: Registered>(self, game: G) -> Result<Self::Output>;
}

/// A board of some registered game: its game's name and the board itself, with the
/// board's type erased so one value can stand for a board of any game.
#[derive(Clone)]
pub struct AnyBoard {
    game: &'static str,
    board: Arc<dyn ErasedBoard>,
    /// How the game is built: 0 as `Registered::new` builds it (folded where it folds), 1
    /// with every position its own entry (`Registered::unfolded`), n > 1 folded by n
    /// symmetries (as a game or a table header says).
    symmetries: u32,
    /// The format version of the table the board was read from (`Registered::folded_as`);
    /// 0 for a board of this retro's own (read from input, or a game's).
    format: u32,
}

/// What `AnyBoard` needs of a board without knowing its type.
trait ErasedBoard: Send + Sync + fmt::Debug {
    fn as_any(&self) -> &dyn Any;
    fn to_input(&self) -> String;
    fn dims(&self) -> (usize, usize);
    fn label(&self) -> String;
    fn label_names_it(&self) -> bool;
    fn size_words(&self) -> String;
    fn layer_words(&self, layers: usize) -> String;
    fn points(&self) -> Option<Points>;
    fn to_bytes(&self) -> Vec<u8>;
    fn to_json(&self) -> serde_json::Value;
}

impl<B: Board> ErasedBoard for B {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_input(&self) -> String {
        Board::to_input(self)
    }
    fn dims(&self) -> (usize, usize) {
        Board::dims(self)
    }
    fn label(&self) -> String {
        Board::label(self)
    }
    fn label_names_it(&self) -> bool {
        B::parse(&Board::label(self)).is_ok_and(|b| &b == self)
    }
    fn size_words(&self) -> String {
        Board::size_words(self)
    }
    fn layer_words(&self, layers: usize) -> String {
        Board::layer_words(self, layers)
    }
    fn points(&self) -> Option<Points> {
        Board::points(self)
    }
    fn to_bytes(&self) -> Vec<u8> {
        // A board is plain data (sizes and weights): serialising it cannot fail.
        bincode::serde::encode_to_vec(self, board_config()).unwrap_or_default()
    }
    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

impl AnyBoard {
    /// A board of game `G`.
    pub fn new<G: Registered>(board: G::Board) -> AnyBoard {
        AnyBoard {
            game: G::NAME,
            board: Arc::new(board),
            symmetries: 0,
            format: 0,
        }
    }

    /// The board a game was built from, folded as the game is.
    pub fn of<G: Registered>(game: &G) -> AnyBoard {
        let mut board = AnyBoard::new::<G>(game.board().clone());
        board.symmetries = game.symmetries().max(1) as u32;
        board
    }

    /// The same board, its game built with every position its own entry
    /// (`Registered::unfolded`: `build --no-fold`).
    pub fn unfolded(mut self) -> AnyBoard {
        self.symmetries = 1;
        self
    }

    /// The same board, its game folded by `n` symmetries (1: unfolded), as a table header
    /// records it.
    pub fn with_symmetries(mut self, n: u32) -> AnyBoard {
        self.symmetries = n;
        self
    }

    /// The same board, as read from a table of format version `format`: a folded game is
    /// built as that version ranks it (`Registered::folded_as`).
    pub fn with_format(mut self, format: u32) -> AnyBoard {
        self.format = format;
        self
    }

    /// The format version of the table the board was read from; 0 for a board of this
    /// retro's own.
    pub fn format(&self) -> u32 {
        self.format
    }

    /// The board's game, built as its table ranks it: unfolded, folded as a table of an
    /// older format did (`Registered::folded_as`), or as `Registered::new` builds it.
    pub fn build_game<G: Registered>(&self) -> Option<Result<G>> {
        let board = self.get::<G>()?.clone();
        Some(match (self.symmetries, self.format) {
            (1, _) => G::unfolded(board),
            (_, 0) => G::new(board),
            (_, format) => G::folded_as(board, format),
        })
    }

    /// How many symmetries the game folds: 1 unfolded, 0 where not yet known (a board read
    /// from input, whose game folds as `Registered::new` decides).
    pub fn symmetries(&self) -> u32 {
        self.symmetries
    }

    /// The game's name (`young`, `twins`, ...).
    pub fn name(&self) -> &'static str {
        self.game
    }

    /// The board as game `G`'s, if it is one.
    pub fn get<G: Registered>(&self) -> Option<&G::Board> {
        if self.game != G::NAME {
            return None;
        }
        self.board.as_any().downcast_ref::<G::Board>()
    }

    /// The board's input, as its game's `Board::parse` reads it back.
    pub fn to_input(&self) -> String {
        self.board.to_input()
    }

    /// Rows and columns.
    pub fn dims(&self) -> (usize, usize) {
        self.board.dims()
    }

    /// The board's size as commands print it (`4x4`, `7x6k4`).
    pub fn label(&self) -> String {
        self.board.label()
    }

    /// Whether the label alone is the whole board (`3x3k3`, read back as the same board),
    /// as it is for a game without weights; young's `10x10` is not.
    pub fn label_names_it(&self) -> bool {
        self.board.label_names_it()
    }

    /// The board's size in words (`2 x 3`, `7 x 6 (width x height), 4 in a row`).
    pub fn size_words(&self) -> String {
        self.board.size_words()
    }

    /// What a table's `layers` layers are, in words (`Board::layer_words`).
    pub fn layer_words(&self, layers: usize) -> String {
        self.board.layer_words(layers)
    }

    /// Its points and the lines between them, for a board that is not a grid
    /// (`Board::points`).
    pub fn points(&self) -> Option<Points> {
        self.board.points()
    }

    /// The board's fields as JSON (young's `a` and `b`, mnk's `rows`, `cols`, `k`, ...).
    pub fn to_json(&self) -> serde_json::Value {
        self.board.to_json()
    }

    /// The game's name and the board's bytes, as a table header stores them.
    pub fn to_table(&self) -> (&'static str, Vec<u8>) {
        (self.game, self.board.to_bytes())
    }
}

impl fmt::Debug for AnyBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {:?}", self.game, self.board)
    }
}

impl PartialEq for AnyBoard {
    fn eq(&self, other: &AnyBoard) -> bool {
        // The same board, however its game folds (a table header says that apart).
        self.game == other.game && self.board.to_bytes() == other.board.to_bytes()
    }
}

impl Eq for AnyBoard {}

/// A list of games, as a type: a `Registered` game is a registry of itself, and a tuple
/// of registries (up to eight, nested as deep as you like) is the registry of all of them.
/// The first game of a name wins.
///
/// The `try_` methods are the registry's plumbing, answering None for a game it does not
/// have; use the provided methods, which say what is missing.
pub trait Registry: 'static {
    #[doc(hidden)]
    fn collect_names(out: &mut Vec<&'static str>);
    #[doc(hidden)]
    fn collect_rules(out: &mut Vec<(&'static str, &'static str)>);
    #[doc(hidden)]
    fn collect_notations(out: &mut Vec<(&'static str, Notation)>);
    #[doc(hidden)]
    fn try_parse(
        game: &str,
        text: &str,
        rows: Option<usize>,
        cols: Option<usize>,
    ) -> Option<Result<AnyBoard>>;
    #[doc(hidden)]
    fn try_random(
        game: &str,
        rows: usize,
        cols: usize,
        rng: &mut SplitMix,
        max: u64,
    ) -> Option<Result<AnyBoard>>;
    #[doc(hidden)]
    fn try_decode(game: &str, bytes: &[u8]) -> Option<Result<(AnyBoard, usize)>>;
    #[doc(hidden)]
    fn try_visit<V: Visitor>(
        board: &AnyBoard,
        visitor: V,
    ) -> std::result::Result<Result<V::Output>, V>;

    /// Every game's name, in the registry's order.
    fn names() -> Vec<&'static str> {
        let mut out = Vec::new();
        Self::collect_names(&mut out);
        out
    }

    /// Each game's name and rules (`Registered::rules`), in the registry's order.
    fn rules() -> Vec<(&'static str, &'static str)> {
        let mut out = Vec::new();
        Self::collect_rules(&mut out);
        out
    }

    /// Each game's name and notation (`Registered::notation`), in the registry's order:
    /// what `--help` and the manual list.
    fn notations() -> Vec<(&'static str, Notation)> {
        let mut out = Vec::new();
        Self::collect_notations(&mut out);
        out
    }

    /// Parse a board of game `game` from its input format (see `docs/games.md`).
    fn parse(game: &str, text: &str) -> Result<AnyBoard> {
        Self::parse_sized(game, text, None, None)
    }

    /// Parse a board of game `game` with its size, or one side of it, given apart
    /// (`--rows/--cols`, `Board::parse_sized`); with neither, the same as `parse`. A game
    /// whose input carries its size refuses them.
    fn parse_sized(
        game: &str,
        text: &str,
        rows: Option<usize>,
        cols: Option<usize>,
    ) -> Result<AnyBoard> {
        Self::try_parse(game, text, rows, cols).unwrap_or_else(|| Err(unknown::<Self>(game)))
    }

    /// A random board of game `game` (`retro gen`, benchmarks), seeded; `flag` names the
    /// option that gave `max` in errors (`--max`, `--max-weight`).
    fn random(
        game: &str,
        (rows, cols): (usize, usize),
        seed: u64,
        max: u64,
        flag: &str,
    ) -> Result<AnyBoard> {
        if rows == 0 || cols == 0 {
            return Err(Error::input(format!(
                "board size {rows}x{cols}: rows and columns must be at least 1"
            )));
        }
        if max > i64::MAX as u64 / 4096 {
            return Err(Error::input(format!(
                "{flag} {max} is too large: at most {}",
                i64::MAX as u64 / 4096
            )));
        }
        rows.checked_mul(cols)
            .filter(|&c| c <= 4096)
            .ok_or_else(|| Error::input(format!("board size {rows}x{cols} is too large")))?;
        Self::try_random(game, rows, cols, &mut SplitMix(seed), max)
            .unwrap_or_else(|| Err(unknown::<Self>(game)))
    }

    /// The board at the start of a table header's board bytes and how many bytes it took;
    /// a game this registry does not have is refused, naming it.
    fn decode(game: &str, bytes: &[u8]) -> Result<(AnyBoard, usize)> {
        Self::try_decode(game, bytes).unwrap_or_else(|| {
            Err(Error::other(format!(
                "a table of the game {game:?}, which this retro does not have (it has {})",
                Self::names().join(", ")
            )))
        })
    }

    /// Build the game `board` belongs to and run `visitor` on it.
    fn visit<V: Visitor>(board: &AnyBoard, visitor: V) -> Result<V::Output> {
        Self::try_visit(board, visitor).unwrap_or_else(|_| {
            Err(Error::other(format!(
                "a board of the game {:?}, which this retro does not have (it has {})",
                board.name(),
                Self::names().join(", ")
            )))
        })
    }

    /// Positions per layer of `board`, 0..=cells; fails for a board too large to count.
    fn layer_sizes(board: &AnyBoard) -> Result<Vec<u64>> {
        struct Sizes;
        impl Visitor for Sizes {
            type Output = Vec<u64>;
            fn visit<G: Registered>(self, game: G) -> Result<Vec<u64>> {
                Ok((0..=game.last_layer())
                    .map(|k| game.layer_size(k))
                    .collect())
            }
        }
        Self::visit(board, Sizes)
    }
}

/// The games `retro` itself has, in the order `retro help games` lists them.
pub type Builtin = (Young, Twins, Mnk, Connect, Teeko, Quixo, Morris);

fn unknown<R: Registry + ?Sized>(name: &str) -> Error {
    Error::input(format!(
        "unknown game {}: expected one of {}",
        crate::error::excerpt(name),
        R::names().join(", ")
    ))
}

impl<G: Registered> Registry for G {
    fn collect_names(out: &mut Vec<&'static str>) {
        out.push(G::NAME);
    }

    fn collect_rules(out: &mut Vec<(&'static str, &'static str)>) {
        out.push((G::NAME, G::rules()));
    }

    fn collect_notations(out: &mut Vec<(&'static str, Notation)>) {
        out.push((G::NAME, G::notation()));
    }

    fn try_parse(
        game: &str,
        text: &str,
        rows: Option<usize>,
        cols: Option<usize>,
    ) -> Option<Result<AnyBoard>> {
        (game == G::NAME).then(|| {
            let board = if rows.is_none() && cols.is_none() {
                G::Board::parse(text)
            } else {
                G::Board::parse_sized(text, rows, cols).unwrap_or_else(|| {
                    Err(Error::input(format!(
                        "--rows/--cols are for twins, whose input may leave its size out; a {game} board gives its size in the input"
                    )))
                })
            };
            board.map(AnyBoard::new::<G>)
        })
    }

    fn try_random(
        game: &str,
        rows: usize,
        cols: usize,
        rng: &mut SplitMix,
        max: u64,
    ) -> Option<Result<AnyBoard>> {
        (game == G::NAME).then(|| G::Board::random(rows, cols, rng, max).map(AnyBoard::new::<G>))
    }

    fn try_decode(game: &str, bytes: &[u8]) -> Option<Result<(AnyBoard, usize)>> {
        (game == G::NAME).then(|| {
            bincode::serde::decode_from_slice::<G::Board, _>(bytes, board_config())
                .or_else(|e| G::Board::decode_earlier(bytes).ok_or(e))
                .map_err(|e| {
                    Error::corrupt(format!("header: the {game} board does not decode ({e})"))
                })
                .and_then(|(board, used)| match board.check() {
                    Ok(()) => Ok((AnyBoard::new::<G>(board), used)),
                    Err(e) => Err(Error::corrupt(format!("header: {e}"))),
                })
        })
    }

    fn try_visit<V: Visitor>(
        board: &AnyBoard,
        visitor: V,
    ) -> std::result::Result<Result<V::Output>, V> {
        match board.build_game::<G>() {
            Some(game) => Ok(game.and_then(|game| visitor.visit(game))),
            None => Err(visitor),
        }
    }
}

/// A tuple of registries is one registry: each method asks the members in order.
macro_rules! tuple_registry {
    ($($r:ident),+) => {
        impl<$($r: Registry),+> Registry for ($($r,)+) {
            fn collect_names(out: &mut Vec<&'static str>) {
                $($r::collect_names(out);)+
            }

            fn collect_rules(out: &mut Vec<(&'static str, &'static str)>) {
                $($r::collect_rules(out);)+
            }

            fn collect_notations(out: &mut Vec<(&'static str, Notation)>) {
                $($r::collect_notations(out);)+
            }

            fn try_parse(
                game: &str,
                text: &str,
                rows: Option<usize>,
                cols: Option<usize>,
            ) -> Option<Result<AnyBoard>> {
                None$(.or_else(|| $r::try_parse(game, text, rows, cols)))+
            }

            fn try_random(
                game: &str,
                rows: usize,
                cols: usize,
                rng: &mut SplitMix,
                max: u64,
            ) -> Option<Result<AnyBoard>> {
                None$(.or_else(|| $r::try_random(game, rows, cols, rng, max)))+
            }

            fn try_decode(game: &str, bytes: &[u8]) -> Option<Result<(AnyBoard, usize)>> {
                None$(.or_else(|| $r::try_decode(game, bytes)))+
            }

            fn try_visit<V: Visitor>(
                board: &AnyBoard,
                visitor: V,
            ) -> std::result::Result<Result<V::Output>, V> {
                let visitor = Err(visitor);
                $(let visitor = match visitor {
                    Err(v) => $r::try_visit(board, v),
                    done => done,
                };)+
                visitor
            }
        }
    };
}

tuple_registry!(A);
tuple_registry!(A, B);
tuple_registry!(A, B, C);
tuple_registry!(A, B, C, D);
tuple_registry!(A, B, C, D, E);
tuple_registry!(A, B, C, D, E, F);
tuple_registry!(A, B, C, D, E, F, H);
tuple_registry!(A, B, C, D, E, F, H, I);

/// The bincode a table header uses for a board (fixed-width integers, little-endian); a
/// board's `decode_earlier` reads its older forms with it.
pub(crate) fn board_config() -> impl bincode::config::Config {
    bincode::config::standard()
        .with_little_endian()
        .with_fixed_int_encoding()
        .with_limit::<{ 1 << 20 }>()
}
