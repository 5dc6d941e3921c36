#!/bin/sh
# t-lapply-hardlinks: a file with several names whose content or mode
# changes is fixed in one run, every name included.  The new tree, served
# by cairnd, has ./a with three more names (./b, ./c, ./sub/d), ./x with
# one (./y), and ./m with one (./m2); the old tree has the same links
# but other bytes in a and x and another mode on m.  fsdiff -A must
# follow the "+ f" or "f" line of each first name with an "h" line for
# each other name, as Radmind's fsdiff does (vectors fsdiff-A-hardlinks):
# lapply replaces a downloaded file by a new inode, and only relinking
# puts the other names on it.  After one lapply run (one session, then
# -j 2) every name shows the new bytes and mode on one inode with the
# declared link count, and a second fsdiff -A prints nothing.
#
# Then the same on a real pair where this machine has one:
# /usr/bin/perl and its second name /usr/bin/perl5.36.0, as a point
# release changes them (the old copy has one byte changed, same size:
# only the checksum sees it).
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lapply fsdiff
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
umask 022

# inode PATH...: "<inode> <links>" of each PATH, one a line
inode()
{
	stat -c '%i %h' "$@"
}

# same_inode N PATH...: every PATH is one inode with N links
same_inode()
{
	_n=$1
	shift
	_first=$(inode "$1")
	[ "${_first#* }" = "$_n" ] ||
	    fail "$1 has ${_first#* } links, not $_n"
	for _p in "$@"; do
		[ "$(inode "$_p")" = "$_first" ] ||
		    fail "$_p is not the same file as $1: $(inode "$_p") vs $_first"
	done
}

# --- the generic case --------------------------------------------------
mkdir -p "$T/new/sub"
printf 'new bytes of a, longer than before\n' >"$T/new/a"
printf 'new x\n' >"$T/new/x"
printf 'metadata only\n' >"$T/new/m"
chmod 0644 "$T/new/a" "$T/new/x" "$T/new/m"
ln "$T/new/a" "$T/new/b"
ln "$T/new/a" "$T/new/c"
ln "$T/new/a" "$T/new/sub/d"
ln "$T/new/x" "$T/new/y"
ln "$T/new/m" "$T/new/m2"
find "$T/new" -exec touch -h -d "@$T0" {} +
tree_repo "$T/repo" "$T/new" new
mkdir "$T/k"
cp "$T/repo/transcript/new.T" "$T/k/"
echo 'p new.T' >"$T/k/command.K"

# old: the same names and links; a and x hold other bytes, m another
# mode (changed in place, so every name shows the change)
old_tree()
{
	rm -rf "$T/old"
	cp -a "$T/new" "$T/old" || fail "cp -a"
	printf 'old a\n' >"$T/old/a"
	printf 'old x\n' >"$T/old/x"
	chmod 0600 "$T/old/m"
	find "$T/old" -exec touch -h -d "@$T0" {} +
	same_inode 4 "$T/old/a" "$T/old/b" "$T/old/c" "$T/old/sub/d"
}

# diff_A FILE: fsdiff -A -c sha1 of $T/old into FILE
diff_A()
{
	in_dir "$T/old" "$FSDIFF" -A -c sha1 -K "$T/k/command.K" . >"$1" ||
	    fail "fsdiff -A"
}

on_fail 'echo "--- apply.T"; cat "$T/apply.T"'
start_cairnd "$T/repo"
for jobs in 1 2; do
	old_tree
	diff_A "$T/apply.T"
	run_capture "$T/out" "$T/err" in_dir "$T/old" "$LAPPLY" \
	    -h 127.0.0.1 -p "$PORT" -c sha1 -j "$jobs" "$T/apply.T"
	assert_eq 0 "$RC" "lapply -j $jobs: $(cat "$T/err")"
	for p in a b c sub/d; do
		assert_file_eq "$T/new/a" "$T/old/$p" "$p after lapply -j $jobs"
	done
	assert_file_eq "$T/new/x" "$T/old/y" "y after lapply -j $jobs"
	same_inode 4 "$T/old/a" "$T/old/b" "$T/old/c" "$T/old/sub/d"
	same_inode 2 "$T/old/x" "$T/old/y"
	same_inode 2 "$T/old/m" "$T/old/m2"
	assert_eq 644 "$(stat -c %a "$T/old/m2")" "mode of m2"
	# the "h" lines that followed each changed first name
	for l in './b	./a' './c	./a' './m2	./m' './sub/d	./a' \
	    './y	./x'; do
		grep -q "^h ${l%%	*} *	${l#*	}\$" "$T/apply.T" ||
		    fail "no h line for ${l%%	*} in the applicable transcript"
	done
	diff_A "$T/again.T"
	[ ! -s "$T/again.T" ] || {
		cat "$T/again.T" >&2
		fail "differences left after one lapply -j $jobs run"
	}
	assert_no_files "temp files (-j $jobs)" "$T/old" -name '*.radmind.*'
done
stop_cairnd

# --- a real pair: perl and perl5.36.0 -----------------------------------
P=/usr/bin/perl
P2=/usr/bin/perl5.36.0
if [ -f "$P" ] && [ -f "$P2" ] &&
    [ "$(stat -c '%d %i' "$P")" = "$(stat -c '%d %i' "$P2")" ]; then
	rm -rf "$T/new" "$T/repo" "$T/k"
	mkdir -p "$T/new/usr/bin" "$T/k"
	cp "$P" "$T/new/usr/bin/perl"
	ln "$T/new/usr/bin/perl" "$T/new/usr/bin/perl5.36.0"
	find "$T/new" -exec touch -h -d "@$T0" {} +
	tree_repo "$T/repo" "$T/new" new
	cp "$T/repo/transcript/new.T" "$T/k/"
	echo 'p new.T' >"$T/k/command.K"
	rm -rf "$T/old"
	cp -a "$T/new" "$T/old"
	# the old release: one byte differs, same size, same mtime
	printf 'X' | dd of="$T/old/usr/bin/perl" bs=1 seek=4096 \
	    conv=notrunc 2>/dev/null || fail "dd"
	touch -d "@$T0" "$T/old/usr/bin/perl"
	cmp -s "$T/new/usr/bin/perl" "$T/old/usr/bin/perl5.36.0" &&
	    fail "the old perl5.36.0 is not the old release"
	start_cairnd "$T/repo"
	diff_A "$T/apply.T"
	run_capture "$T/out" "$T/err" in_dir "$T/old" "$LAPPLY" \
	    -h 127.0.0.1 -p "$PORT" -c sha1 "$T/apply.T"
	assert_eq 0 "$RC" "lapply (perl): $(cat "$T/err")"
	assert_file_eq "$P" "$T/old/usr/bin/perl5.36.0" "perl5.36.0"
	same_inode 2 "$T/old/usr/bin/perl" "$T/old/usr/bin/perl5.36.0"
	grep -q '^h ./usr/bin/perl5\.36\.0 *	./usr/bin/perl$' "$T/apply.T" ||
	    fail "no h line for perl5.36.0"
	diff_A "$T/again.T"
	[ ! -s "$T/again.T" ] || {
		cat "$T/again.T" >&2
		fail "differences left after one lapply run (perl)"
	}
	stop_cairnd
else
	echo "no $P and $P2 with one inode here: real case not run"
fi
exit 0
