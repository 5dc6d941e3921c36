#!/bin/sh
# Hostile transcripts and command files (docs/security.md 6.B, B5/B7/B8): a
# last line cut short, CRLF line endings, NUL bytes, a transcript in both
# path styles, a 10,000-component path, paths and link targets longer
# than PATH_MAX, a component longer than NAME_MAX, include loops (also through another name of the same
# file) and 100-deep include nesting, and a directory tree deeper than
# PATH_MAX on disk.  Each must give its exact message naming file and
# line, and exit 2 (lsort: 1), with no crash; under --enable-sanitizers
# any ASan/UBSan report makes stderr differ and the case fail.
# Also checked: lsort, lmerge, lcksum and twhich read transcripts through
# the same rules.
. "$top_srcdir/tests/integ/lib.sh"
need_tool fsdiff lsort lmerge lcksum twhich
mk_tmpdir
cd "$T" || fail "cd $T"

# check NAME RC ERRTEXT CMD...: run CMD (stdout NAME.out, stderr NAME.err);
# exit status must be RC and stderr exactly ERRTEXT plus a newline (or
# empty when ERRTEXT is empty).
check()
{
	_n=$1 _rc=$2 _e=$3
	shift 3
	check_run "$_n" "$_rc" "$@"
	if [ -n "$_e" ]; then
		printf '%s\n' "$_e"
	fi >"$T/check.exp"
	check_same "$_n" "$_n.err" <"$T/check.exp"
}

# A strings of N copies of S, built in O(log N) steps.
rep()
{
	_s=$1 _n=$2 _r=
	while [ "$_n" -gt 0 ]; do
		[ $((_n % 2)) -eq 1 ] && _r=$_r$_s
		_s=$_s$_s
		_n=$((_n / 2))
	done
	printf '%s' "$_r"
}

mkdir root k
echo hello >root/a
printf 'p t.T\n' >k/c.K
cd root || fail "cd root"

# fsdiff CASE RC ERR: fsdiff -C on root with k/t.T as the only transcript
fsd() { check "$1" "$2" "$3" fsdiff -C -K ../k/c.K .; }

# --- B7: truncated transcripts, CRLF, NUL bytes
printf 'd . 0755 0 0\nf ./a 0644 0 0 1700000000 6' >../k/t.T
fsd trunc-midfield 2 '../k/t.T: line 2: incomplete last line (no newline)'
printf 'd . 0755 0 0\nf ./a 0644 0 0 1700000000 6 -' >../k/t.T
fsd trunc-complete 2 '../k/t.T: line 2: incomplete last line (no newline)'
printf 'd . 0755 0 0\n# the end' >../k/t.T
fsd trunc-comment 2 '../k/t.T: line 2: incomplete last line (no newline)'
printf 'd . 0755 0 0\r\nf ./a 0644 0 0 1 6 -\r\n' >../k/t.T
fsd crlf 2 '../k/t.T: line 1: carriage return in line'
printf 'd . 0755 0 0\nl ./l 0777 0 0 target\r\n' >../k/t.T
fsd crlf-target 2 '../k/t.T: line 2: carriage return in line'
printf 'd . 0755 0 0\nf ./a\000b 0644 0 0 1 6 -\n' >../k/t.T
fsd nul-inside 2 '../k/t.T: line 2: NUL byte in line'
printf 'd . 0755 0 0\nf ./a 0644 0 0 1 6 -\n\000\000\000' >../k/t.T
fsd nul-trailing 2 '../k/t.T: line 3: NUL byte in line'
printf '\000' >../k/t.T
fsd nul-only 2 '../k/t.T: line 1: NUL byte in line'

# --- B1: paths that would leave the root
printf 'd . 0755 0 0\nf ./../OUT/x 0644 0 0 1 6 -\n' >../k/t.T
fsd dotdot 2 '../k/t.T: line 2: path has a .. component'
printf 'd . 0755 0 0\nd ./a/.. 0755 0 0\n' >../k/t.T
fsd dotdot-trailing 2 '../k/t.T: line 2: path has a .. component'
printf 'd . 0755 0 0\nd ./a//b 0755 0 0\n' >../k/t.T
fsd empty-component 2 '../k/t.T: line 2: path has an empty or . component'
printf 'd . 0755 0 0\nh ./h /etc/shadow\n' >../k/t.T
fsd hardlink-abs 2 '../k/t.T: line 2: hard link target must start with ./'
printf 'd . 0755 0 0\nh ./h ./../OUT/v\n' >../k/t.T
fsd hardlink-out 2 '../k/t.T: line 2: hard link target has a .. component'

# one transcript in both path styles: once converted to the run's style
# its paths would be out of order (fsdiff would print ./a twice over)
printf 'f /z 0644 0 0 1 0 -\nf ./a 0644 0 0 1 0 -\n' >../k/t.T
fsd mixed-style 2 '../k/t.T: line 2: relative path in an absolute transcript'
printf 'd . 0755 0 0\nf ./a 0644 0 0 1 0 -\nf /b 0644 0 0 1 0 -\n' >../k/t.T
fsd mixed-style-rel 2 '../k/t.T: line 3: absolute path in a relative transcript'

# --- B8: long paths
p10k=./$(rep 'a/' 9999)a
printf 'd . 0755 0 0\nd %s 0755 0 0\n' "$p10k" >../k/t.T
fsd path-10000-components 2 '../k/t.T: line 2: line too long'
pmax=./$(rep 'abcdefg/' 512)x
printf 'd . 0755 0 0\nd %s 0755 0 0\n' "$pmax" >../k/t.T
fsd path-over-PATH_MAX 2 '../k/t.T: line 2: path too long'
printf 'd . 0755 0 0\nl ./l 0777 0 0 %s\n' "$pmax" >../k/t.T
fsd target-over-PATH_MAX 2 '../k/t.T: line 2: link target too long'
printf 'd . 0755 0 0\nd ./a\\q 0755 0 0\n' >../k/t.T
fsd bad-escape 2 '../k/t.T: line 2: bad path encoding'
# A component longer than NAME_MAX is a legal line: the object is simply
# not on disk (lapply then fails on it with ENAMETOOLONG).
long=$(rep b 300)
printf 'd . 0755 0 0\nd ./%s 0755 0 0\n' "$long" >../k/t.T
fsd name-over-NAME_MAX 0 ''
grep -q "^- d ./$long[[:space:]]" name-over-NAME_MAX.out ||
    note_fail "name-over-NAME_MAX: no removal line for the long name"

# --- B5: include loops and nesting
printf 'd . 0755 0 0\n' >../k/t.T
printf 'k c.K\n' >../k/c.K
fsd loop-self 2 'command file ../k/c.K: line 1: c.K: included twice (loop)'
printf 'p t.T\nk b.K\n' >../k/c.K
printf 'k c.K\n' >../k/b.K
fsd loop-a-b-a 2 \
    'command file ../k/b.K: line 1: c.K: included twice (loop)'
printf 'k ./c.K\n' >../k/c.K
fsd loop-other-name 2 \
    'command file ../k/c.K: line 1: ./c.K: included twice (loop)'
i=1
while [ "$i" -le 100 ]; do
	printf 'k n%d.K\n' $((i + 1)) >../k/n$i.K
	i=$((i + 1))
done
printf 'p t.T\n' >../k/n101.K
check nest-100 2 'command file ../k/n65.K: line 1: include depth exceeds 64' \
    fsdiff -C -K ../k/n1.K .
# 64 levels are fine
printf 'p t.T\n' >../k/n65.K
check nest-64 0 '' fsdiff -C -K ../k/n1.K .
printf 'k nothere.K\n' >../k/c.K
fsd include-missing 2 '../k/nothere.K: No such file or directory'
# command files are hand-written: CR is white space and the last LF
# optional (a CR kept in a name would make t.T or b.K unreadable)
printf 'd . 0755 0 0\n' >../k/t.T
printf 'p t.T\r\nk b.K' >../k/c.K
printf 'x ./a\r\n' >../k/b.K
fsd k-crlf 0 ''
grep -q '^f ./a ' k-crlf.out && note_fail "k-crlf: x line of a CRLF file ignored"
printf 'p t.T\n' >../k/c.K

# --- a tree deeper than PATH_MAX on disk
cd "$T" || fail "cd $T"
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import os
os.mkdir("deep"); os.chdir("deep")
for i in range(2100):
    os.mkdir("d"); os.chdir("d")' || fail "cannot build the deep tree"
	: >empty.K
	run_capture deep.out deep.err fsdiff -C -K empty.K deep
	[ "$RC" = 2 ] || note_fail "deep-tree: exit $RC, want 2"
	[ "$(wc -l <deep.err)" -eq 1 ] &&
	    grep -q '^\./deep/d/d/.*: File name too long$' deep.err ||
	    { note_fail "deep-tree: unexpected stderr"; head -c 300 deep.err >&2; }
else
	not_run "the tree deeper than PATH_MAX (no python3)"
fi

# --- the same rules in the other transcript readers
cd "$T" || fail "cd $T"
printf 'd . 0755 0 0\r\nf ./a 0644 0 0 1 6 -\r\n' >crlf.T
check lsort-crlf 1 'crlf.T: line 1: carriage return in line' lsort crlf.T
printf 'd . 0755 0 0\nf ./a\000 0644 0 0 1 6 -\n' >nul.T
check lsort-nul 1 'nul.T: line 2: NUL byte in line' lsort nul.T
printf 'd %s 0755 0 0\n' "$pmax" >long.T
check lsort-long 1 'long.T: line 1: path too long' lsort long.T
# lsort repairs hand-edited files: a missing final LF is supplied
printf 'f ./b 0644 0 0 1 6 -\nd . 0755 0 0' >trunc.T
check lsort-trunc 0 '' lsort trunc.T
printf 'd . 0755 0 0\nf ./b 0644 0 0 1 6 -\n' | cmp -s - lsort-trunc.out ||
    note_fail "lsort-trunc: unexpected output"

mkdir -p srv/transcript srv/file/lo.T
printf 'd . 0755 0 0\nf ./a 0644 0 0 1 6 -' >srv/transcript/hi.T
printf 'd . 0755 0 0\n' >srv/transcript/lo.T
cd srv/transcript || fail "cd srv/transcript"
check lmerge-trunc 2 'hi.T: line 2: incomplete last line (no newline)' \
    lmerge -T hi.T lo.T out.T
[ -e out.T ] && note_fail "lmerge-trunc: out.T left behind"
printf 'd . 0755 0 0\r\n' >hi.T
check lmerge-crlf 2 'hi.T: line 1: carriage return in line' \
    lmerge -T hi.T lo.T out.T
check lcksum-crlf 2 'hi.T: line 1: carriage return in line' \
    lcksum -n -c sha1 hi.T
printf 'd . 0755 0 0\nf ./a 0644 0 0 1 6 -' >hi.T
check lcksum-trunc 2 'hi.T: line 2: incomplete last line (no newline)' \
    lcksum -n -c sha1 hi.T
cd "$T" || fail "cd $T"
printf 'd . 0755 0 0\nd ./a 0755 0 0' >k/t.T
check twhich-trunc 2 'k/t.T: line 2: incomplete last line (no newline)' \
    twhich -K k/c.K ./a
printf 'k c.K\n' >k/c.K
check twhich-loop 2 'command file k/c.K: line 1: c.K: included twice (loop)' \
    twhich -K k/c.K ./a
printf 'p t.T\n' >k/c.K
printf 'f /z 0644 0 0 1 0 -\nf ./a 0644 0 0 1 0 -\n' >k/t.T
check twhich-mixed 2 'k/t.T: line 2: relative path in an absolute transcript' \
    twhich -K k/c.K ./zz

end_test
