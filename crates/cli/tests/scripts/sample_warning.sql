* SAMPLE counts beyond the rows: all of them, with Teradata's warning 7473 after the status.
CREATE TABLE dept (n INTEGER);
INS dept (100); INS dept (201); INS dept (301);
SEL n FROM dept SAMPLE 20 ORDER BY n;
SEL n, SAMPLEID FROM dept SAMPLE 3, 2 ORDER BY n;
* no warning when the rows suffice
SEL COUNT(*) FROM (SEL n FROM dept SAMPLE 2) d;
