#!/bin/sh
# t-lapply-trace: the order of lapply's mutating calls (docs/security.md
# G5, C8, I2), from a trace of tests/integ/shim.so (CAIRN_SHIM_TRACE).
#
# cairnd serves a loadset that, applied to an old tree, creates a file,
# replaces the content of another, installs a set-uid file owned by
# another user and a set-gid file of another group, gives an existing
# set-uid root file to another user without the bit and makes another
# user's file set-uid root (content unchanged: metadata only), makes a
# directory with a file in it and removes a file.  lapply runs once
# under the shim; tests/integ/tracecheck.py then asserts from the trace
# that every call succeeded and stayed under the root; that every file
# created was a temp file created O_EXCL|O_NOFOLLOW, mode 0600, in the
# directory of a path the transcript downloads, fsynced after its last
# owner, mode or time change and before it was renamed over that path
# (once per download); that every directory whose entries changed was
# fsynced afterwards; and that owner and mode, followed call by call,
# never show a set-id bit with an owner or group that neither had it
# before the run nor is declared with it (the chown comes before the
# chmod that sets the bit; an existing set-uid file loses the bit
# before it changes hands), ending as declared and as found on disk.
# The same check run on doctored copies of the trace (an fsync moved
# after its rename, a time change moved after the fsync, a directory
# fsync dropped, a chown moved after the chmod that sets the bit, the
# chmod that drops the bit before a chown dropped) must fail with the
# matching complaint.  A rerun of fsdiff -A finds nothing left to do and
# no temp file is left.  Root only (owners).
. "$top_srcdir/tests/integ/lib.sh"
need_root
need_tool cairnd lapply fsdiff
need_cmd python3
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
need_shim
SNAP="python3 $top_srcdir/tests/integ/crashcheck.py snap"
CHECK="python3 $top_srcdir/tests/integ/tracecheck.py"
umask 022
OLDT=1600000000

# The new tree, served as loadset new.T.
N=$T/new
mkdir -p "$N/dir" "$N/bin" "$N/newdir"
printf 'brand new\n' > "$N/dir/new"
printf 'changed content\n' > "$N/dir/changed"
printf '#!/bin/sh\necho tool\n' > "$N/bin/tool"
printf '#!/bin/sh\necho sgid\n' > "$N/bin/sgid"
printf 'suid tool\n' > "$N/bin/chsuid"
printf 'to root\n' > "$N/bin/touid"
printf 'in a new directory\n' > "$N/newdir/f"
chown 1234:1234 "$N/bin/tool" "$N/bin/chsuid"
chown 0:1235 "$N/bin/sgid"
chmod 4755 "$N/bin/tool" "$N/bin/touid"
chmod 0755 "$N/bin/chsuid"
chmod 2755 "$N/bin/sgid"
find "$N" -exec touch -h -d "@$T0" {} +

# The old tree: ./bin/chsuid is set-uid root, ./bin/touid belongs to
# 1234, ./gone goes.
O=$T/old
mkdir -p "$O/dir" "$O/bin"
printf 'old content\n' > "$O/dir/changed"
printf 'suid tool\n' > "$O/bin/chsuid"
printf 'to root\n' > "$O/bin/touid"
printf 'gone\n' > "$O/gone"
chown 1234:1234 "$O/bin/touid"
chmod 4755 "$O/bin/chsuid"
find "$O" -exec touch -h -d "@$OLDT" {} +
touch -d "@$T0" "$O/bin/chsuid" "$O/bin/touid"

REPO=$T/repo
tree_repo "$REPO" "$N" new
mkdir "$T/k"
cp "$REPO/command/new.K" "$REPO/transcript/new.T" "$T/k/"
start_cairnd "$REPO"

R=$T/root
cp -a "$O" "$R" || fail "cp old"
(cd "$R" && "$FSDIFF" -A -c sha1 -K "$T/k/new.K" .) > "$T/apply.T" ||
    fail "fsdiff -A"
for l in '+ f ./dir/new' '+ f ./dir/changed' '+ f ./bin/tool' \
    '+ f ./bin/sgid' 'f ./bin/chsuid' 'f ./bin/touid' 'd ./newdir' \
    '+ f ./newdir/f' \
    '- f ./gone'; do
	grep -q "^$l[ 	]" "$T/apply.T" || fail "no line '$l' in: $(cat "$T/apply.T")"
done
$SNAP "$R" "$T/pre.json" || fail "snap"

run_capture "$T/out" "$T/err" in_dir "$R" \
    env LD_PRELOAD="$SHIM" CAIRN_SHIM_TRACE="$T/trace" \
    "$LAPPLY" -c sha1 -h 127.0.0.1 -p "$PORT" "$T/apply.T"
assert_eq 0 "$RC" "lapply: $(cat "$T/err")"
[ -s "$T/trace" ] || fail "no trace written"
$CHECK "$T/trace" "$R" "$T/apply.T" "$T/pre.json" > "$T/check" ||
    fail "trace check: $(cat "$T/check")
--- trace
$(cat "$T/trace")"
echo "$TEST_NAME: $(cat "$T/check")"

# The run converged: nothing left to apply, no temp file.
(cd "$R" && "$FSDIFF" -A -c sha1 -K "$T/k/new.K" .) > "$T/again.T" ||
    fail "fsdiff -A after"
[ ! -s "$T/again.T" ] || fail "not converged: $(cat "$T/again.T")"
assert_no_files "temp file left" "$R" -name '*.radmind.*'

# doctored NAME EXPECTED: the check of $T/trace.NAME fails with a line
# matching EXPECTED.
doctored()
{
	cmp -s "$T/trace" "$T/trace.$1" && fail "$1: the trace was not changed"
	$CHECK "$T/trace.$1" "$R" "$T/apply.T" "$T/pre.json" > "$T/check" &&
	    fail "$1: the check passed"
	grep -q "$2" "$T/check" || fail "$1: $(cat "$T/check")"
}
# The fsync of the new set-uid file after its rename.
sed '/^fsync [^ ]*\/bin\/tool\.radmind\.[0-9]* /{h;d}
/^renameat [^ ]*\/bin\/tool\.radmind\./G' "$T/trace" > "$T/trace.late"
doctored late 'renamed without an fsync before'
# The mtime of a new file set after its fsync.
sed '/^futimens [^ ]*\/dir\/new\.radmind\.[0-9]* /{h;d}
/^fsync [^ ]*\/dir\/new\.radmind\./G' "$T/trace" > "$T/trace.time"
doctored time 'metadata change after the fsync of call'
# No fsync of ./bin.
grep -v "^fsync $R/bin = " "$T/trace" > "$T/trace.nodir"
doctored nodir "no fsync of $R/bin after it"
# The set-uid mode before the owner.
sed '/^fchown [^ ]*\/bin\/tool\.radmind\./{h;d}
/^fchmod [^ ]*\/bin\/tool\.radmind\..* mode=04755 /G' "$T/trace" \
    > "$T/trace.order"
doctored order 'set-uid with owner 0 '
# The same for the file that becomes set-uid root.
sed '/^fchown [^ ]*\/bin\/touid /{h;d}
/^fchmod [^ ]*\/bin\/touid mode=04755 /G' "$T/trace" > "$T/trace.order2"
doctored order2 'set-uid with owner 1234 '
# The set-uid root file handed over before it loses the bit.
grep -v "^fchmod $R/bin/chsuid mode=0755 " "$T/trace" > "$T/trace.keep"
doctored keep 'set-uid with owner 1234 '

# A batch of many files on one file system is made durable with one
# syncfs before its renames and one after (lapply(1)); the same checks
# hold, and without the syncfs lines they fail.
stop_cairnd
M=$T/many
mkdir -p "$M/a" "$M/b" || fail "mkdir many"
i=0
while [ "$i" -lt 40 ]; do
	printf 'file a%d\n' "$i" > "$M/a/f$i"
	printf 'file b%d\n' "$i" > "$M/b/g$i"
	i=$((i + 1))
done
find "$M" -exec touch -h -d "@$T0" {} +
tree_repo "$T/repo2" "$M" many
mkdir "$T/k2"
cp "$T/repo2/command/many.K" "$T/repo2/transcript/many.T" "$T/k2/"
start_cairnd "$T/repo2"
R2=$T/root2
mkdir "$R2" || fail "mkdir root2"
(cd "$R2" && "$FSDIFF" -A -c sha1 -K "$T/k2/many.K" .) > "$T/many.T" ||
    fail "fsdiff -A many"
$SNAP "$R2" "$T/pre2.json" || fail "snap many"
run_capture "$T/out" "$T/err" in_dir "$R2" \
    env LD_PRELOAD="$SHIM" CAIRN_SHIM_TRACE="$T/trace2" \
    "$LAPPLY" -c sha1 -h 127.0.0.1 -p "$PORT" "$T/many.T"
assert_eq 0 "$RC" "lapply many: $(cat "$T/err")"
grep -q '^syncfs ' "$T/trace2" || fail "no syncfs for 80 downloads"
$CHECK "$T/trace2" "$R2" "$T/many.T" "$T/pre2.json" > "$T/check" ||
    fail "trace check many: $(cat "$T/check")"
echo "$TEST_NAME: many: $(cat "$T/check")"
grep -v '^syncfs ' "$T/trace2" > "$T/trace2.nosync"
$CHECK "$T/trace2.nosync" "$R2" "$T/many.T" "$T/pre2.json" > "$T/check" &&
    fail "many without syncfs: the check passed"
grep -q 'renamed without an fsync before' "$T/check" ||
    fail "many without syncfs: $(cat "$T/check")"
exit 0
