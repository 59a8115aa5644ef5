//! Stopping a running request: a cancel from another thread (`CancelHandle::cancel`, the
//! REPL's and the script runner's Ctrl-C, Python's `Connection.cancel`), the session's
//! statement timeout (`Session::set_statement_timeout`), or a step that would make an
//! intermediate result larger than the session's spool space (`Session::set_spool_space`).
//!
//! A request runs under a [`Watch`] (installed for the thread that runs it by [`watch`]).
//! The places where a statement can run long call [`check`]: each outer row of a correlated
//! subquery, each chunk of join pairs, each step of join ordering, each round of a recursive
//! CTE, each partition of a window, each SELECT block and each table read; and a wait for a
//! lock another transaction holds asks it every 20 ms (a hook the watch installs in storage,
//! `locks::set_wait_stop`). A statement stopped there fails with 3110 (cancelled) or 9920
//! (timed out) and is undone as any failing statement is; the session carries on. Between two checks a statement runs Arrow kernels over
//! whole batches, so a stop is seen within milliseconds on tables of millions of rows.
//!
//! Spool: every step whose result can outgrow its inputs (a join, a set operation, grouping
//! sets, a recursive query's rows, a select list's computed columns, a repeated literal,
//! `||`, a built-in's character results) checks the size of its result before it builds it,
//! or as it grows (row by row, item by item of a select list, set by set) ([`check_spool`]):
//! a result over the spool space is 2646, as Teradata's "No more spool space", instead of an
//! allocation that ends the process.
//!
//! Invariants: a watch belongs to the thread that installed it, for as long as its [`Guard`]
//! lives (a session is used from one thread at a time); a nested request (a macro) keeps the
//! watch of the request it runs in. Each watched request of a session has a generation of its
//! own, and a cancel names the generation it saw running in that session: a cancel that comes
//! as one request ends and the next begins stops neither the wrong one nor, later, any other.

use crate::error::{Error, Result};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What stops the running request.
#[derive(Clone)]
struct Watch {
    /// The generation a cancel from another thread names (see [`watch`]).
    cancelled: Arc<AtomicU64>,
    /// This request's generation.
    generation: u64,
    /// The statement timeout: when the request began plus the timeout, and the timeout.
    deadline: Option<(Instant, Duration)>,
    /// The most bytes one intermediate result may take.
    spool: usize,
}

/// The spool space a session has unless it sets another (`Session::set_spool_space`).
pub const DEFAULT_SPOOL: usize = 4 << 30;

thread_local! {
    static CURRENT: RefCell<Option<Watch>> = const { RefCell::new(None) };
}

/// Keeps a watch installed; dropping it takes the watch away again and clears `running`.
pub(crate) struct Guard {
    /// The running cell to clear, if this guard installed the watch.
    running: Option<Arc<AtomicU64>>,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(running) = self.running.take() {
            CURRENT.with(|c| *c.borrow_mut() = None);
            tdlite_storage::locks::set_wait_stop(None);
            running.store(0, Ordering::SeqCst);
        }
    }
}

/// Watches the request about to run on this thread: it stops when `cancelled` names its
/// generation (the next of the session's `generations`, which `running` holds until the guard
/// is dropped), and when the time runs past `timeout`. Inside a watched request (a macro's
/// statements) the outer request's watch stays. The three cells are the session's own
/// (`CancelHandle`): no cell that other sessions write is written per request.
pub(crate) fn watch(
    (cancelled, running, generations): (&Arc<AtomicU64>, &Arc<AtomicU64>, &AtomicU64),
    timeout: Option<Duration>,
    spool: usize,
) -> Guard {
    CURRENT.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_some() {
            return Guard { running: None };
        }
        let generation = generations.fetch_add(1, Ordering::SeqCst) + 1;
        running.store(generation, Ordering::SeqCst);
        *c = Some(Watch {
            cancelled: cancelled.clone(),
            generation,
            // a timeout too far to add to the clock is no bound
            deadline: timeout.and_then(|t| Some((Instant::now().checked_add(t)?, t))),
            spool,
        });
        tdlite_storage::locks::set_wait_stop(Some(lock_wait_stop));
        Guard {
            running: Some(running.clone()),
        }
    })
}

/// Fails if the running request was cancelled or ran out of time.
///
/// # Errors
/// 3110 after a cancel, 9920 past the statement timeout.
pub(crate) fn check() -> Result<()> {
    CURRENT.with(|c| match c.borrow().as_ref() {
        Some(w) if w.cancelled.load(Ordering::Relaxed) == w.generation => Err(Error::Cancelled),
        Some(Watch {
            deadline: Some((at, timeout)),
            ..
        }) if Instant::now() >= *at => Err(Error::StatementTimeout(timeout.as_secs_f64())),
        _ => Ok(()),
    })
}

/// What a storage lock wait on this thread asks while it sleeps: whether the running request
/// was cancelled or timed out.
fn lock_wait_stop() -> Option<tdlite_storage::locks::Interruption> {
    use tdlite_storage::locks::Interruption;
    match check() {
        Err(Error::Cancelled) => Some(Interruption::Cancelled),
        Err(Error::StatementTimeout(secs)) => Some(Interruption::TimedOut(secs)),
        _ => None,
    }
}

/// Fails if an intermediate result of `bytes` would not fit the request's spool space.
///
/// # Errors
/// 2646 past the spool space.
pub(crate) fn check_spool(bytes: usize) -> Result<()> {
    CURRENT.with(|c| match c.borrow().as_ref() {
        Some(w) if bytes > w.spool => Err(Error::SpoolBytes(w.spool)),
        _ => Ok(()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watch_stops_on_cancel_or_deadline_and_only_while_installed() {
        let cancelled = Arc::new(AtomicU64::new(0));
        let running = Arc::new(AtomicU64::new(0));
        let generations = AtomicU64::new(0);
        let cells = (&cancelled, &running, &generations);
        assert!(check().is_ok(), "nothing watched: nothing to stop");
        {
            let _g = watch(cells, None, DEFAULT_SPOOL);
            let generation = running.load(Ordering::SeqCst);
            assert_ne!(generation, 0);
            assert!(check().is_ok());
            cancelled.store(generation, Ordering::SeqCst);
            assert_eq!(check().unwrap_err().code().number, 3110);
            {
                let other = Arc::new(AtomicU64::new(0));
                let _inner = watch((&other, &other, &generations), None, 10);
                assert_eq!(
                    check().unwrap_err().code().number,
                    3110,
                    "the outer watch stays"
                );
            }
            assert!(check().is_err());
        }
        assert!(check().is_ok(), "the guard took the watch away");
        assert_eq!(running.load(Ordering::SeqCst), 0);
        {
            // the cancel named the request before: the next one runs
            let _g = watch(cells, Some(Duration::MAX), DEFAULT_SPOOL);
            assert!(
                check().is_ok(),
                "a stale cancel and a timeout too far to add stop nothing"
            );
        }
        let _g = watch(cells, Some(Duration::ZERO), 100);
        assert_eq!(check().unwrap_err().code().number, 9920);
        assert!(check_spool(100).is_ok());
        assert_eq!(check_spool(101).unwrap_err().code().number, 2646);
    }
}
