# tests/integ/netlib.sh: helpers for tests that talk over the network, to
# a live cairnd or to a scripted peer.  Source after lib.sh and mk_tmpdir:
#
#	. "$top_srcdir/tests/integ/lib.sh"
#	need_tool cairnd		(when the test starts cairnd)
#	mk_tmpdir
#	. "$top_srcdir/tests/integ/netlib.sh"
#
# Provided:
#   cairnd
#	make_repo DIR		a small repository like the one the recorded
#				Radmind traces use (config '127.0.0.1 test.K',
#				test.T, neg.T, special ./etc/hostname, all
#				mtimes $T0)
#	tree_repo DIR TREE NAME	a repository DIR serving the tree TREE (its
#				fsdiff -C -c sha1 transcript and files) as
#				loadset NAME.T to 127.0.0.1 through command
#				file NAME.K
#	start_cairnd DIR OPTS...	start cairnd -f on $CAIRND_ADDR on a
#				free port over repository DIR and wait until
#				it logs that it listens; sets PORT, SPID and
#				SLOG (its stderr).  Bounded retries if the
#				port is taken meanwhile.  Stopped at exit.
#				(cairnd_launch of tests/integ/cairndlib.sh,
#				which the benchmarks use too.)
#	CAIRND_ADDR		the address cairnd listens on (-a), by
#				default 127.0.0.1; empty for every address
#	CAIRND_PORT		the port it listens on instead of a free one
#				(one try), by default empty
#	stop_cairnd		stop it (SIGTERM) and wait for it
#	wait_log PATTERN	bounded wait until PATTERN (grep) is in $SLOG
#	memchecked		false (with a note) for a sanitizer build of cairnd
#	mem_flat FILE FIELD KIB WHAT
#				fail if limpeer's memory figures in FILE grew
#				by more than KIB from FIELD
#	cairnd_kids		the pids of cairnd's session children, one a
#				line
#	wait_kids N		bounded wait until it has N session children
#	upload_gone REPO NAME	true if REPO/tmp holds nothing of upload NAME
#	no_upload REPO NAME	fail unless upload_gone REPO NAME
#   clients
#	run_client TOOL ARGS...	run_capture the cairn client TOOL with -h
#				127.0.0.1 -p $PORT ARGS... into $T/out and
#				$T/err; sets RC
#	rap ARGS...		run tests/integ/rap.py (raw protocol client)
#	banner [ZLIB]		print the two banner lines cairnd sends
#	limpeer ARGS...		run tests/integ/limpeer.py (misbehaving
#				clients printing KEY=VALUE lines)
#	field KEY FILE		the value of the first KEY=... line in FILE
#	noop_ok LABEL		fail unless a new client gets "202 NOOP OK"
#	wait_served N		bounded wait until N clients at once get the
#				banner (while cairnd reaps earlier sessions)
#   peers and proxies
#	start_peer SCRIPT LOG	run tests/integ/peer.py server with the
#				script file SCRIPT, logging to LOG (emptied
#				first); sets PEERPORT and PEERPID
#	start_proxy READY NAME ARGS...	run tests/integ/NAME (recproxy.py,
#				slowproxy.py) as NAME PPORT PORT ARGS... on a
#				free port PPORT in front of cairnd's PORT,
#				ready once it creates READY; sets PPORT and
#				PROXY
# Without lib.sh and mk_tmpdir, $T is empty and every path below would
# name the real root: refuse (99, a hard error) rather than run.
if ! command -v mk_tmpdir >/dev/null 2>&1 || [ -z "${T:-}" ] ||
    [ ! -d "$T" ]; then
	echo "netlib.sh: source lib.sh and run mk_tmpdir first" >&2
	exit 99
fi

need_cmd python3
. "$top_srcdir/tests/integ/cairndlib.sh"
RAP="$top_srcdir/tests/integ/rap.py"
CAIRND_ADDR=127.0.0.1
CAIRND_PORT=
HOST=$(python3 -c 'import socket; print(socket.gethostname())')
# Tests of the clients alone talk to peers, not to cairnd.
if CAIRND=$(tool_path cairnd); then
	VERSION=$("$CAIRND" -V | sed -n 1p)
else
	CAIRND=
	VERSION=
fi

# text_loadset DIR: a loadset that compresses in part: 2 MB of text in
# usr/share/doc/notes[0-3].txt and 1 MB of random bytes in
# var/lib/random.bin, with etc/ made for the caller's small files.
text_loadset()
{
	mkdir -p "$1/etc" "$1/usr/share/doc" "$1/var/lib" || fail "mkdir"
	python3 - "$1/usr/share/doc" <<'PY' || fail "text"
import sys
for n in range(4):
    with open("%s/notes%d.txt" % (sys.argv[1], n), "w") as f:
        for i in range(12000):
            f.write("line %d of notes %d: the quick brown fox %d\n" %
                    (i, n, i * 7919 % 1000))
PY
	head -c 1048576 /dev/urandom >"$1/var/lib/random.bin" ||
	    fail "random"
}

# --- cairnd ----------------------------------------------------------------

make_repo()
{
	_r=$1
	mkdir -p "$_r/command" "$_r/transcript" "$_r/file/test.T/etc" \
	    "$_r/file/test.T/bin" "$_r/special/127.0.0.1/etc" ||
	    fail "make_repo: mkdir"
	echo '127.0.0.1 test.K' >"$_r/config"
	printf 'p test.T\nn neg.T\ns ./etc/hostname\n' >"$_r/command/test.K"
	printf 'hello world\n' >"$_r/file/test.T/etc/motd"
	printf 'no newline at end' >"$_r/file/test.T/etc/issue"
	: >"$_r/file/test.T/etc/empty"
	printf 'a\r\nb\000c\377\n' >"$_r/file/test.T/etc/bin ary"
	printf '#!/bin/sh\necho hi\n' >"$_r/file/test.T/bin/hi"
	{
		printf 'd .                                    \t0755     0     0\n'
		printf 'd ./bin                                \t0755     0     0\n'
		printf 'f ./bin/hi                             \t0755     0     0 1700000000      18 srYsEBoVb18S3XGXz3rpQkFksRU=\n'
		printf 'd ./etc                                \t0755     0     0\n'
		printf 'f ./etc/bin\\bary                       \t0644     0     0 1700000000       8 UHBTFFF1MpoZbRvBxv7i3bG/ErE=\n'
		printf 'f ./etc/empty                          \t0644     0     0 1700000000       0 2jmj7l5rSw0yVb/vlWAYkK/YBwk=\n'
		printf 'f ./etc/issue                          \t0644     0     0 1700000000      17 34alM59oEUf5SDc3GRHahQwbAKc=\n'
		printf 'f ./etc/motd                           \t0644     0     0 1700000000      12 IlljY7PeQLBvmB+4XYIxLowO1RE=\n'
		printf 'l ./etc/motd.link                      \t0777     0     0 motd\n'
	} >"$_r/transcript/test.T"
	printf 'd ./var 0755 0 0\n' >"$_r/transcript/neg.T"
	printf 'client1\n' >"$_r/special/127.0.0.1/etc/hostname"
	printf 'f ./etc/hostname 0640 0 0 0 0 -\n' >"$_r/transcript/special.T"
	find "$_r" -exec touch -h -d "@$T0" {} + || fail "make_repo: touch"
}

tree_repo()
{
	mkdir -p "$1/command" "$1/transcript" "$1/file" || fail "mkdir $1"
	echo "127.0.0.1 $3.K" >"$1/config"
	echo "p $3.T" >"$1/command/$3.K"
	in_dir "$2" "$(tool_path fsdiff)" -C -c sha1 -K /dev/null . \
	    >"$1/transcript/$3.T" || fail "fsdiff -C $2"
	cp -a "$2" "$1/file/$3.T" || fail "cp -a $2"
	find "$1/command" "$1/transcript" -exec touch -d "@$T0" {} +
}

# The launcher the benchmarks use too (tests/integ/cairndlib.sh).
stop_cairnd()
{
	cairnd_stop
}

start_cairnd()
{
	[ -n "$CAIRND" ] || fail "cairnd was not built"
	_dir=$1
	shift
	SLOG="$T/cairnd.log"
	cairnd_launch "$SLOG" "$_dir" "$@" || fail "cairnd did not start"
	at_exit stop_cairnd
}

# bodies N WHAT: the Nth "session bodies:" line of cairnd's log (waited
# for; WHAT names the session in the failure).
bodies()
{
	retry 100 test "$(grep -c 'session bodies:' "$SLOG")" -ge "$1" ||
	    fail "$2: no session end: $(cat "$SLOG")"
	grep 'session bodies:' "$SLOG" | sed -n "${1}p"
}

# zcache_entry FILE DIR SUFFIX: the path of the cache entry of FILE's
# contents in DIR (cairnd -c's z/: its SHA-1 in base64, '/' as '_')
# named SUFFIX (".6", ".zstd3", ".zstd19d<id>").
zcache_entry()
{
	python3 - "$1" "$2" "$3" <<'PY' || fail "entry of $1$3"
import base64, hashlib, sys
d = hashlib.sha1(open(sys.argv[1], "rb").read()).digest()
print("%s/%s%s" % (sys.argv[2],
      base64.b64encode(d).decode().replace("/", "_"), sys.argv[3]))
PY
}

wait_log()
{
	retry 100 grep -q "$1" "$SLOG" ||
	    fail "no '$1' in the log: $(cat "$SLOG")"
}

# memchecked: 0 (and a note) when cairnd is a sanitizer build, whose
# shadow memory and quarantines make memory figures meaningless.
memchecked()
{
	if grep -aq __asan_init "$CAIRND"; then
		echo "$TEST_NAME: address sanitizer build, memory not checked"
		return 1
	fi
	return 0
}

# mem_flat FILE FIELD KIB WHAT: fail unless the anonmax_kb limpeer
# wrote to FILE is at most KIB above its FIELD (a first figure).
mem_flat()
{
	_mf_from=$(field "$2" "$1")
	_mf_max=$(field anonmax_kb "$1")
	[ "${_mf_from:-0}" -gt 0 ] || fail "no memory figures in $1"
	[ $((_mf_max - _mf_from)) -le "$3" ] ||
	    fail "$4 grew by $((_mf_max - _mf_from)) KiB"
}

cairnd_kids()
{
	for _k in $(cat "/proc/$SPID/task/$SPID/children" 2>/dev/null); do
		echo "$_k"
	done
}

_net_nkids()
{
	[ "$(cairnd_kids | wc -w)" -eq "$1" ]
}

wait_kids()
{
	retry 100 _net_nkids "$1" ||
	    fail "$(cairnd_kids | wc -w) session children, expected $1"
}

upload_gone()
{
	[ ! -e "$1/tmp/transcript/$2" ] && [ ! -e "$1/tmp/file/$2" ]
}

no_upload()
{
	upload_gone "$1" "$2" ||
	    fail "$2: left in tmp/: $(ls -d "$1/tmp/transcript/$2" "$1/tmp/file/$2" 2>/dev/null)"
}

# upload_src DIR: a tree to upload in DIR (a/first, an 8 MiB b/big that
# lcreate reads in 8 chunks, c/last) and its transcript, $T/up.T.
upload_src()
{
	mkdir -p "$1/a" "$1/b" "$1/c"
	printf 'first\n' >"$1/a/first"
	python3 -c 'import os, sys; sys.stdout.buffer.write(os.urandom(8 << 20))' \
	    >"$1/b/big"
	printf 'last\n' >"$1/c/last"
	(cd "$1" && "$FSDIFF" -C -c sha1 -K /dev/null .) >"$T/up.T" ||
	    fail "fsdiff -C"
}

# --- clients ---------------------------------------------------------------

run_client()
{
	_rc_tool=$(tool_path "$1") || fail "$1 was not built"
	shift
	run_capture "$T/out" "$T/err" "$_rc_tool" -h 127.0.0.1 -p "$PORT" "$@"
}

rap()
{
	python3 "$RAP" "$@"
}

# banner [ZLIB | ZAUTO]: cairnd's banner without -Z, with -Z and -A fixed
# (Radmind's), or with -Z and the default -A auto (and zstd up to 3 when
# it is built in).
banner()
{
	printf '200-RAP 1 %s %s radmind access protocol\r\n' "$HOST" "$VERSION"
	case ${1:-} in
	ZAUTO)	if have_zstd; then
			printf '200 CAPA ZLIB REPO ZAUTO ZSTD=3\r\n'
		else
			printf '200 CAPA ZLIB REPO ZAUTO\r\n'
		fi ;;
	?*)	printf '200 CAPA ZLIB REPO\r\n' ;;
	*)	printf '200 CAPA REPO\r\n' ;;
	esac
}

limpeer()
{
	python3 "$top_srcdir/tests/integ/limpeer.py" "$@"
}

field()
{
	sed -n "s/^$1=//p" "$2" | head -n 1
}

noop_ok()
{
	rap "$PORT" 'NOOP\r\nQUIT\r\n' >"$T/out" || fail "rap"
	grep -q '^202 NOOP OK' "$T/out" || fail "$1: no service: $(cat "$T/out")"
}

_net_served()
{
	limpeer "$PORT" hold "$1" >"$T/hold" || fail "limpeer hold"
	[ "$(grep -c '^reply=200-RAP 1 ' "$T/hold")" -eq "$1" ]
}

wait_served()
{
	retry 30 _net_served "$1" ||
	    fail "$1 clients not served: $(cat "$T/hold")"
}

# --- peers and proxies -----------------------------------------------------

start_peer()
{
	: >"$2" || fail "cannot create $2"
	bg_start "$T/peer.port" python3 "$top_srcdir/tests/integ/peer.py" \
	    server "$T/peer.port" "$1" "$2"
	PEERPID=$BGPID
	PEERPORT=$(cat "$T/peer.port")
}

start_proxy()
{
	_ready=$1 _name=$2
	shift 2
	PPORT=$(free_port) || fail "no free port"
	bg_start "$_ready" python3 "$top_srcdir/tests/integ/$_name" \
	    "$PPORT" "$PORT" "$@"
	PROXY=$BGPID
}

# kept_name ID HOST:PORT: the name lapply keeps the zstd dictionary ID
# of that server under (lapply(1), FILES): the ID, a dot, and the first
# 16 characters of the base64 of the SHA-256 of "host:port", '+' and
# '/' as '-' and '_'.  Written apart from lapply's code, from its page.
kept_name()
{
	python3 -c 'import base64, hashlib, sys
t = base64.b64encode(hashlib.sha256(sys.argv[2].encode()).digest())
print(sys.argv[1] + "." + t.decode()[:16].replace("+", "-").replace("/", "_"))' \
	    "$1" "$2"
}
