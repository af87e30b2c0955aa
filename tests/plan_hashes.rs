//! The plan's identity, pinned: the hash of every board the program accepts (every algorithm
//! with its default split depth, n = 1 to 28 for `join` and to 32 for `plain` and `symmetry`,
//! and a few constrained boards), as `tests/data/plan-hashes.txt` holds them. Files name their
//! plan by this hash, so a change to any of them refuses every checkpoint and shard a campaign
//! has finished: it must come with a raised plan format version
//! ([`nqueens::Plan::FORMAT_VERSION`]) that still reads the files of the one before, and the
//! file written anew in the same commit (`PIN_PLAN_HASHES=write cargo test --release --test
//! plan_hashes -- --ignored`).

use std::collections::BTreeMap;
use std::time::Duration;

use nqueens::constraint::{Board, PieceKind, parse_allowed, parse_board};
use nqueens::plan::{Algorithm, Plan};
use nqueens::{Config, Control, Job};

const FORMAT_VERSION: u32 = Plan::FORMAT_VERSION;
const SLICE_SECONDS: f64 = Config::SLICE_SECONDS;

const PINNED: &str = include_str!("data/plan-hashes.txt");

/// The boards below this size are checked in every run; the larger ones (seconds each to
/// plan) by the ignored test, which the project's test script runs.
const QUICK_UNTIL: usize = 22;

/// The constrained boards pinned: the examples' and a few made here.
fn constrained_boards() -> Vec<(&'static str, Board)> {
    let root = env!("CARGO_MANIFEST_DIR");
    let read =
        |name: &str| std::fs::read_to_string(format!("{root}/examples/boards/{name}")).unwrap();
    let mut blocked = vec![vec![true; 12]; 12];
    blocked[0][3] = false;
    blocked[5][7] = false;
    let open: Vec<u64> = blocked
        .iter()
        .map(|row| {
            row.iter()
                .enumerate()
                .filter(|c| *c.1)
                .map(|(c, _)| 1u64 << c)
                .sum()
        })
        .collect();
    vec![
        (
            "books.txt rook",
            parse_allowed(&read("books.txt"), PieceKind::Rook).unwrap(),
        ),
        (
            "completion.txt queen",
            parse_board(&read("completion.txt"), PieceKind::Queen, None).unwrap(),
        ),
        (
            "empty-10 queen",
            Board::empty(10, PieceKind::Queen).unwrap(),
        ),
        ("empty-24 rook", Board::empty(24, PieceKind::Rook).unwrap()),
        (
            "blocked-12 queen",
            Board::new(12, PieceKind::Queen, open, vec![None; 12]).unwrap(),
        ),
    ]
}

/// Every pinned board's name and its plan, those of `n` below `until` (or from it).
fn hashes(small: bool) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for algorithm in [Algorithm::Plain, Algorithm::Symmetry, Algorithm::Join] {
        let largest = if algorithm == Algorithm::Join { 28 } else { 32 };
        for n in (1..=largest).filter(|&n| (n < QUICK_UNTIL) == small) {
            let plan = Plan::build(n, algorithm, None).unwrap();
            out.insert(format!("{algorithm} {n:02}"), plan.hash().to_string());
        }
    }
    if small {
        for (name, board) in constrained_boards() {
            let plan = Plan::constrained(&board, None).unwrap();
            out.insert(format!("constrained {name}"), plan.hash().to_string());
        }
    }
    out
}

/// The pinned file: its version line and its `name hash` lines.
fn pinned() -> (u32, BTreeMap<String, String>) {
    let mut lines = PINNED.lines().filter(|l| !l.trim().is_empty());
    let version = lines
        .next()
        .and_then(|l| l.strip_prefix("# plan format version "))
        .and_then(|v| v.trim().parse().ok())
        .expect("the first line names the format version");
    let hashes = lines
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (name, hash) = l.rsplit_once(' ').unwrap();
            (name.to_string(), hash.to_string())
        })
        .collect();
    (version, hashes)
}

/// Checks `computed` against the pinned hashes of the same boards; with
/// `PIN_PLAN_HASHES=write`, writes the whole file anew instead (the small and large boards).
fn check(computed: &BTreeMap<String, String>) {
    let (version, pinned) = pinned();
    assert_eq!(
        version, FORMAT_VERSION,
        "the pinned hashes are of plan format version {version}: write them anew for version {FORMAT_VERSION}"
    );
    let mut moved = Vec::new();
    for (name, hash) in computed {
        match pinned.get(name) {
            Some(p) if p == hash => {}
            p => moved.push(format!("{name}: pinned {p:?}, now {hash}")),
        }
    }
    assert!(
        moved.is_empty(),
        "plan hashes moved without a raised format version (files of earlier runs would be refused):\n{}",
        moved.join("\n")
    );
}

#[test]
fn the_small_boards_keep_their_pinned_plan_hashes() {
    check(&hashes(true));
}

#[test]
#[ignore = "plans of the largest boards take seconds each; run in release mode"]
fn the_large_boards_keep_their_pinned_plan_hashes() {
    let large = hashes(false);
    if std::env::var("PIN_PLAN_HASHES").as_deref() == Ok("write") {
        let mut all = hashes(true);
        all.extend(large);
        let mut text = format!("# plan format version {FORMAT_VERSION}\n");
        text.push_str("# board: algorithm and n (default split depth), or a constrained board; its plan hash\n");
        for (name, hash) in all {
            text.push_str(&format!("{name} {hash}\n"));
        }
        let path = format!("{}/tests/data/plan-hashes.txt", env!("CARGO_MANIFEST_DIR"));
        std::fs::write(path, text).unwrap();
        return;
    }
    check(&large);
    // Every board is pinned, none twice: the file has exactly the boards listed here.
    let (_, pinned) = pinned();
    let mut all = hashes(true);
    all.extend(large);
    assert_eq!(
        pinned.keys().collect::<Vec<_>>(),
        all.keys().collect::<Vec<_>>()
    );
}

/// The run's tuning constants never reach a plan's identity: counted with slices of some
/// 10^-8 of the default or a thousand times it (as if every measured time of the cost model
/// were scaled so), a board names the same plan, owns the same entries in each shard and
/// gives the same counts, though the runs cut it into different subproblems (and a large join board
/// cut by the run's model at three slice times names one plan: `run::tests`).
#[test]
fn the_runs_tuning_constants_do_not_change_a_plan() {
    let (_, pinned) = pinned();
    let mut seen = Vec::new();
    // The shortest slice time a run takes cuts n = 15's longest searches.
    let shortest = Config::SHORTEST_SLICE_SECONDS;
    for seconds in [shortest, SLICE_SECONDS, SLICE_SECONDS * 1000.0] {
        let config = Config::new(15)
            .algorithm(Algorithm::Symmetry)
            .threads(2)
            .slice_time(Duration::from_secs_f64(seconds));
        let job = Job::new(&config).unwrap();
        let (plan, cut) = (job.plan(), job.cut());
        let counts = job.run(Control::default()).unwrap().counts().unwrap();
        let shard = nqueens::persist::Shard::new(1, 7).unwrap();
        let mut owned: Vec<u64> = shard.ids(cut).map(|id| cut.entry_and_slice(id).0).collect();
        owned.dedup();
        seen.push((cut.len(), (plan.hash(), owned, counts.total, counts.unique)));
    }
    assert!(
        seen[0].0 > seen[1].0,
        "the shortest slices cut the plan finer"
    );
    assert!(seen.windows(2).all(|w| w[0].1 == w[1].1), "{seen:?}");
    assert_eq!(pinned.get("symmetry 15"), Some(&seen[0].1.0.to_string()));
}
