//! The engines of a constrained board (the library's `constraint::Board`): its rows come as masks
//! of the squares a piece may take (blocked squares and what the pre-placed pieces attack left
//! out), and queens are placed by a bitmask search cut into slices like the kernel's, rooks
//! counted as a permanent by the cheapest exact method.

mod queens;
mod rooks;

pub use queens::{Completed, complete_slice};
pub use rooks::{MOST_PARTS, Route, count_rooks, route};
