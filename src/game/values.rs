//! What a stored value means, in one place: a game names its model (`Game::values`) and the
//! solvers, `verify`, `query` and `export` read every rule of it from here: how a value
//! passes back through a move, which of two values the side to move prefers, what a
//! position with no move is worth, and the result and remoteness a value stands for.
//!
//! Three models:
//!
//! - **Scores** (young, twins): what the first player makes of the rest of the game, a
//!   difference of scores. A move adds its reward; the first player (even layers)
//!   maximises, the second minimises.
//! - **Lines** (mnk, connect, Hex): a game won by completing a line, seen from x, the first
//!   player: `cells + 1 - p` when x completes a line at ply p, minus that when o does, 0 for
//!   a tie. Moves add nothing, so the scores' max and min pick the fastest win and the
//!   slowest loss (`WinLoss`); the remoteness follows from the value and the stone count.
//! - **SideToMove** (Teeko, Quixo, Morris): win, loss or draw for the side to move with the
//!   remoteness, stored as `r + 1` for a win in r plies, `-(r + 1)` for a loss in r, 0 for
//!   a draw (`Wdl`). A move turns its child's value round (`back`). A position whose moves
//!   can repeat is solved to a fixpoint; a position with no move is lost.

use super::{Outcome, Verdict};
use crate::stored::ValueType;

/// A game's value model (see the module's docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Values {
    /// Differences of scores, from the first player's side; every value, every reward and
    /// every reward plus a child's value lies in `lo..=hi`.
    Scores {
        /// The least value.
        lo: i64,
        /// The greatest value.
        hi: i64,
    },
    /// Win, loss or tie by a line, from x's side (`WinLoss`).
    Lines(WinLoss),
    /// Win, loss or draw for the side to move, with the remoteness (`Wdl`).
    SideToMove,
}

impl Values {
    /// Every stored value lies in this range.
    pub fn range(self) -> (i64, i64) {
        match self {
            Values::Scores { lo, hi } => (lo, hi),
            Values::Lines(w) => w.value_range(),
            Values::SideToMove => (i16::MIN.into(), i16::MAX.into()),
        }
    }

    /// The integer type a solver computes in: the narrowest that holds the range. (A table of
    /// the side-to-move model may be narrowed once its largest remoteness is known.)
    pub fn value_type(self) -> ValueType {
        let (lo, hi) = self.range();
        ValueType::for_range(lo, hi)
    }

    /// Whether values are for the side to move (turned round by every move) rather than for
    /// the first player.
    pub fn for_side_to_move(self) -> bool {
        matches!(self, Values::SideToMove)
    }

    /// A move's value for the position it is played from: the reward plus the child's value,
    /// or, for values of the side to move, the child's value turned round (`back`).
    #[inline]
    pub fn through(self, reward: i64, child: i64) -> i64 {
        match self {
            Values::SideToMove => back(child),
            _ => reward + child,
        }
    }

    /// Whether the side to move at a position of layer `layer` prefers value `a` to `b` (both
    /// seen from the position, as `through` gives them).
    #[inline]
    pub fn better(self, a: i64, b: i64, layer: usize) -> bool {
        match self {
            Values::SideToMove => better(a, b),
            _ if layer.is_multiple_of(2) => a > b,
            _ => a < b,
        }
    }

    /// The best of `through` over a position's moves, or None where it has none.
    pub fn best(self, layer: usize, moves: impl IntoIterator<Item = i64>) -> Option<i64> {
        moves.into_iter().fold(None, |best, v| match best {
            Some(b) if !self.better(v, b, layer) => Some(b),
            _ => Some(v),
        })
    }

    /// What a position where play goes on but no move is legal is worth: a loss for the side
    /// to move in the side-to-move model; None where the game defines no such position (a
    /// placement game's positions without moves are ended, `Game::ended`).
    pub fn no_move(self) -> Option<i64> {
        match self {
            Values::SideToMove => Some(Wdl::Loss(0).encode().into()),
            _ => None,
        }
    }

    /// A value in words without naming the side to move: the number itself for scores, "x
    /// completes a line at ply 9, x's 5th stone", "win in 5".
    pub fn describe(self, value: i64) -> String {
        match self {
            Values::Scores { .. } => value.to_string(),
            Values::Lines(w) => w.describe(value),
            Values::SideToMove => Wdl::decode(value).describe(),
        }
    }

    /// A value in words for the side to move at a position of layer `layer`, x (`first`) or
    /// o: "x to move wins in 5 (remoteness 5)".
    pub fn describe_at(self, value: i64, layer: usize, first: bool) -> String {
        match self {
            Values::Scores { .. } => self.describe(value),
            Values::Lines(w) => w.describe_at(value, layer),
            Values::SideToMove => Wdl::decode(value).describe_for(first),
        }
    }

    /// The root's value in words, as `solve` prints it for a game with outcomes: from x's
    /// side, who moves first.
    pub fn describe_root(self, value: i64) -> String {
        match self {
            Values::SideToMove => Wdl::decode(value).describe_for(true),
            _ => self.describe(value),
        }
    }

    /// What a stored value (a code, for games with outcomes) means, in one line.
    pub fn meaning(self) -> &'static str {
        match self {
            Values::Scores { .. } => {
                "value: what the first player makes of the rest of the game, with perfect play"
            }
            Values::Lines(_) => WinLoss::meaning(),
            Values::SideToMove => {
                "value: said for the side to move, a win or a loss in r plies or a draw (neither side can force a win); `query --json` gives the stored code (r + 1 for a win in r, -(r + 1) for a loss in r, 0 for a draw)"
            }
        }
    }

    /// The result and remoteness a value of a position in layer `layer` stands for, for the
    /// side to move there; None for a game of scores.
    pub fn outcome(self, value: i64, layer: usize) -> Option<Outcome> {
        match self {
            Values::Scores { .. } => None,
            Values::Lines(w) => Some(w.outcome(value, layer)),
            Values::SideToMove => Some(Wdl::decode(value).outcome()),
        }
    }
}

/// The values of one board of `cells` cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WinLoss {
    /// Cells of the board: the longest game.
    pub cells: usize,
}

impl WinLoss {
    /// The value of a board with `stones` stones where x has a line (`x`) and o has one
    /// (`o`); None without a line. A board where both have one (which play never reaches)
    /// is given 0.
    #[inline]
    pub fn line_value(self, x: bool, o: bool, stones: usize) -> Option<i64> {
        let win = (self.cells + 1 - stones) as i64;
        match (x, o) {
            (false, false) => None,
            (true, false) => Some(win),
            (false, true) => Some(-win),
            (true, true) => Some(0),
        }
    }

    /// Every value lies in this range.
    pub fn value_range(self) -> (i64, i64) {
        (-(self.cells as i64), self.cells as i64)
    }

    fn winner(value: i64) -> &'static str {
        if value > 0 { "x" } else { "o" }
    }

    /// The ply at which the line of a nonzero value is completed.
    fn ply(self, value: i64) -> usize {
        (self.cells + 1).saturating_sub(value.unsigned_abs() as usize)
    }

    /// "ply 5, x's 3rd stone": a ply is one stone, x plays the odd ones and o the even
    /// ones, so people who count moves per player see where the line comes.
    fn ply_words(self, value: i64) -> String {
        let ply = self.ply(value);
        let winner = Self::winner(value);
        format!(
            "ply {ply}, {winner}'s {} stone",
            super::lines::ordinal(ply.div_ceil(2))
        )
    }

    /// `Gameplay::describe_value`: the root's value in words, from x's side, without the
    /// stored number ("x completes a line at ply 9, x's 5th stone").
    pub fn describe(self, value: i64) -> String {
        if value == 0 {
            return "tie with best play".into();
        }
        format!(
            "{} completes a line at {}",
            Self::winner(value),
            self.ply_words(value)
        )
    }

    /// `Gameplay::value_meaning`: what the stored number is (a code: `query --json` gives it
    /// as `code`, and `result` and `remoteness` besides).
    pub fn meaning() -> &'static str {
        "value: said as who wins at which ply, or a tie (a ply is one stone: ply 5 is x's 3rd); \
         `query --json` gives the stored code (cells + 1 - p when x, first, completes a line at \
         ply p, minus that when o does, 0 for a tie)"
    }

    /// `Gameplay::describe_value_at`: the result and the remoteness for the side to move, in
    /// words.
    pub fn describe_at(self, value: i64, stones: usize) -> String {
        let o = self.outcome(value, stones);
        let side = if stones.is_multiple_of(2) { "x" } else { "o" };
        let r = o.remoteness;
        match (o.result, r) {
            (Verdict::Tie, 0) => "a tie: the board is full".into(),
            (Verdict::Tie | Verdict::Draw, _) => {
                format!("tie with best play (remoteness {r}: the board fills)")
            }
            (_, 0) => format!(
                "{} has won (a line at {})",
                Self::winner(value),
                self.ply_words(value)
            ),
            (Verdict::Win, _) => format!("{side} to move wins in {r} (remoteness {r})"),
            (Verdict::Loss, _) => format!("{side} to move loses in {r} (remoteness {r})"),
        }
    }

    /// The result and the remoteness for the side to move at a position of `stones` stones.
    pub fn outcome(self, value: i64, stones: usize) -> Outcome {
        if value == 0 {
            return Outcome {
                result: Verdict::Tie,
                remoteness: self.cells.saturating_sub(stones),
            };
        }
        let x_to_move = stones.is_multiple_of(2);
        Outcome {
            result: if (value > 0) == x_to_move {
                Verdict::Win
            } else {
                Verdict::Loss
            },
            remoteness: self.ply(value).saturating_sub(stones),
        }
    }
}

/// A value for the side to move, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wdl {
    /// The side to move wins in this many plies.
    Win(u32),
    /// The side to move loses in this many plies (0: play has ended).
    Loss(u32),
    /// Neither side can force a win.
    Draw,
}

/// The most plies a remoteness may take: its stored value must fit an `i16`.
pub const MAX_REMOTENESS: u32 = i16::MAX as u32 - 1;

impl Wdl {
    /// The stored value (see the module's docs).
    pub fn encode(self) -> i16 {
        match self {
            Wdl::Win(r) => (r + 1) as i16,
            Wdl::Loss(r) => -((r + 1) as i16),
            Wdl::Draw => 0,
        }
    }

    /// The outcome a stored value stands for.
    pub fn decode(value: i64) -> Wdl {
        match value {
            0 => Wdl::Draw,
            v if v > 0 => Wdl::Win((v - 1).min(u32::MAX as i64) as u32),
            v => Wdl::Loss((-(v + 1)).min(u32::MAX as i64) as u32),
        }
    }

    /// In words without naming the side: "win in 5", "loss in 14", "draw: ...".
    pub fn describe(self) -> String {
        match self {
            Wdl::Win(0) => "won (the other side completed the mover's line)".into(),
            Wdl::Loss(0) => "lost (the game is over)".into(),
            Wdl::Win(r) => format!("win in {r}"),
            Wdl::Loss(r) => format!("loss in {r}"),
            Wdl::Draw => "draw: neither side can force a win".into(),
        }
    }

    /// In words for the side to move, x (`first`) or o: "o to move loses in 14". A game
    /// already over (remoteness 0) has nobody to move, and says who has won.
    pub fn describe_for(self, first: bool) -> String {
        let (me, other) = if first { ("x", "o") } else { ("o", "x") };
        match self {
            Wdl::Win(0) => format!("{me} has won: {other} completed a line of {me}'s"),
            Wdl::Loss(0) => format!("{other} has won"),
            Wdl::Win(r) => format!("{me} to move wins in {r} (remoteness {r})"),
            Wdl::Loss(r) => format!("{me} to move loses in {r} (remoteness {r})"),
            Wdl::Draw => "draw: neither side can force a win".into(),
        }
    }

    /// As a result and a remoteness (a draw has remoteness 0: play never ends).
    pub fn outcome(self) -> Outcome {
        let (result, remoteness) = match self {
            Wdl::Win(r) => (Verdict::Win, r as usize),
            Wdl::Loss(r) => (Verdict::Loss, r as usize),
            Wdl::Draw => (Verdict::Draw, 0),
        };
        Outcome { result, remoteness }
    }
}

/// The value a move gives the side that plays it, from its child's value (for the other
/// side): a child lost in r plies is a win in r + 1, one won in r a loss in r + 1, a draw a
/// draw. Values stay inside `i16` (remoteness at most `MAX_REMOTENESS`), so no overflow for
/// a value a solver wrote; a damaged table's are clamped.
#[inline]
pub fn back(child: i64) -> i64 {
    match child {
        0 => 0,
        c if c < 0 => (1 - c).min(i64::from(i16::MAX)),
        c => (-1 - c).max(-i64::from(i16::MAX)),
    }
}

/// Whether value `a` is better than `b` for the side to move: a faster win, then a draw,
/// then a slower loss.
#[inline]
pub fn better(a: i64, b: i64) -> bool {
    let key = |v: i64| match v {
        v if v > 0 => (2, -v),
        0 => (1, 0),
        v => (0, -v),
    };
    key(a) > key(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wdl_round_trips_and_turns_round() {
        for wdl in [
            Wdl::Win(0),
            Wdl::Win(7),
            Wdl::Loss(0),
            Wdl::Loss(12),
            Wdl::Draw,
        ] {
            assert_eq!(Wdl::decode(wdl.encode().into()), wdl);
        }
        let code = |w: Wdl| i64::from(w.encode());
        assert_eq!(back(code(Wdl::Loss(3))), code(Wdl::Win(4)));
        assert_eq!(back(code(Wdl::Win(3))), code(Wdl::Loss(4)));
        assert_eq!(back(0), 0);
    }

    #[test]
    fn the_side_to_move_prefers_fast_wins_then_draws_then_slow_losses() {
        let (w1, w5, d, l2, l9) = (
            Wdl::Win(1).encode().into(),
            Wdl::Win(5).encode().into(),
            0,
            Wdl::Loss(2).encode().into(),
            Wdl::Loss(9).encode().into(),
        );
        let order = [w1, w5, d, l9, l2];
        for (i, &a) in order.iter().enumerate() {
            for &b in &order[i + 1..] {
                assert!(better(a, b) && !better(b, a), "{a} over {b}");
                assert!(Values::SideToMove.better(a, b, 3));
            }
        }
        assert_eq!(Values::SideToMove.best(0, [l2, d, w5]), Some(w5));
        assert_eq!(Values::SideToMove.best(0, []), None);
    }

    #[test]
    fn scores_alternate_between_max_and_min_by_layer() {
        let scores = Values::Scores { lo: -9, hi: 9 };
        assert_eq!(scores.best(0, [1, -3, 4]), Some(4));
        assert_eq!(scores.best(1, [1, -3, 4]), Some(-3));
        assert_eq!(scores.through(2, 5), 7);
        assert_eq!(Values::SideToMove.through(2, 5), back(5));
    }
}
