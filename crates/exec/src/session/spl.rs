//! Running stored procedures (`CALL`): the SPL statements procedure.rs (parser) reads, on this
//! session. Every SQL statement and every expression runs as a request of its own through
//! [`Session::execute`], with the variables' values put in as literals: in a control
//! statement (SET, IF, WHILE, UNTIL, DEFAULT, CALL's arguments) a variable is named bare or as
//! `:v`; in an SQL statement as `:v` (a bare name there is a column); a FOR loop's row as
//! `row.column` in both. So a procedure's statements are transactions as the session's mode
//! makes them (Teradata mode: each its own, unless the caller or the procedure opened one
//! with BT), and fail as they would alone.
//!
//! Values: a variable holds the value its last SET converted to its declared type (`SELECT
//! CAST((expr) AS type)`); `ACTIVITY_COUNT` is the row count of the last SQL statement.
//! Invariants: CALLs nest at most `macros::MAX_DEPTH` deep (with EXEC); a CALL is watched as
//! one request (cancel and the statement timeout stop its loops, between statements).

use super::Session;
use crate::error::{Error, PositionedError};
use crate::macros::Param;
use crate::result::{Rows, StatementKind, StatementResult};
use std::cell::OnceCell;
use std::sync::Arc;
use tdlite_parser::ast;
use tdlite_parser::procedure::{ParamMode, SplStmt};
use tdlite_storage::types::{value_at, values_to_array, Value};

/// A variable: its upper-cased name, value and declared type.
struct Var {
    name: String,
    value: Value,
    ty: Option<String>,
}

/// The variables in scope, innermost block last (with its label); FOR loops' rows as
/// (name, columns, values).
#[derive(Default)]
struct Env {
    scopes: Vec<(Option<String>, Vec<Var>)>,
    rows: Vec<(String, Vec<String>, Vec<Value>)>,
}

impl Env {
    /// The variable `name` (`LABEL.V`: the one of the block so labelled).
    fn find(&mut self, name: &str) -> Option<&mut Var> {
        let (label, name) = match name.split_once('.') {
            Some((l, n)) => (Some(l), n),
            None => (None, name),
        };
        self.scopes
            .iter_mut()
            .rev()
            .filter(|(l, _)| label.is_none() || l.as_deref() == label)
            .flat_map(|(_, s)| s.iter_mut())
            .find(|v| v.name == name)
    }

    /// Sets ACTIVITY_COUNT, the row count of the last SQL statement.
    fn set_count(&mut self, n: u64) {
        if let Some(v) = self.find("ACTIVITY_COUNT") {
            v.value = Value::Int(i64::try_from(n).unwrap_or(i64::MAX));
        }
    }

    /// The literal for `parts` (`v`, `row.column`, or with `labels` also `label.v`), if it
    /// names a variable or a FOR row's column. (In an SQL statement, `a.b` without a colon is a
    /// FOR row's column or a table's.)
    fn literal(&mut self, parts: &[String], labels: bool) -> Option<String> {
        let upper: Vec<String> = parts.iter().map(|p| p.to_ascii_uppercase()).collect();
        match upper.as_slice() {
            [v] => self
                .find(v)
                .map(|v| typed_literal(&v.value, v.ty.as_deref())),
            [row, col] => self
                .rows
                .iter()
                .rev()
                .find_map(|(r, cols, vals)| {
                    let i = (r == row).then(|| cols.iter().position(|c| c == col))??;
                    Some(typed_literal(&vals[i], None))
                })
                .or_else(|| {
                    let v = labels.then(|| self.find(&format!("{row}.{col}")))??;
                    Some(typed_literal(&v.value, v.ty.as_deref()))
                }),
            _ => None,
        }
    }
}

/// `v` as SQL text: its literal, as the variable's declared type where known (so `'x' || v`
/// of an INTEGER 9 pads as an INTEGER does, and a TIMESTAMP(0) keeps its digits).
fn typed_literal(v: &Value, ty: Option<&str>) -> String {
    match ty {
        Some(t) => format!("CAST({} AS {t})", crate::params::literal(v)),
        None => format!("({})", crate::params::literal(v)),
    }
}

/// How a statement list ended.
enum Flow {
    Normal,
    Leave(String),
    Iterate(String),
}

fn failed(error: Error) -> PositionedError {
    PositionedError {
        error,
        location: None,
        statement: 1,
    }
}

type Run<T> = std::result::Result<T, PositionedError>;

impl Session {
    /// `CALL name(args)`: runs the procedure; its OUT and INOUT parameters' values come back
    /// as one row (named by the parameters). An IN argument is an expression; an OUT one a
    /// name (BTEQ's form), whose value is not read.
    pub(crate) fn call_procedure(
        &mut self,
        name: &ast::ObjectName,
        args: &[String],
    ) -> Run<Vec<StatementResult>> {
        let _watch = self.cancel.watch(self.statement_timeout, self.spool);
        let mut outer = Env::default();
        let outs = self.call(name, args, &mut outer)?;
        if outs.is_empty() {
            return Ok(vec![StatementResult::status(StatementKind::Call)]);
        }
        let mut fields = Vec::new();
        let mut columns = Vec::new();
        for (p, ty, v) in &outs {
            let t = crate::types::sql_type_from_name(ty).map_err(failed)?;
            let array = values_to_array(t, std::iter::once(v));
            let mut field =
                arrow::datatypes::Field::new(p.as_str(), array.data_type().clone(), true);
            // a TIME(n) or TIMESTAMP(n) shows n fractional digits (ops::project's key)
            if let tdlite_storage::types::SqlType::Time(d)
            | tdlite_storage::types::SqlType::Timestamp(d) = t
            {
                field = field.with_metadata(std::collections::HashMap::from([(
                    "precision".to_string(),
                    d.to_string(),
                )]));
            }
            fields.push(field);
            columns.push(array);
        }
        let schema = Arc::new(arrow::datatypes::Schema::new(fields));
        let batch = arrow::record_batch::RecordBatch::try_new(schema.clone(), columns)
            .map_err(|e| failed(e.into()))?;
        let mut r = StatementResult::status(StatementKind::Call);
        r.activity_count = 1;
        r.rows = Some(Rows {
            schema,
            batches: vec![batch],
        });
        Ok(vec![r])
    }

    /// Runs procedure `name` with `args` (expressions read in `caller`'s variables); returns
    /// its OUT and INOUT parameters: name, type, value.
    fn call(
        &mut self,
        name: &ast::ObjectName,
        args: &[String],
        caller: &mut Env,
    ) -> Run<Vec<(String, String, Value)>> {
        if self.macro_depth >= crate::macros::MAX_DEPTH {
            return Err(failed(Error::RecursionLimit(format!(
                "procedures and macros call one another more than {} deep",
                crate::macros::MAX_DEPTH
            ))));
        }
        let clock = OnceCell::new();
        let (_, def) = self.exec(&clock).must_get_procedure(name).map_err(failed)?;
        if def.ansi != (self.mode == super::SessionMode::Ansi) {
            return Err(failed(Error::ProcedureMode));
        }
        let params: Vec<Param> = crate::macros::params_of(&def);
        if params.len() != args.len() {
            return Err(failed(Error::ParameterCount {
                expected: params.len(),
                given: args.len(),
            }));
        }
        let body =
            tdlite_parser::procedure::parse_body(&def.body).map_err(|e| failed(Error::Parse(e)))?;
        let mut env = Env::default();
        let mut vars = vec![Var {
            name: "ACTIVITY_COUNT".into(),
            value: Value::Int(0),
            ty: None,
        }];
        for ((mode, p, ty), arg) in params.iter().zip(args) {
            let value = match mode {
                ParamMode::Out => Value::Null,
                _ => self.eval(arg, Some(ty), caller)?,
            };
            vars.push(Var {
                name: p.to_ascii_uppercase(),
                value,
                ty: Some(ty.clone()),
            });
        }
        env.scopes.push((None, vars));
        self.macro_depth += 1;
        let ran = self.block(&body, &mut env);
        self.macro_depth -= 1;
        match ran? {
            Flow::Normal | Flow::Leave(_) => {}
            Flow::Iterate(l) => {
                return Err(failed(Error::Unsupported(format!(
                    "ITERATE {l} outside its loop"
                ))))
            }
        }
        let mut outs = Vec::new();
        for (mode, p, ty) in &params {
            if *mode != ParamMode::In {
                let v = env
                    .find(&p.to_ascii_uppercase())
                    .map_or(Value::Null, |v| v.value.clone());
                outs.push((p.clone(), ty.clone(), v));
            }
        }
        // an OUT or INOUT argument that names a variable of the caller gets the value
        for ((mode, p, _), arg) in params.iter().zip(args) {
            if *mode == ParamMode::In {
                continue;
            }
            let target = arg.trim().trim_start_matches(':').to_ascii_uppercase();
            let value = outs
                .iter()
                .find(|(q, ..)| q == p)
                .map(|(_, _, v)| v.clone());
            if let (Some(var), Some(v)) = (caller.find(&target), value) {
                var.value = v;
            }
        }
        Ok(outs)
    }

    /// Runs statements in order until one leaves or iterates.
    fn block(&mut self, stmts: &[SplStmt], env: &mut Env) -> Run<Flow> {
        for s in stmts {
            match self.statement(s, env)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn statement(&mut self, s: &SplStmt, env: &mut Env) -> Run<Flow> {
        crate::interrupt::check().map_err(failed)?;
        match s {
            SplStmt::Block {
                label,
                declares,
                body,
            } => {
                env.scopes.push((label.clone(), Vec::new()));
                let ran = self.declare_and_run(declares, body, env);
                env.scopes.pop();
                Ok(match ran? {
                    Flow::Leave(l) if label.as_ref() == Some(&l) => Flow::Normal,
                    other => other,
                })
            }
            SplStmt::Set { var, expr } => {
                let ty = match env.find(var) {
                    Some(v) => v.ty.clone(),
                    None => return Err(failed(Error::ColumnNotFound(var.clone()))),
                };
                let value = self.eval(expr, ty.as_deref(), env)?;
                if let Some(v) = env.find(var) {
                    v.value = value;
                }
                Ok(Flow::Normal)
            }
            SplStmt::If { arms, otherwise } => {
                for (cond, body) in arms {
                    if self.truth(cond, env)? {
                        return self.block(body, env);
                    }
                }
                self.block(otherwise, env)
            }
            SplStmt::Loop {
                label,
                cond,
                until,
                body,
            } => loop {
                crate::interrupt::check().map_err(failed)?;
                if let Some(c) = cond {
                    if !self.truth(c, env)? {
                        return Ok(Flow::Normal);
                    }
                }
                match self.block(body, env)? {
                    Flow::Leave(l) if label.as_ref() == Some(&l) => return Ok(Flow::Normal),
                    Flow::Iterate(l) if label.as_ref() == Some(&l) => continue,
                    Flow::Normal => {}
                    other => return Ok(other),
                }
                if let Some(u) = until {
                    if self.truth(u, env)? {
                        return Ok(Flow::Normal);
                    }
                }
            },
            SplStmt::For {
                label,
                row,
                query,
                body,
            } => {
                let sql = self.fill(query, false, env)?;
                let rows = self.rows_of(&sql)?;
                let names: Vec<String> = rows
                    .schema
                    .fields()
                    .iter()
                    .map(|f| f.name().to_ascii_uppercase())
                    .collect();
                for b in &rows.batches {
                    for i in 0..b.num_rows() {
                        let vals = b
                            .columns()
                            .iter()
                            .map(|c| value_at(c.as_ref(), i))
                            .collect();
                        env.rows.push((row.clone(), names.clone(), vals));
                        let ran = self.block(body, env);
                        env.rows.pop();
                        match ran? {
                            Flow::Leave(l) if label.as_ref() == Some(&l) => {
                                return Ok(Flow::Normal)
                            }
                            Flow::Iterate(l) if label.as_ref() == Some(&l) => {}
                            Flow::Normal => {}
                            other => return Ok(other),
                        }
                    }
                }
                Ok(Flow::Normal)
            }
            SplStmt::Leave(l) => Ok(Flow::Leave(l.clone())),
            SplStmt::Iterate(l) => Ok(Flow::Iterate(l.clone())),
            SplStmt::Call(name, args) => {
                let name = ast::ObjectName(
                    name.split('.')
                        .map(|p| ast::ObjectNamePart::Identifier(ast::Ident::new(p.trim())))
                        .collect(),
                );
                self.call(&name, args, env)?;
                Ok(Flow::Normal)
            }
            SplStmt::SelectInto(query, vars) => {
                let sql = self.fill(query, false, env)?;
                let rows = self.rows_of(&sql)?;
                let n: usize = rows.batches.iter().map(|b| b.num_rows()).sum();
                env.set_count(n as u64);
                if n > 1 {
                    return Err(failed(Error::SelectIntoRows));
                }
                if let Some(b) = rows.batches.iter().find(|b| b.num_rows() > 0) {
                    for (k, var) in vars.iter().enumerate() {
                        let Some(c) = b.columns().get(k) else {
                            return Err(failed(Error::TooManyValues));
                        };
                        let ty = match env.find(var) {
                            Some(v) => v.ty.clone(),
                            None => return Err(failed(Error::ColumnNotFound(var.clone()))),
                        };
                        let lit = typed_literal(&value_at(c.as_ref(), 0), None);
                        let value = self.eval(&lit, ty.as_deref(), &mut Env::default())?;
                        if let Some(v) = env.find(var) {
                            v.value = value;
                        }
                    }
                }
                Ok(Flow::Normal)
            }
            SplStmt::Sql(text) => {
                let sql = self.fill(text, false, env)?;
                let results = self.run_spl(&sql)?;
                env.set_count(results.last().map_or(0, |r| r.activity_count));
                Ok(Flow::Normal)
            }
        }
    }

    /// A block's DECLAREs (each variable its DEFAULT, else NULL), then its statements.
    fn declare_and_run(
        &mut self,
        declares: &[(Vec<String>, String, Option<String>)],
        body: &[SplStmt],
        env: &mut Env,
    ) -> Run<Flow> {
        for (names, ty, default) in declares {
            crate::types::sql_type_from_name(ty).map_err(failed)?;
            let value = match default {
                Some(d) => self.eval(d, Some(ty), env)?,
                None => Value::Null,
            };
            for n in names {
                if let Some((_, scope)) = env.scopes.last_mut() {
                    scope.push(Var {
                        name: n.clone(),
                        value: value.clone(),
                        ty: Some(ty.clone()),
                    });
                }
            }
        }
        self.block(body, env)
    }

    /// `text` with the variables' values in (`bare`: plain names too, not only `:v`).
    fn fill(&mut self, text: &str, bare: bool, env: &mut Env) -> Run<String> {
        tdlite_parser::replace_variables(text, bare, |parts, colon| {
            env.literal(parts, colon || bare)
        })
        .map_err(|e| failed(Error::Parse(e)))
    }

    /// Runs one statement of the procedure as a request (its error has no place in the
    /// CALL's text).
    fn run_spl(&mut self, sql: &str) -> Run<Vec<StatementResult>> {
        self.execute(sql).map_err(|mut e| {
            e.location = None;
            e
        })
    }

    /// The rows a query gives.
    fn rows_of(&mut self, sql: &str) -> Run<Rows> {
        self.run_spl(sql)?
            .into_iter()
            .last()
            .and_then(|r| r.rows)
            .ok_or_else(|| failed(Error::TypeMismatch("a query was expected".into())))
    }

    /// The value of expression `expr`, as type `ty` if given.
    fn eval(&mut self, expr: &str, ty: Option<&str>, env: &mut Env) -> Run<Value> {
        let text = self.fill(expr, true, env)?;
        let sql = match ty {
            Some(t) => format!("SELECT CAST(({text}) AS {t})"),
            None => format!("SELECT {text}"),
        };
        let rows = self.rows_of(&sql)?;
        Ok(rows
            .batches
            .iter()
            .find(|b| b.num_rows() > 0)
            .map_or(Value::Null, |b| value_at(b.column(0).as_ref(), 0)))
    }

    /// Whether condition `cond` is true (unknown is not).
    fn truth(&mut self, cond: &str, env: &mut Env) -> Run<bool> {
        let v = self.eval(&format!("CASE WHEN {cond} THEN 1 ELSE 0 END"), None, env)?;
        Ok(matches!(v, Value::Int(1)))
    }
}
