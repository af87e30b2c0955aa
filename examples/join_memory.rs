//! Prints the join engine's memory estimate (`join::memory_needed`) for n = 12..=23 and some
//! thread counts: the figures the README's memory table quotes.

use nqueens::internals::join;
use nqueens::system::Bytes;

fn main() {
    let threads = [1, 2, 4, 8, 16, 64];
    print!("n");
    for t in threads {
        print!("\t{t} threads");
    }
    println!();
    for n in 12..=join::MAX_JOIN_N {
        print!("{n}");
        for t in threads {
            print!("\t{}", Bytes(join::memory_needed(n, t)));
        }
        println!();
    }
}
