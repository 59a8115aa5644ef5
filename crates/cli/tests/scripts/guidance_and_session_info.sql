SEL * FROM;
CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER);
SELECT AND CONSUME TOP 1 * FROM q; SELECT AND CONSUME TOP 1 * FROM q;
SEL DATABASE, USER, SESSION;
DATABASE nowhere;
HELP DATABASE tdlite;
SEL n
-- a comment line, then a dot command inside the unfinished request: still a command
.timeout 1
FROM q;
BT;
INS q (CURRENT_TIMESTAMP, 1);
.quit
