#!/bin/sh
# t-lapply-race: symbolic-link swaps during a run, made deterministic
# (docs/security.md C1-C3, C7, C10, I1).  tests/integ/shim.so stops
# lapply just before a named call (CAIRN_SHIM_STOP) and runs a hook
# that swaps a directory or file lapply has already opened for a
# symbolic link to the sentinel directory outside the root, so the swap
# always lands in the window between check and use:
#
#   - a download, its parent directory swapped before the temp file is
#     created (one run) or before the temp file is renamed into place
#     (another run);
#   - a download, the file itself swapped before the rename;
#   - a change of mode, owner and mtime only, the file swapped, or its
#     parent directory swapped, before the first change;
#   - the removal of a directory and the file in it, the directory
#     swapped before the file is unlinked;
#   - the apply root, entered through a symbolic link, moved away before
#     the temp file is created, with links to another directory put at
#     its name and at the name lapply was started through (the
#     deterministic twin of the C10 case in t-catalogue-apply.sh).
#
# Every time the sentinel and everything else outside the root keep
# their bytes, mode, owner, mtime, inode and link count, lapply acts on
# the object it opened (which the hook moved aside), and no temp file is
# left anywhere.
. "$top_srcdir/tests/integ/lib.sh"
need_tool lapply
need_cmd python3
need_shim
mk_tmpdir
. "$top_srcdir/tests/integ/lapply-lib.sh"
# As root the metadata cases also change the owner.
if [ "$U" -eq 0 ]; then
	MU=1234 MG=1235
else
	MU=$U MG=$G
fi

mkdir -p "$T/srv/file/test.T/dir"
printf 'new content\n' > "$T/srv/file/test.T/dir/victim"
NEW=$T/srv/file/test.T/dir/victim
DL=$(printf 'test.T:\n+ f ./dir/victim\t0644 %s %s 1700000000 %s %s' \
    "$U" "$G" "$(stat -c %s "$NEW")" "$(sha1b64 "$NEW")")

# race NAME STOP HOOK TRANSCRIPT [LAPPLY-OPTS]: lapply in $R (or in $IN
# if set) over TRANSCRIPT, stopped before the call STOP ("NAME:N" as for
# CAIRN_SHIM_STOP) to run the shell command HOOK, which must succeed.
# Downloads come from a fresh lapply-srv.py unless -n is given.  Sets
# RC; output in $T/out and $T/err.  Checks that the hook ran, the
# sentinel and $OUT are untouched and no temp file is left.
race()
{
	_name=$1 _stop=$2 _hook=$3
	printf '%s\n' "$4" > "$T/race.T"
	shift 4
	rm -f "$T/hooked"
	SRVPID=
	case " $* " in
	*" -n "*) ;;
	*) serve_files "$T/srv"; set -- -h 127.0.0.1 -p "$PORT" "$@" ;;
	esac
	run_capture "$T/out" "$T/err" in_dir "${IN:-$R}" \
	    env LD_PRELOAD="$SHIM" CAIRN_SHIM_STOP="$_stop" \
	    CAIRN_SHIM_RUN="($_hook) && : > '$T/hooked'" \
	    "$LAPPLY" "$@" "$T/race.T"
	[ -z "$SRVPID" ] || wait "$SRVPID"
	[ -f "$T/hooked" ] || fail "$_name: the hook did not run"
	[ "$RC" -lt 128 ] || fail "$_name: lapply died (exit $RC)"
	check_sentinel "$_name"
	assert_no_files "$_name: temp files left" "$T" -path "$T/srv" -prune \
	    -o \( -name '*.radmind.*' -o -name '.radmind.*' \) -print
}

# fresh: an empty root and a freshly planted sentinel.
fresh()
{
	rm -rf "$R" "$OUT"
	mkdir "$R" "$OUT"
	plant
}

# A download into ./dir/victim; ./dir holds the old version.  The hook
# moves ./dir to ./moved and puts a link to $OUT in its place: the new
# file lands in ./moved, through the descriptor lapply holds.
for stop in mutate:1 renameat:1; do
	fresh
	mkdir "$R/dir"
	printf 'old\n' > "$R/dir/victim"
	race "parent swapped before $stop" "$stop" \
	    "mv '$R/dir' '$R/moved' && ln -s '$OUT' '$R/dir'" "$DL"
	expect_rc 0
	cmp -s "$NEW" "$R/moved/victim" ||
	    fail "parent swapped before $stop: ./moved/victim is not the new file"
	[ "$(readlink "$R/dir")" = "$OUT" ] ||
	    fail "parent swapped before $stop: the link was changed"
done

# The file itself swapped for a link to the sentinel before the rename:
# the rename replaces the link.
fresh
mkdir "$R/dir"
printf 'old\n' > "$R/dir/victim"
race "leaf swapped before the rename" renameat:1 \
    "mv '$R/dir/victim' '$R/dir/old' && ln -s '$OUT/victim' '$R/dir/victim'" \
    "$DL"
expect_rc 0
[ -f "$R/dir/victim" ] && [ ! -L "$R/dir/victim" ] &&
    cmp -s "$NEW" "$R/dir/victim" ||
    fail "leaf swapped before the rename: ./dir/victim is not the new file"
[ "$(cat "$R/dir/old")" = old ] || fail "leaf swapped: ./dir/old changed"

# Mode, owner and time only (the content is what the line declares):
# the file, or its directory, swapped before the first change.  The
# changes land on the file lapply opened, moved aside by the hook.
META=$(printf 'f ./dir/victim\t0751 %s %s 1700000000 %s %s' "$MU" "$MG" \
    "$(stat -c %s "$NEW")" "$(sha1b64 "$NEW")")
for what in file parent; do
	fresh
	mkdir "$R/dir"
	cp "$NEW" "$R/dir/victim"
	chmod 0600 "$R/dir/victim"
	if [ $what = file ]; then
		hook="mv '$R/dir/victim' '$R/dir/moved' &&
		    ln -s '$OUT/victim' '$R/dir/victim'"
		moved=$R/dir/moved
	else
		hook="mv '$R/dir' '$R/moved' && ln -s '$OUT' '$R/dir'"
		moved=$R/moved/victim
	fi
	race "metadata, $what swapped" mutate:1 "$hook" "$META" -n
	expect_rc 0
	[ "$(stat -c '%a %u %g %Y' "$moved")" = "751 $MU $MG 1700000000" ] ||
	    fail "metadata, $what swapped: $(stat -c '%a %u %g %Y' "$moved")"
done

# A removal: ./old and ./old/victim go; ./old is swapped for a link to
# $OUT before the file is unlinked.  The file goes from the directory
# lapply opened; the link is not a directory and is not removed.
fresh
mkdir "$R/old"
printf 'doomed\n' > "$R/old/victim"
race "removal, parent swapped" unlinkat:1 \
    "mv '$R/old' '$R/moved' && ln -s '$OUT' '$R/old'" \
    "$(printf -- '- d ./old\t0755 0 0\n- f ./old/victim\t0644 0 0 0 7 -')" -n
expect_rc 1
grep -q "^lapply: $T/[^ ]*: line 1: \\./old: remove: Not a directory\$" "$T/err" ||
    fail "removal, parent swapped: $(cat "$T/err")"
[ ! -e "$R/moved/victim" ] || fail "removal, parent swapped: file kept"
[ "$(readlink "$R/old")" = "$OUT" ] ||
    fail "removal, parent swapped: the link was changed"

# The apply root, entered through a symbolic link, swapped before the
# temp file is created: the root directory moves away, a link to
# another directory takes its name and the link lapply was started
# through points there too.  A root looked up again, by $PWD or by the
# name getcwd gives, would be the other directory; the file lands in
# the root lapply opened at the start.
fresh
mkdir -p "$T/real1/dir" "$T/real2/dir"
ln -s "$T/real1" "$T/link"
IN=$T/link
race "root swapped" mutate:1 "mv '$T/real1' '$T/moved' &&
    ln -s '$T/real2' '$T/real1' && ln -s '$T/real2' '$T/link2' &&
    mv -T '$T/link2' '$T/link'" "$DL"
IN=
expect_rc 0
cmp -s "$NEW" "$T/moved/dir/victim" ||
    fail "root swapped: not in the root opened at the start"
[ -z "$(ls -A "$T/real2/dir")" ] || fail "root swapped: written to real2"
exit 0
