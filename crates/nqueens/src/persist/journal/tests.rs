//! Tests of the journal: written files read back and check; keyed tags; damaged, foreign
//! and edited files refused.

use super::*;
use crate::run::solve_one;
use std::path::PathBuf;

fn finished_journal(cut: &Cut) -> Journal {
    let plan = cut.plan();
    let mut j = Journal::new(Kind::Checkpoint, plan, None);
    let subproblems: BTreeMap<u64, Counted> = cut
        .subproblems()
        .take(5)
        .map(|s| (s.id, solve_one(plan, &s)))
        .collect();
    j.set_counted(plan, &subproblems);
    j
}

/// A journal of five subproblems of n = 9 (cut whole) written to a fresh folder.
fn written() -> (Cut, tempfile::TempDir, PathBuf, Journal) {
    let plan = Cut::whole(Plan::build(9, Algorithm::Symmetry, None).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.json");
    let j = finished_journal(&plan);
    j.write(&path).unwrap();
    (plan, dir, path, j)
}

#[test]
fn a_written_journal_reads_back_and_checks() {
    let (plan, dir, path, j) = written();
    let back = Journal::read(&path).unwrap();
    assert_eq!(back, j);
    back.check_against(&plan, None).unwrap();
    // No temporary file is left behind.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_keyed_journal_stays_tagged_through_changes_and_checks_only_with_its_key() {
    let (plan, _dir, path, untagged) = written();
    assert!(!untagged.to_json().contains("\"tag\""));
    let key = Key::new(b"sixteen bytes ok".to_vec()).unwrap();
    let other = Key::new(b"sixteen bytes no".to_vec()).unwrap();
    let mut j = untagged.clone().keyed(&key);
    let first = j.tag().unwrap().to_string();
    assert_eq!(first.len(), 64);
    // A change reseals the tag too.
    j.set_meta("host", "elsewhere");
    assert_ne!(j.tag().unwrap(), first);
    j.write(&path).unwrap();
    let back = Journal::read(&path).unwrap();
    back.check_against(&plan, None).unwrap();
    back.check_tag(&key).unwrap();
    assert!(matches!(back.check_tag(&other), Err(Problem::Tag)));
    assert!(matches!(untagged.check_tag(&key), Err(Problem::Untagged)));
    // Changed without the key, the checksum is redone but the tag is stale.
    let mut forged = back.clone();
    forged.set_meta("host", "forged");
    assert!(matches!(forged.check_tag(&key), Err(Problem::Tag)));
}

#[test]
fn an_edited_number_of_subproblems_is_named_as_such() {
    let (plan, _dir, _path, mut j) = written();
    j.entries = j.entries.map(|e| e + 1);
    j.seal();
    let err = j.check_against(&plan, None).unwrap_err();
    assert!(matches!(err, Problem::Subproblems { .. }), "{err}");
    let text = err.to_string();
    assert!(text.contains("the file was edited"), "{text}");
    assert!(!text.contains("another plan"), "{text}");
}

#[test]
fn a_journal_with_an_unknown_field_or_of_another_shard_is_refused() {
    let (plan, _dir, path, _) = written();
    let text = fs::read_to_string(&path).unwrap();
    // A field this program does not write is refused, not ignored.
    let extra = text.replacen("{", "{\"note\":\"hi\",", 1);
    fs::write(&path, extra).unwrap();
    let err = Journal::read(&path).unwrap_err().to_string();
    assert!(err.contains("unknown field `note`"), "{err}");

    fs::write(&path, &text).unwrap();
    let err = Journal::read(&path)
        .unwrap()
        .check_against(&plan, Some(Shard::new(1, 2).unwrap()))
        .unwrap_err()
        .to_string();
    assert_eq!(err, "written for a whole run, not shard 1/2");
}

#[test]
fn a_large_file_is_read_by_its_header_first_and_whole_within_its_bound() {
    let cut = Cut::whole(Plan::build(20, Algorithm::Join, None).unwrap());
    let plan = cut.plan();
    let shard = Shard::new(0, 1).unwrap();
    let mut j = Journal::new(Kind::ShardResult, plan, Some(shard));
    // Every entry of the shard, with node counts long enough to pass the size read whole.
    let nodes = 10u64.pow(19);
    let subproblems: BTreeMap<u64, Counted> = cut
        .shard_entries(shard)
        .map(|(s, _)| {
            let counted = Counted {
                id: s.id,
                entry: s.entry,
                slice: s.slice,
                count: 0,
                nodes,
            };
            (s.id, counted)
        })
        .collect();
    j.set_counted(plan, &subproblems);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s0.json");
    j.write(&path).unwrap();
    let bytes = fs::metadata(&path).unwrap().len();
    assert!(bytes > HEADER_ONLY_ABOVE, "{bytes}");
    let head = Journal::read_header(&path).unwrap();
    assert!(head.is_header_only());
    assert_eq!(head.unread(), Some(bytes));
    assert_eq!(
        (head.n(), head.plan_hash(), head.shard()),
        (20, plan.hash(), Some(shard))
    );
    assert_eq!(head.counted_len(), 0);
    // Within the bound of its plan and shard it reads whole; one byte short, not at all.
    let most = crate::run::most_file_bytes(plan, Some(shard));
    assert!(most >= bytes, "{most} < {bytes}");
    let whole = Journal::read_at_most(&path, most).unwrap();
    assert_eq!(whole, j);
    let short = Journal::read_at_most(&path, bytes - 1).unwrap_err();
    assert!(matches!(
        short,
        JournalError::Invalid {
            problem: Problem::TooLarge { .. },
            ..
        }
    ));
}

#[test]
fn an_entry_cut_past_the_most_slices_is_refused() {
    let (plan, _dir, path, mut j) = written();
    let last = plan.plan().entry_count() - 1;
    j.slices = vec![(last, MOST_SLICES + 1, 0, 0, 0)];
    j.whole.retain(|p| p.0 < last);
    j.seal();
    j.write(&path).unwrap();
    let err = Journal::read(&path).unwrap_err().to_string();
    assert!(
        err.contains("more than the 1048576 a run ever cuts"),
        "{err}"
    );
}
