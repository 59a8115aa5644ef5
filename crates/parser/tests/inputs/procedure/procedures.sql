-- the ;s inside BEGIN … END (and after END IF, END WHILE, END CASE) do not end the request
CREATE PROCEDURE p1 (IN a INTEGER, OUT b VARCHAR(10), INOUT c DECIMAL(5,2))
BEGIN
  DECLARE i, j INTEGER DEFAULT 0;
  SET b = CASE WHEN a > 0 THEN 'pos' ELSE 'neg' END;
  lbl: WHILE i < a DO
    SET i = i + 1;
    IF i = 2 THEN ITERATE lbl; ELSEIF i > 5 THEN LEAVE lbl; END IF;
  END WHILE lbl;
  SELECT COUNT(*) INTO :j FROM t WHERE k = :a;
  FOR r AS cur CURSOR FOR SEL k FROM t DO
    INSERT INTO u VALUES (r.k);
  END FOR;
  CALL other(:a, b);
END;

REPLACE PROCEDURE p2 () SQL SECURITY INVOKER
outer_block: BEGIN
  REPEAT DELETE FROM t WHERE k = 1; UNTIL ACTIVITY_COUNT = 0 END REPEAT;
END outer_block;

CALL p1(1 + 2, x, 3.5);

CALL p2();

DROP PROCEDURE p1;

SHOW PROCEDURE db.p2;

-- an END; before an IF is no END IF
CREATE PROCEDURE p3 ()
BEGIN
  BEGIN
    SET x = 1;
  END;
  IF 1 = 1 THEN SET x = 2; END IF;
END;

SEL 'after p3';
