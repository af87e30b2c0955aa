//! Histogram of kernel nodes by the number of levels left below them (symmetry plan).
use nqueens::plan::{Algorithm, Plan, Work};
use nqueens_engine::kernel::{Frame, Start};

fn walk(f: &Frame, s: &Start, h: &mut [u64; 64]) {
    let last = f.depth - 1;
    let mut free = f.free(s);
    while free != 0 {
        let b = free & free.wrapping_neg();
        free ^= b;
        if s.level == last {
            continue;
        }
        h[last - s.level] += 1;
        let t = f.descend(s, b);
        walk(f, &t, h);
    }
}

fn main() {
    let n: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    let plan = Plan::build(n, Algorithm::Symmetry, Some(0)).unwrap();
    let mut h = [0u64; 64];
    for s in plan.subproblems() {
        if let Work::Complete { frame, start, .. } = s.work {
            let f = plan.frame(frame);
            if start.level < f.depth {
                walk(f, &start, &mut h);
            }
        }
    }
    let tot: u64 = h.iter().sum();
    for (left, c) in h.iter().enumerate().filter(|(_, c)| **c > 0) {
        println!(
            "left={left} nodes={c} ({:.1}%)",
            100.0 * *c as f64 / tot as f64
        );
    }
    println!("total={tot}");
}
