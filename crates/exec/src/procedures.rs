//! Stored procedures as catalog entries: `CREATE|REPLACE PROCEDURE`, `DROP PROCEDURE`, `SHOW
//! PROCEDURE`, and the lookup CALL makes. A procedure is a macro entry whose
//! `MacroDef::procedure` is set (so it shares the tables' namespace, log and checkpoints):
//! each parameter is kept as its name and `MODE type` (`IN INTEGER`), the body as its SPL
//! text. Running one is spl.rs's.
//!
//! Invariant: a stored body parses as SPL and each parameter's type is one tdlite knows, so
//! CALL fails only where the statements themselves fail.

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
        tdlite_parser::procedure::parse_body(body).map_err(|e| e.shifted_to(body_at))?;
        for (_, _, ty) in params {
            crate::types::sql_type_from_name(ty)?;
        }
        let n = self.new_permanent_name(name)?;
        if replace {
            if let Some(old) = self.shared.storage.catalog.get_table(&n) {
                if !old.schema.macro_def.as_ref().is_some_and(|d| d.procedure) {
                    return Err(Error::NotAProcedure(n));
                }
                self.txn.drop_table(&n)?;
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
        Ok(StatementResult::status(if replace {
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
        let t = self.object_definition(name)?;
        let schema = Arc::new(Schema::new(vec![Field::new(
            "Request Text",
            DataType::Utf8,
            false,
        )]));
        let text = t.schema.ddl.trim_end().trim_end_matches(';').to_string() + ";";
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(StringArray::from(vec![text]))],
        )?;
        let mut r = StatementResult::status(StatementKind::Show);
        r.activity_count = 1;
        r.rows = Some(Rows {
            schema,
            batches: vec![batch],
        });
        Ok(r)
    }
}
