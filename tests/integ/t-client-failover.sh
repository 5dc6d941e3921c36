#!/bin/sh
# t-client-failover: a client given several servers (-h a,b) tries them
# in order, and a peer that is no Radmind or cairn server is recognised.
# With the first server down (nothing listening), busy (420), or no RAP
# server (an SSH banner), ktcheck and lapply are served by the second,
# and -v says which attempt failed and why.  A 5xx greeting ends the
# attempt there: the second server is never asked.  With every server
# down, one message names each with its reason, exit 2.  Alone, an SSH
# banner is refused at once ("not a Radmind or cairn server", its bytes
# escaped), and a silent peer is given up after the greeting timeout
# (30 s), not the 60 s of a reply.
#
# The second server is cairnd on 127.0.0.2, on the port the first
# (127.0.0.1) has: -p applies to every server of the list.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck lapply
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
C=$T/client

# kt ARGS...: ktcheck into a fresh command directory (bounded).
kt()
{
	rm -rf "$C"
	mkdir "$C"
	: >"$C/command.K"
	touch -d "@$T0" "$C/command.K"
	run_capture "$T/out" "$T/err" timeout 40 "$KTCHECK" \
	    -K "$C/command.K" "$@"
	[ "$RC" != 124 ] || fail "ktcheck $*: still waiting after 40 s"
}

# served LABEL: ktcheck's first run downloaded everything.
served()
{
	assert_eq 1 "$RC" "$1: exit ($(cat "$T/err"))"
	assert_file_eq "$T/repo/transcript/test.T" "$C/test.T" "$1: test.T"
}

# peer SCRIPT-TEXT: a scripted peer on 127.0.0.1; sets PEERPORT.
peer()
{
	printf '%s\n' "$1" >"$T/script"
	start_peer "$T/script" "$T/peer.log"
}

# peer_done: wait for the peer (bounded by its own 120 s limit).
peer_done()
{
	kill "$PEERPID" 2>/dev/null
	wait "$PEERPID" 2>/dev/null
}

# second PORT: cairnd on 127.0.0.2:PORT, afresh.
second()
{
	stop_cairnd
	: >"$T/cairnd.log"
	CAIRND_ADDR=127.0.0.2 CAIRND_PORT=$1 start_cairnd "$T/repo"
}

# --- every server down: each named, exit as for one server down
P=$(free_port) || fail "no free port"
kt -h 127.0.0.1,127.0.0.2 -p "$P"
assert_eq 2 "$RC" "all down: exit"
grep -qx "no server answered: 127.0.0.1:$P: connect: Connection refused; 127.0.0.2:$P: connect: Connection refused" "$T/err" ||
    fail "all down: $(cat "$T/err")"
kt -h 127.0.0.1 -p "$P"
assert_eq 2 "$RC" "one down: exit"
grep -qx "127.0.0.1:$P: connect: Connection refused" "$T/err" ||
    fail "one down: $(cat "$T/err")"

# --- a list with an empty name is a usage error
kt -h 127.0.0.1,,127.0.0.2 -p "$P"
assert_eq 2 "$RC" "empty name: exit"
grep -q 'invalid server list' "$T/err" || fail "empty name: $(cat "$T/err")"
grep -q '^usage: ' "$T/err" || fail "empty name: no usage line"

# --- first server down, second up: ktcheck and lapply are served
second "$P"
kt -v -h 127.0.0.1,127.0.0.2 -p "$P"
served "first down"
grep -q "^trying 127.0.0.1:$P\$" "$T/err" ||
    fail "first down: no first attempt in -v: $(cat "$T/err")"
grep -q "^127.0.0.1:$P: connect: Connection refused: trying 127.0.0.2:$P\$" "$T/err" ||
    fail "first down: -v does not say why it moved on: $(cat "$T/err")"

mkdir "$T/root"
{
	echo "test.T:"
	echo "d ./etc 0755 0 0"
	echo "+ f ./etc/issue 0644 0 0 $T0 17 34alM59oEUf5SDc3GRHahQwbAKc="
	echo "+ f ./etc/motd 0644 0 0 $T0 12 IlljY7PeQLBvmB+4XYIxLowO1RE="
} >"$T/apply.T"
# -j 2: the second session goes where the first went, not down the list.
run_capture "$T/out" "$T/err" in_dir "$T/root" timeout 60 "$LAPPLY" -v \
    -j 2 -c sha1 -h 127.0.0.1,127.0.0.2 -p "$P" "$T/apply.T"
assert_eq 0 "$RC" "lapply, first down: exit ($(cat "$T/err"))"
assert_file_eq "$T/repo/file/test.T/etc/motd" "$T/root/etc/motd" \
    "lapply, first down"
assert_eq 1 "$(grep -c "trying 127.0.0.1:$P\$" "$T/err")" \
    "lapply -j 2: attempts on the server that was down"
assert_eq 2 "$(grep -c "^<<< 200-RAP 1 " "$T/err")" "lapply -j 2: sessions"

# --- first server busy (cairnd's reply at its -m or -s limit)
peer 'send 420 Server busy\r\n'
second "$PEERPORT"
kt -v -h 127.0.0.1,127.0.0.2 -p "$PEERPORT"
peer_done
served "first busy"
grep -q "^127.0.0.1:$PEERPORT: 420 Server busy: trying 127.0.0.2:$PEERPORT\$" "$T/err" ||
    fail "first busy: $(cat "$T/err")"

# --- first is an SSH server: refused at once, the second serves
peer 'send SSH-2.0-OpenSSH_9.2\r\n
sleep 50'
second "$PEERPORT"
kt -h 127.0.0.1,127.0.0.2 -p "$PEERPORT"
peer_done
served "first SSH"

# --- a 5xx greeting: no other server is tried
peer 'send 500 No access for 127.0.0.1\r\n'
second "$PEERPORT"
kt -h 127.0.0.1,127.0.0.2 -p "$PEERPORT"
peer_done
assert_eq 2 "$RC" "500 greeting: exit"
grep -qx "127.0.0.1:$PEERPORT: 500 No access for 127.0.0.1" "$T/err" ||
    fail "500 greeting: $(cat "$T/err")"
grep -q 'connection from' "$T/cairnd.log" &&
    fail "500 greeting: the second server was asked"
stop_cairnd

# --- alone, an SSH server (with a terminal escape in its banner)
peer 'send SSH-2.0-OpenSSH_9.2\x1b[2J\r\n
sleep 50'
kt -h 127.0.0.1 -p "$PEERPORT"
peer_done
assert_eq 2 "$RC" "SSH: exit"
grep -qx "127.0.0.1:$PEERPORT: not a Radmind or cairn server (it sent \"SSH-2.0-OpenSSH_9.2\\\\x1b\\[2J\")" "$T/err" ||
    fail "SSH: $(cat "$T/err")"

# --- alone, a silent peer (an HTTP server waits for the request)
peer 'sleep 50'
kt -h 127.0.0.1 -p "$PEERPORT"
peer_done
assert_eq 2 "$RC" "silent: exit"
grep -qx "127.0.0.1:$PEERPORT: not a Radmind or cairn server (no greeting within 30 s)" "$T/err" ||
    fail "silent: $(cat "$T/err")"

# --- a server whose reply text holds terminal escapes: never printed raw
peer 'send 200-RAP 1 peer 1.0 radmind access protocol\r\n200 CAPA REPO\r\n
recv
send 545 \x1b]0;owned\x07\x1b[2Jgone\r\n
drain'
kt -v -h 127.0.0.1 -p "$PEERPORT"
peer_done
assert_eq 2 "$RC" "escapes in a reply: exit ($(cat "$T/err"))"
if LC_ALL=C grep -q "$(printf '[\033\007]')" "$T/err" "$T/out"; then
	fail "escapes in a reply: printed raw: $(od -c "$T/err" | head)"
fi
grep -q '?\]0;owned??\[2Jgone' "$T/err" ||
    fail "escapes in a reply: the text is not shown tamed: $(cat "$T/err")"
grep -q '^<<< 545 \\x1b\]0;owned\\x07\\x1b\[2Jgone$' "$T/err" ||
    fail "escapes in a reply: -v does not show them as \\xNN: $(cat "$T/err")"
exit 0
