//! The plans a prepared request keeps between its executions: each one-table SELECT block it
//! runs (the request's own, or a subquery's) bound once into a [`BoundSelect`], and the WHERE
//! clause of each UPDATE or DELETE of one table into a [`BoundCondition`], used again with new
//! inputs instead of being bound afresh every time.
//!
//! A bound block's inputs are its *slots*: the request's `?` parameters and the uncorrelated
//! scalar subqueries it uses. While a block is bound for the cache, the binder records each
//! slot's one-row array as it makes it (a [`Recording`](crate::slots::Recording), slots.rs);
//! the bound expressions then hold those arrays as literals, and an execution puts each
//! slot's new value where its array was (see bound_select.rs).
//!
//! Invariants:
//! - A block is kept only if nothing but its slots depends on the values of this execution:
//!   binding it ran no query but its scalar subqueries, read no value of the request or
//!   session (CURRENT_TIMESTAMP, USER, GetQueryBand(), …), and each slot's array is still
//!   in the bound expressions as itself (a binder that derived a value from it, a folded
//!   constant say, would leave it out: the block is then refused). A slot whose new value
//!   has another type than at binding makes that execution bind afresh.
//! - Entries are valid for one context: the catalog's version (any CREATE, DROP, ALTER,
//!   CREATE/DROP INDEX, volatile or not, raises it), and the session, user and default
//!   database that resolved the names. Another context empties the cache.
//! - An entry is found by the block's address and kind and kept with a copy of the block: a
//!   lookup whose block is not equal to the copy is a miss, so an address used again by
//!   another block never finds the wrong plan. At most `MAX_ENTRIES` blocks are kept.

use crate::bound_select::{BoundCondition, BoundSelect};
use foldhash::HashMap;
use sqlparser::ast;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// What resolved the names of the cached blocks, as a lookup sees it (borrowed: a lookup
/// allocates nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Context<'a> {
    pub version: u64,
    pub session: u64,
    pub user: &'a str,
    pub database: Option<&'a str>,
}

/// The context the kept entries were made in.
#[derive(Debug, PartialEq, Eq)]
struct OwnedContext {
    version: u64,
    session: u64,
    user: String,
    database: Option<String>,
}

impl OwnedContext {
    fn of(c: &Context<'_>) -> Self {
        OwnedContext {
            version: c.version,
            session: c.session,
            user: c.user.to_string(),
            database: c.database.map(str::to_string),
        }
    }

    fn is(&self, c: &Context<'_>) -> bool {
        self.version == c.version
            && self.session == c.session
            && self.user == c.user
            && self.database.as_deref() == c.database
    }
}

/// What is kept: a SELECT block, or the WHERE clause of an UPDATE or DELETE of one table.
#[derive(Clone, Copy)]
pub(crate) enum Block<'a> {
    Select(&'a ast::Select),
    Condition(&'a ast::Expr),
}

/// A copy of a block, to check that an entry found by address is for that block.
#[derive(PartialEq)]
enum Copy {
    Select(Box<ast::Select>),
    Condition(Box<ast::Expr>),
}

impl Block<'_> {
    /// The block's address and kind.
    fn key(self) -> (usize, bool) {
        match self {
            Block::Select(s) => (std::ptr::from_ref(s) as usize, false),
            Block::Condition(e) => (std::ptr::from_ref(e) as usize, true),
        }
    }

    fn is(self, copy: &Copy) -> bool {
        match (self, copy) {
            (Block::Select(s), Copy::Select(c)) => **c == *s,
            (Block::Condition(e), Copy::Condition(c)) => **c == *e,
            _ => false,
        }
    }

    fn copy(self) -> Copy {
        match self {
            Block::Select(s) => Copy::Select(Box::new(s.clone())),
            Block::Condition(e) => Copy::Condition(Box::new(e.clone())),
        }
    }
}

/// A kept plan.
#[derive(Clone)]
pub(crate) enum Plan {
    Select(Arc<BoundSelect>),
    Condition(Arc<BoundCondition>),
}

#[derive(Default)]
struct Inner {
    context: Option<OwnedContext>,
    /// By the block's address and kind: a copy of the block, and its plan (`None`: refused,
    /// bound afresh each time).
    entries: HashMap<(usize, bool), (Copy, Option<Plan>)>,
}

/// The plans of one prepared request (shared by its clones).
#[derive(Default)]
pub struct PlanCache {
    inner: Mutex<Inner>,
    hits: AtomicU64,
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
    /// How many block executions used a kept plan.
    pub fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
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
            Some((copy, plan)) if block.is(copy) => match plan {
                Some(p) => Found::Kept(p.clone()),
                None => Found::Refused,
            },
            _ => Found::Missing,
        }
    }

    /// Keeps `plan` (`None`: refused) for `block` in `context`; nothing if the context changed
    /// meanwhile or the cache is full.
    pub(crate) fn put(&self, block: Block<'_>, context: &Context<'_>, plan: Option<Plan>) {
        let mut inner = self.inner();
        let same = inner.context.as_ref().is_some_and(|c| c.is(context));
        if same && inner.entries.len() < MAX_ENTRIES {
            inner.entries.insert(block.key(), (block.copy(), plan));
        }
    }
}
