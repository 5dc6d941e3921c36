#!/bin/sh
# cairnd -g: run as root with -g nobody, the session child serving a
# client has dropped root: its real, effective, saved and file-system
# user and group IDs are nobody's and root is not among its groups (read
# from /proc while the client holds the connection open).  -j: the -i
# pid file, outside the repository the daemon is chrooted to, is removed
# on SIGTERM all the same, and a session holds no descriptor of a
# directory outside the repository.  Root only.
. "$top_srcdir/tests/integ/lib.sh"
need_root
need_tool cairnd
id nobody >/dev/null 2>&1 || skip "no user nobody"
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
# The repository must be readable by nobody.
chmod 755 "$T"
make_repo "$T/repo"
chmod -R a+rX "$T/repo"
nuid=$(id -u nobody)
ngid=$(id -g nobody)
[ "$nuid" -ne 0 ] && [ "$ngid" -ne 0 ] || skip "nobody is root"

# ids PID: "uid uid uid uid gid gid gid gid" of PID.
ids()
{
	awk '/^Uid:/ { u = $2 " " $3 " " $4 " " $5 }
	    /^Gid:/ { g = $2 " " $3 " " $4 " " $5 }
	    END { print u " " g }' "/proc/$1/status"
}

start_cairnd "$T/repo" -g nobody
grep -q "running as nobody (uid $nuid, gid $ngid)" "$SLOG" ||
    fail "no privilege drop logged: $(cat "$SLOG")"
limpeer "$PORT" hold 1 "$T/go" >"$T/out" &
HPID=$!
wait_kids 1
kid=$(cairnd_kids)
want="$nuid $nuid $nuid $nuid $ngid $ngid $ngid $ngid"
assert_eq "$want" "$(ids "$kid")" "session child ids"
assert_eq "$want" "$(ids "$SPID")" "daemon ids"
groups=$(awk '/^Groups:/ { $1 = ""; print }' "/proc/$kid/status")
for g in $groups; do
	[ "$g" -ne 0 ] || fail "session child in group 0: $groups"
done
touch "$T/go"
wait "$HPID"
# The session was a real one: the banner came after the config was read.
grep -q '^reply=200-RAP 1 ' "$T/out" || fail "no banner: $(cat "$T/out")"
stop_cairnd

mkdir "$T/run" || fail "mkdir run"
start_cairnd "$T/repo" -j -i "$T/run/cairnd.pid"
grep -q 'chrooted to the repository' "$SLOG" || fail "-j: not chrooted"
[ -s "$T/run/cairnd.pid" ] || fail "-j: no pid file"
limpeer "$PORT" hold 1 "$T/go2" >"$T/out" &
HPID=$!
wait_kids 1
kid=$(cairnd_kids)
for fd in /proc/"$kid"/fd/*; do
	l=$(readlink "$fd") || continue
	case $l in
	"$T/run"*)	fail "-j: session holds $l outside the repository" ;;
	esac
done
touch "$T/go2"
wait "$HPID"
stop_cairnd
[ ! -e "$T/run/cairnd.pid" ] || fail "-j: pid file left after SIGTERM"
exit 0
