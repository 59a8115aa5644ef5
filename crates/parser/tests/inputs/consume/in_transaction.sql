-- One consume per request, but several in one BT/ET transaction across requests.
BT;
SELECT AND CONSUME TOP 1 * FROM q;
SELECT AND CONSUME TOP 1 * FROM q;
ET;

-- A consume together with other DML in one request.
INS log (1); SELECT AND CONSUME TOP 1 * FROM q;

BT; SELECT AND CONSUME TOP 1 * FROM q; ET;
