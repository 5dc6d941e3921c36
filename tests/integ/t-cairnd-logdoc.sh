#!/bin/sh
# Every message cairnd logs is documented: for each peer_log, peer_logerr
# and log_* call in server/*.c, the leading fixed words of its format
# (the text before the first conversion, or the first text after it when
# the format starts with one) appear in the DIAGNOSTICS section of
# cairnd(8).  A message added without its entry fails here.  Formats that
# are only conversions ("%s": an error described elsewhere) are covered
# by the section's general words.
. "$top_srcdir/tests/integ/lib.sh"
need_cmd mandoc
mk_tmpdir

mandoc -T ascii "$top_srcdir/man/cairnd.8" | col -b >"$T/cairnd.txt" ||
    fail "mandoc cairnd.8"
sed -n '/^DIAGNOSTICS/,/^[A-Z][A-Z ]*$/p' "$T/cairnd.txt" | sed '$d' \
    >"$T/diag.txt"
[ -s "$T/diag.txt" ] || fail "cairnd.8 has no DIAGNOSTICS section"

# server/publish.c and specset.c are cairn-publish's, server/sign.c
# cairn-sign's: separate programs with pages of their own.
set --
for f in "$top_srcdir"/server/*.c; do
	case $f in
	*/publish.c | */specset.c | */sign.c)	;;
	*)		set -- "$@" "$f" ;;
	esac
done
python3 - "$T/diag.txt" "$@" <<'PY' || fail "undocumented log messages"
import re, sys

doc = " ".join(open(sys.argv[1]).read().split())
calls = {"peer_log": 2, "peer_logerr": 2, "log_info": 0, "log_notice": 0,
         "log_warn": 0, "log_warnx": 0, "log_debug": 0}
conv = re.compile(r'%[-+ #0-9.*]*(?:ll|l|z|h|j|t)?[a-zA-Z%]')

def args_of(src, i):
    """The top-level arguments of the call whose "(" is at src[i]."""
    depth, out, cur, j, instr = 0, [], "", i, False
    while j < len(src):
        c = src[j]
        if instr:
            cur += c
            if c == "\\":
                cur += src[j + 1]
                j += 1
            elif c == '"':
                instr = False
        elif c == '"':
            instr = True
            cur += c
        elif c == "(":
            depth += 1
            if depth > 1:
                cur += c
        elif c == ")":
            depth -= 1
            if depth == 0:
                out.append(cur)
                return out
            cur += c
        elif c == "," and depth == 1:
            out.append(cur)
            cur = ""
        else:
            cur += c
        j += 1
    return out

missing, checked = [], 0
for path in sys.argv[2:]:
    src = open(path).read()
    for m in re.finditer(r'\b(%s)\s*\(' % "|".join(calls), src):
        line = src.count("\n", 0, m.start()) + 1
        if src[src.rfind("\n", 0, m.start()) + 1:m.start()].strip() \
                .startswith(("*", "/*")):
            continue            # in a comment
        a = args_of(src, m.end() - 1)
        n = calls[m.group(1)]
        if len(a) <= n:
            continue            # the declaration or definition
        lits = re.findall(r'"((?:[^"\\]|\\.)*)"', a[n])
        if not lits:
            continue            # a format that is not a literal
        fmt = "".join(lits)
        words = ""
        for seg in conv.split(fmt):
            seg = re.sub(r'^[^A-Za-z0-9]+|[^A-Za-z0-9]+$', "", seg)
            if re.search(r'[A-Za-z]', seg):
                words = " ".join(seg.split())
                break
        if not words:
            continue            # only conversions: "%s"
        checked += 1
        if words not in doc:
            missing.append("%s:%d: %s: \"%s\" (format \"%s\")"
                           % (path.rsplit("/", 1)[-1], line, m.group(1),
                              words, fmt))
for x in missing:
    print("not in cairnd(8) DIAGNOSTICS:", x, file=sys.stderr)
if checked < 40:
    print("only %d formats found: is the parse broken?" % checked,
          file=sys.stderr)
    sys.exit(1)
print("%d log formats checked" % checked)
sys.exit(1 if missing else 0)
PY
exit 0
