//! The m,n,k-games: x (first) and o take turns marking an empty cell of an R x C board;
//! K of one's marks in a row, a column or a diagonal win at once, a full board without such
//! a line is a tie. 3 x 3 with K = 3 is tic-tac-toe.
//!
//! Positions are ranked by `two_colour` (occupied cells, then which of them hold x), the
//! ranking mnk shares with twins, or, where the game folds the board's symmetries (the
//! square's 8 rotations and reflections, a rectangle's 4: `Mnk::new`), by the orbits of
//! those pairs (`symmetry::Orbits`, ceil(k/2) x's among k cells): one table entry per orbit.
//! The lines map onto lines, so a position's images share its value; x always moves first,
//! so the colours are never exchanged. Values are those of every game won by a line
//! (`values::WinLoss`): cells + 1 - p when x completes a line at ply p, minus that when o
//! does, 0 for a tie.
//!
//! The ranking counts every board with legal counts, including boards play never reaches
//! (both players have a line, play went on after a line, ...). Every board with a line is
//! treated as over, with the value of the player who has one (x: +(cells + 1 - k) at k
//! stones, o: -(cells + 1 - k)) or 0 when both have; `check_reachable` tells them apart for
//! `query` and `play`.

mod board;
mod gameplay;

use super::grid::marks_of;
use super::lines;
use super::rank::{bits, cells};
use super::symmetry::{Cursor, GridGroup, GridSymmetries, Orbits};
use super::two_colour::{self, MAX_CELLS, TwoColour};
use super::{Edge, Game, Move, RunSink, Values, WinLoss};
use crate::error::{Error, Result};
pub use board::MnkBoard;

/// The m,n,k-game on one board: the ranking and the lines, built once.
pub struct Mnk {
    board: MnkBoard,
    cells: usize,
    ranking: TwoColour,
    values: WinLoss,
    /// Every K cells in a row, a column, a diagonal or an anti-diagonal, as a cell mask.
    lines: Vec<u64>,
    /// The orbits of positions under the board's symmetries, where the game folds them
    /// (`Mnk::new`; None for `Mnk::unfolded`): a layer then holds one entry per orbit.
    orbits: Option<Orbits>,
}

/// An mnk position: the two-colour cursor where every position is its own entry; where the
/// game folds, the cells and the walk's place among the orbits.
#[derive(Debug, Clone)]
pub struct MnkPosition(Place);

// The two-colour cursor is large and the folded place small; positions are stepped in place
// and the unfolded sweep walks the cursor itself, so neither is boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
enum Place {
    Unfolded(two_colour::Position),
    Folded {
        stones: usize,
        /// Occupied cells, as a mask (cell r * C + c).
        occupied: u64,
        /// x's cells.
        x: u64,
        /// Where a folded layer's walk is (`Orbits::advance`).
        cursor: Cursor,
    },
}

impl MnkPosition {
    /// Stones on the board.
    pub fn stones(&self) -> usize {
        match &self.0 {
            Place::Unfolded(pos) => pos.stones(),
            Place::Folded { stones, .. } => *stones,
        }
    }

    /// Occupied cells, as a mask (cell r * C + c).
    pub fn occupied(&self) -> u64 {
        match &self.0 {
            Place::Unfolded(pos) => pos.occupied(),
            Place::Folded { occupied, .. } => *occupied,
        }
    }

    /// x's cells, as a mask.
    pub fn x_cells(&self) -> u64 {
        match &self.0 {
            Place::Unfolded(pos) => pos.first_cells(),
            Place::Folded { x, .. } => *x,
        }
    }
}

/// Who has a line, in one position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Lines {
    x: bool,
    o: bool,
}

impl Mnk {
    /// Build the game for a board, its positions folded by the board's symmetries (the
    /// square's 8, a rectangle's 4, a single row's 2): one table entry per orbit. Fails for
    /// boards too large to rank; a board whose layers have too many occupied sets to fold
    /// (past 30 cells, far beyond any table) is not folded.
    pub fn new(board: MnkBoard) -> Result<Self> {
        let mut game = Mnk::unfolded(board)?;
        let (rows, cols) = (game.board.rows, game.board.cols);
        let xs = (0..=game.cells).map(|k| Some(k.div_ceil(2))).collect();
        game.orbits = distinct_symmetries(rows, cols).and_then(|sym| Orbits::new(sym, xs).ok());
        Ok(game)
    }

    /// Build the game for a board with every position its own table entry.
    pub fn unfolded(board: MnkBoard) -> Result<Self> {
        let board = MnkBoard::checked(board.rows, board.cols, board.k)?;
        let ranking = TwoColour::new(board.rows, board.cols)?;
        let cols = board.cols;
        let lines = lines::lines(board.rows, cols, board.k, |i, j| (i * cols + j) as u32);
        Ok(Mnk {
            cells: board.rows * board.cols,
            values: WinLoss {
                cells: board.rows * board.cols,
            },
            board,
            ranking,
            lines,
            orbits: None,
        })
    }

    /// The board.
    pub fn board(&self) -> &MnkBoard {
        &self.board
    }

    /// Every cell, as a mask.
    fn all(&self) -> u64 {
        u64::MAX >> (64 - self.cells)
    }

    /// The position with these cells: x's among the occupied ones.
    fn position(&self, occupied: u64, x: u64) -> MnkPosition {
        if self.orbits.is_some() {
            return MnkPosition(Place::Folded {
                stones: occupied.count_ones() as usize,
                occupied,
                x,
                cursor: Cursor::default(),
            });
        }
        let marks = marks_of(x, occupied & !x, self.cells);
        MnkPosition(Place::Unfolded(self.ranking.position_from_marks(&marks)))
    }

    /// The position with these marks (0 empty, 1 x, 2 o; row-major).
    fn position_of_marks(&self, marks: &[u8]) -> MnkPosition {
        let cells = |m: u8| {
            marks
                .iter()
                .enumerate()
                .filter(|&(_, &c)| c == m)
                .fold(0u64, |mask, (i, _)| mask | 1 << i)
        };
        let x = cells(1);
        self.position(x | cells(2), x)
    }

    /// Marks per cell, row-major: 0 empty, 1 x, 2 o.
    fn marks(&self, pos: &MnkPosition) -> Vec<u8> {
        let (x, o) = self.cell_masks(pos);
        marks_of(x, o, self.cells)
    }

    /// x's and o's cells, as masks.
    fn cell_masks(&self, pos: &MnkPosition) -> (u64, u64) {
        let x = pos.x_cells();
        (x, pos.occupied() & !x)
    }

    fn lines_of(&self, pos: &MnkPosition) -> Lines {
        let (x, o) = self.cell_masks(pos);
        // A line is had when none of its cells lies outside the mask.
        let has = |m: u64| self.lines.iter().any(|&l| l & !m == 0);
        Lines {
            x: has(x),
            o: has(o),
        }
    }

    /// The lines fully inside `occupied`, as masks over the positions of the occupied
    /// cells (the positions the cursor's `first` mask uses): while a walk stays on one
    /// occupied set, checking a position is then a few ands.
    fn full_lines(&self, occupied: u64, out: &mut Vec<u64>) {
        out.clear();
        for &line in &self.lines {
            if line & occupied != line {
                continue;
            }
            let rel = bits(line).fold(0u64, |rel, cell| {
                rel | 1 << (occupied & ((1u64 << cell) - 1)).count_ones()
            });
            out.push(rel);
        }
    }

    /// The child's rank in a folded layer k + 1: a stone of the side to move on `cell` (a
    /// one-bit mask).
    #[inline]
    fn folded_child(orbits: &Orbits, k: usize, occupied: u64, x: u64, cell: u64) -> u64 {
        let x = if k.is_multiple_of(2) { x | cell } else { x };
        orbits.rank(k + 1, occupied | cell, x)
    }

    /// `visit_runs` where the game folds: the walk goes from orbit to orbit, its canonical
    /// positions' occupied sets changing only between orbits, so the lines inside the set
    /// are found once per set; each move's child is ranked among the orbits of layer k + 1.
    /// Kept out of line: inlined, it cost the unfolded walk in `visit_runs` 4% (mnk 3x6k4
    /// on one thread).
    #[inline(never)]
    fn visit_folded_runs(
        &self,
        orbits: &Orbits,
        k: usize,
        start: u64,
        len: usize,
        sink: &mut impl RunSink,
    ) {
        let (mut occupied, mut x, mut cursor) = orbits.unrank(k, start);
        // The lines inside the occupied set, as cell masks.
        let mut full = Vec::with_capacity(self.lines.len());
        let refresh = |occupied: u64, full: &mut Vec<u64>| {
            full.clear();
            full.extend(self.lines.iter().filter(|&&l| l & occupied == l));
        };
        refresh(occupied, &mut full);
        sink.run(start, len);
        for i in 0..len {
            if i > 0 {
                let (set, next) = orbits.advance(k, &mut cursor);
                if set != occupied {
                    occupied = set;
                    refresh(occupied, &mut full);
                }
                x = next;
            }
            let mut lines = Lines { x: false, o: false };
            for &line in &full {
                let xs = x & line;
                lines.x |= xs == line;
                lines.o |= xs == 0;
            }
            match self.values.line_value(lines.x, lines.o, k) {
                Some(value) => sink.terminal(i, value),
                None => {
                    for cell in cells(self.all() & !occupied) {
                        sink.single(i, Self::folded_child(orbits, k, occupied, x, cell), 0);
                    }
                }
            }
        }
    }

    /// What a position of this board looks like, with an example, for error messages.
    fn position_form(&self) -> String {
        let (r, c) = (self.board.rows, self.board.cols);
        let example: Vec<String> = (0..r)
            .map(|i| {
                (0..c)
                    .map(|j| match i * c + j {
                        0 => 'x',
                        1 => 'o',
                        _ => '.',
                    })
                    .collect()
            })
            .collect();
        format!(
            "mnk {r} x {c} positions look like {} (rows of x, o, . separated by /; x moves first)",
            example.join("/")
        )
    }
}

/// The board's distinct symmetries (the square's 8, a rectangle's 4, a single row's 2, the
/// identity first); None where the identity is the only one (a single cell).
fn distinct_symmetries(rows: usize, cols: usize) -> Option<GridSymmetries> {
    let grid = GridSymmetries::grid(rows, cols, GridGroup::Dihedral);
    let cells = rows * cols;
    let mut images: Vec<Vec<u8>> = Vec::new();
    for g in 0..grid.len() {
        let image: Vec<u8> = (0..cells).map(|c| grid.map_cell(g, c) as u8).collect();
        if !images.contains(&image) {
            images.push(image);
        }
    }
    (images.len() > 1).then(|| GridSymmetries::from_images(cells, images))
}

impl Game for Mnk {
    type Position = MnkPosition;

    fn last_layer(&self) -> usize {
        self.cells
    }

    fn layer_size(&self, k: usize) -> u64 {
        match &self.orbits {
            Some(orbits) => orbits.layer_size(k),
            None => self.ranking.layer_size(k),
        }
    }

    fn values(&self) -> Values {
        Values::Lines(self.values)
    }

    fn prepare_layer(&self, k: usize) {
        match &self.orbits {
            Some(orbits) => orbits.prepare(k),
            None => self.ranking.prepare_layer(k),
        }
    }

    fn table_bytes(&self) -> u64 {
        match &self.orbits {
            Some(orbits) => orbits.table_bytes(),
            None => self.ranking.table_bytes(),
        }
    }

    fn unbuilt_table_bytes(&self, k: usize) -> u64 {
        match &self.orbits {
            Some(o) if !o.is_built(k) => o.layer_bytes(k),
            _ => 0,
        }
    }

    fn unrank(&self, k: usize, rank: u64) -> MnkPosition {
        match &self.orbits {
            Some(orbits) => {
                let (occupied, x, cursor) = orbits.unrank(k, rank);
                MnkPosition(Place::Folded {
                    stones: k,
                    occupied,
                    x,
                    cursor,
                })
            }
            None => MnkPosition(Place::Unfolded(self.ranking.unrank(k, rank))),
        }
    }

    fn rank(&self, pos: &MnkPosition) -> u64 {
        match (&self.orbits, &pos.0) {
            (Some(orbits), _) => orbits.rank(pos.stones(), pos.occupied(), pos.x_cells()),
            (None, Place::Unfolded(p)) => self.ranking.rank(p),
            (None, Place::Folded { .. }) => self.rank(&self.position_of_marks(&self.marks(pos))),
        }
    }

    fn layer_of(&self, pos: &MnkPosition) -> usize {
        pos.stones()
    }

    #[inline]
    fn advance(&self, pos: &mut MnkPosition) {
        match (&self.orbits, &mut pos.0) {
            (
                Some(orbits),
                Place::Folded {
                    stones,
                    occupied,
                    x,
                    cursor,
                },
            ) => (*occupied, *x) = orbits.advance(*stones, cursor),
            (None, Place::Unfolded(p)) => self.ranking.advance(p),
            // A game steps only the positions its own `unrank` made.
            _ => unreachable!("an mnk position stepped by a game folded otherwise"),
        }
    }

    /// A line, or a full board (a tie).
    fn ended(&self, pos: &MnkPosition) -> Option<i64> {
        let lines = self.lines_of(pos);
        let stones = pos.stones();
        self.values
            .line_value(lines.x, lines.o, stones)
            .or((stones == self.cells).then_some(0))
    }

    fn for_each_child(&self, pos: &MnkPosition, mut f: impl FnMut(Edge)) {
        if self.ended(pos).is_some() {
            return;
        }
        let layer = pos.stones() + 1;
        let edge = |rank| Edge {
            layer,
            rank,
            reward: 0,
        };
        match (&self.orbits, &pos.0) {
            (Some(orbits), _) => {
                let (occupied, x) = (pos.occupied(), pos.x_cells());
                for cell in cells(self.all() & !occupied) {
                    f(edge(Self::folded_child(
                        orbits,
                        layer - 1,
                        occupied,
                        x,
                        cell,
                    )));
                }
            }
            (None, Place::Unfolded(p)) => self.ranking.for_each_child(p, |rank| f(edge(rank))),
            (None, Place::Folded { .. }) => {
                self.for_each_child(&self.position_of_marks(&self.marks(pos)), f)
            }
        }
    }

    /// One run over the whole stretch; the lines are looked up once per occupied set
    /// (`full_lines`), not per position.
    fn visit_runs(&self, k: usize, start: u64, len: usize, sink: &mut impl RunSink) {
        if let Some(orbits) = &self.orbits {
            return self.visit_folded_runs(orbits, k, start, len, sink);
        }
        let mut pos = self.ranking.unrank(k, start);
        let mut full = Vec::with_capacity(self.lines.len());
        self.full_lines(pos.occupied(), &mut full);
        sink.run(start, len);
        for i in 0..len {
            if i > 0 {
                let occupied = pos.occupied();
                self.ranking.advance(&mut pos);
                if pos.occupied() != occupied {
                    self.full_lines(pos.occupied(), &mut full);
                }
            }
            let mut lines = Lines { x: false, o: false };
            for &rel in &full {
                let x = pos.first & rel;
                lines.x |= x == rel;
                lines.o |= x == 0;
            }
            match self.values.line_value(lines.x, lines.o, k) {
                Some(value) => sink.terminal(i, value),
                None => self
                    .ranking
                    .for_each_child(&pos, |child| sink.single(i, child, 0)),
            }
        }
    }

    fn moves(&self, pos: &MnkPosition) -> Vec<Move<MnkPosition>> {
        if self.ended(pos).is_some() {
            return Vec::new();
        }
        let (occupied, x) = (pos.occupied(), pos.x_cells());
        let x_moves = pos.stones().is_multiple_of(2);
        (0..self.cells)
            .filter(|&c| occupied >> c & 1 == 0)
            .map(|c| {
                let cell = 1u64 << c;
                Move {
                    from: None,
                    row: c / self.board.cols,
                    col: c % self.board.cols,
                    reward: 0,
                    take: None,
                    child: self.position(occupied | cell, if x_moves { x | cell } else { x }),
                }
            })
            .collect()
    }

    fn layer_positions(&self, k: usize) -> u64 {
        self.ranking.layer_size(k)
    }

    fn symmetries(&self) -> usize {
        self.orbits.as_ref().map_or(1, |o| o.symmetries().len())
    }

    fn orbit_size(&self, pos: &MnkPosition) -> u64 {
        self.orbits
            .as_ref()
            .map_or(1, |o| o.orbit_size(pos.occupied(), pos.x_cells()))
    }

    fn images(&self, pos: &MnkPosition) -> Vec<MnkPosition> {
        match &self.orbits {
            Some(orbits) => orbits
                .images(pos.occupied(), pos.x_cells())
                .into_iter()
                .map(|(occupied, x)| self.position(occupied, x))
                .collect(),
            None => vec![pos.clone()],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use crate::game::{Board, Gameplay};

    #[test]
    fn inputs_read_back() {
        for text in ["4 4 4", "4x4k4", " 4X4K4\n", "4 4", "4x4"] {
            let board = MnkBoard::parse(text).unwrap();
            assert_eq!(
                board,
                MnkBoard {
                    rows: 4,
                    cols: 4,
                    k: 4
                },
                "{text:?}"
            );
            assert_eq!(MnkBoard::parse(&board.to_input()).unwrap(), board);
        }
        assert_eq!(MnkBoard::parse("4x5k3").unwrap().k, 3);
        for bad in [
            "", "4", "4 4 5", "4 4 0", "0 4 1", "4x", "4x4k", "4 4 4 4", "-1 3 3",
        ] {
            assert!(MnkBoard::parse(bad).is_err(), "{bad:?}");
        }
        // `--rows/--cols` size only a board whose input leaves its size out.
        let err = <crate::game::Builtin as crate::game::Registry>::parse_sized(
            "mnk",
            "3 3 3",
            Some(3),
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("--rows/--cols") && err.contains("mnk"),
            "{err}"
        );
        assert!(
            <crate::game::Builtin as crate::game::Registry>::parse_sized(
                "mnk", "3 3 3", None, None
            )
            .is_ok()
        );
    }

    #[test]
    fn lines_of_tic_tac_toe() {
        let game = Mnk::new(MnkBoard {
            rows: 3,
            cols: 3,
            k: 3,
        })
        .unwrap();
        assert_eq!(game.lines.len(), 8);
        let game = Mnk::new(MnkBoard {
            rows: 4,
            cols: 5,
            k: 4,
        })
        .unwrap();
        assert_eq!(game.lines.len(), 8 + 5 + 2 + 2);
        let game = Mnk::new(MnkBoard {
            rows: 2,
            cols: 2,
            k: 1,
        })
        .unwrap();
        assert_eq!(game.lines.len(), 4);
    }
}
