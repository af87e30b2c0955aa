//! Criterion benchmarks: the kernel alone, whole counts per n, and the algorithms side by side.
//! Every benchmark checks the count it measures against the published table.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use nqueens::kernel::{Frame, Start, complete};
use nqueens::{Algorithm, Config, count, known};

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

/// Whole counts on one thread with the default algorithm.
fn full_count(c: &mut Criterion) {
    let mut g = c.benchmark_group("count/symmetry-1-thread");
    for n in 8..=13 {
        let cfg = Config::new(n).threads(1);
        assert_eq!(Some(count(&cfg).unwrap().total), known::total(n));
        g.bench_with_input(BenchmarkId::from_parameter(n), &cfg, |b, cfg| {
            b.iter(|| count(cfg).unwrap().total)
        });
    }
    g.finish();
}

/// Plain and symmetry side by side.
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

criterion_group!(benches, kernel, full_count, algorithms);
criterion_main!(benches);
