#!/bin/sh
# cairnd limits and daemon behaviour: -m answered with 420, over-long
# request line, error limit, -n and -T (files and bytes of one uploaded
# loadset: a flood of zero-length uploads refused with a reply naming the
# limit, directories counted, everything up to the limits accepted, the
# defaults logged and documented; docs/security.md F6), -w > 0 without TLS material refused,
# -V, -i pidfile removed on SIGTERM, IPv6 listening when no -a is given.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"

# -m 1: a second simultaneous connection is told the server is busy.
start_cairnd "$T/repo" -m 1
printf '420 Server busy\r\n' >"$T/exp"
rap --busy "$PORT" >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "-m 1"
# Once the first one is gone, service resumes (bounded retries while the
# daemon reaps the finished child).
# served: a NOOP is answered.
served()
{
	rap "$PORT" 'NOOP\r\n' >"$T/out" || fail "rap"
	grep -q '^202 NOOP OK' "$T/out"
}
retry 50 served || fail "-m 1: no service after the first client left"
stop_cairnd

start_cairnd "$T/repo"
# A request line over the cap (16 KiB) ends the session with a 500.
long=$(python3 -c 'print("A" * 20000, end="")')
{
	banner
	printf '500 Line too long, closing connection\r\n'
} >"$T/exp"
rap "$PORT" "NOOP $long\r\nNOOP\r\n" >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "long line"
# The daemon still serves others.
{
	banner
	printf '202 NOOP OK\r\n'
} >"$T/exp"
rap "$PORT" 'NOOP\r\n' >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "after a long line"

# Ten protocol errors and the server hangs up.
{
	banner
	for i in 1 2 3 4 5 6 7 8 9 10; do
		printf '500 Command X%s unrecognized\r\n' "$i"
	done
	printf '421 Too many errors, closing transmission channel\r\n'
} >"$T/exp"
rap "$PORT" 'X1\nX2\nX3\nX4\nX5\nX6\nX7\nX8\nX9\nX10\nNOOP\n' >"$T/out" ||
    fail "rap"
assert_file_eq "$T/exp" "$T/out" "error limit"
stop_cairnd

# Uploads per loadset: -n bounds the files and directories one loadset
# makes in tmp/file/, -T the bytes of its transcript and files.
R=$T/repo
start_cairnd "$R" -n 50 -T 1000
# stors T FROM TO [DIR]: STOR FILE T ./[DIR/]fFROM ... fTO-1, zero-length.
stors()
{
	_i=$2
	while [ "$_i" -lt "$3" ]; do
		printf 'STOR FILE %s ./%sf%s\\r\\n0\\r\\n.\\r\\n' "$1" "${4:+$4/}" "$_i"
		_i=$((_i + 1))
	done
}
# stored N: N uploads stored.
stored()
{
	_i=0
	while [ "$_i" -lt "$1" ]; do
		printf '350 Storing file\r\n250 File stored\r\n'
		_i=$((_i + 1))
	done
}
# A flood of zero-length files: the 51st is refused with a reply naming
# the limit, the session ends (QUIT unanswered) and nothing is kept.
req="STOR TRANSCRIPT flood.T\r\n0\r\n.\r\n$(stors flood.T 0 1000)QUIT\r\n"
{
	banner
	stored 51
	printf '555 flood.T: loadset file limit (50, cairnd -n) reached\r\n'
} >"$T/exp"
rap "$PORT" "$req" >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "-n: a flood of files"
no_upload "$R" flood.T
wait_log '127\.0\.0\.1.*STOR tmp/file/flood\.T/\./f50: refused, loadset flood\.T has 50 files and directories, limit 50 (-n)'
noop_ok "after the file limit"
# Directories made for a file count too: 60 nested ones are refused at
# the 51st, before it is made.
deep=$(i=0; while [ "$i" -lt 60 ]; do printf 'd%s/' "$i"; i=$((i + 1)); done)
{
	banner
	stored 1
	printf '555 deep.T: loadset file limit (50, cairnd -n) reached\r\n'
} >"$T/exp"
rap "$PORT" "STOR TRANSCRIPT deep.T\r\n0\r\n.\r\nSTOR FILE deep.T ./${deep}x\r\n0\r\n.\r\n" \
    >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "-n: nested directories"
no_upload "$R" deep.T
# Up to the limits everything is accepted, and each loadset of a session
# has limits of its own: a directory and 49 files, 1000 bytes with the
# transcript, twice in one session.
req=
for t in full1.T full2.T; do
	req="${req}STOR TRANSCRIPT $t\r\n10\r\n0123456789.\r\n"
	req="${req}$(stors "$t" 0 48 d)"
	req="${req}STOR FILE $t ./d/big\r\n990\r\n$(head -c 990 /dev/zero | tr '\0' b).\r\n"
done
{
	banner
	stored 100
	printf '201 QUIT OK, closing connection\r\n'
} >"$T/exp"
rap "$PORT" "${req}QUIT\r\n" >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "within -n and -T"
for t in full1.T full2.T; do
	assert_eq 49 "$(find "$R/tmp/file/$t/d" -type f | wc -l)" "$t: files"
	assert_eq 990 "$(stat -c %s "$R/tmp/file/$t/d/big")" "$t: size"
done
# One byte over -T: refused after 350, before the data is taken.
{
	banner
	stored 2
	printf '350 Storing file\r\n'
	printf '555 over.T: loadset byte limit (1000, cairnd -T) reached\r\n'
} >"$T/exp"
req="STOR TRANSCRIPT over.T\r\n10\r\n0123456789.\r\n"
req="${req}STOR FILE over.T ./a\r\n900\r\n$(head -c 900 /dev/zero | tr '\0' a).\r\n"
req="${req}STOR FILE over.T ./b\r\n91\r\n$(head -c 91 /dev/zero | tr '\0' b).\r\nQUIT\r\n"
rap "$PORT" "$req" >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "-T: one byte over"
no_upload "$R" over.T
wait_log '127\.0\.0\.1.*STOR tmp/file/over\.T/\./b: 91 bytes refused, loadset over\.T has 910 bytes, limit 1000 (-T)'
noop_ok "after the byte limit"
stop_cairnd
# The defaults, in the log at start-up and in cairnd(8); 0 is no limit.
start_cairnd "$R" -L debug
wait_log 'limits: .*; a loadset 1000000 files and directories, 107374182400 bytes$'
stop_cairnd
start_cairnd "$R" -L debug -n 0 -T 0
wait_log 'limits: .*; a loadset unlimited files and directories, unlimited bytes$'
stop_cairnd
if command -v mandoc >/dev/null 2>&1; then
	mandoc -T ascii "$top_srcdir/man/cairnd.8" | col -b | tr -s ' \n' '  ' \
	    >"$T/man.txt" || fail "mandoc cairnd.8"
	grep -q -- '-n max-files .* Default 1000000;' "$T/man.txt" ||
	    fail "cairnd.8: no default for -n"
	grep -q -- '-T max-bytes .* Default 100g (100 GiB)' "$T/man.txt" ||
	    fail "cairnd.8: no default for -T"
fi
for bad in '-n x' '-n -1' '-T 1q' '-T -5'; do
	# (-V behind: should the option be taken, no daemon is left.)
	run_capture "$T/out" "$T/err" "$CAIRND" -f -D "$R" $bad -V
	assert_eq 2 "$RC" "cairnd $bad: exit status"
	[ -s "$T/err" ] || fail "cairnd $bad: no message"
done

# TLS levels without a certificate are refused with a clear message and
# exit 1 (cannot start); usage errors exit 2.
run_capture "$T/out" "$T/err" "$CAIRND" -f -D "$T/repo" -w 1
assert_eq 1 "$RC" "-w 1 exit status"
grep -q 'cert/cert.pem: cannot load certificate' "$T/err" ||
    fail "-w 1: $(cat "$T/err")"
run_capture "$T/out" "$T/err" "$CAIRND" -Z 10
assert_eq 2 "$RC" "-Z 10 exit status"
run_capture "$T/out" "$T/err" "$CAIRND" -V
assert_eq 0 "$RC" "-V exit status"
[ -s "$T/out" ] || fail "-V printed nothing"

# -i pidfile; SIGTERM removes it; the daemon created the repository.
mkdir "$T/empty"
start_cairnd "$T/empty" -i "$T/cairnd.pid"
[ -f "$T/cairnd.pid" ] || fail "no pidfile"
assert_eq "$SPID" "$(cat "$T/cairnd.pid")" "pidfile content"
for d in command file special tmp tmp/file tmp/transcript transcript; do
	[ -d "$T/empty/$d" ] || fail "start-up did not create $d"
done
stop_cairnd
[ -f "$T/cairnd.pid" ] && fail "pidfile left after SIGTERM"

# Without -a the daemon listens on IPv6 too (when the host has it).
if python3 -c 'import socket; s = socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null; then
	echo '* test.K' >"$T/repo/config"
	CAIRND_ADDR=
	start_cairnd "$T/repo"
	CAIRND_ADDR=127.0.0.1
	python3 - "$PORT" <<'PY' || fail "IPv6: $(cat "$SLOG")"
import socket, sys
s = socket.create_connection(('::1', int(sys.argv[1])), 10)
s.settimeout(10)
s.sendall(b'QUIT\r\n')
got = b''
while True:
    d = s.recv(4096)
    if not d:
        break
    got += d
sys.exit(0 if got.endswith(b'201 QUIT OK, closing connection\r\n') else 1)
PY
	stop_cairnd
else
	not_run "IPv6 (no ::1 here)"
fi
exit 0
