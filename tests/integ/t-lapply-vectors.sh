#!/bin/sh
# t-lapply-vectors: the Radmind conformance cases for lapply
# (vectors/lapply-n, vectors/lapply-err-plus-no-header), byte for byte.
# lapply-n ends with an fsdiff of the result: when fsdiff is not built
# only lapply's part of stdout is compared and the result is checked
# object by object instead.
. "${top_srcdir:-.}/tests/integ/lapply-lib.sh"
need_root
V=${CAIRN_VECTORS:-$top_srcdir/tests/vectors}
if [ ! -x "$V/make-trees" ] || [ ! -d "$V/lapply-n" ]; then
	echo "skip: conformance vectors not found (set CAIRN_VECTORS)"
	exit 77
fi
command -v python3 > /dev/null || { echo "skip: make-trees needs python3"; exit 77; }
TREES=$T/trees
bash "$V/make-trees" "$TREES" > "$T/make-trees.log" 2>&1 ||
    fail "make-trees failed"
BIN=$(cd "$(dirname "$LAPPLY")" && pwd)

# runcase NAME: run the case's cmd, output in $T/out $T/err, status $rc.
runcase() {
	ln -sfn "$V/$1" "$TREES/case"
	(cd "$TREES" && PATH=$BIN:$PATH bash case/cmd) > "$T/out" 2> "$T/err"
	rc=$?
}

runcase lapply-err-plus-no-header
cmp -s "$T/out" "$V/lapply-err-plus-no-header/stdout" || fail "err: stdout"
cmp -s "$T/err" "$V/lapply-err-plus-no-header/stderr" || fail "err: stderr"
[ "$rc" = "$(cat "$V/lapply-err-plus-no-header/rc")" ] || fail "err: rc $rc"

if [ -x "$BIN/fsdiff" ]; then
	runcase lapply-n
	cmp -s "$T/err" "$V/lapply-n/stderr" || fail "lapply-n: stderr"
	[ "$rc" = "$(cat "$V/lapply-n/rc")" ] || fail "lapply-n: rc $rc"
	cmp -s "$T/out" "$V/lapply-n/stdout" || fail "lapply-n: stdout"
	exit 0
fi
# lapply's half of case/cmd.
ln -sfn "$V/lapply-n" "$TREES/case"
(cd "$TREES" && rm -rf work && cp -a mod work && cd work &&
    "$LAPPLY" -n ../case/apply.T) > "$T/out" 2> "$T/err"
rc=$?
cmp -s "$T/err" "$V/lapply-n/stderr" || fail "lapply-n: stderr"
[ "$rc" = "$(cat "$V/lapply-n/rc")" ] || fail "lapply-n: rc $rc"
sed '/^== remaining differences$/,$d' "$V/lapply-n/stdout" > "$T/exp"
cmp -s "$T/exp" "$T/out" || {
	diff "$T/exp" "$T/out" >&2
	fail "lapply-n: lapply's stdout"
}
W=$TREES/work
chk() {
	got=$(stat -c "$1" "$W/$2")
	[ "$got" = "$3" ] || fail "lapply-n: $2: '$got', expected '$3'"
}
chk '%F %a %u %g %Y' files/chunky "regular file 644 0 0 1700000003"
chk '%F %a %u %g' files/empty "regular empty file 644 0 0"
chk '%F %a %u %g' modes/d1777 "directory 1777 0 0"
chk '%F %a %u %g' modes/d2775 "directory 2775 0 100"
chk '%F %a %u %g' modes/suid "regular file 4755 0 0"
chk '%F %a %u %g' order/a/x.d "directory 755 0 0"
chk '%F %a %u %g' order/a.d "directory 755 0 0"
chk '%F %a %u %g' special/fifo "fifo 644 0 0"
chk '%F %a %u %g %t %T' special/tty9 "character special file 620 0 5 4 9"
chk '%F %a %u %g' var/log/other.log "regular file 640 0 4"
chk '%i' hard/h2 "$(stat -c %i "$W/hard/h1")"
[ "$(readlink "$W/links/abs")" = /etc/passwd ] || fail "links/abs"
[ "$(readlink "$W/links/rel")" = ../files/small ] || fail "links/rel"
for gone in added etc/motd.hl files/new "names/new name" special/sock \
    var/cache/c3 var/log/new.log; do
	[ ! -e "$W/$gone" ] && [ ! -L "$W/$gone" ] || fail "$gone not removed"
done
# "+" lines are skipped without a network: those objects are untouched.
chk '%F' files/future directory
[ "$(readlink "$W/files/one")" = small ] || fail "files/one touched"
exit 0
