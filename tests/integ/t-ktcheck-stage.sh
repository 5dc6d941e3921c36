#!/bin/sh
# t-ktcheck-stage: ktcheck is all or nothing.  A run that fails after it
# fetched something (the command file names a transcript the server
# cannot send; the server drops the connection in the middle of a
# transcript) leaves every client file as it was, bytes, mode, inode
# and mtime, and no staging directory; the same run once the server is
# right again updates everything, with the same messages and exit
# status as always, an included command file in a new subdirectory
# read from what was fetched.  A staging directory left by a run that
# died is removed by the next run (not by -n, which writes nothing), and
# a command file may not name anything inside one, nor one of ktcheck's
# own files or a path through one, nor one of its temporary names, in
# any case.  With -I, names that differ only in case are one file; a
# file in the way of a new directory fails the run before anything is
# renamed into place.
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
	run_client ktcheck -c sha1 -K "$C/command.K" "$@"
}

# snap NAME: every entry in the client directory, with inode, mode,
# size, mtime and checksum, into $T/NAME (the directory's own mtime
# changes with the staging directory made and removed in it).
snap()
{
	(cd "$C" && find . -mindepth 1 -printf '%p %y %i %m %s %T@\n' |
	    LC_ALL=C sort &&
	    find . -type f -exec sha1sum {} + | LC_ALL=C sort) >"$T/$1" ||
	    fail "snap $1"
}

# unchanged LABEL: the client directory is as in $T/before, and holds
# nothing of a staging directory.
unchanged()
{
	snap after
	assert_file_eq "$T/before" "$T/after" "$1: client files"
}

kt
assert_eq 1 "$RC" "first run exit ($(cat "$T/err"))"
chmod 0600 "$C/test.T"

# A big new test.T (so a drop lands inside it), a new command file that
# names it first and then a transcript the server does not have.
python3 -c 'for i in range(6000):
    print("f ./usr/share/doc/p%05d/README %30s\t0644     0     0 1700000000    1234 2jmj7l5rSw0yVb/vlWAYkK/YBwk=" % (i, ""))' \
    >"$R/transcript/test.T"
printf 'p test.T\nn neg.T\np gone.T\ns ./etc/hostname\n' >"$R/command/test.K"
printf 'd ./var 0755 0 0\nd ./var/tmp 1777 0 0\n' >"$R/transcript/neg.T"
printf 'client2\n' >"$R/special/127.0.0.1/etc/hostname"

# 1. The server cannot send gone.T: exit 2, nothing changed.
snap before
kt
assert_eq 2 "$RC" "missing transcript exit"
grep -q '^531 Access Error: transcript/gone.T$' "$T/err" ||
    fail "missing: $(cat "$T/err")"
[ -s "$T/out" ] && fail "a failed run said: $(cat "$T/out")"
unchanged "missing transcript"

# 2. The server drops the connection in the middle of test.T, after a
# new command file and neg.T came: exit 2, nothing changed.
printf 'n neg.T\np test.T\ns ./etc/hostname\n' >"$R/command/test.K"
snap before
bg_start "$T/pport" python3 "$top_srcdir/tests/integ/dropproxy.py" \
    "$PORT" "$T/pport" 1 200000
DROPPID=$BGPID
run_capture "$T/out" "$T/err" "$KTCHECK" -c sha1 -K "$C/command.K" \
    -h 127.0.0.1 -p "$(cat "$T/pport")"
wait "$DROPPID"
assert_eq 2 "$RC" "dropped session exit"
grep -q '127\.0\.0\.1' "$T/err" || fail "dropped: $(cat "$T/err")"
[ -s "$T/out" ] && fail "a failed run said: $(cat "$T/out")"
unchanged "dropped session"

# 3. A run that died left its staging directory: the next run removes
# it.  With the server right again, everything is updated as always: an
# included command file in a new subdirectory names a new transcript.
mkdir -p "$C/.ktcheck.999999/sub"
printf 'x\n' >"$C/.ktcheck.999999/sub/test.T"
mkdir -p "$R/command/inc"
printf 'p extra.T\n' >"$R/command/inc/sub.K"
printf 'd ./opt 0755 0 0\n' >"$R/transcript/extra.T"
printf 'p test.T\nk inc/sub.K\nn neg.T\ns ./etc/hostname\n' \
    >"$R/command/test.K"
kt -n
assert_eq 1 "$RC" "-n exit"
assert_eq "$C/command.K: out of date" "$(cat "$T/out")" "-n says"
[ -d "$C/.ktcheck.999999" ] || fail "-n removed the stale staging directory"
snap before
kt
assert_eq 1 "$RC" "update exit ($(cat "$T/err"))"
printf '%s\n' "$C/command.K: updated" "$C/test.T: updated" \
    "$C/inc/sub.K: updated" "$C/extra.T: updated" "$C/neg.T: updated" \
    "$C/special.T: updated" >"$T/exp"
assert_file_eq "$T/exp" "$T/out" "update run"
assert_file_eq "$R/command/test.K" "$C/command.K"
assert_file_eq "$R/command/inc/sub.K" "$C/inc/sub.K"
assert_file_eq "$R/transcript/test.T" "$C/test.T"
assert_file_eq "$R/transcript/extra.T" "$C/extra.T"
assert_file_eq "$R/transcript/neg.T" "$C/neg.T"
grep -q '^f ./etc/hostname 0640 0 0 [0-9]* 8 ' "$C/special.T" ||
    fail "special.T: $(cat "$C/special.T")"
assert_eq "$(stat -c %Y "$R/transcript/test.T")" "$(stat -c %Y "$C/test.T")" \
    "mtime of test.T"
assert_eq 644 "$(stat -c %a "$C/command.K")" "mode of command.K"
assert_no_files "staging or temporary files left" "$C" -name '.ktcheck*' \
    -o -name '*.radmind.*' -o -name 'special.T.*'

# Up to date: nothing to do, nothing written.
snap before
kt
assert_eq 0 "$RC" "up to date exit ($(cat "$T/err"))"
assert_eq "No updates needed" "$(cat "$T/out")"
unchanged "up to date"

# 4. A name that would reach into a staging directory, that is one of
# ktcheck's own files (the base command file, special.T, the release
# state) or leads through one, or that has the form of one of its
# temporary names (a download's, the release state's), is refused in
# any spelling and any case, even when the server has it: exit 2, the
# line named, nothing changed.
mkdir -p "$R/transcript/.ktcheck.1" "$R/transcript/SPECIAL.T" \
    "$R/transcript/Release.State" "$R/transcript/sub"
for f in .ktcheck.1/x.T command.K release.state COMMAND.K Special.T \
    RELEASE.STATE SPECIAL.T/x.T Release.State/x.T x.T.radmind.123 \
    sub/y.T.RADMIND.4 .release.state.5 .radmind.6.0; do
	printf 'd ./srv 0755 0 0\n' >"$R/transcript/$f"
done
printf 'p test.K\n' >"$R/command/command.K"
for name in .ktcheck.1/x.T ./.ktcheck.2/y.T .KTCHECK.3/z.T command.K \
    ./command.K special.T ./special.T release.state ././release.state \
    COMMAND.K Special.T RELEASE.STATE command.K/x.T ./SPECIAL.T/x.T \
    release.state/x.T Release.State/x.T x.T.radmind.123 \
    sub/y.T.RADMIND.4 .release.state.5 .radmind.6.0; do
	printf 'p test.T\np %s\n' "$name" >"$R/command/test.K"
	kt
	assert_eq 2 "$RC" "reserved name $name exit"
	grep -qF "command file $C/command.K: line 2: $name: name reserved for ktcheck's own files" \
	    "$T/err" || fail "reserved name $name: $(cat "$T/err")"
	[ -s "$T/out" ] && fail "reserved name $name: said $(cat "$T/out")"
	unchanged "reserved name $name"
done
mkdir -p "$R/command/Command.K"
printf 'p test.K\n' >"$R/command/COMMAND.K"
printf 'p test.K\n' >"$R/command/Command.K/x.K"
for name in ./command.K COMMAND.K Command.K/x.K; do
	printf 'k %s\n' "$name" >"$R/command/test.K"
	kt
	assert_eq 2 "$RC" "reserved command file name $name exit"
	grep -qF "command file $C/command.K: line 1: $name: name reserved for ktcheck's own files" \
	    "$T/err" || fail "reserved k name $name: $(cat "$T/err")"
	unchanged "reserved command file name $name"
done

# 5. Two spellings of one file are one file: fetched once, committed
# once, and kept by -C.  An included command file named with "./" and a
# transcript named both ways, all changed on the server.
printf 'p test.T\nk ./inc/sub.K\nn neg.T\np ./test.T\ns ./etc/hostname\n' \
    >"$R/command/test.K"
printf 'p ./extra.T\np extra.T\n' >"$R/command/inc/sub.K"
printf 'd ./opt2 0755 0 0\n' >"$R/transcript/extra.T"
printf 'd ./usr 0755 0 0\n' >>"$R/transcript/test.T"
touch -d "@$((T0 + 60))" "$R/transcript/extra.T" "$R/transcript/test.T"
kt -C
assert_eq 1 "$RC" "two spellings exit ($(cat "$T/err"))"
printf '%s\n' "$C/command.K: updated" "$C/test.T: updated" \
    "$C/inc/sub.K: updated" "$C/extra.T: updated" >"$T/exp"
assert_file_eq "$T/exp" "$T/out" "two spellings run"
assert_file_eq "$R/command/test.K" "$C/command.K"
assert_file_eq "$R/command/inc/sub.K" "$C/inc/sub.K"
assert_file_eq "$R/transcript/test.T" "$C/test.T"
assert_file_eq "$R/transcript/extra.T" "$C/extra.T"
assert_no_files "staging or temporary files left" "$C" -name '.ktcheck*'
snap before
kt -C
assert_eq 0 "$RC" "two spellings, up to date exit ($(cat "$T/err"))"
assert_eq "No updates needed" "$(cat "$T/out")"
unchanged "two spellings, up to date"

# 6. With -I, two names that differ only in case are one file: fetched,
# staged and committed once, in the spelling first seen.
printf 'd ./ci 0755 0 0\n' >"$R/transcript/ci.T"
cp "$R/transcript/ci.T" "$R/transcript/CI.T"
printf 'p test.T\np ci.T\np CI.T\nn neg.T\ns ./etc/hostname\n' \
    >"$R/command/test.K"
kt -I
assert_eq 1 "$RC" "-I, names differing in case exit ($(cat "$T/err"))"
printf '%s\n' "$C/command.K: updated" "$C/ci.T: updated" >"$T/exp"
assert_file_eq "$T/exp" "$T/out" "-I, names differing in case run"
assert_file_eq "$R/transcript/ci.T" "$C/ci.T"
[ -e "$C/CI.T" ] && fail "-I: CI.T committed apart from ci.T"
assert_no_files "-I: staging files left" "$C" -name '.ktcheck*'

# 7. A file in the way of the directory a new name needs fails the run
# before anything is renamed into place, test.T (changed, and first)
# included.
mkdir -p "$R/transcript/sub"
printf 'd ./srv 0755 0 0\n' >"$R/transcript/sub/x.T"
printf 'd ./usr2 0755 0 0\n' >>"$R/transcript/test.T"
touch -d "@$((T0 + 120))" "$R/transcript/test.T"
printf 'p test.T\np sub/x.T\n' >"$R/command/test.K"
printf 'x\n' >"$C/sub"
snap before
kt
assert_eq 2 "$RC" "file in the way exit"
grep -qF "$C/sub/x.T: Not a directory" "$T/err" ||
    fail "file in the way: $(cat "$T/err")"
[ -s "$T/out" ] && fail "file in the way: said $(cat "$T/out")"
unchanged "file in the way"
exit 0
