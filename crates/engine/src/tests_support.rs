//! What the engine's tests share: the skip that CI does not allow, the twin of `skip()` in the
//! workspace's `tests/common/mod.rs`, which this crate's unit tests cannot reach.

/// Says why a check was skipped (a processor without the instructions it tests); under CI
/// (`CI=true`) a skip fails the test instead, so that CI never passes a check it did not run.
pub(crate) fn skip(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("skipped under CI, which must run it: {why}");
    }
    eprintln!("skipped: {why}");
}
