#!/bin/sh
# Every program and script the build makes is one git ignores, so a
# build in the source tree (dpkg-buildpackage builds there) leaves
# `git status` clean.  The build directory is walked for executable
# files; those git tracks (a build in the source tree finds autogen.sh
# and the like) are left out, and each other one must match a pattern
# of the source tree's .gitignore.  Skipped outside a git checkout (a
# release tarball has no .gitignore to check).
. "$top_srcdir/tests/integ/lib.sh"
need_cmd git find sort
git -C "$top_srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	skip "$top_srcdir is not a git checkout"
mk_tmpdir

# Executable files under the build directory, relative to it.  The
# valgrind wrappers' moved-aside programs and logs, and git's own
# directory, are not the build's.
(cd "$top_builddir" && find . \( -name .git -o -name .deps -o \
    -name valgrind-logs -o -name bench-data \) -prune -o \
    -type f -perm -u+x ! -name '*.vg-real' -print) |
    sed 's|^\./||' | LC_ALL=C sort >"$T/made" ||
	fail "cannot list $top_builddir"
# The daemon and a client tool at least: a listing that misses them
# looked in the wrong place.
for p in server/cairnd client/fsdiff; do
	grep -qx "$p" "$T/made" || fail "$p not found under $top_builddir"
done

# Those git tracks are sources, not build products.
git -C "$top_srcdir" ls-files | LC_ALL=C sort >"$T/tracked" ||
	fail "git ls-files failed in $top_srcdir"
LC_ALL=C comm -23 "$T/made" "$T/tracked" >"$T/check"

# check-ignore -v -n prints every path given, "::" before those no
# pattern matches; its exit status only says whether any matched.
git -C "$top_srcdir" check-ignore --no-index --stdin -v -n \
    <"$T/check" >"$T/verdict"
rc=$?
[ $rc -le 1 ] || fail "git check-ignore failed ($rc)"
assert_eq "$(wc -l <"$T/check")" "$(wc -l <"$T/verdict")" \
    "check-ignore verdicts"
sed -n 's/^::	//p' "$T/verdict" >"$T/bad"
[ -s "$T/bad" ] && fail "built but not in .gitignore:" $(cat "$T/bad")
exit 0
