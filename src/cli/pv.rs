//! Principal variations: the best line from a position to the end of the game, with both
//! players' running scores (shared by `query --pv` and `play`).

use crate::error::Result;
use crate::game::{Game, GameSpec, Move};
use crate::table::Table;

use super::query::answer_position;

/// Running scores of both players. Young: the weights each side has collected since the
/// start of the line. Twins: the pairs already decided on the board (both cells filled).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scores {
    pub first: i64,
    pub second: i64,
}

impl Scores {
    pub fn at_start<G: Game>(game: &G, spec: &GameSpec, pos: &G::Position) -> Scores {
        match spec {
            GameSpec::Young(_) => Scores::default(),
            GameSpec::Twins(t) => {
                let text = game.format_position(pos);
                let marks: Vec<char> = text.chars().filter(|&c| c != '/').collect();
                let mut s = Scores::default();
                let mut pair = |a: usize, b: usize, w: i64| {
                    if marks[a] != '.' && marks[b] != '.' {
                        if marks[a] == marks[b] {
                            s.first += w
                        } else {
                            s.second += w
                        }
                    }
                };
                for i in 0..t.rows.saturating_sub(1) {
                    for j in 0..t.cols {
                        pair(i * t.cols + j, (i + 1) * t.cols + j, t.vert[i * t.cols + j]);
                    }
                }
                for i in 0..t.rows {
                    for j in 0..t.cols.saturating_sub(1) {
                        pair(
                            i * t.cols + j,
                            i * t.cols + j + 1,
                            t.horiz[i * (t.cols - 1) + j],
                        );
                    }
                }
                s
            }
        }
    }

    /// Scores after `mv` is played from `pos` by the side to move.
    pub fn after<G: Game>(
        self,
        game: &G,
        spec: &GameSpec,
        pos: &G::Position,
        mv: &Move<G::Position>,
    ) -> Scores {
        match spec {
            GameSpec::Young(_) => {
                let mut s = self;
                if game.stones(pos) % 2 == 0 {
                    s.first += mv.reward
                } else {
                    s.second -= mv.reward
                }
                s
            }
            GameSpec::Twins(_) => Scores::at_start(game, spec, &mv.child),
        }
    }

    /// The number a position's value is compared with at the end of the line.
    pub fn result(self, spec: &GameSpec) -> i64 {
        match spec {
            GameSpec::Young(_) => self.first - self.second,
            GameSpec::Twins(_) => self.first,
        }
    }
}

pub struct Step<P> {
    pub mv: Move<P>,
    pub first_to_move: bool,
    pub scores: Scores,
}

/// Follow the first best move until the board is full.
pub fn principal_variation<G: Game>(
    game: &G,
    spec: &GameSpec,
    table: &Table,
    start: &G::Position,
) -> Result<Vec<Step<G::Position>>> {
    let mut steps = Vec::new();
    let mut position = start.clone();
    let mut scores = Scores::at_start(game, spec, start);
    loop {
        let a = answer_position(game, table, position)?;
        let Some(best) = (0..a.moves.len()).find(|&i| a.is_best(i)) else {
            break;
        };
        let mv = a.moves[best].0.clone();
        scores = scores.after(game, spec, &a.position, &mv);
        position = mv.child.clone();
        steps.push(Step {
            mv,
            first_to_move: game.stones(&a.position) % 2 == 0,
            scores,
        });
    }
    Ok(steps)
}
