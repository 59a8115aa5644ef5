-- Several modifiers before one statement.
LOCKING TABLE t FOR ACCESS LOCKING TABLE u FOR WRITE INSERT INTO u SELECT * FROM t;

LOCK t FOR ACCESS LOCK ROW FOR WRITE NOWAIT SEL * FROM t;

-- A modifier with no statement only locks the object.
LOCKING TABLE t FOR EXCLUSIVE;

LOCK t FOR WRITE NOWAIT;
