#!/bin/sh
# A compressed pull in clear sends no more bytes than Radmind's server
# would for the same files at the same level.  lapply -Z 1, 6 and 9 fetch
# a tree of many small text files sharing their words (as /etc does) and
# a few larger ones; cairnd's "session end" line gives the bytes it put
# on the wire.  The reference is a model of Radmind's stream made here
# with Python's zlib: deflateInit at the level, and a sync flush after
# every write, as libsnet's snet_write does: the banner and the 320 line
# in clear, then each reply line (lapply's REPO report's too), each
# RETR's "240" and size lines together, each 8 KB of a body and each "."
# line, the history running on from file to file; the model is checked
# first against a recording of Radmind.  (Inside TLS cairnd resets the
# history at every body instead: t-catalogue-zlib.sh.)  Byte counts are
# exact for a level: nothing here depends on time.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lapply
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"

python3 - "$T/tree" <<'PY' || fail "cannot make the tree"
import os, random, sys
top = sys.argv[1]
r = random.Random(7)
words = ('server client user group file path cache buffer socket port '
         'timeout retry enable disable allow deny system kernel module '
         'device mount option service daemon process thread signal error '
         'warning notice debug config include library binary source target '
         'install update remove package version release checksum level '
         'stream block index offset length size count limit memory').split()
for d in range(6):
    os.makedirs('%s/etc/d%d' % (top, d))
for i in range(240):
    lines = []
    size = r.randrange(800, 6000) if i % 40 else r.randrange(20000, 40000)
    n = 0
    while n < size:
        k = r.choice(words)
        v = ' '.join(r.choice(words) for _ in range(r.randrange(1, 6)))
        line = '%s_%s = %s # %d\n' % (k, r.choice(words), v,
                                      r.randrange(1000))
        lines.append(line)
        n += len(line)
    with open('%s/etc/d%d/f%03d.conf' % (top, i % 6, i), 'w') as f:
        f.write(''.join(lines))
PY
tree_repo "$T/repo" "$T/tree" zb

# The model against a real Radmind: its server's bytes to lapply -Z 6 as
# recorded in tests/vectors/wire/zlib.txt come out of the same writes
# and flushes, byte for byte.
python3 - "$top_srcdir/tests/vectors/wire/zlib.txt" <<'PY' ||
import re, sys, zlib
raw = []
for line in open(sys.argv[1], encoding='latin-1'):
    if line.startswith('=== connection'):
        raw.append(b'')
    elif line.startswith('SZRAW: '):
        raw[-1] += bytes.fromhex(line[7:].strip())
raw = raw[-1]                   # the lapply session
# What the server wrote: the stream cut after each sync flush.
inf = zlib.decompressobj()
writes = [inf.decompress(p + b'\0\0\xff\xff')
          for p in raw.split(b'\0\0\xff\xff')[:-1]]
stream = b''.join(writes)
want = []
m = re.match(rb'220 [^\n]*\n', stream)
want.append(m.group(0))
at = m.end()
while stream.startswith(b'240 ', at):
    m = re.compile(rb'240 Retrieving file\r\n(\d+)\r\n').match(stream, at)
    n = int(m.group(1))
    want.append(m.group(0))
    body = stream[m.end():m.end() + n]
    want += [body[i:i + 8192] for i in range(0, n, 8192)]
    want.append(b'.\r\n')
    at = m.end() + n + 3
want += [l + b'\n' for l in stream[at:].split(b'\n')[:-1]]
if writes != want:
    sys.exit('Radmind wrote %r, the model writes %r' % (writes, want))
z = zlib.compressobj(6)
made = b''.join(z.compress(w) + z.flush(zlib.Z_SYNC_FLUSH) for w in want)
if made != raw:
    sys.exit('the model makes other bytes than Radmind')
PY
    fail "the model of Radmind's stream does not match the recording"
{
	printf 'zb.T:\n'
	sed 's/^f /+ f /' "$T/repo/transcript/zb.T"
} >"$T/apply.T"
start_cairnd "$T/repo" -Z 9
banner ZAUTO >"$T/banner"

for lvl in 1 6 9; do
	rm -rf "$T/root"
	mkdir "$T/root"
	cd "$T/root" || fail "cd $T/root"
	run_client lapply -Z "$lvl" -c sha1 "$T/apply.T"
	cd "$T" || fail "cd $T"
	assert_eq 0 "$RC" "lapply -Z $lvl: $(cat "$T/err")"
	diff -r "$T/tree" "$T/root" >/dev/null || fail "-Z $lvl: trees differ"
	retry 100 grep -q "session end: zlib level $lvl, " "$SLOG" ||
	    fail "-Z $lvl: no session end line: $(cat "$SLOG")"
	line=$(grep "session end: zlib level $lvl, " "$SLOG")
	python3 - "$lvl" "$T/apply.T" "$T/tree" "$T/banner" "$line" \
	    <<'PY' || fail "-Z $lvl: $line"
import os, re, sys, zlib
level, apply_t, tree, banner, line = sys.argv[1:]
level = int(level)
m = re.search(r'sent (\d+) bytes \((\d+) on the wire', line)
raw, wire = int(m.group(1)), int(m.group(2))

clear = open(banner, 'rb').read() + \
    b'320 Ready to start ZLIB compression level %d\r\n' % level
z = zlib.compressobj(level)
plain = 0
made = 0
def write(b):
    global plain, made
    plain += len(b)
    made += len(z.compress(b)) + len(z.flush(zlib.Z_SYNC_FLUSH))
write(b'220 ZLIB compression level %d enabled\r\n' % level)
for t in open(apply_t, 'rb'):
    if not t.startswith(b'+ f '):
        continue
    body = open(os.path.join(tree, t.split()[2].decode()), 'rb').read()
    write(b'240 Retrieving file\r\n%d\r\n' % len(body))
    for i in range(0, len(body), 8192):
        write(body[i:i + 8192])
    write(b'.\r\n')
write(b'215 Report successful\r\n')
write(b'201 QUIT OK, closing connection\r\n')
# The model must stand for the same plain bytes cairnd sent.
if len(clear) + plain != raw:
    sys.exit('model: %d plain bytes, cairnd sent %d' %
             (len(clear) + plain, raw))
model = len(clear) + made
print('level %d: cairnd %d bytes on the wire, Radmind model %d (%.2f%%)' %
      (level, wire, model, 100.0 * (wire - model) / model))
sys.exit(0 if wire <= model else 1)
PY
done
exit 0
