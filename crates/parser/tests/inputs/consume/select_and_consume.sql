SELECT AND CONSUME TOP 1 * FROM shopping_cart;

SELECT AND CONSUME TOP 1 qits, order_id, item FROM sales.orders_q;

SEL AND CONSUME TOP 1 * FROM q;

select and consume top 1 * from foodmart.fruit;

-- Expressions and aliases in the select list are allowed.
SELECT AND CONSUME TOP 1 qits, v * 2 AS doubled, CURRENT_TIMESTAMP - qits AS age, UPPER(msg) FROM q;

SELECT AND CONSUME TOP 1 q.* FROM q;

SELECT
  AND CONSUME
  TOP 1 *
FROM q;
