#!/bin/sh
# A client's name from the resolver, or from its certificate, becomes a
# key in config and a directory under special/ only if it is a host name
# (letters, digits and '-' in dot-separated labels; not "." or "..", not
# an address, not "*") and, by default, if it resolves back to the
# client's address (cairnd -H); and a name never matches an entry written
# for addresses ("10.9.<1-2>.*").  Otherwise the address stands in and the
# refusal is logged.  The resolver is real: the test runs in a mount
# namespace of its own, with its own /etc/hosts and "hosts: files"; one
# PTR record that disagrees with the forward zone comes from the shim.
. "$top_srcdir/tests/integ/lib.sh"
need_root
in_mount_ns
need_tool cairnd
need_shim
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"

# The resolver of this namespace.
{
	echo '127.0.0.1 localhost'
	echo '127.0.0.2 .'
	echo '127.0.0.3 ..'
	echo '127.0.0.4 10.9.9.9'
	echo '127.0.0.5 Good.Example'
	echo '127.0.0.6 *'
	echo '127.0.0.8 10.9.1.x.attacker.example'
	echo '127.0.0.9 otherhost.example'
} >"$T/hosts"
private_hosts "$T/hosts"
[ "$(python3 -c 'import socket
print(socket.getnameinfo(("127.0.0.2", 0), socket.NI_NAMEREQD)[0])')" = . ] ||
    fail "the namespace's resolver does not answer from $T/hosts"

R=$T/repo
mkdir -p "$R/command" "$R/transcript" "$R/file" || fail "mkdir"
{
	echo 'otherhost.example other.K'
	echo 'good.example good.K'
	echo '10.9.9.9 ipkey.K'
	echo '10.9.<1-2>.* lab.K'
	echo '* default.K'
} >"$R/config"
for k in other good ipkey lab default; do
	echo "# $k" >"$R/command/$k.K"
done
for d in otherhost.example good.example 127.0.0.2 127.0.0.3 127.0.0.4 \
    127.0.0.5 127.0.0.6 127.0.0.7 10.9.1.x.attacker.example \
    localhost '*'; do
	mkdir -p "$R/special/$d/etc" || fail "mkdir special/$d"
	echo "motd of $d" >"$R/special/$d/etc/motd"
done
echo 'SECRET-OF-OTHERHOST' >"$R/special/otherhost.example/etc/passwd"

# ask ADDR REQUEST: rap.py from the local address ADDR; output in $T/out.
ask()
{
	RAP_SOURCE=$1 python3 "$RAP" "$PORT" "$2" >"$T/out" 2>"$T/err" ||
	    fail "rap.py from $1: $(cat "$T/err")"
}

# expect ADDR LABEL COMMANDFILE MOTD-OF: the client at ADDR is given
# COMMANDFILE and the special files of MOTD-OF, and never otherhost's.
expect()
{
	ask "$1" 'RETR COMMAND\r\nRETR SPECIAL etc/motd\r\nRETR SPECIAL otherhost.example/etc/passwd\r\nRETR SPECIAL ../otherhost.example/etc/passwd\r\nQUIT\r\n'
	grep -q "^# $3\$" "$T/out" ||
	    note_fail "$2: not given $3.K: $(cat "$T/out")"
	grep -q "^motd of $4\$" "$T/out" ||
	    note_fail "$2: not given special/$4: $(cat "$T/out")"
	if grep -q SECRET-OF-OTHERHOST "$T/out"; then
		note_fail "$2: given otherhost's special file"
	fi
}

: >"$T/cairnd.log"
CAIRN_SHIM_PTR=127.0.0.7=otherhost.example LD_PRELOAD=$SHIM \
    start_cairnd "$R" -d
# A real name, in another case: confirmed, lower-cased.
expect 127.0.0.5 "Good.Example" good good.example
# "." would make special/./otherhost.example/etc/passwd someone else's.
expect 127.0.0.2 "PTR ." default 127.0.0.2
grep -q '127.0.0.2: reverse name "." is not a host name, using the address' \
    "$SLOG" || note_fail "PTR .: not logged"
# ".." as a key.
expect 127.0.0.3 "PTR .." default 127.0.0.3
grep -q '127.0.0.3: reverse name ".." is not a host name' "$SLOG" ||
    note_fail "PTR ..: not logged"
# A name that passes for an address takes the address's entry.
expect 127.0.0.4 "PTR 10.9.9.9" default 127.0.0.4
# A confirmed name shaped to fit an entry written for an address range.
expect 127.0.0.8 "PTR 10.9.1.x.attacker.example" default \
    10.9.1.x.attacker.example
# "*" as a key and a directory.
expect 127.0.0.6 "PTR *" default 127.0.0.6
# A PTR record naming a host whose forward zone says otherwise.
expect 127.0.0.7 "PTR otherhost.example, A 127.0.0.9" default 127.0.0.7
grep -q '127.0.0.7: reverse name otherhost.example does not resolve back to the address' \
    "$SLOG" || note_fail "unconfirmed name: not logged"
stop_cairnd

# -H reverse: Radmind's trust in the PTR record, still never a bad name.
: >"$SLOG"
CAIRN_SHIM_PTR=127.0.0.7=otherhost.example LD_PRELOAD=$SHIM \
    start_cairnd "$R" -d -H reverse
ask 127.0.0.7 'RETR COMMAND\r\nQUIT\r\n'
grep -q '^# other$' "$T/out" || note_fail "-H reverse: $(cat "$T/out")"
expect 127.0.0.2 "-H reverse, PTR ." default 127.0.0.2
stop_cairnd

# -H off: the address only.
: >"$SLOG"
start_cairnd "$R" -d -H off
expect 127.0.0.5 "-H off" default 127.0.0.5
stop_cairnd

run_capture "$T/out" "$T/err" "$CAIRND" -f -D "$R" -H sometimes
assert_eq 2 "$RC" "-H sometimes (usage)"

# A certificate whose CN is "*" is not a key either (-w 2).
need_cmd openssl
. "$top_srcdir/tests/integ/tlslib.sh"
tls_repo "$R"
openssl req -new -newkey rsa:2048 -nodes -keyout "$T/star.key" \
    -subj '/CN=*' -out "$T/star.csr" 2>"$T/err" || fail "req: $(cat "$T/err")"
printf 'extendedKeyUsage = clientAuth\n' >"$T/star.ext"
openssl x509 -req -in "$T/star.csr" -CA "$PKI/ca.pem" -CAkey "$PKI/ca.key" \
    -CAcreateserial -days 2 -extfile "$T/star.ext" -out "$T/star.crt" \
    2>"$T/err" || fail "x509: $(cat "$T/err")"
cat "$T/star.crt" "$T/star.key" >"$T/star.pem"
: >"$SLOG"
start_cairnd "$R" -d -w 2 -x "$R/cert/ca.pem" -y "$R/cert/cert.pem" \
    -z "$R/cert/cert.pem"
tlspeer client "$PORT" 'STARTTLS\r\n' \
    'RETR COMMAND\r\nRETR SPECIAL etc/motd\r\nQUIT\r\n' \
    --ca "$PKI/ca.pem" --cert "$T/star.pem" >"$T/out" 2>"$T/err" ||
    fail "tlspeer: $(cat "$T/err")"
grep -q '^motd of localhost$' "$T/out" ||
    note_fail "CN *: not given the host's own special files: $(cat "$T/out")"
grep -q '^motd of \*$' "$T/out" && note_fail "CN * became a key"
grep -q 'certificate name "\*" is not a host name, not used' "$SLOG" ||
    note_fail "CN *: not logged"
stop_cairnd
end_test
