-- The README tour, with explicit QITS values so the output is stable.
CREATE TABLE jobs, QUEUE (
  qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  job_id INTEGER NOT NULL,
  task VARCHAR(40) TITLE 'Task');
INS jobs (TIMESTAMP '2024-05-01 10:00:00', 1, 'resize image');
INS jobs (TIMESTAMP '2024-05-01 10:00:01', 2, 'send mail'); INS jobs (TIMESTAMP '2024-05-01 10:00:01', 3, 'tie, inserted later');
INS jobs (TIMESTAMP '2020-01-01 00:00:00', 0, 'urgent');
SEL * FROM jobs ORDER BY qits;
SELECT COUNT(*) AS depth, MIN(qits) AS oldest FROM jobs;
SELECT AND CONSUME TOP 1 * FROM jobs;
BT;
SELECT AND CONSUME TOP 1 job_id FROM jobs;
ABORT;
SELECT AND CONSUME TOP 1 job_id, task FROM jobs;
UPD jobs SET qits = qits - INTERVAL '1' DAY WHERE job_id = 3;
SELECT AND CONSUME TOP 1 job_id FROM jobs;
DEL jobs ALL;
HELP TABLE jobs;
SHOW TABLE jobs;
.tables
DROP TABLE jobs;
