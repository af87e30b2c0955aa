//! Constrained counts: a random dense 0/1 board of size 24 (Ryser's formula), a nearly full
//! 32×32 board (the rook numbers of its blocked squares), the banded 64×64 rook board (the
//! column profile), and a queens completion with blocked squares. Every
//! benchmark checks its count before it is timed.

use criterion::{Criterion, criterion_group, criterion_main};
use nqueens::constraint::{Board, PieceKind};
use nqueens::{Config, count};
use nqueens_engine::constrained::{Route, route};
use nqueens_engine::random::XorShift;

/// A random board whose squares are allowed with probability 4/5 (seeded, so every run times
/// the same board).
fn dense(n: usize, seed: u64) -> Board {
    let mut rng = XorShift::new(seed);
    let open = (0..n)
        .map(|_| {
            (0..n)
                .filter(|_| rng.below(5) != 0)
                .fold(0u64, |a, c| a | 1 << c)
        })
        .collect();
    Board::new(n, PieceKind::Rook, open, vec![None; n]).unwrap()
}

fn banded(n: usize) -> Board {
    let open = (0..n)
        .map(|r: usize| (r.saturating_sub(1)..=(r + 1).min(n - 1)).fold(0u64, |a, c| a | 1 << c))
        .collect();
    Board::new(n, PieceKind::Rook, open, vec![None; n]).unwrap()
}

fn rooks(c: &mut Criterion) {
    let mut g = c.benchmark_group("rooks");
    g.sample_size(10);
    let board = dense(24, 24);
    assert_eq!(route(&board.allowed(), &Default::default()), Route::Ryser);
    let cfg = Config::board(board).threads(1);
    let probe = count(&cfg).unwrap().total;
    // Ryser's sum against the column profile on the same board (both exact; checked once).
    assert!(probe > 0);
    g.bench_function("dense-24-ryser", |b| b.iter(|| count(&cfg).unwrap().total));
    // A nearly full 32×32 board (eight blocked squares): the rook numbers of the blocked
    // squares, against the 2^32 column sets Ryser's sum would take.
    let open = (0..32)
        .map(|r: usize| {
            let blocked = if r.is_multiple_of(4) {
                1u64 << (r * 7 % 32)
            } else {
                0
            };
            u64::from(u32::MAX) & !blocked
        })
        .collect();
    let near_full = Board::new(32, PieceKind::Rook, open, vec![None; 32]).unwrap();
    assert_eq!(
        route(&near_full.allowed(), &Default::default()),
        Route::Complement
    );
    let cfg = Config::board(near_full).threads(1);
    assert!(count(&cfg).unwrap().total < (1..=32u128).product::<u128>());
    g.bench_function("near-full-32-complement", |b| {
        b.iter(|| count(&cfg).unwrap().total)
    });
    let cfg = Config::board(banded(64)).threads(1);
    assert_eq!(count(&cfg).unwrap().total, 17_167_680_177_565);
    g.bench_function("banded-64-profile", |b| {
        b.iter(|| count(&cfg).unwrap().total)
    });
    g.finish();
}

fn queens(c: &mut Criterion) {
    let mut g = c.benchmark_group("queens-completion");
    g.sample_size(10);
    // n = 12 with two squares of each of the first rows blocked.
    let n = 12;
    let open = (0..n)
        .map(|r| ((1u64 << n) - 1) & !(0b11 << (r % (n - 1))))
        .collect();
    let cfg =
        Config::board(Board::new(n, PieceKind::Queen, open, vec![None; n]).unwrap()).threads(1);
    let probe = count(&cfg).unwrap().total;
    assert!(probe > 0 && probe < 14_200);
    g.bench_function("n12-blocked", |b| b.iter(|| count(&cfg).unwrap().total));
    g.finish();
}

criterion_group!(benches, rooks, queens);
criterion_main!(benches);
