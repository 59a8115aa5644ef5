-- Headings show Teradata's operators as written: MOD and ** (the parser reads them as
-- % and ^, which a heading must not show).
SELECT 7 MOD 3, -7 MOD 3, 7 ** 2, SUM(7 MOD 2);
SELECT ROUND(10 MOD 4 * 1.5, 1) AS r;
