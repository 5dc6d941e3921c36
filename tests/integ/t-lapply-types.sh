#!/bin/sh
# t-lapply-types: every object type and every type change lapply -n
# handles: symbolic links (new, retargeted, replacing a file or a
# non-empty directory), hard links, FIFOs, sockets (warning only),
# character/block devices (root: exact numbers, recreated when they
# differ), owner changes with set-id bits, directory <-> file changes.
. "$top_srcdir/tests/integ/lib.sh"
need_root
need_tool lapply
need_cmd python3
mk_tmpdir
. "$top_srcdir/tests/integ/lapply-lib.sh"

# Disk before.
printf 'one' > "$R/target"
ln -s old "$R/relink"
printf 'x' > "$R/f2l"
mkdir -p "$R/d2l/sub"
: > "$R/d2l/sub/inner"
ln -s somewhere "$R/l2d"
printf 'data' > "$R/f2d"
mkdir "$R/d2f"
printf 'zz' > "$R/hl"
mknod "$R/tty" c 4 9
chmod 0600 "$R/tty"
printf 'suid' > "$R/suid"
chmod 4755 "$R/suid"
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$R/sock" 2>/dev/null ||
    skip "cannot make a socket"
chmod 0755 "$R/sock"

cat > "$T/t.T" <<'EOF2'
c ./d2f	0640     0     5     1     3
l ./d2l	0777     0     0 target
- d ./d2l/sub	0755     0     0
- f ./d2l/sub/inner	0644     0     0 0 0 -
d ./f2d	0750     0     0
l ./f2l	0777     0     0 target
p ./fifo	0644     0    10
h ./hl	./target
d ./l2d	0755     0     0
b ./loop	0660     0     6     7   200
l ./newlink	0777     0     0 a\bspaced\btarget
l ./relink	0777     0     0 new
s ./sock	0700     0     0
s ./sock2	0755     0     0
f ./suid	4755  1000  1000 1700000000 4 -
c ./tty	0620     0     5     4    10
EOF2
apply "$T/t.T"
expect_rc 0
expect_out "No network connection
./d2f: deleted
./d2f: created updating gid
./d2l/sub/inner: deleted
./d2l/sub: deleted
./d2l: deleted
./d2l: symbolic linked to target
./f2d: deleted
./f2d: created updating
./f2l: deleted
./f2l: symbolic linked to target
./fifo: created updating gid mode
./hl: deleted
./hl: hard linked to ./target
./l2d: deleted
./l2d: created updating
./loop: created updating gid mode
./newlink: symbolic linked to a spaced target
./relink: symbolic linked to new
./sock: updating mode
./suid: updating uid gid mode time
./tty: created updating gid mode"
expect_err "14: Warning: s ./sock2 not created...continuing"

[ "$(stat -c '%F %a %u %g %t %T' "$R/d2f")" = "character special file 640 0 5 1 3" ] ||
    fail "d2f: $(stat -c '%F %a %u %g %t %T' "$R/d2f")"
[ "$(readlink "$R/d2l")" = target ] || fail "d2l"
[ "$(info "$R/f2d")" = "directory 750 0 0" ] || fail "f2d"
[ "$(readlink "$R/f2l")" = target ] || fail "f2l"
[ "$(info "$R/fifo")" = "fifo 644 0 10" ] || fail "fifo: $(info "$R/fifo")"
[ "$(stat -c %i "$R/hl")" = "$(stat -c %i "$R/target")" ] || fail "hard link"
[ "$(info "$R/l2d")" = "directory 755 0 0" ] || fail "l2d"
[ "$(stat -c '%F %a %g %t %T' "$R/loop")" = "block special file 660 6 7 c8" ] ||
    fail "loop: $(stat -c '%F %a %g %t %T' "$R/loop")"
[ "$(readlink "$R/newlink")" = "a spaced target" ] || fail "newlink"
[ "$(readlink "$R/relink")" = new ] || fail "relink"
[ "$(info "$R/sock")" = "socket 700 0 0" ] || fail "sock"
[ ! -e "$R/sock2" ] || fail "sock2 created"
# chown clears set-id bits: they must be back after the chmod.
[ "$(stat -c '%a %u %g %Y' "$R/suid")" = "4755 1000 1000 1700000000" ] ||
    fail "suid: $(stat -c '%a %u %g %Y' "$R/suid")"
# device numbers differed: the node is recreated (4,10), mode fixed.
[ "$(stat -c '%F %a %g %t %T' "$R/tty")" = "character special file 620 5 4 a" ] ||
    fail "tty: $(stat -c '%F %a %g %t %T' "$R/tty")"
exit 0
