.set session transaction ansi
CREATE TABLE t (n INTEGER NOT NULL PRIMARY KEY);
COMMIT;
INS t (1);
INS t (1);
SEL n FROM t;
BT;
COMMIT WORK;
.set session transaction btet
INS t (2);
SEL COUNT(*) AS c FROM t;
