#!/bin/sh
# lcksum: update mode (rewritten lines in lcksum's layout, mtime rule,
# temp file + rename, mode kept), -n and -n -a reports, -P, -q, -D roots,
# several transcripts, -% progress, and errors: missing stored file (line number,
# transcript untouched, no temp left), bad sort order, bad line, usage,
# unknown digest.
set -u
LCKSUM=${top_builddir:-.}/client/lcksum
[ -x "$LCKSUM" ] || { echo "no $LCKSUM"; exit 1; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
run() {
	name=$1 want=$2
	shift 2
	"$@" >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
	[ "$rc" = "$want" ] || { fail "$name: exit $rc, want $want"; cat "$T/$name.err"; }
}
same() {
	cat >"$T/$1.want"
	cmp -s "$T/$1.want" "$2" || { fail "$1: $2 differs"; diff "$T/$1.want" "$2"; }
}
mkfile() {
	mkdir -p "$(dirname "$1")" && printf '%s' "$2" >"$1" &&
	    touch -d "@$3" "$1"
}
leftovers() { find "$1" -name '*.T.[0-9]*'; }

# sha1 of "hello" (5 bytes), "" and "0123456789"
H=qvTGHdzF6KLavt4PO0gs2a6pQ00=
E=2jmj7l5rSw0yVb/vlWAYkK/YBwk=
N=h6zsF82dzSCnFsws9nQXtxyKcBY=

setup() {
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
run upd 1 "$LCKSUM" -c sha1 R/transcript/t.T
same upd-out upd.out <<'EOF'
./d/nosum: checksum updated
./d/sp ace: size updated
./e: size updated
t.T: updated
EOF
same upd-T R/transcript/t.T <<EOF
d ./d                                  	0755     0     0
f ./d/good                             	0644     0     0 1600000000      10 $N
f ./d/nosum                             0644     0     0 1600000000       5 $H
f ./d/sp\\bace                           0600     1     2 1700000001       5 $H
- f ./d/zz                             	0644     0     0 1600000000       7 -
# comment kept
l ./d/zzl                              	0777     0     0 good
f ./e                                   0644     0     0 1700000004       0 $E
EOF
[ "$(stat -c %a R/transcript/t.T)" = 640 ] || fail "upd: transcript mode not kept"
[ -z "$(leftovers R)" ] || fail "upd: temporary left"
# second run: verified, exit 0, transcript untouched
cp R/transcript/t.T t.copy
run again 0 "$LCKSUM" -c sha1 R/transcript/t.T
same again-out again.out <<'EOF'
t.T: verified
EOF
cmp -s t.copy R/transcript/t.T || fail "again: transcript changed"
[ -z "$(leftovers R)" ] || fail "again: temporary left"

# -n reports every bad line; -n -a the same
setup
cp R/transcript/t.T t.copy
run ver 1 "$LCKSUM" -n -c sha1 R/transcript/t.T
same ver-out ver.out <<'EOF'
line 3: ./d/nosum: checksum wrong
line 4: ./d/sp ace: size wrong
line 8: ./e: size wrong
t.T: incorrect
EOF
cmp -s t.copy R/transcript/t.T || fail "ver: transcript changed"
run vera 1 "$LCKSUM" -n -a -c sha1 R/transcript/t.T
cmp -s ver.out vera.out || fail "vera: differs from -n"

# -P: only lines under the prefix; -q: silent
setup
run pre 1 "$LCKSUM" -n -P ./e -c sha1 R/transcript/t.T
same pre-out pre.out <<'EOF'
line 8: ./e: size wrong
t.T: incorrect
EOF
run pre2 0 "$LCKSUM" -n -P ./d/good -c sha1 R/transcript/t.T
run pre3 0 "$LCKSUM" -n -P ./nothing -c sha1 R/transcript/t.T
same pre3-out pre3.out <<'EOF'
warning: prefix "./nothing" not found
t.T: verified
EOF
run quiet 1 "$LCKSUM" -q -c sha1 R/transcript/t.T
[ -s quiet.out ] && fail "quiet: output with -q"

# missing stored file: error names the line; transcript untouched
setup
rm R/file/t.T/./d/good
cp R/transcript/t.T t.copy
run missing 2 "$LCKSUM" -c sha1 R/transcript/t.T
same missing-err missing.err <<'EOF'
line 2: open ./d/good: No such file or directory
EOF
cmp -s t.copy R/transcript/t.T || fail "missing: transcript changed"
[ -z "$(leftovers R)" ] || fail "missing: temporary left"
# with -n -a the check goes on and the transcript is incorrect
run missinga 1 "$LCKSUM" -n -a -c sha1 R/transcript/t.T
same missinga-out missinga.out <<'EOF'
line 3: ./d/nosum: checksum wrong
line 4: ./d/sp ace: size wrong
line 8: ./e: size wrong
t.T: incorrect
EOF

# sort order and bad lines
setup
printf 'f ./e 0644 0 0 1 0 -\nf ./d/good 0644 0 0 1 10 -\n' >R/transcript/t.T
run order 2 "$LCKSUM" -c sha1 R/transcript/t.T
same order-err order.err <<'EOF'
R/transcript/t.T: line 2: bad sort order
EOF
[ -z "$(leftovers R)" ] || fail "order: temporary left"
printf 'd ./d 0755 0 0\nf ./d/good 0644 0 0 1 10\n' >R/transcript/t.T
run bad 2 "$LCKSUM" -n -c sha1 R/transcript/t.T
same bad-err bad.err <<'EOF'
R/transcript/t.T: line 2: expected 8 arguments, got 7
EOF
printf 'f ./../x 0644 0 0 1 10 -\n' >R/transcript/t.T
run dots 2 "$LCKSUM" -n -c sha1 R/transcript/t.T
same dots-err dots.err <<'EOF'
R/transcript/t.T: line 1: path has a .. component
EOF

# -D: <D>/transcript/sub/x.T keeps its files in <D>/file/sub/x.T
setup
mkdir -p R/transcript/web R/file/web
mv R/transcript/t.T R/transcript/web/
mv R/file/t.T R/file/web/
run droot 1 "$LCKSUM" -n -D R -c sha1 R/transcript/web/t.T
cmp -s ver.out droot.out || fail "droot: differs from the plain layout"
run nodroot 2 "$LCKSUM" -n -D elsewhere -c sha1 R/transcript/web/t.T

# several transcripts: update mode goes through all of them
setup
cp R/transcript/t.T R/transcript/u.T
cp -pR R/file/t.T R/file/u.T
run two 1 "$LCKSUM" -q -c sha1 R/transcript/t.T R/transcript/u.T
cmp -s R/transcript/t.T R/transcript/u.T || fail "two: second transcript not updated"

# -%: 1024 per line looked at plus each file's size; -P narrows both
# the work and its total; a listed size that is wrong still ends at %100
setup
run pct 1 "$LCKSUM" -q -n -% -c sha1 R/transcript/t.T
same pct-out pct.out <<'EOF'
%14 ./d
%28 ./d/good
%42 ./d/nosum
%57 ./d/sp ace
%71 ./d/zz
%85 ./d/zzl
%99 ./e
%100 ./e
EOF
run pctp 0 "$LCKSUM" -q -n -% -P ./d/g -c sha1 R/transcript/t.T
same pctp-out pctp.out <<'EOF'
%100 ./d/good
EOF
run pcts 1 "$LCKSUM" -q -n -% -P ./d/sp -c sha1 R/transcript/t.T
same pcts-out pcts.out <<'EOF'
%99 ./d/sp ace
%100 ./d/sp ace
EOF

# usage and digest errors: exit 2
run nodigest 2 "$LCKSUM" R/transcript/t.T
run noargs 2 "$LCKSUM" -c sha1
run aonly 2 "$LCKSUM" -a -c sha1 R/transcript/t.T
run digest 2 "$LCKSUM" -c nosuch R/transcript/t.T
same digest-err digest.err <<'EOF'
nosuch: unsupported checksum
EOF
run notfound 2 "$LCKSUM" -c sha1 R/transcript/none.T
same notfound-err notfound.err <<'EOF'
R/transcript/none.T: No such file or directory
EOF
run version 0 "$LCKSUM" -V
grep -qx sha1 version.out || fail "version: digest list missing"

exit $((fails != 0))
