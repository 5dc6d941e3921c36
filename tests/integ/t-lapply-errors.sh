#!/bin/sh
# t-lapply-errors: malformed applicable transcripts are rejected with a
# message naming the line, before anything is changed (exit 2): bad sort
# order, duplicates, "+" before any header, malformed lines, CR/LF line
# ends, a truncated last line; and a server that cannot be reached.  What
# every transcript reader checks (framing, syntax, order) is worded as
# every reader words it, naming file and line.
. "$top_srcdir/tests/integ/lib.sh"
need_tool lapply
mk_tmpdir
. "$top_srcdir/tests/integ/lapply-lib.sh"

# bad TRANSCRIPT-TEXT EXPECTED-STDERR (TEXT goes through printf %b): exit 2, the root untouched.
bad()
{
	printf '%b' "$1" > "$T/e.T"
	apply "$T/e.T"
	expect_rc 2
	expect_out "No network connection"
	expect_err "$2"
	[ -z "$(ls -A "$R")" ] || fail "root changed: $(ls -A "$R")"
}

bad "d ./a	0755 $U $G
d ./c	0755 $U $G
d ./b	0755 $U $G
" "$T/e.T: line 3: bad sort order"
# pathcmp order, not strcmp: ./etc-x sorts after ./etc/passwd.
bad "d ./etc	0755 $U $G
d ./etc-x	0755 $U $G
f ./etc/passwd	0644 $U $G 0 0 -
" "$T/e.T: line 3: bad sort order"
bad "d ./a	0755 $U $G
- d ./a	0755 $U $G
" "$T/e.T: line 2: bad sort order"
bad "d ./a	0755 $U $G
+ f ./a/x	0644 0 0 1 1 -
base.T:
" "line 2: no transcript indicated"
bad "d ./a	0755 $U $G
d ./a/b	0755
" "$T/e.T: line 2: expected 5 or 6 arguments, got 3"
bad "d ./a	0755 $U $G
ff ./b	0644 0 0 0 0 -
" "$T/e.T: line 2: ff is too long to be a type"
bad "d ./a	0755 $U $G
x ./b	0644 0 0
" "$T/e.T: line 2: unknown file type 'x'"
bad "d ./a	0755 $U $G
f ./b	0644 0 0 0 -1 -
" "$T/e.T: line 2: bad size -1"
bad "d ./a	0755 $U $G
bogus
" "$T/e.T: line 2: minimum 3 arguments, got 1"
bad "d ./a	0755 $U $G\\r
d ./b	0755 $U $G
" "$T/e.T: line 1: carriage return in line"
bad "d ./a	0755 $U $G
d ./b	0755 $U $G" "$T/e.T: line 2: incomplete last line (no newline)"
bad "a ./mac	0644 $U $G 0 0 -
" "line 1: ./mac: applefiles are not supported on this system"

# The vector case, byte for byte.
printf '+ f ./x 0644 0 0 1 1 -\n' > "$T/e.T"
apply "$T/e.T"
expect_rc 2
expect_out "No network connection"
expect_err "line 1: no transcript indicated"

# Without -n lapply needs the server: no connection, no change (exit 2).
printf 'd ./a\t0755 0 0\n' > "$T/e.T"
run_capture "$T/out" "$T/err" in_dir "$R" "$LAPPLY" -h 127.0.0.1 -p 1 "$T/e.T"
expect_rc 2
[ -s "$T/err" ] || fail "no message for a failed connection"
[ -z "$(ls -A "$R")" ] || fail "root changed without a connection"
exit 0
