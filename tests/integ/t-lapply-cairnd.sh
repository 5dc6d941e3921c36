#!/bin/sh
# t-lapply-cairnd: lapply against cairnd, replaying the recorded Radmind
# session vectors/wire/fsdiff-lapply.txt (its applicable transcript and
# its output, byte for byte), plain and with zlib (-Z), with -c sha1
# verification; the result tree holds exactly the served bytes and
# metadata, and the server log shows the session ended cleanly.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lapply
need_root
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
V=${CAIRN_VECTORS:-$top_srcdir/tests/vectors}
WIRE=$V/wire/fsdiff-lapply.txt
[ -f "$WIRE" ] || skip "wire vectors not found at $V (set CAIRN_VECTORS)"
make_repo "$T/repo"
umask 022

sed -n 's/^# apply\.T: //p' "$WIRE" > "$T/apply.T"
sed -n 's/^# out: //p' "$WIRE" > "$T/expected"
[ -s "$T/apply.T" ] && [ -s "$T/expected" ] || fail "cannot read $WIRE"

# The client tree the recorded session started from.
reset()
{
	rm -rf "$T/c"
	mkdir -p "$T/c/etc"
	printf 'extra file\n' > "$T/c/etc/extra"
}

# run LAPPLY-OPTIONS...
run()
{
	reset
	run_capture "$T/out" "$T/err" in_dir "$T/c" "$LAPPLY" \
	    -h 127.0.0.1 -p "$PORT" "$@" "$T/apply.T"
	assert_eq 0 "$RC" "lapply $*: $(cat "$T/err")"
	assert_file_eq "$T/expected" "$T/out" "stdout of lapply $*"
	for f in bin/hi "etc/bin ary" etc/empty etc/issue etc/motd; do
		assert_file_eq "$T/repo/file/test.T/$f" "$T/c/$f" "$f"
		assert_eq 1700000000 "$(stat -c %Y "$T/c/$f")" "mtime of $f"
	done
	assert_file_eq "$T/repo/special/127.0.0.1/etc/hostname" \
	    "$T/c/etc/hostname" "special file"
	assert_eq "755 0 0" "$(stat -c '%a %u %g' "$T/c/bin/hi")" "bin/hi"
	assert_eq "640" "$(stat -c '%a' "$T/c/etc/hostname")" "hostname"
	assert_eq motd "$(readlink "$T/c/etc/motd.link")" "motd.link"
	[ ! -e "$T/c/etc/extra" ] || fail "etc/extra not removed"
	[ -d "$T/c/var" ] || fail "var not created"
	[ -z "$(find "$T/c" -name '*.radmind.*')" ] || fail "temp files left"
}

start_cairnd "$T/repo"
run
run -c sha1
stop_cairnd

start_cairnd "$T/repo" -Z 9
run -Z 6 -c sha1
reset
run_capture "$T/out" "$T/err" in_dir "$T/c" \
    "$LAPPLY" -v -Z 6 -h 127.0.0.1 -p "$PORT" "$T/apply.T"
assert_eq 0 "$RC" "lapply -v: $(cat "$T/err")"
grep -q '^zlib stats +++ In: [0-9]*:[0-9]* ([0-9.]*:1) +++ Out: ' "$T/out" ||
    fail "-v: no zlib stats: $(cat "$T/out")"
stop_cairnd
exit 0
