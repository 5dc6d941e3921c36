#!/bin/sh
# t-lapply-local: lapply -n on a real tree: directory creation, metadata
# repair of files and directories, removals deepest first, the apply
# root's own line, -q, -%, -C, -F, stdin input, exit statuses.
. "$top_srcdir/tests/integ/lib.sh"
need_tool lapply
mk_tmpdir
. "$top_srcdir/tests/integ/lapply-lib.sh"

# --- creation and metadata repair
mkdir "$R/dfix"
chmod 0700 "$R/dfix"
printf 'hello' > "$R/file"
chmod 0600 "$R/file"
touch -d @1600000000 "$R/file"
cat > "$T/a.T" <<EOF2
d .	0755 $U $G
d ./dfix	0751 $U $G
d ./dnew	0750 $U $G
d ./dnew/sub	0700 $U $G
f ./file	0640 $U $G 1600000123 5 -
EOF2
apply "$T/a.T"
expect_rc 0
expect_out "No network connection
.: updating
./dfix: updating mode
./dnew: created updating
./dnew/sub: created updating
./file: updating mode time"
[ "$(info "$R/dnew")" = "directory 750 $U $G" ] || fail "dnew: $(info "$R/dnew")"
[ "$(info "$R/dnew/sub")" = "directory 700 $U $G" ] || fail "dnew/sub"
[ "$(info "$R/dfix")" = "directory 751 $U $G" ] || fail "dfix"
[ "$(stat -c '%a %Y' "$R/file")" = "640 1600000123" ] || fail "file meta"
[ "$(cat "$R/file")" = hello ] || fail "file content"

# --- removals: deepest first, directories only once empty
mkdir -p "$R/r/x/y" "$R/r/z"
: > "$R/r/x/y/f1"
: > "$R/r/x/f2"
ln -s nowhere "$R/r/z/link"
cat > "$T/rm.T" <<EOF2
- d ./r	0755 $U $G
- d ./r/x	0755 $U $G
- f ./r/x/f2	0644 $U $G 0 0 -
- d ./r/x/y	0755 $U $G
- f ./r/x/y/f1	0644 $U $G 0 0 -
- d ./r/z	0755 $U $G
- l ./r/z/link	0777 $U $G nowhere
EOF2
apply "$T/rm.T"
expect_rc 0
expect_out "No network connection
./r/x/f2: deleted
./r/x/y/f1: deleted
./r/x/y: deleted
./r/x: deleted
./r/z/link: deleted
./r/z: deleted
./r: deleted"
[ ! -e "$R/r" ] || fail "r still there"

# --- removal of a missing object: error (exit 2), or warning with -F
cat > "$T/miss.T" <<EOF2
- f ./gone	0644 $U $G 0 0 -
EOF2
apply "$T/miss.T"
expect_rc 2
expect_err "lapply: $T/miss.T: line 1: ./gone: remove: No such file or directory"
apply "$T/miss.T" -F
expect_rc 0
expect_err "line 1: Warning: ./gone already removed...continuing"

# --- an error after a change exits 1, before any change 2
: > "$R/doomed"
cat > "$T/half.T" <<EOF2
- f ./doomed	0644 $U $G 0 0 -
f ./nofile	0644 $U $G 0 0 -
EOF2
apply "$T/half.T"
expect_rc 1
expect_out "No network connection
./doomed: deleted"
expect_err "lapply: $T/half.T: line 2: ./nofile: open: No such file or directory"

# --- -q prints nothing; stdin input works
cat > "$T/q.T" <<EOF2
d ./quiet	0755 $U $G
EOF2
run_capture "$T/out" "$T/err" in_dir "$R" "$LAPPLY" -n -q <"$T/q.T"
expect_rc 0
[ ! -s "$T/out" ] || fail "-q printed something"
[ -d "$R/quiet" ] || fail "stdin transcript not applied"

# --- -% progress: total = 1024 per line, "%NN path" when it grows
cat > "$T/p.T" <<EOF2
d ./p1	0755 $U $G
d ./p2	0755 $U $G
d ./p3	0755 $U $G
d ./p4	0755 $U $G
EOF2
apply "$T/p.T" -%
expect_rc 0
expect_out "No network connection
%25 ./p1
%50 ./p2
%75 ./p3
%100 ./p4"
# Sizes that add up past 2^63 - 1 (lines that -n skips still weigh):
# the total stops there, and -% still counts.
cat > "$T/p.T" <<EOF2
t.T:
+ f ./big1	0644 $U $G 0 9223372036854775807 -
+ f ./big2	0644 $U $G 0 9223372036854775807 -
d ./p5	0755 $U $G
EOF2
apply "$T/p.T" -%
expect_rc 0
expect_out "No network connection
%00 ./p5"

# --- -C creates missing intermediate directories like their parent
mkdir "$R/base"
chmod 0711 "$R/base"
cat > "$T/c.T" <<EOF2
d ./base/m1/m2/leaf	0700 $U $G
EOF2
apply "$T/c.T"
expect_rc 2
expect_err "lapply: $T/c.T: line 1: ./base/m1/m2/leaf: parent directory: No such file or directory"
[ ! -e "$R/base/m1" ] || fail "prefix created without -C"
apply "$T/c.T" -C
expect_rc 0
expect_out "No network connection
./base/m1: created missing prefix
./base/m1/m2: created missing prefix
./base/m1/m2/leaf: created updating"
[ "$(info "$R/base/m1")" = "directory 711 $U $G" ] || fail "prefix mode"
[ "$(info "$R/base/m1/m2/leaf")" = "directory 700 $U $G" ] || fail "leaf"

# --- usage errors
apply "$T/q.T" -q -v
expect_rc 2
grep -q '^usage: lapply' "$T/err" || fail "no usage message"
# bad_opt RC LINE OPTION...: lapply -n OPTION... exits RC and the first
# line of its stderr is LINE (a usage error adds the synopsis after it).
bad_opt()
{
	_rc=$1 _line=$2
	shift 2
	apply "$T/q.T" "$@"
	expect_rc "$_rc"
	[ "$(head -n 1 "$T/err")" = "$_line" ] ||
	    fail "$*: $(head -n 1 "$T/err")"
}
bad_opt 2 "7: invalid authorization level" -w 7
bad_opt 2 "10: invalid compression level ($(zforms))" -Z 10
bad_opt 2 "two words: event must be one word" -e "two words"
bad_opt 2 "0999: invalid umask" -u 0999
apply "$T/q.T" -c nosuchdigest
expect_rc 2
expect_err "nosuchdigest: unsupported checksum"
apply "$T/does-not-exist.T"
expect_rc 2
exit 0
