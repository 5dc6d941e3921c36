#!/bin/sh
# t-client-signals: an interrupted ktcheck, cairn-replicate or lcreate
# leaves nothing behind (lapply: t-lapply-signals.sh).
#
# Each is sent SIGINT, SIGTERM or SIGHUP (in turn) just before its kth
# mutating file-system call (tests/integ/shim.so), for values of k
# spread over a whole run (tests/integ/sigcheck.py), and must die of the
# signal:
#   ktcheck, bringing a command directory of 40 transcripts, an included
#   command file in a subdirectory and special.T up to date: no temp file
#   left in it, every file old or new, a rerun brings it up to date;
#   cairn-replicate, bringing a replica of three loadsets (one new, one
#   changed, one removed from the command files) up to date: no temp
#   file anywhere in the replica, every path of command/, transcript/
#   and file/ old or new (a cairn-publish under way is let finish), a
#   rerun brings it in step;
#   lcreate, uploading a loadset of 30 files (points: its reads): the
#   server keeps nothing of the upload, which then succeeds.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck lcreate cairn-replicate cairn-publish fsdiff
need_cmd python3
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
need_shim
SIGCHECK="python3 $top_srcdir/tests/integ/sigcheck.py"
CHECK="python3 $top_srcdir/tests/integ/crashcheck.py"
umask 022

# --- ktcheck ---------------------------------------------------------------
P=$T/primary
mkdir -p "$P/command/sub" "$P/transcript" "$P/file" \
    "$P/special/127.0.0.1/etc" || fail mkdir
echo '127.0.0.1 base.K' >"$P/config"
printf 'client1\n' >"$P/special/127.0.0.1/etc/hostname"
printf 'f ./etc/hostname 0640 0 0 0 0 -\n' >"$P/transcript/special.T"
# transcripts GEN: t00.T..t39.T, each naming GEN; sub/inc.K too.
transcripts()
{
	_i=0
	: >"$P/command/base.K"
	while [ "$_i" -lt 40 ]; do
		_n=$(printf 't%02d.T' "$_i")
		printf 'd ./%s-%s 0755 0 0\n' "$1" "$_n" >"$P/transcript/$_n"
		echo "p $_n" >>"$P/command/base.K"
		_i=$((_i + 1))
	done
	printf 'k sub/inc.K\ns ./etc/hostname\n' >>"$P/command/base.K"
	printf '# %s\np t00.T\n' "$1" >"$P/command/sub/inc.K"
}
transcripts old
start_cairnd "$P"

KD=$T/kdir
mkdir "$KD" || fail mkdir
: >"$KD/base.K"
run_capture "$T/out" "$T/err" "$KTCHECK" -c sha1 -K "$KD/base.K" \
    -h 127.0.0.1 -p "$PORT"
assert_eq 1 "$RC" "ktcheck, old state: $(cat "$T/err")"
cp -a "$KD" "$T/oldk" || fail "cp -a"
$CHECK snap "$KD" "$T/kold.json" || fail "snap"
transcripts new
run_capture "$T/out" "$T/err" "$KTCHECK" -c sha1 -K "$KD/base.K" \
    -h 127.0.0.1 -p "$PORT"
assert_eq 1 "$RC" "ktcheck, new state: $(cat "$T/err")"
$CHECK snap "$KD" "$T/knew.json" || fail "snap"
KDIR=$KD OLDK=$T/oldk OLDJSON=$T/kold.json NEWJSON=$T/knew.json \
KTCHECK=$KTCHECK SHIM=$SHIM PORT=$PORT TMP=$T \
    $SIGCHECK ktcheck 15 >"$T/m" || fail "ktcheck: the sweep failed"
echo "$TEST_NAME: ktcheck: $(cut -d' ' -f2 "$T/m") interruptions over" \
    "$(cut -d' ' -f1 "$T/m") mutating calls"

# --- cairn-replicate -------------------------------------------------------
# loadset NAME TREE: fsdiff -C transcript and files of TREE on the primary.
loadset()
{
	in_dir "$2" "$FSDIFF" -C -c sha1 -K /dev/null . \
	    >"$P/transcript/$1" || fail "fsdiff -C $2"
	rm -rf "$P/file/$1"
	cp -a "$2" "$P/file/$1" || fail "cp -a $2"
}
mktree()
{
	_i=0
	while [ "$_i" -lt 25 ]; do
		mkfile "$1/d$((_i % 4))/f$_i" "$2 file $_i"
		_i=$((_i + 1))
	done
}
mktree "$T/base-old" old
mktree "$T/base-new" new
mktree "$T/web" web
mktree "$T/db" db
stop_cairnd
echo "127.0.0.1 replica.K" >"$P/config"
start_cairnd "$P"
printf 'k web.K\nk db.K\n' >"$P/command/replica.K"
loadset base.T "$T/base-old"
loadset web.T "$T/web"
printf 'p base.T\np web.T\n' >"$P/command/web.K"
printf 'p base.T\n' >"$P/command/db.K"
REP=$T/replica
mkdir "$REP" || fail mkdir
run_capture "$T/out" "$T/err" "$CAIRN_REPLICATE" -D "$REP" -h 127.0.0.1 \
    -p "$PORT"
assert_eq 1 "$RC" "replicate, old state: $(cat "$T/err")"
cp -a "$REP" "$T/oldrep" || fail "cp -a"
# repstate DIR OUT: command/, transcript/ and file/ of DIR, as sigcheck.py
# records them.
repstate()
{
	python3 - "$1" "$2" <<'PY' || fail "snap $1"
import json, os, sys
sys.path.insert(0, os.path.join(os.environ['top_srcdir'], 'tests/integ'))
from crashcheck import snap
cur = {}
for part in ('command', 'transcript', 'file'):
    for p, v in snap(os.path.join(sys.argv[1], part)).items():
        cur[os.path.normpath(os.path.join(part, p))] = v
json.dump(cur, open(sys.argv[2], 'w'), sort_keys=True)
PY
}
repstate "$REP" "$T/rold.json"
loadset base.T "$T/base-new"
loadset db.T "$T/db"
printf 'p db.T\n' >"$P/command/db.K"
run_capture "$T/out" "$T/err" "$CAIRN_REPLICATE" -D "$REP" -h 127.0.0.1 \
    -p "$PORT"
assert_eq 1 "$RC" "replicate, new state: $(cat "$T/err")"
repstate "$REP" "$T/rnew.json"
REPLICA=$REP OLDREP=$T/oldrep OLDJSON=$T/rold.json NEWJSON=$T/rnew.json \
REPLICATE=$CAIRN_REPLICATE SHIM=$SHIM PORT=$PORT TMP=$T \
    $SIGCHECK replicate 15 >"$T/m" || fail "replicate: the sweep failed"
echo "$TEST_NAME: cairn-replicate: $(cut -d' ' -f2 "$T/m") interruptions" \
    "over $(cut -d' ' -f1 "$T/m") mutating calls"

# --- lcreate ---------------------------------------------------------------
mktree "$T/up" upload
echo >"$T/empty.K"
in_dir "$T/up" "$FSDIFF" -C -c sha1 -K "$T/empty.K" -o "$T/up.T" . ||
    fail "fsdiff -C"
export SHIM
n=0
for k in 3 9 17 26; do
	for sig in INT TERM HUP; do
		n=$((n + 1))
		RC=0
		in_dir "$T/up" python3 \
		    "$top_srcdir/tests/integ/sigcheck.py" \
		    runat "read:$k" "$sig" "$LCREATE" -c sha1 -h 127.0.0.1 \
		    -p "$PORT" "$T/up.T" >"$T/out" 2>"$T/err" || RC=$?
		case $sig in
		INT) want=130 ;;
		TERM) want=143 ;;
		HUP) want=129 ;;
		esac
		assert_eq "$want" "$RC" "lcreate read:$k SIG$sig: $(cat "$T/err")"
		retry 100 upload_gone "$P" up.T ||
		    fail "lcreate read:$k SIG$sig: the upload stays in tmp/"
	done
done
run_capture "$T/out" "$T/err" in_dir "$T/up" "$LCREATE" -c sha1 \
    -h 127.0.0.1 -p "$PORT" "$T/up.T"
assert_eq 0 "$RC" "lcreate after the interruptions: $(cat "$T/err")"
echo "$TEST_NAME: lcreate: $n interruptions"
exit 0
