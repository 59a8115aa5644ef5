INSERT INTO t VALUES (1, 'a');
INSERT t VALUES (1, 'a');
INS t VALUES (1, 'a');
INS INTO db.t VALUES (1, 'a');
INSERT INTO t SELECT MAX(a) FROM u;
INS db.t (1, 'a');
