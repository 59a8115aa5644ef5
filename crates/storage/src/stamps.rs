//! Per-row MVCC stamps (`xmin`, `xmax`), kept in fixed chunks that a reader can take away
//! and test without the table's mutex.
//!
//! ```text
//!   chunk 0: rows 0 .. SEGMENT_ROWS-1    chunk 1: rows SEGMENT_ROWS ..    (Arc'd, never moved)
//!   xmin[i], xmax[i]: AtomicU64, each array made at the first stamp that differs from the
//!   chunk's default (its creator for xmin, 0 for xmax); until then every row has the default
//! ```
//!
//! Invariants: only a holder of the table's mutex writes a stamp (so writers never race each
//! other); a chunk, once allocated, lives as long as any reader holds it. A reader that took the
//! chunks under the mutex and reads them after releasing it may see a stamp change under it,
//! and that is safe: the only stamps that change after a snapshot is taken are written by
//! transactions that snapshot does not count as committed (an open transaction claims a row,
//! creates one, or its rollback turns `xmin` into `DEAD` or `xmax` back into 0, all before it
//! ends), so [`crate::mvcc::Snapshot::visible`] answers the same either way. The stamps a
//! snapshot does rely on were written before their transaction ended, and the end and the
//! snapshot pass through the transaction manager's mutex, which orders them.

use crate::mvcc::{Snapshot, TxnId, DEAD};
use crate::table::SEGMENT_ROWS;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// The stamps of [`SEGMENT_ROWS`] consecutive rows. Each array is made when a row's stamp first
/// differs from the chunk's default (`base` for `xmin`, 0 for `xmax`): a chunk stamped whole by
/// a bulk insert, whose rows are never deleted, holds no array at all.
pub(crate) struct StampChunk {
    /// The creator of every row while `xmin` has no array.
    base: TxnId,
    xmin: OnceLock<Box<[AtomicU64]>>,
    xmax: OnceLock<Box<[AtomicU64]>>,
    /// The highest `xmin` ever stamped here (`DEAD` left out).
    max_xmin: AtomicU64,
    /// True once some row's `xmin` became `DEAD` (or was stamped 0).
    dead: AtomicBool,
}

/// An array of [`SEGMENT_ROWS`] stamps, each `v`, written here.
///
/// The write matters for 0 (an `xmax` array): an allocation of zeros the compiler may turn
/// into `calloc`, whose fresh pages the kernel maps to its shared zero page on a first read
/// and copies on the first write after it, flushing the page from every core's TLB
/// (an interrupt to each core running the process). Consumers reading and claiming rows of
/// a chunk did that once per 512 rows, several percent of their time on two cores. Written
/// stamps (`black_box` hides the value) are pages of this process's own from the start.
fn all(v: TxnId) -> Box<[AtomicU64]> {
    let v = std::hint::black_box(v);
    (0..SEGMENT_ROWS).map(|_| AtomicU64::new(v)).collect()
}

impl StampChunk {
    /// Rows created by `base` (0: no rows yet), none deleted.
    fn new(base: TxnId) -> Self {
        StampChunk {
            base,
            xmin: OnceLock::new(),
            xmax: OnceLock::new(),
            max_xmin: AtomicU64::new(base),
            dead: AtomicBool::new(false),
        }
    }

    /// True if `snapshot` sees every row the chunk held when the caller took it from under
    /// the table's mutex, without a look at any row: no row was ever deleted or claimed
    /// (there is no `xmax` array), none was rolled back, and every creator ended before the
    /// snapshot's oldest active transaction began. A stamp written after the caller took the
    /// chunk is by a transaction the snapshot does not count as committed, whose rows' `xmin`s
    /// already fail the last test, or whose `xmax` leaves the row visible to it.
    pub(crate) fn all_visible(&self, snapshot: &Snapshot) -> bool {
        self.xmax.get().is_none()
            && !self.dead.load(Ordering::Acquire)
            && snapshot.ended_before(self.max_xmin.load(Ordering::Acquire))
    }

    /// `(xmin, xmax)` of row `i` of the chunk.
    pub(crate) fn get(&self, i: usize) -> (TxnId, TxnId) {
        (self.xmin(i), self.xmax(i))
    }

    fn xmin(&self, i: usize) -> TxnId {
        self.xmin
            .get()
            .map_or(self.base, |a| a[i].load(Ordering::Acquire))
    }

    fn xmax(&self, i: usize) -> TxnId {
        self.xmax.get().map_or(0, |a| a[i].load(Ordering::Acquire))
    }

    fn set_xmin(&self, i: usize, id: TxnId) {
        if id == DEAD || id == 0 {
            // 0 (no creator) is never committed either: no shortcut past it
            self.dead.store(true, Ordering::Release);
        } else {
            self.max_xmin.fetch_max(id, Ordering::AcqRel);
        }
        if self.xmin.get().is_none() && id == self.base {
            return;
        }
        self.xmin.get_or_init(|| all(self.base))[i].store(id, Ordering::Release);
    }

    fn set_xmax(&self, i: usize, id: TxnId) {
        if self.xmax.get().is_none() && id == 0 {
            return;
        }
        self.xmax.get_or_init(|| all(0))[i].store(id, Ordering::Release);
    }
}

/// Every row's stamps, by RowId.
#[derive(Default)]
pub(crate) struct Stamps {
    chunks: Vec<Arc<StampChunk>>,
    len: usize,
}

impl Stamps {
    /// Number of rows stamped.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    fn at(&self, row: u64) -> (&StampChunk, usize) {
        let row = row as usize;
        (&self.chunks[row / SEGMENT_ROWS], row % SEGMENT_ROWS)
    }

    /// The row's creator (or `DEAD`).
    pub(crate) fn xmin(&self, row: u64) -> TxnId {
        let (c, i) = self.at(row);
        c.xmin(i)
    }

    /// The row's deleter, or 0.
    pub(crate) fn xmax(&self, row: u64) -> TxnId {
        let (c, i) = self.at(row);
        c.xmax(i)
    }

    /// `(xmin, xmax)`.
    pub(crate) fn get(&self, row: u64) -> (TxnId, TxnId) {
        let (c, i) = self.at(row);
        c.get(i)
    }

    /// Sets `xmin` (the caller holds the table's mutex).
    pub(crate) fn set_xmin(&self, row: u64, id: TxnId) {
        let (c, i) = self.at(row);
        c.set_xmin(i, id);
    }

    /// Sets `xmax` (the caller holds the table's mutex).
    pub(crate) fn set_xmax(&self, row: u64, id: TxnId) {
        let (c, i) = self.at(row);
        c.set_xmax(i, id);
    }

    /// Stamps a new row: created by `xmin`, not deleted.
    pub(crate) fn push(&mut self, xmin: TxnId) {
        if self.len == self.chunks.len() * SEGMENT_ROWS {
            self.chunks.push(Arc::new(StampChunk::new(0)));
        }
        self.len += 1;
        self.set_xmin(self.len as u64 - 1, xmin);
    }

    /// Stamps [`SEGMENT_ROWS`] new rows created by `xmin` at once; the rows stamped so far
    /// must fill whole chunks (the table's tail is empty).
    pub(crate) fn push_chunk(&mut self, xmin: TxnId) {
        if self.len != self.chunks.len() * SEGMENT_ROWS {
            // not at a chunk boundary (a caller's mistake): stamp the rows one by one
            debug_assert!(false, "push_chunk off a chunk boundary");
            for _ in 0..SEGMENT_ROWS {
                self.push(xmin);
            }
            return;
        }
        self.chunks.push(Arc::new(StampChunk::new(xmin)));
        self.len += SEGMENT_ROWS;
    }

    /// The chunks as they are now, for a reader that leaves the mutex.
    pub(crate) fn chunks(&self) -> Vec<Arc<StampChunk>> {
        self.chunks.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_span_chunks_and_start_undeleted() {
        let mut s = Stamps::default();
        for r in 0..SEGMENT_ROWS as u64 + 2 {
            s.push(r + 1);
        }
        assert_eq!(s.len(), SEGMENT_ROWS + 2);
        let last = SEGMENT_ROWS as u64 + 1;
        assert_eq!(s.get(last), (last + 1, 0));
        s.set_xmax(last, 7);
        s.set_xmin(0, 9);
        assert_eq!((s.xmin(0), s.xmax(last)), (9, 7));
        let taken = s.chunks();
        assert_eq!(taken.len(), 2);
        let mut whole = Stamps::default();
        whole.push(3);
        for _ in 0..SEGMENT_ROWS - 1 {
            whole.push(4);
        }
        whole.push_chunk(5);
        assert_eq!(whole.len(), 2 * SEGMENT_ROWS);
        assert_eq!(
            (whole.get(0), whole.get(SEGMENT_ROWS as u64 - 1)),
            ((3, 0), (4, 0))
        );
        assert_eq!(
            (
                whole.get(SEGMENT_ROWS as u64),
                whole.get(2 * SEGMENT_ROWS as u64 - 1)
            ),
            ((5, 0), (5, 0)),
            "a whole chunk stamped at once"
        );
        assert_eq!(
            taken[1].get(1),
            (last + 1, 7),
            "a taken chunk sees later stores"
        );
    }

    #[test]
    fn a_whole_chunk_makes_its_arrays_only_when_a_stamp_differs() {
        let mut s = Stamps::default();
        s.push_chunk(5);
        let chunk = s.chunks()[0].clone();
        assert!(chunk.xmin.get().is_none() && chunk.xmax.get().is_none());
        // setting a default changes nothing
        s.set_xmin(3, 5);
        s.set_xmax(3, 0);
        assert!(chunk.xmin.get().is_none() && chunk.xmax.get().is_none());
        s.set_xmax(3, 9);
        s.set_xmin(4, crate::mvcc::DEAD);
        assert_eq!(
            (chunk.get(2), chunk.get(3), chunk.get(4)),
            ((5, 0), (5, 9), (crate::mvcc::DEAD, 0)),
            "the arrays start from the defaults, and a reader that took the chunk sees them"
        );
    }

    #[test]
    fn all_visible_holds_only_for_ended_creators_and_no_deletion_or_rollback() {
        let tm = crate::mvcc::TxnManager::default();
        let (a, b) = (tm.begin(), tm.begin());
        let mut s = Stamps::default();
        s.push(a);
        s.push(b);
        let chunk = s.chunks()[0].clone();
        tm.end(a);
        // b is still open: a snapshot must look at the rows
        let early = tm.begin();
        assert!(!chunk.all_visible(&tm.snapshot(early)));
        tm.end(early);
        tm.end(b);
        let reader = tm.begin();
        assert!(chunk.all_visible(&tm.snapshot(reader)));
        // a row of the reader's own (its id is not below the oldest active one)
        s.push(reader);
        assert!(!chunk.all_visible(&tm.snapshot(reader)));
        tm.end(reader);
        let later = tm.begin();
        assert!(chunk.all_visible(&tm.snapshot(later)));
        // a claim, even one later undone, and a rolled-back row each end the shortcut
        let mut claimed = Stamps::default();
        claimed.push(a);
        claimed.set_xmax(0, later);
        claimed.set_xmax(0, 0);
        assert!(!claimed.chunks()[0].all_visible(&tm.snapshot(later)));
        let mut dead = Stamps::default();
        dead.push(a);
        dead.set_xmin(0, DEAD);
        assert!(!dead.chunks()[0].all_visible(&tm.snapshot(later)));
    }
}
