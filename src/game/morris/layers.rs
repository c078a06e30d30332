//! Morris's layers: how a position's placements, hands and stones name its layer
//! (placement by the placements made and each side's stones, movement by the two stone
//! counts, one lost layer), the order they are numbered in, and the orbit tables each is
//! ranked by (`Part`); and why a position no layer holds cannot arise.

use super::*;

impl Morris {
    pub(super) fn build(board: MorrisBoard, fold: bool) -> Result<Morris> {
        let board = board.checked()?;
        let geometry = Geometry::of(&board);
        let (n, s) = (board.points, board.stones);
        let width = s + 1;
        let mut layers = Vec::new();
        let mut placement_index = vec![u32::MAX; 2 * s * width * width];
        let mut movement_index = vec![u32::MAX; width * width];
        // The moving phase alone (`moving`) has no placement layers.
        let placements = if board.moving { 0 } else { 2 * s };
        for p in 0..placements {
            let (px, po) = placed(p);
            let (hx, ho) = (s - px, s - po);
            for bx in 0..=px {
                for bo in 0..=po {
                    // A side loses at most one stone per mill the other closed, and closes
                    // its first mill with its third stone.
                    let lost_x = px - bx <= po.saturating_sub(2);
                    let lost_o = po - bo <= px.saturating_sub(2);
                    if lost_x && lost_o && bx + hx >= 3 && bo + ho >= 3 && bx + bo <= n {
                        placement_index[(p * width + bx) * width + bo] = layers.len() as u32;
                        layers.push(Layer {
                            shape: Shape::Placement { p, bx, bo },
                            parts: Vec::new(),
                            children: Vec::new(),
                        });
                    }
                }
            }
        }
        for total in (6..=2 * s).rev() {
            for a in (total.div_ceil(2)..=s.min(total - 3)).rev() {
                let b = total - a;
                movement_index[a * width + b] = layers.len() as u32;
                layers.push(Layer {
                    shape: Shape::Movement { a, b },
                    parts: Vec::new(),
                    children: Vec::new(),
                });
            }
        }
        layers.push(Layer {
            shape: Shape::Lost,
            parts: Vec::new(),
            children: Vec::new(),
        });
        // The orbit tables: one per (occupied points, stones of the side ranked).
        let mut orbit_layers: Vec<(usize, Option<usize>)> = Vec::new();
        let mut orbit_layer =
            |k: usize, h: usize| match orbit_layers.iter().position(|&s| s == (k, Some(h))) {
                Some(i) => i,
                None => {
                    orbit_layers.push((k, Some(h)));
                    orbit_layers.len() - 1
                }
            };
        let mut parts_of = Vec::with_capacity(layers.len());
        for layer in &layers {
            let parts: Vec<(usize, usize, u8)> = match layer.shape {
                Shape::Placement { bx, bo, .. } => vec![(orbit_layer(bx + bo, bx), 0, 0)],
                Shape::Movement { a, b } => {
                    let counts: &[usize] = if a == b { &[a] } else { &[a, b] };
                    let sides: &[u8] = if fold { &[0] } else { &[0, 1] };
                    let mut out = Vec::new();
                    for &side in sides {
                        for &c in counts {
                            out.push((orbit_layer(a + b, c), c, side));
                        }
                    }
                    out
                }
                Shape::Lost => Vec::new(),
            };
            parts_of.push(parts);
        }
        let images = if fold {
            geometry.symmetries.clone()
        } else {
            vec![geometry.symmetries[0].clone()]
        };
        let orbits = Orbits::with_layers(GridSymmetries::from_images(n, images), orbit_layers)?;
        let fixers = Stabiliser::new(orbits.symmetries(), regions(&geometry));
        for (layer, parts) in layers.iter_mut().zip(parts_of) {
            let mut offset = 0;
            for (orbit_layer, count, side) in parts {
                let size = orbits.layer_size(orbit_layer);
                layer.parts.push(Part {
                    orbit_layer,
                    offset,
                    size,
                    count,
                    side,
                });
                offset += size;
            }
        }
        let mills_at = mill_rows(&geometry);
        let mut game = Morris {
            mills_at,
            geometry,
            n,
            stones: s,
            all: ((1u64 << n) - 1) as u32,
            fold,
            orbits,
            fixers,
            layers,
            placement_index,
            movement_index,
            binom: Binomial::new(n)?,
            board,
            lost: Vec::new(),
        };
        game.lost = game.lost_groups();
        let lost = game.layers.len() - 1;
        for k in 0..game.layers.len() {
            let mut children: Vec<usize> = match game.layers[k].shape {
                Shape::Placement { p, bx, bo } if p + 1 < 2 * s => {
                    let (x, o) = if p % 2 == 0 {
                        ([bx + 1, bx + 1], [bo, bo.saturating_sub(1)])
                    } else {
                        ([bx, bx.saturating_sub(1)], [bo + 1, bo + 1])
                    };
                    (0..2)
                        .filter_map(|i| game.placement_layer(p + 1, x[i], o[i]))
                        .collect()
                }
                Shape::Placement { bx, bo, .. } => [bx, bx.saturating_sub(1)]
                    .into_iter()
                    .map(|x| game.movement_layer(x, bo + 1).unwrap_or(lost))
                    .collect(),
                Shape::Movement { a, b } => [(a, b - 1), (b, a - 1)]
                    .into_iter()
                    .map(|(m, n)| game.movement_layer(m, n).unwrap_or(lost))
                    .collect(),
                Shape::Lost => Vec::new(),
            };
            if matches!(game.layers[k].shape, Shape::Placement { .. }) {
                children.push(lost);
            }
            children.sort_unstable();
            children.dedup();
            children.retain(|&j| j != k);
            game.layers[k].children = children;
        }
        Ok(game)
    }

    /// The placement layer of (p, bx, bo), if there is one.
    pub(super) fn placement_layer(&self, p: usize, bx: usize, bo: usize) -> Option<usize> {
        let w = self.stones + 1;
        if p >= 2 * self.stones || bx > self.stones || bo > self.stones {
            return None;
        }
        let at = self.placement_index[(p * w + bx) * w + bo];
        (at != u32::MAX).then_some(at as usize)
    }

    /// The movement layer where the sides have `a` and `b` stones, if there is one.
    pub(super) fn movement_layer(&self, a: usize, b: usize) -> Option<usize> {
        let (a, b) = (a.max(b), a.min(b));
        if a > self.stones || b < 3 {
            return None;
        }
        let at = self.movement_index[a * (self.stones + 1) + b];
        (at != u32::MAX).then_some(at as usize)
    }

    pub(super) fn lost_layer(&self) -> usize {
        self.layers.len() - 1
    }

    /// The layer of a position, or why none counts it.
    pub(super) fn layer_of_stones(
        &self,
        x: u32,
        o: u32,
        hands: [u8; 2],
        side: u8,
    ) -> std::result::Result<usize, String> {
        let s = self.stones;
        let (bx, bo) = (x.count_ones() as usize, o.count_ones() as usize);
        let (hx, ho) = (hands[0] as usize, hands[1] as usize);
        let name = |side: u8| if side == 0 { "x" } else { "o" };
        if x & o != 0 {
            return Err("a point holds two stones".into());
        }
        if bx + hx > s || bo + ho > s {
            return Err(format!(
                "{} has more than {s} stones on the board and in hand",
                if bx + hx > s { "x" } else { "o" }
            ));
        }
        let totals = [bx + hx, bo + ho];
        // The side that just moved had 3 or more, or play would have ended before its move.
        if totals[1 - side as usize] < 3 {
            return Err(format!(
                "{} has fewer than 3 stones, so the game ended before {} could move",
                name(1 - side),
                name(side)
            ));
        }
        if totals[side as usize] < 3 {
            return Ok(self.lost_layer());
        }
        if hx == 0 && ho == 0 {
            return self
                .movement_layer(bx, bo)
                .ok_or_else(|| "no layer holds these stones".into());
        }
        if self.board.moving {
            return Err(
                "this table holds the moving phase only: both hands must be empty (0 0)".into(),
            );
        }
        let (px, po) = (s - hx, s - ho);
        let p = px + po;
        if let Some(why) = self.wrong_turn(hands, side) {
            return Err(why);
        }
        self.placement_layer(p, bx, bo).ok_or_else(|| {
            format!(
                "after {px} placements of x's and {po} of o's, x cannot have {bx} stones on the board and o {bo}: a side loses a stone only to a mill of the other's"
            )
        })
    }

    /// Why no play leads to a position whose counts the layers hold, where that shows in
    /// the position itself: the hands say whose turn it is, the moving phase alone has
    /// empty hands, and a side has lost no more stones than the other can have taken by
    /// then. Checked before a position is taken as lost, so that a position no play leads
    /// to is refused rather than answered.
    pub(crate) fn history(&self, x: u32, o: u32, hands: [u8; 2], side: u8) -> Option<String> {
        let s = self.stones;
        let (bx, bo) = (x.count_ones() as usize, o.count_ones() as usize);
        let (hx, ho) = (hands[0] as usize, hands[1] as usize);
        if x & o != 0 || bx + hx > s || bo + ho > s {
            // `layer_of_stones` says why.
            return None;
        }
        let placing = hx != 0 || ho != 0;
        if placing && self.board.moving {
            return Some(
                "this table holds the moving phase only: both hands must be empty (0 0)".into(),
            );
        }
        let (px, po) = (s - hx, s - ho);
        if placing && let Some(why) = self.wrong_turn(hands, side) {
            return Some(why);
        }
        // While placing, a side closes its first mill with its third stone and at most one
        // with each stone after, and each takes one stone.
        if placing && (px - bx > po.saturating_sub(2) || po - bo > px.saturating_sub(2)) {
            return Some(format!(
                "after {px} placements of x's and {po} of o's, x cannot have {bx} stones on the board and o {bo}: a side loses a stone only to a mill of the other's"
            ));
        }
        self.last_move_took_nothing(x, o, [px - bx, po - bo], side)
    }

    /// Why it cannot be `side`'s turn while placing with these hands, if it cannot: x
    /// places first, so with x to move both hands hold the same, with o to move x's one
    /// fewer. The hands are at most the stones (`layer_of_stones` checks that first).
    pub(super) fn wrong_turn(&self, hands: [u8; 2], side: u8) -> Option<String> {
        let [hx, ho] = hands.map(usize::from);
        let (px, po) = (self.stones - hx, self.stones - ho);
        if px == po && side == 0 || px == po + 1 && side == 1 {
            return None;
        }
        let turn = if px == po {
            "x"
        } else if px == po + 1 {
            "o"
        } else {
            "nobody"
        };
        Some(format!(
            "with {hx} stones in x's hand and {ho} in o's it is {turn}'s turn: x places first"
        ))
    }

    /// Why the last move cannot have been made, if every stone of the side that made it
    /// stands in one of its mills: the stone it placed or moved last then closed a mill
    /// (before that move the stone was elsewhere, so the mill was not complete), and a
    /// closed mill takes one of the other side's stones whenever that side has one on the
    /// board. So the side to move has lost a stone, or has none on the board. `lost` is
    /// each side's stones lost so far (placed and not on the board).
    pub(super) fn last_move_took_nothing(
        &self,
        x: u32,
        o: u32,
        lost: [usize; 2],
        side: u8,
    ) -> Option<String> {
        let (moved, to_move) = if side == 0 { (o, x) } else { (x, o) };
        if moved == 0 || to_move == 0 || lost[side as usize] > 0 {
            return None;
        }
        let in_mills = self
            .geometry
            .mills
            .iter()
            .filter(|&&m| m & !moved == 0)
            .fold(0, |all, &m| all | m);
        let (m, t) = if side == 0 { ("o", "x") } else { ("x", "o") };
        (moved & !in_mills == 0).then(|| {
            format!(
                "every stone of {m}'s stands in a mill, so {m}'s last move closed one and took a stone of {t}'s, but {t} has lost none"
            )
        })
    }
}
