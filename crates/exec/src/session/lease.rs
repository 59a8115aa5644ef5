//! Leases in the session layer (docs/queues.md, Leases): `ACKNOWLEDGE q LEASE …` and
//! `RELEASE q LEASE …`, and the end of a session's leases when the session ends (a consume
//! with `LEASE` is `Exec::try_consume`'s, its `LEASE_ID` column `Rows::with_lease_column`). The leases themselves are storage's
//! (`tdlite_storage::transaction`, module `lease`).

use super::Session;
use crate::error::{Error, Result};
use crate::result::{StatementKind, StatementResult};
use std::cell::OnceCell;
use tdlite_parser::ast;
use tdlite_storage::Transaction;

impl Session {
    /// `ACKNOWLEDGE q LEASE …` (delete the leases' rows in this transaction) or `RELEASE q
    /// LEASE …` (give them back to the queue now, whatever this transaction does).
    ///
    /// # Errors
    /// 9901 if `q` is not a queue; 9922 for a lease that is not there; as DELETE.
    pub(crate) fn end_lease(
        &mut self,
        name: &ast::ObjectName,
        leases: &[u64],
        acknowledge: bool,
        now: &OnceCell<i64>,
    ) -> Result<StatementResult> {
        let table = self.exec(now).must_get_base_table(name)?;
        if !table.schema.queue {
            return Err(Error::NotAQueueTable(table.schema.name.clone()));
        }
        let txn = self.txn();
        let result = if acknowledge {
            txn.acknowledge(&table, leases)
                .map(|n| StatementResult::count(StatementKind::Acknowledge, n))
        } else {
            txn.release_leases(&table, leases)
                .map(|n| StatementResult::count(StatementKind::Release, n))
        };
        self.publish_side();
        Ok(result?)
    }

    /// Gives back the leases the running request took: it failed, so no one will hear of
    /// them.
    pub(crate) fn release_request_leases(&mut self) {
        if self.request_leases.is_empty() {
            return;
        }
        // in a transaction of their own: the session's (ended, or going on in ANSI mode) is
        // not touched
        let mut t = Transaction::begin(&self.shared.storage);
        t.set_session(self.id);
        for (table, id) in std::mem::take(&mut self.request_leases) {
            t.end_leases_now(&table, &[id]);
        }
        if let Some(side) = t.take_side_outcome() {
            self.shared.publish(side);
        }
    }

    /// Gives back every lease this session took (it is ending): their rows return to their
    /// queues, counting an attempt where the queue counts them.
    pub(crate) fn release_all_leases(&mut self) {
        if !self.leased {
            return;
        }
        let id = self.id;
        let queues: Vec<_> = self
            .shared
            .storage
            .catalog
            .tables()
            .into_iter()
            .filter(|t| t.schema.queue && t.next_lease_end().is_some())
            .collect();
        let mut t = Transaction::begin(&self.shared.storage);
        t.set_session(id);
        for q in queues {
            t.release_session_leases(&q, id);
        }
        if let Some(side) = t.take_side_outcome() {
            self.shared.publish(side);
        }
    }
}
