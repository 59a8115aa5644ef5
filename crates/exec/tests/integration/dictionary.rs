//! `HELP SESSION`: one row describing the session, with Teradata's column names.

use tdlite::{Database, SessionMode};

fn help_session(s: &mut tdlite::Session) -> Vec<(String, String)> {
    let r = s.execute("HELP SESSION").expect("HELP SESSION runs");
    let rows = r[0].rows.as_ref().expect("rows");
    let names: Vec<String> = rows
        .schema
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let values = rows.to_strings();
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
    // YY/MM/DD and HH:MI:SS, as BTEQ shows them
    assert_eq!(get(&row, "Logon Date").len(), 8);
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
