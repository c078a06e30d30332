//! Quixo's layers and their ranking.
//!
//! A cube once taken shows its taker's mark for good: taking a blank cube adds one to the
//! mover's cubes, taking one's own leaves both counts as they are. So the positions whose
//! side to move has `a` cubes and the other `b`, with those where the counts are the other
//! way round (a move hands the turn over, and folding the colours joins the two), are closed
//! under the moves that keep the number of cubes taken: they make a layer, `{a, b}` with
//! `a <= b`. A blank cube taken leads from `{a, b}` to `{a + 1, b}` or `{a, b + 1}`.
//!
//! Layers are numbered by the cubes taken, t = a + b, from the board's least (`min`, 0 for
//! the whole game) up, and within t by a from 0 to t / 2. Each layer is ranked in parts, one
//! per count of x's cubes (folded: positions with o to move are written with the colours
//! exchanged and x to move, so a part per count of the mover's cubes) and, unfolded, per
//! side to move; a part is a layer of the orbit tables (`Orbits::with_layers`: t cells
//! taken, h of them x's), under the square's symmetries where the game folds them and the
//! identity alone where it does not.

use crate::error::Result;
use crate::game::symmetry::{GridGroup, GridSymmetries, Orbits};

/// One part of a layer: the positions with one count of x's cubes (folded: of the side to
/// move's, written as x to move) and, unfolded, one side to move; `a`'s first.
#[derive(Debug, Clone, Copy)]
pub(super) struct Part {
    /// The orbit table's layer.
    pub orbit_layer: usize,
    /// The part's first rank in the layer.
    pub offset: u64,
    /// Its ranks.
    pub size: u64,
    /// The side to move (folded: 0, x).
    pub side: u8,
}

/// One layer: one side has `a` cubes and the other `b`.
#[derive(Debug, Clone)]
pub(super) struct Layer {
    pub a: usize,
    pub b: usize,
    pub parts: Vec<Part>,
    /// The layers a blank cube taken leads to.
    pub children: Vec<usize>,
}

impl Layer {
    /// Cubes taken.
    pub fn taken(&self) -> usize {
        self.a + self.b
    }
}

/// Every layer of a board of `cells` cubes from `min` cubes taken up, with the orbit tables
/// that rank them.
#[derive(Debug)]
pub(super) struct Layers {
    pub layers: Vec<Layer>,
    pub orbits: Orbits,
    /// The least number of cubes taken.
    min: usize,
    /// The first layer of each number of cubes taken from `min` on.
    first: Vec<usize>,
}

impl Layers {
    pub fn new(n: usize, min: usize, fold: bool) -> Result<Layers> {
        let cells = n * n;
        let sym = if fold {
            GridSymmetries::grid(n, n, GridGroup::Dihedral)
        } else {
            GridSymmetries::from_images(cells, vec![(0..cells as u8).collect()])
        };
        // The orbit tables' layers: t cubes taken, h of them x's, for every t from `min`.
        let orbit_layer = |t: usize, h: usize| (t * (t + 1) - min * (min + 1)) / 2 + h;
        let orbit_layers: Vec<(usize, Option<usize>)> = (min..=cells)
            .flat_map(|t| (0..=t).map(move |h| (t, Some(h))))
            .collect();
        let orbits = Orbits::with_layers(sym, orbit_layers)?;
        let mut first = Vec::new();
        let mut layers = Vec::new();
        for t in min..=cells {
            first.push(layers.len());
            for a in 0..=t / 2 {
                let b = t - a;
                let counts: &[usize] = if a == b { &[a] } else { &[a, b] };
                let sides: &[u8] = if fold { &[0] } else { &[0, 1] };
                let mut parts = Vec::new();
                let mut offset = 0;
                for &xs in counts {
                    for &side in sides {
                        let size = orbits.layer_size(orbit_layer(t, xs));
                        parts.push(Part {
                            orbit_layer: orbit_layer(t, xs),
                            offset,
                            size,
                            side,
                        });
                        offset += size;
                    }
                }
                layers.push(Layer {
                    a,
                    b,
                    parts,
                    children: Vec::new(),
                });
            }
        }
        let mut me = Layers {
            layers,
            orbits,
            min,
            first,
        };
        for k in 0..me.layers.len() {
            let (a, b) = (me.layers[k].a, me.layers[k].b);
            if a + b < cells {
                let mut children = vec![me.index(a + 1, b), me.index(a, b + 1)];
                children.dedup();
                me.layers[k].children = children;
            }
        }
        Ok(me)
    }

    /// The layer where one side has `a` cubes and the other `b` (a + b at least `min`).
    #[inline]
    pub fn index(&self, a: usize, b: usize) -> usize {
        self.first[a + b - self.min] + a.min(b)
    }

    /// The least number of cubes taken.
    pub fn min(&self) -> usize {
        self.min
    }
}
