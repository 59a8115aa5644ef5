.REMARK 'settings are commands of their own: .WIDTH 30 is .SET WIDTH 30'
.WIDTH 30
.TITLEDASHES OFF
.NULL 'none'
.TDP mysystem
.PACK 10
.HANG 0
SEL CAST(NULL AS INTEGER) AS n, 'a long text that is cut at thirty characters' AS t;
.ERRORLEVEL 3807 SEVERITY 2
.SHOW ERRORMAP
SEL * FROM nowhere;
.NOSUCH 1
