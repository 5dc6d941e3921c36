# bench/benchlib.sh: shell helpers shared by the benchmarks.  Sourced by
# bench-*.sh first, after they set BENCH_NAME, with top_builddir and
# top_srcdir in the environment (make bench sets them): it sets bash's
# strict mode and the C locale, B (the build directory) and BENCH_DATA
# (the cached corpora, $top_builddir/bench-data unless set).  A script
# sets tmp, a scratch directory, or calls bench_scratch.
#
#	bench_need TOOL...	exit unless every built TOOL (relative to $B)
#				and /usr/bin/time exist
#	bench_corpus SIZE	print the cached corpus of SIZE, making it first
#	bench_files N		print the cached tree of N small files (seed
#				$BENCH_SEED, default 1), making it first
#	bench_port		print a TCP port free on 127.0.0.1
#	start_server [opt...]	cairnd -f -Z 9 on 127.0.0.1:$PORT under time(1),
#				serving $R (extra cairnd options appended),
#				started as the tests start it (cairnd_launch,
#				tests/integ/cairndlib.sh): ready once its log
#				says it listens; sets srvpid and PORT; its
#				pid is in $tmp/cairnd.pid, its CPU seconds
#				land in $tmp/srv.time, its log in $tmp/srv.log
#	stop_server		SIGTERM it and wait (srv.time is then written)
#	bench_scratch NAME	make the scratch directory $tmp, removed (and
#				the server stopped) when the script exits
#	bench_repo CORPUS T	make the repository $R serving CORPUS as
#				transcript T (command T.K, config "* T.K"; the
#				corpus's MANIFEST.txt left out); sets nfiles
#				and raw (bytes)
#	bench_client		the client side of $R: $C/command.K and
#				$tmp/apply.T (applicable to an empty root)

set -euo pipefail
export LC_ALL=C
: "${top_builddir:?top_builddir must be set}"
: "${top_srcdir:?top_srcdir must be set}"
B=$top_builddir
BENCH_DATA=${BENCH_DATA:-$top_builddir/bench-data}

bench_need()
{
	local t
	for t in "$@"; do
		[ -x "$B/$t" ] || { echo "$BENCH_NAME: $B/$t not built" >&2; exit 1; }
	done
	[ -x /usr/bin/time ] || {
		echo "$BENCH_NAME: /usr/bin/time is required (Debian package time)" >&2
		exit 1
	}
}

# bench_tree NAME ARG...: print $BENCH_DATA/NAME, made first by
# cairn-bench --make-corpus NAME ARG... unless it is there already, made
# by the same generator (the same bench/bench-corpus.c) with the same ARGs.
bench_tree()
{
	local name=$1 dir key
	shift
	dir=$BENCH_DATA/$name
	key="$(sha1sum <"$top_srcdir/bench/bench-corpus.c" | cut -c1-40) $*"
	if [ ! -d "$dir" ] ||
	    [ "$(cat "$dir.stamp" 2>/dev/null)" != "$key" ]; then
		echo "$BENCH_NAME: generating $dir (cached for later runs) ..." >&2
		rm -rf "$dir" "$dir.tmp" "$dir.stamp"
		mkdir -p "$BENCH_DATA"
		"$B/bench/cairn-bench" --make-corpus "$dir.tmp" "$@" >&2 ||
		    exit 1
		mv "$dir.tmp" "$dir"
		echo "$key" >"$dir.stamp"
	fi
	echo "$dir"
}

bench_corpus()
{
	bench_tree "corpus-$1" "$1"
}

bench_files()
{
	bench_tree "files-$1" --seed "${BENCH_SEED:-1}" --files "$1"
}

. "$top_srcdir/tests/integ/cairndlib.sh"

bench_port()
{
	cairnd_free_port
}

# cairnd under time(1): its user and system CPU seconds in srv.time.
_bench_timed()
{
	/usr/bin/time -f '%U %S' -o "$tmp/srv.time" "$@"
}

start_server()
{
	CAIRND=$B/server/cairnd
	CAIRND_ADDR=127.0.0.1
	CAIRND_PORT=
	CAIRND_WRAP=_bench_timed
	CAIRND_PIDFILE=$tmp/cairnd.pid
	: >"$tmp/srv.log"
	cairnd_launch "$tmp/srv.log" "$R" -Z 9 "$@" || {
		echo "$BENCH_NAME: cairnd did not start" >&2
		exit 1
	}
	srvpid=$SPID
}

bench_scratch()
{
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-$1.XXXXXX")
	srvpid=
	trap '[ -n "$srvpid" ] && kill "$srvpid" 2>/dev/null; rm -rf "$tmp"' EXIT
	trap 'exit 130' HUP INT TERM
}

bench_repo()
{
	local corpus=$1 t=$2
	R=$tmp/repo
	mkdir -p "$R/command" "$R/transcript" "$R/file"
	: >"$tmp/empty.K"
	(cd "$corpus" && "$B/client/fsdiff" -C -c sha1 -K "$tmp/empty.K" .) \
	    | grep -v ' ./MANIFEST.txt' >"$R/transcript/$t"
	cp -al "$corpus" "$R/file/$t"
	printf 'p %s\n' "$t" >"$R/command/$t.K"
	printf '* %s.K\n' "$t" >"$R/config"
	nfiles=$(grep -c '^f ' "$R/transcript/$t")
	raw=$(awk '$1 == "f" { s += $(NF - 1) } END { print s }' \
	    "$R/transcript/$t")
}

bench_client()
{
	C=$tmp/client
	mkdir -p "$C" "$tmp/empty-root"
	start_server
	"$B/client/ktcheck" -q -h 127.0.0.1 -p "$PORT" -c sha1 \
	    -K "$C/command.K" || [ $? -eq 1 ]
	stop_server
	(cd "$tmp/empty-root" && "$B/client/fsdiff" -A -c sha1 \
	    -K "$C/command.K" -o "$tmp/apply.T" .)
}

stop_server()
{
	cairnd_stop
	rm -f "$tmp/cairnd.pid"
	srvpid=
}
