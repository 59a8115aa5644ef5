//! Leases in the session layer (docs/queues.md, Leases): `ACKNOWLEDGE q LEASE …` and
//! `RELEASE q LEASE …`, and the end of a session's leases when the session ends (a consume
//! with `LEASE` is `Exec::try_consume`'s, its `LEASE_ID` column `Rows::with_lease_column`). The leases themselves are storage's
//! (`tdlite_storage::transaction`, module `lease`).

use super::Session;
use crate::error::{Error, Result};
use crate::result::{StatementKind, StatementResult};
use std::cell::OnceCell;
use std::sync::Arc;
use tdlite_parser::ast;
use tdlite_storage::table::Table;
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
        let ex = self.exec(now);
        let queue = ex.must_get_base_table(name)?;
        if !queue.schema.queue {
            return Err(Error::NotAQueueTable(queue.schema.name.clone()));
        }
        // the leases by the table they are in (a queue with subscribers: its subscribers')
        let mut by_table: Vec<(Arc<Table>, Vec<u64>)> = Vec::new();
        for &id in leases {
            let t = ex.lease_table(&queue, id);
            match by_table.iter_mut().find(|(x, _)| Arc::ptr_eq(x, &t)) {
                Some((_, ids)) => ids.push(id),
                None => by_table.push((t, vec![id])),
            }
        }
        let txn = self.txn();
        if queue.schema.multi_consumer {
            // an acknowledgement may delete the queue's rows (see subscribers.rs)
            txn.lock(&queue, tdlite_storage::locks::LockMode::RowWrite, false)?;
        }
        let mut n = 0;
        let mut result = Ok(());
        for (table, ids) in &by_table {
            let done = if acknowledge {
                txn.acknowledge(table, ids)
            } else {
                txn.release_leases(table, ids)
            };
            match done {
                Ok(k) => n += k,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.publish_side();
        result?;
        Ok(StatementResult::count(
            if acknowledge {
                StatementKind::Acknowledge
            } else {
                StatementKind::Release
            },
            n,
        ))
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
            .all_tables()
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
