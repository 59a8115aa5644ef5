-- An aggregate's default title names it in words, its argument as written (SQL Functions,
-- Expressions, and Predicates, each aggregate's "Result Type and Attributes": Title
-- Count(x), Sum(x), Average(x), Minimum(x), Maximum(x)); an alias or TITLE replaces it.
CREATE TABLE sales (region VARCHAR(10), amount INTEGER);
INSERT INTO sales VALUES ('North', 10);
INSERT INTO sales VALUES ('North', 20);
SEL count(*), COUNT(DISTINCT region), SUM(amount), AVG(amount), MIN(amount), MAX(amount) FROM sales;
SEL COUNT(*) AS n, MAX(amount) (TITLE 'Top') FROM sales;
