CREATE DATABASE sales FROM dbc AS PERM = 1000000, SPOOL = 500000;

CREATE USER etl FROM dbc AS PERM = 0, PASSWORD = secret, DEFAULT DATABASE = sales;

MODIFY DATABASE sales AS PERM = 2e9;

DROP DATABASE sales;

DROP USER etl;

DELETE DATABASE sales ALL;

DEL USER etl;

GRANT SELECT, INSERT ON sales.orders TO etl, bi WITH GRANT OPTION;

GRANT ALL ON sales TO etl;

GRANT analyst TO etl;

REVOKE GRANT OPTION FOR SELECT ON sales.orders FROM bi;

COMMENT ON TABLE sales.orders IS 'one row per order';

COMMENT ON COLUMN sales.orders.amount AS 'in cents';

COMMENT ON sales.orders 'bare form';

RENAME TABLE sales.orders TO sales.orders_old;

RENAME VIEW v AS w;

DROP DATABASE sales ALL;

GRANT ON t TO u;

COMMENT ON TABLE t IS;
