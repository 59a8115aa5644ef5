//! A queue's `ATTEMPTS (c)`, `MAX ATTEMPTS n` and `DEAD LETTER TO t` options, checked at
//! CREATE TABLE (docs/queues.md, Attempts and dead letters). What a rollback then does is
//! storage's (`tdlite_storage::transaction`, module `attempts`).

use crate::ddl::queue_rule;
use crate::error::{Error, Result};
use crate::exec::Exec;
use tdlite_parser::QueueAttempts as Written;
use tdlite_storage::catalog::{dead_letter_fits, QueueAttempts, TableSchema};

impl Exec<'_> {
    /// The attempt counting `written` declares for the table `schema` is to be, `None` when it
    /// declares none.
    ///
    /// # Errors
    /// 9903 naming the rule broken; 3810 for a column the table does not have; 3807 for a
    /// dead-letter table that does not exist.
    pub(crate) fn queue_attempts(
        &self,
        schema: &TableSchema,
        written: &Written,
    ) -> Result<Option<QueueAttempts>> {
        if written.location().is_none() {
            return Ok(None);
        }
        if !schema.queue {
            return Err(queue_rule(
                "ATTEMPTS, MAX ATTEMPTS and DEAD LETTER are for queue tables \
                 (CREATE TABLE name, QUEUE, ATTEMPTS (c) …).",
            ));
        }
        let Some((name, _)) = &written.column else {
            return Err(queue_rule(
                "MAX ATTEMPTS and DEAD LETTER need ATTEMPTS (c): the column the count is kept in.",
            ));
        };
        let column = schema
            .column_index(name)
            .ok_or_else(|| Error::ColumnNotFound(name.clone()))?;
        if column == 0 || !schema.columns[column].ty.is_integer() {
            return Err(queue_rule(&format!(
                "the ATTEMPTS column {name} must be BYTEINT, SMALLINT, INTEGER or BIGINT, not the QITS."
            )));
        }
        let max = written.max.as_ref().map(|(n, _)| *n);
        let dead_letter = match (&written.dead_letter, max) {
            (None, None) => None,
            (Some(_), None) | (None, Some(_)) => {
                return Err(queue_rule(
                    "MAX ATTEMPTS and DEAD LETTER TO go together: a row that reaches its last \
                     attempt goes to the dead-letter table.",
                ))
            }
            (Some((table, _)), Some(_)) => {
                let dead = self.must_get_table(table)?;
                if dead.schema.volatile.is_some() || dead.schema.view.is_some() {
                    return Err(queue_rule(&format!(
                        "the dead-letter table {} must be a permanent table.",
                        dead.schema.name
                    )));
                }
                dead_letter_fits(schema, &dead.schema).map_err(|why| {
                    queue_rule(&format!(
                        "the dead-letter table does not fit the queue: {why}."
                    ))
                })?;
                Some(dead.schema.name.clone())
            }
        };
        Ok(Some(QueueAttempts {
            column,
            max,
            dead_letter,
        }))
    }
}
