//! Teradata's rules for an atomic upsert, `UPDATE t … WHERE … ELSE INSERT INTO t …` (SQL Data
//! Manipulation Language, "UPDATE (Upsert Form)": "Rules for Using Atomic Upsert", "Example:
//! Upsert on Primary Index", "Example: Upsert Without Specifying Primary Index"; Messages
//! 5562), checked before the UPDATE runs:
//!
//! - the table has a primary index;
//! - the UPDATE's WHERE ANDs, at its top level, an equality of each primary-index column (and
//!   each partitioning column) with a constant (a literal, a parameter, a USING value, DATE,
//!   …): not with another column, nor by `<` or the like;
//! - the INSERT gives each of those columns that value: written the same way, or a constant
//!   of the same value once both are converted to the column's type.
//!
//! Any of these broken is 5562 ("The UPDATE part of the UPSERT statement is not a single-AMP
//! operation"), the error Teradata's parser gives.
//!
//! Invariant: the check rejects only what it can read: a WHERE name that resolves to no
//! column, an INSERT … SELECT, an INSERT value that is no constant (it is not evaluated
//! here), or a value that does not convert leave it to the statements themselves (their own
//! errors, or their rows); an upsert through a view is its table's, rewritten, and is not
//! checked.

use crate::error::{Error, Result};
use crate::exec::Exec;
use sqlparser::ast;

impl Exec<'_> {
    /// Checks atomic upsert `update` ELSE `insert` against Teradata's rules (module doc).
    ///
    /// # Errors
    /// 5562 for an upsert that breaks one; 3807 for a table that does not exist.
    pub(crate) fn check_upsert(
        &mut self,
        update: &ast::Statement,
        insert: &ast::Statement,
    ) -> Result<()> {
        let (ast::Statement::Update(u), ast::Statement::Insert(i)) = (update, insert) else {
            return Ok(());
        };
        let ast::TableFactor::Table { name, alias, .. } = &u.table.relation else {
            return Ok(());
        };
        // (a view's UPDATE and INSERT are its table's, rewritten: view_dml.rs)
        let table = self.table_definition(name)?;
        let schema = &table.schema;
        if schema.view.is_some() {
            return Ok(());
        }
        let refused = |why: String| Err(Error::UpsertNotSingleAmp(why));
        if schema.primary_index.is_none() {
            return refused("the table has no primary index".into());
        }
        let qualifier = crate::join::qualifier_of(name, alias.as_ref());
        let names = Names {
            schema,
            qualifier: &qualifier,
            home: self.home_database(),
        };
        let selection = u.selection.as_ref();
        // (a name that resolves to nothing is the UPDATE's error to raise)
        if selection.is_some_and(|w| !names.all_resolve(w)) {
            return Ok(());
        }
        // each column's constants in WHERE
        let mut given: Vec<(usize, &ast::Expr)> = Vec::new();
        for (col, other) in selection
            .map(crate::merge_rules::equalities)
            .unwrap_or_default()
        {
            if let (Some(c), true) = (names.column(col), crate::merge_rules::is_constant(other)) {
                given.push((c, other));
            }
        }
        let partitioning = self.partitioning_columns(&table)?;
        let needed = crate::merge_rules::condition_columns(schema, &partitioning);
        if let Some(&c) = needed.iter().find(|c| !given.iter().any(|(g, _)| g == *c)) {
            let name = &schema.columns[c].name;
            return refused(format!("its WHERE does not set {name} to a value"));
        }
        // the INSERT's values for them
        let Some(row) = values_row(i) else {
            return Ok(());
        };
        let Ok(targets) = Self::target_columns(&table, &i.columns) else {
            return Ok(());
        };
        if targets.len() != row.len() {
            return Ok(());
        }
        for &c in &needed {
            let column = &schema.columns[c];
            let Some(k) = targets.iter().position(|t| *t == c) else {
                return refused(format!("its INSERT gives {} no value", column.name));
            };
            // (a value that is no constant is the INSERT's to refuse or to run)
            if !crate::merge_rules::is_constant(&row[k]) {
                continue;
            }
            let mut same = false;
            for (_, e) in given.iter().filter(|(g, _)| *g == c) {
                if self.same_value(e, &row[k], column) {
                    same = true;
                    break;
                }
            }
            if !same {
                let name = &column.name;
                return refused(format!(
                    "its INSERT gives {name} another value than its WHERE"
                ));
            }
        }
        Ok(())
    }

    /// Whether constants `a` and `b` are one value of `column`: written the same way, or
    /// equal once evaluated and converted to its type (character values as the column
    /// compares them: trailing blanks aside, and without case unless it is CASESPECIFIC);
    /// true where either cannot be evaluated (the statements raise their own errors).
    fn same_value(
        &mut self,
        a: &ast::Expr,
        b: &ast::Expr,
        column: &tdlite_storage::catalog::Column,
    ) -> bool {
        if a == b {
            return true;
        }
        // (two markers with equal values: no evaluation)
        let marker = |e: &ast::Expr| match e {
            ast::Expr::Value(v) => match &v.value {
                ast::Value::Placeholder(name) => {
                    crate::params::parameter_value(name, self.params).ok()
                }
                _ => None,
            },
            _ => None,
        };
        if let (Some(x), Some(y)) = (marker(a), marker(b)) {
            if x == y {
                return true;
            }
        }
        let mut value = |e: &ast::Expr| -> Option<arrow::array::ArrayRef> {
            let bound = self
                .bind_expr(e, &crate::bind::Scope::default(), None)
                .ok()?;
            let a = bound.eval(&crate::ops::single_row()).ok()?;
            crate::expr::cast_to_sql(&a, column.ty).ok()
        };
        let (Some(x), Some(y)) = (value(a), value(b)) else {
            return true;
        };
        let text = |v: &arrow::array::ArrayRef| {
            let s = arrow::array::AsArray::as_string_opt::<i32>(v.as_ref())?;
            let t =
                arrow::array::Array::is_valid(s, 0).then(|| s.value(0).trim_end_matches(' '))?;
            Some(match column.case_specific {
                true => t.to_string(),
                false => t.to_uppercase(),
            })
        };
        match (text(&x), text(&y)) {
            (Some(x), Some(y)) => x == y,
            _ => x.to_data() == y.to_data(),
        }
    }
}

/// The upsert's table's columns, as its UPDATE names them.
struct Names<'a> {
    schema: &'a tdlite_storage::catalog::TableSchema,
    /// The table's name or alias, as the UPDATE gives it.
    qualifier: &'a str,
    /// The session's default database.
    home: &'a str,
}

impl Names<'_> {
    /// The column `e` names (`c`, `q.c`, or `db.q.c` with `db` the default database), if it
    /// is a name of one.
    fn column(&self, e: &ast::Expr) -> Option<usize> {
        let name = match e {
            ast::Expr::Identifier(id) => &id.value,
            ast::Expr::CompoundIdentifier(parts) => {
                let (last, before) = parts.split_last()?;
                let q: Vec<&str> = before.iter().map(|p| p.value.as_str()).collect();
                let q = q.join(".");
                let at_home = q.rsplit_once('.').is_some_and(|(db, t)| {
                    db.eq_ignore_ascii_case(self.home) && t.eq_ignore_ascii_case(self.qualifier)
                });
                if !at_home && !crate::bind::qualifier_matches(self.qualifier, &q) {
                    return None;
                }
                &last.value
            }
            _ => return None,
        };
        self.schema.column_index(name)
    }

    /// Whether every name of `e` (outside its subqueries) is a column or a value of the
    /// request (DATE, USER, …).
    fn all_resolve(&self, e: &ast::Expr) -> bool {
        let walk = crate::bind::visit_own_level(e, |x| match x {
            ast::Expr::Identifier(id)
                if crate::bind::is_request_value(&id.value.to_ascii_uppercase()) =>
            {
                std::ops::ControlFlow::Continue(())
            }
            ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) => match self.column(x) {
                Some(_) => std::ops::ControlFlow::Continue(()),
                None => std::ops::ControlFlow::Break(()),
            },
            _ => std::ops::ControlFlow::Continue(()),
        });
        !walk.is_break()
    }
}

/// The one VALUES row of INSERT `i`, if that is its source.
fn values_row(i: &ast::Insert) -> Option<&[ast::Expr]> {
    let source = i.source.as_ref()?;
    match source.body.as_ref() {
        ast::SetExpr::Values(v) => match v.rows.as_slice() {
            [row] => Some(&row.content),
            _ => None,
        },
        _ => None,
    }
}
