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
. "$top_srcdir/tests/integ/lapply-lib.sh"

REPO=$T/repo
make_repo "$REPO"
F=$REPO/file/test.T
mkdir -p "$F/d" "$F/many"
printf 'file a\n' >"$F/a"
printf 'file b\n' >"$F/b"
printf 'file e\n' >"$F/e"
printf 'file x\n' >"$F/d/x"
printf 'file z\n' >"$F/d/z"
printf 'replaces a directory\n' >"$F/g"
i=0
while [ "$i" -lt 300 ]; do
	echo "m$i"
	i=$((i + 1))
done | LC_ALL=C sort >"$T/many"
while read -r m; do
	printf 'many %s\n' "${m#m}" >"$F/many/$m"
done <"$T/many"

{
	echo 'test.T:'
	fline ./a "$F/a" 0640 0 0
	fline ./b "$F/b" 0640 0 0
	echo '- f ./c 0644 0 0 1700000000 6 -'
	echo 'd ./d 0750 0 0'
	fline ./d/x "$F/d/x" 0640 0 0
	echo 'h ./d/y ./a'
	fline ./d/z "$F/d/z" 0640 0 0
	echo 'h ./e ./d/z'
	echo 'l ./f 0777 0 0 d/x'
	fline ./g "$F/g" 0640 0 0
	echo '- f ./g/old 0644 0 0 1700000000 4 -'
	echo 'd ./many 0755 0 0'
	# shellcheck disable=SC2046
	flines "$F/many" ./many 0640 0 0 $(cat "$T/many")
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
	sed 's|^\(.*\)$|./many/\1: created updating mode time|' "$T/many"
	echo './many2: hard linked to ./many/m99'
} >"$T/expected"

start_cairnd "$REPO" -Z 9
for z in 0 6; do
	rm -rf "$R"
	mkdir -p "$R/g"
	printf 'old c\n' >"$R/c"
	printf 'old\n' >"$R/g/old"
	run_capture "$T/out" "$T/err" in_dir "$R" "$LAPPLY" -Z "$z" -c sha1 \
	    -h 127.0.0.1 -p "$PORT" "$T/apply.T"
	assert_eq 0 "$RC" "lapply -Z $z: $(cat "$T/err")"
	assert_file_eq "$T/expected" "$T/out" "stdout of lapply -Z $z"
	[ ! -s "$T/err" ] || fail "lapply -Z $z: stderr: $(cat "$T/err")"
	for p in a b d/x d/z g many/m0 many/m99 many/m299; do
		assert_file_eq "$F/$p" "$R/$p" "$p"
		assert_eq "640 0 0 1700000000" \
		    "$(stat -c '%a %u %g %Y' "$R/$p")" "metadata of $p"
	done
	assert_eq 300 "$(find "$R/many" -type f | wc -l)" "files in many"
	for l in "a d/y" "d/z e" "many/m99 many2"; do
		set -- $l
		assert_eq "$(stat -c %i "$R/$1")" "$(stat -c %i "$R/$2")" \
		    "$2 is a hard link to $1"
	done
	assert_eq d/x "$(readlink "$R/f")" "symbolic link f"
	assert_eq "750" "$(stat -c %a "$R/d")" "mode of d"
	[ ! -e "$R/c" ] || fail "c not removed"
	[ -f "$R/g" ] || fail "g is not a file"
	assert_no_files "temp files left" "$R" -name '*.radmind.*'
done

# A rename that fails in the batch (an append-only directory lets the
# temp file be created but not renamed over an entry): the files before
# it are in place, it and the later ones are not, exit status 1.
rm -rf "$R"
mkdir -p "$R/d"
printf 'old x\n' >"$R/d/x"
if command -v chattr >/dev/null 2>&1 && chattr +a "$R/d" 2>/dev/null; then
	at_exit "chattr -a '$R/d' 2>/dev/null"
	{
		echo 'test.T:'
		fline ./a "$F/a" 0640 0 0
		fline ./d/x "$F/d/x" 0640 0 0
		fline ./e "$F/e" 0640 0 0
	} >"$T/fail.T"
	run_capture "$T/out" "$T/err" in_dir "$R" "$LAPPLY" -c sha1 \
	    -h 127.0.0.1 -p "$PORT" "$T/fail.T"
	chattr -a "$R/d"
	assert_eq 1 "$RC" "lapply with a failing rename: $(cat "$T/err")"
	assert_eq './a: created updating mode time' "$(cat "$T/out")" \
	    "stdout with a failing rename"
	assert_eq "lapply: $T/fail.T: line 3: ./d/x: rename: Operation not permitted" \
	    "$(cat "$T/err")" "stderr with a failing rename"
	assert_file_eq "$F/a" "$R/a" "a before the failing rename"
	assert_eq 'old x' "$(cat "$R/d/x")" "d/x after its failed rename"
	[ ! -e "$R/e" ] || fail "e renamed after an earlier failure"
	assert_no_files "temp files left in the apply root" "$R" -maxdepth 1 \
	    -name '*.radmind.*'
else
	not_run "the failure case (no append-only directories here)"
fi
stop_cairnd
exit 0
