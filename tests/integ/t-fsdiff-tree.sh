#!/bin/sh
# fsdiff on a real tree: -C captures every object type with the exact
# Radmind column layout; after changes to the tree, -A lists the edits
# that restore it and -C lists what changed, both asserted line by line;
# a file swapped for a FIFO before its checksum is refused, not waited on.
. "$top_srcdir/tests/integ/lib.sh"
need_tool fsdiff
mk_tmpdir
uid=$(id -u) gid=$(id -g)

# line TYPE PATH REST...: one canonical transcript line
line()
{
	t=$1 p=$2
	shift 2
	printf '%s %-37s\t%s\n' "$t" "$p" "$*"
}
# own MODE: "mode uid gid" as fsdiff prints them
own()
{
	printf '%s %5d %5d' "$1" "$uid" "$gid"
}

mkdir "$T/root" && cd "$T/root" || fail "cd"
mkdir -p etc "sp ace" d/sub
printf 'hello\n' >etc/motd
printf 'world\n' >"sp ace/f	tab"
printf 'hello\n' >d/sub/a
ln d/sub/a d/sub/b
ln -s ../etc/motd d/link
mkfifo d/fifo
chmod 0755 . etc "sp ace" d d/sub
chmod 0644 etc/motd "sp ace/f	tab" d/sub/a
chmod 0600 d/fifo
touch -h -d @1700000000 etc/motd "sp ace/f	tab" d/sub/a
echo >"$T/empty.K"

run_capture "$T/c.out" "$T/c.err" "$FSDIFF" -C -c sha1 -K "$T/empty.K" .
[ "$RC" -eq 0 ] || fail "fsdiff -C exit $RC: $(cat "$T/c.err")"
{
	line d . "$(own 0755)"
	line d ./d "$(own 0755)"
	line p ./d/fifo "$(own 0600)"
	line l ./d/link "$(own 0777) ../etc/motd"
	line d ./d/sub "$(own 0755)"
	line f ./d/sub/a "$(own 0644) 1700000000       6 9XLTlvrpIGYocU+yzgD3LpTyJY8="
	line h ./d/sub/b "./d/sub/a"
	line d ./etc "$(own 0755)"
	line f ./etc/motd "$(own 0644) 1700000000       6 9XLTlvrpIGYocU+yzgD3LpTyJY8="
	line d './sp\bace' "$(own 0755)"
	line f './sp\bace/f\ttab' "$(own 0644) 1700000000       6 lZGBjAfpANt+HgvEuITJReamGyQ="
} >"$T/c.exp"
assert_file_eq "$T/c.exp" "$T/c.out" "fsdiff -C transcript"
[ -s "$T/c.err" ] && fail "fsdiff -C wrote to stderr: $(cat "$T/c.err")"

# The capture becomes the loaded transcript; change the tree.
cp "$T/c.out" "$T/base.T"
printf 'p base.T\n' >"$T/command.K"
printf 'changed\n' >etc/motd		# same size, new content
touch -h -d @1700000500 etc/motd
chmod 0700 d/sub			# metadata only
rm "sp ace/f	tab"			# missing
printf 'new file\n' >d/new		# not in the transcript
touch -h -d @1700000900 d/new
chmod 0644 d/new
rm d/link && mkdir d/link		# type change l -> d
chmod 0755 d/link

run_capture "$T/a.out" "$T/a.err" "$FSDIFF" -A -c sha1 -K "$T/command.K" .
[ "$RC" -eq 0 ] || fail "fsdiff -A exit $RC: $(cat "$T/a.err")"
{
	printf 'base.T:\n'	# a type change names its transcript
	line l ./d/link "$(own 0777) ../etc/motd"
	printf -- '- '; line f ./d/new "$(own 0644) 1700000900       9 -"
	line d ./d/sub "$(own 0755)"
	printf '+ '; line f ./etc/motd "$(own 0644) 1700000000       6 9XLTlvrpIGYocU+yzgD3LpTyJY8="
	printf '+ '; line f './sp\bace/f\ttab' "$(own 0644) 1700000000       6 lZGBjAfpANt+HgvEuITJReamGyQ="
} >"$T/a.exp"
assert_file_eq "$T/a.exp" "$T/a.out" "fsdiff -A after changes"

run_capture "$T/m.out" "$T/m.err" "$FSDIFF" -C -c sha1 -K "$T/command.K" .
[ "$RC" -eq 0 ] || fail "fsdiff -C (second) exit $RC"
{
	line d ./d/link "$(own 0755)"
	line f ./d/new "$(own 0644) 1700000900       9 jZBc3J6ZV4JKscj1dHM79IqLpGs="
	line d ./d/sub "$(own 0700)"
	line f ./etc/motd "$(own 0644) 1700000500       8 L2kzte4PX92CPZcX2HKfPCUjgRs="
	printf -- '- '; line f './sp\bace/f\ttab' "$(own 0644) 1700000000       6 lZGBjAfpANt+HgvEuITJReamGyQ="
} >"$T/m.exp"
assert_file_eq "$T/m.exp" "$T/m.out" "fsdiff -C against the transcript"

# Without -c a same-size change with an old mtime is invisible, a new
# mtime is a content change.
run_capture "$T/n.out" "$T/n.err" "$FSDIFF" -A -K "$T/command.K" ./etc
printf 'base.T:\n' >"$T/n.exp"
printf '+ ' >>"$T/n.exp"
line f ./etc/motd "$(own 0644) 1700000000       6 9XLTlvrpIGYocU+yzgD3LpTyJY8=" >>"$T/n.exp"
assert_file_eq "$T/n.exp" "$T/n.out" "fsdiff -A subtree without -c"

# A file put in place of the scanned one before fsdiff reads it to
# checksum it: fsdiff names it and fails, rather than digest another file,
# and a FIFO there does not make it wait for a writer.
need_shim
mkdir swap
printf 'scanned\n' >swap/f
LD_PRELOAD=$SHIM CAIRN_SHIM_STOP=open:1 CAIRN_SHIM_STOPPATH=/swap/f \
    CAIRN_SHIM_RUN='rm -f swap/f && mkfifo swap/f' \
    run_capture "$T/s.out" "$T/s.err" timeout 60 "$FSDIFF" -C -c sha1 \
    -K "$T/command.K" ./swap
[ -p swap/f ] || fail "the file was not swapped for a FIFO"
[ "$RC" -ne 124 ] || fail "fsdiff waited on the FIFO put in place of a file"
[ "$RC" -ne 0 ] || fail "fsdiff exit 0 with a file changed under it"
grep -q 'swap/f: changed while being read' "$T/s.err" ||
    fail "the changed file not named: $(cat "$T/s.err")"
exit 0
