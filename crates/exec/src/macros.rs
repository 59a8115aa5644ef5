//! Macros: `CREATE|REPLACE MACRO`, `DROP MACRO`, `SHOW MACRO`, and `EXEC`; and stored procedures
//! as catalog entries: `CREATE|REPLACE PROCEDURE`, `DROP PROCEDURE`, `SHOW PROCEDURE`, and the
//! lookup CALL makes (running one is session/spl.rs's). A procedure is a macro entry whose
//! `MacroDef::procedure` is set: each parameter kept as its name and `MODE type` (`IN
//! INTEGER`), the body as its SPL text, which parses as SPL when stored.
//!
//! A macro is a catalog entry like a view (`TableSchema::macro_def`: parameters and the body's
//! text), so it is logged, checkpointed and rolled back as any DDL. `EXEC m(args)` puts each
//! argument's text, converted to the parameter's declared type (`(CAST((arg) AS type))`, in
//! parentheses so that TOP and SAMPLE take it, the
//! type's FORMAT kept, its DEFAULT, NOT NULL and CHARACTER SET left out), where the body says
//! `:name` (a parameter without an argument is its DEFAULT, else NULL), and the session runs
//! the result as one request: one transaction in Teradata mode, as Teradata runs a macro. So
//! `:p / 100` of a `DECIMAL(5,2)` parameter given 10 is 0.10, not the INTEGER 0, and a DATE
//! parameter given `'2024-01-31'` is a DATE.
//!
//! Invariants: a body is checked when the macro is made (it must parse with its parameters
//! NULL), so EXEC fails only where the statements themselves fail; EXEC nests at most
//! [`MAX_DEPTH`] macros deep.

use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::result::{Rows, StatementKind, StatementResult};
use arrow::array::StringArray;
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::sync::Arc;
use tdlite_parser::procedure::ParamMode;
use tdlite_storage::catalog::{MacroDef, TableKind, TableSchema};

/// How deeply macros may EXEC one another.
pub(crate) const MAX_DEPTH: usize = 16;

/// SHOW MACRO's and SHOW PROCEDURE's result: the CREATE text as written, in one `Request
/// Text` row.
fn request_text(ddl: &str) -> Result<StatementResult> {
    let schema = Arc::new(Schema::new(vec![Field::new(
        "Request Text",
        DataType::Utf8,
        false,
    )]));
    let text = Arc::new(StringArray::from(vec![ddl.to_string()]));
    Ok(StatementResult::rows(
        StatementKind::Show,
        Rows {
            schema: schema.clone(),
            batches: vec![RecordBatch::try_new(schema, vec![text])?],
        },
    ))
}

/// The text a parameter's value comes from: its DEFAULT (`INTEGER DEFAULT 5`), else NULL.
fn default_of(ty: &str) -> String {
    let upper = ty.to_ascii_uppercase();
    match upper.find("DEFAULT ") {
        Some(at) => ty[at + "DEFAULT ".len()..].trim().to_string(),
        None => "NULL".to_string(),
    }
}

/// The type a parameter's value is converted to: its declared type as CAST takes it (up to
/// DEFAULT or NOT NULL, without a CHARACTER SET phrase).
fn cast_type(ty: &str) -> String {
    let upper = ty.to_ascii_uppercase();
    let end = ["DEFAULT ", "NOT NULL"]
        .iter()
        .filter_map(|w| upper.find(w))
        .min()
        .unwrap_or(ty.len());
    let mut t = ty[..end].trim().to_string();
    let upper = t.to_ascii_uppercase();
    for phrase in ["CHARACTER SET ", "CHAR SET "] {
        if let Some(at) = upper.find(phrase) {
            // the phrase and the set's name after it
            let rest = &t[at + phrase.len()..];
            let name_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            t = format!("{} {}", t[..at].trim_end(), rest[name_end..].trim_start());
            break;
        }
    }
    t.trim().to_string()
}

/// `def`'s body with the arguments in place: named ones by name, the others by position.
///
/// # Errors
/// 3706 for more arguments than parameters, a name that is no parameter, or a `:name` in the
/// body that is no parameter.
pub(crate) fn expand(def: &MacroDef, args: &[(Option<String>, String)]) -> Result<String> {
    if args.len() > def.params.len() {
        return Err(Error::TypeMismatch(format!(
            "the macro takes {} parameters, EXEC gives {}",
            def.params.len(),
            args.len()
        )));
    }
    let mut values: Vec<Option<&str>> = vec![None; def.params.len()];
    for (i, (name, text)) in args.iter().enumerate() {
        let slot = match name {
            Some(n) => def
                .params
                .iter()
                .position(|(p, _)| p.eq_ignore_ascii_case(n))
                .ok_or_else(|| Error::ColumnNotFound(n.clone()))?,
            None => i,
        };
        values[slot] = Some(text);
    }
    let body = tdlite_parser::replace_host_variables(&def.body, |name| {
        let i = def
            .params
            .iter()
            .position(|(p, _)| p.eq_ignore_ascii_case(name))?;
        Some(format!(
            "(CAST(({}) AS {}))",
            values[i].map_or_else(|| default_of(&def.params[i].1), str::to_string),
            cast_type(&def.params[i].1)
        ))
    })?;
    Ok(body)
}

impl Exec<'_> {
    /// HELP MACRO: a row per parameter, with HELP TABLE's columns (its name, type, whether
    /// it may be NULL, …).
    ///
    /// # Errors
    /// 3807 for no such object, 3855 (NotAMacro) for a table or view; 9910 for a parameter
    /// type tdlite does not know.
    pub(crate) fn help_macro(&self, name: &ast::ObjectName) -> Result<Rows> {
        let (n, def) = self.must_get_macro(name)?;
        let mut columns = Vec::with_capacity(def.params.len());
        for (p, ty) in &def.params {
            columns.push(tdlite_storage::catalog::Column {
                name: p.clone(),
                ty: crate::types::sql_type_from_name(&cast_type(ty))?,
                nullable: !ty.to_ascii_uppercase().contains("NOT NULL"),
                default: None,
                case_specific: false,
                uppercase: false,
                title: None,
                format: None,
                identity: None,
            });
        }
        let schema = TableSchema::new(
            n,
            columns,
            TableKind::Multiset,
            false,
            None,
            Vec::new(),
            String::new(),
        );
        let cols: Vec<&tdlite_storage::catalog::Column> = schema.columns.iter().collect();
        crate::help_attrs::help_table(&schema, &cols, &self.shared.registry)
    }

    /// CREATE or REPLACE MACRO.
    ///
    /// # Errors
    /// 3803 if the name is taken (by a table, a view, or a macro without REPLACE), 3853 if
    /// REPLACE names a table or view, 3706 if the body does not parse.
    pub(crate) fn create_macro(
        &mut self,
        name: &ast::ObjectName,
        params: &[(String, String)],
        body: &str,
        replace: bool,
        text: &str,
    ) -> Result<()> {
        let def = MacroDef {
            params: params.to_vec(),
            body: body.to_string(),
            procedure: false,
            ansi: false,
        };
        let nulls: Vec<(Option<String>, String)> = Vec::new();
        tdlite_parser::parse_request(&expand(&def, &nulls)?)?;
        let n = self.new_permanent_name(name)?;
        if replace {
            if let Some(old) = self.shared.storage.catalog.get_table(&n) {
                if old.schema.macro_def.as_ref().is_none_or(|d| d.procedure) {
                    return Err(Error::NotAMacro(n));
                }
                self.txn.drop_table(&n)?;
            }
        }
        let mut schema = TableSchema::new(
            n,
            Vec::new(),
            TableKind::Multiset,
            false,
            None,
            Vec::new(),
            text.to_string(),
        );
        schema.macro_def = Some(def);
        self.txn.create_table(schema)?;
        Ok(())
    }

    /// The macro `name` names.
    ///
    /// # Errors
    /// 3807 if there is no such object, 3855 if it is not a macro.
    pub(crate) fn must_get_macro(&self, name: &ast::ObjectName) -> Result<(String, MacroDef)> {
        let t = self.object_definition(name)?;
        match &t.schema.macro_def {
            Some(def) if !def.procedure => Ok((t.schema.name.clone(), def.clone())),
            _ => Err(Error::NotAMacro(t.schema.name.clone())),
        }
    }

    /// DROP MACRO.
    ///
    /// # Errors
    /// See [`Exec::must_get_macro`].
    pub(crate) fn drop_macro(&mut self, name: &ast::ObjectName) -> Result<StatementResult> {
        let (n, _) = self.must_get_macro(name)?;
        self.txn.drop_table(&n)?;
        Ok(StatementResult::status(StatementKind::DropMacro))
    }

    /// SHOW MACRO: the CREATE text as written.
    ///
    /// # Errors
    /// See [`Exec::must_get_macro`].
    pub(crate) fn show_macro(&self, name: &ast::ObjectName) -> Result<StatementResult> {
        self.must_get_macro(name)?;
        request_text(&self.object_definition(name)?.schema.ddl)
    }
}

// Stored procedures: catalog entries of the same kind (`MacroDef::procedure` set).

/// A stored parameter: its mode, name as written and type text.
pub(crate) type Param = (ParamMode, String, String);

/// The parameters of a stored procedure's definition.
pub(crate) fn params_of(def: &MacroDef) -> Vec<Param> {
    def.params
        .iter()
        .map(|(name, stored)| {
            let (mode, ty) = match stored.split_once(' ') {
                Some(("INOUT", ty)) => (ParamMode::InOut, ty),
                Some(("OUT", ty)) => (ParamMode::Out, ty),
                Some(("IN", ty)) => (ParamMode::In, ty),
                _ => (ParamMode::In, stored.as_str()),
            };
            (mode, name.clone(), ty.trim().to_string())
        })
        .collect()
}

impl Exec<'_> {
    /// `CREATE|REPLACE PROCEDURE`. `body_at` is where the body starts in the request, so a
    /// syntax error in it points into the request.
    ///
    /// # Errors
    /// 3706 for a body that is not SPL tdlite reads or an unknown parameter type, 9910 for
    /// what tdlite does not run; 3803 if the name is taken (by a table, a view, a macro, or
    /// a procedure without REPLACE); 5494 if REPLACE names something else.
    pub(crate) fn create_procedure(
        &mut self,
        name: &ast::ObjectName,
        params: &[Param],
        (body, body_at): (&str, tdlite_parser::Location),
        replace: bool,
        text: &str,
    ) -> Result<StatementResult> {
        let stmts =
            tdlite_parser::procedure::parse_body(body).map_err(|e| e.shifted_to(body_at))?;
        let names: Vec<String> = params.iter().map(|(_, p, _)| p.clone()).collect();
        tdlite_parser::procedure::check_body(&stmts, &names).map_err(|e| e.shifted_to(body_at))?;
        for (_, _, ty) in params {
            crate::types::sql_type_from_name(ty)?;
        }
        let n = self.new_permanent_name(name)?;
        let mut replaced = false;
        if replace {
            if let Some(old) = self.shared.storage.catalog.get_table(&n) {
                if !old.schema.macro_def.as_ref().is_some_and(|d| d.procedure) {
                    return Err(Error::NotAProcedure(n));
                }
                self.txn.drop_table(&n)?;
                replaced = true;
            }
        }
        let mode = |m: &ParamMode| match m {
            ParamMode::In => "IN",
            ParamMode::Out => "OUT",
            ParamMode::InOut => "INOUT",
        };
        let def = MacroDef {
            params: params
                .iter()
                .map(|(m, p, ty)| (p.clone(), format!("{} {ty}", mode(m))))
                .collect(),
            body: body.to_string(),
            procedure: true,
            ansi: self.ansi,
        };
        let mut schema = TableSchema::new(
            n,
            Vec::new(),
            TableKind::Multiset,
            false,
            None,
            Vec::new(),
            text.to_string(),
        );
        schema.macro_def = Some(def);
        self.txn.create_table(schema)?;
        // REPLACE of a name nothing has creates it
        Ok(StatementResult::status(if replaced {
            StatementKind::ReplaceProcedure
        } else {
            StatementKind::CreateProcedure
        }))
    }

    /// The stored procedure `name` names: its catalog name and definition.
    ///
    /// # Errors
    /// 5495 if there is no such object, 5494 if it is not a stored procedure.
    pub(crate) fn must_get_procedure(&self, name: &ast::ObjectName) -> Result<(String, MacroDef)> {
        let t = match self.object_definition(name) {
            Err(Error::ObjectNotFound(n)) => return Err(Error::ProcedureNotFound(n)),
            other => other?,
        };
        match &t.schema.macro_def {
            Some(def) if def.procedure => Ok((t.schema.name.clone(), def.clone())),
            _ => Err(Error::NotAProcedure(t.schema.name.clone())),
        }
    }

    /// DROP PROCEDURE.
    ///
    /// # Errors
    /// See [`Exec::must_get_procedure`].
    pub(crate) fn drop_procedure(&mut self, name: &ast::ObjectName) -> Result<StatementResult> {
        let (n, _) = self.must_get_procedure(name)?;
        self.txn.drop_table(&n)?;
        Ok(StatementResult::status(StatementKind::DropProcedure))
    }

    /// SHOW PROCEDURE: the CREATE text as written, in one `Request Text` row.
    ///
    /// # Errors
    /// See [`Exec::must_get_procedure`].
    pub(crate) fn show_procedure(&self, name: &ast::ObjectName) -> Result<StatementResult> {
        self.must_get_procedure(name)?;
        request_text(&self.object_definition(name)?.schema.ddl)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def() -> MacroDef {
        MacroDef {
            procedure: false,
            ansi: false,
            params: vec![
                ("id".into(), "INTEGER".into()),
                ("note".into(), "VARCHAR(10) DEFAULT 'none'".into()),
            ],
            body: "INS t (:id, :note); SEL * FROM t WHERE id = :ID;".into(),
        }
    }

    #[test]
    fn arguments_go_where_the_body_names_them() {
        let by_position = vec![(None, "1".to_string()), (None, "'x'".to_string())];
        assert_eq!(
            expand(&def(), &by_position).unwrap(),
            "INS t ((CAST((1) AS INTEGER)), (CAST(('x') AS VARCHAR(10)))); \
             SEL * FROM t WHERE id = (CAST((1) AS INTEGER));"
        );
        let named = vec![(Some("id".to_string()), "2".to_string())];
        assert_eq!(
            expand(&def(), &named).unwrap(),
            "INS t ((CAST((2) AS INTEGER)), (CAST(('none') AS VARCHAR(10)))); \
             SEL * FROM t WHERE id = (CAST((2) AS INTEGER));"
        );
        assert_eq!(
            expand(&def(), &[]).unwrap(),
            "INS t ((CAST((NULL) AS INTEGER)), (CAST(('none') AS VARCHAR(10)))); \
             SEL * FROM t WHERE id = (CAST((NULL) AS INTEGER));"
        );
        let too_many = vec![(None, "1".to_string()); 3];
        assert!(expand(&def(), &too_many).is_err());
        assert!(expand(&def(), &[(Some("x".to_string()), "1".to_string())]).is_err());
    }

    #[test]
    fn a_parameter_converts_to_its_type_without_default_null_or_character_set() {
        assert_eq!(cast_type("DECIMAL(5,2)"), "DECIMAL(5,2)");
        assert_eq!(cast_type("INTEGER NOT NULL DEFAULT 5"), "INTEGER");
        assert_eq!(
            cast_type("DATE FORMAT 'YYYY/MM/DD' DEFAULT DATE '2024-05-05'"),
            "DATE FORMAT 'YYYY/MM/DD'"
        );
        assert_eq!(
            cast_type("VARCHAR(20) CHARACTER SET LATIN NOT CASESPECIFIC"),
            "VARCHAR(20) NOT CASESPECIFIC"
        );
        assert_eq!(cast_type("char(3) character set unicode"), "char(3)");
    }
}
