#!/bin/sh
# cairnd STOR: a pipelined upload exactly as Radmind's lcreate sends it
# (vectors/wire/lcreate.txt) lands in tmp/ with the right bytes; and the
# refusals that end the session: COMMAND/SPECIAL, "..", another
# transcript, a transcript that exists, a body not followed by ".".
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
R=$T/repo
start_cairnd "$R" -u 027

tl1='d .                                    \t0755     0     0\n'
tl2='d ./opt                                \t0755     0     0\n'
tl3='f ./opt/a\\bfile                        \t0644     0     0 1700000000       5 UG8l9ip+Ws+0tfhmpXDnjk79Y4o=\n'
tl4='f ./opt/x                              \t0644     0     0 1700000000       1 EfatjsUqKYSrqv18O1FlA3hcIHI=\n'
tl5='f ./opt/zero                           \t0644     0     0 1700000000       0 2jmj7l5rSw0yVb/vlWAYkK/YBwk=\n'
req="STOR TRANSCRIPT tiny.T\r\n429\r\n$tl1$tl2$tl3$tl4$tl5.\r\n"
req="${req}STOR FILE tiny.T ./opt/a\\\\bfile\r\n5\r\ntiny\n.\r\n"
req="${req}STOR FILE tiny.T ./opt/x\r\n1\r\nx.\r\n"
req="${req}STOR FILE tiny.T ./opt/zero\r\n0\r\n.\r\nQUIT\r\n"
{
	banner
	for i in 1 2 3 4; do
		printf '350 Storing file\r\n250 File stored\r\n'
	done
	printf '201 QUIT OK, closing connection\r\n'
} >"$T/exp"
rap "$PORT" "$req" >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "upload"
printf "$tl1$tl2" >"$T/tiny.T"
printf 'f ./opt/a\\bfile                        \t0644     0     0 1700000000       5 UG8l9ip+Ws+0tfhmpXDnjk79Y4o=\n' >>"$T/tiny.T"
printf "$tl4$tl5" >>"$T/tiny.T"
assert_file_eq "$T/tiny.T" "$R/tmp/transcript/tiny.T"
printf 'tiny\n' >"$T/a"
assert_file_eq "$T/a" "$R/tmp/file/tiny.T/opt/a file"
printf 'x' >"$T/x"
assert_file_eq "$T/x" "$R/tmp/file/tiny.T/opt/x"
[ -f "$R/tmp/file/tiny.T/opt/zero" ] && [ ! -s "$R/tmp/file/tiny.T/opt/zero" ] ||
    fail "zero-length upload"
assert_eq 640 "$(stat -c %a "$R/tmp/file/tiny.T/opt/x")" "mode under -u 027"

# each REQUEST REPLY: one session that ends with REPLY.
each()
{
	{
		banner
		printf "$2"
	} >"$T/exp"
	rap "$PORT" "$1" >"$T/out" || fail "rap"
	assert_file_eq "$T/exp" "$T/out" "$1"
}
each 'STOR COMMAND\r\nNOOP\r\n' '550 STOR Syntax error\r\n'
each 'STOR SPECIAL ./etc/x\r\nNOOP\r\n' '550 STOR Syntax error\r\n'
each 'STOR TRANSCRIPT ../x.T\r\nNOOP\r\n' '550 STOR Syntax error\r\n'
each 'STOR TRANSCRIPT tiny.T\r\nNOOP\r\n' '551 Transcript exists\r\n'
each 'STOR FILE tiny.T ./opt/y\r\n1\r\ny.\r\n' '552 Incorrect Transcript tiny.T\r\n'
each 'STOR TRANSCRIPT t2.T\r\n0\r\n.\r\nSTOR FILE other.T ./x\r\n' \
    '350 Storing file\r\n250 File stored\r\n552 Incorrect Transcript other.T\r\n'
each 'STOR TRANSCRIPT t3.T\r\n0\r\n.\r\nSTOR FILE t3.T ../../x\r\n' \
    '350 Storing file\r\n250 File stored\r\n550 STOR Syntax error\r\n'
each 'STOR TRANSCRIPT t4.T\r\n0\r\n.\r\nSTOR FILE t4.T ./a/b/../../../x\r\n' \
    '350 Storing file\r\n250 File stored\r\n550 STOR Syntax error\r\n'
each 'STOR TRANSCRIPT t5.T\r\n3\r\nabcd\r\n' \
    '350 Storing file\r\n555 Length doesn'"'"'t match sent data tmp/transcript/t5.T\r\n'
[ -e "$R/tmp/transcript/t5.T" ] && fail "partial upload left"
# A CR decoded from the name is not echoed raw in the refusal.
long=$(printf '%0300d' 0)
each "STOR TRANSCRIPT a\\\\rb$long.T\\r\\n" \
    "551 tmp/file/a?b$long.T: File name too long\\r\\n"
# A transcript name of more than one component is refused, and nothing
# is made inside the upload of another session (tiny.T's, kept above):
# its directory is not touched.
before=$(stat -c '%y %h' "$R/tmp/file/tiny.T")
each 'STOR TRANSCRIPT tiny.T/in\r\n0\r\n.\r\nSTOR FILE tiny.T/in ./x\r\n1\r\nx.\r\n' \
    '550 STOR Syntax error\r\n'
assert_eq "$before" "$(stat -c '%y %h' "$R/tmp/file/tiny.T")" \
    "another session's upload directory"
[ -e "$R/tmp/file/tiny.T/in" ] && fail "made inside another upload"
for f in "$R/x" "$R/tmp/x" "$R/tmp/file/x"; do
	[ -e "$f" ] && fail "upload escaped to $f"
done
exit 0
