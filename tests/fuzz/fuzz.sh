#!/bin/sh
# fuzz.sh: build the libFuzzer targets of tests/fuzz/ with clang and run
# each one for a while on a scratch copy of its seed corpus (make fuzz).
#
# Environment (make fuzz sets it):
#   top_srcdir, top_builddir   the trees
#   FUZZ_CC                    clang
#   FUZZ_SECONDS               time per target (0: only run the seeds)
#   FUZZ_TARGETS               which targets, by name
#   FUZZ_CPPFLAGS, FUZZ_WARN, FUZZ_LIBS   from configure
#
# The targets are built from the sources (common/, server/), not from
# libcairn.a.  New corpus entries and crash artifacts go to
# $top_builddir/tests/fuzz/run/<target>/, never into the source tree.
# Prints "fuzz <target>: PASS", or "fuzz <target>: FAIL <artifact>", for
# each target; exits 1 if any failed, 2 if nothing could be built.
set -u

: "${top_srcdir:?}" "${top_builddir:?}"
: "${FUZZ_CC:=clang}" "${FUZZ_SECONDS:=30}"
: "${FUZZ_TARGETS:=request reply transcript command hostcfg encode inflate zstd proxy delta manifest signature}"
: "${FUZZ_CPPFLAGS:=}" "${FUZZ_WARN:=}" "${FUZZ_LIBS:=-lssl -lcrypto -lz -lzstd}"

src=$top_srcdir
fz=$top_builddir/tests/fuzz
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
CFLAGS="-g -O1 -fno-omit-frame-pointer $SAN $FUZZ_WARN"
CPPFLAGS="-I$top_builddir -I$src/common -I$src/server $FUZZ_CPPFLAGS"

# Longest input per target: past each parser's caps where there is one
# (request: PROTO_REQMAX; encode: PATH_MAX decoded; signature: a
# manifest and SIG_MAX).
max_len()
{
	case $1 in
	request)	echo 20000 ;;
	encode)		echo 9000 ;;
	command|hostcfg) echo 2048 ;;
	proxy)		echo 1200 ;;
	signature)	echo 8192 ;;
	*)		echo 4096 ;;
	esac
}

# Server objects a target links besides common/ (fuzz_request compiles
# server/session.c itself).
server_objs()
{
	case $1 in
	request)	echo "peer hostcfg cfgfile fetch specmeta stor zcache" \
		    "linkmemo proxy tindex dstore" ;;
	hostcfg)	echo "hostcfg cfgfile" ;;
	proxy)		echo "proxy" ;;
	esac
}

die()
{
	echo "make fuzz: $*" >&2
	exit 2
}

if ! command -v "$FUZZ_CC" >/dev/null 2>&1; then
	die "$FUZZ_CC not found: the fuzz targets need clang with libFuzzer" \
	    "(Debian: apt-get install clang libclang-rt-dev)"
fi
mkdir -p "$fz/obj" "$fz/bin" "$fz/run" || die "cannot create $fz"

printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *, size_t);' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
    '{ (void)d; (void)n; return 0; }' >"$fz/obj/probe.c"
if ! "$FUZZ_CC" -fsanitize=fuzzer,address,undefined "$fz/obj/probe.c" \
    -o "$fz/obj/probe" >"$fz/obj/probe.log" 2>&1; then
	cat "$fz/obj/probe.log" >&2
	die "$FUZZ_CC cannot link -fsanitize=fuzzer: libFuzzer is missing" \
	    "(Debian: apt-get install libclang-rt-dev)"
fi

# Rebuild everything when the flags change; else what is out of date.
stamp="$FUZZ_CC $CFLAGS $CPPFLAGS $FUZZ_LIBS"
if [ ! -f "$fz/obj/flags" ] || [ "$(cat "$fz/obj/flags")" != "$stamp" ]; then
	rm -f "$fz/obj/"*.o "$fz/obj/"*.a "$fz/bin/"*
	printf '%s\n' "$stamp" >"$fz/obj/flags"
fi
headers="$top_builddir/config.h $src/common/*.h $src/server/*.h
$src/tests/fuzz/fuzz.h"

# stale OUT SRC: nonzero if OUT is missing or older than SRC or a header.
stale()
{
	[ ! -f "$1" ] && return 0
	# shellcheck disable=SC2086
	[ -n "$(find "$2" $headers -newer "$1" 2>/dev/null | head -n 1)" ]
}

compile()
{
	"$FUZZ_CC" $CPPFLAGS $CFLAGS -fsanitize=fuzzer-no-link -c "$2" \
	    -o "$1.tmp" && mv "$1.tmp" "$1"
}

jobs=$(nproc 2>/dev/null || echo 2)
pending=0
failed_build=
for f in "$src"/common/*.c "$src"/server/peer.c "$src"/server/hostcfg.c \
    "$src"/server/cfgfile.c "$src"/server/specmeta.c "$src"/server/fetch.c \
    "$src"/server/stor.c "$src"/server/zcache.c "$src"/server/linkmemo.c \
    "$src"/server/proxy.c "$src"/server/tindex.c "$src"/server/dstore.c; do
	d=$(basename "$(dirname "$f")")
	o="$fz/obj/${d}_$(basename "$f" .c).o"
	stale "$o" "$f" || continue
	echo "  CC (fuzz) $d/$(basename "$f")"
	compile "$o" "$f" &
	pending=$((pending + 1))
	if [ "$pending" -ge "$jobs" ]; then
		wait
		pending=0
	fi
done
wait
for f in "$src"/common/*.c; do
	o="$fz/obj/common_$(basename "$f" .c).o"
	[ -f "$o" ] || failed_build="$failed_build $(basename "$f")"
done
[ -z "$failed_build" ] || die "could not compile:$failed_build"
lib="$fz/obj/libcommon.a"
if [ ! -f "$lib" ] ||
    [ -n "$(find "$fz/obj" -name 'common_*.o' -newer "$lib" | head -n 1)" ]
then
	rm -f "$lib"
	ar rc "$lib" "$fz/obj/"common_*.o && ranlib "$lib" ||
	    die "cannot make $lib"
fi

passed=0 failed=0
for t in $FUZZ_TARGETS; do
	h="$src/tests/fuzz/fuzz_$t.c"
	bin="$fz/bin/fuzz_$t"
	[ -f "$h" ] || die "no target $t ($h)"
	objs=
	for s in $(server_objs "$t"); do
		objs="$objs $fz/obj/server_$s.o"
	done
	if stale "$bin" "$h" || [ -n "$(find "$lib" $objs -newer "$bin" \
	    2>/dev/null | head -n 1)" ]; then
		echo "  CCLD (fuzz) fuzz_$t"
		# shellcheck disable=SC2086
		if ! "$FUZZ_CC" $CPPFLAGS $CFLAGS -fsanitize=fuzzer "$h" \
		    $objs "$lib" $FUZZ_LIBS -o "$bin"; then
			echo "fuzz $t: FAIL (does not build)"
			failed=$((failed + 1))
			continue
		fi
	fi

	run="$fz/run/$t"
	rm -rf "$run"
	mkdir -p "$run/corpus"
	if [ -d "$src/tests/fuzz/corpus/$t" ]; then
		cp "$src/tests/fuzz/corpus/$t/"* "$run/corpus/" 2>/dev/null
	fi
	if [ "$FUZZ_SECONDS" -gt 0 ] 2>/dev/null; then
		limit="-max_total_time=$FUZZ_SECONDS"
	else
		limit="-runs=0"
	fi
	(cd "$run" && "$bin" "$limit" -max_len="$(max_len "$t")" \
	    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix="$run/" "$run/corpus" >"$run/log" 2>&1)
	rc=$?
	art=$(ls "$run"/crash-* "$run"/leak-* "$run"/timeout-* "$run"/oom-* \
	    2>/dev/null | head -n 1)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/log")
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$run/log")
	last=$(grep -E '^#[0-9]+' "$run/log" | tail -n 1)
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
	echo "  fuzz_$t: ${runs:-?} runs, ${speed:-?} exec/s, cov ${cov:-?}," \
	    "ft ${ft:-?}, corpus ${corp:-?} (log: $run/log)"
	if [ "$rc" -eq 0 ] && [ -z "$art" ]; then
		echo "fuzz $t: PASS"
		passed=$((passed + 1))
	else
		sed -n '/^==[0-9]*==ERROR\|invariant broken\|SUMMARY\|^ *#[0-9]* 0x/p' \
		    "$run/log" | head -n 40
		echo "fuzz $t: FAIL ${art:-exit status $rc, see $run/log}"
		failed=$((failed + 1))
	fi
done
echo "fuzz: $passed targets passed, $failed failed"
[ "$failed" -eq 0 ]
