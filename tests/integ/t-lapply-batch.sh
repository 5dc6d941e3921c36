#!/bin/sh
# t-lapply-batch: downloads are made durable and renamed into place in
# batches; lines that depend on a pending download wait for it.  Pulled
# from cairnd: a hard link to a file downloaded just before, a removal
# after pending downloads, new directories and symbolic links between
# downloads, a directory replaced by a downloaded file, and more files
# than one batch holds.  The tree must be exact, with every hard link
# sharing its target's inode, no temp file left, and stdout in
# transcript order.  A rename failing in a batch leaves the later files
# out.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lapply
need_root
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
LAPPLY=$(tool_path lapply)
umask 022

R=$T/repo
make_repo "$R"
F=$R/file/test.T
mkdir -p "$F/d" "$F/many"
printf 'file a\n' >"$F/a"
printf 'file b\n' >"$F/b"
printf 'file e\n' >"$F/e"
printf 'file x\n' >"$F/d/x"
printf 'file z\n' >"$F/d/z"
printf 'replaces a directory\n' >"$F/g"
i=0
while [ "$i" -lt 300 ]; do
	printf 'many %d\n' "$i" >"$F/many/m$i"
	i=$((i + 1))
done

# fline PATH FILE: a "+ f" line for the served file FILE.
fline()
{
	printf '+ f %s 0640 0 0 1700000000 %s %s\n' "$1" \
	    "$(stat -c %s "$2")" "$(sha1b64 "$2")"
}

{
	echo 'test.T:'
	fline ./a "$F/a"
	fline ./b "$F/b"
	echo '- f ./c 0644 0 0 1700000000 6 -'
	echo 'd ./d 0750 0 0'
	fline ./d/x "$F/d/x"
	echo 'h ./d/y ./a'
	fline ./d/z "$F/d/z"
	echo 'h ./e ./d/z'
	echo 'l ./f 0777 0 0 d/x'
	fline ./g "$F/g"
	echo '- f ./g/old 0644 0 0 1700000000 4 -'
	echo 'd ./many 0755 0 0'
	i=0
	while [ "$i" -lt 300 ]; do
		echo "m$i"
		i=$((i + 1))
	done | LC_ALL=C sort | while read -r m; do
		fline "./many/$m" "$F/many/$m"
	done
	echo 'h ./many2 ./many/m99'
} >"$T/apply.T"

{
	echo './a: created updating mode time'
	echo './b: created updating mode time'
	echo './c: deleted'
	echo './d: created updating'
	echo './d/x: created updating mode time'
	echo './d/y: hard linked to ./a'
	echo './d/z: created updating mode time'
	echo './e: hard linked to ./d/z'
	echo './f: symbolic linked to d/x'
	echo './g/old: deleted'
	echo './g: deleted'
	echo './g: created updating mode time'
	echo './many: created updating'
	i=0
	while [ "$i" -lt 300 ]; do
		echo "m$i"
		i=$((i + 1))
	done | LC_ALL=C sort | while read -r m; do
		echo "./many/$m: created updating mode time"
	done
	echo './many2: hard linked to ./many/m99'
} >"$T/expected"

start_cairnd "$R" -Z 9
for z in 0 6; do
	rm -rf "$T/c"
	mkdir -p "$T/c/g"
	printf 'old c\n' >"$T/c/c"
	printf 'old\n' >"$T/c/g/old"
	run_capture "$T/out" "$T/err" sh -c 'cd "$1" && shift && exec "$@"' \
	    sh "$T/c" "$LAPPLY" -Z "$z" -c sha1 -h 127.0.0.1 -p "$PORT" \
	    "$T/apply.T"
	assert_eq 0 "$RC" "lapply -Z $z: $(cat "$T/err")"
	assert_file_eq "$T/expected" "$T/out" "stdout of lapply -Z $z"
	[ ! -s "$T/err" ] || fail "lapply -Z $z: stderr: $(cat "$T/err")"
	for p in a b d/x d/z g many/m0 many/m99 many/m299; do
		assert_file_eq "$F/$p" "$T/c/$p" "$p"
		assert_eq "640 0 0 1700000000" \
		    "$(stat -c '%a %u %g %Y' "$T/c/$p")" "metadata of $p"
	done
	assert_eq 300 "$(find "$T/c/many" -type f | wc -l)" "files in many"
	for l in "a d/y" "d/z e" "many/m99 many2"; do
		set -- $l
		assert_eq "$(stat -c %i "$T/c/$1")" "$(stat -c %i "$T/c/$2")" \
		    "$2 is a hard link to $1"
	done
	assert_eq d/x "$(readlink "$T/c/f")" "symbolic link f"
	assert_eq "750" "$(stat -c %a "$T/c/d")" "mode of d"
	[ ! -e "$T/c/c" ] || fail "c not removed"
	[ -f "$T/c/g" ] || fail "g is not a file"
	[ -z "$(find "$T/c" -name '*.radmind.*')" ] || fail "temp files left"
done

# A rename that fails in the batch (an append-only directory lets the
# temp file be created but not renamed over an entry): the files before
# it are in place, it and the later ones are not, exit status 1.
rm -rf "$T/c"
mkdir -p "$T/c/d"
printf 'old x\n' >"$T/c/d/x"
if command -v chattr >/dev/null 2>&1 && chattr +a "$T/c/d" 2>/dev/null; then
	at_exit "chattr -a '$T/c/d' 2>/dev/null"
	{
		echo 'test.T:'
		fline ./a "$F/a"
		fline ./d/x "$F/d/x"
		fline ./e "$F/e"
	} >"$T/fail.T"
	run_capture "$T/out" "$T/err" sh -c 'cd "$1" && shift && exec "$@"' \
	    sh "$T/c" "$LAPPLY" -c sha1 -h 127.0.0.1 -p "$PORT" "$T/fail.T"
	chattr -a "$T/c/d"
	assert_eq 1 "$RC" "lapply with a failing rename: $(cat "$T/err")"
	assert_eq './a: created updating mode time' "$(cat "$T/out")" \
	    "stdout with a failing rename"
	assert_eq 'line 3: ./d/x: Operation not permitted' \
	    "$(cat "$T/err")" "stderr with a failing rename"
	assert_file_eq "$F/a" "$T/c/a" "a before the failing rename"
	assert_eq 'old x' "$(cat "$T/c/d/x")" "d/x after its failed rename"
	[ ! -e "$T/c/e" ] || fail "e renamed after an earlier failure"
	[ -z "$(find "$T/c" -maxdepth 1 -name '*.radmind.*')" ] ||
	    fail "temp files left in the apply root"
else
	echo "t-lapply-batch: no append-only directories here: failure case skipped"
fi
stop_cairnd
exit 0
