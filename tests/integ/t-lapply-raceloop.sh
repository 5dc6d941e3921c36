#!/bin/sh
# t-lapply-raceloop: the looping attacker of docs/security.md section 5
# (cases C1-C3, C7), beside the deterministic stops of t-lapply-race.sh.
#
# A background loop swaps ./dir, a directory inside the apply root, with
# a symbolic link to the sentinel directory outside, and back, as fast
# as it can: with renameat2(RENAME_EXCHANGE) where the C library has it,
# so the name always resolves to one or the other, else with plain
# renames.  It does only what an unprivileged user owning ./dir could
# do.  Meanwhile lapply runs again and again over three transcripts in
# turn:
#
#   - a change of mode, owner and mtime of the 100 files in ./dir (-n);
#   - the download of 100 new files into ./dir (from lapply-srv.py);
#   - the removal of the 100 files in ./dir (-n).
#
# After every run, with the attacker paused: the sentinel and everything
# else outside the root keep their bytes, mode, owner, mtime, inode and
# link count; no temp file is left; lapply either succeeded, and then
# the change is in the real directory, or failed with a message and exit
# 1 or 2, never by a signal or a sanitizer report.  Then the tree is
# built afresh for the next round.
#
# At most 200 runs and 25 seconds of rounds (30 in all); the attacker
# stops at a stop file or after 60 seconds and is killed on exit.  The
# number of rounds and of runs the attacker made fail is printed, never
# asserted.
. "$top_srcdir/tests/integ/lib.sh"
need_tool lapply
need_cmd python3
# Owner changes and the sentinel's owner need root.
need_root
mk_tmpdir
. "$top_srcdir/tests/integ/lapply-lib.sh"
MU=1234 MG=1235
MAXROUNDS=200
MAXSECS=25

APID=
# On exit (before the scratch directory goes): stop the attacker.
stop_attacker() {
	: > "$T/stop"
	[ -n "$APID" ] && { kill "$APID" 2> /dev/null; wait "$APID"; }
}
at_exit stop_attacker

# ./dir holds $FILES, ./dir/victim among them; $OUT has the same names,
# so that a change made by path through the link would land on one of
# them.  Many files make each run long enough for the attacker to swap
# in the middle of it, between one file's lookup and its change.
FILES=$(printf 'a%02d ' $(seq 0 98))victim
# $T/dir is the template of ./dir.
mkdir -p "$T/srv/file/test.T/dir" "$T/dir"
printf 'new content\n' > "$T/new"
NEW=$T/new
printf 'old content\n' > "$T/old"
OLD=$T/old
for f in $FILES; do
	ln "$NEW" "$T/srv/file/test.T/dir/n$f"
	printf 'sentinel bytes\n' > "$OUT/$f"
	chmod 0600 "$OUT/$f"
	touch -d @1500000000 "$OUT/$f"
	cp "$OLD" "$T/dir/$f"
done
chmod 0600 "$T/dir"/*
# lines KIND: one transcript line per file of $FILES, for KIND meta,
# create or remove.
lines() {
	for f in $FILES; do
		case $1 in
		meta) printf 'f ./dir/%s\t0751 %s %s 1700000000 %s %s\n' \
		    "$f" "$MU" "$MG" "$OSIZE" "$OSUM" ;;
		create) printf '+ f ./dir/n%s\t0644 %s %s 1700000000 %s %s\n' \
		    "$f" "$U" "$G" "$NSIZE" "$NSUM" ;;
		remove) printf -- '- f ./dir/%s\t0644 0 0 0 12 -\n' "$f" ;;
		esac
	done
}
OSIZE=$(stat -c %s "$OLD") OSUM=$(sha1b64 "$OLD")
NSIZE=$(stat -c %s "$NEW") NSUM=$(sha1b64 "$NEW")
lines meta > "$T/meta.T"
{ echo test.T:; lines create; } > "$T/create.T"
lines remove > "$T/remove.T"
plant

# The attacker, in $T: while $T/pause is absent, swap ./dir and ./.lnk
# (a link to $OUT) of the root in pairs, so every pair leaves ./dir the
# real directory.  At $T/pause it creates $T/paused and waits; it
# resumes when $T/pause goes.  The root is rebuilt between rounds, so it
# names the root's entries through $T.
cat > "$T/attack.py" << 'EOF'
import ctypes
import os
import sys
import time

os.chdir(sys.argv[1])
deadline = time.monotonic() + 60
def renames():
    for a, b in (("root/dir", "root/.held"), ("root/.lnk", "root/dir"),
                 ("root/dir", "root/.lnk"), ("root/.held", "root/dir")):
        try:
            os.rename(a, b)
        except OSError:
            pass
swap = renames
try:
    r2 = ctypes.CDLL(None, use_errno=True).renameat2
    r2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
        ctypes.c_char_p, ctypes.c_uint]
    def exchange():
        for _ in range(2):
            if r2(-100, b"root/dir", -100, b"root/.lnk", 2) == -1:
                return ctypes.get_errno()
        return 0
    if exchange() == 0:
        swap = exchange
except AttributeError:
    pass
print("attacker: " + ("renameat2 exchange" if swap is not renames else
    "renames"), flush=True)
while time.monotonic() < deadline and not os.path.exists("stop"):
    if os.path.exists("pause"):
        open("paused", "w").close()
        while os.path.exists("pause") and not os.path.exists("stop") and \
              time.monotonic() < deadline:
            time.sleep(0.005)
        os.unlink("paused")
        continue
    for _ in range(50):
        swap()
EOF

# await COND WHAT: wait up to 10 s for the shell test COND.
await() {
	_i=0
	while ! eval "$1" && [ $_i -lt 1000 ]; do
		sleep 0.01
		_i=$((_i + 1))
	done
	eval "$1" || fail "the attacker did not $2"
}

# reset: a fresh root with $FILES in ./dir (the old content, mode 0600)
# and the link ./.lnk to $OUT.
reset() {
	[ -n "$T" ] && [ "$R" = "$T/root" ] || fail "reset: no scratch root"
	rm -rf "$R"
	mkdir "$R"
	cp -a "$T/dir" "$R/dir"
	ln -s "$OUT" "$R/.lnk"
}

# realdir: the real directory among ./dir and ./.lnk after a round.
realdir() {
	for _d in "$R/dir" "$R/.lnk"; do
		[ -d "$_d" ] && [ ! -L "$_d" ] && { echo "$_d"; return; }
	done
	fail "$kind: the directory is gone"
}

if command -v timeout > /dev/null; then
	TO="timeout 20"
else
	TO=
fi

: > "$T/pause"
reset
"$PYTHON" "$T/attack.py" "$T" &
APID=$!
await '[ -f "$T/paused" ]' "start"

start=$(date +%s)
rounds=0 caught=0
while [ $rounds -lt $MAXROUNDS ] &&
    [ $(($(date +%s) - start)) -lt $MAXSECS ]; do
	case $((rounds % 3)) in
	0) kind=meta ;;
	1) kind=create ;;
	2) kind=remove ;;
	esac
	if [ $kind = create ]; then
		serve_files "$T/srv"
		set -- -h 127.0.0.1 -p "$PORT"
	else
		set -- -n
	fi
	rm -f "$T/pause"
	await '[ ! -f "$T/paused" ]' "resume"
	(cd "$R" && exec $TO "$LAPPLY" "$@" "$T/$kind.T") \
	    > "$T/out" 2> "$T/err"
	rc=$?
	: > "$T/pause"
	await '[ -f "$T/paused" ]' "pause"
	if [ -n "${SRVPID:-}" ]; then
		kill "$SRVPID" 2> /dev/null
		wait "$SRVPID"
		SRVPID=
	fi
	rounds=$((rounds + 1))
	what="round $rounds ($kind)"

	[ "$rc" -lt 124 ] || fail "$what: lapply died or hung (exit $rc)"
	! grep -q 'Sanitizer\|runtime error' "$T/err" ||
	    fail "$what: sanitizer report"
	check_sentinel "$what"
	left=$(find "$T" -path "$T/srv" -prune -o \( -name '*.radmind.*' \
	    -o -name '.radmind.*' \) -print)
	[ -z "$left" ] || fail "$what: temp files left: $left"
	d=$(realdir)
	case $rc in
	0)
		case $kind in
		meta)
			st=$(cd "$d" && stat -c '%a %u %g %Y' $FILES | sort -u)
			[ "$st" = "751 $MU $MG 1700000000" ] ||
			    fail "$what: $st"
			;;
		create)
			[ "$(cd "$d" && cat $(printf 'n%s ' $FILES) | sort -u)" = \
			    "new content" ] || fail "$what: not the new files"
			;;
		remove)
			[ -z "$(cd "$d" && ls -A)" ] || fail "$what: files kept"
			;;
		esac
		;;
	1 | 2)
		[ -s "$T/err" ] || fail "$what: exit $rc without a message"
		caught=$((caught + 1))
		;;
	*)
		fail "$what: exit $rc"
		;;
	esac
	reset
done
[ $rounds -gt 0 ] || fail "no round ran"
echo "rounds: $rounds, lapply failed under the attacker: $caught"
exit 0
