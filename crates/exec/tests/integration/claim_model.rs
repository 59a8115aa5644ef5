//! Prepared claims through MIN/MAX subqueries (the shape of `bench priority`) against a
//! model. A kept plan answers each scalar MIN/MAX subquery from the row its index walk finds
//! (bound_select.rs, `walked_value`), and reads a row named by its whole key through the
//! index alone (access.rs, `read_by_keys`); each claim must take the row the model picks,
//! wherever that row is held: a sealed segment, a tail chunk, a row waiting as values, or a
//! new version made from a sealed row by an UPDATE. The MIN/MAX columns are not the table's
//! first (an INTEGER, a DECIMAL and a DATE), the tag is NOT CASESPECIFIC and given in other
//! cases and with trailing blanks, and claims are committed or rolled back in batches.
//!
//! `TDLITE_CLAIM_CASES` runs more cases, `TDLITE_CLAIM_SEED` replays one.

use crate::common::{model_cases, Rng};
use tdlite::{Database, Session, StatementResult, Value};

const CREATE: &str = "CREATE MULTISET TABLE q (tag VARCHAR(3) NOT NULL, claimed VARCHAR(3), \
    pri DECIMAL(4,1) NOT NULL, due DATE NOT NULL, seq INTEGER NOT NULL, note VARCHAR(40)) \
    UNIQUE PRIMARY INDEX (seq)";

/// Takes the oldest row (lowest `seq`) of the highest priority among a tag's unclaimed rows.
const CLAIM: &str = "UPD q SET claimed = 'x' WHERE seq = (SEL MIN(seq) FROM q WHERE tag = ? \
    AND claimed IS NULL AND pri = (SEL MAX(pri) FROM q WHERE tag = ? AND claimed IS NULL))";

/// The unclaimed rows due first.
const EARLIEST: &str = "SEL seq FROM q WHERE claimed IS NULL \
    AND due = (SEL MIN(due) FROM q WHERE claimed IS NULL)";

const RELEASE: &str = "UPD q SET claimed = NULL WHERE seq = ?";

/// One row of the model: tag (0 or 1), claimed, priority in tenths, due (days), seq.
#[derive(Clone)]
struct Row {
    tag: usize,
    claimed: bool,
    pri: i64,
    due: i64,
    seq: i64,
}

fn new_row(rng: &mut Rng, seq: i64) -> Row {
    Row {
        tag: rng.below(2) as usize,
        claimed: false,
        pri: 5 * rng.below(6) as i64,
        due: 18_000 + rng.below(40) as i64,
        seq,
    }
}

fn insert(s: &mut Session, r: &Row) {
    s.execute(&format!(
        "INS q ('{}', NULL, {}.{}, DATE '1970-01-01' + {}, {}, 'note {}')",
        ["a", "b"][r.tag],
        r.pri / 10,
        r.pri % 10,
        r.due,
        r.seq,
        r.seq
    ))
    .unwrap();
}

/// The integers of a result's first column, sorted.
fn sorted_seqs(r: &StatementResult) -> Vec<i64> {
    let mut v: Vec<i64> = (r.rows.as_ref().unwrap().to_strings().iter())
        .map(|r| r[0].parse().unwrap())
        .collect();
    v.sort_unstable();
    v
}

/// The seq the model's claim for `tag` takes.
fn model_claim(rows: &[Row], tag: usize) -> Option<i64> {
    let open = || rows.iter().filter(|r| r.tag == tag && !r.claimed);
    let top = open().map(|r| r.pri).max()?;
    open().filter(|r| r.pri == top).map(|r| r.seq).min()
}

fn run_case(seed: u64) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let db = Database::new();
    let mut s = db.session();
    s.execute(CREATE).unwrap();
    s.execute("CREATE INDEX (tag, claimed, pri, seq) ON q")
        .unwrap();
    s.execute("CREATE INDEX (claimed, due) ON q").unwrap();
    // more rows than a segment holds, inserted in a random order of seq
    let n = 4_096 + rng.below(3_000) as i64;
    let mut order: Vec<i64> = (0..n).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut rows: Vec<Row> = order.iter().map(|&k| new_row(&mut rng, k)).collect();
    for r in &rows {
        insert(&mut s, r);
    }
    let claim = s.prepare(CLAIM).unwrap();
    let earliest = s.prepare(EARLIEST).unwrap();
    let release = s.prepare(RELEASE).unwrap();
    let mut saved: Option<Vec<Row>> = None;
    let mut next = n;
    for step in 0..400 {
        if step % 50 == 0 {
            if let Some(before) = saved.take() {
                if rng.below(3) == 0 {
                    let _ = s.execute("ROLLBACK"); // 3514 by design in Teradata mode
                    rows = before;
                } else {
                    s.execute("ET").unwrap();
                }
            }
            s.execute("BT").unwrap();
            saved = Some(rows.clone());
        }
        let at = format!("seed {seed}, step {step}");
        match rng.below(20) {
            0..=13 => {
                let tag = rng.below(2) as usize;
                // the tag as written: NOT CASESPECIFIC, trailing blanks ignored
                let text = [["a", "A", "a  "], ["b", "B", "B "]][tag][rng.below(3) as usize];
                let p = Value::Str(text.into());
                let r = s.execute_prepared(&claim, &[p.clone(), p]).unwrap();
                let want = model_claim(&rows, tag);
                assert_eq!(r[0].activity_count, u64::from(want.is_some()), "{at}");
                if let Some(k) = want {
                    let got = s
                        .execute(&format!("SEL claimed FROM q WHERE seq = {k}"))
                        .unwrap();
                    let got = got[0].rows.as_ref().unwrap().to_strings();
                    assert_eq!(got, [["x"]], "{at}: seq {k} not claimed");
                    rows.iter_mut().find(|r| r.seq == k).unwrap().claimed = true;
                }
            }
            14..=15 => {
                let got = sorted_seqs(&s.execute_prepared(&earliest, &[]).unwrap()[0]);
                let open = || rows.iter().filter(|r| !r.claimed);
                let first = open().map(|r| r.due).min();
                let mut want: Vec<i64> = open()
                    .filter(|r| Some(r.due) == first)
                    .map(|r| r.seq)
                    .collect();
                want.sort_unstable();
                assert_eq!(got, want, "{at}");
            }
            16..=17 => {
                // a claimed row released: a newer version of it, claimable again
                let claimed: Vec<i64> = rows.iter().filter(|r| r.claimed).map(|r| r.seq).collect();
                if let Some(&k) = claimed.get(rng.below(claimed.len() as u64 + 1) as usize) {
                    let r = s.execute_prepared(&release, &[Value::Int(k)]).unwrap();
                    assert_eq!(r[0].activity_count, 1, "{at}: release of {k}");
                    rows.iter_mut().find(|r| r.seq == k).unwrap().claimed = false;
                }
            }
            _ => {
                let r = new_row(&mut rng, next);
                next += 1;
                insert(&mut s, &r);
                rows.push(r);
            }
        }
    }
    // every claimed row, as the model has them
    let got = sorted_seqs(&s.execute("SEL seq FROM q WHERE claimed = 'x'").unwrap()[0]);
    let mut want: Vec<i64> = rows.iter().filter(|r| r.claimed).map(|r| r.seq).collect();
    want.sort_unstable();
    assert_eq!(got, want, "seed {seed}: the claimed rows");
    // the kept plans served (the claims were not bound afresh each time)
    assert!(claim.plan_cache_hits() > 0, "seed {seed}");
}

#[test]
fn prepared_claims_take_the_rows_a_model_picks() {
    model_cases("CLAIM", 3, run_case);
}

#[test]
fn a_claim_of_an_empty_tag_takes_nothing_and_the_next_row_is_found_again() {
    let db = Database::new();
    let mut s = db.session();
    s.execute(CREATE).unwrap();
    s.execute("CREATE INDEX (tag, claimed, pri, seq) ON q")
        .unwrap();
    let claim = s.prepare(CLAIM).unwrap();
    let a = Value::Str("a".into());
    for _ in 0..3 {
        // no row at all: both subqueries are NULL, and so is the claim's key
        let r = s.execute_prepared(&claim, &[a.clone(), a.clone()]).unwrap();
        assert_eq!(r[0].activity_count, 0);
    }
    s.execute("INS q ('a', NULL, 1.5, DATE '2020-01-01', 7, NULL)")
        .unwrap();
    s.execute("INS q ('a', NULL, 1.5, DATE '2020-01-01', 3, NULL)")
        .unwrap();
    for want in [1, 1, 0] {
        let r = s.execute_prepared(&claim, &[a.clone(), a.clone()]).unwrap();
        assert_eq!(r[0].activity_count, want);
    }
    let r = s
        .execute("SEL seq FROM q WHERE claimed = 'x' ORDER BY seq")
        .unwrap();
    assert_eq!(r[0].rows.as_ref().unwrap().to_strings(), [["3"], ["7"]]);
    assert!(claim.plan_cache_hits() > 0);
}
