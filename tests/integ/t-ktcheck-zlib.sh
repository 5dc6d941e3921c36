#!/bin/sh
# ktcheck -Z against cairnd -Z: levels 0, 1, 6, 9, a client asking more
# than the server's maximum (clamped), a server without ZLIB (warning,
# uncompressed; with -Z auto level 0 without a word, said with -v);
# downloads are byte-identical and -v shows the protocol
# trace and the byte counts before/after compression.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
R=$T/repo
# A large, compressible transcript.
python3 -c 'for i in range(20000):
    print("f ./usr/share/doc/pkg%05d/README %37s\t0644     0     0 1700000000    1234 2jmj7l5rSw0yVb/vlWAYkK/YBwk=" % (i, ""))' \
    >"$R/transcript/test.T"
touch -d "@$T0" "$R/transcript/test.T"

# run SERVERMAX CLIENTLEVEL EXPECTED-LEVEL
run()
{
	start_cairnd "$R" -Z "$1"
	rm -rf "$T/c"
	mkdir "$T/c"
	run_capture "$T/out" "$T/err" "$KTCHECK" -v -Z "$2" \
	    -K "$T/c/command.K" -h 127.0.0.1 -p "$PORT"
	assert_eq 1 "$RC" "exit (server -Z $1, client -Z $2): $(cat "$T/err")"
	assert_file_eq "$R/transcript/test.T" "$T/c/test.T" "test.T (-Z $1/$2)"
	assert_file_eq "$R/command/test.K" "$T/c/command.K"
	if [ "$3" -gt 0 ]; then
		grep -qx ">>> COMP ZLIB $2" "$T/err" || fail "no COMP line"
		grep -qx "<<< 320 Ready to start ZLIB compression level $3" \
		    "$T/err" || fail "no 320 line for level $3"
		grep -qx "<<< 220 ZLIB compression level $3 enabled" \
		    "$T/err" || fail "no 220 line for level $3"
		grep -q "session end: zlib level $3, " "$SLOG" ||
		    fail "server log: $(cat "$SLOG")"
		# Compressed: far fewer bytes came over the wire.
		python3 - "$T/out" <<'PY' || fail "no compression gain: $(tail -n 1 "$T/out")"
import re, sys
m = re.search(r'bytes: received (\d+) \((\d+) on the wire\)', open(sys.argv[1]).read())
sys.exit(0 if m and int(m.group(2)) * 5 < int(m.group(1)) else 1)
PY
	else
		grep -q 'COMP' "$T/err" && fail "COMP sent at level 0"
	fi
	grep -q '^>>> STAT TRANSCRIPT test.T$' "$T/err" || fail "no trace"
	grep -q "^bytes: received [0-9]* ([0-9]* on the wire), sent [0-9]* ([0-9]* on the wire), zlib level $2, saved " "$T/out" ||
	    fail "no byte counts: $(cat "$T/out")"
	stop_cairnd
	: >"$SLOG"
}
run 9 0 0
run 9 1 1
run 9 6 6
run 9 9 9
run 4 9 4
run 1 9 1

# Server without compression: the client warns and goes on uncompressed.
start_cairnd "$R"
mkdir -p "$T/d"
run_capture "$T/out" "$T/err" "$KTCHECK" -Z 6 -K "$T/d/command.K" \
    -h 127.0.0.1 -p "$PORT"
assert_eq 1 "$RC" "no ZLIB exit"
grep -qx 'compression capability mismatch, compression disabled' "$T/err" ||
    fail "no mismatch warning: $(cat "$T/err")"
assert_file_eq "$R/transcript/test.T" "$T/d/test.T"

# -Z auto of such a server: level 0, quietly (a nightly run of cron
# mails what is printed); -v says so.
rm -rf "$T/d"
mkdir -p "$T/d"
run_capture "$T/out" "$T/err" "$KTCHECK" -Z auto -K "$T/d/command.K" \
    -h 127.0.0.1 -p "$PORT"
assert_eq 1 "$RC" "-Z auto, no ZLIB: exit ($(cat "$T/err"))"
[ -s "$T/err" ] && fail "-Z auto, no ZLIB: said $(cat "$T/err")"
assert_file_eq "$R/transcript/test.T" "$T/d/test.T" "-Z auto, no ZLIB"
rm -rf "$T/d"
mkdir -p "$T/d"
run_capture "$T/out" "$T/err" "$KTCHECK" -v -Z auto -K "$T/d/command.K" \
    -h 127.0.0.1 -p "$PORT"
assert_eq 1 "$RC" "-Z auto -v, no ZLIB: exit ($(cat "$T/err"))"
grep -qx '127.0.0.1 offers no compression: compression level 0' "$T/err" ||
    fail "-Z auto -v, no ZLIB: $(cat "$T/err")"
grep -q 'mismatch' "$T/err" && fail "-Z auto -v, no ZLIB: $(cat "$T/err")"
exit 0
