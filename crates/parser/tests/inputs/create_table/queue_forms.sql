-- QUEUE with and without table kind, precision omitted, CT abbreviation, db-qualified name.
CREATE TABLE q, QUEUE (qits TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, v INTEGER);

CREATE MULTISET TABLE sales.orders_q, QUEUE, NO FALLBACK (
  qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  order_id BIGINT NOT NULL,
  item VARCHAR(30)
) PRIMARY INDEX (order_id);

CT q2, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), msg VARCHAR(100));

ct lower_q, queue (qits timestamp(6) not null default current_timestamp(6), n int);

-- QITS WITH TIME ZONE is allowed by the grammar.
CREATE TABLE qz, QUEUE (qits TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER);
