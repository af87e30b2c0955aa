//! Tests of the kernel: whole boards and prefixes against a plain recursive count, the
//! branch-free kernel against the plain backtrack on every subproblem of the plans and on
//! random frames, and every bulk count the kernel uses against the portable lanes. A child
//! module of its own so that the kernel's files stay short.

use super::*;

/// Plain recursive count below level `level` of `f` (state `cols`, `d`, `a`), no tricks, for
/// cross-checking: every free square of the level, then the rest below it.
fn naive(f: &Frame, level: usize, cols: u64, d: u64, a: u64) -> u64 {
    if level >= f.depth {
        return 1;
    }
    let k = f.step[level];
    let mut free = f.mask & !(cols | d | a | f.fixed[level]);
    let mut total = 0;
    while free != 0 {
        let b = free & free.wrapping_neg();
        free ^= b;
        total += naive(f, level + 1, cols | b, (d | b) << k, (a | b) >> k);
    }
    total
}

/// A stop flag that is never raised.
static GO: AtomicBool = AtomicBool::new(false);

/// The crate's deterministic test generator: `next(m)` is a number below `m`.
fn xorshift() -> impl FnMut(usize) -> usize {
    let mut rng = crate::random::XorShift::new(0x9e37_79b9_7f4a_7c15);
    move |m: usize| rng.below(m)
}

/// A random tight frame and a start in it: a few queens placed at random on an `n`-board
/// (7 to 14 wide), the frame made of the other rows (rows up to 5 apart, squares attacked by
/// the placed queens fixed), started at level 0, 1 or 2.
fn random_frame(next: &mut impl FnMut(usize) -> usize) -> (Frame, Start) {
    let n = 7 + next(8);
    let mut queens: Vec<(usize, usize)> = Vec::new();
    for _ in 0..1 + next(4) {
        let (r, c) = (next(n), next(n));
        let peaceful = queens
            .iter()
            .all(|&(qr, qc)| qr != r && qc != c && qr.abs_diff(r) != qc.abs_diff(c));
        if peaceful {
            queens.push((r, c));
        }
    }
    let rows: Vec<usize> = (0..n)
        .filter(|&r| queens.iter().all(|q| q.0 != r))
        .collect();
    let mut frame = Frame::open(n, rows.len());
    for (l, &r) in rows.iter().enumerate() {
        for &(qr, qc) in &queens {
            let d = r.abs_diff(qr);
            frame.fixed[l] |= (1u64 << (qc + d) | 1u64 << qc >> d) & frame.mask;
        }
        if l + 1 < rows.len() {
            frame.step[l] = (rows[l + 1] - r) as u32;
        }
    }
    let mut start = Start {
        cols: queens.iter().fold(0, |m, q| m | 1 << q.1),
        ..Start::default()
    };
    for _ in 0..next(3) {
        let f = frame.free(&start);
        if f == 0 {
            break;
        }
        let b = if next(2) == 0 {
            f & f.wrapping_neg()
        } else {
            1 << (63 - f.leading_zeros())
        };
        start = frame.descend(&start, b);
    }
    (frame, start)
}

#[test]
fn open_frame_counts_whole_boards() {
    let known = [1u64, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680];
    for (i, &q) in known.iter().enumerate() {
        let n = i + 1;
        let frame = Frame::open(n, n);
        let t = complete(&frame, &Start::default());
        assert_eq!(t.count, q, "n = {n}");
        assert_eq!(t.count, naive(&frame, 0, 0, 0, 0));
        // A start with every level filled is one completion.
        let done = Start {
            level: n,
            ..Start::default()
        };
        assert_eq!(complete(&frame, &done), Found { count: 1, nodes: 0 });
    }
}

#[test]
fn fixed_squares_and_steps_are_honoured() {
    // A 5x5 board whose middle row (row 2) already holds a queen in column 2: the search
    // fills rows 0, 1, 3, 4, and must jump two rows between levels 1 and 2.
    let n = 5;
    let mut frame = Frame::open(n, 4);
    let rows = [0usize, 1, 3, 4];
    for (l, &r) in rows.iter().enumerate() {
        let dist = r.abs_diff(2);
        frame.fixed[l] = (1 << (2 + dist) | 1 << 2 >> dist) & frame.mask;
        if l + 1 < rows.len() {
            frame.step[l] = (rows[l + 1] - r) as u32;
        }
    }
    let start = Start {
        cols: 1 << 2,
        ..Start::default()
    };
    // Solutions of 5-queens with a queen at (2, 2): 2 of them (the two with the centre).
    assert_eq!(complete(&frame, &start).count, 2);
}

/// Random tight frames against the plain backtrack, through [`complete`] and through every
/// way the kernel counts ([`check::cross_check`]), the bulk counts included.
#[test]
fn random_tight_frames_match_the_plain_backtrack() {
    let mut next = xorshift();
    let mut found = 0;
    let mut checked = [0; 3];
    for _ in 0..3000 {
        let (frame, start) = random_frame(&mut next);
        let plain = complete_loose(&frame, &start, &GO).unwrap();
        assert_eq!(
            complete(&frame, &start).count,
            plain.count,
            "{frame:?} {start:?}"
        );
        found += usize::from(plain.count > 0);
        if start.level + 3 <= frame.depth {
            let c = check::cross_check(&frame, &start)
                .unwrap_or_else(|e| panic!("{e}: {frame:?} {start:?}"));
            checked[0] += usize::from(c.bulk[0]);
            checked[1] += usize::from(c.bulk[1]);
            checked[2] += usize::from(c.bit_extensions);
        }
    }
    assert!(found > 300, "{found}");
    if checked[2] > 0 {
        assert!(checked[..2].iter().all(|&b| b > 500), "{checked:?}");
    } else {
        crate::tests_support::skip("the bulk counts: no popcnt/lzcnt/bmi1/bmi2 here");
    }
}

/// Frames with spare columns (more free columns than levels; [`complete`] runs the plain
/// backtrack) against the recursive count.
#[test]
fn loose_frames_match_the_recursive_count() {
    // Open frames of fewer rows than the board is wide.
    for n in 2..=9 {
        for depth in 1..n {
            let frame = Frame::open(n, depth);
            let t = complete(&frame, &Start::default());
            assert_eq!(t.count, naive(&frame, 0, 0, 0, 0), "n = {n} depth {depth}");
        }
    }
    // Four rows of an 8-wide board have completions (so the comparisons above are not all
    // of zeros).
    assert!(complete(&Frame::open(8, 4), &Start::default()).count > 0);
    // Random frames with fixed squares and skipped rows, less their last level (one spare
    // column), from starts at levels 0 to 2.
    let mut next = xorshift();
    let mut found = 0;
    for _ in 0..1000 {
        let (mut frame, start) = random_frame(&mut next);
        frame.depth -= 1;
        if start.level >= frame.depth {
            continue;
        }
        let t = complete(&frame, &start);
        let want = naive(&frame, start.level, start.cols, start.diag, start.anti);
        assert_eq!(t.count, want, "{frame:?} {start:?}");
        found += usize::from(want > 0);
    }
    assert!(found > 300, "{found}");
}

#[test]
fn a_raised_stop_flag_ends_a_long_search_at_once() {
    // The open 17-board: millions of nodes per poll interval, far more than one interval.
    let stop = AtomicBool::new(true);
    let frame = Frame::open(17, 17);
    assert_eq!(complete_until(&frame, &Start::default(), &stop), None);
    let loose = Frame::open(17, 16);
    assert_eq!(complete_loose(&loose, &Start::default(), &stop), None);
    // Not raised: the same searches end with their counts.
    let small = Frame::open(9, 9);
    assert_eq!(
        complete_until(&small, &Start::default(), &GO).map(|f| f.count),
        Some(352)
    );
}
