-- A tour of tdlite queue tables. Run: cargo run -p tdlite-cli -- -f examples/demo.sql
CREATE TABLE shopping_cart, QUEUE (
  qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  cart_id INTEGER NOT NULL,
  item VARCHAR(30) NOT NULL,
  qty INTEGER DEFAULT 1
) PRIMARY INDEX (cart_id);

-- Producers insert; QITS defaults to the request's CURRENT_TIMESTAMP.
INSERT INTO shopping_cart (cart_id, item, qty) VALUES (100, 'apples', 3);
INSERT INTO shopping_cart (cart_id, item) VALUES (101, 'pears');
-- An explicit QITS puts a row anywhere in the queue: this one goes to the front.
INS shopping_cart (TIMESTAMP '2020-01-01 00:00:00', 99, 'urgent plums', 1);

-- Browse: a plain SELECT never consumes and never waits.
SEL cart_id, item, qty FROM shopping_cart ORDER BY qits;
SELECT COUNT(*) AS depth FROM shopping_cart;

-- Consume: pops the oldest row (the urgent plums).
SELECT AND CONSUME TOP 1 cart_id, item FROM shopping_cart;

-- Inside a transaction, a rollback puts the row back with its original QITS.
BT;
SELECT AND CONSUME TOP 1 cart_id, item FROM shopping_cart;
ABORT;
SEL cart_id, item FROM shopping_cart ORDER BY qits;

-- Move a row between queues atomically.
CREATE TABLE done_q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), cart_id INTEGER, item VARCHAR(30), qty INTEGER);
INSERT INTO done_q SELECT AND CONSUME TOP 1 * FROM shopping_cart;
SEL cart_id, item FROM done_q;

-- A tdlite extension (docs/queues.md): take the oldest row that matches, skipping others;
-- NOWAIT returns no row at once instead of waiting for one that matches.
SELECT AND CONSUME TOP 1 cart_id, item FROM shopping_cart WHERE cart_id = 101 NOWAIT;
SELECT AND CONSUME TOP 1 cart_id, item FROM shopping_cart WHERE cart_id = 101 NOWAIT;

-- Another: a lease takes rows for a while without holding a transaction open; acknowledge
-- them when done (or RELEASE them, or let the lease run out, and they come back).
INS shopping_cart (CURRENT_TIMESTAMP, 102, 'figs', 2);
SELECT AND CONSUME TOP 1 cart_id, item FROM shopping_cart LEASE 30 SECONDS;
ACKNOWLEDGE shopping_cart LEASE 1;

-- Mistakes get Teradata error numbers.
SELECT AND CONSUME TOP 1 * FROM shopping_cart ORDER BY qits;
SEL * FROM no_such_table;
