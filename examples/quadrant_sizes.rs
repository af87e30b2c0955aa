//! Prints how many placements each quadrant list of the join engine holds, and the lists' bytes,
//! for boards n = 2..=N (default 20): the figures behind `join::memory_needed`.

use std::time::Instant;

fn main() {
    let last: usize = std::env::args()
        .nth(1)
        .map_or(20, |s| s.parse().expect("a board size"));
    println!("n\th\tper quadrant\tlists bytes\tbuild s");
    for n in 2..=last {
        let t = Instant::now();
        let q = nqueens::internals::join::Quadrants::build(n);
        println!(
            "{n}\t{}\t{}\t{}\t{:.3}",
            q.geo.h,
            q.placements() / 4,
            q.bytes(),
            t.elapsed().as_secs_f64()
        );
    }
}
