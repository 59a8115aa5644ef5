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
        if schema.queue_order.is_some_and(|o| o.column == column) {
            return Err(queue_rule(
                "ATTEMPTS and CONSUME ORDER name different columns (a counted row keeps its place).",
            ));
        }
        let max = written.max.as_ref().map(|(n, _)| *n);
        let largest = schema.columns[column].ty.integer_max().unwrap_or(i64::MAX);
        if max.is_some_and(|m| m > largest as u64) {
            return Err(queue_rule(&format!(
                "MAX ATTEMPTS is larger than the ATTEMPTS column {name} can count ({largest})."
            )));
        }
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

impl Exec<'_> {
    /// Refuses a change of table `old_name` (its new definition, `None` for a DROP) that would
    /// break a dead-letter link: the table's own, if it is a queue that has one, or that of a
    /// queue whose dead-letter table it is.
    ///
    /// # Errors
    /// 9903 naming the queue and why.
    pub(crate) fn check_dead_letter_links(
        &self,
        old_name: &str,
        new: Option<&TableSchema>,
    ) -> Result<()> {
        if let Some(dlq) = new
            .and_then(|s| s.attempts.as_ref())
            .and_then(|a| a.dead_letter.as_deref())
        {
            if let (Some(s), Some(dead)) = (new, self.shared.storage.catalog.get_table(dlq)) {
                dead_letter_fits(s, &dead.schema).map_err(|why| {
                    queue_rule(&format!(
                        "after this change the dead-letter table of {} would not fit: {why}.",
                        s.name
                    ))
                })?;
            }
        }
        for q in self.shared.storage.catalog.tables() {
            let Some(a) = q.schema.attempts.as_ref() else {
                continue;
            };
            let names_it = a
                .dead_letter
                .as_deref()
                .is_some_and(|d| d.eq_ignore_ascii_case(old_name));
            if !names_it || q.schema.name.eq_ignore_ascii_case(old_name) {
                continue;
            }
            let why = match new {
                None => "it cannot be dropped before the queue".to_string(),
                Some(s) if !s.name.eq_ignore_ascii_case(old_name) => {
                    "it cannot be renamed".to_string()
                }
                Some(s) => match dead_letter_fits(&q.schema, s) {
                    Ok(()) => continue,
                    Err(why) => format!("after this change it would not fit: {why}"),
                },
            };
            return Err(queue_rule(&format!(
                "{old_name} is the dead-letter table of the queue {}: {why}.",
                q.schema.name
            )));
        }
        Ok(())
    }
}
