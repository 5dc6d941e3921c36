#!/bin/sh
# cairn-publish(8) killed at every step.  strace's fault injection
# delivers SIGKILL on entry to the Nth call of one of the system calls
# that change the repository or make it durable (renameat2, renameat,
# fsync, write, unlinkat, ...), for N = 1, 2, ... until a run completes;
# so the program dies before each step in turn, with no help from it.
# After every kill the repository must be consistent: each transcript in
# transcript/ has its whole file tree in file/ (lcksum -n passes), and a
# command file names only published transcripts and is the old text or
# the new one.  Then the same command, run again, must finish the job,
# and cairn-publish -n -v, run before it, must say the very steps it
# takes and change nothing.
# Done for a first publish (with -k) and for a replacement (-f): there a
# client may, for a moment, see the old transcript with the new files
# (cairn-publish(8)), but never a transcript whose files are missing.
# And for a replacement on a file system that cannot exchange two
# directories (renameat2 failing with EINVAL, as on NFS): there file/<T>
# is missing for a moment, with the old tree whole in tmp/old/<T>; and
# a run that finds the replaced tree in tmp/old/<T> and a new upload
# staged in tmp/file/<T> keeps the one until it publishes the other
# (with -f), then removes it.
. "$top_srcdir/tests/integ/lib.sh"
need_tool fsdiff lcksum cairn-publish
need_cmd strace
mk_tmpdir
umask 022
STRACE=$(command -v strace)
# LeakSanitizer cannot run under ptrace (a sanitizer build would abort
# every traced run): no leak check for the traced runs.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
# Where the kernel or a container forbids tracing, there is nothing to
# test with.
"$STRACE" -qq -o /dev/null -e trace=fsync \
    -e inject=fsync:signal=SIGKILL:when=1 true 2>/dev/null ||
    skip "strace cannot inject faults here"

# tree DIR SEED: a small loadset tree whose contents depend on SEED.
tree()
{
	mkdir -p "$1/etc/app" "$1/opt/app/bin" || fail "mkdir"
	printf 'port = %s\n' "$2" >"$1/etc/app/app.conf"
	printf '#!/bin/sh\necho %s\n' "$2" >"$1/opt/app/bin/app"
	python3 -c 'import random, sys
random.seed(int(sys.argv[1]))
sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range(70000)))' \
	    "$2" >"$1/opt/app/data.bin" || fail "data.bin"
	chmod 0755 "$1/opt/app/bin/app"
	find "$1" -exec touch -h -d "@$T0" {} +
}

# capture DIR OUT: the transcript of tree DIR.
capture()
{
	in_dir "$1" "$FSDIFF" -C -c sha1 -K /dev/null -o "$2" . ||
	    fail "fsdiff -C $1"
}

tree "$T/v1" 1
tree "$T/v2" 2
capture "$T/v1" "$T/v1.T"
capture "$T/v2" "$T/v2.T"
cmp -s "$T/v1.T" "$T/v2.T" && fail "the two versions are the same"

# The starting repositories: R0 has app.T uploaded (and base.T in
# service); F0 has version 1 in service and version 2 uploaded.
mkdir -p "$T/R0/command" "$T/R0/transcript" "$T/R0/file" \
    "$T/R0/tmp/transcript" "$T/R0/tmp/file" || fail "mkdir"
printf 'p base.T\n' >"$T/R0/command/app.K"
cp "$T/v1.T" "$T/R0/transcript/base.T" &&
    cp -a "$T/v1" "$T/R0/file/base.T" || fail "cp"
cp -a "$T/R0" "$T/F0" || fail "cp"
cp "$T/v1.T" "$T/R0/tmp/transcript/app.T" &&
    cp -a "$T/v1" "$T/R0/tmp/file/app.T" || fail "cp"
cp "$T/v1.T" "$T/F0/transcript/app.T" &&
    cp -a "$T/v1" "$T/F0/file/app.T" || fail "cp"
cp "$T/v2.T" "$T/F0/tmp/transcript/app.T" &&
    cp -a "$T/v2" "$T/F0/tmp/file/app.T" || fail "cp"
printf 'p base.T\np app.T\n' >"$T/F0/command/app.K"
printf 'p base.T\np app.T\n' >"$T/new.K"

R=$T/R
# Bounds in time as well as in count: each run, and all of them.
TO=
command -v timeout >/dev/null && TO="timeout 60"
KILL_END=$(($(date +%s) + 900))

# consistent LABEL: every transcript in service has its files; app.K is
# the old or the new text and names only transcripts in service.
consistent()
{
	for _t in "$R"/transcript/*.T; do
		run_capture "$T/out" "$T/err" "$LCKSUM" -n -q -c sha1 \
		    -D "$R" "$_t"
		[ "$RC" -eq 0 ] || fail "$1: $_t without its files: $(cat "$T/out" "$T/err")"
	done
	cmp -s "$R/command/app.K" "$2" || cmp -s "$R/command/app.K" "$T/new.K" ||
	    fail "$1: command/app.K: $(cat "$R/command/app.K")"
	while read -r _ck_k _ck_n; do
		[ -f "$R/transcript/$_ck_n" ] ||
		    fail "$1: app.K names $_ck_n, not in service"
	done <"$R/command/app.K"
}

# finished LABEL VERSION: app.T is VERSION in service and nothing of it
# is left in tmp.
finished()
{
	assert_file_eq "$T/$2.T" "$R/transcript/app.T" "$1: transcript"
	assert_tree_eq "$T/$2" "$R/file/app.T" "$1: file/app.T"
	assert_file_eq "$T/new.K" "$R/command/app.K" "$1: command/app.K"
	assert_no_files "$1: left over" "$R/tmp" "$R/command" -mindepth 2 \
	    -o -name '.*'
	run_capture "$T/out" "$T/err" "$LCKSUM" -n -q -c sha1 -D "$R" \
	    "$R/transcript/app.T"
	[ "$RC" -eq 0 ] || fail "$1: lcksum -n: $(cat "$T/out" "$T/err")"
}

# killrun START VERSION ARGS...: for each system call and N = 1, 2, ...,
# start from repository START, kill cairn-publish ARGS... at the Nth call,
# check, re-run, check.  Sets KILLS to the number of kills.
killrun()
{
	_start=$1 _ver=$2
	shift 2
	KILLS=0
	for _kr_sc in renameat2 renameat rename fsync write unlinkat unlink \
	    rmdir; do
		# With no exchange, every renameat2 fails: never the Nth.
		[ -n "$NOX" ] && [ "$_kr_sc" = renameat2 ] && continue
		_kr_n=1
		while [ "$_kr_n" -le 40 ]; do
			rm -rf "${T:?}/R"
			cp -a "$T/$_start" "$R" || fail "cp"
			_kr_l="$_start $_kr_sc #$_kr_n"
			[ "$(date +%s)" -lt "$KILL_END" ] ||
			    fail "$_kr_l: the kill runs take too long"
			# shellcheck disable=SC2086
			run_capture "$T/kout" "$T/kerr" $TO "$STRACE" -qq \
			    -o /dev/null -e trace="$_kr_sc$NOX_TRACE" $NOX \
			    -e inject="$_kr_sc:signal=SIGKILL:when=$_kr_n" \
			    "$CAIRN_PUBLISH" -D "$R" "$@" app.T
			if [ "$RC" -eq 0 ]; then
				# No Nth call: this one ran to the end.
				finished "$_kr_l (not killed)" "$_ver"
				break
			fi
			[ "$RC" -eq 137 ] ||
			    fail "$_kr_l: exit $RC: $(cat "$T/kout" "$T/kerr")"
			KILLS=$((KILLS + 1))
			consistent "$_kr_l" "$T/$_start/command/app.K"
			# -n -v says the steps the re-run then takes, in
			# the same words, and changes nothing.
			find "$R" -printf '%p %s %T@\n' | sort >"$T/before"
			# shellcheck disable=SC2086
			run_capture "$T/nout" "$T/nerr" $RERUN \
			    "$CAIRN_PUBLISH" -n -v -D "$R" "$@" app.T
			[ "$RC" -eq 0 ] ||
			    fail "$_kr_l: -n: exit $RC: $(cat "$T/nout" "$T/nerr")"
			find "$R" -printf '%p %s %T@\n' | sort >"$T/after"
			cmp -s "$T/before" "$T/after" ||
			    fail "$_kr_l: -n changed the repository"
			# shellcheck disable=SC2086
			run_capture "$T/out" "$T/err" $RERUN \
			    "$CAIRN_PUBLISH" -v -D "$R" "$@" app.T
			[ "$RC" -eq 0 ] ||
			    fail "$_kr_l: re-run: exit $RC: $(cat "$T/out" "$T/err")"
			sed -e 's/: would be published$/: published/' \
			    -e 's/^would //' "$T/nout" | cmp -s - "$T/out" ||
			    fail "$_kr_l: -n said: $(cat "$T/nout"); the re-run did: $(cat "$T/out")"
			finished "$_kr_l: re-run" "$_ver"
			_kr_n=$((_kr_n + 1))
		done
		[ "$_kr_n" -le 40 ] || fail "$_kr_sc: never ran to the end"
	done
}

NOX= NOX_TRACE= RERUN=
killrun R0 v1 -k app.K
echo "first publish: killed at $KILLS steps"
[ "$KILLS" -ge 12 ] || fail "first publish: only $KILLS steps"

# A replacement: both the files and the transcript are in service.
# Between the exchange of the file trees and the rename of the
# transcript, the old transcript is in service with the new files: the
# test shows it is a whole tree (what lapply's checksums then catch).
consistent()
{
	if ! cmp -s "$R/transcript/app.T" "$T/v1.T"; then
		assert_file_eq "$T/v2.T" "$R/transcript/app.T" "$1: transcript"
		assert_tree_eq "$T/v2" "$R/file/app.T" "$1: new transcript's files"
	elif ! diff -r "$T/v1" "$R/file/app.T" >/dev/null; then
		assert_tree_eq "$T/v2" "$R/file/app.T" "$1: file/app.T"
	fi
	assert_file_eq "$T/new.K" "$R/command/app.K" "$1: command/app.K"
}
killrun F0 v2 -f -k app.K
echo "replacement: killed at $KILLS steps"
[ "$KILLS" -ge 10 ] || fail "replacement: only $KILLS steps"

# No exchange: the old tree leaves file/ before the new one arrives.
consistent()
{
	if ! cmp -s "$R/transcript/app.T" "$T/v1.T"; then
		assert_file_eq "$T/v2.T" "$R/transcript/app.T" "$1: transcript"
		assert_tree_eq "$T/v2" "$R/file/app.T" "$1: new transcript's files"
	elif [ ! -e "$R/file/app.T" ]; then
		assert_tree_eq "$T/v1" "$R/tmp/old/app.T" "$1: tmp/old/app.T"
		assert_tree_eq "$T/v2" "$R/tmp/file/app.T" "$1: tmp/file/app.T"
	elif ! diff -r "$T/v1" "$R/file/app.T" >/dev/null; then
		assert_tree_eq "$T/v2" "$R/file/app.T" "$1: file/app.T"
	fi
	assert_file_eq "$T/new.K" "$R/command/app.K" "$1: command/app.K"
}
NOX="-e inject=renameat2:error=EINVAL" NOX_TRACE=,renameat2
RERUN="$STRACE -qq -o /dev/null -e trace=renameat2 $NOX"
killrun F0 v2 -f -k app.K
echo "replacement without exchange: killed at $KILLS steps"
[ "$KILLS" -ge 12 ] || fail "replacement without exchange: only $KILLS steps"
# ... and says why file/app.T went missing for a moment.
rm -rf "${T:?}/R"
cp -a "$T/F0" "$R" || fail "cp"
# shellcheck disable=SC2086
run_capture "$T/out" "$T/err" $RERUN "$CAIRN_PUBLISH" -D "$R" -f app.T
[ "$RC" -eq 0 ] || fail "no exchange: exit $RC: $(cat "$T/err")"
grep -q "no atomic exchange of directories.*file/app.T is missing" \
    "$T/err" || fail "no exchange: no warning: $(cat "$T/err")"
assert_tree_eq "$T/v2" "$R/file/app.T" "no exchange: file/app.T"

# Interrupted between the second and third renames (the new tree in
# file/, the old one in tmp/old/), and a new upload of the same files
# staged since in tmp/file/ (as cairn-replicate's next run does): the
# old tree is removed and the upload published.
rm -rf "${T:?}/R"
cp -a "$T/F0" "$R" || fail "cp"
mkdir "$R/tmp/old" && mv "$R/file/app.T" "$R/tmp/old/app.T" &&
    cp -a "$R/tmp/file/app.T" "$R/file/app.T" || fail "making the state"
# Without -f the upload is refused, and the old tree, the only one that
# matches the transcript in service, stays.
cp -a "$R/tmp/old/app.T" "$T/old.saved" || fail "cp"
# shellcheck disable=SC2086
run_capture "$T/out" "$T/err" $RERUN "$CAIRN_PUBLISH" -D "$R" app.T
assert_eq 1 "$RC" "staged again, no -f: $(cat "$T/err")"
assert_tree_eq "$T/old.saved" "$R/tmp/old/app.T" "staged again, no -f: tmp/old"
# shellcheck disable=SC2086
run_capture "$T/out" "$T/err" $RERUN "$CAIRN_PUBLISH" -D "$R" -f app.T
[ "$RC" -eq 0 ] ||
    fail "staged again after an interruption: exit $RC: $(cat "$T/err")"
assert_file_eq "$T/v2.T" "$R/transcript/app.T" "staged again: transcript"
assert_tree_eq "$T/v2" "$R/file/app.T" "staged again: file/app.T"
[ ! -e "$R/tmp/old/app.T" ] && [ ! -e "$R/tmp/file/app.T" ] ||
    fail "staged again: a tree left in tmp/old or tmp/file"
exit 0
