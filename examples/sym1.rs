//! One single-thread count with the symmetry algorithm, for side-by-side timing of the
//! backtracking kernel: `sym1 N` prints total, unique, nodes, seconds and nodes per second.
fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("usage: sym1 N");
    let c = nqueens::count(
        &nqueens::Config::new(n)
            .threads(1)
            .algorithm(nqueens::Algorithm::Symmetry),
    )
    .expect("count");
    let secs = c.elapsed.as_secs_f64();
    println!(
        "n={n} total={} unique={:?} nodes={} secs={secs:.3} mnodes_per_s={:.1}",
        c.total,
        c.unique,
        c.nodes,
        c.nodes as f64 / secs / 1e6
    );
}
