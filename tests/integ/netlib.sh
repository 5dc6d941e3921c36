# tests/integ/netlib.sh: helpers for tests that talk to a live cairnd.
# Source after lib.sh and mk_tmpdir:
#
#	. "$top_srcdir/tests/integ/lib.sh"
#	. "$top_srcdir/tests/integ/netlib.sh"
#
# Provided:
#	make_repo DIR		a small repository like the one the recorded
#				Radmind traces use (config '127.0.0.1 test.K',
#				test.T, neg.T, special ./etc/hostname, all
#				mtimes 1700000000)
#	tree_repo DIR TREE NAME	a repository DIR serving TREE as loadset
#				NAME.T (fsdiff -C -c sha1) to 127.0.0.1
#				through command file NAME.K
#	start_cairnd DIR OPTS...	start cairnd -f on 127.0.0.1 on a free
#				port over repository DIR; sets PORT, SPID and
#				SLOG (its stderr).  Bounded retries if the
#				port is taken meanwhile.  Stopped at exit.
#	stop_cairnd		stop it (SIGTERM) and wait for it
#	rap ARGS...		run tests/integ/rap.py (raw protocol client)
#	banner [ZLIB]		print the two banner lines cairnd sends

need_cmd python3
CAIRND=$(tool_path cairnd) || fail "cairnd was not built"
RAP="$top_srcdir/tests/integ/rap.py"
T0=1700000000
HOST=$(python3 -c 'import socket; print(socket.gethostname())')
VERSION=$("$CAIRND" -V)

rap()
{
	python3 "$RAP" "$@"
}

banner()
{
	printf '200-RAP 1 %s %s radmind access protocol\r\n' "$HOST" "$VERSION"
	if [ -n "${1:-}" ]; then
		printf '200 CAPA ZLIB REPO\r\n'
	else
		printf '200 CAPA REPO\r\n'
	fi
}

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
	mkdir -p "$1/command" "$1/transcript" "$1/file" ||
	    fail "tree_repo: mkdir"
	echo "127.0.0.1 $3.K" >"$1/config"
	echo "p $3.T" >"$1/command/$3.K"
	(cd "$2" && "$(tool_path fsdiff)" -C -c sha1 -K /dev/null .) \
	    >"$1/transcript/$3.T" || fail "tree_repo: fsdiff -C $2"
	cp -a "$2" "$1/file/$3.T" || fail "tree_repo: cp $2"
	find "$1/command" "$1/transcript" -exec touch -d "@$T0" {} +
}

SPID=
stop_cairnd()
{
	if [ -n "$SPID" ]; then
		kill "$SPID" 2>/dev/null
		wait "$SPID" 2>/dev/null
		SPID=
	fi
}

start_cairnd()
{
	_dir=$1
	shift
	SLOG="$T/cairnd.log"
	_try=0
	while [ "$_try" -lt 5 ]; do
		_try=$((_try + 1))
		PORT=$(free_port) || fail "no free port"
		"$CAIRND" -f -a 127.0.0.1 -p "$PORT" -D "$_dir" "$@" \
		    2>>"$SLOG" &
		SPID=$!
		# Ready once it logged that it listens (bounded: 10 s).
		_n=0
		while [ "$_n" -lt 100 ] && kill -0 "$SPID" 2>/dev/null; do
			if grep -q "listening on port $PORT " "$SLOG" 2>/dev/null; then
				at_exit stop_cairnd
				return 0
			fi
			_n=$((_n + 1))
			sleep 0.1
		done
		# Lost the port to someone else, or failed to start.
		stop_cairnd
	done
	cat "$SLOG" >&2
	fail "cairnd did not start"
}

# sha1b64 FILE: the SHA-1 of FILE in base64, as STAT prints it.
sha1b64()
{
	python3 -c 'import base64, hashlib, sys
print(base64.b64encode(hashlib.sha1(open(sys.argv[1], "rb").read()).digest()).decode())' "$1"
}
