#!/bin/sh
# t-lapply-signals: an interrupted lapply leaves nothing behind.
#
# cairnd serves a tree of about 350 files in 12 directories (new,
# changed and unchanged files, two of 1 MiB, metadata-only changes, new
# and changed symbolic links, a new directory with files, removed files
# and a removed directory, a file that becomes a directory and one that
# becomes a symbolic link).  Applied to the old tree, lapply, with one
# session and with -j 4, is sent SIGINT, SIGTERM or SIGHUP (in turn)
# just before its kth mutating file-system call (tests/integ/shim.so),
# for 36 values of k spread over the whole run: it must die of the
# signal (a shell sees 130, 143, 129), leave no temp file anywhere in the
# tree, every path in its old or its new state (absent only where its
# type changes), and fsdiff -A then lapply must bring the tree to the
# new one (tests/integ/sigcheck.py).
#
# Then: started with SIGHUP ignored (nohup), lapply keeps ignoring it
# and completes; and on a terminal (tests/integ/ptyrun.py), SIGINT in
# the middle of a run clears the status line.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lapply fsdiff
need_cmd python3
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
need_shim
SIGCHECK="python3 $top_srcdir/tests/integ/sigcheck.py"
CHECK="python3 $top_srcdir/tests/integ/crashcheck.py"
PTYRUN="$top_srcdir/tests/integ/ptyrun.py"
umask 022

# The new tree and the old one.
N=$T/new
O=$T/old
python3 - "$N" "$O" <<'PY' || fail "cannot make the trees"
import os, sys
new, old = sys.argv[1], sys.argv[2]

def write(p, data, mode=0o644):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, 'wb') as f:
        f.write(data)
    os.chmod(p, mode)

for d in range(12):
    for i in range(28):
        rel = 'd%02d/f%02d' % (d, i)
        body = ('%s line\n' % rel).encode() * (1 + (d * 28 + i) % 40)
        if i % 3 != 2:                       # a third unchanged
            write(os.path.join(old, rel), b'old ' + body)
        if i != 27:                          # f27: removed
            write(os.path.join(new, rel), b'new ' + body if i % 3 != 2
                  else b'old ' + body)
        else:
            write(os.path.join(old, rel), b'gone\n')
    # mode only: same bytes, 0600 -> 0644
    write(os.path.join(old, 'd%02d/meta' % d), b'meta\n', 0o600)
    write(os.path.join(new, 'd%02d/meta' % d), b'meta\n', 0o644)
big = bytes((i * 7 + 3) % 251 for i in range(1 << 20))
write(os.path.join(new, 'd03/big'), big)
write(os.path.join(new, 'd08/big'), big[::-1])
write(os.path.join(old, 'd08/big'), big)
for i in range(10):
    write(os.path.join(new, 'fresh/n%d' % i), b'fresh %d\n' % i)
for i in range(5):
    write(os.path.join(old, 'stale/s%d' % i), b'stale %d\n' % i)
write(os.path.join(old, 'became-dir'), b'a file\n')
write(os.path.join(new, 'became-dir/inner'), b'inner\n')
write(os.path.join(old, 'became-link'), b'a file\n')
os.symlink('d00/f00', os.path.join(new, 'became-link'))
os.symlink('old-target', os.path.join(old, 'link'))
os.symlink('new-target', os.path.join(new, 'link'))
os.symlink('d01/f01', os.path.join(new, 'newlink'))
PY
find "$N" "$O" -exec touch -h -d "@$T0" {} +
# mtime only
touch -d "@1600000000" "$O/d05/f02"

REPO=$T/repo
tree_repo "$REPO" "$N" new
mkdir "$T/k"
cp "$REPO/command/new.K" "$REPO/transcript/new.T" "$T/k/"
K=$T/k/new.K
$CHECK snap "$O" "$T/old.json" || fail "snap old"
$CHECK snap "$N" "$T/new.json" || fail "snap new"
R=$T/root

start_cairnd "$REPO"

sweep()
{
	OLDTREE=$O OLDJSON=$T/old.json NEWJSON=$T/new.json ROOT=$R \
	KFILE=$K APPLYT=$T/apply.T FSDIFF=$FSDIFF LAPPLY=$LAPPLY SHIM=$SHIM \
	PORT=$PORT TMP=$T $SIGCHECK lapply 36 "$1" >"$T/m" ||
	    fail "-j $1: the sweep failed"
	echo "$TEST_NAME: -j $1: $(cut -d' ' -f2 "$T/m") interruptions" \
	    "over $(cut -d' ' -f1 "$T/m") mutating calls"
}
sweep 1
sweep 4

# fresh: the old tree at $R and its applicable transcript $T/apply.T.
fresh()
{
	rm -rf "$R"
	cp -a "$O" "$R" || fail "cp -a"
	in_dir "$R" "$FSDIFF" -A -c sha1 -K "$K" -o "$T/apply.T" . ||
	    fail "fsdiff -A"
}

# SIGHUP ignored when lapply starts (nohup): it stays ignored, and the
# run completes.
fresh
RC=0
(
	cd "$R" || exit 99
	trap '' HUP
	LD_PRELOAD=$SHIM CAIRN_SHIM_STOP=mutate:200 \
	    CAIRN_SHIM_RUN='kill -HUP $PPID' \
	    exec "$LAPPLY" -q -c sha1 -h 127.0.0.1 -p "$PORT" "$T/apply.T"
) >"$T/out" 2>"$T/err" || RC=$?
assert_eq 0 "$RC" "SIGHUP ignored: exit ($(cat "$T/err"))"
$CHECK same "$T/new.json" "$R" >"$T/diff" ||
    fail "SIGHUP ignored: not the new tree: $(cat "$T/diff")"

# On a terminal (stderr; stdout to a file, so that no message takes the
# status line off the screen): SIGINT halfway through the mutating
# calls.  The status line is cleared, nothing is left.
fresh
M=$(cut -d' ' -f1 "$T/m")
RC=0
in_dir "$R" python3 "$PTYRUN" -o "$T/tty.out" -t 60 "$T/tty" \
    env LD_PRELOAD="$SHIM" \
    CAIRN_SHIM_STOP=mutate:$((M / 2)) CAIRN_SHIM_RUN='kill -INT $PPID' \
    "$LAPPLY" -c sha1 -h 127.0.0.1 -p "$PORT" "$T/apply.T" >/dev/null ||
    RC=$?
assert_eq 130 "$RC" "tty: exit status"
python3 "$PTYRUN" -S "$T/tty" "$T/tty.screen" "$T/tty.drawn" ||
    fail "cannot replay $T/tty"
[ -s "$T/tty.drawn" ] || fail "tty: no status line was drawn"
grep -q '%.*files' "$T/tty.screen" &&
    fail "tty: a status line is left on the screen: $(tail -n 3 "$T/tty.screen")"
assert_no_files "tty: temp files" "$R" -name '*.radmind.*'
exit 0
