SEL 1;

-- The string never ends, so neither does the request; the tokenizer reports it.
SELECT 'abc FROM t;
