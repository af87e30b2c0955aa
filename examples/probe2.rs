use nqueens::plan::*;
fn main() {
    let n: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    let plan = Plan::build(n, Algorithm::Symmetry, Some(0), 1).unwrap();
    let mut fam = std::collections::BTreeMap::new();
    for s in &plan.subproblems {
        let p = nqueens::run::solve(&plan, s);
        let key = match s.work {
            Work::Complete {
                frame,
                start,
                weight,
            } => format!("f{frame:03} lvl{} w{weight}", start.level),
            Work::Invariant { quarter, .. } => format!("inv{quarter}"),
        };
        let e = fam.entry(key).or_insert((0u64, 0u64, 0u64));
        e.0 += 1;
        e.1 += p.nodes;
        e.2 += p.count;
    }
    for (k, v) in fam {
        println!("{k}: subs={} nodes={} count={}", v.0, v.1, v.2);
    }
}
