//! The delayed state: consumers waiting on empty queue tables.
//!
//! Each queue table has a FIFO list of waiters. A waiter is a condition variable of its own; a
//! commit that makes k rows consumable wakes the first k waiters, a dropped table wakes all of
//! them with an error, and a cancel or timeout removes one. A selective consumer (one with a
//! condition, consume_filter.rs) waits with a [`Matcher`]: in waiting order, each waiter is
//! handed the first of a commit's rows (not yet handed out) that it would take, so a selective
//! waiter is woken only by a row that matches and a row that matches no one wakes no one. A woken waiter retries the take and,
//! if another consumer was faster, goes back to the *front* of the list, so waiters are served
//! in the order they began waiting. A consumer that has not begun waiting yet (it is still
//! yielding the CPU before it sleeps, see `session.rs` `SPIN_YIELDS`) can take a row before
//! the waiters do, as a new consumer arriving at that moment could.
//!
//! Invariants:
//! - the registry lock is held only for list operations and the (non-blocking) take attempt,
//!   never while sleeping, so a waiter blocks no producer, no other queue, no other session;
//! - lock order is registry → table, and commits release every table lock before notifying,
//!   so there is no cycle;
//! - a consumer decides to sleep while holding the registry lock, and a commit publishes its
//!   rows before it takes that lock to notify, so a wake-up cannot be lost; the decision is
//!   a take tried under the lock, or (a selective consumer) an unchanged
//!   [`Waiters::generation`] since a take tried before it;
//! - a waiter that was woken but leaves without a row (timeout, cancel) passes the wake-up on.

use crate::consume_filter::Matcher;
use parking_lot::{Condvar, Mutex, MutexGuard};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;
use tdlite_storage::table::RowId;

/// Why a wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitEnd {
    /// A row may be available: try again.
    Woken,
    /// The queue table was dropped.
    Dropped,
    /// The lock manager ended the wait: another transaction waits for this one (2631).
    Deadlock,
    /// The wait was cancelled from another thread.
    Cancelled,
    /// The session's consume timeout expired.
    TimedOut,
}

#[derive(Default)]
struct CellState {
    woken: bool,
    dropped: bool,
    cancelled: bool,
    deadlock: bool,
}

/// One waiting consumer.
#[derive(Default)]
pub(crate) struct WaitCell {
    /// For a selective consumer, which rows it would take (`None`: any).
    matcher: Option<Matcher>,
    state: Mutex<CellState>,
    cv: Condvar,
    /// The waiting session and its transaction (for `HELP LOCKS`).
    pub(crate) who: (u64, u64),
    /// True while the consumer sleeps in the delayed state (on the table's waiter list), not
    /// while it tries a take or waits for a row lock.
    pub(crate) delayed: std::sync::atomic::AtomicBool,
}

impl WaitCell {
    pub(crate) fn new(session: u64, txn: u64) -> Self {
        WaitCell {
            who: (session, txn),
            ..WaitCell::default()
        }
    }

    /// A waiter that takes only the rows `matcher` accepts.
    pub(crate) fn selective(session: u64, txn: u64, matcher: Option<Matcher>) -> Self {
        WaitCell {
            matcher,
            ..WaitCell::new(session, txn)
        }
    }

    /// The first of `rows` this waiter would take (a plain waiter: the first).
    fn first_taken(&self, rows: &[RowId]) -> Option<usize> {
        match &self.matcher {
            None => (!rows.is_empty()).then_some(0),
            Some(m) => m(rows).iter().position(|&ok| ok),
        }
    }

    /// Forgets an earlier end-as-deadlock (before registering for a new wait: only a transaction
    /// that waits for this one when it registers counts).
    pub(crate) fn clear_deadlock(&self) {
        self.state.lock().deadlock = false;
    }

    /// Ends the wait as a deadlock victim and wakes it.
    pub(crate) fn end_as_deadlock(&self) {
        self.state.lock().deadlock = true;
        self.cv.notify_one();
    }

    /// Marks the wait cancelled and wakes it.
    pub(crate) fn cancel(&self) {
        self.state.lock().cancelled = true;
        self.cv.notify_one();
    }

    fn wake(&self, dropped: bool) {
        let mut s = self.state.lock();
        s.woken = true;
        s.dropped |= dropped;
        self.cv.notify_one();
    }

    pub(crate) fn is_cancelled(&self) -> bool {
        self.state.lock().cancelled
    }

    /// Sleeps until woken, cancelled, dropped or `deadline`.
    pub(crate) fn wait(&self, deadline: Option<Instant>) -> WaitEnd {
        let mut s = self.state.lock();
        loop {
            if s.dropped {
                return WaitEnd::Dropped;
            }
            if s.cancelled {
                return WaitEnd::Cancelled;
            }
            if s.deadlock {
                return WaitEnd::Deadlock;
            }
            if s.woken {
                s.woken = false;
                return WaitEnd::Woken;
            }
            match deadline {
                Some(d) => {
                    if self.cv.wait_until(&mut s, d).timed_out()
                        && !s.woken
                        && !s.dropped
                        && !s.cancelled
                        && !s.deadlock
                    {
                        return WaitEnd::TimedOut;
                    }
                }
                None => self.cv.wait(&mut s),
            }
        }
    }
}

/// Stripes of [`Waiters::generation`]: tables share a counter when their ids are equal
/// modulo this. Rows handed out on one then count as rows come to the other, whose
/// selective consumers try again (and after `SELECTIVE_RETRIES` stale tries in a row, try
/// under the registry lock, session.rs): rare with this many stripes.
const GENERATION_STRIPES: usize = 1024;

/// Waiters of every queue table, by table id.
pub(crate) struct Waiters {
    queues: Mutex<HashMap<u64, VecDeque<Arc<WaitCell>>>>,
    /// Per table (striped), how many times rows were handed out ([`Waiters::notify`]),
    /// counted under the registry lock.
    generations: [AtomicU64; GENERATION_STRIPES],
}

impl Default for Waiters {
    fn default() -> Self {
        Waiters {
            queues: Mutex::default(),
            generations: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

/// The registry, locked.
pub(crate) type Registry<'a> = MutexGuard<'a, HashMap<u64, VecDeque<Arc<WaitCell>>>>;

impl Waiters {
    pub(crate) fn lock(&self) -> Registry<'_> {
        self.queues.lock()
    }

    /// Hands `rows`, rows a table just gained, to its waiters: in waiting order, each is handed
    /// the first row left that it would take, and woken (without selective waiters: the
    /// first `rows.len()`). A selective waiter's condition is tested once, on all the rows
    /// left when its turn comes.
    pub(crate) fn notify(&self, table: u64, rows: &[RowId]) {
        let mut reg = self.queues.lock();
        self.stripe(table).fetch_add(1, Ordering::AcqRel);
        if let Some(q) = reg.get_mut(&table) {
            if q.iter().all(|w| w.matcher.is_none()) {
                for _ in 0..rows.len() {
                    match q.pop_front() {
                        Some(w) => w.wake(false),
                        None => break,
                    }
                }
            } else {
                // in waiting order, each waiter is handed the first of the rows left that it
                // would take (a selective waiter's condition is tested on them as one batch)
                let mut left = rows.to_vec();
                let mut i = 0;
                while i < q.len() && !left.is_empty() {
                    match q[i].first_taken(&left) {
                        Some(k) => {
                            left.remove(k);
                            if let Some(w) = q.remove(i) {
                                w.wake(false);
                            }
                        }
                        None => i += 1,
                    }
                }
            }
            if q.is_empty() {
                reg.remove(&table);
            }
        }
    }

    /// How many times table `table` (or one sharing its stripe) gained rows: a consumer that
    /// read this before a take that found nothing, and reads the same under the registry
    /// lock, knows no row came between its take and its registration (every commit counts
    /// here, under that lock, after its rows are there). A selective consumer then need not
    /// repeat its walk, perhaps long, under the registry lock.
    pub(crate) fn generation(&self, table: u64) -> u64 {
        self.stripe(table).load(Ordering::Acquire)
    }

    fn stripe(&self, table: u64) -> &AtomicU64 {
        &self.generations[(table % GENERATION_STRIPES as u64) as usize]
    }

    /// Passes on a wake-up whose rows are not known (its waiter left without a row): wakes
    /// the first waiter that takes any row and every selective one (each tries, and waits
    /// again if nothing it takes is there).
    pub(crate) fn pass_on(&self, table: u64) {
        let mut reg = self.queues.lock();
        if let Some(q) = reg.get_mut(&table) {
            let mut plain = false;
            q.retain(|w| {
                let wake = w.matcher.is_some() || !std::mem::replace(&mut plain, true);
                if wake {
                    w.wake(false);
                }
                !wake
            });
            if q.is_empty() {
                reg.remove(&table);
            }
        }
    }

    /// A lease that ends before the timers `table`'s waiters set came (docs/queues.md,
    /// Leases): the first waiter that takes any row, and every selective one, try again and
    /// set their timers afresh (as [`Waiters::pass_on`]); when such a timer fires, the take
    /// gives the rows back and the commit of that wakes the others.
    pub(crate) fn retime(&self, table: u64) {
        self.pass_on(table);
    }

    /// Fails every waiter of a dropped table.
    pub(crate) fn drop_table(&self, table: u64) {
        if let Some(q) = self.queues.lock().remove(&table) {
            for w in q {
                w.wake(true);
            }
        }
    }

    /// Removes a waiter that leaves; returns false if it was no longer listed (it had been
    /// woken concurrently, so the caller must pass the wake-up on).
    pub(crate) fn leave(&self, table: u64, cell: &Arc<WaitCell>) -> bool {
        let mut reg = self.queues.lock();
        let Some(q) = reg.get_mut(&table) else {
            return false;
        };
        let before = q.len();
        q.retain(|w| !Arc::ptr_eq(w, cell));
        let removed = q.len() < before;
        if q.is_empty() {
            reg.remove(&table);
        }
        removed
    }

    /// Every waiting consumer: (table id, session, transaction), in waiting order per table.
    pub(crate) fn delayed(&self) -> Vec<(u64, u64, u64)> {
        let reg = self.queues.lock();
        let mut out: Vec<_> = reg
            .iter()
            .flat_map(|(t, q)| q.iter().map(move |c| (*t, c.who.0, c.who.1)))
            .collect();
        out.sort_by_key(|d| d.0);
        out
    }

    /// Number of consumers waiting on a table.
    pub(crate) fn count(&self, table: u64) -> usize {
        self.queues.lock().get(&table).map_or(0, VecDeque::len)
    }
}

/// Cancels what one session is doing, from any thread (the REPL's Ctrl-C uses this).
#[derive(Clone, Default)]
pub struct CancelHandle {
    current: Arc<Mutex<Option<Arc<WaitCell>>>>,
    /// The generation of the request a cancel stops (see interrupt.rs).
    cancelled: Arc<AtomicU64>,
    /// The running request's generation; 0 while the session is idle.
    running: Arc<AtomicU64>,
    /// The last generation given to a request of the session.
    generations: Arc<AtomicU64>,
}

impl CancelHandle {
    /// Cancels what the session is doing now: a waiting consume fails with 9905 and consumes
    /// nothing; a running request stops at its next check with 3110 and is rolled back.
    /// Returns false (and does nothing) if the session is idle.
    pub fn cancel(&self) -> bool {
        if let Some(cell) = self.current.lock().as_ref() {
            cell.cancel();
            // and the request too, should the consume be waiting for a lock rather than a row
            // (a lock wait asks the request's watch; the consume answers it with 9905)
            let generation = self.running.load(Ordering::SeqCst);
            if generation != 0 {
                self.cancelled.store(generation, Ordering::SeqCst);
            }
            return true;
        }
        match self.running.load(Ordering::SeqCst) {
            0 => false,
            generation => {
                self.cancelled.store(generation, Ordering::SeqCst);
                true
            }
        }
    }

    /// True while the session runs a request (or waits in a consume).
    pub fn is_running(&self) -> bool {
        self.running.load(Ordering::SeqCst) != 0
    }

    /// Watches the request the session is about to run (see interrupt.rs).
    pub(crate) fn watch(
        &self,
        timeout: Option<std::time::Duration>,
        spool: usize,
    ) -> crate::interrupt::Guard {
        let cells = (&self.cancelled, &self.running, self.generations.as_ref());
        crate::interrupt::watch(cells, timeout, spool)
    }

    /// True while the session's consume sleeps in the delayed state: the queue had no row for
    /// it. (Not while it waits for a lock, or between tries.)
    pub fn is_waiting(&self) -> bool {
        self.current
            .lock()
            .as_ref()
            .is_some_and(|c| c.delayed.load(Ordering::Relaxed))
    }

    pub(crate) fn set(&self, cell: Option<Arc<WaitCell>>) {
        *self.current.lock() = cell;
    }
}
