# tests/integ/lib.sh: the common core of the shell integration tests.
#
# Source it first thing from a tests/integ/t-<area>-<case>.sh script:
#
#	. "$top_srcdir/tests/integ/lib.sh"
#
# and, after mk_tmpdir, the add-ons a test needs: netlib.sh (a live
# cairnd and the scripted peers), tlslib.sh (a test PKI, after
# netlib.sh), lapply-lib.sh (an apply root with a sentinel beside it).
#
# POSIX sh (the harness runs tests with $(SHELL), which may be dash).
# The harness exports top_builddir and top_srcdir (absolute paths); a test
# run by hand needs them set in the environment.
#
# Exit statuses understood by the automake harness: 0 pass, 77 skip,
# 99 hard error, anything else fail.  Helpers that fail do so with
# fail, which exits: call them from the test's own shell, not from a
# pipeline or $(...), where only a subshell would end.
#
# Provided:
#   outcome
#	skip MSG...		print MSG and exit 77
#	fail MSG...		print MSG, run the on_fail hooks, exit 1
#	on_fail CMD		run CMD (eval'd, output to stderr) when the
#				test fails, before it exits
#	note_fail MSG...	print MSG as a failure and go on; end_test
#				then fails
#	end_test		exit 0, or fail if note_fail was called
#	not_run MSG...		print MSG: a part of the test that cannot
#				run here; the test then ends in a skip (77)
#				where it would have passed
#   requirements
#	need_root		skip unless running as uid 0
#	need_cmd CMD...		skip unless every CMD is in PATH
#	have_zstd		true if the build has zstd (config.h
#				HAVE_ZSTD): delta transfer, zstd compression
#	need_zstd		skip unless it has (not --without-zstd)
#	zforms			the forms a client's -Z takes, as its error
#				names them: "0 to 9, auto, zstd or zstd:1
#				to 19" (without zstd: "0 to 9, or auto")
#	need_tool TOOL...	fail unless every cairn TOOL was built; sets
#				the variable named TOOL in capitals (- as _)
#				to its path: need_tool cairn-bench sets
#				CAIRN_BENCH
#	tool_path TOOL		print the path of a built cairn TOOL
#	need_shim		fail unless the fault injector was built; sets
#				SHIM to it and lets a sanitizer build load it
#				(ASAN_OPTIONS)
#   scratch space
#	mk_tmpdir		create $T (a private temp dir removed on exit)
#	at_exit CMD		run CMD (eval'd) at exit, before $T is removed
#	T0			1700000000, the mtime the fixtures use
#   running
#	run_capture OUT ERR CMD...	run CMD, stdout to OUT, stderr to ERR;
#				sets RC to its exit status (never aborts)
#	in_dir DIR CMD...	run CMD (a program) in DIR, in a subshell
#	check_run NAME RC CMD...	run_capture into NAME.out and NAME.err
#				(current directory); note_fail, showing
#				stderr, unless CMD exits RC
#   assertions
#	assert_eq EXP ACT [LABEL]	compare two strings
#	assert_file_eq EXP ACT [LABEL]	byte-compare two files, diff on mismatch
#	check_same NAME FILE	FILE must hold exactly the text on stdin
#				(kept in NAME.want); note_fail with a diff
#	assert_no_files LABEL DIR EXPR...	fail if find DIR EXPR...
#				finds anything (e.g. -name '*.radmind.*')
#   files and trees
#	mkfile PATH TEXT [MTIME]	create PATH (and its parents) holding
#				TEXT, without a final newline
#	leftovers DIR		names under DIR that look like temporaries
#				(*.[0-9]*), sorted
#	tree_list DIR		every entry under DIR, sorted, files with
#				their first two bytes
#	tree_stat DIR		every entry under DIR, sorted, with type,
#				mode, owner, size and mtime (files) or
#				link target
#	assert_tree_eq EXP ACT [LABEL]	fail unless diff -r finds the two
#				trees equal
#	sha1b64 FILE...		the SHA-1 of each FILE in base64 (as
#				transcripts carry it), one a line, in one run
#	sha1hex FILE		the SHA-1 of FILE in hex
#   waiting, every wait bounded in count and time
#	retry TRIES CMD...	run CMD until it succeeds, at most TRIES
#				times 0.1 s apart and for at most TRIES/10 +
#				30 s in all; non-zero if it never did.  CMD
#				exits 255 to give up at once
#	bg_start FILE CMD...	start the program CMD (python3 counts as
#				one) in the background, pid in BGPID, and
#				wait until it creates FILE (its port or
#				ready file); fails if CMD exits first or
#				FILE does not appear within 100 tries.  It
#				is killed at exit if still running
#	free_port		print a TCP port free on 127.0.0.1
#	wait_port PORT [TRIES]	poll until 127.0.0.1:PORT accepts (bounded:
#				TRIES x 0.1 s, default 100); non-zero on timeout

: "${top_builddir:?top_builddir must be set (run through make check)}"
: "${top_srcdir:?top_srcdir must be set (run through make check)}"

LC_ALL=C
export LC_ALL
PATH="$top_builddir/client:$top_builddir/server:$top_builddir/bench:$PATH"
export PATH
# The scripted peers import tests/integ/testnet.py: no bytecode beside
# it in the source tree.
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE

# PYTHON is the interpreter behind python3, resolved once, and python3
# runs it: where python3 is a version manager's wrapper script, that
# script costs more to start than the interpreter, on every one of the
# many calls.
if PYTHON=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) &&
    [ -x "$PYTHON" ]; then
	python3()
	{
		"$PYTHON" "$@"
	}
else
	PYTHON=python3
fi

# Name of the running test, for messages.
TEST_NAME=$(basename "$0" .sh)
T0=1700000000

# --- outcome ---------------------------------------------------------------

skip()
{
	echo "$TEST_NAME: SKIP: $*"
	exit 77
}

_lib_onfail=
on_fail()
{
	_lib_onfail="$_lib_onfail
$1"
}

fail()
{
	echo "$TEST_NAME: FAIL: $*" >&2
	if [ -n "$_lib_onfail" ]; then
		# A hook that fails itself ends here, not in a loop.
		_lib_h=$_lib_onfail
		_lib_onfail=
		eval "$_lib_h" >&2
	fi
	exit 1
}

_lib_nfail=0
note_fail()
{
	echo "$TEST_NAME: FAIL: $*" >&2
	_lib_nfail=$((_lib_nfail + 1))
}

end_test()
{
	[ "$_lib_nfail" -eq 0 ] || fail "$_lib_nfail check(s) failed"
	exit 0
}

# A test that leaves out a part passes only what it ran: it ends in a
# skip, which the harness shows (and which fails CI as root), not in a
# pass.  _lib_cleanup turns its exit status 0 into 77.
_lib_notrun=
not_run()
{
	echo "$TEST_NAME: not run: $*"
	_lib_notrun="$_lib_notrun
	$*"
	trap _lib_cleanup EXIT
}

# --- requirements ----------------------------------------------------------

need_root()
{
	[ "$(id -u)" -eq 0 ] || skip "needs root"
}

# in_mount_ns: run the rest of this test in a mount namespace of its
# own (unshare -m), so that it may mount over system files; skip (77)
# where that cannot be done.  Call right after need_root, before
# mk_tmpdir: the script starts again from the top in the namespace.
in_mount_ns()
{
	[ -n "${CAIRN_IN_MOUNT_NS:-}" ] && return 0
	if command -v unshare >/dev/null 2>&1 && unshare -m true 2>/dev/null
	then
		CAIRN_IN_MOUNT_NS=1 exec unshare -m sh "$0"
	fi
	skip "no mount namespace (unshare -m)"
}

# private_hosts FILE: in_mount_ns's namespace resolves host names from
# FILE alone ("hosts: files"), nothing else of the machine's.
private_hosts()
{
	printf 'hosts: files\n' >"$T/nsswitch.conf"
	mount --bind "$1" /etc/hosts || skip "cannot mount over /etc/hosts"
	mount --bind "$T/nsswitch.conf" /etc/nsswitch.conf ||
	    skip "cannot mount over /etc/nsswitch.conf"
}

need_cmd()
{
	for _c in "$@"; do
		command -v "$_c" >/dev/null 2>&1 || skip "$_c not installed"
	done
}

have_zstd()
{
	grep -qx '#define HAVE_ZSTD 1' "$top_builddir/config.h"
}

need_zstd()
{
	have_zstd || skip "zstd is not built in (configured --without-zstd)"
}

zforms()
{
	if have_zstd; then
		echo '0 to 9, auto, zstd or zstd:1 to 19'
	else
		echo '0 to 9, or auto'
	fi
}

tool_path()
{
	for _d in client server bench; do
		if [ -x "$top_builddir/$_d/$1" ]; then
			echo "$top_builddir/$_d/$1"
			return 0
		fi
	done
	return 1
}

need_tool()
{
	for _t in "$@"; do
		_p=$(tool_path "$_t") || fail "$_t was not built"
		eval "$(echo "$_t" | tr 'a-z-' 'A-Z_')=\$_p"
	done
}

need_shim()
{
	SHIM=$top_builddir/tests/integ/shim.so
	[ -f "$SHIM" ] || fail "$SHIM was not built"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
	export ASAN_OPTIONS
}

# --- scratch space ---------------------------------------------------------

_lib_atexit=
at_exit()
{
	_lib_atexit="$_lib_atexit
$1"
}

_lib_cleanup()
{
	_lib_rc=$?
	trap - EXIT HUP INT TERM
	[ -n "$_lib_atexit" ] && eval "$_lib_atexit"
	if [ -n "${T:-}" ] && [ -d "$T" ]; then
		# Fixtures may contain read-only directories.
		chmod -R u+rwx "$T" 2>/dev/null
		rm -rf "$T"
	fi
	if [ "$_lib_rc" -eq 0 ] && [ -n "$_lib_notrun" ]; then
		echo "$TEST_NAME: SKIP: the rest passed; not run:$_lib_notrun"
		_lib_rc=77
	fi
	exit "$_lib_rc"
}

mk_tmpdir()
{
	T=$(mktemp -d "${TMPDIR:-/tmp}/cairn-$TEST_NAME.XXXXXX") ||
	    fail "cannot create a temporary directory"
	# The zstd dictionaries lapply keeps (lapply(1)): the test's own.
	CAIRN_ZDICTDIR=$T/zdict
	export CAIRN_ZDICTDIR
	trap _lib_cleanup EXIT
	trap 'exit 130' HUP INT TERM
}

# --- running ---------------------------------------------------------------

run_capture()
{
	_out=$1 _err=$2
	shift 2
	RC=0
	"$@" >"$_out" 2>"$_err" || RC=$?
}

in_dir()
{
	(cd "$1" && shift && exec "$@")
}

check_run()
{
	_cr_name=$1 _cr_want=$2
	shift 2
	run_capture "$_cr_name.out" "$_cr_name.err" "$@"
	if [ "$RC" != "$_cr_want" ]; then
		note_fail "$_cr_name: exit $RC, want $_cr_want"
		head -c 2000 "$_cr_name.err" >&2
	fi
}

# --- assertions ------------------------------------------------------------

assert_eq()
{
	[ "$1" = "$2" ] ||
	    fail "${3:-value}: expected '$1', got '$2'"
}

assert_file_eq()
{
	if ! cmp -s "$1" "$2"; then
		echo "$TEST_NAME: ${3:-$2}: differs from $1:" >&2
		diff -u "$1" "$2" 2>&1 | head -n 40 >&2
		fail "${3:-$2}: unexpected content"
	fi
}

check_same()
{
	cat >"$1.want"
	if ! cmp -s "$1.want" "$2"; then
		note_fail "$1: $2 differs"
		diff -u "$1.want" "$2" 2>&1 | head -n 40 >&2
	fi
}

assert_no_files()
{
	_anf_label=$1
	shift
	_anf=$(find "$@" 2>&1)
	[ -z "$_anf" ] || fail "$_anf_label: $_anf"
}

# --- files and trees -------------------------------------------------------

mkfile()
{
	mkdir -p "$(dirname "$1")" && printf '%s' "$2" >"$1" ||
	    fail "cannot create $1"
	[ -z "${3:-}" ] || touch -d "@$3" "$1" || fail "cannot touch $1"
}

leftovers()
{
	find "$1" -name '*.[0-9]*' | LC_ALL=C sort
}

tree_list()
{
	(cd "$1" && find . | LC_ALL=C sort | while IFS= read -r _p; do
		if [ -f "$_p" ]; then
			printf '%s %s\n' "$_p" "$(head -c 2 "$_p")"
		else
			printf '%s\n' "$_p"
		fi
	done)
}

tree_stat()
{
	(cd "$1" && { find . -type f -printf '%p %y %m %U %G %s %T@\n'
	    find . ! -type f -printf '%p %y %m %U %G %l\n'; } | LC_ALL=C sort)
}

# renamed_synced TRACE TARGET DIR: the shim trace TRACE
# (CAIRN_SHIM_TRACE) shows a rename to TARGET (as traced), and after it
# an fsync of the directory DIR that makes that rename durable.
renamed_synced()
{
	awk -v t="$2" -v d="$3" '
	    $1 == "rename" && $3 == t && $NF == "0" { r = 1; next }
	    r && $1 == "fsync" && $2 == d && $NF == "0" { ok = 1 }
	    END { exit !ok }' "$1"
}

assert_tree_eq()
{
	diff -r "$1" "$2" >/dev/null || fail "${3:-$2}: differs from $1"
}

sha1b64()
{
	python3 -c 'import base64, hashlib, sys
for name in sys.argv[1:]:
    with open(name, "rb") as f:
        print(base64.b64encode(hashlib.sha1(f.read()).digest()).decode())' "$@"
}

sha1hex()
{
	python3 -c 'import hashlib, sys
print(hashlib.sha1(open(sys.argv[1], "rb").read()).hexdigest())' "$1"
}

# --- waiting ---------------------------------------------------------------

retry()
{
	_rt_n=$1
	shift
	_rt_end=$(($(date +%s) + _rt_n / 10 + 30))
	while :; do
		"$@"
		case $? in
		0)	return 0 ;;
		255)	return 1 ;;
		esac
		_rt_n=$((_rt_n - 1))
		[ "$_rt_n" -gt 0 ] && [ "$(date +%s)" -lt "$_rt_end" ] ||
		    return 1
		sleep 0.1
	done
}

# Background programs still running at exit are stopped: only this
# shell's own children, so that a pid reused since is left alone.
_lib_bgpids=
_lib_bgstop()
{
	for _p in $_lib_bgpids; do
		[ "$(sed 's/.*) [A-Za-z] \([0-9]*\) .*/\1/' \
		    "/proc/$_p/stat" 2>/dev/null)" = "$$" ] &&
		    kill "$_p" 2>/dev/null
	done
	return 0
}

_lib_bgready()
{
	[ -e "$_bg_file" ] && return 0
	kill -0 "$BGPID" 2>/dev/null || return 255
	return 1
}

bg_start()
{
	_bg_file=$1
	shift
	rm -f "$_bg_file"
	# The interpreter itself, not the function: BGPID is then the
	# program's own pid, which a kill reaches.
	if [ "$1" = python3 ]; then
		shift
		set -- "$PYTHON" "$@"
	fi
	"$@" &
	BGPID=$!
	[ -n "$_lib_bgpids" ] || at_exit _lib_bgstop
	_lib_bgpids="$_lib_bgpids $BGPID"
	retry 100 _lib_bgready && return 0
	# It may have created FILE just before it exited.
	[ -e "$_bg_file" ] && return 0
	kill -0 "$BGPID" 2>/dev/null ||
	    fail "$*: exited before creating $_bg_file"
	fail "$*: did not create $_bg_file in time"
}

free_port()
{
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

wait_port()
{
	python3 -c 'import socket, sys, time
port, tries = int(sys.argv[1]), int(sys.argv[2])
for _ in range(tries):
    try:
        socket.create_connection(("127.0.0.1", port), 0.5).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)' "$1" "${2:-100}"
}
