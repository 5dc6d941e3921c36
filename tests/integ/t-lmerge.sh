#!/bin/sh
# lmerge: precedence merge (first argument highest), minus lines, file
# trees linked (or copied with -C) into <dest>.<pid> then renamed, -T,
# -n, -f, -v, -D roots, encoded names, and errors that must leave no
# partial destination behind.
set -u
LMERGE=${top_builddir:-.}/client/lmerge
[ -x "$LMERGE" ] || { echo "no $LMERGE"; exit 1; }
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
# tree DIR: every entry with the first bytes of each file
tree() {
	(cd "$1" && find . | LC_ALL=C sort | while read -r p; do
		if [ -f "$p" ]; then printf '%s %s\n' "$p" "$(head -c 2 "$p")"
		else echo "$p"; fi
	done)
}
mkfile() { mkdir -p "$(dirname "$1")" && printf '%s' "$2" >"$1"; }
# leftovers DIR: temporary names that must not survive
leftovers() { find "$1" -name '*.[0-9]*' | LC_ALL=C sort; }

setup() {
	rm -rf R
	mkdir -p R/transcript R/file
	cat >R/transcript/hi.T <<'EOF'
d ./etc 0755 0 0
f ./etc/a 0644 0 0 1 2 -
- f ./etc/b 0644 0 0 1 2 -
f ./etc/sp\bc 0644 0 0 1 2 -
- f ./etc/zz 0644 0 0 1 1 -
EOF
	cat >R/transcript/lo.T <<'EOF'
# lower
d ./etc 0750 0 0
f ./etc/a 0644 0 0 3 2 -
f ./etc/b 0644 0 0 3 2 -
f ./etc/e 0644 0 0 3 2 -
d ./usr 0755 0 0
f ./usr/x 0644 0 0 3 2 -
EOF
	mkfile "R/file/hi.T/./etc/a" HA
	mkfile "R/file/hi.T/./etc/sp c" HS
	mkfile R/file/lo.T/./etc/a LA
	mkfile R/file/lo.T/./etc/b LB
	mkfile R/file/lo.T/./etc/e LE
	mkfile R/file/lo.T/./usr/x LX
}

MERGED='d ./etc 0755 0 0
f ./etc/a 0644 0 0 1 2 -
f ./etc/e 0644 0 0 3 2 -
f ./etc/sp\bc 0644 0 0 1 2 -
- f ./etc/zz 0644 0 0 1 1 -
d ./usr 0755 0 0
f ./usr/x 0644 0 0 3 2 -'

# plain merge with hard links
setup
(cd R/transcript && "$LMERGE" -v hi.T lo.T out.T) >merge.out 2>merge.err
[ $? = 0 ] || fail "merge: exit status"
printf '%s\n' "$MERGED" | same merge-T R/transcript/out.T
tree R/file/out.T >merge.tree
same merge-tree merge.tree <<'EOF'
.
./etc
./etc/a HA
./etc/e LE
./etc/sp c HS
./usr
./usr/x LX
EOF
same merge-v merge.out <<'EOF'
hi.T: ./etc/a: merged into: out.T
lo.T: ./etc/e: merged into: out.T
hi.T: ./etc/sp c: merged into: out.T
lo.T: ./usr/x: merged into: out.T
EOF
[ "$(stat -c %i R/file/out.T/./etc/a)" = "$(stat -c %i R/file/hi.T/./etc/a)" ] ||
    fail "merge: ./etc/a is not a hard link"
[ -z "$(leftovers R)" ] || fail "merge: temporary files left: $(leftovers R)"

# -C copies (new inode, same content and mode)
setup
chmod 0600 R/file/lo.T/./usr/x
(cd R/transcript && "$LMERGE" -C hi.T lo.T out.T) >copy.out 2>copy.err
[ $? = 0 ] || fail "copy: exit status"
printf '%s\n' "$MERGED" | same copy-T R/transcript/out.T
[ "$(stat -c %i R/file/out.T/./etc/a)" != "$(stat -c %i R/file/hi.T/./etc/a)" ] ||
    fail "copy: ./etc/a is a hard link"
[ "$(stat -c %a R/file/out.T/./usr/x)" = 600 ] || fail "copy: mode not kept"
cmp -s R/file/out.T/./usr/x R/file/lo.T/./usr/x || fail "copy: content"

# -T: transcript only, no file tree
setup
run trans 0 "$LMERGE" -T R/transcript/hi.T R/transcript/lo.T R/transcript/out.T
printf '%s\n' "$MERGED" | same trans-T R/transcript/out.T
[ -e R/file/out.T ] && fail "trans: file tree created"
[ -z "$(leftovers R)" ] || fail "trans: temporary files left"

# -n: hand-written first transcript filtered through the second
setup
cat >R/transcript/hand.T <<'EOF'
d ./etc 0700 0 0
f ./etc/a 0600 0 0 9 2 -
f ./etc/b 0644 0 0 9 5 -
f ./etc/new 0644 0 0 9 2 -
EOF
run noup 0 "$LMERGE" -n R/transcript/hand.T R/transcript/lo.T R/transcript/out.T
same noup-T R/transcript/out.T <<'EOF'
f ./etc/a 0600 0 0 9 2 -
f ./etc/b 0644 0 0 3 2 -
f ./etc/e 0644 0 0 3 2 -
d ./usr 0755 0 0
f ./usr/x 0644 0 0 3 2 -
EOF
tree R/file/out.T >noup.tree
same noup-tree noup.tree <<'EOF'
.
./etc
./etc/a LA
./etc/b LB
./etc/e LE
./usr
./usr/x LX
EOF

# -f: merge hi.T into lo.T in place
setup
cat >R/transcript/hi.T <<'EOF'
d ./etc 0755 0 0
f ./etc/a 0644 0 0 1 2 -
- f ./etc/b 0644 0 0 1 2 -
f ./etc/sp\bc 0644 0 0 1 2 -
- d ./usr 0755 0 0
- f ./usr/x 0644 0 0 3 2 -
EOF
run force 0 "$LMERGE" -f -v R/transcript/hi.T R/transcript/lo.T
same force-T R/transcript/lo.T <<'EOF'
d ./etc 0755 0 0
f ./etc/a 0644 0 0 1 2 -
f ./etc/e 0644 0 0 3 2 -
f ./etc/sp\bc 0644 0 0 1 2 -
EOF
tree R/file/lo.T >force.tree
same force-tree force.tree <<'EOF'
.
./etc
./etc/a HA
./etc/e LE
./etc/sp c HS
EOF
same force-v force.out <<'EOF'
lo.T: ./etc/a: unlinked
hi.T: ./etc/a: merged into: lo.T
lo.T: ./etc/b: unlinked
hi.T: ./etc/sp c: merged into: lo.T
lo.T: ./usr/x: unlinked
lo.T: ./usr: unlinked
EOF
[ -z "$(leftovers R)" ] || fail "force: temporary files left"
# a directory that still holds files is kept, with a warning
setup
mkfile R/file/lo.T/./usr/stray ST
printf -- '- d ./usr 0755 0 0\n' >R/transcript/rm.T
run notempty 0 "$LMERGE" -f R/transcript/rm.T R/transcript/lo.T
same notempty-err notempty.err <<'EOF'
lo.T: ./usr: Not empty, continuing...
EOF

# -D: a transcript under <D>/transcript/sub has its files in <D>/file/sub
setup
mkdir -p R/transcript/web R/file/web
mv R/transcript/hi.T R/transcript/lo.T R/transcript/web/
mv R/file/hi.T R/file/lo.T R/file/web/
run droot 0 "$LMERGE" -D R R/transcript/web/hi.T R/transcript/web/lo.T R/transcript/web/out.T
printf '%s\n' "$MERGED" | same droot-T R/transcript/web/out.T
[ -f "R/file/web/out.T/./etc/sp c" ] || fail "droot: file tree not under <D>/file/web"

# errors leave nothing behind: unsorted input (line number), missing
# source file, existing non-empty destination tree
setup
printf 'd ./b 0755 0 0\n\nd ./a 0755 0 0\n' >R/transcript/bad.T
run unsorted 2 "$LMERGE" R/transcript/bad.T R/transcript/lo.T R/transcript/out.T
same unsorted-err unsorted.err <<'EOF'
bad.T: line 3: bad sort order
EOF
[ -e R/transcript/out.T ] && fail "unsorted: destination left behind"
[ -e R/file/out.T ] && fail "unsorted: file tree left behind"
[ -z "$(leftovers R)" ] || fail "unsorted: temporary files left: $(leftovers R)"

setup
printf 'f ./etc/a 0644 0 0 1 1 -\nf ./etc/q 0644 0 0 1 1 -\n' >R/transcript/nofile.T
run nofile 2 "$LMERGE" R/transcript/nofile.T R/transcript/lo.T R/transcript/out.T
grep -q "^link .*/nofile.T/./etc/a to .*: No such file or directory\$" nofile.err ||
    fail "nofile: message: $(cat nofile.err)"
[ -e R/transcript/out.T ] && fail "nofile: destination left behind"
[ -z "$(leftovers R)" ] || fail "nofile: temporary files left"

setup
printf 'old\n' >R/transcript/out.T
mkfile R/file/out.T/./keep KK
run busy 2 "$LMERGE" R/transcript/hi.T R/transcript/lo.T R/transcript/out.T
grep -q "file/out.T: Directory not empty" busy.err || fail "busy: message: $(cat busy.err)"
[ "$(cat R/transcript/out.T)" = old ] || fail "busy: destination changed"
[ -z "$(leftovers R)" ] || fail "busy: temporary files left"

setup
printf 'f ./etc/../../x 0644 0 0 1 1 -\n' >R/transcript/dots.T
run dots 2 "$LMERGE" R/transcript/dots.T R/transcript/lo.T R/transcript/out.T
same dots-err dots.err <<'EOF'
dots.T: line 1: path has a .. component
EOF

printf 'f ./a 0644 0 0 1 1 -\nbad line\n' >R/transcript/junk.T
run junk 2 "$LMERGE" -T R/transcript/junk.T R/transcript/lo.T R/transcript/out.T
same junk-err junk.err <<'EOF'
junk.T: line 2: minimum 3 arguments, got 2
EOF

# usage errors: exit 2
run u1 2 "$LMERGE" R/transcript/hi.T R/transcript/out.T
run u2 2 "$LMERGE" -f R/transcript/hi.T R/transcript/lo.T R/transcript/out.T
run u3 2 "$LMERGE" -n R/transcript/hi.T R/transcript/out.T
run u4 2 "$LMERGE" -f -T R/transcript/hi.T R/transcript/lo.T
head -n 1 u1.err >u1.first
same u1-err u1.first <<'EOF'
Usage: lmerge [-CIiTVv] [ -D path ] [ -u umask ] transcript... dest
EOF

exit $((fails != 0))
