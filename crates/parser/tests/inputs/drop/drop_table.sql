DROP TABLE t;

DROP TABLE db.t;

drop table q;

-- DROP is DDL: last in the request, or followed only by ET.
BT; DROP TABLE t; ET;

-- global temporary tables: this session's instance, or the definition and its instances
DROP TEMPORARY TABLE tt;

DROP TABLE db.tt ALL;
