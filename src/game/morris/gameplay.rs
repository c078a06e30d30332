//! What people see of Morris: positions as `query` reads and prints them (the points in
//! reading order, both hands, the side to move), moves as players write them (`d2`,
//! `d2-d3`, `d2-d3xa4`), the board drawn, and its name and board (`Registered`).

use super::*;
use crate::game::{Board, Gameplay, LayerWords, MoveNotation, Registered};

impl Morris {
    fn form(&self) -> String {
        format!(
            "a position is the {} points in reading order (top row first) as x, o or '.', '/' between rows allowed, then x's stones in hand, o's, and the side to move: `{}`{}",
            self.n,
            self.format_position(&self.example()),
            if self.board.moving {
                ""
            } else {
                ", or `start`"
            }
        )
    }

    /// A position to show in messages: the start, or in the moving phase alone the first
    /// position of its first layer.
    fn example(&self) -> MorrisPosition {
        match self.board.moving {
            true => self.stand_in(),
            false => self.start(),
        }
    }

    /// The first position, in rank order, of the largest layer that `check_reachable`
    /// lets arise and that is not over: where a table of the moving phase alone opens
    /// (it has no start). The table's very first position is a lost one no play reaches.
    fn stand_in(&self) -> MorrisPosition {
        // Layers by size, largest first; a few thousand positions of each are enough to
        // meet one that play reaches (a layer's first ones pack a side's stones together).
        let mut layers: Vec<usize> = (0..=self.last_layer()).collect();
        layers.sort_by_key(|&k| std::cmp::Reverse(self.layer_size(k)));
        for k in layers {
            let n = self.layer_size(k);
            if n == 0 {
                continue;
            }
            let mut pos = self.unrank(k, 0);
            for r in 0..n.min(1 << 16) {
                if r > 0 {
                    self.advance(&mut pos);
                }
                if self.ended(&pos).is_none() && self.check_reachable(&pos).is_ok() {
                    return pos;
                }
            }
        }
        self.unrank(0, 0)
    }

    /// The position before the first move.
    fn start(&self) -> MorrisPosition {
        let s = self.stones as u8;
        self.child(0, 0, [s, s], 0)
    }

    /// The name of a point given by its grid cell.
    fn name_of(&self, cell: (usize, usize)) -> &str {
        let g = &self.geometry;
        g.cells
            .iter()
            .position(|&c| c == cell)
            .map_or("?", |i| g.names[i].as_str())
    }

    /// Lengths of the diagram's rows, top first (the `/`s of a position's text).
    fn row_lengths(&self) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        let mut last = usize::MAX;
        for &(r, _) in &self.geometry.cells {
            if r == last {
                if let Some(n) = out.last_mut() {
                    *n += 1;
                }
            } else {
                out.push(1);
                last = r;
            }
        }
        out
    }
}

impl Gameplay for Morris {
    /// Stones come and go: counted.
    fn side_stones(&self, pos: &MorrisPosition) -> [usize; 2] {
        [pos.x.count_ones() as usize, pos.o.count_ones() as usize]
    }

    /// Each side's stones, and while placing what is in hand (x places first).
    fn layer_words(&self, k: usize) -> Option<LayerWords> {
        let s = self.stones;
        Some(match self.layer_shape(k) {
            Shape::Placement { p, bx, bo } => LayerWords {
                holds: format!(
                    "stones {bx}-{bo}, in hand {}-{}",
                    s - p.div_ceil(2),
                    s - p / 2
                ),
                phase: "placing".into(),
            },
            Shape::Movement { a, b } => LayerWords {
                holds: format!("stones {a}-{b}"),
                phase: "moving".into(),
            },
            Shape::Lost => LayerWords {
                holds: "a side under 3 stones".into(),
                phase: "lost".into(),
            },
        })
    }

    fn move_notation(&self) -> MoveNotation {
        MoveNotation::Named
    }

    /// The start's value; the moving phase alone has no start, so its table's first
    /// position stands in, named.
    fn contest_answer(&self, root: i64) -> String {
        let words = self.values().describe_root(root);
        match self.board.moving {
            true => format!(
                "{words} (the moving phase alone has no start: this is its first position, {})",
                self.format_position(&self.unrank(0, 0))
            ),
            false => words,
        }
    }

    fn name_move(
        &self,
        from: Option<(usize, usize)>,
        to: (usize, usize),
        take: Option<(usize, usize)>,
    ) -> Option<String> {
        let mut out = String::new();
        if let Some(from) = from {
            out.push_str(self.name_of(from));
            out.push('-');
        }
        out.push_str(self.name_of(to));
        if let Some(take) = take {
            out.push('x');
            out.push_str(self.name_of(take));
        }
        Some(out)
    }

    fn parse_position(&self, text: &str) -> Result<MorrisPosition> {
        let bad = |why: String| {
            Error::input(format!(
                "bad morris position {}: {why}; {}",
                crate::error::excerpt(text),
                self.form()
            ))
        };
        let trimmed = text.trim();
        if trimmed.eq_ignore_ascii_case("start") || trimmed.eq_ignore_ascii_case("empty") {
            if self.board.moving {
                return Err(bad(
                    "the moving phase alone has no start: give a position with both hands empty"
                        .into(),
                ));
            }
            return Ok(self.start());
        }
        let words: Vec<&str> = trimmed.split_whitespace().collect();
        if words.len() < 4 {
            return Err(bad(
                "too few words for the points, two hands and the side to move".into(),
            ));
        }
        let (points, rest) = words.split_at(words.len() - 3);
        let (mut x, mut o, mut count) = (0u32, 0u32, 0usize);
        for ch in points.concat().chars().filter(|&c| c != '/') {
            if count == self.n {
                return Err(bad(format!("more than {} points", self.n)));
            }
            match ch.to_ascii_lowercase() {
                'x' => x |= 1 << count,
                'o' => o |= 1 << count,
                '.' => {}
                other => {
                    return Err(bad(format!(
                        "point {} holds {other:?}; points are 'x', 'o' or '.'",
                        self.geometry.names[count]
                    )));
                }
            }
            count += 1;
        }
        if count != self.n {
            return Err(bad(format!(
                "{count} points where the board has {}",
                self.n
            )));
        }
        let hand = |t: &str, who: &str| {
            t.parse::<u8>().map_err(|_| {
                bad(format!(
                    "{who}'s stones in hand are a number, not {}",
                    crate::error::excerpt(t)
                ))
            })
        };
        let hands = [hand(rest[0], "x")?, hand(rest[1], "o")?];
        let side = match rest[2].to_ascii_lowercase().as_str() {
            "x" => 0,
            "o" => 1,
            other => {
                return Err(bad(format!(
                    "the side to move is x or o, not {}",
                    crate::error::excerpt(other)
                )));
            }
        };
        if let Some(why) = self.why_not(x, o, hands, side) {
            return Err(self.refuse(text, &format!("this position cannot arise: {why}")));
        }
        Ok(self.child(x, o, hands, side))
    }

    /// What the position itself shows of its history (`Morris::history`); whether play
    /// from the start reaches a position that passes is known only from a forward pass
    /// (`retro::reach`), which exports use.
    fn check_reachable(&self, pos: &MorrisPosition) -> Result<()> {
        match self.history(pos.x, pos.o, pos.hands, pos.side) {
            Some(why) => Err(Error::input(format!("this position cannot arise: {why}"))),
            None => Ok(()),
        }
    }

    fn check_reachable_is_exact(&self) -> bool {
        false
    }

    fn start_position(&self) -> Option<MorrisPosition> {
        (!self.board.moving).then(|| self.start())
    }

    /// The moving phase alone opens on the first position of its largest layer that can
    /// arise and is not over (`stand_in`).
    fn opening(&self) -> (MorrisPosition, Option<String>) {
        match self.board.moving {
            false => (self.start(), None),
            true => (
                self.stand_in(),
                Some(
                    "the moving phase alone has no start: this is the first position of its largest layer that can arise and is not over"
                        .into(),
                ),
            ),
        }
    }

    fn format_position(&self, pos: &MorrisPosition) -> String {
        let mut out = String::new();
        let mut at = 0;
        for (i, len) in self.row_lengths().into_iter().enumerate() {
            if i > 0 {
                out.push('/');
            }
            for p in at..at + len {
                out.push(if pos.x >> p & 1 == 1 {
                    'x'
                } else if pos.o >> p & 1 == 1 {
                    'o'
                } else {
                    '.'
                });
            }
            at += len;
        }
        let side = if pos.side == 0 { 'x' } else { 'o' };
        format!("{out} {} {} {side}", pos.hands[0], pos.hands[1])
    }

    /// The board as the rules draw it, points labelled by rank (left) and file (below),
    /// then the hands.
    fn draw(&self, pos: &MorrisPosition) -> String {
        let size = self.board.dims().0;
        let (h, w) = (2 * size - 1, 4 * (size - 1) + 1);
        let mut canvas = vec![vec![' '; w]; h];
        let g = &self.geometry;
        for (p, &(r, c)) in g.cells.iter().enumerate() {
            for q in bits(g.adjacent[p]).filter(|&q| q > p) {
                let (r2, c2) = g.cells[q];
                if r == r2 {
                    canvas[2 * r][4 * c.min(c2) + 1..4 * c.max(c2)].fill('-');
                } else if c == c2 {
                    for line in &mut canvas[2 * r.min(r2) + 1..2 * r.max(r2)] {
                        line[4 * c] = '|';
                    }
                } else {
                    // A diagonal between neighbouring cells.
                    let (top, bottom) = if r < r2 {
                        ((r, c), (r2, c2))
                    } else {
                        ((r2, c2), (r, c))
                    };
                    let mark = if bottom.1 > top.1 { '\\' } else { '/' };
                    canvas[2 * top.0 + 1][2 * (top.1 + bottom.1)] = mark;
                }
            }
        }
        for (p, &(r, c)) in g.cells.iter().enumerate() {
            canvas[2 * r][4 * c] = if pos.x >> p & 1 == 1 {
                'x'
            } else if pos.o >> p & 1 == 1 {
                'o'
            } else {
                '.'
            };
        }
        let mut out = String::new();
        for (i, row) in canvas.iter().enumerate() {
            let label = if i % 2 == 0 {
                (size - i / 2).to_string()
            } else {
                " ".into()
            };
            let line: String = row.iter().collect();
            out.push_str(&format!("{label} {}\n", line.trim_end()));
        }
        let files: Vec<String> = (0..size)
            .map(|c| ((b'a' + c as u8) as char).to_string())
            .collect();
        out.push_str(&format!("  {}\n", files.join("   ")));
        out.push_str(&format!(
            "in hand: x {}, o {}; {} to move\n",
            pos.hands[0],
            pos.hands[1],
            if pos.side == 0 { "x" } else { "o" }
        ));
        out
    }

    fn stones(&self, pos: &MorrisPosition) -> usize {
        (pos.x | pos.o).count_ones() as usize
    }

    fn hands(&self, pos: &MorrisPosition) -> Option<[u32; 2]> {
        Some([u32::from(pos.hands[0]), u32::from(pos.hands[1])])
    }

    fn first_to_move(&self, pos: &MorrisPosition) -> bool {
        pos.side == 0
    }
}

impl Registered for Morris {
    const NAME: &'static str = "morris";
    type Board = MorrisBoard;

    fn new(board: MorrisBoard) -> Result<Self> {
        Morris::new(board)
    }

    fn unfolded(board: MorrisBoard) -> Result<Self> {
        Morris::unfolded(board)
    }

    fn board(&self) -> &MorrisBoard {
        &self.board
    }

    fn notation() -> crate::game::Notation {
        crate::game::Notation {
            summary: "Five, Six, Nine and Twelve Men's Morris: place, then slide (or fly); three in a line removes a stone",
            board: "a variant, `five`, `six`, `nine` (nothing: nine) or `twelve`, then options: `six stones=3`, `nine stones=4 no-flying`",
            position: "the points in reading order as x, o, . ('/' between rows allowed), then both hands and the side to move: `........................ 9 9 x`, or `start`",
            moves: "`d2` places, `d2-d3` slides or flies, `xa4` after it removes the stone on a4: `d2-d3xa4`",
            marks: Some(('x', 'o')),
        }
    }
}
