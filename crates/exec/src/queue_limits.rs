//! A queue's `ATTEMPTS (c)`, `MAX ATTEMPTS n`, `RETRY DELAY n unit`, `EXPIRE AFTER n unit` and
//! `DEAD LETTER TO t`
//! options, checked at CREATE TABLE and kept true through ALTER, RENAME and DROP
//! (docs/queues.md, Attempts, expiry and dead letters). What a rollback and a take then do is
//! storage's (`tdlite_storage::transaction`, modules `attempts`, `expiry`, `dead_letter`).

use crate::ddl::queue_rule;
use crate::error::{Error, Result};
use crate::exec::Exec;
use tdlite_parser::QueueLimits as Written;
use tdlite_storage::catalog::{dead_letter_fits, QueueLimits, TableSchema};

impl Exec<'_> {
    /// The limits `written` declares for the table `schema` is to be, `None` when it declares
    /// none.
    ///
    /// # Errors
    /// 9903 naming the rule broken; 3810 for a column the table does not have; 3807 for a
    /// dead-letter table that does not exist.
    pub(crate) fn queue_limits(
        &self,
        schema: &TableSchema,
        written: &Written,
    ) -> Result<Option<QueueLimits>> {
        if written.location().is_none() {
            return Ok(None);
        }
        if !schema.queue {
            return Err(queue_rule(
                "ATTEMPTS, MAX ATTEMPTS, RETRY DELAY, EXPIRE AFTER and DEAD LETTER are for queue tables \
                 (CREATE TABLE name, QUEUE, ATTEMPTS (c) …).",
            ));
        }
        let attempts = match &written.column {
            None => None,
            Some((name, _)) => Some(self.attempts_column(schema, name)?),
        };
        let max_attempts = written.max.as_ref().map(|(n, _)| *n);
        if let (Some(max), Some(column)) = (max_attempts, attempts) {
            let largest = schema.columns[column].ty.integer_max().unwrap_or(i64::MAX);
            if max > largest as u64 {
                return Err(queue_rule(&format!(
                    "MAX ATTEMPTS is larger than the ATTEMPTS column {} can count ({largest}).",
                    schema.columns[column].name
                )));
            }
        }
        if max_attempts.is_some() && attempts.is_none() {
            return Err(queue_rule(
                "MAX ATTEMPTS needs ATTEMPTS (c): the column the count is kept in.",
            ));
        }
        let expire_after_us = written
            .expire_after
            .as_ref()
            .map(|(d, _)| i64::try_from(d.as_micros()).unwrap_or(i64::MAX));
        if expire_after_us.is_some() && schema.queue_order.is_some() {
            return Err(queue_rule(
                "EXPIRE AFTER and CONSUME ORDER cannot be given together (not yet).",
            ));
        }
        let retry_delay_us = written
            .retry_delay
            .as_ref()
            .map(|(d, _)| i64::try_from(d.as_micros()).unwrap_or(i64::MAX));
        if retry_delay_us.is_some() && (attempts.is_none() || !schema.delivers_at_qits) {
            return Err(queue_rule(
                "RETRY DELAY needs ATTEMPTS (c) and DELIVER AT (qits): a counted row comes back \
                 with its QITS that much later.",
            ));
        }
        let ends = max_attempts.is_some() || expire_after_us.is_some();
        let dead_letter = match (&written.dead_letter, ends) {
            (None, false) => None,
            (None, true) => {
                return Err(queue_rule(
                    "MAX ATTEMPTS and EXPIRE AFTER need DEAD LETTER TO t: where the rows go.",
                ))
            }
            (Some(_), false) => {
                return Err(queue_rule(
                    "DEAD LETTER TO needs MAX ATTEMPTS or EXPIRE AFTER: what makes a row dead.",
                ))
            }
            (Some((table, _)), true) => {
                let dead = self.table_definition(table)?;
                if dead.schema.multi_consumer {
                    return Err(queue_rule(&format!(
                        "the dead-letter table {} is a queue with subscribers.",
                        dead.schema.name
                    )));
                }
                if dead.schema.volatile.is_some()
                    || dead.schema.global_temporary.is_some()
                    || dead.schema.view.is_some()
                {
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
        Ok(Some(QueueLimits {
            attempts,
            max_attempts,
            expire_after_us,
            retry_delay_us,
            dead_letter,
        }))
    }

    /// The position of `name`, a queue's ATTEMPTS column: an integer column, not the QITS nor
    /// the CONSUME ORDER column.
    fn attempts_column(&self, schema: &TableSchema, name: &str) -> Result<usize> {
        let column = schema
            .column_index(name)
            .ok_or_else(|| Error::ColumnNotFound(name.to_string()))?;
        if column == 0 || !schema.columns[column].ty.is_integer() {
            return Err(queue_rule(&format!(
                "the ATTEMPTS column {name} must be BYTEINT, SMALLINT, INTEGER or BIGINT, not the QITS."
            )));
        }
        if schema.columns[column].identity.is_some() {
            return Err(queue_rule(&format!(
                "the ATTEMPTS column {name} cannot be an identity column."
            )));
        }
        if schema.queue_order.is_some_and(|o| o.column == column) {
            return Err(queue_rule(
                "ATTEMPTS and CONSUME ORDER name different columns (a counted row keeps its place).",
            ));
        }
        Ok(column)
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
            .and_then(|s| s.limits.as_ref())
            .and_then(|l| l.dead_letter.as_deref())
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
            let Some(a) = q.schema.limits.as_ref() else {
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
