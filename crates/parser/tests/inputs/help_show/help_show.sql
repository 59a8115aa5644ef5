HELP TABLE t;

HELP TABLE db.t;

SHOW TABLE q;

show table db.q;
