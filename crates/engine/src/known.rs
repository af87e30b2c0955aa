//! Published counts, for tests and for the program's explicit `--verify` check only.
//!
//! Totals are OEIS A000170 and unique solutions (up to rotation and reflection) OEIS A002562,
//! for n = 1..=27; the n = 27 total is the one established by the Q27 project (Preußer and
//! Engelhardt, 2016). The engine never reads these tables to produce a count. The table lives
//! in the lowest crate so that the engine's tests and the library, which shows it as
//! `nqueens::known`, read one copy.

/// (n, total, unique) for every n with a published value.
pub(crate) const TABLE: [(usize, u128, u128); 27] = [
    (1, 1, 1),
    (2, 0, 0),
    (3, 0, 0),
    (4, 2, 1),
    (5, 10, 2),
    (6, 4, 1),
    (7, 40, 6),
    (8, 92, 12),
    (9, 352, 46),
    (10, 724, 92),
    (11, 2680, 341),
    (12, 14200, 1787),
    (13, 73712, 9233),
    (14, 365596, 45752),
    (15, 2279184, 285053),
    (16, 14772512, 1846955),
    (17, 95815104, 11977939),
    (18, 666090624, 83263591),
    (19, 4968057848, 621012754),
    (20, 39029188884, 4878666808),
    (21, 314666222712, 39333324973),
    (22, 2691008701644, 336376244042),
    (23, 24233937684440, 3029242658210),
    (24, 227514171973736, 28439272956934),
    (25, 2207893435808352, 275986683743434),
    (26, 22317699616364044, 2789712466510289),
    (27, 234907967154122528, 29363495934315694),
];

/// The published number of solutions of the n-queens problem, if known.
pub fn total(n: usize) -> Option<u128> {
    TABLE.iter().find(|row| row.0 == n).map(|row| row.1)
}

/// The published number of solutions up to rotation and reflection, if known.
pub fn unique(n: usize) -> Option<u128> {
    TABLE.iter().find(|row| row.0 == n).map(|row| row.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_complete_and_consistent() {
        for (i, &(n, t, u)) in TABLE.iter().enumerate() {
            assert_eq!(n, i + 1);
            // Every orbit has at most 8 members, and at least one for a solvable board.
            assert!(u <= t && t <= 8 * u);
        }
        assert_eq!(total(8), Some(92));
        assert_eq!(unique(8), Some(12));
        assert_eq!(total(28), None);
    }
}
