//! Prints the join engine's memory estimate (`join::memory_needed`) for n = 12..=28, both
//! layouts, and some thread counts: the figures the memory table of `docs/performance.md` quotes.

use nqueens::Bytes;
use nqueens_engine::join::{self, Layout};

fn main() {
    let threads = [1, 2, 4, 8, 16, 64];
    print!("n\tlayout");
    for t in threads {
        print!("\t{t} threads");
    }
    println!();
    for n in 12..=join::MAX_JOIN_N {
        for layout in [Layout::Lists, Layout::Bounded] {
            if layout == Layout::Lists && n > join::MAX_LISTED_N {
                continue;
            }
            print!("{n}\t{layout:?}");
            for t in threads {
                print!("\t{}", Bytes(join::memory_needed(n, t, layout)));
            }
            println!();
        }
    }
}
