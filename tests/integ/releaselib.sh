# tests/integ/releaselib.sh: signed releases made by hand, as the
# administrator's tools would make them (docs/formats.md section 15),
# and the hostile ones those tools never make (old, expired, unsigned,
# signed by another key, cut short, too large).  Source after lib.sh and
# mk_tmpdir; it needs python3 and the openssl command.
#
# Provided:
#	rel_keygen NAME		a new Ed25519 key pair: $T/keys/NAME.pem
#				(private) and $T/keys/NAME.pub (public);
#				prints nothing
#	rel_keyid NAME		the key id of $T/keys/NAME.pub (16 hex
#				digits)
#	rel_manifest REPO SERIAL [CREATED EXPIRES]
#				print the manifest of repository REPO as
#				it is now: every file under command/,
#				transcript/ and special/ with its size and
#				sha256; CREATED defaults to now, EXPIRES to
#				30 days after it
#	rel_sign MANIFEST NAME...	print the signature file of MANIFEST
#				by the keys NAME...
#	rel_install REPO SERIAL MANIFEST SIG
#				install MANIFEST and SIG as release SERIAL
#				of REPO (release/SERIAL/{manifest,
#				manifest.sig}) and swap release/current to
#				it by rename
#	rel_publish REPO SERIAL NAME [CREATED EXPIRES]
#				all three: the manifest of REPO as it is,
#				signed by NAME, installed as SERIAL; the
#				manifest is kept in $T/manifest.SERIAL
#	rel_publish_tool REPO NAME
#				cairn-publish -m -s: the manifest of REPO
#				as cairn-publish makes it (with its stat
#				entries: the special files each host is
#				served, docs/formats.md section 15),
#				signed by NAME and installed under the
#				next serial, which goes to REL_SERIAL; the
#				manifest is kept in $T/manifest.SERIAL
#	rel_state CLIENTDIR	print the release state file of a client
#				(CLIENTDIR/release.state), or "none"
if ! command -v mk_tmpdir >/dev/null 2>&1 || [ -z "${T:-}" ] ||
    [ ! -d "$T" ]; then
	echo "releaselib.sh: source lib.sh and run mk_tmpdir first" >&2
	exit 99
fi
need_cmd python3
need_cmd openssl

rel_keygen()
{
	mkdir -p "$T/keys" || fail "mkdir $T/keys"
	openssl genpkey -algorithm ed25519 -out "$T/keys/$1.pem" \
	    2>"$T/openssl.err" &&
	    openssl pkey -in "$T/keys/$1.pem" -pubout -out "$T/keys/$1.pub" \
	    2>>"$T/openssl.err" || fail "key $1: $(cat "$T/openssl.err")"
}

rel_keyid()
{
	openssl pkey -pubin -in "$T/keys/$1.pub" -outform DER |
	    python3 -c 'import hashlib, sys
print(hashlib.sha256(sys.stdin.buffer.read()[-32:]).digest()[:8].hex())'
}

rel_manifest()
{
	python3 - "$@" <<'EOF' || fail "rel_manifest $*"
import base64, hashlib, os, sys, time

repo, serial = sys.argv[1], sys.argv[2]
created = int(sys.argv[3]) if len(sys.argv) > 3 else int(time.time())
expires = int(sys.argv[4]) if len(sys.argv) > 4 else created + 30 * 86400

def enc(name):
    out = []
    for c in name:
        out.append({' ': '\\b', '\t': '\\t', '\n': '\\n', '\r': '\\r',
                    '\\': '\\\\'}.get(c, c))
    return ''.join(out)

lines = []
for kind in ('command', 'transcript', 'special'):
    top = os.path.join(repo, kind)
    ents = []
    for d, dirs, files in os.walk(top):
        for f in files:
            p = os.path.join(d, f)
            if not os.path.isfile(p):
                continue
            data = open(p, 'rb').read()
            digest = base64.b64encode(hashlib.sha256(data).digest())
            ents.append((os.path.relpath(p, top).encode(), len(data),
                         digest.decode()))
    for name, size, digest in sorted(ents):
        lines.append('%s %d %s %s' % (kind, size, digest,
                                      enc(name.decode())))
out = 'cairn-manifest 1\nserial %s\ncreated %d\nexpires %d\n' \
    'digest sha256\n' % (serial, created, expires)
out += ''.join(l + '\n' for l in lines)
out += 'end %d\n' % len(lines)
sys.stdout.write(out)
EOF
}

rel_sign()
{
	_m=$1
	shift
	printf 'cairn-signature 1\n'
	for _k in "$@"; do
		_s=$(openssl pkeyutl -sign -rawin -inkey "$T/keys/$_k.pem" \
		    -in "$_m" | base64 -w0) || fail "sign $_m with $_k"
		printf 'ed25519 %s %s\n' "$(rel_keyid "$_k")" "$_s"
	done
	printf 'end %d\n' $#
}

rel_install()
{
	mkdir -p "$1/release/$2" || fail "mkdir $1/release/$2"
	cp "$3" "$1/release/$2/manifest" &&
	    cp "$4" "$1/release/$2/manifest.sig" &&
	    ln -sfn "$2" "$1/release/.tmp.current" &&
	    mv -T "$1/release/.tmp.current" "$1/release/current" ||
	    fail "install release $2 in $1"
}

rel_publish()
{
	_r=$1 _n=$2 _k=$3
	shift 3
	rel_manifest "$_r" "$_n" "$@" >"$T/manifest.$_n"
	rel_sign "$T/manifest.$_n" "$_k" >"$T/manifest.$_n.sig"
	rel_install "$_r" "$_n" "$T/manifest.$_n" "$T/manifest.$_n.sig"
}

rel_publish_tool()
{
	_pub=$(tool_path cairn-publish) || fail "cairn-publish was not built"
	"$_pub" -D "$1" -m -s "$T/keys/$2.pem" >"$T/publish.out" \
	    2>"$T/publish.err" ||
	    fail "cairn-publish -m -s: $(cat "$T/publish.out" "$T/publish.err")"
	REL_SERIAL=$(sed -n 's/^release \([0-9]*\): installed.*/\1/p' \
	    "$T/publish.out")
	[ -n "$REL_SERIAL" ] ||
	    fail "cairn-publish -m -s: no serial: $(cat "$T/publish.out")"
	cp "$1/release/$REL_SERIAL/manifest" "$T/manifest.$REL_SERIAL" ||
	    fail "copy release $REL_SERIAL"
}

rel_state()
{
	if [ -f "$1/release.state" ]; then
		cat "$1/release.state"
	else
		echo none
	fi
}
