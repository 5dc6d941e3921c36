#!/bin/bash
# bench-upload.sh: an upload of the standard corpus with lcreate to cairnd
# on loopback, at zlib levels 0 and 1.
#
# Run through `make bench`, or by hand with top_builddir, top_srcdir and
# BENCH_DATA set.  The corpus ($BENCH_UPLOAD_SIZE, default 250M, generated
# and cached in $BENCH_DATA, shared with bench-pull.sh) is
# captured once with fsdiff -C -c sha1; for each level a fresh cairnd
# (-Z 9) over an empty repository takes one
#   lcreate -v -Z LEVEL
# from the corpus directory.  Printed per level: wall time, server and
# client CPU seconds, file bytes, bytes lcreate sent before and after
# compression (its -v byte counters), and MB/s of file data.  The uploaded
# tree is compared with the corpus.  Figures only: nothing here passes or
# fails on speed.
BENCH_NAME=bench-upload
. "${top_srcdir:?top_srcdir must be set}/bench/benchlib.sh"
SIZE=${BENCH_UPLOAD_SIZE:-${BENCH_PULL_SIZE:-250M}}
LEVELS=${BENCH_UPLOAD_LEVELS:-0 1}
bench_need bench/cairn-bench server/cairnd client/fsdiff client/lcreate
corpus=$(bench_corpus "$SIZE")

bench_scratch upload

: >"$tmp/empty.K"
(cd "$corpus" && "$B/client/fsdiff" -C -c sha1 -K "$tmp/empty.K" .) \
    >"$tmp/bench.T"
nfiles=$(grep -c '^f ' "$tmp/bench.T")
raw=$(awk '$1 == "f" { s += $(NF - 1) } END { print s }' "$tmp/bench.T")

echo "cairn upload benchmark: $nfiles files, $((raw / 1000000)) MB, loopback, $(nproc) CPUs"
cat "$corpus"/usr/bin/* >/dev/null 2>&1 || true
printf '%-5s %8s %8s %8s %12s %12s %12s %8s %8s\n' level wall_s srv_cpu \
    cli_cpu file_bytes sent_raw sent_wire wire% MB/s
# Each run uploads into a repository of its own, removed only at the end:
# on ext4, creating files right after many were deleted costs a scan of
# the recently freed inodes, which would bill one run for the one before.
NRUN=0
for L in $LEVELS; do
	NRUN=$((NRUN + 1))
	R=$tmp/repo.$NRUN
	sync
	mkdir -p "$R/command" "$R/transcript" "$R/file" "$R/tmp"
	printf 'p bench.T\n' >"$R/command/bench.K"
	printf '* bench.K\n' >"$R/config"
	start_server
	s=$(date +%s.%N)
	(cd "$corpus" && /usr/bin/time -f '%U %S' -o "$tmp/cli.time" \
	    "$B/client/lcreate" -v -h 127.0.0.1 -p "$PORT" -Z "$L" \
	    "$tmp/bench.T" >"$tmp/lc.out" 2>"$tmp/lc.err") || {
		echo "bench-upload: lcreate failed at level $L:" >&2
		tail -n 5 "$tmp/lc.err" >&2
		exit 1
	}
	e=$(date +%s.%N)
	stop_server
	read -r su ss <"$tmp/srv.time"
	read -r cu cs <"$tmp/cli.time"
	# "bytes: received R (W on the wire), sent RAW (WIRE on the wire), ..."
	line=$(grep '^bytes: received ' "$tmp/lc.out")
	sent=$(echo "$line" | sed -n 's/.*, sent \([0-9]*\) (\([0-9]*\) on the wire).*/\1/p')
	wire=$(echo "$line" | sed -n 's/.*, sent \([0-9]*\) (\([0-9]*\) on the wire).*/\2/p')
	python3 - "$L" "$s" "$e" "$su" "$ss" "$cu" "$cs" "$raw" "$sent" "$wire" <<'PY'
import sys
L, s, e, su, ss, cu, cs, raw, sent, wire = sys.argv[1:]
wall = float(e) - float(s)
raw = int(raw); sent = int(sent or 0); wire = int(wire or 0)
print('%-5s %8.2f %8.2f %8.2f %12d %12d %12d %7.1f%% %8.1f' % (
    L, wall, float(su) + float(ss), float(cu) + float(cs), raw, sent, wire,
    100.0 * wire / sent if sent else 0, raw / 1e6 / wall if wall else 0))
PY
	# the uploaded tree must hold the corpus' files, byte for byte
	if ! diff -r -q --no-dereference "$corpus" "$R/tmp/file/bench.T" \
	    >/dev/null ||
	    ! cmp -s "$tmp/bench.T" "$R/tmp/transcript/bench.T"; then
		echo "bench-upload: level $L: uploaded tree differs from the corpus" >&2
		exit 1
	fi
done
echo
echo "sent_raw / sent_wire: bytes lcreate sent before / after compression"
echo "(lcreate -v); MB/s: file bytes per wall-clock second."
