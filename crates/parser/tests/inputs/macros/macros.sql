CREATE MACRO add_order (id INTEGER, note VARCHAR(20) DEFAULT 'none') AS (
  INS orders (:id, :note);
  SEL COUNT(*) FROM orders;
);

REPLACE MACRO totals AS (SEL SUM(amount) FROM orders;);

EXEC add_order (1, 'first');

EXECUTE add_order (note = 'named', id = 2);

EXEC totals;

DROP MACRO totals;

SHOW MACRO add_order;

CREATE MACRO broken AS SEL 1;

CREATE MACRO broken (x) AS (SEL :x;);
