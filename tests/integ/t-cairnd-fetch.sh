#!/bin/sh
# cairnd STAT and RETR: exact STAT lines (command, transcript, special
# with metadata from special.T files), RETR framing (size line, raw
# bytes, "." right after the last byte), and the error replies (syntax,
# no access, missing file), and the 421 of a host whose command file is
# broken or missing (the cause said, no server path).
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
R=$T/repo
# A second special with a per-host special transcript entry, and one
# without any metadata.
printf 'x\n' >"$R/special/127.0.0.1/etc/fstab"
printf 'f ./etc/fstab 0600 1 2 0 0 -\n' >"$R/special/127.0.0.1.T"
printf 'yy\n' >"$R/special/127.0.0.1/etc/plain"
touch -d "@$T0" "$R/special/127.0.0.1/etc/fstab" "$R/special/127.0.0.1/etc/plain"

start_cairnd "$R"
{
	banner
	printf '230 Returning STAT information\r\n'
	printf 'f command 444 0 0 1700000000 34 aKxftZ+/+zwyIwmaLUSSlBAMp4k=\r\n'
	printf '230 Returning STAT information\r\n'
	printf 'f test.T 444 0 0 1700000000 758 sURdoyDA49snFVJMGxNs6gqlDQQ=\r\n'
	printf '230 Returning STAT information\r\n'
	printf 'f neg.T 444 0 0 1700000000 17 /FFwxaO2EtGejSW4EcJAGglL+eU=\r\n'
	printf '230 Returning STAT information\r\n'
	printf 'f ./etc/hostname 0640 0 0 1700000000 8 wQLzslrg7QPcBOJrz2oZsWBEUNg=\r\n'
	printf '230 Returning STAT information\r\n'
	printf 'f ./etc/fstab 0600 1 2 1700000000 2 %s\r\n' "$(sha1b64 "$R/special/127.0.0.1/etc/fstab")"
	printf '230 Returning STAT information\r\n'
	printf 'f ./etc/plain 444 0 0 1700000000 3 %s\r\n' "$(sha1b64 "$R/special/127.0.0.1/etc/plain")"
	printf '531 Access Error: special/127.0.0.1/./etc/none\r\n'
	printf '540 No access for other.T\r\n'
	printf '540 No access for test.K\r\n'
	printf '530 STAT Syntax error\r\n'
	printf '530 STAT Syntax error\r\n'
	printf '530 STAT Syntax error\r\n'
	printf '201 QUIT OK, closing connection\r\n'
} >"$T/exp"
rap "$PORT" 'STAT COMMAND\nSTAT TRANSCRIPT test.T\nstat transcript neg.T\nSTAT SPECIAL ./etc/hostname\nSTAT SPECIAL ./etc/fstab\nSTAT SPECIAL ./etc/plain\nSTAT SPECIAL ./etc/none\nSTAT TRANSCRIPT other.T\nSTAT COMMAND test.K\nSTAT FILE test.T ./etc/motd\nSTAT TRANSCRIPT\nSTAT SPECIAL a b\nQUIT\r\n' >"$T/out" ||
    fail "rap"
assert_file_eq "$T/exp" "$T/out" "STAT"

{
	banner
	printf '240 Retrieving file\r\n34\r\n'
	cat "$R/command/test.K"
	printf '.\r\n'
	printf '240 Retrieving file\r\n17\r\nno newline at end.\r\n'
	printf '240 Retrieving file\r\n8\r\na\r\nb\000c\377\n.\r\n'
	printf '240 Retrieving file\r\n0\r\n.\r\n'
	printf '240 Retrieving file\r\n8\r\nclient1\n.\r\n'
	printf '240 Retrieving file\r\n17\r\nd ./var 0755 0 0\n.\r\n'
	printf '543 Unable to access file/test.T/./etc/none.\r\n'
	printf '540 No access for other.T:./etc/motd\r\n'
	printf '540 RETR Syntax error\r\n'
	printf '540 RETR Syntax error\r\n'
	printf '201 QUIT OK, closing connection\r\n'
} >"$T/exp"
rap "$PORT" 'RETR COMMAND\nRETR FILE test.T ./etc/issue\nRETR FILE test.T ./etc/bin\\bary\nRETRIEVE FILE test.T ./etc/empty\nRETR SPECIAL ./etc/hostname\nRETR TRANSCRIPT neg.T\nRETR FILE test.T ./etc/none\nRETR FILE other.T ./etc/motd\nRETR FILE test.T\nRETR BOGUS x\nQUIT\r\n' >"$T/out" ||
    fail "rap"
assert_file_eq "$T/exp" "$T/out" "RETR"

# A large file comes through intact (several 256 KiB chunks).
python3 -c 'import sys, random
r = random.Random(7)
sys.stdout.buffer.write(bytes(r.getrandbits(8) for _ in range(700001)))' \
    >"$R/file/test.T/etc/big"
rap "$PORT" 'RETR FILE test.T ./etc/big\nQUIT\r\n' >"$T/out" || fail "rap"
{
	banner
	printf '240 Retrieving file\r\n700001\r\n'
	cat "$R/file/test.T/etc/big"
	printf '.\r\n201 QUIT OK, closing connection\r\n'
} >"$T/exp"
assert_file_eq "$T/exp" "$T/out" "large RETR"

# CR and LF decoded from a name never reach a reply or the log: each
# failure is one reply line, the control bytes shown as '?'.
{
	banner
	printf '543 Unable to access file/test.T/./etc/a?b.\r\n'
	printf '531 Access Error: special/127.0.0.1/./x?y\r\n'
	printf '201 QUIT OK, closing connection\r\n'
} >"$T/exp"
rap "$PORT" 'RETR FILE test.T ./etc/a\\rb\nSTAT SPECIAL ./x\\ny\nQUIT\r\n' \
    >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "control bytes in names"
grep -q 'open file/test.T/./etc/a?b: ' "$SLOG" ||
    fail "open failure not logged as one line: $(cat "$SLOG")"

# A host that config does not list gets no banner.
echo '10.9.9.9 test.K' >"$R/config"
printf '500 No access for ' >"$T/exp"
rap "$PORT" 'NOOP\r\n' >"$T/out" || fail "rap"
head -c 18 "$T/out" | cmp -s - "$T/exp" || fail "unknown host: $(cat "$T/out")"
# A listed host whose command file is broken: 421.
echo '127.0.0.1 broken.K' >"$R/config"
printf 'q what\n' >"$R/command/broken.K"
printf '421 Service not available, closing transmission channel\r\n' >"$T/exp"
rap "$PORT" 'NOOP\r\n' >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "broken command file"
# A listed host whose command file does not exist: 421 with the cause,
# without the server's path; a client shows it.
echo '127.0.0.1 missing.K' >"$R/config"
printf '421 Service not available, no command file for this host\r\n' >"$T/exp"
rap "$PORT" 'NOOP\r\n' >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "missing command file"
need_tool ktcheck
mkdir "$T/kt"
run_client ktcheck -K "$T/kt/command.K"
assert_eq 2 "$RC" "ktcheck, missing command file: exit"
grep -qx "127.0.0.1:$PORT: 421 Service not available, no command file for this host" "$T/err" ||
    fail "ktcheck, missing command file: $(cat "$T/err")"
exit 0
