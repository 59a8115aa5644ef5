;

-- only a comment
;

/* only a block comment */ ;

;;
