//! Makes the two sides (east and west half-boards) of one unit of an even board in the
//! memory-bounded layout and times their matching on one thread, or writes their patterns
//! to a file for experiments on the sieve (`results/join-log.md`, section 18).
//!
//! `unit_sides N NORTH [K] [FILE [STEP]]`: the K-th unit (default 0) of the stratum with
//! NORTH east rows in the north half (unit `(7919 K + 13) mod` the stratum's size, in the
//! order of east rows, the units of `results/join-log.md`, sections 18 and 19). With
//! FILE, every STEP-th pattern of each side (default all) is written as little-endian `u64`s
//! after the two counts; with FILE `-`, only the sizes are printed; with FILE `time`, the
//! estimate's projection of the unit (three samples) is printed before the unit is counted
//! as a run counts it (streamed where a run streams it) and timed.
//! `unit_sides N thread K OF [CACHE]` counts slice 0 of OF of units 0..K of every stratum one
//! after another on one thread, as a thread of a run goes from unit to unit (its buffers and
//! a partition cache of CACHE MiB kept: 256 by default, what the join's memory table was
//! measured with; a run keeps at most 64), and prints the peak resident memory after each.
//! `unit_sides N NORTH K slice I OF` counts slice I of OF of the unit as a run does and prints
//! the peak resident memory of the count (Linux; the unit list is dropped and the peak reset
//! first, so the figure is the engine's own and the program's few MiB).

use std::io::Write;

use nqueens_engine::join::{self, Geometry, Quadrants, Tables};

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: unit_sides N NORTH [K] [FILE [STEP]] | N NORTH K slice I OF \
                 | N thread K OF [CACHE]";
    let n: usize = args.next().and_then(|s| s.parse().ok()).expect(usage);
    let mut args = args.peekable();
    if args.next_if(|a| a == "thread").is_some() {
        let k: usize = args.next().and_then(|s| s.parse().ok()).expect(usage);
        let of: u64 = args.next().and_then(|s| s.parse().ok()).expect(usage);
        let cache_mib: usize = args.next().map_or(256, |s| s.parse().expect(usage));
        return one_thread(n, k, of, cache_mib << 20);
    }
    let north: u32 = args.next().and_then(|s| s.parse().ok()).expect(usage);
    let k: usize = args.next().map_or(0, |s| s.parse().expect(usage));
    let file = args.next();
    let step: usize = args.next().map_or(1, |s| s.parse().expect(usage));
    let q = Quadrants::bounded(n, 0);
    let (id, unit) = join::unit_in_stratum(n, north, k)
        .unwrap_or_else(|| panic!("no unit has {north} east rows in the north half"));
    // The unit list was the tool's own, and is gone: the peak is reset, so that the peak
    // printed after a slice is what counting the unit held.
    reset_peak();
    // Counted as a run counts it (streamed where a run streams it), with the partitions kept
    // as a run keeps them.
    let run_q = || Quadrants::bounded(n, 256 << 20);
    if file.as_deref() == Some("slice") {
        let of: u64 = args.next().and_then(|s| s.parse().ok()).expect(usage);
        let slice = join::Slice {
            index: step as u64,
            of,
        };
        let begun = std::time::Instant::now();
        let found = join::count_unit(&run_q(), &join::Unit { slice, ..unit });
        println!(
            "n = {n}, unit {id}, slice {step}/{of}: {} fitting pairs in {:.2} s, peak {} MiB",
            found.count,
            begun.elapsed().as_secs_f64(),
            peak_mib().map_or("unknown".into(), |m| m.to_string())
        );
        return;
    }
    if file.as_deref() == Some("time") {
        // The estimate's projection of the unit, next to the unit counted whole.
        let q = run_q();
        let never = std::sync::atomic::AtomicBool::new(false);
        for seed in [id, id + 1, id + 2] {
            let probe = join::Probe {
                row_sets: 1,
                bins: 24,
                seed,
                workers: 1,
            };
            let secs = nqueens::time_join_unit(&q, &unit, probe, &never).expect("never stopped");
            println!(
                "n = {n}, unit {id}: the estimate's sample (seed {seed}) projects {secs:.2} s"
            );
        }
        let begun = std::time::Instant::now();
        let found = join::count_unit(&q, &unit);
        println!(
            "counted as a run counts it: {} fitting pairs in {:.2} s",
            found.count,
            begun.elapsed().as_secs_f64()
        );
        return;
    }
    let begun = std::time::Instant::now();
    let (east, west) = join::unit_sides(&q, &unit);
    println!(
        "n = {n}, unit {id} (east rows {:#b}): {} east and {} west half-boards, made in {:.2} s",
        unit.east_rows,
        east.len(),
        west.len(),
        begun.elapsed().as_secs_f64()
    );
    match file.as_deref() {
        Some("-") => {}
        Some(path) => {
            let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("a file"));
            let (e, w): (Vec<u64>, Vec<u64>) = (
                east.iter().step_by(step).copied().collect(),
                west.iter().step_by(step).copied().collect(),
            );
            for x in [e.len() as u64, w.len() as u64].iter().chain(&e).chain(&w) {
                f.write_all(&x.to_le_bytes()).expect("written");
            }
        }
        None => {
            let bits = Geometry::new(n).pattern_bits();
            let begun = std::time::Instant::now();
            let count = join::count_fitting(&east, &west, bits, &mut Tables::default());
            println!(
                "{count} fitting pairs in {:.2} s",
                begun.elapsed().as_secs_f64()
            );
        }
    }
}

/// The `thread` mode: units 0..k of every stratum, slice 0 of `of` each, on this thread, with
/// a partition cache of `cache` bytes.
fn one_thread(n: usize, k: usize, of: u64, cache: usize) {
    let chosen = join::picked_units(n, k);
    reset_peak();
    let q = Quadrants::bounded(n, cache);
    for (north, _, unit) in chosen {
        let slice = join::Slice { index: 0, of };
        let begun = std::time::Instant::now();
        join::count_unit(&q, &join::Unit { slice, ..unit });
        println!(
            "n = {n}, {north} north, rows {:#x}: {:.2} s, peak so far {} MiB",
            unit.east_rows,
            begun.elapsed().as_secs_f64(),
            peak_mib().map_or("unknown".into(), |m| m.to_string())
        );
    }
}

/// Resets the process's peak resident memory (`VmHWM`), where Linux allows it.
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The process's peak resident memory in MiB since the last [`reset_peak`], where known.
fn peak_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}
