#!/bin/sh
# bench/delta-measure and bench/make-update-corpus, offline.
# delta-measure: a file whose directory or name carries the version
# (lib/modules/6.1.0-50-amd64 -> 6.1.0-56-amd64, boot/vmlinuz-<v>) finds
# its basis by the version rule, an unchanged file is not counted as
# changed, a new file and one with two candidates have no basis; the
# counts and byte totals are those of the trees; usage errors exit 2.
# make-update-corpus, with apt-cache, apt-get and dpkg-deb's archive
# faked by scripts: two versions give OLD/ and NEW/ trees, one version
# is skipped and said so, a metapackage stands for the package it pins,
# and an archive that cannot be reached is named as such (exit 1).
. "$top_srcdir/tests/integ/lib.sh"
need_zstd

need_tool delta-measure
need_cmd dpkg-deb dpkg
mk_tmpdir

O=$T/OLD N=$T/NEW
mkdir -p "$O/lib/modules/6.1.0-50-amd64/kernel" \
    "$N/lib/modules/6.1.0-56-amd64/kernel" "$O/boot" "$N/boot" \
    "$O/usr/bin" "$N/usr/bin" "$O/usr/lib/x-1" "$O/usr/lib/x-2" \
    "$N/usr/lib/x-3"
# program-like contents: the tool itself, cut and changed
head -c 200000 "$DELTA_MEASURE" >"$O/lib/modules/6.1.0-50-amd64/kernel/a.ko"
{ cat "$O/lib/modules/6.1.0-50-amd64/kernel/a.ko"; echo changed; } \
    >"$N/lib/modules/6.1.0-56-amd64/kernel/a.ko"
tail -c 150000 "$DELTA_MEASURE" >"$O/boot/vmlinuz-6.1.0-50-amd64"
{ echo changed; cat "$O/boot/vmlinuz-6.1.0-50-amd64"; } \
    >"$N/boot/vmlinuz-6.1.0-56-amd64"
head -c 100000 "$DELTA_MEASURE" >"$O/usr/bin/tool"
cp "$O/usr/bin/tool" "$N/usr/bin/tool"
head -c 50000 "$DELTA_MEASURE" >"$O/usr/bin/edited"
{ head -c 25000 "$O/usr/bin/edited"; echo edit; tail -c 25000 \
    "$O/usr/bin/edited"; } >"$N/usr/bin/edited"
echo new >"$N/usr/bin/new"
# two candidates in OLD (x-1, x-2) for x-3: no basis
echo one >"$O/usr/lib/x-1/f"
echo two >"$O/usr/lib/x-2/f"
echo three >"$N/usr/lib/x-3/f"
ln -s tool "$N/usr/bin/link"

run_capture "$T/out" "$T/err" "$DELTA_MEASURE" -v -l 3 "$O" "$N"
[ "$RC" -eq 0 ] || { cat "$T/err" >&2; fail "delta-measure exited $RC"; }
field()
{
	sed -n "s/^ *$1  *\([0-9][0-9]*\).*/\1/p" "$T/out"
}
assert_eq 6 "$(field 'files in NEW')" "files in NEW"
assert_eq 1 "$(field unchanged)" "unchanged files"
assert_eq 3 "$(field 'changed, with a basis')" "changed files"
grep -q '(2 found by the version rule)' "$T/out" ||
    fail "the two versioned paths were not matched: $(cat "$T/out")"
assert_eq 2 "$(field 'new, no basis')" "files without a basis"
raw=$(( $(wc -c <"$N/lib/modules/6.1.0-56-amd64/kernel/a.ko") +
    $(wc -c <"$N/boot/vmlinuz-6.1.0-56-amd64") +
    $(wc -c <"$N/usr/bin/edited") ))
assert_eq "$raw" "$(field 'changed files, raw bytes')" "raw bytes"
# each delta is far smaller than the file deflated whole
z=$(field 'zlib level 6, whole files')
d=$(field deltas)
[ "$d" -gt 0 ] && [ $((d * 20)) -lt "$z" ] ||
    fail "deltas of $d bytes against $z at zlib-6"
for f in lib/modules/6.1.0-56-amd64/kernel/a.ko \
    boot/vmlinuz-6.1.0-56-amd64 usr/bin/edited; do
	grep -q "^  $f: " "$T/out" || fail "no line for $f"
done
grep -q 'for a basis and target of DELTA_MAXFILE' "$T/out" ||
    fail "no figure at DELTA_MAXFILE"

for bad in "-l 0 $O $N" "-l x $O $N" "-c nosuch $O $N" "$O" "-q $O $N"; do
	# shellcheck disable=SC2086
	run_capture "$T/o" "$T/e" "$DELTA_MEASURE" $bad
	assert_eq 2 "$RC" "delta-measure $bad"
	grep -q '^usage: delta-measure' "$T/e" ||
	    fail "delta-measure $bad: no usage line"
done
run_capture "$T/o" "$T/e" "$DELTA_MEASURE" -V
assert_eq 0 "$RC" "delta-measure -V"

# --- make-update-corpus with a fake archive -------------------------------
MUC=$top_srcdir/bench/make-update-corpus
F=$T/fake
mkdir -p "$F/bin" "$F/pkgs"
# mkdeb NAME VERSION [INSTALLED-SIZE [DEPENDS]]: a package in $F/pkgs
# with one file, usr/share/NAME/data, naming its version.
mkdeb()
{
	_d=$F/src/$1-$2
	mkdir -p "$_d/DEBIAN" "$_d/usr/share/$1"
	printf 'Package: %s\nVersion: %s\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: test\n' \
	    "$1" "$2" >"$_d/DEBIAN/control"
	[ -n "${4:-}" ] && echo "Depends: $4" >>"$_d/DEBIAN/control"
	if [ "${3:-100}" -ge 64 ]; then
		head -c 20000 "$DELTA_MEASURE" >"$_d/usr/share/$1/data"
		printf "\n%s %s\n" "$1" "$2" >>"$_d/usr/share/$1/data"
	fi
	dpkg-deb -b "$_d" "$F/pkgs/$1_$2_all.deb" >/dev/null ||
	    fail "dpkg-deb -b $1 $2"
	printf '%s %s %s %s\n' "$1" "$2" "${3:-100}" "${4:-}" >>"$F/index"
}
: >"$F/index"
mkdeb alpha 1.0-1
mkdeb alpha 1.0-2
mkdeb alpha 1.0-10
mkdeb beta 2.0
mkdeb kern-5 5.0 100
mkdeb kern-6 6.0 100
mkdeb kern-meta 5 10 "kern-5 (= 5.0)"
mkdeb kern-meta 6 10 "kern-6 (= 6.0)"
cat >"$F/bin/apt-cache" <<'EOF'
#!/bin/sh
# madison PKG | show PKG=VERSION, from $FAKE/index
case $1 in
madison)
	awk -v p="$2" '$1 == p { printf "%10s | %s | http://x bookworm/main all Packages\n", $1, $2 }' "$FAKE/index" ;;
show)
	awk -v pv="$2" '$1 "=" $2 == pv {
	    printf "Package: %s\nVersion: %s\nInstalled-Size: %s\n", $1, $2, $3
	    if (NF > 3) { $1 = $2 = $3 = ""; sub(/^ */, ""); print "Depends: " $0 }
	    print "" }' "$FAKE/index" ;;
esac
EOF
cat >"$F/bin/apt-get" <<'EOF'
#!/bin/sh
# download PKG=VERSION: copy it from $FAKE/pkgs, or fail as apt does
# when the archive cannot be reached ($FAKE/offline)
for a; do pv=$a; done
if [ -f "$FAKE/offline" ]; then
	echo "E: Failed to fetch http://deb.debian.org/x.deb  Could not resolve 'deb.debian.org'" >&2
	exit 100
fi
cp "$FAKE/pkgs/${pv%%=*}_${pv#*=}_all.deb" .
EOF
chmod +x "$F/bin/apt-cache" "$F/bin/apt-get"

C=$T/corpus
run_capture "$T/out" "$T/err" env FAKE="$F" PATH="$F/bin:$PATH" \
    sh "$MUC" -d "$C" alpha beta kern-meta
[ "$RC" -eq 0 ] || { cat "$T/out" "$T/err" >&2; fail "make-update-corpus exited $RC"; }
grep -qx 'alpha: alpha 1.0-2 -> alpha 1.0-10 (1 files)' "$T/out" ||
    fail "alpha: $(cat "$T/out")"
grep -qx 'beta: skipped (2.0 only)' "$T/out" || fail "beta: $(cat "$T/out")"
grep -qx 'kern-meta: kern-5 5.0 -> kern-6 6.0 (1 files)' "$T/out" ||
    fail "kern-meta: $(cat "$T/out")"
grep -q '^make-update-corpus: 2 packages in .*, 1 skipped$' "$T/out" ||
    fail "summary: $(cat "$T/out")"
grep -qx 'alpha 1.0-2' "$C/OLD/usr/share/alpha/data" || fail "OLD alpha"
grep -qx 'alpha 1.0-10' "$C/NEW/usr/share/alpha/data" || fail "NEW alpha"
[ -f "$C/OLD/usr/share/kern-5/data" ] && [ -f "$C/NEW/usr/share/kern-6/data" ] ||
    fail "kernel trees"
[ ! -e "$C/OLD/usr/share/beta" ] || fail "beta unpacked"
# the trees are what delta-measure takes
run_capture "$T/o" "$T/e" "$DELTA_MEASURE" -l 1 "$C/OLD" "$C/NEW"
[ "$RC" -eq 0 ] || { cat "$T/e" >&2; fail "delta-measure on the corpus"; }

# the cache is used: no download when offline, same trees
touch "$F/offline"
run_capture "$T/out" "$T/err" env FAKE="$F" PATH="$F/bin:$PATH" \
    sh "$MUC" -d "$C" alpha
assert_eq 0 "$RC" "make-update-corpus from its cache"
# offline with nothing cached: the archive is named unreachable
run_capture "$T/out" "$T/err" env FAKE="$F" PATH="$F/bin:$PATH" \
    sh "$MUC" -d "$T/corpus2" alpha
assert_eq 1 "$RC" "make-update-corpus offline"
grep -q 'the Debian archive is unreachable (apt-get download alpha=1.0-2 failed)' \
    "$T/err" || fail "offline: $(cat "$T/err")"
grep -q "Could not resolve" "$T/err" || fail "offline: apt's words not shown"
# no version at all: the package lists are named
run_capture "$T/out" "$T/err" env FAKE="$F" PATH="$F/bin:$PATH" \
    sh "$MUC" -d "$T/corpus2" nosuch
assert_eq 1 "$RC" "make-update-corpus, unknown package"
grep -q 'apt-cache knows no version of nosuch' "$T/err" ||
    fail "unknown: $(cat "$T/err")"
run_capture "$T/out" "$T/err" sh "$MUC" -t soon
assert_eq 2 "$RC" "make-update-corpus -t soon"
end_test
