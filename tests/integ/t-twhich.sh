#!/bin/sh
# twhich: precedence order (special.T, last listed first), -a, minus
# lines, excludes, -r, absolute paths, includes and "- p" lines, -I,
# encoded names, and errors (bad transcript line, missing special.T,
# usage).
. "$top_srcdir/tests/integ/lib.sh"
set -u
need_tool twhich
mk_tmpdir
cd "$T" || fail "cd $T"

mkdir k
cat >k/command.K <<'EOF'
# base
p lo.T
n neg.T
p gone.T
k inc.K
s ./etc/hostname
x ./etc/ex*
- p gone.T
EOF
cat >k/inc.K <<'EOF'
p hi.T
EOF
cat >k/lo.T <<'EOF'
d . 0755 0 0
d ./etc 0755 0 0
f ./etc/a 0644 0 0 1 1 -
f ./etc/exclude-me 0644 0 0 1 1 -
f ./etc/hostname 0644 0 0 1 1 -
f ./etc/sp\bace 0644 0 0 1 1 -
l ./etc/to 0777 0 0 a
h ./etc/z ./etc/a
EOF
cat >k/neg.T <<'EOF'
d ./etc 0755 0 0
f ./etc/a 0644 0 0 2 2 -
- f ./etc/to 0777 0 0 2 2 -
EOF
cat >k/hi.T <<'EOF'
f ./etc/a 0600 5 6 3 3 -
EOF
printf 'f ./etc/gone 0644 0 0 1 1 -\n' >k/gone.T
printf 'f ./etc/hostname 0644 0 0 1700000000 9 er2RszQ32sErklenBNyCDxSvNn8=\n' >k/special.T

check_run hi 0 "$TWHICH" -K k/command.K ./etc/a
check_same hi hi.out <<'EOF'
# Positive
# k/inc.K:
hi.T:
+ f ./etc/a                              	0600     5     6         3       3 -
EOF

check_run all 0 "$TWHICH" -a -K k/command.K /etc/a/
check_same all all.out <<'EOF'
# Positive
# k/inc.K:
hi.T:
+ f /etc/a                               	0600     5     6         3       3 -
# Negative
# k/command.K:
neg.T:
+ f /etc/a                               	0644     0     0         2       2 -
# Positive
# k/command.K:
lo.T:
+ f /etc/a                               	0644     0     0         1       1 -
EOF

# a minus line is reported with "- " and its transcript named
check_run minus 0 "$TWHICH" -K k/command.K ./etc/to
check_same minus minus.out <<'EOF'
# Negative
# k/command.K:
neg.T:
- f ./etc/to                             	0777     0     0         2       2 -
EOF

# special.T first, then the rest with -a
check_run special 0 "$TWHICH" -a -K k/command.K ./etc/hostname
check_same special special.out <<'EOF'
# Special
# special:
special.T:
+ f ./etc/hostname                       	0644     0     0 1700000000       9 er2RszQ32sErklenBNyCDxSvNn8=
# Positive
# k/command.K:
lo.T:
+ f ./etc/hostname                       	0644     0     0         1       1 -
EOF

# excluded: two comment lines, exit 1; with -a the search goes on
check_run excl 1 "$TWHICH" -K k/command.K ./etc/exclude-me
check_same excl excl.out <<'EOF'
# Exclude
# exclude pattern: ./etc/ex*
EOF
check_run excla 0 "$TWHICH" -a -K k/command.K ./etc/exclude-me
check_same excla excla.out <<'EOF'
# Exclude
# exclude pattern: ./etc/ex*
# Positive
# k/command.K:
lo.T:
+ f ./etc/exclude-me                     	0644     0     0         1       1 -
EOF

# removed by "- p gone.T": not found
check_run gone 1 "$TWHICH" -K k/command.K ./etc/gone
[ -s gone.out ] && note_fail "gone: output for a removed transcript"

# -r: every leading component; the header is not repeated
check_run rec 0 "$TWHICH" -r -K k/command.K ./etc/sp\ ace
check_same rec rec.out <<'EOF'
# Positive
# k/command.K:
lo.T:
d .                                    	0755     0     0
# Negative
# k/command.K:
neg.T:
d ./etc                                	0755     0     0
# Positive
# k/command.K:
lo.T:
+ f ./etc/sp\bace                        	0644     0     0         1       1 -
EOF

# h targets follow the path style; l targets do not
check_run habs 0 "$TWHICH" -K k/command.K /etc/z
check_same habs habs.out <<'EOF'
# Positive
# k/command.K:
lo.T:
h /etc/z                               	/etc/a
EOF

# -I
check_run icase 0 "$TWHICH" -I -K k/command.K ./ETC/A
check_same icase icase.out <<'EOF'
# Positive
# k/inc.K:
hi.T:
+ f ./etc/a                              	0600     5     6         3       3 -
EOF
check_run noicase 1 "$TWHICH" -K k/command.K ./ETC/A

# errors: bad line in a transcript that is read, missing special.T,
# missing transcript, usage
printf 'f ./etc/a 0644 0 0 3 3 -\nf ./etc/b 0644 0\n' >k/hi.T
check_run badline 2 "$TWHICH" -K k/command.K ./etc/c
check_same badline-err badline.err <<'EOF'
k/hi.T: line 2: expected 8 arguments, got 4
EOF
printf 'f ./etc/b 0644 0 0 3 3 -\nf ./etc/a 0644 0 0 3 3 -\n' >k/hi.T
check_run unsorted 2 "$TWHICH" -K k/command.K ./etc/c
check_same unsorted-err unsorted.err <<'EOF'
k/hi.T: line 2: bad sort order
EOF
rm k/special.T
check_run nospecial 2 "$TWHICH" -K k/command.K ./etc/a
check_same nospecial-err nospecial.err <<'EOF'
k/special.T: No such file or directory
EOF
check_run nok 2 "$TWHICH" -K k/none.K ./etc/a
check_run usage 2 "$TWHICH" -K k/command.K
check_run susage 2 "$TWHICH" -s ./etc/a
check_same usage-err usage.err <<'EOF'
Usage: twhich [ -aIrV ] [ -K command file ] file
Usage: twhich -s -K command [ -aIrV ] file
EOF

end_test
