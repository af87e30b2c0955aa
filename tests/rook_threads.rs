//! A dense rook board is one subproblem whose Ryser sum the pool's threads share, each part
//! of the sum counted by whichever thread asks first. The parts must add up to the exact count
//! however they fell. Which thread took how many is the scheduler's, and no test reads it off a
//! clock: what the program decides, a pool of as many threads as asked for the one subproblem,
//! is checked in `run::pool`'s tests (`pool_size`). Alone in its file, as it keeps two cores
//! busy for a while.

mod common;

use common::stdout_of;

/// The ménage number U(n) (OEIS A000179), by Touchard's formula:
/// Σ_k (-1)^k · 2n / (2n - k) · C(2n - k, k) · (n - k)!.
fn menage(n: i128) -> i128 {
    let choose = |a: i128, b: i128| (0..b).fold(1i128, |c, i| c * (a - i) / (i + 1));
    let factorial = |m: i128| (1..=m).product::<i128>();
    (0..=n)
        .map(|k| {
            let term = choose(2 * n - k, k) * 2 * n / (2 * n - k) * factorial(n - k);
            if k % 2 == 0 { term } else { -term }
        })
        .sum()
}

#[test]
fn a_dense_rook_board_is_counted_exactly_by_the_threads_together() {
    // The ménage board of 26: square (r, c) allowed unless c is r or r + 1 (mod 26). Two
    // blocked squares a row are too many to walk, so the count is Ryser's sum: one subproblem,
    // 2^26 column sets in 64 blocks.
    let n = 26;
    let mut text = format!("{n}\n");
    for r in 0..n {
        let line: String = (0..n)
            .map(|c| if c == r || c == (r + 1) % n { '0' } else { '1' })
            .collect();
        text.push_str(&line);
        text.push('\n');
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("menage.txt");
    std::fs::write(&file, text).unwrap();
    let row: serde_json::Value = serde_json::from_str(&stdout_of(&[
        "--allowed",
        file.to_str().unwrap(),
        "--piece",
        "rook",
        "-t",
        "2",
        "--json",
    ]))
    .unwrap();
    assert_eq!(menage(4), 2);
    assert_eq!(menage(10), 439_792);
    assert_eq!(row["solutions_str"], menage(26).to_string());
    assert_eq!(row["subproblems"], 1);
    assert_eq!(row["threads"], 2);
    // A busy time for each of the two threads, whatever the times are.
    assert_eq!(row["busy_seconds"].as_array().map(Vec::len), Some(2));
}
