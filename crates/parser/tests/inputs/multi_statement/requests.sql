-- One line, several statements: one request.
INS q (1); INS q (2);

INSERT INTO TestDB.TA (Name) VALUES ('NameA') ; SELECT * FROM TestDB.TA;

-- A request ends only at a `;` that ends a line.
SEL 1; SEL
2;

-- Trailing empty statements are ignored.
SEL 1;;

UPD t SET a = 1; DEL u ALL; SEL COUNT(*) FROM t;
