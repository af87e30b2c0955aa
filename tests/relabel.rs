//! Files whose cut was relabelled, their checksum (and where needed their sums) redone: a
//! partly counted entry marked whole, a whole one marked a slice of two. A file records how
//! its run cut each entry (`[entry, count, nodes]` whole, `[entry, slices, index, count,
//! nodes]` a slice) and the slice times it cut with; an entry cut otherwise than this release
//! cuts it at those times is not taken on trust: a resume counts it again, and a merge
//! recounts it, under the defaults.

mod common;

use std::path::{Path, PathBuf};

use common::{cmd, reseal_to};

/// The count these tests make: n = 16 by the symmetry plan, its long entries cut into two or
/// three slices of 10 ms.
const COUNT: [&str; 6] = ["16", "-a", "symmetry", "--slice-seconds", "0.01", "-t"];

/// The total of n = 16.
const TOTAL: &str = "14772512 solutions";

/// What a journal holds, as its text gives it: whole entries, slices and the sums.
struct Records {
    whole: Vec<[u64; 3]>,
    slices: Vec<[u64; 5]>,
    /// total, half_turn, quarter_turn, nodes, counted
    sums: [u64; 5],
}

impl Records {
    fn read(path: &Path) -> (String, Records) {
        let text = std::fs::read_to_string(path).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let numbers = |x: &serde_json::Value| -> Vec<u64> {
            x.as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_u64().unwrap())
                .collect()
        };
        let rows = |name: &str| -> Vec<Vec<u64>> {
            v[name]
                .as_array()
                .map_or_else(Vec::new, |a| a.iter().map(numbers).collect())
        };
        let s = &v["sums"];
        let sum = |k: &str| s[k].as_u64().unwrap();
        let records = Records {
            whole: rows("whole")
                .into_iter()
                .map(|r| r.try_into().unwrap())
                .collect(),
            slices: rows("slices")
                .into_iter()
                .map(|r| r.try_into().unwrap())
                .collect(),
            sums: ["total", "half_turn", "quarter_turn", "nodes", "counted"].map(sum),
        };
        (text, records)
    }

    /// Writes `text` with these records in place of its own, resealed, to `to`.
    fn write(&self, text: &str, to: &Path) {
        let start = text.find("\"whole\":").unwrap();
        let end = text.find(",\"meta\":").unwrap();
        let list = |rows: Vec<String>| format!("[{}]", rows.join(","));
        let row = |r: &[u64]| {
            let cells: Vec<String> = r.iter().map(u64::to_string).collect();
            format!("[{}]", cells.join(","))
        };
        let mut whole = self.whole.clone();
        whole.sort_unstable();
        let mut slices = self.slices.clone();
        slices.sort_unstable_by_key(|s| (s[0], s[2]));
        let mut middle = format!("\"whole\":{}", list(whole.iter().map(|r| row(r)).collect()));
        if !slices.is_empty() {
            middle += &format!(
                ",\"slices\":{}",
                list(slices.iter().map(|r| row(r)).collect())
            );
        }
        let [t, h, q, n, c] = self.sums;
        middle += &format!(
            ",\"sums\":{{\"total\":{t},\"half_turn\":{h},\"quarter_turn\":{q},\"nodes\":{n},\"counted\":{c}}}"
        );
        let edited = format!("{}{middle}{}", &text[..start], text[end..].trim_end());
        reseal_to(to, &[edited.as_bytes()]);
    }

    /// The first entry cut into two slices whose weight is 8 (so that its total moves by a
    /// multiple of 8, which the Burnside check cannot see), with its two slices.
    fn cut_in_two(&self, weight_of: impl Fn(u64) -> u8) -> ([u64; 5], [u64; 5]) {
        let pair = self
            .slices
            .windows(2)
            .find(|w| w[0][0] == w[1][0] && w[0][1] == 2 && w[0][3] > 0 && weight_of(w[0][0]) == 8);
        let pair = pair.expect("an entry of weight 8 cut in two");
        (pair[0], pair[1])
    }
}

/// The weight of entry `e` of the n = 16 symmetry plan (uncut, ids are entries).
fn weight(e: u64) -> u8 {
    let plan = nqueens::Plan::build(16, nqueens::Algorithm::Symmetry, None).unwrap();
    plan.weight_of(e)
}

/// Runs the program with `args`; returns its exit code, stdout and stderr.
fn run(args: &[&str], more: &[&Path]) -> (Option<i32>, String, String) {
    let out = cmd().args(args).args(more).output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code(), text(out.stdout), text(out.stderr))
}

/// The two shard results of [`COUNT`] in `dir`.
fn shards(dir: &Path) -> Vec<PathBuf> {
    (0..2)
        .map(|i| {
            let path = dir.join(format!("s{i}.json"));
            let shard = format!("{i}/2");
            let args = [&COUNT[..], &["1", "--shard", &shard, "--out"]].concat();
            let (code, _, err) = run(&args, &[&path]);
            assert_eq!(code, Some(0), "{err}");
            path
        })
        .collect()
}

#[test]
fn a_shard_result_with_a_relabelled_cut_is_recounted_by_the_default_merge() {
    let dir = tempfile::tempdir().unwrap();
    let files = shards(dir.path());
    let (code, out, err) = run(&["merge"], &[&files[0], &files[1]]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains(TOTAL) && !out.contains("cut:"), "{out}");
    // A partly counted entry marked whole: its second slice gone, its first marked whole,
    // the sums redone (by a multiple of 8).
    let (text, mut r) = Records::read(&files[0]);
    let (first, second) = r.cut_in_two(weight);
    r.slices.retain(|s| s[0] != first[0]);
    r.whole.push([first[0], first[3], first[4]]);
    r.sums[0] -= 8 * second[3];
    r.sums[3] -= second[4];
    r.sums[4] -= 1;
    let forged = dir.path().join("forged.json");
    r.write(&text, &forged);
    // Refused whatever the random sample holds: one subproblem of thousands, here.
    for args in [
        &["merge"][..],
        &["merge", "--recount", "1", "--recount-seed", "1"],
    ] {
        let (code, out, err) = run(args, &[&forged, &files[1]]);
        assert_eq!((code, out.as_str()), (Some(1), ""), "{args:?}: {err}");
        assert!(err.contains("forged.json"), "{err}");
    }
    // A whole entry marked the first slice of two, with an empty second: the total as it
    // was, and the entry recounted slice by slice.
    let (text, mut r) = Records::read(&files[1]);
    let whole = r.whole.remove(r.whole.len() / 2);
    r.slices.push([whole[0], 2, 0, whole[1], whole[2]]);
    r.slices.push([whole[0], 2, 1, 0, 0]);
    r.sums[4] += 1;
    let forged = dir.path().join("forged-whole.json");
    r.write(&text, &forged);
    let (code, out, err) = run(&["merge"], &[&files[0], &forged]);
    // Refused (a slice of the entry differs from its claim), or, where the claim holds, the
    // merge says it recounted the entry and the total is right.
    match code {
        Some(1) => assert!(err.contains("forged-whole.json"), "{err}"),
        Some(0) => assert!(
            out.contains(TOTAL) && out.contains("cut: 1 entry cut otherwise"),
            "{out}"
        ),
        _ => panic!("{code:?}: {err}"),
    }
}

#[test]
fn a_checkpoint_with_a_relabelled_cut_resumes_to_the_right_total() {
    let dir = tempfile::tempdir().unwrap();
    let cp = dir.path().join("c.json");
    let args = [&COUNT[..], &["1", "--checkpoint"]].concat();
    let (code, out, err) = run(&args, &[&cp]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("14772512"), "{out}");
    let (text, full) = Records::read(&cp);
    let (first, second) = full.cut_in_two(weight);
    // A checkpoint stopped between the two slices of an entry, as a run leaves one ...
    let mut partial = Records {
        whole: full.whole.clone(),
        slices: full.slices.clone(),
        sums: full.sums,
    };
    partial.slices.retain(|s| *s != second);
    partial.sums[0] -= 8 * second[3];
    partial.sums[3] -= second[4];
    partial.sums[4] -= 1;
    // ... with that entry's first slice marked whole: the sums stay as they were.
    partial.slices.retain(|s| *s != first);
    partial.whole.push([first[0], first[3], first[4]]);
    let relabelled = dir.path().join("partly-marked-whole.json");
    partial.write(&text, &relabelled);
    // A whole entry marked the first slice of two: the run would add the second.
    let mut marked = Records {
        whole: full.whole.clone(),
        slices: full.slices.clone(),
        sums: full.sums,
    };
    let whole = marked.whole.remove(marked.whole.len() / 2);
    marked.slices.push([whole[0], 2, 0, whole[1], whole[2]]);
    let sliced = dir.path().join("whole-marked-sliced.json");
    marked.write(&text, &sliced);
    for path in [relabelled, sliced] {
        let name = path.file_name().unwrap().to_str().unwrap();
        // The defaults (no slice time given, a recount of a few seconds), and no recount at
        // all: the entry is counted again either way, as this release cuts it.
        for recount in [&[][..], &["--recount", "0"]] {
            let copy = dir.path().join(format!("copy-{name}"));
            std::fs::copy(&path, &copy).unwrap();
            let args = [&["16", "-a", "symmetry"][..], recount, &["--checkpoint"]].concat();
            let (code, out, err) = run(&args, &[&copy]);
            assert_eq!(code, Some(0), "{name} {recount:?}: {err}");
            assert!(out.contains("14772512"), "{name}: {out} {err}");
            assert!(err.contains("1 entry is cut otherwise"), "{name}: {err}");
        }
    }
}
