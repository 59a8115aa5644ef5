//! Prepared requests: a request parsed once and run many times with `?` parameters.
//!
//! `Session::prepare` parses and checks the request (the parser numbers each `?` in textual
//! order: `?1`, `?2`, … across the whole request). `Session::execute_prepared` runs it with
//! one typed value per `?`, skipping the parser entirely; each value binds (params.rs) as a literal of its
//! own type (`Value::Int` as BIGINT, `Value::Decimal(v, s)` as DECIMAL(38, s), `Value::Str`
//! as VARCHAR, …), which the statement converts as it would a literal (a column it is stored
//! into, a comparison's common type). A consume (`SELECT AND CONSUME`) goes straight to the
//! queue path; it never passes through the query planner.
//!
//! Its SELECT blocks are bound once and kept in its plan cache (plan_cache.rs) for later
//! executions, with the parameters' values and scalar subqueries' results as the plans' inputs,
//! and so are the WHERE clauses and SET values of its UPDATEs and DELETEs and the tables its
//! INSERTs, UPDATEs and DELETEs name (resolved once).
//!
//! Invariant: a prepared request's statements are immutable, and what it keeps depends on the
//! session that prepared it only through its plan cache, whose entries hold for one catalog
//! version, session, user and default database: any session of the database may run it, and a
//! table dropped and re-created in between is looked up again.

use tdlite_parser::Spanned;

/// A parsed request, ready to run with parameters.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// Shared by its clones, and held by its plan cache (see plan_cache.rs).
    pub(crate) statements: std::sync::Arc<[Spanned]>,
    pub(crate) parameters: usize,
    /// `tdlite_parser::limits::operator_bound` of the text: the stack an execution may need.
    pub(crate) levels: usize,
    /// What earlier executions bound and resolved (see plan_cache.rs).
    pub(crate) plans: std::sync::Arc<crate::plan_cache::PlanCache>,
}

impl Prepared {
    /// The request `statements` parsed from `sql`, with nothing kept yet.
    pub(crate) fn new(statements: Vec<Spanned>, sql: &str) -> Self {
        let statements: std::sync::Arc<[Spanned]> = statements.into();
        Prepared {
            plans: std::sync::Arc::new(crate::plan_cache::PlanCache::for_request(
                statements.clone(),
            )),
            statements,
            parameters: tdlite_parser::parameter_count(sql),
            levels: tdlite_parser::limits::operator_bound(sql),
        }
    }

    /// How many `?` parameters the request has.
    pub fn parameter_count(&self) -> usize {
        self.parameters
    }

    /// How many times one of its SELECT blocks (its own or a subquery) ran from the plan kept
    /// by an earlier execution instead of being bound again.
    pub fn plan_cache_hits(&self) -> u64 {
        self.plans.hits()
    }

    /// How many blocks its plan cache holds now (each a plan, or the note that the block is
    /// not kept); at most 64.
    pub fn kept_plans(&self) -> usize {
        self.plans.len()
    }

    /// How many statements the request has.
    pub fn statement_count(&self) -> usize {
        self.statements.len()
    }
}

/// Parameter sets of one batched `INSERT … VALUES (?, …)` request (see
/// `Session::execute_batch`): enough to make the per-request cost small, few enough that the
/// request's columns stay a modest size.
pub(crate) const BATCH_ROWS: usize = 10_000;

/// True for a request that is a lone `INSERT … VALUES (…)` whose one row is the markers
/// `?1, ?2, …` (one per parameter, in order) among expressions that are the same for every
/// parameter set ([`batch_cells`]): what `Session::execute_batch` runs once for many sets.
pub(crate) fn is_batch_insert(p: &Prepared) -> bool {
    let [st] = &*p.statements else {
        return false;
    };
    let tdlite_parser::Statement::Sql(sql) = &st.statement else {
        return false;
    };
    let sqlparser::ast::Statement::Insert(ins) = sql.as_ref() else {
        return false;
    };
    let Some(source) = ins.source.as_ref() else {
        return false;
    };
    let sqlparser::ast::SetExpr::Values(values) = source.body.as_ref() else {
        return false;
    };
    match values.rows.as_slice() {
        [row] => {
            p.parameters > 0
                && crate::params::batch_cells(&row.content).map(|c| c.iter().flatten().count())
                    == Some(p.parameters)
        }
        _ => false,
    }
}
