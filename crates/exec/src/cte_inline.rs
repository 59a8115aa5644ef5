//! A `WITH` clause's CTEs that are named once made derived tables where they are named, before
//! the query runs: `WITH x AS (SEL * FROM big) SEL * FROM x WHERE k = 5` runs as
//! `SEL * FROM (SEL * FROM big) AS x WHERE k = 5`, so its conditions go into the CTE's query
//! (pushdown.rs) and its key probes `big`'s index, where the CTE's rows would otherwise all be
//! made first and then filtered (cte.rs). EXPLAIN shows the query as it runs, with the
//! derived tables.
//!
//! A CTE is made a derived table only where its query then reads the same rows. Its one
//! naming is a plain table name (no alias column list) in a FROM outside every subquery
//! expression (a correlated subquery runs per row of its enclosing query, and the CTE's query
//! with it), of a later CTE's query or of the body. The CTE has no ORDER BY, no WITH of its
//! own and no MATERIALIZED; its name is defined once in the clause, and no WITH inside the
//! query defines it again (which would hide it somewhere); its query names no CTE defined
//! after it and no name an inner WITH defines (where it is put, it would see those). The
//! clause is not `WITH RECURSIVE`, and no FROM of the query is a table function, PIVOT or
//! UNPIVOT (a table function's arguments name a CTE by their qualifiers). Any other CTE is
//! made first, as before (cte.rs): one named twice (its rows made once), one never named
//! (its errors still raised), one named inside a subquery.
//!
//! As with a view or a derived table (pushdown.rs), a condition pushed into the CTE's query
//! means rows it would leave out are never made: an error only such a row would raise (a
//! division by zero, say) is no longer raised, and the body's name errors come before the
//! CTE's rows are made.
//!
//! Invariant: each CTE is in exactly one of the two results (made first, or put in its one
//! naming), and a CTE made first and unchanged is the request's own (borrowed).

use sqlparser::ast::{self, Visit, VisitMut, Visitor, VisitorMut};
use std::borrow::Cow;
use std::ops::ControlFlow;

/// Each query of `statement` (a SELECT, or an INSERT's), the queries inside it too, with its
/// CTEs named once put in as derived tables ([`inlined`]): done once when a request is
/// parsed, so a prepared request (or one kept by its text) holds the rewritten blocks as its
/// own; a run looks again only where CTEs made first remain (and finds nothing more). The
/// queries of other statements (UPDATE, DELETE, MERGE, a view's, a CREATE TABLE … AS's) are
/// rewritten when they run (`Exec::run_with`).
pub(crate) fn inline_statement(statement: &mut ast::Statement) {
    struct Queries;
    impl VisitorMut for Queries {
        type Break = ();
        fn pre_visit_query(&mut self, q: &mut ast::Query) -> ControlFlow<()> {
            if let Some(with) = &q.with {
                let (ctes, body) = inlined(with, q);
                if ctes.len() < with.cte_tables.len() {
                    let rest = ast::With {
                        cte_tables: ctes.into_iter().map(Cow::into_owned).collect(),
                        ..with.clone()
                    };
                    *q = ast::Query {
                        with: (!rest.cte_tables.is_empty()).then_some(rest),
                        ..body
                    };
                }
            }
            ControlFlow::Continue(())
        }
    }
    if matches!(
        statement,
        ast::Statement::Query(_) | ast::Statement::Insert(_)
    ) {
        let _ = VisitMut::visit(statement, &mut Queries);
    }
}

/// The CTEs of `with` (the WITH clause of `q`) to make first, in order (borrowed where
/// unchanged, so a prepared request's kept plans find them as its own), and `q`'s body (with
/// no WITH) with every other one put where it is named, as a derived table.
pub(crate) fn inlined<'w>(
    with: &'w ast::With,
    q: &ast::Query,
) -> (Vec<Cow<'w, ast::Cte>>, ast::Query) {
    let mut body = q.clone();
    body.with = None;
    let mut ctes: Vec<Cow<'w, ast::Cte>> = with.cte_tables.iter().map(Cow::Borrowed).collect();
    if with.recursive
        || ctes.iter().any(|c| has_other_factors(&c.query))
        || has_other_factors(&body)
    {
        return (ctes, body);
    }
    if ctes.len() > MAX_CTES {
        return (ctes, body);
    }
    // (as `Exec::cte` and `bind_ctes` compare them: ASCII letters without case)
    let names: Vec<String> = ctes
        .iter()
        .map(|c| c.alias.name.value.to_ascii_uppercase())
        .collect();
    let chains = chains(&ctes, &names);
    let mut nested = Vec::new();
    crate::view::collect_cte_names(&body, &mut nested);
    for c in &ctes {
        crate::view::collect_cte_names(&c.query, &mut nested);
    }
    // a CTE can be named only after it, so the last is decided first: an earlier CTE's
    // namings in a later one's query have then moved with it (into the body, or not)
    for i in (0..ctes.len()).rev() {
        let name = &names[i];
        let unique = names.iter().filter(|n| *n == name).count() == 1;
        let hidden = nested.iter().any(|n| n.eq_ignore_ascii_case(name));
        // where it is put, its query would see the CTEs after it and the inner WITHs' names,
        // which it does not see where it is defined
        let unseen: Vec<&str> = names[i + 1..]
            .iter()
            .map(String::as_str)
            .chain(nested.iter().map(String::as_str))
            .collect();
        if chains[i] > MAX_CHAIN
            || !unique
            || hidden
            || !movable(&ctes[i])
            || names_any(&ctes[i].query, &unseen)
        {
            continue;
        }
        let mut count = Namings::new(name);
        let _ = Visit::visit(&body, &mut count);
        for later in &ctes[i + 1..] {
            let _ = Visit::visit(later.query.as_ref(), &mut count);
        }
        if count.movable != 1 || count.other != 0 {
            continue;
        }
        let cte = ctes.remove(i).into_owned();
        let mut put = Put {
            name,
            cte: Some(cte),
            depth: 0,
        };
        let _ = VisitMut::visit(&mut body, &mut put);
        for later in &mut ctes[i..] {
            if put.cte.is_none() {
                break;
            }
            let mut here = Namings::new(name);
            let _ = Visit::visit(later.query.as_ref(), &mut here);
            if here.movable > 0 {
                let _ = VisitMut::visit(later.to_mut().query.as_mut(), &mut put);
            }
        }
        debug_assert!(
            put.cte.is_none(),
            "the one naming counted is the one replaced"
        );
    }
    (ctes, body)
}

/// A WITH clause of more CTEs than this is made as written: deciding costs a pass over the
/// body and the later CTEs for each one.
const MAX_CTES: usize = 64;

/// A CTE is put in only if the chain of CTEs each named in the next one's query that ends at
/// it is at most this long: the derived tables put inside one another then nest no deeper
/// than a text the parser takes (`tdlite_parser` bounds its nesting), where a chain of
/// thousands would make a query thousands of levels deep.
const MAX_CHAIN: usize = 16;

/// For each CTE, the longest chain of CTEs, each named in the next one's query, that ends at
/// it (1 for one that names none): how deep the derived tables in its query may nest once
/// it and they are put in.
fn chains(ctes: &[Cow<'_, ast::Cte>], names: &[String]) -> Vec<usize> {
    let mut chain: Vec<usize> = Vec::with_capacity(ctes.len());
    let mut earlier: std::collections::HashMap<&str, usize> = Default::default();
    for (i, c) in ctes.iter().enumerate() {
        let mut longest = 0;
        let _ = ast::visit_relations(c.query.as_ref(), |r| {
            if r.0.len() == 1 {
                let n = tdlite_parser::object_name_string(r).to_ascii_uppercase();
                if let Some(&j) = earlier.get(n.as_str()) {
                    longest = longest.max(chain[j]);
                }
            }
            ControlFlow::<()>::Continue(())
        });
        chain.push(longest + 1);
        earlier.insert(&names[i], i);
    }
    chain
}

/// Whether `q` holds a FROM item other than a table's name, a derived table or a join in
/// parentheses: a table function (whose arguments may name a CTE by its columns' qualifier),
/// PIVOT or UNPIVOT. Such a query is left as it is.
fn has_other_factors(q: &ast::Query) -> bool {
    struct Other;
    impl Visitor for Other {
        type Break = ();
        fn pre_visit_table_factor(&mut self, tf: &ast::TableFactor) -> ControlFlow<()> {
            match tf {
                ast::TableFactor::Table { args: None, .. }
                | ast::TableFactor::Derived { .. }
                | ast::TableFactor::NestedJoin { .. } => ControlFlow::Continue(()),
                _ => ControlFlow::Break(()),
            }
        }
    }
    Visit::visit(q, &mut Other).is_break()
}

/// Whether `q` names a table (anywhere in it) by one of `names`, compared as CTE names are.
fn names_any(q: &ast::Query, names: &[&str]) -> bool {
    let mut found = false;
    let _ = ast::visit_relations(q, |r| {
        if r.0.len() == 1 {
            let n = tdlite_parser::object_name_string(r);
            found = names.iter().any(|m| m.eq_ignore_ascii_case(&n));
        }
        if found {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    found
}

/// Whether `cte` means the same as a derived table of its query.
fn movable(cte: &ast::Cte) -> bool {
    let q = &cte.query;
    cte.materialized.is_none()
        && cte.from.is_none()
        && q.with.is_none()
        && q.order_by.is_none()
        && q.limit_clause.is_none()
        && q.fetch.is_none()
        && q.locks.is_empty()
        && q.for_clause.is_none()
        && q.settings.is_none()
        && q.format_clause.is_none()
        && q.pipe_operators.is_empty()
}

/// Whether `tf` names the CTE `name` as a plain table name, with an alias (or none) that
/// renames no column.
fn names_plainly(tf: &ast::TableFactor, name: &str) -> Option<bool> {
    let ast::TableFactor::Table {
        name: object,
        alias,
        args,
        with_hints,
        version,
        with_ordinality,
        partitions,
        json_path,
        sample,
        index_directives,
        inheritance,
    } = tf
    else {
        return None;
    };
    if object.0.len() != 1 || !tdlite_parser::object_name_string(object).eq_ignore_ascii_case(name)
    {
        return None;
    }
    Some(
        args.is_none()
            && with_hints.is_empty()
            && version.is_none()
            && !with_ordinality
            && partitions.is_empty()
            && json_path.is_none()
            && sample.is_none()
            && index_directives.is_empty()
            && inheritance.is_none()
            && alias
                .as_ref()
                .is_none_or(|a| a.columns.is_empty() && a.at.is_none()),
    )
}

/// Counts the namings of one CTE: those it may move to, and any other. A table factor inside
/// an expression is in a subquery of it (`depth`, the expressions open around the visit).
struct Namings<'n> {
    name: &'n str,
    depth: usize,
    movable: usize,
    other: usize,
}

impl<'n> Namings<'n> {
    fn new(name: &'n str) -> Self {
        Namings {
            name,
            depth: 0,
            movable: 0,
            other: 0,
        }
    }
}

impl Visitor for Namings<'_> {
    type Break = ();

    fn pre_visit_expr(&mut self, _: &ast::Expr) -> ControlFlow<()> {
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, _: &ast::Expr) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, tf: &ast::TableFactor) -> ControlFlow<()> {
        match names_plainly(tf, self.name) {
            Some(true) if self.depth == 0 => self.movable += 1,
            Some(_) => self.other += 1,
            None => {}
        }
        ControlFlow::Continue(())
    }
}

/// Puts one CTE, as a derived table, where it is named (after its naming has been visited,
/// so the CTE's own query, which may name a table of the same name, is not visited again).
struct Put<'n> {
    name: &'n str,
    cte: Option<ast::Cte>,
    depth: usize,
}

impl VisitorMut for Put<'_> {
    type Break = ();

    fn pre_visit_expr(&mut self, _: &mut ast::Expr) -> ControlFlow<()> {
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, _: &mut ast::Expr) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }

    fn post_visit_table_factor(&mut self, tf: &mut ast::TableFactor) -> ControlFlow<()> {
        if self.depth != 0 || names_plainly(tf, self.name) != Some(true) {
            return ControlFlow::Continue(());
        }
        let Some(cte) = self.cte.take() else {
            return ControlFlow::Continue(());
        };
        let ast::TableFactor::Table {
            name: object,
            alias,
            ..
        } = tf
        else {
            return ControlFlow::Continue(());
        };
        // the naming's alias, or the name as written there, names the rows in the block
        let alias_name = match alias.take() {
            Some(a) => a.name,
            None => object
                .0
                .last()
                .and_then(|p| p.as_ident())
                .cloned()
                .unwrap_or(cte.alias.name),
        };
        *tf = ast::TableFactor::Derived {
            lateral: false,
            subquery: cte.query,
            alias: Some(ast::TableAlias {
                explicit: true,
                name: alias_name,
                columns: cte.alias.columns,
                at: None,
            }),
            sample: None,
        };
        ControlFlow::Break(())
    }
}

#[cfg(test)]
mod tests {
    use super::inline_statement;
    use tdlite_parser::Statement;

    /// `sql`'s one statement as `Session::parse` leaves it, printed.
    fn rewritten(sql: &str) -> String {
        let mut parsed = tdlite_parser::parse_request(sql).expect("parses");
        let Statement::Sql(st) = &mut parsed[0].statement else {
            panic!("an SQL statement: {sql}");
        };
        inline_statement(st);
        st.to_string()
    }

    #[test]
    fn a_request_s_ctes_named_once_are_put_in_when_it_is_parsed() {
        let s = rewritten("WITH x AS (SEL k FROM t) SEL * FROM x WHERE k = 1");
        assert!(!s.contains("WITH"), "{s}");
        assert!(s.contains("FROM (SELECT k FROM t) AS x WHERE"), "{s}");
        // an INSERT's query, and a WITH inside a derived table
        let s = rewritten("INS u WITH x AS (SEL k FROM t) SEL k FROM x");
        assert!(
            !s.contains("WITH") && s.contains("(SELECT k FROM t) AS x"),
            "{s}"
        );
        let s = rewritten("SEL a FROM (WITH q AS (SEL 7 AS a) SEL a FROM q) d");
        assert!(
            !s.contains("WITH") && s.contains("(SELECT 7 AS a) AS q"),
            "{s}"
        );
        // one made first stays in the WITH, beside one put in
        let s = rewritten("WITH x AS (SEL k FROM t), y AS (SEL 1 AS c) SEL * FROM x a, x b, y");
        assert!(s.starts_with("WITH x AS") && !s.contains("y AS"), "{s}");
    }
}
