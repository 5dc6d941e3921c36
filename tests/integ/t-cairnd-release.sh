#!/bin/sh
# cairnd serves the signed release (docs/protocol.md 5.12): the banner
# lists MANIFEST only when release/current exists (and is otherwise byte
# for byte what it was); STAT and RETR MANIFEST and SIGNATURE answer with
# release/current/manifest and manifest.sig, like RETR COMMAND; without a
# release, or for a file larger than a client accepts, the client gets
# the missing-file replies and the log says why; arguments are a syntax
# error.  Both files come from the release the session opened first: a
# publish that swaps release/current between the two requests does not
# pair one release's manifest with another's signature.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/releaselib.sh"
R=$T/repo
make_repo "$R"
rel_keygen admin
start_cairnd "$R"

# 1. No release: the banner as before, the missing-file replies.
rap "$PORT" 'STAT MANIFEST\r\nRETR MANIFEST\r\nRETR SIGNATURE\r\nQUIT\r\n' \
    >"$T/out" || fail "rap"
{
	banner
	printf '531 Access Error: release/current/manifest\r\n'
	printf '543 Unable to access release/current/manifest.\r\n'
	printf '543 Unable to access release/current/manifest.sig.\r\n'
	printf '201 QUIT OK, closing connection\r\n'
} >"$T/want"
assert_file_eq "$T/want" "$T/out" "no release"

# 2. A release: MANIFEST in the banner (last), both files served.
rel_publish "$R" 1 admin
rap "$PORT" 'RETR MANIFEST\r\nRETR SIGNATURE\r\nstat manifest\r\nQUIT\r\n' \
    >"$T/out" || fail "rap"
{
	printf '200-RAP 1 %s %s radmind access protocol\r\n' "$HOST" "$VERSION"
	printf '200 CAPA REPO MANIFEST\r\n'
	printf '240 Retrieving file\r\n%d\r\n' "$(wc -c <"$T/manifest.1")"
	cat "$T/manifest.1"
	printf '.\r\n'
	printf '240 Retrieving file\r\n%d\r\n' "$(wc -c <"$T/manifest.1.sig")"
	cat "$T/manifest.1.sig"
	printf '.\r\n'
	printf '230 Returning STAT information\r\n'
	printf 'f manifest 444 0 0 %s %d %s\r\n' \
	    "$(stat -c %Y "$R/release/1/manifest")" \
	    "$(wc -c <"$T/manifest.1")" \
	    "$(openssl dgst -sha1 -binary "$T/manifest.1" | base64)"
	printf '201 QUIT OK, closing connection\r\n'
} >"$T/want"
assert_file_eq "$T/want" "$T/out" "release 1"

# 3. Arguments are a syntax error, as for any description.
rap "$PORT" 'RETR MANIFEST x\r\nSTAT SIGNATURE x\r\nQUIT\r\n' >"$T/out" ||
    fail "rap"
grep -q '^540 RETR Syntax error' "$T/out" &&
    grep -q '^530 STAT Syntax error' "$T/out" ||
    fail "arguments: $(cat "$T/out")"

# 4. A swap between the two requests: the signature of the release the
# manifest came from.
printf 'p test.T\n' >"$R/command/test.K"
rel_manifest "$R" 2 >"$T/manifest.2"
rel_sign "$T/manifest.2" admin >"$T/manifest.2.sig"
python3 - "$PORT" "$R" "$T/manifest.2" "$T/manifest.2.sig" \
    >"$T/swap.out" 2>"$T/swap.err" <<'EOF' || fail "swap: $(cat "$T/swap.err")"
import os, shutil, sys
sys.path.insert(0, os.path.join(os.environ['top_srcdir'], 'tests/integ'))
from testnet import Conn, connect, read_banner
port, repo, man, sig = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
s = connect(port, 10)
c = Conn(s, 10, maxline=1 << 20)
c.buf += read_banner(s)
c.line(); c.line()
c.send(b'RETR MANIFEST\r\n')
line, m = c.fetched()
# The publisher installs release 2 now.
rel = os.path.join(repo, 'release')
os.mkdir(os.path.join(rel, '2'))
shutil.copy(man, os.path.join(rel, '2', 'manifest'))
shutil.copy(sig, os.path.join(rel, '2', 'manifest.sig'))
os.symlink('2', os.path.join(rel, '.tmp.current'))
os.rename(os.path.join(rel, '.tmp.current'), os.path.join(rel, 'current'))
c.send(b'RETR SIGNATURE\r\n')
line2, g = c.fetched()
c.send(b'QUIT\r\n')
c.line()
sys.stdout.buffer.write(m)
sys.stdout.buffer.write(b'--\n')
sys.stdout.buffer.write(g)
EOF
{ cat "$T/manifest.1"; echo --; cat "$T/manifest.1.sig"; } >"$T/want"
assert_file_eq "$T/want" "$T/swap.out" "swap mid-session"
# ... and the next session gets release 2.
rap "$PORT" 'RETR SIGNATURE\r\nQUIT\r\n' >"$T/out" || fail "rap"
grep -qF "$(sed -n 2p "$T/manifest.2.sig")" "$T/out" ||
    fail "next session: $(cat "$T/out")"

# 5. A manifest larger than a client takes (64 MiB) is not served: the
# client sees it missing, the log says why.  A signature over 4 KiB too.
mkdir "$R/release/3" || fail "mkdir"
truncate -s $((64 * 1024 * 1024 + 1)) "$R/release/3/manifest"
head -c 4097 /dev/zero >"$R/release/3/manifest.sig"
ln -sfn 3 "$R/release/.tmp.current" &&
    mv -T "$R/release/.tmp.current" "$R/release/current" || fail "swap 3"
rap "$PORT" 'RETR MANIFEST\r\nRETR SIGNATURE\r\nQUIT\r\n' >"$T/out" ||
    fail "rap"
grep -q '^543 Unable to access release/current/manifest\.' "$T/out" &&
    grep -q '^543 Unable to access release/current/manifest\.sig\.' \
    "$T/out" || fail "oversized: $(cat "$T/out")"
wait_log 'release/current/manifest: 67108865 bytes, more than the 67108864'
wait_log 'release/current/manifest.sig: 4097 bytes, more than the 4096'

# 6. current pointing out of release/ is not followed.
ln -sfn ../command "$R/release/.tmp.current" &&
    mv -T "$R/release/.tmp.current" "$R/release/current" || fail "swap out"
rap "$PORT" 'RETR MANIFEST\r\nQUIT\r\n' >"$T/out" || fail "rap"
grep -q '^543 Unable to access release/current/manifest\.' "$T/out" ||
    fail "link out: $(cat "$T/out")"
end_test
