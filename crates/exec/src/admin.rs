//! Databases and users, rights, comments and renames: `CREATE|DROP|MODIFY|DELETE
//! DATABASE|USER`, `GRANT`/`REVOKE`, `COMMENT ON`, `RENAME TABLE|VIEW` (parsed in
//! `tdlite_parser`'s admin.rs).
//!
//! Databases, rights and comments go to the process's [`Registry`](crate::dictionary::Registry)
//! (see dictionary.rs for what that keeps and for how long); rights are recorded and shown in
//! `DBC.AllRightsV`, never enforced. `DELETE DATABASE` drops the tables and views in it, and
//! `RENAME TABLE` rebuilds the table under its new name in the transaction (as ALTER does, see
//! alter.rs), so both are logged and roll back like any DDL.
//!
//! Invariant: a database with tables or views in it cannot be dropped (3552), so the rule that
//! a qualifier makes a database exist never contradicts a DROP.

use crate::dictionary::{database_exists, database_of, has_objects, Right};
use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::result::{StatementKind, StatementResult};
use sqlparser::ast;
use std::sync::Arc;
use tdlite_parser::AdminStatement;
use tdlite_storage::table::Table;

/// A right's full name: Teradata's abbreviations (`SEL`, `INS`, `UPD`, `DEL`, `EXEC`) and
/// `ALL PRIVILEGES` spelled out, so a GRANT and a REVOKE of the same right meet.
fn full_name(privilege: &str) -> &str {
    match privilege {
        "SEL" => "SELECT",
        "INS" => "INSERT",
        "UPD" => "UPDATE",
        "DEL" => "DELETE",
        "EXEC" => "EXECUTE",
        "ALL PRIVILEGES" => "ALL",
        other => other,
    }
}

impl Exec<'_> {
    /// Runs an administrative statement; returns its result and the tables it dropped (whose
    /// waiting consumers the session must fail).
    ///
    /// # Errors
    /// 3802 for a database that does not exist, 5612 for one that does (CREATE), 3552 for a
    /// DROP of a database that holds objects or of the user's own database or DBC, 3807/3810
    /// for what a comment or rename names, and the errors of dropping and creating tables.
    pub(crate) fn admin(
        &mut self,
        a: &AdminStatement,
    ) -> Result<(StatementResult, Vec<Arc<Table>>)> {
        let status = |kind| Ok((StatementResult::status(kind), Vec::new()));
        match a {
            AdminStatement::CreateDatabase { name, user } => {
                if self.database_exists(name) {
                    return Err(Error::DatabaseExists(name.clone()));
                }
                self.shared
                    .registry
                    .databases
                    .lock()
                    .push((name.to_uppercase(), *user));
                status(if *user {
                    StatementKind::CreateUser
                } else {
                    StatementKind::CreateDatabase
                })
            }
            AdminStatement::DropDatabase { name, user } => {
                self.must_be_database(name)?;
                let own = name.eq_ignore_ascii_case(self.user) || name.eq_ignore_ascii_case("DBC");
                if own || has_objects(&self.shared.storage.catalog, self.user, name) {
                    return Err(Error::DatabaseNotEmpty(name.clone()));
                }
                let upper = name.to_uppercase();
                self.shared
                    .registry
                    .databases
                    .lock()
                    .retain(|(d, _)| *d != upper);
                status(if *user {
                    StatementKind::DropUser
                } else {
                    StatementKind::DropDatabase
                })
            }
            AdminStatement::ModifyDatabase { name } => {
                self.must_be_database(name)?;
                status(StatementKind::ModifyDatabase)
            }
            AdminStatement::DeleteDatabase { name } => {
                self.must_be_database(name)?;
                let dropped = self.delete_database(name)?;
                Ok((
                    StatementResult::status(StatementKind::DeleteDatabase),
                    dropped,
                ))
            }
            AdminStatement::Rights {
                revoke,
                privileges,
                object,
                grantees,
                with_grant_option,
            } => {
                let object = object.clone().unwrap_or_default();
                let mut rights = self.shared.registry.rights.lock();
                for grantee in grantees {
                    for privilege in privileges {
                        let right = Right {
                            grantee: grantee.to_uppercase(),
                            object: object.clone(),
                            privilege: full_name(privilege).to_string(),
                            grant_option: *with_grant_option,
                        };
                        // REVOKE ALL takes back every right on the object
                        let all = *revoke && right.privilege == "ALL";
                        rights.retain(|r| {
                            !(r.grantee == right.grantee
                                && r.object.eq_ignore_ascii_case(&right.object)
                                && (all || r.privilege == right.privilege))
                        });
                        if !revoke {
                            rights.push(right);
                        }
                    }
                }
                status(if *revoke {
                    StatementKind::Revoke
                } else {
                    StatementKind::Grant
                })
            }
            AdminStatement::Comment { kind, object, text } => {
                let key = self.comment_target(kind, object)?;
                self.shared
                    .registry
                    .comments
                    .lock()
                    .insert(key, text.clone());
                status(StatementKind::Comment)
            }
            AdminStatement::Rename { from, to, view } => {
                let old = self.rename(from, to, *view)?;
                Ok((StatementResult::status(StatementKind::Rename), vec![old]))
            }
        }
    }

    fn database_exists(&self, name: &str) -> bool {
        database_exists(
            &self.shared.storage.catalog,
            &self.shared.registry,
            self.user,
            name,
        )
    }

    fn must_be_database(&self, name: &str) -> Result<()> {
        if self.database_exists(name) {
            Ok(())
        } else {
            Err(Error::DatabaseNotFound(name.to_string()))
        }
    }

    /// Drops every table and view in database `name`.
    fn delete_database(&mut self, name: &str) -> Result<Vec<Arc<Table>>> {
        let upper = name.to_uppercase();
        let names: Vec<String> = self
            .shared
            .storage
            .catalog
            .tables()
            .iter()
            .map(|t| t.schema.name.clone())
            .filter(|n| database_of(n, self.user) == upper)
            .collect();
        let mut dropped = Vec::new();
        for n in names {
            dropped.push(self.txn.drop_table(&n)?);
        }
        Ok(dropped)
    }

    /// Checks that what a comment is on exists; returns its key in `Registry::comments`: the
    /// class and the catalog's name (`db.t`, `db.t.column`, `db`), upper-cased.
    fn comment_target(&self, kind: &str, object: &str) -> Result<(char, String)> {
        let name = |n: &str| {
            ast::ObjectName::from(
                n.split('.')
                    .map(|p| ast::Ident::new(p.to_string()))
                    .collect::<Vec<_>>(),
            )
        };
        match kind {
            "DATABASE" | "USER" => self
                .must_be_database(object)
                .map(|()| ('D', object.to_uppercase())),
            "COLUMN" => {
                let (table, column) = object
                    .rsplit_once('.')
                    .ok_or_else(|| Error::ColumnNotFound(object.to_string()))?;
                let t = self.table_definition(&name(table))?;
                let Some(c) = t
                    .schema
                    .columns
                    .iter()
                    .find(|c| c.name.eq_ignore_ascii_case(column))
                else {
                    return Err(Error::ColumnNotFound(object.to_string()));
                };
                Ok(('C', format!("{}.{}", t.schema.name, c.name).to_uppercase()))
            }
            "TABLE" | "VIEW" | "MACRO" | "OBJECT" => self
                .object_definition(&name(object))
                .map(|t| ('T', t.schema.name.to_uppercase())),
            _ => Ok(('O', object.to_uppercase())),
        }
    }

    /// RENAME TABLE|VIEW: the object again under its new name, the old one dropped; returns
    /// the old table.
    fn rename(
        &mut self,
        from: &ast::ObjectName,
        to: &ast::ObjectName,
        view: bool,
    ) -> Result<Arc<Table>> {
        let old = self.table_definition(from)?;
        crate::subscribers::refuse_change(&old, "RENAME")?;
        self.refuse_materialized(&old, "Rename Table")?;
        match (view, old.schema.view.is_some()) {
            (false, true) => return Err(Error::NotATable(old.schema.name.clone())),
            (true, false) => return Err(Error::NotAView(old.schema.name.clone())),
            _ => {}
        }
        let mut schema = old.schema.clone();
        schema.name = self.new_permanent_name(to)?;
        schema.ddl = format!(
            "{};\nRENAME {} {} TO {};",
            schema.ddl.trim_end_matches(';'),
            if view { "VIEW" } else { "TABLE" },
            old.schema.name,
            schema.name
        );
        if view {
            let dropped = self.txn.drop_table(&old.schema.name)?;
            self.txn.create_table(schema)?;
            return Ok(dropped);
        }
        let origin: Vec<Option<usize>> = (0..schema.columns.len()).map(Some).collect();
        self.rebuild(&old, schema, &origin)
    }
}
