#!/bin/sh
# cairnd: banner (with and without ZLIB in CAPA), verb matching
# (abbreviations, case), QUIT NOOP HELP, empty line, unknown verbs,
# STARTTLS/LOGIN unavailable, every line terminator (CRLF, LF, CR, NUL).
# Reply lines are compared byte for byte.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"

start_cairnd "$T/repo"
rap "$PORT" 'NOOP\r\nnoop\nHELP\r\n\r\nNOO\nNOOPS\nNOOP x\nSTARTTLS\nLOGIN u p\nCAPA\nCOMP ZLIB 6\r\nNOOP\rNOOP\x00NOOP\r\rQUIT\r\nNOOP\r\n' >"$T/out" ||
    fail "rap"
# "\r\r" is an empty line too: count one more 501 before QUIT.
{
	banner
	printf '202 NOOP OK\r\n'
	printf '202 NOOP OK\r\n'
	printf '203 What is this, SMTP?\r\n'
	printf '501 Illegal null command\r\n'
	printf '500 Command NOO unrecognized\r\n'
	printf '500 Command NOOPS unrecognized\r\n'
	printf '501 Syntax error (no parameters allowed)\r\n'
	printf '500 Command STARTTLS unrecognized\r\n'
	printf '500 Command LOGIN unrecognized\r\n'
	printf '500 Command CAPA unrecognized\r\n'
	printf '501 Compression not enabled\r\n'
	printf '202 NOOP OK\r\n'
	printf '202 NOOP OK\r\n'
	printf '202 NOOP OK\r\n'
	printf '501 Illegal null command\r\n'
	printf '201 QUIT OK, closing connection\r\n'
} >"$T/exp"
assert_file_eq "$T/exp" "$T/out" "verbs"
stop_cairnd

# With -Z the banner lists ZLIB first.
start_cairnd "$T/repo" -Z 6 -A fixed
{
	banner ZLIB
	printf '201 QUIT OK, closing connection\r\n'
} >"$T/exp"
rap "$PORT" 'quit\r\n' >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "banner with ZLIB"

# Long abbreviations and full names are verbs; STAT/RETR accept any case.
{
	banner ZLIB
	printf '530 STAT Syntax error\r\n'
	printf '530 STAT Syntax error\r\n'
	printf '540 RETR Syntax error\r\n'
	printf '540 RETR Syntax error\r\n'
	printf '500 Command STA unrecognized\r\n'
	printf '500 Command STATUSX unrecognized\r\n'
	printf '501 Syntax error (invalid parameters)\r\n'
	printf '215 Report successful\r\n'
	printf '201 QUIT OK, closing connection\r\n'
} >"$T/exp"
rap "$PORT" 'STAT\nstatus bogus\nRETR\nretrieve x\nSTA\nSTATUSX\nREPO x\nREPORT test Hello\\bworld\r\nQUIT\r\n' >"$T/out" ||
    fail "rap"
assert_file_eq "$T/exp" "$T/out" "abbreviations"
grep -q 'report localhost 127.0.0.1 - - test Hello world\|report 127.0.0.1 127.0.0.1 - - test Hello world' "$SLOG" ||
    fail "REPO not logged: $(cat "$SLOG")"
exit 0
