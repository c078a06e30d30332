//! Stored values: the narrowest signed integer that holds every value of a board.

use serde::{Deserialize, Serialize};

/// The integer type of a table's values, chosen from the board's weights at build time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ValueType {
    /// 8-bit values.
    I8,
    /// 16-bit values.
    I16,
    /// 32-bit values.
    I32,
    /// 64-bit values.
    I64,
    /// 8-bit codes of values for the side to move (`Values::SideToMove`) whose wins are all
    /// in an odd number of plies and losses in an even number (as where every move passes
    /// the turn and a finished game is lost by the side to move): a win in r plies (value
    /// r + 1, even) is stored as (r + 1) / 2, a loss in r (value -(r + 1), odd) as
    /// -(r + 2) / 2, a draw as 0; so code c is value 2c for c > 0, 2c + 1 for c < 0. It
    /// holds wins in up to 253 plies and losses in up to 254 in one byte, where `I8` holds
    /// 126 and 127. Added after the four integer types: a retro that predates it fails to
    /// decode the header rather than misread the table.
    Halved,
}

impl ValueType {
    /// The narrowest type holding every integer in `lo..=hi`.
    pub fn for_range(lo: i64, hi: i64) -> ValueType {
        let fits = |min: i64, max: i64| lo >= min && hi <= max;
        if fits(i8::MIN.into(), i8::MAX.into()) {
            ValueType::I8
        } else if fits(i16::MIN.into(), i16::MAX.into()) {
            ValueType::I16
        } else if fits(i32::MIN.into(), i32::MAX.into()) {
            ValueType::I32
        } else {
            ValueType::I64
        }
    }

    /// Whether `stored` is an integer of this type (`Halved`: an i8 code). A compact
    /// table's block adds packed bits to a minimum, which damage can push past the type.
    pub fn holds(self, stored: i64) -> bool {
        let bits = 8 * self.width() as u32;
        let (lo, hi) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
        (lo..=hi).contains(&i128::from(stored))
    }

    /// Bytes per value.
    pub fn width(self) -> usize {
        match self {
            ValueType::I8 | ValueType::Halved => 1,
            ValueType::I16 => 2,
            ValueType::I32 => 4,
            ValueType::I64 => 8,
        }
    }

    /// "i8", "i16", ...
    pub fn name(self) -> &'static str {
        match self {
            ValueType::I8 => "i8",
            ValueType::I16 => "i16",
            ValueType::I32 => "i32",
            ValueType::I64 => "i64",
            ValueType::Halved => "i8-halved",
        }
    }

    /// The value a stored integer stands for: itself, or for `Halved` its code decoded.
    #[inline]
    pub fn value_of(self, stored: i64) -> i64 {
        match self {
            ValueType::Halved if stored > 0 => 2 * stored,
            ValueType::Halved if stored < 0 => 2 * stored + 1,
            _ => stored,
        }
    }

    /// The `Halved` code of a value, if it has one (a win stored as an even value, a loss
    /// as an odd one, within a byte).
    pub fn halved(value: i64) -> Option<i8> {
        let code = match value {
            0 => 0,
            v if v > 0 && v % 2 == 0 => v / 2,
            v if v < 0 && v % 2 != 0 => (v - 1) / 2,
            _ => return None,
        };
        i8::try_from(code).ok()
    }

    /// The Rust integer type values of this type are written as (`Halved`: `i8` codes).
    pub fn stored_as(self) -> ValueType {
        match self {
            ValueType::Halved => ValueType::I8,
            t => t,
        }
    }

    /// The type a solver holds this type's values in once decoded (`Halved`: `i16`).
    pub fn held_as(self) -> ValueType {
        match self {
            ValueType::Halved => ValueType::I16,
            t => t,
        }
    }

    /// Decode one little-endian value of this type.
    pub fn decode(self, bytes: &[u8]) -> i64 {
        let mut buf = [0u8; 8];
        let w = self.width();
        buf[..w].copy_from_slice(&bytes[..w]);
        // Sign-extend from the stored width.
        let shift = 64 - 8 * w as u32;
        (i64::from_le_bytes(buf) << shift) >> shift
    }
}

/// What values need to travel between ranks: MPI's datatype in an MPI build, nothing in
/// any other, so a solve generic over `Value` runs on one process or over ranks alike.
#[cfg(feature = "mpi")]
pub trait Wire: mpi::traits::Equivalence {}
#[cfg(feature = "mpi")]
impl<T: mpi::traits::Equivalence> Wire for T {}
/// What values need to travel between ranks: MPI's datatype in an MPI build, nothing in
/// any other, so a solve generic over `Value` runs on one process or over ranks alike.
#[cfg(not(feature = "mpi"))]
pub trait Wire {}
#[cfg(not(feature = "mpi"))]
impl<T> Wire for T {}

/// A value type the sweep can be instantiated with.
pub trait Value: Copy + Ord + Send + Sync + Default + Wire + 'static {
    /// The `ValueType` of this Rust type.
    const TYPE: ValueType;
    /// The identities of max and min: where a position's best value starts.
    const LOWEST: Self;
    /// The largest value (the minimiser's starting point).
    const HIGHEST: Self;
    /// Widen to i64.
    fn to_i64(self) -> i64;
    /// Only called with values inside the range the type was chosen for.
    fn from_i64(v: i64) -> Self;
    /// A move's reward plus a child's value, in the stored type so the sweep's loops
    /// vectorise. The game promises the sum lies in its value range, so it never wraps.
    fn plus(self, other: Self) -> Self;
    /// Append the little-endian bytes.
    fn write_le(self, out: &mut Vec<u8>);
}

macro_rules! impl_value {
    ($t:ty, $vt:expr) => {
        impl Value for $t {
            const TYPE: ValueType = $vt;
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                debug_assert!(v >= <$t>::MIN as i64 && v <= <$t>::MAX as i64);
                v as $t
            }
            #[inline(always)]
            fn plus(self, other: Self) -> Self {
                debug_assert!(self.checked_add(other).is_some(), "value out of range");
                self.wrapping_add(other)
            }
            #[inline(always)]
            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    };
}

impl_value!(i8, ValueType::I8);
impl_value!(i16, ValueType::I16);
impl_value!(i32, ValueType::I32);
impl_value!(i64, ValueType::I64);

/// Run `$body` with the type alias `$V` bound to the Rust type of `$vt`.
#[macro_export]
macro_rules! with_value_type {
    ($vt:expr, $V:ident => $body:expr) => {
        match $vt {
            $crate::stored::ValueType::I8 => {
                type $V = i8;
                $body
            }
            // Decoded values of halved codes reach 255: held as i16.
            $crate::stored::ValueType::I16 | $crate::stored::ValueType::Halved => {
                type $V = i16;
                $body
            }
            $crate::stored::ValueType::I32 => {
                type $V = i32;
                $body
            }
            $crate::stored::ValueType::I64 => {
                type $V = i64;
                $body
            }
        }
    };
}
// The macro by its module's path (`crate::stored::with_value_type!`), as the rest of the
// crate names it.
pub use crate::with_value_type;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halved_codes_stand_for_wins_in_odd_plies_and_losses_in_even() {
        for code in i8::MIN..=i8::MAX {
            let value = ValueType::Halved.value_of(code.into());
            assert_eq!(ValueType::halved(value), Some(code), "code {code}");
            // r + 1 for a win in r (odd r), -(r + 1) for a loss in r (even r).
            match value {
                v if v > 0 => assert_eq!((v - 1) % 2, 1),
                v if v < 0 => assert_eq!((-v - 1) % 2, 0),
                _ => assert_eq!(code, 0),
            }
        }
        // Nine Men's Morris's longest win and loss: 203 and 204 plies.
        assert_eq!(ValueType::halved(204), Some(102));
        assert_eq!(ValueType::halved(-205), Some(-103));
        // A win in an even number of plies, a loss in an odd one, or past a byte: none.
        for value in [1, -2, 3 + 253, 256, -257] {
            assert_eq!(ValueType::halved(value), None, "{value}");
        }
        assert_eq!(ValueType::Halved.width(), 1);
        assert_eq!(ValueType::I8.value_of(-5), -5);
    }

    #[test]
    fn narrowest_type() {
        assert_eq!(ValueType::for_range(0, 127), ValueType::I8);
        assert_eq!(ValueType::for_range(-129, 0), ValueType::I16);
        assert_eq!(ValueType::for_range(0, 1200), ValueType::I16);
        assert_eq!(
            ValueType::for_range(-22_500_000, 22_500_000),
            ValueType::I32
        );
        assert_eq!(ValueType::for_range(0, 1 << 40), ValueType::I64);
    }

    #[test]
    fn decode_sign_extends() {
        assert_eq!(ValueType::I8.decode(&[0xff]), -1);
        assert_eq!(ValueType::I16.decode(&(-300i16).to_le_bytes()), -300);
        assert_eq!(ValueType::I32.decode(&(-7i32).to_le_bytes()), -7);
        assert_eq!(ValueType::I64.decode(&i64::MIN.to_le_bytes()), i64::MIN);
    }
}
