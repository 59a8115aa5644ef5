.LOGON me,pw
.RUN FILE = bteq_setup.inc
SEL COUNT(*) AS n FROM sales.orders;
.EXIT ERRORLEVEL
