//! The kernel's ways of counting, checked against each other on one subproblem: the library's
//! tests run it on every subproblem of its plans, whose frames (border queens, skipped rows)
//! only the plans make, and the kernel's own tests on random frames.

use std::sync::atomic::AtomicBool;

#[cfg(target_arch = "x86_64")]
use super::bottom::Bottom;
use super::{Frame, LANES_LAST_TWO, Start, bottom::LastTwo, lanes, lanes::Shape};
#[cfg(target_arch = "x86_64")]
use super::{
    LANES_LAST_FIVE, LANES_LAST_FOUR,
    bottom::{LastFive, LastFour},
    extensions::BitExtensions,
};
use super::{complete_loose, complete_tight};

/// A stop flag that is never raised.
static GO: AtomicBool = AtomicBool::new(false);

/// What [`cross_check`] compared on one subproblem.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    /// The lanes with the processor's bit instructions were compared with the portable ones.
    pub bit_extensions: bool,
    /// The bulk counts of the last four and of the last five levels that could be made here
    /// and were compared.
    pub bulk: [bool; 2],
    /// The four-level bulk count spanned skipped rows (a tie frame's bottom).
    pub spread: bool,
}

/// Counts the search below `start` every way the kernel can (the plain backtrack, the
/// branch-free loop, the portable lanes and, where the processor has the bit instructions,
/// the same lanes with them and the bulk counts of the last four and five levels where they
/// can be made) and says what was compared, or what disagreed. The start must be at least
/// three levels above the bottom, and the frame tight (as many free columns as levels left).
pub fn cross_check(frame: &Frame, start: &Start) -> Result<Checked, String> {
    let f = frame;
    let mut checked = Checked::default();
    let tight = complete_tight(f, start, &GO).ok_or("stopped")?;
    let loose = complete_loose(f, start, &GO).ok_or("stopped")?;
    if tight.count != loose.count || tight.nodes > loose.nodes {
        return Err(format!("branch-free {tight:?}, plain {loose:?}"));
    }
    let first = f.free(start);
    let sh = Shape::new(f, LastTwo::new(f));
    let portable = lanes::portable::<LANES_LAST_TWO, _>(&sh, start, first, &GO).ok_or("stopped")?;
    if portable.count != loose.count {
        return Err(format!("portable lanes {portable:?}, plain {loose:?}"));
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(ext) = BitExtensions::detect() {
        checked.bit_extensions = true;
        let fast = ext.lanes::<LANES_LAST_TWO, _>(&sh, start, first, &GO);
        if fast != Some(portable) {
            return Err(format!(
                "bit-instruction lanes {fast:?}, portable {portable:?}"
            ));
        }
        let four = (start.level + LastFour::LEVELS < f.depth)
            .then(|| LastFour::new(f, ext))
            .flatten()
            .and_then(|b| ext.lanes::<LANES_LAST_FOUR, _>(&Shape::new(f, b), start, first, &GO));
        let five = (start.level + LastFive::LEVELS < f.depth)
            .then(|| LastFive::new(f, ext))
            .flatten()
            .and_then(|b| ext.lanes::<LANES_LAST_FIVE, _>(&Shape::new(f, b), start, first, &GO));
        for (i, found) in [four, five].into_iter().enumerate() {
            let Some(found) = found else {
                continue;
            };
            if found.count != portable.count || found.nodes > portable.nodes {
                return Err(format!(
                    "{} levels in bulk {found:?}, portable {portable:?}",
                    i + 4
                ));
            }
            checked.bulk[i] = true;
            let rows = (f.depth - 4..f.depth - 1).map(|l| f.step[l]).sum::<u32>();
            checked.spread |= i == 0 && rows >= 4;
        }
    }
    Ok(checked)
}
