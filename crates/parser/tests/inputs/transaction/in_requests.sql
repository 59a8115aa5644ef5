BT; INS t (1); INS t (2); ET;

BT;
INS q (CURRENT_TIMESTAMP, 1);
ROLLBACK;

-- A DDL statement may be followed by ET in the same request.
BT; CREATE TABLE t (a INTEGER); ET;

CREATE TABLE t (a INTEGER); COMMIT;
