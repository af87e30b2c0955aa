//! The library as a caller outside it sees it: every type its public functions take or return
//! has a public path (the crates warn of `unnameable_types`), so that a journal, a key or a
//! shard can be made, and their refusals matched, from another crate.

use nqueens::persist::{
    Journal, JournalError, Key, KeyError, Kind, Problem, SaveFailure, Shard, ShardError,
};
use nqueens::{Algorithm, Control, Plan};

#[test]
fn a_journal_is_made_written_and_read_from_outside_the_library() {
    let plan = Plan::build(8, Algorithm::Symmetry, None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.json");
    Journal::new(Kind::Checkpoint, &plan, None)
        .write(&path)
        .unwrap();
    let read = Journal::read(&path).unwrap();
    assert!(read.is_checkpoint());
    assert_eq!((read.n(), read.plan_hash()), (8, plan.hash()));
    assert_eq!((read.shard(), read.counted_len()), (None, 0));
    // A key of 32 bytes: the untagged file is refused by name.
    let key_file = dir.path().join("key");
    std::fs::write(&key_file, [7u8; 32]).unwrap();
    let key = Key::read(&key_file).unwrap();
    let problem: Problem = read.check_tag(&key).unwrap_err();
    assert!(matches!(problem, Problem::Untagged), "{problem}");
    // A tagged shard result reads back with its tag.
    let shard = Shard::new(1, 4).unwrap();
    let result = dir.path().join("s1.json");
    Journal::new(Kind::ShardResult, &plan, Some(shard))
        .keyed(&key)
        .write(&result)
        .unwrap();
    let tagged = Journal::read(&result).unwrap();
    assert_eq!(tagged.shard(), Some(shard));
    tagged.check_tag(&key).unwrap();
}

#[test]
fn the_refusals_are_named_and_matched_from_outside_the_library() {
    let ShardError(refused) = Shard::new(4, 4).unwrap_err();
    assert_eq!((refused.index, refused.count), (4, 4));
    let dir = tempfile::tempdir().unwrap();
    let short = dir.path().join("short");
    std::fs::write(&short, b"secret").unwrap();
    let e: KeyError = Key::read(&short).err().unwrap();
    assert!(matches!(e, KeyError::Length { bytes: 6, .. }), "{e}");
    let missing = dir.path().join("missing.json");
    let e: JournalError = Journal::read(&missing).unwrap_err();
    assert_eq!(e.path(), missing.as_path());
    // The callback a run tells of a failed save, by its name.
    let told = |_: &JournalError| {};
    let save_failed: SaveFailure = &told;
    let control = Control {
        save_failed: Some(save_failed),
        ..Control::default()
    };
    assert!(control.cancel.is_none() && control.observer.is_none());
}
