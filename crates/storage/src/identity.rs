//! Identity columns (`GENERATED ALWAYS|BY DEFAULT AS IDENTITY (…)`): the table's number
//! generator and what keeps it from handing a number out twice.
//!
//! A table has at most one identity column; its [`IdentityGen`] holds the next number to hand
//! out (`None` once a NO CYCLE sequence has passed its bound). Numbers are taken when a row is
//! built, before it is inserted, and are never given back: a rolled-back insert leaves a gap,
//! as in Teradata.
//!
//! Durability (a database on disk): every commit that logs an insert into a table with an
//! identity column logs the generator's state at that moment (`OP_IDENTITY` in
//! [`crate::durable`]), and a checkpoint saves it in the table's manifest entry. Replay keeps
//! the furthest state it sees ([`IdentityGen::raise`]), so no number of a committed row is
//! handed out again after a crash or a reopen; numbers only uncommitted transactions had taken
//! may be (no one saw them). Invariant: the state is monotone in the direction of the
//! increment for a NO CYCLE sequence (a CYCLE sequence may wrap, and replay then keeps the
//! latest state logged).

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
    /// The next number; `None`: a NO CYCLE sequence is used up.
    next: Mutex<Option<i64>>,
}

impl IdentityGen {
    /// The generator of a new table's identity column `column`.
    pub fn new(column: usize, spec: Identity) -> Self {
        IdentityGen {
            column,
            spec,
            next: Mutex::new(Some(spec.start)),
        }
    }

    /// Hands out `n` numbers, in order.
    ///
    /// # Errors
    /// [`StorageError::IdentityExhausted`] (7545) when a NO CYCLE sequence has fewer than `n`
    /// numbers left; none is then taken.
    pub fn take(&self, n: usize, table: &str, column: &str) -> Result<Vec<i64>, StorageError> {
        let mut next = self.next.lock();
        let mut at = *next;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let Some(v) = at else {
                return Err(StorageError::IdentityExhausted(format!("{table}.{column}")));
            };
            out.push(v);
            at = self.spec.after(v);
        }
        *next = at;
        Ok(out)
    }

    /// The state to log or save.
    pub(crate) fn state(&self) -> Option<i64> {
        *self.next.lock()
    }

    /// Replay: the state a commit logged or a checkpoint saved, kept if it is further on.
    pub(crate) fn raise(&self, state: Option<i64>) {
        let mut next = self.next.lock();
        *next = match (*next, state) {
            _ if self.spec.cycle => state,
            (None, _) | (_, None) => None,
            (Some(a), Some(b)) if self.spec.increment > 0 => Some(a.max(b)),
            (Some(a), Some(b)) => Some(a.min(b)),
        };
    }

    /// Copies another generator's state (a table rebuilt by ALTER TABLE keeps its sequence;
    /// see `Transaction::continue_identity`).
    pub(crate) fn continue_from(&self, other: &IdentityGen) {
        *self.next.lock() = other.state();
    }
}

impl Identity {
    /// The number after `v`: `None` past the bound of a NO CYCLE sequence; a CYCLE sequence
    /// starts again at MINVALUE (ascending) or MAXVALUE (descending).
    pub fn after(&self, v: i64) -> Option<i64> {
        match v.checked_add(self.increment) {
            Some(n) if (self.min..=self.max).contains(&n) => Some(n),
            _ if !self.cycle => None,
            _ if self.increment > 0 => Some(self.min),
            _ => Some(self.max),
        }
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
        assert_eq!(g.take(4, "t", "id").unwrap(), vec![2, 3, 1, 2]);
        let g = IdentityGen::new(0, spec(-1, -2, -4, 0, true));
        assert_eq!(g.take(3, "t", "id").unwrap(), vec![-1, -3, 0]);
        let g = IdentityGen::new(0, spec(i64::MAX - 1, 1, 1, i64::MAX, false));
        assert_eq!(g.take(2, "t", "id").unwrap(), vec![i64::MAX - 1, i64::MAX]);
        assert!(g.take(1, "t", "id").is_err());
    }

    #[test]
    fn replay_keeps_the_furthest_state_of_a_no_cycle_sequence() {
        let g = IdentityGen::new(0, spec(1, 1, 1, 100, false));
        g.raise(Some(7));
        g.raise(Some(5));
        assert_eq!(g.state(), Some(7));
        g.raise(None);
        g.raise(Some(9));
        assert_eq!(g.state(), None);
        let down = IdentityGen::new(0, spec(-1, -1, -100, -1, false));
        down.raise(Some(-7));
        down.raise(Some(-5));
        assert_eq!(down.state(), Some(-7));
        let c = IdentityGen::new(0, spec(1, 1, 1, 10, true));
        c.raise(Some(9));
        c.raise(Some(2));
        assert_eq!(c.state(), Some(2));
    }
}
