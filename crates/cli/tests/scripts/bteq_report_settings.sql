CREATE TABLE people (id INTEGER, name VARCHAR(40), city VARCHAR(20));
INS people (1, 'Ada Lovelace', 'London');
INS people (2, 'Grace Brewster Murray Hopper', NULL);
.SET SIDETITLES ON
SEL id, name, city FROM people ORDER BY id;
.SET SIDETITLES OFF
.SET WIDTH 24
SEL id, name, city FROM people ORDER BY id;
.SET FOLDLINE ON
SEL id, name, city FROM people ORDER BY id;
.SET FOLDLINE ON 1
SEL id, name, city FROM people ORDER BY id;
.SET FOLDLINE OFF
.SET WIDTH 254
.SET NULL AS 'unknown'
.SET SEPARATOR ' | '
SEL id, city FROM people ORDER BY id;
.SHOW CONTROLS
.IF ERRORCODE = 0 THEN .SET ECHOREQ OFF
SEL 'this request is not echoed' AS e;
.SET ECHOREQ ERRORONLY
.REMARK 'commands are echoed, requests only when they fail (to standard error)'
SEL 'a request that succeeds is not echoed' AS e;
SEL nothing FROM nowhere;
DIAGNOSTIC HELPSTATS ON FOR SESSION;
