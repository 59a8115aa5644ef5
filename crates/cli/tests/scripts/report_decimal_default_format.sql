CREATE TABLE d (k INTEGER, a DECIMAL(5,2), b DECIMAL(5,0), c DECIMAL(4,4));
INS d (1, 0.5, 123, -0.25);
INS d (2, -12.5, NULL, 0);
SEL * FROM d ORDER BY k;
SEL a || '|' AS padded, CAST(a AS VARCHAR(10)) AS trimmed, a (FORMAT '9.99') AS own FROM d ORDER BY k;
-- a FLOAT by its default FORMAT, -9.99999999999999E-999 (pads trimmed)
CREATE TABLE f (k INTEGER, x FLOAT);
INS f (1, 1.5);
INS f (2, -0.000123);
INS f (3, 1e300);
INS f (4, NULL);
SEL k, x, x * 2 AS twice FROM f ORDER BY k;
