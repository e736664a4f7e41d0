//! Reading a damaged file without a panic. The Parquet reader panics on some corruptions
//! (a dictionary index out of range in a page with flipped bits) instead of returning an
//! error; a read wrapped here turns such a panic into an error naming the file, so a damaged
//! table exits 3 with one line like any other. The binary's panic hook stays silent for a
//! panic caught here ([`catching`]).

use std::cell::Cell;
use std::panic::AssertUnwindSafe;

use crate::error::{OracleError, one_line};

thread_local! {
    /// How many guarded reads are under way on this thread.
    static GUARDED: Cell<usize> = const { Cell::new(0) };
}

/// Whether a panic on this thread would be caught by a guarded read (the panic hook then
/// prints nothing: the error it becomes is reported instead).
pub fn catching() -> bool {
    GUARDED.with(|g| g.get() > 0)
}

/// Runs `read` of the file shown as `shown`; a panic inside it becomes an error naming it.
pub fn guarded<T>(
    shown: &str,
    read: impl FnOnce() -> Result<T, OracleError>,
) -> Result<T, OracleError> {
    GUARDED.with(|g| g.set(g.get() + 1));
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(read));
    GUARDED.with(|g| g.set(g.get().saturating_sub(1)));
    outcome.unwrap_or_else(|payload| {
        let reason = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("the reader stopped");
        Err(OracleError::file(
            shown,
            format!("damaged: {}", one_line(reason)),
        ))
    })
}
