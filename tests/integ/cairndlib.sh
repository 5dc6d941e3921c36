# tests/integ/cairndlib.sh: the one way the shell scripts start cairnd,
# for the tests (tests/integ/netlib.sh: start_cairnd) and the benchmarks
# (bench/benchlib.sh: start_server; bench/bench-scale.sh).  cairn-bench
# starts the cairnd of its runs from C (bench/bench-spawn.c:
# spawn_cairnd), the same way: the same flags first, ready once the log
# says it listens.  Needs only a POSIX shell and python3 (a free port).
#
#	cairnd_launch LOG DIR [OPTS...]
#		start $CAIRND -f [-a $CAIRND_ADDR] -p PORT -D DIR OPTS...
#		in the background, its stderr appended to LOG, and wait
#		until LOG says "listening on port PORT " (lines logged
#		before this start do not count): at most 100 looks 0.1 s
#		apart.  PORT is $CAIRND_PORT (one try) or a free port on
#		127.0.0.1 (up to 5 tries, for a port taken meanwhile).
#		With $CAIRND_WRAP set, cairnd runs under that command
#		(e.g. a function running time(1)), with -i $CAIRND_PIDFILE
#		added, from which its own pid is read.  Sets PORT, SPID
#		(the background pid: cairnd's, or the wrapper's) and
#		CAIRND_PID (cairnd's).  Returns 1, with LOG on stderr and
#		nothing left running, if cairnd never listened.
#	cairnd_stop	SIGTERM cairnd, wait for it (and for its wrapper)
#	cairnd_free_port	print a TCP port free on 127.0.0.1
#
#	CAIRND		the cairnd to run
#	CAIRND_ADDR	its -a, by default 127.0.0.1; empty for every address
#	CAIRND_PORT	its -p instead of a free port, by default empty
#	CAIRND_WRAP, CAIRND_PIDFILE	see cairnd_launch, by default empty
: "${CAIRND_ADDR=127.0.0.1}"
: "${CAIRND_PORT=}"
: "${CAIRND_WRAP=}"
: "${CAIRND_PIDFILE=}"
SPID=
CAIRND_PID=

cairnd_free_port()
{
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

# 0 once LOG, past its first _cl_off bytes, says cairnd listens on PORT;
# 2 if cairnd (or its wrapper) is gone; 1 not yet.  (No pipe, and every
# status tested: the benchmarks run under set -euo pipefail.)
_cl_listening()
{
	case $(tail -c +$((_cl_off + 1)) "$_cl_log" 2>/dev/null) in
	*"listening on port $PORT "*)	return 0 ;;
	esac
	kill -0 "$SPID" 2>/dev/null || return 2
	return 1
}

cairnd_stop()
{
	if [ -n "$SPID" ]; then
		if [ -z "$CAIRND_WRAP" ]; then
			kill -TERM "$SPID" 2>/dev/null || :
		elif [ -n "$CAIRND_PID" ]; then
			kill -TERM "$CAIRND_PID" 2>/dev/null || :
		else
			kill -TERM "$SPID" 2>/dev/null || :
		fi
		wait "$SPID" 2>/dev/null || :
	fi
	SPID=
	CAIRND_PID=
	return 0
}

cairnd_launch()
{
	_cl_log=$1 _cl_dir=$2
	shift 2
	_cl_try=0
	while [ "$_cl_try" -lt 5 ]; do
		_cl_try=$((_cl_try + 1))
		PORT=${CAIRND_PORT:-$(cairnd_free_port)} || return 1
		_cl_off=0
		[ ! -f "$_cl_log" ] || _cl_off=$(wc -c <"$_cl_log")
		if [ -n "$CAIRND_WRAP" ]; then
			rm -f "$CAIRND_PIDFILE"
			$CAIRND_WRAP "$CAIRND" -f ${CAIRND_ADDR:+-a "$CAIRND_ADDR"} \
			    -p "$PORT" -D "$_cl_dir" "$@" \
			    -i "$CAIRND_PIDFILE" 2>>"$_cl_log" &
		else
			"$CAIRND" -f ${CAIRND_ADDR:+-a "$CAIRND_ADDR"} \
			    -p "$PORT" -D "$_cl_dir" "$@" 2>>"$_cl_log" &
		fi
		SPID=$!
		CAIRND_PID=$SPID
		_cl_n=0
		while [ "$_cl_n" -lt 100 ]; do
			_cl_r=0
			_cl_listening || _cl_r=$?
			case $_cl_r in
			0)	# cairnd writes its pid file before it listens.
				[ -z "$CAIRND_WRAP" ] ||
				    CAIRND_PID=$(cat "$CAIRND_PIDFILE")
				return 0 ;;
			2)	break ;;
			esac
			_cl_n=$((_cl_n + 1))
			sleep 0.1
		done
		# Lost the port to someone else, failed to start, or slow:
		# nothing of it is left running.
		[ -z "$CAIRND_WRAP" ] ||
		    CAIRND_PID=$(cat "$CAIRND_PIDFILE" 2>/dev/null) ||
		    CAIRND_PID=
		cairnd_stop
		[ -z "$CAIRND_PORT" ] || break
	done
	cat "$_cl_log" >&2
	return 1
}
