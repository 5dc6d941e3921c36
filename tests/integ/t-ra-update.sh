#!/bin/sh
# t-ra-update: cairn-ra update pulls a loadset from cairnd into the apply
# root and writes the status file: one line a metric for the verb, the
# objects lapply changed, and the byte counters the tools printed
# (summed over ktcheck's and lapply's sessions).  A second update finds
# nothing new and leaves local drift alone; force repairs it; the status
# file then holds both verbs.  create uploads the local changes as a
# loadset.  The delta counters are 0 from a server without DELTA; from
# one with a store of deltas (a loadset published with cairn-publish,
# pulled, published again over itself with its deltas built), they are
# those of lapply's delta line, which the administrator sees once.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd cairn-publish fsdiff
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/ralib.sh"

mkdir -p "$SRC/d"
i=0
while [ "$i" -lt 400 ]; do
	echo "line $i of a compressible file"
	i=$((i + 1))
done >"$SRC/big"
printf 'alpha\n' >"$SRC/a"
printf 'charlie\n' >"$SRC/d/c"
ln -s a "$SRC/l"
chmod 755 "$SRC" "$R"
ra_publish
start_cairnd "$REPO" -Z 6
ra_conf ZLEVEL=6

before=$(date +%s)
ra -t update
assert_eq 0 "$RC" "update: $(cat "$T/ra.err")"
for p in a big d/c; do
	assert_file_eq "$SRC/$p" "$R/$p" "$p"
done
assert_eq a "$(readlink "$R/l")" "symbolic link l"
grep -q '^\./big: created' "$T/ra.out" || fail "no lapply lines: $(cat "$T/ra.out")"

# The temporary files were kept (-t): the counters must be the sums of
# the tools' own lines, and the objects changed those lapply reported.
tmpd=$(sed -n 's/^cairn-ra: temporary files kept in //p' "$T/ra.err")
[ -n "$tmpd" ] && [ -d "$tmpd" ] || fail "no kept temporary directory"
at_exit "rm -rf '$tmpd'"
sums=$(cat "$tmpd/ktcheck.out" "$tmpd/lapply.out" |
    sed -n 's/^bytes: received \([0-9]*\) (\([0-9]*\) on the wire).*/\1 \2/p' |
    awk '{ a += $1; b += $2 } END { print a, b }')
assert_eq "$sums" "$(metric bytes_received update) $(metric bytes_wire update)" \
    "bytes received, raw and on the wire"
assert_eq 2 "$(grep -c '^bytes: received' "$tmpd/ktcheck.out" "$tmpd/lapply.out" |
    awk -F: '{ n += $2 } END { print n }')" "sessions counted"
[ "$(metric bytes_received update)" -gt "$(wc -c <"$SRC/big")" ] ||
    fail "bytes received smaller than the files"
[ "$(metric bytes_wire update)" -lt "$(metric bytes_received update)" ] ||
    fail "compressed transfer not smaller on the wire"
# ./a ./big ./d ./d/c ./l: five objects.
assert_eq 5 "$(metric files_changed update)" "files changed"
assert_eq 0 "$(metric last_run_exit_code update)" "exit code metric"
# A server without DELTA: lapply printed no delta line, the counters are 0.
grep -q '^delta: ' "$tmpd/lapply.out" "$T/ra.out" &&
    fail "a delta line without DELTA: $(cat "$T/ra.out")"
for m in delta_files delta_bytes_wire delta_bytes_whole delta_fallbacks; do
	assert_eq 0 "$(metric $m update)" "$m without DELTA"
done
assert_eq 1 "$(metric last_run_success update)" "success metric"
ts=$(metric last_run_timestamp_seconds update)
[ "$ts" -ge "$before" ] && [ "$ts" -le "$(date +%s)" ] ||
    fail "timestamp $ts out of range"

# The file is well formed: HELP and TYPE for every metric, samples with
# a verb label, nothing else; no temporary file beside it.
bad=$(grep -v '^# HELP cairn_ra_[a-z_]* .\|^# TYPE cairn_ra_[a-z_]* gauge$\|^cairn_ra_[a-z_]*{verb="[a-z]*"} [0-9][0-9]*$' "$STATUS")
[ -z "$bad" ] || fail "malformed status lines: $bad"
for m in last_run_timestamp_seconds last_run_success last_run_exit_code \
    files_changed bytes_received bytes_wire delta_files delta_bytes_wire \
    delta_bytes_whole delta_fallbacks; do
	grep -q "^# HELP cairn_ra_$m " "$STATUS" || fail "no HELP for $m"
	grep -q "^# TYPE cairn_ra_$m gauge\$" "$STATUS" || fail "no TYPE for $m"
done
assert_eq "cairn-ra.prom" "$(ls "$T/metrics")" "files beside the status file"

# Nothing new: nothing applied, local drift left alone.
printf 'changed locally\n' >"$R/a"
ra update
assert_eq 0 "$RC" "second update: $(cat "$T/ra.err")"
grep -q 'Nothing new' "$T/ra.out" || fail "second update: $(cat "$T/ra.out")"
assert_eq 'changed locally' "$(cat "$R/a")" "a after update"
assert_eq 0 "$(metric files_changed update)" "files changed, second update"
assert_eq 1 "$(grep -c '^cairn_ra_files_changed{verb="update"}' "$STATUS")" \
    "one sample a verb"

# force applies even so.
ra force
assert_eq 0 "$RC" "force: $(cat "$T/ra.err")"
assert_file_eq "$SRC/a" "$R/a" "a after force"
assert_eq 1 "$(metric files_changed force)" "files changed by force"
assert_eq 0 "$(metric files_changed update)" "update's sample kept"

# create: the local changes, uploaded as a loadset under tmp/.
printf 'new file\n' >"$R/new"
ra create app-1.0.T
assert_eq 0 "$RC" "create: $(cat "$T/ra.err")"
grep -q '^f \./new ' "$REPO/tmp/transcript/app-1.0.T" ||
    fail "uploaded transcript: $(cat "$REPO/tmp/transcript/app-1.0.T")"
assert_file_eq "$R/new" "$REPO/tmp/file/app-1.0.T/new" "uploaded file"
[ "$(metric bytes_sent create)" -gt 0 ] || fail "no bytes sent counted"
assert_eq 0 "$(metric last_run_exit_code create)" "create exit code"
assert_eq "" "$(metric delta_files create)" "delta counters for create"
stop_cairnd

if ! have_zstd; then
	not_run "updates by delta: zstd is not built in (configured --without-zstd)"
	end_test
fi

# --- a server with a store of deltas.  dstorelib.sh takes R for the
# repository: the apply root and the radmind directory are new ones.
DROOT=$T/droot
DRADMIND=$T/dradmind
R=$T/drepo
mkdir -p "$R/command" "$R/transcript" "$R/file" "$R/special" \
    "$R/tmp/transcript" "$R/tmp/file" "$T/ref" "$DROOT" "$DRADMIND" ||
    fail "mkdir"
. "$top_srcdir/tests/integ/dstorelib.sh"
echo '127.0.0.1 app.K' >"$R/config"
: >"$R/command/app.K"
CHANGED="lib1.so lib2.so data.txt"
# version FILE SEED: $T/ref/FILE, some 200 KB of text, its first line its
# name, a few of its lines differing by SEED.
version()
{
	text "$T/lines" "$2" 4000
	{ echo "$1"; cat "$T/lines"; } >"$T/ref/$1" || fail "version $1"
}
for f in $CHANGED same.txt; do
	version "$f" 1
done
find "$T/ref" -exec touch -h -d @1700000000 {} +
stage app.T
publish 0 -k app.K app.T
start_cairnd "$R"
ra_conf "RADMIND_DIR='$DRADMIND'" "WORKDIR='$DROOT'"
ra update
assert_eq 0 "$RC" "update to version 1: $(cat "$T/ra.err")"
assert_file_eq "$T/ref/lib1.so" "$DROOT/lib1.so" "lib1.so, version 1"
assert_eq 0 "$(metric delta_files update)" "deltas for version 1"
stop_cairnd

# Version 2 over it, its deltas built: each changed file comes as one.
for f in $CHANGED; do
	version "$f" 2
done
(cd "$T/ref" && touch -d @1700000100 $CHANGED) || fail "touch"
stage app.T
publish 0 -f app.T
publish 0 -d
grep -q '^deltas: 3 built' "$T/pout" || fail "-d: $(cat "$T/pout")"
start_cairnd "$R" -d
ra_conf "RADMIND_DIR='$DRADMIND'" "WORKDIR='$DROOT'"
ra -t update
assert_eq 0 "$RC" "update to version 2: $(cat "$T/ra.err")"
for f in $CHANGED same.txt; do
	assert_file_eq "$T/ref/$f" "$DROOT/$f" "$f, version 2"
done
tmpd=$(sed -n 's/^cairn-ra: temporary files kept in //p' "$T/ra.err")
[ -n "$tmpd" ] && [ -d "$tmpd" ] || fail "no kept temporary directory"
at_exit "rm -rf '$tmpd'"
dline=$(grep '^delta: ' "$tmpd/lapply.out")
[ -n "$dline" ] || fail "lapply printed no delta line: $(cat "$tmpd/lapply.out")"
assert_eq 1 "$(grep -c '^delta: ' "$T/ra.out")" "delta lines shown"
assert_eq "$dline" "$(grep '^delta: ' "$T/ra.out")" "the delta line shown"
assert_eq "$(echo "$dline" | sed 's/^delta: \([0-9]*\) files by delta, \([0-9]*\) bytes on the wire for \([0-9]*\) bytes whole; \([0-9]*\) fetched whole.*/\1 \2 \3 \4/')" \
    "$(metric delta_files update) $(metric delta_bytes_wire update) $(metric delta_bytes_whole update) $(metric delta_fallbacks update)" \
    "the delta counters, lapply's"
assert_eq 3 "$(metric delta_files update)" "files by delta"
whole=$(cd "$T/ref" && cat $CHANGED | wc -c)
assert_eq "$whole" "$(metric delta_bytes_whole update)" \
    "delta bytes whole, the changed files' sizes"
[ "$(metric delta_bytes_wire update)" -gt 0 ] &&
    [ "$(metric delta_bytes_wire update)" -lt "$whole" ] ||
    fail "deltas of $(metric delta_bytes_wire update) bytes for $whole whole"
[ "$(metric delta_bytes_wire update)" -le "$(metric bytes_received update)" ] ||
    fail "more delta bytes than bytes received"
assert_eq 0 "$(metric delta_fallbacks update)" "fetched whole after a delta"
assert_eq 3 "$(metric files_changed update)" "files changed by delta: $(cat "$T/ra.out")"
end_test
