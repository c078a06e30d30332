//! The Morris boards: the variant and its options as input (`nine`, `six stones=3`,
//! `nine stones=4 no-flying`), and the two boards' points, lines and symmetries.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::game::Board;
use crate::random::SplitMix;

/// What the input must look like, for error messages.
const FORM: &str = "expected a variant, `five`, `six`, `nine` or `twelve` (nothing: nine), then any of `stones=N`, `flying`, `no-flying`, `diagonals`, `moving`, e.g. `six stones=3`";

/// A Morris variant with its options.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MorrisBoard {
    /// The variant named: `five`, `six`, `nine` or `twelve`.
    pub variant: String,
    /// Points on the board: 16 (five, six) or 24 (nine, twelve).
    pub points: usize,
    /// Stones each player has.
    pub stones: usize,
    /// A player with 3 stones on the board and none in hand may move one to any empty point.
    pub flying: bool,
    /// The four diagonals of the 24-point board are lines too (twelve).
    pub diagonals: bool,
    /// The moving phase only: the positions with both hands empty (Gasser's databases of
    /// Nine Men's Morris), not the placements before them.
    pub moving: bool,
}

/// A board as retro wrote it into tables before `moving` was an option.
#[derive(Deserialize)]
struct BoardBeforeMoving {
    variant: String,
    points: usize,
    stones: usize,
    flying: bool,
    diagonals: bool,
}

impl MorrisBoard {
    /// A variant with its own defaults.
    pub fn variant(name: &str) -> Option<MorrisBoard> {
        let (points, stones, flying, diagonals) = match name {
            "five" => (16, 5, false, false),
            "six" => (16, 6, false, false),
            "nine" => (24, 9, true, false),
            "twelve" => (24, 12, true, true),
            _ => return None,
        };
        Some(MorrisBoard {
            variant: name.to_string(),
            points,
            stones,
            flying,
            diagonals,
            moving: false,
        })
    }

    /// The board, refused unless the stones fit: 3 or more each (fewer have lost before
    /// the first move), and both players' together no more than the points.
    pub fn checked(self) -> Result<MorrisBoard> {
        let defaults = MorrisBoard::variant(&self.variant).ok_or_else(|| {
            Error::input(format!(
                "unknown morris variant {}; {FORM}",
                crate::error::excerpt(&self.variant)
            ))
        })?;
        if self.points != defaults.points {
            return Err(Error::input(format!(
                "morris {}: the board has {} points",
                self.variant, defaults.points
            )));
        }
        // Halved rather than doubled: a stone count read from a file may be near usize::MAX.
        if self.stones < 3 || self.stones > self.points / 2 {
            return Err(Error::input(format!(
                "morris {} with {} stones each: a player has 3 to {} stones on {} points",
                self.variant,
                self.stones,
                self.points / 2,
                self.points
            )));
        }
        if self.diagonals && self.points != 24 {
            return Err(Error::input(format!(
                "morris {}: diagonals are lines of the 24-point board only",
                self.variant
            )));
        }
        Ok(self)
    }
}

impl Board for MorrisBoard {
    fn check(&self) -> Result<()> {
        self.clone().checked().map(drop)
    }

    fn parse(text: &str) -> Result<Self> {
        let bad = |why: String| {
            Error::input(format!(
                "bad morris board {}: {why}; {FORM}",
                crate::error::excerpt(text.trim())
            ))
        };
        // Words are apart by spaces or by dashes, as `label` joins them (`nine-stones=4`), so
        // a table's name reads back as its board; `no-flying` keeps its own dash.
        let lower = text
            .trim()
            .to_ascii_lowercase()
            .replace("no-flying", "noflying");
        let mut words = lower
            .split(|c: char| c.is_whitespace() || c == '-')
            .filter(|w| !w.is_empty())
            .peekable();
        let mut board = match words.peek() {
            Some(&w) if MorrisBoard::variant(w).is_some() => {
                words.next();
                MorrisBoard::variant(w)
            }
            _ => MorrisBoard::variant("nine"),
        }
        .ok_or_else(|| bad("no variant".into()))?;
        // Each option once: a word given twice, or contradicted (`flying no-flying`), is
        // refused rather than settled by whichever came last.
        let mut given: Vec<&str> = Vec::new();
        for word in words {
            let option = match word {
                "no-flying" | "noflying" => "flying",
                w if w.starts_with("stones=") => "stones=",
                w => w,
            };
            if given.contains(&option) {
                let word = if word == "noflying" {
                    "no-flying"
                } else {
                    word
                };
                return Err(bad(match option {
                    "flying" => format!(
                        "{word} after {}: say flying or no-flying once",
                        if board.flying { "flying" } else { "no-flying" }
                    ),
                    "stones=" => {
                        format!("{word} after stones={}: give stones=N once", board.stones)
                    }
                    _ => format!("{word} given twice"),
                }));
            }
            given.push(option);
            match word {
                "flying" => board.flying = true,
                "no-flying" | "noflying" => board.flying = false,
                "diagonals" => board.diagonals = true,
                "moving" => board.moving = true,
                w if w.starts_with("stones=") => {
                    board.stones = w["stones=".len()..]
                        .parse::<usize>()
                        .map_err(|_| bad(format!("{w} is not stones=N with a number N")))?;
                }
                w if MorrisBoard::variant(w).is_some() => {
                    return Err(bad(format!("two variants ({} and {w})", board.variant)));
                }
                w => return Err(bad(format!("unknown word {}", crate::error::excerpt(w)))),
            }
        }
        board.checked()
    }

    /// Morris boards are fixed variants, with nothing to draw at random: the smallest on
    /// the 16-point board (`six stones=3`), or on the 24-point board (`nine stones=3`) where
    /// the size asked for holds its 7 x 7 grid.
    fn random(rows: usize, cols: usize, _rng: &mut SplitMix, _max: u64) -> Result<Self> {
        let name = if rows >= 7 && cols >= 7 {
            "nine"
        } else {
            "six"
        };
        let mut board = MorrisBoard::variant(name)
            .ok_or_else(|| Error::other("the variants name their boards"))?;
        board.stones = 3;
        board.checked()
    }

    fn to_input(&self) -> String {
        format!("{}\n", self.options().join(" "))
    }

    /// The grid the points lie on: 7 x 7 (24 points) or 5 x 5 (16).
    fn dims(&self) -> (usize, usize) {
        if self.points == 24 { (7, 7) } else { (5, 5) }
    }

    fn label(&self) -> String {
        self.options().join("-")
    }

    fn points(&self) -> Option<crate::game::Points> {
        let g = Geometry::of(self);
        let cells = g.cells.iter().map(|&(r, c)| [r + 1, c + 1]).collect();
        let mut links = Vec::new();
        for (i, &adjacent) in g.adjacent.iter().enumerate() {
            for j in i + 1..g.adjacent.len() {
                if adjacent >> j & 1 == 1 {
                    links.push([i, j]);
                }
            }
        }
        Some(crate::game::Points { cells, links })
    }

    fn decode_earlier(bytes: &[u8]) -> Option<(Self, usize)> {
        let config = crate::game::registry::board_config();
        let (b, used): (BoardBeforeMoving, usize) =
            bincode::serde::decode_from_slice(bytes, config).ok()?;
        let board = MorrisBoard {
            variant: b.variant,
            points: b.points,
            stones: b.stones,
            flying: b.flying,
            diagonals: b.diagonals,
            moving: false,
        };
        Some((board, used))
    }

    fn layer_words(&self, layers: usize) -> String {
        if self.moving {
            return format!("{layers}: movement by both sides' stones, and the lost entry");
        }
        format!(
            "{layers}: placement by placements made and each side's stones on the board, movement by both sides' stones, and the lost entry"
        )
    }

    fn size_words(&self) -> String {
        let mut out = format!(
            "{} men's morris: {} points, {} stones each",
            self.variant, self.points, self.stones
        );
        out.push_str(if self.flying {
            ", flying at 3 stones"
        } else {
            ", no flying"
        });
        if self.diagonals {
            out.push_str(", diagonals");
        }
        if self.moving {
            out.push_str(", the moving phase only (both hands empty)");
        }
        out
    }
}

impl MorrisBoard {
    /// The variant, then each option that differs from its defaults.
    fn options(&self) -> Vec<String> {
        let mut out = vec![self.variant.clone()];
        if let Some(d) = MorrisBoard::variant(&self.variant) {
            if self.stones != d.stones {
                out.push(format!("stones={}", self.stones));
            }
            if self.flying != d.flying {
                out.push(if self.flying { "flying" } else { "no-flying" }.into());
            }
            if self.diagonals && !d.diagonals {
                out.push("diagonals".into());
            }
            if self.moving {
                out.push("moving".into());
            }
        }
        out
    }
}

/// The points of the 24-point board in reading order (top row first, left to right): the
/// order of a position's text and of the bits of a mask.
const POINTS_24: &str = "a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2 f2 a1 d1 g1";
/// Its mills: the sides of the three squares and the four cross lines.
const MILLS_24: &[&str] = &[
    "a7 d7 g7", "b6 d6 f6", "c5 d5 e5", "a4 b4 c4", "e4 f4 g4", "c3 d3 e3", "b2 d2 f2", "a1 d1 g1",
    "a7 a4 a1", "b6 b4 b2", "c5 c4 c3", "d7 d6 d5", "d3 d2 d1", "e5 e4 e3", "f6 f4 f2", "g7 g4 g1",
];
/// The diagonals (twelve men's morris): lines and mills too.
const DIAGONALS_24: &[&str] = &["a1 b2 c3", "g1 f2 e3", "g7 f6 e5", "a7 b6 c5"];
/// The points of the 16-point board in reading order.
const POINTS_16: &str = "a5 c5 e5 b4 c4 d4 a3 b3 d3 e3 b2 c2 d2 a1 c1 e1";
/// Its mills: the sides of the two squares.
const MILLS_16: &[&str] = &[
    "a5 c5 e5", "b4 c4 d4", "b2 c2 d2", "a1 c1 e1", "a5 a3 a1", "b4 b3 b2", "d4 d3 d2", "e5 e3 e1",
];
/// Its cross links: adjacent points that make no mill.
const LINKS_16: &[&str] = &["a3 b3", "d3 e3", "c1 c2", "c4 c5"];

/// One of the square's 8 symmetries, on a point's offset from the centre.
type Turn = fn(isize, isize) -> (isize, isize);

/// A board's points, what touches what, its mills and its symmetries.
#[derive(Debug, Clone)]
pub struct Geometry {
    /// Point names in reading order (`a7`).
    pub names: Vec<String>,
    /// Each point's grid cell (0-based row from the top, column), as the explorer and the
    /// move lists place it.
    pub cells: Vec<(usize, usize)>,
    /// Each point's neighbours, as a mask.
    pub adjacent: Vec<u32>,
    /// Every mill, as a mask.
    pub mills: Vec<u32>,
    /// Each point's mills (two, or three with the diagonals).
    pub mills_at: Vec<Vec<u32>>,
    /// The 16 symmetries as the image of each point, the identity first: the square's 8,
    /// each with and without exchanging the inner and outer squares.
    pub symmetries: Vec<Vec<u8>>,
}

impl Geometry {
    /// The geometry of a board.
    pub fn of(board: &MorrisBoard) -> Geometry {
        let (points, mut lines, links, size): (&str, Vec<&str>, &[&str], usize) =
            if board.points == 24 {
                (POINTS_24, MILLS_24.to_vec(), &[], 7)
            } else {
                (POINTS_16, MILLS_16.to_vec(), LINKS_16, 5)
            };
        if board.diagonals {
            lines.extend_from_slice(DIAGONALS_24);
        }
        let names: Vec<String> = points.split(' ').map(String::from).collect();
        let cell_of = |name: &str| -> (usize, usize) {
            let b = name.as_bytes();
            let col = (b[0] - b'a') as usize;
            let row = size - (b[1] - b'0') as usize;
            (row, col)
        };
        let cells: Vec<(usize, usize)> = names.iter().map(|n| cell_of(n)).collect();
        let index = |name: &str| names.iter().position(|n| n == name).unwrap_or(0);
        let mask = |line: &str| line.split(' ').fold(0u32, |m, p| m | 1 << index(p));
        let mills: Vec<u32> = lines.iter().map(|l| mask(l)).collect();
        let mut adjacent = vec![0u32; names.len()];
        for line in lines.iter().chain(links) {
            let at: Vec<usize> = line.split(' ').map(index).collect();
            for pair in at.windows(2) {
                adjacent[pair[0]] |= 1 << pair[1];
                adjacent[pair[1]] |= 1 << pair[0];
            }
        }
        let mills_at = (0..names.len())
            .map(|p| mills.iter().copied().filter(|m| m >> p & 1 == 1).collect())
            .collect();
        // Symmetries act on a point's offset from the centre: a direction (each coordinate
        // -1, 0 or 1) times its square's distance (1 inner .. `rings` outer).
        let (centre, rings) = ((size / 2) as isize, (size / 2) as isize);
        let dihedral: [Turn; 8] = [
            |r, c| (r, c),
            |r, c| (r, -c),
            |r, c| (-r, c),
            |r, c| (-r, -c),
            |r, c| (c, r),
            |r, c| (-c, -r),
            |r, c| (c, -r),
            |r, c| (-c, r),
        ];
        let mut symmetries = Vec::new();
        for swap in [false, true] {
            for f in dihedral {
                let image: Vec<u8> = cells
                    .iter()
                    .map(|&(r, c)| {
                        let (dr, dc) = (r as isize - centre, c as isize - centre);
                        let d = dr.abs().max(dc.abs());
                        let (ur, uc) = f(dr / d, dc / d);
                        let d = if swap { rings + 1 - d } else { d };
                        let cell = ((centre + ur * d) as usize, (centre + uc * d) as usize);
                        cells.iter().position(|&x| x == cell).unwrap_or(0) as u8
                    })
                    .collect();
                symmetries.push(image);
            }
        }
        Geometry {
            names,
            cells,
            adjacent,
            mills,
            mills_at,
            symmetries,
        }
    }

    /// The point named `name` (`d2`, either case).
    pub fn point(&self, name: &str) -> Option<usize> {
        let name = name.to_ascii_lowercase();
        self.names.iter().position(|n| *n == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every board's 16 symmetries are distinct permutations of its points that map lines to
    /// lines and neighbours to neighbours; every point has its name's grid cell.
    #[test]
    fn the_symmetries_keep_the_lines() {
        for text in ["six", "nine", "twelve"] {
            let board = MorrisBoard::parse(text).unwrap();
            let g = Geometry::of(&board);
            assert_eq!(g.symmetries.len(), 16);
            let mut seen = std::collections::HashSet::new();
            for image in &g.symmetries {
                assert!(seen.insert(image.clone()), "{text}: a symmetry twice");
                let mut sorted = image.clone();
                sorted.sort_unstable();
                assert_eq!(
                    sorted,
                    (0..board.points as u8).collect::<Vec<_>>(),
                    "{text}"
                );
                let map = |mask: u32| {
                    (0..board.points)
                        .filter(|&p| mask >> p & 1 == 1)
                        .fold(0u32, |m, p| m | 1 << image[p])
                };
                for &mill in &g.mills {
                    assert!(g.mills.contains(&map(mill)), "{text}");
                }
                for (p, &to) in image.iter().enumerate() {
                    assert_eq!(map(g.adjacent[p]), g.adjacent[to as usize], "{text}");
                }
            }
            for (p, name) in g.names.iter().enumerate() {
                assert_eq!(g.point(name), Some(p));
            }
            let mills = g.mills.len();
            assert_eq!(
                mills,
                [8, 16, 20][["six", "nine", "twelve"]
                    .iter()
                    .position(|t| *t == text)
                    .unwrap()]
            );
        }
    }
}
