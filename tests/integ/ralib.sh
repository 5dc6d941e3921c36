# tests/integ/ralib.sh: helpers for the cairn-ra tests.  Source after
# lib.sh, mk_tmpdir and netlib.sh:
#
#	. "$top_srcdir/tests/integ/lib.sh"
#	need_tool cairnd
#	mk_tmpdir
#	. "$top_srcdir/tests/integ/netlib.sh"
#	. "$top_srcdir/tests/integ/ralib.sh"
#
# cairn-ra runs the client tools of the build tree (CAIRN_RA_BINDIR),
# with a configuration file of the test's own: the radmind directory
# $RADMIND, the apply root $R, the status file $STATUS, messages for
# syslog appended to $SYSLOGF, and a reboot command that only creates
# $T/rebooted.
#
# Provided:
#	RA			the cairn-ra script of the build tree
#	ra_publish		(re)build the loadset ra.T in $REPO from the
#				tree $SRC (served through command file ra.K)
#	ra_conf [VAR=VALUE...]	write $T/ra.conf for server 127.0.0.1:$PORT,
#				then the extra settings given
#	ra ARGS...		run_capture cairn-ra -f $T/ra.conf ARGS...
#				into $T/ra.out and $T/ra.err; sets RC
#	metric NAME VERB	the value of cairn_ra_NAME{verb="VERB"} in
#				$STATUS
#	mkhook DIR NAME BODY	an executable hook DIR/NAME running BODY (sh)
if [ -z "${T:-}" ] || [ ! -d "$T" ]; then
	echo "ralib.sh: source lib.sh and run mk_tmpdir first" >&2
	exit 99
fi
need_cmd flock
RA=$top_builddir/client/cairn-ra
[ -x "$RA" ] || fail "cairn-ra was not built"
CAIRN_RA_BINDIR=$top_builddir/client
export CAIRN_RA_BINDIR
# Never the machine's own configuration.
CAIRN_RA_CONFIG=/nonexistent
export CAIRN_RA_CONFIG

REPO=$T/repo
SRC=$T/src
RADMIND=$T/radmind
R=$T/root
STATUS=$T/metrics/cairn-ra.prom
SYSLOGF=$T/syslog
mkdir -p "$SRC" "$RADMIND" "$R" "$T/metrics" || fail "mkdir"
: >"$SYSLOGF"
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >>"%s"\n' "$SYSLOGF" >"$T/logger"
chmod +x "$T/logger"

ra_publish()
{
	# Removed first: tree_repo copies the tree into file/ra.T.
	[ -n "$REPO" ] && rm -rf "$REPO/file/ra.T"
	tree_repo "$REPO" "$SRC" ra
}

ra_conf()
{
	{
		echo "SERVER=127.0.0.1"
		echo "PORT=$PORT"
		echo "RADMIND_DIR='$RADMIND'"
		echo "WORKDIR='$R'"
		echo "STATUS_FILE='$STATUS'"
		echo "SYSLOG='$T/logger'"
		echo "CHECKSUM=sha1"
		echo "RETRIES=0"
		echo "RETRY_DELAY=1"
		echo "RETRY_MAX_DELAY=1"
		echo "REBOOT_CMD='touch \"$T/rebooted\"'"
		for _v in "$@"; do
			echo "$_v"
		done
	} >"$T/ra.conf"
}

ra()
{
	run_capture "$T/ra.out" "$T/ra.err" "$RA" -f "$T/ra.conf" "$@"
}

metric()
{
	sed -n "s/^cairn_ra_$1{verb=\"$2\"} //p" "$STATUS"
}

mkhook()
{
	mkdir -p "$1" || fail "mkdir $1"
	printf '#!/bin/sh\n%s\n' "$3" >"$1/$2" && chmod +x "$1/$2" ||
	    fail "cannot write hook $1/$2"
}
