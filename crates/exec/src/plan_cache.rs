//! The plans a prepared request keeps between its executions (and between the runs of a
//! correlated subquery for the rows of its enclosing query): each one-table SELECT block it
//! runs (the request's own, or a subquery's) bound once into a [`BoundSelect`], each block
//! over a join of base tables, views or derived tables (or one view or derived table alone)
//! into a [`KeptJoin`]
//! (bound_join.rs), the WHERE
//! clause of each UPDATE or DELETE of one table into a [`BoundCondition`], used again with new
//! inputs instead of being bound afresh every time, the table each INSERT, UPDATE or
//! DELETE names (its name resolved once; an UPDATE's or DELETE's scope of it made once),
//! each MERGE of the request's own statements (bound_merge.rs),
//! and the columns of each subquery that a block
//! binds before running it (deferred.rs; found by the subquery's address, as a block is,
//! kept only for a subquery of the request's own statements without a `?`; should its
//! columns differ later, the block that binds it sees the value's type differ from the
//! placeholder's and binds again with its subqueries run in place).
//!
//! A bound block's inputs are its *slots*: the request's `?` parameters, the uncorrelated
//! scalar subqueries, EXISTS and IN it uses, and the columns of an enclosing query's row it
//! names (a correlated subquery's block, run per row: each run reads them from its row).
//! While a block is bound for the cache, the binder records each
//! slot's one-row array as it makes it (a [`Recording`](crate::slots::Recording), slots.rs);
//! the bound expressions then hold those arrays as literals (an IN's as its list's one
//! item, a row value IN's as its set), and an execution puts each slot's new value where
//! its array was (an IN's values as the list, a row value IN's rows as its set: see
//! bound_select.rs).
//!
//! Invariants:
//! - A block is kept only if nothing but its slots depends on the values of this execution:
//!   binding it ran no query but its scalar subqueries and EXISTS, read no value of the request or
//!   session (CURRENT_TIMESTAMP, USER, GetQueryBand(), …), and each slot's array is still
//!   in the bound expressions as itself (a binder that derived a value from it, a folded
//!   constant say, would leave it out: the block is then refused). A slot whose new value
//!   has another type than at binding makes that execution bind afresh. The one other
//!   input is the type of each `?` in a kept join's derived tables' queries (their
//!   columns may take it; `KeptJoin::shaped_by`): checked before a run, another type binds
//!   afresh as a slot's does. A join with a derived table is not kept inside a correlated
//!   subquery's runs (the derived table may name the enclosing row, which is no slot). A correlated
//!   subquery's block of the request's own statements names the same enclosing columns at
//!   every run (the blocks around it are the same wherever it runs), so each run finds its
//!   outer slots by name in its own enclosing row; a run that finds one missing (the
//!   subquery bound alone, before its rows are known) or compared otherwise (CASESPECIFIC)
//!   binds afresh. Inside a correlated subquery's runs only the request's own blocks are
//!   kept: a block made while running would be a new one at every row.
//! - Entries are valid for one context: the catalog's version (any CREATE, DROP, ALTER,
//!   CREATE/DROP INDEX, volatile or not, raises it), and the session, user and default
//!   database that resolved the names. Another context empties the cache.
//! - An entry is found by the block's address and kind. A block of the request's own
//!   statements is that block for as long as the cache lives: the cache holds the statements
//!   (shared with every clone of the prepared request, never changed), so no other block can
//!   take its address, and a block of one kind never holds another of that kind in place
//!   (Rust types cannot contain themselves without a box). Any other block (one made while
//!   running, a decorrelated subquery's say, or one of a view's query) is kept with a copy of
//!   itself: a lookup whose block is not equal to the copy is a miss, so an address used again
//!   by another block never finds the wrong plan. At most `MAX_ENTRIES` blocks are kept. A
//!   view's query is looked in only where it is held beyond one read (bound_select.rs
//!   `plan_cache`): the view's own parsed query (held by the database until its cache of
//!   parsed views starts again or the view is replaced; its entries here then only miss
//!   until the context changes), or the one a kept join holds. One made with conditions
//!   pushed in for a single read is not, as its blocks are new at every read; blocks made
//!   while running inside a view's query (a decorrelated subquery's) are kept with copies,
//!   as anywhere else. A derived table's query is its block's own node (the request's, or
//!   a copy's as above), or, with conditions pushed in, held by the kept join that makes it
//!   (bound_join.rs `KeptRel::Derived`): looked in the same way.

use crate::bound_select::{BoundCondition, BoundSelect, KeptJoin};
use foldhash::HashMap;
use sqlparser::ast::{self, Visit, Visitor};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use tdlite_parser::{Spanned, Statement};
use tdlite_storage::table::Table;

/// What resolved the names of the cached blocks, as a lookup sees it (borrowed: a lookup
/// allocates nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Context<'a> {
    pub version: u64,
    pub session: u64,
    pub user: &'a str,
    pub database: Option<&'a str>,
    /// ANSI session mode (its literals bind CASESPECIFIC).
    pub ansi: bool,
}

/// The context the kept entries were made in.
#[derive(Debug, PartialEq, Eq)]
struct OwnedContext {
    version: u64,
    session: u64,
    user: String,
    database: Option<String>,
    ansi: bool,
}

impl OwnedContext {
    fn of(c: &Context<'_>) -> Self {
        OwnedContext {
            version: c.version,
            session: c.session,
            user: c.user.to_string(),
            database: c.database.map(str::to_string),
            ansi: c.ansi,
        }
    }

    fn is(&self, c: &Context<'_>) -> bool {
        self.version == c.version
            && self.session == c.session
            && self.user == c.user
            && self.database.as_deref() == c.database
            && self.ansi == c.ansi
    }
}

/// What is kept: a SELECT block, the WHERE clause of an UPDATE or DELETE of one table, the
/// name of a table a statement changes, a subquery whose columns its block binds before
/// running it (deferred.rs), a MERGE statement, or a joined UPDATE or DELETE.
#[derive(Clone, Copy)]
pub(crate) enum Block<'a> {
    Select(&'a ast::Select),
    Condition(&'a ast::Expr),
    Target(&'a ast::ObjectName),
    Shape(&'a ast::Query),
    /// A MERGE statement of the request (bound_merge.rs).
    Merge(&'a ast::Merge),
    /// A joined UPDATE or DELETE of the request (`UPDATE t FROM s …`, `DELETE t FROM t, s
    /// …`; bound_joined.rs).
    Update(&'a ast::Update),
    Delete(&'a ast::Delete),
}

/// A block's kind, part of its key (a block of one kind never holds another of that kind in
/// place, but may hold one of another kind: a WHERE clause's address may be its first node's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Select,
    Condition,
    Target,
    Shape,
    Merge,
    Update,
    Delete,
}

/// A copy of a block, to check that an entry found by address is for that block.
#[derive(PartialEq)]
enum Copy {
    Select(Box<ast::Select>),
    Condition(Box<ast::Expr>),
    Target(Box<ast::ObjectName>),
    Shape(Box<ast::Query>),
    Merge(Box<ast::Merge>),
    Update(Box<ast::Update>),
    Delete(Box<ast::Delete>),
}

impl Block<'_> {
    /// The block's address and kind.
    fn key(self) -> (usize, Kind) {
        match self {
            Block::Select(s) => (std::ptr::from_ref(s) as usize, Kind::Select),
            Block::Condition(e) => (std::ptr::from_ref(e) as usize, Kind::Condition),
            Block::Target(n) => (std::ptr::from_ref(n) as usize, Kind::Target),
            Block::Shape(q) => (std::ptr::from_ref(q) as usize, Kind::Shape),
            Block::Merge(m) => (std::ptr::from_ref(m) as usize, Kind::Merge),
            Block::Update(u) => (std::ptr::from_ref(u) as usize, Kind::Update),
            Block::Delete(d) => (std::ptr::from_ref(d) as usize, Kind::Delete),
        }
    }

    fn is(self, copy: &Copy) -> bool {
        match (self, copy) {
            (Block::Select(s), Copy::Select(c)) => **c == *s,
            (Block::Condition(e), Copy::Condition(c)) => **c == *e,
            (Block::Target(n), Copy::Target(c)) => **c == *n,
            (Block::Shape(q), Copy::Shape(c)) => **c == *q,
            (Block::Merge(m), Copy::Merge(c)) => **c == *m,
            (Block::Update(u), Copy::Update(c)) => **c == *u,
            (Block::Delete(d), Copy::Delete(c)) => **c == *d,
            _ => false,
        }
    }

    fn copy(self) -> Copy {
        match self {
            Block::Select(s) => Copy::Select(Box::new(s.clone())),
            Block::Condition(e) => Copy::Condition(Box::new(e.clone())),
            Block::Target(n) => Copy::Target(Box::new(n.clone())),
            Block::Shape(q) => Copy::Shape(Box::new(q.clone())),
            Block::Merge(m) => Copy::Merge(Box::new(m.clone())),
            Block::Update(u) => Copy::Update(Box::new(u.clone())),
            Block::Delete(d) => Copy::Delete(Box::new(d.clone())),
        }
    }
}

/// A kept plan.
#[derive(Clone)]
pub(crate) enum Plan {
    Select(Arc<BoundSelect>),
    /// A join block (bound_join.rs).
    Join(Arc<KeptJoin>),
    Condition(Arc<BoundCondition>),
    /// The table a [`Block::Target`] name resolved to (not kept alive by the cache), and
    /// its scope where an UPDATE or DELETE asked for it (`Exec::target_with_scope`).
    Table(Weak<Table>, Option<Arc<crate::bind::Scope>>),
    /// The columns a [`Block::Shape`] subquery gives (its run over no rows).
    Shape(arrow::datatypes::SchemaRef),
    /// A SELECT block that names a column of an enclosing row and could not be bound with
    /// `outer` this many rows deep (a correlated subquery bound alone, before it runs per
    /// row): looked up that deep again, it is not bound for the cache again; deeper (a run
    /// for a row) it is, and its plan takes this entry's place.
    NeedsRows(usize),
    /// A MERGE statement (bound_merge.rs).
    Merge(Arc<crate::bound_merge::KeptMerge>),
    /// A joined UPDATE or DELETE (bound_joined.rs).
    Joined(Arc<crate::bound_joined::KeptJoined>),
}

#[derive(Default)]
struct Inner {
    context: Option<OwnedContext>,
    /// By the block's address and kind: a copy of the block (none for a block of the
    /// request's own statements), and its plan (`None`: refused, bound afresh each time).
    entries: HashMap<(usize, Kind), (Option<Copy>, Option<Plan>)>,
}

/// The plans of one prepared request (shared by its clones).
#[derive(Default)]
pub struct PlanCache {
    inner: Mutex<Inner>,
    hits: AtomicU64,
    /// The request's statements, kept alive and unchanged while the cache lives (see the
    /// module doc).
    request: Arc<[Spanned]>,
    /// The addresses of the statements' SELECT blocks, found at the first question
    /// ([`PlanCache::owns`] is asked once per row of a correlated subquery's runs).
    own_selects: std::sync::OnceLock<foldhash::HashSet<usize>>,
}

impl std::fmt::Debug for PlanCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlanCache")
            .field("hits", &self.hits())
            .finish_non_exhaustive()
    }
}

/// What a lookup found.
pub(crate) enum Found {
    Kept(Plan),
    Refused,
    Missing,
}

/// How many blocks one prepared request keeps at most (blocks made while it runs, such as a
/// decorrelated subquery's, are new each time and must not pile up).
const MAX_ENTRIES: usize = 64;

impl PlanCache {
    /// An empty cache for the request `statements`.
    pub(crate) fn for_request(statements: Arc<[Spanned]>) -> Self {
        PlanCache {
            request: statements,
            ..PlanCache::default()
        }
    }

    /// Whether `block` is a node of the request's own statements (found by its address).
    pub(crate) fn owns(&self, block: Block<'_>) -> bool {
        let (addr, kind) = block.key();
        if kind == Kind::Select {
            return self
                .own_selects
                .get_or_init(|| self.select_addresses())
                .contains(&addr);
        }
        let mut find = FindNode { addr, kind };
        self.request.iter().any(|st| match &st.statement {
            Statement::Sql(s) => s.visit(&mut find).is_break(),
            Statement::Upsert { update, insert } => {
                update.visit(&mut find).is_break() || insert.visit(&mut find).is_break()
            }
            _ => false,
        })
    }

    /// The addresses of every SELECT block of the request's statements.
    fn select_addresses(&self) -> foldhash::HashSet<usize> {
        struct Selects(foldhash::HashSet<usize>);
        impl Visitor for Selects {
            type Break = ();
            fn pre_visit_query(&mut self, q: &ast::Query) -> ControlFlow<()> {
                // the query's own SELECT blocks (nested queries are visited on their own)
                let mut stack = vec![q.body.as_ref()];
                while let Some(body) = stack.pop() {
                    match body {
                        ast::SetExpr::Select(s) => {
                            self.0.insert(std::ptr::from_ref(s.as_ref()) as usize);
                        }
                        ast::SetExpr::SetOperation { left, right, .. } => {
                            stack.push(left);
                            stack.push(right);
                        }
                        _ => {}
                    }
                }
                ControlFlow::Continue(())
            }
        }
        let mut found = Selects(foldhash::HashSet::default());
        for st in self.request.iter() {
            // (a visit never breaks)
            let _ = match &st.statement {
                Statement::Sql(s) => s.visit(&mut found),
                Statement::Upsert { update, insert } => {
                    let _ = update.visit(&mut found);
                    insert.visit(&mut found)
                }
                _ => ControlFlow::Continue(()),
            };
        }
        found.0
    }

    /// How many block executions used a kept plan.
    pub fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// How many entries (plans and refusals) it holds now.
    pub(crate) fn len(&self) -> usize {
        self.inner().entries.len()
    }

    pub(crate) fn hit(&self) {
        self.hits.fetch_add(1, Ordering::Relaxed);
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        // a panic while holding it left nothing half-written (each step is one insert)
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The entry of `block` in `context`.
    pub(crate) fn get(&self, block: Block<'_>, context: &Context<'_>) -> Found {
        let mut inner = self.inner();
        if !inner.context.as_ref().is_some_and(|c| c.is(context)) {
            inner.entries.clear();
            inner.context = Some(OwnedContext::of(context));
            return Found::Missing;
        }
        match inner.entries.get(&block.key()) {
            Some((copy, plan)) if copy.as_ref().is_none_or(|c| block.is(c)) => match plan {
                Some(p) => Found::Kept(p.clone()),
                None => Found::Refused,
            },
            _ => Found::Missing,
        }
    }

    /// Keeps `plan` for `block`, one of the request's own statements, as [`PlanCache::put`]
    /// does; nothing for any other block.
    pub(crate) fn put_own(&self, block: Block<'_>, context: &Context<'_>, plan: Plan) {
        if self.owns(block) {
            self.put(block, context, Some(plan));
        }
    }

    /// Keeps `plan` (`None`: refused) for `block` in `context`, in place of what it kept for
    /// it; nothing if the context changed meanwhile, or for a new block when the cache is
    /// full.
    pub(crate) fn put(&self, block: Block<'_>, context: &Context<'_>, plan: Option<Plan>) {
        let mut inner = self.inner();
        let same = inner.context.as_ref().is_some_and(|c| c.is(context));
        // (a block kept already is kept anew, a full cache or not)
        let room = inner.entries.len() < MAX_ENTRIES || inner.entries.contains_key(&block.key());
        if same && room {
            let copy = (!self.owns(block)).then(|| block.copy());
            inner.entries.insert(block.key(), (copy, plan));
        }
    }
}

/// Looks for the subquery, expression or table name (by `kind`) at address `addr` (a
/// SELECT block is looked for in [`PlanCache::select_addresses`]' set).
struct FindNode {
    addr: usize,
    kind: Kind,
}

impl Visitor for FindNode {
    type Break = ();

    fn pre_visit_query(&mut self, q: &ast::Query) -> ControlFlow<()> {
        match self.kind == Kind::Shape && std::ptr::from_ref(q) as usize == self.addr {
            true => ControlFlow::Break(()),
            false => ControlFlow::Continue(()),
        }
    }

    fn pre_visit_expr(&mut self, e: &ast::Expr) -> ControlFlow<()> {
        match self.kind == Kind::Condition && std::ptr::from_ref(e) as usize == self.addr {
            true => ControlFlow::Break(()),
            false => ControlFlow::Continue(()),
        }
    }

    fn pre_visit_relation(&mut self, name: &ast::ObjectName) -> ControlFlow<()> {
        match self.kind == Kind::Target && std::ptr::from_ref(name) as usize == self.addr {
            true => ControlFlow::Break(()),
            false => ControlFlow::Continue(()),
        }
    }

    fn pre_visit_statement(&mut self, s: &ast::Statement) -> ControlFlow<()> {
        let at = match (s, self.kind) {
            (ast::Statement::Merge(m), Kind::Merge) => std::ptr::from_ref(m) as usize,
            (ast::Statement::Update(u), Kind::Update) => std::ptr::from_ref(u) as usize,
            (ast::Statement::Delete(d), Kind::Delete) => std::ptr::from_ref(d) as usize,
            _ => return ControlFlow::Continue(()),
        };
        match at == self.addr {
            true => ControlFlow::Break(()),
            false => ControlFlow::Continue(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A context for the tests' lookups.
    fn context() -> Context<'static> {
        Context {
            version: 1,
            session: 1,
            user: "u",
            database: None,
            ansi: false,
        }
    }

    /// The SELECT blocks of a query body, in order.
    fn selects(q: &ast::Query) -> Vec<&ast::Select> {
        match q.body.as_ref() {
            ast::SetExpr::Select(s) => vec![s.as_ref()],
            ast::SetExpr::SetOperation { left, right, .. } => [left, right]
                .into_iter()
                .filter_map(|b| match b.as_ref() {
                    ast::SetExpr::Select(s) => Some(s.as_ref()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn the_requests_own_blocks_are_found_by_address_and_copies_are_not() {
        let sql = "SELECT a FROM t WHERE a = (SELECT MAX(b) FROM u) UNION SELECT c FROM v; \
                   UPDATE t SET a = 1 WHERE a = 2";
        let statements: Arc<[Spanned]> = tdlite_parser::parse_request(sql).unwrap().into();
        let cache = PlanCache::for_request(statements.clone());
        let Statement::Sql(first) = &statements[0].statement else {
            panic!("a query")
        };
        let ast::Statement::Query(q) = first.as_ref() else {
            panic!("a query")
        };
        let own = selects(q);
        assert_eq!(own.len(), 2);
        for s in &own {
            assert!(cache.owns(Block::Select(s)), "a block of the union");
        }
        // the scalar subquery's block, inside the first block's WHERE
        let Some(ast::Expr::BinaryOp { right, .. }) = &own[0].selection else {
            panic!("a comparison")
        };
        let ast::Expr::Subquery(sub) = right.as_ref() else {
            panic!("a subquery")
        };
        assert!(cache.owns(Block::Select(selects(sub)[0])));
        // the subquery itself, whose columns its block keeps (deferred.rs), and not a copy
        assert!(cache.owns(Block::Shape(sub)));
        assert!(!cache.owns(Block::Shape(&sub.as_ref().clone())));
        // the UPDATE's WHERE clause, as a condition block, and not as a SELECT block
        let Statement::Sql(second) = &statements[1].statement else {
            panic!("an update")
        };
        let ast::Statement::Update(update) = second.as_ref() else {
            panic!("an update")
        };
        let w = update.selection.as_ref().unwrap();
        assert!(cache.owns(Block::Condition(w)));
        // equal blocks elsewhere (a copy, another request's) are not the request's own
        let copy = own[0].clone();
        assert!(!cache.owns(Block::Select(&copy)));
        assert!(!cache.owns(Block::Condition(&w.clone())));
        let other = PlanCache::for_request(tdlite_parser::parse_request(sql).unwrap().into());
        assert!(!other.owns(Block::Select(own[0])));
    }

    #[test]
    fn a_block_not_of_the_request_is_kept_with_a_copy_that_a_lookup_compares() {
        let cache = PlanCache::default();
        let context = context();
        let parse = |sql: &str| tdlite_parser::parse_request(sql).unwrap();
        let one = parse("SELECT a FROM t");
        let Statement::Sql(s) = &one[0].statement else {
            panic!("a query")
        };
        let ast::Statement::Query(q) = s.as_ref() else {
            panic!("a query")
        };
        let block = Block::Select(selects(q)[0]);
        assert!(matches!(cache.get(block, &context), Found::Missing));
        cache.put(block, &context, None);
        assert!(matches!(cache.get(block, &context), Found::Refused));
        // the entry holds a copy, so another block at that address would not match it
        let inner = cache.inner();
        let (copy, _) = inner.entries.get(&block.key()).unwrap();
        assert!(copy.as_ref().is_some_and(|c| block.is(c)));
    }

    /// A full cache takes no new block, but still keeps a block it has anew (a MERGE bound
    /// again for other types replaces its plan).
    #[test]
    fn a_full_cache_keeps_a_known_block_anew_and_takes_no_new_one() {
        let sql = "MERGE INTO t USING u ON t.k = u.k WHEN MATCHED THEN DELETE; \
                   MERGE INTO t USING v ON t.k = v.k WHEN MATCHED THEN DELETE";
        let statements: Arc<[Spanned]> = tdlite_parser::parse_request(sql).unwrap().into();
        let merges: Vec<&ast::Merge> = (statements.iter())
            .map(|st| match &st.statement {
                Statement::Sql(s) => match s.as_ref() {
                    ast::Statement::Merge(m) => m,
                    _ => panic!("a merge"),
                },
                _ => panic!("a merge"),
            })
            .collect();
        let cache = PlanCache::for_request(statements.clone());
        assert!(cache.owns(Block::Merge(merges[0])));
        assert!(!cache.owns(Block::Merge(&merges[0].clone())));
        let context = context();
        let shape = |n: usize| {
            let fields: Vec<arrow::datatypes::Field> = (0..n)
                .map(|i| {
                    arrow::datatypes::Field::new(
                        format!("c{i}"),
                        arrow::datatypes::DataType::Int32,
                        true,
                    )
                })
                .collect();
            Plan::Shape(Arc::new(arrow::datatypes::Schema::new(fields)))
        };
        let width = |found: Found| match found {
            Found::Kept(Plan::Shape(s)) => s.fields().len(),
            _ => usize::MAX,
        };
        // (a lookup sets the cache's context)
        assert!(matches!(
            cache.get(Block::Merge(merges[0]), &context),
            Found::Missing
        ));
        cache.put(Block::Merge(merges[0]), &context, Some(shape(1)));
        assert_eq!(width(cache.get(Block::Merge(merges[0]), &context)), 1);
        // (filled with conditions: blocks not of the request, kept with copies)
        let exprs: Vec<ast::Expr> = (0..MAX_ENTRIES)
            .map(|i| ast::Expr::value(ast::Value::Number(i.to_string(), false)))
            .collect();
        for e in &exprs {
            cache.put(Block::Condition(e), &context, None);
        }
        assert_eq!(cache.inner().entries.len(), MAX_ENTRIES);
        cache.put(Block::Merge(merges[0]), &context, Some(shape(2)));
        assert_eq!(width(cache.get(Block::Merge(merges[0]), &context)), 2);
        cache.put(Block::Merge(merges[1]), &context, Some(shape(3)));
        assert!(matches!(
            cache.get(Block::Merge(merges[1]), &context),
            Found::Missing
        ));
    }
}
