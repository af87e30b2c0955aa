//! What the runner adds around the engines that they must not do themselves: the engines
//! count and report what they did, and read no clock, so the timing of their work (for the
//! estimate) is done here, from outside.

pub(crate) mod probe;
