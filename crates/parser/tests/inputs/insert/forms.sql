INSERT INTO t VALUES (1, 'a');

INSERT INTO t (a, b) VALUES (1, 'a');

INSERT t VALUES (1, 'a');

INS t VALUES (1, 'a');

INS INTO t (a) VALUES (NULL);

INSERT INTO t VALUES (1, 'a'), (2, 'b');

INSERT INTO db.t (a, b) VALUES (-1, CURRENT_TIMESTAMP);
