-- .SET SESSION TRANSACTION while a .LOGON's session is open keeps the mode with BTEQ's warning;
-- logged off (or in the session tdlite starts with, before any .LOGON) it takes effect.
.LOGON x/y,z
.SET SESSION TRANSACTION ANSI
COMMIT;
.LOGOFF
.SET SESSION TRANSACTION ANSI
.LOGON x/y,z
COMMIT;
