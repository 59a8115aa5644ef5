//! Moving a queue row to its dead-letter table (docs/queues.md, Attempts, expiry and dead
//! letters): the copy a transaction inserts there, with the reason after the queue's columns.
//! Used by a rollback's attempt counting (`attempts`) and by expiry (`expiry`).

use super::Transaction;
use crate::catalog::dead_letter_fits;
use crate::locks::LockMode;
use crate::table::Table;
use crate::types::{SqlType, Value};
use std::sync::Arc;

/// The reason given for a row whose attempts reached `MAX ATTEMPTS`.
pub const REASON_MAX_ATTEMPTS: &str = "MAX ATTEMPTS";

/// The reason given for a row past its `EXPIRE AFTER`.
pub const REASON_EXPIRED: &str = "EXPIRED";

impl Transaction {
    /// The dead-letter table of `queue`, if it has one that exists and fits.
    pub(super) fn dead_letter_table(&self, queue: &Table) -> Option<Arc<Table>> {
        let name = queue.schema.limits.as_ref()?.dead_letter.as_deref()?;
        let dlq = self.storage.catalog.get_table(name)?;
        let usable = !dlq.is_dropped()
            && dlq.id != queue.id
            && dead_letter_fits(&queue.schema, &dlq.schema).is_ok();
        usable.then_some(dlq)
    }

    /// Inserts `values` (a row of `queue`) and `reason` into `queue`'s dead-letter table;
    /// false, with nothing changed, if there is none that fits or it cannot be locked at once
    /// or written (the caller then keeps the row in the queue). Never waits for a lock.
    pub(super) fn copy_to_dead_letter(
        &mut self,
        queue: &Table,
        mut values: Vec<Value>,
        reason: &str,
    ) -> bool {
        let Some(dlq) = self.dead_letter_table(queue) else {
            return false;
        };
        if let Some(column) = dlq.schema.columns.get(values.len()) {
            // CHAR values are kept padded to their length
            let width = match column.ty {
                SqlType::Char(n) => n as usize,
                _ => 0,
            };
            values.push(Value::Str(format!("{reason:width$}")));
        }
        let sp = self.savepoint();
        if self.lock(&dlq, LockMode::RowWrite, true).is_ok() && self.insert(&dlq, values).is_ok() {
            return true;
        }
        self.rollback_to(sp);
        false
    }
}
