* A report in the style of real BTEQ scripts: headings come from TITLE phrases, NAMED names
* a column for later use, FORMAT writes values, conversions change types. TITLE, NAMED,
* FORMAT and CASESPECIFIC phrases leave the heading as it was.
CREATE TABLE emp (id INTEGER, name VARCHAR(20) TITLE 'Employee', salary DECIMAL(10,2), hired DATE);
INS emp (1, 'Ann', 50000.00, DATE '2020-01-15');
INS emp (2, 'Bob', 1234.50, DATE '2024-06-01');
SEL id (TITLE 'No.'), name, salary (FORMAT '$$$,$$9.99') (TITLE 'Pay'), hired (FORMAT 'YYYY/MM/DD') FROM emp ORDER BY 1;
SEL name (NOT CASESPECIFIC), salary (INTEGER) (NAMED whole) FROM emp WHERE whole > 2000;
SEL id (NAMED emp_no, TITLE 'Employee Number'), hired (FORMAT 'YYYYMMDD') (CHAR(8)) AS stamp FROM emp ORDER BY emp_no;
SEL COUNT(*) (TITLE 'Head count') FROM emp;
SEL salary (TITLE 'Pay') (FORMAT '$$$,$$9.99'), name (CS), name (TITLE 'Who') (NOT CS), id (TITLE 'N') (INTEGER) FROM emp WHERE id = 1;
SEL 'no' || ' heading' (TITLE ''), 1 + 2 (TITLE 'Three');
SEL id, CSUM(1, id), RANK(salary) FROM emp ORDER BY 1;
* A TITLE's // breaks the heading into lines; every heading's last line sits on the dashes.
CREATE TABLE titled (c CHAR(5) TITLE 'Code//Name', n INTEGER TITLE 'Big//Long//Number', x INTEGER);
INS titled ('ab', 1, 2);
SEL * FROM titled;
SEL c (TITLE 'A//B'), x FROM titled;
* A column's FORMAT is how its values are shown (and how text is read into a DATE); the
* values themselves do not change: sorting and comparing use them.
CREATE TABLE fmt (d DATE FORMAT 'YYYY/MM/DD', n DECIMAL(9,2) FORMAT 'ZZZ,ZZ9.99', i INTEGER FORMAT '9(5)');
INS fmt ('2020/01/02', 1234.5, 42);
INS fmt (DATE '2021-03-04', 7, 7);
SEL * FROM fmt ORDER BY n DESC;
SEL d, i + 1 FROM fmt WHERE i > 10;
* Only a TITLE breaks at //: an expression's heading stays on one line.
SEL 'http://x' AS url, 1 (TITLE 'a//b');
SEL d (FORMAT 'DD.MM.YYYY') AS shown, n (FORMAT '-(5)9'), i || '|' FROM fmt ORDER BY shown DESC;
SEL CAST(CAST(n AS FORMAT 'Z(4)9') AS CHAR(5)) || '|', n (FORMAT 'Z(4)9') (CHAR(5)) || '|' FROM fmt ORDER BY 1;
SEL CAST(id AS INTEGER FORMAT '9(4)' TITLE 'Id4'), name (NAMED nm) (TITLE 'Who') (UPPERCASE) FROM emp WHERE nm = 'ANN';
* MAX and MIN show by their argument's FORMAT (MAX "Result Type and Attributes").
SEL MAX(d), MIN(n) FROM fmt;
