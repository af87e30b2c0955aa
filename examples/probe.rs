fn main() {
    let n: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    for alg in nqueens::Algorithm::ALL {
        let c = nqueens::count(&nqueens::Config::new(n).algorithm(alg).threads(1)).unwrap();
        println!(
            "{alg} n={n} total={} unique={:?} nodes={} subs={} depth={} secs={:.3}",
            c.total,
            c.unique,
            c.nodes,
            c.subproblems,
            c.split_depth,
            c.elapsed.as_secs_f64()
        );
    }
}
