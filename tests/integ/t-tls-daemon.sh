#!/bin/sh
# cairnd as a service: SIGUSR1 reloads the TLS material before the next
# connection (and keeps the old one when the new one is unusable); the
# init script starts, reports, reloads and stops it through its pidfile;
# as root, -g drops to another user and -j chroots into the repository.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/tlslib.sh"
R=$T/repo
make_repo "$R"
tls_repo "$R"

# kt RC CA: ktcheck -w 1 trusting CA must exit RC.
kt()
{
	rm -rf "$T/c"
	mkdir "$T/c"
	run_capture "$T/out" "$T/err" "$KTCHECK" -K "$T/c/command.K" \
	    -p "$PORT" -h 127.0.0.1 -w 1 -x "$2"
	assert_eq "$1" "$RC" "ktcheck trusting $2: $(cat "$T/err")"
}

# SIGUSR1: a new certificate from another CA takes over.
start_cairnd "$R" -w 1
kt 1 "$PKI/ca.pem"
kt 2 "$EVIL/ca.pem"
cp "$EVIL/localhost.pem" "$R/cert/cert.pem"
kill -USR1 "$SPID"
wait_log 'SIGUSR1: TLS material reloaded'
kt 1 "$EVIL/ca.pem"
kt 2 "$PKI/ca.pem"
# An unusable replacement: logged, and the old material stays in use.
echo garbage >"$R/cert/cert.pem"
kill -USR1 "$SPID"
wait_log 'SIGUSR1: TLS material not reloaded, keeping the old: cert/cert.pem: cannot load certificate'
kt 1 "$EVIL/ca.pem"
kill -0 "$SPID" || fail "cairnd died"
stop_cairnd
cp "$PKI/localhost.pem" "$R/cert/cert.pem"

# The init script, on a private pidfile and defaults file.
INIT=$top_builddir/server/init.d/cairnd
[ -x "$INIT" ] || fail "$INIT was not built"
PORT=$(free_port) || fail "no free port"
cat >"$T/defaults" <<EOD
CAIRND_OPTS="-a 127.0.0.1 -p $PORT -D $R -w 1"
PIDFILE=$T/cairnd.pid
EOD
init()
{
	CAIRND=$CAIRND CAIRND_DEFAULTS=$T/defaults sh "$INIT" "$@"
}
at_exit 'init stop >/dev/null 2>&1'
run_capture "$T/out" "$T/err" init status
assert_eq 3 "$RC" "status before start"
run_capture "$T/out" "$T/err" init start
assert_eq 0 "$RC" "start: $(cat "$T/out" "$T/err")"
pid=$(cat "$T/cairnd.pid") || fail "no pidfile"
grep -qx "cairnd started (pid $pid)" "$T/out" || fail "start: $(cat "$T/out")"
wait_port "$PORT" || fail "not listening"
run_capture "$T/out" "$T/err" init status
assert_eq 0 "$RC" "status"
grep -qx "cairnd is running (pid $pid)" "$T/out" || fail "status: $(cat "$T/out")"
kt 1 "$PKI/ca.pem"
# running PID: true while PID is a live process (not a zombie); one read
# of its stat, so a process that exits meanwhile counts as gone.
running()
{
	_st=$(sed 's/.*) //; s/ .*//' "/proc/$1/stat" 2>/dev/null) &&
	    [ -n "$_st" ] && [ "$_st" != Z ]
}
run_capture "$T/out" "$T/err" init reload
assert_eq 0 "$RC" "reload: $(cat "$T/err")"
kill -0 "$pid" || fail "reload killed cairnd"
run_capture "$T/out" "$T/err" init restart
assert_eq 0 "$RC" "restart: $(cat "$T/out" "$T/err")"
pid2=$(cat "$T/cairnd.pid") || fail "no pidfile after restart"
[ "$pid" != "$pid2" ] || fail "restart kept pid $pid"
running "$pid" && fail "old cairnd still running"
wait_port "$PORT" || fail "not listening after restart"
kt 1 "$PKI/ca.pem"
run_capture "$T/out" "$T/err" init stop
assert_eq 0 "$RC" "stop: $(cat "$T/out" "$T/err")"
running "$pid2" && fail "cairnd still running after stop"
[ -e "$T/cairnd.pid" ] && fail "pidfile left after stop"
run_capture "$T/out" "$T/err" init status
assert_eq 3 "$RC" "status after stop"

# Privilege drop and chroot need root and an unprivileged user.
if [ "$(id -u)" -ne 0 ] || ! id nobody >/dev/null 2>&1; then
	skip "the rest passed; the -g/-j part needs root and user nobody"
fi
chmod 755 "$T"
: >"$SLOG"
start_cairnd "$R" -w 1 -g nobody -j
wait_log 'running as nobody (uid [0-9]*, gid [0-9]*), chrooted to the repository'
uid=$(awk '/^Uid:/ { print $2 $3 $4 $5 }' "/proc/$SPID/status")
nuid=$(id -u nobody)
assert_eq "$nuid$nuid$nuid$nuid" "$uid" "cairnd uids after -g nobody"
[ "$(readlink "/proc/$SPID/root")" = "$R" ] ||
    fail "root directory: $(readlink "/proc/$SPID/root")"
kt 1 "$PKI/ca.pem"
assert_file_eq "$R/transcript/test.T" "$T/c/test.T"
# The key (mode 0600, root's) cannot be reloaded as nobody: kept.
kill -USR1 "$SPID"
wait_log 'SIGUSR1: TLS material not reloaded'
kt 1 "$PKI/ca.pem"
stop_cairnd
# An unknown user is a start-up error.
run_capture "$T/out" "$T/err" "$CAIRND" -f -D "$R" -g no-such-user-here
assert_eq 1 "$RC" "-g unknown user"
grep -q 'no-such-user-here: no such user' "$T/err" || fail "-g: $(cat "$T/err")"
exit 0
