CREATE MULTISET TABLE t (a INTEGER);
INS t (1);
= 2
SEL COUNT(*) AS n FROM t;
.IF ACTIVITYCOUNT = 0
.REMARK 'not this branch'
.ELSEIF ERRORCODE <> 0
.REMARK 'nor this one'
.ELSE
.REMARK 'the ELSE branch runs'
.IF ERRORLEVEL = 0
.REMARK 'a nested block runs'
.ENDIF
.ENDIF
SEL * FROM missing;
.IF ERRORCODE = 3807
.REMARK 'missing table seen'
SEL 'inside the taken branch' AS note;
.ELSE
SEL 'skipped' AS note;
.ENDIF
.ENDIF
.IF (ERRORCODE = 0) AND (ACTIVITYCOUNT = 1) THEN .REMARK 'the compound test holds'
.IF NOT (ERRORLEVEL = 8) OR (ERRORCODE <> 0) THEN .REMARK 'never printed'
.IF (ERRORLEVEL >= 8) AND NOT (ERRORCODE <> 0) THEN .QUIT 9
.REMARK 'not reached: the .QUIT 9 ran'
