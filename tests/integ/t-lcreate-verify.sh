#!/bin/sh
# lcreate's checks of the loadset against the file system: -n (no
# network: type, size, readability; with -c the digest), a size that
# differs (error before anything is sent, or a warning and the live file
# uploaded with -F), a digest that differs under -c (exit 2, and the
# server keeps nothing of the upload), a wrong type, a missing file, a
# line without checksum under -c.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lcreate fsdiff
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
R=$T/repo
start_cairnd "$R"

mkdir -p "$T/src/a" || fail "mkdir"
cd "$T/src" || fail "cd"
printf 'one\n' >a/one
printf 'two\n' >a/two
printf 'three\n' >a/three
echo >"$T/empty.K"
"$FSDIFF" -C -c sha1 -K "$T/empty.K" -o "$T/up.T" . || fail "fsdiff -C"
line_of()
{
	grep -n "$1" "$T/up.T" | cut -d: -f1
}

# -n: all good, silent, no server needed (port 1 is never contacted).
run_capture "$T/out" "$T/err" "$LCREATE" -n -h 127.0.0.1 -p 1 "$T/up.T"
assert_eq 0 "$RC" "-n: exit ($(cat "$T/err"))"
assert_file_eq /dev/null "$T/out" "-n output"
run_capture "$T/out" "$T/err" "$LCREATE" -n -c sha1 -p 1 "$T/up.T"
assert_eq 0 "$RC" "-n -c: exit ($(cat "$T/err"))"

# Same size, other content: -n alone passes, -n -c finds it.
printf 'TWO\n' >a/two
n=$(line_of 'a/two')
run_capture "$T/out" "$T/err" "$LCREATE" -n -p 1 "$T/up.T"
assert_eq 0 "$RC" "-n, changed content: exit"
run_capture "$T/out" "$T/err" "$LCREATE" -n -c sha1 -p 1 "$T/up.T"
assert_eq 2 "$RC" "-n -c mismatch: exit"
assert_eq "line $n: checksum listed in transcript wrong" "$(cat "$T/err")"

# -c over the network: exit 2, nothing of the upload kept.
run_client lcreate -c sha1 -t sum.T "$T/up.T"
assert_eq 2 "$RC" "-c mismatch: exit"
assert_eq "line $n: checksum listed in transcript wrong" "$(cat "$T/err")"
no_upload "$R" sum.T
# -F: a warning, and the live file is uploaded.
run_client lcreate -F -c sha1 -t sumF.T "$T/up.T"
assert_eq 0 "$RC" "-F -c mismatch: exit ($(cat "$T/err"))"
assert_eq "warning: line $n: checksum listed in transcript wrong" \
    "$(cat "$T/err")"
cmp -s a/two "$R/tmp/file/sumF.T/a/two" || fail "-F: live file not uploaded"
# Without -c the content is not checked.
run_client lcreate -t plain.T "$T/up.T"
assert_eq 0 "$RC" "no -c: exit ($(cat "$T/err"))"
printf 'two\n' >a/two

# Size differs: refused before anything is sent; -F uploads the live file.
printf 'three, longer\n' >a/three
n=$(line_of 'a/three')
run_client lcreate -t size.T "$T/up.T"
assert_eq 2 "$RC" "size mismatch: exit"
assert_eq "line $n: size in transcript does not match size of file" \
    "$(cat "$T/err")"
no_upload "$R" size.T
run_capture "$T/out" "$T/err" "$LCREATE" -n -p 1 "$T/up.T"
assert_eq 2 "$RC" "-n size mismatch: exit"
run_client lcreate -F -t sizeF.T "$T/up.T"
assert_eq 0 "$RC" "-F size mismatch: exit ($(cat "$T/err"))"
assert_eq "warning: line $n: size in transcript does not match size of file" \
    "$(cat "$T/err")"
cmp -s a/three "$R/tmp/file/sizeF.T/a/three" || fail "-F: live file differs"
printf 'three\n' >a/three

# Wrong type; missing file; unreadable (-n only, as non-root).
rm a/one && mkdir a/one
n=$(line_of 'a/one')
run_client lcreate -t type.T "$T/up.T"
assert_eq 2 "$RC" "type: exit"
assert_eq "line $n: file type wrong" "$(cat "$T/err")"
no_upload "$R" type.T
rmdir a/one
run_client lcreate -t gone.T "$T/up.T"
assert_eq 2 "$RC" "missing: exit"
assert_eq "./a/one: No such file or directory" "$(cat "$T/err")"
no_upload "$R" gone.T
printf 'one\n' >a/one
if [ "$(id -u)" -ne 0 ]; then
	chmod 000 a/one
	run_capture "$T/out" "$T/err" "$LCREATE" -n -p 1 "$T/up.T"
	assert_eq 2 "$RC" "unreadable: exit"
	assert_eq "./a/one: Permission denied" "$(cat "$T/err")"
	chmod 644 a/one
fi

# -c needs checksums in the transcript.
sed 's/ [^ ]*=$/ -/' "$T/up.T" >"$T/nosum.T"
n=$(grep -n '^f ' "$T/nosum.T" | head -n 1 | cut -d: -f1)
run_client lcreate -c sha1 "$T/nosum.T"
assert_eq 2 "$RC" "no checksum: exit"
assert_eq "line $n: No checksum listed" "$(cat "$T/err")"
no_upload "$R" nosum.T

# An unknown digest.
run_client lcreate -c nosuchdigest "$T/up.T"
assert_eq 2 "$RC" "bad digest: exit"
exit 0
