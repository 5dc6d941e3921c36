#!/bin/sh
# t-lapply-crash: crash consistency of lapply (docs/security.md G1, I2, C8).
#
# cairnd serves a loadset that, applied to an "old" tree, downloads new
# files over old ones, installs a new set-uid file, changes the owner of
# an existing file to root with mode 4755 (as root), adds a hard link,
# changes the target of a symbolic link, replaces a directory by a file
# and a file by a directory, removes a file and a directory, and changes
# only the metadata of a file (0664 group A -> 0644 group B as root,
# 0664 -> 0644 otherwise).
#
# One run under tests/integ/shim.so counts lapply's mutating file-system
# calls (M).  Then, for every k in 1..M, lapply runs on a fresh copy of
# the old tree and is killed (SIGKILL) just before its kth mutating call;
# afterwards every managed path must be wholly old or wholly new
# (content, type, mode, owner, group, mtime), absent only where its type
# changes.  The symbolic link, made under a temp name and renamed over
# the old one, exists at every crash point.  The metadata-only paths may
# also show the intermediate states of lapply's three-step metadata
# change (apply_owner_mode: narrow the mode to what old and new share,
# without set-id bits; change the owner; set the new mode): the old
# owner and group with a subset of the old mode, or the new owner and
# group with a subset of the new mode.  No set-id file exists with an
# owner other than the declared one, nothing outside the root changes,
# and the only other names are temp files ("*.radmind.*").  A rerun of
# fsdiff -A and lapply without the shim then exits 0, converges (fsdiff
# -A finds nothing) and leaves no temp file.
#
# The owner changes need root; as another user the sweep runs all the
# rest with the user's own ids.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lapply fsdiff
need_cmd python3
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
need_shim
CHECK="python3 $top_srcdir/tests/integ/crashcheck.py"
MAXM=400
umask 022

U=$(id -u)
G=$(id -g)
if [ "$U" -eq 0 ]; then
	TU=1234 TG=1234 GA=1235 GB=1236
else
	TU=$U TG=$G GA=$G GB=$G
fi
OLDT=1600000000

# The new tree, served as loadset new.T.
N=$T/new
mkdir -p "$N/dir" "$N/bin" "$N/links" "$N/filedir"
printf 'new a\n' > "$N/dir/a"
python3 -c 'import sys
sys.stdout.buffer.write(bytes((i * 7 + 3) % 251 for i in range(300000)))' \
    > "$N/dir/big"
printf '#!/bin/sh\necho new\n' > "$N/bin/newsuid"
printf 'suid tool\n' > "$N/bin/chsuid"
printf 'one new\n' > "$N/links/one"
ln "$N/links/one" "$N/links/two"
ln -s target-new "$N/lnk"
printf 'now a file\n' > "$N/dirfile"
printf 'x\n' > "$N/filedir/x"
printf 'meta\n' > "$N/meta"
printf 'keep\n' > "$N/keep"
chmod 4755 "$N/bin/newsuid" "$N/bin/chsuid"
chmod 0644 "$N/meta"
if [ "$U" -eq 0 ]; then
	chown 0:0 "$N/bin/newsuid" "$N/bin/chsuid"
	chmod 4755 "$N/bin/newsuid" "$N/bin/chsuid"
	chown 0:"$GB" "$N/meta"
fi
find "$N" -exec touch -h -d "@$T0" {} +

# The old tree.
O=$T/old
mkdir -p "$O/dir" "$O/bin" "$O/links" "$O/dirfile" "$O/gonedir"
printf 'old a\n' > "$O/dir/a"
head -c 100000 /dev/zero > "$O/dir/big"
printf 'suid tool\n' > "$O/bin/chsuid"
printf 'one old\n' > "$O/links/one"
ln -s target-old "$O/lnk"
printf 'inner\n' > "$O/dirfile/inner"
printf 'was a file\n' > "$O/filedir"
printf 'gone\n' > "$O/gone"
printf 'f\n' > "$O/gonedir/f"
printf 'meta\n' > "$O/meta"
printf 'keep\n' > "$O/keep"
chmod 0755 "$O/bin/chsuid"
chmod 0664 "$O/meta"
[ "$U" -eq 0 ] && chown "$TU:$TG" "$O/bin/chsuid"
[ "$U" -eq 0 ] && chown 0:"$GA" "$O/meta"
find "$O" -exec touch -h -d "@$OLDT" {} +
touch -d "@$T0" "$O/bin/chsuid" "$O/meta" "$O/keep"
META="./meta ./bin/chsuid"

# The repository.
REPO=$T/repo
tree_repo "$REPO" "$N" new
# The client's copy, as ktcheck would leave it.
mkdir "$T/k"
cp "$REPO/command/new.K" "$REPO/transcript/new.T" "$T/k/"
K=$T/k/new.K

$CHECK snap "$O" "$T/old.json" || fail "snap old"
$CHECK snap "$N" "$T/new.json" || fail "snap new"

# The work area: the apply root and a sentinel beside it.
W=$T/w
R=$W/root
mkdir -p "$W/outside"
printf 'sentinel\n' > "$W/outside/victim"
touch -d "@$OLDT" "$W/outside/victim" "$W/outside"
$CHECK snap "$W/outside" "$T/outside.json" || fail "snap outside"

start_cairnd "$REPO"
$CHECK snap "$REPO" "$T/repo.json" || fail "snap repo"

# The sweep itself: crashcheck.py runs the loop (see there).
OLDTREE=$O OLDJSON=$T/old.json NEWJSON=$T/new.json ROOT=$R \
OUTSIDE=$W/outside OUTJSON=$T/outside.json KFILE=$K APPLYT=$T/apply.T \
FSDIFF=$FSDIFF LAPPLY=$LAPPLY SHIM=$SHIM PORT=$PORT TMP=$T \
    $CHECK sweep "$MAXM" $META > "$T/m" || fail "sweep failed"
M=$(cat "$T/m")
$CHECK same "$T/old.json" "$O" > "$T/diff" || fail "old tree changed"
$CHECK same "$T/repo.json" "$REPO" > "$T/diff" || fail "repository changed"
echo "$TEST_NAME: $M crash points swept"
exit 0
