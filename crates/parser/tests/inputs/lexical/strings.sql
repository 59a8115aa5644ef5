SEL 'a;b' FROM t;

INS t (1, 'semi;colon');

SEL 'it''s' FROM t;

SEL 'line one;
line two' FROM t;

SEL "quoted;name" FROM t;

SEL "Mixed Case" FROM "My Table";

SEL '' FROM t;
