//! Criterion benchmarks: the kernel alone, whole counts per n, the algorithms side by side, and
//! the join engine's units and matching loop. Every benchmark of a count checks it against the
//! published table.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use nqueens::{Algorithm, Config, count, known};
use nqueens_engine::join::{self, Quadrants};
use nqueens_engine::kernel::{Frame, Start, complete};
use nqueens_engine::random::XorShift;

/// The kernel alone on a whole open board (no plan, no threads).
fn kernel(c: &mut Criterion) {
    let mut g = c.benchmark_group("kernel/open-board");
    for n in 8..=13 {
        let frame = Frame::open(n, n);
        let probe = complete(&frame, &Start::default());
        assert_eq!(Some(u128::from(probe.count)), known::total(n));
        g.throughput(Throughput::Elements(probe.nodes));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| complete(&frame, &Start::default()).count)
        });
    }
    g.finish();
}

/// Whole counts on one thread with the symmetry algorithm.
fn full_count(c: &mut Criterion) {
    let mut g = c.benchmark_group("count/symmetry-1-thread");
    for n in 8..=13 {
        let cfg = Config::new(n).threads(1).algorithm(Algorithm::Symmetry);
        assert_eq!(Some(count(&cfg).unwrap().total), known::total(n));
        g.bench_with_input(BenchmarkId::from_parameter(n), &cfg, |b, cfg| {
            b.iter(|| count(cfg).unwrap().total)
        });
    }
    g.finish();
}

/// Every algorithm side by side.
fn algorithms(c: &mut Criterion) {
    let mut g = c.benchmark_group("algorithms");
    g.sample_size(10);
    for n in 10..=14 {
        for alg in Algorithm::ALL {
            let cfg = Config::new(n).threads(1).algorithm(alg);
            let probe = count(&cfg).unwrap();
            assert_eq!(Some(probe.total), known::total(n));
            g.throughput(Throughput::Elements(probe.nodes as u64));
            g.bench_with_input(BenchmarkId::new(alg.name(), n), &cfg, |b, cfg| {
                b.iter(|| count(cfg).unwrap().total)
            });
        }
    }
    g.finish();
}

/// The join engine without plan or threads: every unit of a board (half-boards from the
/// quadrant lists, tables, matching), and the matching loop alone on fixed patterns.
fn join(c: &mut Criterion) {
    let mut g = c.benchmark_group("join/units");
    g.sample_size(10);
    for n in [12, 14, 16] {
        let q = Quadrants::build(n);
        let units = join::units(n);
        let weighted = |q: &Quadrants| -> u128 {
            units
                .iter()
                .map(|(u, w)| u128::from(join::count_unit(q, u).count) * u128::from(*w))
                .sum()
        };
        assert_eq!(Some(weighted(&q)), known::total(n));
        let halves: u64 = units
            .iter()
            .map(|(u, _)| join::count_unit(&q, u).nodes)
            .sum();
        g.throughput(Throughput::Elements(halves));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| weighted(&q))
        });
    }
    g.finish();

    // Patterns of 34 bits (n = 18) with about a third of their bits set, like half-boards.
    let mut rng = XorShift::new(0x9e37_79b9_7f4a_7c15);
    let mut next = || rng.next() & ((1 << 34) - 1);
    let mut g = c.benchmark_group("join/matching");
    let mut tables = join::Tables::default();
    for (t, q) in [(512, 2048), (4096, 8192)] {
        let table: Vec<u64> = (0..t).map(|_| next() & next()).collect();
        let queries: Vec<u64> = (0..q).map(|_| next() & next()).collect();
        let want: u64 = queries
            .iter()
            .map(|a| table.iter().filter(|&&b| a & b == 0).count() as u64)
            .sum();
        assert_eq!(join::count_fitting(&table, &queries, 34, &mut tables), want);
        g.throughput(Throughput::Elements((t * q) as u64));
        g.bench_function(BenchmarkId::from_parameter(format!("{t}x{q}")), |b| {
            b.iter(|| join::count_fitting(&table, &queries, 34, &mut tables))
        });
    }
    g.finish();
}

criterion_group!(benches, kernel, full_count, algorithms, join);
criterion_main!(benches);
