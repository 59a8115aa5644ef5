.REMARK 'TIME(n) and TIMESTAMP(n) values show n fractional digits, as their type declares (through derived tables, views, unions and CASTs)'
CREATE TABLE loads (id INTEGER, t0 TIME(0), ts0 TIMESTAMP(0), ts2 TIMESTAMP(2), ts6 TIMESTAMP(6));
INS loads (1, TIME '10:11:12', TIMESTAMP '2020-01-02 03:04:05', TIMESTAMP '2020-01-02 03:04:05.25', TIMESTAMP '2020-01-02 03:04:05');
INS loads (2, NULL, NULL, NULL, NULL);
SEL id, t0, ts0, ts2, ts6, CAST(ts6 AS TIMESTAMP(3)) AS ts3 FROM loads ORDER BY id;
CREATE VIEW loads_v AS SEL id, ts0 FROM loads;
SEL v.ts0, d.ts2 FROM loads_v v JOIN (SEL id, ts2 FROM loads) d ON d.id = v.id WHERE v.id = 1 UNION ALL SEL ts0, ts2 FROM loads WHERE id = 2;
