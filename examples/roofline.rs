//! The ceilings of `results/roofline.md`, measured on this machine's core, and the matching's
//! throughput in a count.
//!
//! `roofline peak BITS WORDS [SECONDS]`: the query loop alone (the same instructions as a
//! count runs), on tables of `64 WORDS` patterns of BITS bits (chunks of 6 bits, one row of
//! WORDS words a chunk and query; 4 words: some 14 KiB of tables at 42 bits, in the first-level
//! cache), 8,191 queries a call (too few to be sieved), repeated for about SECONDS (default
//! 5); prints candidate pairs and table words ORed per second.
//! `roofline unit N NORTH [K] [STEP]`: the matching of one unit of an even board (the K-th of
//! the stratum with NORTH east rows in the north half, `join::unit_in_stratum`), every
//! STEP-th pattern of each side (default all), on one thread: its sieve's work
//! (`join::matching_work`: pairs, queries, words ORed and built) and its time, so pairs and
//! words per second of the whole matching (sorting and table building included; `perf`
//! gives the query loop's share).
//! `roofline stream [SECONDS]`: one core summing arrays of 16 KiB to 1 GiB, bytes per second.

use std::hint::black_box;
use std::time::Instant;

use nqueens_engine::join::{self, Geometry, Quadrants, Tables, count_fitting};
use nqueens_engine::random::XorShift;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage =
        "usage: roofline peak BITS WORDS [SECONDS] | unit N NORTH [K] [STEP] | stream [SECONDS]";
    let number = |i: usize, default: f64| -> f64 {
        args.get(i).map_or(default, |s| s.parse().expect(usage))
    };
    match args.first().map(String::as_str) {
        Some("peak") => peak(
            number(1, 0.0) as usize,
            number(2, 0.0) as usize,
            number(3, 5.0),
        ),
        Some("unit") => unit(
            number(1, 0.0) as usize,
            number(2, 0.0) as u32,
            number(3, 0.0),
            number(4, 1.0) as usize,
        ),
        Some("stream") => stream(number(1, 2.0)),
        _ => panic!("{usage}"),
    }
}

/// The query loop alone, on tables of `words` words a row.
fn peak(bits: usize, words: usize, seconds: f64) {
    assert!((12..=62).contains(&bits), "BITS is 12 to 62");
    assert!((1..=127).contains(&words), "WORDS is 1 to 127");
    let mut rng = XorShift::new(0x9e37_79b9_7f4a_7c15);
    let mask = (1u64 << bits) - 1;
    // About a third of the bits set, as in half-board patterns.
    let mut pattern = || rng.next() & rng.next() & mask;
    let table: Vec<u64> = (0..64 * words).map(|_| pattern()).collect();
    let queries: Vec<u64> = (0..8191).map(|_| pattern()).collect();
    let mut tables = Tables::default();
    let (mut calls, mut fitting) = (0u64, 0u64);
    let begun = Instant::now();
    while calls == 0 || begun.elapsed().as_secs_f64() < seconds {
        fitting += count_fitting(black_box(&table), black_box(&queries), bits, &mut tables);
        calls += 1;
    }
    let secs = begun.elapsed().as_secs_f64();
    let pairs = calls as f64 * (table.len() * queries.len()) as f64;
    let chunks = bits.div_ceil(6) as f64;
    // Each query ORs one row of `words` words from each chunk's table.
    let ored = calls as f64 * queries.len() as f64 * chunks * words as f64;
    println!(
        "peak, {bits} bits, {words} words: {calls} calls in {secs:.2} s, {:.3e} candidate \
         pairs/s, {:.3e} table words ORed/s ({fitting} fitting)",
        pairs / secs,
        ored / secs
    );
}

/// The matching of one unit on one thread: its sieve's work and its time.
fn unit(n: usize, north: u32, k: f64, step: usize) {
    let (_, unit) = join::unit_in_stratum(n, north, k as usize)
        .unwrap_or_else(|| panic!("no unit has {north} east rows in the north half"));
    let (east, west) = join::unit_sides(&Quadrants::bounded(n, 0), &unit);
    let every = |side: Vec<u64>| -> Vec<u64> { side.into_iter().step_by(step.max(1)).collect() };
    let (east, west) = (every(east), every(west));
    let bits = Geometry::new(n).pattern_bits();
    let w = join::matching_work(&east, &west, bits).expect("sides large enough to be sieved");
    let begun = Instant::now();
    let fitting = count_fitting(&east, &west, bits, &mut Tables::default());
    let secs = begun.elapsed().as_secs_f64();
    let row = w.words_ored as f64 / (w.queries as f64 * w.chunks as f64);
    println!(
        "unit n={n} north={north} k={k} step={step}: sides {} x {}, {bits} bits, {} bins, \
         {} chunks of {} bits, {row:.1} words a row; {:.4e} pairs, {:.4e} words ORed, \
         {:.4e} built; {fitting} fitting in {secs:.2} s: {:.3e} pairs/s, {:.3e} words ORed/s",
        east.len(),
        west.len(),
        w.bins,
        w.chunks,
        w.width,
        w.pairs as f64,
        w.words_ored as f64,
        w.words_built as f64,
        w.pairs as f64 / secs,
        w.words_ored as f64 / secs
    );
}

/// One core reading arrays of growing size, each summed repeatedly for about `seconds`.
fn stream(seconds: f64) {
    for kib in [16usize, 256, 4 << 10, 64 << 10, 1 << 20] {
        let data: Vec<u64> = (0..kib * 128).map(|i| i as u64).collect();
        let (mut passes, mut sum) = (0u64, 0u64);
        let begun = Instant::now();
        while passes == 0 || begun.elapsed().as_secs_f64() < seconds {
            // Four sums, so that the adds do not wait on one another.
            let mut s = [0u64; 4];
            for c in black_box(&data).chunks_exact(4) {
                for (a, b) in s.iter_mut().zip(c) {
                    *a = a.wrapping_add(*b);
                }
            }
            sum = sum.wrapping_add(s.iter().fold(0, |a, b| a.wrapping_add(*b)));
            passes += 1;
        }
        let secs = begun.elapsed().as_secs_f64();
        let bytes = passes as f64 * (kib * 1024) as f64;
        println!(
            "stream {kib} KiB: {:.2} GB/s ({passes} passes, sum {sum:x})",
            bytes / secs / 1e9
        );
    }
}
