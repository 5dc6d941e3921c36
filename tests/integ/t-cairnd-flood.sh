#!/bin/sh
# Endless requests on one connection (docs/security.md F5): a million
# requests (a tenth in a sanitizer build), NOOP and STAT COMMAND in turn,
# pipelined on one connection, are all answered and the session child's
# memory stays flat: once a tenth of the replies are in, it grows by no
# more than 256 KiB however many more follow.  How fast they are answered is not checked.  Other
# clients are served afterwards.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
# Sanitizer builds: no memory checks.
memcheck=1
N=500000
if ! memchecked; then
	# ... and answer about ten times slower: a tenth of the requests.
	memcheck=0
	N=50000
fi

start_cairnd "$T/repo"
# Both requests are answered with success on their own first.
rap "$PORT" 'NOOP\r\nSTAT COMMAND\r\nQUIT\r\n' >"$T/one" || fail "rap"
grep -q '^202 ' "$T/one" && grep -q '^230 ' "$T/one" ||
    fail "NOOP and STAT COMMAND: $(cat "$T/one")"

limpeer "$PORT" flood "$SPID" "$N" 'NOOP\r\nSTAT COMMAND\r\n' \
    >"$T/flood" || fail "limpeer flood"
cat "$T/flood"
# All went out (the server kept reading) and all were answered.
assert_eq "$N" "$(field sent "$T/flood")" "requests sent"
assert_eq "$N" "$(field code_202 "$T/flood")" "NOOPs answered"
# STAT: a "230" line and the line it returns (which starts with its
# type, not a code), every time.
assert_eq "$N" "$(field code_230 "$T/flood")" "STATs answered"
grep -q '^code_[45]' "$T/flood" && fail "error replies: $(cat "$T/flood")"
[ "$(field closed_s "$T/flood")" != open ] || fail "not closed after QUIT"
if [ "$memcheck" -eq 1 ]; then
	mem_flat "$T/flood" anon1_kb 256 "the session, over the requests,"
fi
noop_ok "after the flood"
stop_cairnd
exit 0
