# tests/integ/lapply-lib.sh: helpers for the lapply tests.  Source after
# lib.sh and mk_tmpdir:
#
#	. "$top_srcdir/tests/integ/lib.sh"
#	need_tool lapply
#	mk_tmpdir
#	. "$top_srcdir/tests/integ/lapply-lib.sh"
#
# Sets LAPPLY, the apply root R=$T/root and a sentinel directory
# OUT=$T/outside that no transcript may touch (both created), U and G
# (the user's ids), and umask 022.  A failing test shows $T/out and
# $T/err.
#
# Provided:
#	plant			plant the sentinel: $OUT/victim, mode 0600,
#				known bytes and mtime
#	check_sentinel LABEL	fail unless the sentinel and the rest of $OUT
#				are exactly as planted
#	apply FILE [OPTS...]	run lapply -n OPTS... FILE in $R; sets RC,
#				output in $T/out and $T/err
#	expect_rc RC		the last exit status ($RC) was RC
#	expect_out TEXT		$T/out is exactly TEXT and a newline
#	expect_err TEXT		$T/err is exactly TEXT and a newline
#	info PATH		"<type> <octal mode> <uid> <gid>" of PATH
#	fline PATH FILE MODE [UID GID]	a "+ f" line downloading FILE as
#				PATH (mtime $T0, FILE's size and SHA-1;
#				owner $U $G unless given)
#	flines DIR PREFIX MODE UID GID NAME...	fline PREFIX/NAME DIR/NAME
#				MODE UID GID for every NAME (no tab or
#				newline in it), checksummed in one run
#	serve_files ROOT [FAULT PATH]...	start tests/integ/lapply-srv.py
#				serving ROOT for one connection; sets PORT
#				and SRVPID, requests logged in $T/log
#	net_apply DIR FILE [OPTS...]	run lapply OPTS... FILE in DIR
#				against that server and wait for the server
#				to end; sets RC, output in $T/out and $T/err
# Without lib.sh and mk_tmpdir, $T is empty and every path below would
# name the real root: refuse (99, a hard error) rather than run.
if ! command -v mk_tmpdir >/dev/null 2>&1 || [ -z "${T:-}" ] ||
    [ ! -d "$T" ]; then
	echo "lapply-lib.sh: source lib.sh and run mk_tmpdir first" >&2
	exit 99
fi

need_tool lapply
R=$T/root
OUT=$T/outside
mkdir "$R" "$OUT" || fail "mkdir $R $OUT"
U=$(id -u)
G=$(id -g)
umask 022

_la_show()
{
	for _f in out err; do
		[ -f "$T/$_f" ] && { echo "--- $_f"; cat "$T/$_f"; }
	done
}
on_fail _la_show

_la_sentinel()
{
	stat -c '%i %h %a %u %g %Y %s' "$OUT/victim"
}

_la_outlist()
{
	ls -lA --time-style=+%s "$OUT" | sed 1d
}

plant()
{
	printf 'sentinel bytes\n' >"$OUT/victim"
	chmod 0600 "$OUT/victim"
	touch -d @1500000000 "$OUT/victim"
	SENTINEL=$(_la_sentinel)
	OUTLIST=$(_la_outlist)
}

check_sentinel()
{
	[ -f "$OUT/victim" ] || fail "sentinel removed ($1)"
	[ "$(_la_sentinel)" = "$SENTINEL" ] || fail "sentinel changed ($1)"
	[ "$(cat "$OUT/victim")" = "sentinel bytes" ] ||
	    fail "sentinel content changed ($1)"
	[ "$(_la_outlist)" = "$OUTLIST" ] ||
	    fail "entries outside the root changed ($1)"
}

apply()
{
	_tr=$1
	shift
	run_capture "$T/out" "$T/err" in_dir "$R" "$LAPPLY" -n "$@" "$_tr"
}

expect_rc()
{
	assert_eq "$1" "$RC" "exit status"
}

expect_out()
{
	printf '%s\n' "$1" >"$T/exp"
	assert_file_eq "$T/exp" "$T/out" stdout
}

expect_err()
{
	printf '%s\n' "$1" >"$T/exp"
	assert_file_eq "$T/exp" "$T/err" stderr
}

info()
{
	stat -c '%F %a %u %g' "$1"
}

fline()
{
	_fl_size=$(stat -c %s "$2") && _fl_sum=$(sha1b64 "$2") ||
	    fail "cannot read $2"
	printf '+ f %s\t%s %s %s %s %s %s\n' "$1" "$3" "${4:-$U}" "${5:-$G}" \
	    "$T0" "$_fl_size" "$_fl_sum"
}

flines()
{
	_fl_dir=$1 _fl_pre=$2 _fl_mode=$3 _fl_uid=$4 _fl_gid=$5
	shift 5
	printf '%s\n' "$@" >"$T/flines.names"
	in_dir "$_fl_dir" stat -c %s -- "$@" >"$T/flines.sizes" &&
	    (cd "$_fl_dir" && sha1b64 "$@") >"$T/flines.sums" ||
	    fail "cannot read the files in $_fl_dir"
	paste "$T/flines.names" "$T/flines.sizes" "$T/flines.sums" |
	    awk -F '\t' -v p="$_fl_pre" -v m="$_fl_mode" -v u="$_fl_uid" \
	    -v g="$_fl_gid" -v t="$T0" \
	    '{ printf "+ f %s/%s\t%s %s %s %s %s %s\n", p, $1, m, u, g, t, $2, $3 }'
}

serve_files()
{
	_sf_root=$1
	shift
	rm -f "$T/log"
	bg_start "$T/port" python3 "$top_srcdir/tests/integ/lapply-srv.py" \
	    "$_sf_root" "$T/port" "$T/log" "$@"
	SRVPID=$BGPID
	PORT=$(cat "$T/port")
}

net_apply()
{
	_na_dir=$1 _na_tr=$2
	shift 2
	run_capture "$T/out" "$T/err" in_dir "$_na_dir" "$LAPPLY" \
	    -h 127.0.0.1 -p "$PORT" "$@" "$_na_tr"
	wait "$SRVPID"
}
