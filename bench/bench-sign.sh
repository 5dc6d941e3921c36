#!/bin/bash
# bench-sign.sh: what signed releases cost.  A repository of
# $BENCH_SIGN_LOADSETS loadsets (default 100) holding $BENCH_SIGN_FILES
# small files in all (default 100,000; each loadset a tree of the one
# corpus generator, seed 1, 2, ..., under opt/lsNNN/), every transcript
# with sha256 checksums, each published with cairn-publish -c sha256 -k
# bench.K: one command file naming all of them.  Made once and cached in
# $BENCH_DATA with its Ed25519 key pair; a scratch copy is measured.
#
#   - the time to make and sign a release of it: cairn-publish -m -s key
#     (manifest, signature, installation), cairn-publish -m alone (the
#     pending manifest) and cairn-sign -k on that pending manifest, as an
#     offline signer runs it; $BENCH_SIGN_SIGNRUNS runs each (default 5),
#     medians of wall and CPU seconds;
#   - ktcheck -c sha1 against cairnd on 127.0.0.1, with no key pinned and
#     with the release's key pinned (-k): a first run into an empty
#     command directory (everything fetched) and a second run in it with
#     nothing to do (the everyday case); $BENCH_SIGN_RUNS rounds
#     (default 9), the two modes interleaved and their order alternating
#     from round to round, medians of wall and CPU seconds, and the ratio
#     keys pinned / none beside the target of at most 1.05.
#
# The runs with no key pinned rely on ktcheck's default key directory
# holding no key (a build not installed); the script checks that they
# wrote no release.state.  Figures only: the exit status is 0 unless a
# tool fails.  Run through `make bench` or `make bench-sign`, or by hand
# with top_builddir, top_srcdir and BENCH_DATA set.
BENCH_NAME=bench-sign
. "${top_srcdir:?top_srcdir must be set}/bench/benchlib.sh"
NLOAD=${BENCH_SIGN_LOADSETS:-100}
NFILES=${BENCH_SIGN_FILES:-100000}
RUNS=${BENCH_SIGN_RUNS:-9}
SIGNRUNS=${BENCH_SIGN_SIGNRUNS:-5}
bench_need bench/cairn-bench server/cairnd server/cairn-publish \
    server/cairn-sign client/ktcheck client/fsdiff
if [ "$NLOAD" -lt 1 ] || [ "$NFILES" -lt "$NLOAD" ]; then
	echo "$BENCH_NAME: BENCH_SIGN_FILES must be at least" \
	    "BENCH_SIGN_LOADSETS (at least 1)" >&2
	exit 1
fi

# sign_data: print $BENCH_DATA/sign-NLOAD-NFILES, the cached repository
# (repo/) and key pair (release.key, release.pub), made first unless it
# is there, made from the same generator with the same sizes.  Each
# loadset is staged in tmp/ as lcreate would leave it (a tree and its
# fsdiff -C -c sha256 transcript) and published as an administrator
# would; the repository's first release is left pending.
sign_data()
{
	local dir=$BENCH_DATA/sign-$NLOAD-$NFILES key i name per up r
	key="sign 1 $(sha1sum <"$top_srcdir/bench/bench-corpus.c" |
	    cut -c1-40) $NLOAD $NFILES"
	if [ -d "$dir" ] && [ "$(cat "$dir.stamp" 2>/dev/null)" = "$key" ]
	then
		echo "$dir"
		return
	fi
	echo "$BENCH_NAME: generating $dir (cached for later runs) ..." >&2
	rm -rf "$dir" "$dir.tmp" "$dir.stamp"
	r=$dir.tmp/repo
	mkdir -p "$r/command" "$r/transcript" "$r/file" "$r/special" \
	    "$r/tmp/transcript" "$r/tmp/file" "$r/release/keys"
	printf '* bench.K\n' >"$r/config"
	(cd "$dir.tmp" && "$B/server/cairn-sign" -g release) >/dev/null
	cp "$dir.tmp/release.pub" "$r/release/keys/"
	: >"$dir.tmp/empty.K"
	for i in $(seq "$NLOAD"); do
		name=$(printf 'ls%03d' "$i")
		per=$((NFILES / NLOAD + (i <= NFILES % NLOAD ? 1 : 0)))
		up=$r/tmp/file/$name.T
		mkdir -p "$up/opt"
		"$B/bench/cairn-bench" --seed "$i" --make-corpus \
		    "$up/opt/$name" --files "$per" >/dev/null
		(cd "$up" && "$B/client/fsdiff" -C -c sha256 \
		    -K "$dir.tmp/empty.K" -o "$r/tmp/transcript/$name.T" .)
		"$B/server/cairn-publish" -D "$r" -c sha256 -k bench.K \
		    "$name.T" >/dev/null
		[ $((i % 10)) -ne 0 ] || echo "$BENCH_NAME: $i of $NLOAD" \
		    "loadsets published" >&2
	done
	mv "$dir.tmp" "$dir"
	echo "$key" >"$dir.stamp"
	echo "$dir"
}

data=$(sign_data)
bench_scratch sign
# The scratch repository: the files hard-linked, the rest copied.
R=$tmp/repo
mkdir -p "$R"
cp -a "$data/repo/command" "$data/repo/transcript" "$data/repo/special" \
    "$data/repo/config" "$data/repo/release" "$data/repo/tmp" "$R/"
cp -al "$data/repo/file" "$R/file"
KEY=$data/release.key
PUB=$data/release.pub

# timed LABEL CODES COMMAND...: run COMMAND (its output in $tmp/out),
# append "LABEL wall cpu" to $tmp/times (seconds: wall, user + system of
# COMMAND alone); exit unless its status is one of CODES (comma list).
cat >"$tmp/timed.py" <<'PY'
import os, sys, time
times, label, codes = sys.argv[1], sys.argv[2], sys.argv[3].split(',')
args, out = sys.argv[4:], sys.argv[1] + '.out'
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execv(args[0], args)
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
wall = time.perf_counter() - t0
rc = os.waitstatus_to_exitcode(status)
if str(rc) not in codes:
    sys.stderr.write('%s: %s: exit %d, want %s\n%s' % (label,
        ' '.join(args), rc, ','.join(codes), open(out).read()))
    sys.exit(1)
with open(times, 'a') as f:
    f.write('%s %.6f %.6f\n' % (label, wall, ru.ru_utime + ru.ru_stime))
PY
timed()
{
	python3 "$tmp/timed.py" "$tmp/times" "$@" || exit 1
}

ntrans=$(find "$R/transcript" -type f | wc -l)
nlines=$(cat "$R"/transcript/* | wc -l)
nf=$(cat "$R"/transcript/* | grep -c '^f ' || true)
tbytes=$(cat "$R"/transcript/* | wc -c)
echo "cairn signed release benchmark: $ntrans transcripts, $nf files" \
    "($nlines lines, $((tbytes / 1000)) kB of transcripts), sha256," \
    "one command file; $(nproc) CPUs"

# Making and signing releases.  -m -s: a release made, signed and
# installed.  Then -m alone leaves a pending manifest, which cairn-sign
# signs as an offline signer would; the last is installed with -S.
sync
for k in $(seq "$SIGNRUNS"); do
	timed publish-ms 0 "$B/server/cairn-publish" -D "$R" -m -s "$KEY"
done
for k in $(seq "$SIGNRUNS"); do
	timed publish-m 0 "$B/server/cairn-publish" -D "$R" -m
	timed sign 0 "$B/server/cairn-sign" -k "$KEY" \
	    -o "$tmp/manifest.sig" "$R/release/pending/manifest"
done
mbytes=$(wc -c <"$R/release/pending/manifest")
mlines=$(wc -l <"$R/release/pending/manifest")
"$B/server/cairn-publish" -D "$R" -S "$tmp/manifest.sig" >/dev/null

# ktcheck.  One cairnd serves every run; a run's command directory is
# its own, made empty for the first run and kept for the second.
start_server
kt()
{
	local label=$1 codes=$2 dir=$3
	shift 3
	timed "$label" "$codes" "$B/client/ktcheck" -q -h 127.0.0.1 \
	    -p "$PORT" -c sha1 -K "$dir/command.K" "$@"
}
# check_dir DIR: what the first run fetched is the repository's.
check_dir()
{
	local t
	cmp -s "$R/command/bench.K" "$1/command.K" || {
		echo "$BENCH_NAME: $1/command.K differs from the server's" >&2
		exit 1
	}
	for t in "$R"/transcript/*; do
		cmp -s "$t" "$1/${t##*/}" || {
			echo "$BENCH_NAME: $1/${t##*/} differs from the" \
			    "server's" >&2
			exit 1
		}
	done
}
for r in $(seq "$RUNS"); do
	if [ $((r % 2)) -eq 1 ]; then
		modes="none key"
	else
		modes="key none"
	fi
	for m in $modes; do
		mkdir -p "$tmp/kt/$m.$r"
		if [ "$m" = key ]; then
			kt first-$m 1 "$tmp/kt/$m.$r" -k "$PUB"
		else
			kt first-$m 1 "$tmp/kt/$m.$r"
		fi
	done
	for m in $modes; do
		if [ "$m" = key ]; then
			kt second-$m 0 "$tmp/kt/$m.$r" -k "$PUB"
		else
			kt second-$m 0 "$tmp/kt/$m.$r"
		fi
	done
	if [ "$r" -eq 1 ]; then
		check_dir "$tmp/kt/none.1"
		check_dir "$tmp/kt/key.1"
		[ -f "$tmp/kt/key.1/release.state" ] || {
			echo "$BENCH_NAME: ktcheck -k recorded no release" >&2
			exit 1
		}
		[ ! -e "$tmp/kt/none.1/release.state" ] || {
			echo "$BENCH_NAME: ktcheck without -k pinned keys" \
			    "(its default key directory holds some)" >&2
			exit 1
		}
	fi
done
stop_server

echo
python3 - "$tmp/times" "$RUNS" "$SIGNRUNS" "$mlines" "$mbytes" <<'PY'
import statistics, sys
times, runs, signruns, mlines, mbytes = sys.argv[1:6]
rows = {}
with open(times) as f:
    for line in f:
        label, wall, cpu = line.split()
        rows.setdefault(label, []).append((float(wall), float(cpu)))

def med(label, i):
    return statistics.median(r[i] for r in rows[label])

print('%-44s %9s %9s' % ('release (median of %s)' % signruns, 'wall_s',
    'cpu_s'))
for label, what in (('publish-ms', 'cairn-publish -m -s key (make, sign, install)'),
                    ('publish-m', 'cairn-publish -m (pending manifest only)'),
                    ('sign', 'cairn-sign -k key (the pending manifest)')):
    print('%-44s %9.3f %9.3f' % (what, med(label, 0), med(label, 1)))
print('manifest: %s lines, %s bytes' % (mlines.strip(), mbytes.strip()))
print()
print('%-30s %9s %9s %9s %9s %9s' % ('ktcheck -c sha1 (median of %s)'
    % runs, 'none_s', 'key_s', 'ratio', 'none_cpu', 'key_cpu'))
for run, what in (('second', 'second run, nothing to do'),
                  ('first', 'first run, empty directory')):
    n, k = med(run + '-none', 0), med(run + '-key', 0)
    nc, kc = med(run + '-none', 1), med(run + '-key', 1)
    print('%-30s %9.3f %9.3f %8.3fx %9.3f %9.3f' % (what, n, k, k / n,
        nc, kc))
n, k = med('second-none', 0), med('second-key', 0)
print()
print('keys pinned / none, everyday run (wall): %.3f; target at most 1.05:'
    ' %s' % (k / n, 'met' if k / n <= 1.05 else 'not met'))
PY
