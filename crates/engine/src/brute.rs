//! Brute force, for the tests of every crate: every permutation of the columns, kept when no two queens share a
//! diagonal. Deliberately unlike the bitmask search it checks.

use crate::symmetry::Sym;

/// Every solution of the n-queens problem, as the column of each row.
pub fn all_solutions(n: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut perm: Vec<usize> = (0..n).collect();
    permute(&mut perm, 0, &mut out);
    out.sort();
    out
}

fn permute(p: &mut Vec<usize>, k: usize, out: &mut Vec<Vec<usize>>) {
    if k == p.len() {
        let ok = (0..p.len()).all(|i| (i + 1..p.len()).all(|j| p[i].abs_diff(p[j]) != j - i));
        if ok {
            out.push(p.clone());
        }
        return;
    }
    for i in k..p.len() {
        p.swap(k, i);
        permute(p, k + 1, out);
        p.swap(k, i);
    }
}

/// Number of orbits of `sols` under the eight board symmetries, each solution reduced to its
/// smallest image.
pub fn distinct_up_to_symmetry(n: usize, sols: &[Vec<usize>]) -> u128 {
    let mut canon = std::collections::BTreeSet::new();
    for s in sols {
        let smallest = Sym::ALL
            .iter()
            .map(|&g| {
                let mut img = vec![0; n];
                for (r, &c) in s.iter().enumerate() {
                    let (r2, c2) = g.apply(n, (r, c));
                    img[r2] = c2;
                }
                img
            })
            .min()
            .unwrap();
        canon.insert(smallest);
    }
    canon.len() as u128
}
