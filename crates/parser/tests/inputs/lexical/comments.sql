-- A line comment before the request.
SELECT a -- trailing comment
FROM t; -- a comment after the terminating semicolon

/* A block
   comment; with a semicolon */
SELECT /* inline */ b FROM t;

SEL /* ; */ 1; -- the semicolon in the comment does not split
