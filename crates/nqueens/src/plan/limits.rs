//! The limits every way of splitting a plan keeps to (the most subproblems, the deepest
//! split) and the number of subproblems a default plan aims for: apart from `plan/mod.rs`, so
//! that the files of each way of splitting take them from below rather than from their
//! parent, which uses them.

/// The most subproblems a plan may have: four times what the default plans aim for at most
/// (what each takes while the plan is made is measured in `plan/size.rs`).
pub(crate) const MAX_SUBPROBLEMS: usize = 1 << 22;

/// The deepest split a plan accepts.
pub(crate) const MAX_SPLIT_DEPTH: usize = 8;

/// How many subproblems a default plan aims for: enough for a large machine's threads to get
/// many each, and for large boards small enough subproblems that a run can stop (and a checkpoint
/// be saved) quickly. It depends on the board alone, so that every machine and every task of
/// an array job cuts a count the same way.
pub(crate) fn target_subproblems(n: usize) -> usize {
    match n {
        0..=9 => 16,
        10..=17 => 1024,
        _ => (4096usize << (2 * (n - 18).min(6))).min(1 << 20),
    }
}
