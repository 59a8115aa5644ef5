//! `HELP SESSION`: one row describing the session, with Teradata's column names.

use tdlite::{Database, SessionMode};

/// A request's column names and rows as text.
fn names_and_rows(s: &mut tdlite::Session, sql: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let r = s.execute(sql).expect(sql);
    let rows = r[0].rows.as_ref().expect("rows");
    let names = (rows.schema.fields().iter())
        .map(|f| f.name().clone())
        .collect();
    (names, rows.to_strings())
}

fn help_session(s: &mut tdlite::Session) -> Vec<(String, String)> {
    let (names, values) = names_and_rows(s, "HELP SESSION");
    assert_eq!(values.len(), 1, "one row");
    names.into_iter().zip(values[0].clone()).collect()
}

fn get<'a>(row: &'a [(String, String)], name: &str) -> &'a str {
    row.iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("no column {name} in {row:?}"))
}

#[test]
fn help_session_reports_user_database_and_semantics() {
    let db = Database::new();
    let mut s = db.session();
    let row = help_session(&mut s);
    let first: Vec<&str> = row.iter().take(5).map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        first,
        [
            "User Name",
            "Account Name",
            "Logon Date",
            "Logon Time",
            "Current DataBase"
        ]
    );
    assert_eq!(get(&row, "User Name"), "TDLITE");
    assert_eq!(get(&row, "Current DataBase"), "TDLITE");
    assert_eq!(get(&row, "Transaction Semantics"), "Teradata");
    // YYYY-MM-DD (tdlite's sessions are ANSIDATE ones, and say so) and HH:MI:SS
    assert_eq!(get(&row, "Logon Date").len(), 10);
    assert_eq!(get(&row, "Current DateForm"), "AnsiDate");
    assert_eq!(get(&row, "Logon Time").matches(':').count(), 2);

    s.execute("CREATE TABLE sales.t (a INTEGER)").unwrap();
    s.execute("DATABASE sales").unwrap();
    assert_eq!(get(&help_session(&mut s), "Current DataBase"), "sales");

    let mut ansi = db.session_in(SessionMode::Ansi);
    assert_eq!(
        get(&help_session(&mut ansi), "Transaction Semantics"),
        "ANSI"
    );
}

/// HELP STATISTICS's rows as (Unique Values, Column Names), with the date and time checked.
fn help_statistics(s: &mut tdlite::Session, table: &str) -> Result<Vec<(String, String)>, u32> {
    let r = s
        .execute(&format!("HELP STATISTICS {table}"))
        .map_err(|e| e.code().number)?;
    let rows = r[0].rows.as_ref().expect("rows");
    let names: Vec<&str> = rows
        .schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(names, ["Date", "Time", "Unique Values", "Column Names"]);
    Ok(rows
        .to_strings()
        .into_iter()
        .map(|r| {
            assert_eq!(r[0].len(), 8, "YY/MM/DD: {}", r[0]);
            assert_eq!(r[1].matches(':').count(), 2, "HH:MI:SS: {}", r[1]);
            (r[2].clone(), r[3].clone())
        })
        .collect())
}

#[test]
fn statistics_are_collected_shown_recollected_and_dropped() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE MULTISET TABLE t (a INTEGER, b VARCHAR(5), c INTEGER)")
        .unwrap();
    s.execute("INS t (1, 'x', 1); INS t (1, 'y', 2); INS t (2, 'x', NULL); INS t (2, 'x', NULL)")
        .unwrap();
    assert_eq!(help_statistics(&mut s, "t"), Err(3624), "none yet");
    assert_eq!(
        s.execute("COLLECT STATS ON t")
            .map_err(|e| e.code().number)
            .err(),
        Some(3624),
        "nothing to recollect"
    );
    s.execute("COLLECT STATISTICS COLUMN a, COLUMN (A, b) AS ab, INDEX (c) ON t")
        .unwrap();
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    // NULL counts as a value, as a distinct count of the rows would say
    assert_eq!(
        help_statistics(&mut s, "t"),
        Ok(pairs(&[("2", "a"), ("3", "a,b"), ("3", "c")]))
    );
    // counts are as of the collection: a recollection (of everything) refreshes them
    s.execute("INS t (3, 'z', 9)").unwrap();
    assert_eq!(help_statistics(&mut s, "t").unwrap()[0].0, "2");
    s.execute("COLLECT STATS ON t").unwrap();
    assert_eq!(help_statistics(&mut s, "t").unwrap()[0].0, "3");
    // the legacy order, ON first
    s.execute("COLLECT STATISTICS ON t COLUMN b").unwrap();
    assert_eq!(help_statistics(&mut s, "t").unwrap().len(), 4);
    s.execute("DROP STATISTICS COLUMN (a, b) ON t").unwrap();
    assert_eq!(help_statistics(&mut s, "t").unwrap().len(), 3);
    let code = |r: Result<Vec<tdlite::StatementResult>, tdlite::PositionedError>| {
        r.map_err(|e| e.code().number).err()
    };
    assert_eq!(code(s.execute("DROP STATS COLUMN (a, b) ON t")), Some(3624));
    assert_eq!(
        code(s.execute("COLLECT STATS COLUMN nope ON t")),
        Some(3810)
    );
    assert_eq!(
        code(s.execute("COLLECT STATS COLUMN a ON nowhere")),
        Some(3807)
    );
    assert_eq!(code(s.execute("COLLECT STATS COLUMN a")), Some(3706));
    // a DROP of several sets drops none unless all have statistics
    assert_eq!(
        code(s.execute("DROP STATISTICS COLUMN a, COLUMN (a, c) ON t")),
        Some(3624)
    );
    assert_eq!(help_statistics(&mut s, "t").unwrap().len(), 3);
    // an index by name, and the PARTITION column (one partition in tdlite)
    s.execute("CREATE INDEX bx (b) ON t").unwrap();
    s.execute("COLLECT STATISTICS INDEX bx, COLUMN PARTITION, COLUMN (PARTITION, a) ON t")
        .unwrap();
    let after = help_statistics(&mut s, "t").unwrap();
    assert!(
        after.contains(&("1".to_string(), "PARTITION".to_string())),
        "{after:?}"
    );
    assert!(
        after.contains(&("3".to_string(), "PARTITION,a".to_string())),
        "{after:?}"
    );
    assert_eq!(
        code(s.execute("COLLECT STATS INDEX nosuch ON t")),
        Some(3526)
    );
    s.execute("DROP STATISTICS INDEX bx ON t").unwrap();
    assert!(
        help_statistics(&mut s, "t")
            .unwrap()
            .iter()
            .any(|(_, c)| c == "a"),
        "dropping one index's statistics keeps the others"
    );
    s.execute("DROP STATISTICS ON t").unwrap();
    assert_eq!(help_statistics(&mut s, "t"), Err(3624));
    // a table made again starts without statistics
    s.execute("COLLECT STATS COLUMN a ON t").unwrap();
    s.execute("DROP TABLE t").unwrap();
    s.execute("CREATE TABLE t (a INTEGER)").unwrap();
    assert_eq!(help_statistics(&mut s, "t"), Err(3624));
}

/// HELP MACRO: a row per parameter, with HELP TABLE's columns (name, type code, nullable).
#[test]
fn help_macro_lists_the_parameters() {
    let db = Database::new();
    let mut s = db.session();
    s.execute("CREATE MACRO helped (lo INTEGER NOT NULL, name VARCHAR(10) DEFAULT 'x') AS (SEL :lo, :name;)")
        .unwrap();
    let (names, rows) = names_and_rows(&mut s, "HELP MACRO helped");
    let picked: Vec<Vec<String>> = rows
        .into_iter()
        .map(|row| {
            ["Column Name", "Type", "Nullable"]
                .iter()
                .map(|want| row[names.iter().position(|n| n == want).expect("column")].clone())
                .collect()
        })
        .collect();
    assert_eq!(
        picked,
        [["lo", "I ", "N"], ["name", "CV", "Y"]].map(|r| r.map(String::from).to_vec())
    );
    let err = s.execute("HELP MACRO nosuch").expect_err("no macro");
    assert_eq!(err.code().number, 3807);
}
