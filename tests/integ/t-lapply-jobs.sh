#!/bin/sh
# t-lapply-jobs: lapply -j N spreads the downloads over N sessions with
# cairnd and changes nothing else: a tree of many files in several
# directories, with hard links, removals, type changes (a directory
# replaced by a file, a file by a directory, a symbolic link by a file)
# and a symbolic link, applied with -j 1 into one root and -j 4 into
# another, plain and with -Z 6, must give the same tree (content, modes,
# owners, mtimes, link counts, listing) and the same stdout.  A server
# session dropped mid-transfer fails the run as with one session: the
# same two lines on stderr, exit status 1, every download before the
# failed one in place and none after it, no temp file left; a checksum
# that does not match gives the very messages, output and tree of one
# session: the new directories, links and pipes after the failed
# download, made ahead of it, are removed again, and the directories,
# files and pipes already there whose owner, mode or mtime it changed
# ahead of it get them back.  Lines run ahead and landed by a barrier
# while the sessions were idle do not become downloads.  -j 0 and -j 17
# are usage errors.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lapply
need_root
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/lapply-lib.sh"

REPO=$T/repo
make_repo "$REPO"
F=$REPO/file/test.T
DIRS="d0 d1 d2 d3 d4 d5"
NAMES=
k=0
while [ "$k" -lt 25 ]; do
	NAMES="$NAMES f$(printf %02d "$k")"
	k=$((k + 1))
done
n=0
for d in $DIRS; do
	mkdir -p "$F/$d"
	for f in $NAMES; do
		n=$((n + 1))
		size=$(( (n * 7919) % 60000 + 1 ))
		yes "$d/$f line of text $n" | head -c "$size" >"$F/$d/$f"
	done
done
printf 'file a\n' >"$F/a"
printf 'file b\n' >"$F/b"
printf 'replaces a directory\n' >"$F/g"
printf 'replaces a symbolic link\n' >"$F/s"

# shellcheck disable=SC2086
{
	echo 'test.T:'
	fline ./a "$F/a" 0640 0 0
	fline ./b "$F/b" 0600 0 0
	echo '- f ./c 0644 0 0 1700000000 6 -'
	for d in $DIRS; do
		echo "d ./$d 0750 0 0"
		flines "$F/$d" "./$d" 0644 0 0 $NAMES
		[ "$d" = d1 ] && echo 'h ./d1/hl ./d0/f03'
	done
	echo 'h ./e ./d2/f07'
	echo 'l ./f 0777 0 0 d0/f01'
	fline ./g "$F/g" 0640 0 0
	echo '- f ./g/old 0644 0 0 1700000000 4 -'
	echo '- d ./gone 0755 0 0'
	echo '- f ./gone/x 0644 0 0 1700000000 2 -'
	fline ./s "$F/s" 0644 0 0
} >"$T/apply.T"

# The root before: what the transcript removes or changes the type of.
reset()
{
	rm -rf "$1"
	mkdir -p "$1/g" "$1/gone"
	printf 'old c\n' >"$1/c"
	printf 'old\n' >"$1/g/old"
	printf 'x\n' >"$1/gone/x"
	printf 'was a file\n' >"$1/d3"
	ln -s nowhere "$1/s"
	# A run that stops early leaves some: the same in every root.
	touch -d "@$T0" "$1/c" "$1/g/old" "$1/gone/x" "$1/d3"
}

# Every entry: type, mode, owner, link count, size, target, and the
# mtime of files (directories and links get the time of the run).
listing()
{
	(cd "$1" && find . \( -type f -printf '%y %m %U %G %n %s %T@ %p\n' \) \
	    -o \( -type l -printf '%y %U %G %n %p %l\n' \) \
	    -o -printf '%y %m %U %G %p\n' | sort)
}

# japply ROOT OPTS...: lapply OPTS... the transcript in ROOT (reset).
japply()
{
	_ja_root=$1
	shift
	reset "$_ja_root"
	run_capture "$T/out" "$T/err" in_dir "$_ja_root" "$LAPPLY" \
	    -h 127.0.0.1 -p "$PORT" "$@" "$T/apply.T"
}

same_trees()
{
	listing "$T/r1" >"$T/list1"
	listing "$T/r4" >"$T/list4"
	assert_file_eq "$T/list1" "$T/list4" "listing, -j 1 and -j 4 ($1)"
	diff -r "$T/r1" "$T/r4" >"$T/diff" 2>&1 ||
	    fail "content differs ($1): $(cat "$T/diff")"
	for p in a b g s d0/f00 d3/f24 d5/f24; do
		assert_file_eq "$F/$p" "$T/r4/$p" "$p ($1)"
	done
	for l in "d0/f03 d1/hl" "d2/f07 e"; do
		set -- $l
		assert_eq "$(stat -c %i "$T/r4/$1")" \
		    "$(stat -c %i "$T/r4/$2")" "$2 is a hard link to $1"
	done
	[ ! -e "$T/r4/c" ] && [ ! -e "$T/r4/gone" ] ||
	    fail "removals not done ($1)"
	assert_eq d0/f01 "$(readlink "$T/r4/f")" "symbolic link f"
	assert_no_files "temp files left" "$T/r4" -name '*.radmind.*'
}

# -j out of range: usage errors, nothing touched.
for j in 0 17 x; do
	reset "$T/r4"
	run_capture "$T/out" "$T/err" in_dir "$T/r4" "$LAPPLY" -j "$j" \
	    -h 127.0.0.1 -p 1 "$T/apply.T"
	assert_eq 2 "$RC" "lapply -j $j"
	grep -q '^usage: lapply .*\[-j connections\]' "$T/err" ||
	    fail "lapply -j $j: no usage line: $(cat "$T/err")"
	[ -f "$T/r4/c" ] || fail "lapply -j $j changed the root"
done

start_cairnd "$REPO" -Z 9
for z in 0 6; do
	japply "$T/r1" -Z "$z" -c sha1 -j 1
	assert_eq 0 "$RC" "lapply -Z $z -j 1: $(cat "$T/err")"
	[ ! -s "$T/err" ] || fail "-Z $z -j 1: stderr: $(cat "$T/err")"
	cp "$T/out" "$T/out1"
	assert_eq 1 "$(grep -c '^./d1/hl: hard linked to ./d0/f03$' \
	    "$T/out1")" "hard link message (-Z $z)"
	japply "$T/r4" -Z "$z" -c sha1 -j 4
	assert_eq 0 "$RC" "lapply -Z $z -j 4: $(cat "$T/err")"
	[ ! -s "$T/err" ] || fail "-Z $z -j 4: stderr: $(cat "$T/err")"
	assert_file_eq "$T/out1" "$T/out" "stdout, -j 1 and -j 4 (-Z $z)"
	same_trees "-Z $z"
done

# Four sessions, each with its own counters (-v).
japply "$T/r4" -Z 6 -j 4 -v
assert_eq 0 "$RC" "lapply -v -j 4: $(cat "$T/err")"
assert_eq 4 "$(grep -c '^bytes: received' "$T/out")" "sessions of -j 4"
assert_eq 4 "$(grep -c '^zlib stats' "$T/out")" "compressed sessions"

# More connections than downloads: one per download at most.
{
	echo 'test.T:'
	fline ./a "$F/a" 0640 0 0
	fline ./b "$F/b" 0600 0 0
} >"$T/two.T"
reset "$T/r4"
run_capture "$T/out" "$T/err" in_dir "$T/r4" "$LAPPLY" -v -j 16 \
    -h 127.0.0.1 -p "$PORT" "$T/two.T"
assert_eq 0 "$RC" "lapply -j 16, two files: $(cat "$T/err")"
assert_eq 2 "$(grep -c '^bytes: received' "$T/out")" "sessions for 2 files"

# A session dropped by the server mid-transfer: the first one with
# -j 1, the second with -j 4 (a download session).  Same failure.
for j in 1 4; do
	nth=1
	[ "$j" -eq 1 ] || nth=2
	bg_start "$T/pport" python3 "$top_srcdir/tests/integ/dropproxy.py" \
	    "$PORT" "$T/pport" "$nth" 150000
	PPID_=$BGPID
	reset "$T/r4"
	run_capture "$T/out" "$T/err" in_dir "$T/r4" "$LAPPLY" -c sha1 \
	    -j "$j" -h 127.0.0.1 -p "$(cat "$T/pport")" "$T/apply.T"
	wait "$PPID_"
	assert_eq 1 "$RC" "lapply -j $j, session dropped: $(cat "$T/err")"
	echo "-j $j, session $nth dropped, after $(wc -l <"$T/out") lines:"
	cat "$T/err"
	assert_eq 2 "$(wc -l <"$T/err")" "stderr lines (-j $j)"
	grep -q "^\\(lapply: $T/apply\\.T: \\)\\{0,1\\}line [0-9]*: \\./d[0-9]/f[0-9]*: " "$T/err" ||
	    grep -q '127\.0\.0\.1' "$T/err" ||
	    fail "-j $j: first error line: $(cat "$T/err")"
	sed -n 2p "$T/err" | grep -q "^lapply: $T/apply\.T: line [0-9]*: \./d[0-9]/f[0-9][0-9]: not downloaded, the session with 127\.0\.0\.1 ended\$" ||
	    fail "-j $j: the line and path not named: $(cat "$T/err")"
	# Output as far as one session got, in the same order.
	head -n "$(wc -l <"$T/out")" "$T/out1" | cmp -s - "$T/out" ||
	    fail "-j $j: stdout is not a prefix of the full run's"
	# Every download reported is in place, byte for byte; no other.
	grep '^+ f ' "$T/apply.T" | sed 's/^+ f \([^	]*\)	.*/\1/' |
	    while read -r p; do
		if grep -qx "$p: created updating.*" "$T/out"; then
			cmp -s "$F/$p" "$T/r4/$p" || echo "$p: not in place"
		elif [ -f "$T/r4/$p" ] && [ ! -L "$T/r4/$p" ]; then
			echo "$p: downloaded after the failure"
		fi
	    done >"$T/bad"
	[ ! -s "$T/bad" ] || fail "-j $j: $(cat "$T/bad")"
	assert_no_files "temp files left (-j $j)" "$T/r4" -name '*.radmind.*'
done

# A file the server has changed (same size, other bytes) fails -c sha1
# on whichever session brings it: the same messages, exit status, output
# and tree as with one session.
cp "$F/d2/f10" "$T/f10.saved"
tr 'a-z' 'b-za' <"$T/f10.saved" >"$F/d2/f10"
for j in 1 4; do
	japply "$T/r$j" -c sha1 -j "$j"
	cp "$T/out" "$T/mout$j"
	cp "$T/err" "$T/merr$j"
	assert_eq 1 "$RC" "lapply -j $j, checksum mismatch: $(cat "$T/err")"
done
n=$(grep -n '^+ f \./d2/f10	' "$T/apply.T" | cut -d: -f1)
printf '%s\n' \
    "line $n: checksum in transcript does not match checksum from server" \
    'FILE test.T ./d2/f10' \
    "127.0.0.1: ./d2/f10: the server's copy does not match the transcript; if it is a replica not yet in step, run again later" \
    >"$T/mexp"
assert_file_eq "$T/mexp" "$T/merr1" "stderr of -j 1, checksum mismatch"
assert_file_eq "$T/merr1" "$T/merr4" "stderr, -j 1 and -j 4, checksum mismatch"
assert_file_eq "$T/mout1" "$T/mout4" "stdout, -j 1 and -j 4, checksum mismatch"
listing "$T/r1" >"$T/list1"
listing "$T/r4" >"$T/list4"
assert_file_eq "$T/list1" "$T/list4" "listing, -j 1 and -j 4, checksum mismatch"
[ ! -e "$T/r4/d2/f10" ] || fail "d2/f10 in place after its checksum failed"
assert_no_files "temp files left (mismatch)" "$T/r4" -name '*.radmind.*'

# The same failure with new objects after it, which -j makes ahead of
# the downloads: every one is removed again (nested directories, their
# links and pipes), so the tree is the one session's.
{
	echo 'test.T:'
	grep '^+ f \./a	' "$T/apply.T"
	echo 'd ./d2 0750 0 0'
	grep '^+ f \./d2/f10	' "$T/apply.T"
	echo 'd ./d4 0750 0 0'
	grep '^+ f \./d4/f00	' "$T/apply.T"
	# Objects already there whose owner, mode or mtime change.
	printf 'd ./m\t0700 0 0\n'
	printf 'f ./m/f\t0600 0 0 %s 4 -\n' "$T0"
	printf 'p ./m/p\t0600 0 0\n'
	printf 'd ./m/x\t0711 0 0\n'
	for k in 0 1 2 3 4 5 6 7; do
		echo "d ./n$k 0755 0 0"
		echo "d ./n$k/x 0700 0 0"
		echo "l ./n$k/x/l 0777 0 0 ../../a"
		echo "p ./n$k/x/p 0600 0 0"
	done
} >"$T/ahead.T"
# mmeta ROOT: owner and mode of ROOT/m and what is in it, and the mtime
# of ROOT/m/f, on one line.
mmeta()
{
	(cd "$1/m" && stat -c '%a %u %g' . && stat -c '%a %u %g %.1Y' f &&
	    stat -c '%a %u %g' p x) | tr '\n' ' '
}
# ahead RC OPTS...: lapply OPTS ahead.T with -j 1 into a fresh a1 and
# with -j 4 into a fresh a4; both must exit RC.
ahead()
{
	_ah_rc=$1
	shift
	for j in 1 4; do
		rm -rf "$T/a$j"
		mkdir "$T/a$j" "$T/a$j/m" "$T/a$j/m/x"
		printf 'old\n' >"$T/a$j/m/f"
		mkfifo -m 0644 "$T/a$j/m/p"
		chown 1:1 "$T/a$j/m/f" "$T/a$j/m/x"
		chmod 0755 "$T/a$j/m"
		touch -d "@1600000000.5" "$T/a$j/m/f"
		run_capture "$T/aout$j" "$T/aerr$j" in_dir "$T/a$j" \
		    timeout 300 "$LAPPLY" "$@" -c sha1 -j "$j" -h 127.0.0.1 \
		    -p "$PORT" "$T/ahead.T"
		assert_eq "$_ah_rc" "$RC" \
		    "lapply $* -j $j, made ahead: $(cat "$T/aerr$j")"
	done
}
ahead 1
assert_file_eq "$T/aerr1" "$T/aerr4" "stderr, -j 1 and -j 4, made ahead"
assert_file_eq "$T/aout1" "$T/aout4" "stdout, -j 1 and -j 4, made ahead"
listing "$T/a1" >"$T/list1"
listing "$T/a4" >"$T/list4"
assert_file_eq "$T/list1" "$T/list4" "listing, -j 1 and -j 4, made ahead"
[ ! -e "$T/a4/n0" ] && [ ! -e "$T/a4/d4" ] ||
    fail "objects after the failed download left in place"
assert_eq "755 0 0 644 1 1 1600000000.5 644 0 0 755 1 1 " "$(mmeta "$T/a4")" "metadata after the failed download as it was"
cp "$T/f10.saved" "$F/d2/f10"

# New objects made ahead that land: messages in transcript order.
ahead 0
assert_file_eq "$T/aout1" "$T/aout4" "stdout, -j 1 and -j 4, made ahead"
listing "$T/a1" >"$T/list1"
listing "$T/a4" >"$T/list4"
assert_file_eq "$T/list1" "$T/list4" "listing, -j 1 and -j 4, made ahead"
[ -p "$T/a4/n7/x/p" ] || fail "n7/x/p not made"
assert_eq "700 0 0 600 0 0 1700000000.0 600 0 0 711 0 0 " "$(mmeta "$T/a4")" "metadata changed in place"
# ... and -% names them in their turn too.
ahead 0 -%
grep -q '^%100 ' "$T/aout1" || fail "lapply -%: no %100 line: $(cat "$T/aout1")"
assert_file_eq "$T/aout1" "$T/aout4" "-% lines, -j 1 and -j 4, made ahead"

# Many lines run ahead (the download before them done meanwhile, its
# session idle), landed by a barrier (a removal waits for every earlier
# download), then a download: the sessions
# must not take the landed lines' places in the queue for downloads.
{
	echo 'test.T:'
	fline ./a "$F/a" 0640 0 0
	k=0
	while [ "$k" -lt 300 ]; do
		echo "d ./n$(printf %03d "$k") 0755 0 0"
		k=$((k + 1))
	done
	echo '- f ./o 0644 0 0 1700000000 6 -'
	fline ./s "$F/s" 0644 0 0
} >"$T/bar.T"
for j in 1 2; do
	rm -rf "$T/b$j"
	mkdir "$T/b$j"
	printf 'old o\n' >"$T/b$j/o"
	run_capture "$T/bout$j" "$T/berr$j" in_dir "$T/b$j" timeout 300 \
	    "$LAPPLY" -c sha1 -j "$j" -h 127.0.0.1 -p "$PORT" "$T/bar.T"
	assert_eq 0 "$RC" "lapply -j $j, barrier after lines run ahead: $(cat "$T/berr$j")"
done
assert_file_eq "$T/bout1" "$T/bout2" "stdout, -j 1 and -j 2, barrier"
listing "$T/b1" >"$T/list1"
listing "$T/b2" >"$T/list4"
assert_file_eq "$T/list1" "$T/list4" "listing, -j 1 and -j 2, barrier"
assert_file_eq "$F/s" "$T/b2/s" "s after the barrier"
stop_cairnd
exit 0
