#!/bin/sh
# cairnd never serves anything outside the repository's directories:
# "..", absolute paths, encoded tricks and symlinks (leaf or parent, to
# files or directories outside) are all refused, and a sentinel's bytes
# never appear in any reply.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
R=$T/repo
mkdir "$T/outside"
printf 'SENTINEL-SECRET\n' >"$T/outside/secret"
printf 'p ../../outside/secret\n' >"$T/outside/evil.K"
ln -s "$T/outside/secret" "$R/file/test.T/etc/leak"
ln -s "$T/outside" "$R/file/test.T/dirlink"
ln -s "$T/outside/secret" "$R/special/127.0.0.1/etc/leak"
ln -s ../../../outside "$R/special/127.0.0.1/up"
ln -s "$T/outside/secret" "$R/transcript/link.T"
# link.T is listed, so only the symlink stops it.
printf 'p test.T\nn neg.T\np link.T\ns ./etc/hostname\n' >"$R/command/test.K"

start_cairnd "$R"
req='RETR FILE test.T ../x\n'
req="${req}RETR FILE test.T a/../../x\n"
req="${req}RETR FILE test.T a/..\n"
req="${req}RETR FILE test.T ..\n"
req="${req}RETR FILE test.T ./etc/..\n"
req="${req}RETR FILE test.T .\\\\b/..\n"
req="${req}RETR FILE test.T ./a//../..\n"
req="${req}RETR FILE test.T ./etc/leak\n"
req="${req}RETR FILE test.T ./dirlink/secret\n"
req="${req}RETR FILE test.T /etc/passwd\n"
req="${req}RETR FILE test.T ./etc\n"
req="${req}RETR FILE test.T %2e%2e/x\n"
req="${req}QUIT\r\n"
req2='RETR FILE ../outside/secret x\n'

req2="${req2}RETR FILE test.T ./etc/bad\\\\xescape\n"
req2="${req2}RETR TRANSCRIPT ../../outside/secret\n"
req2="${req2}RETR TRANSCRIPT link.T\n"
req2="${req2}RETR COMMAND ../../outside/evil.K\n"
req2="${req2}RETR SPECIAL ../../../outside/secret\n"
req2="${req2}RETR SPECIAL ./etc/leak\n"
req2="${req2}RETR SPECIAL ./up/secret\n"
req2="${req2}RETR SPECIAL /etc/passwd\n"
req2="${req2}STAT SPECIAL ./etc/leak\n"
req2="${req2}STAT SPECIAL ../secret\n"
req2="${req2}STAT TRANSCRIPT link.T\n"
req2="${req2}QUIT\r\n"
{
	banner
	printf '540 RETR Syntax error\r\n'
	printf '540 RETR Syntax error\r\n'
	printf '540 RETR Syntax error\r\n'
	printf '540 RETR Syntax error\r\n'
	printf '540 RETR Syntax error\r\n'
	printf '540 RETR Syntax error\r\n'
	printf '540 RETR Syntax error\r\n'
	printf '543 Unable to access file/test.T/./etc/leak.\r\n'
	printf '543 Unable to access file/test.T/./dirlink/secret.\r\n'
	printf '543 Unable to access file/test.T//etc/passwd.\r\n'
	printf '543 Unable to access file/test.T/./etc.\r\n'
	printf '543 Unable to access file/test.T/%%2e%%2e/x.\r\n'
	printf '201 QUIT OK, closing connection\r\n'
	banner
	printf '540 RETR Syntax error\r\n'
	printf '540 RETR Syntax error\r\n'
	printf '540 RETR Syntax error\r\n'
	printf '543 Unable to access transcript/link.T.\r\n'
	printf '540 RETR Syntax error\r\n'
	printf '540 RETR Syntax error\r\n'
	printf '543 Unable to access special/127.0.0.1/./etc/leak.\r\n'
	printf '543 Unable to access special/127.0.0.1/./up/secret.\r\n'
	printf '543 Unable to access special/127.0.0.1//etc/passwd.\r\n'
	printf '531 Access Error: special/127.0.0.1/./etc/leak\r\n'
	printf '530 STAT Syntax error\r\n'
	printf '531 Access Error: transcript/link.T\r\n'
	printf '201 QUIT OK, closing connection\r\n'
} >"$T/exp"
rap "$PORT" "$req" >"$T/out" || fail "rap"
rap "$PORT" "$req2" >>"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "confinement"
grep -q SENTINEL "$T/out" && fail "sentinel leaked"

# Unlisted transcripts: no access, and nothing about the file leaks.
rap "$PORT" 'STAT TRANSCRIPT special.T\nRETR TRANSCRIPT special.T\nRETR FILE special.T ./x\nQUIT\r\n' >"$T/out" ||
    fail "rap"
{
	banner
	printf '540 No access for special.T\r\n'
	printf '540 No access for special.T\r\n'
	printf '540 No access for special.T:./x\r\n'
	printf '201 QUIT OK, closing connection\r\n'
} >"$T/exp"
assert_file_eq "$T/exp" "$T/out" "access list"
exit 0
