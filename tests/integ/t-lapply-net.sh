#!/bin/sh
# t-lapply-net: lapply downloading from a server (tests/integ/lapply-srv.py,
# a small RAP file server that can misbehave): files and special files
# land with exact content, mode, owner and mtime; requests are pipelined;
# -c verifies digests; a wrong size, a wrong digest, a cut connection or a
# refused file leave the old file intact and no temp file behind; a
# symbolic link at the destination is replaced, never written through;
# the run is reported (REPO) and the session closed (QUIT).
. "$top_srcdir/tests/integ/lib.sh"
need_tool lapply
mk_tmpdir
. "$top_srcdir/tests/integ/lapply-lib.sh"
need_cmd python3
S=$T/srv
mkdir -p "$S/file/test.T/etc" "$S/special/etc"

# Server content.
printf '#!/bin/sh\necho hi\n' > "$S/file/test.T/hi"
printf 'a\r\nb\000c\377\n' > "$S/file/test.T/etc/bin ary"
: > "$S/file/test.T/etc/empty"
printf 'client1\n' > "$S/special/etc/hostname"
head -c 300000 /dev/urandom > "$S/file/test.T/big"
for i in 1 2 3 4 5 6 7 8; do
	printf 'file %s\n' "$i" > "$S/file/test.T/etc/f$i"
done

# no_temps: no temp file left in the apply root.
no_temps()
{
	assert_no_files "temp files left" "$R" -name '*.radmind.*'
}

# --- a normal run
mkdir "$R/etc"
{
	echo "test.T:"
	fline './big' "$S/file/test.T/big" 0644
	fline './etc/bin\bary' "$S/file/test.T/etc/bin ary" 0600
	fline './etc/empty' "$S/file/test.T/etc/empty" 0644
	for i in 1 2 3 4 5 6 7 8; do
		fline "./etc/f$i" "$S/file/test.T/etc/f$i" 0644
	done
	echo "special.T:"
	fline './etc/hostname' "$S/special/etc/hostname" 0640
	echo "test.T:"
	fline './hi' "$S/file/test.T/hi" 0755
} > "$T/a.T"
serve_files "$S"
net_apply "$R" "$T/a.T" -c sha1
expect_rc 0
expect_out "./big: created updating mode time
./etc/bin ary: created updating time
./etc/empty: created updating mode time
./etc/f1: created updating mode time
./etc/f2: created updating mode time
./etc/f3: created updating mode time
./etc/f4: created updating mode time
./etc/f5: created updating mode time
./etc/f6: created updating mode time
./etc/f7: created updating mode time
./etc/f8: created updating mode time
./etc/hostname: created updating mode time
./hi: created updating mode time"
[ ! -s "$T/err" ] || fail "stderr not empty"
cmp -s "$R/big" "$S/file/test.T/big" || fail "big differs"
cmp -s "$R/etc/bin ary" "$S/file/test.T/etc/bin ary" || fail "bin ary"
cmp -s "$R/etc/hostname" "$S/special/etc/hostname" || fail "hostname"
[ "$(stat -c '%a %u %g %Y %s' "$R/hi")" = "755 $U $G 1700000000 18" ] ||
    fail "hi: $(stat -c '%a %u %g %Y %s' "$R/hi")"
[ "$(stat -c '%a %Y' "$R/etc/hostname")" = "640 1700000000" ] || fail "hostname meta"
[ "$(stat -c '%a %s' "$R/etc/empty")" = "644 0" ] || fail "empty"
no_temps
grep -q '^RETR SPECIAL ./etc/hostname$' "$T/log" || fail "no RETR SPECIAL"
grep -q '^RETR FILE test.T ./etc/bin\\bary$' "$T/log" || fail "path not encoded"
grep -q '^REPO lapply Changes\\bapplied\\bsuccessfully$' "$T/log" || fail "no REPO"
tail -n 2 "$T/log" | head -n 1 | grep -q '^QUIT$' || fail "no QUIT"
q=$(sed -n 's/^maxqueue //p' "$T/log")
[ "$q" -gt 1 ] || fail "requests were not pipelined (maxqueue $q)"

# --- -% with downloads: sizes count, each line adds 1024
rm -rf "$R"/* && mkdir "$R/etc"
{
	echo "test.T:"
	fline './etc/f1' "$S/file/test.T/etc/f1" 0644
	fline './hi' "$S/file/test.T/hi" 0755
} > "$T/p.T"
serve_files "$S"
net_apply "$R" "$T/p.T" -%
expect_rc 0
# total 2*1024 + 7 + 18: 7, 1031, 1049, 2073 bytes done.
expect_out "%00 ./etc/f1
%49 ./etc/f1
%50 ./hi
%100 ./hi"

# --- faults: each leaves the old file intact and no temp file
printf 'old contents\n' > "$R/victimfile"
chmod 0600 "$R/victimfile"
OLD=$(stat -c '%i %a %Y %s' "$R/victimfile")
cp "$S/file/test.T/big" "$S/file/test.T/victimfile"
{
	echo "test.T:"
	fline './victimfile' "$S/file/test.T/victimfile" 0644
} > "$T/v.T"
for fault in bigger short refuse flip; do
	serve_files "$S" "$fault" ./victimfile
	net_apply "$R" "$T/v.T" -c sha1
	expect_rc 2
	[ "$(stat -c '%i %a %Y %s' "$R/victimfile")" = "$OLD" ] ||
	    fail "$fault: old file changed"
	[ "$(cat "$R/victimfile")" = "old contents" ] || fail "$fault: content"
	no_temps
	case $fault in
	bigger)
		grep -q '^line 2: size in transcript does not match size from server$' "$T/err" ||
		    fail "bigger: message"
		grep -q '^REPO lapply Error,\\bno\\bchanges\\bmade$' "$T/log" ||
		    fail "bigger: no error report" ;;
	flip)
		grep -q '^line 2: checksum in transcript does not match checksum from server$' "$T/err" ||
		    fail "flip: message"
		grep -q '^FILE test.T ./victimfile$' "$T/err" || fail "flip: desc" ;;
	esac
done

# --- a failure after changes exits 1
printf 'bye\n' > "$R/doomed"
{
	echo "test.T:"
	printf -- '- f ./doomed\t0644 0 0 0 4 -\n'
	fline './victimfile' "$S/file/test.T/victimfile" 0644
} > "$T/v.T"
serve_files "$S" refuse ./victimfile
net_apply "$R" "$T/v.T"
expect_rc 1
[ ! -e "$R/doomed" ] || fail "doomed kept"
grep -q '^REPO lapply Error,\\bchanges\\bmade$' "$T/log" || fail "no partial report"

# --- C2: a symbolic link at the destination is replaced, not followed
plant
ln -s "$OUT/victim" "$R/x"
cp "$S/file/test.T/hi" "$S/file/test.T/x"
{
	echo "test.T:"
	fline './x' "$S/file/test.T/x" 0644
} > "$T/c2.T"
serve_files "$S"
net_apply "$R" "$T/c2.T"
expect_rc 0
expect_out "./x: deleted
./x: created updating mode time"
[ -f "$R/x" ] && [ ! -L "$R/x" ] || fail "x not a regular file"
cmp -s "$R/x" "$S/file/test.T/x" || fail "x content"
check_sentinel C2
no_temps

# --- a directory replaced by a downloaded file, after its contents go
mkdir -p "$R/d2f/sub"
: > "$R/d2f/sub/a"
cp "$S/file/test.T/hi" "$S/file/test.T/d2f"
{
	echo "test.T:"
	fline './d2f' "$S/file/test.T/d2f" 0644
	printf -- '- d ./d2f/sub\t0755 0 0\n'
	printf -- '- f ./d2f/sub/a\t0644 0 0 0 0 -\n'
	fline './hi' "$S/file/test.T/hi" 0755
} > "$T/d.T"
serve_files "$S"
net_apply "$R" "$T/d.T"
expect_rc 0
expect_out "./d2f/sub/a: deleted
./d2f/sub: deleted
./d2f: deleted
./d2f: created updating mode time
./hi: created updating mode time"
cmp -s "$R/d2f" "$S/file/test.T/d2f" || fail "d2f content"

# --- C8 (root): set-id file owned by someone else lands intact
if [ "$(id -u)" = 0 ]; then
	cp "$S/file/test.T/hi" "$S/file/test.T/tool"
	{
		echo "test.T:"
		printf '+ f ./tool\t4755 1000 1000 1700000000 %s -\n' \
		    "$(stat -c %s "$S/file/test.T/tool")"
	} > "$T/s.T"
	serve_files "$S"
	net_apply "$R" "$T/s.T"
	expect_rc 0
	expect_out "./tool: created updating uid gid mode time"
	[ "$(stat -c '%a %u %g' "$R/tool")" = "4755 1000 1000" ] ||
	    fail "tool: $(stat -c '%a %u %g' "$R/tool")"
else
	not_run "C8 (needs root)"
fi
exit 0
