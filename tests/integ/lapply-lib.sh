# lapply-lib.sh: helpers sourced by tests/integ/t-lapply-*.sh.
#
# Each test gets a scratch directory $T (removed on exit) with the apply
# root $R = $T/root and a sentinel directory $OUT = $T/outside that no
# transcript may touch.  lapply runs with umask 022 inside $R.

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
LAPPLY=$top_builddir/client/lapply
if [ ! -x "$LAPPLY" ]; then
	echo "skip: $LAPPLY not built"
	exit 77
fi
case $LAPPLY in
/*) ;;
*) LAPPLY=$(pwd)/$LAPPLY ;;
esac

T=$(mktemp -d "${TMPDIR:-/tmp}/t-lapply.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
R=$T/root
OUT=$T/outside
mkdir "$R" "$OUT"
U=$(id -u)
G=$(id -g)
umask 022

fail() {
	echo "FAIL: $*" >&2
	for f in out err; do
		[ -f "$T/$f" ] && { echo "--- $f" >&2; cat "$T/$f" >&2; }
	done
	exit 1
}

need_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "skip: needs root"
		exit 77
	fi
}

# Plant the sentinel: $OUT/victim, mode 0600, known bytes and mtime.
plant() {
	printf 'sentinel bytes\n' > "$OUT/victim"
	chmod 0600 "$OUT/victim"
	touch -d @1500000000 "$OUT/victim"
	SENTINEL=$(stat -c '%i %h %a %u %g %Y %s' "$OUT/victim")
	OUTLIST=$(ls -lA --time-style=+%s "$OUT" | sed 1d)
}

# The sentinel and the rest of $OUT are exactly as planted.
check_sentinel() {
	[ -f "$OUT/victim" ] || fail "sentinel removed ($1)"
	[ "$(stat -c '%i %h %a %u %g %Y %s' "$OUT/victim")" = "$SENTINEL" ] ||
	    fail "sentinel changed ($1)"
	[ "$(cat "$OUT/victim")" = "sentinel bytes" ] ||
	    fail "sentinel content changed ($1)"
	[ "$(ls -lA --time-style=+%s "$OUT" | sed 1d)" = "$OUTLIST" ] ||
	    fail "entries outside the root changed ($1)"
}

# apply FILE [options...]: run lapply -n in $R on transcript FILE.
# Sets $rc; output in $T/out and $T/err.
apply() {
	tr=$1
	shift
	(cd "$R" && "$LAPPLY" -n "$@" "$tr") > "$T/out" 2> "$T/err"
	rc=$?
}

# expect_out TEXT: stdout is exactly TEXT (a trailing newline is added).
expect_out() {
	printf '%s\n' "$1" > "$T/exp"
	cmp -s "$T/exp" "$T/out" || {
		echo "--- expected stdout" >&2
		cat "$T/exp" >&2
		fail "stdout differs"
	}
}

expect_err() {
	printf '%s\n' "$1" > "$T/exp"
	cmp -s "$T/exp" "$T/err" || {
		echo "--- expected stderr" >&2
		cat "$T/exp" >&2
		fail "stderr differs"
	}
}

expect_rc() {
	[ "$rc" = "$1" ] || fail "exit status $rc, expected $1"
}

# mode/owner/type summary of one path: "<type> <octal mode> <uid> <gid>"
info() {
	stat -c '%F %a %u %g' "$1"
}

# sum FILE: the base64 SHA-1 of FILE, as transcripts give it.
sum() {
	python3 -c 'import base64,hashlib,sys
print(base64.b64encode(hashlib.sha1(open(sys.argv[1],"rb").read()).digest()).decode())' "$1"
}

# serve [FAULT PATH]...: start tests/integ/lapply-srv.py serving $T/srv
# for one connection; sets PORT and SPID.
serve() {
	rm -f "$T/port" "$T/log"
	python3 "${top_srcdir:-.}/tests/integ/lapply-srv.py" "$T/srv" \
	    "$T/port" "$T/log" "$@" &
	SPID=$!
	i=0
	while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$T/port" ] || fail "server did not start"
	PORT=$(cat "$T/port")
}
