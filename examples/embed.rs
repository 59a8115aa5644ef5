//! Embedding tdlite in-process: one producer thread and one consumer thread on one queue table.
//! The consumer starts first and blocks on the empty queue (the delayed state) until the
//! producer commits rows.
//!
//! Run: `cargo run -p tdlite --example embed`

use std::thread;
use tdlite::arrow::array::AsArray;
use tdlite::arrow::datatypes::Int32Type;
use tdlite::Database;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let db = Database::new();
    let mut setup = db.session();
    setup.execute(
        "CREATE TABLE orders_q, QUEUE (
           qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
           order_id INTEGER NOT NULL,
           item VARCHAR(30))
         PRIMARY INDEX (order_id);",
    )?;

    let consumer_db = db.clone();
    let consumer = thread::spawn(move || -> Result<Vec<String>, tdlite::PositionedError> {
        let mut s = consumer_db.session();
        let mut seen = Vec::new();
        for _ in 0..3 {
            // Blocks while the queue is empty; woken by the producer's commit.
            let r = s.execute("SELECT AND CONSUME TOP 1 order_id, item FROM orders_q;")?;
            let rows = r[0].rows.as_ref().expect("a consume returns one row");
            // The row's columns, read from the Arrow batch with tdlite's re-exported arrow.
            let batch = &rows.batches[0];
            let id = batch.column(0).as_primitive::<Int32Type>().value(0);
            let item = batch.column(1).as_string::<i32>().value(0);
            seen.push(format!("order {id}: {item}"));
        }
        Ok(seen)
    });

    // Wait until the consumer is really waiting, to show the delayed state.
    while db.waiting_consumers("orders_q") == 0 {
        thread::sleep(std::time::Duration::from_millis(1));
    }
    println!("consumer is waiting on the empty queue");

    let mut producer = db.session();
    producer.execute("BT;")?;
    producer.execute("INSERT INTO orders_q (order_id, item) VALUES (1, 'apples');")?;
    producer.execute("INSERT INTO orders_q (order_id, item) VALUES (2, 'pears');")?;
    producer.execute("ET;")?; // the commit wakes the consumer
    producer.execute("INSERT INTO orders_q (order_id, item) VALUES (3, 'plums');")?;

    for (i, table) in consumer
        .join()
        .expect("consumer thread")?
        .into_iter()
        .enumerate()
    {
        println!("consumed #{}: {table}", i + 1);
    }
    let left = producer.execute("SELECT COUNT(*) FROM orders_q;")?;
    println!(
        "rows left: {}",
        left[0].rows.as_ref().expect("rows").to_strings()[0][0]
    );
    Ok(())
}
