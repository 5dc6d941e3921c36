# tests/integ/lib.sh: helpers shared by the shell integration tests.
#
# Source it first thing from a tests/integ/t-<area>-<case>.sh script:
#
#	. "$top_srcdir/tests/integ/lib.sh"
#
# POSIX sh (the harness runs tests with $(SHELL), which may be dash).
# The harness exports top_builddir and top_srcdir (absolute paths); a test
# run by hand needs them set in the environment.
#
# Exit statuses understood by the automake harness: 0 pass, 77 skip,
# 99 hard error, anything else fail.
#
# Provided:
#	skip MSG...		print MSG and exit 77
#	fail MSG...		print MSG and exit 1
#	need_root		skip unless running as uid 0
#	need_cmd CMD...		skip unless every CMD is in PATH
#	need_tool TOOL...	fail unless every cairn TOOL was built
#	tool_path TOOL		print the path of a built cairn TOOL
#	need_shim		set SHIM to the built fault injector
#				tests/integ/shim.so (fail if missing) and
#				let sanitized tools run under it
#	mk_tmpdir		create $T (a private temp dir removed on exit)
#	at_exit CMD		run CMD (eval'd) at exit, before $T is removed
#	assert_file_eq EXP ACT [LABEL]	byte-compare two files, diff on mismatch
#	assert_eq EXP ACT [LABEL]	compare two strings
#	run_capture OUT ERR CMD...	run CMD, stdout to OUT, stderr to ERR;
#				sets RC to its exit status (never aborts)
#	free_port		print a TCP port free on 127.0.0.1
#	wait_port PORT [TRIES]	poll until 127.0.0.1:PORT accepts (bounded:
#				TRIES x 0.1 s, default 100); non-zero on timeout

: "${top_builddir:?top_builddir must be set (run through make check)}"
: "${top_srcdir:?top_srcdir must be set (run through make check)}"

LC_ALL=C
export LC_ALL
PATH="$top_builddir/client:$top_builddir/server:$top_builddir/bench:$PATH"
export PATH

# Name of the running test, for messages.
TEST_NAME=$(basename "$0" .sh)

skip()
{
	echo "$TEST_NAME: SKIP: $*"
	exit 77
}

fail()
{
	echo "$TEST_NAME: FAIL: $*" >&2
	exit 1
}

need_root()
{
	[ "$(id -u)" -eq 0 ] || skip "needs root"
}

need_cmd()
{
	for _c in "$@"; do
		command -v "$_c" >/dev/null 2>&1 || skip "$_c not installed"
	done
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
		tool_path "$_t" >/dev/null || fail "$_t was not built"
	done
}

need_shim()
{
	SHIM=$top_builddir/tests/integ/shim.so
	[ -f "$SHIM" ] || fail "$SHIM not built"
	# The shim comes before the sanitizer runtime in the link order.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
	export ASAN_OPTIONS
}

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
	exit "$_lib_rc"
}

mk_tmpdir()
{
	T=$(mktemp -d "${TMPDIR:-/tmp}/cairn-$TEST_NAME.XXXXXX") ||
	    fail "cannot create a temporary directory"
	trap _lib_cleanup EXIT
	trap 'exit 130' HUP INT TERM
}

assert_file_eq()
{
	if ! cmp -s "$1" "$2"; then
		echo "$TEST_NAME: ${3:-$2}: differs from $1:" >&2
		diff -u "$1" "$2" 2>&1 | head -n 40 >&2
		fail "${3:-$2}: unexpected content"
	fi
}

assert_eq()
{
	[ "$1" = "$2" ] ||
	    fail "${3:-value}: expected '$1', got '$2'"
}

run_capture()
{
	_out=$1 _err=$2
	shift 2
	RC=0
	"$@" >"$_out" 2>"$_err" || RC=$?
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
