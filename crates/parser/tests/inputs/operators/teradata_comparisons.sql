SEL * FROM t WHERE a EQ 1;

SEL * FROM t WHERE a NE 1;

SEL * FROM t WHERE a LT 1;

SEL * FROM t WHERE a LE 1;

SEL * FROM t WHERE a GT 1;

SEL * FROM t WHERE a GE 1;

SEL * FROM t WHERE a ^= 1;

SEL * FROM t WHERE a eq 1 and b ne 2 or c ge 3;

UPD t SET b = 0 WHERE a GT 10;

DEL t WHERE a LE 0;

-- The keywords are only operators when unqualified: t.eq is a column.
SEL t.eq FROM t WHERE t.eq EQ 1;
