#!/bin/sh
# t-lapply-hostile: transcripts that try to leave the apply root (".."
# components, absolute paths in a relative transcript, empty components,
# hard links to outside, a symbolic link then a file through it) are
# refused before anything changes; symbolic links on disk, as a parent
# directory or as the object itself, are never followed.  A sentinel
# outside the root must stay byte-, mode-, owner-, mtime- and
# link-count-identical (docs/security.md B1, C1-C4, C7).
. "$top_srcdir/tests/integ/lib.sh"
need_tool lapply
mk_tmpdir
. "$top_srcdir/tests/integ/lapply-lib.sh"
plant
mkdir "$R/keep"

# refused TRANSCRIPT-TEXT EXPECTED-STDERR: refused before any change.
refused()
{
	printf '%s\n' "$1" > "$T/h.T"
	apply "$T/h.T"
	expect_rc 2
	expect_err "$2"
	[ "$(ls -A "$R")" = keep ] || fail "root changed: $(ls -A "$R")"
	check_sentinel "$2"
}

# B1: escaping paths, rejected with their line before any change (the
# transcript parser refuses non-canonical paths for every reader; lapply
# itself refuses absolute paths in a relative transcript).
refused "d ./new	0755 0 0
f ./../outside/victim	0777 0 0 0 0 -" \
    "$T/h.T: line 2: path has a .. component"
refused "d ./keep/..	0777 0 0" \
    "$T/h.T: line 1: path has a .. component"
refused "- f ./keep/../../outside/victim	0600 0 0 0 0 -" \
    "$T/h.T: line 1: path has a .. component"
refused "d ./new	0755 0 0
- f $OUT/victim	0600 0 0 0 0 -" \
    "line 2: $OUT/victim: absolute path in a relative transcript"
refused "d ./keep//x	0755 0 0" \
    "$T/h.T: line 1: path has an empty or . component"
refused "d ./keep/x/	0755 0 0" \
    "$T/h.T: line 1: path has an empty or . component"
refused "d ./keep/./x	0755 0 0" \
    "$T/h.T: line 1: path has an empty or . component"
refused "d keep	0755 0 0" \
    "$T/h.T: line 1: path must start with ./ or /"
refused "- d .	0755 0 0" \
    'line 1: .: the apply root can only be a directory'
refused "f ./keep/x	0644 4294967295 0 0 0 -" \
    "$T/h.T: line 1: bad uid 4294967295"

# C4: hard links may only point inside the root.
refused "h ./a	./../outside/victim" \
    "$T/h.T: line 1: hard link target has a .. component"
refused "h ./a	$OUT/victim" \
    "$T/h.T: line 1: hard link target must start with ./"
refused "h ./a	." \
    'line 1: ./a: hard link target .: link to the apply root'
[ "$(stat -c %h "$OUT/victim")" = 1 ] || fail "victim got a link"

# C1: a symbolic link, then an object "through" it.
refused "l ./d	0777 0 0 $OUT
f ./d/victim	0777 0 0 0 0 -" \
    'line 2: ./d/victim: ./d is not a directory in this transcript'
refused "f ./d	0644 0 0 0 0 -
d ./d/sub	0755 0 0" \
    'line 2: ./d/sub: ./d is not a directory in this transcript'

# A symbolic link on disk as a parent directory is never followed.
ln -s "$OUT" "$R/link"
for line in \
    "f ./link/victim	0777 0 0 0 15 -" \
    "- f ./link/victim	0600 0 0 0 15 -" \
    "d ./link/newdir	0755 0 0" \
    "p ./link/fifo	0644 0 0" \
    "l ./link/sym	0777 0 0 x" \
    "h ./link/hard	./keep"
do
	printf '%s\n' "$line" > "$T/h.T"
	apply "$T/h.T"
	expect_rc 2
	path=$(printf '%s' "$line" | sed 's/^- //' | cut -f1 | cut -d' ' -f2)
	expect_err "lapply: $T/h.T: line 1: $path: refusing to follow symbolic link ./link"
	check_sentinel "$line"
done
# ... nor deeper down, nor when the link points inside the root.
mkdir -p "$R/keep/in"
ln -s ../link "$R/keep/in/l2"
printf 'd ./keep/in/l2/x\t0755 0 0\n' > "$T/h.T"
apply "$T/h.T"
expect_rc 2
expect_err "lapply: $T/h.T: line 1: ./keep/in/l2/x: refusing to follow symbolic link ./keep/in/l2"
check_sentinel "deep link"
rm -rf "$R/keep/in"

# A file where a directory is expected is reported as such.
: > "$R/plain"
printf 'd ./plain/x\t0755 0 0\n' > "$T/h.T"
apply "$T/h.T"
expect_rc 2
expect_err "lapply: $T/h.T: line 1: ./plain/x: ./plain is not a directory"
rm -f "$R/plain" "$R/link"

# C2/C3: the object itself is a symbolic link to the sentinel.  A
# metadata line must not chmod/chown/utime through it: the link is
# removed as a type mismatch and the missing file is an error.
ln -s "$OUT/victim" "$R/x"
printf 'f ./x\t0777 0 0 1 15 -\n' > "$T/h.T"
apply "$T/h.T"
expect_rc 1
expect_out "No network connection
./x: deleted"
expect_err "lapply: $T/h.T: line 1: ./x: open: No such file or directory"
check_sentinel "C3"
[ ! -e "$R/x" ] && [ ! -L "$R/x" ] || fail "./x still there"
# The same for a directory line, a FIFO and a device line.
for line in "d ./x	0777 0 0" "p ./x	0777 0 0" "s ./x	0777 0 0"; do
	ln -s "$OUT/victim" "$R/x"
	printf '%s\n' "$line" > "$T/h.T"
	apply "$T/h.T"
	check_sentinel "$line"
	[ ! -L "$R/x" ] || fail "$line: link kept"
	rm -rf "$R/x"
done

# C7: removing a directory that holds links to outside: links are
# unlinked, never followed.
mkdir -p "$R/old/sub" "$OUT/dir"
: > "$OUT/dir/keepme"
ln -s "$OUT" "$R/old/link"
ln -s "$OUT/dir" "$R/old/sub/link2"
plant
cat > "$T/h.T" <<EOF2
- d ./old	0755 0 0
- l ./old/link	0777 0 0 x
- d ./old/sub	0755 0 0
- l ./old/sub/link2	0777 0 0 x
EOF2
apply "$T/h.T"
expect_rc 0
[ ! -e "$R/old" ] || fail "old not removed"
[ -f "$OUT/dir/keepme" ] || fail "followed link2"
check_sentinel "C7"

# A name of this run's own temp files ("<leaf>.radmind.<pid>", or
# ".radmind.<pid>.<line>" for a long leaf) is refused before anything
# changes: a symbolic link made there would be removed as a stale temp
# file by the long name's line, which makes its own link there, and
# lapply would say both were made.  The shell writes the transcript with
# its PID, then becomes lapply.
long=$(printf '%0240d' 0 | tr 0 a)
# own_refused TRANSCRIPT-LINES... (%P: the PID): refused, nothing made.
own_refused()
{
	printf '%s\n' "$@" > "$T/own.in"
	run_capture "$T/out" "$T/err" in_dir "$R" sh -c \
	    'sed "s/%P/$$/g" "$1" > "$2" && exec "$3" -n "$2"' sh \
	    "$T/own.in" "$T/own.T" "$LAPPLY"
	expect_rc 2
	[ "$(ls -A "$R")" = keep ] || fail "root changed: $(ls -A "$R")"
	pid=$(sed -n 's/.*radmind\.\([0-9]*\).*/\1/ip' "$T/own.T" | head -n 1)
	grep -qi "^line 1: .*radmind\.$pid.*: name of a temporary file of this run\$" \
	    "$T/err" || fail "own temp name: $(cat "$T/err")"
	check_sentinel "own temp name"
}
own_refused "l ./.radmind.%P.2	0777 0 0 x" "l ./$long	0777 0 0 y"
own_refused "l ./keep.RADMIND.%P	0777 0 0 x"
own_refused "d ./keep.radmind.%P	0755 0 0" "f ./keep.radmind.%P/f	0644 0 0 0 0 -"
own_refused "f ./keep/x.radmind.%P	0644 0 0 0 0 -"
own_refused "h ./a	./keep.radmind.%P"
# Another run's leftover is a name like any other: removed.
: > "$R/keep/x.radmind.1"
: > "$R/keep/.radmind.1.2"
printf '%s\n' "- f ./keep/.radmind.1.2	0644 0 0 0 0 -" \
    "- f ./keep/x.radmind.1	0644 0 0 0 0 -" > "$T/h.T"
apply "$T/h.T"
expect_rc 0
[ -z "$(ls -A "$R/keep")" ] || fail "leftovers kept: $(ls -A "$R/keep")"
exit 0
