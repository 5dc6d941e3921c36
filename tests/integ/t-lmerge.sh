#!/bin/sh
# lmerge: precedence merge (first argument highest), minus lines, file
# trees linked (or copied with -C) into <dest>.<pid> then renamed, -T,
# -n, -f, -v, -D roots, encoded names, symbolic links in a file tree
# (never followed), and errors that must leave no partial destination
# behind.
. "$top_srcdir/tests/integ/lib.sh"
set -u
need_tool lmerge
mk_tmpdir
cd "$T" || fail "cd $T"

setup()
{
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
check_run merge 0 in_dir R/transcript "$LMERGE" -v hi.T lo.T out.T
check_same merge-T R/transcript/out.T <<EOF
$MERGED
EOF
tree_list R/file/out.T >merge.tree
check_same merge-tree merge.tree <<'EOF'
.
./etc
./etc/a HA
./etc/e LE
./etc/sp c HS
./usr
./usr/x LX
EOF
check_same merge-v merge.out <<'EOF'
hi.T: ./etc/a: merged into: out.T
lo.T: ./etc/e: merged into: out.T
hi.T: ./etc/sp c: merged into: out.T
lo.T: ./usr/x: merged into: out.T
EOF
[ "$(stat -c %i R/file/out.T/./etc/a)" = "$(stat -c %i R/file/hi.T/./etc/a)" ] ||
    note_fail "merge: ./etc/a is not a hard link"
[ -z "$(leftovers R)" ] || note_fail "merge: temporary files left: $(leftovers R)"

# the new tree and transcript: each rename made durable (fsync of the
# directory) before lmerge exits
need_shim
setup
Tr=$(pwd -P)
check_run dur 0 in_dir R/transcript env LD_PRELOAD="$SHIM" \
    CAIRN_SHIM_TRACE="$Tr/dur.trace" "$LMERGE" hi.T lo.T out.T
renamed_synced dur.trace "$Tr/R/transcript/../file/out.T" "$Tr/R/file" ||
    note_fail "dur: tree rename not made durable: $(cat dur.trace)"
renamed_synced dur.trace "$Tr/R/transcript/out.T" "$Tr/R/transcript" ||
    note_fail "dur: transcript rename not made durable: $(cat dur.trace)"

# -C copies (new inode, same content and mode)
setup
chmod 0600 R/file/lo.T/./usr/x
check_run copy 0 in_dir R/transcript "$LMERGE" -C hi.T lo.T out.T
check_same copy-T R/transcript/out.T <<EOF
$MERGED
EOF
[ "$(stat -c %i R/file/out.T/./etc/a)" != "$(stat -c %i R/file/hi.T/./etc/a)" ] ||
    note_fail "copy: ./etc/a is a hard link"
[ "$(stat -c %a R/file/out.T/./usr/x)" = 600 ] || note_fail "copy: mode not kept"
cmp -s R/file/out.T/./usr/x R/file/lo.T/./usr/x || note_fail "copy: content"

# -T: transcript only, no file tree
setup
check_run trans 0 "$LMERGE" -T R/transcript/hi.T R/transcript/lo.T R/transcript/out.T
check_same trans-T R/transcript/out.T <<EOF
$MERGED
EOF
[ -e R/file/out.T ] && note_fail "trans: file tree created"
[ -z "$(leftovers R)" ] || note_fail "trans: temporary files left"

# -n: hand-written first transcript filtered through the second
setup
cat >R/transcript/hand.T <<'EOF'
d ./etc 0700 0 0
f ./etc/a 0600 0 0 9 2 -
f ./etc/b 0644 0 0 9 5 -
f ./etc/new 0644 0 0 9 2 -
EOF
check_run noup 0 "$LMERGE" -n R/transcript/hand.T R/transcript/lo.T R/transcript/out.T
check_same noup-T R/transcript/out.T <<'EOF'
f ./etc/a 0600 0 0 9 2 -
f ./etc/b 0644 0 0 3 2 -
f ./etc/e 0644 0 0 3 2 -
d ./usr 0755 0 0
f ./usr/x 0644 0 0 3 2 -
EOF
tree_list R/file/out.T >noup.tree
check_same noup-tree noup.tree <<'EOF'
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
check_run force 0 "$LMERGE" -f -v R/transcript/hi.T R/transcript/lo.T
check_same force-T R/transcript/lo.T <<'EOF'
d ./etc 0755 0 0
f ./etc/a 0644 0 0 1 2 -
f ./etc/e 0644 0 0 3 2 -
f ./etc/sp\bc 0644 0 0 1 2 -
EOF
tree_list R/file/lo.T >force.tree
check_same force-tree force.tree <<'EOF'
.
./etc
./etc/a HA
./etc/e LE
./etc/sp c HS
EOF
check_same force-v force.out <<'EOF'
lo.T: ./etc/a: unlinked
hi.T: ./etc/a: merged into: lo.T
lo.T: ./etc/b: unlinked
hi.T: ./etc/sp c: merged into: lo.T
lo.T: ./usr/x: unlinked
lo.T: ./usr: unlinked
EOF
[ -z "$(leftovers R)" ] || note_fail "force: temporary files left"
# a directory that still holds files is kept, with a warning
setup
mkfile R/file/lo.T/./usr/stray ST
printf -- '- d ./usr 0755 0 0\n' >R/transcript/rm.T
check_run notempty 0 "$LMERGE" -f R/transcript/rm.T R/transcript/lo.T
check_same notempty-err notempty.err <<'EOF'
lo.T: ./usr: Not empty, continuing...
EOF

# -D: a transcript under <D>/transcript/sub has its files in <D>/file/sub
setup
mkdir -p R/transcript/web R/file/web
mv R/transcript/hi.T R/transcript/lo.T R/transcript/web/
mv R/file/hi.T R/file/lo.T R/file/web/
check_run droot 0 "$LMERGE" -D R R/transcript/web/hi.T R/transcript/web/lo.T R/transcript/web/out.T
check_same droot-T R/transcript/web/out.T <<EOF
$MERGED
EOF
[ -f "R/file/web/out.T/./etc/sp c" ] || note_fail "droot: file tree not under <D>/file/web"

# errors leave nothing behind: unsorted input (line number), missing
# source file, existing non-empty destination tree
setup
printf 'd ./b 0755 0 0\n\nd ./a 0755 0 0\n' >R/transcript/bad.T
check_run unsorted 2 "$LMERGE" R/transcript/bad.T R/transcript/lo.T R/transcript/out.T
check_same unsorted-err unsorted.err <<'EOF'
bad.T: line 3: bad sort order
EOF
[ -e R/transcript/out.T ] && note_fail "unsorted: destination left behind"
[ -e R/file/out.T ] && note_fail "unsorted: file tree left behind"
[ -z "$(leftovers R)" ] || note_fail "unsorted: temporary files left: $(leftovers R)"

setup
printf 'f ./etc/a 0644 0 0 1 1 -\nf ./etc/q 0644 0 0 1 1 -\n' >R/transcript/nofile.T
check_run nofile 2 "$LMERGE" R/transcript/nofile.T R/transcript/lo.T R/transcript/out.T
grep -q "^link .*/nofile.T/./etc/a to .*: No such file or directory\$" nofile.err ||
    note_fail "nofile: message: $(cat nofile.err)"
[ -e R/transcript/out.T ] && note_fail "nofile: destination left behind"
[ -z "$(leftovers R)" ] || note_fail "nofile: temporary files left"

setup
printf 'old\n' >R/transcript/out.T
mkfile R/file/out.T/./keep KK
check_run busy 2 "$LMERGE" R/transcript/hi.T R/transcript/lo.T R/transcript/out.T
grep -q "file/out.T: Directory not empty" busy.err || note_fail "busy: message: $(cat busy.err)"
[ "$(cat R/transcript/out.T)" = old ] || note_fail "busy: destination changed"
[ -z "$(leftovers R)" ] || note_fail "busy: temporary files left"

setup
printf 'f ./etc/../../x 0644 0 0 1 1 -\n' >R/transcript/dots.T
check_run dots 2 "$LMERGE" R/transcript/dots.T R/transcript/lo.T R/transcript/out.T
check_same dots-err dots.err <<'EOF'
dots.T: line 1: path has a .. component
EOF

printf 'f ./a 0644 0 0 1 1 -\nbad line\n' >R/transcript/junk.T
check_run junk 2 "$LMERGE" -T R/transcript/junk.T R/transcript/lo.T R/transcript/out.T
check_same junk-err junk.err <<'EOF'
junk.T: line 2: minimum 3 arguments, got 2
EOF

# a symbolic link in a file tree, to a directory on the way or as the
# file itself, is never followed: lmerge and -C read nothing outside the
# tree, -f puts nothing there and removes nothing from there
setup
rm -rf OUT
mkdir OUT
printf 'secret\n' >OUT/secret
printf 'victim\n' >OUT/x
rm R/file/hi.T/./etc/a
ln -s "$T/OUT/secret" R/file/hi.T/./etc/a
for c in link copy; do
	opt=
	[ "$c" = copy ] && opt=-C
	check_run "$c-leaf" 2 "$LMERGE" $opt R/transcript/hi.T R/transcript/lo.T R/transcript/out.T
	grep -q "^$c .*/hi.T/./etc/a to .*: not a regular file\$" "$c-leaf.err" ||
	    note_fail "$c-leaf: message: $(cat "$c-leaf.err")"
	[ -e R/transcript/out.T ] && note_fail "$c-leaf: destination left behind"
	[ -z "$(leftovers R)" ] || note_fail "$c-leaf: temporary files left"
done
rm -rf R/file/hi.T/./etc
ln -s "$T/OUT" R/file/hi.T/./etc
check_run copy-dir 2 "$LMERGE" -C R/transcript/hi.T R/transcript/lo.T R/transcript/out.T
grep -q "^copy .*/hi.T/./etc/a to .*: Too many levels of symbolic links\$" copy-dir.err ||
    note_fail "copy-dir: message: $(cat copy-dir.err)"
[ -e R/transcript/out.T ] && note_fail "copy-dir: destination left behind"
# -f: lo.T's ./usr is a link to OUT; hi.T replaces ./usr/x and adds ./usr/y
setup
rm -rf OUT R/file/lo.T/./usr
mkdir OUT
printf 'victim\n' >OUT/x
ln -s "$T/OUT" R/file/lo.T/./usr
printf 'f ./usr/y 0644 0 0 1 2 -\n' >R/transcript/add.T
mkfile R/file/add.T/./usr/y NY
cp R/transcript/lo.T lo.copy
check_run force-add 2 "$LMERGE" -f R/transcript/add.T R/transcript/lo.T
grep -q "^link .*/add.T/./usr/y to .*/lo.T/./usr/y failed: Too many levels of symbolic links\$" force-add.err ||
    note_fail "force-add: message: $(cat force-add.err)"
printf 'f ./usr/x 0644 0 0 1 2 -\n' >R/transcript/rep.T
mkfile R/file/rep.T/./usr/x NX
check_run force-rep 2 "$LMERGE" -f R/transcript/rep.T R/transcript/lo.T
grep -q "/lo.T/./usr/x: Too many levels of symbolic links\$" force-rep.err ||
    note_fail "force-rep: message: $(cat force-rep.err)"
[ "$(ls OUT)" = x ] && [ "$(cat OUT/x)" = victim ] ||
    note_fail "force: OUT changed: $(ls OUT)"
cmp -s lo.copy R/transcript/lo.T || note_fail "force: lo.T changed"
[ -z "$(leftovers R)" ] || note_fail "force: temporary files left"

# usage errors: exit 2
check_run u1 2 "$LMERGE" R/transcript/hi.T R/transcript/out.T
check_run u2 2 "$LMERGE" -f R/transcript/hi.T R/transcript/lo.T R/transcript/out.T
check_run u3 2 "$LMERGE" -n R/transcript/hi.T R/transcript/out.T
check_run u4 2 "$LMERGE" -f -T R/transcript/hi.T R/transcript/lo.T
head -n 1 u1.err >u1.first
check_same u1-err u1.first <<'EOF'
Usage: lmerge [-CIiTVv] [ -D path ] [ -u umask ] transcript... dest
EOF

end_test
