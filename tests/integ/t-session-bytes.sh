#!/bin/sh
# The byte counters of a session agree: the client's -v "bytes:" line and
# cairnd's "session end" line count the same bytes (what one side sent
# the other received, before and after compression, the QUIT exchange
# included).  At level 0 nothing is compressed: on the wire equals sent
# and received on both sides; at levels 1 and 9 a compressible tree takes
# fewer bytes on the wire than it holds.  lapply -v sorts the files it
# received as cairnd's judge of incompressible data does: its "files
# received" line names the files and bytes cairnd's "session bodies" line
# counts as deflated and as stored.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck lapply fsdiff
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"

# A compressible tree: text that deflates well.
mkdir -p "$T/tree/etc"
i=0
while [ "$i" -lt 20 ]; do
	i=$((i + 1))
	seq 1 2000 | sed "s/^/line of file $i: /" >"$T/tree/etc/f$i.txt"
done
# And three that do not shrink: random bytes, and a gzip'd file.
mkdir -p "$T/tree/var"
python3 -c 'import random, sys
random.seed(int(sys.argv[1]))
sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range(40000)))' \
    1 >"$T/tree/var/r1.bin" || fail "r1.bin"
python3 -c 'import random, sys
random.seed(int(sys.argv[1]))
sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range(90000)))' \
    2 >"$T/tree/var/r2.bin" || fail "r2.bin"
base64 "$T/tree/var/r2.bin" | gzip -9 >"$T/tree/var/r2.b64.gz" || fail "gzip"
incsize=$(($(wc -c <"$T/tree/var/r1.bin") + $(wc -c <"$T/tree/var/r2.bin") +
    $(wc -c <"$T/tree/var/r2.b64.gz")))
txtsize=$(cat "$T"/tree/etc/f*.txt | wc -c)
tree_repo "$T/repo" "$T/tree" bytes
start_cairnd "$T/repo" -Z 9

# counts LINE: "RAWOUT WIREOUT RAWIN WIREIN" from a client's bytes: line
# or cairnd's session end line.
counts()
{
	python3 - "$1" <<'PY'
import re, sys
line = sys.argv[1]
m = re.search(r'bytes: received (\d+) \((\d+) on the wire\), '
              r'sent (\d+) \((\d+) on the wire\)', line)
if m:
    rin, win, rout, wout = m.groups()
else:
    m = re.search(r'sent (\d+) bytes \((\d+) on the wire, ratio [0-9.]+\), '
                  r'received (\d+) bytes \((\d+) on the wire', line)
    if not m:
        sys.exit(1)
    rout, wout, rin, win = m.groups()
print(rout, wout, rin, win)
PY
}

nsess=0
# ended N: cairnd has logged the end of N sessions (counted afresh at each
# try of retry).
ended()
{
	[ "$(grep -c 'session end: ' "$SLOG")" -ge "$1" ]
}
# check TOOL LEVEL ARGS...: run TOOL -v -Z LEVEL and compare its counters
# with the session's line in cairnd's log.
check()
{
	_tool=$1 _lvl=$2
	shift 2
	run_client "$_tool" -v -Z "$_lvl" -c sha1 "$@"
	case $_tool:$RC in
	ktcheck:[01]|lapply:0) ;;
	*)	fail "$_tool -Z $_lvl: exit $RC: $(cat "$T/err")" ;;
	esac
	nsess=$((nsess + 1))
	retry 100 ended "$nsess" ||
	    fail "no session end line for $_tool -Z $_lvl"
	_srv=$(grep 'session end: ' "$SLOG" | sed -n "${nsess}p")
	_cli=$(grep '^bytes: received ' "$T/out") ||
	    fail "$_tool -Z $_lvl: no bytes: line: $(cat "$T/out")"
	case $_srv in
	*"session end: zlib level $_lvl, "*) ;;
	*)	fail "$_tool -Z $_lvl: server line: $_srv" ;;
	esac
	# shellcheck disable=SC2046
	set -- $(counts "$_cli") || fail "cannot read: $_cli"
	c_rout=$1 c_wout=$2 c_rin=$3 c_win=$4
	# shellcheck disable=SC2046
	set -- $(counts "$_srv") || fail "cannot read: $_srv"
	s_rout=$1 s_wout=$2 s_rin=$3 s_win=$4
	_what="$_tool -Z $_lvl: client '$_cli', server '$_srv'"
	[ "$c_rout $c_wout" = "$s_rin $s_win" ] ||
	    fail "$_what: client sent is not what the server received"
	[ "$c_rin $c_win" = "$s_rout $s_wout" ] ||
	    fail "$_what: server sent is not what the client received"
	if [ "$_lvl" -eq 0 ]; then
		[ "$c_rout" = "$c_wout" ] && [ "$c_rin" = "$c_win" ] ||
		    fail "$_what: level 0, yet wire and raw differ"
		[ "$s_rout" = "$s_wout" ] && [ "$s_rin" = "$s_win" ] ||
		    fail "$_what: level 0, yet wire and raw differ"
		grep -q '^bytes: .*, saved 0\.0%$' "$T/out" ||
		    fail "$_what: level 0, yet something saved"
		case $_srv in
		*"ratio 1.00), received"*"ratio 1.00)"*) ;;
		*)	fail "$_what: level 0, ratio not 1.00" ;;
		esac
	elif [ "$_tool" = lapply ]; then
		[ "$s_wout" -lt "$s_rout" ] ||
		    fail "$_what: level $_lvl, nothing saved"
	fi
	[ "$_tool" = lapply ] || return 0
	_cls=$(grep '^files received: ' "$T/out") ||
	    fail "$_tool -Z $_lvl: no files received line: $(cat "$T/out")"
	[ "$_cls" = "files received: 20 compressible ($txtsize bytes), 3 \
incompressible ($incsize bytes)" ] || fail "$_tool -Z $_lvl: $_cls"
	[ "$_lvl" -eq 0 ] && return 0
	_bod=$(grep 'session bodies: ' "$SLOG" | tail -n 1)
	case $_bod in
	*"deflated 20 files $txtsize -> "*", stored 3 files $incsize bytes,"*)
		;;
	*)	fail "$_tool -Z $_lvl: cairnd sorted otherwise: $_bod" ;;
	esac
}

mkdir -p "$T/client" "$T/root"
for lvl in 0 1 9; do
	rm -f "$T/client/"*
	check ktcheck "$lvl" -K "$T/client/command.K"
	rm -rf "$T/root"
	mkdir "$T/root"
	in_dir "$T/root" "$FSDIFF" -A -c sha1 -K "$T/client/command.K" \
	    -o "$T/apply.T" . || fail "fsdiff -A"
	[ -s "$T/apply.T" ] || fail "nothing to apply"
	cd "$T/root" || fail "cd $T/root"
	check lapply "$lvl" "$T/apply.T"
	cd "$T" || fail "cd $T"
	diff -r "$T/tree" "$T/root" >/dev/null || fail "-Z $lvl: trees differ"
done
exit 0
