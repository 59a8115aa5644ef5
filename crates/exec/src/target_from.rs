//! The FROM of Teradata's joined UPDATE (`UPDATE t FROM s SET … WHERE …`) and joined DELETE
//! (`DELETE t FROM t, s WHERE …`), as one FROM with the target first: the statement's rows
//! are then found by the join planner (bound_from.rs), the target read at its step with its
//! row ids (`FromRel::Target`), not read whole before its conditions are bound.
//!
//! The target may be named in its own FROM list, also under an alias (`UPDATE a FROM t a, s`,
//! `DELETE a FROM t a, s`): that entry is the target, not a second copy of it. Invariant:
//! [`target_first`] gives the target once, at position 0, and every other entry in the
//! order written. Nothing here reads the catalog: the names are compared as written.

use sqlparser::ast;
use tdlite_parser::object_name_string;

/// The entry an UPDATE with `from` changes: `UPDATE a FROM t a, s` names its target by an
/// alias of its FROM list (a one-part name, not itself aliased); otherwise its own `table`.
pub(crate) fn update_target<'a>(
    table: &'a ast::TableWithJoins,
    from: &'a [ast::TableWithJoins],
) -> &'a ast::TableWithJoins {
    let ast::TableFactor::Table {
        name, alias: None, ..
    } = &table.relation
    else {
        return table;
    };
    if name.0.len() != 1 {
        return table;
    }
    let written = object_name_string(name);
    (from.iter())
        .find(|t| {
            matches!(&t.relation, ast::TableFactor::Table { alias: Some(a), .. }
                if a.name.value.eq_ignore_ascii_case(&written))
        })
        .unwrap_or(table)
}

/// The name an UPDATE's or DELETE's target entry `tf` is known by in the statement: its
/// alias, or its name as written; `None` for an entry that is not a table.
pub(crate) fn known_as(tf: &ast::TableFactor) -> Option<String> {
    match tf {
        ast::TableFactor::Table { name, alias, .. } => Some(match alias {
            Some(a) => a.name.value.clone(),
            None => object_name_string(name),
        }),
        _ => None,
    }
}

/// The FROM entry a joined DELETE of `target` (as written after DELETE) names: the entry
/// aliased so, or unaliased and named so; `None` if the FROM has none (the table is then
/// `target` itself).
pub(crate) fn delete_entry<'a>(
    target: &ast::ObjectName,
    from: &'a [ast::TableWithJoins],
) -> Option<&'a ast::TableFactor> {
    let n = object_name_string(target);
    from.iter().map(|t| &t.relation).find(|tf| match tf {
        ast::TableFactor::Table { name, alias, .. } => match alias {
            Some(a) => a.name.value.eq_ignore_ascii_case(&n),
            None => object_name_string(name).eq_ignore_ascii_case(&n),
        },
        _ => false,
    })
}

/// A FROM entry naming table `name`, unaliased: a joined DELETE's target that its FROM list
/// leaves out (`DELETE t FROM s WHERE …`).
pub(crate) fn plain_factor(name: &ast::ObjectName) -> ast::TableFactor {
    tdlite_parser::plain_table_factor(name.clone())
}

/// The FROM of a joined UPDATE or DELETE with its target first: `target` (the entry naming
/// the table changed, known in the statement as `q`; `table_name` is that table's own
/// name), then the entries of `from` that are not the target, in order. An entry is the
/// target when it is a table with no joins aliased `q`, or unaliased and named `q` or
/// `table_name`.
pub(crate) fn target_first(
    target: &ast::TableFactor,
    (q, table_name): (&str, &str),
    from: &[ast::TableWithJoins],
) -> Vec<ast::TableWithJoins> {
    let is_target = |t: &ast::TableWithJoins| {
        t.joins.is_empty()
            && matches!(&t.relation, ast::TableFactor::Table { name, alias, .. }
            if match alias {
                Some(a) => a.name.value.eq_ignore_ascii_case(q),
                None => object_name_string(name).eq_ignore_ascii_case(q)
                    || object_name_string(name).eq_ignore_ascii_case(table_name),
            })
    };
    let first = ast::TableWithJoins {
        relation: target.clone(),
        joins: Vec::new(),
    };
    std::iter::once(first)
        .chain(from.iter().filter(|t| !is_target(t)).cloned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_of(sql: &str) -> (ast::Statement, Vec<ast::TableWithJoins>) {
        let st = match tdlite_parser::parse_request(sql)
            .expect("parses")
            .remove(0)
            .statement
        {
            tdlite_parser::Statement::Sql(s) => *s,
            other => panic!("not SQL: {other:?}"),
        };
        let from = match &st {
            ast::Statement::Update(ast::Update {
                from:
                    Some(
                        ast::UpdateTableFromKind::BeforeSet(f)
                        | ast::UpdateTableFromKind::AfterSet(f),
                    ),
                ..
            }) => f.clone(),
            ast::Statement::Delete(d) => match &d.from {
                ast::FromTable::WithFromKeyword(v) | ast::FromTable::WithoutKeyword(v) => v.clone(),
            },
            other => panic!("not a joined UPDATE or DELETE: {other}"),
        };
        (st, from)
    }

    fn texts(from: &[ast::TableWithJoins]) -> Vec<String> {
        from.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn an_update_names_its_target_by_an_alias_of_its_from_list_once() {
        let (st, from) = from_of("UPDATE e FROM emp e, raise r SET sal = 1 WHERE e.d = r.d");
        let ast::Statement::Update(u) = &st else {
            panic!("an UPDATE")
        };
        let target = update_target(&u.table, &from);
        assert_eq!(target.relation.to_string(), "emp e");
        let full = target_first(&target.relation, ("e", "emp"), &from);
        assert_eq!(texts(&full), ["emp e", "raise r"]);
        // not in its FROM list: the UPDATE's own table, first
        let (st, from) = from_of("UPDATE emp FROM raise SET sal = 1 WHERE emp.d = raise.d");
        let ast::Statement::Update(u) = &st else {
            panic!("an UPDATE")
        };
        let target = update_target(&u.table, &from);
        assert_eq!(target.relation.to_string(), "emp");
        let full = target_first(&target.relation, ("emp", "emp"), &from);
        assert_eq!(texts(&full), ["emp", "raise"]);
    }

    #[test]
    fn a_joined_delete_finds_its_entry_or_stands_alone() {
        let (st, from) = from_of("DELETE e FROM raise r, emp e WHERE e.d = r.d");
        let ast::Statement::Delete(d) = &st else {
            panic!("a DELETE")
        };
        let entry = delete_entry(&d.tables[0], &from).expect("the aliased entry");
        assert_eq!(entry.to_string(), "emp e");
        let full = target_first(entry, ("e", "emp"), &from);
        assert_eq!(texts(&full), ["emp e", "raise r"]);
        // not in its FROM list (a WHERE naming `emp.d` would add it: the parser's implicit
        // FROM), the target stands first on its own
        let (st, from) = from_of("DELETE emp FROM raise AS r, emp2 WHERE emp2.d = r.d");
        let ast::Statement::Delete(d) = &st else {
            panic!("a DELETE")
        };
        assert!(delete_entry(&d.tables[0], &from).is_none());
        let full = target_first(&plain_factor(&d.tables[0]), ("emp", "emp"), &from);
        assert_eq!(texts(&full), ["emp", "raise AS r", "emp2"]);
    }
}
