UPDATE t SET a = 1;

UPDATE t SET a = a + 1, b = 'x' WHERE c = 2;

UPD t SET a = 1 WHERE b = 2;

UPD a SET b = 1;

UPDATE q SET qits = qits - INTERVAL '1' HOUR WHERE order_id = 7;

UPDATE db.t SET a = NULL;
