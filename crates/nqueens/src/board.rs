//! Board size rules and the column masks every search starts from.
//!
//! All searches keep one bit per column in a `u64`, so the board size is bounded by what the
//! diagonal masks can hold after shifting: 32 columns leave room for 32 more bits of shifted
//! diagonals without any bit of a real column ever being lost.

/// Smallest board the engine accepts.
pub(crate) const MIN_N: usize = 1;
/// Largest board the engine accepts.
pub(crate) const MAX_N: usize = 32;

/// A board size outside `MIN_N``..=``MAX_N`: the board layer's own error, which the
/// crate's [`crate::Error`] takes in as `Error::BoardSize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("board size {0} is out of range: n must be from {MIN_N} to {MAX_N}")]
pub(crate) struct SizeError(pub(crate) usize);

/// Checks that `n` is a board size the engine can count.
pub(crate) fn validate(n: usize) -> Result<(), SizeError> {
    if (MIN_N..=MAX_N).contains(&n) {
        Ok(())
    } else {
        Err(SizeError(n))
    }
}

/// The mask of an `n`-wide row and the bit of a column: the engines' own.
pub(crate) use nqueens_engine::{bit, full_mask};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_outside_one_to_thirty_two_are_refused() {
        assert!(validate(0).is_err());
        assert!(validate(33).is_err());
        assert!(validate(1).is_ok());
        assert!(validate(32).is_ok());
    }

    #[test]
    fn full_masks_have_n_bits() {
        for n in 1..=MAX_N {
            assert_eq!(full_mask(n).count_ones() as usize, n);
            assert_eq!(full_mask(n).trailing_ones() as usize, n);
        }
        assert_eq!(full_mask(0), 0);
    }
}
