//! What a unit will cost, before it is counted: a model from the sizes of the quadrant groups
//! its half-boards are made of, for ordering work and telling the time left.
//!
//! A side's half-boards are made from pairs of a north and a south group; the pairs tested
//! (`Σ |north| · |south|` over the column splits) measure the making, and the product of the
//! two sides' pair counts measures the matching (a fixed share of the pairs become half-boards,
//! and every half-board of one side is matched against every one of the other, 512 at a
//! time). Odd boards' units are costed on the lists filtered by their middle queens, as they
//! are counted. The model only has to rank units and add up to the right
//! proportions; the count never depends on it.

use super::halves::{side_pairs, side_pairs_even};
use super::quadrant::{Quadrants, View};
use super::units::{Unit, free_lines, next_row_set};

/// Pair tests that cost as much as one candidate of the matching, about: a candidate costs
/// one OR per 6-bit chunk for 512 candidates, and about a third of the pairs become
/// half-boards on each side.
const MATCH_PER_PAIR: f64 = 1.0 / 4096.0;

/// The modelled cost of counting `unit` (arbitrary units, comparable between units).
pub fn unit_cost(q: &Quadrants, unit: &Unit) -> f64 {
    let free = free_lines(&q.geo, unit.middle);
    let filtered = unit.middle.map(|m| q.filtered(m));
    let sides = |east_rows: u32| -> (u64, u64) {
        let west_rows = free.rows & !east_rows;
        match &filtered {
            Some(lists) => {
                let view = View::of(lists);
                (
                    side_pairs(q, &view, [1, 3], east_rows, free.east_cols),
                    side_pairs(q, &view, [0, 2], west_rows, free.west_cols),
                )
            }
            None => (
                side_pairs_even(q, true, east_rows, free.east_cols),
                side_pairs_even(q, false, west_rows, free.west_cols),
            ),
        }
    };
    let mut cost = 0.0;
    let mut rows = Some(unit.east_rows);
    for _ in 0..unit.span {
        let Some(east_rows) = rows else { break };
        let (east, west) = sides(east_rows);
        let (east, west) = (east as f64, west as f64);
        // A slice is costed at its share of the unit (the worker that takes the slices of a
        // unit one after another makes its half-boards once).
        let share = unit.slice.of as f64;
        cost += (1.0 + east + west + MATCH_PER_PAIR * east * west) / share;
        rows = next_row_set(east_rows, free.rows);
    }
    cost
}

#[cfg(test)]
mod tests {
    use super::super::units::units;
    use super::*;

    #[test]
    fn every_unit_costs_something_and_bigger_boards_cost_more() {
        let mut totals = Vec::new();
        for n in [8, 9, 10, 11, 12] {
            let q = Quadrants::build(n);
            let costs: Vec<f64> = units(n).iter().map(|(u, _)| unit_cost(&q, u)).collect();
            assert!(costs.iter().all(|&c| c >= 1.0 && c.is_finite()), "n = {n}");
            totals.push(costs.iter().sum::<f64>());
        }
        // Odd and even boards are split differently; compare like with like.
        assert!(totals[2] > totals[0] && totals[4] > totals[2], "{totals:?}");
    }
}
