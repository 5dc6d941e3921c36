#!/bin/sh
# t-ra-bindir: where cairn-ra finds the tools it runs.  Run from the
# build tree without CAIRN_RA_BINDIR, it runs the tools beside it (the
# directory that holds it holds ktcheck, fsdiff, lapply and lcreate), and
# update pulls the loadset.  CAIRN_RA_BINDIR comes first: a directory
# without the tools is a clear error naming the program looked for and
# the variable, before anything is changed.  A copy of the script in a
# directory without the tools (an installed cairn-ra in sbin) looks in
# the configured bindir, not beside itself.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/ralib.sh"
# As an administrator runs it: no variable naming the tools.
unset CAIRN_RA_BINDIR

printf 'alpha\n' >"$SRC/a"
chmod 755 "$SRC" "$R"
ra_publish
start_cairnd "$REPO"
ra_conf

# The build tree's cairn-ra alone: the tools beside it.
ra update
assert_eq 0 "$RC" "update from the build tree: $(cat "$T/ra.err")"
assert_file_eq "$SRC/a" "$R/a" "a pulled by the build tree's cairn-ra"

# A directory without the tools, named by the variable: exit 2, the
# program and the variable named, nothing changed.
printf 'changed locally\n' >"$R/a"
run_capture "$T/ra.out" "$T/ra.err" env CAIRN_RA_BINDIR="$T/nowhere" \
    "$RA" -f "$T/ra.conf" force
assert_eq 2 "$RC" "CAIRN_RA_BINDIR=$T/nowhere: exit ($(cat "$T/ra.err"))"
grep -q "$T/nowhere/ktcheck: no such program (CAIRN_RA_BINDIR" "$T/ra.err" ||
    fail "CAIRN_RA_BINDIR=$T/nowhere: $(cat "$T/ra.err")"
assert_eq 'changed locally' "$(cat "$R/a")" "a after a run with no tools"

# Run by a relative name from its own directory: the tools still run
# (in the working directory, where that name means nothing).
run_capture "$T/ra.out" "$T/ra.err" in_dir "$top_builddir/client" \
    ./cairn-ra -f "$T/ra.conf" force
assert_eq 0 "$RC" "./cairn-ra force in client/: $(cat "$T/ra.err")"
assert_file_eq "$SRC/a" "$R/a" "a repaired by ./cairn-ra force"

# A copy alone in another directory, run by a relative name from there:
# not the build's tools (none beside it), but the installed ones.
mkdir -p "$T/sbin" || fail "mkdir"
cp "$RA" "$T/sbin/cairn-ra" || fail "cp"
bindir=$(sed -n "s/^INSTALLED_BINDIR='\(.*\)'\$/\1/p" "$RA")
[ -n "$bindir" ] || fail "no INSTALLED_BINDIR in $RA"
printf 'bravo\n' >"$SRC/a"
ra_publish
run_capture "$T/ra.out" "$T/ra.err" in_dir "$T/sbin" ./cairn-ra \
    -f "$T/ra.conf" update
grep -q "$T/sbin/" "$T/ra.err" &&
    fail "a copy without tools looked beside itself: $(cat "$T/ra.err")"
if [ ! -e "$bindir/ktcheck" ]; then
	assert_eq 2 "$RC" "copy without tools: exit ($(cat "$T/ra.err"))"
	grep -q "$bindir/ktcheck: no such program" "$T/ra.err" ||
	    fail "copy without tools: $(cat "$T/ra.err")"
	assert_eq alpha "$(cat "$R/a")" "a after the refused run"
fi
end_test
