* BTEQ comment lines start with an asterisk
-- an SQL comment line right before a dot command: the command still runs
.SET MAXERROR 4
CREATE TABLE t (a INTEGER);
CREATE TABLE t (a INTEGER);
.IF ERRORLEVEL = 4 THEN .REMARK 'a warning (3803, severity 4) is not above MAXERROR 4'
SEL * FROM nowhere;
SEL 'not reached: 3807 has severity 8, above MAXERROR';
