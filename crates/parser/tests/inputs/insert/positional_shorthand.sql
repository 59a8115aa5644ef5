-- Positional value list without VALUES (and without INTO).
INS t (1, 'a');

INSERT t (1, 'a');

INSERT INTO inv (12);

INSERT shopping_cart(CURRENT_TIMESTAMP + INTERVAL '0.001' SECOND, 100);

INS db.t (1, NULL, 'x');

-- A single identifier in parentheses is still a value (a column reference), since nothing follows.
INS t (a);
