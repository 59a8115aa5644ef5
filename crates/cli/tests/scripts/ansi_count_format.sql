-- ANSI mode: COUNT is a DECIMAL(15,0) shown by FORMAT '-(15)9' (COUNT "Result Type and
-- Attributes"), so without the point a DECIMAL(15,0)'s default FORMAT would give
.SET SESSION TRANSACTION ANSI
.LOGON u,p
CREATE TABLE t (a INTEGER, d DECIMAL(15,0));
COMMIT;
INSERT INTO t VALUES (1, 7);
INSERT INTO t VALUES (2, 8);
SEL COUNT(*), COUNT(a) AS n, MAX(d) FROM t;
SEL a, COUNT(*) OVER () AS c FROM t ORDER BY 1;
COMMIT;
