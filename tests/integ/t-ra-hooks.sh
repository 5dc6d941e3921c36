#!/bin/sh
# t-ra-hooks: the executable files of preapply/ and postapply/ run in
# lexical order, with the applicable transcript as their argument:
# preapply before anything is applied, postapply after.  Files that are
# not executable, and dot files, are not run.  A failing preapply hook
# stops the run with exit status 3: the later hooks do not run and
# nothing is applied.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/ralib.sh"

printf 'alpha\n' >"$SRC/a"
printf 'bravo\n' >"$SRC/b"
chmod 755 "$SRC" "$R"
ra_publish
start_cairnd "$REPO"
ra_conf

# Each hook logs its name, its argument, the argument's first line, and
# whether ./a is in the apply root yet (hooks run in the apply root).
log='echo "$(basename "$0") $1 $(head -n 1 "$1") $(test -e a && echo applied || echo not-applied)" >>'"'$T/hooks'"
mkhook "$RADMIND/preapply" 20-second "$log"
mkhook "$RADMIND/preapply" 10-first "$log"
mkhook "$RADMIND/preapply" .hidden "$log"
printf '#!/bin/sh\necho README >>"%s"\n' "$T/hooks" >"$RADMIND/preapply/README"
mkhook "$RADMIND/postapply" 50-post "$log"
mkhook "$RADMIND/postapply" 05-post "$log"

ra update
assert_eq 0 "$RC" "update: $(cat "$T/ra.err")"
assert_eq 4 "$(wc -l <"$T/hooks")" "hooks run: $(cat "$T/hooks")"
tr=$(sed -n '1s/^[^ ]* \([^ ]*\) .*/\1/p' "$T/hooks")
case $tr in
/*)	;;
*)	fail "transcript argument '$tr' is not a path" ;;
esac
check_same "$T/order" "$T/hooks" <<EOT
10-first $tr ra.T: not-applied
20-second $tr ra.T: not-applied
05-post $tr ra.T: applied
50-post $tr ra.T: applied
EOT
[ ! -e "$tr" ] || fail "applicable transcript left behind"

# A failing preapply hook: nothing applied, later hooks not run.
rm -f "$R/a" "$R/b" "$T/hooks"
mkhook "$RADMIND/preapply" 15-refuse 'echo "refusing" >&2; exit 3'
ra force
assert_eq 3 "$RC" "force with a failing preapply hook: $(cat "$T/ra.err")"
grep -q '15-refuse: exited 3' "$T/ra.err" || fail "stderr: $(cat "$T/ra.err")"
grep -q 'nothing applied' "$T/ra.err" || fail "stderr: $(cat "$T/ra.err")"
assert_eq "10-first" "$(cut -d' ' -f1 "$T/hooks" | tr '\n' ' ' | sed 's/ $//')" \
    "hooks run before the failure"
[ ! -e "$R/a" ] && [ ! -e "$R/b" ] || fail "files applied despite the hook"
assert_eq 3 "$(metric last_run_exit_code force)" "exit code metric"
assert_eq 0 "$(metric last_run_success force)" "success metric"
end_test
