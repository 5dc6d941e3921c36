#!/bin/sh
# Usage errors: every tool exits 2 (Radmind's convention for errors; for
# ktcheck and lcksum 1 means "something changed", so a usage error must
# not look like it) and says on stderr which value or option is wrong.
# One row per case: the tool, a string its stderr must contain, then the
# arguments (split on blanks; no argument here holds one).
# Then the options several tools share (one table, net/copts.c) are
# refused alike, word for word, by every tool that takes them, and -I is
# taken by every tool that has it.
# Then every tool's usage line and the SYNOPSIS of its manual page name
# the same options, each with an argument in both or in neither.
. "$top_srcdir/tests/integ/lib.sh"
need_tool ktcheck lapply lcreate lfdiff repo fsdiff lcksum lmerge lsort \
    twhich cairnd cairn-bench cairn-ra cairn-publish cairn-replicate
need_cmd python3
mk_tmpdir
MKCA="$top_srcdir/contrib/cairn-mkca"

cat >"$T/table" <<'EOF'
ktcheck		x:.invalid.compression.level		-Z x
ktcheck		10:.invalid.compression.level		-Z 10
ktcheck		notaport:.invalid.port			-p notaport
ktcheck		70000:.invalid.port			-p 70000
ktcheck		9:.invalid.authorization.level		-w 9
ktcheck		nosuch:.unsupported.checksum		-c nosuch
ktcheck		invalid.option.--.'@'			-@
ktcheck		option.requires.an.argument.--.'Z'	-Z
lapply		x:.invalid.compression.level		-Z x
lapply		notaport:.invalid.port			-p notaport
lapply		9:.invalid.authorization.level		-w 9
lapply		nosuch:.unsupported.checksum		-c nosuch x.T
lapply		0999:.invalid.umask			-u 0999
lapply		invalid.option.--.'@'			-@
lapply		option.requires.an.argument.--.'p'	-p
lcreate		x:.invalid.compression.level		-Z x x.T
lcreate		0:.invalid.port				-p 0 x.T
lcreate		9:.invalid.authorization.level		-w 9 x.T
lcreate		nosuch:.unsupported.checksum		-c nosuch x.T
lcreate		invalid.option.--.'@'			-@ x.T
lfdiff		x:.invalid.compression.level		-Z x f
lfdiff		notaport:.invalid.port			-p notaport f
lfdiff		9:.invalid.authorization.level		-w 9 f
lfdiff		invalid.option.--.'@'			-@ f
repo		12:.invalid.compression.level		-e x -Z 12 hi
repo		notaport:.invalid.port			-e x -p notaport hi
repo		9:.invalid.authorization.level		-e x -w 9 hi
repo		words:.event.must.be.one.word		-e two\040words hi
repo		invalid.option.--.'@'			-e x -@ hi
fsdiff		nosuch:.unsupported.checksum		-C -c nosuch .
fsdiff		invalid.option.--.'Z'			-C -Z 1 .
fsdiff		option.requires.an.argument.--.'K'	-C -K
lcksum		nosuch:.unsupported.checksum		-c nosuch x.T
lcksum		invalid.option.--.'p'			-p 1 -c sha1 x.T
lcksum		option.requires.an.argument.--.'D'	-c sha1 -D
lmerge		999:.invalid.umask			-u 999 a.T b.T c
lmerge		invalid.option.--.'@'			-@ a.T b
lsort		invalid.option.--.'x'			-x in.T
lsort		option.requires.an.argument.--.'o'	-o
twhich		invalid.option.--.'@'			-@ x
twhich		option.requires.an.argument.--.'K'	-K
cairnd		compression.level.x			-Z x
cairnd		compression.level.10			-Z 10
cairnd		notaport:.unknown.service		-p notaport
cairnd		port.70000				-p 70000
cairnd		authorization.level.9			-w 9
cairnd		-A.bogus				-A bogus
cairnd		invalid.option.--.'@'			-@
cairnd		option.requires.an.argument.--.'Z'	-Z
cairn-bench	--levels.12				-l 12
cairn-bench	--reps.x				-n x
cairn-bench	unrecognized.option.'--bogus'		--bogus
cairn-bench	option.requires.an.argument.--.'s'	-s
cairn-ra	-p.notaport:.not.a.port.number		-p notaport update
cairn-ra	-w.9:.level.must.be			-w 9 update
cairn-ra	-Z.10:.level.must.be			-Z 10 update
cairn-ra	bogus:.unknown.verb			bogus
cairn-publish	nosuch:.unsupported.checksum		-c nosuch x.T
cairn-publish	invalid.option.--.'Q'			-Q x.T
cairn-publish	option.requires.an.argument.--.'k'	x.T -k
cairn-mkca	invalid.option.--.'Q'			-Q ca
cairn-mkca	option.requires.an.argument.--.'d'	-d
cairn-mkca	x:.not.a.number.of.days			-d x ca
cairn-mkca	bogus:.unknown.command			bogus
EOF

n=0
while read -r tool want args; do
	n=$((n + 1))
	# The table's \040 stands for a blank inside one argument.
	set -f
	# shellcheck disable=SC2086
	set -- $args
	set +f
	i=0
	for a in "$@"; do
		i=$((i + 1))
		a=$(printf '%s' "$a" | sed 's/\\040/ /g')
		[ "$i" -eq 1 ] && set --
		set -- "$@" "$a"
	done
	if [ "$tool" = cairn-mkca ]; then
		run_capture "$T/out" "$T/err" sh "$MKCA" -o "$T/ca" "$@" \
		    </dev/null
	else
		run_capture "$T/out" "$T/err" "$(tool_path "$tool")" "$@" \
		    </dev/null
	fi
	[ "$RC" = 2 ] || note_fail "$tool $args: exit $RC, want 2"
	# The table's dots stand for blanks in what stderr must say.
	w=$(printf '%s' "$want" | tr . ' ')
	grep -qF -- "$w" "$T/err" ||
	    note_fail "$tool $args: stderr lacks \"$w\": $(head -n 2 "$T/err")"
done <"$T/table"
[ "$n" -ge 50 ] || fail "table read short: $n rows"
[ -e "$T/ca" ] && fail "cairn-mkca made its directory on a usage error"

# shared TOOL WANT ARGS...: TOOL ARGS... exits 2, prints nothing on
# stdout, and the first line of its stderr is WANT (after "TOOL: ", which
# cairn's own tools put first); with USAGE=1 TOOL's usage message follows
# it, with USAGE=0 nothing does.
shared()
{
	_tool=$1 _want=$2
	shift 2
	run_capture "$T/out" "$T/err" timeout 30 "$(tool_path "$_tool")" "$@" \
	    </dev/null
	_what="$_tool $*"
	[ "$RC" = 2 ] || note_fail "$_what: exit $RC, want 2"
	[ -s "$T/out" ] && note_fail "$_what: stdout: $(head -n 2 "$T/out")"
	_first=$(sed -n 1p "$T/err")
	[ "${_first#"$_tool: "}" = "$_want" ] ||
	    note_fail "$_what: stderr \"$_first\", want \"$_want\""
	_n=$(wc -l <"$T/err")
	if [ "$USAGE" = 1 ]; then
		sed -n 2p "$T/err" | grep -qi "^usage: $_tool " ||
		    note_fail "$_what: want the usage after: $(cat "$T/err")"
	else
		[ "$_n" -eq 1 ] ||
		    note_fail "$_what: want one line: $(cat "$T/err")"
	fi
}

# safe TOOL: arguments that keep TOOL from doing anything slow or lasting
# should it accept an option it ought to refuse (no server listens on
# that port; the paths are the test's own).
DEAD="-h 127.0.0.1 -p $(free_port)"
safe()
{
	case $1 in
	ktcheck)	echo "$DEAD -n -K $T/k/command.K" ;;
	cairn-replicate) echo "$DEAD -n -D $T/rep" ;;
	repo)		echo "$DEAD hi" ;;
	lapply)		echo "-n" ;;
	lcreate)	echo "-n x.T" ;;
	lcksum)		echo "-n x.T" ;;
	fsdiff)		echo "-C -K $T/none.K $T/none" ;;
	cairn-publish)	echo "-D $T/rep -n x.T" ;;
	esac
}

# -c: a digest no one supports ends the tool at once, whatever else the
# line holds, alone on stderr (Radmind's words).
USAGE=0
# shellcheck disable=SC2046
for tool in ktcheck lapply lcreate lcksum fsdiff cairn-publish \
    cairn-replicate; do
	shared "$tool" "md4x: unsupported checksum" $(safe "$tool") -c md4x
done
for tool in lapply lcreate lcksum fsdiff cairn-publish; do
	shared "$tool" "md4x: unsupported checksum" -c md4x
done
shared fsdiff "md4x: unsupported checksum" -C -A -c md4x .
shared cairn-publish "md4x: unsupported checksum" -c md4x a.T b.T
# -u: a number from 0 to 0777 (read as C reads it; lfdiff's is octal) and
# nothing else, not even an empty one.  cairnd has no usage line for it;
# -V after it would make a cairnd that accepted it stop.
for u in 999 '' 0x 1000 -1 022x 18446744073709551616; do
	USAGE=1
	shared lapply "$u: invalid umask" -n -u "$u"
	shared lfdiff "$u: invalid umask" -u "$u" f
	shared lmerge "$u: invalid umask" -u "$u" a.T b.T c
	USAGE=0
	shared cairnd "$u: invalid umask" -u "$u" -V
done
# -e: an event is one word.
USAGE=1
# shellcheck disable=SC2046
for tool in ktcheck lapply repo; do
	for e in 'two words' '' 'tab	in'; do
		shared "$tool" "$e: event must be one word" $(safe "$tool") \
		    -e "$e"
	done
done
# -q with -v: no message, only the usage line.
# shellcheck disable=SC2046
for tool in ktcheck lapply lcreate cairn-replicate; do
	run_capture "$T/out" "$T/err" timeout 30 "$(tool_path "$tool")" \
	    $(safe "$tool") -q -v </dev/null
	[ "$RC" = 2 ] || note_fail "$tool -q -v: exit $RC, want 2"
	{ [ "$(wc -l <"$T/err")" -eq 1 ] &&
	    grep -q "^usage: $tool " "$T/err"; } ||
	    note_fail "$tool -q -v: want the usage line alone: $(cat "$T/err")"
done
# -I (names compared regardless of case) is one shared row too: every
# tool whose manual page has it takes it, so the only complaint about a
# line that also holds -@ is the -@.
for tool in fsdiff ktcheck lapply lcksum lfdiff lmerge lsort twhich; do
	run_capture "$T/out" "$T/err" timeout 30 "$(tool_path "$tool")" \
	    -I -@ </dev/null
	[ "$RC" = 2 ] || note_fail "$tool -I -@: exit $RC, want 2"
	grep -qF -- "invalid option -- '@'" "$T/err" ||
	    note_fail "$tool -I -@: no word on -@: $(cat "$T/err")"
	grep -qF -- "-- 'I'" "$T/err" &&
	    note_fail "$tool -I: refused: $(head -n 1 "$T/err")"
done
[ -e "$T/k" ] || [ -e "$T/rep" ] && fail "a refused tool left files"

# The usage line against the manual page: the options each names, the
# union over a tool's forms.  An option missing from either, or taking
# an argument in one only, is reported.
cat >"$T/synopsis.py" <<'EOF'
import re, sys

def usage_opts(text):
    """The options a usage message names: {'-x': takes an argument}.
    Its lines start with "usage:" (a tool with several forms has one a
    form); a line starting with a blank continues the one before."""
    lines, on = [], False
    for l in text.splitlines():
        if re.match(r'(?i)usage:', l):
            on = True
            l = re.sub(r'(?i)^usage:\s*\S+', '', l)
        elif not (on and re.match(r'\s', l)):
            on = False
        if on:
            lines.append(l)
    toks = re.sub(r'([\[\]{}|])', r' \1 ', ' '.join(lines)).split()
    opts = {}
    for i, t in enumerate(toks):
        if not re.match(r'-[-A-Za-z0-9%]', t):
            continue
        # "-c checksum": a word after the option is its argument.
        nxt = toks[i + 1] if i + 1 < len(toks) else ']'
        arg = not re.match(r'[-\[\]{}|]', nxt)
        if t.startswith('--') or len(t) == 2:
            opts[t] = opts.get(t, False) or arg
        else:                           # -abc: flags
            for c in t[1:]:
                opts.setdefault('-' + c, False)
    return opts

def man_opts(path):
    """The options the SYNOPSIS of an mdoc page names, the same way:
    "Fl c Ar digest" takes an argument (so does "Fl A Cm auto | fixed"),
    "Fl kq" are flags, and so are the words after | in "Fl q | v"."""
    on, opts = False, {}
    for l in open(path, encoding='utf-8'):
        if l.startswith('.Sh '):
            on = l.split()[1] == 'SYNOPSIS'
            continue
        if not on or not l.startswith('.'):
            continue
        toks = l[1:].split()
        i, alt = 0, False
        while i < len(toks):
            t = toks[i]
            if t == 'Fl' and i + 1 < len(toks):
                o = toks[i + 1]
                arg = i + 2 < len(toks) and toks[i + 2] in ('Ar', 'Cm')
                if o.startswith('-') or len(o) == 1:
                    opts['-' + o] = opts.get('-' + o, False) or arg
                else:
                    for c in o:
                        opts.setdefault('-' + c, False)
                alt = not arg
                i += 2
                continue
            if t in ('Ar', 'Cm'):
                alt = False
            elif (t == '|' and alt and i + 1 < len(toks) and
                  re.match(r'[A-Za-z0-9%]$', toks[i + 1])):
                opts.setdefault('-' + toks[i + 1], False)
                i += 2
                continue
            i += 1
    return opts

def show(o, arg):
    return o + (' (with an argument)' if arg else '')

tool, usage_file, man = sys.argv[1:4]
u = usage_opts(open(usage_file, encoding='utf-8').read())
m = man_opts(man)
if not u or not m:
    sys.exit('%s: no options found in the %s' %
             (tool, 'usage line' if not u else 'synopsis'))
bad = 0
for k in sorted(set(u) | set(m)):
    if k not in m:
        print('%s: %s in the usage line, not in the synopsis' %
              (tool, show(k, u[k])))
    elif k not in u:
        print('%s: %s in the synopsis, not in the usage line' %
              (tool, show(k, m[k])))
    elif u[k] != m[k]:
        print('%s: %s takes an argument in the %s only' %
              (tool, k, 'usage line' if u[k] else 'synopsis'))
    else:
        continue
    bad = 1
sys.exit(bad)
EOF
n=0
for tool in ktcheck fsdiff lapply lcreate lcksum lmerge lsort twhich lfdiff \
    repo cairnd cairn-ra cairn-publish cairn-replicate cairn-bench cairn-mkca; do
	n=$((n + 1))
	man=$(ls "$top_srcdir/man/$tool".[18] 2>/dev/null) ||
	    { note_fail "$tool: no manual page"; continue; }
	if [ "$tool" = cairn-mkca ]; then
		run_capture "$T/out" "$T/err" sh "$MKCA" -o "$T/ca" -@ </dev/null
	else
		run_capture "$T/out" "$T/err" "$(tool_path "$tool")" -@ </dev/null
	fi
	[ "$RC" = 2 ] || note_fail "$tool -@: exit $RC, want 2"
	python3 "$T/synopsis.py" "$tool" "$T/err" "$man" >"$T/syn" 2>&1 ||
	    note_fail "$(cat "$T/syn")"
done
[ "$n" -eq 16 ] || fail "synopsis loop ran $n times"
end_test
