//! Prints how many placements each quadrant list of the join engine holds, and the lists' bytes,
//! for boards n = 2..=N (default 20); with `--partitions`, the largest partition (placements
//! on one row mask of the north-west quadrant) for quadrant sides h = 1..=N. The list sizes
//! are the figures behind `join::memory_needed`; the partitions are in `results/join-log.md`.

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let partitions = args.iter().any(|a| a == "--partitions");
    let last: usize = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map_or(20, |s| s.parse().expect("a board size"));
    if partitions {
        println!("h\tlargest partition\tall placements\ts");
        for h in 1..=last {
            let t = Instant::now();
            let (largest, all) = nqueens_engine::join::partition_sizes(2 * h);
            println!("{h}\t{largest}\t{all}\t{:.3}", t.elapsed().as_secs_f64());
        }
        return;
    }
    println!("n\th\tper quadrant\tlists bytes\tbuild s");
    for n in 2..=last {
        let t = Instant::now();
        let q = nqueens_engine::join::Quadrants::build(n);
        println!(
            "{n}\t{}\t{}\t{}\t{:.3}",
            q.geo.h,
            q.placements() / 4,
            q.bytes(),
            t.elapsed().as_secs_f64()
        );
    }
}
