#!/bin/sh
# t-man-lint: every manual page under man/ is clean under mandoc -Tlint
# -Wwarning, renders on its own with mandoc (no man -l, no man database),
# carries the sections cairn pages promise, and is listed in man/local.mk.
# Skips (77) when mandoc is not installed.

. "$top_srcdir/tests/integ/lib.sh"
need_cmd mandoc
mandir="$top_srcdir/man"
npages=0

for page in "$mandir"/*.[1-9]; do
	[ -f "$page" ] || continue
	npages=$((npages + 1))
	base=${page##*/}
	name=${base%.*}
	sect=${base##*.}

	# 1. Lint: any message at level warning or above is a failure.
	out=$(mandoc -Tlint -Wwarning "$page" 2>&1)
	rc=$?
	if [ -n "$out" ] || [ $rc -ne 0 ]; then
		note_fail "$base: mandoc -Tlint -Wwarning (exit $rc):"
		printf '%s\n' "$out" >&2
	fi

	# 2. The page renders stand-alone with mandoc; NAME names the page
	#    and the footer names cairn (.Os cairn).
	text=$(mandoc -Tascii "$page" 2>&1 | awk '{ gsub(/.\010/, ""); print }')
	if [ -z "$text" ]; then
		note_fail "$base: mandoc -Tascii produced no output"
		continue
	fi
	printf '%s\n' "$text" | grep -q "^ *$name - " ||
	    note_fail "$base: NAME section does not start with '$name - '"
	printf '%s\n' "$text" | grep -q '^cairn[[:space:]]' ||
	    note_fail "$base: footer does not name cairn (.Os cairn)"
	grep -q '^\.Os cairn$' "$page" || note_fail "$base: missing '.Os cairn'"

	# 3. Sections every page needs; tools and the daemon also need
	#    SYNOPSIS, EXIT STATUS and EXAMPLES, and a FILES section naming
	#    the default directory (except lsort, which reads no files of its
	#    own).
	for s in NAME DESCRIPTION "SEE ALSO"; do
		grep -q "^\.Sh $s\$" "$page" || note_fail "$base: no '$s' section"
	done
	case $sect in
	1|8)
		for s in SYNOPSIS "EXIT STATUS" EXAMPLES; do
			grep -q "^\.Sh $s\$" "$page" ||
			    note_fail "$base: no '$s' section"
		done
		if [ "$name" != lsort ]; then
			sed -n '/^\.Sh FILES$/,/^\.Sh /p' "$page" |
			    grep -q '/var/radmind' ||
			    note_fail "$base: no FILES section naming /var/radmind"
		fi
		;;
	esac

	# 4. Installed: listed in man/local.mk.
	grep -q "man/$base\\>" "$mandir/local.mk" ||
	    note_fail "$base: not listed in dist_man_MANS (man/local.mk)"
done

# Every page listed in man/local.mk exists.
for listed in $(sed -n 's|.*\(man/[^ ]*\.[1-9]\).*|\1|p' "$mandir/local.mk"); do
	[ -f "$top_srcdir/$listed" ] ||
	    note_fail "$listed: listed in man/local.mk but missing"
done

[ "$npages" -gt 0 ] || note_fail "no manual pages found in $mandir"
echo "$TEST_NAME: $npages pages checked"
end_test
