#!/bin/sh
# t-lapply-roundtrip: fsdiff -A then lapply (downloading from
# tests/integ/lapply-srv.py serving the reference tree) turns the
# modified fixture tree into the reference one, awkward names included
# (space, tab, LF, CR, backslash, UTF-8, 255-byte names: docs/security.md B4);
# a second fsdiff -A finds nothing left but the socket lapply cannot
# create, and a second lapply run changes nothing.
. "$top_srcdir/tests/integ/lib.sh"
need_root
need_tool lapply fsdiff
need_cmd python3
mk_tmpdir
. "$top_srcdir/tests/integ/lapply-lib.sh"
V=${CAIRN_VECTORS:-$top_srcdir/tests/vectors}
[ -x "$V/make-trees" ] || skip "vectors not found (set CAIRN_VECTORS)"

bash "$V/make-trees" "$T/trees" > "$T/mt.log" 2>&1 || fail "make-trees"
mkdir -p "$T/k" "$T/srv/file"
cp -a "$T/trees/base" "$T/srv/file/base.T"
(cd "$T/trees/base" && "$FSDIFF" -C -c sha1 -K /dev/null .) > "$T/k/base.T" ||
    fail "fsdiff -C"
echo "p base.T" > "$T/k/command.K"
cp -a "$T/trees/mod" "$T/work"

(cd "$T/work" && "$FSDIFF" -A -c sha1 -K "$T/k/command.K" .) > "$T/apply.T" ||
    fail "fsdiff -A"
grep -q '^+ ' "$T/apply.T" || fail "nothing to download?"

serve_files "$T/srv"
net_apply "$T/work" "$T/apply.T" -c sha1
expect_rc 0

(cd "$T/work" && "$FSDIFF" -A -c sha1 -K "$T/k/command.K" .) > "$T/again.T" ||
    fail "second fsdiff -A"
# Only the socket (and its header) is left: lapply cannot create sockets.
grep -v -e '^s ' -e '^[^ 	]*:$' "$T/again.T" > "$T/rest" || true
[ ! -s "$T/rest" ] || { cat "$T/rest" >&2; fail "differences left"; }
grep -q '^s ./special/sock' "$T/again.T" || fail "socket line expected"

# Rerun: nothing to download, nothing changes.
serve_files "$T/srv"
net_apply "$T/work" "$T/again.T" -c sha1
expect_rc 0
grep -q 'RETR' "$T/log" && fail "second run downloaded something"
exit 0
