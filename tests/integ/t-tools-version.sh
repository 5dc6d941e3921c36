#!/bin/sh
# -V on every tool: exit 0 and the package version as the first line; a
# tool whose -c names a digest then lists the digests it supports, sha1
# first (fsdiff(1), lcksum(1), cairn-publish(8): -V), and all of them
# list the same ones (one table, net/copts.c); cairnd ends with the line
# saying whether zstd is built in, as the build says (config.h); the
# client tools print what Radmind's print, the others the version alone.  cairn-mkca
# -V prints the same version (the script carries it: this checks the two
# agree).
. "$top_srcdir/tests/integ/lib.sh"
need_tool fsdiff lsort lmerge twhich lcksum cairn-bench cairn-publish \
    ktcheck lapply lcreate lfdiff repo cairn-replicate cairnd
mk_tmpdir
V=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")
[ -n "$V" ] || fail "no PACKAGE_VERSION in $top_builddir/config.h"
if have_zstd; then
	Z='with zstd: delta transfer, zstd compression'
else
	Z='without zstd: no delta transfer, no zstd compression'
fi
n=0
for t in fsdiff lsort lmerge twhich lcksum cairn-bench cairn-publish \
    ktcheck lapply lcreate lfdiff repo cairn-replicate cairnd; do
	n=$((n + 1))
	run_capture "$T/$t.out" "$T/$t.err" "$(tool_path "$t")" -V
	assert_eq 0 "$RC" "$t -V exit status"
	[ -s "$T/$t.err" ] && fail "$t -V: unexpected stderr"
	assert_eq "$V" "$(sed -n 1p "$T/$t.out")" "$t -V first line"
	# The zstd line: last, and only from cairnd.
	case $t in
	cairnd)
		assert_eq "$Z" "$(sed -n '$p' "$T/$t.out")" "$t -V zstd line"
		sed '$d' "$T/$t.out" >"$T/$t.rest"
		;;
	*)
		grep -q zstd "$T/$t.out" && fail "$t -V: a zstd line"
		cp "$T/$t.out" "$T/$t.rest"
		;;
	esac
	case $t in
	fsdiff|lcksum|cairn-publish|ktcheck|lapply|lcreate|cairn-replicate)
		assert_eq sha1 "$(sed -n 2p "$T/$t.rest")" "$t -V digest list"
		grep -qx md5 "$T/$t.rest" || fail "$t -V: md5 not listed"
		assert_file_eq "$T/fsdiff.rest" "$T/$t.rest" \
		    "$t -V against fsdiff -V"
		;;
	*)
		assert_eq 1 "$(wc -l <"$T/$t.rest")" "$t -V line count"
		;;
	esac
done
[ "$n" -eq 14 ] || fail "-V loop ran $n times"
run_capture "$T/mkca.out" "$T/mkca.err" sh "$top_srcdir/contrib/cairn-mkca" -V
assert_eq 0 "$RC" "cairn-mkca -V exit status"
[ -s "$T/mkca.err" ] && fail "cairn-mkca -V: unexpected stderr"
assert_eq "$V" "$(cat "$T/mkca.out")" "cairn-mkca -V"
exit 0
