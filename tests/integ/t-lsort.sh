#!/bin/sh
# lsort: path order (pathcmp, -I), verbatim lines, prefixes, lines not
# otherwise checked, several inputs and stdin, -o in place, and the error
# paths (short line with its line number, bad encoding, a line over the
# transcript line limit, missing input, usage).
. "$top_srcdir/tests/integ/lib.sh"
set -u
need_tool lsort
mk_tmpdir
cd "$T" || fail "cd $T"

# pathcmp order, prefixes, comments/blank lines dropped, encoded names
# (space, tab, backslash), a line without the final LF.
printf '%s\n' \
    'f ./etc.old 0644 0 0 1 1 -' \
    '# a comment' \
    '' \
    '- f ./etc-x 0644 0 0 1 1 -' \
    'f ./etc/passwd                         	0644     0     0 1 1 -' \
    '+ f ./a\bb 0644 0 0 1 1 -' \
    'f ./a\tb 0644 0 0 1 1 -' \
    'f ./a\\b 0644 0 0 1 1 -' \
    '   ' \
    'd ./etc 0755 0 0' \
    'd ./Library 0755 0 0' >in1.T
printf 'd . 0755 0 0' >>in1.T
check_run order 0 "$LSORT" in1.T
check_same order order.out <<'EOF'
d . 0755 0 0
d ./Library 0755 0 0
f ./a\tb 0644 0 0 1 1 -
+ f ./a\bb 0644 0 0 1 1 -
f ./a\\b 0644 0 0 1 1 -
d ./etc 0755 0 0
f ./etc/passwd                         	0644     0     0 1 1 -
- f ./etc-x 0644 0 0 1 1 -
f ./etc.old 0644 0 0 1 1 -
EOF
[ -s order.err ] && note_fail "order: unexpected stderr"

# -I: case folded; names equal up to case come out in reverse input order
printf '%s\n' 'f ./b 0644 0 0 1 1 -' 'f ./B/c 0644 0 0 1 1 -' \
    'd ./a 0755 0 0' 'd ./B 0755 0 0' 'f ./A 0644 0 0 1 1 -' >ci.T
check_run icase 0 "$LSORT" -I ci.T
check_same icase icase.out <<'EOF'
f ./A 0644 0 0 1 1 -
d ./a 0755 0 0
d ./B 0755 0 0
f ./b 0644 0 0 1 1 -
f ./B/c 0644 0 0 1 1 -
EOF
check_run case 0 "$LSORT" ci.T
check_same case case.out <<'EOF'
f ./A 0644 0 0 1 1 -
d ./B 0755 0 0
f ./B/c 0644 0 0 1 1 -
d ./a 0755 0 0
f ./b 0644 0 0 1 1 -
EOF

# only a type token and a path are needed: hand-edited lines that other
# readers reject are sorted all the same
printf '%s\n' 'f ./b 0x44 root 0 1' 'file ./a//c' '- x ./a' >loose.T
check_run loose 0 "$LSORT" loose.T
check_same loose loose.out <<'EOF'
- x ./a
file ./a//c
f ./b 0x44 root 0 1
EOF

# several inputs, "-" is stdin, merged into one order
printf 'f ./z 0644 0 0 1 1 -\n' >z.T
printf 'f ./m 0644 0 0 1 1 -\n' | "$LSORT" z.T - ci.T >multi.out 2>multi.err
[ $? = 0 ] || note_fail "multi: exit status"
check_same multi multi.out <<'EOF'
f ./A 0644 0 0 1 1 -
d ./B 0755 0 0
f ./B/c 0644 0 0 1 1 -
d ./a 0755 0 0
f ./b 0644 0 0 1 1 -
f ./m 0644 0 0 1 1 -
f ./z 0644 0 0 1 1 -
EOF

# -o onto the input itself sorts in place
cp ci.T inplace.T
check_run inplace 0 "$LSORT" -o inplace.T inplace.T
check_same inplace inplace.T <case.out
[ -s inplace.out ] && note_fail "inplace: output on stdout"

# errors: one-token line (applicable header) names file and line
printf '%s\n' 'f ./b 0644 0 0 1 1 -' '# c' 'base.T:' 'f ./a 0644 0 0 1 1 -' >short.T
check_run short 1 "$LSORT" short.T
check_same short-err short.err <<'EOF'
short.T: line 3: not enough fields
EOF
[ -s short.out ] && note_fail "short: output despite error"
printf 'f ./b 0644 0 0 1 1 -\n-\n' | "$LSORT" >stdin.out 2>stdin.err
[ $? = 1 ] || note_fail "stdin short: exit status"
check_same stdin-err stdin.err <<'EOF'
(stdin): line 2: not enough fields
EOF
printf 'f ./ok 0644 0 0 1 1 -\nf ./bad\\q 0644 0 0 1 1 -\n' >enc.T
check_run enc 1 "$LSORT" enc.T
check_same enc-err enc.err <<'EOF'
enc.T: line 2: bad path encoding
EOF
# the limit every transcript reader has: 16896 bytes with the LF
python3 -c 'import sys; sys.stdout.write("f ./x " + "y" * 16890 + "\n")' >long.T
check_run long 1 "$LSORT" long.T
check_same long-err long.err <<'EOF'
long.T: line 1: line too long
EOF
python3 -c 'import sys; sys.stdout.write("f ./x " + "y" * 16889 + "\n")' >max.T
check_run max 0 "$LSORT" max.T
cmp -s max.T max.out || note_fail "max: longest line not written back"
# -o: the new file is made durable (fsync) before it is renamed over the
# old one, and the rename itself (fsync of the directory) before exit
need_shim
Tr=$(pwd -P)
printf 'f ./b 0644 0 0 1 1 -\nf ./a 0644 0 0 1 1 -\n' >dur.T
check_run dur 0 env LD_PRELOAD="$SHIM" CAIRN_SHIM_TRACE="$Tr/dur.trace" \
    "$LSORT" -o dur.T dur.T
renamed_synced dur.trace "$Tr/dur.T" "$Tr" ||
    note_fail "dur: rename not made durable: $(cat dur.trace)"

check_run missing 2 "$LSORT" nope.T
check_same missing-err missing.err <<'EOF'
nope.T: No such file or directory
EOF
check_run usage 2 "$LSORT" -x in1.T
tail -n 1 usage.err >usage.last
check_same usage-err usage.last <<'EOF'
Usage: lsort [ -IV ] [ -o file ] [ files... ]
EOF
check_run version 0 "$LSORT" -V
grep -q '^[0-9]' version.out || note_fail "version: no version printed"

end_test
