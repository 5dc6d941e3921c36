#!/bin/sh
# t-lapply-faults: a pull under injected faults (docs/security.md G3, G4).
#
# (a) G4: with tests/integ/shim.so making every read, write, recv, send,
#     readv and writev transfer one byte (CAIRN_SHIM_SHORT=1), then with
#     every third of them and every third poll failing with EINTR
#     (CAIRN_SHIM_EINTR=3), ktcheck, fsdiff -A and lapply, in clear and
#     with zlib (-Z 6), end with the same client files, the same output
#     and the same tree (fsdiff -C, diff -r) as an unperturbed pull.
# (b) G3, ENOSPC (root: a small tmpfs holds the apply root): a download
#     that does not fit with the 16 MiB lapply keeps free is refused up
#     front; one that fits when checked but meets a full file system (the
#     shim's stop hook fills it just before the temp file is created)
#     fails with ENOSPC.  Either way lapply exits non-zero with a message
#     naming the path, no temp file is left and the old file is intact.
# (c) G3, EFBIG: under "ulimit -f" the same download fails with EFBIG
#     (lapply ignores SIGXFSZ and does not die of it), with a message
#     naming the path, no temp file, the old file intact.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck lapply fsdiff
need_cmd python3
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
need_shim
umask 022
U=$(id -u)
G=$(id -g)

# --- (a) short transfers and EINTR -------------------------------------

N=$T/new
mkdir -p "$N/etc" "$N/data"
printf 'hello world\n' > "$N/etc/motd"
: > "$N/etc/empty"
printf 'a\r\nb\000c\377\n' > "$N/etc/bin ary"
python3 -c 'import sys
sys.stdout.buffer.write(bytes((i * 13 + 5) % 256 for i in range(40000)))' \
    > "$N/data/blob"
printf 'compressible\n%.0s' $(seq 1 400) > "$N/data/text"
ln -s motd "$N/etc/motd.link"
chmod 0600 "$N/etc/empty"
find "$N" -exec touch -h -d "@$T0" {} +
tree_repo "$T/repoa" "$N" pull

O=$T/old
mkdir -p "$O/etc" "$O/gone"
printf 'old motd\n' > "$O/etc/motd"
printf 'old\n' > "$O/data"
printf 'x\n' > "$O/gone/x"

start_cairnd "$T/repoa" -Z 9

# pull NAME ZLIB-OPTS ENV...: ktcheck, fsdiff -A and lapply into
# $T/pull.NAME (client files in $T/pull.NAME.k) with ENV set for all
# three; their outputs and a listing of the result are in
# $T/pull.NAME.log.
pull()
{
	_n=$1 _z=$2
	shift 2
	_r=$T/pull.$_n
	_k=$T/pull.$_n.k
	_l=$T/pull.$_n.log
	rm -rf "$_r" "$_k"
	cp -a "$O" "$_r" || fail "cp"
	mkdir "$_k"
	: > "$_k/command.K"
	touch -d "@$T0" "$_k/command.K"
	run_capture "$_l" "$T/err" env "$@" "$KTCHECK" -c sha1 $_z \
	    -K "$_k/command.K" -h 127.0.0.1 -p "$PORT"
	assert_eq 1 "$RC" "$_n: ktcheck: $(cat "$T/err")"
	sed "s|$_k/|K/|" "$_l" > "$T/kt" && mv "$T/kt" "$_l"
	run_capture "$T/apply.T" "$T/err" in_dir "$_r" \
	    env "$@" "$FSDIFF" -A -c sha1 -K "$_k/command.K" .
	assert_eq 0 "$RC" "$_n: fsdiff -A: $(cat "$T/err")"
	cat "$T/apply.T" >> "$_l"
	run_capture "$T/out" "$T/err" in_dir "$_r" \
	    env "$@" "$LAPPLY" -c sha1 $_z -h 127.0.0.1 -p "$PORT" \
	    "$T/apply.T"
	assert_eq 0 "$RC" "$_n: lapply: $(cat "$T/err")"
	cat "$T/out" >> "$_l"
	(cd "$_r" && "$FSDIFF" -C -c sha1 -K /dev/null .) >> "$_l" ||
	    fail "$_n: fsdiff -C"
	tree_stat "$_r" >> "$_l"
	assert_no_files "$_n: temp left" "$_r" -name '*.radmind.*'
}

# same NAME REF: pull NAME ended exactly like pull REF.
same()
{
	assert_file_eq "$T/pull.$2.log" "$T/pull.$1.log" "$1"
	assert_tree_eq "$T/pull.$2" "$T/pull.$1" "$1: tree"
	assert_tree_eq "$T/pull.$2.k" "$T/pull.$1.k" "$1: client files"
}

pull ref "" A=1
grep -q '^+ f ./data/blob' "$T/apply.T" || fail "nothing downloaded"
cmp -s "$N/data/blob" "$T/pull.ref/data/blob" || fail "reference pull"
pull zref "-Z 6" A=1
same zref ref
pull short "" LD_PRELOAD="$SHIM" CAIRN_SHIM_SHORT=1
same short ref
pull eintr "" LD_PRELOAD="$SHIM" CAIRN_SHIM_EINTR=3
same eintr ref
pull zshort "-Z 6" LD_PRELOAD="$SHIM" CAIRN_SHIM_SHORT=1
same zshort ref
pull zeintr "-Z 6" LD_PRELOAD="$SHIM" CAIRN_SHIM_EINTR=3
same zeintr ref
pull both "-Z 6" LD_PRELOAD="$SHIM" CAIRN_SHIM_SHORT=1 CAIRN_SHIM_EINTR=3
same both ref
stop_cairnd

# --- a one MiB download over an old file --------------------------------

B=$T/big
mkdir "$B"
head -c 1048576 /dev/urandom > "$B/big"
touch -d "@$T0" "$B/big" "$B"
tree_repo "$T/repob" "$B" big
mkdir "$T/kb"
cp "$T/repob/command/big.K" "$T/repob/transcript/big.T" "$T/kb/"
start_cairnd "$T/repob"

# setup DIR: DIR holds the old ./big; its applicable transcript is in
# $T/big.T.
setup()
{
	rm -rf "$1"
	mkdir "$1" || fail "mkdir $1"
	printf 'old big\n' > "$1/big"
	touch -d "@$OLDT" "$1/big"
	OLDSTAT=$(stat -c '%i %a %u %g %s %Y' "$1/big")
	(cd "$1" && "$FSDIFF" -A -c sha1 -K "$T/kb/big.K" .) > "$T/big.T" ||
	    fail "fsdiff -A in $1"
	grep -q '^+ f ./big ' "$T/big.T" || fail "no download of ./big"
}
OLDT=1600000000

# failed DIR LABEL: lapply failed cleanly on ./big in DIR.
failed()
{
	[ "$RC" -ne 0 ] || fail "$2: lapply succeeded"
	[ "$RC" -lt 128 ] || fail "$2: lapply died (exit $RC)"
	grep -q '\./big' "$T/err" || fail "$2: no message naming ./big: $(cat "$T/err")"
	assert_no_files "$2: temp file left" "$1" -name '*.radmind.*'
	[ "$(stat -c '%i %a %u %g %s %Y' "$1/big")" = "$OLDSTAT" ] ||
	    fail "$2: the old file changed"
	[ "$(cat "$1/big")" = "old big" ] || fail "$2: old content changed"
}

# --- (c) EFBIG ------------------------------------------------------------

setup "$T/efbig"
# 256 blocks: 128 or 256 KiB, whichever the shell counts in.
run_capture "$T/out" "$T/err" in_dir "$T/efbig" sh -c 'ulimit -f 256 &&
    exec "$@"' sh "$LAPPLY" -c sha1 -h 127.0.0.1 -p "$PORT" "$T/big.T"
failed "$T/efbig" EFBIG
grep -q 'File too large' "$T/err" || fail "EFBIG: $(cat "$T/err")"

# --- (b) ENOSPC (root) ----------------------------------------------------

# Parts (a) and (c) passed; without root the rest is skipped.
[ "$U" -eq 0 ] || skip "(a) and (c) passed; the ENOSPC parts need root"
MNT=$T/mnt
mkdir "$MNT"
mount -t tmpfs -o size=8m tmpfs "$MNT" 2>/dev/null ||
    skip "(a) and (c) passed; cannot mount a tmpfs for the ENOSPC parts"
at_exit 'umount "$MNT" 2>/dev/null'

# Refused up front: 1 MiB and the 16 MiB kept free exceed 8 MiB.
setup "$MNT/root"
run_capture "$T/out" "$T/err" in_dir "$MNT/root" \
    "$LAPPLY" -c sha1 -h 127.0.0.1 -p "$PORT" "$T/big.T"
failed "$MNT/root" "refusal"
grep -q 'line [0-9]*: \./big: 1048576 bytes do not fit: [0-9]* bytes free, 16777216 kept free' \
    "$T/err" || fail "refusal: $(cat "$T/err")"
umount "$MNT" || fail "umount"

# A real ENOSPC: room enough when checked, full once the temp file is
# about to be created (the first mutating call).
mount -t tmpfs -o size=24m tmpfs "$MNT" || fail "mount"
setup "$MNT/root"
run_capture "$T/out" "$T/err" in_dir "$MNT/root" \
    env LD_PRELOAD="$SHIM" CAIRN_SHIM_STOP=mutate:1 \
    CAIRN_SHIM_RUN="dd if=/dev/zero of='$MNT/fill' bs=64k 2>/dev/null; :" \
    "$LAPPLY" -c sha1 -h 127.0.0.1 -p "$PORT" "$T/big.T"
[ -s "$MNT/fill" ] || fail "ENOSPC: the hook did not run"
failed "$MNT/root" ENOSPC
grep -q 'No space left on device' "$T/err" || fail "ENOSPC: $(cat "$T/err")"
rm -f "$MNT/fill"

# With the space back, the same transcript applies.
run_capture "$T/out" "$T/err" in_dir "$MNT/root" \
    "$LAPPLY" -c sha1 -h 127.0.0.1 -p "$PORT" "$T/big.T"
assert_eq 0 "$RC" "after ENOSPC: $(cat "$T/err")"
cmp -s "$B/big" "$MNT/root/big" || fail "after ENOSPC: content"
exit 0
