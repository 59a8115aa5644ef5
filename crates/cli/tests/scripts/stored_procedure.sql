-- a stored procedure made and called from a BTEQ script: its ;s inside BEGIN … END stay in
-- the one request; CALL shows the OUT parameters as a row
CREATE MULTISET TABLE load_log (step VARCHAR(20), n INTEGER);
CREATE PROCEDURE load_step (IN step VARCHAR(20), OUT done INTEGER)
BEGIN
  DECLARE k INTEGER DEFAULT 0;
  WHILE k < 3 DO
    SET k = k + 1;
    INSERT INTO load_log VALUES (:step, :k);
  END WHILE;
  SELECT COUNT(*) INTO :done FROM load_log WHERE step = :step;
END;
CALL load_step('extract', n);
.IF ERRORCODE <> 0 THEN .QUIT 8
SEL step, n FROM load_log ORDER BY n;
CALL load_step('x', 1, 2);
