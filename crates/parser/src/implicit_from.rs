//! Teradata's implicit FROM: "Teradata SQL does not require that the tables referenced by
//! columns be listed in the FROM clause" (SQL Data Manipulation Language, FROM clause). A
//! column qualified by a name that no FROM item of its query block (nor of an enclosing block)
//! exposes names a table, which joins the block's FROM as one more comma item (a product join,
//! as in Teradata): `SEL a.id, b.w FROM a WHERE a.id = b.id` reads `FROM a, b`; `SEL t.c;`
//! reads `FROM t`. In `UPDATE a SET v = b.w WHERE a.id = b.id` the table joins the UPDATE's
//! FROM (`UPDATE a FROM b SET …`), and `DELETE FROM a WHERE a.id = b.id` becomes the joined
//! delete `DELETE a FROM a, b WHERE …`.
//!
//! A FROM item exposes its alias, or, without one, its table's name (and `db.t` as written):
//! `FROM emp e WHERE emp.x = 1` names a second, unaliased `emp` (Teradata's well-known extra
//! product join). Only a block's own clauses count (select list, WHERE, GROUP BY, HAVING,
//! QUALIFY, ORDER BY; not FROM's ON conditions or table functions' arguments); a nested
//! query sees the names of the blocks around it, so an outer reference stays one.
//!
//! Invariant: only names that resolve to nothing are added; a statement whose every qualifier
//! names a FROM item comes out unchanged.

use sqlparser::ast::{
    Delete, Expr, FromTable, Ident, ObjectName, ObjectNamePart, Query, Select, SelectItem,
    SelectItemQualifiedWildcardKind, SetExpr, Statement, TableFactor, TableWithJoins, Update,
    UpdateTableFromKind, Visit, VisitMut, Visitor, VisitorMut,
};
use std::ops::ControlFlow;

/// Adds the implicit FROM items of every query block of `stmt`.
pub(crate) fn add_tables(stmt: &mut Statement) {
    match stmt {
        Statement::Query(q) => query(q, &[]),
        Statement::Insert(i) => {
            if let Some(q) = &mut i.source {
                query(q, &[]);
            }
        }
        Statement::Update(u) => update(u),
        Statement::Delete(d) => delete(d),
        Statement::Merge(m) => {
            // queries in the source see nothing; those in ON and the clauses see the target
            // and the source
            nested(&mut m.source, &[]);
            let scope: Vec<Name> = [&m.table, &m.source]
                .into_iter()
                .filter_map(exposed_by)
                .collect();
            nested(&mut *m.on, &scope);
            nested(&mut m.clauses, &scope);
        }
        // other statements' queries are left as written
        _ => {}
    }
}

/// Adds the implicit FROM items of `q`, a query that sees the names `outer`.
pub(crate) fn query(q: &mut Query, outer: &[Name]) {
    if let Some(with) = &mut q.with {
        for cte in &mut with.cte_tables {
            query(&mut cte.query, outer);
        }
    }
    let order = q.order_by.as_mut();
    body(&mut q.body, outer, order);
}

/// A query's body: each SELECT of a set operation is a block of its own (an ORDER BY after a
/// set operation names result columns, not tables).
fn body(b: &mut SetExpr, outer: &[Name], order: Option<&mut sqlparser::ast::OrderBy>) {
    match b {
        SetExpr::Select(s) => select(s, outer, order),
        SetExpr::Query(inner) => query(inner, outer),
        SetExpr::SetOperation { left, right, .. } => {
            body(left, outer, None);
            body(right, outer, None);
        }
        other => nested(other, outer),
    }
}

/// A name a FROM item exposes: its parts as written, compared without case.
#[derive(Debug, Clone)]
pub(crate) struct Name(Vec<String>);

impl Name {
    fn of(parts: &[Ident]) -> Self {
        Name(parts.iter().map(|i| i.value.to_ascii_uppercase()).collect())
    }

    /// Whether a qualifier written `q` may resolve to this name: the same parts, or the same
    /// last part where either is a bare name (`t.c` of `FROM db.t`, `db.t.c` of `FROM t`,
    /// which the default database decides).
    fn matches(&self, q: &Name) -> bool {
        self.0 == q.0 || ((q.0.len() == 1 || self.0.len() == 1) && self.0.last() == q.0.last())
    }
}

/// The names the items of a FROM clause expose (joins included, and the items of a
/// parenthesised join without an alias).
fn exposed(from: &[TableWithJoins]) -> Vec<Name> {
    let mut out = Vec::new();
    let mut add = |tf: &TableFactor| match tf {
        TableFactor::NestedJoin {
            table_with_joins,
            alias: None,
        } => out.extend(exposed(std::slice::from_ref(&**table_with_joins))),
        other => out.extend(exposed_by(other)),
    };
    for t in from {
        add(&t.relation);
        for j in &t.joins {
            add(&j.relation);
        }
    }
    out
}

/// The name one FROM item exposes, if any.
fn exposed_by(tf: &TableFactor) -> Option<Name> {
    match tf {
        TableFactor::Table { alias: Some(a), .. }
        | TableFactor::Derived { alias: Some(a), .. }
        | TableFactor::Function { alias: Some(a), .. }
        | TableFactor::TableFunction { alias: Some(a), .. }
        | TableFactor::Pivot { alias: Some(a), .. }
        | TableFactor::Unpivot { alias: Some(a), .. }
        | TableFactor::NestedJoin { alias: Some(a), .. } => {
            Some(Name::of(std::slice::from_ref(&a.name)))
        }
        TableFactor::Table {
            name, alias: None, ..
        } => Some(Name::of(&idents(name))),
        _ => None,
    }
}

fn idents(name: &ObjectName) -> Vec<Ident> {
    name.0
        .iter()
        .filter_map(|p| match p {
            ObjectNamePart::Identifier(i) => Some(i.clone()),
            _ => None,
        })
        .collect()
}

/// The qualifiers (`t` of `t.c`, `db.t` of `db.t.c`, `t` of `t.*`) that `node` writes outside
/// any nested query.
fn qualifiers<V: Visit>(node: &V, out: &mut Vec<Vec<Ident>>) {
    struct Collect<'a> {
        depth: usize,
        out: &'a mut Vec<Vec<Ident>>,
    }
    impl Visitor for Collect<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            self.depth += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            self.depth -= 1;
            ControlFlow::Continue(())
        }
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            if let (0, Expr::CompoundIdentifier(parts)) = (self.depth, e) {
                if (2..=3).contains(&parts.len()) {
                    self.out.push(parts[..parts.len() - 1].to_vec());
                }
            }
            ControlFlow::Continue(())
        }
    }
    let _ = node.visit(&mut Collect { depth: 0, out });
}

/// Runs [`query`] on each query nested in `node` (not on queries inside those), with the
/// names `scope`.
fn nested<V: VisitMut>(node: &mut V, scope: &[Name]) {
    struct Nested<'a> {
        depth: usize,
        scope: &'a [Name],
    }
    impl VisitorMut for Nested<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
            if self.depth == 0 {
                query(q, self.scope);
            }
            self.depth += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
            self.depth -= 1;
            ControlFlow::Continue(())
        }
    }
    let _ = node.visit(&mut Nested { depth: 0, scope });
}

/// The qualifiers in `written` that resolve to none of `known`, each once, as table names.
fn missing(written: Vec<Vec<Ident>>, known: &[Name]) -> Vec<ObjectName> {
    let mut out: Vec<(Name, ObjectName)> = Vec::new();
    for parts in written {
        let q = Name::of(&parts);
        if known.iter().any(|k| k.matches(&q)) || out.iter().any(|(n, _)| n.0 == q.0) {
            continue;
        }
        let name = ObjectName(parts.into_iter().map(ObjectNamePart::Identifier).collect());
        out.push((q, name));
    }
    out.into_iter().map(|(_, n)| n).collect()
}

fn table(name: ObjectName) -> TableWithJoins {
    TableWithJoins {
        relation: plain_table_factor(name),
        joins: Vec::new(),
    }
}

/// A FROM entry naming table `name`, with no alias, hint or sample.
pub fn plain_table_factor(name: ObjectName) -> TableFactor {
    TableFactor::Table {
        name,
        alias: None,
        args: None,
        with_hints: Vec::new(),
        version: None,
        with_ordinality: false,
        partitions: Vec::new(),
        json_path: None,
        sample: None,
        index_directives: Vec::new(),
        inheritance: None,
    }
}

fn select(s: &mut Select, outer: &[Name], order: Option<&mut sqlparser::ast::OrderBy>) {
    // derived tables see the enclosing blocks' names, not this block's (no LATERAL)
    for t in &mut s.from {
        nested(&mut t.relation, outer);
        for j in &mut t.joins {
            nested(&mut j.relation, outer);
        }
    }
    // the block's own clauses, its FROM aside
    let from = std::mem::take(&mut s.from);
    let mut written = Vec::new();
    qualifiers(&*s, &mut written);
    for item in &s.projection {
        if let SelectItem::QualifiedWildcard(SelectItemQualifiedWildcardKind::ObjectName(n), _) =
            item
        {
            written.push(idents(n));
        }
    }
    if let Some(o) = &order {
        qualifiers(&**o, &mut written);
    }
    s.from = from;
    let mut known = outer.to_vec();
    known.extend(exposed(&s.from));
    for name in missing(written, &known) {
        s.from.push(table(name));
    }
    let mut scope = outer.to_vec();
    scope.extend(exposed(&s.from));
    let from = std::mem::take(&mut s.from);
    nested(&mut *s, &scope);
    s.from = from;
    if let Some(o) = order {
        nested(o, &scope);
    }
}

/// `UPDATE t [FROM …] SET … WHERE …`: tables the SET values and WHERE name join the FROM.
fn update(u: &mut Update) {
    let mut known = exposed(std::slice::from_ref(&u.table));
    let from = match &mut u.from {
        Some(UpdateTableFromKind::BeforeSet(f) | UpdateTableFromKind::AfterSet(f)) => Some(f),
        None => None,
    };
    if let Some(f) = &from {
        known.extend(exposed(f));
    }
    let mut written = Vec::new();
    for a in &u.assignments {
        qualifiers(&a.value, &mut written);
    }
    if let Some(w) = &u.selection {
        qualifiers(w, &mut written);
    }
    let added = missing(written, &known);
    if !added.is_empty() {
        let items = added.into_iter().map(table);
        match from {
            Some(f) => f.extend(items),
            None => u.from = Some(UpdateTableFromKind::BeforeSet(items.collect())),
        }
    }
    let scope = {
        let mut s = exposed(std::slice::from_ref(&u.table));
        if let Some(UpdateTableFromKind::BeforeSet(f) | UpdateTableFromKind::AfterSet(f)) = &u.from
        {
            s.extend(exposed(f));
        }
        s
    };
    for a in &mut u.assignments {
        nested(&mut a.value, &scope);
    }
    if let Some(w) = &mut u.selection {
        nested(w, &scope);
    }
    if let Some(UpdateTableFromKind::BeforeSet(f) | UpdateTableFromKind::AfterSet(f)) = &mut u.from
    {
        for t in f {
            nested(&mut t.relation, &[]);
        }
    }
}

/// `DELETE [t] FROM … WHERE …`: tables the WHERE names join the FROM, which makes a plain
/// DELETE the joined delete of its one table.
fn delete(d: &mut Delete) {
    let from = match &mut d.from {
        FromTable::WithFromKeyword(v) | FromTable::WithoutKeyword(v) => v,
    };
    for t in from.iter_mut() {
        nested(&mut t.relation, &[]);
    }
    let known = exposed(from);
    let mut written = Vec::new();
    if let Some(w) = &d.selection {
        qualifiers(w, &mut written);
    }
    let added = missing(written, &known);
    if !added.is_empty() && d.using.is_none() {
        // a plain DELETE of one table becomes the joined delete of that table, named as its
        // FROM item exposes it
        let target = match from.as_slice() {
            _ if !d.tables.is_empty() => None,
            [only] => match &only.relation {
                TableFactor::Table { alias: Some(a), .. } => {
                    Some(ObjectName(vec![ObjectNamePart::Identifier(a.name.clone())]))
                }
                TableFactor::Table { name, .. } => Some(name.clone()),
                _ => None,
            },
            _ => None,
        };
        if let Some(t) = target {
            d.tables.push(t);
        }
        if !d.tables.is_empty() {
            from.extend(added.into_iter().map(table));
        }
    }
    let scope = exposed(from);
    if let Some(w) = &mut d.selection {
        nested(w, &scope);
    }
}
