//! What a position's children outside its layer say, folded into one value or one pending
//! word: shared by the two workers for values of the side to move (`pass.rs`,
//! `fixpoint.rs`).

use super::layers::Finished;
use crate::error::Error;
use crate::game::values::MAX_REMOTENESS;
use crate::game::{Edge, Wdl};
use crate::stored::Value;

/// Positions per parallel task.
pub(super) const CHUNK: usize = 4096;

/// Positions counted at once in a batch (their children's values fetched ahead).
pub(super) const COUNT_BATCH: usize = 32;

/// Pending words: a win at level 1..0x8000, else a floor (`FLOOR | f`), else `NEVER`.
pub(super) const FLOOR: u16 = 0x8000;
pub(super) const NEVER: u16 = 0xffff;

/// What a position's children outside its layer say, folded.
pub(super) struct Outside {
    /// Fastest win through a child that loses (remoteness), if any.
    pub(super) win: Option<u32>,
    /// Slowest loss so far: 1 + the largest remoteness of a child that wins.
    pub(super) floor: u32,
    /// A child draws.
    pub(super) draw: bool,
    /// Any child at all, inside the layer or not.
    pub(super) any: bool,
}

impl Outside {
    pub(super) fn new() -> Outside {
        Outside {
            win: None,
            floor: 0,
            draw: false,
            any: false,
        }
    }

    pub(super) fn child(&mut self, value: i16) {
        self.any = true;
        match value {
            0 => self.draw = true,
            v if v < 0 => {
                let r = (-v) as u32;
                self.win = Some(self.win.map_or(r, |w| w.min(r)));
            }
            v => self.floor = self.floor.max(v as u32),
        }
    }

    /// The value of a position whose children are all outside the layer.
    pub(super) fn value(&self) -> i16 {
        match (self.win, self.draw, self.any) {
            (Some(r), _, _) => Wdl::Win(r).encode(),
            (None, true, _) => 0,
            (None, false, true) => Wdl::Loss(self.floor).encode(),
            (None, false, false) => Wdl::Loss(0).encode(),
        }
    }

    /// The pending word of a position in a layer with moves inside it.
    pub(super) fn pending(&self) -> u16 {
        match (self.win, self.draw) {
            (Some(r), _) => r as u16,
            (None, true) => NEVER,
            (None, false) => FLOOR | self.floor as u16,
        }
    }
}

/// The error for a remoteness past what the values hold.
pub(super) fn too_far(k: usize) -> Error {
    Error::too_large(format!(
        "layer {k}: a remoteness past {MAX_REMOTENESS} plies does not fit the table's values"
    ))
}

/// A finished child's value as the workers compute with it (a damaged or foreign value is
/// clamped into `i16`).
#[inline]
pub(super) fn child_value<V: Value>(finished: &Finished<'_, V>, e: Edge) -> i16 {
    let v = finished.get(e.layer, e.rank).map_or(0, |v| v.to_i64());
    v.clamp(i16::MIN.into(), i16::MAX.into()) as i16
}
