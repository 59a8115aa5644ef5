//! Where each transaction object publishes what other sessions may need to find without a
//! shared mutex: one slot per [`crate::Transaction`] object, on cache lines of its own.
//!
//! A session keeps its transaction object (and so its slot) from one transaction to the
//! next, so writing the slot writes only memory of its own session. A slot holds the id of
//! its open transaction, which snapshots read (`mvcc`), and the ROW WRITE locks it holds on
//! the fast path (`fastlock`), which a strong lock request finds by reading every slot.
//!
//! Slots live in chunks made on first use and never freed while the registry lives, so a
//! [`TxnSlot`] (a handle of its chunk) and a reader walking the slots never see one go.
//!
//! Invariants:
//! - a slot's index is below `used` from its [`Slots::acquire`] until its
//!   [`Slots::release`]; `used` grows before the slot is handed out (a reader that loads
//!   `used` after a slot was written sees it) and shrinks only past free slots;
//! - a slot is handed to one owner at a time, and holds no table when it is given back.

use crate::padded::Padded;
use parking_lot::Mutex;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Slots per chunk.
const CHUNK: usize = 64;

/// Chunks at most: 65,536 slots, that many transaction objects at once (a session has one;
/// one more waits for a slot to be given back: docs/limits.md).
const CHUNKS: usize = 1024;

/// How many tables a transaction holds ROW WRITE on through the fast path at once (one
/// more goes through the lock manager).
pub(crate) const FAST_TABLES: usize = 4;

/// One transaction object's published state.
#[derive(Debug, Default)]
pub(crate) struct Slot {
    /// The open transaction's id, 0 if none, or `mvcc::PENDING` while a begin takes one
    /// (see `mvcc::TxnManager`).
    pub(crate) id: AtomicU64,
    /// Below this id every transaction had ended when the open one took its first snapshot
    /// (`mvcc`'s "no snapshot" mark until then).
    pub(crate) low: AtomicU64,
    /// The id of the object's current (or last) transaction, set before it takes a lock
    /// (read by `fastlock`'s hand-over: unlike `id`, kept after the transaction's end).
    pub(crate) txn: AtomicU64,
    /// The session running it (0 if none said).
    pub(crate) session: AtomicU64,
    /// Ids of the tables it holds ROW WRITE on through the fast path (0: none), each with
    /// `fastlock::TAKEN` set once a strong request has handed it to the lock manager.
    pub(crate) tables: [AtomicU64; FAST_TABLES],
}

type Chunk = Arc<[Padded<Slot>]>;

/// The slot a transaction object owns (see [`Slots::acquire`]).
#[derive(Debug)]
pub(crate) struct TxnSlot {
    chunk: Chunk,
    index: usize,
}

impl TxnSlot {
    pub(crate) fn slot(&self) -> &Slot {
        &self.chunk[self.index % CHUNK]
    }
}

/// Every transaction object's slot.
pub(crate) struct Slots {
    chunks: Box<[OnceLock<Chunk>]>,
    /// Slots at or past this index are free.
    used: AtomicUsize,
    /// Free slots below `used`, lowest handed out first (so `used` stays low).
    free: Mutex<BTreeSet<usize>>,
}

impl Default for Slots {
    fn default() -> Self {
        Slots {
            chunks: (0..CHUNKS).map(|_| OnceLock::new()).collect(),
            used: AtomicUsize::new(0),
            free: Mutex::new(BTreeSet::new()),
        }
    }
}

impl Slots {
    /// A free slot for a new transaction object, waiting while all are taken.
    pub(crate) fn acquire(&self) -> TxnSlot {
        loop {
            if let Some(slot) = self.try_acquire() {
                return slot;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    fn try_acquire(&self) -> Option<TxnSlot> {
        let mut free = self.free.lock();
        let index = match free.pop_first() {
            Some(i) => i,
            None => {
                let i = self.used.load(Ordering::Relaxed);
                if i >= CHUNKS * CHUNK {
                    return None;
                }
                self.used.store(i + 1, Ordering::SeqCst);
                i
            }
        };
        let chunk = self.chunks[index / CHUNK]
            .get_or_init(|| (0..CHUNK).map(|_| Padded::default()).collect())
            .clone();
        Some(TxnSlot { chunk, index })
    }

    /// Gives `slot` back (its transaction has ended and holds no fast lock).
    pub(crate) fn release(&self, slot: &TxnSlot) {
        let s = slot.slot();
        for t in &s.tables {
            t.store(0, Ordering::SeqCst);
        }
        s.txn.store(0, Ordering::SeqCst);
        s.session.store(0, Ordering::SeqCst);
        let mut free = self.free.lock();
        free.insert(slot.index);
        // the top slots free: readers need not look at them
        let mut used = self.used.load(Ordering::Relaxed);
        while used > 0 && free.remove(&(used - 1)) {
            used -= 1;
        }
        self.used.store(used, Ordering::SeqCst);
    }

    /// Calls `f` on every slot that may be in use: each slot handed out before this call.
    pub(crate) fn each(&self, mut f: impl FnMut(&Slot)) {
        let used = self.used.load(Ordering::SeqCst);
        for (c, chunk) in self.chunks.iter().take(used.div_ceil(CHUNK)).enumerate() {
            // made before `used` passed into it
            let Some(chunk) = chunk.get() else { continue };
            for slot in chunk.iter().take(used - c * CHUNK) {
                f(slot);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_reused_lowest_first_and_readers_skip_the_free_top() {
        let slots = Slots::default();
        let held: Vec<TxnSlot> = (0..CHUNK + 3).map(|_| slots.acquire()).collect();
        let count = |s: &Slots| {
            let mut n = 0;
            s.each(|_| n += 1);
            n
        };
        assert_eq!(count(&slots), CHUNK + 3);
        slots.release(&held[1]);
        slots.release(&held[CHUNK + 2]);
        assert_eq!(count(&slots), CHUNK + 2, "the top one went");
        assert_eq!(slots.acquire().index, 1, "the lowest free one first");
        for s in &held[2..CHUNK + 2] {
            slots.release(s);
        }
        assert_eq!(count(&slots), 2, "slots 0 and 1 are held");
        held[0].slot().txn.store(7, Ordering::SeqCst);
        let mut ids = Vec::new();
        slots.each(|s| ids.push(s.txn.load(Ordering::SeqCst)));
        assert_eq!(ids, [7, 0]);
    }
}
