#!/bin/sh
# ktcheck + cairnd on the wire, compared line by line (terminators
# included) with the sessions recorded between Radmind's ktcheck and
# Radmind's daemon (vectors/wire/ktcheck.txt, and the ktcheck session of
# vectors/wire/zlib.txt, inflated lines included), through a recording
# proxy.  Only the banner's host name and version differ.  Skipped when
# the vectors are not available ($CAIRN_VECTORS).
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
V=${CAIRN_VECTORS:-$top_srcdir/tests/vectors}
[ -f "$V/wire/ktcheck.txt" ] || skip "no wire vectors (set CAIRN_VECTORS)"
make_repo "$T/repo"

# record NCONN KTCHECK-ARGS...: run ktcheck NCONN times through the proxy.
record()
{
	_n=$1
	shift
	rm -f "$T/wire.log"
	start_proxy "$T/wire.log.ready" recproxy.py "$T/wire.log" "$_n"
	rm -rf "$T/client"
	mkdir "$T/client"
	: >"$T/client/command.K"
	touch -d "@$T0" "$T/client/command.K"
	while [ "$_n" -gt 0 ]; do
		"$KTCHECK" -K "$T/client/command.K" -h 127.0.0.1 -p "$PPORT" \
		    "$@" >>"$T/kt.out" 2>&1
		_n=$((_n - 1))
	done
	wait "$PROXY" || fail "proxy failed"
}

# expect FILE CONNECTIONS: the recorded C:/S:/CZ:/SZ: lines of the first
# CONNECTIONS sessions, with our banner.
expect()
{
	awk -v n="$2" -v host="$HOST" -v ver="$VERSION" '
	    /^=== connection/ { if (++c > n) exit; print; next }
	    /^(C|S|CZ|SZ): / {
		if (c == 0) next
		sub(/^S: 200-RAP 1 [^ ]* [^ ]* /,
		    "S: 200-RAP 1 " host " " ver " ")
		print
	    }' "$1"
}

start_cairnd "$T/repo"
record 2
expect "$V/wire/ktcheck.txt" 2 >"$T/exp"
assert_file_eq "$T/exp" "$T/wire.log" "ktcheck session"
stop_cairnd

start_cairnd "$T/repo" -Z 9 -A fixed
record 1 -Z 6
expect "$V/wire/zlib.txt" 1 >"$T/exp"
assert_file_eq "$T/exp" "$T/wire.log" "ktcheck -Z 6 session"
exit 0
