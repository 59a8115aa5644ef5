.REMARK 'FORMAT ON: pages with a heading and a footing, repeated values suppressed (but not on the first row of a page), a blank line when the region changes'
CREATE TABLE sales (region VARCHAR(10), product VARCHAR(10), amount INTEGER);
INS sales ('East', 'apples', 10);
INS sales ('East', 'pears', 20);
INS sales ('North', 'apples', 30);
INS sales ('North', 'plums', 40);
INS sales ('North', 'pears', 35);
INS sales ('West', 'pears', 50);
.SET FORMAT ON
.SET HEADING 'Sales by region||page &PAGE'
.SET FOOTING 'confidential'
.SET PAGELENGTH 11
.SET SUPPRESS ON 1
.SET SKIPLINE ON 1
SEL region, product, amount FROM sales ORDER BY region, product;
.REMARK 'PAGEBREAK: each region on its own page; no heading; FORMCHAR starts each new page with a form feed'
.SET HEADING
.SET FOOTING
.SET SKIPLINE OFF
.SET SUPPRESS OFF
.SET PAGEBREAK ON 1
.SET FORMCHAR ON
SEL region, SUM(amount) AS total FROM sales GROUP BY region ORDER BY region;
.SHOW CONTROLS
.REMARK 'FORMAT OFF: the same settings have no effect'
.SET FORMAT OFF
SEL region, SUM(amount) AS total FROM sales GROUP BY region ORDER BY region;
