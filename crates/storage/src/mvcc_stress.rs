//! Stress test of [`crate::mvcc::TxnManager`]'s snapshots on real threads: transactions begin,
//! take snapshots and end concurrently, every event stamped from one global clock (a counter
//! each event takes a number from, before or after its call), and every snapshot is checked:
//!
//! - it counts as committed every transaction that had ended before it was asked for;
//! - it counts as not committed every transaction that was open from before it was asked for
//!   until after it returned, nor any that had not begun to end when it returned (one in the
//!   middle of its begin included);
//! - it is causal: if it counts T2 as committed, it counts as committed every T1 that had
//!   ended before T2 began or before T2 last asked for a snapshot (T2 may have read T1's
//!   rows; seeing T2's changes without T1's would be a state that never was);
//! - its horizon (below which a committed deletion is gone for every reader) passes no
//!   transaction still open, snapshot or not, nor one that was still open when some
//!   transaction open at the snapshot took its first snapshot.
//!
//! The seed is printed; `TDLITE_STRESS_SEED` replays its choices (not the thread timing).

use crate::mvcc::{Snapshot, TxnId, TxnManager};
use rand::{Rng, SeedableRng};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const THREADS: usize = 4;
const ROUNDS: usize = 3_000;
/// How many ids below the newest a check looks at.
const WINDOW: u64 = 64;

/// Clock numbers of each transaction's events, by id (0: not yet).
#[derive(Default)]
struct Events {
    begin_call: AtomicU64,
    begin_done: AtomicU64,
    first_snap_done: AtomicU64,
    /// When it last asked for a snapshot: what it read is what had ended by then.
    last_snap_call: AtomicU64,
    end_call: AtomicU64,
    end_done: AtomicU64,
}

struct World {
    tm: TxnManager,
    clock: AtomicU64,
    events: Vec<Events>,
    /// Each thread's open transaction (0: none).
    open: Vec<AtomicU64>,
}

impl World {
    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::SeqCst) + 1
    }

    fn ev(&self, id: TxnId) -> &Events {
        &self.events[id as usize]
    }

    /// Checks snapshot `s`, asked for at clock `pre` and returned at `post`, over the ids
    /// below `newest`.
    fn check(&self, s: &Snapshot, (pre, post): (u64, u64), newest: TxnId) {
        let ids = newest.saturating_sub(WINDOW).max(1)..newest;
        let at = |id: TxnId| self.ev(id);
        let committed = |id: TxnId| id != s.me && s.visible(id, 0);
        for id in ids.clone() {
            let e = at(id);
            let done = e.end_done.load(Ordering::SeqCst);
            if done != 0 && done < pre {
                assert!(
                    committed(id),
                    "{id} ended before the snapshot: not committed"
                );
            }
            let (began, ending) = (
                e.begin_done.load(Ordering::SeqCst),
                e.end_call.load(Ordering::SeqCst),
            );
            if began != 0 && began < pre && (ending == 0 || ending > post) && id != s.me {
                assert!(!committed(id), "{id} open throughout: committed");
            }
            // nothing counts as committed that had not begun to end when the snapshot returned
            // (a transaction in the middle of its begin included)
            if committed(id) {
                assert!(
                    ending != 0 && ending < post,
                    "{id} committed before its end"
                );
            }
        }
        // causality: T2 committed ⇒ every T1 that had ended before T2 began, or before T2's
        // last snapshot (T2 may have read T1's rows), is
        for t2 in ids.clone().filter(|&t| committed(t)) {
            let saw = at(t2)
                .begin_call
                .load(Ordering::SeqCst)
                .max(at(t2).last_snap_call.load(Ordering::SeqCst));
            for t1 in ids.clone() {
                let done = at(t1).end_done.load(Ordering::SeqCst);
                if done != 0 && done < saw {
                    assert!(
                        committed(t1),
                        "{t2} committed but {t1}, ended before it looked, not"
                    );
                }
            }
        }
        // the horizon never passes a transaction that had not begun to end (its deletions
        // may still be undone: a unique-key check must wait for it)
        for x in ids.clone().filter(|&x| s.dead_to_all(1, x)) {
            let ending = at(x).end_call.load(Ordering::SeqCst);
            assert!(
                ending != 0 && ending < post,
                "horizon passes {x}, still open"
            );
        }
        // nor one still open at the first snapshot of a transaction open now
        for open in &self.open {
            let a = open.load(Ordering::SeqCst);
            if a == 0 {
                continue;
            }
            let first = at(a).first_snap_done.load(Ordering::SeqCst);
            let ending = at(a).end_call.load(Ordering::SeqCst);
            // a took its first snapshot before this one was asked for, and is open after it
            if first == 0 || first >= pre || (ending != 0 && ending <= post) {
                continue;
            }
            for x in ids.clone().filter(|&x| s.dead_to_all(1, x)) {
                let x_end = at(x).end_call.load(Ordering::SeqCst);
                assert!(
                    x_end != 0 && x_end < first,
                    "horizon passes {x}, open at {a}'s first snapshot"
                );
            }
        }
    }
}

#[test]
fn snapshots_are_consistent_causal_and_keep_their_horizon() {
    let seed = crate::stress_seed("mvcc");
    let w = Arc::new(World {
        tm: TxnManager::default(),
        clock: AtomicU64::new(0),
        events: (0..THREADS * ROUNDS + 16)
            .map(|_| Events::default())
            .collect(),
        open: (0..THREADS).map(|_| AtomicU64::new(0)).collect(),
    });
    let threads: Vec<_> = (0..THREADS)
        .map(|n| {
            let w = w.clone();
            std::thread::spawn(move || {
                let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ (n as u64 + 1));
                let mut checked = 0;
                // one transaction object's slot, carrying one transaction after another
                let slot = w.tm.slots.acquire();
                for _ in 0..ROUNDS {
                    let call = w.tick();
                    let id = w.tm.begin_in(&slot);
                    let e = w.ev(id);
                    e.begin_call.store(call, Ordering::SeqCst);
                    e.begin_done.store(w.tick(), Ordering::SeqCst);
                    w.open[n].store(id, Ordering::SeqCst);
                    let mut registered = false;
                    for _ in 0..rng.gen_range(0..3) {
                        let pre = w.tick();
                        e.last_snap_call.store(pre, Ordering::SeqCst);
                        // sometimes a snapshot the slot does not record (as a unique-key
                        // check's: `TxnManager::snapshot`), which holds back no horizon
                        let own = rng.gen_range(0..3) > 0;
                        let s = match own {
                            true => w.tm.snapshot_in(Some(&slot), id),
                            false => w.tm.snapshot(id),
                        };
                        let post = w.tick();
                        if own && !registered {
                            registered = true;
                            e.first_snap_done.store(post, Ordering::SeqCst);
                        }
                        w.check(&s, (pre, post), id + THREADS as u64);
                        checked += 1;
                        for _ in 0..rng.gen_range(0..200) {
                            std::hint::spin_loop();
                        }
                    }
                    e.end_call.store(w.tick(), Ordering::SeqCst);
                    w.open[n].store(0, Ordering::SeqCst);
                    w.tm.end_in(&slot, id);
                    e.end_done.store(w.tick(), Ordering::SeqCst);
                }
                w.tm.slots.release(&slot);
                checked
            })
        })
        .collect();
    let checked: usize = threads
        .into_iter()
        .map(|t| t.join().expect("a thread failed (see its message)"))
        .sum();
    println!("{checked} snapshots checked");
    assert!(checked > 0);
}
