//! The connect board: its input format and the size checks.

use serde::{Deserialize, Serialize};

use super::*;
use crate::game::Board;
use crate::random::SplitMix;

/// A board: `width` columns of `height` cells, `k` in a row to win.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectBoard {
    /// Columns W.
    pub width: usize,
    /// Rows H (cells per column).
    pub height: usize,
    /// Stones in a row that win (K).
    pub k: usize,
}

/// What the input must look like, for error messages.
const FORM: &str = "expected `W H K` (e.g. `7 6 4`), `WxHkK` (e.g. `7x6k4`), or `W H` / `WxH` for K = 4 \
     (width, the number of columns, first)";

impl Board for ConnectBoard {
    fn check(&self) -> Result<()> {
        Self::checked(self.width, self.height, self.k).map(drop)
    }

    /// `W H K`, `WxHkK`, or either without K (K = 4, or max(W, H) if less).
    fn parse(text: &str) -> Result<Self> {
        let (w, h, k) = lines::parse_size_k(text, "connect", FORM)?;
        Self::checked(w, h, k.unwrap_or_else(|| Self::default_k(w, h)))
    }

    /// The size asked for, read as `WxH` (width first, as Connect Four's 7x6), with the
    /// default K: there is nothing to draw at random.
    fn random(width: usize, height: usize, _rng: &mut SplitMix, _max: u64) -> Result<Self> {
        Self::checked(width, height, Self::default_k(width, height))
    }

    fn to_input(&self) -> String {
        format!("{}\n", self.label())
    }

    fn dims(&self) -> (usize, usize) {
        (self.height, self.width)
    }

    fn label(&self) -> String {
        format!("{}x{}k{}", self.width, self.height, self.k)
    }

    fn size_words(&self) -> String {
        format!(
            "{} x {} (width x height), {} in a row",
            self.width, self.height, self.k
        )
    }
}

impl ConnectBoard {
    fn default_k(width: usize, height: usize) -> usize {
        DEFAULT_K.min(width.max(height)).max(1)
    }

    /// The board, refused unless it fits a 64-bit bitboard (W * (H + 1) <= 64, a guard bit
    /// per column) and 1 <= K <= max(W, H).
    pub fn checked(width: usize, height: usize, k: usize) -> Result<Self> {
        // Both are compared before any arithmetic: a height of usize::MAX must not wrap.
        if width == 0 || height == 0 || width > 64 || height > 63 || width * (height + 1) > 64 {
            return Err(Error::input(format!(
                "connect board {width} x {height} (width x height): both at least 1, and \
                 width x (height + 1) at most 64"
            )));
        }
        let vectors = (height as u64 + 1).checked_pow(width as u32);
        if vectors.is_none_or(|n| n > MAX_HEIGHT_VECTORS) {
            return Err(Error::input(format!(
                "connect board {width} x {height}: {}^{width} column-height vectors, more than \
                 the {MAX_HEIGHT_VECTORS} the ranking tabulates (7 x 6 has 823,543)",
                height + 1
            )));
        }
        if k == 0 || k > width.max(height) {
            return Err(Error::input(format!(
                "connect line length K = {k} on a {width} x {height} board: K must be from 1 to {}",
                width.max(height)
            )));
        }
        Ok(ConnectBoard { width, height, k })
    }
}
