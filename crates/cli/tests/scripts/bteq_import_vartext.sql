CREATE TABLE fruit (id INTEGER, name VARCHAR(20), amount DECIMAL(9,2));
.IMPORT VARTEXT FILE = bteq_import_rows.txt, SKIP = 1
.REPEAT 2
USING (id VARCHAR(10), name VARCHAR(20), amount VARCHAR(12))
INSERT INTO fruit VALUES (:id, :name, :amount);
.IF ACTIVITYCOUNT = 1 THEN .REMARK 'two records in, the import goes on'
.REPEAT *
USING (id VARCHAR(10), name VARCHAR(20), amount VARCHAR(12))
INSERT INTO fruit VALUES (:id, :name, :amount);
.IMPORT RESET
CREATE MACRO add_fruit (id INTEGER, name VARCHAR(20)) AS (INS fruit (:id, :name, NULL););
.IMPORT VARTEXT FILE = bteq_import_rows.txt, SKIP = 1
.REPEAT 1
USING (id VARCHAR(10), name VARCHAR(20), amount VARCHAR(12))
EXEC add_fruit (:id, :name || ' (by macro)');
.IMPORT RESET
SEL id, name, amount FROM fruit ORDER BY id;
USING (id VARCHAR(10)) SEL :id;
