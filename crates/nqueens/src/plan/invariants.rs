//! The searches of the unique count: for Burnside's lemma, the solutions a half turn or a quarter
//! turn leaves unchanged, one search per column of the row-0 queen
//! ([`nqueens_engine::symmetry::unique_from`]). Every plan with a unique count ends with them.

use super::Work;
use super::entries::Entries;

/// The searches for solutions a half or a quarter turn leaves unchanged (Burnside's lemma),
/// one per column of the row-0 queen (a run may cut the long half-turn searches of large
/// boards into slices).
pub(super) fn push(n: usize, subproblems: &mut Entries) {
    if n < 2 {
        return;
    }
    subproblems.reserve_rest(2 * n);
    let half_turns = (0..n as u8).map(|first| Work::HalfTurn { first });
    let quarter_turns = (0..n as u8).map(|first| Work::QuarterTurn { first });
    for work in half_turns.chain(quarter_turns) {
        subproblems.push(work);
    }
}
