//! Identity columns (`GENERATED ALWAYS|BY DEFAULT AS IDENTITY (…)`): the table's number
//! generator and what keeps it from handing a number out twice.
//!
//! A table has at most one identity column; its [`IdentityGen`] counts the numbers handed out
//! so far (`taken`), and the k-th number (from 0) follows from the definition alone
//! ([`Identity::nth`]): START WITH, then every INCREMENT BY up to the bound, then (CYCLE) again
//! from MINVALUE (ascending) or MAXVALUE (descending). Numbers are taken when a row is built,
//! before it is inserted, and are never given back: a rolled-back insert leaves a gap, as in
//! Teradata.
//!
//! Durability (a database on disk): a commit of a transaction that took numbers logs the
//! count at that moment (`OP_IDENTITY` in [`crate::durable`]), and a checkpoint saves it in
//! the table's manifest entry. Invariant: the count only grows (a CYCLE sequence too, which
//! is why the count is kept rather than the next number), so replay keeps the largest count it
//! sees (`IdentityGen::raise`) whatever order racing commits and checkpoints wrote theirs
//! in, and no number a committed transaction took is handed out again after a crash or a
//! reopen; numbers only uncommitted transactions had taken may be (no one saw them).

use crate::catalog::Identity;
use crate::error::StorageError;
use parking_lot::Mutex;

/// The number generator of a table's identity column.
#[derive(Debug)]
pub struct IdentityGen {
    /// The identity column's position.
    pub column: usize,
    /// Its definition.
    pub spec: Identity,
    /// How many numbers have been handed out.
    taken: Mutex<u64>,
}

impl IdentityGen {
    /// The generator of a new table's identity column `column`.
    pub fn new(column: usize, spec: Identity) -> Self {
        IdentityGen {
            column,
            spec,
            taken: Mutex::new(0),
        }
    }

    /// Hands out `n` numbers, in order.
    ///
    /// # Errors
    /// [`StorageError::IdentityExhausted`] (7545) when a NO CYCLE sequence has fewer than `n`
    /// numbers left; none is then taken.
    pub fn take(&self, n: usize, table: &str, column: &str) -> Result<Vec<i64>, StorageError> {
        let mut taken = self.taken.lock();
        let end = taken.saturating_add(n as u64);
        if !self.spec.cycle && end > self.spec.first_lap() {
            return Err(StorageError::IdentityExhausted(format!("{table}.{column}")));
        }
        let out = (*taken..end).map(|k| self.spec.nth(k)).collect();
        *taken = end;
        Ok(out)
    }

    /// The state to log or save: how many numbers have been handed out.
    pub(crate) fn state(&self) -> u64 {
        *self.taken.lock()
    }

    /// Replay: a count a commit logged or a checkpoint saved, kept if it is larger.
    pub(crate) fn raise(&self, state: u64) {
        let mut taken = self.taken.lock();
        *taken = (*taken).max(state);
    }

    /// Copies another generator's state (a table rebuilt by ALTER TABLE keeps its sequence;
    /// see `Transaction::continue_identity`).
    pub(crate) fn continue_from(&self, other: &IdentityGen) {
        self.raise(other.state());
    }
}

impl Identity {
    /// How many numbers there are from START WITH to the bound in the increment's direction.
    fn first_lap(&self) -> u64 {
        let (start, inc) = (i128::from(self.start), i128::from(self.increment));
        let room = match inc > 0 {
            true => i128::from(self.max) - start,
            false => start - i128::from(self.min),
        };
        // START WITH is within the bounds (checked at CREATE); a bad definition has none
        if room < 0 || inc == 0 {
            return 0;
        }
        u64::try_from(room / inc.abs() + 1).unwrap_or(u64::MAX)
    }

    /// The `k`-th number handed out (from 0). Past the first lap, a CYCLE sequence starts
    /// again at MINVALUE (ascending) or MAXVALUE (descending); a NO CYCLE one never gets there
    /// (see [`IdentityGen::take`]).
    pub fn nth(&self, k: u64) -> i64 {
        let (inc, k) = (i128::from(self.increment), i128::from(k));
        let first = i128::from(self.first_lap());
        let v = if k < first {
            i128::from(self.start) + k * inc
        } else {
            let span = i128::from(self.max) - i128::from(self.min);
            let lap = (span / inc.abs() + 1).max(1);
            let along = (k - first) % lap * inc.abs();
            match inc > 0 {
                true => i128::from(self.min) + along,
                false => i128::from(self.max) - along,
            }
        };
        // within MINVALUE..=MAXVALUE by construction
        i64::try_from(v).unwrap_or(if inc > 0 { self.max } else { self.min })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(start: i64, increment: i64, min: i64, max: i64, cycle: bool) -> Identity {
        Identity {
            always: true,
            start,
            increment,
            min,
            max,
            cycle,
        }
    }

    #[test]
    fn a_sequence_steps_by_its_increment_and_stops_or_cycles_at_its_bound() {
        let g = IdentityGen::new(0, spec(10, 5, 1, 20, false));
        assert!(g.take(4, "t", "id").is_err(), "only three numbers are left");
        assert_eq!(g.take(3, "t", "id").unwrap(), vec![10, 15, 20]);
        assert!(matches!(
            g.take(1, "t", "id"),
            Err(StorageError::IdentityExhausted(n)) if n == "t.id"
        ));
        let g = IdentityGen::new(0, spec(2, 1, 1, 3, true));
        assert_eq!(g.take(5, "t", "id").unwrap(), vec![2, 3, 1, 2, 3]);
        let g = IdentityGen::new(0, spec(-1, -2, -4, 0, true));
        assert_eq!(g.take(4, "t", "id").unwrap(), vec![-1, -3, 0, -2]);
        let g = IdentityGen::new(0, spec(i64::MAX - 1, 1, 1, i64::MAX, false));
        assert_eq!(g.take(2, "t", "id").unwrap(), vec![i64::MAX - 1, i64::MAX]);
        assert!(g.take(1, "t", "id").is_err());
        let wide = spec(i64::MIN + 1, i64::MAX, i64::MIN + 1, i64::MAX, true);
        let g = IdentityGen::new(0, wide);
        assert_eq!(
            g.take(4, "t", "id").unwrap(),
            vec![i64::MIN + 1, 0, i64::MAX, i64::MIN + 1]
        );
    }

    #[test]
    fn replay_keeps_the_largest_count_of_a_cycle_sequence_too() {
        let g = IdentityGen::new(0, spec(1, 1, 1, 3, true));
        g.raise(7);
        g.raise(5);
        assert_eq!(g.state(), 7);
        assert_eq!(
            g.take(1, "t", "id").unwrap(),
            vec![2],
            "the 8th number: 1 2 3 1 2 3 1 [2]"
        );
    }
}
