//! A dense rook board is one piece whose Ryser sum the pool's threads share: every thread
//! must be busy for it, not one thread of two. Alone in its file, so that no other test
//! shares the machine's cores with it while it runs.

mod common;

use common::stdout_of;

#[test]
fn a_dense_rook_board_keeps_every_thread_busy() {
    // The full 26x26 board: 26! placements, one piece, 2^26 column sets in 64 blocks.
    let row: serde_json::Value =
        serde_json::from_str(&stdout_of(&["26", "--piece", "rook", "-t", "2", "--json"])).unwrap();
    assert_eq!(row["solutions_str"], "403291461126605635584000000");
    assert_eq!(row["subproblems"], 1);
    let busy: Vec<f64> = row["busy_seconds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_f64().unwrap())
        .collect();
    assert_eq!(busy.len(), 2);
    let (low, high) = (busy[0].min(busy[1]), busy[0].max(busy[1]));
    // Before, the pool had one thread for the one piece: [0.6, 0.0].
    assert!(low >= 0.7 * high, "busy seconds {busy:?}");
}
