#!/bin/sh
# lcksum: update mode (rewritten lines in lcksum's layout, mtime rule,
# temp file + rename, mode kept), -n and -n -a reports, -P, -q, -D roots,
# several transcripts, -% progress, and errors: missing stored file (line
# number, transcript untouched, no temp left), a symbolic link or FIFO in
# the stored tree (not followed, nothing outside it read), bad sort order,
# bad line, usage, unknown digest.
. "$top_srcdir/tests/integ/lib.sh"
set -u
need_tool lcksum
mk_tmpdir
cd "$T" || fail "cd $T"

# sha1 of "hello" (5 bytes), "" and "0123456789"
H=qvTGHdzF6KLavt4PO0gs2a6pQ00=
E=2jmj7l5rSw0yVb/vlWAYkK/YBwk=
N=h6zsF82dzSCnFsws9nQXtxyKcBY=

setup()
{
	rm -rf R
	mkdir -p R/transcript
	mkfile "R/file/t.T/./d/sp ace" hello 1700000001
	mkfile R/file/t.T/./d/good 0123456789 1700000002
	mkfile R/file/t.T/./d/nosum hello 1700000003
	mkfile R/file/t.T/./e "" 1700000004
	cat >R/transcript/t.T <<EOF
d ./d                                  	0755     0     0
f ./d/good                             	0644     0     0 1600000000      10 $N
f ./d/nosum                            	0644     0     0 1600000000       5 -
f ./d/sp\\bace                          	0600     1     2 1600000000       9 $H
- f ./d/zz                             	0644     0     0 1600000000       7 -
# comment kept
l ./d/zzl                              	0777     0     0 good
f ./e                                  	0644     0     0 1600000000       3 $E
EOF
	chmod 0640 R/transcript/t.T
}

# update mode
setup
check_run upd 1 "$LCKSUM" -c sha1 R/transcript/t.T
check_same upd-out upd.out <<'EOF'
./d/nosum: checksum updated
./d/sp ace: size updated
./e: size updated
t.T: updated
EOF
check_same upd-T R/transcript/t.T <<EOF
d ./d                                  	0755     0     0
f ./d/good                             	0644     0     0 1600000000      10 $N
f ./d/nosum                             0644     0     0 1600000000       5 $H
f ./d/sp\\bace                           0600     1     2 1700000001       5 $H
- f ./d/zz                             	0644     0     0 1600000000       7 -
# comment kept
l ./d/zzl                              	0777     0     0 good
f ./e                                   0644     0     0 1700000004       0 $E
EOF
[ "$(stat -c %a R/transcript/t.T)" = 640 ] || note_fail "upd: transcript mode not kept"
[ -z "$(leftovers R)" ] || note_fail "upd: temporary left"
# second run: verified, exit 0, transcript untouched
cp R/transcript/t.T t.copy
check_run again 0 "$LCKSUM" -c sha1 R/transcript/t.T
check_same again-out again.out <<'EOF'
t.T: verified
EOF
cmp -s t.copy R/transcript/t.T || note_fail "again: transcript changed"
[ -z "$(leftovers R)" ] || note_fail "again: temporary left"

# -n reports every bad line; -n -a the same
setup
cp R/transcript/t.T t.copy
check_run ver 1 "$LCKSUM" -n -c sha1 R/transcript/t.T
check_same ver-out ver.out <<'EOF'
line 3: ./d/nosum: checksum wrong
line 4: ./d/sp ace: size wrong
line 8: ./e: size wrong
t.T: incorrect
EOF
cmp -s t.copy R/transcript/t.T || note_fail "ver: transcript changed"
check_run vera 1 "$LCKSUM" -n -a -c sha1 R/transcript/t.T
cmp -s ver.out vera.out || note_fail "vera: differs from -n"

# -P: only lines under the prefix; -q: silent
setup
check_run pre 1 "$LCKSUM" -n -P ./e -c sha1 R/transcript/t.T
check_same pre-out pre.out <<'EOF'
line 8: ./e: size wrong
t.T: incorrect
EOF
check_run pre2 0 "$LCKSUM" -n -P ./d/good -c sha1 R/transcript/t.T
check_run pre3 0 "$LCKSUM" -n -P ./nothing -c sha1 R/transcript/t.T
check_same pre3-out pre3.out <<'EOF'
warning: prefix "./nothing" not found
t.T: verified
EOF
check_run quiet 1 "$LCKSUM" -q -c sha1 R/transcript/t.T
[ -s quiet.out ] && note_fail "quiet: output with -q"

# missing stored file: error names the line; transcript untouched
setup
rm R/file/t.T/./d/good
cp R/transcript/t.T t.copy
check_run missing 2 "$LCKSUM" -c sha1 R/transcript/t.T
check_same missing-err missing.err <<'EOF'
line 2: open ./d/good: No such file or directory
EOF
cmp -s t.copy R/transcript/t.T || note_fail "missing: transcript changed"
[ -z "$(leftovers R)" ] || note_fail "missing: temporary left"
# with -n -a the check goes on and the transcript is incorrect
check_run missinga 1 "$LCKSUM" -n -a -c sha1 R/transcript/t.T
check_same missinga-out missinga.out <<'EOF'
line 3: ./d/nosum: checksum wrong
line 4: ./d/sp ace: size wrong
line 8: ./e: size wrong
t.T: incorrect
EOF

# sort order and bad lines
setup
printf 'f ./e 0644 0 0 1 0 -\nf ./d/good 0644 0 0 1 10 -\n' >R/transcript/t.T
check_run order 2 "$LCKSUM" -c sha1 R/transcript/t.T
check_same order-err order.err <<'EOF'
R/transcript/t.T: line 2: bad sort order
EOF
[ -z "$(leftovers R)" ] || note_fail "order: temporary left"
printf 'd ./d 0755 0 0\nf ./d/good 0644 0 0 1 10\n' >R/transcript/t.T
check_run bad 2 "$LCKSUM" -n -c sha1 R/transcript/t.T
check_same bad-err bad.err <<'EOF'
R/transcript/t.T: line 2: expected 8 arguments, got 7
EOF
printf 'f ./../x 0644 0 0 1 10 -\n' >R/transcript/t.T
check_run dots 2 "$LCKSUM" -n -c sha1 R/transcript/t.T
check_same dots-err dots.err <<'EOF'
R/transcript/t.T: line 1: path has a .. component
EOF

# the corrected transcript: fsync, rename, then fsync of its directory
need_shim
setup
Tr=$(pwd -P)
check_run dur 1 env LD_PRELOAD="$SHIM" CAIRN_SHIM_TRACE="$Tr/dur.trace" \
    "$LCKSUM" -q -c sha1 R/transcript/t.T
renamed_synced dur.trace "$Tr/R/transcript/t.T" "$Tr/R/transcript" ||
    note_fail "dur: rename not made durable: $(cat dur.trace)"

# the stored tree holds a symbolic link (to a directory on the way, or
# as the file itself) pointing outside it, or a FIFO: nothing outside the
# tree is read, the FIFO is not waited on, and the line names why.
# fifo_run NAME RC CMD...: check_run with a writer at the FIFO R/.../e,
# so that a FIFO opened and read gives "fifo" rather than a hang; the
# writer, still waiting for a reader if none came, is let go after.
fifo_run()
{
	printf 'fifo\n' >R/file/t.T/./e &
	_wpid=$!
	check_run "$@"
	exec 3<>R/file/t.T/./e
	exec 3<&-
	wait "$_wpid"
}
setup
mkdir -p OUT
printf 'secret\n' >OUT/secret
rm R/file/t.T/./d/good R/file/t.T/./e
ln -s "$T/OUT" R/file/t.T/./d/out
ln -s "$T/OUT/secret" R/file/t.T/./d/good
mkfifo R/file/t.T/./e
printf 'f ./d/good 0644 0 0 1 7 -\nf ./d/out/secret 0644 0 0 1 7 -\nf ./e 0644 0 0 1 7 -\n' >R/transcript/t.T
cp R/transcript/t.T t.copy
fifo_run links 1 "$LCKSUM" -n -a -c sha1 R/transcript/t.T
check_same links-err links.err <<'EOF'
line 1: open ./d/good: Too many levels of symbolic links
line 2: open ./d/out/secret: Too many levels of symbolic links
line 3: ./e: not a regular file
EOF
fifo_run linksu 2 "$LCKSUM" -c sha1 R/transcript/t.T
cmp -s t.copy R/transcript/t.T || note_fail "links: transcript changed"
[ -z "$(leftovers R)" ] || note_fail "links: temporary left"

# -D: <D>/transcript/sub/x.T keeps its files in <D>/file/sub/x.T
setup
mkdir -p R/transcript/web R/file/web
mv R/transcript/t.T R/transcript/web/
mv R/file/t.T R/file/web/
check_run droot 1 "$LCKSUM" -n -D R -c sha1 R/transcript/web/t.T
cmp -s ver.out droot.out || note_fail "droot: differs from the plain layout"
check_run nodroot 2 "$LCKSUM" -n -D elsewhere -c sha1 R/transcript/web/t.T

# several transcripts: update mode goes through all of them
setup
cp R/transcript/t.T R/transcript/u.T
cp -pR R/file/t.T R/file/u.T
check_run two 1 "$LCKSUM" -q -c sha1 R/transcript/t.T R/transcript/u.T
cmp -s R/transcript/t.T R/transcript/u.T || note_fail "two: second transcript not updated"

# pct_check NAME: NAME.out is progress lines alone, "%NN path" with two
# digits (three for 100), the percentages strictly growing, the last one
# the only %100.
pct_check()
{
	awk -v name="$1" '
	    !/^%([0-9][0-9]|100) / { print name ": not a progress line: " $0; bad = 1; exit }
	    { p = substr($1, 2) + 0 }
	    NR > 1 && p <= last { print name ": " p " after " last; bad = 1; exit }
	    { last = p }
	    END { if (!bad && last != 100) print name ": ends at " last }
	' "$1.out" >"$1.pct"
	[ -s "$1.pct" ] && note_fail "$(cat "$1.pct")"
	[ "$(grep -c '^%100 ' "$1.out")" -eq 1 ] || note_fail "$1: not one %100"
}

# -%: 1024 per line looked at plus each file's listed size; -P narrows
# both the work and its total; a listed size that is wrong counts as
# listed, in the work as in the total, so the last line is %100 alone
setup
check_run pct 1 "$LCKSUM" -q -n -% -c sha1 R/transcript/t.T
check_same pct-out pct.out <<'EOF'
%14 ./d
%28 ./d/good
%42 ./d/nosum
%57 ./d/sp ace
%71 ./d/zz
%85 ./d/zzl
%100 ./e
EOF
pct_check pct
check_run pctp 0 "$LCKSUM" -q -n -% -P ./d/g -c sha1 R/transcript/t.T
check_same pctp-out pctp.out <<'EOF'
%100 ./d/good
EOF
check_run pcts 1 "$LCKSUM" -q -n -% -P ./d/sp -c sha1 R/transcript/t.T
check_same pcts-out pcts.out <<'EOF'
%100 ./d/sp ace
EOF

# -% over several transcripts: one total for the whole run, so the
# percentage goes on growing from one transcript to the next (the first
# of two equal ones ends at %50) and reaches %100 once, at the very end;
# in update mode as with -n
setup
cp R/transcript/t.T R/transcript/u.T
cp -pR R/file/t.T R/file/u.T
check_run pct2 1 "$LCKSUM" -q -% -c sha1 R/transcript/t.T R/transcript/u.T
pct_check pct2
grep -qx '%50 ./e' pct2.out || note_fail "pct2: first transcript's end"
tail -n 1 pct2.out | grep -qx '%100 ./e' || note_fail "pct2: last line"
check_run pct2n 0 "$LCKSUM" -q -n -% -c sha1 R/transcript/t.T R/transcript/u.T
pct_check pct2n
grep -qx '%50 ./e' pct2n.out || note_fail "pct2n: first transcript's end"
[ "$(grep -c . pct2n.out)" -eq 14 ] ||
    note_fail "pct2n: $(grep -c . pct2n.out) lines"
# -n stops at the first incorrect transcript: the run's work ends there
echo more >>R/file/t.T/./d/good
check_run pct2i 1 "$LCKSUM" -q -n -% -c sha1 R/transcript/t.T R/transcript/u.T
pct_check pct2i
tail -n 1 pct2i.out | grep -qx '%100 ./e' || note_fail "pct2i: last line"
grep -q '^%5[1-9] ' pct2i.out && note_fail "pct2i: went on past the first"
# among the messages (no -q): the same progress lines, in order
check_run pctv 1 "$LCKSUM" -n -% -c sha1 R/transcript/t.T
grep '^%' pctv.out >pctv-pct.out
pct_check pctv-pct
grep -qx 'line 2: ./d/good: size wrong' pctv.out || note_fail "pctv: no message"

# usage and digest errors: exit 2
check_run nodigest 2 "$LCKSUM" R/transcript/t.T
check_run noargs 2 "$LCKSUM" -c sha1
check_run aonly 2 "$LCKSUM" -a -c sha1 R/transcript/t.T
check_run digest 2 "$LCKSUM" -c nosuch R/transcript/t.T
check_same digest-err digest.err <<'EOF'
nosuch: unsupported checksum
EOF
check_run notfound 2 "$LCKSUM" -c sha1 R/transcript/none.T
check_same notfound-err notfound.err <<'EOF'
R/transcript/none.T: No such file or directory
EOF
check_run version 0 "$LCKSUM" -V
grep -qx sha1 version.out || note_fail "version: digest list missing"

end_test
