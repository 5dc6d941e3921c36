#!/bin/sh
# t-replica-skew: a client whose ktcheck reached a replica (A) with a
# newer generation of a loadset than the replica its lapply reached (B)
# fails clearly, naming the file and the server, leaves no corrupt or
# temporary file in its tree, and converges once cairn-replicate has
# brought B in step.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd cairn-replicate cairn-publish fsdiff ktcheck lapply
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
umask 022

A=$T/a
B=$T/b
mkdir -p "$A/command" "$A/transcript" "$A/file" "$B" "$T/client" \
    "$T/root" || fail mkdir
# Both servers map the client (127.0.0.1) to replica.K, which includes
# web.K: the replica's own command file is the client's here.
echo "127.0.0.1 replica.K" >"$A/config"
echo "127.0.0.1 replica.K" >"$B/config"
printf 'k web.K\n' >"$A/command/replica.K"
printf 'p web.T\n' >"$A/command/web.K"

# generation TREE: web.T on A becomes the tree TREE.
generation()
{
	in_dir "$1" "$FSDIFF" -C -c sha1 -K /dev/null . \
	    >"$A/transcript/web.T" || fail "fsdiff -C $1"
	rm -rf "$A/file/web.T"
	cp -a "$1" "$A/file/web.T" || fail "cp -a $1"
}

mkfile "$T/gen1/srv/index.html" "generation one" "$T0"
mkfile "$T/gen1/srv/logo" "logo" "$T0"
mkfile "$T/gen2/srv/index.html" "generation two, longer" "$T0"
mkfile "$T/gen2/srv/logo" "logo" "$T0"
mkfile "$T/gen2/srv/new.txt" "new in two" "$T0"
generation "$T/gen1"

start_cairnd "$A"
PA=$PORT
SA=$SPID
SPID=
at_exit 'kill "$SA" 2>/dev/null; wait "$SA" 2>/dev/null'
run_capture "$T/out" "$T/err" "$CAIRN_REPLICATE" -h 127.0.0.1 -p "$PA" \
    -D "$B"
assert_eq 1 "$RC" "replicate gen1: $(cat "$T/err")"
start_cairnd "$B"
PB=$PORT

# One client run: ktcheck and fsdiff -A against A, lapply against B.
client()
{
	run_capture "$T/kt.out" "$T/kt.err" "$KTCHECK" -c sha1 \
	    -K "$T/client/command.K" -h 127.0.0.1 -p "$PA"
	[ "$RC" -le 1 ] || fail "ktcheck: $(cat "$T/kt.err")"
	in_dir "$T/root" "$FSDIFF" -A -c sha1 -K "$T/client/command.K" \
	    -o "$T/apply.T" . || fail "fsdiff -A"
	run_capture "$T/out" "$T/err" in_dir "$T/root" "$LAPPLY" -c sha1 \
	    -h 127.0.0.1 -p "$PB" "$T/apply.T"
}

# Both replicas at generation one: the client applies it.
client
assert_eq 0 "$RC" "gen1 apply: $(cat "$T/err")"
assert_tree_eq "$T/gen1/srv" "$T/root/srv" "gen1 tree"

# A has generation two, B not yet.
generation "$T/gen2"
client

[ "$RC" -ne 0 ] || fail "lapply against the older replica succeeded"
grep -q "web.T" "$T/client/command.K" "$T/client/web.K" ||
    fail "client command files"
grep -Eq 'srv/(new.txt|index.html)' "$T/err" ||
    fail "the failure does not name the file: $(cat "$T/err")"
grep -q "127.0.0.1" "$T/err" ||
    fail "the failure does not name the server: $(cat "$T/err")"
# No corrupt file: each is one generation's bytes or absent.
for f in index.html logo new.txt; do
	[ -e "$T/root/srv/$f" ] || continue
	cmp -s "$T/root/srv/$f" "$T/gen1/srv/$f" ||
	    cmp -s "$T/root/srv/$f" "$T/gen2/srv/$f" ||
	    fail "srv/$f holds neither generation"
done
[ -z "$(leftovers "$T/root")" ] ||
    fail "temporary files left: $(leftovers "$T/root")"

# B catches up; the next client run converges.
run_capture "$T/rout" "$T/rerr" "$CAIRN_REPLICATE" -h 127.0.0.1 -p "$PA" \
    -D "$B"
assert_eq 1 "$RC" "replicate gen2: $(cat "$T/rerr")"
client
assert_eq 0 "$RC" "gen2 apply: $(cat "$T/err")"
assert_tree_eq "$T/gen2/srv" "$T/root/srv" "gen2 tree"
in_dir "$T/root" "$FSDIFF" -A -c sha1 -K "$T/client/command.K" \
    -o "$T/again.T" . || fail "fsdiff -A again"
assert_file_eq /dev/null "$T/again.T" "nothing left to apply"

end_test
