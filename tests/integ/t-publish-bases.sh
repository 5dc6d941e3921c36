#!/bin/sh
# cairn-publish(8) keeps what a new version changes: with -f, the old
# versions of the changed files become bases owned by the loadset, with
# -r OLD those of OLD, owned by both; the deltas to the new files are
# queued, and cairn-publish -d builds them (a delta not worth keeping is
# remembered as such).  Checked: the bases are the old bytes under their
# digests, unchanged, new and removed files make none, each delta applied
# to its base gives the new file byte for byte, a base whose content was
# swapped is removed and never used, -O evicts the bases used least
# lately (cairnd -O too, at start-up), and the usage errors of -d, -r
# and -O.
. "$top_srcdir/tests/integ/lib.sh"
need_zstd
need_tool fsdiff cairn-publish cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
umask 022

R=$T/repo
S=$R/delta/sha1
mkdir -p "$R/command" "$R/transcript" "$R/file" "$R/special" \
    "$R/tmp/transcript" "$R/tmp/file" || fail "mkdir"
. "$top_srcdir/tests/integ/dstorelib.sh"

# has_delta OLD NEW: the delta from file OLD to file NEW is kept, and
# applied to the base gives NEW.
has_delta()
{
	_b=$(name "$1")
	_d=$S/delta/$_b.$(name "$2")
	[ -f "$_d" ] || fail "no delta $1 -> $2"
	"$APPLY" "$S/base/$_b" "$_d" "$T/applied" || fail "delta $1 -> $2"
	cmp -s "$T/applied" "$2" || fail "delta $1 -> $2: not the new file"
}

# Version 1.
mkdir -p "$T/ref/opt/app" "$T/ref/etc" || fail "mkdir"
text "$T/ref/opt/app/lib.so" 1 8000
text "$T/ref/opt/app/with space.txt" 1 2000
text "$T/ref/opt/app/same.txt" 1 1000
text "$T/ref/opt/app/gone.txt" 1 1000
python3 -c 'import os, sys; sys.stdout.buffer.write(os.urandom(100000))' \
    >"$T/ref/opt/app/data.bin"
find "$T/ref" -exec touch -h -d @1700000000 {} +

# Usage errors: exit 2, nothing made.
publish 2 -d -f
publish 2 -d -r x.T
publish 2 -d a.T b.T
publish 2 -O 12x app.T
publish 2 -O -1 app.T
stage app.T
publish 2 -r ../x app.T
publish 2 -r app.T app.T
publish 2 -r nosuch.T app.T
grep -q 'nosuch.T: not a published loadset' "$T/perr" ||
    fail "-r nosuch.T: $(cat "$T/perr")"
[ ! -e "$R/delta" ] || fail "usage errors made $R/delta"

publish 0 app.T
[ ! -e "$R/delta" ] || fail "a first publication made $R/delta"
publish 0 -d
grep -q '^deltas: 0 built' "$T/pout" || fail "-d: $(cat "$T/pout")"
cp -a "$T/ref" "$T/v1" || fail "cp"

# Version 2 replaces it (-f): three files change, one is new, one goes.
text "$T/ref/opt/app/lib.so" 2 8000
text "$T/ref/opt/app/with space.txt" 2 2000
python3 -c 'import os, sys; sys.stdout.buffer.write(os.urandom(100000))' \
    >"$T/ref/opt/app/data.bin"
rm "$T/ref/opt/app/gone.txt"
text "$T/ref/opt/app/new.txt" 1 100
find "$T/ref" -exec touch -h -d @1700000100 {} +
stage app.T
publish 0 -f app.T
grep -q '^app.T: published$' "$T/pout" || fail "-f: $(cat "$T/pout")"
grep -q '^app.T: 3 deltas to build (cairn-publish -d)$' "$T/pout" ||
    fail "-f: $(cat "$T/pout")"
[ ! -e "$R/tmp/file/app.T" ] || fail "the replaced tree is left"
for f in lib.so "with space.txt" data.bin; do
	b=$S/base/$(name "$T/v1/opt/app/$f")
	cmp -s "$b" "$T/v1/opt/app/$f" || fail "$f: base not the old file"
	assert_eq "app.T" "$(cat "$S/owner/$(name "$T/v1/opt/app/$f")")" \
	    "$f: owners"
done
assert_eq 3 "$(ls "$S/base" | wc -l)" "bases (not same, new or gone)"
assert_eq 3 "$(ls "$S/queue" | wc -l)" "queued deltas"

# -d builds them: two deltas, the noise not worth one.  What it built
# is made durable (the delta directory synced) before a queue entry
# goes, so that a crash leaves one or the other (the fault injector's
# trace of the run).
need_shim
LD_PRELOAD=$SHIM CAIRN_SHIM_TRACE=$T/d.trace
export LD_PRELOAD CAIRN_SHIM_TRACE
publish 0 -d
unset LD_PRELOAD CAIRN_SHIM_TRACE
awk -v d="$S/delta" -v q="$S/queue/" '
    ($1 == "rename" || $1 == "renameat" || $1 == "renameat2") &&
    index($3, d "/") == 1 && $NF == "0" { built++; pending = 1; next }
    $1 == "fsync" && $2 == d && $NF == "0" { pending = 0; next }
    ($1 == "unlink" || $1 == "unlinkat") && index($2, q) == 1 &&
    pending { bad = 1 }
    END { exit bad || built < 3 }' "$T/d.trace" ||
    fail "-d: a queue entry went before what was built was synced: $(cat "$T/d.trace")"
grep -q '^deltas: 2 built .* 1 not worth keeping, 0 skipped, 0 failed$' \
    "$T/pout" || fail "-d: $(cat "$T/pout")"
assert_eq 0 "$(ls "$S/queue" | wc -l)" "queue after -d"
has_delta "$T/v1/opt/app/lib.so" "$R/file/app.T/opt/app/lib.so"
has_delta "$T/v1/opt/app/with space.txt" \
    "$R/file/app.T/opt/app/with space.txt"
none=$S/delta/$(name "$T/v1/opt/app/data.bin").$(name "$T/ref/opt/app/data.bin")
[ -f "$none.none" ] && [ ! -e "$none" ] || fail "data.bin: no verdict"
publish 0 -d
grep -q '^deltas: 0 built' "$T/pout" || fail "-d again: $(cat "$T/pout")"
cp -a "$T/ref" "$T/v2" || fail "cp"

# -r: app-2.T succeeds app.T, which stays in service.
text "$T/ref/opt/app/lib.so" 3 8000
text "$T/ref/opt/app/with space.txt" 3 2000
stage app-2.T
publish 0 -r app.T app-2.T
grep -q '^app-2.T: 2 deltas to build' "$T/pout" || fail "-r: $(cat "$T/pout")"
[ -f "$R/transcript/app.T" ] && [ -d "$R/file/app.T" ] ||
    fail "-r took app.T out of service"
printf 'app.T\napp-2.T\n' >"$T/owners"
assert_file_eq "$T/owners" "$S/owner/$(name "$T/v2/opt/app/with space.txt")" \
    "owners of a base -r kept"

# A base swapped for other bytes is not used, and goes.
lb=$S/base/$(name "$T/v2/opt/app/lib.so")
cp "$T/v1/opt/app/lib.so" "$T/swap" && mv "$T/swap" "$lb" || fail "swap"
publish 1 -d app-2.T
grep -q "content does not match its digest: removed" "$T/perr" ||
    fail "-d, a swapped base: $(cat "$T/perr")"
grep -q '^deltas: 1 built .* 1 failed$' "$T/pout" ||
    fail "-d, a swapped base: $(cat "$T/pout")"
[ ! -e "$lb" ] && [ ! -e "$S/owner/$(name "$T/v2/opt/app/lib.so")" ] ||
    fail "the swapped base is left"
ls "$S/delta" | grep -q "^$(name "$T/v2/opt/app/lib.so")\." &&
    fail "a delta from the swapped base"
has_delta "$T/v2/opt/app/with space.txt" \
    "$R/file/app-2.T/opt/app/with space.txt"
cmp -s "$R/file/app.T/opt/app/lib.so" "$T/v2/opt/app/lib.so" ||
    fail "the file in service changed"
cp -a "$T/ref" "$T/v3" || fail "cp"

# -O: the bases used least lately go first.  All so far were last used
# long ago; the one app-3.T keeps fits the bound, the rest does not.
touch -d @1700000000 "$S"/owner/* || fail "touch"
text "$T/ref/opt/app/lib.so" 4 8000
stage app-3.T
size=$(wc -c <"$T/v3/opt/app/lib.so")
publish 0 -O $((size * 12 / 10)) -r app-2.T app-3.T
assert_eq 1 "$(ls "$S/base" | wc -l)" "bases under -O"
cmp -s "$S/base/$(name "$T/v3/opt/app/lib.so")" "$T/v3/opt/app/lib.so" ||
    fail "-O: the new base went"
assert_eq 0 "$(ls "$S/delta" | wc -l)" "deltas of evicted bases"
assert_eq 1 "$(ls "$S/queue" | wc -l)" "queued under -O"
publish 0 -d app-3.T
has_delta "$T/v3/opt/app/lib.so" "$R/file/app-3.T/opt/app/lib.so"

# cairnd keeps its own -O from start-up: under 1k, no base stays, nor
# a delta from one.
echo '127.0.0.1 app.K' >"$R/config"
: >"$R/command/app.K"
start_cairnd "$R" -O 1k
assert_eq 0 "$(ls "$S/base" | wc -l)" "bases under cairnd -O 1k"
assert_eq 0 "$(ls "$S/owner" "$S/delta" | grep -vc ':$\|^$')" \
    "owners and deltas under cairnd -O 1k"
echo "$TEST_NAME: ok"
