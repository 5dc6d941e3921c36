#!/bin/sh
# -V on the local transcript tools, cairn-bench and cairn-publish: exit 0
# and the package version as the first line; fsdiff, lcksum and
# cairn-publish then list the digests they support, sha1 first (fsdiff(1),
# lcksum(1), cairn-publish(8): -V).  cairn-mkca -V prints the same version (the script carries it: this checks the two agree).
. "$top_srcdir/tests/integ/lib.sh"
need_tool fsdiff lsort lmerge twhich lcksum cairn-bench cairn-publish
mk_tmpdir
V=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")
[ -n "$V" ] || fail "no PACKAGE_VERSION in $top_builddir/config.h"
for t in fsdiff lsort lmerge twhich lcksum cairn-bench cairn-publish; do
	run_capture "$T/$t.out" "$T/$t.err" "$t" -V
	assert_eq 0 "$RC" "$t -V exit status"
	[ -s "$T/$t.err" ] && fail "$t -V: unexpected stderr"
	assert_eq "$V" "$(sed -n 1p "$T/$t.out")" "$t -V first line"
	case $t in
	fsdiff|lcksum|cairn-publish)
		assert_eq sha1 "$(sed -n 2p "$T/$t.out")" "$t -V digest list"
		grep -qx md5 "$T/$t.out" || fail "$t -V: md5 not listed"
		;;
	*)
		assert_eq 1 "$(wc -l <"$T/$t.out")" "$t -V line count"
		;;
	esac
done
run_capture "$T/mkca.out" "$T/mkca.err" sh "$top_srcdir/contrib/cairn-mkca" -V
assert_eq 0 "$RC" "cairn-mkca -V exit status"
[ -s "$T/mkca.err" ] && fail "cairn-mkca -V: unexpected stderr"
assert_eq "$V" "$(cat "$T/mkca.out")" "cairn-mkca -V"
exit 0
