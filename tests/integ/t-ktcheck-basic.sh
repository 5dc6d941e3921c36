#!/bin/sh
# ktcheck end to end against cairnd: first run downloads everything
# (exact messages, exit 1, files byte-equal to the server's with the
# server's mtime), second run only refreshes special.T (always, without
# -c), -c sha1 finds nothing, -n reports without writing (not even a
# command directory not there yet), -q is quiet,
# a changed transcript is fetched again, -C removes what no command file
# names, and an unknown host or a server error gives exit 2.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
R=$T/repo
start_cairnd "$R"

C=$T/client
mkdir "$C"
: >"$C/command.K"
touch -d "@$T0" "$C/command.K"
kt()
{
	run_client ktcheck -K "$C/command.K" "$@"
}

kt
assert_eq 1 "$RC" "first run exit ($(cat "$T/err"))"
printf '%s\n' "$C/command.K: updated" "$C/test.T: updated" \
    "$C/neg.T: updated" "$C/special.T: created" >"$T/exp"
assert_file_eq "$T/exp" "$T/out" "first run"
assert_file_eq "$R/command/test.K" "$C/command.K"
assert_file_eq "$R/transcript/test.T" "$C/test.T"
assert_file_eq "$R/transcript/neg.T" "$C/neg.T"
printf 'f ./etc/hostname 0640 0 0 1700000000 8 wQLzslrg7QPcBOJrz2oZsWBEUNg=\n' >"$T/exp"
assert_file_eq "$T/exp" "$C/special.T"
assert_eq "$T0" "$(stat -c %Y "$C/test.T")" "mtime of test.T"
ls "$C" | grep -q radmind && fail "temporary file left"
grep -q 'report 127.0.0.1 127.0.0.1 - - ktcheck Updates retrieved\|report localhost 127.0.0.1 - - ktcheck Updates retrieved' "$SLOG" ||
    fail "no REPO"

kt
assert_eq 1 "$RC" "second run exit"
printf '%s\n' "$C/special.T: updated" >"$T/exp"
assert_file_eq "$T/exp" "$T/out" "second run"

kt -c sha1
assert_eq 0 "$RC" "-c sha1 exit ($(cat "$T/err"))"
printf 'No updates needed\n' >"$T/exp"
assert_file_eq "$T/exp" "$T/out" "-c sha1"
kt -q -c sha1
assert_eq 0 "$RC" "-q exit"
[ -s "$T/out" ] && fail "-q printed: $(cat "$T/out")"

# The server's transcript changes: -n reports and writes nothing.
printf 'd ./var 0755 0 0\nd ./var/log 0755 0 0\n' >"$R/transcript/neg.T"
cp "$C/neg.T" "$T/neg.before"
kt -n -c sha1
assert_eq 1 "$RC" "-n exit"
printf '%s\n' "$C/neg.T: out of date" >"$T/exp"
assert_file_eq "$T/exp" "$T/out" "-n"
assert_file_eq "$T/neg.before" "$C/neg.T" "neg.T after -n"
ls "$C" | grep -q 'special.T\.' && fail "temporary special.T left"
# ... nor the command directory of a client not set up yet.
run_client ktcheck -n -c sha1 -K "$T/new/sub/command.K"
assert_eq 1 "$RC" "-n, no directory: exit ($(cat "$T/err"))"
printf '%s\n' "$T/new/sub/command.K: missing" >"$T/exp"
assert_file_eq "$T/exp" "$T/out" "-n, no directory"
[ -e "$T/new" ] && fail "-n made the command directory"
kt -c sha1
assert_eq 1 "$RC" "update exit"
printf '%s\n' "$C/neg.T: updated" >"$T/exp"
assert_file_eq "$T/exp" "$T/out" "update"
assert_file_eq "$R/transcript/neg.T" "$C/neg.T"

# -C: stray files go, named files and dotfiles stay.
mkdir "$C/old"
: >"$C/old/x.T"
: >"$C/stray.T"
: >"$C/.keep"
kt -C -c sha1
assert_eq 1 "$RC" "-C exit"
[ -e "$C/stray.T" ] && fail "-C left stray.T"
[ -e "$C/old" ] && fail "-C left old/"
for f in command.K test.T neg.T special.T .keep; do
	[ -e "$C/$f" ] || fail "-C removed $f"
done

# A name escaping the command directory: cairnd refuses the host's
# command file (the client's refusal of one from another server:
# t-ktcheck-hostile), naming its line.
printf 'p ../evil.T\n' >"$R/command/test.K"
kt -c sha1
assert_eq 2 "$RC" "escaping name exit"
grep -q '421 ' "$T/err" || fail "escape: $(cat "$T/err")"
grep -q 'command/test.K: line 1: ../evil.T: name outside the command directory' \
    "$SLOG" || fail "escape: not logged: $(cat "$SLOG")"
[ -e "$T/evil.T" ] && fail "wrote outside the command directory"

# A transcript the server cannot supply: exit 2 with the server's line.
printf 'p test.T\np gone.T\n' >"$R/command/test.K"
kt -c sha1
assert_eq 2 "$RC" "missing transcript exit"
grep -q '^531 Access Error: transcript/gone.T$' "$T/err" || fail "missing: $(cat "$T/err")"

# Usage errors.
run_capture "$T/out" "$T/err" "$KTCHECK" -q -v
assert_eq 2 "$RC" "-q -v exit"
run_capture "$T/out" "$T/err" "$KTCHECK" -c nosuchsum
assert_eq 2 "$RC" "bad -c exit"
assert_eq "nosuchsum: unsupported checksum" "$(cat "$T/err")"
run_capture "$T/out" "$T/err" "$KTCHECK" -Z 10
assert_eq 2 "$RC" "-Z 10 exit"
assert_eq "10: invalid compression level ($(zforms))" \
    "$(head -n 1 "$T/err")"
grep -q '^usage: .*\[-Z compression-level | auto | zstd\[:level\]\]' "$T/err" ||
    fail "-Z 10: the usage line does not list auto and zstd: $(cat "$T/err")"
run_capture "$T/out" "$T/err" "$KTCHECK" -e "two words"
assert_eq 2 "$RC" "-e with a space exit"
assert_eq "two words: event must be one word" "$(head -n 1 "$T/err")"
exit 0
