//! Prints the join engine's memory estimate (`join::memory_needed`) for n = 12..=23 and some
//! thread counts: the figures the README's memory table quotes.

fn main() {
    let threads = [1, 2, 4, 8, 16, 64];
    print!("n");
    for t in threads {
        print!("\t{t} threads");
    }
    println!();
    for n in 12..=nqueens::join::MAX_JOIN_N {
        print!("{n}");
        for t in threads {
            print!(
                "\t{}",
                nqueens::memory::human(nqueens::join::memory_needed(n, t))
            );
        }
        println!();
    }
}
