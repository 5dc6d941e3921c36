#!/bin/sh
# t-replicate: cairn-replicate keeps a replica's repository identical to
# a primary's served by cairnd: first run, a run with nothing to do, a
# new loadset, a changed loadset, a corrupted file on the replica, an
# interrupted run, -r, a hostile transcript, a command file naming the
# base command file and a corrupted file on the primary.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd cairn-replicate cairn-publish fsdiff
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
umask 022

P=$T/primary
R=$T/replica

# loadset NAME TREE: fsdiff -C transcript and files of TREE on the primary.
loadset()
{
	in_dir "$2" "$FSDIFF" -C -c sha1 -K /dev/null . \
	    >"$P/transcript/$1" || fail "fsdiff -C $2"
	rm -rf "$P/file/$1"
	cp -a "$2" "$P/file/$1" || fail "cp -a $2"
}

mkdir -p "$P/command" "$P/transcript" "$P/file" "$R" || fail mkdir
mkfile "$T/base/etc/motd" "welcome"
mkfile "$T/base/etc/hosts" "127.0.0.1 localhost"
mkfile "$T/base/bin/tool" "#!/bin/sh"
mkfile "$T/web/srv/www/index.html" "<html>"
mkfile "$T/web/srv/www/a b.txt" "blank in the name"
: >"$T/web/srv/empty"
loadset base.T "$T/base"
loadset web.T "$T/web"
echo "127.0.0.1 replica.K" >"$P/config"
printf 'k web.K\nk db.K\n' >"$P/command/replica.K"
printf 'p base.T\np web.T\n' >"$P/command/web.K"
printf 'p base.T\n' >"$P/command/db.K"
start_cairnd "$P"

replicate()
{
	run_capture "$T/out" "$T/err" "$CAIRN_REPLICATE" -h 127.0.0.1 \
	    -p "$PORT" -D "$R" "$@"
}

same_repo()
{
	for _d in command transcript file; do
		diff -r "$P/$_d" "$R/$_d" >"$T/diff" 2>&1 ||
		    fail "$1: $_d differs: $(cat "$T/diff")"
	done
}

# Every transcript in service on the replica has all its files.
consistent()
{
	for _t in "$R"/transcript/*; do
		[ -f "$_t" ] || continue
		_n=$(basename "$_t")
		sed -n 's/^f \([^ 	]*\).*/\1/p' "$_t" | while read -r _p; do
			_p=$(printf '%s' "$_p" | sed 's/\\b/ /g')
			[ -f "$R/file/$_n/$_p" ] || echo "$_n: $_p"
		done
	done >"$T/missing"
	[ ! -s "$T/missing" ] ||
	    fail "$1: in service without files: $(cat "$T/missing")"
}

# First run: everything arrives.
replicate
assert_eq 1 "$RC" "first run: $(cat "$T/err")"
same_repo "first run"
[ ! -e "$R/tmp/replicate" ] || fail "stage left behind"

# Nothing to do.
replicate
assert_eq 0 "$RC" "second run: $(cat "$T/out") $(cat "$T/err")"
grep -q "In step" "$T/out" || fail "second run: no 'In step'"
same_repo "second run"

# A new loadset named by a command file.
mkfile "$T/db/var/db/data" "rows"
loadset db.T "$T/db"
printf 'p base.T\np db.T\n' >"$P/command/db.K"
replicate
assert_eq 1 "$RC" "new loadset: $(cat "$T/err")"
grep -q "db.T: updated" "$T/out" || fail "new loadset: $(cat "$T/out")"
same_repo "new loadset"

# A changed loadset (same name, other content) is replaced.
mkfile "$T/web/srv/www/index.html" "<html> version two"
loadset web.T "$T/web"
replicate
assert_eq 1 "$RC" "changed loadset: $(cat "$T/err")"
same_repo "changed loadset"

# A file corrupted on the replica is repaired.
chmod u+w "$R/file/base.T/etc/motd"
printf 'WELCOME' >"$R/file/base.T/etc/motd"
replicate
assert_eq 1 "$RC" "repair: $(cat "$T/err")"
same_repo "repair"
replicate
assert_eq 0 "$RC" "after repair: $(cat "$T/err")"

# An interrupted run: through a proxy that passes the requests on
# slowly, cairn-replicate is killed while it fetches a large loadset.
i=0
while [ "$i" -lt 400 ]; do
	mkfile "$T/big/data/f$i" "file number $i"
	i=$((i + 1))
done
loadset big.T "$T/big"
printf 'p base.T\np db.T\np big.T\n' >"$P/command/db.K"
start_proxy "$T/proxy.ready" slowproxy.py "$T/proxy.ready" 400
"$CAIRN_REPLICATE" -q -h 127.0.0.1 -p "$PPORT" -D "$R" \
    >"$T/kill.out" 2>"$T/kill.err" &
RPID=$!
retry 300 test -d "$R/tmp/file/big.T/data" ||
    fail "the big loadset was never staged: $(cat "$T/kill.err")"
kill -KILL "$RPID"
wait "$RPID" 2>/dev/null
kill "$PROXY" 2>/dev/null
[ ! -e "$R/transcript/big.T" ] || fail "big.T in service before the kill"
consistent "after the kill"
grep -q big.T "$R/command/db.K" &&
    fail "a command file names a loadset not yet in service"
replicate
assert_eq 1 "$RC" "after the kill: $(cat "$T/err")"
same_repo "after the kill"
consistent "after the rerun"

# -r: a loadset no command file names any more goes only with -r;
# transcript/special.T, which none names, stays.
mkfile "$R/transcript/special.T" ""
mkfile "$P/transcript/special.T" ""
printf 'p base.T\np db.T\n' >"$P/command/db.K"
rm -rf "$P/transcript/big.T" "$P/file/big.T"
replicate
assert_eq 1 "$RC" "without -r: $(cat "$T/err")"
[ -f "$R/transcript/big.T" ] || fail "big.T removed without -r"
replicate -r
assert_eq 1 "$RC" "-r: $(cat "$T/err")"
[ ! -e "$R/transcript/big.T" ] && [ ! -e "$R/file/big.T" ] ||
    fail "-r left big.T"
same_repo "-r"
replicate -r
assert_eq 0 "$RC" "-r again: $(cat "$T/err")"

# A hostile transcript from the primary: a path leaving the loadset.
mkdir -p "$P/file/evil.T" "$T/outside"
printf 'hostile' >"$T/outside/x"
printf 'f ../../../../outside/x 0644 0 0 %s 7 %s\n' "$T0" \
    "$(sha1b64 "$T/outside/x")" >"$P/transcript/evil.T"
printf 'p base.T\np db.T\np evil.T\n' >"$P/command/db.K"
replicate
assert_eq 2 "$RC" "hostile transcript"
grep -q "evil.T" "$T/err" || fail "hostile: no message: $(cat "$T/err")"
[ ! -e "$R/transcript/evil.T" ] || fail "hostile transcript published"
grep -q evil "$R/command/db.K" && fail "hostile command file installed"
[ -z "$(find "$R" -name x -path '*outside*')" ] || fail "hostile file"
echo "hostile transcript: $(cat "$T/err")"
# The same with a path that starts as the others do.
printf 'f ./srv/../../../../outside/x 0644 0 0 %s 7 %s\n' "$T0" \
    "$(sha1b64 "$T/outside/x")" >"$P/transcript/evil.T"
replicate
assert_eq 2 "$RC" "hostile transcript, ./ path"
grep -q "evil.T" "$T/err" || fail "hostile: no message: $(cat "$T/err")"
echo "hostile transcript: $(cat "$T/err")"
[ ! -e "$R/transcript/evil.T" ] || fail "hostile transcript published"
assert_eq hostile "$(cat "$T/outside/x")" "file outside"

# A command file that names the base command file in another spelling
# ("./base.K", with -K base.K): the primary's base.K would be fetched
# over the base the primary gives this host.  Refused before anything
# is fetched under that name; nothing installed.
printf 'p base.T\n' >"$P/command/base.K"
printf 'p base.T\np db.T\nk ./base.K\n' >"$P/command/db.K"
replicate -K base.K
assert_eq 2 "$RC" "base command file named again"
grep -qF "db.K: line 3: ./base.K: name reserved for the base command file" \
    "$T/err" || fail "base named again: $(cat "$T/err")"
[ ! -e "$R/command/base.K" ] || fail "base named again: base.K installed"
rm -f "$P/command/base.K"

# Once the primary drops it, the replica goes on.
printf 'p base.T\np db.T\n' >"$P/command/db.K"
rm -rf "$P/transcript/evil.T" "$P/file/evil.T"
replicate -r
assert_eq 0 "$RC" "after the hostile transcript: $(cat "$T/err")"
same_repo "after the hostile transcript"

# A file that does not match its transcript on the primary, among many
# requested at once: the run names it and stops, nothing of the loadset
# goes into service, no stray message about the end of the session, and
# the next run, once the primary is right, finishes the job.
i=0
while [ "$i" -lt 150 ]; do
	i=$((i + 1))
	mkfile "$T/many/srv/f$i" "file number $i"
done
loadset many.T "$T/many"
printf 'p base.T\np db.T\np many.T\n' >"$P/command/db.K"
chmod u+w "$P/file/many.T/srv/f20"
printf 'file number XX' >"$P/file/many.T/srv/f20"
replicate
assert_eq 2 "$RC" "corrupt primary: $(cat "$T/out") $(cat "$T/err")"
grep -q "many.T: ./srv/f20: checksum" "$T/err" ||
    fail "corrupt primary: no message for f20: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" -eq 1 ] ||
    fail "corrupt primary: more than one message: $(cat "$T/err")"
[ ! -e "$R/transcript/many.T" ] && [ ! -e "$R/file/many.T" ] ||
    fail "corrupt primary: many.T in service"
grep -q many "$R/command/db.K" && fail "corrupt primary: db.K installed"
printf 'file number 20' >"$P/file/many.T/srv/f20"
replicate
assert_eq 1 "$RC" "primary repaired: $(cat "$T/err")"
same_repo "primary repaired"

# One run at a time.
"$PYTHON" -c 'import fcntl, sys, time
f = open(sys.argv[1], "w"); fcntl.flock(f, fcntl.LOCK_EX)
open(sys.argv[2], "w").close(); time.sleep(60)' \
    "$R/tmp/.replicate.lock" "$T/locked" &
LPID=$!
at_exit 'kill "$LPID" 2>/dev/null'
retry 100 test -f "$T/locked" || fail "lock holder did not start"
replicate
assert_eq 2 "$RC" "a second run"
grep -q "another run" "$T/err" || fail "second run: $(cat "$T/err")"
kill "$LPID"
wait "$LPID" 2>/dev/null
replicate
assert_eq 0 "$RC" "after the lock: $(cat "$T/err")"

# -V, and usage errors exit 2.
run_capture "$T/out" "$T/err" "$CAIRN_REPLICATE" -V
assert_eq 0 "$RC" "-V"
run_capture "$T/out" "$T/err" "$CAIRN_REPLICATE" -Q
assert_eq 2 "$RC" "unknown option"
run_capture "$T/out" "$T/err" "$CAIRN_REPLICATE" -q -v
assert_eq 2 "$RC" "-q with -v"

end_test
