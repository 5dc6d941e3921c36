#!/bin/sh
# t-readme-walkthrough: the README's walkthrough (capture, upload,
# publish, pull, compare), its indented blocks run as they are written,
# twice in one shell as an administrator pasting it again would: the
# second run says what the first said (the loadset published, pulled,
# "same" last), nothing is said on stderr (no refused publish, no failed
# step), and the cairnd each started is gone afterwards.  Only
# the port and the demonstration's directory are changed, to ones of
# the test's own.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd cairn-publish fsdiff ktcheck lapply lcreate
need_cmd bash python3 diff timeout
mk_tmpdir

awk '/^## Walkthrough/ { f = 1; next } /^## / { f = 0 }
    f && /^    / { sub(/^    /, ""); print }' "$top_srcdir/README.md" \
    >"$T/walk.sh"
grep -q 'cairn-publish' "$T/walk.sh" && grep -q 'lapply' "$T/walk.sh" ||
    fail "no walkthrough found in README.md: $(cat "$T/walk.sh")"
grep -q 6222 "$T/walk.sh" && grep -q /tmp/cairn-demo "$T/walk.sh" ||
    fail "the walkthrough's port or directory moved: $(cat "$T/walk.sh")"
PORT=$(free_port) || fail "no free port"
D=$T/demo
sed -e "s|6222|$PORT|g" -e "s|/tmp/cairn-demo|$D|g" "$T/walk.sh" \
    >"$T/walk1.sh" || fail "sed"
{
	cat "$T/walk1.sh"
	echo 'echo "=== pasted again"'
	cat "$T/walk1.sh"
} >"$T/walk2.sh"

# A cairnd the walkthrough left running is stopped, by its own pid.
leftover()
{
	[ -s "$D/cairnd.pid" ] && kill "$(cat "$D/cairnd.pid")" 2>/dev/null
}
at_exit leftover

# The walkthrough runs from the top of a source tree built into ./build.
mkdir -p "$T/top" || fail "mkdir"
ln -s "$top_builddir" "$T/top/build" || fail "ln"
run_capture "$T/out" "$T/err" in_dir "$T/top" timeout 120 bash "$T/walk2.sh"
assert_eq 0 "$RC" "the walkthrough pasted twice: $(cat "$T/err")"
[ -s "$T/err" ] && fail "the walkthrough pasted twice said: $(cat "$T/err")"
# The second run says what the first said, and ends in "same".
# Whether lapply also names a "time" change depends on the second in
# which the walkthrough wrote its files, not on the walkthrough: left out.
sed '/^=== pasted again$/,$d' "$T/out" | sed 's/ mode time$/ mode/' \
    >"$T/out1"
sed '1,/^=== pasted again$/d' "$T/out" | sed 's/ mode time$/ mode/' \
    >"$T/out2"
assert_eq same "$(tail -n 1 "$T/out1")" "the first run's last line"
grep -q '^app-1.0.T: published$' "$T/out1" ||
    fail "the first run did not publish: $(cat "$T/out1")"
assert_file_eq "$T/out1" "$T/out2" "the second run's output"
[ -e "$D/cairnd.pid" ] && fail "cairnd still running after the walkthrough"
# The port is free again: a third run could start its cairnd.
wait_port "$PORT" 1 && fail "port $PORT still taken after the walkthrough"
end_test
